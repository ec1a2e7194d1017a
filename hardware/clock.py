"""Clocks for devices: the system clock, a fake one tests advance by hand, and the paced
clock a simulated machine runs on."""

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


class PacedClock:
    """A simulated machine's own time: it moves only when the machine's runner sleeps, and a
    sleep of s takes s / speed of real time.

    A simulated machine run on real time at `speed` times its own pace would turn every
    scheduling delay of its thread into `speed` times as much machine time (a motor left on
    for a second at 200x), which no real machine suffers; on this clock a delay costs only
    real time. Raises ValueError for a speed that is not above 0.
    """

    def __init__(self, speed: float = 1.0, start: float = 0.0) -> None:
        if not speed > 0:
            raise ValueError(f"a paced clock's speed must be above 0, got {speed}")
        self.speed = speed
        self._now = start
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds / self.speed)
            with self._lock:
                self._now += seconds

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` once, `seconds` of this clock from now (seconds / speed of real
        time), on a timer thread; returns a cancel."""
        with self._lock:
            due = self._now + max(seconds, 0.0)

        def fire() -> None:
            with self._lock:
                self._now = max(self._now, due)
            callback()

        timer = threading.Timer(max(seconds, 0.0) / self.speed, fire)
        timer.daemon = True
        timer.start()
        return timer.cancel
