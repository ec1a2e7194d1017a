"""The device supervisor component: each device created, started, retried and watched."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from firmware_host.bus import DeviceChanged, EventBus
from firmware_host.errors import DeviceUnavailableError
from hardware.board.transport import Backoff
from hardware.interfaces import Clock, Device, DeviceEvent, DeviceState

log = logging.getLogger("crib.device")

D = TypeVar("D", bound=Device)
DeviceFactory = Callable[[], tuple[D, Callable[[], None]]]
"""Makes a device: (the device, what to call after it is stopped). Raises when it cannot."""

_WARN_STATES = frozenset({"lost", "fault", "absent"})


class ManagedDevice(Generic[D]):
    """One device under supervision: created, started, retried until it is there.

    A factory that fails (no module, no port, driver error) leaves the device ABSENT with
    the reason, and a background thread retries on the injected clock with capped back-off
    (the link's own `Backoff`). A device that is there but LOST retries by itself; when it
    comes back the daemon sends it the state.
    """

    RETRY_MIN_S = 1.0
    RETRY_MAX_S = 30.0

    def __init__(self, name: str, kind: str, factory: DeviceFactory[D] | None,
                 on_event: Callable[[DeviceEvent], None], clock: Clock) -> None:
        self.name = name
        self.kind = kind  # real, simulated or absent
        self.factory = factory
        self.on_event = on_event
        self.clock = clock
        self.device: D | None = None
        self._starting: D | None = None  # the device while its start() runs, for `state`
        self.fault: str | None = None if factory else "configured absent"
        self._cleanup: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def state(self) -> DeviceState:
        device = self.device if self.device is not None else self._starting
        if device is None:
            return DeviceState.STOPPED if self._stop.is_set() else DeviceState.ABSENT
        try:
            return DeviceState(device.state)
        except Exception:  # a driver bug must not take the daemon down
            return DeviceState.FAULT

    def _attempt(self) -> bool:
        assert self.factory is not None
        try:
            device, cleanup = self.factory()
            # A device reports its state while it starts: read it from the device then,
            # not "absent" from a device not yet kept.
            self._starting = device
            device.subscribe(self.on_event)
            device.start()
        except Exception as exc:
            self.fault = f"{type(exc).__name__}: {exc}"
            return False
        finally:
            self._starting = None
        with self._lock:
            if self._stop.is_set():
                device.stop()
                cleanup()
                return True
            self.device, self._cleanup, self.fault = device, cleanup, None
        return True

    def start(self) -> None:
        """The first attempt (synchronous); on failure, keep retrying in the background."""
        if self.factory is None or self.device is not None:
            return
        self._stop.clear()
        if not self._attempt():
            log.warning("%s not available (%s); retrying", self.name, self.fault)
            self._thread = threading.Thread(target=self._retry, name=f"retry-{self.name}",
                                            daemon=True)
            self._thread.start()

    def _retry(self) -> None:
        backoff = Backoff(self.RETRY_MIN_S, self.RETRY_MAX_S)
        while True:
            self.clock.sleep(backoff.next_delay())
            if self._stop.is_set():
                return
            if self._attempt():
                if not self._stop.is_set():
                    log.info("%s is back", self.name)
                    self.on_event(DeviceEvent(self.name, "state",
                                              {"state": self.state.value, "reason": "found"}))
                return

    def stop(self) -> None:
        """Stop the device (motor off, board state kept) and any retrying; idempotent."""
        self._stop.set()
        with self._lock:
            device, cleanup = self.device, self._cleanup
            self.device = self._cleanup = None
        if device is not None:
            try:
                device.stop()
            except Exception as exc:
                log.warning("%s did not stop cleanly: %s", self.name, exc)
        if cleanup is not None:
            try:
                cleanup()
            except Exception as exc:
                log.warning("%s cleanup failed: %s", self.name, exc)
        if self._thread is not None:
            # A retry asleep on the clock sees the stop when it wakes; never wait that long.
            self._thread.join(timeout=0.2)

    def describe(self) -> dict[str, Any]:
        """The device's own description plus kind and state; never raises."""
        device = self.device
        if device is not None:
            try:
                return {**device.describe(), "kind": self.kind, "state": self.state.value}
            except Exception as exc:
                return {"state": DeviceState.FAULT.value, "kind": self.kind, "fault": str(exc)}
        return {"state": self.state.value, "kind": self.kind, "fault": self.fault}

    def require(self) -> D:
        """The device; raises DeviceUnavailableError when it is not there."""
        device = self.device
        if device is None:
            raise DeviceUnavailableError(
                f"the {self.name} is {self.state.value}" + (f": {self.fault}" if self.fault else "")
            )
        return device


class Devices:
    """Every device under supervision; start order is the configured order, stop the reverse.

    State changes are noticed from the devices' own "state" events (nothing polls): each is
    logged once, and sent as DeviceChanged with the device's new description.
    """

    def __init__(self, managed: Mapping[str, ManagedDevice[Any]], bus: EventBus) -> None:
        self.managed = dict(managed)
        self.bus = bus
        self._states: dict[str, str] = {}
        bus.register_event_handler(DeviceEvent, self._event)

    def _event(self, event: DeviceEvent) -> None:
        if event.kind == "state":
            self.state_event(event.device)

    def __getitem__(self, name: str) -> ManagedDevice[Any]:
        return self.managed[name]

    def items(self) -> list[tuple[str, ManagedDevice[Any]]]:
        return list(self.managed.items())

    def values(self) -> list[ManagedDevice[Any]]:
        return list(self.managed.values())

    def start(self) -> None:
        """A first attempt at each device (never fatal), with its state logged."""
        for name, managed in self.managed.items():
            managed.start()
            self._states[name] = managed.state.value
            log.info("%s (%s): %s%s", name, managed.kind, managed.state.value,
                     f" ({managed.fault})" if managed.fault else "")

    def stop(self) -> None:
        """Stop every device, in reverse order; one that fails is logged."""
        for managed in reversed(self.managed.values()):
            try:
                managed.stop()
            except Exception as exc:
                log.warning("stopping %s failed: %s", managed.name, exc)

    def state_event(self, name: str) -> None:
        """A device said its state changed: log the change and report it once."""
        managed = self.managed.get(name)
        if managed is None:
            return
        state = managed.state.value
        old = self._states.get(name)
        if state == old:
            return
        self._states[name] = state
        level = logging.WARNING if state in _WARN_STATES else logging.INFO
        fault = f" ({managed.fault})" if managed.fault else ""
        if old is None:
            log.log(level, "%s: %s%s", name, state, fault)
        else:
            log.log(level, "%s: %s -> %s%s", name, old, state, fault)
        self.bus.send_event(DeviceChanged(name, managed.describe()))

    def describe(self) -> dict[str, dict[str, Any]]:
        return {name: m.describe() for name, m in self.managed.items()}

    def status_line(self) -> str:
        return ", ".join(f"{n} {m.state.value}" for n, m in self.managed.items())
