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
        self.clock.advance(0.1)  # a person's press lasts longer than any bounce
        pin.drive_high()
        self.clock.advance(0.1)

    def press_undo(self) -> None:
        self.hold_undo(0.2)

    def hold_undo(self, seconds: float = 3.0) -> None:
        pin = self.pin(PINS.undo)
        pin.drive_low()
        self.clock.advance(seconds)
        pin.drive_high()
        self.clock.advance(0.1)

    def touch(self) -> None:
        pin = self.pin(PINS.touch)
        pin.drive_high()
        self.clock.advance(0.1)
        pin.drive_low()
        self.clock.advance(0.1)


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
    undo = d.pin(PINS.undo)
    undo.drive_low()
    d.panel._undo_held_now()  # what gpiozero's hold thread calls at 3 s
    d.clock.advance(4)
    undo.drive_high()
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


# real switches: bounce, glitches, hold time, touch polarity --------------------------------


def _panel(pins: InputPins = PINS, **kw):
    factory, clock = MockFactory(), FakeClock()
    panel = GpioInputPanel(pins, clock, pin_factory=factory, **kw)
    got: list[DeviceEvent] = []
    panel.subscribe(got.append)
    panel.start()
    return panel, factory, clock, got


def _bounce(pin, clock, settle: bool, edges: int = 4, gap: float = 0.001) -> None:
    """A contact closing (settle False: active low) or opening, with `edges` bounces first."""
    for _ in range(edges):
        (pin.drive_low if settle is False else pin.drive_high)()
        clock.advance(gap)
        (pin.drive_high if settle is False else pin.drive_low)()
        clock.advance(gap)
    (pin.drive_low if settle is False else pin.drive_high)()


def test_one_bouncy_press_of_undo_is_one_undo():
    # The bug: without a debounce each of the five contacts of one press was an undo.
    panel, factory, clock, got = _panel()
    undo = factory.pin(PINS.undo)
    _bounce(undo, clock, settle=False)  # press: 5 falling edges within 8 ms
    clock.advance(0.3)
    _bounce(undo, clock, settle=True)  # release: 5 rising edges
    assert kinds(got) == []  # the release is taken once it has held the window
    clock.advance(0.02)
    assert kinds(got) == [("undo", {})]
    # the pin really saw the bounces: power-on low, pulled up, then 9 + 9 changes
    assert len(undo.states) == 2 + 9 + 9
    undo.assert_states([False, True] + [False, True] * 9)
    panel.stop()


def test_bouncy_track_buttons_commit_once_per_press():
    panel, factory, clock, got = _panel(bounce_ms=20)
    button = factory.pin(PINS.tracks[1].button)
    for _ in range(3):
        _bounce(button, clock, settle=False, edges=3, gap=0.002)
        clock.advance(0.15)
        _bounce(button, clock, settle=True, edges=2, gap=0.002)
        clock.advance(0.15)
    assert kinds(got) == [("button", {"track": 1})] * 3
    assert len(button.states) == 2 + 3 * (7 + 5)
    panel.stop()


def test_a_spike_shorter_than_the_window_is_no_press_and_the_next_press_counts():
    panel, factory, clock, got = _panel()
    button = factory.pin(PINS.tracks[0].button)
    button.drive_low()  # a 1 ms spike
    clock.advance(0.001)
    button.drive_high()
    clock.advance(5.0)
    assert kinds(got) == []
    button.drive_low()  # a real press, long after
    clock.advance(0.2)
    button.drive_high()
    clock.advance(0.1)
    assert kinds(got) == [("button", {"track": 0})]
    # an undo spike is neither an undo nor the start of a 5 s hold
    undo = factory.pin(PINS.undo)
    undo.drive_low()
    clock.advance(0.001)
    undo.drive_high()
    clock.advance(5.0)
    undo.drive_low()
    clock.advance(0.2)
    undo.drive_high()
    clock.advance(0.1)
    assert [k for k, _ in kinds(got)][1:] == ["undo"]
    panel.stop()


