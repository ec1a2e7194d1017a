"""Shared by the systemd tests: run install.sh into a throwaway root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEMD = REPO / "systemd"
INSTALL = SYSTEMD / "install.sh"
UNINSTALL = SYSTEMD / "uninstall.sh"
UNIT_NAME = "cribbage-table.service"


def project_version() -> str:
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def systemd_analyze() -> str:
    """The systemd-analyze executable; fails the test (not skips) when it is missing."""
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.fail(
            "systemd-analyze is not installed: the unit cannot be checked. "
            "Install it with `apt-get install systemd` (CI's .ci/run does)."
        )
    return exe


def run_script(script: Path, *args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def install(root: Path, prefix: Path, *extra: str, hostname: str | None = "cribbage"):
    """install.sh --dry-run --root ROOT --prefix PREFIX; the root's /etc/hostname is `hostname`."""
    if hostname is not None:
        (root / "etc").mkdir(parents=True, exist_ok=True)
        (root / "etc" / "hostname").write_text(hostname + "\n")
    done = run_script(INSTALL, "--dry-run", "--root", root, "--prefix", prefix, *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def commands(out: str) -> list[str]:
    """The commands a dry run printed (lines starting with '+ ')."""
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def fake_venv(prefix: Path) -> Path:
    """An executable at PREFIX/venv/bin/crib, so `systemd-analyze verify` finds ExecStart."""
    crib = prefix / "venv" / "bin" / "crib"
    crib.parent.mkdir(parents=True, exist_ok=True)
    crib.write_text("#!/bin/sh\nexit 0\n")
    crib.chmod(0o755)
    return crib
