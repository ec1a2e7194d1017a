"""The hands-free machine's simulator: cards up the riser into the bays the router chose, the
doors' drops and the restack they make, the sensors that check it, the faults and the lid,
across the ranges of the physics (hardware/shuffler/handsfree_sim.py)."""

from __future__ import annotations

import math
import random

import pytest

from hardware.shuffler import design, handsfree
from hardware.shuffler import ranges as shuffler_ranges
from hardware.shuffler.handsfree import ROUTER_PILE, Bay, PressPose
from hardware.shuffler.handsfree_sim import (
    DOOR_SWING_DEG,
    PILE_FALL_S,
    PILE_LANDING_MM_S,
    SERVO_FRAME_S,
    SHAFT_NOMINAL,
    SHAFT_RANGES,
    HandsFreeTable,
    HandsFreeTableMechanism,
    ShaftParams,
    corners,
    curl_drag_n,
    fall,
    servo_frame_s,
    shaft_corners,
    t1_grip_n,
    terminal_speed_mm_s,
)
from hardware.shuffler.plan import Pile
from hardware.shuffler.ranges import Params
from hardware.shuffler.shaft import DEFAULT_SHAFT

# The driver's pause after a card is seen at its beam, before the router may move: its tail
# clears the flap (49 + 12 + 88.9 mm from the nip, 55 mm past the beam) by then at the
# slowest corner's riser (about 520 mm/s)
CLEAR_S = 0.17
TIMEOUT_S = 1.0  # a card not seen this long after the feed started is stalled


def feed_one(table: HandsFreeTable, t: float, timeout: float = TIMEOUT_S) -> tuple[bool, float]:
    """Run the feed until a beam sees a card (True) or the timeout passes; the feed is then
    braked and let coast. Returns (seen, time)."""
    table.set_motor(True, t)
    end = t + timeout
    seen = False
    for _ in range(10_000):
        nxt = table.next_event()
        if nxt is None or nxt > end:
            t = end
            table.update(t)
            break
        t = max(t, nxt)
        if any(e.blocked for e in table.update(t)):
            seen = True
            break
    table.set_brake(t)
    table.set_motor(False, t + 0.05)
    return seen, t + 0.05


def press(table: HandsFreeTable, lifted: bool, t: float) -> float:
    """Move the press out of the shaft (`lifted`) or down on the deck, a pose at a time as
    the controller does, each once its servo is there; returns when it has arrived."""
    return press_to(table, PressPose.OUT if lifted else PressPose.DOWN, t)


def press_to(table: HandsFreeTable, target: PressPose, t: float) -> float:
    """Move the press to `target` a pose at a time, each once its servos are there."""
    order = [PressPose.DOWN, PressPose.LIFTED, PressPose.OUT]
    i, j = order.index(table.press_pose), order.index(target)
    for k in (range(i + 1, j + 1) if j > i else range(i - 1, j - 1, -1)):
        table.set_press(order[k], t)
        for servo in (table.press_lift, table.press_turn):
            there = servo.time_to(servo.target)
            t = max(t, there if there is not None else t)
        table.update(t)
    assert table.press_at(target, t)
    return t


def drive_pass(table: HandsFreeTable, bays: list[Bay], t: float = 0.0) -> float:
    """Feed one card per bay decision as a controller does (the press down on the deck,
    the router set and settled, the feed run until the card's beam sees it, then braked),
    the riser running; returns the time all have landed. Fails when a card is never seen."""
    t = press(table, False, t)
    table.set_riser(True, t)
    for i, bay in enumerate(bays):
        table.set_router(ROUTER_PILE[bay], t)
        seen, t = feed_one(table, t + table.router_settle_s)
        assert seen, f"card {i + 1} never reached a beam"
        t += CLEAR_S
    return settle(table, t)


def settle(table: HandsFreeTable, t: float) -> float:
    """Run the machine until nothing moves (cards landed, piles fallen)."""
    for _ in range(10_000):
        if table.settled():
            return t
        nxt = table.next_event()
        assert nxt is not None, "the machine stopped with cards in motion"
        t = max(t, nxt)
        table.update(t)
    raise AssertionError("the machine did not settle")


def weigh(table: HandsFreeTable, t: float) -> tuple[int, float]:
    """The load cell's count once it has settled (rounded, as the controller reads it)."""
    for _ in range(200):
        count = table.tray_cards(t)
        if count is not None:
            return round(count), t
        t += 0.05
    raise AssertionError("the load cell never settled")


def restack(table: HandsFreeTable, t: float,
            order: handsfree.Restack = handsfree.SHAFT_RESTACK,
            ) -> tuple[handsfree.RestackReading, float]:
    """Lift the press out, command the doors open in `order`, reading the sensors after
    each step."""
    t = press(table, True, t)
    steps = []
    for bay in (order.first, order.second):
        table.set_doors(bay, True, t)
        t = settle(table, t + 0.5)
        count, t = weigh(table, t)
        steps.append(handsfree.DropStep(bay, count, table.doors_hold(Bay.UPPER),
                                        table.doors_hold(Bay.LOWER)))
    return handsfree.RestackReading(tuple(steps)), t


def close_doors(table: HandsFreeTable, t: float) -> float:
    for bay in Bay:
        table.set_doors(bay, False, t)
    return t + 0.3


def random_bays(n: int, seed: int) -> list[Bay]:
    rng = random.Random(seed)
    return [rng.choice(list(Bay)) for _ in range(n)]


def plan_bays(n: int, seed: int) -> list[Bay]:
    """The first pass of a real hands-free plan (its bay counts are the plan's)."""
    return list(handsfree.plan_random(n, rng=random.Random(seed)).passes[0].bays)


