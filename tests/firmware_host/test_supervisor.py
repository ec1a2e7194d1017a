"""A missing or lost device does not stop the daemon: it is reported, retried, and returns."""

from __future__ import annotations

import time
from typing import Any

from firmware_host.services import ManagedDevice
from hardware.interfaces import DeviceEvent, DeviceState


class FlakyDevice:
    def __init__(self) -> None:
        self.state = DeviceState.IDLE
        self.stopped = False

    def subscribe(self, callback: Any) -> Any:
        return lambda: None

    def start(self) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True

    def describe(self) -> dict[str, Any]:
        return {"state": self.state.value}


def test_missing_device_is_retried_until_it_comes_back() -> None:
    attempts: list[float] = []
    made: list[FlakyDevice] = []

    def factory() -> tuple[FlakyDevice, Any]:
        attempts.append(time.monotonic())
        if len(attempts) < 3:
            raise FileNotFoundError("/dev/serial/by-id/board: no such device")
        made.append(FlakyDevice())
        return made[-1], lambda: None

    events: list[DeviceEvent] = []
    managed = ManagedDevice("board", "real", factory, events.append)
    managed.RETRY_MIN_S = 0.02  # type: ignore[misc]
    managed.start()  # the first attempt fails but does not raise
    assert managed.state == DeviceState.ABSENT
    assert "no such device" in managed.describe()["fault"]
    deadline = time.monotonic() + 5
    while managed.state != DeviceState.IDLE:
        assert time.monotonic() < deadline, managed.describe()
        time.sleep(0.01)
    assert len(attempts) == 3 and managed.describe()["kind"] == "real"
    managed.stop()
    assert made[0].stopped and managed.state == DeviceState.STOPPED


def test_absent_device_is_reported_not_fatal() -> None:
    managed = ManagedDevice("shuffler", "absent", None, lambda e: None)
    managed.start()
    assert managed.describe() == {"state": "absent", "kind": "absent", "fault": "configured absent"}
