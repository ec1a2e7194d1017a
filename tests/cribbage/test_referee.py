"""Referee cases: counts, pegging, plays, games and keeper games worked out by hand from the rules.

Every expected number here was derived from the rule texts (pagat / USPC / how-to-play), not
from running the engine. Only the public API (`import cribbage`) is used.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import cribbage
from cribbage import (
    Game,
    IllegalPlayError,
    ImpossibleScoreError,
    InvalidCardError,
    InvalidHandError,
    PlayState,
    ResultKind,
    get_rules,
    parse_cards,
    score_hand,
    score_pegging,
)
from cribbage.actions import parse_action

# ---- the show ---------------------------------------------------------------------------

# (hand, starter, crib, variant, fifteens, pairs, runs, flush, nobs, total)
SHOW = [
    # the 29: three fives and the jack of the starter's suit
    ("5C 5D 5S JH", "5H", False, "six-card", 16, 12, 0, 0, 1, 29),
    # four fives with a ten-card: 28 (four 5+5+5, four 5+K)
    ("5C 5D 5H 5S", "KC", False, "six-card", 16, 12, 0, 0, 0, 28),
    ("5C 5D 5H 5S", "10D", False, "six-card", 16, 12, 0, 0, 0, 28),
    # three fives and the wrong jack: 28, no nobs
    ("5C 5D 5S JC", "5H", False, "six-card", 16, 12, 0, 0, 0, 28),
    # a jack starter turned on J555: the jack is heels, not nobs
    ("5C 5D 5S 5H", "JH", False, "six-card", 16, 12, 0, 0, 0, 28),
    # double double run 7-7-8-8-9: four 7+8, two pairs, four runs of three
    ("7C 7D 8C 8D", "9S", False, "six-card", 8, 4, 12, 0, 0, 24),
    # triple run 6-6-6-7-8: one fifteen (7+8), pair royal, three runs
    ("6C 6D 6H 7S", "8C", False, "six-card", 2, 6, 9, 0, 0, 17),
    # how-to-play worked count: 5 6 7 7 + 8 is 14
    ("5H 6S 7D 7C", "8H", False, "six-card", 4, 2, 8, 0, 0, 14),
    # USPC: 8 7 7 6 2 is 16
    ("8C 7D 7H 6S", "2C", False, "six-card", 8, 2, 6, 0, 0, 16),
    # double run of three (USPC "C": 8) with no fifteens
    ("3C 4D 4H 5S", "9C", False, "six-card", 0, 2, 6, 0, 0, 8),
    # double run of four (USPC "D": 10) and three fifteens
    ("3C 4D 5H 6S", "6C", False, "six-card", 6, 2, 8, 0, 0, 16),
    # quadruple run 3-3-4-4-5 (USPC "F": 16) and two fifteens (3+3+4+5)
    ("3C 3D 4H 4S", "5C", False, "six-card", 4, 4, 12, 0, 0, 20),
    # the dealer's 53: 4466 with a five starter is 24
    ("4C 4D 6C 6D", "5H", False, "six-card", 8, 4, 12, 0, 0, 24),
    # 24s: an ace with four sevens, a nine with four threes
    ("AC 7C 7D 7H", "7S", False, "six-card", 12, 12, 0, 0, 0, 24),
    ("3C 3D 3H 3S", "9C", False, "six-card", 12, 12, 0, 0, 0, 24),
    # flushes: 4 in hand, 5 with the starter; the crib needs all five
    ("2H 4H 6H 8H", "KC", False, "six-card", 0, 0, 0, 4, 0, 4),
    ("2H 4H 6H 8H", "KH", False, "six-card", 0, 0, 0, 5, 0, 5),
    ("2H 4H 6H 8H", "KC", True, "six-card", 0, 0, 0, 0, 0, 0),
    ("2H 4H 6H 8H", "KH", True, "six-card", 0, 0, 0, 5, 0, 5),
    # three hand cards and the starter in one suit: nothing
    ("2H 4H 6H 8C", "KH", False, "six-card", 0, 0, 0, 0, 0, 0),
    # flush and nobs together; a four-flush crib with a stray starter scores nothing
    ("2H 4H 6H JH", "8H", False, "six-card", 0, 0, 0, 5, 1, 6),
    ("2H 4H 6H JH", "8H", True, "six-card", 0, 0, 0, 5, 1, 6),
    ("2H 4H 6H JH", "8S", False, "six-card", 0, 0, 0, 4, 0, 4),
    ("2H 4H 6H JH", "8S", True, "six-card", 0, 0, 0, 0, 0, 0),
    # nobs: the jack of the starter's suit, in hand or crib
    ("JH 2C 4D 6S", "9H", False, "six-card", 4, 0, 0, 0, 1, 5),
    ("JH 2C 4D 6S", "9H", True, "six-card", 4, 0, 0, 0, 1, 5),
    # a jack starter: another jack in the hand is not nobs
    ("JD 2C 4D 6S", "JH", False, "six-card", 0, 2, 0, 0, 0, 2),
    ("2C 4D 6S 9H", "JH", False, "six-card", 4, 0, 0, 0, 0, 4),
    # a nineteen: nothing at all
    ("2C 4D 6S 8H", "QC", False, "six-card", 0, 0, 0, 0, 0, 0),
    # the ace is low: A-2-3 runs, Q-K-A does not
    ("QC KD AH 2S", "3C", False, "six-card", 4, 0, 3, 0, 0, 7),
    # runs of five, and a run of five that is a flush too
    ("AC 2D 3H 4S", "5C", False, "six-card", 2, 0, 5, 0, 0, 7),
    ("9S 10S JS QS", "KS", False, "six-card", 0, 0, 5, 5, 1, 11),
    # the other variants count four-card hands the same way
    ("7C 7D 8C 8D", "9S", False, "three-player", 8, 4, 12, 0, 0, 24),
    ("5C 5D 5S JH", "5H", False, "four-player", 16, 12, 0, 0, 1, 29),
    # five-card: three-card hands, flush 3 or 4; the crib (four cards) needs all five
    ("2H 4H 6H", "KC", False, "five-card", 0, 0, 0, 3, 0, 3),
    ("2H 4H 6H", "KH", False, "five-card", 0, 0, 0, 4, 0, 4),
    ("2H 4H 6C", "KH", False, "five-card", 0, 0, 0, 0, 0, 0),
    ("2H 4H 6H 8H", "KC", True, "five-card", 0, 0, 0, 0, 0, 0),
    ("2H 4H 6H 8H", "KH", True, "five-card", 0, 0, 0, 5, 0, 5),
    ("5C 5D JH", "5H", False, "five-card", 8, 6, 0, 0, 1, 15),
    ("5C 5D 5S", "5H", False, "five-card", 8, 12, 0, 0, 0, 20),
    ("6C 7D 8H", "9S", False, "five-card", 4, 0, 4, 0, 0, 8),
]


@pytest.mark.parametrize(
    "hand,starter,crib,variant,fifteens,pairs,runs,flush,nobs,total", SHOW,
    ids=[f"{h}/{s}{' crib' if c else ''} {v}" for h, s, c, v, *_ in SHOW])
def test_show_counts(hand: str, starter: str, crib: bool, variant: str, fifteens: int,
                     pairs: int, runs: int, flush: int, nobs: int, total: int) -> None:
    score = score_hand(parse_cards(hand), starter, crib=crib, variant=variant)
    assert (score.fifteens, score.pairs, score.runs, score.flush, score.nobs, score.total) == (
        fifteens, pairs, runs, flush, nobs, total)
    assert sum(c.points for c in score.combinations) == total
    # text input and any order of the hand give the same count
    text = score_hand(" ".join(reversed(hand.split())), starter.lower(), crib=crib,
                      variant=variant)
    assert text.total == total


def test_the_combinations_name_the_cards() -> None:
    score = score_hand(parse_cards("7C 7D 8C 8D"), parse_cards("9S")[0])
    runs = [c for c in score.combinations if c.kind == "run"]
    assert len(runs) == 4 and all(c.points == 3 for c in runs)
    assert {tuple(map(str, c.cards)) for c in runs} == {
        ("7C", "8C", "9S"), ("7C", "8D", "9S"), ("7D", "8C", "9S"), ("7D", "8D", "9S")}
    fifteens = [c for c in score.combinations if c.kind == "fifteen"]
    assert sorted(tuple(map(str, c.cards)) for c in fifteens) == sorted(
        [("7C", "8C"), ("7C", "8D"), ("7D", "8C"), ("7D", "8D")])


def test_spoken_counts() -> None:
    assert score_hand("5H 6S 7D 7C", "8H").say() == (
        "fifteen two, fifteen four, a pair is six, and a double run of four makes fourteen")
    assert score_hand("2C 4D 6S 8H", "QC").say() == "nineteen"
    assert score_hand("5C 5D 5S JH", "5H").say().endswith("one for his nobs makes twenty-nine")


@pytest.mark.parametrize("hand,starter,variant,crib", [
    ("5C 5D 5S", "5H", "six-card", False),
    ("5C 5D 5S 5H", "JH", "five-card", False),
    ("5C 5D 5S", "JH", "six-card", True),
])
def test_a_hand_of_the_wrong_size_is_refused(hand: str, starter: str, variant: str,
                                            crib: bool) -> None:
    with pytest.raises(InvalidHandError):
        score_hand(hand, starter, variant=variant, crib=crib)


def test_malformed_and_repeated_cards_name_the_text() -> None:
    with pytest.raises(InvalidCardError, match="'5X'"):
        score_hand("5C 5D 5S 5X", "JH")
    with pytest.raises(InvalidCardError, match="'11H'"):
        cribbage.Card.parse("11H")
    with pytest.raises(cribbage.DuplicateCardError, match="5C"):
        score_hand("5C 5C 5S 5H", "JH")
    with pytest.raises(cribbage.DuplicateCardError, match="JH"):
        score_hand("5C 5D 5S JH", "JH")
    with pytest.raises(cribbage.UnknownVariantError, match="seven-card"):
        score_hand("5C 5D 5S JH", "5H", variant="seven-card")


@pytest.mark.parametrize("text", ["5H", "5h", "5♥", " 5H ", "5♡", "5♥\ufe0f"])
def test_card_spellings(text: str) -> None:
    assert str(cribbage.Card.parse(text)) == "5H"


@pytest.mark.parametrize("text", ["10H", "TH", "th", "10h"])
def test_tens(text: str) -> None:
    assert str(cribbage.Card.parse(text)) == "10H"


# ---- pegging ----------------------------------------------------------------------------

# (cards since the reset, count, fifteen, thirty_one, pairs, run, total)
PEG = [
    ("5H", 5, 0, 0, 0, 0, 0),
    ("5H 5D", 10, 0, 0, 2, 0, 2),
    ("5H 5D 5C", 15, 2, 0, 6, 0, 8),  # pair royal making fifteen
    ("5H 5D 5C 5S", 20, 0, 0, 12, 0, 12),  # double pair royal
    ("AH AD AC AS", 4, 0, 0, 12, 0, 12),
    ("7H 7D 7C", 21, 0, 0, 6, 0, 6),
    ("JH QD", 20, 0, 0, 0, 0, 0),  # face cards pair only by rank
    ("JH JD", 20, 0, 0, 2, 0, 2),
    ("5H 6D 5C", 16, 0, 0, 0, 0, 0),  # not adjacent: no pair
    ("5H 3D 4C", 12, 0, 0, 0, 3, 3),  # a run laid out of order
    ("4H 5D 5C 6S", 20, 0, 0, 0, 0, 0),  # the pair breaks the run
    ("3H 4D 4C 5S", 16, 0, 0, 0, 0, 0),  # 4-4-5 is no run
    ("3H 4D 5C 4S", 16, 0, 0, 0, 0, 0),  # the second 4 repeats a rank in every window
    ("2H 9D 3C 4S", 18, 0, 0, 0, 0, 0),  # a foreign card among 2-3-4
    ("6H 4D 5C 3S", 18, 0, 0, 0, 4, 4),  # the longest run counts
    ("3H 4D 5C 6S", 18, 0, 0, 0, 4, 4),
    ("3H 4D 5C 6S 7H", 25, 0, 0, 0, 5, 5),
    ("AH 2D 3C 4S 5H 6D", 21, 0, 0, 0, 6, 6),  # a run of six
    ("2S AC 3D 5H 4C 7S 6H", 28, 0, 0, 0, 7, 7),  # a run of seven (pone's 18)
    ("4H 5D 6C", 15, 2, 0, 0, 3, 5),  # fifteen and a run together
    ("AH 2D 3C 4S 5H", 15, 2, 0, 0, 5, 7),
    ("7H 8D 9C 7S", 31, 0, 2, 0, 3, 5),  # 8-9-7 run and thirty-one
    ("KH QD 3C 4S 4H", 31, 0, 2, 2, 0, 4),  # thirty-one with a pair
    ("KH 6D 5C 5S 5H", 31, 0, 2, 6, 0, 8),  # thirty-one with a pair royal
    ("AH 2D 3C", 6, 0, 0, 0, 3, 3),  # ace low
    ("KH AD 2C", 13, 0, 0, 0, 0, 0),  # no wrap: K-A-2
    ("QH KD AC", 21, 0, 0, 0, 0, 0),  # no wrap: Q-K-A
    ("JH KD QC", 30, 0, 0, 0, 3, 3),
    ("10H JD QC", 30, 0, 0, 0, 3, 3),
    ("9H 10D QC", 29, 0, 0, 0, 0, 0),  # 9-10-Q is no run
    ("KH 5D", 15, 2, 0, 0, 0, 2),
]


@pytest.mark.parametrize("cards,count,fifteen,thirty_one,pairs,run,total", PEG,
                         ids=[p[0] for p in PEG])
def test_pegging(cards: str, count: int, fifteen: int, thirty_one: int, pairs: int, run: int,
                 total: int) -> None:
    peg = score_pegging(parse_cards(cards))
    assert (peg.count, peg.fifteen, peg.thirty_one, peg.pairs, peg.run, peg.total) == (
        count, fifteen, thirty_one, pairs, run, total)
    assert score_pegging(cards).total == total


def test_pegging_past_thirty_one_is_refused_naming_the_count() -> None:
    with pytest.raises(IllegalPlayError, match="35"):
        score_pegging("KH QD JC 5S")


# ---- the play machine -------------------------------------------------------------------


def run(state: PlayState, moves: str) -> PlayState:
    """Apply moves written like "1:KH 0:go"."""
    for move in moves.split():
        who, what = move.split(":")
        state = state.go(int(who)) if what == "go" else state.play(what, int(who))
    return state


def two(dealer: str, pone: str, variant: str = "six-card") -> PlayState:
    """Player 0 deals, player 1 (the pone) leads."""
    return PlayState.for_rules(get_rules(variant), [parse_cards(dealer), parse_cards(pone)],
                               dealer=0, names=["Ann", "Bob"])


def points(state: PlayState) -> list[tuple[str, int, int]]:
    return [(e.kind, e.player, e.points) for e in state.log if e.points]


def test_thirty_one_scores_two_not_also_last_and_the_next_player_leads() -> None:
    state = run(two("8S 8H 4C 3D", "KC QD 9H 2C"), "1:KC 0:8S 1:QD")
    assert state.count == 28 and state.to_play == 0
    assert [a["card"] for a in state.legal_actions()] == ["3D"]
    state = run(state, "0:3D")
    assert state.scores == (2, 0) and state.count == 0
    assert state.to_play == 1  # the player after the one who made 31
    state = run(state, "1:9H 0:8H 1:2C 0:4C")
    assert state.done and state.scores == (3, 0)  # one for last card


def test_the_player_after_a_go_keeps_playing_and_pegs() -> None:
    state = run(two("9C 9D 5C 6H", "KC 8D 2S 2H"), "1:KC 0:9C 1:8D")
    assert state.count == 27
    assert state.legal_actions() == [{"type": "go", "player": 0}]
    state = run(state, "0:go")
    assert state.to_play == 1
    state = run(state, "1:2S")
    assert state.to_play == 1  # the dealer said go: Bob plays on
    state = run(state, "1:2H")  # a pair and 31
    assert points(state) == [("play", 1, 4)]
    assert state.to_play == 0 and state.count == 0
    state = run(state, "0:9D 0:5C 0:6H")  # Bob is out of cards: Ann plays alone
    assert state.done and state.scores == (1, 4)


def test_both_go_one_for_last_then_the_goer_leads() -> None:
    state = run(two("9C 9D 5C 6H", "KC 8D 7S 7H"), "1:KC 0:9C 1:8D 0:go")
    with pytest.raises(IllegalPlayError, match="7S"):
        state.play("7S", 1)  # 34
    state = run(state, "1:go")
    assert points(state) == [("last", 1, 1)]
    assert state.to_play == 0 and state.count == 0
    state = run(state, "0:9D 1:7S 0:5C 1:7H")  # 9 7 5 7: no pair, no run, count 28
    assert state.count == 28 and state.scores == (0, 1)
    state = run(state, "0:go")  # Bob is out of cards: one for last to him
    assert state.scores == (0, 2) and state.to_play == 0
    state = run(state, "0:6H")
    assert state.done and state.scores == (1, 2)


def test_a_run_of_four_out_of_order_in_the_second_series() -> None:
    state = run(two("9S 9D 5C 4H", "KC QD 6H 3S"), "1:KC 0:9S 1:QD 0:go 1:go")
    assert state.scores == (0, 1) and state.to_play == 0
    state = run(state, "0:9D 1:6H")  # fifteen two
    assert state.scores == (0, 3)
    state = run(state, "0:5C 1:3S 0:4H")  # 6 5 3 4: a run of four, and last
    assert points(state)[-2:] == [("play", 0, 4), ("last", 0, 1)]
    assert state.done and state.scores == (5, 3)


def test_pagat_kk22_against_9876() -> None:
    state = run(two("9C 8D 7H 6S", "KH KS 2C 2D"), "1:KH 0:6S 1:KS 0:go 1:2C 1:2D")
    assert state.scores == (0, 3)  # 30 for 3
    state = run(state, "0:8D 0:7H 0:9C")
    assert state.done and state.scores == (6, 3)


@pytest.mark.parametrize("seed", range(40))
def test_the_dealer_always_pegs_at_least_one_in_two_handed_play(seed: int) -> None:
    rng = random.Random(seed)
    deck = list(cribbage.ALL_CARDS)
    rng.shuffle(deck)
    state = PlayState.for_rules(get_rules("six-card"), [deck[:4], deck[4:8]], dealer=0)
    steps = 0
    while not state.done:
        move = rng.choice(state.legal_actions())
        state = state.play(move["card"]) if move["type"] == "play" else state.go()
        steps += 1
        assert steps < 40
    assert state.scores[0] >= 1
    assert state.left == (0, 0)
    # every point of the play is either a card's score or the one for last
    lasts = [e for e in state.log if e.kind == "last"]
    assert all(e.points == 1 and e.count < 31 for e in lasts)


def table_play(hands: list[list[cribbage.Card]], leader: int, rng: random.Random,
               single: bool) -> tuple[list[int], list[tuple[int, cribbage.Card | None]]]:
    """The play as a table plays it (the usual go rule), written from the rule text alone:
    a player who cannot play says go and drops out of the series; the others play on; the
    series ends at 31 (2, never also 1) or when nobody left in it can play (1 for last); the
    player left of the one who laid the last card leads next, skipping empty hands."""
    hands = [list(h) for h in hands]
    n = len(hands)
    scores = [0] * n
    moves: list[tuple[int, cribbage.Card | None]] = []
    series: list[cribbage.Card] = []
    passed = [False] * n
    last: int | None = None
    turn = leader
    while True:
        active = [q for q in ((turn + i) % n for i in range(n)) if hands[q] and not passed[q]]
        count = sum(c.pips for c in series)
        if not active or count == 31:
            if count == 31:
                scores[last] += 2  # type: ignore[index]
            elif last is not None:
                scores[last] += 1
            series, passed = [], [False] * n
            if single or not any(hands):
                return scores, moves
            assert last is not None
            turn = next((last + i) % n for i in range(1, n + 1) if hands[(last + i) % n])
            last = None
            continue
        p = active[0]
        fits = [c for c in hands[p] if c.pips <= 31 - count]
        if not fits:
            passed[p] = True
            moves.append((p, None))
        else:
            card = rng.choice(fits)
            hands[p].remove(card)
            series.append(card)
            moves.append((p, card))
            # what the card pegs, from the definitions (not score_pegging)
            ranks = [int(c.rank) for c in series]
            same = 1
            while same < len(ranks) and ranks[-1 - same] == ranks[-1]:
                same += 1
            pts = {1: 0, 2: 2, 3: 6, 4: 12}[same]
            pts += 2 if sum(c.pips for c in series) == 15 else 0
            for k in range(len(ranks), 2, -1):
                tail = sorted(ranks[-k:])
                if all(b == a + 1 for a, b in zip(tail, tail[1:], strict=False)):
                    pts += k
                    break
            scores[p] += pts
            last = p
        turn = (p + 1) % n


@pytest.mark.parametrize("variant", ["six-card", "five-card", "three-player", "four-player"])
def test_random_rounds_of_play_match_the_table(variant: str) -> None:
    rules = get_rules(variant)
    rng = random.Random(variant)
    for _ in range(150):
        deck = list(cribbage.ALL_CARDS)
        rng.shuffle(deck)
        k = rules.hand_size
        hands = [deck[i * k:(i + 1) * k] for i in range(rules.players)]
        dealer = rng.randrange(rules.players)
        want, moves = table_play(hands, (dealer + 1) % rules.players,
                                 random.Random(rng.random()), variant == "five-card")
        state = PlayState.for_rules(rules, hands, dealer)
        for p, card in moves:
            assert state.to_play == p
            state = state.go(p) if card is None else state.play(card, p)
        assert state.done and list(state.scores) == want
        if variant == "six-card":
            assert want[dealer] >= 1  # the dealer always pegs at least one


def three(go_rule: str, p0: str, p1: str, p2: str) -> PlayState:
    rules = get_rules("three-player", go_rule=go_rule)
    return PlayState.for_rules(rules, [parse_cards(p0), parse_cards(p1), parse_cards(p2)],
                               dealer=0)


def test_three_player_play_through_three_series() -> None:
    state = three("continue", "KH 8H 5H 6H", "KC QC 2C 3C", "KD 9D AD 4D")
    state = run(state, "1:KC 2:KD 0:KH")  # pair, then pair royal
    assert state.scores == (6, 0, 2)
    state = run(state, "1:go 2:AD")  # 31
    assert state.scores == (6, 0, 4) and state.to_play == 0
    state = run(state, "0:8H 1:QC 2:9D 0:go 1:2C 2:go 1:go")
    assert state.scores == (6, 1, 4)  # one for last to the 2C
    assert state.to_play == 2
    state = run(state, "2:4D 0:5H 1:3C")  # 4 5 3: a run of three
    assert state.scores == (6, 4, 4)
    assert state.to_play == 0  # player 2 is out of cards
    state = run(state, "0:6H")  # a run of four and last card
    assert state.done and state.scores == (11, 4, 4)


@pytest.mark.parametrize("rule,scores", [("continue", (5, 0, 0)), ("uspc", (4, 0, 0))])
def test_three_player_go_rules(rule: str, scores: tuple[int, ...]) -> None:
    state = three(rule, "JH AH 4H 6H", "KC 9C 2C 3C", "QD 9D 8D 7D")
    state = run(state, "1:KC 2:QD 0:JH")  # K Q J: a run of three
    assert state.scores == (3, 0, 0)
    state = run(state, "1:go 2:go")
    if rule == "continue":
        assert state.to_play == 0  # the third player still plays on
        state = run(state, "0:AH")  # 31 for 2
    assert state.scores == scores and state.count == 0
    assert state.to_play == 1  # left of the player who laid the last card


@pytest.mark.parametrize("rule,scores", [("continue", (0, 0, 0, 5)), ("uspc", (0, 0, 0, 4))])
def test_four_player_go_rules(rule: str, scores: tuple[int, ...]) -> None:
    rules = get_rules("four-player", go_rule=rule)
    hands = [parse_cards(h) for h in ("10S 9S 8S 7S", "KC 4C 2C 3C", "QD 5D 9D 8D",
                                      "JH 7H 6H AH")]
    state = PlayState.for_rules(rules, hands, dealer=0)
    state = run(state, "1:KC 2:QD 3:JH 0:go 1:go")
    if rule == "continue":
        state = run(state, "2:go 3:AH")
    assert state.scores == scores and state.count == 0
    assert state.to_play == 0


def test_five_card_single_round_ends_at_thirty_one() -> None:
    state = run(two("KC 6C 9C", "QD 5D 6D", "five-card"), "1:QD 0:KC 1:5D 0:6C")
    assert state.done and state.scores == (2, 0)
    assert state.left == (1, 1)  # the unplayed cards stay unplayed


def test_five_card_single_round_ends_after_the_go() -> None:
    state = run(two("KC 9C 8C", "QD 5D AD", "five-card"), "1:QD 0:KC 1:5D 0:go")
    assert state.to_play == 1  # the pone plays on after the go
    state = run(state, "1:AD")
    assert state.done and state.scores == (0, 1) and state.left == (2, 0)


def test_illegal_plays_name_the_action_and_the_count_and_change_nothing() -> None:
    state = run(two("KC 5C 5D 9C", "KH 5H 3C 2D"), "1:KH 0:KC 1:5H")
    before = state.to_json()
    for bad, words in [
        (lambda: state.play("9C", 0), ["9C", "25"]),  # past 31
        (lambda: state.play("3C", 1), ["3C", "turn"]),  # out of turn
        (lambda: state.play("4C", 0), ["4C", "holds"]),  # not held
        (lambda: state.go(0), ["go", "25"]),  # a go with a playable card
    ]:
        with pytest.raises(IllegalPlayError) as info:
            bad()
        for word in words:
            assert word in str(info.value)
    with pytest.raises(InvalidCardError, match="'5Z'"):
        state.play("5Z", 0)
    assert state.to_json() == before


def test_unknown_hands_check_gos_at_the_show() -> None:
    state = PlayState.for_rules(get_rules("six-card"), [None, None], dealer=0, seen=["5D"])
    state = run(state, "1:KH 0:QS 1:9C 0:go 1:go")  # Ann said go at 29
    assert state.scores == (0, 1) and state.to_play == 0
    false = state.false_gos([parse_cards("QS AS 8S 7S"), None])
    assert [(f.player, f.count) for f in false] == [(0, 29)]  # she held the ace


# ---- the game (every card known: the "dealt" mode of the one game machine) ---------------


def game(variant: str = "six-card", names: Any = ("Ann", "Bob"), **options: Any) -> Game:
    return Game.new(variant, names, mode="dealt", **options)


def act(state: Game, *actions: dict[str, Any]) -> Game:
    for action in actions:
        state = state.apply(parse_action(action))
    return state


def plays(state: Game, moves: str) -> Game:
    for move in moves.split():
        who, what = move.split(":")
        state = state.apply(parse_action({"type": "go", "player": int(who)} if what == "go" else
                            {"type": "play", "player": int(who), "card": what}))
    return state


def dealt(starter: str = "5D", **options: Any) -> Game:
    """Ann (0) deals; Bob keeps 7H 6S 4C KD, Ann 8C 6D 5H 5S; the crib 9H QS 2C 3D."""
    return act(
        game(dealer=0, **options),
        {"type": "deal", "hands": [["8C", "6D", "5H", "5S", "9H", "QS"],
                                   ["7H", "6S", "4C", "KD", "2C", "3D"]]},
        {"type": "discard", "player": 0, "cards": ["9H", "QS"]},
        {"type": "discard", "player": 1, "cards": ["2C", "3D"]},
        {"type": "starter", "card": starter},
    )


PLAY = "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S"


def order(state: Game) -> list[tuple[str, int]]:
    return [(e["kind"], e["player"]) for e in state.show_order()]


def test_a_whole_hand_pegs_counts_and_passes_the_deal() -> None:
    state = plays(dealt(), PLAY)
    assert state.scores == (5, 7)
    assert order(state) == [("hand", 1), ("hand", 0), ("crib", 0)]
    state = act(state, {"type": "count"}, {"type": "count"}, {"type": "count"})
    assert state.scores == (17, 15)  # Bob 7+8, Ann 5+8+4
    assert state.dealer == 1 and state.phase == "deal"


def test_the_non_dealer_counts_out_first() -> None:
    state = plays(dealt(target=14), PLAY)
    assert state.scores == (5, 7)
    state = act(state, {"type": "count"})  # Bob's 8 reaches 14 first
    assert state.phase == "over"
    assert state.result.winner == 1 and state.scores[0] == 5  # Ann's 8 + 4 never counted
    with pytest.raises(IllegalPlayError, match="count"):
        state.apply(parse_action({"type": "count"}))


def test_the_game_ends_in_the_play_the_instant_the_target_is_reached() -> None:
    state = plays(dealt(target=4), "1:7H 0:8C 1:6S")  # Ann's fifteen two, Bob's run of 3
    assert state.phase == "play" and state.scores == (2, 3)
    state = plays(state, "0:6D")  # a pair: the dealer reaches 4 in the play
    assert state.phase == "over" and state.result.winner == 0
    assert state.scores == (4, 3)


def test_his_heels_can_end_the_game() -> None:
    state = act(
        game(dealer=0, target=2),
        {"type": "deal", "hands": [["8C", "6D", "5H", "5S", "9H", "QS"],
                                   ["7H", "6S", "4C", "KD", "2C", "3D"]]},
        {"type": "discard", "player": 0, "cards": ["9H", "QS"]},
        {"type": "discard", "player": 1, "cards": ["2C", "3D"]},
        {"type": "starter", "card": "JD"},
    )
    assert state.phase == "over" and state.result.winner == 0
    assert state.scores == (2, 0)


def test_heels_is_two_for_the_dealer_and_the_jack_starter_is_not_nobs() -> None:
    state = dealt(starter="JD")
    assert state.scores == (2, 0)
    assert state.phase == "play"


def test_three_player_show_order_and_crib_from_the_deck() -> None:
    state = game("three-player", ["A", "B", "C"], dealer=1)
    assert order(state) == [("hand", 2), ("hand", 0), ("hand", 1), ("crib", 1)]
    state = state.apply(parse_action(cribbage.deal_action(state, random.Random(3))))
    assert [len(h) for h in state.hands] == [5, 5, 5] and len(state.crib) == 1
    assert len({c for h in state.hands for c in h} | set(state.crib) | set(state.stock)) == 52


def test_four_player_partners_share_a_score() -> None:
    state = game("four-player", ["A", "B", "C", "D"], dealer=0)
    assert order(state) == [("hand", 1), ("hand", 2), ("hand", 3), ("hand", 0), ("crib", 0)]
    state = act(
        state,
        {"type": "deal", "hands": [["KH", "2H", "3H", "4H", "5H"],
                                   ["KC", "2C", "3C", "4C", "5C"],
                                   ["KD", "2D", "3D", "4D", "5D"],
                                   ["KS", "2S", "3S", "4S", "5S"]]},
        *({"type": "discard", "player": p, "cards": [f"5{s}"]}
          for p, s in enumerate("HCDS")),
        {"type": "starter", "card": "9C"},
    )
    state = plays(state, "1:KC 2:KD 3:KS")  # pair to C (side 0), pair royal to D (side 1)
    assert state.scores == (2, 6)


@pytest.mark.parametrize("cards,dealer", [(["AH", "2C"], 0), (["KH", "QC"], 1),
                                          (["10H", "JC"], 0), (["JH", "10C"], 1)])
def test_the_lowest_cut_deals(cards: list[str], dealer: int) -> None:
    state = game().apply(parse_action({"type": "cut", "cards": cards}))
    assert state.dealer == dealer


def test_a_tied_cut_is_refused() -> None:
    with pytest.raises(IllegalPlayError, match="tie"):
        game().apply(parse_action({"type": "cut", "cards": ["7H", "7C"]}))


def test_five_card_game_starts_with_three_for_the_non_dealer() -> None:
    state = game("five-card", dealer=0)
    assert state.scores == (0, 3) and state.rules.target == 61


def test_a_whole_five_card_hand() -> None:
    state = act(
        game("five-card", dealer=0),
        {"type": "deal", "hands": [["KC", "9C", "8C", "2H", "3H"],
                                   ["QD", "5D", "AD", "4S", "6S"]]},
        {"type": "discard", "player": 0, "cards": ["2H", "3H"]},
        {"type": "discard", "player": 1, "cards": ["4S", "6S"]},
        {"type": "starter", "card": "7C"},
    )
    assert state.scores == (0, 3)
    state = plays(state, "1:QD 0:KC 1:5D 0:go 1:AD")  # Bob out of cards: one for last
    assert state.scores == (0, 4) and state.play.done
    state = state.apply(parse_action({"type": "count"}))  # QD 5D AD / 7C: fifteen 2, flush 3
    assert state.scores == (0, 9)
    state = state.apply(parse_action({"type": "count"}))  # KC 9C 8C / 7C: 2 + run 3 + flush 4
    assert state.scores == (9, 9)
    state = state.apply(parse_action({"type": "count"}))  # crib 2H 3H 4S 6S / 7C: 4 + run 3
    assert state.scores == (16, 9) and state.dealer == 1


def test_muggins_in_the_game() -> None:
    state = plays(dealt(muggins=True), PLAY)
    state = state.apply(parse_action({"type": "count", "points": 6}))  # Bob's hand makes 8
    assert state.scores == (5, 13)
    assert "muggins" in state.legal_actions()
    with pytest.raises(IllegalPlayError):
        state.apply(parse_action({"type": "muggins", "side": 1}))  # not one's own count
    state = state.apply(parse_action({"type": "muggins", "side": 0}))
    assert state.scores == (7, 13)
    with pytest.raises(IllegalPlayError):
        state.apply(parse_action({"type": "count", "points": 9}))  # more than Ann's 8


def test_a_short_claim_without_muggins_is_refused_with_the_true_count() -> None:
    state = plays(dealt(), PLAY)
    with pytest.raises(IllegalPlayError, match="makes 8, not 6"):
        state.apply(parse_action({"type": "count", "points": 6}))
    assert "muggins" not in state.legal_actions()


def test_game_json_round_trip_mid_play_and_in_the_show() -> None:
    for state in (plays(dealt(), "1:7H 0:8C 1:6S"), plays(dealt(muggins=True), PLAY)):
        again = Game.from_json(json.loads(json.dumps(state.to_json())))
        assert again == state


def test_illegal_game_actions_name_the_action_and_the_state() -> None:
    state = dealt()
    with pytest.raises(IllegalPlayError) as info:
        state.apply(parse_action({"type": "count"}))
    assert "count" in str(info.value) and "play" in str(info.value)
    with pytest.raises(IllegalPlayError) as info:
        state.apply(parse_action({"type": "play", "player": 0, "card": "8C"}))
    assert "8C" in str(info.value) and "Bob" in str(info.value)
    # refusals inside an action name the action and the whole state (hand, dealer, scores)
    before = state.to_json()
    for action, words in [
        ({"type": "play", "player": 1, "card": "AC"}, ["play", "AC", "hand 1", "Ann 0, Bob 0"]),
        ({"type": "go", "player": 1}, ["go", "hand 1"]),
    ]:
        with pytest.raises(cribbage.CribbageError) as info:
            state.apply(parse_action(action))
        for word in words:
            assert word in str(info.value), (word, str(info.value))
    # A malformed action is refused where it is read, naming the input.
    for action, words in [({"type": "play", "player": 1, "card": "1C"}, ["play", "'1C'"]),
                          ({"type": "play", "player": 1}, ["card"])]:
        with pytest.raises(cribbage.CribbageError) as info:
            parse_action(action)
        for word in words:
            assert word in str(info.value), (word, str(info.value))
    assert state.to_json() == before
    discard = game(dealer=0).apply(
        parse_action({"type": "deal", "hands": [["8C", "6D", "5H", "5S", "9H", "QS"],
                                   ["7H", "6S", "4C", "KD", "2C", "3D"]]}))
    for action, error, words in [
        ({"type": "discard", "player": 0, "cards": ["AC", "9H"]}, IllegalPlayError,
         ["discard", "AC", "the discard is due"]),
        ({"type": "discard", "player": 0, "cards": ["9H", "9H"]}, IllegalPlayError,
         ["9H", "twice", "the discard is due"]),
    ]:
        with pytest.raises(error) as info:
            discard.apply(parse_action(action))
        for word in words:
            assert word in str(info.value), (word, str(info.value))


# ---- the keeper -------------------------------------------------------------------------


def keeper(variant: str = "six-card", **kw: Any) -> Game:
    names = {"six-card": ("Ann", "Bob"), "five-card": ("Ann", "Bob"),
             "three-player": ("Ann", "Bob", "Cy"), "four-player": ("Ann", "Bob", "Cy", "Di")}
    return Game.new(variant, names[variant], **kw)


def reach(k: Game, side: int, total: int) -> Game:
    """Peg `side` up to `total` in steps of at most 15."""
    while k.scores[side] < total:
        k = k.apply(parse_action(
                {"type": "peg", "side": side, "points": min(15, total - k.scores[side])}))
    return k


@pytest.mark.parametrize("skunk,loser,kind,game_points", [
    ("skunk", 91, ResultKind.WIN, 1),
    ("skunk", 90, ResultKind.SKUNK, 2),
    ("skunk", 61, ResultKind.SKUNK, 2),
    ("skunk", 60, ResultKind.DOUBLE_SKUNK, 4),
    ("lurch", 61, ResultKind.WIN, 1),
    ("lurch", 60, ResultKind.LURCH, 2),
    ("none", 0, ResultKind.WIN, 1),
])
def test_skunks_and_the_lurch(skunk: str, loser: int, kind: ResultKind,
                              game_points: int) -> None:
    k = reach(keeper(dealer=0, skunk=skunk), 1, loser)
    k = reach(k, 0, 121)
    assert k.result is not None
    assert (k.result.winner, k.result.kind, k.result.game_points) == (0, kind, game_points)
    assert k.view()["match_points"] == [game_points, 0]


@pytest.mark.parametrize("loser,kind", [(31, ResultKind.WIN), (30, ResultKind.SKUNK)])
def test_the_short_game_has_one_line_at_thirty_one(loser: int, kind: ResultKind) -> None:
    k = reach(keeper(dealer=0, target=61), 1, loser)
    k = reach(k, 0, 61)
    assert k.result.kind is kind


def test_the_non_dealer_counts_out_first_in_the_keeper() -> None:
    k = reach(reach(keeper(dealer=0), 0, 115), 1, 115)
    k = k.apply(parse_action({"type": "count", "points": 12}))  # Bob (non-dealer) counts first
    assert k.phase == "over" and k.result.winner == 1
    assert k.scores == (115, 121)  # stops in the game hole
    with pytest.raises(IllegalPlayError):
        k.apply(parse_action({"type": "count", "points": 29}))  # Ann's hand is never counted


def counts(k: Game, *points: int) -> Game:
    for p in points:
        k = k.apply(parse_action({"type": "count", "points": p}))
    return k


def test_heels_ends_the_game_in_the_keeper() -> None:
    k = counts(keeper(dealer=0), 0, 29, 29)  # Ann deals: Bob, Ann, Ann's crib
    k = counts(k, 29, 0, 0)  # Bob deals: Ann first
    k = counts(k, 0, 24, 8)  # Ann deals
    k = counts(k, 0, 0, 0)  # Bob deals
    assert k.scores == (119, 0) and k.view()["dealer"] == 0
    k = k.apply(parse_action({"type": "starter", "card": "JC"}))
    assert k.phase == "over" and k.result.winner == 0 and k.scores == (121, 0)


def test_the_keeper_show_order_and_the_deal_passes() -> None:
    k = keeper("three-player", dealer=2)
    assert [(e["kind"], e["player"]) for e in k.show_order()] == [
        ("hand", 0), ("hand", 1), ("hand", 2), ("crib", 2)]
    for points, side in [(4, 0), (6, 1), (8, 2), (2, 2)]:
        assert k.next_count()["side"] == side
        k = k.apply(parse_action({"type": "count", "points": points}))
    assert k.scores == (4, 6, 10) and k.view()["dealer"] == 0


@pytest.mark.parametrize("points", [19])
def test_nineteen_is_a_zero_hand(points: int) -> None:
    k = keeper(dealer=0).apply(parse_action({"type": "count", "points": points}))
    assert k.scores == (0, 0)


@pytest.mark.parametrize("points", [25, 26, 27, 30])
def test_impossible_counts_are_refused(points: int) -> None:
    k = keeper(dealer=0)
    with pytest.raises(ImpossibleScoreError, match=str(points)):
        k.apply(parse_action({"type": "count", "points": points}))


def test_five_card_keeper_counts() -> None:
    k = keeper("five-card", dealer=0)
    assert k.scores == (0, 3)  # three for last to the first non-dealer
    # four fives: the best three-card hand
    k = k.apply(parse_action({"type": "count", "points": 20}))
    with pytest.raises(ImpossibleScoreError):
        k.apply(parse_action({"type": "count", "points": 21}))
    k = k.apply(parse_action({"type": "count", "points": 0})).apply(parse_action(
            {"type": "count", "points": 29}))
    assert k.scores == (29, 23)  # the crib is four cards: 29 is possible


def test_keeper_muggins() -> None:
    k = keeper(dealer=0, muggins=True).apply(parse_action({"type": "count", "points": 8}))
    k = k.apply(parse_action({"type": "muggins", "side": 0, "points": 4}))
    assert k.scores == (4, 8)
    with pytest.raises(IllegalPlayError):
        keeper(dealer=0).apply(parse_action({"type": "count", "points": 8})).apply(
            parse_action({"type": "muggins", "side": 0, "points": 4}))  # muggins is off


def test_keeper_next_game_the_loser_deals() -> None:
    k = reach(keeper(dealer=0), 0, 121)
    k = k.apply(parse_action({"type": "next_game"}))
    assert k.view()["dealer"] == 1 and k.scores == (0, 0)


def test_keeper_cards_mode_pegs_from_the_cards() -> None:
    k = keeper(dealer=0, mode="cards").apply(parse_action({"type": "starter", "card": "5D"}))
    for p, card in [(1, "7H"), (0, "8C"), (1, "6S"), (0, "6D"), (1, "4C"), (0, "5H"),
                    (1, "KD"), (0, "5S")]:
        k = k.apply(parse_action({"type": "play", "player": p, "card": card}))
    assert k.scores == (5, 7)
    k = k.apply(parse_action({"type": "count"}))  # Bob's four cards were all seen
    assert k.scores == (5, 15)


def test_keeper_undo_redo_and_json() -> None:
    k = keeper(dealer=0).apply(parse_action({"type": "peg", "side": 1, "points": 2}))
    k = k.apply(parse_action({"type": "count", "points": 8}))
    again = Game.from_json(json.loads(json.dumps(k.to_json())))
    assert again.view() == k.view()
    u = k.apply(parse_action({"type": "undo"}))
    assert u.scores == (0, 2)
    assert u.apply(parse_action({"type": "redo"})).view() == k.view()


def test_keeper_errors_name_the_action_and_the_state() -> None:
    k = keeper(dealer=0)
    with pytest.raises(ImpossibleScoreError) as info:
        k.apply(parse_action({"type": "count", "points": 27}))
    text = str(info.value)
    assert "count" in text and "27" in text and "Bob's hand" in text
