"""The shuffler on a Raspberry Pi: gpiozero devices driven by the shared controller.

Parts and their pins come from configuration (BCM numbers or gpiozero pin names):

- `motor`: the feed motor driver's IN1 (DigitalOutputDevice; on = one feed cycle),
- `brake`: its IN2 (DigitalOutputDevice), optional: each stop drives it high with IN1, which
  shorts the motor (DRV8833/TB6612: both inputs high brake), for `design.BRAKE_HOLD_S`,
  then both go low (coast, no current). Without it (IN2 tied to ground) a stop can only
  coast, and the roller runs on for the motor's run-down time,
- `router`: the pile router, chosen by `router_kind`: a servo (the default build, the SG90
  the printed router mounts: AngularServo at `left_angle` / `right_angle`, by default half
  the flap's swing between its branches either side of centre, pulses `min_pulse_ms` to
  `max_pulse_ms` for -90 to +90 degrees, 0.5 to 2.5 ms for an SG90; the pulses stop once the
  flap has settled, so a servo never buzzes holding still), or a push-pull solenoid on a
  mount of its own (PWMOutputDevice, on = right pile: full power for
  `solenoid_pull_in_ms`, then `solenoid_hold` of it, so a solenoid held for half a pass
  stays within its duty cycle). GPIO 12, 13, 18 and 19 have the Pi's hardware PWM;
  gpiozero's lgpio factory times pulses in software, which jitters (a held servo buzzes):
  releasing it after the move keeps the jitter out of the rest,
- `left_sensor`, `right_sensor`: card sensors at each pile (DigitalInputDevice, active while
  a card blocks it; `sensor_pull_up`, True by default: break-beam receivers and TCRT5000
  modules pull their output low when blocked),
- `tray_sensor`: active while cards are in the feed tray,
- `touch`: the touch sensor (Button; `touch_active_high`, True by default for TTP223-class
  modules). The daemon reads the touch through the input panel and calls `touch()`; the pin
  here serves a shuffler used alone (the bring-up commands),
- `led`: the status LED (on while a shuffle is under way).

The pile sensors go through a `GlitchFilter` (`sensor_filter_ms`, default the timing's
filter, derived from the card speed): a card whose edge chatters is one card. The motor is off
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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hardware.errors import ConfigurationError
from hardware.inputs import BOUNCE_MS, Debouncer
from hardware.interfaces import Clock
from hardware.shuffler import design, handsfree, i2c, pace
from hardware.shuffler.controller import ShufflerController, Timing
from hardware.shuffler.handsfree import Bay
from hardware.shuffler.i2c import InputExpander, LoadCellAdc, ServoPwm
from hardware.shuffler.plan import Pile
from hardware.shuffler.restack import HandsFreeController

REQUIRED_PINS = ("motor", "router", "left_sensor", "right_sensor", "tray_sensor")
OPTIONAL_PINS = ("touch", "led", "brake")
ROUTER_KINDS = ("servo", "solenoid")
# Router and sensor settings the pins mapping may carry, with their defaults.
PIN_OPTIONS: dict[str, object] = {
    "router_kind": "servo",
    "left_angle": -design.SERVO_SWING_DEG / 2,
    "right_angle": design.SERVO_SWING_DEG / 2,
    "min_pulse_ms": 0.5,
    "max_pulse_ms": 2.5,
    "solenoid_hold": 0.3,
    "solenoid_pull_in_ms": 30.0,
    "sensor_pull_up": True,
    "touch_active_high": True,
}
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
    known = set(REQUIRED_PINS) | set(OPTIONAL_PINS) | set(PIN_OPTIONS)
    unknown = sorted(set(pins) - known)
    if unknown:
        raise ConfigurationError("unknown shuffler pin settings: " + ", ".join(unknown))
    kind = pins.get("router_kind", PIN_OPTIONS["router_kind"])
    if kind not in ROUTER_KINDS:
        raise ConfigurationError(f"router_kind must be servo or solenoid, got {kind!r}")
    lo, hi = float(_opt(pins, "min_pulse_ms")), float(_opt(pins, "max_pulse_ms"))
    if not 0.2 <= lo < hi <= 3.0:
        raise ConfigurationError(f"servo pulses min_pulse_ms={lo}, max_pulse_ms={hi}: give "
                                 "0.2 <= min < max <= 3.0 ms (an SG90: 0.5 and 2.5)")
    for side in ("left_angle", "right_angle"):
        if not -90 <= float(_opt(pins, side)) <= 90:
            raise ConfigurationError(f"{side} must be between -90 and 90 degrees")
    hold = float(_opt(pins, "solenoid_hold"))
    if not 0 < hold <= 1:
        raise ConfigurationError(f"solenoid_hold must be above 0 and at most 1, got {hold}")
    if not 0 <= float(_opt(pins, "solenoid_pull_in_ms")) <= 500:
        raise ConfigurationError("solenoid_pull_in_ms must be between 0 and 500")
    used = [pins[n] for n in REQUIRED_PINS + OPTIONAL_PINS if pins.get(n) is not None]
    if len(set(map(str, used))) != len(used):
        raise ConfigurationError(f"two shuffler parts share a pin: {used}")
    return dict(pins)


def _opt(pins: Mapping[str, Any], name: str) -> Any:
    return pins.get(name, PIN_OPTIONS[name])


def router_settle_s(pins: Mapping[str, Any], hands_free: bool = False) -> float:
    """The configured router's own settle time (command to a still flap): a servo's frame,
    its move through the swing between the two angles at an SG90's speed, and its ringing;
    a solenoid's pull-in (hardware.shuffler.design.RouterBuild; the hands-free build's
    solenoid turns the riser's flap through its lever, `HANDSFREE_SOLENOID_ROUTER`)."""
    if _opt(pins, "router_kind") == "servo":
        swing = abs(float(_opt(pins, "right_angle")) - float(_opt(pins, "left_angle")))
        return design.RouterBuild(kind="servo", swing_deg=swing,
                                  ring_s=design.SERVO_ROUTER.ring_s).settle_s
    router = design.HANDSFREE_SOLENOID_ROUTER if hands_free else design.SOLENOID_ROUTER
    return router.settle_s


