"""The shuffler on a Raspberry Pi: gpiozero devices driven by the shared controller.

Parts and their pins come from configuration (BCM numbers or gpiozero pin names):

- `motor`: the feed motor's driver enable (DigitalOutputDevice; on = one feed cycle),
- `router`: the pile router, a servo (AngularServo at `left_angle` / `right_angle`) or a
  solenoid (DigitalOutputDevice, on = right pile), chosen by `router_kind`,
- `left_sensor`, `right_sensor`: card sensors at each pile (DigitalInputDevice, active while
  a card blocks it),
- `tray_sensor`: active while cards are in the feed tray,
- `touch`: the touch sensor (Button; `touch_active_high`, True by default for TTP223-class
  modules). The daemon reads the touch through the input panel and calls `touch()`; the pin
  here serves a shuffler used alone (the bring-up commands),
- `led`: the status LED (on while a shuffle is under way).

The pile sensors go through a `GlitchFilter` (`sensor_filter_ms`, default from
`physics.default_sensor_filter_ms`): a card whose edge chatters is one card. The motor is off
whenever the parts are closed, and at interpreter exit before gpiozero releases the pins
(after a SIGKILL the kernel releases them: the driver's pull-down keeps the motor off).

Tests use gpiozero's MockFactory (MockPWMPin for the servo) as `pin_factory`.
"""

from __future__ import annotations

import atexit
import math
import random
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from hardware.errors import ConfigurationError
from hardware.inputs import BOUNCE_MS, Debouncer
from hardware.interfaces import Clock
from hardware.shuffler.controller import ShufflerController, Timing
from hardware.shuffler.physics import default_sensor_filter_ms
from hardware.shuffler.plan import Pile

REQUIRED_PINS = ("motor", "router", "left_sensor", "right_sensor", "tray_sensor")
OPTIONAL_PINS = ("touch", "led")
ROUTER_KINDS = ("servo", "solenoid")
SensorHook = Callable[[str, bool, float], None]


class GlitchFilter:
    """A sensor level taken only once it has held `window_s`: chatter at a card's edge, and
    spikes shorter than the window, never count as cards.

    `edge(level, at)` takes a raw change, `settle(now)` what has held long enough by then;
    both return the changes taken, as (level, since). Times come from one Clock.
    Raises ConfigurationError for a negative window.
    """

    def __init__(self, window_s: float, level: bool = False, at: float = -math.inf) -> None:
        if not window_s >= 0:
            raise ConfigurationError(f"sensor_filter_ms must be 0 or more, got {window_s * 1e3}")
        self.window_s = window_s
        self.level = level  # the filtered level
        self.since = at  # when it began (its last raw edge)
        self.raw = level
        self.raw_at = at
        self.glitches = 0  # raw changes that never held

    def edge(self, level: bool, at: float) -> list[tuple[bool, float]]:
        taken = self.settle(at)
        if level != self.raw:
            if self.raw != self.level:
                self.glitches += 1  # the level it leaves never held
            self.raw, self.raw_at = level, at
        return taken + self.settle(at)

    def settle(self, now: float) -> list[tuple[bool, float]]:
        if self.raw != self.level and now - self.raw_at >= self.window_s:
            self.level, self.since = self.raw, self.raw_at
            return [(self.level, self.since)]
        return []

    def due(self) -> float | None:
        """When the pending raw level will be taken, if one is pending."""
        return self.raw_at + self.window_s if self.raw != self.level else None


def check_pins(pins: Mapping[str, Any]) -> dict[str, Any]:
    """The pin configuration, checked. Raises ConfigurationError naming the bad entry."""
    missing = [name for name in REQUIRED_PINS if pins.get(name) is None]
    if missing:
        raise ConfigurationError(
            "shuffler pins missing from the configuration: " + ", ".join(missing)
        )
    known = set(REQUIRED_PINS) | set(OPTIONAL_PINS) | {
        "router_kind", "left_angle", "right_angle", "sensor_pull_up", "touch_active_high"
    }
    unknown = sorted(set(pins) - known)
    if unknown:
        raise ConfigurationError("unknown shuffler pin settings: " + ", ".join(unknown))
    kind = pins.get("router_kind", "servo")
    if kind not in ROUTER_KINDS:
        raise ConfigurationError(f"router_kind must be servo or solenoid, got {kind!r}")
    used = [pins[n] for n in REQUIRED_PINS + OPTIONAL_PINS if pins.get(n) is not None]
    if len(set(map(str, used))) != len(used):
        raise ConfigurationError(f"two shuffler parts share a pin: {used}")
    return dict(pins)


