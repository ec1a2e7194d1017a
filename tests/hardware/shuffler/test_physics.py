"""The shuffler against its physics: whole passes of 52 and 104 cards through GpioShuffler on
gpiozero MockFactory pins, the physics simulator behind them, at the nominal build and at
every corner of the parameter ranges (hardware.shuffler.ranges), each after the simulated
calibrate of that machine; real faults caught at every corner; and the failures the physics
can show (a deck that slows its own cards, a card that stops unseen, a motor that coasts, a
gate that feeds none or two, a card that stands up in its bay). FakeClock: nothing sleeps."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import FakeClock
from hardware.interfaces import DeviceState
from hardware.shuffler import design
from hardware.shuffler.controller import Timing
from hardware.shuffler.gpio import GpioShuffler, router_settle_s
from hardware.shuffler.mockrig import MockRig
from hardware.shuffler.physics import (
    cards_fed,
    feed_load,
    stand_up_speed_mm_s,
    tyre_share,
)
from hardware.shuffler.ranges import NOMINAL, RANGES, Params, corners
from hardware.shuffler.simulator import ShufflerTable, measured_timing

from .conftest import PINS, one_gpio_pass

PINS_BRAKE = {**PINS, "router_kind": "servo"}
CORNERS = corners()
MACHINES = [p for p in CORNERS if p.cards == 52]


class Machine:
    """A GpioShuffler on mock pins, calibrated on the simulated machine behind them."""

    def __init__(self, params: Params, seed: int = 1, pins: dict[str, Any] | None = None,
                 timing: Timing | None = None, **table: Any) -> None:
        self.pins = dict(PINS_BRAKE if pins is None else pins)
        self.clock = FakeClock()
        self.factory = MockFactory(pin_class=MockPWMPin)
        settle = router_settle_s(self.pins)
        self.table = ShufflerTable(params=params, rng=random.Random(seed),
                                   router_settle_s=settle, **table)
        # `crib shuffler calibrate` on this machine: a full tray, each card timed
        self.timing = timing or measured_timing(self.table, settle)
        self.shuffler = GpioShuffler(self.pins, self.clock, pin_factory=self.factory,
                                     rng=random.Random(seed + 1), timing=self.timing)
        self.shuffler.open()
        self.rig = MockRig(self.shuffler, self.table, self.factory, self.clock)

    def one_pass(self, cards: int) -> None:
        """Load `cards`, run one pass to its end (or a fault), let the cards come to rest."""
        one_gpio_pass(self.shuffler, self.rig, self.table, self.clock, cards)

    def assert_clean(self, cards: int) -> None:
        """Every card counted on its pile, no fault, nothing stopped unseen."""
        st, t = self.shuffler.status(), self.table
        assert st.fault is None and st.state is DeviceState.WAITING, st.fault
        assert st.cards_this_pass == cards and sum(st.pile_counts) == cards
        assert sorted(t.piles["left"] + t.piles["right"]) == list(range(cards))
        assert st.pile_counts == (len(t.piles["left"]), len(t.piles["right"]))
        assert t.unseen_stops == 0 and t.flap_hits == 0 and t.stood_up == 0
        assert self.shuffler.mechanism.glitches == 0 and not self.shuffler.mechanism.motor_driven


def _label(p: Params) -> str:
    return p.label().replace(" ", ",")


# --- every corner ------------------------------------------------------------------------


@pytest.mark.parametrize("params", [NOMINAL, NOMINAL.with_(cards=104)], ids=_label)
def test_the_nominal_build_shuffles_a_whole_pass(params):
    m = Machine(params)
    m.one_pass(params.cards)
    m.assert_clean(params.cards)
    # each card's speed falls with the deck over it, and the controller knew it would
    t = m.timing
    assert t.card_speed(*_right(), params.cards) < t.card_speed(*_right(), 1)


def _right() -> tuple[Any, ...]:
    from hardware.shuffler.plan import Pile

    return (Pile.RIGHT,)


@pytest.mark.parametrize("params", CORNERS, ids=_label)
def test_every_corner_shuffles_a_whole_pass(params):
    """No false double feed, no false stuck card, no card left unseen in a branch, every
    card counted: 52 and 104 cards on each of the 128 machines of the ranges' corners."""
    m = Machine(params)
    m.one_pass(params.cards)
    m.assert_clean(params.cards)


