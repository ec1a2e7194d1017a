"""The hands-free GPIO driver end to end: gpiozero MockFactory pins and the emulated I2C chips
(the register drivers of hardware.shuffler.i2c) wired to a simulated drop shaft, from one
touch (hardware.shuffler.gpio.HandsFreeGpioShuffler, hardware.shuffler.mockrig)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import FakeClock
from hardware.errors import ConfigurationError
from hardware.interfaces import DeviceEvent, DeviceState
from hardware.shuffler import design, i2c
from hardware.shuffler.controller import Timing
from hardware.shuffler.gpio import HandsFreeGpioShuffler
from hardware.shuffler.handsfree import Bay
from hardware.shuffler.mockrig import HandsFreeMockRig
from tests.hardware.shuffler.test_restack import TIMING, FakeShaft

PINS = {"motor": 17, "brake": 27, "router": 18, "router_kind": "solenoid", "left_sensor": 23,
        "right_sensor": 24, "tray_sensor": 25, "led": 26, "touch": 6, "riser": 22, "lid": 4}
TARE, PER_CARD = 81_234.0, 3_900.0


def _fake(cards: int, clock: FakeClock) -> Any:
    return FakeShaft(cards)


class _Table:
    """The drop shaft's simulator (hardware.shuffler.handsfree_sim) through its Mechanism
    and Shaft adapter, with the fake's names for what the tests look at."""

    def __init__(self, cards: int, clock: FakeClock) -> None:
        from hardware.shuffler.handsfree_sim import HandsFreeTable, HandsFreeTableMechanism

        # the riser at the duty the driver runs it at (uncalibrated), for the timing's twin
        self.table = HandsFreeTable(rng=random.Random(7),
                                    router_settle_s=design.HANDSFREE_SOLENOID_ROUTER.settle_s,
                                    riser_duty=design.RISER_DUTY_UNCALIBRATED)
        self.table.load(list(range(cards)))
        self.mech = HandsFreeTableMechanism(self.table, clock)
        self.clock = clock

    def __getattr__(self, name: str) -> Any:
        return getattr(self.mech, name)

    def deck(self) -> list[int]:
        return self.table.deck()

    @property
    def lid(self) -> bool:
        return self.table.lid

    @lid.setter
    def lid(self, closed: bool) -> None:
        self.table.set_lid(closed, self.clock.monotonic())


MACHINES: dict[str, Callable[[int, FakeClock], Any]] = {"fake": _fake, "table": _Table}


class GpioRig:
    def __init__(self, cards: int, machine: str = "fake", seed: int = 3) -> None:
        self.clock = FakeClock()
        self.factory = MockFactory(pin_class=MockPWMPin)
        self.bus = i2c.EmulatedBus()
        self.machine = MACHINES[machine](cards, self.clock)
        if machine == "table":
            from hardware.shuffler.handsfree_machine import handsfree_timing

            settle = design.HANDSFREE_SOLENOID_ROUTER.settle_s
            timing = handsfree_timing(self.machine.table, settle)
        else:
            timing = Timing.for_speed(TIMING.feed_speed_mm_s,
                                      design.HANDSFREE_SOLENOID_ROUTER.settle_s)
        self.shuffler = HandsFreeGpioShuffler(
            PINS, self.clock, pin_factory=self.factory, rng=random.Random(seed),
            timing=timing, touch_deck=cards,
            servos=i2c.PCA9685(self.bus, sleep=lambda s: None),
            inputs=i2c.MCP23017(self.bus), adc=i2c.NAU7802(self.bus, sleep=lambda s: None),
            tare_raw=TARE, counts_per_card=PER_CARD)
        self.events: list[DeviceEvent] = []
        self.starts: list[list[int]] = []
        self.shuffler.subscribe(self._event)
        self.shuffler.open()
        self.rig = HandsFreeMockRig(self.shuffler, self.machine, self.factory, self.clock,
                                    self.bus, TARE, PER_CARD)

    def _event(self, e: DeviceEvent) -> None:
        self.events.append(e)
        if e.kind == "plan":
            self.starts.append(list(self.machine.deck()))

    def kinds(self, kind: str) -> list[dict]:
        return [e.data for e in self.events if e.kind == kind]

    def expected(self) -> list[int]:
        plan = self.shuffler.plans[-1].handsfree
        assert plan is not None
        return [self.starts[-1][c] for c in plan.final_order()]

    def servo_writes(self) -> list[tuple[int, str]]:
        """Each servo pulse written to the PCA9685, in order: (channel, what): the doors
        (channels 0 and 1) open/closed, the press's lift (channel 2) up/down and its turn
        (channel 3) out/in, each told apart at the middle of its two pulses."""
        from hardware.shuffler import gpio

        tables = {0: (gpio.DOOR_PULSE_MS, ("open", "closed")),
                  1: (gpio.DOOR_PULSE_MS, ("open", "closed")),
                  gpio.PRESS_LIFT_CHANNEL: (gpio.PRESS_LIFT_PULSE_MS, ("up", "down")),
                  gpio.PRESS_TURN_CHANNEL: (gpio.PRESS_TURN_PULSE_MS, ("out", "in"))}
        out = []
        writes = [(r, v) for a, r, v in self.bus.writes if a == i2c.PCA9685_ADDRESS]
        for (r, v), (r2, v2) in zip(writes, writes[1:], strict=False):
            channel = (r - 0x08) // 4
            if r >= 0x08 and (r - 0x08) % 4 == 0 and channel in tables and r2 == r + 1 \
                    and not v2 & 0x10:
                ms = (v | v2 << 8) * 20.0 / 4096
                pulses, (on, off) = tables[channel]
                out.append((channel, on if ms > (pulses[True] + pulses[False]) / 2 else off))
        return out

    def press_poses(self) -> list[tuple[int, str]]:
        """The press's pose after each of its writes, repeats dropped, each with the index
        of the write in `servo_writes` that made it."""
        lift, turn, poses = "down", "in", []
        for i, (ch, what) in enumerate(self.servo_writes()):
            if ch not in (2, 3):
                continue
            lift, turn = (what, turn) if ch == 2 else (lift, what)
            pose = "out" if turn == "out" else "lifted" if lift == "up" else "down"
            if turn == "out" and lift == "down":
                pose = "jammed"
            if not poses or poses[-1][1] != pose:
                poses.append((i, pose))
        return poses

    def door_writes(self) -> list[tuple[int, str]]:
        """Each door pulse written to the PCA9685, in order: (channel, open/closed)."""
        return [w for w in self.servo_writes() if w[0] in (0, 1)]


