"""How `crib doctor` looks at this machine: users, groups, the pin factory, the board's port,
the installed version, the firmware's throttling word. Each is a default of `Setup`, so
tests replace it."""

from __future__ import annotations

import contextlib
import grp
import importlib.metadata
import os
import pwd
import shutil
import subprocess
import time
import warnings
from pathlib import Path

BY_ID_DIR = Path("/dev/serial/by-id")
SYS_ROOT = Path("/")
MICROPYTHON_USB_ID = ("2e8a", "0005")  # MicroPython's own USB CDC id on an RP2040


class BoardBusyError(OSError):
    """The board's port is open elsewhere (normally by the running service)."""


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
