"""What the daemon reads from the engine: typed accessors, score records, the published rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

import cribbage.rules as rules_module
from cribbage import Game
from cribbage.actions import parse_action
from cribbage.game import Pegs, ScoreRecord
from cribbage.rules import RULES, SkunkLines, catalogue, get_rules
from tests.cribbage.keeper_helpers import act, count, peg


def test_pegs_scores_phase_turn_and_names_are_typed() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0)
    assert k.names == ("Ann", "Bob") and k.phase == "play" and k.turn == 1
    k = act(k, peg(1, 2), peg(0, 3), peg(1, 1))
    assert k.pegs == (Pegs(3, 0), Pegs(3, 2)) and k.scores == (3, 3)
    k = act(k, count(8))
    assert k.phase == "show" and k.turn == 0  # the dealer's hand is next
    assert k.pegs[1] == Pegs(11, 3)


def test_records_say_who_pegged_what_for_which_hand_and_undo_removes_them() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0)
    k = act(k, {"type": "starter", "card": "JH"}, peg(1, 2), count(19), count(12), count(4))
    assert k.records == (
        ScoreRecord(1, 1, 0, 0, "heels", 2),
        ScoreRecord(1, 1, 1, 1, "pegging", 2),
        ScoreRecord(1, 1, 1, 1, "hand", 0),  # a nineteen is recorded as a hand of nothing
        ScoreRecord(1, 1, 0, 0, "hand", 12),
        ScoreRecord(1, 1, 0, 0, "crib", 4),
    )
    assert sum(r.points for r in k.records if r.side == 0) == k.scores[0]
    assert act(k, {"type": "undo"}).records == k.records[:-1]
    assert k.hand_number == 2 and k.dealer == 1 and k.turn == 0


def test_a_count_past_the_target_records_what_reached_the_game_hole() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0, target=10)
    k = act(k, peg(1, 5), count(12))
    assert k.scores == (0, 10) and k.records[-1] == ScoreRecord(1, 1, 1, 1, "hand", 5)
    assert k.result is not None and k.result.winner == 1 and k.result.game_points == 2


def test_games_won_and_game_points_are_separate_figures() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0, target=10)
    k = act(k, count(12))  # Bob out, Ann at 0: a skunk (a short game's one line is at 5)
    assert k.result.kind.value == "skunk"
    assert k.games_won == (0, 1) and k.match_points == (0, 2)
    k = act(k, {"type": "next_game"}, peg(0, 5), count(12))  # Ann deals; Bob out again
    assert k.result.kind.value == "win"
    assert k.game_number == 2 and k.games_won == (0, 2) and k.match_points == (0, 3)
    assert {r.game for r in k.records} == {1, 2} and len(k.game_records()) == 2


def test_the_five_card_start_is_recorded() -> None:
    k = Game.new("five-card", ("Ann", "Bob"), dealer=0)
    assert k.records == (ScoreRecord(1, 1, 1, 1, "start", 3),)


@pytest.mark.parametrize("variant,skunk,target,lines", [
    ("six-card", "skunk", None, [91, 61]),
    ("six-card", "lurch", None, [61]),
    ("six-card", "none", None, []),
    ("six-card", "skunk", 61, [31]),
    ("five-card", "skunk", None, [31]),
])
def test_the_view_carries_the_skunk_lines_of_this_game(
        variant: str, skunk: str, target: int | None, lines: list[int]) -> None:
    k = Game.new(variant, ("Ann", "Bob"), skunk=skunk, target=target)
    assert k.view()["skunk_lines"] == lines and list(k.skunk_lines) == lines


def test_the_catalogue_lists_every_variant_with_defaults_sizes_and_counts() -> None:
    cat = json.loads(json.dumps(catalogue()))
    assert [v["name"] for v in cat["variants"]] == list(RULES)
    six = cat["variants"][0]
    assert six["title"] == "Two players, six cards" and six["players"] == 2
    assert (six["deal"], six["discard"], six["hand_size"], six["crib_from_deck"]) == (6, 2, 4, 0)
    assert six["defaults"]["target"] == 121 and six["defaults"]["skunk"] == "skunk"
    assert six["skunk_lines"] == [91, 61] and not six["partners"]
    four_card = [t for t in range(30) if t not in (19, 25, 26, 27)]
    # A hand and crib together (keeper mode's one total): every sum of the two, so 54 (29
    # with 25, 28 with 26, 27 with 27) and 55 are never offered.
    both = [t for t in range(59) if t not in (54, 55)]
    assert six["counts"] == {"hand": four_card, "crib": four_card, "hand_and_crib": both}
    assert cat["counts"]["hand"] == four_card
    five = cat["variants"][1]
    assert five["counts"]["hand"] == list(range(16)) + [20] and five["skunk_lines"] == [31]
    assert cat["variants"][3]["partners"] and cat["skunk_rules"] == ["skunk", "lurch", "none"]


def test_changing_the_lines_in_one_place_changes_the_view_and_the_catalogue(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = SkunkLines.for_target.__func__  # type: ignore[attr-defined]

    def shifted(cls: type[SkunkLines], target: int, skunk: Any = "skunk") -> SkunkLines:
        lines = original(cls, target, skunk)
        return SkunkLines(*(None if x is None else x - 1 for x in
                            (lines.skunk, lines.double_skunk, lines.lurch)))

    monkeypatch.setattr(rules_module.SkunkLines, "for_target", classmethod(shifted))
    assert Game.new("six-card", ("Ann", "Bob")).view()["skunk_lines"] == [90, 60]
    assert catalogue()["variants"][0]["skunk_lines"] == [90, 60]
    assert get_rules("six-card").result((121, 90)).kind.value == "win"


def test_the_engine_decides_the_dealer_from_the_cut_and_the_view_shows_it() -> None:
    k = Game.new("three-player", ("Ann", "Bob", "Cy"))
    assert k.legal_actions() == ["cut", "dealer"] and k.view()["cut"] == []
    k = k.apply(parse_action({"type": "cut", "cards": ["9H", "AS", "KD"]}))  # Bob's ace is lowest
    assert k.dealer == 1 and k.view()["cut"] == ["9H", "AS", "KD"] and k.view()["dealer"] == 1
    assert k.turn == 2  # Cy, left of the dealer, counts (and plays) first
