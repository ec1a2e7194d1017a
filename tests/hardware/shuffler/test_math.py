"""Exact Bayer-Diaconis figures: the table of docs/shuffling.md, and the physics they rest on."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import factorial

import pytest

from hardware.errors import DeckSizeError
from hardware.shuffler import math as smath
from hardware.shuffler.physics import deal_and_stack
from hardware.shuffler.plan import Pile

TABLE = {
    52: [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043, 0.022, 0.011,
         0.005],
    104: [1.000, 1.000, 1.000, 1.000, 1.000, 0.988, 0.772, 0.454, 0.237, 0.119, 0.060, 0.030,
          0.015],
}


@pytest.mark.parametrize("n", [52, 104])
@pytest.mark.parametrize("k", range(1, 14))
def test_tv_table_of_shuffle_math(n: int, k: int) -> None:
    assert round(smath.tv(n, k), 3) == TABLE[n][k - 1]


@pytest.mark.parametrize(("n", "needed"), [(52, (7, 8, 9)), (104, (8, 9, 11))])
def test_passes_needed(n: int, needed: tuple[int, int, int]) -> None:
    assert tuple(smath.passes_needed(n, t) for t in (0.5, 0.25, 0.1)) == needed


def test_mean_rising_sequences_for_52_cards() -> None:
    means = [round(float(smath.run_moments(52, k)[0]), 2) for k in range(5, 10)]
    assert means == [19.61, 22.95, 24.71, 25.60, 26.05]
    mean, var = smath.run_moments(52, 60)
    assert abs(float(mean) - 26.5) < 1e-9
    assert abs(float(var) - 53 / 12) < 1e-9


def test_eulerian_rows_count_every_permutation() -> None:
    assert smath.eulerian(4) == (1, 11, 11, 1)
    for n in (1, 5, 52, 104):
        assert sum(smath.eulerian(n)) == factorial(n)
        assert sum(smath.run_law(n, 3)) == 1


def _runs(deck: list[int]) -> int:
    return 1 + sum(a > b for a, b in zip(deck, deck[1:], strict=False))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_routing_of_a_small_deck_matches_the_formula(k: int) -> None:
    """All 2^(k n) coin outcomes through the real pass mechanics give the exact law."""
    n = 4
    outcomes: Counter[tuple[int, ...]] = Counter()
    for bits in itertools.product((Pile.LEFT, Pile.RIGHT), repeat=n * k):
        deck = list(range(n))
        for j in range(k):
            deck = deal_and_stack(deck, bits[j * n:(j + 1) * n], Pile.LEFT)
        outcomes[tuple(deck)] += 1
    total = 2 ** (n * k)
    weights = smath.run_weights(n, k)
    tv = Fraction(0)
    for perm in itertools.permutations(range(n)):
        # bottom-fed, a pass is a stable split: runs read top to bottom, whatever k
        expected = Fraction(weights[_runs(list(perm)) - 1], total)
        assert Fraction(outcomes[perm], total) == expected
        tv += abs(expected - Fraction(1, factorial(n)))
    assert tv / 2 == smath.tv_exact(n, k)


def test_succession_law_matches_enumeration() -> None:
    n = 5
    counts: Counter[int] = Counter()
    for perm in itertools.permutations(range(n)):
        counts[sum(b == a + 1 for a, b in zip(perm, perm[1:], strict=False))] += 1
    law = smath.succession_law(n)
    assert [Fraction(counts[j], factorial(n)) for j in range(n)] == list(law)


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(DeckSizeError):
        smath.eulerian(0)
    with pytest.raises(ValueError, match="target"):
        smath.passes_needed(52, 0)
    assert smath.radix_passes(52) == 6
    assert smath.radix_passes(104) == 7
    assert smath.radix_passes(64) == 6
    assert smath.radix_passes(65) == 7
