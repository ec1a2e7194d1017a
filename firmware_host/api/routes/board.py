"""The LED board: what it really shows, read back from the device."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from firmware_host.api.deps import ERRORS, Svc
from hardware.board.link import READ_BACK_MEANS


def board(services: Svc) -> dict[str, Any]:
    """The board's read-back (pegs, LEDs, boot id) and the lines it draws."""
    device = services.devices["board"].require()
    back = device.read_back(timeout=1.0)
    shown = services.board.json()
    if back is None:
        return {"reachable": False, "tracks": None, "pairing": None, "leds": None,
                "lines": shown["lines"], "shown": shown}
    # While a pairing code is lit, the LEDs spell it: they stay on the board, not the LAN.
    pairing = back.code is not None
    return {
        "reachable": True,
        "tracks": [{"front": t.front, "back": t.back} for t in back.tracks],
        "lines": list(back.lines),  # what the board says it draws
        "pairing": pairing,
        "leds": None if pairing else [list(rgb) for rgb in back.leds],
        "boot_id": back.boot_id,
        "read_back_means": READ_BACK_MEANS,  # the controller's buffer, not light
    }


def router() -> APIRouter:
    r = APIRouter(prefix="/api", tags=["board"], responses=ERRORS)
    r.add_api_route("/board", board, methods=["GET"])
    return r
