"""`crib doctor`: checks an installation on the Pi and explains each problem with its fix.

Every check gives one line: a status, what was found, and what to do about it. Every path
and system lookup is a field of `Setup`, so tests can run broken installations.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import grp
import importlib.metadata
import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVICE = "cribbage-table"
SERVICE_USER = "cribbage"
DEFAULT_CONFIG = Path("/etc/cribbage-table/config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/cribbage-table")
DEFAULT_UNIT = Path("/etc/systemd/system/cribbage-table.service")
STABLE_BOARD_LINK = "/dev/cribbage-board"
BY_ID_DIR = Path("/dev/serial/by-id")
SYS_ROOT = Path("/")
MICROPYTHON_USB_ID = ("2e8a", "0005")  # MicroPython's own USB CDC id on an RP2040
DEFAULT_SPI_DEVICE = "/dev/spidev0.0"
INSTALL_HINT = "sudo ./systemd/install.sh (from the checkout)"

# Free space below these stops the event log, or soon will.
DISK_FAIL_BYTES = 100 * 1024 * 1024
DISK_WARN_BYTES = 500 * 1024 * 1024

# Bits of the firmware's get_throttled word: now (low) and since boot (high).
_THROTTLE_NOW = {
    0: "under-voltage",
    1: "ARM frequency capped",
    2: "throttled",
    3: "soft temperature limit",
}
_THROTTLE_SINCE_BOOT_SHIFT = 16


class Status(enum.StrEnum):
    """The outcome of one check; only FAIL makes `crib doctor` exit non-zero."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Check:
    """One check's result: what was found, and the fix when something is wrong."""

    name: str
    status: Status
    message: str
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        """The one line `crib doctor` prints for this check."""
        text = f"{self.status.upper():<4}  {self.name}: {self.message}"
        return f"{text} -> fix: {self.fix}" if self.fix else text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "status": str(self.status),
            "message": self.message,
            "fix": self.fix,
            "details": self.details,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """All checks; `ok` is False when any check failed."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.status is not Status.FAIL for c in self.checks)

    def by_name(self, name: str) -> Check:
        """The check called `name`; raises KeyError if there is none."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def lines(self) -> list[str]:
        """One line per check, then a summary line."""
        failed = sum(c.status is Status.FAIL for c in self.checks)
        warned = sum(c.status is Status.WARN for c in self.checks)
        summary = "all good" if not failed and not warned else f"{failed} failed, {warned} warnings"
        return [c.line() for c in self.checks] + [f"doctor: {summary}"]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, as `crib doctor --json` prints it."""
        return {"ok": self.ok, "checks": [c.to_json() for c in self.checks]}


class BoardBusyError(OSError):
    """The board's port is open elsewhere (normally by the running service)."""


# --- system lookups (the defaults of Setup's injectable fields) ---------------------------


def system_groups_of(user: str) -> set[str] | None:
    """Names of the groups `user` belongs to (primary included), or None if no such user."""
    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        return None
    names = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        names.add(grp.getgrgid(pw.pw_gid).gr_name)
    return names


def system_group_exists(name: str) -> bool:
    """Whether the group exists on this system."""
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def system_user_uid(user: str) -> int | None:
    """The uid of `user`, or None if no such user."""
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return None


def gpiozero_pin_factory() -> tuple[str, list[str]]:
    """The pin factory gpiozero would really pick here, and why it passed over the others.

    Returns ("none", reasons) when no factory loads. The factory is closed at once, and
    gpiozero's global `Device.pin_factory` is left as it was (public API only: the choice is
    gpiozero's own `ensure_pin_factory`, made with no factory set).
    """
    from gpiozero import Device

    previous = Device.pin_factory
    Device.pin_factory = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Device.ensure_pin_factory()
            factory = Device.pin_factory
        except Exception as exc:  # BadPinFactory, or a named factory that fails to load
            reasons = [str(w.message) for w in caught] + [str(exc)]
            return "none", reasons
        finally:
            Device.pin_factory = previous
    reasons = [str(w.message) for w in caught]
    name = type(factory).__name__
    with contextlib.suppress(Exception):
        factory.close()
    return name, reasons


