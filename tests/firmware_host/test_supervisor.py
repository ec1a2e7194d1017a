"""A missing or lost device does not stop the daemon: it is reported, retried, and returns."""

from __future__ import annotations

import time
from typing import Any

from firmware_host.components.devices import ManagedDevice
from hardware.clock import FakeClock, SystemClock
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


def test_missing_device_is_retried_on_the_clock_until_it_comes_back() -> None:
    clock = FakeClock()
    attempts: list[float] = []
    made: list[FlakyDevice] = []

    def factory() -> tuple[FlakyDevice, Any]:
        attempts.append(clock.monotonic())
        if len(attempts) < 4:
            raise FileNotFoundError("/dev/serial/by-id/board: no such device")
        made.append(FlakyDevice())
        return made[-1], lambda: None

    events: list[DeviceEvent] = []
    managed = ManagedDevice("board", "real", factory, events.append, clock)
    managed.start()  # the first attempt fails but does not raise
    deadline = time.monotonic() + 5
    while managed.state != DeviceState.IDLE:
        assert time.monotonic() < deadline, managed.describe()
        time.sleep(0.01)
    # Back-off on the injected clock: 1 s, then doubled (capped at RETRY_MAX_S).
    assert attempts == [0.0, 1.0, 3.0, 7.0]
    assert managed.describe()["kind"] == "real"
    # Its return is reported as a state event, so nothing needs to poll for it.
    deadline = time.monotonic() + 5
    while not events:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert events == [DeviceEvent("board", "state", {"state": "idle", "reason": "found"})]
    managed.stop()
    assert made[0].stopped and managed.state == DeviceState.STOPPED


def test_stop_does_not_wait_for_a_sleeping_retry() -> None:
    def factory() -> tuple[FlakyDevice, Any]:
        raise FileNotFoundError("no board")

    managed = ManagedDevice("board", "real", factory, lambda e: None, SystemClock())
    managed.start()
    assert "no board" in managed.describe()["fault"]
    t0 = time.monotonic()
    managed.stop()
    assert time.monotonic() - t0 < 0.5 and managed.state == DeviceState.STOPPED


def test_absent_device_is_reported_not_fatal() -> None:
    managed = ManagedDevice("shuffler", "absent", None, lambda e: None, FakeClock())
    managed.start()
    assert managed.describe() == {"state": "absent", "kind": "absent", "fault": "configured absent"}


class ChattyDevice(FlakyDevice):
    """Reports its state while it starts, as the drivers do."""

    def __init__(self) -> None:
        super().__init__()
        self.state = DeviceState.CONNECTING
        self.callbacks: list[Any] = []

    def subscribe(self, callback: Any) -> Any:
        self.callbacks.append(callback)
        return lambda: None

    def start(self) -> None:
        for callback in self.callbacks:
            callback(DeviceEvent("board", "state", {"state": self.state.value}))


def test_a_device_starting_up_is_never_reported_absent() -> None:
    # The page and the log are told what the device says while it starts, not "absent"
    # from a device the supervisor has not kept yet.
    seen: list[DeviceState] = []
    holder: list[ManagedDevice[Any]] = []
    managed = ManagedDevice("board", "simulated", lambda: (ChattyDevice(), lambda: None),
                            lambda e: seen.append(holder[0].state), FakeClock())
    holder.append(managed)
    managed.start()
    assert seen == [DeviceState.CONNECTING]
    assert managed.state is DeviceState.CONNECTING
