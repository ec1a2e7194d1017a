"""The default build's arithmetic (hardware.shuffler.design) and the timing derived from it:
the simulator's pass time is the arithmetic's, and no time budget assumes one machine."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from firmware_host.config import ShufflerSettings
from hardware.clock import FakeClock
from hardware.errors import ShufflerError
from hardware.shuffler import design, pace
from hardware.shuffler.controller import Timing
from hardware.shuffler.simulator import SimulatedShuffler

ROOT = Path(__file__).resolve().parents[3]


def test_the_default_builds_arithmetic():
    drive = design.DEFAULT_DRIVE
    # the motor's datasheet figures at the 5 V supply, under the 24 mm roller
    assert drive.free_speed_mm_s() == pytest.approx(3.14159265 * 24 * 625 * 5 / 6 / 60)
    assert drive.stall_force_n() == pytest.approx(0.10 * 5 / 6 / 0.012)
    # under a load the speed falls in proportion, to 0 at the stall force
    half = drive.stall_force_n() / 2
    assert drive.speed_under_mm_s(half) == pytest.approx(drive.free_speed_mm_s() / 2)
    assert drive.speed_under_mm_s(2 * half) == 0.0
    p = pace.pace()
    v = pace.default_card_speed_mm_s(drive)
    assert 0.4 * drive.free_speed_mm_s() < v < 1.5 * drive.free_speed_mm_s()
    assert p.transit_s == pytest.approx(88.9 / v)
    # a card to the same pile waits for the last to clear its beam; to the other pile, for
    # the last card's tail to leave the flap (a 10 % slow card) and the router to settle
    # before the next card's leading edge (a 10 % fast card) reaches the flap
    assert p.same_wait_s == pytest.approx(p.transit_s)
    # (the next card starts against the tray's front wall and may have been drawn on by the
    # roller until the motor stopped: the last card's run to its beam, the beam's filter,
    # the braked motor's run-on)
    drawn = (design.FRONT_WALL_MAX_MM + design.NIP_CLEARANCE_MM
             + 1.1 * v * (p.filter_s + drive.motor_start_s))
    other = ((design.NIP_TO_FLAP_MM + design.FLAP_LENGTH_MM - design.NIP_CLEARANCE_MM)
             / (0.9 * v) + design.DEFAULT_ROUTER.settle_s
             - design.start_run_s(max(0.0, design.NIP_TO_FLAP_MM - drawn), 1.1 * v,
                                  drive.motor_start_s))
    assert p.other_wait_s == pytest.approx(max(0.0, other))
    assert p.card_s == pytest.approx(drive.motor_start_s + design.NIP_TO_BEAM_MM / v
                                     + p.filter_s + (p.same_wait_s + p.other_wait_s) / 2)
    assert p.pass_s(104) == pytest.approx(2 * p.pass_s(52) + p.gap_s - p.transit_s)
    assert design.DEFAULT_ROUTER is design.SERVO_ROUTER
    assert pace.pace(router=design.SOLENOID_ROUTER).pass_s(52) < p.pass_s(52)
    # the nip-to-beam path is longer than a card: the card has left the roller when seen
    assert design.NIP_TO_BEAM_MM > design.CARD_LENGTH_MM
    # the card starts against the front wall, within what the timing allows for
    from hardware.shuffler.cad.params import Geometry

    assert 0 < Geometry().gate_setback <= design.FRONT_WALL_MAX_MM
    with pytest.raises(ValueError):
        design.DriveBuild(roller_diameter_mm=0)


@pytest.mark.parametrize("drive", [design.DEFAULT_DRIVE, design.HANDSFREE_DRIVE],
                         ids=["lotus", "handsfree"])
def test_the_drive_moves_the_heaviest_deck_with_twice_the_torque_at_every_corner(drive):
    """The torque arithmetic of docs/hardware.md: the load of 104 cards at the worst
    friction against the weakest motor at the lowest supply, with 2x margin; and the tyre's
    grip above the load at every corner, so it never slips."""
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.physics import feed_load, feed_margins, tyre_share

    share = tyre_share(Geometry())
    m = feed_margins(drive, share)
    assert m.torque >= design.TORQUE_MARGIN, m.torque
    assert m.grip >= 1.1, m.grip
    # the worst corner is the docs' one: 104 cards of 0.32 mm, card on card 0.5, card on
    # PETG 0.4, the weakest motor at the lowest supply
    w = m.worst
    assert (w.cards, w.card_thickness_mm, w.mu_card_card, w.mu_card_petg, w.motor_torque,
            w.supply_v) == (104, 0.32, 0.5, 0.4, 0.85, 4.75)
    load = feed_load(w, 103, drive, share).load_n
    assert load == pytest.approx(2.578, abs=0.001)  # docs/hardware.md's 2.58 N
    assert m.torque == pytest.approx(drive.stall_force_n(4.75, 0.85) / load)
    # without the press the tyre slips under a deck at the rough end of the ranges: the
    # deck's own weight puts only about half of itself on the tyre
    bare = design.DriveBuild(press_n=0.0)
    from hardware.shuffler.ranges import NOMINAL

    assert 0.45 < share < 0.6
    rough = NOMINAL.with_(mu_card_card=0.5, mu_tyre_card=0.8)
    assert feed_load(rough, 51, bare, share).slips and not feed_load(rough, 51, drive, share).slips


def test_a_drive_below_the_margin_is_caught():
    """The margin check can fail: the hands-free motor under a roller large enough to take
    its force at the tyre below twice the worst load, or an N20 of a faster gearbox."""
    from dataclasses import replace

    from hardware.shuffler.physics import feed_margins

    hf = design.HANDSFREE_DRIVE
    assert feed_margins(replace(hf, roller_diameter_mm=72.0)).torque < design.TORQUE_MARGIN
    # the N20 of 2000 rpm (its 15:1 gearbox, about 0.03 N m) has under half the load's torque
    assert feed_margins(replace(design.DEFAULT_DRIVE, no_load_rpm=2000.0,
                                stall_n_m=0.03)).torque < 1.0


def test_the_hands_free_drive_is_its_datasheets_figures():
    """The 25D 9.7:1 HP 6V on the 5 V supply under the 24 mm roller; its driver must give
    the stall current at every start."""
    hf = design.HANDSFREE_DRIVE
    assert hf.free_speed_mm_s() == pytest.approx(3.14159265 * 24 * 990 * 5 / 6 / 60)
    assert hf.stall_force_n() == pytest.approx(0.275 * 5 / 6 / 0.012)
    assert hf.stall_force_n(4.75, 0.85) == pytest.approx(0.275 * 4.75 / 6 * 0.85 / 0.012)
    assert hf.stall_current_a(5.25) == pytest.approx(6.5 * 5.25 / 6)
    assert design.DEFAULT_DRIVE.stall_current_a() == pytest.approx(1.6 * 5 / 6)
    # faster than the Lotus drive at the nominal deck's middle card
    assert pace.default_card_speed_mm_s(hf) > 1.4 * pace.default_card_speed_mm_s()


def test_the_servo_swings_the_printed_flap_from_branch_to_branch():
    """The default router is the SG90 the printed router mounts; its swing, and the default
    angles, are the flap's between the two branches the CAD draws."""
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.gpio import PIN_OPTIONS, router_settle_s

    g = Geometry()
    router = design.DEFAULT_ROUTER
    assert router.kind == "servo" and PIN_OPTIONS["router_kind"] == "servo"
    assert router.swing_deg == pytest.approx(g.lower_angle - g.upper_angle, abs=0.1)
    left, right = float(PIN_OPTIONS["left_angle"]), float(PIN_OPTIONS["right_angle"])
    assert right - left == pytest.approx(router.swing_deg) and left == -right
    # the frame, the swing at an SG90's 0.1 s per 60 degrees, the ringing
    assert router.settle_s == pytest.approx(0.020 + router.swing_deg / 600 + 0.015)
    assert router_settle_s({}) == router.settle_s  # the configured default is the build's
    assert router_settle_s({"router_kind": "solenoid"}) == design.SOLENOID_ROUTER.settle_s