def probe_board(port: str, *, tracks: int = 2, holes: int = 120, timeout: float = 4.0) -> str:
    """Open the board on `port` with the real host driver, do the hello, say what answered.

    Raises ImportError when the board driver is not installed, BoardBusyError when the port
    is held elsewhere, TimeoutError when the board does not answer, OSError otherwise.
    """
    import serial

    from hardware.board.host import SerialPegBoard
    from hardware.board.layout import BoardLayout
    from hardware.clock import SystemClock

    # An exclusive open first tells "busy" apart from "silent" before the driver retries.
    try:
        serial.serial_for_url(port, exclusive=True, timeout=0).close()
    except (serial.SerialException, OSError) as exc:
        if "lock" in str(exc).lower() or "busy" in str(exc).lower():
            raise BoardBusyError(f"{port} is in use: {exc}") from exc
        raise OSError(f"{port} cannot be opened: {exc}") from exc
    board = SerialPegBoard(port, BoardLayout(tracks=tracks, holes=holes), SystemClock())
    try:
        board.start()
        connected = board.wait_connected(timeout)
        info = board.describe()
        if not connected:
            why = f": {info['fault']}" if info.get("fault") else ""
            raise TimeoutError(f"no hello from {port} within {timeout:g} s{why}")
        return (
            f"protocol {info['protocol']}, firmware build {info['firmware_build']}, "
            f"{info['led_count']} LEDs, boot id {info['boot_id']}"
        )
    finally:
        board.stop()


def sniff_repl(port: str, timeout: float = 1.5) -> str | None:
    """MicroPython's banner if a REPL answers on `port` (Ctrl-B asks for it), else None.

    Our firmware reads these bytes as a garbled frame and drops them, so asking is harmless.
    """
    import serial

    try:
        link = serial.serial_for_url(port, exclusive=True, timeout=0.1)
    except (serial.SerialException, OSError, ValueError):
        return None
    try:
        link.reset_input_buffer()
        link.write(b"\r\x02")
        got = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and b">>>" not in got:
            got += link.read(256)
    except (serial.SerialException, OSError):
        return None
    finally:
        link.close()
    text = got.decode("utf-8", "replace")
    for line in text.splitlines():
        if line.startswith("MicroPython"):
            return line.split(";")[0].strip()
    return "a MicroPython REPL" if ">>>" in text else None


def micropython_ports(by_id_dir: Path = BY_ID_DIR, sys_root: Path = SYS_ROOT) -> list[str]:
    """The /dev/serial/by-id links of boards with MicroPython's USB id (2e8a:0005)."""
    found = []
    try:
        entries = sorted(by_id_dir.iterdir())
    except OSError:
        return found
    for entry in entries:
        tty = os.path.basename(os.path.realpath(entry))
        usb = sys_root / "sys/class/tty" / tty / "device" / ".."
        try:
            ids = ((usb / "idVendor").read_text().strip(), (usb / "idProduct").read_text().strip())
        except OSError:
            ids = None
        if ids == MICROPYTHON_USB_ID or (ids is None and "MicroPython" in entry.name):
            found.append(str(entry))
    return found


def installed_version() -> str | None:
    """The version of the installed cribbage-table distribution, or None."""
    try:
        return importlib.metadata.version("cribbage-table")
    except importlib.metadata.PackageNotFoundError:
        return None


def run_vcgencmd() -> str | None:
    """`vcgencmd get_throttled` output, or None where there is no vcgencmd."""
    exe = shutil.which("vcgencmd")
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "get_throttled"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


# --- what to check ------------------------------------------------------------------------


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


# --- the checks ---------------------------------------------------------------------------


def pi_model(setup: Setup) -> str | None:
    """The Raspberry Pi model under `setup.sys_root`, as the daemon detects it; None off a Pi."""
    from firmware_host.config import pi_model as model_under

    return model_under(setup.sys_root)


def check_platform(setup: Setup) -> Check:
    model = pi_model(setup)
    if model is None:
        return Check(
            "platform", Status.OK, "not a Raspberry Pi: Pi-only checks are skipped", None
        )
    return Check("platform", Status.OK, model, details={"model": model})


