"""What happened, from the engine: `Game.step` returns the new game and the events of the action,
each with a stable kind, a sentence in the table's words and a JSON form."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from cribbage import Game, IllegalPlayError, Step
from cribbage.actions import parse_action
from cribbage.game import EVENT_KINDS
from cribbage.game.events import (
    CardPlayed,
    DealerChosen,
    GameWon,
    HandBegun,
    MugginsClaimed,
    Redone,
    SaidGo,
    Scored,
    Shown,
    StarterTurned,
    Undone,
)
from cribbage.simulate import random_action

NAMES = {"six-card": ("Ann", "Bob"), "five-card": ("Ann", "Bob"),
         "three-player": ("Ann", "Bob", "Cy"), "four-player": ("Ann", "Bob", "Cy", "Di")}


def steps(game: Game, *actions: dict[str, Any]) -> tuple[Game, list[Any]]:
    """The game after the actions, and every event they caused, in order."""
    events: list[Any] = []
    for action in actions:
        game, more = game.step(parse_action(action))
        events += more
    return game, events


def test_step_returns_the_game_and_its_events_and_apply_is_its_game() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), mode="cards", dealer=0)
    out = g.step(parse_action({"type": "starter", "card": "5H"}))
    assert isinstance(out, Step) and out.game == g.apply(parse_action(
            {"type": "starter", "card": "5H"}))
    assert out.events == (StarterTurned(out.game.starter, "The starter is the 5♥."),)  # type: ignore[arg-type]
    assert g.phase == "play" and g.starter is None  # the old game is unchanged


def test_a_jack_starter_pegs_his_heels_as_an_event_with_its_parts() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), mode="cards", dealer=0)
    g, events = steps(g, {"type": "starter", "card": "JD"})
    starter, heels = events
    assert isinstance(starter, StarterTurned) and str(starter.card) == "JD"
    assert heels == Scored(0, 0, 2, "heels", (("heels", 2),), 2, 0, 1, 1,
                           "Two for his heels to Ann.")


def test_cards_played_say_the_count_and_what_they_peg() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), mode="cards", dealer=0)
    g, events = steps(g, {"type": "starter", "card": "2C"},
                      {"type": "play", "player": 1, "card": "5H"},
                      {"type": "play", "player": 0, "card": "KS"},
                      {"type": "play", "player": 1, "card": "KD"})
    kinds = [e.kind for e in events]
    assert kinds == ["starter", "play", "play", "score", "play", "score"]
    assert events[2] == CardPlayed(0, events[2].card, 15, "Ann plays the K♠: 15.")
    assert events[3].say == "Ann pegs 2: fifteen two." and events[3].parts == (("fifteen", 2),)
    assert events[5].say == "Bob pegs 2: twenty-five, a pair for two."
    assert events[5].parts == (("pairs", 2),) and events[5].front == 2
    assert g.scores == (2, 2)


def test_a_go_and_the_point_for_last() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), mode="cards", dealer=0)
    g, _ = steps(g, {"type": "starter", "card": "2C"},
                 {"type": "play", "player": 1, "card": "KH"},
                 {"type": "play", "player": 0, "card": "KS"},
                 {"type": "play", "player": 1, "card": "9D"})  # 29
    g, events = g.step(parse_action({"type": "go", "player": 0}))
    assert events[0] == SaidGo(0, 29, "Ann says go at 29.")
    g, events = g.step(parse_action({"type": "go", "player": 1}))
    go, last = events
    assert go == SaidGo(1, 29, "Bob says go at 29.")
    assert isinstance(last, Scored) and last.points == 1 and last.player == 1
    assert last.say == "Bob pegs 1: one for last."


def test_a_hand_shown_with_cards_gives_its_breakdown_and_a_zero_hand_scores_nothing() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), mode="dealt", dealer=0)
    g, _ = steps(g, {"type": "deal", "hands": [["AH", "2H", "3H", "4H", "2D", "4C"],
                                               ["5S", "5D", "TC", "9S", "6D", "8S"]]},
                 {"type": "discard", "player": 0, "cards": ["2D", "4C"]},
                 {"type": "discard", "player": 1, "cards": ["6D", "8S"]},
                 {"type": "starter", "card": "JH"})
    while not g.play.done:  # type: ignore[union-attr]
        g = g.apply(parse_action(g.play.legal_actions()[0]))  # type: ignore[union-attr]
    g, events = g.step(parse_action({"type": "count"}))  # Bob: 5 5 T 9 / JH
    shown = events[0]
    assert isinstance(shown, Shown) and shown.count == "hand" and shown.player == 1
    assert shown.true_total == shown.points == 13 and shown.breakdown is not None
    assert shown.say == f"Bob's hand: {shown.breakdown['say']}."
    assert shown.say.endswith("and a run of three makes thirteen.")
    assert events[1].kind == "score"
    assert events[1].parts == (("fifteens", 8), ("pairs", 2), ("runs", 3))
    # Ann: A 2 3 4 of hearts, JH: fifteens, run, flush
    g, events = g.step(parse_action({"type": "count"}))
    assert events[0].points == events[1].points == 13
    assert events[1].parts == (("fifteens", 4), ("runs", 4), ("flush", 5))
    g, events = g.step(parse_action({"type": "count"}))  # the crib 2 4 6 8 / JH: nothing
    assert [e.kind for e in events] == ["show", "hand"]
    assert events[0].say == "Ann's crib: nineteen, nothing." and events[0].points == 0
    assert events[1] == HandBegun(1, 2, 1, "Hand 2: Bob deals.")


def test_a_keeper_count_and_a_muggins_claim() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), dealer=0, muggins=True)
    g, events = steps(g, {"type": "count", "points": 6})
    assert [e.kind for e in events] == ["show", "score"]
    assert events[0].say == "Bob's hand: 6." and events[0].breakdown is None
    g, events = g.step(parse_action({"type": "muggins", "side": 0, "points": 2}))
    assert events[0] == MugginsClaimed(0, 2, "Bob's hand", "Muggins! Ann takes 2 missed in "
                                       "Bob's hand.")
    assert events[1].reason == "muggins" and events[1].front == 2


def test_the_game_won_names_its_result_and_the_lines() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), dealer=0)
    g, events = steps(g, {"type": "peg", "side": 1, "points": 10},
                      *[{"type": "peg", "side": 0, "points": 15}] * 8,
                      {"type": "peg", "side": 0, "points": 4})  # 124: the peg stops at 121
    assert events[-2].points == 1 and events[-2].say == "Ann pegs 4 (to the game hole, 1 of 4)."
    won = events[-1]
    assert isinstance(won, GameWon) and won.result == g.result and won.winner == "Ann"
    assert dict(won.lines) == {"skunk": 91, "double_skunk": 61}
    assert [(c.side, c.line, c.under) for c in won.caught] == [(1, "double_skunk", 61)]
    assert won.say == "Ann wins 121 to 10, a double skunk (4 games)."
    assert json.loads(json.dumps(won.to_json()))["lines"] == {"skunk": 91, "double_skunk": 61}


def test_with_three_players_the_game_won_says_who_is_skunked() -> None:
    g = Game.new("three-player", ("Ann", "Bob", "Cy"), dealer=0)
    g, events = steps(g, {"type": "peg", "side": 1, "points": 15},
                      *[{"type": "peg", "side": 1, "points": 5}] * 13,  # Bob 80
                      {"type": "peg", "side": 2, "points": 12},
                      *[{"type": "peg", "side": 0, "points": 15}] * 9)  # Ann 121
    won = events[-1]
    assert isinstance(won, GameWon) and g.result is not None and g.result.loser == 2
    assert [(c.name, c.line) for c in won.caught] == [("Bob", "skunk"), ("Cy", "double_skunk")]
    assert won.say == ("Ann wins 121 to 80 and 12: Bob is skunked (under 91), Cy is double "
                       "skunked (under 61) (4 games).")


def test_undo_and_redo_carry_the_action_its_events_and_the_pegs_they_moved() -> None:
    g = Game.new("six-card", ("Ann", "Bob"), dealer=0)
    g, done = g.step(parse_action({"type": "peg", "side": 1, "points": 3}))
    g, (undone,) = g.step(parse_action({"type": "undo"}))
    assert isinstance(undone, Undone) and undone.events == done
    assert undone.action.to_json() == {"type": "peg", "side": 1, "points": 3}
    assert [(m.side, m.before, m.after) for m in undone.moved] == [(1, 3, 0)]
    assert undone.say == "Undone: Bob pegs 3 (Bob 3 → 0)."
    g, (redone,) = g.step(parse_action({"type": "redo"}))
    assert isinstance(redone, Redone) and redone.events == done and g.scores == (0, 3)
    assert redone.say == "Redone: Bob pegs 3 (Bob 0 → 3)."


def test_the_cut_for_deal_is_an_event_and_a_refused_action_has_none() -> None:
    g = Game.new("six-card", ("Ann", "Bob"))
    with pytest.raises(IllegalPlayError):
        g.step(parse_action({"type": "cut", "cards": ["4H", "4S"]}))
    g, events = g.step(parse_action({"type": "cut", "cards": ["KH", "2S"]}))
    assert events[0] == DealerChosen(1, g.core.cut, "Cut for deal: Ann the K♥, Bob the 2♠; "
                                     "the lower card deals, so Bob deals.")
    assert events[1] == HandBegun(1, 1, 1, "Hand 1: Bob deals.")


def test_five_card_the_higher_card_deals_and_the_loser_of_the_cut_pegs_three() -> None:
    g = Game.new("five-card", ("Ann", "Bob"))
    with pytest.raises(IllegalPlayError, match="Ann and Bob tie for the highest card"):
        g.step(parse_action({"type": "cut", "cards": ["QH", "QS"]}))
    g, events = g.step(parse_action({"type": "cut", "cards": ["QH", "2C"]}))
    assert g.dealer == 0 and g.scores == (0, 3)
    assert events[0].say == ("Cut for deal: Ann the Q♥, Bob the 2♣; the higher card deals, "
                             "so Ann deals.")
    assert events[2] == Scored(1, 1, 3, "start", (("start", 3),), 3, 0, 1, 1,
                               "Bob pegs 3 to start: Ann has the first crib.")
    g, _ = Game.new("five-card", ("Ann", "Bob")).step(parse_action(
            {"type": "cut", "cards": ["2C", "QH"]}))
    assert g.dealer == 1 and g.scores == (3, 0)


@pytest.mark.parametrize("variant", list(NAMES))
@pytest.mark.parametrize("mode", ["dealt", "keeper"])
def test_events_agree_with_the_records_in_random_games(variant: str, mode: str) -> None:
    """Every point pegged is one `Scored` event, in order, with the record's side, player,
    kind and points; the events' JSON is JSON and their kinds are the published ones."""
    rng = random.Random(f"{variant}-{mode}")
    for _ in range(2):
        g = Game.new(variant, NAMES[variant], mode="dealt", muggins=rng.random() < 0.5)
        if mode == "keeper":
            g = Game.new(variant, NAMES[variant], dealer=rng.randrange(len(NAMES[variant])))
        games_over = 0
        while not games_over:  # to the end of a game and the first action of the next
            if mode == "keeper":
                action = _keeper_action(g, rng)
            else:
                action = random_action(g, rng)
            before = g
            g, events = g.step(parse_action(action))
            new = g.records[len(before.records):]
            scored = [e for e in events if isinstance(e, Scored)]
            assert [(r.side, r.player, r.kind, r.points) for r in new if r.points] == [
                (e.side, e.player, e.reason, e.points) for e in scored]
            assert all(sum(p for _, p in e.parts) >= e.points for e in scored)
            for e in events:
                assert e.kind in EVENT_KINDS and e.say.endswith(".")
                assert json.loads(json.dumps(e.to_json()))["kind"] == e.kind
            games_over += sum(isinstance(e, GameWon) for e in events)
            if g.phase == "over":
                assert isinstance(events[-1], GameWon) and events[-1].result == g.result
                g = g.apply(parse_action({"type": "next_game"}))
        assert games_over >= 1