def a_pass(n: int, seed: int = 1, params: Params | None = None,
           sp: ShaftParams | None = None, **faults: object
           ) -> tuple[HandsFreeTable, list[int], list[Bay], float]:
    from hardware.shuffler.handsfree_machine import calibrated_riser_duty

    table = HandsFreeTable(rng=random.Random(seed), params=params or Params(cards=n),
                           shaft_params=sp, **faults)  # type: ignore[arg-type]
    # the riser at the duty calibrate sets on this machine, as it runs once built
    table.set_riser_duty(calibrated_riser_duty(table, table.router_settle_s), 0.0)
    deck = list(range(n))
    table.load(deck)
    bays = plan_bays(n, seed)
    return table, deck, bays, drive_pass(table, bays)


def check_pass_and_restack(table: HandsFreeTable, deck: list[int], bays: list[Bay],
                           t: float) -> None:
    """Every card in the bay chosen for it, in order; the drops make run_pass's deck."""
    piles = handsfree.deal(deck, bays)
    label = f"{table.params.label()} {table.sp.label()}"
    assert tuple(table.bay_pile(Bay.UPPER)) == piles.upper, label
    assert tuple(table.bay_pile(Bay.LOWER)) == piles.lower, label
    assert table.flap_hits == 0 and table.rams == 0, label
    reading, t = restack(table, t)
    assert tuple(table.tray) == handsfree.run_pass(deck, bays), label
    check = handsfree.verify_restack(handsfree.BayCounts.of(bays), reading)
    assert check.ok, f"{label}: {check.detail}"
    assert not table.skewed(t)


# --- the pass and the restack, at nominal and across the ranges ---------------------------


@pytest.mark.parametrize("n", [52, 104])
def test_every_card_reaches_its_bay_in_order_and_the_drops_make_the_planned_deck(n: int) -> None:
    table, deck, bays, t = a_pass(n, seed=n)
    check_pass_and_restack(table, deck, bays, t)


def _sample(count: int, seed: int) -> list[tuple[Params, ShaftParams]]:
    every = corners()
    return random.Random(seed).sample(every, count)


def pass_or_stall(params: Params, sp: ShaftParams, seed: int) -> None:
    """A pass and its restack at a corner; where the curl holds a card harder than T1 pulls
    (the physics' own stall), the first card stops short of its beam and no card is lost."""
    n = params.cards
    table = HandsFreeTable(rng=random.Random(seed), params=params, shaft_params=sp)
    if table.curl_stalls:
        deck = list(range(n))
        table.load(deck)
        table.set_riser(True, 0.0)
        seen, t = feed_one(table, 0.0)
        assert not seen and table.stalled is not None
        assert sorted(table.deck()) == deck
        return
    table, deck, bays, t = a_pass(n, seed=seed, params=params, sp=sp)
    check_pass_and_restack(table, deck, bays, t)


@pytest.mark.parametrize("params,sp", _sample(12, 5),
                         ids=lambda v: v.label() if hasattr(v, "label") else str(v))
def test_a_pass_and_its_restack_hold_at_corners_of_the_ranges(params: Params,
                                                              sp: ShaftParams) -> None:
    pass_or_stall(params, sp, seed=3)


@pytest.mark.slow
def test_a_pass_and_its_restack_hold_at_every_corner() -> None:
    for params, sp in corners():
        pass_or_stall(params, sp, seed=4)


def test_the_riser_pulls_every_card_round_the_curl_at_every_corner() -> None:
    stalls = [p.label() + " " + s.label() for p, s in corners()
              if curl_drag_n(p, s, DEFAULT_SHAFT.curl_radius_mm) >= t1_grip_n(p, s)]
    assert stalls == []


def test_the_curl_stalls_a_card_only_where_its_drag_beats_t1s_grip() -> None:
    nominal = HandsFreeTable(rng=random.Random(1))
    assert not nominal.curl_stalls
    assert nominal.curl_drag_n < 0.5 * t1_grip_n(nominal.params, nominal.sp)
    stiff = ShaftParams(card_modulus_gpa=5.0, t1_idler_n=0.64)
    worst = Params(card_thickness_mm=0.32, mu_card_petg=0.4, mu_tyre_card=0.8)
    # the first design's 0.5 N idler would not pull this card round; the weakest of today's does
    assert curl_drag_n(worst, stiff, DEFAULT_SHAFT.curl_radius_mm) >= 0.5 * worst.mu_tyre_card
    assert not HandsFreeTable(params=worst, shaft_params=stiff).curl_stalls
    assert not HandsFreeTable(params=worst, shaft_params=ShaftParams()).curl_stalls


def test_the_corners_combine_the_feeds_with_the_shafts() -> None:
    feed = shuffler_ranges.corners()
    pairs = corners()
    assert {p for p, _ in pairs} == set(feed)
    assert len({s for _, s in pairs}) == 3
    assert len(corners(full=True)) == len(feed) * 2 ** len(SHAFT_RANGES)


def test_the_riser_runs_over_the_feed_and_carries_a_card_once_its_tail_leaves_the_nip() -> None:
    table = HandsFreeTable(rng=random.Random(1))
    table.load(list(range(52)))
    table.set_riser(True, 0.0)
    table.set_router(Pile.LEFT, 0.0)
    table.set_motor(True, 0.1)
    table.update(0.15)
    card = table._feeding.cards[-1]
    s0, x0 = table.card_s(card), table._roller.pos(0.15)
    table.update(0.17)
    assert table.card_s(card) < table.card_length  # still in the nip: the feed's speed
    assert table.card_s(card) - s0 == pytest.approx(
        (table._roller.pos(0.17) - x0) * table._units[0].scale)
    feed_speed = table._roller.speed(0.17)
    assert table.riser_free_mm_s() == pytest.approx(table.riser_drive.free_speed_mm_s(5.0))
    assert table.riser_free_mm_s() == pytest.approx(
        (1 + design.RISER_OVERDRIVE) * table.drive.free_speed_mm_s(5.0))
    seen, t = feed_one(table, 0.17)
    assert seen
    s1 = table.card_s(card)
    table.update(t + 0.02)
    speed = (table.card_s(card) - s1) / 0.02
    assert speed == pytest.approx(table.riser_speed_mm_s(), rel=1e-3)
    # slowed a little by the card's drag in the curl, still over the loaded feed's speed
    assert feed_speed < speed < table.riser_free_mm_s()