def check_config(setup: Setup) -> Check:
    path = setup.config_path
    if setup.config_error is not None:
        return Check(
            "config",
            Status.FAIL,
            f"{path} is not valid: {setup.config_error}",
            f"correct it (sudoedit {path}); the keys are in config.example.toml beside it",
        )
    if path is None:
        if pi_model(setup) is None:  # a laptop: the defaults simulate every device
            return Check("config", Status.OK,
                         "no configuration file: the defaults (every device simulated) are in "
                         "use; --config FILE or CRIB_CONFIG gives one")
        return Check("config", Status.WARN, "no configuration file given: defaults in use",
                     f"pass --config {DEFAULT_CONFIG} or set CRIB_CONFIG")
    return Check("config", Status.OK, f"{path} is valid", details={"path": str(path)})


def check_user_groups(setup: Setup) -> Check:
    user = setup.user
    groups = setup.groups_of(user)
    if groups is None and pi_model(setup) is None:
        return Check("groups", Status.SKIP, f"not a Raspberry Pi: the service user {user!r} "
                     "is needed only by the installed service")
    if groups is None:
        return Check(
            "groups",
            Status.FAIL,
            f"the service user {user!r} does not exist",
            f"create it with {INSTALL_HINT}",
        )
    on_pi = pi_model(setup) is not None
    missing: list[str] = []
    absent: list[str] = []
    for name in ("gpio", "dialout"):
        if not setup.group_exists(name):
            absent.append(name)
        elif name not in groups:
            missing.append(name)
    # The unit's SupplementaryGroups= names spi: without the group the service cannot start.
    if not setup.group_exists("spi"):
        absent.append("spi")
    details = {"user": user, "groups": sorted(groups)}
    if missing:
        return Check(
            "groups",
            Status.FAIL,
            f"{user} is not in {', '.join(missing)}: it cannot open "
            + ("the GPIO chips" if missing == ["gpio"] else "the board's serial port"
               if missing == ["dialout"] else "the GPIO chips or the serial port"),
            f"sudo usermod -aG {','.join(missing)} {user} && sudo systemctl restart {SERVICE}",
            details,
        )
    if absent:
        status = Status.FAIL if on_pi else Status.SKIP
        return Check(
            "groups",
            status,
            f"no {', '.join(absent)} group on this system"
            + ("" if on_pi else " (not a Raspberry Pi OS)"),
            f"sudo groupadd --system {absent[0]} (install.sh does it; the unit needs "
            f"{', '.join(absent)})" if on_pi else None,
            details,
        )
    return Check("groups", Status.OK, f"{user} is in gpio and dialout", details=details)


# gpiozero's factories by the names GPIOZERO_PIN_FACTORY takes: the Debian package that brings
# each on Raspberry Pi OS, and the boards it drives (RPi.GPIO predates the Pi 5's RP1 chip).
PIN_FACTORIES: dict[str, tuple[str, str]] = {
    "lgpio": ("python3-lgpio", "every Pi, the Pi 5 included (the default)"),
    "rpigpio": ("python3-rpi.gpio", "Pi Zero 2 W, 3 and 4 (not the Pi 5)"),
    "pigpio": ("python3-pigpio pigpiod", "Pi Zero 2 W, 3 and 4, through the pigpiod daemon"),
    "native": ("", "experimental, no PWM: not for the servo or the motor's speed"),
}
_FACTORY_CLASSES = {"LGPIOFactory": "lgpio", "RPiGPIOFactory": "rpigpio",
                    "PiGPIOFactory": "pigpio", "NativeFactory": "native"}


