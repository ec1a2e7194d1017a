"""The input panel: a rotary encoder with a push button per track, the undo button and the
shuffler's touch sensor. `GpioInputPanel` reads them through gpiozero; `SimulatedInputPanel`
takes presses from code. Both implement `InputPanel` and emit the same events:
"encoder" {track, steps}, "button" {track}, "undo", "undo_held" {seconds}, "touch".
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hardware.errors import InputError
from hardware.interfaces import (
    Clock,
    DeviceEvent,
    DeviceState,
    Subscriber,
    Subscribers,
    Unsubscribe,
)

UNDO_HOLD_S = 3.0


@dataclass(frozen=True, slots=True)
class TrackPins:
    """One track's encoder (A and B) and its push button."""

    a: int | str
    b: int | str
    button: int | str


@dataclass(frozen=True, slots=True)
class InputPins:
    """Every input pin, from configuration (BCM numbers or gpiozero pin names)."""

    tracks: tuple[TrackPins, ...]
    undo: int | str
    touch: int | str | None = None
    touch_active_high: bool = True  # capacitive touch modules drive their output high
    bounce_time: float | None = None

    @classmethod
    def from_mapping(cls, pins: Mapping[str, Any]) -> InputPins:
        """Build from {"tracks": [{"a", "b", "button"}, ...], "undo", "touch"?}.

        Raises InputError naming a missing or doubled pin.
        """
        try:
            tracks = tuple(TrackPins(t["a"], t["b"], t["button"]) for t in pins["tracks"])
            made = cls(tracks=tracks, undo=pins["undo"], touch=pins.get("touch"),
                       touch_active_high=bool(pins.get("touch_active_high", True)),
                       bounce_time=pins.get("bounce_time"))
        except (KeyError, TypeError) as exc:
            raise InputError(f"input pins {dict(pins)!r} lack {exc}") from exc
        made.validate()
        return made

    def validate(self) -> None:
        """Raises InputError for no tracks, more than 3, or one pin used twice."""
        if not 1 <= len(self.tracks) <= 3:
            raise InputError(f"{len(self.tracks)} encoder tracks; the panel has 1 to 3")
        used = [p for t in self.tracks for p in (t.a, t.b, t.button)] + [self.undo]
        used += [self.touch] if self.touch is not None else []
        doubled = sorted({str(p) for p in used if used.count(p) > 1})
        if doubled:
            raise InputError(f"input pins used twice: {', '.join(doubled)}")


class _Events:
    """Subscribers and state, shared by both panels."""

    kind = "?"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs = Subscribers()
        self._state = DeviceState.STOPPED
        self.tracks = 0

    @property
    def state(self) -> DeviceState:
        return self._state

    def subscribe(self, callback: Subscriber) -> Unsubscribe:
        return self._subs.add(callback)

    def _emit(self, kind: str, **data: Any) -> None:
        self._subs.deliver([DeviceEvent("inputs", kind, data)])

    def _set_state(self, state: DeviceState) -> None:
        if state is not self._state:
            self._state = state
            self._emit("state", state=state.value)

    def describe(self) -> dict[str, Any]:
        return {"state": self._state.value, "kind": self.kind, "tracks": self.tracks}