class _GpioMechanism:
    """The controller's Mechanism over gpiozero devices."""

    kind = "gpio"

    def __init__(self, pins: Mapping[str, Any], clock: Clock, pin_factory: Any,
                 sensor_filter_ms: float | None = None,
                 router_settle: float | None = None) -> None:
        self.pins = check_pins(pins)
        self._clock = clock
        self._factory = pin_factory
        if sensor_filter_ms is None:
            sensor_filter_ms = Timing().sensor_filter * 1000.0
        self.servo = _opt(self.pins, "router_kind") == "servo"
        # the router's own settle (command to a still flap): then a servo's pulses stop
        self.router_settle_s = router_settle_s(self.pins) if router_settle is None else (
            router_settle)
        self.router_pile: Pile | None = None  # where the router was last sent
        self._router_due: float | None = None  # servo release / solenoid hold, due then
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
        self.brake: Any = None
        self._release_at: float | None = None  # the brake lets go then
        self.router: Any = None
        self.led: Any = None
        self._exit_hook: Callable[[], None] | None = None

    def open(self) -> None:
        from gpiozero import (
            LED,
            AngularServo,
            Button,
            DigitalInputDevice,
            DigitalOutputDevice,
            PWMOutputDevice,
        )

        pins, f = self.pins, self._factory
        pull_up = bool(_opt(pins, "sensor_pull_up"))
        try:
            self.motor = self._add(DigitalOutputDevice(pins["motor"], pin_factory=f))
            if pins.get("brake") is not None:
                self.brake = self._add(DigitalOutputDevice(pins["brake"], pin_factory=f))
            if self.servo:
                self.router = self._add(AngularServo(
                    pins["router"], initial_angle=None, min_angle=-90, max_angle=90,
                    min_pulse_width=float(_opt(pins, "min_pulse_ms")) / 1000.0,
                    max_pulse_width=float(_opt(pins, "max_pulse_ms")) / 1000.0, pin_factory=f,
                ))
            else:
                # 1 kHz: far above the solenoid's own response, within software PWM's reach
                self.router = self._add(PWMOutputDevice(pins["router"], frequency=1000,
                                                        pin_factory=f))
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
        for part in (self.motor, self.brake):
            if part is not None:
                try:
                    part.off()
                except Exception:  # closing must go on whatever a part does
                    pass
        self._release_at = None
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
        self.motor = self.router = self.led = self.brake = None
        if self._exit_hook is not None:
            atexit.unregister(self._exit_hook)
            self._exit_hook = None

    def update(self, now: float) -> float | None:
        """Take the sensor levels that have held long enough, release a settled servo or
        drop a pulled-in solenoid to its holding power; returns when the next is due."""
        reports: list[tuple[str, bool, float]] = []
        due: list[float] = []
        if self._release_at is not None:
            if now >= self._release_at:
                self._release_at = None
                if self.motor is not None and self.brake is not None:
                    self.motor.off()  # stopped: both inputs low, the driver idles
                    self.brake.off()
            else:
                due.append(self._release_at)
        if self._router_due is not None:
            if now >= self._router_due:
                self._router_due = None
                if self.router is not None:
                    if self.servo:
                        self.router.value = None  # no pulses: the flap holds by friction
                    elif self.router.value > 0:
                        self.router.value = float(_opt(self.pins, "solenoid_hold"))
            else:
                due.append(self._router_due)
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
        """On: IN1 high, IN2 low. Off: brake (both high) for design.BRAKE_HOLD_S, then
        both low; without a brake pin, IN1 low (coast)."""
        if self.motor is None:
            return
        if on:
            self._release_at = None
            if self.brake is not None:
                self.brake.off()
            self.motor.on()
        elif self.brake is not None and self.motor.value and not self.brake.value:
            self.brake.on()
            self._release_at = self._clock.monotonic() + design.BRAKE_HOLD_S
        elif self.brake is None or not self.brake.value:
            self.motor.off()

    @property
    def motor_driven(self) -> bool:
        """The motor is driven forward (IN1 high, IN2 low)."""
        return bool(self.motor is not None and self.motor.value
                    and not (self.brake is not None and self.brake.value))

    def set_router(self, pile: Pile) -> None:
        if self.router is None or pile is self.router_pile:
            return
        self.router_pile = pile
        now = self._clock.monotonic()
        if self.servo:
            self.router.angle = float(_opt(self.pins, "left_angle" if pile is Pile.LEFT
                                           else "right_angle"))
            self._router_due = now + self.router_settle_s
        elif pile is Pile.RIGHT:
            self.router.value = 1.0  # pull in at full power, then hold (update)
            self._router_due = now + float(_opt(self.pins, "solenoid_pull_in_ms")) / 1000.0
        else:
            self.router.value = 0.0  # the spring returns the flap
            self._router_due = None

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
        if mech is not None:
            for part in (mech.motor, mech.brake):
                if part is not None:
                    try:
                        part.off()
                    except Exception:  # at exit, nothing may stop the other handlers
                        pass

    return motor_off


