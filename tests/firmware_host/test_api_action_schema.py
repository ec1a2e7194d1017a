"""The action route takes every action the engine knows, and its published schema says exactly
what the engine's one parser reads (issue 13 item 7: the late peg in the show; contracts 4)."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.actions import ACTION_CLASSES, ACTION_TYPES, CARD_PATTERN, parse_action
from cribbage.cards import Card
from cribbage.errors import IllegalPlayError, InvalidActionError, InvalidCardError
from cribbage.game import Game
from tests.firmware_host.conftest import Client, ThreadServer
from tests.firmware_host.schema_helpers import BOUNDED, integral_floats, published_schema


def act_ok(client: Client, game: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    r = client.act(game, action)
    assert r.status_code == 200, r.text
    return dict(r.json()["game"])


# -- the late peg, through HTTP -------------------------------------------------------------------
def test_a_late_peg_in_the_show_is_accepted_and_recorded_as_late(server: ThreadServer,
                                                                  client: Client) -> None:
    game = client.new_game(dealer=0)
    game = act_ok(client, game, {"type": "peg", "side": 1, "points": 2})
    game = act_ok(client, game, {"type": "count", "points": 8})  # Bob's hand: the show
    assert "late_peg" in game["legal"] and "peg" not in game["legal"]
    game = act_ok(client, game, {"type": "late_peg", "side": 0, "points": 1})
    assert [s["front"] for s in game["sides"]] == [1, 10]
    assert game["next_count"]["label"] == "Ann's hand"  # the show goes on
    records = server.services.games.entry(game["id"]).game.records
    assert [(r.side, r.kind, r.points) for r in records] == [
        (1, "pegging", 2), (1, "hand", 8), (0, "late", 1)]
    # Read back from the log after a restart, it is the same late peg.
    server.services.games.forget(game["id"])
    again = server.services.games.entry(game["id"]).game.records
    assert again == records


def test_a_late_peg_outside_the_show_is_refused_with_the_engines_sentence(
    client: Client,
) -> None:
    game = client.new_game(dealer=0)
    action = {"type": "late_peg", "side": 0, "points": 1}
    with pytest.raises(IllegalPlayError) as engine:
        Game.new("six-card", ("Ann", "Bob"), dealer=0).apply(parse_action(action))
    r = client.act(game, action)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "illegal_action" and body["say"] == engine.value.say
    assert "late_peg" in body["message"] and body["game"]["version"] == 0


# -- the published schema and the one parser agree -----------------------------------------------
SAMPLE = {"player": 1, "side": 1, "points": 2, "nineteens": 1, "with_crib": True, "card": "5H",
          "cards": ["5H", "JD"],
          "crib": ["5H"], "hands": [["5H"], ["JD"]]}
WRONG = {"player": ["1", 1.5, True, None], "side": ["1", 1.5, False, None],
         "points": ["2", 2.5, True, None], "nineteens": ["1", 1.5, True, None],
         "with_crib": ["true", 1, 0, 1.0, None],
         "card": ["XX", "", 5, ["5H"], None],
         "cards": ["5H", ["ZZ"], [5], {"0": "5H"}], "crib": ["5H", ["1H"], [None]],
         "hands": [["5H"], [[5]], "5H", [["5H", "5X"]]]}


@pytest.fixture(scope="module")
def action_schema(client: Client) -> dict[str, Any]:
    spec = client.req("GET", "/openapi.json", auth=False).json()
    schemas = spec["components"]["schemas"]
    ref = schemas["ActionIn"]["properties"]["action"]["$ref"]
    return dict(schemas[ref.rsplit("/", 1)[1]])


def fields_of(kind: str) -> list[tuple[str, bool]]:
    from dataclasses import MISSING, fields

    return [(f.name, f.default is MISSING) for f in fields(ACTION_CLASSES[kind])]


def parses(action: Any) -> bool:
    try:
        parse_action(action)
    except InvalidActionError:
        return False
    return True


def test_the_schema_has_one_branch_per_engine_action_and_no_other(
    action_schema: dict[str, Any],
) -> None:
    branches = {b["properties"]["type"]["const"]: b for b in action_schema["oneOf"]}
    assert list(branches) == list(ACTION_TYPES)
    for kind, branch in branches.items():
        names = [n for n, _ in fields_of(kind)]
        assert list(branch["properties"]) == ["type", *names], kind
        assert branch["required"] == ["type", *(n for n, need in fields_of(kind) if need)], kind
        assert branch["additionalProperties"] is False


def test_schema_and_parser_accept_and_refuse_the_same_actions(
    action_schema: dict[str, Any],
) -> None:
    check = jsonschema_rs.validator_for(action_schema)
    cases = 0

    def agree(action: Any, expect: bool) -> None:
        nonlocal cases
        cases += 1
        assert (check.is_valid(action), parses(action)) == (expect, expect), action

    for kind in ACTION_TYPES:
        specs = fields_of(kind)
        full = {"type": kind, **{n: SAMPLE[n] for n, _ in specs}}
        agree(full, True)
        agree({"type": kind, **{n: SAMPLE[n] for n, need in specs if need}}, True)
        agree({**full, "extra": 1}, False)
        for name, needed in specs:
            without = {k: v for k, v in full.items() if k != name}
            agree(without, not needed)
            agree({**full, name: None}, not needed)
            for bad in WRONG[name]:
                if bad is not None:
                    agree({**full, name: copy.deepcopy(bad)}, False)
    agree({"type": "fly"}, False)
    agree({"points": 2}, False)
    agree(["peg", 0, 2], False)
    assert cases > 120


def test_every_engine_action_type_reaches_the_engine_through_http(client: Client) -> None:
    game = client.new_game(dealer=0)
    for kind in ACTION_TYPES:
        action = {"type": kind, **{n: SAMPLE[n] for n, need in fields_of(kind) if need}}
        r = client.act(game, action)
        # Accepted, or judged by the engine with its sentence: never refused by the schema.
        assert r.status_code in (200, 422), r.text
        if r.status_code == 422:
            assert r.json()["code"] in ("illegal_action", "invalid_action"), (kind, r.text)
            assert r.json()["say"], kind
        else:
            game = r.json()["game"]


RANKS = ["A", "a", "2", "9", "10", "1\ufe0f0", "J", "j", "Q", "q", "K", "k", "T", "t", "1", "11",
         "0", "B"]
SUITS = ["C", "d", "H", "s", "♣", "♦", "♥", "♠", "♧", "♢", "♡", "♤", "X", "♥\ufe0f", "♤\ufe0e"]


def card_reads(text: str) -> bool:
    try:
        Card.parse(text)
    except InvalidCardError:
        return False
    return True


def test_the_card_pattern_reads_exactly_the_cards_the_parser_reads() -> None:
    import re

    seen = 0
    for rank in RANKS:
        for suit in SUITS:
            for text in (rank + suit, f" {rank}{suit}\t", f"\ufe0f{rank}{suit}",
                         f"{rank} {suit}", f"{rank}{suit}{suit}"):
                seen += 1
                assert bool(re.match(CARD_PATTERN, text)) == card_reads(text), repr(text)
    assert seen == len(RANKS) * len(SUITS) * 5


@settings(max_examples=300, derandomize=True, database=None)
@given(st.text(alphabet="0123456789AJQKTtajqkCDHScdhs♣♦♥♠♧♢♡♤ \t\ufe0e\ufe0fX", max_size=6))
def test_any_short_text_is_a_card_to_the_schema_exactly_when_it_is_to_the_parser(
    text: str,
) -> None:
    schema = {"type": "string", "pattern": CARD_PATTERN}
    assert jsonschema_rs.is_valid(schema, text) == card_reads(text), repr(text)


def test_every_action_the_published_schema_generates_is_read_by_the_parser(
    server: ThreadServer,
) -> None:
    schema = published_schema(server)
    op = schema["/api/games/{game_id}/actions"]["POST"]
    seen: set[str] = set()

    @settings(BOUNDED, max_examples=250)
    @given(case=op.as_strategy())
    def read(case: Any) -> None:
        action = case.body["action"]
        if integral_floats(action):  # JSON Schema's integer; the parser wants an int
            return
        assert parse_action(action).to_json()["type"] == action["type"]
        seen.add(action["type"])

    read()
    # Most branches were drawn (all are walked above).
    assert len(seen) >= 10, " ".join(sorted(seen))
