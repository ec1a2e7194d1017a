"""Rank arithmetic of the show, computed from first principles (no tables).

Fifteens, pairs and runs of a hand depend only on its rank multiset. This module counts them
directly; `cribbage.tablegen` tables them for every multiset of up to five ranks, and
`cribbage.ranks` looks them up. Keys: the sorted tuple of ranks; `rank_key`, a packed int
with three bits per rank holding its count; and for exactly five cards the `FIVE_WEIGHT` sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations, combinations_with_replacement

MAX_CARDS = 5
"""The largest multiset tabled (a hand of four and the starter)."""

RANK_BIT: tuple[int, ...] = (0,) + tuple(1 << (3 * (r - 1)) for r in range(1, 14))
"""`RANK_BIT[rank]` is the amount one card of that rank adds to a `rank_key`."""


def pips(rank: int) -> int:
    """The counting value of a rank (face cards count ten)."""
    return rank if rank < 10 else 10


def rank_key(ranks: Iterable[int]) -> int:
    """The order-free packed key of a rank multiset (three bits of count per rank)."""
    key = 0
    for r in ranks:
        key += RANK_BIT[r]
    return key


def key_ranks(key: int) -> tuple[int, ...]:
    """The sorted ranks of a packed key (the inverse of `rank_key`)."""
    out: list[int] = []
    for r in range(1, 14):
        out.extend([r] * ((key >> (3 * (r - 1))) & 7))
    return tuple(out)


def count_fifteens(ranks: tuple[int, ...]) -> int:
    """How many sub-multisets (by position) of the ranks sum to fifteen."""
    values = [pips(r) for r in ranks]
    n = 0
    for size in range(2, len(values) + 1):
        for combo in combinations(values, size):
            if sum(combo) == 15:
                n += 1
    return n


def count_pairs(ranks: tuple[int, ...]) -> int:
    """How many pairs of cards share a rank."""
    n = 0
    for r in set(ranks):
        c = ranks.count(r)
        n += c * (c - 1) // 2
    return n


def run_points(ranks: tuple[int, ...]) -> int:
    """Points for runs: each maximal run of 3+ distinct ranks, once per way it can be made."""
    total = 0
    distinct = sorted(set(ranks))
    i = 0
    while i < len(distinct):
        j = i
        while j + 1 < len(distinct) and distinct[j + 1] == distinct[j] + 1:
            j += 1
        length = j - i + 1
        if length >= 3:
            ways = 1
            for r in distinct[i : j + 1]:
                ways *= ranks.count(r)
            total += length * ways
        i = j + 1
    return total


def rank_parts_of(ranks: tuple[int, ...]) -> tuple[int, int, int]:
    """(fifteens, pairs, runs) points of a rank multiset, counted directly."""
    return 2 * count_fifteens(ranks), 2 * count_pairs(ranks), run_points(ranks)


def all_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every sorted rank multiset of this size with no rank more than four times."""
    for combo in combinations_with_replacement(range(1, 14), size):
        if all(combo.count(r) <= 4 for r in set(combo)):
            yield combo


FIVE_WEIGHT: tuple[int, ...] = (0,) + tuple(5 ** (r - 1) for r in range(1, 13)) + (0,)
"""`FIVE_WEIGHT[rank]`: summed over exactly five cards it names their rank multiset in a small
int (base five, one digit per rank ace..queen; the kings are whatever is left of five)."""
