"""Points that depend on ranks alone (fifteens, pairs, runs), tabled for every rank multiset.

A show hand's fifteens, pairs and runs depend only on the multiset of its ranks, and there are
only 6,175 multisets of five ranks (each rank at most four times), so they are counted once at
import and looked up afterwards. Suits (flush, nobs) are added by the caller.

Two keys name a multiset: the sorted tuple of ranks, and `rank_key`, a packed int with three
bits per rank holding its count (order-free: the sum of `RANK_BIT[rank]` over the cards).
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


def _compute(ranks: tuple[int, ...]) -> tuple[int, int, int]:
    return 2 * count_fifteens(ranks), 2 * count_pairs(ranks), run_points(ranks)


def all_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every sorted rank multiset of this size with no rank more than four times."""
    for combo in combinations_with_replacement(range(1, 14), size):
        if all(combo.count(r) <= 4 for r in set(combo)):
            yield combo


# (fifteens, pairs, runs) points by sorted rank tuple and by packed key, sizes 0..5.
_PARTS_BY_TUPLE: dict[tuple[int, ...], tuple[int, int, int]] = {}
_PARTS_BY_KEY: dict[int, tuple[int, int, int]] = {}
_POINTS_BY_TUPLE: dict[tuple[int, ...], int] = {}
_POINTS_BY_KEY: dict[int, int] = {}
for _size in range(MAX_CARDS + 1):
    for _ranks in all_multisets(_size):
        _parts = _compute(_ranks)
        _key = rank_key(_ranks)
        _PARTS_BY_TUPLE[_ranks] = _parts
        _PARTS_BY_KEY[_key] = _parts
        _POINTS_BY_TUPLE[_ranks] = _POINTS_BY_KEY[_key] = sum(_parts)

PARTS_BY_KEY = _PARTS_BY_KEY
"""(fifteens, pairs, runs) points for every multiset of at most five ranks, by `rank_key`."""

POINTS_BY_KEY = _POINTS_BY_KEY
"""fifteens + pairs + runs points for every multiset of at most five ranks, by `rank_key`."""

FIVE_WEIGHT: tuple[int, ...] = (0,) + tuple(5 ** (r - 1) for r in range(1, 13)) + (0,)
"""`FIVE_WEIGHT[rank]`: summed over exactly five cards it names their rank multiset in a small
int (base five, one digit per rank ace..queen; the kings are whatever is left of five)."""

PARTS_BY_FIVE: dict[int, tuple[int, int, int]] = {
    sum(FIVE_WEIGHT[r] for r in _ranks): _PARTS_BY_TUPLE[_ranks] for _ranks in all_multisets(5)
}
"""(fifteens, pairs, runs) points for every five-rank multiset, by the sum of `FIVE_WEIGHT`."""


def rank_points(ranks: tuple[int, ...]) -> int:
    """Fifteens*2 + pairs*2 + runs for a SORTED tuple of 0..5 ranks (1..13).

    Raises KeyError for an unsorted tuple, a rank outside 1..13, more than five ranks or a
    rank given five times.
    """
    return _POINTS_BY_TUPLE[ranks]


def rank_parts(ranks: tuple[int, ...]) -> tuple[int, int, int]:
    """(fifteens, pairs, runs) points for a SORTED tuple of 0..5 ranks; raises KeyError."""
    return _PARTS_BY_TUPLE[ranks]


def points_of(ranks: Iterable[int]) -> int:
    """Fifteens + pairs + runs points for ranks in any order; raises KeyError as rank_points."""
    return _POINTS_BY_KEY[rank_key(ranks)]


__all__ = [
    "FIVE_WEIGHT",
    "PARTS_BY_FIVE",
    "MAX_CARDS",
    "PARTS_BY_KEY",
    "POINTS_BY_KEY",
    "RANK_BIT",
    "all_multisets",
    "count_fifteens",
    "count_pairs",
    "key_ranks",
    "pips",
    "points_of",
    "rank_key",
    "rank_parts",
    "rank_points",
    "run_points",
]
