"""The `crib` command line: one parser, subcommands registered by each area's module."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
from collections.abc import Iterator, Sequence
from types import FrameType, ModuleType
from typing import Any, NoReturn

# Each module adds its subcommands; order is the order of `crib --help`. A command line that
# names a subcommand imports only the module that has it: `crib score` need not load the
# advisor's or doctor's imports (tens of ms here, several times that on a Pi Zero).
COMMANDS: dict[str, tuple[str, ...]] = {
    "engine": ("score", "peg", "stats"),
    "advisor": ("advise", "advise-play", "advise-table"),
    "hardware": ("shuffle-audit", "board-sim", "board"),
    "board_layout": ("board",),  # adds `board map` and `board template` to hardware's `board`
    "bringup": ("inputs", "shuffler"),
    "daemon": ("serve", "token"),
    "doctor": ("doctor",),
    "club": ("club",),
}


def modules(argv: Sequence[str] | None = None) -> list[ModuleType]:
    """The subcommand modules to register for `argv`: the one that has the command it
    names, else all of them (for `crib --help`, a typo, no command)."""
    word = next((a for a in argv or () if not a.startswith("-")), None)
    names = [m for m, commands in COMMANDS.items() if word in commands] or list(COMMANDS)
    return [importlib.import_module(f"firmware_host.cli.{name}") for name in names]


class CribParser(argparse.ArgumentParser):
    """The parser of `crib` and of every subcommand (argparse gives subparsers the class of
    their parent): a usage mistake is one line naming it, then where the help is, instead
    of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\nsee {self.prog} --help\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # Remember the innermost parser, so that leftover words are blamed on the subcommand
        # they were given to, not on `crib` itself.
        namespace = argparse.Namespace() if namespace is None else namespace
        namespace._parser = self
        return super().parse_known_args(args, namespace)


def fail(args: argparse.Namespace, message: object, code: int = 2) -> int:
    """Print one error line in the one style of every command, `crib COMMAND: message`, and
    return the exit code `code`."""
    print(f"{args._parser.prog}: {message}", file=sys.stderr)
    return code


@contextlib.contextmanager
def until_stopped() -> Iterator[None]:
    """Inside the block, Ctrl-C (SIGINT) and SIGTERM raise KeyboardInterrupt, whatever this
    process inherited; on leaving it the inherited handlers are back.

    A job a shell starts in the background (`make test > log &`) inherits SIGINT ignored, and
    systemd and `kill` send SIGTERM: a command that runs until stopped must stop on both. Only
    the first signal raises, so a second one cannot cut short the `finally` that turns a
    motor off or closes a pseudo-terminal; put that clean-up inside the block.
    """
    raised = False

    def stop(_signum: int, _frame: FrameType | None) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise KeyboardInterrupt

    inherited = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in inherited.items():
            signal.signal(sig, handler)


def version() -> str:
    """The installed version of the product."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("cribbage-table")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser(argv: Sequence[str] | None = None) -> CribParser:
    """The `crib` parser: every subcommand, or (given `argv`) the ones of its module."""
    parser = CribParser(
        prog="crib", description="Cribbage at the table: rules, shuffler, peg board, daemon."
    )
    parser.add_argument("--version", action="version", version=f"crib {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in modules(argv):
        module.register(sub)
    for each in parsers(parser):
        # One mechanism for every subcommand, whatever a module did to its own parsers.
        each.__class__ = CribParser
        vars(each).pop("error", None)
    return parser


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """`parser` and every subcommand parser under it, depth first."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found += parsers(child)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run `crib`; every subcommand sets `func(args) -> int` as its handler."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
