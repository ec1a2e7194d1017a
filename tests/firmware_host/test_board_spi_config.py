"""`[board] mode = "spi"` and its settings, as the daemon reads them."""

from __future__ import annotations

import pytest

from firmware_host.config import BoardMode, load_settings
from firmware_host.errors import ConfigError


def test_spi_mode_and_its_defaults(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("CRIB_CONFIG", raising=False)
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\n')
    settings = load_settings(cfg)
    assert settings.board.mode is BoardMode.SPI
    assert settings.device_mode("board") == "spi"  # not turned into real or simulated
    assert settings.board.spi_device == "/dev/spidev0.0"
    assert settings.board.colour_order == "GRB" and settings.board.power_budget_a == 2.0


def test_simulate_still_simulates_an_spi_board(tmp_path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('simulate = true\n[board]\nmode = "spi"\n')
    assert load_settings(cfg).device_mode("board") == "simulated"


@pytest.mark.parametrize(("line", "words"), [
    ('spi_device = "/dev/ttyAMA0"', "board.spi_device: '/dev/ttyAMA0' is not an SPI device"),
    ('colour_order = "BRG"', "board.colour_order"),
    ('mode = "pwm"', "board.mode"),
    ("power_budget_a = 0", "board.power_budget_a"),
])
def test_bad_spi_settings_name_the_key(tmp_path, line, words) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"[board]\n{line}\n")
    with pytest.raises(ConfigError, match="^.*" + words.replace(".", r"\.").replace("(", r"\(")):
        load_settings(cfg)


def test_the_shuffler_has_no_spi_mode(tmp_path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[shuffler]\nmode = "spi"\n')
    with pytest.raises(ConfigError, match="shuffler.mode"):
        load_settings(cfg)


def test_the_daemon_builds_the_spi_board_for_spi_mode(tmp_path, monkeypatch) -> None:
    from firmware_host.components.factories import device_factories
    from hardware.board.spi import SpiPegBoard
    from hardware.clock import FakeClock

    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\nspi_device = "/dev/spidev1.0"\ncolour_order = "GRBW"\n'
                   "power_budget_a = 1.5\n")
    kind, make = device_factories(load_settings(cfg), FakeClock())["board"]
    assert kind == "spi" and make is not None
    board, close = make()
    assert isinstance(board, SpiPegBoard)
    assert (board.device, board.colour_order, board.budget_a) == ("/dev/spidev1.0", "GRBW", 1.5)
    close()
