"""`crib` imports only the module of the subcommand it runs; its table of commands is the
one the modules register."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

from firmware_host.cli import COMMANDS, build_parser, parsers


def test_the_table_names_what_each_module_registers() -> None:
    for name, commands in COMMANDS.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(f"firmware_host.cli.{name}").register(sub)
        assert tuple(sub.choices) == commands, name


def test_a_command_line_builds_only_its_module_and_help_builds_all() -> None:
    every = {p.prog for p in parsers(build_parser())}
    assert {f"crib {c}" for cs in COMMANDS.values() for c in cs} <= every
    score = {p.prog for p in parsers(build_parser(["score", "5H", "--starter", "5D"]))}
    assert score == {"crib", "crib score", "crib peg", "crib stats"}
    assert {p.prog for p in parsers(build_parser(["--help"]))} == every
    assert {p.prog for p in parsers(build_parser(["no-such-command"]))} == every


def test_crib_score_loads_neither_the_advisor_nor_the_doctor() -> None:
    code = ("import sys, io, contextlib\n"
            "from firmware_host.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = main(['score', '5H', '5C', '5S', 'JD', '--starter', '5D'])\n"
            "import json; print(json.dumps([status, sorted(sys.modules)]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    status, loaded = json.loads(out.stdout)
    assert status == 0
    for heavy in ("cribbage.advisor", "firmware_host.doctor", "firmware_host.cli.advisor",
                  "firmware_host.cli.hardware", "pydantic", "fastapi"):
        assert heavy not in loaded, heavy