@pytest.mark.parametrize("glitch_at", [1.0, 0.5, 3.2])
def test_a_glitch_inside_a_hold_neither_ends_the_hold_nor_adds_a_press(glitch_at):
    # The bug: on the Pi a 2 ms break of the contact during a 3 s hold (pairing) gave two
    # undos and no hold; the Pico's buttons handled the same press.
    panel, factory, clock, got = _panel(hold_s=3.0)
    undo = factory.pin(PINS.undo)
    undo.drive_low()  # pressed
    clock.advance(glitch_at)
    undo.drive_high()  # the contact breaks for 2 ms
    clock.advance(0.002)
    undo.drive_low()
    clock.advance(3.5 - glitch_at - 0.002)
    undo.drive_high()  # let go at 3.5 s
    clock.advance(0.1)
    assert [k for k, _ in kinds(got)] == ["undo_held"]
    assert kinds(got)[0][1] == {"seconds": 3.0}  # reported while still held, at 3 s
    # the pin saw every edge: power-on low, pulled up, then press, break, make, release
    assert [s.state for s in undo.states] == [False, True, False, True, False, True]
    assert len(undo.states) == 6
    panel.stop()


def test_bounce_zero_counts_every_edge():
    panel, factory, clock, got = _panel(bounce_ms=0)
    undo = factory.pin(PINS.undo)
    _bounce(undo, clock, settle=False, edges=2)
    clock.advance(0.1)
    undo.drive_high()
    assert kinds(got) == [("undo", {})] * 3
    panel.stop()


@pytest.mark.parametrize(("hold_s", "held", "kind"), [
    (5.0, 5.5, "undo_held"), (5.0, 4.0, "undo"), (2.0, 2.5, "undo_held"), (2.0, 1.5, "undo"),
])
def test_undo_hold_uses_the_configured_hold_time(hold_s, held, kind):
    # The bug: the button used a 3 s constant, pairing `undo_hold_s`: with 5 a hold never
    # paired, with 2 a 2.5 s hold undid the last action.
    panel, factory, clock, got = _panel(hold_s=hold_s)
    undo = factory.pin(PINS.undo)
    undo.drive_low()
    clock.advance(held)
    undo.drive_high()
    clock.advance(0.1)
    assert [k for k, _ in kinds(got)] == [kind]
    if kind == "undo_held":
        assert kinds(got)[0][1]["seconds"] == hold_s <= held
    assert panel.describe()["hold_s"] == hold_s
    panel.stop()


def test_the_hold_is_reported_while_held_at_the_configured_hold_time():
    panel, factory, clock, got = _panel(hold_s=5.0)
    undo = factory.pin(PINS.undo)
    undo.drive_low()
    clock.advance(4.99)
    assert kinds(got) == []
    clock.advance(0.02)
    assert kinds(got) == [("undo_held", {"seconds": 5.0})]  # the button is still down
    clock.advance(3.0)
    undo.drive_high()
    clock.advance(0.1)
    assert kinds(got) == [("undo_held", {"seconds": 5.0})]  # once, not again at release
    panel.stop()


def test_simulated_panel_uses_the_same_hold_time():
    panel = SimulatedInputPanel(hold_s=2.0)
    got: list[DeviceEvent] = []
    panel.subscribe(got.append)
    panel.start()
    panel.hold_undo(2.5)
    panel.hold_undo(1.9)
    panel.hold_undo()
    assert [k for k, _ in kinds(got)] == ["undo_held", "undo", "undo_held"]


@pytest.mark.parametrize("active_high", [True, False])
def test_touch_polarity_is_a_setting(active_high):
    # The bug: the panel read the touch active high, the shuffler active low.
    pins = InputPins(tracks=PINS.tracks, undo=PINS.undo, touch=PINS.touch,
                     touch_active_high=active_high)
    panel, factory, clock, got = _panel(pins)
    touch = factory.pin(PINS.touch)
    assert touch.pull == ("down" if active_high else "up")
    on, off = (touch.drive_high, touch.drive_low) if active_high else (touch.drive_low,
                                                                       touch.drive_high)
    on()
    clock.advance(0.3)
    off()
    clock.advance(0.3)
    assert kinds(got) == [("touch", {})]
    # power-on low; an active-low module's input is pulled up first
    expected = [False, True, False] if active_high else [False, True, False, True]
    assert [s.state for s in touch.states] == expected
    assert len(touch.states) == len(expected)
    panel.stop()


def test_touch_polarity_from_a_mapping_and_bad_settings_refused():
    pins = InputPins.from_mapping({"tracks": [{"a": 5, "b": 6, "button": 13}], "undo": 20,
                                   "touch": 16, "touch_active_high": False})
    assert pins.touch_active_high is False
    with pytest.raises(InputError, match="bounce_ms"):
        GpioInputPanel(pins, FakeClock(), bounce_ms=-1)
    with pytest.raises(InputError, match="hold time"):
        GpioInputPanel(pins, FakeClock(), hold_s=0)
