"""An independent review of the game machine: typed actions, the package's exports, and
whole random games in dealt mode checked against invariants and a pegging reference written
from the rule texts (not from `cribbage.pegscore`)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

import cribbage
from cribbage.actions import (
    ACTION_CLASSES,
    Count,
    Cut,
    Deal,
    Muggins,
    Peg,
    Play,
    Starter,
    parse_action,
)
from cribbage.cards import Card
from cribbage.errors import IllegalPlayError, InvalidActionError
from cribbage.game import Game, Phase
from cribbage.simulate import random_action

NAMES = {"six-card": ("Ann", "Bob"), "five-card": ("Ann", "Bob"),
         "three-player": ("Ann", "Bob", "Cy"), "four-player": ("Ann", "Bob", "Cy", "Di")}


# ---- typed actions -------------------------------------------------------------------------


@pytest.mark.parametrize("action,field", [
    (Peg(side="0", points=2), "side"),  # type: ignore[arg-type]
    (Peg(side=0, points="2"), "points"),  # type: ignore[arg-type]
    (Peg(side=True, points=2), "side"),
    (Count(points=2.0), "points"),  # type: ignore[arg-type]
    (Count(points=2, with_crib=1), "with_crib"),  # type: ignore[arg-type]
    (Muggins(side=1, points=None), None),
    (Starter(card=5), "card"),  # type: ignore[arg-type]
    (Deal(hands=5), "hands"),  # type: ignore[arg-type]
])
def test_a_typed_action_with_a_wrong_field_type_is_invalid_not_a_type_error(
        action: Any, field: str | None) -> None:
    k = Game.new(dealer=0)
    if field is None:  # well typed: the game's own refusal
        with pytest.raises(IllegalPlayError):
            k.apply(parse_action(action))
        return
    with pytest.raises(InvalidActionError, match=field) as info:
        k.apply(parse_action(action))
    assert info.value.say.startswith(("The ", "'5'", "5 ", "The deal")), info.value.say
    assert "The a " not in info.value.say


def test_a_typed_action_holding_card_texts_is_read_as_cards() -> None:
    k = Game.new(mode="cards", dealer=0)
    k = k.apply(parse_action(Starter(card="5D")))  # type: ignore[arg-type]
    assert k.starter == Card.parse("5D")
    k = k.apply(parse_action(Play(player=1, card="10H")))  # type: ignore[arg-type]
    assert k.play is not None and k.play.series == (Card.parse("TH"),)
    cut = parse_action(Cut(cards=["5H", "6H"]))  # type: ignore[arg-type]
    assert cut == Cut(cards=(Card.parse("5H"), Card.parse("6H")))


def test_a_well_typed_action_is_taken_as_it_is() -> None:
    peg = Peg(side=1, points=2)
    assert parse_action(peg) is peg
    assert Game.new(dealer=0).apply(parse_action(peg)).scores == (0, 2)


SAMPLE = {"player": 1, "side": 0, "points": 3, "nineteens": 2, "with_crib": True,
          "card": Card.parse("10H"),
          "cards": (Card.parse("5H"), Card.parse("JD")),
          "crib": (Card.parse("2C"),), "hands": ((Card.parse("5H"),), (Card.parse("JD"),))}


@pytest.mark.parametrize("kind", list(ACTION_CLASSES))
@pytest.mark.parametrize("optional", [True, False])
def test_every_action_type_round_trips_through_its_json(kind: str, optional: bool) -> None:
    cls = ACTION_CLASSES[kind]
    values = {f.name: SAMPLE[f.name] for f in dataclasses.fields(cls)
              if optional or f.default is dataclasses.MISSING}
    action = cls(**values)
    data = action.to_json()
    assert data["type"] == kind and set(values) <= set(data) - {"type"}
    assert parse_action(json.loads(json.dumps(data))) == action
    assert parse_action(data).to_json() == data
    if "card" in data:  # any spelling of a card reads as the card, written one way
        assert parse_action({**data, "card": "10\u2665"}).to_json() == data


def test_the_side_of_a_peg_is_named_in_plain_words() -> None:
    with pytest.raises(InvalidActionError) as info:
        parse_action({"type": "peg", "side": "0", "points": 2})
    assert info.value.say == "The side of a peg must be a whole number, not '0'."


def test_every_action_class_is_exported_by_the_package() -> None:
    for cls in ACTION_CLASSES.values():
        assert getattr(cribbage, cls.__name__) is cls
        assert cls.__name__ in cribbage.__all__


# ---- whole random games in dealt mode ------------------------------------------------------


def reference_peg(series: list[Card]) -> int:
    """What the last card of `series` pegs, straight from the rule texts: fifteen 2,
    thirty-one 2, 2/6/12 for 2/3/4 of a rank laid in a row, and the longest run of three or
    more among the last cards, in any order, with no card between."""
    count = sum(min(int(c.rank), 10) for c in series)
    points = (2 if count == 15 else 0) + (2 if count == 31 else 0)
    ranks = [int(c.rank) for c in series]
    same = 1
    while same < len(ranks) and ranks[-1 - same] == ranks[-1]:
        same += 1
    points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    run = 0
    for k in range(3, len(ranks) + 1):
        window = sorted(ranks[-k:])
        if all(b == a + 1 for a, b in zip(window, window[1:], strict=False)):
            run = k
    return points + run


def check_the_play(k: Game) -> None:
    """Every card of a finished play pegs what the reference says; a go is said only with
    no card that fits; one for last only under 31; 31 ends a series; nobody holds a card
    that fits when a series ends."""
    ps = k.play
    assert ps is not None and ps.done
    hands = {p: list(h) for p, h in enumerate(k.hands)}
    series: list[Card] = []
    count = 0
    for e in ps.log:
        if e.kind == "play":
            assert e.card is not None
            hands[e.player].remove(e.card)
            series.append(e.card)
            count += e.card.pips
            assert count <= 31
            assert e.points == reference_peg(series), (series, e)
            if count == 31:
                series, count = [], 0
        elif e.kind == "go":
            assert not any(c.pips <= 31 - count for c in hands[e.player]), (e, hands)
        else:
            assert e.kind == "last" and 0 < count < 31, e
            assert not any(c.pips <= 31 - count for h in hands.values() for c in h) \
                or k.rules.go_rule.value == "uspc"
            series, count = [], 0
    if k.rules.play_rounds.value == "full":
        assert not any(hands.values()), "every card is played"


def action_json(k: Game) -> dict[str, Any]:
    """The JSON form of the last action that made `k`."""
    return k.to_json()["actions"][-1]  # type: ignore[no-any-return]


def play_dealt_games(variant: str, seed: int, games: int, *, muggins: bool,
                     round_trip_every: int) -> int:
    """Play `games` random games of a match in dealt mode, checking after every action;
    returns how many hands were dealt."""
    rng = random.Random(seed)
    k = Game.new(variant, NAMES[variant], mode="dealt", muggins=muggins)
    steps = deals = played = 0
    while True:
        steps += 1
        if k.can_undo and rng.random() < 0.03:
            back = k.apply(parse_action({"type": "undo"}))
            again = back.apply(parse_action({"type": "redo"}))
            assert again.to_json() == k.to_json() and again.view() == k.view()
            assert back.can_redo and back.to_json()["redo"] == [action_json(k)]
        action = random_action(k, rng)
        before = k
        k = k.apply(parse_action(action))
        deals += action["type"] == "deal"
        target = k.target
        if action["type"] == "next_game":
            assert k.scores == (0,) * len(k.sides) or k.rules.non_dealer_start
        else:
            assert all(a >= b for a, b in zip(k.scores, before.scores, strict=True))
        assert all(0 <= s <= target for s in k.scores)
        for side in range(len(k.sides)):
            assert sum(r.points for r in k.game_records() if r.side == side) == k.scores[side]
            assert k.pegs[side].front == k.scores[side]
        assert (k.phase is Phase.OVER) == (target in k.scores)
        if k.result is not None:
            assert k.result.scores == k.scores and k.scores[k.result.winner] == target
        if k.play is not None and k.play.done and (before.play is None or not before.play.done):
            check_the_play(k)
        if steps % round_trip_every == 0:
            text = json.dumps(k.to_json())
            assert Game.from_json(json.loads(text)).view() == json.loads(json.dumps(k.view()))
        if k.phase is Phase.OVER:
            played += 1
            if played == games:
                return deals


@pytest.mark.parametrize("variant", list(NAMES))
def test_random_dealt_games_keep_every_invariant(variant: str) -> None:
    for seed in range(2):
        play_dealt_games(variant, seed, 1, muggins=seed == 1, round_trip_every=40)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(NAMES))
def test_thousands_of_random_dealt_deals_keep_every_invariant(variant: str) -> None:
    deals = 0
    for seed in range(100, 200):
        deals += play_dealt_games(variant, seed, 2, muggins=seed % 2 == 1,
                                  round_trip_every=25)
    assert deals >= 1000


# ---- the three modes agree ----------------------------------------------------------------


def replay_in_every_mode(variant: str, seed: int) -> Game:
    """Play a random dealt game and enter it as it happens in cards mode (the starter, each
    card and go, each hand shown) and in keeper mode (the points the dealt game pegged):
    after every action all three show the same scores, and they end with the same result."""
    rng = random.Random(seed)
    names = NAMES[variant]
    dealt = Game.new(variant, names, mode="dealt")
    cards = Game.new(variant, names, mode="cards")
    keeper = Game.new(variant, names, mode="keeper")
    while dealt.phase is not Phase.OVER:
        action = random_action(dealt, rng)
        before, dealt = dealt, dealt.apply(parse_action(action))
        kind = action["type"]
        if kind in ("cut", "starter", "play", "go"):
            cards = cards.apply(parse_action(action))
        elif kind == "count":
            due = before.next_count()
            assert due is not None
            shown = before.crib if due["kind"] == "crib" else before.hands[due["player"]]
            cards = cards.apply(parse_action({"type": "count", "cards": [str(c) for c in shown]}))
        if kind == "cut":
            keeper = keeper.apply(parse_action(action))
        for rec in dealt.records[len(before.records):] if kind != "cut" else ():
            if rec.kind == "pegging":
                keeper = keeper.apply(parse_action(
                        {"type": "peg", "side": rec.side, "points": rec.points}))
            elif rec.kind == "heels":
                keeper = keeper.apply(parse_action({"type": "heels"}))
            elif rec.kind in ("hand", "crib"):
                # The true count: a count past the target is cut at the game hole.
                keeper = keeper.apply(parse_action(
                        {"type": "count", "points": before.true_count() or 19}))
        assert cards.scores == dealt.scores == keeper.scores, (action, dealt.describe())
        assert (cards.phase is Phase.OVER) == (keeper.phase is Phase.OVER) == (
            dealt.phase is Phase.OVER)
    assert cards.result == dealt.result == keeper.result
    assert [r.points for r in cards.records] == [r.points for r in dealt.records]
    return dealt


@pytest.mark.parametrize("variant", list(NAMES))
def test_cards_and_keeper_modes_agree_with_the_dealt_game(variant: str) -> None:
    for seed in range(6):
        assert replay_in_every_mode(variant, seed).result is not None


# ---- what is legal now ---------------------------------------------------------------------


def test_play_is_not_legal_when_no_card_fits_and_a_play_says_why() -> None:
    k = Game.new(mode="dealt", dealer=0)
    k = k.apply(parse_action({"type": "deal", "hands": [["KH", "QH", "JH", "10H", "AS", "2S"],
                                           ["KS", "QS", "JS", "10S", "AC", "2C"]]}))
    k = k.apply(parse_action({"type": "discard", "player": 0, "cards": ["AS", "2S"]}))
    k = k.apply(parse_action({"type": "discard", "player": 1, "cards": ["AC", "2C"]}))
    k = k.apply(parse_action({"type": "starter", "card": "5D"}))
    for player, card in ((1, "KS"), (0, "KH"), (1, "QS")):
        assert "play" in k.legal_actions() and "go" not in k.legal_actions()
        k = k.apply(parse_action({"type": "play", "player": player, "card": card}))
    assert k.legal_actions() == ["go", "undo"] and k.view()["legal"] == ["go", "undo"]
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 0, "card": "QH"}))
    assert info.value.say == "The Q♥ would take the count past 31: it is 30."
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 1, "card": "JS"}))
    assert info.value.say == "It's Ann's turn to play."
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 7, "card": "JS"}))
    assert info.value.say == "There are 2 players, numbered 0 to 1."
    k = k.apply(parse_action({"type": "go", "player": 0}))
    assert k.legal_actions() == ["go", "undo"]  # Bob's jack and ten don't fit either
    k = k.apply(parse_action({"type": "go", "player": 1}))
    assert k.scores == (2, 1) and "play" in k.legal_actions()  # one for last; Ann leads


def test_cards_mode_play_is_legal_while_an_unseen_card_fits() -> None:
    k = Game.new(mode="cards", dealer=0).apply(parse_action({"type": "starter", "card": "2D"}))
    for player, card in ((1, "KS"), (0, "KH"), (1, "QS")):
        k = k.apply(parse_action({"type": "play", "player": player, "card": card}))
    assert {"play", "go"} <= set(k.legal_actions())  # Ann may hold an ace
    k = Game.new(mode="cards", dealer=0).apply(parse_action({"type": "starter", "card": "AD"}))
    for player, card in ((1, "AS"), (0, "AH"), (1, "AC"), (0, "KH"), (1, "KS"), (0, "7H")):
        k = k.apply(parse_action({"type": "play", "player": player, "card": card}))
    assert k.play is not None and k.play.count == 30 and k.play.to_play == 1
    legal = k.legal_actions()
    assert "go" in legal and "play" not in legal  # every ace is seen: nothing fits
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 1, "card": "2C"}))
    assert info.value.say == "The 2♣ would take the count past 31: it is 30."


# ---- what a hand can count -----------------------------------------------------------------


@pytest.mark.slow
def test_the_five_card_hand_totals_are_exactly_what_every_hand_makes() -> None:
    """All 22,100 three-card hands with each of 49 starters, counted one by one."""
    from itertools import combinations

    from cribbage.cards import ALL_CARDS
    from cribbage.game import possible_counts
    from cribbage.rules import catalogue
    from cribbage.scoring import score_hand

    made = {score_hand(hand, starter, variant="five-card").total
            for hand in combinations(ALL_CARDS, 3) for starter in ALL_CARDS
            if starter not in hand}
    assert made == possible_counts(3, False)
    five = next(v for v in catalogue()["variants"] if v["name"] == "five-card")
    assert five["counts"]["hand"] == sorted(made)