@pytest.mark.parametrize("params", MACHINES, ids=_label)
def test_every_corner_catches_a_real_double_feed_and_a_stuck_card(params):
    # two cards dragged through together: held under the beam by the braked roller (or off
    # it, one block of 1.5 cards): the pass stops at that card
    m = Machine(params, double_at=6)
    m.one_pass(params.cards)
    fault = m.shuffler.fault
    assert fault is not None and fault.kind in ("stuck", "double_feed") and fault.card == 6
    assert not m.shuffler.mechanism.motor_driven
    # a card that stops under its beam
    m = Machine(params, stick_at=9)
    m.one_pass(params.cards)
    fault = m.shuffler.fault
    assert fault is not None and fault.kind == "stuck" and fault.card == 9
    assert not m.shuffler.mechanism.motor_driven


def test_corners_cover_every_end_of_every_range():
    assert len(CORNERS) == 2 ** len(RANGES) * 2
    for name, (lo, hi) in RANGES.items():
        assert {getattr(p, name) for p in CORNERS} == {lo, hi}
    assert {p.cards for p in CORNERS} == {52, 104}


# --- what the physics can fail -----------------------------------------------------------

# A drive chosen by speed, not torque: an N20 with a 10:1-class gearbox (about 18 mN m
# stall at 6 V, docs/shuffler-mechanics.md), a 30 mm roller and no press; at a corner where
# its tyre still grips, a 52-card deck slows the first card by about 30 %.
OLD_DRIVE = design.DriveBuild(no_load_rpm=900.0, stall_n_m=0.018, roller_diameter_mm=30.0,
                              press_n=0.0)
GRIPPY = NOMINAL.with_(mu_card_card=0.3, mu_card_petg=0.2, mu_tyre_card=1.2)


def test_a_deck_slows_its_own_cards():
    from hardware.shuffler.physics import roller_speed_mm_s

    share = tyre_share(ShufflerTable().geometry)
    full = roller_speed_mm_s(GRIPPY, 51, OLD_DRIVE, share)
    empty = roller_speed_mm_s(GRIPPY, 0, OLD_DRIVE, share)
    assert 0.2 < 1 - full / empty < 0.45