def test_a_stopped_riser_holds_its_cards_where_they_are() -> None:
    table = HandsFreeTable(rng=random.Random(1))
    table.load(list(range(52)))
    table.set_riser(True, 0.0)
    seen, t = feed_one(table, 0.0)
    assert seen
    table.set_riser(False, t)
    table.update(t + 0.5)
    card = table._units[0].cards[-1]
    held = table.card_s(card)
    table.update(t + 5.0)
    assert table.card_s(card) == pytest.approx(held, abs=0.05)
    assert not table.bay_pile(Bay.LOWER) and not table.bay_pile(Bay.UPPER)
    table.set_riser(True, t + 5.0)
    settle(table, t + 5.0)
    assert len(table.bay_pile(Bay.LOWER)) + len(table.bay_pile(Bay.UPPER)) == 1


def test_a_card_fed_into_one_held_on_a_stopped_riser_rams_it_and_stops() -> None:
    """The feed runs with the riser stopped: the first card leaves the nip and is held
    there; the next is driven into its tail (past the shingle every card leaves the tray
    with) and stops against it, overtaking nothing; when the riser runs both go on, in
    order, and nothing is lost."""
    table = HandsFreeTable(rng=random.Random(1))
    table.load(list(range(52)))
    table.set_router(Pile.LEFT, 0.0)
    table.set_motor(True, 0.0)
    table.update(2.0)
    assert table.rams == 1
    held, rammed = table._units
    assert held.phase == "riser" and rammed is table.rammed and not rammed.moves
    tail = table.card_s(held.cards[-1]) - held.length
    assert table.card_s(rammed.cards[-1]) == pytest.approx(tail + table.start_mm, abs=1e-3)
    table.update(5.0)  # the feed's tyre slips under it: it stays there
    assert table.card_s(rammed.cards[-1]) == pytest.approx(tail + table.start_mm, abs=1e-3)
    assert table.rams == 1 and table.bay_pile(Bay.LOWER) == []
    table.set_riser(True, 5.0)
    table.update(5.2)
    table.set_brake(5.2)
    table.set_motor(False, 5.25)
    settle(table, 5.25)
    assert table.rams == 1
    # the held card landed first, the rammed one on it (top first)
    assert table.bay_pile(Bay.LOWER)[-2:] == [rammed.cards[-1], held.cards[-1]]
    assert sorted(table.deck()) == list(range(52))


def test_a_running_riser_opens_the_gap_and_never_rams() -> None:
    """In a pass the riser outruns the feed: a whole pass of 52 cards to one bay, the
    feed running on, rams nothing."""
    table = HandsFreeTable(rng=random.Random(2))
    table.load(list(range(52)))
    table.set_riser(True, 0.0)
    table.set_router(Pile.LEFT, 0.0)
    table.set_motor(True, 0.05)
    settle(table, 0.05)
    assert table.rams == 0
    assert len(table.bay_pile(Bay.LOWER)) == 52


def test_a_pass_of_the_shaft_is_a_stable_split_with_the_upper_pile_on_top() -> None:
    """The sequence is the deck's own order in each bay (fed from the bottom, landing on
    top), the upper bay's pile on top after the drops: run_pass's mathematics."""
    table, deck, bays, t = a_pass(52, seed=9)
    reading, t = restack(table, t)
    assert tuple(table.tray) == handsfree.run_pass(deck, bays)
    assert tuple(table.tray) != handsfree.run_pass(deck, bays, handsfree.Restack(Bay.UPPER))


# --- the drops ----------------------------------------------------------------------------


def test_a_pile_falls_slowed_by_the_shafts_air_within_the_stated_figures() -> None:
    table, deck, bays, t = a_pass(52, seed=1)
    restack(table, t)
    lower, upper = table.landings
    assert lower.onto == "tray" and upper.onto == "tray"
    assert lower.height_mm == pytest.approx(table.shaft.lower_doors_z_mm)
    assert upper.height_mm == pytest.approx(
        table.shaft.upper_doors_z_mm - lower.cards * table.params.card_thickness_mm)
    for landing in (lower, upper):
        free_s = math.sqrt(2 * landing.height_mm / 9810.0)
        assert landing.fall_s > free_s  # the air slows it
        assert landing.speed_mm_s < math.sqrt(2 * 9810.0 * landing.height_mm)
        assert PILE_LANDING_MM_S[0] <= landing.speed_mm_s <= PILE_LANDING_MM_S[1]
        assert PILE_FALL_S[0] <= landing.fall_s <= PILE_FALL_S[1]


@pytest.mark.parametrize("sp", shaft_corners()[::9], ids=lambda s: s.label())
@pytest.mark.parametrize("thickness", [0.28, 0.32])
@pytest.mark.parametrize("cards", [24, 56])
def test_every_pile_of_a_pass_lands_within_the_stated_figures_across_the_ranges(
        sp: ShaftParams, thickness: float, cards: int) -> None:
    mass = Params(card_thickness_mm=thickness).card_mass_kg
    vt = terminal_speed_mm_s(cards, mass, DEFAULT_SHAFT, sp)
    lower = DEFAULT_SHAFT.lower_doors_z_mm
    upper = DEFAULT_SHAFT.upper_doors_z_mm - cards * thickness
    for height in (lower, upper):
        secs, speed = fall(height, vt)
        assert PILE_LANDING_MM_S[0] <= speed <= PILE_LANDING_MM_S[1], (height, vt)
        assert PILE_FALL_S[0] <= secs <= PILE_FALL_S[1], (height, vt)


