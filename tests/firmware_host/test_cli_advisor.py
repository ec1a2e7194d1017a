"""`crib advise`, `crib advise-play` and `crib advise-table`, run as a player would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main

CRIB = Path(sys.executable).with_name("crib")


def test_advise_prints_a_ranked_table_with_the_best_discard_first():
    proc = subprocess.run(
        [str(CRIB), "advise", "7C", "9H", "5H", "5C", "5D", "JS", "--dealer"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "dealer" in lines[0] and "random" in lines[0] and "46 unseen" in lines[0]
    assert len(lines) == 2 + 15
    best = lines[2].split()
    assert best[1:7] == ["5H", "5C", "5D", "JS", "7C", "9H"]
    assert best[9] == "20.91"  # the net: 16.65 hand + 4.26 crib


def test_advise_json_for_the_pone_with_known_cards(capsys):
    rc = main(["advise", "7C", "9H", "5H", "5C", "5D", "JS", "--pone", "--json",
               "--known", "5S", "2D"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["dealer"] is False and data["known"] == ["5S", "2D"] and data["unseen"] == 44
    top = data["options"][0]
    assert top["discard"] == ["7C", "9H"]
    assert top["hand_max"] < 29  # the fourth five is known, so no 29
    assert top["net"] == pytest.approx(top["hand"] - top["crib"], abs=1e-3)


def test_advise_other_variant_and_table_model(capsys):
    rc = main(["advise", "5H", "5C", "JD", "4S", "6S", "--variant", "five-card", "--pone",
               "--model", "table", "--top", "3"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0 and "five-card" in out[0] and "crib model table" in out[0]
    assert len(out) == 2 + 3


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["advise", "7C", "9H", "5H", "5C", "5D", "--dealer"], "6 cards, got 5"),
        (["advise", "7C", "9H", "5H", "5C", "5D", "ZZ", "--dealer"], "not a card: 'ZZ'"),
        (["advise", "7C", "9H", "5H", "5C", "5D", "5D", "--pone"], "5D is given twice"),
        (["advise", "7C", "9H", "5H", "5C", "5D", "JS", "--pone", "--known", "JS"],
         "known card JS is also in the hand"),
        (["advise-play", "KS", "QH", "--played", "10H", "10S", "ZZ"], "not a card: 'ZZ'"),
    ],
)
def test_bad_input_exits_non_zero_with_one_clear_line(capsys, argv, needle):
    rc = main(argv)
    captured = capsys.readouterr()
    assert rc == 2 and captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"crib {argv[0]}: ") and needle in err[0]
    assert ": error:" not in err[0]  # one style for every command: `crib COMMAND: message`


def test_advise_needs_a_side():
    proc = subprocess.run([str(CRIB), "advise", "7C", "9H", "5H", "5C", "5D", "JS"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "--dealer" in proc.stderr and "--pone" in proc.stderr


def test_advise_play_names_the_card_and_the_reason(capsys):
    rc = main(["advise-play", "4H", "5C", "10D", "JS"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("count 0: play 4H: a four cannot be made fifteen")
    rc = main(["advise-play", "KS", "QH", "--played", "10H", "10S", "5D", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["card"] is None and data["count"] == 25


def test_advise_table_writes_a_table_the_model_can_read(tmp_path, capsys):
    out = tmp_path / "table.json"
    rc = main(["advise-table", "--variant", "three-player", "--samples", "2", "--seed", "1",
               "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    table = data["tables"]["three-player"]
    assert set(table) == {"dealer", "pone"}
    assert set(table["dealer"]) == {str(r) for r in range(1, 14)}
    assert data["runs"]["three-player"] == {"samples": 2, "seed": 1}
    # Same seed, same table: the measurement is reproducible.
    again = tmp_path / "again.json"
    main(["advise-table", "--variant", "three-player", "--samples", "2", "--seed", "1",
          "--out", str(again)])
    assert json.loads(again.read_text())["tables"] == data["tables"]