@pytest.mark.parametrize("cards", [52, 104])
def test_the_simulators_pass_time_is_the_arithmetics_within_10_percent(cards):
    clock = FakeClock()
    sh = SimulatedShuffler(clock, rng=random.Random(2))
    sh.open()
    sh.shuffle(cards, "light")
    start = clock.monotonic()
    sh.run_until_settled(max_seconds=600)
    assert sh.status().cards_this_pass == cards and sh.fault is None
    took = clock.monotonic() - start
    expected = pace.pace().pass_s(cards)
    assert abs(took - expected) / expected < 0.10, (took, expected)


@pytest.mark.parametrize("speed", [300.0, 500.0, 1000.0, 1800.0])
def test_every_budget_follows_the_card_speed(speed):
    slow, fast = Timing.for_speed(speed), Timing.for_speed(2 * speed)
    transit = 88.9 / speed
    assert slow.double_block == pytest.approx(1.25 * transit, abs=1e-4)
    assert slow.blocked_limit == pytest.approx(4 * transit, abs=1e-4)
    assert slow.card_timeout == pytest.approx(3 * design.flight_s(speed), abs=1e-4)
    for name in ("double_block", "blocked_limit", "card_timeout", "per_card"):
        assert getattr(fast, name) < getattr(slow, name), name
    assert fast.sensor_filter <= slow.sensor_filter < transit / 2
    assert fast.router_settle >= slow.router_settle  # less of the flight hides it
    assert fast.flap_clear < slow.flap_clear and fast.flap_lead <= slow.flap_lead
    # the configuration's one setting gives the same budgets
    settings = ShufflerSettings(feed_speed_mm_s=speed)
    assert settings.timing() == Timing.for_speed(speed)