class GpioShuffler(ShufflerController):
    """A Shuffler on GPIO pins. A touch on the shuffler's own touch pin (if wired here)
    starts, resumes or clears a fault, as `touch()` does.

    `timing` is the machine's (default: the default build's, hardware.shuffler.design);
    `sensor_filter_ms` the pile sensors' glitch filter (default: the timing's, a sixth of a
    card's transit at its speed); `router_settle` the router's own settle time, after which
    a servo is released (default: from the router's kind and swing); `touch_deck` /
    `touch_plan` what a touch starts.
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
        router_settle: float | None = None,
        touch_deck: int = 52,
        touch_plan: str = "random",
    ) -> None:
        if timing is None:  # the default build's card speed, this router's settle
            timing = Timing.for_speed(pace.default_card_speed_mm_s(),
                                      router_settle_s(check_pins(pins)))
        if sensor_filter_ms is None:
            sensor_filter_ms = timing.sensor_filter * 1000.0
        if router_settle is None:
            router_settle = timing.router_move
        self._gpio = _GpioMechanism(pins, clock, pin_factory, sensor_filter_ms, router_settle)
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


# ----- the hands-free build (docs/hands-free.md): riser, lid, doors, sensors, load cell -----

HANDSFREE_PINS = ("riser", "lid")
# The riser motor's PWM on DRV8874 #2 EN: within lgpio's software PWM (up to 10 kHz) and
# the driver's (up to 100 kHz), fast enough for the motor's winding to smooth it.
RISER_PWM_HZ = 2000
# The MCP23017's port A: the door sensors and the skew beam, each pulling low for a card.
EXPANDER_PINS: dict[str, int] = {"lower_door": 0, "upper_door": 1, "skew": 2}
# The door servos on the PCA9685's channels, and their pulses (ms): an SG90 turns 90 degrees
# for 1.0 ms of pulse (0.5-2.5 ms over 180 degrees), closed to open.
DOOR_CHANNEL: dict[Bay, int] = {Bay.LOWER: 0, Bay.UPPER: 1}
DOOR_PULSE_MS: dict[bool, float] = {False: 1.0, True: 2.0}  # opened -> pulse
# Each servo by its name at bring-up (`crib shuffler jog --servo`), and its channel.
SERVO_CHANNELS: dict[str, int] = {"lower_door": 0, "upper_door": 1, "press_lift": 2,
                                  "press_turn": 3}
# The press's two SG90s (docs/hands-free.md, "The press's link"), 1.0 ms of pulse for 90
# degrees, each at rest at 0.5 ms (the end of its range, where its horn is fitted): the
# lift's on channel 2, handsfree.PRESS_LIFT_DEG up; the turn's on channel 3, PRESS_TURN_DEG
# out.
PRESS_LIFT_CHANNEL = 2
PRESS_TURN_CHANNEL = 3
PRESS_LIFT_PULSE_MS: dict[bool, float] = {False: 0.5,
                                          True: 0.5 + handsfree.PRESS_LIFT_DEG / 90.0}  # up
PRESS_TURN_PULSE_MS: dict[bool, float] = {False: 0.5,
                                          True: 0.5 + handsfree.PRESS_TURN_DEG / 90.0}  # out
# The load cell: its reading is the mean of the conversions of the last WEIGH_S (the
# NAU7802 at 80 a second), at least WEIGH_SAMPLES of them since the doors last moved.
WEIGH_S = handsfree.DEFAULT_RESTACK.weigh_s
WEIGH_SAMPLES = 4
# Counts of the NAU7802 per card: a 1 kg, 1 mV/V bar at 3.3 V gives 3.3 mV at full load,
# times the gain of 128, over the ADC's +-1.65 V in +-2^23 counts: about 2150 counts a gram,
# 3870 for a card of 1.8 g. An estimate from the datasheets (bar cell, NAU7802): bring-up
# measures the tare and a card's counts.
COUNTS_PER_CARD = round(2**23 / 1.65 * (1e-3 * 3.3 * 128) / 1000 * 1.8)


def door_pulses(given: Mapping[str, Sequence[float]] | None = None
                ) -> dict[Bay, dict[bool, float]]:
    """Each bay's door pulses (ms) as (shut, open) by bay name ("lower", "upper"), the
    defaults (DOOR_PULSE_MS) for a bay not given. Raises ConfigurationError for an unknown
    bay, a pair that is not two pulses, a pulse outside 0.5-2.5 ms or shut equal to open."""
    out = {bay: dict(DOOR_PULSE_MS) for bay in Bay}
    for name, pair in (given or {}).items():
        if name not in ("lower", "upper"):
            raise ConfigurationError(f"door_pulse_ms: unknown bay {name!r}; lower or upper")
        if len(pair) != 2 or not all(0.5 <= float(v) <= 2.5 for v in pair) \
                or float(pair[0]) == float(pair[1]):
            raise ConfigurationError(
                f"door_pulse_ms {name} = {list(pair)}: give [shut, open], two different "
                "pulses of 0.5 to 2.5 ms")
        out[Bay(name)] = {False: float(pair[0]), True: float(pair[1])}
    return out


def check_handsfree_pins(pins: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hands-free build's pins: (the Lotus-style part, checked by `check_pins`; the
    riser and the lid). Raises ConfigurationError naming a missing or shared pin."""
    missing = [name for name in HANDSFREE_PINS if pins.get(name) is None]
    if missing:
        raise ConfigurationError("hands-free shuffler pins missing from the configuration: "
                                 + ", ".join(missing))
    base = check_pins({k: v for k, v in pins.items() if k not in HANDSFREE_PINS})
    extra = {k: pins[k] for k in HANDSFREE_PINS}
    used = [str(v) for k, v in base.items()
            if k in REQUIRED_PINS + OPTIONAL_PINS and v is not None]
    clash = [k for k, v in extra.items() if str(v) in used]
    if clash or str(extra["riser"]) == str(extra["lid"]):
        raise ConfigurationError(f"the hands-free pins share a pin with another part: {extra}")
    return base, extra