@pytest.fixture
def close_rigs() -> Iterator[list[GpioRig]]:
    rigs: list[GpioRig] = []
    yield rigs
    for r in rigs:
        r.shuffler.stop()


def _whole(rig: GpioRig, cards: int) -> None:
    st = rig.shuffler.status()
    assert st.state is DeviceState.IDLE, st
    deck = rig.machine.deck()
    assert sorted(deck) == list(range(cards))
    assert deck == rig.expected()
    table = getattr(rig.machine, "table", None)  # the physics simulator's, when it is one
    assert table is None or table.rams == 0, "a card fed into one held on the riser"


@pytest.mark.parametrize("cards, passes, machine", [
    (52, 6, "fake"), (104, 7, "fake"), (52, 6, "table"),
    pytest.param(104, 7, "table", marks=pytest.mark.slow),
])
def test_one_touch_on_the_pins_shuffles_exactly(cards: int, passes: int, machine: str,
                                                close_rigs: list[GpioRig]) -> None:
    r = GpioRig(cards, machine)
    close_rigs.append(r)
    assert r.rig.riser_pin.state == 0 and not r.door_writes()[-2:] == []
    r.rig.touch()
    assert r.shuffler.state is DeviceState.BUSY
    start = r.clock.monotonic()
    r.rig.run()
    _whole(r, cards)
    assert [p for p in r.kinds("prompt") if not p.get("done")] == []
    assert r.kinds("fault") == []
    # each restack: lower doors open, upper doors open, both closed (upper then lower)
    writes = r.door_writes()
    assert writes[:2] == [(1, "closed"), (0, "closed")] or writes[:2] == [(0, "closed"),
                                                                          (1, "closed")]
    per = [(0, "open"), (1, "open"), (1, "closed"), (0, "closed")]
    assert writes[2:] == per * passes
    # the press (its lift on channel 2, its turn on 3): lifted for loading; for each pass
    # down on the deck, then lifted and turned out before the restack's doors open; turned
    # back in at the top before it comes down again; left out at the end
    servos = r.servo_writes()
    poses = r.press_poses()
    assert [p for _i, p in poses] == ["lifted", "down", "lifted", "out"] * passes
    pose = None
    for i, (_ch, what) in enumerate(servos):
        pose = next((p for j, p in reversed(poses) if j <= i), None)
        if what == "open":
            assert pose == "out", "doors opened with the press in the shaft"
    assert r.rig.riser_pin.state == 0 and r.rig.motor_pin.state == 0
    assert r.shuffler.mechanism.doors == {Bay.LOWER: False, Bay.UPPER: False}
    print(f"{cards} cards: {r.clock.monotonic() - start:.1f} s of machine time ({machine})")