def test_a_fall_without_air_is_free_fall_and_a_lighter_pile_falls_slower() -> None:
    secs, speed = fall(55.0, 1e9)
    assert secs == pytest.approx(math.sqrt(2 * 55.0 / 9810.0), rel=1e-4)
    assert speed == pytest.approx(math.sqrt(2 * 9810.0 * 55.0), rel=1e-4)
    light = terminal_speed_mm_s(1, 0.0018, DEFAULT_SHAFT, SHAFT_NOMINAL)
    heavy = terminal_speed_mm_s(52, 0.0018, DEFAULT_SHAFT, SHAFT_NOMINAL)
    assert fall(55.0, light)[0] > fall(55.0, heavy)[0]


def test_no_pile_slips_through_its_doors_before_the_controller_reckons() -> None:
    """The controller times the upper doors by a pile leaving its leaves no sooner than
    PILE_SLIPS_DEG open: at every corner (the most flex of the cards, the widest and the
    narrowest cards) the simulated pile slips only there or later."""
    slips = set()
    for params in shuffler_ranges.corners():
        for flex in SHAFT_RANGES["slip_flex_mm"]:
            table = HandsFreeTable(rng=random.Random(1), params=params,
                                   shaft_params=ShaftParams(slip_flex_mm=flex))
            slips.add(round(table.slip_deg, 2))
            assert table.slip_deg >= handsfree.PILE_SLIPS_DEG, (params.label(), flex)
    assert max(slips) < DOOR_SWING_DEG


def test_the_doors_open_only_past_the_slip_angle_after_the_servos_swing() -> None:
    table, deck, bays, t = a_pass(52, seed=2)
    table.set_doors(Bay.LOWER, True, t)
    swing = servo_frame_s(t) + table.slip_deg / 60.0 * table.sp.servo_s_per_60
    table.update(t + swing - 0.005)
    assert table.doors_hold(Bay.LOWER) and not table.door_open(Bay.LOWER)
    table.update(t + swing + 0.001)
    assert not table.doors_hold(Bay.LOWER) and table.door_open(Bay.LOWER)
    assert 75 < table.slip_deg < 90


def test_a_servo_starts_at_the_end_of_the_pwm_cycle_under_way() -> None:
    """The PCA9685 takes a new pulse up only at the end of its 20 ms cycle: a door commanded
    just after a cycle begins starts almost a whole frame later than one commanded just
    before it ends."""
    table, deck, bays, t = a_pass(52, seed=2)
    early = (math.floor(t / SERVO_FRAME_S) + 1) * SERVO_FRAME_S + 0.001  # just into a cycle
    late = early + SERVO_FRAME_S - 0.002  # just before that cycle ends
    assert servo_frame_s(early) == pytest.approx(SERVO_FRAME_S - 0.001, abs=1e-9)
    assert servo_frame_s(late) == pytest.approx(0.001, abs=1e-9)
    starts = []
    for at in (early, late):
        table2, *_ = a_pass(52, seed=2)
        table2.update(at)
        table2.set_doors(Bay.LOWER, True, at)
        door = table2.doors[Bay.LOWER]
        starts.append(door.start - at)
        # still shut until its frame ends, then turning at its servo's speed
        assert door.angle(at + starts[-1]) == 0.0
        assert door.angle(at + starts[-1] + 0.01) > 0.0
    assert starts[0] > 0.018 and starts[1] < 0.002


def test_the_upper_pile_lands_on_the_lower_doors_while_they_are_closed() -> None:
    table, deck, bays, t = a_pass(52, seed=2)
    piles = handsfree.deal(deck, bays)
    table.set_doors(Bay.UPPER, True, t)
    t = settle(table, t + 0.5)
    assert table.doors_hold(Bay.LOWER) and not table.doors_hold(Bay.UPPER)
    assert tuple(table.bay_pile(Bay.LOWER)) == piles.upper + piles.lower
    assert table.tray == [] and table.landings[-1].onto == "lower"
    table.set_doors(Bay.LOWER, True, t)
    settle(table, t + 0.5)
    assert tuple(table.tray) == handsfree.run_pass(deck, bays)


def test_the_load_cell_counts_the_tray_after_it_settles() -> None:
    table, deck, bays, t = a_pass(52, seed=2)
    # the press down on the empty tray weighs on the load cell (about 140 cards' weight):
    # the machine weighs with it lifted out
    on = table.tray_cards(t + 1.0)
    assert on == pytest.approx(table.press_g / table.card_weight_g, abs=0.2) and on > 100
    t = press(table, True, t + 1.0)
    assert table.tray_cards(t) is None  # its weight has just left: settling
    assert table.tray_cards(t + 1.0) == pytest.approx(0.0, abs=0.2)
    table.set_doors(Bay.LOWER, True, t + 1.0)
    landed = settle(table, t + 1.5)
    at = table.landings[-1]
    assert table.tray_cards(t + 1.0 + 0.2 + at.fall_s) is None  # still settling
    count, _ = weigh(table, landed)
    assert count == handsfree.BayCounts.of(bays).lower


def test_a_pile_falling_past_the_skew_beam_breaks_it_for_a_moment() -> None:
    table, deck, bays, t = a_pass(52, seed=2)
    table.set_doors(Bay.LOWER, True, t)
    table.update(t + 0.15)
    drop_start = t + servo_frame_s(t) + table.slip_deg / 60 * table.sp.servo_s_per_60
    broken = [table.skewed(drop_start + k * 0.005) for k in range(40)]
    assert any(broken) and not broken[-1]


