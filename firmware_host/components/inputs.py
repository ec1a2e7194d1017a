"""The table inputs component: encoders, buttons and the undo button become game actions."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from firmware_host.auth import Pairing
from firmware_host.bus import EventBus
from firmware_host.components.games import GameService
from firmware_host.errors import DaemonError
from hardware.errors import HardwareError
from hardware.interfaces import DeviceEvent

log = logging.getLogger("crib.daemon")

# The input panel's words (hardware.interfaces.InputPanel); the board's own buttons speak
# them too (hardware.board.link.BoardInputs), so both reach `TableInputs.handle` alike.
BOARD_INPUT_KINDS = frozenset({"undo", "undo_held", "button", "encoder"})


class TableInputs:
    """Turns the input panel's events into actions on the current game.

    An encoder adds points to a track's pending count; its button pegs them; the undo
    button undoes; holding undo confirms a pairing; a touch starts or continues the shuffle,
    as on a Lotus.
    """

    def __init__(self, games: GameService, pairing: Pairing,
                 touch: Callable[[], object] | None = None, bus: EventBus | None = None,
                 board: str = "board") -> None:
        self.games = games
        self.pairing = pairing
        self._touch = touch
        self._board = board
        self._pending: dict[int, int] = {}
        if bus is not None:
            bus.register_event_handler(DeviceEvent, self._device_event)

    def _device_event(self, event: DeviceEvent) -> None:
        # The board's own buttons speak the input panel's words: the same actions.
        if event.device == "inputs" or (event.device == self._board
                                        and event.kind in BOARD_INPUT_KINDS):
            self.handle(event)

    def start(self) -> None:
        """Nothing pending at start."""
        self._pending.clear()

    def stop(self) -> None:
        """Points turned but not pegged are dropped."""
        self._pending.clear()

    def handle(self, event: DeviceEvent) -> None:
        """From a device thread: act on one input event; a refused press is logged, and a
        bug (AttributeError, TypeError, ...) with its traceback, never as a refusal."""
        try:
            self._handle(event)
        except (DaemonError, HardwareError) as exc:  # refused: by the game, or a device
            log.info("input %s ignored: %s", event.kind, exc)
        except Exception:
            log.exception("input %s failed", event.kind)

    def _handle(self, event: DeviceEvent) -> None:
        if event.kind == "undo_held":
            self.pairing.undo_held(float(event.data.get("seconds", 0)))
            return
        if event.kind == "touch":
            if self._touch is not None:
                self._touch()
            return
        from cribbage.actions import Peg, Undo  # imported late: the daemon binds its port first

        entry = self.games.current()
        if entry is None:
            return
        if event.kind == "undo":
            self.games.act(entry.id, entry.version, f"button-{uuid.uuid4()}", Undo())
        elif event.kind == "encoder":
            track = int(event.data.get("track", 0))
            self._pending[track] = max(
                0, self._pending.get(track, 0) + int(event.data.get("steps", 0)))
        elif event.kind == "button":
            points = self._pending.pop(int(event.data.get("track", 0)), 0)
            if points:
                self.games.act(entry.id, entry.version, f"button-{uuid.uuid4()}",
                               Peg(int(event.data.get("track", 0)), points))
