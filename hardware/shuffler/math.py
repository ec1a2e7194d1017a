"""Exact mixing figures for a two-pile shuffler with a fair coin per card (Bayer-Diaconis).

The tray is bottom-fed and each card lands on top of its pile, so a pass with a fresh fair
bit per card is a stable two-pile split: an inverse riffle, with no reversal. After k passes
a deck with r ascending runs (read top to bottom) has probability C(2^k + n - r, n) /
2^(k n). Everything here is computed with integers and Fractions, and cached; floats only at
the edges.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

from hardware.errors import DeckSizeError

MAX_DECK = 104


def _check_n(n: int) -> None:
    if not isinstance(n, int) or n < 1 or n > 10_000:
        raise DeckSizeError(f"deck size must be a whole number of cards, got {n!r}")


@lru_cache(maxsize=64)
def eulerian(n: int) -> tuple[int, ...]:
    """A(n, r) for r = 1..n as a tuple indexed r-1: permutations of n with r ascending runs.

    Raises DeckSizeError for n < 1.
    """
    _check_n(n)
    row = [1]  # n = 1
    for m in range(2, n + 1):
        new = [0] * m
        for j in range(m):  # j = descents, r = j + 1
            a = row[j] if j < m - 1 else 0
            b = row[j - 1] if j >= 1 else 0
            new[j] = (j + 1) * a + (m - j) * b
        row = new
    return tuple(row)


@lru_cache(maxsize=512)
def run_weights(n: int, k: int) -> tuple[int, ...]:
    """C(2^k + n - r, n) for r = 1..n: the probability of one deck with r runs times 2^(k n).

    Raises DeckSizeError for n < 1, ValueError for k < 0.
    """
    _check_n(n)
    if k < 0:
        raise ValueError(f"passes must be 0 or more, got {k}")
    a = 1 << k
    return tuple(comb(a + n - r, n) for r in range(1, n + 1))


@lru_cache(maxsize=512)
def run_law(n: int, k: int) -> tuple[Fraction, ...]:
    """The exact law of the run count R after k fair passes: P(R = r) for r = 1..n."""
    den = 1 << (k * n)
    return tuple(
        Fraction(e * w, den) for e, w in zip(eulerian(n), run_weights(n, k), strict=True)
    )


@lru_cache(maxsize=512)
def tv_exact(n: int, k: int) -> Fraction:
    """Exact total variation distance to uniform after k fair coin passes of n cards.

    Raises DeckSizeError for n < 1, ValueError for k < 0.
    """
    nf = factorial(n)
    den = 1 << (k * n)
    total = 0
    for e, w in zip(eulerian(n), run_weights(n, k), strict=True):
        # |w/den - 1/n!| scaled by n! * den to stay in integers
        total += e * abs(nf * w - den)
    return Fraction(total, 2 * nf * den)


def tv(n: int, k: int) -> float:
    """`tv_exact` as a float."""
    return float(tv_exact(n, k))


def passes_needed(n: int, target: float, *, max_passes: int = 64) -> int:
    """The fewest fair coin passes with TV strictly below `target`.

    Raises ValueError when the target is not in (0, 1] or cannot be reached.
    """
    if not 0 < target <= 1:
        raise ValueError(f"target distance must be in (0, 1], got {target}")
    t = Fraction(target)
    for k in range(max_passes + 1):
        if tv_exact(n, k) < t:
            return k
    raise ValueError(f"no plan of at most {max_passes} passes reaches TV {target} for {n} cards")


@lru_cache(maxsize=512)
def run_moments(n: int, k: int) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the run count R after k fair coin passes."""
    law = run_law(n, k)
    mean = sum((r * p for r, p in enumerate(law, start=1)), Fraction(0))
    second = sum((r * r * p for r, p in enumerate(law, start=1)), Fraction(0))
    return mean, second - mean * mean


@lru_cache(maxsize=512)
def tv_terms(n: int, k: int) -> tuple[float, ...]:
    """max(0, 1 - U/P) per run count r = 1..n: its mean over decks drawn from P is the TV.

    U = 1/n!, P = the k-pass probability of one deck with r runs; so the average of
    these terms over simulated decks is an unbiased estimate of TV.
    """
    nf = factorial(n)
    den = 1 << (k * n)
    out = []
    for w in run_weights(n, k):
        # 1 - den / (nf * w), clipped at 0; w == 0 means the deck is impossible (term 0)
        if w == 0 or nf * w <= den:
            out.append(0.0)
        else:
            out.append(float(Fraction(nf * w - den, nf * w)))
    return tuple(out)


@lru_cache(maxsize=64)
def uniform_run_law(n: int) -> tuple[Fraction, ...]:
    """The law of R for a uniformly random deck: A(n, r) / n!."""
    nf = factorial(n)
    return tuple(Fraction(e, nf) for e in eulerian(n))


@lru_cache(maxsize=64)
def no_succession_counts(m: int) -> int:
    """a(m): permutations of m with no i directly followed by i+1 (a(1) = a(2) = 1)."""
    a = [0, 1, 1]
    for j in range(3, m + 1):
        a.append((j - 1) * a[j - 1] + (j - 2) * a[j - 2])
    return a[m]


@lru_cache(maxsize=64)
def succession_law(n: int) -> tuple[Fraction, ...]:
    """The law of S (cards i, i+1 with i+1 directly below i) for a uniform deck, j = 0..n-1."""
    _check_n(n)
    nf = factorial(n)
    return tuple(
        Fraction(comb(n - 1, j) * no_succession_counts(n - j), nf) for j in range(n)
    )


def radix_passes(n: int) -> int:
    """ceil(log2 n): the passes an exact (radix) plan needs for n cards (0 for one card)."""
    _check_n(n)
    return (n - 1).bit_length()
