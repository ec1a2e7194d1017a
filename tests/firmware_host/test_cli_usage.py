"""Usage mistakes on every `crib` subcommand: one line naming the mistake, then where the help
is, exit status 2; `crib --version`."""

from __future__ import annotations

import re

import pytest

from firmware_host.cli import build_parser, main, parsers


def _leaves() -> list[str]:
    return [p.prog for p in parsers(build_parser())]


@pytest.mark.parametrize("prog", _leaves())
def test_every_parser_reports_an_unknown_option_in_one_line(
    prog: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = prog.split()[1:]
    with pytest.raises(SystemExit) as exc:
        main([*words, "--no-such-option"])
    err = capsys.readouterr().err.splitlines()
    assert exc.value.code == 2
    # The mistake may be a missing argument that comes first; either way one line, and the
    # help of the very command typed.
    assert len(err) == 2 and err[1] == f"see {prog} --help", err
    assert err[0].startswith(f"{prog}: "), err


def test_the_subcommands_are_all_walked() -> None:
    progs = set(_leaves())
    assert {"crib", "crib score", "crib advise", "crib shuffle-audit", "crib board test",
            "crib token", "crib token create", "crib serve", "crib doctor"} <= progs


@pytest.mark.parametrize(
    ("argv", "first"),
    [
        (["advise", "7C", "9H", "5H", "5C", "5D", "JS"],
         "crib advise: one of the arguments --dealer --pone is required"),
        (["shuffle-audit", "--routing", "foo"],
         "crib shuffle-audit: argument --routing: invalid choice: 'foo' "
         "(choose from 'coin', 'radix', 'light')"),
        (["board", "test"], "crib board test: the following arguments are required: --port"),
        (["token"], "crib token: the following arguments are required: ACTION"),
        ([], "crib: the following arguments are required: COMMAND"),
        (["score", "5H", "5C", "5S", "JD", "--starter", "5D", "--bogus"],
         "crib score: unrecognized arguments: --bogus"),
        (["peg"], "crib peg: the following arguments are required: cards"),
    ],
)
def test_the_issues_examples_as_a_user_types_them(crib, argv: list[str], first: str) -> None:
    done = crib(*argv)
    assert done.returncode == 2 and done.stdout == ""
    prog = first.split(":")[0]
    assert done.stderr.splitlines() == [first, f"see {prog} --help"]


def test_version(crib) -> None:
    done = crib("--version")
    assert done.returncode == 0
    assert re.fullmatch(r"crib \d+\.\d+\.\d+\S*\n", done.stdout), done.stdout
    from importlib.metadata import version

    assert done.stdout.split()[1] == version("cribbage-table")
