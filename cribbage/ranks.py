"""Points that depend on ranks alone (fifteens, pairs, runs), tabled for every rank multiset.

A show hand's fifteens, pairs and runs depend only on the multiset of its ranks, and there are
only 6,175 multisets of five ranks (each rank at most four times), so they are tabled once
(by `cribbage.tablegen`, shipped as data/rank_tables.bin) and looked up afterwards. Suits
(flush, nobs) are added by the caller.

Two keys name a multiset: the sorted tuple of ranks, and `rank_key`, a packed int with three
bits per rank holding its count (order-free: the sum of `RANK_BIT[rank]` over the cards).
"""

from __future__ import annotations

import functools
import os
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable
from typing import Any

from cribbage.rankmath import (  # noqa: F401  (re-exported)
    FIVE_WEIGHT,
    MAX_CARDS,
    RANK_BIT,
    all_multisets,
    count_fifteens,
    count_pairs,
    key_ranks,
    pips,
    rank_key,
    run_points,
)

# os.path, not pathlib: pathlib's import alone costs more than reading the tables.
_DATA = os.path.join(os.path.dirname(__file__), "data", "rank_tables.bin")
_MAGIC = b"CRIBRANK1"

Row = tuple[int, int, int, int, bool]


def _load() -> tuple[dict[int, Row], dict[int, Row]]:
    """The two row tables from the shipped data (made by `cribbage.tablegen`)."""
    with open(_DATA, "rb") as f:
        raw = f.read()
    if not raw.startswith(_MAGIC):
        raise RuntimeError(f"{_DATA} is not a rank table file; run python -m cribbage.tablegen")
    body = zlib.decompress(raw[len(_MAGIC):])
    out = []
    at = 0
    for _ in range(2):
        (n,) = struct.unpack_from("<I", body, at)
        at += 4
        keys = array("Q")
        keys.frombytes(body[at:at + 8 * n])
        if sys.byteorder == "big":
            keys.byteswap()
        at += 8 * n
        cols = [body[at + i * n:at + (i + 1) * n] for i in range(5)]
        at += 5 * n
        jack = [b == 1 for b in cols[4]]
        out.append(dict(zip(keys, zip(cols[0], cols[1], cols[2], cols[3], jack, strict=True),
                            strict=True)))
    return out[0], out[1]


ROWS_BY_KEY, ROWS_BY_FIVE = _load()
"""(fifteens, pairs, runs, their sum, a jack among the ranks) by `rank_key` (0 to 5 ranks),
and for exactly five ranks by their `FIVE_WEIGHT` sum."""

PARTS_BY_KEY: dict[int, tuple[int, int, int]]
POINTS_BY_KEY: dict[int, int]
PARTS_BY_FIVE: dict[int, tuple[int, int, int]]
_DERIVED = {
    # name: (source rows, what of each row), made on first use (PEP 562) to keep import cheap
    "PARTS_BY_KEY": ("key", 3),  # (fifteens, pairs, runs) by `rank_key`, 0 to 5 ranks
    "POINTS_BY_KEY": ("key", None),  # fifteens + pairs + runs by `rank_key`
    "PARTS_BY_FIVE": ("five", 3),  # (fifteens, pairs, runs) of five ranks by `FIVE_WEIGHT` sum
}


def __getattr__(name: str) -> Any:
    spec = _DERIVED.get(name)
    if spec is None:
        raise AttributeError(f"module 'cribbage.ranks' has no attribute {name!r}")
    rows = ROWS_BY_KEY if spec[0] == "key" else ROWS_BY_FIVE
    table = {k: r[3] for k, r in rows.items()} if spec[1] is None else {
        k: r[:3] for k, r in rows.items()}
    globals()[name] = table
    return table


def rank_points(ranks: tuple[int, ...]) -> int:
    """Fifteens*2 + pairs*2 + runs for a SORTED tuple of 0..5 ranks (1..13).

    Raises KeyError for an unsorted tuple, a rank outside 1..13, more than five ranks or a
    rank given five times.
    """
    return _by_tuple()[ranks]


def points_of(ranks: Iterable[int]) -> int:
    """Fifteens + pairs + runs points for ranks in any order; raises KeyError as rank_points."""
    return _points_by_key()[rank_key(ranks)]


def _points_by_key() -> dict[int, int]:
    return __getattr__("POINTS_BY_KEY")  # type: ignore[no-any-return]


@functools.cache
def _by_tuple() -> dict[tuple[int, ...], int]:
    """The points by sorted rank tuple, made on first use (the census and the advisor)."""
    return {key_ranks(k): sum(r[:3]) for k, r in ROWS_BY_KEY.items()}


__all__ = [
    "FIVE_WEIGHT",
    "PARTS_BY_FIVE",
    "ROWS_BY_FIVE",
    "ROWS_BY_KEY",
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
    "rank_points",
    "run_points",
]
