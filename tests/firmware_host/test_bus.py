"""The daemon's dispatcher: typed subscriptions, one failing subscriber never stops the
others, and the map of the house (who hears what) as the services build it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from firmware_host.bus import (
    ActionCommitted,
    BoardShown,
    DeviceChanged,
    EventBus,
    GameStarted,
    ShufflerChanged,
    StoreFaulted,
)
from firmware_host.components.devices import ManagedDevice
from firmware_host.components.shuffler import ShufflerService
from firmware_host.config import load_settings
from firmware_host.services import build_services
from hardware.clock import FakeClock
from hardware.interfaces import DeviceEvent, DeviceState, ShufflerStatus


class _Base:
    pass


class _Child(_Base):
    pass


def test_a_handler_hears_its_class_and_subclasses_in_the_order_registered() -> None:
    bus = EventBus()
    heard: list[tuple[str, object]] = []
    bus.register_event_handler(_Child, lambda e: heard.append(("child", e)))
    bus.register_event_handler(_Base, lambda e: heard.append(("base", e)))
    base, child = _Base(), _Child()
    bus.send_event(base)
    bus.send_event(child)
    bus.send_event("not subscribed")
    assert heard == [("base", base), ("child", child), ("base", child)]


def test_a_failing_handler_is_logged_and_the_others_still_hear(
        caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    heard: list[object] = []

    def broken(event: object) -> None:
        raise AttributeError("a bug")

    bus.register_event_handler(StoreFaulted, broken)
    bus.register_event_handler(StoreFaulted, heard.append)
    with caplog.at_level(logging.ERROR, logger="crib.daemon"):
        bus.send_event(StoreFaulted())
    assert heard == [StoreFaulted()]
    [record] = caplog.records
    assert "broken" in record.getMessage() and record.exc_info is not None


class _Shuffler:
    """A shuffler that emits an event only when told to (`emit`)."""

    def __init__(self) -> None:
        self.state = DeviceState.IDLE
        self.callbacks: list[Any] = []

    def subscribe(self, callback: Any) -> Any:
        self.callbacks.append(callback)
        return lambda: None

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def describe(self) -> dict[str, Any]:
        return {}

    def status(self) -> ShufflerStatus:
        return ShufflerStatus(self.state, deck_size=52)

    def shuffle(self, deck_size: int = 52, plan: str = "random") -> ShufflerStatus:
        self.state = DeviceState.BUSY
        return self.status()

    def emit(self, kind: str) -> None:
        for callback in self.callbacks:
            callback(DeviceEvent("shuffler", kind, {}))


def test_the_shuffler_status_is_published_from_its_events_only() -> None:
    bus = EventBus()
    device = _Shuffler()
    managed = ManagedDevice("shuffler", "simulated", lambda: (device, lambda: None),
                            bus.send_event, FakeClock())
    settings = load_settings(None, simulate=True)
    shuffler = ShufflerService(settings, managed, bus)
    sent: list[ShufflerChanged] = []
    bus.register_event_handler(ShufflerChanged, sent.append)
    managed.start()
    assert shuffler.shuffle(52, "exact")["state"] == "busy"
    assert sent == []  # the command answers; it does not publish
    device.emit("plan")
    assert [s.status["state"] for s in sent] == ["busy"]
    bus.send_event(DeviceEvent("board", "state", {}))  # another device's event: not its news
    assert len(sent) == 1


def test_the_map_of_the_house(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path}"\n')
    services = build_services(load_settings(config, simulate=True))
    bus = services.bus

    def who(kind: type) -> list[str]:
        return [getattr(h, "__qualname__", "").split(".")[0] for h in bus.handlers(kind)]

    assert who(GameStarted) == ["EventHub", "BoardView", "Health"]
    assert who(ActionCommitted) == ["EventHub", "BoardView", "ResultsLog", "Health"]
    assert who(DeviceEvent) == ["EventHub", "Devices", "ShufflerService", "TableInputs"]
    assert who(DeviceChanged) == ["EventHub", "BoardView", "Health"]
    assert who(BoardShown) == ["EventHub"]
    assert who(ShufflerChanged) == ["EventHub"]
    assert who(StoreFaulted) == ["Health"]
