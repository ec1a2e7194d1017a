"""The input panel: gpiozero MockFactory tests of the GPIO driver, and one conformance suite
run against `SimulatedInputPanel` and `GpioInputPanel`."""

from __future__ import annotations

import json

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.clock import FakeClock
from hardware.errors import InputError
from hardware.inputs import GpioInputPanel, InputPins, SimulatedInputPanel, TrackPins
from hardware.interfaces import DeviceEvent, DeviceState, InputPanel

PINS = InputPins(
    tracks=(TrackPins(a=5, b=6, button=13), TrackPins(a=19, b=26, button=21)),
    undo=20, touch=16,
)


class GpioDriver:
    """Presses the GPIO panel's mock pins as a person would."""

    def __init__(self) -> None:
        self.factory = MockFactory()
        self.clock = FakeClock()
        self.panel = GpioInputPanel(PINS, self.clock, pin_factory=self.factory)

    def pin(self, n: int):
        return self.factory.pin(n)

    def turn(self, track: int, steps: int) -> None:
        a, b = self.pin(PINS.tracks[track].a), self.pin(PINS.tracks[track].b)
        first, second = (a, b) if steps > 0 else (b, a)
        for _ in range(abs(steps)):  # one detent: a full quadrature cycle
            first.drive_low()
            second.drive_low()
            first.drive_high()
            second.drive_high()

    def press(self, track: int) -> None:
        pin = self.pin(PINS.tracks[track].button)
        pin.drive_low()
        pin.drive_high()

    def press_undo(self) -> None:
        self.hold_undo(0.2)

    def hold_undo(self, seconds: float = 3.0) -> None:
        pin = self.pin(PINS.undo)
        pin.drive_low()
        self.clock.advance(seconds)
        pin.drive_high()

    def touch(self) -> None:
        pin = self.pin(PINS.touch)
        pin.drive_high()
        pin.drive_low()


class SimDriver:
    def __init__(self) -> None:
        self.panel = SimulatedInputPanel(tracks=2)

    def __getattr__(self, name: str):
        return getattr(self.panel, name)


@pytest.fixture(params=["simulated", "gpio"])
def rig(request):
    driver = SimDriver() if request.param == "simulated" else GpioDriver()
    got: list[DeviceEvent] = []
    driver.panel.subscribe(got.append)
    driver.panel.start()
    yield driver, got
    driver.panel.stop()


def kinds(events):
    return [(e.kind, e.data) for e in events if e.kind != "state"]


# conformance -------------------------------------------------------------------------------


def test_is_an_input_panel_and_starts_idle(rig):
    driver, got = rig
    assert isinstance(driver.panel, InputPanel)
    assert driver.panel.state is DeviceState.IDLE
    json.dumps(driver.panel.describe())
    assert got[0].kind == "state" and got[0].data == {"state": "idle"}


def test_encoder_turns_give_one_event_per_detent_with_direction(rig):
    driver, got = rig
    driver.turn(1, 3)
    driver.turn(0, -2)
    assert kinds(got) == [("encoder", {"track": 1, "steps": 1})] * 3 + [
        ("encoder", {"track": 0, "steps": -1})] * 2


def test_button_commits_the_track(rig):
    driver, got = rig
    driver.press(0)
    driver.press(1)
    assert kinds(got) == [("button", {"track": 0}), ("button", {"track": 1})]


def test_undo_short_press_and_three_second_hold(rig):
    driver, got = rig
    driver.press_undo()
    driver.hold_undo(3.5)
    assert [k for k, _ in kinds(got)] == ["undo", "undo_held"]
    assert kinds(got)[1][1]["seconds"] >= 3.0


def test_touch_sensor(rig):
    driver, got = rig
    driver.touch()
    assert kinds(got) == [("touch", {})]


def test_unsubscribe_and_stop(rig):
    driver, got = rig
    second: list[DeviceEvent] = []
    off = driver.panel.subscribe(second.append)
    driver.touch()
    off()
    driver.touch()
    assert len(second) == 1 and len(kinds(got)) == 2
    driver.panel.stop()
    driver.panel.stop()
    assert driver.panel.state is DeviceState.STOPPED


# GPIO specifics ----------------------------------------------------------------------------


def test_gpio_panel_only_reads_pins_and_counts_each_edge():
    d = GpioDriver()
    got: list[DeviceEvent] = []
    d.panel.subscribe(got.append)
    d.panel.start()
    d.turn(0, 2)
    a, b = d.pin(5), d.pin(6)
    # MockPin.assert_states ignores length: check the count of recorded changes as well
    # power-on low, pulled up, then two detents of low/high each: nothing else touched them
    a.assert_states([False, True, False, True, False, True])
    assert len(a.states) == 6 and len(b.states) == 6
    assert [p.function for p in (a, b, d.pin(13), d.pin(20), d.pin(16))] == ["input"] * 5
    assert d.pin(13).pull == "up" and d.pin(16).pull == "down"  # touch module drives high
    assert len(kinds(got)) == 2
    assert d.panel.describe()["pin_factory"] == "MockFactory"
    d.panel.stop()
    from gpiozero import Button

    Button(5, pin_factory=d.factory).close()  # the pins were released: they can be claimed


def test_gpio_undo_held_fires_from_gpiozero_hold_timer_once():
    d = GpioDriver()
    got: list[DeviceEvent] = []
    d.panel.subscribe(got.append)
    d.panel.start()
    d.panel._undo_pressed()
    d.panel._undo_held_now()  # what gpiozero's hold thread calls at 3 s
    d.clock.advance(4)
    d.panel._undo_released()
    assert kinds(got) == [("undo_held", {"seconds": 3.0})]
    d.panel.stop()


def test_pins_from_configuration_are_checked():
    pins = InputPins.from_mapping({"tracks": [{"a": 5, "b": 6, "button": 13}], "undo": 20})
    assert pins.touch is None
    with pytest.raises(InputError, match="used twice: 5"):
        InputPins.from_mapping({"tracks": [{"a": 5, "b": 6, "button": 5}], "undo": 20})
    with pytest.raises(InputError, match="lack"):
        InputPins.from_mapping({"tracks": [{"a": 5}], "undo": 20})


def test_simulated_panel_refuses_presses_when_stopped_or_off_the_panel():
    panel = SimulatedInputPanel(tracks=2)
    with pytest.raises(InputError, match="start"):
        panel.touch()
    panel.start()
    with pytest.raises(InputError, match="track 2"):
        panel.press(2)
