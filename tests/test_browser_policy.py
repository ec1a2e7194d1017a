"""`make test` runs the page's browser tests or stops with the command that fixes it; only an
explicit CRIB_SKIP_BROWSER=1 leaves them out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import browser_policy

ROOT = Path(__file__).resolve().parents[1]


def test_without_chromium_the_run_stops_with_the_install_command(tmp_path: Path) -> None:
    line = browser_policy({}, tmp_path / "no-chromium")
    assert line is not None and line != "skip"
    assert "sudo apt-get install chromium" in line and "CRIB_SKIP_BROWSER=1" in line


def test_skipping_needs_the_explicit_opt_out(tmp_path: Path) -> None:
    missing = tmp_path / "no-chromium"
    assert browser_policy({"CRIB_SKIP_BROWSER": "1"}, missing) == "skip"
    assert browser_policy({"CRIB_SKIP_BROWSER": "0"}, missing) not in (None, "skip")
    assert browser_policy({}, Path(sys.executable)) is None  # present: they run


def test_the_opt_out_reports_every_browser_test_as_skipped() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "browser",
         "tests/firmware_host/test_page.py"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={"CRIB_SKIP_BROWSER": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CRIB_SKIP_BROWSER=1: the page is not tested" in done.stdout
    assert " passed" not in done.stdout
