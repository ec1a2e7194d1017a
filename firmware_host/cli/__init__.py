"""The `crib` command line: one parser, subcommands registered by each area's module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from firmware_host.cli import advisor, bringup, daemon, doctor, engine, hardware

# Each module adds its subcommands; order is the order of `crib --help`.
_MODULES = (engine, advisor, hardware, bringup, daemon, doctor)


def build_parser() -> argparse.ArgumentParser:
    """The whole `crib` parser."""
    parser = argparse.ArgumentParser(
        prog="crib", description="Cribbage at the table: rules, shuffler, peg board, daemon."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in _MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `crib`; every subcommand sets `func(args) -> int` as its handler."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