def _keeper_action(g: Game, rng: random.Random) -> dict[str, Any]:
    legal = g.legal_actions()
    if "peg" in legal and rng.random() < 0.6:
        return {"type": "peg", "side": rng.randrange(len(g.sides)), "points": rng.randint(1, 4)}
    if "count" in legal:
        return {"type": "count", "points": rng.choice([0, 2, 4, 6, 8, 12])}
    return {"type": "next_game"}


def test_every_event_kind_is_made_by_some_game() -> None:
    seen: Counter[str] = Counter()
    rng = random.Random(7)
    for variant in NAMES:
        g = Game.new(variant, NAMES[variant], mode="dealt", muggins=True)
        for _ in range(600):
            g, events = g.step(parse_action(random_action(g, rng)))
            seen.update(e.kind for e in events)
            if rng.random() < 0.02 and g.can_undo:
                g, events = g.step(parse_action({"type": "undo"}))
                seen.update(e.kind for e in events)
                g, events = g.step(parse_action({"type": "redo"}))
                seen.update(e.kind for e in events)
    assert set(seen) == set(EVENT_KINDS)


def _candidates(g: Game, rng: random.Random) -> list[dict[str, Any]]:
    """Actions of every type, legal or not, for the state `g`."""
    from cribbage.cards import ALL_CARDS

    cards = [str(c) for c in rng.sample(ALL_CARDS, 6)]
    n = len(g.names)
    legal = g.play.legal_actions() if g.play is not None and not g.play.done else []
    return [
        {"type": "cut", "cards": cards[:n]}, {"type": "dealer", "player": rng.randrange(n)},
        {"type": "next_game"}, {"type": "peg", "side": 0, "points": rng.randint(0, 16)},
        {"type": "late_peg", "side": 1, "points": 2}, {"type": "heels"},
        {"type": "starter", "card": cards[0]},
        {"type": "play", "player": rng.randrange(n), "card": cards[1]},
        {"type": "go", "player": rng.randrange(n)}, {"type": "count"},
        {"type": "count", "points": rng.randint(0, 30)},
        {"type": "muggins", "side": rng.randrange(len(g.sides)), "points": rng.randint(1, 3)},
        {"type": "undo"}, {"type": "redo"},
        *rng.sample(legal, min(4, len(legal))), *_shown_count(g, rng),
    ]