# --- faults -------------------------------------------------------------------------------


def test_a_double_feed_is_a_miscount_of_its_pass() -> None:
    table = HandsFreeTable(rng=random.Random(1), double_at=10)
    deck = list(range(52))
    table.load(deck)
    bays = plan_bays(52, 1)
    table.set_riser(True, 0.0)
    t, sensed = 0.0, []
    for bay in bays:
        if not table.tray and table._feeding is None:
            break
        table.set_router(ROUTER_PILE[bay], t)
        seen, t = feed_one(table, t + table.router_settle_s)
        assert seen
        sensed.append(bay)
        t += CLEAR_S
    settle(table, t)
    assert len(sensed) == 51  # two cards went as one
    check = handsfree.verify_pass(handsfree.BayCounts.of(bays), handsfree.BayCounts.of(sensed))
    assert check.finding is handsfree.Finding.MISCOUNT
    assert sorted(table.deck()) == deck  # no card lost


@pytest.mark.parametrize("frees", [True, False])
def test_a_card_stalled_on_the_rise_is_freed_by_the_riser_or_taken_out_by_the_player(
        frees: bool) -> None:
    table = HandsFreeTable(rng=random.Random(1), stall_at=5, stall_frees=frees)
    deck = list(range(52))
    table.load(deck)
    bays = plan_bays(52, 1)
    table.set_riser(True, 0.0)
    t = 0.0
    for bay in bays[:4]:
        table.set_router(ROUTER_PILE[bay], t)
        seen, t = feed_one(table, t + table.router_settle_s)
        assert seen
        t += CLEAR_S
    table.set_router(ROUTER_PILE[bays[4]], t)
    seen, t = feed_one(table, t + table.router_settle_s)
    assert not seen  # stalled in the curl, short of its beam
    assert table.stalled is not None and table.cards_in_tray()
    stuck = table.stalled.cards[-1]
    # run the riser again
    table.set_riser(False, t)
    table.set_riser(True, t + 0.2)
    edges = table.update(t + 1.2)
    if frees:
        assert any(e.blocked and e.pile is ROUTER_PILE[bays[4]] for e in edges)
        t = settle(table, t + 1.2)
        assert table.bay_pile(bays[4])[0] == stuck
    else:
        assert edges == [] and table.stalled is not None
        table.set_lid(False, t + 2.0)
        table.take_stalled()
        table.set_lid(True, t + 5.0)
        assert table.tray[0] == stuck and table.stalled is None
        assert not table._units
    assert sorted(table.deck()) == deck


@pytest.mark.parametrize("caught", [3, 20])
def test_a_pile_caught_on_a_door_shows_on_its_door_sensor_and_the_load_cell(caught: int
                                                                           ) -> None:
    """A pile caught on the lower doors breaks their beam; a few cards flat on them pass
    under it, and the load cell alone sees them missing."""
    table, deck, bays, t = a_pass(52, seed=1, catch_at=1, catch_cards=caught, catch_frees=1)
    counts = handsfree.BayCounts.of(bays)
    reading, t = restack(table, t)
    seen = caught * table.params.card_thickness_mm >= table.shaft.door_beam_top_mm
    assert seen is (caught == 20)
    assert reading.steps[0].lower_holds is seen
    assert reading.steps[0].tray_cards == counts.lower - caught
    check = handsfree.verify_restack(counts, reading)
    assert check.finding is handsfree.Finding.CARDS_LEFT
    assert check.recovery is handsfree.Recovery.RETRY_DOORS
    # close and open the doors again: the caught cards fall
    t = close_doors(table, t)
    table.set_doors(Bay.LOWER, True, t)
    t = settle(table, t + 0.5)
    count, t = weigh(table, t)
    assert count == 52 and not table.doors_hold(Bay.LOWER)
    assert sorted(table.tray) == deck


def test_the_door_beams_see_the_piles_the_controller_counts_on() -> None:
    """The simulator's beam and the controller's least pile it sees agree, at the thinnest
    and the thickest cards of the ranges."""
    top = DEFAULT_SHAFT.door_beam_top_mm
    lo, hi = shuffler_ranges.RANGES["card_thickness_mm"]
    assert math.ceil(top / lo - 1e-9) == handsfree.DOOR_BEAM_CARDS
    assert math.ceil(top / hi - 1e-9) <= handsfree.DOOR_BEAM_CARDS


def test_a_pile_caught_for_good_is_freed_by_the_player() -> None:
    table, deck, bays, t = a_pass(52, seed=1, catch_at=2, catch_cards=20, catch_frees=99)
    reading, t = restack(table, t)
    counts = handsfree.BayCounts.of(bays)
    assert reading.steps[1].upper_holds and reading.steps[1].tray_cards == 32
    check = handsfree.verify_restack(counts, reading)
    assert check.finding is handsfree.Finding.CARDS_LEFT
    for _ in range(2):
        t = close_doors(table, t)
        table.set_doors(Bay.UPPER, True, t)
        t = settle(table, t + 0.5)
        assert table.doors_hold(Bay.UPPER)
    table.set_lid(False, t)
    table.free_caught()
    table.set_lid(True, t + 3.0)
    count, _ = weigh(table, t + 3.0)
    assert count == 52 and not table.doors_hold(Bay.UPPER)


def test_a_pile_that_lands_skewed_breaks_the_skew_beam_until_the_deck_is_squared() -> None:
    table, deck, bays, t = a_pass(52, seed=1, skew_at=2)
    reading, t = restack(table, t)
    assert handsfree.verify_restack(handsfree.BayCounts.of(bays), reading).ok
    assert table.skewed(t + 1.0)
    table.square_deck()
    assert not table.skewed(t + 1.0)


