"""The GPIO driver on gpiozero mock pins: pin sequences (and their lengths), config, touch."""

from __future__ import annotations

import pytest

from hardware.clock import FakeClock
from hardware.errors import ConfigurationError
from hardware.interfaces import DeviceState
from hardware.shuffler.gpio import GpioShuffler

from .conftest import PINS, GpioHarness


def _piles_from_progress(h: GpioHarness) -> list[str]:
    piles, last = [], (0, 0)
    for e in h.events:
        if e.kind == "progress" and e.data["cards"] > 0:
            now = (e.data["left"], e.data["right"])
            piles.append("left" if now[0] > last[0] else "right")
            last = now
    return piles


def test_one_pass_drives_the_pins_in_order() -> None:
    h = GpioHarness(router_kind="solenoid")
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    assert h.shuffler.state is DeviceState.WAITING
    pin = h.factory.pin
    motor = pin(PINS["motor"])
    # one feed cycle per card: on, then off once the card is sensed
    assert [s.state for s in motor.states] == [False] + [True, False] * 52
    assert len(motor.states) == 1 + 2 * 52
    piles = _piles_from_progress(h)
    assert len(piles) == 52
    left, right = pin(PINS["left_sensor"]), pin(PINS["right_sensor"])
    assert len(left.states) == 1 + 2 * piles.count("left")
    assert len(right.states) == 1 + 2 * piles.count("right")
    left.assert_states([False] + [True, False] * piles.count("left"))
    # the solenoid moves only when the pile changes (on = right pile): full power to pull
    # in, then the holding power; off for the left pile
    expected_router: list[float] = [0.0]
    side = "left"
    for p in piles:
        if p != side:
            expected_router += [1.0, 0.3] if p == "right" else [0.0]
            side = p
    router = pin(PINS["router"])
    assert [float(s.state) for s in router.states] == expected_router
    assert len(router.states) == len(expected_router)
    led = pin(PINS["led"])
    assert [s.state for s in led.states] == [False, True]
    tray = pin(PINS["tray_sensor"])
    assert [s.state for s in tray.states] == [False, True, False]


def test_led_goes_off_when_done_and_touch_resumes() -> None:
    h = GpioHarness()
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    assert h.shuffler.state is DeviceState.WAITING
    h.table.stack(h.shuffler.plan.top_pile)  # type: ignore[union-attr]
    h.rig.touch()
    assert h.shuffler.state is DeviceState.BUSY
    assert any(e.kind == "touch" for e in h.events)
    h.finish()
    led = h.factory.pin(PINS["led"])
    assert [s.state for s in led.states] == [False, True, False]
    assert len(led.states) == 3
    assert h.shuffler.state is DeviceState.IDLE


def test_servo_router_reaches_each_pile_angle() -> None:
    h = GpioHarness(router_kind="servo")
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    piles = _piles_from_progress(h)
    switches = sum(a != b for a, b in zip(["left"] + piles, piles, strict=False))
    servo = h.factory.pin(PINS["router"])
    # no pulse until the first move; each move is a pulse width held while the flap settles,
    # then released (no pulses: a held SG90 buzzes)
    # the default angles: half the printed flap's 17.4-degree swing either side of centre
    angle = {"left": -8.7, "right": 8.7}
    expected = [0.0]
    for p in piles[:1] + [q for q, prev in zip(piles[1:], piles, strict=False) if q != prev]:
        # SG90 pulses: 0.5 ms at -90 degrees to 2.5 ms at +90, in 20 ms frames
        expected += [(1.5 + angle[p] / 90) / 20, 0.0]
    assert len(expected) == 1 + 2 * (switches + (piles[0] == "left"))
    assert [round(float(s.state), 6) for s in servo.states] == [round(x, 6) for x in expected]
    assert servo.state == 0.0  # released once settled


def test_touch_while_idle_starts_the_configured_shuffle_as_on_a_lotus() -> None:
    h = GpioHarness()
    h.load(52)
    h.rig.touch()
    assert h.shuffler.state is DeviceState.BUSY
    assert h.shuffler.plan is not None and h.shuffler.plan.name == "random"
    assert [e.kind for e in h.events].count("touch") == 1
    h.rig.touch()  # busy: a touch changes nothing
    assert h.shuffler.state is DeviceState.BUSY
    assert [e.kind for e in h.events].count("plan") == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [({"left_sensor": None}, "missing from the configuration: left_sensor"),
     ({"tray_sensor": 17}, "share a pin"),
     ({"router_kind": "magnet"}, "servo or solenoid"),
     ({"fan": 3}, "unknown shuffler pin settings: fan")],
)
def test_bad_pin_configuration_is_named(change: dict, message: str) -> None:
    pins = {**PINS, **change}
    with pytest.raises(ConfigurationError, match=message) as info:
        GpioShuffler(pins, FakeClock())
    assert isinstance(info.value, ValueError)


def test_missing_hardware_leaves_the_device_absent() -> None:
    sh = GpioShuffler(PINS, FakeClock(), pin_factory=object())
    sh.start()
    assert sh.state is DeviceState.ABSENT
    assert sh.describe()["error"].startswith("shuffler not found")
    sh.stop()
    assert sh.state is DeviceState.STOPPED


def test_stop_turns_the_motor_off_and_releases_pins() -> None:
    h = GpioHarness()
    h.load(52)
    h.shuffler.shuffle(52)
    h.start_feed()
    assert h.motor_on()
    h.shuffler.stop()
    assert h.shuffler.state is DeviceState.STOPPED
    states = [bool(s.state) for s in h.factory.pin(PINS["motor"]).states]
    assert states == [False, True, False]  # switched off before the pins were released
    h.shuffler.stop()  # idempotent


@pytest.mark.hardware
def test_real_pi_opens_the_shuffler() -> None:  # pragma: no cover - needs a Pi
    from hardware.clock import SystemClock

    sh = GpioShuffler(PINS, SystemClock())
    sh.start()
    try:
        assert sh.state is DeviceState.IDLE
    finally:
        sh.stop()


def test_default_sensors_pull_up_and_read_low_for_a_card() -> None:
    # The BOM's break-beam receivers are open collector: they can only pull the pin low. The
    # default polarity suits them: a pull-up, and low is a card.
    h = GpioHarness(router_kind="solenoid",
                    pins={k: v for k, v in PINS.items() if k != "sensor_pull_up"})
    left = h.factory.pin(PINS["left_sensor"])
    assert left.pull == "up" and left.state is True  # clear beam: pulled high
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    assert h.shuffler.state is DeviceState.WAITING and h.shuffler.fault is None
    n = _piles_from_progress(h).count("left")
    # power-on low, pulled up, then low (blocked) and high (clear) for each card
    assert [bool(s.state) for s in left.states] == [False, True] + [False, True] * n
    assert len(left.states) == 2 + 2 * n
    tray = h.factory.pin(PINS["tray_sensor"])
    assert [bool(s.state) for s in tray.states] == [False, True, False, True]  # loaded, empty
    h.shuffler.stop()
