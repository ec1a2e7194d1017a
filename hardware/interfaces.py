"""The device interfaces the daemon sees: Clock, Shuffler, PegBoard, InputPanel.

Every driver and simulator implements one of these Protocols and takes a Clock
instead of calling `time`, so tests run a fake clock and never sleep. Devices
report changes as events to subscribers; a subscriber may be called from a
device thread, so the daemon marshals events onto its own loop.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class DeviceState(enum.StrEnum):
    """What a device is doing, as the daemon and the page show it."""

    ABSENT = "absent"  # configured off, or not found at start
    CONNECTING = "connecting"  # opening, or waiting for the hello
    IDLE = "idle"  # ready
    BUSY = "busy"  # running (shuffler passing cards, board sending)
    WAITING = "waiting"  # needs the player (stack a pile, touch to go on)
    FAULT = "fault"  # stopped for a reason the player can fix; see `fault`
    LOST = "lost"  # was there, stopped answering; being retried
    STOPPED = "stopped"  # stop() was called


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    """One change reported by a device.

    `device` is "shuffler", "board" or "inputs"; `kind` names the change
    ("state", "progress", "prompt", "fault", "button", "encoder", "touch", ...);
    `data` is JSON-ready.
    """

    device: str
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[DeviceEvent], None]
Unsubscribe = Callable[[], None]

_log = logging.getLogger("crib.device")


class Subscribers:
    """The subscriber list every device keeps: add, remove, deliver outside any lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Subscriber] = []

    def add(self, callback: Subscriber) -> Unsubscribe:
        """Call `callback` on every event from now on; returns a function that unsubscribes."""
        with self._lock:
            self._callbacks.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return unsubscribe

    def deliver(self, events: Iterable[DeviceEvent]) -> None:
        """Give each event to every subscriber; one that raises is logged, not the device's fault.

        Call it without holding the device's lock, so a subscriber may call back in.
        """
        with self._lock:
            callbacks = list(self._callbacks)
        for event in events:
            for callback in callbacks:
                try:
                    callback(event)
                except Exception:
                    _log.exception("a subscriber failed on %s %s", event.device, event.kind)


class DeviceStatus:
    """A device's state and the reason of its last failure; a change is told as a "state" event.

    `lock` is the device's own: the state changes under it, as the device's other fields do,
    and the event is delivered after it is released, so a subscriber may call back in.
    """

    FAILED = frozenset({DeviceState.FAULT, DeviceState.LOST, DeviceState.ABSENT})
    """The states whose reason stays as `fault` until the next failure."""

    def __init__(self, device: str, lock: AbstractContextManager[Any], subscribers: Subscribers,
                 state: DeviceState = DeviceState.ABSENT) -> None:
        self.device = device
        self.state = state
        self.fault: str | None = None
        self._lock = lock
        self._subscribers = subscribers

    def set(self, state: DeviceState, reason: str) -> None:
        """Move to `state` for `reason` and tell the subscribers; the same state again is no news.

        Call it without holding `lock` unless the lock is re-entrant.
        """
        with self._lock:
            if state is self.state:
                return
            self.state = state
            if state in self.FAILED:
                self.fault = reason
        self._subscribers.deliver(
            [DeviceEvent(self.device, "state", {"state": state.value, "reason": reason})])


@runtime_checkable
class Clock(Protocol):
    """Time for devices: real in the daemon, fake in tests."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, never going back."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait; a fake clock advances instead of waiting."""
        ...


@runtime_checkable
class Device(Protocol):
    """What every device has: a lifecycle, a state and events."""

    @property
    def state(self) -> DeviceState: ...

    def start(self) -> None:
        """Open the device (or begin retrying to); never raises for a missing device."""
        ...

    def stop(self) -> None:
        """Close it safely (motor off, board state kept); idempotent."""
        ...

    def subscribe(self, callback: Subscriber) -> Unsubscribe:
        """Call `callback` on every event from now on; returns a function that unsubscribes."""
        ...

    def describe(self) -> dict[str, Any]:
        """A JSON-ready status: state, kind (real or simulated), details, last fault."""
        ...


@dataclass(frozen=True, slots=True)
class ShufflerStatus:
    """The shuffler's whole status, as `GET /api/shuffler` returns it."""

    state: DeviceState
    deck_size: int | None = None
    routing: str | None = None  # "coin", "radix" or "light"
    passes_total: int = 0
    passes_done: int = 0
    cards_this_pass: int = 0
    pile_counts: tuple[int, int] = (0, 0)  # (left, right) sensed this pass
    tv_distance: float | None = None  # mix quality of the plan: distance to uniform, 0..1
    quality: str | None = None  # the plan's mix quality in a plain sentence
    prompt: str | None = None  # what the player must do now, in words
    fault: str | None = None  # what went wrong, in words, with what to do
    # The hands-free build (docs/hands-free.md): the machine restacks itself.
    hands_free: bool = False
    phase: str | None = None  # "pass", "restack", "paused" (lid open) or None
    restacks_done: int = 0
    seconds_left: float | None = None  # the machine's estimate to the deck being ready


@runtime_checkable
class Shuffler(Device, Protocol):
    """A Lotus-style two-pile shuffler and its controller."""

    def status(self) -> ShufflerStatus: ...

    def shuffle(self, deck_size: int = 52, plan: str = "random") -> ShufflerStatus:
        """Plan and begin a shuffle; plan is "random" (coin), "exact" (radix) or "light".

        Raises ValueError (a ShufflerError) for a bad deck size or plan, or when busy.
        """
        ...

    def resume(self) -> ShufflerStatus:
        """The player stacked the pile or cleared the fault: start the next pass."""
        ...

    def abort(self) -> ShufflerStatus:
        """Stop the motor and drop the plan."""
        ...


@dataclass(frozen=True, slots=True)
class TrackPegs:
    """One track's two pegs as scores: `front` is the score, `back` the one before it."""

    front: int = 0
    back: int = 0


@dataclass(frozen=True, slots=True)
class BoardState:
    """Everything the board should show; sent whole, so it is idempotent."""

    tracks: tuple[TrackPegs, ...] = ()
    target: int = 121
    brightness: int = 128  # 0..255
    palette: str = "classic"  # or "colorblind"
    code: str | None = None  # a pairing code to light, or None
    winner: int | None = None  # a track to celebrate, or None
    lines: tuple[int, ...] = ()  # skunk/lurch line scores to mark, as the engine gives them


@dataclass(frozen=True, slots=True)
class BoardReadback:
    """What the board really shows, read back from the device's LED frame buffer."""

    tracks: tuple[TrackPegs, ...]
    code: str | None
    leds: tuple[tuple[int, int, int], ...]  # the frame buffer, one RGB triple per LED
    boot_id: int | None = None
    lines: tuple[int, ...] = ()  # the skunk lines the board says it draws
    budget_ma: int | None = None  # the board's supply budget for the LEDs
    dim_percent: int | None = None  # the share of full light the cap left the frame (100: none)


@runtime_checkable
class PegBoard(Device, Protocol):
    """The LED peg board behind its microcontroller."""

    def show(self, board: BoardState) -> None:
        """Make the board show this; sent (and resent) in the background; never blocks long."""
        ...

    def read_back(self, timeout: float = 1.0) -> BoardReadback | None:
        """What the board shows now, or None when it is not reachable."""
        ...


@runtime_checkable
class InputPanel(Device, Protocol):
    """Encoders with push buttons per track, the undo button and the shuffler's touch sensor.

    Events: kind "encoder" {track, steps}, "button" {track} (commit), "undo",
    "undo_held" {seconds}, "touch".
    """
