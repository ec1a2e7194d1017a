"""The exact census: the texts' published figures, and brute force on a sample of cells."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations, product

import pytest

from cribbage import Card, Rank, Suit, UnknownVariantError, census, explain_29
from cribbage.stats import SIX_CARD_DEALS, cell, deals_keeping_28, deals_keeping_29
from tests.cribbage.test_scoring import slow_score


def test_hand_census_reproduces_the_published_figures() -> None:
    hands = census()
    assert hands.combinations == 12_994_800
    assert hands.mean == Fraction(60759, 12740)
    assert round(float(hands.mean), 4) == 4.7692
    assert hands.impossible == [19, 25, 26, 27]
    assert max(hands.distribution) == 29
    assert hands.distribution[29] == 4  # one per jack, as the how-to-play text says
    # 28: four fives with one of 16 ten-cards, or J/10/Q/K (not nobs) with three fives and a
    # five starter: 16 + 4 x 15.
    assert hands.distribution[28] == 16 + 4 * 15
    assert hands.distribution[0] == 1_009_008


def test_the_1_in_216_580_is_per_six_card_deal() -> None:
    assert SIX_CARD_DEALS == 20_358_520 * 46
    assert Fraction(SIX_CARD_DEALS, deals_keeping_29()) == 216_580
    assert census().one_in(29) == 3_248_700 == 15 * 216_580
    assert round(SIX_CARD_DEALS / deals_keeping_28()) == 15_028  # the text's 28 figure
    text = explain_29()
    assert "216,580" in text and "3,248,700" in text and "C(47,2)" in text


def test_crib_census() -> None:
    cribs = census(crib=True)
    assert cribs.combinations == 12_994_800
    hands = census()
    # Only flushes differ: a crib scores nothing for a four-card flush.
    assert cribs.mean < hands.mean
    assert cribs.distribution[29] == 4 and cribs.impossible == [19, 25, 26, 27]
    assert cribs.mean == Fraction(1025467, 216580)


def test_five_card_census() -> None:
    five = census(game="five-card")
    assert five.combinations == 22_100 * 49
    assert max(five.distribution) == 20  # 5 5 5 and a five starter
    assert census(game="three-player") is census(game="six-card")
    with pytest.raises(UnknownVariantError):
        census(game="nine-card")


def _brute_cell(hand_ranks: tuple[int, ...], starter_rank: int, crib: bool) -> dict[int, int]:
    """Every suit choice for these ranks, scored by the independent reference."""
    out: dict[int, int] = {}
    suits = list(Suit)
    for hand_suits in product(suits, repeat=len(hand_ranks)):
        hand = [Card(Rank(r), s) for r, s in zip(hand_ranks, hand_suits, strict=True)]
        if len(set(hand)) < len(hand):
            continue
        # A multiset with repeats is counted once per set of cards, not per order.
        if any(a.rank == b.rank and b < a for a, b in combinations(hand, 2)):
            continue
        for s in suits:
            starter = Card(Rank(starter_rank), s)
            if starter in hand:
                continue
            total = slow_score(hand, starter, crib)[0]
            out[total] = out.get(total, 0) + 1
    return out


@pytest.mark.parametrize("crib", [False, True])
def test_cells_match_brute_force_on_a_sample(crib: bool) -> None:
    rng = random.Random(7)
    samples = [
        ((5, 5, 5, 11), 5),
        ((10, 11, 12, 13), 5),
        ((4, 4, 6, 6), 5),
        ((11, 11, 2, 3), 11),
        ((1, 2, 3, 11), 4),
        ((7, 7, 7, 7), 1),
    ]
    for _ in range(12):
        samples.append((tuple(sorted(rng.choices(range(1, 14), k=4))), rng.randrange(1, 14)))
    for hand, starter in samples:
        if max(hand.count(r) for r in hand) > 4:
            continue
        assert dict(cell(hand, starter, crib=crib)) == _brute_cell(hand, starter, crib), (
            hand,
            starter,
        )


def test_five_card_cells_match_brute_force() -> None:
    rng = random.Random(11)
    samples = [((5, 5, 11), 5), ((1, 2, 3), 4), ((11, 12, 13), 11)]
    samples += [
        (tuple(sorted(rng.choices(range(1, 14), k=3))), rng.randrange(1, 14)) for _ in range(10)
    ]
    for hand, starter in samples:
        assert dict(cell(hand, starter)) == _brute_cell(hand, starter, False), (hand, starter)