def check_pin_factory(setup: Setup) -> Check:
    named = setup.environ.get("GPIOZERO_PIN_FACTORY")
    asked = (named or "").strip().lower()
    if asked and asked not in PIN_FACTORIES and asked != "mock":
        return Check("gpio", Status.FAIL,
                     f"GPIOZERO_PIN_FACTORY={named} names no gpiozero factory",
                     f"use one of {', '.join(PIN_FACTORIES)}, or unset it", {"env": named})
    try:
        name, reasons = setup.pin_factory()
    except ImportError as exc:
        return Check("gpio", Status.FAIL, f"gpiozero is not installed: {exc}",
                     f"rerun {INSTALL_HINT}")
    model = pi_model(setup)
    details = {"factory": name, "fallbacks": reasons, "env": named}
    if _resolve(setup.gpio_mode, setup) != "real":
        return Check("gpio", Status.SKIP,
                     f"GPIO devices are simulated in the configuration (gpiozero would use "
                     f"{name})", details=details)
    if name == "MockFactory":
        return Check("gpio", Status.WARN,
                     "mock: gpiozero uses MockFactory, no real pin moves",
                     "unset GPIOZERO_PIN_FACTORY", details)
    if name == "none":
        if model is None:
            return Check("gpio", Status.SKIP,
                         "mock/none: no pin factory loads (not a Pi); crib serve --simulate "
                         "simulates the GPIO devices", details=details)
        if asked in PIN_FACTORIES:  # the one asked for is missing: say what brings it
            package, boards = PIN_FACTORIES[asked]
            return Check("gpio", Status.FAIL,
                         f"GPIOZERO_PIN_FACTORY={named} does not load ({reasons[-1]})",
                         (f"sudo apt install {package}" if package else "unset it")
                         + f" ({asked}: {boards})", details)
        return Check("gpio", Status.FAIL,
                     f"no gpiozero pin factory loads ({'; '.join(reasons[:2])})",
                     "sudo apt install python3-lgpio, and a venv with --system-site-packages "
                     f"({INSTALL_HINT})", details)
    if model is not None and "Pi 5" in model and name != "LGPIOFactory":
        return Check("gpio", Status.FAIL,
                     f"gpiozero would use {name}, which cannot drive a Pi 5's GPIO",
                     "sudo apt install python3-lgpio", details)
    if name == "NativeFactory":
        return Check("gpio", Status.WARN,
                     "gpiozero falls back to its NativeFactory (no PWM, experimental)",
                     "sudo apt install python3-lgpio", details)
    short = _FACTORY_CLASSES.get(name)
    how = f" ({short}, asked for by GPIOZERO_PIN_FACTORY)" if named else (
        f" ({short}, gpiozero's first choice that loads)" if short else "")
    return Check("gpio", Status.OK, f"gpiozero will use {name}{how}", details=details)


def _by_id_links(setup: Setup) -> dict[str, str]:
    """by-id link name -> the device it points to."""
    links: dict[str, str] = {}
    try:
        entries = sorted(setup.by_id_dir.iterdir())
    except OSError:
        return links
    for entry in entries:
        if entry.exists():  # a dangling link is a device that has gone
            links[str(entry)] = os.path.realpath(entry)
    return links


def check_serial_port(setup: Setup) -> Check:
    board_mode = _resolve(setup.board_mode, setup)
    if board_mode != "real" or not setup.board_port:
        how = f"{setup.board_mode}: {board_mode}" if setup.board_mode != board_mode else board_mode
        return Check("serial", Status.SKIP, f"the board is {how} in the configuration")
    port = setup.board_port
    links = _by_id_links(setup)
    details: dict[str, Any] = {"port": port, "by_id": links}
    if not os.path.exists(port):
        found = ", ".join(links) if links else "no USB serial device at all"
        return Check(
            "serial",
            Status.FAIL,
            f"board port {port} does not exist (by-id: {found})",
            "plug the board in; if by-id lists it, set [board] port to that path or install "
            f"the udev rule ({INSTALL_HINT})",
            details,
        )
    target = os.path.realpath(port)
    mine = [link for link, dev in links.items() if dev == target]
    details["device"] = target
    stable = port.startswith(str(setup.by_id_dir)) or port == STABLE_BOARD_LINK
    if not stable:
        better = mine[0] if mine else STABLE_BOARD_LINK
        return Check("serial", Status.WARN,
                     f"board port {port} ({target}) may change number on the next boot",
                     f"set [board] port = \"{better}\"", details)
    shown = mine[0] if mine else "no by-id link"
    return Check("serial", Status.OK, f"{port} -> {target} ({shown})", details=details)


