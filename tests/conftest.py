"""Options and policies for the whole suite.

- `pytest -m hardware --port /dev/serial/by-id/...` on a Pi.
- The browser tests run whenever they are selected: without Chromium the run stops at once
  with the command that installs it, so a green run never hides an untested page. Leaving
  them out takes an explicit `CRIB_SKIP_BROWSER=1`.
- `crib`: run the installed `crib` as a user does, in a throwaway home and state directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_CHROMIUM = "sudo apt-get install chromium"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--port",
        default=None,
        help="serial port of a real LED peg board, for `-m hardware` (or CRIB_BOARD_PORT)",
    )


def browser_policy(env: Mapping[str, str], chromium: Path | None = None) -> str | None:
    """What to do with selected browser tests: "skip" when the environment opts out, None to
    run them; otherwise the one line that says why they cannot run and what fixes it.
    `chromium` defaults to CHROMIUM, looked up at the call so a test can point it elsewhere."""
    chromium = CHROMIUM if chromium is None else chromium
    if env.get("CRIB_SKIP_BROWSER", "") not in ("", "0"):
        return "skip"
    if not chromium.exists():
        return (f"the browser tests need Debian's Chromium at {chromium}: run "
                f"`{INSTALL_CHROMIUM}` (or set CRIB_SKIP_BROWSER=1 to leave them out)")
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browser = [item for item in items if item.get_closest_marker("browser")]
    if not browser:
        return
    policy = browser_policy(os.environ)
    if policy == "skip":
        mark = pytest.mark.skip(reason="CRIB_SKIP_BROWSER=1: the page is not tested")
        for item in browser:
            item.add_marker(mark)
    elif policy is not None:
        raise pytest.UsageError(policy)


CRIB = Path(sys.executable).with_name("crib")


@pytest.fixture
def crib(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`crib(*args, env={...})`: the venv's `crib` in a fresh home and state directory, with no
    CRIB_* setting from the caller's environment; returns the finished process."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    base |= {"HOME": str(home), "CRIB_STATE_DIR": str(home / "state")}

    def run(*args: str, env: Mapping[str, str] | None = None, timeout: float = 60,
            ) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CRIB), *args], capture_output=True, text=True,
                              env=base | dict(env or {}), timeout=timeout, cwd=tmp_path)

    return run