def test_the_riser_runs_through_each_pass_and_never_with_doors_open(
        close_rigs: list[GpioRig]) -> None:
    r = GpioRig(52)
    close_rigs.append(r)
    r.rig.touch()
    seen: set[tuple[str | None, int, bool]] = set()
    pwm = r.shuffler.mechanism.servos
    assert pwm is not None
    for _ in range(200_000):
        r.rig.sync()
        wait = r.shuffler.step()
        r.rig.sync()
        doors = any((pwm.pulse_ms(ch) or 0) > 1.5 for ch in (0, 1))
        duty = r.rig.riser_pin.state  # the riser's PWM
        assert duty in (0, design.RISER_DUTY_UNCALIBRATED), duty
        seen.add((r.shuffler.status().phase, int(duty > 0), doors))
        if r.shuffler.state is not DeviceState.BUSY:
            break
        r.clock.sleep(max(min(wait, 1 / 80), 1e-6))
    assert ("pass", 1, False) in seen and ("restack", 0, True) in seen
    assert not [s for s in seen if s[1] and s[2]]  # no card rises onto opening doors
    assert ("pass", 0, False) not in seen  # the riser runs through every pass


@pytest.mark.parametrize("machine", ["fake", "table"])
def test_nothing_is_driven_while_the_lid_is_open(machine: str,
                                                 close_rigs: list[GpioRig]) -> None:
    r = GpioRig(52, machine)
    close_rigs.append(r)
    r.rig.touch()
    for _ in range(400):  # into the third pass, cards on the way
        r.rig.run(max_seconds=0.1)
        st = r.shuffler.status()
        if st.phase == "pass" and st.passes_done == 2 and st.cards_this_pass >= 20:
            break
    assert r.shuffler.status().phase == "pass"
    r.machine.lid = False
    r.rig.sync()  # the lid's edge reaches GPIO 4
    motor_history = len(r.rig.motor_pin.states)
    r.rig.run(max_seconds=1.0)
    st = r.shuffler.status()
    assert st.phase == "paused" and st.state is DeviceState.WAITING
    until = r.clock.monotonic() + 30.0
    while r.clock.monotonic() < until:  # half a minute open: the runner steps, nothing moves
        r.rig.sync()
        r.shuffler.step()
        # the pins follow the machine at each of its edges (a card the run-down carries
        # past a beam is an edge GPIO catches), else every 0.6 s
        nxt, now = r.rig.next_event(), r.clock.monotonic()
        r.clock.sleep(min(0.6, nxt - now) if nxt is not None and nxt > now else 0.6)
    assert r.rig.driven_while_open == []
    assert r.rig.motor_pin.state == 0 and r.rig.riser_pin.state == 0
    assert all(not s.state for s in r.rig.motor_pin.states[motor_history:])
    r.rig.touch()  # still open: nothing
    assert r.shuffler.status().phase == "paused"
    r.machine.lid = True
    r.rig.sync()
    r.rig.touch()
    assert r.shuffler.status().phase == "pass"
    r.rig.run()
    _whole(r, 52)
    # Nothing is lost. The power cut lets the router's spring return the flap to the lower
    # bay, and the feed's unbraked run-down may carry a card past it: that pass then counts
    # a misroute and the machine plans afresh by itself, with no prompt.
    replans = [w["reason"] for w in r.kinds("warning") if w["kind"] == "replan"]
    assert len(replans) <= 1 and all(w.endswith(": misroute") for w in replans), replans


def test_a_wrong_restack_is_detected_on_the_sensors(close_rigs: list[GpioRig]) -> None:
    r = GpioRig(52)
    close_rigs.append(r)
    r.machine.swap_once = 1
    r.rig.touch()
    r.rig.run()
    findings = [x["finding"] for x in r.kinds("restack")]
    assert findings.count("wrong_order") == 1 and findings[-1] == "ok"
    assert r.shuffler.replans == 1 and r.kinds("fault") == []
    _whole(r, 52)


@pytest.mark.parametrize("fault", ["stall", "double", "caught", "skew"])
def test_each_fault_ends_in_a_recovery_and_a_whole_deck(fault: str,
                                                         close_rigs: list[GpioRig]) -> None:
    r = GpioRig(52)
    close_rigs.append(r)
    m = r.machine
    if fault == "stall":
        m.stall_at = 20
    elif fault == "double":
        m.double_at = 7
    elif fault == "caught":
        m.caught = 2
    else:
        m.skew_once = True
    r.rig.touch()
    r.rig.run()
    assert r.kinds("fault") == []
    _whole(r, 52)


def test_the_hands_free_pins_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="riser"):
        HandsFreeGpioShuffler({k: v for k, v in PINS.items() if k != "riser"}, FakeClock(),
                              pin_factory=MockFactory())
    with pytest.raises(ConfigurationError, match="share"):
        HandsFreeGpioShuffler({**PINS, "lid": 17}, FakeClock(), pin_factory=MockFactory())


