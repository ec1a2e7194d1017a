"""The health component: systemd's watchdog and status line, on timers (nothing polls)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from firmware_host.notify import Notifier

log = logging.getLogger("crib.daemon")


class Health:
    """Pets systemd's watchdog while `healthy()` and keeps STATUS= up to date.

    The watchdog timer runs only when systemd asked for one (WATCHDOG_USEC), at half its
    interval; the status line is sent when something changed (`changed()`), not on a tick,
    and at most once per `STATUS_EVERY_S`: a burst of changes (a tap per peg) is one line at
    the end of the burst, not a status line, a disk check and a datagram per action.
    """

    STATUS_EVERY_S = 0.25

    def __init__(self, notifier: Notifier, healthy: Callable[[], bool],
                 status_line: Callable[[], str]) -> None:
        self.notifier = notifier
        self.healthy = healthy
        self.status_line = status_line
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