class _HandsFreeGpioMechanism(_GpioMechanism):
    """The Lotus-style GPIO mechanism plus the drop shaft: the riser motor (DRV8874 #2 EN, PWM),
    the lid sense (an input with an edge), the door servos on a ServoPwm, the door sensors
    and the skew beam on an InputExpander, the load cell on a LoadCellAdc."""

    def __init__(self, pins: Mapping[str, Any], clock: Clock, pin_factory: Any,
                 sensor_filter_ms: float | None, router_settle: float | None,
                 servos: ServoPwm | None, inputs: InputExpander | None,
                 adc: LoadCellAdc | None, tare_raw: float, counts_per_card: float,
                 riser_duty: float = design.RISER_DUTY_UNCALIBRATED,
                 door_pulse_ms: Mapping[str, Sequence[float]] | None = None) -> None:
        base, self.shaft_pins = check_handsfree_pins(pins)
        super().__init__(base, clock, pin_factory, sensor_filter_ms, router_settle)
        if not counts_per_card > 0:
            raise ConfigurationError(f"counts_per_card must be above 0, got {counts_per_card}")
        if not 0 < riser_duty <= 1:
            raise ConfigurationError(f"riser_duty must be above 0 and at most 1, got "
                                     f"{riser_duty}")
        # the riser motor's PWM duty while it runs (calibrate sets it: the cards' speed)
        self.riser_duty = float(riser_duty)
        self.servos, self.inputs, self.adc = servos, inputs, adc
        self.tare_raw, self.counts_per_card = float(tare_raw), float(counts_per_card)
        # each bay's doors' pulses, shut and open (bring-up sets them as the horns sit)
        self.door_pulses = door_pulses(door_pulse_ms)
        self.riser: Any = None
        self.lid: Any = None
        self.on_lid: Callable[[bool], None] | None = None
        self._bus: Any = None
        self._samples: list[tuple[float, int]] = []
        self._weigh_from = -math.inf
        self.doors: dict[Bay, bool] = {Bay.LOWER: False, Bay.UPPER: False}

    def open(self) -> None:
        from gpiozero import DigitalInputDevice, PWMOutputDevice

        super().open()
        try:
            f = self._factory
            self.riser = self._add(PWMOutputDevice(self.shaft_pins["riser"],
                                                   frequency=RISER_PWM_HZ, pin_factory=f))
            # the lid switch's rail through a divider: high (3.3 V) when the lid is shut
            self.lid = self._add(DigitalInputDevice(self.shaft_pins["lid"], pull_up=False,
                                                    pin_factory=f))
            self.lid.when_activated = lambda _dev=None: self._lid_edge(True)
            self.lid.when_deactivated = lambda _dev=None: self._lid_edge(False)
            if self.servos is None or self.inputs is None or self.adc is None:
                from smbus2 import SMBus  # the Pi's I2C bus 1, GPIO 2 and 3

                self._bus = SMBus(1)
                self.servos = self.servos or i2c.PCA9685(self._bus)
                self.inputs = self.inputs or i2c.MCP23017(self._bus)
                self.adc = self.adc or i2c.NAU7802(self._bus)
            self.servos.open()
            for bay in Bay:
                self.set_doors(bay, False)
            # off the deck, for it to go in: the lift alone (turned in at the top), a safe
            # step from whatever pose the press was left in
            self.set_press(handsfree.PressPose.LIFTED)
            self.inputs.open(pull_ups=sum(1 << p for p in EXPANDER_PINS.values()))
            self.adc.open()
        except Exception:
            self.close()
            raise

    def _lid_edge(self, closed: bool) -> None:
        if not closed:
            # the switch has cut the actuators' power: the commands follow it
            for part in (self.motor, self.riser):
                if part is not None:
                    part.off()
        hook = self.on_lid
        if hook is not None:
            hook(closed)

    def close(self) -> None:
        if self.riser is not None:
            try:
                self.riser.off()
            except Exception:  # closing must go on whatever a part does
                pass
        if self.servos is not None:
            for channel in (*DOOR_CHANNEL.values(), PRESS_LIFT_CHANNEL, PRESS_TURN_CHANNEL):
                try:
                    self.servos.release(channel)
                except Exception:  # an I2C error must not stop the close
                    pass
        super().close()
        self.riser = self.lid = None
        if self._bus is not None:
            self._bus.close()
            self._bus = None

    def update(self, now: float) -> float | None:
        due = super().update(now)
        adc = self.adc
        if adc is not None and adc.ready():
            self._samples.append((now, adc.read_raw()))
            self._samples = [(t, v) for t, v in self._samples if t > now - 4 * WEIGH_S]
        return due

    # Shaft
    def set_riser(self, on: bool) -> None:
        if self.riser is not None:
            self.riser.value = self.riser_duty if on else 0.0

    def set_doors(self, bay: Bay, opened: bool) -> None:
        if self.servos is None:
            return
        self.servos.set_pulse_ms(DOOR_CHANNEL[bay], self.door_pulses[bay][opened])
        self.doors[bay] = opened
        self._weigh_from = self._clock.monotonic()

    def set_press(self, pose: handsfree.PressPose) -> None:
        if self.servos is None:
            return
        self.servos.set_pulse_ms(PRESS_LIFT_CHANNEL,
                                 PRESS_LIFT_PULSE_MS[pose is not handsfree.PressPose.DOWN])
        self.servos.set_pulse_ms(PRESS_TURN_CHANNEL,
                                 PRESS_TURN_PULSE_MS[pose is handsfree.PressPose.OUT])
        # its weight leaves or reaches the tray: the load cell's readings start afresh
        self._weigh_from = self._clock.monotonic()

    def _expander(self, name: str) -> bool:
        assert self.inputs is not None
        return not self.inputs.read() >> EXPANDER_PINS[name] & 1  # low: a card

    def doors_hold(self, bay: Bay) -> bool:
        return self._expander("lower_door" if bay is Bay.LOWER else "upper_door")

    def skewed(self) -> bool:
        return self._expander("skew")

    def _mean_counts(self, since: float) -> float | None:
        """The load cell's mean counts since `since` (and over the last WEIGH_S), or None
        before WEIGH_SAMPLES of them."""
        since = max(since, self._clock.monotonic() - WEIGH_S)
        recent = [v for t, v in self._samples if t > since]
        return sum(recent) / len(recent) if len(recent) >= WEIGH_SAMPLES else None

    def tray_cards(self) -> float | None:
        raw = self._mean_counts(self._weigh_from)
        return None if raw is None else (raw - self.tare_raw) / self.counts_per_card

    def lid_closed(self) -> bool:
        return bool(self.lid is not None and self.lid.is_active)

    def load_cell_raw(self) -> float | None:
        """The load cell's mean counts over the last WEIGH_S (bring-up reads the tare and a
        card's counts from it), or None until WEIGH_SAMPLES have come."""
        return self._mean_counts(-math.inf)