def test_the_riser_runs_at_its_calibrated_pwm_duty_and_a_duty_out_of_range_is_refused() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    bus = i2c.EmulatedBus()
    sh = HandsFreeGpioShuffler(PINS, FakeClock(), pin_factory=factory, riser_duty=0.72,
                               servos=i2c.PCA9685(bus, sleep=lambda s: None),
                               inputs=i2c.MCP23017(bus),
                               adc=i2c.NAU7802(bus, sleep=lambda s: None))
    sh.open()
    try:
        riser = factory.pin(PINS["riser"])
        sh.mechanism.set_riser(True)
        assert riser.state == pytest.approx(0.72)
        sh.mechanism.set_riser(False)
        assert riser.state == 0
    finally:
        sh.stop()
    for duty in (0.0, 1.2):
        with pytest.raises(ConfigurationError, match="riser_duty"):
            HandsFreeGpioShuffler(PINS, FakeClock(), pin_factory=MockFactory(), riser_duty=duty)


def _md_table(section: str, first: str) -> list[dict[str, str]]:
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    start = next(i for i, ln in enumerate(lines) if ln.strip("| ").startswith(first))
    head = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for ln in lines[start + 2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if len(cells) != len(head) or cells[0] == head[0]:
            break
        rows.append(dict(zip(head, cells, strict=True)))
    return rows


def test_the_docs_wiring_and_schematic_say_the_pin_tables_pins() -> None:
    """docs/hardware.md's hands-free rows, the schematic's nets, the driver's pins and the
    I2C addresses are hardware/pins.py's."""
    import re
    from pathlib import Path

    from hardware import pins, schematics

    root = Path(__file__).resolve().parents[3]
    text = (root / "docs" / "hardware.md").read_text()
    section = text.split("### The hands-free build's pins", 1)[1].split("\n### ", 1)[0]
    rows = _md_table(section, "Function")
    assert {r["Config key"]: (int(r["BCM"]), int(r["Header"])) for r in rows} == {
        p.key: (p.gpio, p.header()) for p in pins.HANDSFREE + pins.I2C_BUS}
    devices = _md_table(section, "I2C device")
    assert {r["Config key"]: int(r["Address"], 16) for r in devices} == {
        d.key: d.address for d in pins.I2C_DEVICES}
    svg = (root / "docs" / "schematic-handsfree.svg").read_text()
    assert svg == schematics.render("schematic-handsfree.svg")
    nets = set(re.findall(r">([\w.]+) = GPIO(\d+) \(pin (\d+)\)", svg))
    assert nets == {(p.key, str(p.gpio), str(p.header()))
                    for p in pins.HANDSFREE + pins.I2C_BUS}
    assert {k: v for k, v in PINS.items() if k in pins.handsfree_defaults()} == \
        pins.handsfree_defaults()
    by_part = {d.part: d.address for d in pins.I2C_DEVICES}
    assert by_part == {"PCA9685": i2c.PCA9685_ADDRESS, "MCP23017": i2c.MCP23017_ADDRESS,
                       "NAU7802": i2c.NAU7802_ADDRESS}
    # the Lotus-style build's defaults are untouched by the hands-free pins
    assert not set(pins.handsfree_defaults()) & set(pins.shuffler_defaults())


def test_the_doors_take_the_pulses_bring_up_found() -> None:
    """Each bay's doors are driven to their own shut and open pulses (the horns never sit
    exactly alike); a pair that cannot work is refused before anything moves."""
    bus = i2c.EmulatedBus()
    sh = HandsFreeGpioShuffler(
        PINS, FakeClock(), pin_factory=MockFactory(pin_class=MockPWMPin),
        servos=i2c.PCA9685(bus, sleep=lambda s: None), inputs=i2c.MCP23017(bus),
        adc=i2c.NAU7802(bus, sleep=lambda s: None),
        door_pulse_ms={"lower": [0.85, 1.9], "upper": [1.1, 2.05]})
    sh.open()
    try:
        servos = sh.mechanism.servos
        assert servos is not None
        for bay, (shut, opened) in ((Bay.LOWER, (0.85, 1.9)), (Bay.UPPER, (1.1, 2.05))):
            channel = 0 if bay is Bay.LOWER else 1
            assert servos.pulse_ms(channel) == pytest.approx(shut, abs=0.01)  # shut at open()
            sh.mechanism.set_doors(bay, True)
            assert servos.pulse_ms(channel) == pytest.approx(opened, abs=0.01)
            sh.mechanism.set_doors(bay, False)
            assert servos.pulse_ms(channel) == pytest.approx(shut, abs=0.01)
    finally:
        sh.stop()
    with pytest.raises(ConfigurationError, match="door_pulse_ms upper"):
        HandsFreeGpioShuffler(PINS, FakeClock(), pin_factory=MockFactory(),
                              door_pulse_ms={"upper": [1.5]})
