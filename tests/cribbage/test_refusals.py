"""The one refusal: for any game and any well-formed action, `why_not` is None exactly when
`step` accepts it, a refusal is raised as it was answered, and a refused action changes
nothing (python-chess: `is_legal` answers completely, `push` trusts it)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.actions import (
    Count,
    Cut,
    Deal,
    Dealer,
    Discard,
    Go,
    Heels,
    LatePeg,
    Muggins,
    NextGame,
    Peg,
    Play,
    Redo,
    Starter,
    Undo,
    parse_action,
)
from cribbage.cards import ALL_CARDS
from cribbage.errors import CribbageError
from cribbage.game import Game
from cribbage.simulate import random_action

GAMES = [("six-card", ("Ann", "Bob")), ("five-card", ("Ann", "Bob")),
         ("three-player", ("Ann", "Bob", "Cy")), ("four-player", ("Ann", "Bob", "Cy", "Di"))]

cards = st.sampled_from(ALL_CARDS)
some_cards = st.lists(cards, min_size=0, max_size=7).map(tuple)
index = st.integers(-1, 4)
points = st.integers(-2, 32)
actions = st.one_of(
    st.builds(Cut, some_cards), st.builds(Dealer, index),
    st.builds(Deal, st.lists(some_cards, max_size=4).map(tuple), some_cards),
    st.builds(Discard, index, some_cards), st.builds(Peg, index, points),
    st.builds(LatePeg, index, points), st.just(Heels()), st.builds(Starter, cards),
    st.builds(Play, index, cards), st.builds(Go, index),
    st.builds(Count, st.none() | points, st.none() | some_cards),
    st.builds(Muggins, index, st.none() | points), st.just(Undo()), st.just(Redo()),
    st.just(NextGame()))


def _keeper_move(g: Game, rng: random.Random) -> dict[str, Any]:
    legal = g.legal_actions()
    if "peg" in legal and rng.random() < 0.5:
        return {"type": "peg", "side": rng.randrange(len(g.sides)), "points": rng.randint(1, 6)}
    if "starter" in legal and rng.random() < 0.3:
        return {"type": "starter", "card": str(rng.choice(ALL_CARDS))}
    if "count" in legal:
        return {"type": "count", "points": rng.choice([0, 2, 4, 6, 8, 12, 19])}
    return {"type": rng.choice([k for k in legal if k in ("next_game", "heels", "undo")])}


def _game(seed: int, steps: int, mode: str, which: int, muggins: bool) -> Game:
    """A game `steps` random legal actions in (dealt and keeper modes; a cards-mode game is
    played on by the random actions tried)."""
    variant, names = GAMES[which]
    rng = random.Random(seed)
    g = Game.new(variant, names, mode=mode, muggins=muggins,
                 dealer=None if mode == "dealt" or not steps else rng.randrange(len(names)))
    if mode == "cards":
        return g
    for _ in range(steps):
        move = _keeper_move(g, rng) if mode == "keeper" else random_action(g, rng)
        g = g.apply(parse_action(move))
    return g


@given(seed=st.integers(0, 10**6), steps=st.integers(0, 5) | st.integers(0, 80),
       mode=st.sampled_from(["dealt", "keeper", "cards"]), which=st.integers(0, 3),
       muggins=st.booleans(), tried=st.lists(actions, min_size=1, max_size=30))
@settings(max_examples=300, deadline=None)
def test_why_not_is_none_exactly_when_step_succeeds(seed: int, steps: int, mode: str,
                                                    which: int, muggins: bool,
                                                    tried: list[Any]) -> None:
    g = _game(seed, steps, mode, which, muggins)
    for action in tried:
        before = g.to_json()
        why = g.why_not(action)
        try:
            new, events = g.step(action)
        except CribbageError as exc:
            assert why is not None, (action, exc)
            assert type(exc) is why.error and exc.say == why.say and why.detail in str(exc)
            assert g.to_json() == before  # a refused action changes nothing
        else:
            assert why is None, (action, why)
            assert action.type in g.legal_actions()
            assert action.type in ("undo", "redo") or new.past[-1][0] == action
            g = new  # an accepted action plays the game on


def test_a_game_takes_typed_actions_only() -> None:
    g = Game.new(dealer=0)
    for untyped in ({"type": "peg", "side": 0, "points": 2}, "peg", None):
        for call in (g.step, g.why_not):
            try:
                call(untyped)  # type: ignore[arg-type]
            except TypeError as exc:
                assert "parse_action" in str(exc)
            else:
                raise AssertionError(f"{call.__name__} took {untyped!r}")


def test_a_handlers_refusal_is_worded_by_the_step_with_the_games_state(
        monkeypatch: Any) -> None:
    """A handler knows only the table: it raises a state-free refusal, and the step (the one
    place that knows the whole game) adds the action and the state."""
    from cribbage.errors import ImpossibleScoreError
    from cribbage.game import machine
    from cribbage.game.table import Refusal, Refused

    def refuses(table: Any, state: Any, action: Any) -> Any:
        raise Refused(Refusal("no such peg", "That peg isn't there.", ImpossibleScoreError))

    monkeypatch.setitem(machine._HANDLERS, "peg", refuses)
    g = Game.new(dealer=0)
    try:
        g.step(Peg(0, 2))
    except ImpossibleScoreError as exc:
        assert str(exc) == f"action peg (side=0, points=2) refused: no such peg ({g.describe()})"
        assert exc.say == "That peg isn't there."
    else:
        raise AssertionError("the handler's refusal was lost")
    assert g.scores == (0, 0) and not g.can_undo


def test_a_redo_from_a_record_is_checked_like_any_action() -> None:
    g = Game.new(dealer=0)
    record = {**g.to_json(), "redo": [{"type": "peg", "side": 7, "points": 2}]}
    loaded = Game.from_json(record)
    assert loaded.can_redo and loaded.why_not(Redo()) is not None
    try:
        loaded.step(Redo())
    except CribbageError as exc:
        assert "no side 7" in str(exc) and exc.say == "There are 2 sides, numbered 0 to 1."
    else:
        raise AssertionError("a redo of an impossible peg was taken")
    assert Game.new(dealer=0).why_not(Redo()) is not None  # nothing to redo
    for stored in ({"type": "undo"}, {"type": "redo"}):
        try:
            Game.from_json({**g.to_json(), "redo": [stored]})
        except CribbageError as exc:
            assert "redo 0 of the record" in str(exc)
        else:
            raise AssertionError(f"a record kept {stored} to redo")