def check_board_hello(setup: Setup, serial_check: Check) -> Check:
    if serial_check.status in (Status.SKIP, Status.FAIL) or not setup.board_port:
        return Check("board", Status.SKIP, "no board port to try")
    port = setup.board_port
    try:
        answer = setup.board_probe(port)
    except ImportError as exc:
        return Check("board", Status.SKIP, f"the board driver is not available ({exc})")
    except BoardBusyError:
        return Check(
            "board",
            Status.WARN,
            f"{port} is in use, normally by the running service (GET /api/health shows the "
            "board)",
            f"to test the board itself: sudo systemctl stop {SERVICE}; crib doctor; "
            f"sudo systemctl start {SERVICE}",
        )
    except TimeoutError as exc:
        banner = setup.repl_probe(port)
        if banner is not None:
            return Check("board", Status.FAIL,
                         f"the board runs MicroPython ({banner}) but not the cribbage board's "
                         "firmware", f"crib board flash --port {port}", {"micropython": banner})
        return Check("board", Status.FAIL, f"the board did not answer the hello: {exc}",
                     "unplug and replug the board; check its firmware is the cribbage board's")
    except Exception as exc:  # a refused protocol version, a permission error, a bad port
        return Check("board", Status.FAIL, f"the board hello failed: {_one_line(exc)}",
                     "read the message; `crib board test --port PORT` shows more")
    return Check("board", Status.OK, f"the board answered: {answer}")


_BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")  # Bookworm, then older
_SPI_ON = re.compile(r"^\s*dtparam=(?:[^#\n]*,)?spi=on\b", re.MULTILINE)
_CORE_FREQ = re.compile(r"^\s*core_freq(?:_min)?=", re.MULTILINE)


def _boot_config(setup: Setup) -> tuple[Path | None, str]:
    for rel in _BOOT_CONFIGS:
        path = setup.sys_root / rel
        try:
            return path, path.read_text(errors="replace")
        except OSError:
            continue
    return None, ""


def check_spi(setup: Setup) -> Check:
    if _resolve(setup.board_mode, setup) != "spi":
        return Check("spi", Status.SKIP, "the board is not on SPI in the configuration")
    device = setup.spi_device
    model = pi_model(setup)
    boot, text = _boot_config(setup)
    shown = f"/{boot.relative_to(setup.sys_root)}" if boot else "/boot/firmware/config.txt"
    details: dict[str, Any] = {"device": device, "boot_config": shown}
    if model is not None and not _SPI_ON.search(text):
        return Check("spi", Status.FAIL, f"SPI is off: no dtparam=spi=on in {shown}",
                     f"sudo raspi-config nonint do_spi 0 (or add dtparam=spi=on to {shown}), "
                     "then reboot", details)
    if not (setup.sys_root / device.lstrip("/")).exists():
        return Check("spi", Status.FAIL, f"{device} does not exist",
                     "turn SPI on (dtparam=spi=on) and reboot" if model else
                     "not a Raspberry Pi: use board.mode = \"simulated\" here", details)
    groups = setup.groups_of(setup.user)
    if groups is not None and "spi" not in groups:
        return Check("spi", Status.FAIL, f"{setup.user} is not in the spi group: it cannot "
                     f"open {device}",
                     f"sudo usermod -aG spi {setup.user} && sudo systemctl restart {SERVICE}",
                     details)
    try:
        bufsiz = int((setup.sys_root / "sys/module/spidev/parameters/bufsiz").read_text())
    except (OSError, ValueError):
        bufsiz = 4096
    details["bufsiz"] = bufsiz
    details["frame_bytes"] = setup.spi_frame_bytes
    if setup.spi_frame_bytes > bufsiz:
        return Check("spi", Status.FAIL,
                     f"a frame is {setup.spi_frame_bytes} SPI bytes, more than spidev's "
                     f"buffer of {bufsiz}",
                     "add spidev.bufsiz=65536 to /boot/firmware/cmdline.txt and reboot", details)
    # On a Pi 3, 4 and Zero 2 W the SPI clock follows the core clock, which scales with load
    # unless pinned; a Pi 5's SPI is on the RP1 and keeps its clock.
    if model is not None and "Pi 5" not in model and not _CORE_FREQ.search(text):
        fix = "core_freq=500 and core_freq_min=500" if "Pi 4" in model or "Pi 400" in model \
            else "core_freq=250"
        return Check("spi", Status.WARN,
                     f"{device} is ready, but the core clock is not pinned: the LED timing "
                     "drifts when it scales", f"add {fix} to {shown} and reboot", details)
    return Check("spi", Status.OK, f"{device} is ready ({setup.spi_frame_bytes} bytes a "
                 f"frame, buffer {bufsiz})", details=details)


