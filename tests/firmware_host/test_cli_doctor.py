"""`crib doctor` on a laptop, as a user runs it after `make run`: it checks the configuration
`crib serve` reads (config.toml in the state directory), not a file of the installed service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host import doctor
from firmware_host.config import on_raspberry_pi

CRIB = Path(sys.executable).with_name("crib")

pytestmark = pytest.mark.skipif(
    on_raspberry_pi() or doctor.DEFAULT_CONFIG.exists(),
    reason="a Pi, or an installed configuration, is what doctor checks first",
)


def _doctor(home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")} | {"HOME": str(home)}
    return subprocess.run([str(CRIB), "doctor"], capture_output=True, text=True, env=env,
                          cwd=home, timeout=120)


def _state(home: Path) -> Path:
    state = home / ".local" / "state" / "cribbage-table"
    state.mkdir(parents=True)
    return state


def test_a_bad_value_in_the_file_crib_serve_reads_is_named_with_its_path(tmp_path: Path) -> None:
    config = _state(tmp_path) / "config.toml"
    config.write_text('[board]\nmode = "pwm"\n')
    done = _doctor(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAIL  config:"))
    assert line.startswith(f"FAIL  config: {config} is not valid: ") and "board.mode" in line
    assert "None" not in line


def test_a_good_file_crib_serve_reads_is_the_one_checked(tmp_path: Path) -> None:
    state = _state(tmp_path)
    (state / "config.toml").write_text('[board]\nmode = "simulated"\n')
    done = _doctor(tmp_path)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"OK    config: {state / 'config.toml'} is valid" in lines
    assert f"OK    state: {state} is writable" in lines


def test_without_any_file_the_defaults_are_a_warning_not_a_failure(tmp_path: Path) -> None:
    done = _doctor(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(x.startswith("WARN  config: no configuration file given") for x in
               done.stdout.splitlines())
