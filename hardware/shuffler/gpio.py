"""The shuffler on a Raspberry Pi: gpiozero devices driven by the shared controller.

Parts and their pins come from configuration (BCM numbers or gpiozero pin names):

- `motor`: the feed motor's driver enable (DigitalOutputDevice; on = one feed cycle),
- `router`: the pile router, a servo (AngularServo at `left_angle` / `right_angle`) or a
  solenoid (DigitalOutputDevice, on = right pile), chosen by `router_kind`,
- `left_sensor`, `right_sensor`: card sensors at each pile (DigitalInputDevice, active while
  a card blocks it),
- `tray_sensor`: active while cards are in the feed tray,
- `touch`: the touch sensor the player touches to go on (Button),
- `led`: the status LED (on while a shuffle is under way).

Tests use gpiozero's MockFactory (MockPWMPin for the servo) as `pin_factory`.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from typing import Any

from hardware.errors import ConfigurationError
from hardware.interfaces import Clock, DeviceState
from hardware.shuffler.controller import ShufflerController, Timing
from hardware.shuffler.plan import Pile

REQUIRED_PINS = ("motor", "router", "left_sensor", "right_sensor", "tray_sensor")
OPTIONAL_PINS = ("touch", "led")
ROUTER_KINDS = ("servo", "solenoid")


def check_pins(pins: Mapping[str, Any]) -> dict[str, Any]:
    """The pin configuration, checked. Raises ConfigurationError naming the bad entry."""
    missing = [name for name in REQUIRED_PINS if pins.get(name) is None]
    if missing:
        raise ConfigurationError(
            "shuffler pins missing from the configuration: " + ", ".join(missing)
        )
    known = set(REQUIRED_PINS) | set(OPTIONAL_PINS) | {
        "router_kind", "left_angle", "right_angle", "sensor_pull_up"
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

    def __init__(self, pins: Mapping[str, Any], clock: Clock, pin_factory: Any) -> None:
        self.pins = check_pins(pins)
        self._clock = clock
        self._factory = pin_factory
        self._lock = threading.Lock()
        self._arrivals: list[Pile] = []
        self._blocked: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self._devices: list[Any] = []
        self.on_touch: Any = None  # set by the shuffler: the player touched the sensor
        self.motor: Any = None
        self.router: Any = None
        self.led: Any = None

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
                touch = self._add(Button(pins["touch"], pin_factory=f))
                touch.when_pressed = self._touched
            if pins.get("led") is not None:
                self.led = self._add(LED(pins["led"], pin_factory=f))
        except Exception:
            self.close()
            raise
        for pile, sensor in self.sensors.items():
            sensor.when_activated = lambda _dev=None, p=pile: self._card(p)
            sensor.when_deactivated = lambda _dev=None, p=pile: self._clear(p)
            if sensor.is_active:
                self._blocked[pile] = self._clock.monotonic()

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _card(self, pile: Pile) -> None:
        # called from gpiozero's callback thread
        with self._lock:
            self._arrivals.append(pile)
            self._blocked[pile] = self._clock.monotonic()

    def _clear(self, pile: Pile) -> None:
        with self._lock:
            self._blocked[pile] = None

    def _touched(self) -> None:
        if self.on_touch is not None:
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

    def update(self, now: float) -> float | None:
        return None  # the sensors report by callback

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


class GpioShuffler(ShufflerController):
    """A Shuffler on GPIO pins. The touch sensor resumes a pass or clears a fault.

    Raises ConfigurationError for missing, unknown or shared pins (at construction);
    a part that cannot be opened makes start() leave the state ABSENT.
    """

    def __init__(
        self,
        pins: Mapping[str, Any],
        clock: Clock,
        *,
        pin_factory: Any = None,
        rng: random.Random | None = None,
        timing: Timing | None = None,
    ) -> None:
        self._gpio = _GpioMechanism(pins, clock, pin_factory)
        self._gpio.on_touch = self._on_touch
        super().__init__(self._gpio, clock, rng=rng, timing=timing)

    @property
    def mechanism(self) -> _GpioMechanism:
        return self._gpio

    def _on_touch(self) -> None:
        with self._lock:
            self._emit("touch", {})
        if self.state in (DeviceState.WAITING, DeviceState.FAULT):
            self.resume()
        else:
            self._flush()
