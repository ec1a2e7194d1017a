"""The shipped rank tables are what the generator makes from first principles."""

from __future__ import annotations

import subprocess
import sys

from cribbage import ranks, tablegen
from cribbage.rankmath import all_multisets, rank_key, rank_parts_of


def test_the_shipped_file_is_what_the_generator_makes() -> None:
    assert tablegen.TARGET.read_bytes() == tablegen.encode(tablegen.build())
    assert tablegen.main(["--check"]) == 0


def test_the_loaded_tables_hold_every_multiset_of_up_to_five_ranks() -> None:
    by_key, by_five = tablegen.build()
    assert ranks.ROWS_BY_KEY == {k: (*r[:4], bool(r[4])) for k, r in by_key.items()}
    assert ranks.ROWS_BY_FIVE == {k: (*r[:4], bool(r[4])) for k, r in by_five.items()}
    assert len(ranks.ROWS_BY_FIVE) == 6175 and len(ranks.ROWS_BY_KEY) == 8555
    for size in (3, 5):
        for ranks_ in list(all_multisets(size))[::97]:
            assert ranks.PARTS_BY_KEY[rank_key(ranks_)] == rank_parts_of(ranks_)


def test_importing_the_engine_builds_no_table() -> None:
    code = ("import sys, cribbage; "
            "print(sorted(m for m in sys.modules if m.startswith('cribbage')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['cribbage']"