def test_a_dead_door_servo_leaves_its_pile_in_the_bay() -> None:
    table, deck, bays, t = a_pass(52, seed=1, dead_door=Bay.LOWER)
    counts = handsfree.BayCounts.of(bays)
    reading, t = restack(table, t)
    assert reading.steps[0].tray_cards == 0 and reading.steps[0].lower_holds
    check = handsfree.verify_restack(counts, reading)
    assert check.finding is handsfree.Finding.CARDS_LEFT
    assert table.tray == [] and len(table.bay_pile(Bay.LOWER)) == 52


def test_swapped_door_leads_show_the_upper_bay_emptying_first() -> None:
    """The shaft keeps its order (the upper pile cannot pass the closed lower doors), but
    the sensors see the doors out of turn: the check calls it a wrong order."""
    table, deck, bays, t = a_pass(52, seed=1, swapped_doors=True)
    reading, t = restack(table, t)
    check = handsfree.verify_restack(handsfree.BayCounts.of(bays), reading)
    assert check.finding is handsfree.Finding.WRONG_ORDER
    assert tuple(table.tray) == handsfree.run_pass(deck, bays)


def test_a_machine_built_to_restack_wrong_makes_the_other_deck_and_the_load_cell_sees_it() -> None:
    """The flap fitted the other way up with the beams swapped to match: every card
    arrives where the controller expects and the counts hold, but the pile planned for the
    top lands first. The tray's count after the first doors is the other pile's."""
    for seed in range(20):
        table, deck, bays, t = a_pass(52, seed=seed, bays_swapped=True)
        counts = handsfree.BayCounts.of(bays)
        if counts.upper != counts.lower:
            break
    assert counts.upper != counts.lower
    assert table.flap_hits == 0
    reading, t = restack(table, t)
    assert reading.steps[0].tray_cards == counts.upper
    wrong = handsfree.run_pass(deck, bays, handsfree.Restack(Bay.UPPER))
    assert tuple(table.tray) == wrong != handsfree.run_pass(deck, bays)
    check = handsfree.verify_restack(counts, reading)
    assert not check.ok and check.recovery is handsfree.Recovery.PROMPT


# --- the lid ------------------------------------------------------------------------------


def test_opening_the_lid_stops_every_motion_until_it_closes() -> None:
    table = HandsFreeTable(rng=random.Random(1))
    deck = list(range(52))
    table.load(deck)
    table.set_riser(True, 0.0)
    table.set_router(Pile.RIGHT, 0.0)
    table.set_motor(True, 0.05)
    table.update(0.1)
    card = table._units[0].cards[-1]
    # the lid opens with the feed, the riser and the router commanded on, a door swinging
    table.set_doors(Bay.UPPER, True, 0.1)
    table.set_lid(False, 0.15)
    assert not table.lid
    table.update(1.0)  # run down
    held, doors = table.card_s(card), table.doors[Bay.UPPER].angle(1.0 * table.speed)
    assert 0 < doors < 90
    edges = table.update(10.0)
    assert edges == [] and table.card_s(card) == pytest.approx(held, abs=0.05)
    assert table.doors[Bay.UPPER].angle(10.0 * table.speed) == doors
    assert table.router is Pile.LEFT  # the solenoid's spring, without power
    # closed: each part takes its command again; the card goes on to its bay
    table.set_lid(True, 10.0)
    table.set_doors(Bay.UPPER, False, 10.0)
    assert table.router is Pile.RIGHT
    table.update(10.01)
    assert table.card_s(card) > held + 2
    table.set_motor(False, 10.01)
    settle(table, 10.01)
    assert table.bay_pile(Bay.UPPER)[-1] == card


def test_commands_with_the_lid_open_move_nothing() -> None:
    table = HandsFreeTable(rng=random.Random(1))
    table.load(list(range(52)))
    table.set_lid(False, 0.0)
    table.set_riser(True, 0.1)
    table.set_motor(True, 0.1)
    table.set_doors(Bay.LOWER, True, 0.1)
    table.update(5.0)
    assert table.fed == 0 or table.card_s(table._units[0].cards[-1]) == table.start_mm
    assert table.doors[Bay.LOWER].angle(5.0 * table.speed) == 0.0


# --- the controller's view ----------------------------------------------------------------


def test_the_mechanism_drives_the_table_and_reads_its_sensors() -> None:
    from hardware.clock import FakeClock

    clock = FakeClock()
    table = HandsFreeTable(rng=random.Random(1))
    mech = table.mechanism(clock)
    assert isinstance(mech, HandsFreeTableMechanism)
    table.load(list(range(52)))
    assert mech.lid_closed() and mech.tray_loaded()
    mech.set_riser(True)
    mech.set_router(Pile.RIGHT)
    mech.set_motor(True)
    arrivals: list[Pile] = []
    seen_at = {}  # the upper door sensor at each count of cards in the upper bay
    for _ in range(100_000):
        nxt = mech.update(clock.monotonic())
        arrivals += mech.take_arrivals()
        seen_at[len(table.bay_pile(Bay.UPPER))] = mech.doors_hold(Bay.UPPER)
        if len(arrivals) == 30:
            break
        assert nxt is not None
        clock.advance(max(nxt - clock.monotonic(), 1e-4))
    assert arrivals == [Pile.RIGHT] * 30
    mech.set_motor(False)
    for _ in range(50):
        clock.advance(0.05)
        mech.update(clock.monotonic())
    assert mech.doors_hold(Bay.UPPER) and not mech.doors_hold(Bay.LOWER)
    # its beam is broken once the pile covers it: a few cards lie under it
    least = math.ceil(table.shaft.door_beam_top_mm / table.params.card_thickness_mm - 1e-9)
    assert {n for n, seen in seen_at.items() if seen} == set(range(least, max(seen_at) + 1))
    for pose in (PressPose.LIFTED, PressPose.OUT):  # out of the way, off the load cell
        mech.set_press(pose)
        clock.advance(0.5)
    mech.set_doors(Bay.UPPER, True)
    mech.set_doors(Bay.LOWER, True)
    count = None
    for _ in range(40):
        clock.advance(0.05)
        mech.update(clock.monotonic())
        count = mech.tray_cards()
    assert count is not None and round(count) == 52
    assert not mech.doors_hold(Bay.UPPER) and not mech.skewed()
    mech.close()
    assert not table.riser_on and not table.motor


