"""The input panel: a rotary encoder with a push button per track, the undo button and the
shuffler's touch sensor. `GpioInputPanel` reads them through gpiozero; `SimulatedInputPanel`
takes presses from code. Both implement `InputPanel` and emit the same events:
"encoder" {track, steps}, "button" {track}, "undo", "undo_held" {seconds}, "touch".

Real switches bounce: every button and the touch sensor go through a `Debouncer` on the
injected clock (`bounce_ms`, 20 ms by default), so one press is one event. The encoders need
none: quadrature decoding cancels a contact's bounce (a step back and forth nets zero).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
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

UNDO_HOLD_S = 3.0  # the default of the one setting `undo_hold_s` (pairing uses it too)
BOUNCE_MS = 20.0  # mechanical buttons bounce for 1 to 20 ms


class Debouncer:
    """A switch's edges, debounced on a Clock by the steady level, as the Pico's buttons are
    (hardware/board/firmware/buttons.py): a level is taken once the raw input has stayed at
    it for `window_s`, and dated from its first edge. So a bouncing press is one press, and a
    glitch shorter than the window (a 2 ms break during a hold, a 1 ms spike) changes
    nothing: it neither ends a hold nor adds a press.

    The Pico samples its pins; here gpiozero reports edges, and a timer on the clock
    (`call_later`, which FakeClock runs as tests advance it) looks again when the window has
    passed. `on_change(level, at)` is called outside the lock. Raises InputError for a
    negative window.
    """

    def __init__(self, clock: Clock, window_s: float, on_change: Callable[[bool, float], None],
                 level: bool = False) -> None:
        if not window_s >= 0:
            raise InputError(f"a debounce window must be 0 s or more, got {window_s}")
        self.clock = clock
        self.window_s = window_s
        self._on_change = on_change
        self._lock = threading.Lock()
        self._level = level  # the level last taken
        self._raw = level  # the raw level now
        self._raw_at = -math.inf  # when the raw level last changed

    @property
    def level(self) -> bool:
        return self._level

    def edge(self, level: bool) -> None:
        """The raw input changed to `level` (from gpiozero's callback thread)."""
        now = self.clock.monotonic()
        taken = self._settle(now)  # a level that held until this edge
        with self._lock:
            if level != self._raw:
                self._raw, self._raw_at = level, now
            pending = self._raw != self._level
        if pending:
            if self.window_s == 0:
                taken += self._settle(now)
            else:
                _call_later(self.clock, self.window_s, self.settle)
        self._deliver(taken)

    def settle(self) -> None:
        """Take the raw level if it has held for the window (the timer calls this)."""
        self._deliver(self._settle(self.clock.monotonic()))

    def _settle(self, now: float) -> list[tuple[bool, float]]:
        with self._lock:
            if self._raw != self._level and now - self._raw_at >= self.window_s - 1e-9:
                self._level = self._raw
                return [(self._level, self._raw_at)]
        return []

    def _deliver(self, changes: list[tuple[bool, float]]) -> None:
        for value, at in changes:
            self._on_change(value, at)


def _call_later(clock: Clock, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
    """`clock.call_later` where the clock has it (SystemClock, FakeClock), else a real timer."""
    later = getattr(clock, "call_later", None)
    if later is not None:
        return later(seconds, callback)
    timer = threading.Timer(seconds, callback)
    timer.daemon = True
    timer.start()
    return timer.cancel


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
    # TTP223-class touch modules drive their output high while touched; some boards (or a
    # jumper on the module) make it active low: one setting, `[inputs] touch_active_high`
    touch_active_high: bool = True

    @classmethod
    def from_mapping(cls, pins: Mapping[str, Any]) -> InputPins:
        """Build from {"tracks": [{"a", "b", "button"}, ...], "undo", "touch"?,
        "touch_active_high"?}.

        Raises InputError naming a missing or doubled pin.
        """
        try:
            tracks = tuple(TrackPins(t["a"], t["b"], t["button"]) for t in pins["tracks"])
            made = cls(tracks=tracks, undo=pins["undo"], touch=pins.get("touch"),
                       touch_active_high=bool(pins.get("touch_active_high", True)))
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
    means gpiozero's choice (lgpio on a Pi), logged in `describe()`. `hold_s` is how long
    undo is held for "undo_held" (the daemon's `undo_hold_s`, which pairing uses too);
    `bounce_ms` the debounce window of the buttons and the touch sensor.
    Raises InputError for bad pins or settings; `start` raises it too if gpiozero cannot
    claim a pin.
    """

    kind = "gpio"

    def __init__(
        self,
        pins: InputPins | Mapping[str, Any],
        clock: Clock,
        pin_factory: Any = None,
        *,
        hold_s: float = UNDO_HOLD_S,
        bounce_ms: float = BOUNCE_MS,
    ) -> None:
        super().__init__()
        self.pins = pins if isinstance(pins, InputPins) else InputPins.from_mapping(pins)
        self.pins.validate()
        if not hold_s > 0:
            raise InputError(f"undo hold time must be above 0 s, got {hold_s}")
        if not 0 <= bounce_ms <= 500:
            raise InputError(f"bounce_ms must be between 0 and 500, got {bounce_ms}")
        self.clock = clock
        self.pin_factory = pin_factory
        self.hold_s = float(hold_s)
        self.bounce_s = bounce_ms / 1000.0
        self.tracks = len(self.pins.tracks)
        self._devices: list[Any] = []
        self._undo_down: float | None = None
        self._undo_held = False
        self._cancel_hold: Callable[[], None] | None = None

    def start(self) -> None:
        if self._devices:
            return
        from gpiozero import Button, Device, RotaryEncoder  # imported late: slow to load
        from gpiozero.exc import GPIOZeroError

        factory = self.pin_factory
        try:
            for track, tp in enumerate(self.pins.tracks):
                enc = RotaryEncoder(tp.a, tp.b, max_steps=0, pin_factory=factory)
                enc.when_rotated_clockwise = lambda t=track: self._emit("encoder", track=t,
                                                                         steps=1)
                enc.when_rotated_counter_clockwise = lambda t=track: self._emit(
                    "encoder", track=t, steps=-1)
                self._devices.append(enc)
                self._switch(Button(tp.button, pin_factory=factory),
                             lambda on, _at, t=track: on and self._emit("button", track=t))
            # the hold is timed from the debounced press on the injected clock (not by
            # gpiozero's own hold timer, which a glitch in the hold would restart)
            undo = Button(self.pins.undo, pin_factory=factory)
            self._switch(undo, self._undo_changed)
            if self.pins.touch is not None:
                touch = Button(self.pins.touch, pull_up=not self.pins.touch_active_high,
                               pin_factory=factory)
                self._switch(touch, lambda on, _at: on and self._emit("touch"))
        except (GPIOZeroError, OSError, ValueError) as exc:
            self._close_devices()
            raise InputError(f"cannot claim input pins {self.pins}: {exc}") from exc
        self._factory_name = type(factory or Device.pin_factory).__name__
        self._set_state(DeviceState.IDLE)

    def _switch(self, button: Any, on_change: Callable[[bool, float], None]) -> Debouncer:
        """Route a gpiozero button's raw edges through a debouncer."""
        deb = Debouncer(self.clock, self.bounce_s, on_change, level=bool(button.is_pressed))
        button.when_pressed = lambda: deb.edge(True)
        button.when_released = lambda: deb.edge(False)
        self._devices.append(button)
        return deb

    def stop(self) -> None:
        self._close_devices()
        self._set_state(DeviceState.STOPPED)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["pin_factory"] = getattr(self, "_factory_name", None)
        info["hold_s"] = self.hold_s
        info["bounce_ms"] = self.bounce_s * 1000.0
        return info

    def _close_devices(self) -> None:
        if self._cancel_hold is not None:
            self._cancel_hold()
            self._cancel_hold = None
        for dev in self._devices:
            dev.close()
        self._devices = []

    # The undo button: a short press is "undo"; held `hold_s` is "undo_held" (pairing, or
    # whatever the daemon makes of it), never both.
    def _undo_changed(self, down: bool, at: float) -> None:
        if self._cancel_hold is not None:
            self._cancel_hold()
            self._cancel_hold = None
        if down:
            self._undo_down = at
            self._undo_held = False
            # a hold is reported while the button is still down, hold_s after the press
            left = at + self.hold_s - self.clock.monotonic()
            self._cancel_hold = _call_later(self.clock, max(left, 0.0), self._undo_held_now)
            return
        start, self._undo_down = self._undo_down, None
        if self._undo_held or start is None:
            return
        held = at - start
        if held >= self.hold_s:
            self._undo_held = True
            self._emit("undo_held", seconds=round(held, 3))
        else:
            self._emit("undo")

    def _undo_held_now(self) -> None:
        if self._undo_down is not None and not self._undo_held:
            self._undo_held = True
            self._emit("undo_held", seconds=self.hold_s)


class SimulatedInputPanel(_Events):
    """An input panel driven from code: `turn`, `press`, `press_undo`, `hold_undo`, `touch`.

    Each raises InputError when the panel is not started or the track is not on it.
    """

    kind = "simulated"

    def __init__(self, tracks: int = 2, *, hold_s: float = UNDO_HOLD_S) -> None:
        super().__init__()
        if not 1 <= tracks <= 3:
            raise InputError(f"{tracks} encoder tracks; the panel has 1 to 3")
        if not hold_s > 0:
            raise InputError(f"undo hold time must be above 0 s, got {hold_s}")
        self.tracks = tracks
        self.hold_s = float(hold_s)

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

    def hold_undo(self, seconds: float | None = None) -> None:
        """Hold undo for `seconds` (default `hold_s`): "undo_held" from `hold_s`, "undo" below."""
        self._check()
        seconds = self.hold_s if seconds is None else seconds
        if seconds >= self.hold_s:
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