def test_a_budget_that_cannot_work_at_the_speed_is_refused():
    with pytest.raises(ShufflerError, match="sensor filter"):
        Timing.for_speed(1800.0, sensor_filter=0.030)
    with pytest.raises(ShufflerError, match="blocked limit"):
        Timing.for_speed(300.0, blocked_limit=0.5)
    with pytest.raises(ShufflerError, match="card timeout"):
        Timing.for_speed(300.0, card_timeout=0.2)


TIMING_MODULES = ["hardware/shuffler/controller.py", "hardware/shuffler/physics.py",
                  "hardware/shuffler/gpio.py", "hardware/shuffler/simulator.py",
                  "hardware/shuffler/mockrig.py"]


def test_no_timing_constant_assumes_one_machine():
    """The old model fixed the card speed at 1.8 m/s and the budgets to match; the only
    speed now is the build's arithmetic (design.py) or the configuration's."""
    for rel in TIMING_MODULES + ["firmware_host/config.py"]:
        text = (ROOT / rel).read_text()
        for stale in ("FEED_SPEED_MM_S", "1800", "1.8 m/s", "PASS_SECONDS", "SENSOR_SECONDS",
                      "card_transit_s()"):
            assert stale not in text, (rel, stale)
    # the configuration's budgets have no numbers of their own: absent, they are derived
    settings = ShufflerSettings()
    for key in ("feed_speed_mm_s", "sensor_filter_ms", "router_settle_ms", "card_timeout_s",
                "blocked_limit_s", "pass_base_s", "per_card_s"):
        assert getattr(settings, key) is None, key
    # no module-level time in the timing modules: only ratios of a card's transit, which
    # are the same on every machine
    ratios = {"DOUBLE_BLOCK_TRANSITS", "DOUBLE_BLOCK_SPAN"}
    # and the physics' own constants, which are no times: gravity, the gate's thresholds in
    # card thicknesses, the landing's energy share and angle, a test jam's place
    ratios |= {"G", "SEPARATION_MIN_CARDS", "SEPARATION_DRAG_CARDS", "DOUBLE_SPAN",
               "STAND_ENERGY_SHARE", "STAND_ENERGY_SHARE_PADDED", "STAND_ANGLE_DEG", "JAM_MM",
               "TRAY_SENSOR_MM", "_EPS"}
    for rel in TIMING_MODULES:
        tree = ast.parse((ROOT / rel).read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                value = node.value
                if isinstance(target, ast.Name) and target.id in ratios:
                    continue
                assert not (isinstance(value, ast.Constant)
                            and isinstance(value.value, float)), (rel, ast.unparse(node))


@pytest.mark.parametrize("speed", [500.0, 1000.0, 1400.0])
@pytest.mark.parametrize("router", [design.SOLENOID_ROUTER, design.SERVO_ROUTER])
def test_the_feed_overlaps_but_the_router_never_moves_under_a_card(speed, router):
    """Cards 3 % apart in speed: the next card starts while the last still passes its beam,
    yet no router move falls between a settle before a card's leading edge reaches the flap
    and its tail leaving it, and a card to the same pile waits for the beam to clear."""
    clock = FakeClock()
    sh = SimulatedShuffler(clock, feed_speed_mm_s=speed, rng=random.Random(3),
                           machine_rng=random.Random(4), router_settle_s=router.settle_s)
    table = sh.table
    feeds: list[tuple[float, bool, bool]] = []  # (time, any beam blocked, the target's)
    set_motor = sh._mech.set_motor

    def watch(on: bool) -> None:
        if on:
            blocked = {p for p in ("left", "right") if table.blocked_at[p] is not None}
            feeds.append((clock.monotonic(), bool(blocked), sh._commanded.value in blocked))
        set_motor(on)

    sh._mech.set_motor = watch  # type: ignore[method-assign]
    sh.open()
    sh.shuffle(104, "light")
    sh.run_until_settled(max_seconds=600)
    st = sh.status()
    assert st.fault is None and st.cards_this_pass == 104, st.fault
    assert table.flap_hits == 0
    assert len(feeds) == 104
    if router is design.SOLENOID_ROUTER:  # the feed overlaps (a servo's settle may not)
        assert sum(1 for _, any_blocked, _ in feeds if any_blocked) > 20
    assert not any(same for _, _, same in feeds)  # never into a beam still blocked


@pytest.mark.parametrize("speed", [500.0, 1400.0])
@pytest.mark.parametrize("fault", [{"double_at": 20}, {"stick_at": 30}, {"jam_at": 25},
                                   {"double_at": 51}])
def test_after_each_fault_of_an_overlapped_feed_the_pass_counts_every_card(speed, fault):
    """A card may be in flight when a fault stops the motor: after the player's recovery it
    is waited for, never fed twice, and the pass ends with every card on a pile, counted."""
    from hardware.interfaces import DeviceState

    at = next(iter(fault.values()))
    # two cards fed together stay under the beam on the braked roller (stuck there); once
    # the player has pushed them down the pass counts one card short and runs again
    # (if the pair has left the roller when the motor stops, it passes its beam as one long
    # block: a double feed, and the pass goes on)
    expect = {"double_at": ([("stuck", at), ("short", 52)], [("double_feed", at)]),
              "stick_at": ([("stuck", at)],), "jam_at": ([("jam", at)],)}[next(iter(fault))]
    for seed in range(3):
        clock = FakeClock()
        sh = SimulatedShuffler(clock, feed_speed_mm_s=speed, rng=random.Random(seed),
                               machine_rng=random.Random(seed), **fault)
        sh.open()
        sh.shuffle(52, "light")
        faults = []
        for _ in range(5):
            sh.run_until_settled(max_seconds=600)
            if sh.state is not DeviceState.FAULT:
                break
            faults.append((sh.fault.kind, sh.fault.card))
            sh.resume()
        st = sh.status()
        clock.advance(2.0)  # the last cards slide down to their piles
        sh.table.update(clock.monotonic())
        assert faults in expect
        assert st.state is DeviceState.WAITING and st.cards_this_pass == 52
        assert sum(st.pile_counts) == 52
        piles = sh.table.piles
        assert sorted(piles["left"] + piles["right"]) == list(range(52))
        assert st.pile_counts == (len(piles["left"]), len(piles["right"]))


def test_a_card_that_reached_its_beam_during_a_stuck_fault_is_counted_not_driven_on():
    """The card in flight when a stuck beam stops the motor may already have left the
    roller (it reaches its beam within the beams' filter): after the player's touch it is
    counted where it lies and the motor stays off, so the roller does not feed the next card
    under the count (that machine once counted 51 of 52 and called the pass short)."""
    from hardware.interfaces import DeviceState

    seed = 109  # this machine's card 31 reaches its beam inside the filter window
    clock = FakeClock()
    sh = SimulatedShuffler(clock, feed_speed_mm_s=500, rng=random.Random(seed % 3),
                           machine_rng=random.Random(seed), stick_at=30)
    sh.open()
    sh.shuffle(52, "light")
    sh.run_until_settled(max_seconds=600)
    assert (sh.fault.kind, sh.fault.card) == ("stuck", 30)
    in_flight = sh.table._feeding  # the next card, drawn onto the roller: not yet fed
    sh.resume()
    assert not sh.table.motor, "the roller was driven for a card that had left it"
    assert sh.table._feeding is in_flight
    for _ in range(5):
        sh.run_until_settled(max_seconds=600)
        if sh.state is not DeviceState.FAULT:
            break
        sh.resume()
    st = sh.status()
    clock.advance(2.0)
    sh.table.update(clock.monotonic())
    assert st.state is DeviceState.WAITING and st.fault is None
    assert st.cards_this_pass == 52
    piles = sh.table.piles
    assert st.pile_counts == (len(piles["left"]), len(piles["right"]))
    assert sorted(piles["left"] + piles["right"]) == list(range(52))


@pytest.mark.parametrize("cards", [52, 104])
@pytest.mark.parametrize("corner", ["nominal", "weakest", "strongest"])
def test_the_hands_free_drive_feeds_a_whole_pass_in_its_arithmetics_time(cards, corner):
    """The controller over the simulated feed with the hands-free drive (its 28 mm roller in
    the geometry), calibrated as `crib shuffler calibrate` would: every card counted, no
    fault, the router never moves under a card, and the pass takes what the pace arithmetic
    says of this drive on this path (card by card, no riser), within 10 %, at nominal and at
    the weakest and the strongest corners of the drive."""
    from hardware.interfaces import DeviceState
    from hardware.shuffler import handsfree
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.controller import ShufflerController
    from hardware.shuffler.ranges import NOMINAL, RANGES
    from hardware.shuffler.simulator import ShufflerTable, _TableMechanism, measured_timing

    hf = design.HANDSFREE_DRIVE
    ends = {"nominal": None, "weakest": 0, "strongest": 1}[corner]
    params = NOMINAL.with_(cards=cards)
    if ends is not None:
        params = params.with_(**{k: RANGES[k][ends] for k in
                                 ("motor_speed", "motor_torque", "supply_v")},
                              card_thickness_mm=RANGES["card_thickness_mm"][1 - ends],
                              mu_card_card=RANGES["mu_card_card"][1 - ends],
                              mu_card_petg=RANGES["mu_card_petg"][1 - ends])
    settle = handsfree.HANDSFREE_ROUTER.settle_s
    table = ShufflerTable(drive=hf, params=params, rng=random.Random(5), router_settle_s=settle,
                          geometry=Geometry().with_(roller_diameter=hf.roller_diameter_mm))
    timing = measured_timing(table, settle, cards)
    clock = FakeClock()
    sh = ShufflerController(_TableMechanism(table, clock, timing.sensor_filter), clock,
                            rng=random.Random(6), timing=timing)
    sh.open()
    table.load(list(range(cards)))
    sh.shuffle(cards, "light")
    start = clock.monotonic()
    sh.run_until_settled(max_seconds=600)
    took = clock.monotonic() - start
    assert sh.state is DeviceState.WAITING and sh.fault is None, sh.fault
    assert sh.status().cards_this_pass == cards and table.flap_hits == 0
    v = pace.measured_card_speed_mm_s(hf, params, cards, settle)
    expected = pace.pace(drive=hf, router=handsfree.HANDSFREE_ROUTER,
                         feed_speed_mm_s=v).pass_s(cards)
    # the arithmetic is never optimistic: it starts each card from the nip, where the
    # simulated roller has already drawn it on some 30-45 mm at this speed
    assert 0.75 * expected < took < 1.05 * expected, (took, expected)


def test_a_faster_drive_draws_the_next_card_under_the_flap():
    """Why the hands-free drive is no faster: braked at a card's arrival, a roller moving a
    card at 1.7 m/s or more has drawn the next card past the flap, 49 mm from the nip, before
    the last card's tail has left it, so the router moves under a card whatever it waits.
    The 4.4:1 gearbox of the same motor does that at the nominal machine."""
    from dataclasses import replace

    from hardware.shuffler import handsfree
    from hardware.shuffler.controller import ShufflerController
    from hardware.shuffler.ranges import NOMINAL
    from hardware.shuffler.simulator import ShufflerTable, _TableMechanism, measured_timing

    fast = replace(design.HANDSFREE_DRIVE, no_load_rpm=2200.0, stall_n_m=0.118, stall_a=6.0)
    settle = handsfree.HANDSFREE_ROUTER.settle_s
    table = ShufflerTable(drive=fast, params=NOMINAL, rng=random.Random(5),
                          router_settle_s=settle)
    timing = measured_timing(table, settle, 52)
    assert timing.feed_speed_mm_s > 1700
    clock = FakeClock()
    sh = ShufflerController(_TableMechanism(table, clock, timing.sensor_filter), clock,
                            rng=random.Random(6), timing=timing)
    sh.open()
    table.load(list(range(52)))
    sh.shuffle(52, "light")
    sh.run_until_settled(max_seconds=600)
    assert table.flap_hits > 0


@pytest.mark.parametrize("cards", [52, 104])
def test_a_hands_free_shuffle_is_its_passes_on_the_decks_own_pace_and_its_restacks(cards):
    """shuffle_s takes the hands-free drive's pace calibrated on the plan's own deck (a card
    of 104 is slower than one of 52), every pass's own router moves and runs on, and a
    restack each."""
    from hardware.shuffler import handsfree

    plan = handsfree.plan_random(cards, rng=random.Random(4))
    p = handsfree.handsfree_pace(cards)
    assert p.feed_speed_mm_s == pytest.approx(pace.measured_card_speed_mm_s(
        design.HANDSFREE_DRIVE, None, cards, design.HANDSFREE_SOLENOID_ROUTER.settle_s))
    # the riser clears the flap sooner than a card coasting the Lotus path does, and a card
    # to the same bay follows the last without the feed's stop, flight and filter
    assert 0 < p.other_wait_s < design.other_pile_wait_s(
        p.feed_speed_mm_s, design.HANDSFREE_SOLENOID_ROUTER.settle_s,
        design.HANDSFREE_DRIVE.motor_start_s, p.filter_s)
    assert p.run_on_s is not None and p.run_on_s < p.flight_s + p.filter_s + p.same_wait_s
    same = [handsfree.Bay.UPPER] * cards
    assert handsfree.pass_s(same, p) == pytest.approx(
        p.flight_s + p.filter_s + (cards - 1) * p.run_on_s + p.transit_s)
    passes = [handsfree.pass_s(pp.bays, p) for pp in plan.passes]
    assert len(passes) == handsfree.minimum_passes(cards)
    whole = handsfree.shuffle_s(plan)
    assert whole == pytest.approx(sum(passes) + len(passes)
                                  * handsfree.DEFAULT_RESTACK.restack_s)
    # the Lotus drive's pace is slower, and a corner of the ranges changes the card speed
    assert handsfree.shuffle_s(plan, handsfree.handsfree_pace(cards, None,
                                                              design.DEFAULT_DRIVE)) > whole
    from hardware.shuffler.ranges import NOMINAL

    heavy = NOMINAL.with_(mu_card_card=0.5, mu_card_petg=0.4, card_thickness_mm=0.32,
                          motor_speed=0.85, motor_torque=0.85, supply_v=4.75)
    assert handsfree.handsfree_pace(cards, heavy).feed_speed_mm_s < p.feed_speed_mm_s
