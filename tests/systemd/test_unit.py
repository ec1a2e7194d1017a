"""The unit as install.sh renders it: systemd accepts it silently, and it is hardened."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.systemd.helpers import UNIT_NAME, fake_venv, install, project_version, systemd_analyze


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed unit file (with its drop-in directory beside it) in a throwaway root."""
    base = tmp_path_factory.mktemp("unit")
    prefix = base / "opt" / "cribbage-table"
    fake_venv(prefix)
    install(base / "root", prefix)
    return base / "root" / "etc" / "systemd" / "system" / UNIT_NAME


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [systemd_analyze(), "verify", str(unit)],
        capture_output=True, text=True, timeout=60, check=False, cwd=unit.parent,
    )


def test_verify_is_silent(rendered: Path) -> None:
    # verify exits 0 on unknown keys, so any output at all is a failure.
    done = verify(rendered)
    assert done.returncode == 0 and not done.stdout and not done.stderr, (
        f"systemd-analyze verify complained:\n{done.stdout}{done.stderr}"
    )


def test_verify_would_catch_a_bad_key(rendered: Path, tmp_path: Path) -> None:
    broken = tmp_path / UNIT_NAME
    broken.write_text(rendered.read_text().replace("[Service]\n", "[Service]\nWatchdogSecs=5\n"))
    done = verify(broken)
    assert "WatchdogSecs" in done.stdout + done.stderr


def test_drop_in_documentation_is_read_and_silent(rendered: Path) -> None:
    dropin = rendered.parent / (UNIT_NAME + ".d") / "README.conf"
    assert dropin.exists()
    text = dropin.read_text()
    assert "systemctl edit cribbage-table" in text
    # Every line is a comment: the file documents and changes nothing.
    assert all(not line.strip() or line.startswith("#") for line in text.splitlines())


def test_security_exposure_at_most_2_0(rendered: Path) -> None:
    done = subprocess.run(
        [systemd_analyze(), "security", "--offline=true", "--threshold=20", str(rendered)],
        capture_output=True, text=True, timeout=60, check=False, cwd=rendered.parent,
    )
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert m, done.stdout + done.stderr
    print(f"\nsystemd-analyze security exposure: {m.group(1)}")
    assert done.returncode == 0, f"exposure {m.group(1)} is over 2.0:\n{done.stdout}"
    assert float(m.group(1)) <= 2.0


def _settings(unit: Path) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).append(value.strip())
    return values


def test_rendered_unit_runs_the_venv_crib_serve_with_the_config(rendered: Path) -> None:
    s = _settings(rendered)
    prefix = rendered.parents[4] / "opt" / "cribbage-table"
    assert s["ExecStart"] == [
        f"{prefix}/venv/bin/crib serve --config /etc/cribbage-table/config.toml"
    ]
    assert s["X-CribbageVersion"] == [project_version()]
    assert not re.search(r"@[A-Z]+@", rendered.read_text()), "a placeholder was not rendered"


def test_unit_has_the_service_contract(rendered: Path) -> None:
    s = _settings(rendered)
    assert s["Type"] == ["notify"]
    assert s["WatchdogSec"] and s["Restart"] == ["on-failure"]
    assert s["StartLimitIntervalSec"] and s["StartLimitBurst"]
    assert s["User"] == ["cribbage"]
    assert s["SupplementaryGroups"] == ["gpio dialout spi"]
    assert s["LimitNOFILE"] == ["4096"]  # above the daemon's connection cap, not 1024
    assert s["StateDirectory"] == ["cribbage-table"]
    assert s["RuntimeDirectory"] == ["cribbage-table"]
    assert "LG_WD=%t/cribbage-table" in s["Environment"]
    assert s["DevicePolicy"] == ["closed"]
    for device in ("char-gpiochip rw", "char-ttyACM rw", "char-ttyUSB rw", "/dev/gpiomem rw",
                   "/dev/spidev0.0 rw"):
        assert device in s["DeviceAllow"]
    # The one capability is for port 80, nothing else.
    assert s["CapabilityBoundingSet"] == ["CAP_NET_BIND_SERVICE"]
    assert s["AmbientCapabilities"] == ["CAP_NET_BIND_SERVICE"]
    assert s["ProtectSystem"] == ["strict"] and s["NoNewPrivileges"] == ["yes"]
    assert "PrivateDevices" not in s  # it would hide /dev/gpiochip* and the serial port
    assert "ProcSubset" not in s  # gpiozero reads /proc/device-tree and /proc/cpuinfo


def test_the_feed_motor_is_driven_off_after_the_daemon_ends_however_it_ended(
        rendered: Path, tmp_path: Path) -> None:
    # A daemon killed by SIGKILL or the watchdog's abort runs no atexit: the Pi's kernel keeps
    # the motor pin driving. The unit drives it off after every stop, crash or kill.
    import json
    import os
    import sys

    s = _settings(rendered)
    prefix = rendered.parents[4] / "opt" / "cribbage-table"
    assert s["ExecStopPost"] == [
        f"-{prefix}/venv/bin/crib shuffler jog --off --config /etc/cribbage-table/config.toml"
    ]
    # That very command line, run here (the repository's crib, mock pins): the pin goes low.
    argv = s["ExecStopPost"][0].lstrip("-").split()[1:]
    cfg = tmp_path / "config.toml"
    cfg.write_text('[shuffler]\nmode = "real"\n')
    argv[argv.index("/etc/cribbage-table/config.toml")] = str(cfg)
    env = {**os.environ, "CRIB_STATE_DIR": str(tmp_path)}
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "firmware_host", *argv, "--simulate", "--json"],
                          cwd=root, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    pin = [json.loads(ln) for ln in done.stdout.splitlines() if '"motor_pin"' in ln]
    assert pin and pin[-1]["states"] == [False] and len(pin[-1]["states"]) == 1
    # Off a Pi, or with the shuffler not on GPIO, there is nothing to stop: exit 0 quietly.
    cfg.write_text('[shuffler]\nmode = "absent"\n')
    done = subprocess.run([sys.executable, "-m", "firmware_host", *argv], cwd=root,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0 and "no motor to stop" in done.stdout, done.stderr
