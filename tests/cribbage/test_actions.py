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
        keeper().apply({"type": "count", "points": points})
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
        (k.apply({"type": "count", "points": 4}), {"type": "peg", "side": 0, "points": 1},
         "The play is over: to add a peg you forgot, enter it as a late peg."),
    ]
    for state, action, say in cases:
        with pytest.raises(IllegalPlayError) as info:
            state.apply(action)
        assert info.value.say == say


def test_cards_mode_out_of_turn_and_a_go_when_any_card_fits() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0, mode="cards")
    k = k.apply({"type": "starter", "card": "5D"})
    with pytest.raises(IllegalPlayError) as info:
        k.apply({"type": "play", "player": 0, "card": "7S"})
    assert info.value.say == "It's Bob's turn to play."
    with pytest.raises(IllegalPlayError) as info:
        k.apply({"type": "go", "player": 1})
    assert info.value.say == "You can't say go: the count is 0, so any card fits."


def test_a_late_peg_during_the_show_is_recorded_as_such_and_the_show_goes_on() -> None:
    k = keeper().apply({"type": "peg", "side": 1, "points": 2})
    k = k.apply({"type": "count", "points": 8})  # Bob's hand: the show has begun
    assert "late_peg" in k.legal_actions() and "peg" not in k.legal_actions()
    k = k.apply({"type": "late_peg", "side": 0, "points": 1})  # Ann's forgotten one for last
    assert k.scores == (1, 10) and k.records[-1].kind == "late"
    assert k.next_count()["label"] == "Ann's hand"  # still her count next
    k = k.apply({"type": "count", "points": 4})
    assert k.scores == (5, 10)
    assert Game.from_json(k.to_json()) == k
    with pytest.raises(IllegalPlayError, match="late peg is entered during the show"):
        keeper().apply({"type": "late_peg", "side": 0, "points": 1})
