"""Where the installation is and how to look at it (`Setup`), read from the daemon's own
settings, and the platform as the daemon decides it."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_host.doctor.lookups import (
    gpiozero_pin_factory,
    installed_version,
    probe_board,
    run_vcgencmd,
    sniff_repl,
    system_group_exists,
    system_groups_of,
    system_user_uid,
)

SERVICE = "cribbage-table"
SERVICE_USER = "cribbage"
DEFAULT_CONFIG = Path("/etc/cribbage-table/config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/cribbage-table")
DEFAULT_UNIT = Path("/etc/systemd/system/cribbage-table.service")
STABLE_BOARD_LINK = "/dev/cribbage-board"
DEFAULT_SPI_DEVICE = "/dev/spidev0.0"
INSTALL_HINT = "sudo ./systemd/install.sh (from the checkout)"


@dataclass
class Setup:
    """Where things are and how to look them up; tests replace any field."""

    config_path: Path | None = None
    config_error: str | None = None
    state_dir: Path = DEFAULT_STATE_DIR
    board_mode: str = "auto"  # auto | real | simulated | absent
    board_port: str | None = STABLE_BOARD_LINK
    gpio_mode: str = "auto"  # real when any GPIO device (shuffler, inputs) is real
    shuffler_mode: str = "auto"  # the feed motor is on GPIO when it resolves to real
    http_port: int = 8080
    user: str = SERVICE_USER
    unit_path: Path = DEFAULT_UNIT
    sys_root: Path = Path("/")  # the root under which /sys and /proc/device-tree are read
    by_id_dir: Path = Path("/dev/serial/by-id")
    groups_of: Callable[[str], set[str] | None] = system_groups_of
    group_exists: Callable[[str], bool] = system_group_exists
    user_uid: Callable[[str], int | None] = system_user_uid
    pin_factory: Callable[[], tuple[str, list[str]]] = gpiozero_pin_factory
    board_probe: Callable[[str], str] = probe_board
    repl_probe: Callable[[str], str | None] = sniff_repl
    spi_device: str = DEFAULT_SPI_DEVICE
    spi_frame_bytes: int = 244 * 3 * 4 + 120  # a 2-track board of 120 holes, GRB
    version: Callable[[], str | None] = installed_version
    vcgencmd: Callable[[], str | None] = run_vcgencmd
    disk_usage: Callable[[Path], Any] = shutil.disk_usage
    euid: int = field(default_factory=os.geteuid)
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))

    @classmethod
    def from_config(cls, path: Path | None, **overrides: Any) -> Setup:
        """A Setup from the daemon's configuration file (or its defaults when there is none).

        Never raises for a bad file: the error is kept and reported by the config check.
        """
        values: dict[str, Any] = {"config_path": path}
        try:
            values.update(_settings_values(path))
        except Exception as exc:  # the config check reports it, the other checks go on
            values["config_error"] = _one_line(exc)
        values.update(overrides)
        return cls(**values)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _settings_values(path: Path | None) -> dict[str, Any]:
    """The values doctor needs, read through the daemon's own settings (same validation)."""
    from firmware_host.config import load_settings

    settings = load_settings(path)
    simulate = bool(settings.simulate)

    def mode(section: Any) -> str:
        return "simulated" if simulate else str(section.mode)

    gpio_modes = {mode(settings.shuffler), mode(settings.inputs)}
    board = settings.board
    spi_values: dict[str, Any] = {}
    if str(board.mode) == "spi":
        from hardware.board.layout import BoardLayout
        from hardware.board.spi import frame_bytes

        leds = BoardLayout(tracks=board.tracks, holes=board.holes).led_count or 0
        spi_values = {"spi_device": board.spi_device,
                      "spi_frame_bytes": frame_bytes(leds, board.colour_order)}
    return {
        **spi_values,
        "board_probe": functools.partial(probe_board, tracks=board.tracks, holes=board.holes),
        "state_dir": Path(settings.state_dir),
        "http_port": int(settings.port),
        "board_mode": mode(settings.board),
        "board_port": str(settings.board.port),
        "shuffler_mode": mode(settings.shuffler),
        "gpio_mode": "real" if "real" in gpio_modes else (
            "auto" if "auto" in gpio_modes else "simulated"),
    }


def _resolve(mode: str, setup: Setup) -> str:
    """A device mode with "auto" decided as the daemon decides it: real only on a Pi."""
    from firmware_host.config import resolve_auto

    return str(resolve_auto(mode, pi_model(setup) is not None))


def pi_model(setup: Setup) -> str | None:
    """The Raspberry Pi model under `setup.sys_root`, as the daemon detects it; None off a Pi."""
    from firmware_host.config import pi_model as model_under

    return model_under(setup.sys_root)
