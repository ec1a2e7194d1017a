"""Makes `cribbage/data/rank_tables.bin`: the show's rank tables, shipped as data so that
nothing is computed when the engine is imported (see `cribbage.ranks`).

    python -m cribbage.tablegen          # rewrite the file
    python -m cribbage.tablegen --check  # exit 1 if it differs from what would be generated

tests/cribbage/test_tables.py regenerates the bytes and compares them with the shipped file.

Format: the magic `CRIBRANK1`, then zlib-compressed (little-endian) two sections, rows by
packed `rank_key` (0 to 5 ranks) and rows by five-card `FIVE_WEIGHT` sum. A section is a
uint32 count n, n uint64 keys, then five columns of n bytes each: fifteens, pairs, runs, their
sum, and 1 when the ranks include a jack.
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from pathlib import Path

from cribbage.rankmath import FIVE_WEIGHT, MAX_CARDS, all_multisets, rank_key, rank_parts_of

TARGET = Path(__file__).parent / "data" / "rank_tables.bin"
MAGIC = b"CRIBRANK1"
_JACK = 11

Row = tuple[int, int, int, int, int]


def build() -> tuple[dict[int, Row], dict[int, Row]]:
    """(rows by rank_key, rows by five-card weight), computed from `cribbage.rankmath`."""
    by_key: dict[int, Row] = {}
    by_five: dict[int, Row] = {}
    for size in range(MAX_CARDS + 1):
        for ranks in all_multisets(size):
            f, p, r = rank_parts_of(ranks)
            row = (f, p, r, f + p + r, int(_JACK in ranks))
            by_key[rank_key(ranks)] = row
            if size == 5:
                by_five[sum(FIVE_WEIGHT[x] for x in ranks)] = row
    return by_key, by_five


def encode(sections: tuple[dict[int, Row], ...]) -> bytes:
    out: list[bytes] = []
    for table in sections:
        keys = array("Q", table)
        if sys.byteorder == "big":
            keys.byteswap()
        out.append(struct.pack("<I", len(keys)))
        out.append(keys.tobytes())
        for column in range(5):
            out.append(bytes(row[column] for row in table.values()))
    return MAGIC + zlib.compress(b"".join(out), 9)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    data = encode(build())
    if "--check" in argv:
        same = TARGET.exists() and TARGET.read_bytes() == data
        print(f"{TARGET}: {'up to date' if same else 'differs; run python -m cribbage.tablegen'}")
        return 0 if same else 1
    TARGET.write_bytes(data)
    print(f"wrote {TARGET} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
