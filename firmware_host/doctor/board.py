"""The checks of the LED board on USB: its port, and whether it answers the hello."""

from __future__ import annotations

import os
from typing import Any

from firmware_host.doctor.installation import (
    INSTALL_HINT,
    SERVICE,
    STABLE_BOARD_LINK,
    Setup,
    _one_line,
    _resolve,
)
from firmware_host.doctor.lookups import BoardBusyError
from firmware_host.doctor.report import Check, Status


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
