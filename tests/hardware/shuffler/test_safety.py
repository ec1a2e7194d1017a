"""Real sensors and real motors on gpiozero mock pins: chatter, the router's settle time, the
touch's polarity and the feed motor stopping in every case (pin histories with lengths)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import FakeClock
from hardware.errors import ConfigurationError, ShufflerError
from hardware.interfaces import DeviceState
from hardware.shuffler.controller import Timing
from hardware.shuffler.gpio import GlitchFilter, GpioShuffler
from hardware.shuffler.physics import card_transit_s, default_sensor_filter_ms
from hardware.shuffler.plan import Pile

from .conftest import PINS, GpioHarness, pin_history

ROOT = Path(__file__).resolve().parents[3]


def _motor(h: GpioHarness) -> list[bool]:
    """The driver's IN1 (the motor pin)."""
    return pin_history(h.factory, "motor")


def _brake(h: GpioHarness) -> list[bool]:
    """The driver's IN2 (the brake pin): high with IN1 brakes the motor."""
    return pin_history(h.factory, "brake")


def _bare(**kw) -> tuple[GpioShuffler, MockFactory, FakeClock]:
    """A GPIO shuffler on mock pins with no machine behind them: the test is the machine."""
    factory, clock = MockFactory(pin_class=MockPWMPin), FakeClock()
    sh = GpioShuffler({**PINS, "router_kind": "solenoid"}, clock, pin_factory=factory,
                      rng=random.Random(3), **kw)
    sh.open()
    return sh, factory, clock


# the sensor filter --------------------------------------------------------------------------


def test_the_filter_is_a_sixth_of_a_cards_transit_at_most_15_ms():
    assert card_transit_s(1800.0) == pytest.approx(88.9 / 1800)
    assert default_sensor_filter_ms(1800.0) == pytest.approx(88.9 / 1800 / 6 * 1000, abs=0.05)
    assert default_sensor_filter_ms(1200.0) == pytest.approx(12.3, abs=0.05)  # slower: longer
    assert default_sensor_filter_ms(300.0) == 15.0  # capped: chatter does not grow
    with pytest.raises(ShufflerError):
        default_sensor_filter_ms(0)


def test_one_card_with_a_chattering_edge_is_one_card_not_a_double_feed():
    # The bug: three raw rising edges counted as three cards and a false double-feed fault.
    sh, factory, clock = _bare()
    events = []
    sh.subscribe(events.append)
    factory.pin(PINS["tray_sensor"]).drive_high()
    sh.shuffle(52, "light")
    sh.step()  # feeds card 1: motor on
    left, right = factory.pin(PINS["left_sensor"]), factory.pin(PINS["right_sensor"])
    sensor = left if sh._commanded is Pile.LEFT else right
    clock.advance(0.04)
    for _ in range(2):  # the card's leading edge chatters: high, low, high, low, high
        sensor.drive_high()
        clock.advance(0.001)
        sensor.drive_low()
        clock.advance(0.001)
    sensor.drive_high()
    for _ in range(5):  # the card blocks the beam for its transit, about 45 ms
        clock.advance(0.009)
        sh.step()
    sensor.drive_low()
    clock.advance(0.02)
    sh.step()
    st = sh.status()
    assert st.fault is None and st.state is DeviceState.BUSY
    assert st.cards_this_pass == 1
    assert len(sensor.states) == 1 + 6
    assert sh.mechanism.glitches == 2
    assert not any(e.kind == "fault" for e in events)
    sh.stop()


def test_glitch_filter_takes_only_levels_that_hold():
    f = GlitchFilter(0.012)
    assert f.edge(True, 0.0) == []
    assert f.edge(False, 0.002) == []  # a 2 ms spike: never taken
    assert f.settle(1.0) == [] and f.glitches == 1
    assert f.edge(True, 1.0) == [] and f.due() == pytest.approx(1.012)
    assert f.settle(1.012) == [(True, 1.0)]
    with pytest.raises(ConfigurationError, match="sensor_filter_ms"):
        GpioShuffler(PINS, FakeClock(), pin_factory=MockFactory(), sensor_filter_ms=-1)


def test_a_whole_pass_with_chattering_sensors_counts_52():
    h = GpioHarness(router_kind="solenoid")
    h.load(52)
    # every rising edge of a pile sensor chatters twice, as a worn optical sensor does
    real = h.rig.sync

    def chattering_sync() -> None:
        before = {p: pin.state for p, pin in h.rig.sensor_pins.items()}
        real()
        for p, pin in h.rig.sensor_pins.items():
            if pin.state and not before[p]:
                for _ in range(2):
                    pin.drive_low()
                    pin.drive_high()

    h.rig.sync = chattering_sync  # type: ignore[method-assign]
    h.shuffler.shuffle(52, "light")
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.WAITING and st.passes_done == 1 and st.fault is None
    assert sum(st.pile_counts) == 52
    assert len(_motor(h)) == 1 + 2 * 52


# the router's settle time ------------------------------------------------------------------


def test_no_card_is_fed_before_the_router_has_settled():
    settle = 0.15
    h = GpioHarness(router_kind="solenoid", timing=Timing(router_settle=settle))
    times: list[tuple[str, float, object]] = []
    mech = h.shuffler.mechanism
    set_router, set_motor = mech.set_router, mech.set_motor
    mech.set_router = lambda p: (times.append(("router", h.clock.monotonic(), p)),  # type: ignore[method-assign]
                                 set_router(p))
    mech.set_motor = lambda on: (times.append(("motor", h.clock.monotonic(), on)),  # type: ignore[method-assign]
                                 set_motor(on))
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    assert h.shuffler.status().passes_done == 1
    moved_at, where = None, None
    waits = []
    for kind, at, value in times:
        if kind == "router" and value is not where:
            moved_at, where = at, value
        if kind == "motor" and value is True:
            assert moved_at is not None
            waits.append(at - moved_at)
    assert len(waits) == 52
    assert all(w >= settle - 1e-9 or w > 0.3 for w in waits)  # settled, or did not move
    assert sum(1 for w in waits if abs(w - settle) < 1e-6) >= 10  # it did move, and waited
    t = Timing(router_settle=settle)
    assert t.pass_budget(52) == pytest.approx(t.pass_base + 52 * (t.per_card + settle))


