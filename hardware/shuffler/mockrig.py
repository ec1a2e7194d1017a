"""A simulated machine behind gpiozero mock pins, so the GPIO driver runs end to end.

The rig reads the driver's output pins (motor, router) into a ShufflerTable and drives the
input pins (pile sensors, tray sensor, touch) from it. Used by the tests and by demos of
the GPIO driver without a Pi.
"""

from __future__ import annotations

from typing import Any

from hardware.inputs import BOUNCE_MS
from hardware.interfaces import Clock
from hardware.shuffler.gpio import COUNTS_PER_CARD, PIN_OPTIONS, GpioShuffler
from hardware.shuffler.plan import Pile
from hardware.shuffler.simulator import SensorEdge, ShufflerTable


def _feed_pins(rig: Any, pins: Any, factory: Any) -> None:
    """Give `rig` the mock pins of the Lotus build's parts, which both builds have: the feed
    motor and its brake, the pile (bay) beams, the tray sensor, the touch pad."""
    rig.motor_pin = factory.pin(pins["motor"])
    rig.brake_pin = factory.pin(pins["brake"]) if pins.get("brake") is not None else None
    rig.sensor_pins = {Pile.LEFT: factory.pin(pins["left_sensor"]),
                       Pile.RIGHT: factory.pin(pins["right_sensor"])}
    rig.tray_pin = factory.pin(pins["tray_sensor"])
    rig.touch_pin = factory.pin(pins["touch"]) if pins.get("touch") is not None else None
    rig.touch_active_high = bool(pins.get("touch_active_high", True))
    # a sensor that pulls low when blocked (the default) reads low for a card
    rig.blocked_level = not bool(pins.get("sensor_pull_up", PIN_OPTIONS["sensor_pull_up"]))


class MockRig:
    """Wires a ShufflerTable to a GpioShuffler's mock pins; call `sync()` after each step."""

    def __init__(self, shuffler: GpioShuffler, table: ShufflerTable, factory: Any,
                 clock: Clock) -> None:
        self.shuffler = shuffler
        self.table = table
        self.factory = factory
        self.clock = clock
        pins = shuffler.mechanism.pins
        self.pins = pins
        _feed_pins(self, pins, factory)
        for pin in (*self.sensor_pins.values(), self.tray_pin):
            self._drive(pin, False)
        self._edges: list[SensorEdge] = []  # sensor edges due later (a double feed's second)

    def _drive(self, pin: Any, blocked: bool) -> None:
        """Drive a sensor pin to blocked (a card) or clear, at the sensors' polarity."""
        high = blocked == self.blocked_level
        if bool(pin.state) != high:
            (pin.drive_high if high else pin.drive_low)()

    def _active(self, pin: Any) -> bool:
        return bool(pin.state) == self.blocked_level

    def _router(self) -> Pile:
        mech = self.shuffler.mechanism
        if mech.servo:
            # a released servo sends no pulses and stays where it was last sent
            return mech.router_pile or Pile.LEFT
        return Pile.RIGHT if self.factory.pin(self.pins["router"]).state > 0 else Pile.LEFT

    def sync(self) -> None:
        """Outputs to the table, the table to the inputs, at the clock's time: each sensor
        edge is driven once the clock reaches it, as a real sensor would change."""
        now = self.clock.monotonic()
        self.table.set_router(self._router(), now)
        in1 = bool(self.motor_pin.state)
        in2 = bool(self.brake_pin.state) if self.brake_pin is not None else False
        if in1 and in2:
            self.table.set_brake(now)  # both driver inputs high: the motor is shorted
        else:
            self.table.set_motor(in1 and not in2, now)
        self._edges.extend(self.table.update(now))
        self._edges.sort(key=lambda e: e.at)
        while self._edges and self._edges[0].at <= now:
            edge = self._edges.pop(0)
            self._drive(self.sensor_pins[edge.pile], edge.blocked)
        for pile, pin in self.sensor_pins.items():
            if any(e.pile is pile for e in self._edges):
                continue
            if not self.table.sensor_blocked(pile) and self._active(pin):
                self._drive(pin, False)  # the player pushed a stuck card down
        loaded = self.table.cards_in_tray()
        if loaded != self._active(self.tray_pin):
            self._drive(self.tray_pin, loaded)

    def next_event(self) -> float | None:
        times = [t for t in (self.table.next_event(),) if t is not None]
        times += [self._edges[0].at] if self._edges else []
        return min(times) if times else None

    def touch(self) -> None:
        """The player touches the sensor (press and release, at the module's polarity)."""
        assert self.touch_pin is not None
        self.sync()
        on, off = self.touch_pin.drive_high, self.touch_pin.drive_low
        if not self.touch_active_high:
            on, off = off, on
        # a touch lasts past the debounce window (the touch is debounced by its steady level)
        hold = BOUNCE_MS / 1000.0 + 0.001
        on()
        self.clock.sleep(hold)
        off()
        self.clock.sleep(hold)


