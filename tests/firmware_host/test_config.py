"""Configuration: TOML, environment overrides, and one clear line for a wrong value."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from firmware_host.config import DeviceMode, load_settings
from firmware_host.errors import ConfigError
from tests.firmware_host.conftest import CRIB


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'state_dir = "{tmp_path}"\n' + text)
    return path


def test_file_then_environment_then_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    path = _write(tmp_path, 'port = 9000\n[board]\nmode = "absent"\nbrightness = 10\n'
                  '[game]\nvariant = "five-card"\n')
    s = load_settings(path)
    assert (s.port, s.board.brightness, s.game.variant) == (9000, 10, "five-card")
    assert s.device_mode("board") == DeviceMode.ABSENT
    monkeypatch.setenv("CRIB_PORT", "9001")
    monkeypatch.setenv("CRIB_BOARD__BRIGHTNESS", "20")
    s = load_settings(path)
    assert (s.port, s.board.brightness) == (9001, 20)
    assert load_settings(path, port=9002).port == 9002
    monkeypatch.setenv("CRIB_CONFIG", str(path))
    assert load_settings().game.variant == "five-card"


def test_simulate_overrides_real_but_not_absent(tmp_path: Path) -> None:
    s = load_settings(_write(tmp_path, '[board]\nmode = "absent"\n[shuffler]\nmode = "real"\n'),
                      simulate=True)
    assert s.device_mode("board") == DeviceMode.ABSENT
    assert s.device_mode("shuffler") == DeviceMode.SIMULATED


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("port = 70000\n", "port:"),
        ('host = "my pi"\n', "host:"),
        ('[board]\nport = "COM3"\n', "board.port:"),
        ("[shuffler.pins]\nmotor = 40\n", "shuffler.pins:"),
        ("[shuffler]\npins = { motor = 17 }\n", "router is missing"),
        ("[inputs]\nundo = 17\n", "used twice"),
        ('[game]\nvariant = "chess"\n', "game.variant:"),
        ("[board]\nbrightness = 999\n", "board.brightness:"),
        ("colour = 3\n", "colour: unknown key"),
        ("port = \n", "not valid TOML"),
    ],
)
def test_wrong_value_is_one_line_naming_the_key(tmp_path: Path, text: str, names: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_write(tmp_path, text))
    message = str(info.value)
    assert names in message and "\n" not in message


def test_crib_serve_stops_with_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "port = 0\n")
    run = subprocess.run([CRIB, "serve", "--config", str(path)], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "port:" in lines[0] and str(path) in lines[0]
    missing = subprocess.run([CRIB, "serve", "--config", str(tmp_path / "nope.toml")],
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode == 2 and "no such file" in missing.stderr