def test_timing_refuses_nonsense():
    with pytest.raises(ValueError, match="router settle"):
        Timing(router_settle=-0.1)
    with pytest.raises(ValueError, match="card_timeout"):
        Timing(card_timeout=0)


# touch polarity ----------------------------------------------------------------------------


@pytest.mark.parametrize("active_high", [True, False])
def test_the_shuffler_touch_follows_the_polarity_setting(active_high):
    # The bug: the shuffler read its touch active low, the panel active high.
    factory, clock = MockFactory(pin_class=MockPWMPin), FakeClock()
    sh = GpioShuffler({**PINS, "touch_active_high": active_high}, clock, pin_factory=factory)
    sh.open()
    pin = factory.pin(PINS["touch"])
    assert pin.pull == ("down" if active_high else "up")
    on, off = (pin.drive_high, pin.drive_low) if active_high else (pin.drive_low,
                                                                   pin.drive_high)
    factory.pin(PINS["tray_sensor"]).drive_high()
    on()
    clock.advance(0.2)
    off()
    assert sh.state is DeviceState.BUSY  # one touch started the shuffle
    sh.stop()


# the feed motor stops ----------------------------------------------------------------------


def test_motor_stops_when_the_shuffler_is_stopped_mid_feed():
    sh, factory, clock = _bare()
    factory.pin(PINS["tray_sensor"]).drive_high()
    sh.shuffle(52, "light")
    sh.step()
    motor = factory.pin(PINS["motor"])
    assert motor.state
    sh.stop()
    assert [bool(s.state) for s in motor.states] == [False, True, False]
    assert len(motor.states) == 3


def test_motor_stops_when_a_pass_runs_past_its_budget():
    # cards come slowly but each within its own timeout: only the pass budget catches it
    timing = Timing(card_timeout=5.0, pass_base=0.5, per_card=0.01, blocked_limit=5.0,
                    double_block=5.0)
    h = GpioHarness(speed=0.1, timing=timing)
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT and "time budget" in (st.fault or "")
    motor = _motor(h)
    fed = motor.count(True)
    # every feed ends in a brake (IN2 high with IN1), released once the roller has stopped;
    # the last one is held while the fault waits: the motor is never left driven
    assert motor == [False] + [True, False] * (fed - 1) + [True] and len(motor) == 2 * fed
    assert _brake(h) == motor
    assert 0 < fed < 52


def test_motor_stops_when_the_tray_runs_empty_under_it():
    # The last card in the tray jams in the feed: the tray sensor says empty while the motor
    # runs. The motor stops after the grace for a card in flight, not the full jam timeout.
    timing = Timing(card_timeout=3.0, empty_grace=0.3)
    h = GpioHarness(timing=timing, jam_at=40)
    h.load(40)
    off_at: list[float] = []
    mech = h.shuffler.mechanism
    set_motor = mech.set_motor
    mech.set_motor = lambda on: (off_at.append(h.clock.monotonic()) if not on else None,  # type: ignore[method-assign]
                                 set_motor(on))
    h.shuffler.shuffle(52, "light")
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT and st.fault is not None
    assert st.fault.startswith("Only 39 of 52 cards counted")
    motor = _motor(h)
    assert motor == [False] + [True, False] * 39 + [True] and len(motor) == 80
    assert _brake(h) == motor  # the last stop brakes and holds: not driven
    fed_at = h.shuffler._card_deadline - timing.card_timeout
    empty_at = h.shuffler._empty_since  # the card drawn past the tray sensor's sight
    assert empty_at is not None and fed_at < empty_at < fed_at + 0.1
    # within the polling step (4 polls) of the grace, long before the jam's timeout
    assert off_at[-1] - empty_at == pytest.approx(0.3, abs=4 * timing.poll + 1e-6)


def test_motor_never_starts_on_an_empty_tray():
    h = GpioHarness()
    h.shuffler.shuffle(52, "light")
    h.run()
    assert h.shuffler.fault is not None and h.shuffler.fault.kind == "empty"
    assert _motor(h) == [False] and len(_motor(h)) == 1


SCRIPT = textwrap.dedent("""
    import atexit, json, sys
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from hardware.clock import SystemClock
    from hardware.shuffler.gpio import GpioShuffler
    factory = MockFactory(pin_class=MockPWMPin)
    pins = {"motor": 17, "router": 18, "left_sensor": 22, "right_sensor": 23,
            "tray_sensor": 24, "router_kind": "solenoid"}
    # registered first, so it runs last: after the shuffler's own exit handler
    atexit.register(lambda: print(json.dumps([s.state for s in factory.pin(17).states])))
    sh = GpioShuffler(pins, SystemClock(), pin_factory=factory)
    sh.open()
    sh.mechanism.set_motor(True)
    if sys.argv[1] == "raise":
        raise RuntimeError("the command died")
    sys.exit(0)
""")


@pytest.mark.parametrize("how", ["exit", "raise"])
def test_motor_is_off_when_the_process_exits_or_dies_of_an_exception(how):
    out = subprocess.run([sys.executable, "-c", SCRIPT, how], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == (0 if how == "exit" else 1), out.stderr
    history = json.loads(out.stdout.strip().splitlines()[-1])
    assert history == [False, True, False] and len(history) == 3