@pytest.mark.parametrize("n", [52, 104])
def test_the_lotus_controller_runs_a_pass_over_the_hands_free_machine(n: int) -> None:
    """The shared controller, timed as calibrate measures this machine (its riser running),
    sends every card to a bay and counts it there; each bay holds its cards in the deck's
    own order, and the router never moves under a card."""
    from hardware.clock import FakeClock
    from hardware.interfaces import DeviceState
    from hardware.shuffler.controller import ShufflerController
    from hardware.shuffler.simulator import measured_timing

    table = HandsFreeTable(rng=random.Random(3), params=Params(cards=n))
    timing = measured_timing(table, handsfree.HANDSFREE_ROUTER.settle_s)
    clock = FakeClock()
    mech = table.mechanism(clock, timing.sensor_filter)
    controller = ShufflerController(mech, clock, rng=random.Random(5), timing=timing)
    controller.open()
    table.load(list(range(n)))
    mech.set_riser(True)
    controller.shuffle(n, "exact")
    controller.run_until_settled(max_seconds=600)
    status = controller.status()
    assert status.state is DeviceState.WAITING and status.fault is None
    settle(table, clock.monotonic())
    upper, lower = table.bay_pile(Bay.UPPER), table.bay_pile(Bay.LOWER)
    assert len(upper) + len(lower) == n and upper and lower
    assert upper == sorted(upper) and lower == sorted(lower)
    assert table.flap_hits == 0


def test_a_stop_commanded_while_the_lid_is_open_holds_when_it_closes() -> None:
    from hardware.clock import FakeClock

    clock = FakeClock()
    table = HandsFreeTable(rng=random.Random(1))
    mech = table.mechanism(clock)
    table.load(list(range(52)))
    mech.set_riser(True)
    mech.set_motor(True)
    clock.advance(0.05)
    mech.update(clock.monotonic())
    table.set_lid(False, clock.monotonic())
    assert not mech.lid_closed()
    mech.set_motor(False)
    mech.set_riser(False)
    clock.advance(2.0)
    mech.update(clock.monotonic())
    mech.take_arrivals()  # the card the run-down carried to its beam, lid open
    table.set_lid(True, clock.monotonic())
    fed = table.fed
    clock.advance(3.0)
    assert mech.update(clock.monotonic()) is None or table.fed == fed
    assert table.fed == fed and not table.motor and mech.take_arrivals() == []


def test_the_path_and_the_drops_follow_the_shafts_own_dimensions() -> None:
    from dataclasses import replace

    shaft = replace(DEFAULT_SHAFT, flap_mm=52.0, lower_slot_mm=150.0, upper_slot_mm=260.0,
                    lower_doors_z_mm=60.0)
    table = HandsFreeTable(rng=random.Random(1), shaft=shaft)
    assert table.flap_mm == 52.0
    assert table.land_mm[Pile.LEFT] == 150.0 + table.card_length
    assert table.land_mm[Pile.RIGHT] == 260.0 + table.card_length
    deck = list(range(52))
    table.load(deck)
    bays = plan_bays(52, 1)
    t = drive_pass(table, bays)
    check_pass_and_restack(table, deck, bays, t)
    assert table.landings[0].height_mm == pytest.approx(60.0)


def test_bad_faults_and_calibrations_are_refused_by_name() -> None:
    from hardware.errors import ShufflerError

    with pytest.raises(ShufflerError, match="caught pile"):
        HandsFreeTable(catch_cards=-1)
    with pytest.raises(ShufflerError, match="card weight"):
        HandsFreeTable(card_weight_g=0.0)


def test_a_load_cell_calibrated_on_another_deck_miscounts_a_full_tray() -> None:
    """Weighed against 1.8 g, a deck of the thickest cards (1.92 g) reads 3 cards heavy
    at 52: the count the restack check trusts needs the deck's own card weight."""
    table = HandsFreeTable(rng=random.Random(1), params=Params(card_thickness_mm=0.32),
                           card_weight_g=1.8)
    table.load(list(range(52)))
    table.set_press(PressPose.LIFTED, 0.0)  # weighed with the press off the deck
    count = table.tray_cards(5.0)
    assert count is not None and round(count) == 55


# ----- the press -----


@pytest.mark.parametrize("lifted", [False, True])
def test_the_tyre_grips_a_full_deck_at_the_rough_corner_only_under_the_press(lifted: bool
                                                                            ) -> None:
    """Under 104 cards at the rough end of the frictions the deck's own weight, half of it
    on the tyre, gives too little grip against the cards above: the bottom card moves only
    with the press down on the deck."""
    rough = Params(cards=104, mu_card_card=0.5, mu_card_petg=0.4, mu_tyre_card=0.8)
    table = HandsFreeTable(rng=random.Random(1), params=rough)
    table.load(list(range(104)))
    t = press(table, lifted, 0.0)
    table.set_riser(True, t)
    seen, _ = feed_one(table, t)
    assert seen is not lifted


