"""Typed actions: one parser and formatter; malformed vs illegal; words for the table."""

from __future__ import annotations

from typing import Any

import pytest

from cribbage import Game
from cribbage.actions import (
    ACTION_TYPES,
    Count,
    Deal,
    LatePeg,
    Peg,
    Play,
    Undo,
    format_action,
    parse_action,
)
from cribbage.cards import Card
from cribbage.errors import IllegalPlayError, ImpossibleScoreError, InvalidActionError


@pytest.mark.parametrize("data,action", [
    ({"type": "count", "points": 25}, Count(points=25)),
    ({"type": "count"}, Count()),
    ({"type": "play", "player": 1, "card": "5H"}, Play(1, Card.parse("5H"))),
    ({"type": "peg", "side": 0, "points": 2}, Peg(0, 2)),
    ({"type": "late_peg", "side": 1, "points": 1}, LatePeg(1, 1)),
    ({"type": "deal", "hands": [["5H"], ["JD"]], "crib": ["2C"]},
     Deal((( Card.parse("5H"),), (Card.parse("JD"),)), (Card.parse("2C"),))),
    ({"type": "undo"}, Undo()),
])
def test_parse_and_format_are_a_pair(data: dict[str, Any], action: Any) -> None:
    assert parse_action(data) == action
    assert format_action(action) == data == action.to_json()
    assert parse_action(action) is action


def test_every_type_of_the_vocabulary_parses() -> None:
    assert set(ACTION_TYPES) == {"cut", "dealer", "deal", "discard", "peg", "late_peg", "heels",
                                 "starter", "play", "go", "count", "muggins", "undo", "redo",
                                 "next_game"}


@pytest.mark.parametrize("data,detail,say", [
    ({"type": "fly"}, "unknown action type 'fly'", "'fly' isn't something the table can do."),
    ([1, 2], "a dict with a 'type'", "That isn't something the table can do."),
    ({"type": "count", "points": "8"}, "points must be a whole number",
     "The points of a count must be a whole number, not '8'."),
    ({"type": "count", "points": True}, "whole number", None),
    ({"type": "play", "player": 0}, "play needs 'card'", "A play needs its card."),
    ({"type": "play", "player": 0, "card": ""}, "not a card: ''",
     "'' isn't a card: write the rank then the suit, like 5H or 10♥."),
    ({"type": "cut", "cards": "5H 6H"}, "must be a list", None),
    ({"type": "peg", "side": 0, "points": 1, "late": True}, "unknown field 'late'", None),
])
def test_malformed_actions_raise_invalid_action_error(data: Any, detail: str,
                                                      say: str | None) -> None:
    with pytest.raises(InvalidActionError, match=detail) as info:
        parse_action(data)
    assert not isinstance(info.value, IllegalPlayError)
    if say is not None:
        assert info.value.say == say


def keeper(**kw: Any) -> Game:
    return Game.new("six-card", ("Ann", "Bob"), dealer=0, **kw)


@pytest.mark.parametrize("points,say", [
    (25, "25 isn't a hand anyone can hold: counts go from 0 to 29, but never 19, 25, 26 or 27."),
    (30, "30 isn't a hand anyone can hold: counts go from 0 to 29, but never 19, 25, 26 or 27."),
])
def test_an_impossible_count_is_said_as_a_player_would(points: int, say: str) -> None:
    with pytest.raises(ImpossibleScoreError) as info:
        keeper().apply(parse_action({"type": "count", "points": points}))
    assert info.value.say == say
    assert "count" in str(info.value) and "hand 1, Ann dealt" in str(info.value)


def test_refusals_speak_to_the_table() -> None:
    k = keeper()
    cases = [
        (k, {"type": "peg", "side": 0, "points": 20}, "One card pegs 1 to 15 in the play, not 20."),
        (k, {"type": "redo"}, "There's nothing to redo."),
        (Game.new("six-card", ("Ann", "Bob")), {"type": "count", "points": 4},
         "Cut for deal first, or say who deals."),
        (Game.new("six-card", ("Ann", "Bob")), {"type": "cut", "cards": ["4H", "4S"]},
         "Ann and Bob tie for the lowest card: cut again."),
        (k.apply(parse_action(
                {"type": "count", "points": 4})), {"type": "peg", "side": 0, "points": 1},
         "The play is over: to add a peg you forgot, enter it as a late peg."),
    ]
    for state, action, say in cases:
        with pytest.raises(IllegalPlayError) as info:
            state.apply(parse_action(action))
        assert info.value.say == say


