"""Clocks for devices: the system clock, and a fake one tests advance by hand."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable


class SystemClock:
    """Real time."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` once, `seconds` from now, on a timer thread; returns a cancel."""
        timer = threading.Timer(max(seconds, 0.0), callback)
        timer.daemon = True
        timer.start()
        return timer.cancel


class FakeClock:
    """Time that only moves when told: `sleep` and `advance` add to it, nothing waits."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._cancelled: set[int] = set()

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` once the clock has been advanced `seconds` (at that time, in the
        thread that advances it); returns a cancel."""
        with self._lock:
            seq = next(self._seq)
            heapq.heappush(self._due, (self._now + max(seconds, 0.0), seq, callback))

        def cancel() -> None:
            with self._lock:
                self._cancelled.add(seq)

        return cancel

    def advance(self, seconds: float) -> None:
        """Move time forward, running the callbacks that fall due on the way, each at its
        time; raises ValueError for a negative step."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        with self._lock:
            end = self._now + seconds
        while True:
            with self._lock:
                if not self._due or self._due[0][0] > end:
                    self._now = max(self._now, end)
                    return
                at, seq, callback = heapq.heappop(self._due)
                self._now = max(self._now, at)
                if seq in self._cancelled:
                    self._cancelled.discard(seq)
                    continue
            callback()