def _shown_count(g: Game, rng: random.Random) -> list[dict[str, Any]]:
    """Cards mode: a count of the hand due with cards it may hold (its own played cards and
    unseen ones)."""
    from cribbage.cards import ALL_CARDS

    due, ps = g.next_count(), g.play
    if due is None or ps is None or not ps.done or g.mode != "cards":
        return []
    size = g.rules.crib_size if due["kind"] == "crib" else g.rules.hand_size
    own = list(ps.played_by(due["player"])) if due["kind"] == "hand" else []
    seen = {c for _, c in ps.played} | set(g.core.shown) | {g.starter}
    rest = [c for c in ALL_CARDS if c not in seen]
    return [{"type": "count", "cards": [str(c) for c in own + rng.sample(rest, size - len(own))]}]


@pytest.mark.parametrize("mode", ["dealt", "cards", "keeper"])
def test_why_not_is_none_exactly_when_step_accepts_and_legal_actions_come_from_it(
        mode: str) -> None:
    """One decision: `why_not` refuses what `step` refuses, with the same sentence, and
    `legal_actions` lists exactly the types some refusal lets through."""
    from cribbage.errors import CribbageError
    from cribbage.game.refusals import ORDER, kind_refusal

    def allowed(g: Game, kind: str) -> bool:
        if kind in ("undo", "redo"):
            return g.can_undo if kind == "undo" else g.can_redo
        return kind_refusal(g.table, g.core, kind) is None

    rng = random.Random(mode)
    g = Game.new("three-player" if mode == "cards" else "six-card", ("Ann", "Bob", "Cy")
                 if mode == "cards" else ("Ann", "Bob"), mode=mode, muggins=True)
    for _ in range(300):
        assert g.legal_actions() == [k for k in ORDER if allowed(g, k)]
        for action in map(parse_action, _candidates(g, rng)):
            why = g.why_not(action)
            try:
                g.step(action)
            except CribbageError as exc:
                assert why is not None and why.say == exc.say, (action, why, exc)
                assert type(exc) is why.error and why.detail in str(exc)
            else:
                assert why is None, (action, why)
                assert action.type in g.legal_actions()
        if mode == "dealt":
            action = random_action(g, rng)
        else:
            accepted = [a for a in _candidates(g, rng) if a["type"] not in ("undo", "redo")
                        and _accepts(g, a)]
            if not accepted:
                continue  # new candidates next time round
            action = rng.choice(accepted)
        g = g.apply(parse_action(action))


def _accepts(g: Game, action: dict[str, Any]) -> bool:
    return g.why_not(parse_action(action)) is None