def test_cards_mode_out_of_turn_and_a_go_when_any_card_fits() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0, mode="cards")
    k = k.apply(parse_action({"type": "starter", "card": "5D"}))
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 0, "card": "7S"}))
    assert info.value.say == "It's Bob's turn to play."
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "go", "player": 1}))
    assert info.value.say == "You can't say go: the count is 0, so any card fits."


def test_a_late_peg_during_the_show_is_recorded_as_such_and_the_show_goes_on() -> None:
    k = keeper().apply(parse_action({"type": "peg", "side": 1, "points": 2}))
    k = k.apply(parse_action({"type": "count", "points": 8}))  # Bob's hand: the show has begun
    assert "late_peg" in k.legal_actions() and "peg" not in k.legal_actions()
    # Ann's forgotten one for last
    k = k.apply(parse_action({"type": "late_peg", "side": 0, "points": 1}))
    assert k.scores == (1, 10) and k.records[-1].kind == "late"
    assert k.next_count()["label"] == "Ann's hand"  # still her count next
    k = k.apply(parse_action({"type": "count", "points": 4}))
    assert k.scores == (5, 10)
    assert Game.from_json(k.to_json()) == k
    with pytest.raises(IllegalPlayError, match="late peg is entered during the show"):
        keeper().apply(parse_action({"type": "late_peg", "side": 0, "points": 1}))


# ---- the canonical form, and records of earlier versions -----------------------------------

OLD_SPELLINGS = [
    ({"type": "play", "player": 0, "card": "10♥"}, {"type": "play", "player": 0, "card": "10H"}),
    ({"type": "play", "player": 1, "card": " th "}, {"type": "play", "player": 1, "card": "10H"}),
    ({"type": "cut", "cards": ["k♡", "2s"]}, {"type": "cut", "cards": ["KH", "2S"]}),
    ({"type": "count", "points": None, "cards": ["5\ufe0fH", "jd", "10c", "As"]},
     {"type": "count", "cards": ["5H", "JD", "10C", "AS"]}),
    ({"type": "muggins", "side": 1, "points": None}, {"type": "muggins", "side": 1}),
    ({"type": "starter", "card": "Q♣\ufe0e"}, {"type": "starter", "card": "QC"}),
]


@pytest.mark.parametrize(("old", "canonical"), OLD_SPELLINGS)
def test_every_spelling_reads_to_one_canonical_form(old: dict[str, Any],
                                                    canonical: dict[str, Any]) -> None:
    action = parse_action(old)
    assert action.to_json() == format_action(action) == canonical
    assert type(action).from_json(old) == action == parse_action(canonical)


def test_from_json_of_a_class_refuses_another_type() -> None:
    from cribbage.actions import Cut

    assert Play.from_json({"type": "play", "player": 0, "card": "5h"}) == parse_action(
        {"type": "play", "player": 0, "card": "5H"})
    with pytest.raises(InvalidActionError, match="not a cut action"):
        Cut.from_json({"type": "undo"})


def test_a_record_written_with_old_spellings_loads_and_is_stored_canonical() -> None:
    """A game record as an earlier version stored it (the phone's own spelling of each card,
    null fields) replays to the same game, and is written back in canonical form."""
    record = {
        "format": "cribbage-keeper", "version": 1,
        "config": {"variant": "six-card", "names": ["Ann", "Bob"], "target": 121,
                   "skunk": "skunk", "muggins": False, "mode": "cards", "dealer": 0},
        "actions": [{"type": "starter", "card": "j♦"},
                    {"type": "play", "player": 1, "card": "5\ufe0f♥"},
                    {"type": "play", "player": 0, "card": "th"}],
        "redo": [],
    }
    game = Game.from_json(record)
    assert game.scores == (4, 0)  # his heels, then fifteen two
    again = Game.from_json(game.to_json())
    assert again.view() == game.view()
    assert game.to_json()["actions"] == [
        {"type": "starter", "card": "JD"}, {"type": "play", "player": 1, "card": "5H"},
        {"type": "play", "player": 0, "card": "10H"}]
