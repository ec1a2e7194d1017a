"""The subscriber list and the state-with-reason every device shares."""

from __future__ import annotations

import logging
import threading

import pytest

from hardware.interfaces import DeviceEvent, DeviceState, DeviceStatus, Subscribers


def test_every_subscriber_gets_events_in_order_until_it_unsubscribes() -> None:
    subs = Subscribers()
    seen_a: list[str] = []
    seen_b: list[str] = []
    off_a = subs.add(lambda e: seen_a.append(e.kind))
    subs.add(lambda e: seen_b.append(e.kind))
    subs.deliver([DeviceEvent("board", "one"), DeviceEvent("board", "two")])
    off_a()
    off_a()  # a second unsubscribe is harmless
    subs.deliver([DeviceEvent("board", "three")])
    assert seen_a == ["one", "two"]
    assert seen_b == ["one", "two", "three"]


def test_a_failing_subscriber_is_logged_and_the_others_still_hear(
    caplog: pytest.LogCaptureFixture,
) -> None:
    subs = Subscribers()
    heard: list[str] = []

    def broken(event: DeviceEvent) -> None:
        raise RuntimeError("daemon bug")

    subs.add(broken)
    subs.add(lambda e: heard.append(e.kind))
    with caplog.at_level(logging.ERROR, logger="crib.device"):
        subs.deliver([DeviceEvent("shuffler", "progress")])
    assert heard == ["progress"]
    assert "a subscriber failed on shuffler progress" in caplog.text


def test_a_subscriber_may_subscribe_another_while_events_are_delivered() -> None:
    subs = Subscribers()
    late: list[str] = []
    subs.add(lambda e: subs.add(lambda e2: late.append(e2.kind)) if e.kind == "first" else None)
    subs.deliver([DeviceEvent("inputs", "first")])
    subs.deliver([DeviceEvent("inputs", "second")])
    assert late == ["second"]


def test_a_state_change_is_told_once_with_its_reason_and_a_failure_stays_as_the_fault() -> None:
    lock = threading.Lock()
    subs = Subscribers()
    status = DeviceStatus("board", lock, subs)
    heard: list[DeviceEvent] = []
    subs.add(heard.append)
    assert (status.state, status.fault) == (DeviceState.ABSENT, None)
    status.set(DeviceState.CONNECTING, "opening the port")
    status.set(DeviceState.CONNECTING, "opening the port again")  # no news
    status.set(DeviceState.FAULT, "no permission to open /dev/spidev0.0")
    status.set(DeviceState.IDLE, "board answered")  # the last failure's reason stays
    assert [(e.device, e.kind, e.data) for e in heard] == [
        ("board", "state", {"state": "connecting", "reason": "opening the port"}),
        ("board", "state", {"state": "fault", "reason": "no permission to open /dev/spidev0.0"}),
        ("board", "state", {"state": "idle", "reason": "board answered"}),
    ]
    assert (status.state, status.fault) == (DeviceState.IDLE,
                                            "no permission to open /dev/spidev0.0")
    status.set(DeviceState.LOST, "no heartbeat")
    assert status.fault == "no heartbeat"


def test_the_state_event_is_delivered_outside_the_devices_lock() -> None:
    lock = threading.Lock()
    subs = Subscribers()
    status = DeviceStatus("board", lock, subs)
    could_lock: list[bool] = []

    def calls_back_in(event: DeviceEvent) -> None:
        got = lock.acquire(timeout=1)  # the device's describe() takes its lock
        could_lock.append(got)
        if got:
            lock.release()

    subs.add(calls_back_in)
    status.set(DeviceState.IDLE, "writing /dev/spidev0.0")
    assert could_lock == [True]
