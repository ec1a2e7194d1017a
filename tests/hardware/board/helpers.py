"""Shared test helpers for the board: an in-memory wire between the two halves, polling waits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hardware.board.firmware.core import BoardCore
from hardware.board.layout import BoardLayout
from hardware.board.link import HostEvent, HostLink


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, step: float = 0.005) -> bool:
    """Poll until `predicate()` is true; generous timeouts for a loaded machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def ms(seconds: float) -> int:
    return int(round(seconds * 1000))


class Wire:
    """Host and board joined by a wire we can tamper with; time moves only when told.

    The board is the firmware's core (the code a Pico runs), in this process.
    """

    def __init__(self, layout: BoardLayout | None = None, boot_id: int = 7,
                 board: Callable[..., Any] | None = None, **core: object):
        self.layout = layout or BoardLayout()
        self.now = 0.0
        self._core = core
        self._make = board or (lambda layout, boot, now, **kw: BoardCore(
            layout.geometry, boot, now, **kw))
        self.device = self._make(self.layout, boot_id, ms(self.now), **core)
        self.host = HostLink(expect_leds=self.layout.led_count)
        self.events: list[HostEvent] = []
        self.to_board: Callable[[bytes], bytes] = lambda b: b
        self.to_host: Callable[[bytes], bytes] = lambda b: b
        self.byte_by_byte = False
        self.host.connection_made(self.now)

    def step(self, dt: float = 0.001) -> None:
        self.now += dt
        self.events += self.host.poll(self.now)
        down = self.to_board(self.host.data_to_send())
        self._feed(lambda b: self.device.receive_data(b, ms(self.now)), down)
        self.device.poll(ms(self.now))
        up = self.to_host(self.device.data_to_send())
        self._feed(lambda b: self.events.extend(self.host.receive_data(b, self.now)), up)

    def _feed(self, sink: Callable[[bytes], object], data: bytes) -> None:
        if self.byte_by_byte:
            for i in range(len(data)):
                sink(data[i : i + 1])
        elif data:
            sink(data)

    def run(self, seconds: float, dt: float = 0.001) -> None:
        for _ in range(int(round(seconds / dt))):
            self.step(dt)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    def shown(self):
        """The board state the board shows, as the host's BoardState."""
        from hardware.board.link import to_board_state

        return to_board_state(self.device.state)

    def reboot(self, boot_id: int) -> None:
        self.device = self._make(self.layout, boot_id, ms(self.now), **self._core)
