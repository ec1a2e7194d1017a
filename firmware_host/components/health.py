"""The health component: systemd's watchdog and status line, on timers (nothing polls)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from firmware_host.bus import (
    ActionCommitted,
    DeviceChanged,
    EventBus,
    GameStarted,
    StoreFaulted,
)
from firmware_host.components.devices import Devices
from firmware_host.components.games import GameService
from firmware_host.notify import Notifier
from firmware_host.store import Store

if TYPE_CHECKING:
    from firmware_host.components.club import ClubLink

log = logging.getLogger("crib.daemon")


class Status:
    """What the daemon's health says: the store answers, its problems, one status line."""

    def __init__(self, store: Store, devices: Devices, games: GameService,
                 board: str = "board", club: ClubLink | None = None) -> None:
        self.store = store
        self.club = club
        self.devices = devices
        self.games = games
        self.board = board
        self.started_at = time.monotonic()

    def healthy(self) -> bool:
        """Whether the store answers."""
        try:
            self.store.schema_version()
        except Exception:
            return False
        return True

    def problems(self) -> list[str]:
        """What makes the daemon degraded, in sentences (empty: nothing): the storage, and a
        board link that lost one direction (heartbeats arrive, its state does not)."""
        problem = self.store.problem()
        out = [problem] if problem else []
        board = self.devices[self.board].describe()
        if board.get("degraded"):
            out.append(f"board: {board.get('fault') or 'the link is degraded'}")
        return out

    def status_line(self) -> str:
        """One line of device and game state for systemd's STATUS= (problems first)."""
        problems = self.problems()
        if problems:
            return f"degraded: {'; '.join(problems)}; {self._status_line()}"
        return self._status_line()

    def _status_line(self) -> str:
        entry = self.games.current()
        if entry is None:
            game = "no game"
        else:
            k = entry.game
            scores = " ".join(f"{k.side_name(i)} {p.front}" for i, p in enumerate(k.pegs))
            game = f"game {entry.id} {k.phase}: {scores}"
        club = f"; {self.club.line()}" if self.club is not None and self.club.enabled else ""
        return f"{self.devices.status_line()}; {game}{club}"

    def uptime(self) -> float:
        return time.monotonic() - self.started_at


class Health:
    """Pets systemd's watchdog while `healthy()` and keeps STATUS= up to date.

    The watchdog timer runs only when systemd asked for one (WATCHDOG_USEC), at half its
    interval; the status line is sent when something changed (`changed()`), not on a tick,
    and at most once per `STATUS_EVERY_S`: a burst of changes (a tap per peg) is one line at
    the end of the burst, not a status line, a disk check and a datagram per action.
    """

    STATUS_EVERY_S = 0.25

    def __init__(self, notifier: Notifier, healthy: Callable[[], bool],
                 status_line: Callable[[], str], bus: EventBus | None = None) -> None:
        self.notifier = notifier
        self.healthy = healthy
        self.status_line = status_line
        if bus is not None:
            # What the status line shows: the game, the devices, the storage.
            for kind in (GameStarted, ActionCommitted, DeviceChanged, StoreFaulted):
                bus.register_event_handler(kind, lambda _: self.changed())
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._status_timer: asyncio.TimerHandle | None = None
        self._status_at = -float("inf")  # the loop's time of the last status sent

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the timers on `loop` (the app's lifespan binds its loop)."""
        self._loop = loop

    def start(self) -> None:
        """Send the first status and arm the watchdog timer (if systemd wants one)."""
        self.changed()
        if self._loop is not None and self.notifier.watchdog_s:
            self._pet()

    def stop(self) -> None:
        """Cancel the watchdog timer and tell systemd the daemon is stopping."""
        for timer in (self._timer, self._status_timer):
            if timer is not None:
                timer.cancel()
        self._timer = self._status_timer = None
        self.notifier.stopping()

    def _pet(self) -> None:
        if self.healthy():
            self.notifier.watchdog()
        else:
            log.error("unhealthy: the store does not answer; the watchdog is not petted")
        assert self._loop is not None and self.notifier.watchdog_s
        self._timer = self._loop.call_later(self.notifier.watchdog_s / 2, self._pet)

    def changed(self) -> None:
        """Something the status line shows changed: send it (thread-safe; only if new)."""
        if not self.notifier.enabled:
            return
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or loop.is_closed():
            self._send_status()
        elif running is loop:
            self._schedule_status(loop)
        else:
            loop.call_soon_threadsafe(self._schedule_status, loop)

    def _schedule_status(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._status_timer is not None:
            return  # a send is already due: it will say this change too
        wait = self._status_at + self.STATUS_EVERY_S - loop.time()
        if wait <= 0:
            self._send_status()
        else:
            self._status_timer = loop.call_later(wait, self._send_status)

    def _send_status(self) -> None:
        self._status_timer = None
        if self._loop is not None and not self._loop.is_closed():
            self._status_at = self._loop.time()
        self.notifier.status(self.status_line())