class _GpioMechanism:
    """The controller's Mechanism over gpiozero devices."""

    kind = "gpio"

    def __init__(self, pins: Mapping[str, Any], clock: Clock, pin_factory: Any,
                 sensor_filter_ms: float | None = None) -> None:
        self.pins = check_pins(pins)
        self._clock = clock
        self._factory = pin_factory
        if sensor_filter_ms is None:
            sensor_filter_ms = default_sensor_filter_ms()
        if not 0 <= sensor_filter_ms <= 1000:
            raise ConfigurationError(
                f"sensor_filter_ms must be between 0 and 1000, got {sensor_filter_ms}")
        self.sensor_filter_s = sensor_filter_ms / 1000.0
        self._lock = threading.Lock()
        self._arrivals: list[Pile] = []
        self._blocked: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self._filters = {p: GlitchFilter(self.sensor_filter_s) for p in Pile}
        self._blocks: dict[Pile, float] = {}  # the last block's length, until taken
        self._devices: list[Any] = []
        self.on_touch: Any = None  # set by the shuffler: the player touched the sensor
        self.on_sensor: SensorHook | None = None  # bring-up: every filtered sensor change
        self.motor: Any = None
        self.router: Any = None
        self.led: Any = None
        self._exit_hook: Callable[[], None] | None = None

    def open(self) -> None:
        from gpiozero import LED, AngularServo, Button, DigitalInputDevice, DigitalOutputDevice

        pins, f = self.pins, self._factory
        pull_up = bool(pins.get("sensor_pull_up", False))
        try:
            self.motor = self._add(DigitalOutputDevice(pins["motor"], pin_factory=f))
            if pins.get("router_kind", "servo") == "servo":
                self.router = self._add(AngularServo(
                    pins["router"], initial_angle=pins.get("left_angle", -30.0),
                    min_angle=-90, max_angle=90, pin_factory=f,
                ))
            else:
                self.router = self._add(DigitalOutputDevice(pins["router"], pin_factory=f))
            self.sensors = {
                Pile.LEFT: self._add(DigitalInputDevice(pins["left_sensor"], pull_up=pull_up,
                                                        pin_factory=f)),
                Pile.RIGHT: self._add(DigitalInputDevice(pins["right_sensor"], pull_up=pull_up,
                                                         pin_factory=f)),
            }
            self.tray = self._add(DigitalInputDevice(pins["tray_sensor"], pull_up=pull_up,
                                                     pin_factory=f))
            if pins.get("touch") is not None:
                high = bool(pins.get("touch_active_high", True))
                touch = self._add(Button(pins["touch"], pull_up=not high, pin_factory=f))
                deb = Debouncer(self._clock, BOUNCE_MS / 1000.0, self._touched,
                                level=bool(touch.is_pressed))
                touch.when_pressed = lambda: deb.edge(True)
                touch.when_released = lambda: deb.edge(False)
            if pins.get("led") is not None:
                self.led = self._add(LED(pins["led"], pin_factory=f))
        except Exception:
            self.close()
            raise
        now = self._clock.monotonic()
        for pile, sensor in self.sensors.items():
            blocked = bool(sensor.is_active)
            self._filters[pile] = GlitchFilter(self.sensor_filter_s, blocked, now)
            self._blocked[pile] = now if blocked else None
            sensor.when_activated = lambda _dev=None, p=pile: self._edge(p, True)
            sensor.when_deactivated = lambda _dev=None, p=pile: self._edge(p, False)
        self.tray.when_activated = lambda _dev=None: self._report("tray", True, None)
        self.tray.when_deactivated = lambda _dev=None: self._report("tray", False, None)
        # At interpreter exit (a command ending, an uncaught exception, SIGINT), the motor is
        # switched off before gpiozero's own exit handler releases the pins.
        self._exit_hook = _motor_off_hook(weakref.ref(self))
        atexit.register(self._exit_hook)

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _edge(self, pile: Pile, level: bool) -> None:
        # called from gpiozero's callback thread
        now = self._clock.monotonic()
        with self._lock:
            taken = self._filters[pile].edge(level, now)
            self._take(pile, taken)
        for value, at in taken:
            self._report(pile.value, value, at)

    def _take(self, pile: Pile, taken: list[tuple[bool, float]]) -> None:
        for blocked, at in taken:
            if blocked:
                self._arrivals.append(pile)
                self._blocked[pile] = at
            else:
                start = self._blocked[pile]
                if start is not None:
                    self._blocks[pile] = at - start
                self._blocked[pile] = None

    def _report(self, name: str, level: bool, at: float | None) -> None:
        hook = self.on_sensor
        if hook is not None:
            hook(name, level, self._clock.monotonic() if at is None else at)

    def _touched(self, pressed: bool, _at: float) -> None:
        if pressed and self.on_touch is not None:
            self.on_touch()

    def close(self) -> None:
        if self.motor is not None:
            try:
                self.motor.off()
            except Exception:  # closing must go on whatever a part does
                pass
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
        self.motor = self.router = self.led = None
        if self._exit_hook is not None:
            atexit.unregister(self._exit_hook)
            self._exit_hook = None

    def update(self, now: float) -> float | None:
        """Take the sensor levels that have held long enough; returns when the next will."""
        reports: list[tuple[str, bool, float]] = []
        due: list[float] = []
        with self._lock:
            for pile, filt in self._filters.items():
                taken = filt.settle(now)
                self._take(pile, taken)
                reports += [(pile.value, v, at) for v, at in taken]
                if (when := filt.due()) is not None:
                    due.append(when)
        for name, value, at in reports:
            self._report(name, value, at)
        return min(due) if due else None

    @property
    def glitches(self) -> int:
        """Sensor changes the filter threw away (chatter, spikes) since open."""
        return sum(f.glitches for f in self._filters.values())

    def set_motor(self, on: bool) -> None:
        if self.motor is not None:
            self.motor.value = on

    def set_router(self, pile: Pile) -> None:
        if self.router is None:
            return
        if self.pins.get("router_kind", "servo") == "servo":
            key = "left_angle" if pile is Pile.LEFT else "right_angle"
            angle = float(self.pins.get(key, -30.0 if pile is Pile.LEFT else 30.0))
            if self.router.angle is None or abs(self.router.angle - angle) > 1e-6:
                self.router.angle = angle
        else:
            self.router.value = pile is Pile.RIGHT

    def set_led(self, on: bool) -> None:
        if self.led is not None:
            self.led.value = on

    def tray_loaded(self) -> bool:
        return bool(self.tray.is_active)

    def blocked_since(self, pile: Pile) -> float | None:
        with self._lock:
            return self._blocked[pile]

    def take_arrivals(self) -> list[Pile]:
        with self._lock:
            out, self._arrivals = self._arrivals, []
        return out

    def take_block(self, pile: Pile) -> float | None:
        with self._lock:
            return self._blocks.pop(pile, None)


