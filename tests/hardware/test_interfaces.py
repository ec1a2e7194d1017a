"""The subscriber list every device shares."""

from __future__ import annotations

import logging

import pytest

from hardware.interfaces import DeviceEvent, Subscribers


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
