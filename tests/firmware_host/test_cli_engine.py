"""`crib score`, `crib peg`, `crib stats` through the real parser (and one real process)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from firmware_host.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_breakdown_and_spoken_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", "5H", "5C", "5S", "JD", "--starter", "5D")
    assert code == 0 and not err
    assert "total 29" in out and "nobs     JD" in out
    assert "and one for his nobs makes twenty-nine" in out


def test_score_json_crib_and_variant(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "score", "2H", "4H", "6H", "8H", "--starter", "KS", "--crib", "--json"
    )
    assert code == 0 and json.loads(out)["total"] == 0
    code, out, _ = run(
        capsys, "score", "2H", "4H", "6H", "--starter", "KS", "--variant", "five-card", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["flush"] == 3 and data["variant"] == "five-card"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("score", "5H", "5C", "--starter", "5D"), "has 4 cards, not 2"),
        (("score", "5H", "5C", "5S", "5X", "--starter", "5D"), "not a card: '5X'"),
        (("score", "5H", "5C", "5S", "JD", "--starter", "5H"), "5H is both in the hand"),
        (("peg", "K", "Q", "J", "9"), "is 39, past 31"),
        (("peg", "5", "5", "5", "5", "5"), "fifth time"),
        (("peg", "7H", "7H"), "7H is given twice"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code != 0 and not out
    assert message in err and len(err.strip().splitlines()) == 1


def test_peg_ranks_or_cards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "peg", "7", "8", "6")
    assert code == 0 and "run 3: 3 for the 6" in out
    code, out, _ = run(capsys, "peg", "7H", "8C", "6D", "6", "4", "--json")
    data = json.loads(out)
    assert data["thirty_one"] == 2 and data["total"] == 2 and len(set(data["cards"])) == 5
    code, out, _ = run(capsys, "peg", "5H", "5", "5", "5", "--json")
    data = json.loads(out)
    assert data["pairs"] == 12 and data["cards"] == ["5H", "5", "5", "5"]


def test_peg_json_keeps_ranks_as_ranks(crib) -> None:  # type: ignore[no-untyped-def]
    done = crib("peg", "7", "8", "6", "--json")
    data = json.loads(done.stdout)
    assert done.returncode == 0
    assert data["cards"] == ["7", "8", "6"]  # no invented suits
    assert data["run"] == 3 and data["count"] == 21
    done = crib("peg", "10", "k", "5H", "--json")
    assert json.loads(done.stdout)["cards"] == ["10", "K", "5H"]


def test_stats_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "stats")
    assert code == 0
    assert "mean 4.7692 (= 60759/12740)" in out and "impossible: 19, 25, 26, 27" in out
    assert "216,580" in out
    code, out, _ = run(capsys, "stats", "--crib", "--json")
    data = json.loads(out)
    assert data["crib"] is True and data["combinations"] == 12_994_800
    assert data["distribution"]["29"] == 4


def test_real_process_exits_nonzero_without_traceback() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from firmware_host.cli import main; sys.exit(main())",
            "score",
            "5H",
            "--starter",
            "5D",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "crib score: a six-card hand has 4 cards, not 1 (5H)"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("score", "5H", "5C", "5S", "JD"), "required: --starter"),
        (
            ("score", "5H", "5C", "5S", "JD", "--starter", "5D", "--variant", "nine"),
            "invalid choice: 'nine'",
        ),
        (("peg",), "required: cards"),
    ],
)
def test_usage_mistakes_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    _, err = capsys.readouterr()
    lines = err.splitlines()
    assert exc.value.code == 2 and message in lines[0]
    assert lines[1:] == [f"see crib {argv[0]} --help"]


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (("peg", "7", "8", ""), "crib peg: an empty card (item 3): '' names no card"),
        (("peg", "7", " ", "8"), "crib peg: an empty card (item 2): ' ' names no card"),
        (("peg", "7,,8"), "crib peg: an empty card between commas in '7,,8' (item 1)"),
        (("peg", ""), "crib peg: an empty card (item 1): '' names no card"),
        (("score", "5H", "", "5S", "JD", "--starter", "5D"),
         "crib score: an empty card (item 2): '' names no card"),
        (("score", "5H", "5C", "5S", "JD", "--starter", ""),
         "crib score: not a card: '' is empty (write rank then suit, like 5H)"),
    ],
)
def test_an_empty_card_is_refused_not_dropped(crib, argv: tuple[str, ...], line: str) -> None:  # type: ignore[no-untyped-def]
    done = crib(*argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [line]


def test_peg_shows_the_cards_as_typed_in_text_and_in_errors(crib) -> None:  # type: ignore[no-untyped-def]
    done = crib("peg", "7H", "8C", "6D")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "played 7H 8C 6D: count 21"
    assert crib("peg", "7", "8", "6").stdout.splitlines()[0] == "played 7 8 6: count 21"
    # A card given twice is named among the cards as typed: the bare 5 gets no suit.
    done = crib("peg", "5H", "5", "5H")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == ["crib peg: card 5H is given twice in 5H 5 5H"]
    # Past 31, the count is worded with the cards as typed: no suit is invented.
    done = crib("peg", "K", "Q", "J", "5")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == ["crib peg: the count of K Q J 5 is 35, past 31"]