# Raspberry Pi kernels keep a released GPIO output driving as it was (so `gpioset` values
# persist), unless told otherwise; upstream returns it to an input. The module parameter says
# which; `dtparam=strict_gpiod` in config.txt sets it on every model.
_PERSIST_PARAMS = ("sys/module/pinctrl_bcm2835/parameters/persist_gpio_outputs",
                   "sys/module/pinctrl_rp1/parameters/persist_gpio_outputs")
_STRICT_GPIOD = re.compile(r"^\s*dtparam=(?:[^#\n]*,)?strict_gpiod(?:=on)?\s*(?:[,#]|$)",
                           re.MULTILINE)


def check_motor_release(setup: Setup) -> Check:
    """Whether a daemon killed with the feed motor on leaves the motor running."""
    model = pi_model(setup)
    if model is None:
        return Check("motor", Status.SKIP, "not a Raspberry Pi")
    if _resolve(setup.shuffler_mode, setup) != "real":
        return Check("motor", Status.SKIP, "the shuffler is not on GPIO in the configuration")
    boot, text = _boot_config(setup)
    shown = f"/{boot.relative_to(setup.sys_root)}" if boot else "/boot/firmware/config.txt"
    fix = f"add dtparam=strict_gpiod to {shown} and reboot"
    persist = None
    for rel in _PERSIST_PARAMS:
        try:
            persist = (setup.sys_root / rel).read_text().strip().upper()[:1] == "Y"
            break
        except OSError:
            continue
    details: dict[str, Any] = {"persist_gpio_outputs": persist, "boot_config": shown}
    if persist is False:
        return Check("motor", Status.OK, "a released GPIO goes back to an input: if the "
                     "daemon dies, the motor driver's pull-down stops the feed motor",
                     details=details)
    if persist is None and _STRICT_GPIOD.search(text):
        return Check("motor", Status.OK, f"dtparam=strict_gpiod is in {shown}: a released "
                     "GPIO goes back to an input", details=details)
    said = "keeps" if persist else "may keep"
    return Check("motor", Status.WARN,
                 f"this Pi {said} a released GPIO output driving: if the daemon or a "
                 "bring-up command is killed with the feed motor on, the motor keeps running",
                 fix, details)


def _dir_writable(path: Path, uid: int | None, euid: int) -> str | None:
    """None when `path` is a writable directory, else the reason it is not."""
    if not path.exists():
        return "does not exist"
    if not path.is_dir():
        return "is not a directory"
    st = path.stat()
    if euid == 0:
        # root writes anywhere, so judge by what the service user will be allowed.
        if uid is not None and st.st_uid != uid:
            return f"is owned by uid {st.st_uid}, not the service user (uid {uid})"
        if not st.st_mode & stat.S_IWUSR:
            return f"has no write permission for its owner (mode {stat.filemode(st.st_mode)})"
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    return None


def check_state_dir(setup: Setup) -> Check:
    path = setup.state_dir
    uid = setup.user_uid(setup.user)
    problem = _dir_writable(path, uid, setup.euid)
    if problem is None:
        return Check("state", Status.OK, f"{path} is writable", details={"path": str(path)})
    on_pi = pi_model(setup) is not None
    if problem == "does not exist":
        if not on_pi:
            return Check("state", Status.OK,
                         f"state directory {path} is made by the first crib serve",
                         details={"path": str(path)})
        return Check("state", Status.WARN,
                     f"state directory {path} does not exist yet",
                     f"sudo systemctl start {SERVICE} creates it (StateDirectory=)")
    if not on_pi:  # the laptop's own user runs crib serve, not the service user
        return Check("state", Status.FAIL,
                     f"state directory {path} {problem}: games cannot be saved",
                     f"make it yours: chown -R \"$USER\" {path} && chmod u+rwx {path}",
                     {"path": str(path)})
    owner = setup.user
    return Check(
        "state",
        Status.FAIL,
        f"state directory {path} {problem}: games cannot be saved",
        f"sudo chown -R {owner}:{owner} {path} && sudo chmod u+rwx {path}",
        {"path": str(path)},
    )


_VERSION_KEY = re.compile(r"^\s*X-CribbageVersion\s*=\s*(\S+)\s*$", re.MULTILINE)