def _motor_off_hook(ref: weakref.ref[_GpioMechanism]) -> Callable[[], None]:
    def motor_off() -> None:
        mech = ref()
        if mech is not None and mech.motor is not None:
            try:
                mech.motor.off()
            except Exception:  # at exit, nothing may stop the other handlers
                pass

    return motor_off


class GpioShuffler(ShufflerController):
    """A Shuffler on GPIO pins. A touch on the shuffler's own touch pin (if wired here)
    starts, resumes or clears a fault, as `touch()` does.

    `sensor_filter_ms` is the pile sensors' glitch filter (default: a quarter of a card's
    transit at the feed speed, 12 ms); `touch_deck` / `touch_plan` what a touch starts.
    Raises ConfigurationError for missing, unknown or shared pins or a bad filter (at
    construction); a part that cannot be opened makes start() leave the state ABSENT.
    """

    def __init__(
        self,
        pins: Mapping[str, Any],
        clock: Clock,
        *,
        pin_factory: Any = None,
        rng: random.Random | None = None,
        timing: Timing | None = None,
        sensor_filter_ms: float | None = None,
        touch_deck: int = 52,
        touch_plan: str = "random",
    ) -> None:
        self._gpio = _GpioMechanism(pins, clock, pin_factory, sensor_filter_ms)
        self._gpio.on_touch = self._on_touch
        super().__init__(self._gpio, clock, rng=rng, timing=timing, touch_deck=touch_deck,
                         touch_plan=touch_plan)

    @property
    def mechanism(self) -> _GpioMechanism:
        return self._gpio

    def _on_touch(self) -> None:
        try:
            self.touch()
        except Exception as exc:  # from gpiozero's thread: report it, never raise there
            with self._lock:
                self._last_error = f"touch ignored: {exc}"
            self._flush()
