"""The shuffler component: its commands, its status, and the one place that publishes it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from firmware_host.bus import EventBus, ShufflerChanged
from firmware_host.components.devices import ManagedDevice
from firmware_host.config import Settings
from firmware_host.errors import DeviceRefusedError
from hardware.interfaces import DeviceEvent, DeviceState, Shuffler, ShufflerStatus


def status_json(status: ShufflerStatus) -> dict[str, Any]:
    """The shuffler's status as JSON."""
    data = dataclasses.asdict(status)
    data["state"] = DeviceState(status.state).value
    data["pile_counts"] = list(status.pile_counts)
    return data


class ShufflerService:
    """Drives the card shuffler and reports its status.

    The status goes out from one place: the device's own events (`on_device_event`), which
    every command and every pass makes; a command only returns it.
    """

    def __init__(self, settings: Settings, device: ManagedDevice[Shuffler],
                 bus: EventBus) -> None:
        self.settings = settings
        self.device = device
        self.bus = bus
        bus.register_event_handler(DeviceEvent, self.on_device_event)

    def start(self) -> None:
        """Nothing to open: the device supervisor starts the shuffler itself."""

    def stop(self) -> None:
        """Nothing to close: the device supervisor stops the motor."""

    def status(self) -> dict[str, Any]:
        """The status as JSON (the supervisor's state and fault when the device is absent)."""
        device = self.device.device
        if device is None:
            return {"state": self.device.state.value, "fault": self.device.fault}
        return status_json(device.status())

    def on_device_event(self, event: DeviceEvent) -> None:
        """From the shuffler's thread: every event of the shuffler changes its status."""
        if event.device == self.device.name and self.device.device is not None:
            self.bus.send_event(ShufflerChanged(self.status()))

    # -- commands -----------------------------------------------------------------------------
    def shuffle(self, deck: int | None = None, plan: str | None = None) -> dict[str, Any]:
        """Begin a shuffle (left-out values take the configuration's); raises as `_command`."""
        deck = deck or self.settings.shuffle.deck
        plan = plan or self.settings.shuffle.plan
        return self._command(lambda d: d.shuffle(deck, plan))

    def resume(self) -> dict[str, Any]:
        """The pile is stacked or the fault cleared: go on."""
        return self._command(lambda d: d.resume())

    def abort(self) -> dict[str, Any]:
        """Stop the motor and drop the plan."""
        return self._command(lambda d: d.abort())

    def touch(self) -> None:
        """The touch sensor: start or continue the shuffle; raises DeviceUnavailableError
        with no shuffler."""
        self.device.require().touch()

    def _command(self, call: Callable[[Shuffler], ShufflerStatus]) -> dict[str, Any]:
        """Run a command; raises DeviceUnavailableError or DeviceRefusedError."""
        device: Shuffler = self.device.require()
        try:
            return status_json(call(device))
        except (ValueError, RuntimeError) as exc:
            raise DeviceRefusedError(f"the shuffler refused: {exc}") from None