def check_unit_version(setup: Setup) -> Check:
    app = setup.version()
    try:
        text = setup.unit_path.read_text()
    except FileNotFoundError:
        if pi_model(setup) is None:
            return Check("unit", Status.SKIP, f"not a Raspberry Pi: no unit at "
                         f"{setup.unit_path}, none needed", details={"application": app})
        return Check("unit", Status.WARN, f"no unit at {setup.unit_path}: not installed as a "
                     "service", f"install it with {INSTALL_HINT}", {"application": app})
    except OSError as exc:
        return Check("unit", Status.FAIL, f"{setup.unit_path} cannot be read: {exc}", None)
    m = _VERSION_KEY.search(text)
    unit = m.group(1) if m else None
    details = {"unit": unit, "application": app}
    if unit is None:
        return Check("unit", Status.FAIL, f"{setup.unit_path} carries no X-CribbageVersion",
                     f"rerun {INSTALL_HINT}", details)
    if app is None:
        return Check("unit", Status.FAIL, "the cribbage-table application is not installed",
                     f"rerun {INSTALL_HINT}", details)
    if unit != app:
        return Check("unit", Status.FAIL,
                     f"the unit was installed for {unit} but the application is {app}",
                     f"rerun {INSTALL_HINT} (it keeps the configuration and the games)",
                     details)
    return Check("unit", Status.OK, f"unit and application are both {app}", details=details)


def _throttled_word(setup: Setup) -> int | None:
    path = setup.sys_root / "sys/devices/platform/soc/soc:firmware/get_throttled"
    try:
        return int(path.read_text().strip(), 16)
    except (OSError, ValueError):
        pass
    out = setup.vcgencmd()
    if out:
        m = re.search(r"throttled=(0x[0-9a-fA-F]+)", out)
        if m:
            return int(m.group(1), 16)
    return None


def check_power(setup: Setup) -> Check:
    if pi_model(setup) is None:
        return Check("power", Status.SKIP, "not a Pi, skipped")
    word = _throttled_word(setup)
    if word is None:
        return Check("power", Status.SKIP, "the firmware does not report throttling here")
    now = [text for bit, text in _THROTTLE_NOW.items() if word & (1 << bit)]
    before = [
        text
        for bit, text in _THROTTLE_NOW.items()
        if word & (1 << (bit + _THROTTLE_SINCE_BOOT_SHIFT))
    ]
    details = {"throttled": hex(word), "now": now, "since_boot": before}
    fix = ("use the official power supply (5.1 V 3 A; 5 A for a Pi 5) and a short cable; "
           "power the LEDs from their own supply")
    if now:
        return Check("power", Status.FAIL, f"{', '.join(now)} now (throttled={hex(word)})",
                     fix, details)
    if before:
        return Check("power", Status.WARN,
                     f"{', '.join(before)} since boot (throttled={hex(word)})", fix, details)
    return Check("power", Status.OK, "no under-voltage or throttling since boot",
                 details=details)


def check_disk(setup: Setup) -> Check:
    path = setup.state_dir
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        usage = setup.disk_usage(path)
    except OSError as exc:
        return Check("disk", Status.FAIL, f"cannot read free space of {path}: {exc}")
    free = int(usage.free)
    text = f"{free / 1e9:.1f} GB free on {path}" if free >= 1e9 else (
        f"{free / 1e6:.0f} MB free on {path}")
    details = {"path": str(path), "free_bytes": free}
    fix = "free space: sudo apt clean; sudo journalctl --vacuum-size=50M"
    if free < DISK_FAIL_BYTES:
        return Check("disk", Status.FAIL, f"only {text}: games may not be saved", fix, details)
    if free < DISK_WARN_BYTES:
        return Check("disk", Status.WARN, f"only {text}", fix, details)
    return Check("disk", Status.OK, text, details=details)


def run(setup: Setup) -> Report:
    """Run every check, in the order they are printed."""
    checks: list[Check] = [check_platform(setup), check_config(setup), check_user_groups(setup)]
    checks.append(check_pin_factory(setup))
    serial_check = check_serial_port(setup)
    checks.append(serial_check)
    checks.append(check_board_hello(setup, serial_check))
    checks.append(check_spi(setup))
    checks.append(check_motor_release(setup))
    checks += [check_state_dir(setup), check_unit_version(setup), check_power(setup),
               check_disk(setup)]
    return Report(tuple(checks))

