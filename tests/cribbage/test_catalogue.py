"""The catalogue publishes what the game does: the targets to offer and the play's limit."""

from __future__ import annotations

import json

import pytest

from cribbage.actions import parse_action
from cribbage.errors import IllegalPlayError
from cribbage.game import Game
from cribbage.pegscore import score_pegging
from cribbage.rules import RULES, catalogue

CAT = json.loads(json.dumps(catalogue()))
VARIANTS = {v["name"]: v for v in CAT["variants"]}
NAMES = {2: ("Ann", "Bob"), 3: ("Ann", "Bob", "Cy"), 4: ("Ann", "Bob", "Cy", "Di")}


def test_every_variant_offers_its_own_target_first_then_the_other_usual_one() -> None:
    assert {n: v["targets"] for n, v in VARIANTS.items()} == {
        "six-card": [121, 61], "five-card": [61, 121],
        "three-player": [121, 61], "four-player": [121, 61]}
    for name, v in VARIANTS.items():
        assert v["targets"][0] == v["defaults"]["target"] == RULES[name].target


@pytest.mark.parametrize("name", list(RULES))
def test_a_game_to_each_offered_target_has_the_lines_the_catalogue_gives(name: str) -> None:
    v = VARIANTS[name]
    for target in v["targets"]:
        for rule in CAT["skunk_rules"]:
            k = Game.new(name, NAMES[v["players"]], target=target, skunk=rule, dealer=0)
            assert k.target == target
            assert list(k.skunk_lines) == v["lines_by_target"][str(target)][rule], (target, rule)


def test_the_play_limit_is_where_the_engine_stops_the_count() -> None:
    limit = VARIANTS["six-card"]["play_limit"]
    assert {v["play_limit"] for v in VARIANTS.values()} == {limit} == {31}
    assert score_pegging(["KH", "QD", "JS", "AC"]).thirty_one == 2  # 31 exactly
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0, mode="cards")
    k = k.apply(parse_action({"type": "starter", "card": "2D"}))
    for player, card in ((1, "KH"), (0, "QD"), (1, "JS")):  # the count is 30
        k = k.apply(parse_action({"type": "play", "player": player, "card": card}))
    with pytest.raises(IllegalPlayError) as refused:
        k.apply(parse_action({"type": "play", "player": 0, "card": "2C"}))
    assert refused.value.say == f"The 2♣ would take the count past {limit}: it is 30."
    # 31: the limit is reachable
    k = k.apply(parse_action({"type": "play", "player": 0, "card": "AC"}))
    assert k.view()["play"]["count"] in (0, limit)