def test_calibrating_on_a_few_light_cards_fails_a_full_deck_and_a_full_deck_does_not():
    """The old calibrate measured 12 cards with an almost empty tray and timed every card
    of the pass by their one speed: the first card, under the whole deck, blocks its beam
    longer than a double feed's limit. Judged against its own speed it passes."""
    from hardware.shuffler.calibrate import measure_cards
    from hardware.shuffler.simulator import _TableMechanism

    table = ShufflerTable(params=GRIPPY, drive=OLD_DRIVE, rng=random.Random(3))
    twin = table.twin()
    twin.load(list(range(12)))
    clock = FakeClock()
    settle = router_settle_s(PINS_BRAKE)
    times = measure_cards(_TableMechanism(twin, clock), clock, 12, router_move_s=settle)
    blocks = sorted(c.block_s for c in times)
    light = Timing.for_speed(design.CARD_LENGTH_MM / blocks[len(blocks) // 2], settle)
    m = Machine(GRIPPY, seed=3, timing=light, drive=OLD_DRIVE)
    m.one_pass(52)
    fault = m.shuffler.fault
    assert fault is not None and fault.kind == "double_feed" and fault.card <= 2
    m = Machine(GRIPPY, seed=3, drive=OLD_DRIVE)  # calibrated over the full deck
    m.one_pass(52)
    m.assert_clean(52)


def test_a_motor_that_can_only_coast_runs_the_next_card_on_under_the_moving_flap():
    """IN2 tied to ground: each stop coasts for the motor's run-down, the roller draws the
    next card on until it reaches the flap while the router is still moving."""
    coast = {k: v for k, v in PINS_BRAKE.items() if k != "brake"}
    m = Machine(NOMINAL, pins=coast)
    m.one_pass(52)
    assert m.table.flap_hits > 5
    m = Machine(NOMINAL)
    m.one_pass(52)
    m.assert_clean(52)
    brake = m.factory.pin(PINS_BRAKE["brake"])
    assert [bool(s.state) for s in brake.states] == [False] + [True, False] * 52


def test_no_card_of_the_default_build_is_too_slow_for_its_branch():
    """A card that leaves the roller slower than its path's slopes and friction carry it
    stops short of its bay; the slowest card of the default build at the worst corner is
    faster than the slowest speed the path supports at the worst friction."""
    from hardware.shuffler.physics import reaches_bay, roller_speed_mm_s, slowest_card_speed_mm_s

    table = ShufflerTable()
    g, worst_mu = table.geometry, RANGES["mu_card_petg"][1]
    floor = slowest_card_speed_mm_s(g, worst_mu)
    slowest = min(roller_speed_mm_s(p, p.cards - 1, table.drive, table.share) for p in CORNERS)
    assert slowest > floor, (slowest, floor)
    # a card too slow for a path that slows it does stop
    if floor > 0:
        assert not reaches_bay(g, "right", 0.9 * floor, worst_mu)


def test_the_gate_feeds_one_card_none_or_two_by_its_opening():
    assert cards_fed(0.25, 0.30) == 0  # the card butts the blade: a jam
    assert cards_fed(0.40, 0.30) == 1
    assert cards_fed(0.45, 0.28) == 2  # the old 0.45 mm gap drags a thin card's neighbour
    table = ShufflerTable()
    g = table.geometry
    lo, hi = RANGES["card_thickness_mm"]
    # the default gate feeds one card of every thickness in the range
    assert cards_fed(g.card_gap_at_gate, lo) == 1 and cards_fed(g.card_gap_at_gate, hi) == 1
    # a gate that drags a second card: every feed is a double, caught at card 1
    m = Machine(NOMINAL)
    m.table.gate_cards = 2
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.card == 1
    # a gate that passes none: the first card never comes, a jam
    m = Machine(NOMINAL)
    m.table.gate_cards = 0
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind == "jam"


def test_a_tyre_that_slips_feeds_nothing_and_the_jam_is_caught():
    bare = design.DriveBuild(press_n=0.0)
    rough = NOMINAL.with_(mu_card_card=0.5, mu_tyre_card=0.8)
    share = tyre_share(ShufflerTable().geometry)
    assert feed_load(rough, 51, bare, share).slips
    m = Machine(rough, drive=bare, timing=measured_timing(ShufflerTable(params=NOMINAL),
                                                          router_settle_s(PINS_BRAKE)))
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind == "jam"
    assert m.shuffler.fault.card == 1


def test_a_card_too_fast_at_the_end_wall_stands_up_and_swaps_with_the_next():
    """The steep branches bring cards to the end wall at over 1.2 m/s: against the bare
    printed wall they stand up (the next card slides under and they change places); the
    default build's felt pad on the wall lands every card flat, at every corner."""
    bare, padded = stand_up_speed_mm_s(padded=False), stand_up_speed_mm_s(padded=True)
    assert 1000 < bare < 1500 and padded > 1800 and design.END_WALL_PAD_MM > 0
    m = Machine(NOMINAL, padded=False)
    m.one_pass(52)
    assert m.table.stood_up > 0 and max(m.table.wall_speeds) > bare
    # the cards are all there, two of them swapped by each card that stood
    assert sorted(m.table.piles["left"] + m.table.piles["right"]) == list(range(52))
    m = Machine(NOMINAL)
    m.one_pass(52)
    m.assert_clean(52)
    assert max(m.table.wall_speeds) < padded


class _ShallowRightBranch:
    """The default geometry with the right branch as the CAD drew it before this model:
    158.4 mm falling 12.68 degrees after a 20-degree chute (check() now refuses it)."""

    def __init__(self, geometry: Any) -> None:
        self._g = geometry

    def __getattr__(self, name: str) -> Any:
        return getattr(self._g, name)

    def card_path(self, pile: str, cards: int = 0) -> Any:
        import dataclasses

        from hardware.shuffler.cad.params import PathSegment

        path = self._g.card_path(pile, cards)
        if pile != "right":
            return path
        segs = list(path.segments)
        segs[1] = segs[1]._replace(slope_deg=20.0)
        segs[2] = PathSegment(158.4, 12.68, "petg")
        return dataclasses.replace(path, segments=tuple(segs))


def test_on_the_old_shallow_right_branch_cards_stop_unseen_and_the_controller_cannot_tell():
    """A card slows on a 12.68-degree branch: at nominal card-on-PETG friction (0.3) the
    slowest cards of a 104-card deck stop past their beam, short of the bay. The beam saw
    each one pass, so the pass ends with every card counted and no fault: only the model
    knows a card lies in the branch for the next one to hit. A little more friction and the
    calibration itself finds a card stopped under the beam."""
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.calibrate import CalibrationError
    from hardware.shuffler.physics import reaches_bay, slowest_card_speed_mm_s

    shallow = _ShallowRightBranch(Geometry())
    assert slowest_card_speed_mm_s(shallow, 0.3) > 450  # about 0.5 m/s at nominal friction
    assert not reaches_bay(shallow, "right", 400.0, 0.3)
    assert reaches_bay(Geometry(), "right", 1.0, RANGES["mu_card_petg"][1])  # steepened
    m = Machine(NOMINAL.with_(cards=104), geometry=shallow)
    m.one_pass(104)
    st = m.shuffler.status()
    in_piles = len(m.table.piles["left"]) + len(m.table.piles["right"])
    assert st.fault is None and st.cards_this_pass == 104
    assert m.table.unseen_stops > 0 and in_piles == 104 - m.table.unseen_stops
    with pytest.raises(CalibrationError, match="right beam stayed blocked"):
        Machine(NOMINAL.with_(mu_card_petg=0.35), geometry=shallow)