class HandsFreeGpioShuffler(HandsFreeController):
    """The hands-free shuffler on GPIO pins and I2C: the HandsFreeController over the Lotus
    build's pins plus `riser` and `lid` (docs/hands-free.md), the door servos, the door
    sensors and skew beam and the load cell on I2C bus 1 (`servos`, `inputs`, `adc`: by
    default the PCA9685, MCP23017 and NAU7802 drivers over smbus2). `tare_raw` and
    `counts_per_card` turn the load cell's counts into cards (measured at bring-up);
    `riser_duty` is the riser motor's PWM duty (calibrate sets it); `door_pulse_ms` each
    bay's door pulses, shut and open, by bay name (set at bring-up as the horns sit).
    Raises ConfigurationError as GpioShuffler, for a missing riser or lid pin, for a
    duty out of (0, 1] and for door pulses as `door_pulses` refuses them.
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
        router_settle: float | None = None,
        touch_deck: int = 52,
        touch_plan: str = "exact",
        servos: ServoPwm | None = None,
        inputs: InputExpander | None = None,
        adc: LoadCellAdc | None = None,
        tare_raw: float = 0.0,
        counts_per_card: float = COUNTS_PER_CARD,
        riser_duty: float = design.RISER_DUTY_UNCALIBRATED,
        door_pulse_ms: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        base, _extra = check_handsfree_pins(pins)
        if timing is None:
            timing = Timing.for_speed(pace.default_card_speed_mm_s(),
                                      router_settle_s(base, hands_free=True))
        if sensor_filter_ms is None:
            sensor_filter_ms = timing.sensor_filter * 1000.0
        if router_settle is None:
            router_settle = timing.router_move
        self._gpio = _HandsFreeGpioMechanism(pins, clock, pin_factory, sensor_filter_ms,
                                             router_settle, servos, inputs, adc, tare_raw,
                                             counts_per_card, riser_duty, door_pulse_ms)
        self._gpio.on_touch = self._on_touch
        self._gpio.on_lid = self._on_lid
        super().__init__(self._gpio, clock, rng=rng, timing=timing, touch_deck=touch_deck,
                         touch_plan=touch_plan)

    @property
    def mechanism(self) -> _HandsFreeGpioMechanism:
        return self._gpio

    _on_touch = GpioShuffler._on_touch

    def _on_lid(self, closed: bool) -> None:
        with self._lock:
            self._emit("lid", {"closed": closed})
        self._kick()  # the runner pauses the plan at its next step
        self._flush()
