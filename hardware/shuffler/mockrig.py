"""A simulated machine behind gpiozero mock pins, so the GPIO driver runs end to end.

The rig reads the driver's output pins (motor, router) into a ShufflerTable and drives the
input pins (pile sensors, tray sensor, touch) from it. Used by the tests and by demos of
the GPIO driver without a Pi.
"""

from __future__ import annotations

from typing import Any

from hardware.inputs import BOUNCE_MS
from hardware.interfaces import Clock
from hardware.shuffler.gpio import PIN_OPTIONS, GpioShuffler
from hardware.shuffler.plan import Pile
from hardware.shuffler.simulator import SensorEdge, ShufflerTable


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
        self.motor_pin = factory.pin(pins["motor"])
        self.brake_pin = factory.pin(pins["brake"]) if pins.get("brake") is not None else None
        self.sensor_pins = {Pile.LEFT: factory.pin(pins["left_sensor"]),
                            Pile.RIGHT: factory.pin(pins["right_sensor"])}
        self.tray_pin = factory.pin(pins["tray_sensor"])
        self.touch_pin = factory.pin(pins["touch"]) if pins.get("touch") is not None else None
        self.touch_active_high = bool(pins.get("touch_active_high", True))
        # a sensor that pulls low when blocked (the default) reads low for a card
        self.blocked_level = not bool(pins.get("sensor_pull_up", PIN_OPTIONS["sensor_pull_up"]))
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