class HandsFreeMockRig:
    """Wires a simulated hands-free machine (any Mechanism + Shaft: the simulated table's
    adapter) to a HandsFreeGpioShuffler's mock pins and emulated I2C chips: the driver's
    outputs (feed motor, router, riser pins; the door servos' pulses) are read into the
    machine, and its sensors (bay beams, tray, lid pins; door sensors and skew beam on the
    expander; the load cell's conversions) are driven from it. Call `sync()` after each step.
    """

    def __init__(self, shuffler: Any, machine: Any, factory: Any, clock: Clock,
                 bus: Any, tare_raw: float = 0.0,
                 counts_per_card: float = COUNTS_PER_CARD) -> None:
        from hardware.shuffler.gpio import (
            DOOR_CHANNEL,
            DOOR_PULSE_MS,
            EXPANDER_PINS,
            PRESS_LIFT_CHANNEL,
            PRESS_LIFT_PULSE_MS,
            PRESS_TURN_CHANNEL,
            PRESS_TURN_PULSE_MS,
        )

        self.shuffler, self.machine, self.factory, self.clock, self.bus = (
            shuffler, machine, factory, clock, bus)
        self.tare_raw, self.counts_per_card = tare_raw, counts_per_card
        mech = shuffler.mechanism
        pins = {**mech.pins, **mech.shaft_pins}
        self.pins = pins
        _feed_pins(self, pins, factory)
        self.riser_pin = factory.pin(pins["riser"])
        self.lid_pin = factory.pin(pins["lid"])
        self._door_channel, self._door_pulse, self._expander = (
            DOOR_CHANNEL, DOOR_PULSE_MS, EXPANDER_PINS)
        self._press_servos = ((PRESS_LIFT_CHANNEL, PRESS_LIFT_PULSE_MS),
                              (PRESS_TURN_CHANNEL, PRESS_TURN_PULSE_MS))
        self._sent: dict[str, Any] = {}
        self.lid_history: list[tuple[float, bool]] = []
        # every output level seen while the lid was open: (time, part, level)
        self.driven_while_open: list[tuple[float, str, object]] = []
        for pin in (*self.sensor_pins.values(), self.tray_pin):
            self._drive(pin, False)
        self.set_lid(bool(machine.lid_closed()))

    def _drive(self, pin: Any, blocked: bool) -> None:
        high = blocked == self.blocked_level
        if bool(pin.state) != high:
            (pin.drive_high if high else pin.drive_low)()

    def set_lid(self, closed: bool) -> None:
        """The lid's switch rail as GPIO 4 reads it (high: shut)."""
        if bool(self.lid_pin.state) != closed:
            (self.lid_pin.drive_high if closed else self.lid_pin.drive_low)()
        self.lid_history.append((self.clock.monotonic(), closed))

    def _router(self) -> Pile:
        mech = self.shuffler.mechanism
        if mech.servo:
            return mech.router_pile or Pile.LEFT
        return Pile.RIGHT if self.factory.pin(self.pins["router"]).state > 0 else Pile.LEFT

    def _send(self, name: str, value: object, command: Any) -> None:
        if self._sent.get(name, object()) != value:
            self._sent[name] = value
            command()

    def sync(self) -> None:
        """Outputs to the machine, the machine to the inputs, at the clock's time."""
        from hardware.shuffler.handsfree import Bay, PressPose

        now = self.clock.monotonic()
        m = self.machine
        lid = bool(m.lid_closed())
        if lid != bool(self.lid_pin.state):
            self.set_lid(lid)
        in1 = bool(self.motor_pin.state)
        in2 = bool(self.brake_pin.state) if self.brake_pin is not None else False
        motor = in1 and not in2
        duty = float(self.riser_pin.state)  # the riser's PWM
        riser = duty > 0
        router = self._router()
        doors = {}
        for bay in Bay:
            pulse = self.shuffler.mechanism.servos.pulse_ms(self._door_channel[bay])
            doors[bay] = pulse is not None and abs(pulse - self._door_pulse[True]) < 0.1
        # the press's pose from its two servos' pulses; no pulses (released): the servos
        # hold nothing new, the press stays as it was
        ups = [self.shuffler.mechanism.servos.pulse_ms(channel)
               for channel, _ in self._press_servos]
        press = self._sent.get("press")
        if None not in ups:
            lifted, out = (abs(p - table[True]) < 0.1
                           for p, (_, table) in zip(ups, self._press_servos, strict=True))
            press = (PressPose.OUT if out else PressPose.LIFTED if lifted
                     else PressPose.DOWN)
        if not lid:
            for name, level in (("motor", motor), ("riser", riser)):
                if level:
                    self.driven_while_open.append((now, name, level))
            for bay, opened in doors.items():
                if opened != self._sent.get(f"doors.{bay}", False):
                    self.driven_while_open.append((now, f"doors.{bay}", opened))
            if press is not None and press != self._sent.get("press", press):
                self.driven_while_open.append((now, "press", press))
            # no power: the machine's parts do not move whatever the outputs say
            motor = riser = False
        else:
            self._send("router", router, lambda: m.set_router(router))
            for bay, opened in doors.items():
                self._send(f"doors.{bay}", opened,
                           lambda b=bay, o=opened: m.set_doors(b, o))
            if press is not None:
                self._send("press", press, lambda: m.set_press(press))
        self._send("motor", motor, lambda: m.set_motor(motor))
        if riser and hasattr(m, "set_riser_duty"):
            self._send("riser_duty", duty, lambda: m.set_riser_duty(duty))
        self._send("riser", riser, lambda: m.set_riser(riser))
        m.update(now)
        for pile, pin in self.sensor_pins.items():
            self._drive(pin, m.blocked_since(pile) is not None)
        loaded = bool(m.tray_loaded())
        if loaded != (bool(self.tray_pin.state) == self.blocked_level):
            self._drive(self.tray_pin, loaded)
        levels = {"lower_door": m.doors_hold(Bay.LOWER), "upper_door": m.doors_hold(Bay.UPPER),
                  "skew": m.skewed()}
        for name, seen in levels.items():
            self.bus.pins[self._expander[name]] = not seen  # low: a card
        cards = m.tray_cards()
        if cards is not None:
            self.bus.set_adc(round(self.tare_raw + cards * self.counts_per_card))

    def next_event(self) -> float | None:
        return self.machine.update(self.clock.monotonic())

    touch = MockRig.touch  # the player touches the sensor, as on the Lotus build's rig

    def run(self, max_seconds: float = 3000.0, max_steps: int = 2_000_000) -> None:
        """Step the shuffler and the machine until it is not busy (the FakeClock's time)."""
        from hardware.interfaces import DeviceState

        end = self.clock.monotonic() + max_seconds
        for _ in range(max_steps):
            self.sync()
            wait = self.shuffler.step()
            self.sync()
            if self.shuffler.state is not DeviceState.BUSY or self.clock.monotonic() >= end:
                return
            nxt = self.next_event()
            now = self.clock.monotonic()
            if nxt is not None and nxt > now:
                wait = min(wait, nxt - now)
            if self.shuffler.status().phase == "restack":
                wait = min(wait, 1 / 80)  # the load cell's 80 conversions a second
            self.clock.sleep(max(wait, 1e-6))