def test_doors_opened_before_the_press_is_out_strike_it() -> None:
    table, _deck, _bays, t = a_pass(52, seed=3)
    assert table.press_down(t)
    table.set_doors(Bay.UPPER, True, t)  # over the shut lower doors: nowhere near it
    table.update(t + 0.5)
    assert table.press_hits == 0
    table.set_doors(Bay.LOWER, True, t + 0.5)
    table.update(t + 1.0)
    assert table.press_hits == 1
    table.set_doors(Bay.LOWER, False, t + 1.0)
    t = press(table, True, t + 1.5)  # out first, as the controller does
    table.set_doors(Bay.LOWER, True, t)
    table.update(t + 1.0)
    assert table.press_hits == 1


@pytest.mark.parametrize("servo_s_per_60", SHAFT_RANGES["servo_s_per_60"])
def test_the_press_comes_in_only_once_the_lower_leaves_are_out_of_its_way(
        servo_s_per_60: float) -> None:
    """Commanded down as the leaves start to close, the press meets them in the shaft;
    commanded the restack's `press_in_s` after them it does not, with the slowest leaves
    or the fastest press of the ranges."""
    build = handsfree.DEFAULT_RESTACK
    for wait, hits in ((0.0, 1), (build.press_in_s, 0)):
        table = HandsFreeTable(shaft_params=ShaftParams(servo_s_per_60=servo_s_per_60))
        t = press(table, True, 0.0)
        table.set_doors(Bay.LOWER, True, t)
        table.update(t + 1.0)
        table.set_doors(Bay.LOWER, False, t + 1.0)
        table.set_press(PressPose.LIFTED, t + 1.0 + wait)  # turned in, then let down
        press_to(table, PressPose.DOWN, t + 1.5 + wait)
        table.update(t + 3.0)
        assert table.press_down(t + 3.0) and table.doors[Bay.LOWER].angle(t + 3.0) == 0
        assert table.press_hits == hits, wait


def test_the_press_turns_only_at_the_top_of_its_lift() -> None:
    """The turn's lever takes the press's pin only at the top of the lift: a pose at a time
    (down, lifted, out and back) nothing jams; turned out straight from the deck, or let
    down while turned out, it jams, once for each such move."""
    table = HandsFreeTable()
    t = press(table, True, 0.0)
    t = press(table, False, t)
    assert table.press_jams == 0
    table.set_press(PressPose.OUT, t)  # both servos at once: the turn starts too soon
    table.update(t + 2.0)
    assert table.press_jams == 1 and table.press_out(t + 2.0)
    table.set_press(PressPose.DOWN, t + 2.0)  # lowered under the turned press
    table.update(t + 4.0)
    assert table.press_jams == 2


@pytest.mark.parametrize("cards", [0, 1, 26, 52, 78, 104])
@pytest.mark.parametrize("thickness", shuffler_ranges.RANGES["card_thickness_mm"])
def test_the_press_bears_on_a_deck_once_the_horn_passes_under_it(cards: int,
                                                                 thickness: float) -> None:
    """Let down from the top, the press bears on the deck (its force on the feed, its
    weight on the load cell) as soon as the lift's horn passes under it, before the horn's
    rest, the higher the deck the sooner; the restack's wait for it covers the slowest
    servo of the ranges at every deck and card, and the press is on the deck by then."""
    slowest = max(SHAFT_RANGES["servo_s_per_60"])
    table = HandsFreeTable(shaft_params=ShaftParams(servo_s_per_60=slowest),
                           params=Params(card_thickness_mm=thickness))
    table.load(list(range(cards)))
    t = press_to(table, PressPose.LIFTED, 0.0)
    assert not table.press_down(t)
    table.set_press(PressPose.DOWN, t)
    landed = next(k / 1000 for k in range(2000) if table.press_down(t + k / 1000))
    rest = table.press_lift.time_to(0.0)
    assert rest is not None
    if cards >= 26:
        assert landed < rest - t - 0.05  # well before the horn's rest
    assert landed <= handsfree.DEFAULT_RESTACK.press_lands_s(cards) + 1e-3


def test_the_controller_waits_for_the_slowest_press_servo_of_the_ranges() -> None:
    """Nothing senses the press: the restack's wait for it covers the slowest SG90."""
    slowest = max(SHAFT_RANGES["servo_s_per_60"])
    table = HandsFreeTable(shaft_params=ShaftParams(servo_s_per_60=slowest))
    t = press(table, True, 0.0)
    assert t <= handsfree.DEFAULT_RESTACK.press_s + 1e-9


def test_a_reading_taken_while_the_doors_swing_is_shaken_and_one_after_is_not() -> None:
    """The doors' swing shakes the load cell: a reading whose samples overlap it errs by up
    to the shaft's door_shake_g; once they are still, it is the count."""
    off = 0
    for seed in range(12):
        table, deck, bays, t = a_pass(52, seed=seed, sp=ShaftParams(door_shake_g=4.0))
        reading, t = restack(table, t)
        t = settle(table, t + 0.5)
        count, t = weigh(table, t + 1.0)
        assert count == 52
        for bay in Bay:
            table.set_doors(bay, False, t)
        swinging = t + 0.1
        assert table.doors_swung(swinging - 0.2, swinging)
        shaken = table.tray_cards(swinging)
        assert shaken is not None and abs(shaken - 52) <= 4.0 / table.card_weight_g + 0.2
        off += abs(shaken - 52) > 0.5
        still = t + 0.020 + 90.0 / 60.0 * table.sp.servo_s_per_60 + 0.2 + 1e-3
        assert not table.doors_swung(still - 0.2, still)
        assert table.tray_cards(still) == pytest.approx(52, abs=0.2)
    assert off >= 3  # a shaken reading would miscount the deck
