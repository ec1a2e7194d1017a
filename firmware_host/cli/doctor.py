"""`crib doctor`: check the installation on the Pi, one line per check with its fix."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from firmware_host import doctor


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `crib doctor` to the `crib` parser."""
    p = sub.add_parser(
        "doctor",
        help="check the installation: groups, GPIO, board, SPI, state, unit, power, disk",
        description="Check the installation on the Pi, each problem with its fix; off a Pi, "
        "only what a laptop needs (the service's own checks are skipped). Exit status 1 when a "
        "check fails.",
    )
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"configuration file (default: $CRIB_CONFIG, else {doctor.DEFAULT_CONFIG} "
        "if it exists, else the one `crib serve` reads: config.toml in its state directory)",
    )
    p.add_argument("--user", default=doctor.SERVICE_USER, help="the service user to check")
    p.add_argument("--unit", type=Path, default=doctor.DEFAULT_UNIT, help="installed unit file")
    p.set_defaults(func=_doctor)


def _config_path(given: Path | None) -> Path | None:
    if given is not None:
        return given
    env = os.environ.get("CRIB_CONFIG")
    if env:
        return Path(env)
    if doctor.DEFAULT_CONFIG.parent.is_dir():  # installed (the file may be unreadable to us)
        return doctor.DEFAULT_CONFIG
    # Else the file `crib serve` itself reads (config.toml in its state directory, where
    # `make run` keeps it on a laptop), so doctor checks the configuration in use.
    from firmware_host.config import config_path

    own, _ = config_path(None)
    return own if own.exists() else None


def _doctor(args: argparse.Namespace) -> int:
    from firmware_host.cli.daemon import unreadable

    path = _config_path(args.config)
    if path is not None:
        command = "sudo crib doctor" + (f" --config {path}" if args.config else "")
        problem = unreadable(path, command + (" --json" if args.json else ""))
        if problem is not None:  # not the file's fault: say who may read it, in one line
            print(f"crib doctor: {problem}", file=sys.stderr)
            return 1
    setup = doctor.Setup.from_config(path, user=args.user, unit_path=args.unit)
    report = doctor.run(setup)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1