class GpioInputPanel(_Events):
    """Encoders, buttons and the touch sensor on GPIO pins, through gpiozero.

    `pins` is an `InputPins` or a mapping for `InputPins.from_mapping`; `pin_factory` None
    means gpiozero's choice (lgpio on a Pi), logged in `describe()`.
    Raises InputError for bad pins; `start` raises it too if gpiozero cannot claim one.
    """

    kind = "gpio"

    def __init__(
        self, pins: InputPins | Mapping[str, Any], clock: Clock, pin_factory: Any = None
    ) -> None:
        super().__init__()
        self.pins = pins if isinstance(pins, InputPins) else InputPins.from_mapping(pins)
        self.pins.validate()
        self.clock = clock
        self.pin_factory = pin_factory
        self.tracks = len(self.pins.tracks)
        self._devices: list[Any] = []
        self._undo_down: float | None = None
        self._undo_held = False

    def start(self) -> None:
        if self._devices:
            return
        from gpiozero import Button, Device, RotaryEncoder  # imported late: slow to load
        from gpiozero.exc import GPIOZeroError

        factory = self.pin_factory
        bt = self.pins.bounce_time
        try:
            for track, tp in enumerate(self.pins.tracks):
                enc = RotaryEncoder(tp.a, tp.b, max_steps=0, bounce_time=bt, pin_factory=factory)
                enc.when_rotated_clockwise = lambda t=track: self._emit("encoder", track=t,
                                                                         steps=1)
                enc.when_rotated_counter_clockwise = lambda t=track: self._emit(
                    "encoder", track=t, steps=-1)
                btn = Button(tp.button, bounce_time=bt, pin_factory=factory)
                btn.when_pressed = lambda t=track: self._emit("button", track=t)
                self._devices += [enc, btn]
            undo = Button(self.pins.undo, bounce_time=bt, hold_time=UNDO_HOLD_S,
                          pin_factory=factory)
            undo.when_pressed = self._undo_pressed
            undo.when_held = self._undo_held_now
            undo.when_released = self._undo_released
            self._devices.append(undo)
            if self.pins.touch is not None:
                touch = Button(self.pins.touch, pull_up=not self.pins.touch_active_high,
                               bounce_time=bt, pin_factory=factory)
                touch.when_pressed = lambda: self._emit("touch")
                self._devices.append(touch)
        except (GPIOZeroError, OSError, ValueError) as exc:
            self._close_devices()
            raise InputError(f"cannot claim input pins {self.pins}: {exc}") from exc
        self._factory_name = type(factory or Device.pin_factory).__name__
        self._set_state(DeviceState.IDLE)

    def stop(self) -> None:
        self._close_devices()
        self._set_state(DeviceState.STOPPED)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["pin_factory"] = getattr(self, "_factory_name", None)
        return info

    def _close_devices(self) -> None:
        for dev in self._devices:
            dev.close()
        self._devices = []

    # The undo button: a short press is "undo"; held 3 s is "undo_held" (undo the game's
    # last hand, or whatever the daemon makes of it). gpiozero's hold timer runs in real
    # time; the injected clock measures the press too, so a fake clock decides in tests.
    def _undo_pressed(self) -> None:
        self._undo_down = self.clock.monotonic()
        self._undo_held = False

    def _undo_held_now(self) -> None:
        if not self._undo_held:
            self._undo_held = True
            self._emit("undo_held", seconds=UNDO_HOLD_S)

    def _undo_released(self) -> None:
        down, self._undo_down = self._undo_down, None
        if self._undo_held or down is None:
            return
        held = self.clock.monotonic() - down
        if held >= UNDO_HOLD_S:
            self._undo_held = True
            self._emit("undo_held", seconds=round(held, 3))
        else:
            self._emit("undo")


class SimulatedInputPanel(_Events):
    """An input panel driven from code: `turn`, `press`, `press_undo`, `hold_undo`, `touch`.

    Each raises InputError when the panel is not started or the track is not on it.
    """

    kind = "simulated"

    def __init__(self, tracks: int = 2) -> None:
        super().__init__()
        if not 1 <= tracks <= 3:
            raise InputError(f"{tracks} encoder tracks; the panel has 1 to 3")
        self.tracks = tracks

    def start(self) -> None:
        self._set_state(DeviceState.IDLE)

    def stop(self) -> None:
        self._set_state(DeviceState.STOPPED)

    def turn(self, track: int, steps: int) -> None:
        """Turn a track's encoder `steps` detents (negative: back); one event per detent."""
        self._check(track)
        for _ in range(abs(steps)):
            self._emit("encoder", track=track, steps=1 if steps > 0 else -1)

    def press(self, track: int) -> None:
        """Push a track's encoder button (commit the dialled points)."""
        self._check(track)
        self._emit("button", track=track)

    def press_undo(self) -> None:
        self._check()
        self._emit("undo")

    def hold_undo(self, seconds: float = UNDO_HOLD_S) -> None:
        """Hold undo for `seconds`: "undo_held" from 3 s, a plain "undo" below."""
        self._check()
        if seconds >= UNDO_HOLD_S:
            self._emit("undo_held", seconds=seconds)
        else:
            self._emit("undo")

    def touch(self) -> None:
        """Touch the shuffler's sensor."""
        self._check()
        self._emit("touch")

    def _check(self, track: int | None = None) -> None:
        if self._state is not DeviceState.IDLE:
            raise InputError(f"the input panel is {self._state.value}; start() it first")
        if track is not None and not 0 <= track < self.tracks:
            raise InputError(f"track {track} is not one of the panel's {self.tracks} tracks")
