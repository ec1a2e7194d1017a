"""The director's systemd unit as `crib club install` writes it: systemd accepts it
silently, it starts after the broker with a watchdog, and it is hardened."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.systemd.helpers import fake_venv, systemd_analyze

UNIT = "cribbage-club.service"
CRIB = [sys.executable, "-m", "firmware_host"]


@pytest.fixture
def rendered(tmp_path: Path) -> Path:
    """The unit written by `crib club install --no-start` for a venv's crib."""
    prefix = tmp_path / "opt" / "cribbage-table"
    fake_venv(prefix)
    config = tmp_path / "club.toml"
    config.write_text('club = "tuesday"\npassword = "x"\n')
    done = subprocess.run([*CRIB, "club", "install", "--config", str(config), "--unit-dir",
                           str(tmp_path / "units"), "--no-start", "--user", "root"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    unit = tmp_path / "units" / UNIT
    text = unit.read_text().replace(str(Path(sys.executable).parent), str(prefix / "venv/bin"))
    unit.write_text(text)
    return unit


def _settings(unit: Path) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).append(value.strip())
    return values


def test_verify_is_silent(rendered: Path) -> None:
    done = subprocess.run([systemd_analyze(), "verify", str(rendered)], capture_output=True,
                          text=True, timeout=60, cwd=rendered.parent)
    assert done.returncode == 0 and not done.stdout and not done.stderr, done.stdout + done.stderr
    assert not re.search(r"@[A-Z]+@", rendered.read_text())


def test_exposure_at_most_2_0(rendered: Path) -> None:
    done = subprocess.run([systemd_analyze(), "security", "--offline=true", "--threshold=20",
                           str(rendered)], capture_output=True, text=True, timeout=60,
                          cwd=rendered.parent)
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert m, done.stdout + done.stderr
    print(f"\ncribbage-club.service exposure: {m.group(1)}")
    assert done.returncode == 0 and float(m.group(1)) <= 2.0


def test_it_runs_crib_club_serve_after_the_broker_with_its_state_directory(
        rendered: Path) -> None:
    s = _settings(rendered)
    assert s["ExecStart"] == [
        f"{rendered.parent.parent}/opt/cribbage-table/venv/bin/crib club serve "
        f"--config {rendered.parent.parent}/club.toml"]
    assert s["Type"] == ["notify"] and s["Restart"] == ["on-failure"]
    assert s["WatchdogSec"] == ["20s"]
    assert "mosquitto.service" in s["After"][0].split()
    assert "mosquitto.service" in s["Wants"][0].split()
    assert s["StateDirectory"] == ["cribbage-club"]
    assert s["CapabilityBoundingSet"] == [""] and s["NoNewPrivileges"] == ["yes"]
    assert s["ProtectSystem"] == ["strict"] and s["PrivateDevices"] == ["yes"]
