"""The hands-free controller's logic against a small deterministic drop shaft: every pass,
the machine's own restacks, their checks, each recovery, the lid (hardware.shuffler.restack).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from hardware.clock import FakeClock
from hardware.interfaces import DeviceEvent, DeviceState
from hardware.shuffler import design, handsfree
from hardware.shuffler.controller import Timing
from hardware.shuffler.handsfree import BAY_OF_PILE, Bay, PressPose
from hardware.shuffler.plan import Pile
from hardware.shuffler.restack import HandsFreeController, Phase

TIMING = Timing()
FLIGHT = TIMING.card_timeout / 3
TRANSIT = design.card_transit_s(TIMING.feed_speed_mm_s)
# A card fed on behind the last, to the same bay, reaches the beam this long after it: the
# riser, twice the feed's speed, clears the last card in half the time the next one takes
# to come (less the few mm it starts ahead of the nip).
RUN_ON = 1.8 * TRANSIT
# A pile leaves its doors once their leaves have swung PILE_SLIPS_DEG open: the SG90's 20 ms
# frame, then its datasheet 0.1 s per 60 degrees (the simulator's nominal servo).
SLIP_S = 0.020 + handsfree.PILE_SLIPS_DEG / 60.0 * 0.1


class FakeShaft:
    """A drop shaft whose cards arrive a flight after the feed (or after the last card's
    arrival, while the feed runs on), block their beam one transit and land on top of their
    bay; the doors drop piles as gravity and the shaft allow (the
    upper pile lands on the lower bay's closed doors). Faults are set by the test."""

    kind = "fake"

    def __init__(self, cards: int) -> None:
        self.tray: list[int] = list(range(cards))  # top first
        self.bays: dict[Bay, list[int]] = {Bay.UPPER: [], Bay.LOWER: []}
        self.doors_open: set[Bay] = set()
        self.slips_at: dict[Bay, float] = {}  # when each open bay's leaves let its pile go
        self.dropped: set[Bay] = set()  # open bays that have let their pile go
        self.motor = self.riser = False
        self.lid = self.lid_before = True  # closed (now, and at the last update)
        self.router = Pile.LEFT
        self.now = 0.0
        self.flight: tuple[float, list[int]] | None = None
        self.blocked: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self.passing: dict[Pile, tuple[float, list[int]]] = {}
        self.arrivals: list[Pile] = []
        self.blocks: dict[Pile, float] = {}
        self.fed = 0
        self.run_on_from: float | None = None  # the feed ran on from this arrival
        self.ran_on_at: float | None = None  # ... and the card in flight left then
        # faults
        self.swap_leads = False  # the door servos' leads swapped
        self.swap_once: int | None = None  # swap the leads for this restack only (0-based)
        self.stall_at: int | None = None  # this card stalls on the rise
        self.stall_free = True  # ... and the riser alone frees it
        self.double_at: int | None = None  # this card drags the next with it
        self.caught = 0  # drops of the lower bay that leave its bottom card on the doors
        self.skew_once = False
        self.tap_squares = True
        self.skew = False
        self.restacks = 0
        self.motor_on_with_lid_open = 0
        self.press = PressPose.OUT
        self.press_hits = 0  # doors opened into a press not turned out of their way
        self.press_jumps = 0  # press moves that skipped a pose (DOWN <-> OUT)
        self.fed_under_no_press = 0  # cards fed with the press off the deck

    # Mechanism
    def open(self) -> None: ...

    def close(self) -> None:
        self.motor = False

    def set_led(self, on: bool) -> None: ...

    def set_motor(self, on: bool) -> None:
        if on and not self.lid:
            self.motor_on_with_lid_open += 1
        self.motor = on
        if not on:
            self.run_on_from = None
            if self.flight is not None and self.ran_on_at is not None \
                    and self.now - self.ran_on_at < FLIGHT / 2:
                # the card fed on has hardly left the tray: it stops there, fed again next
                self.tray.extend(reversed(self.flight[1]))
                self.fed -= len(self.flight[1])
                self.flight = None
            self.ran_on_at = None
        if on and self.flight is None and self.tray:
            if self.press is not PressPose.DOWN:
                self.fed_under_no_press += 1
            cards = [self.tray.pop()]
            self.fed += 1
            if self.double_at == self.fed and self.tray:
                cards.append(self.tray.pop())
            at = self.now + FLIGHT
            if self.stall_at == self.fed:
                at = float("inf")
            self.flight = (at, cards)

    def set_router(self, pile: Pile) -> None:
        self.router = pile

    def set_riser(self, on: bool) -> None:
        self.riser = on

    def update(self, now: float) -> float | None:
        if not (self.lid and self.lid_before):  # no power: nothing on the path moves
            held = now - self.now
            if self.flight is not None:
                self.flight = (self.flight[0] + held, self.flight[1])
            self.passing = {p: (c + held, cards) for p, (c, cards) in self.passing.items()}
            self.slips_at = {b: t + held if t > self.now else t
                             for b, t in self.slips_at.items()}
        self.now, self.lid_before = now, self.lid
        if self.flight is not None and self.flight[0] == float("inf") and self.stall_free \
                and self.riser and not self.motor:
            # the riser alone (the feed stopped, no card behind pushing) frees the card
            self.flight = (now + 0.4, self.flight[1])
        if self.run_on_from is not None and self.motor and self.flight is None:
            # the feed ran on past the last arrival: the next card left then
            start, self.run_on_from = self.run_on_from, None
            self.set_motor(True)
            self.ran_on_at = start
            if self.flight is not None and self.flight[0] != float("inf"):
                self.flight = (start + RUN_ON, self.flight[1])
        if self.flight is not None and self.flight[0] <= now:
            at, cards = self.flight
            self.flight = None
            if self.motor:
                self.run_on_from = at
            pile = self.router
            if pile in self.passing:
                # onto the tail of cards still on its beam: one long block, no new edge
                clear, before = self.passing[pile]
                self.passing[pile] = (max(clear, at + TRANSIT * len(cards)), before + cards)
            else:
                self.arrivals.append(pile)
                self.blocked[pile] = at
                self.passing[pile] = (at + TRANSIT * len(cards), cards)
        for pile, (clear, cards) in list(self.passing.items()):
            if clear <= now:
                del self.passing[pile]
                self.blocks[pile] = clear - (self.blocked[pile] or clear)
                self.blocked[pile] = None
                for c in cards:
                    self.bays[BAY_OF_PILE[pile]].insert(0, c)
        self._fall()
        due = [t for t in ([self.flight[0]] if self.flight else [])
               + [c for c, _ in self.passing.values()]
               + [self.slips_at[b] for b in self.doors_open if self.slips_at[b] > now]
               if t != float("inf")]
        return min(due) if due else None

    def tray_loaded(self) -> bool:
        return bool(self.tray)

    def blocked_since(self, pile: Pile) -> float | None:
        return self.blocked[pile]

    def take_arrivals(self) -> list[Pile]:
        out, self.arrivals = self.arrivals, []
        return out

    def take_block(self, pile: Pile) -> float | None:
        return self.blocks.pop(pile, None)

    # Shaft
    def set_doors(self, bay: Bay, opened: bool) -> None:
        swapped = self.swap_leads or self.swap_once == self.restacks
        physical = bay.other if swapped else bay
        if not opened:
            self.doors_open.discard(physical)
            if bay is Bay.LOWER:
                self.restacks += 1  # the doors close upper, then lower
            return
        if self.press is not PressPose.OUT:
            self.press_hits += 1
        if physical not in self.doors_open:
            self.slips_at[physical] = self.now + SLIP_S
            self.dropped.discard(physical)
        self.doors_open.add(physical)

    def _slipping(self, bay: Bay) -> bool:
        return bay in self.doors_open and self.slips_at[bay] <= self.now

    def _fall(self) -> None:
        if self._slipping(Bay.UPPER) and self.bays[Bay.UPPER]:
            self.bays[Bay.LOWER][0:0] = self.bays[Bay.UPPER]
            self.bays[Bay.UPPER] = []
            self.dropped.discard(Bay.LOWER)  # a pile onto it: it drops (and catches) anew
        # the lower doors drop what they hold once an opening (a caught card stays on them
        # until they are opened again, or a pile lands on it)
        if self._slipping(Bay.LOWER) and self.bays[Bay.LOWER] \
                and Bay.LOWER not in self.dropped:
            self.dropped.add(Bay.LOWER)
            pile = self.bays[Bay.LOWER]
            keep: list[int] = []
            if self.caught > 0:
                self.caught -= 1
                keep = pile[-1:]
                pile = pile[:-1]
            self.tray[0:0] = pile
            self.bays[Bay.LOWER] = keep
            if self.skew_once and not self.bays[Bay.LOWER] and not self.bays[Bay.UPPER]:
                self.skew_once = False
                self.skew = True

    def set_press(self, pose: PressPose) -> None:
        if {self.press, pose} == {PressPose.DOWN, PressPose.OUT}:
            self.press_jumps += 1
        self.press = pose
        if pose is PressPose.DOWN and self.skew and self.tap_squares:
            self.skew = False  # the press comes down on the deck

    def doors_hold(self, bay: Bay) -> bool:
        return bool(self.bays[bay])

    def tray_cards(self) -> float | None:
        return float(len(self.tray))

    def skewed(self) -> bool:
        return self.skew

    def lid_closed(self) -> bool:
        return self.lid

    def deck(self) -> list[int]:
        return self.bays[Bay.UPPER] + self.bays[Bay.LOWER] + self.tray


class Rig:
    def __init__(self, cards: int = 52, seed: int = 1) -> None:
        self.clock = FakeClock()
        self.shaft = FakeShaft(cards)
        self.ctl = HandsFreeController(self.shaft, self.clock, rng=random.Random(seed),
                                       timing=TIMING, touch_deck=cards)
        self.events: list[DeviceEvent] = []
        self.starts: list[list[int]] = []
        self.ctl.subscribe(self._event)
        self.ctl.open()

    def _event(self, e: DeviceEvent) -> None:
        self.events.append(e)
        if e.kind == "plan":
            self.starts.append(list(self.shaft.tray))

    def run(self, seconds: float = 2000.0) -> None:
        self.ctl.run_until_settled(max_seconds=seconds)

    def kinds(self, kind: str) -> list[dict]:
        return [e.data for e in self.events if e.kind == kind]

    def expected(self) -> list[int]:
        plan = self.ctl.plans[-1].handsfree
        assert plan is not None
        start = self.starts[-1]
        return [start[c] for c in plan.final_order()]


def _done(rig: Rig, cards: int) -> None:
    assert rig.ctl.state is DeviceState.IDLE, rig.ctl.status()
    assert rig.kinds("done"), "no done event"
    deck = rig.shaft.deck()
    assert sorted(deck) == list(range(cards)), "a card was lost or duplicated"
    assert rig.shaft.tray == deck, "cards left in a bay"
    assert deck == rig.expected()
    # the press was down on the deck for every card fed and out of the way of every door
    # opened; it is lifted off the deck for the player to take it
    assert rig.shaft.fed_under_no_press == 0 and rig.shaft.press_hits == 0
    assert rig.shaft.press_jumps == 0 and rig.shaft.press is not PressPose.DOWN


@pytest.mark.parametrize("cards, passes", [(52, 6), (104, 7)])
def test_one_touch_shuffles_exactly_with_no_prompt(cards: int, passes: int) -> None:
    rig = Rig(cards)
    rig.ctl.touch()
    st = rig.ctl.status()
    assert st.hands_free and st.phase == "pass" and st.passes_total == passes
    assert st.seconds_left is not None and st.seconds_left > 10
    rig.run()
    _done(rig, cards)
    prompts = [p for p in rig.kinds("prompt") if not p.get("done")]
    assert prompts == []
    assert rig.kinds("fault") == []
    assert rig.ctl.restacks_run == passes and rig.ctl.replans == 0
    restacks = rig.kinds("restack")
    assert [r["finding"] for r in restacks] == ["ok"] * passes
    assert len(rig.starts) == 1
    assert not rig.shaft.doors_open and not rig.shaft.riser and not rig.shaft.motor


def test_progress_carries_phase_and_a_falling_time_left() -> None:
    rig = Rig(52)
    rig.ctl.touch()
    rig.run()
    progress = rig.kinds("progress")
    assert {p["phase"] for p in progress} >= {"pass", "restack"}
    lefts = [p["seconds_left"] for p in progress if p["phase"] == "pass"]
    assert lefts[0] > lefts[-1] >= 0
    assert all(p["hands_free"] for p in progress)
    assert max(p["restacks_done"] for p in progress) == 5  # the 6th ends the shuffle


def test_lotus_controller_still_prompts_the_player() -> None:
    from hardware.shuffler.simulator import SimulatedShuffler

    sim = SimulatedShuffler(FakeClock(), rng=random.Random(2), machine_rng=random.Random(2))
    sim.open()
    sim.shuffle(52, "exact")
    sim.run_until_settled()
    st = sim.status()
    assert st.state is DeviceState.WAITING and "on top of" in (st.prompt or "")
    assert st.hands_free is False and st.phase is None


def test_a_wrong_restack_is_detected_and_replanned_without_hands() -> None:
    rig = Rig(52)
    rig.shaft.swap_once = 2  # the third restack's doors open in the wrong order
    rig.ctl.touch()
    rig.run()
    findings = [r["finding"] for r in rig.kinds("restack")]
    assert findings[2] == "wrong_order"
    assert rig.ctl.replans == 1 and rig.kinds("fault") == []
    _done(rig, 52)


def test_wrong_order_twice_asks_for_the_door_servo_leads() -> None:
    rig = Rig(52)
    rig.shaft.swap_leads = True
    rig.ctl.touch()
    rig.run()
    st = rig.ctl.status()
    assert st.state is DeviceState.FAULT and "door servos' leads" in (st.fault or "")
    assert sorted(rig.shaft.deck()) == list(range(52))
    rig.shaft.swap_leads = False  # the player swaps them back
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)


def test_a_card_stalled_on_the_rise_is_carried_by_the_riser_alone() -> None:
    rig = Rig(52)
    rig.shaft.stall_at = 30
    rig.ctl.touch()
    rig.run()
    assert [w for w in rig.kinds("warning") if w["kind"] == "riser_stall"]
    assert rig.kinds("fault") == [] and rig.ctl.replans == 0
    _done(rig, 52)


def test_a_card_stuck_on_the_rise_asks_the_player_then_starts_afresh() -> None:
    rig = Rig(52)
    rig.shaft.stall_at, rig.shaft.stall_free = 30, False
    rig.ctl.touch()
    rig.run()
    st = rig.ctl.status()
    assert st.state is DeviceState.FAULT and "stuck in the riser" in (st.fault or "")
    # the player lays the stuck card on the deck in the tray
    assert rig.shaft.flight is not None
    rig.shaft.tray.insert(0, *rig.shaft.flight[1])
    rig.shaft.flight = None
    rig.shaft.stall_at = None
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)
    assert len(rig.starts) == 2


def test_a_double_feed_finishes_the_pass_restacks_and_replans() -> None:
    rig = Rig(52)
    rig.shaft.double_at = 10
    rig.ctl.touch()
    rig.run()
    assert rig.kinds("fault") == []
    assert rig.ctl.replans == 1
    _done(rig, 52)


# each opening of doors over a held lower pile catches one card (two in a restack, two a retry)
@pytest.mark.parametrize("caught, prompt", [(1, False), (4, False), (9, True)])
def test_a_caught_pile_gets_its_doors_worked_then_a_prompt(caught: int, prompt: bool) -> None:
    rig = Rig(52)
    rig.shaft.caught = caught
    rig.ctl.touch()
    rig.run()
    if prompt:
        st = rig.ctl.status()
        assert st.state is DeviceState.FAULT and "caught on the lower" in (st.fault or "")
        rig.shaft.tray[0:0] = rig.shaft.bays[Bay.LOWER]  # the player pushes them down
        rig.shaft.bays[Bay.LOWER] = []
        rig.ctl.touch()
        rig.run()
    else:
        assert rig.kinds("fault") == []
    assert rig.ctl.replans >= 1
    _done(rig, 52)


@pytest.mark.parametrize("squares", [True, False])
def test_a_skewed_pile_is_tapped_then_the_player_squares_it(squares: bool) -> None:
    rig = Rig(52)
    rig.shaft.skew_once, rig.shaft.tap_squares = True, squares
    rig.ctl.touch()
    rig.run()
    if not squares:
        st = rig.ctl.status()
        assert st.state is DeviceState.FAULT and "square the deck" in (st.fault or "")
        rig.shaft.skew = False
        rig.ctl.touch()
        rig.run()
    assert rig.ctl.replans == 0  # the order was right all along
    _done(rig, 52)


def test_the_lid_pauses_the_plan_and_nothing_moves_while_open() -> None:
    rig = Rig(52)
    rig.ctl.touch()
    # into the third pass
    while rig.ctl.status().passes_done < 2 or rig.ctl.phase is not Phase.PASS:
        rig.clock.sleep(max(rig.ctl.step(), 1e-6))
    for _ in range(5):
        rig.clock.sleep(max(rig.ctl.step(), 1e-6))
    rig.shaft.lid = False
    before = list(rig.shaft.deck())
    rig.ctl.step()
    st = rig.ctl.status()
    assert st.phase == "paused" and st.state is DeviceState.WAITING
    assert not rig.shaft.motor and not rig.shaft.riser
    # touching with the lid still open does nothing; a forced step moves nothing
    rig.ctl.touch()
    assert rig.ctl.status().phase == "paused"
    rig.ctl._guard.set_motor(True)
    rig.ctl._guard.set_doors(Bay.LOWER, True)
    assert rig.shaft.motor_on_with_lid_open == 0 and not rig.shaft.doors_open
    assert len(rig.ctl.withheld) == 2
    rig.clock.sleep(30.0)
    rig.ctl.step()
    assert sorted(rig.shaft.deck()) == sorted(before)
    rig.shaft.lid = True
    rig.ctl.touch()
    assert rig.ctl.status().phase == "pass"
    rig.run()
    _done(rig, 52)
    assert len(rig.starts) == 1 and rig.ctl.replans == 0


def test_the_lid_open_during_a_restack_pauses_it() -> None:
    rig = Rig(52)
    rig.ctl.touch()
    while rig.ctl.phase is not Phase.RESTACK:
        rig.clock.sleep(max(rig.ctl.step(), 1e-6))
    rig.clock.sleep(max(rig.ctl.step(), 1e-6))
    rig.shaft.lid = False
    rig.ctl.step()
    assert rig.ctl.status().phase == "paused"
    rig.clock.sleep(5.0)
    rig.shaft.lid = True
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)
    assert rig.ctl.replans == 0


# ----- the whole simulated machine (hardware.shuffler.handsfree_machine) -----


def _sim(cards: int = 52, seed: int = 5, **kw: object):
    from hardware.shuffler.handsfree_machine import SimulatedHandsFreeShuffler

    sim = SimulatedHandsFreeShuffler(FakeClock(), rng=random.Random(seed),
                                     machine_rng=random.Random(seed), touch_deck=cards, **kw)
    events: list[DeviceEvent] = []
    sim.subscribe(events.append)
    sim.open()
    return sim, events


def _play(sim, max_prompts: int = 3) -> list[str]:
    """Touch once, then do what each prompt asks; returns the faults' kinds prompted."""
    sim.touch()
    prompted = []
    for _ in range(max_prompts + 1):
        sim.run_until_settled(max_seconds=3000)
        if sim.state is not DeviceState.FAULT:
            break
        assert sim.fault is not None
        prompted.append(sim.fault.kind)
        sim.touch()
    return prompted


def _exact(sim, cards: int) -> None:
    assert sim.state is DeviceState.IDLE, sim.status()
    deck = sim.table.deck()
    assert sorted(deck) == list(range(cards)), "a card was lost"
    assert sim.bays_empty() and sim.table.tray == deck
    assert deck == sim.expected_deck()
    assert sim.table.press_hits == 0, "doors opened into the press"
    assert sim.table.press_jams == 0, "the press turned off the top of its lift"
    assert sim.table.rams == 0, "a card fed into one held on the riser"
    assert sim.table.press_pose is not PressPose.DOWN, "the press left on the deck"


@pytest.mark.parametrize("cards, passes", [(52, 6), (104, 7)])
def test_the_simulated_machine_shuffles_exactly_from_one_touch(cards: int, passes: int) -> None:
    sim, events = _sim(cards)
    start = sim._clock.monotonic()
    assert _play(sim) == []
    _exact(sim, cards)
    assert [e.data["finding"] for e in events if e.kind == "restack"] == ["ok"] * passes
    assert [e for e in events if e.kind == "prompt" and not e.data.get("done")] == []
    took = sim._clock.monotonic() - start
    # the module's own arithmetic for this plan (handsfree.shuffle_s), within a fifth
    from hardware.shuffler import handsfree
    plan = sim.plans[-1].handsfree
    assert plan is not None
    assert 0.8 < took / handsfree.shuffle_s(plan) < 1.25, took


@pytest.mark.parametrize("fault, prompts", [
    ({"stall_at": 40}, []),  # the riser alone frees it
    ({"stall_at": 40, "stall_frees": False}, ["riser_stall"]),
    ({"catch_at": 3, "catch_frees": 1}, []),  # the doors worked again free it
    # three cards flat on the doors pass under the door sensors' beams: the tray is short,
    # both bays' doors are worked twice, then the player looks for them
    ({"catch_at": 3, "catch_frees": 9}, ["restack_count"]),
    ({"catch_at": 3, "catch_cards": 24, "catch_frees": 9}, ["caught"]),  # a pile: seen
    ({"skew_at": 4}, ["skewed"]),
    ({"swapped_doors": True}, ["door_leads"]),
    ({"double_at": 30}, []),
    ({"jam_at": 20}, []),  # held under the gate: T1 and the riser carry it on
])
def test_each_fault_of_the_machine_ends_exact_and_whole(fault: dict, prompts: list) -> None:
    sim, events = _sim(52, **fault)
    assert _play(sim) == prompts
    _exact(sim, 52)


def test_cards_flat_on_the_doors_get_both_bays_worked_then_a_prompt_where_to_look() -> None:
    """Three cards caught for good lie under the door sensors' beams: the tray is short, so
    both bays' doors are worked twice before the player is asked, and the prompt names the
    count and where to look; done as it says, the shuffle ends exact."""
    sim, events = _sim(52, catch_at=3, catch_frees=9)
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    assert sim.state is DeviceState.FAULT and sim.fault is not None
    text = sim.fault.text
    assert "49 cards, not 52" in text and "doors" in text and "worked 2 times" in text
    sim.table.free_caught()  # the player finds them on the doors and puts them in the tray
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    _exact(sim, 52)


def test_a_small_deck_is_weighed_where_its_piles_pass_under_the_door_sensors() -> None:
    """31 cards make piles of under 20, which the door sensors' beams do not see: each
    restack weighs its first pile too, and the shuffle ends exact with every restack
    checked; with the door servos' leads swapped the weights still catch the order."""
    from hardware.shuffler import handsfree

    sim, events = _sim(31)
    passes = handsfree.minimum_passes(31)
    plan_counts = handsfree.bay_counts(31, passes)
    assert min(min(c.lower, c.upper) for c in plan_counts) < handsfree.DOOR_BEAM_CARDS
    assert _play(sim) == []
    _exact(sim, 31)
    assert [e.data["finding"] for e in events if e.kind == "restack"] == ["ok"] * passes
    sim, events = _sim(31, swapped_doors=True)
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    assert [e.data["finding"] for e in events if e.kind == "restack"][:2] == [
        "wrong_order", "wrong_order"]


def test_a_deck_whose_equal_piles_no_sensor_sees_is_refused_by_name() -> None:
    """32 cards split 16 and 16 in an exact pass: under the door sensors' beams and the
    same weight either way, no restack could be checked, so the plan is refused."""
    from hardware.errors import PlanError

    sim, _ = _sim(33)
    with pytest.raises(PlanError, match="32-card deck.*two piles of 16 cards"):
        sim._make_plan(32, "exact")


def test_the_flap_is_waited_for_as_long_as_its_way_takes() -> None:
    """The solenoid pulls the flap over to the upper bay more slowly than its spring brings
    it back: the controller waits each move's own time (and the whole shuffle moves the
    flap under no card, `_exact` with the corners' tests)."""
    from hardware.shuffler import design

    sim, _ = _sim(52)
    router = design.HANDSFREE_SOLENOID_ROUTER
    over = sim._router_move_s(Pile.RIGHT)
    back = sim._router_move_s(Pile.LEFT)
    assert over == pytest.approx(sim._timing.router_move)
    assert over - back == pytest.approx(router.settle_s - router.back_settle_s)
    assert back < over
    assert _play(sim) == [] and sim.table.flap_hits == 0


def test_one_wrong_restack_on_the_machine_is_caught_by_its_sensors() -> None:
    sim, events = _sim(52, swapped_doors=True)
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    findings = [e.data["finding"] for e in events if e.kind == "restack"]
    assert findings[:2] == ["wrong_order", "wrong_order"]
    assert sim.state is DeviceState.FAULT and "leads" in (sim.fault.text if sim.fault else "")


def test_a_restack_made_wrong_behind_the_sensors_leaves_the_deck_off_target() -> None:
    sim, _ = _sim(52, wrong_restacks=1.0)
    assert _play(sim) == []
    assert sim.wrong_made == 6
    assert sim.table.deck() != sim.expected_deck()


def test_the_lid_pauses_the_simulated_machine_and_it_ends_exact() -> None:
    sim, events = _sim(52)
    sim.touch()
    clock = sim._clock
    end = clock.monotonic() + 25.0
    while clock.monotonic() < end:
        clock.sleep(max(sim.step(), 1e-6))
    sim.set_lid(False)
    sim.step()
    assert sim.status().phase == "paused"
    # the parts run down unpowered in their first moments; after that nothing moves (a
    # tenth of a mm: the model's run-down decays exponentially, never quite to 0; after
    # 2 s, 20 time constants, by less than a micrometre)
    clock.sleep(2.0)
    sim._mech.update(clock.monotonic())
    table = sim.table
    held = (table.deck(), [round(table.card_s(u.cards[-1]), 1) for u in table._units],
            table.riser_on, table.motor)
    clock.sleep(20.0)
    sim.step()
    sim._mech.update(clock.monotonic())
    assert (table.deck(), [round(table.card_s(u.cards[-1]), 1) for u in table._units],
            table.riser_on, table.motor) == held
    assert sim.status().phase == "paused"
    sim.set_lid(True)
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    _exact(sim, 52)


def _lid_open_at(at: float, **kw: object) -> tuple[str | None, int]:
    """Open the lid `at` seconds into a one-touch shuffle (on a machine made with `kw`),
    leave it open 20 s, close it and touch: (what went wrong, or None; how many cards the
    feed's unbraked run-down drew in while the lid was open)."""
    sim, events = _sim(52, **kw)
    sim.touch()
    clock = sim._clock
    end = clock.monotonic() + at
    while clock.monotonic() < end:
        clock.sleep(max(sim.step(), 1e-6))
    sim.set_lid(False)
    sim.step()
    fed = sim.table.fed
    clock.sleep(20.0)
    sim.step()
    sim.set_lid(True)  # the table is brought to now: the parts ran down meanwhile
    drawn = sim.table.fed - fed
    sim.touch()
    sim.run_until_settled(max_seconds=3000)
    prompts = [e.data["text"] for e in events if e.kind == "prompt"
               and not e.data.get("paused") and not e.data.get("done")]
    if sim.state is not DeviceState.IDLE:
        fault = sim.fault
        return f"{at} s: ends {sim.state.value}: {fault.text if fault else ''}", drawn
    deck = sim.table.deck()
    if sorted(deck) != list(range(52)):
        return f"{at} s: a card was lost", drawn
    if prompts:
        return f"{at} s: the player was asked: {prompts}", drawn
    if not (sim.bays_empty() and sim.table.tray == deck and deck == sim.expected_deck()):
        return f"{at} s: the deck is not in its target order", drawn
    return None, drawn


def _lid_scan(moments: list[float], **kw: object) -> None:
    results = [_lid_open_at(at, **kw) for at in moments]
    assert [why for why, _ in results if why] == []
    # the scan met the case it is for: the run-down drew the next card in, unbraked
    assert sum(1 for _, drawn in results if drawn) >= len(moments) // 4


def test_a_card_the_run_down_draws_in_while_the_lid_is_open_ends_exact() -> None:
    # with the hands-free drive the feed coasts about 95 mm when the lid cuts its power: the
    # card in flight runs past its beam and the next is drawn in, often past the flap
    _lid_scan([0.5 * k for k in range(1, 17)])


def test_the_lid_opened_while_the_press_waits_for_the_leaves_ends_exact() -> None:
    """A pass begins with the press waiting for the lower leaves to close; the lid opens
    then. On a machine whose feed needs the press (the tyre slips under the deck without
    it), the feed must not start before the press is down after the lid closes."""
    from hardware.shuffler.handsfree_sim import ShaftParams
    from hardware.shuffler.ranges import Params

    params = Params(mu_card_card=0.3, mu_card_petg=0.4, mu_tyre_card=0.8, motor_speed=1.15,
                    motor_torque=0.85, supply_v=5.25, card_thickness_mm=0.32, cards=52)
    sim, events = _sim(52, params=params, shaft_params=ShaftParams(servo_s_per_60=0.08))
    sim.touch()
    clock = sim._clock
    for _ in range(100_000):
        clock.sleep(max(sim.step(), 1e-6))
        if sim._passes_done == 1 and sim._press_queue:
            break
    else:
        raise AssertionError("no pass began with the press waiting")
    sim.set_lid(False)
    sim.step()
    clock.sleep(20.0)
    sim.step()
    sim.set_lid(True)
    sim.touch()
    assert _play(sim, max_prompts=0) == []
    _exact(sim, 52)


@pytest.mark.slow
def test_the_lid_opened_at_any_moment_of_a_shuffle_ends_exact() -> None:
    _lid_scan([0.5 * k for k in range(1, 111)] + [55.0 + 1.3 * k for k in range(60)])


def _lid_corners() -> list:
    from hardware.shuffler import handsfree_sim

    every = handsfree_sim.corners((52,))
    # how far the run-down carries a card, and how fast the riser takes it on, spread with
    # the motor, the supply and the friction: the fastest motor and riser on the highest
    # supply with the curl's most friction (the riser starts a drawn card from rest just
    # short of its beam, and its block is long), and a fixed sample of the other corners
    fast = next(i for i, (p, s) in enumerate(every)
                if p.motor_speed == 1.15 and p.supply_v == 5.25 and p.mu_card_petg == 0.4
                and p.motor_torque == 0.85 and p.card_thickness_mm == 0.32
                and p.mu_tyre_card == 0.8 and p.mu_card_card == 0.3 and s.riser_speed == 1.15)
    picks = [fast] + random.Random(3).sample([i for i in range(len(every)) if i != fast], 5)
    return [pytest.param(every[i][0], every[i][1], id=f"corner-{i}") for i in picks]


@pytest.mark.slow
@pytest.mark.parametrize("params, shaft", _lid_corners())
def test_the_lid_opened_mid_pass_ends_exact_at_every_corner(params, shaft) -> None:
    _lid_scan([0.5 * k for k in range(1, 25)], params=params, shaft_params=shaft)


def _corner_cases() -> list:
    """Every corner of the feed's ranges for 52 cards and every other one for 104, each with
    one of the shaft's three bounds in turn (so each bound meets a third of the feed's
    corners): 192 whole shuffles, about a quarter of the 768 pairs, which
    `bench_handsfree_machine.py 1` runs in full."""
    from hardware.shuffler import handsfree_sim, ranges

    cases = []
    for cards, step in ((52, 1), (104, 2)):
        for i, p in enumerate(ranges.corners((cards,))[::step]):
            s = handsfree_sim.SHAFT_BOUNDS[i % len(handsfree_sim.SHAFT_BOUNDS)]
            cases.append(pytest.param(cards, p, s, id=f"{cards}-{i}"))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("cards, params, shaft", _corner_cases())
def test_every_corner_shuffles_exactly_with_no_prompt(cards, params, shaft) -> None:
    sim, _ = _sim(cards, params=params, shaft_params=shaft)
    prompts = _play(sim, max_prompts=4)
    assert prompts == []
    _exact(sim, cards)
    # no card stood up against a bay's end wall (the riser's calibrated duty), and the flap
    # never moved under a card (the feed ran on only to the same bay)
    assert sim.table.stood_up == 0 and sim.table.flap_hits == 0
    assert max(sim.table.wall_speeds) < sim.table.stand_up_mm_s


def test_the_riser_held_at_its_calibrated_speed_stands_no_card_up_and_at_full_duty_it_would(
) -> None:
    """At the fastest corner (a fast riser motor on a high supply) the riser at full duty
    drives cards into the bays' end walls over the speed at which a card stands up, and a
    standing card swaps with the next behind every sensor: the deck is not the plan's. At
    the duty calibrate sets, no card stands up and the deck is exact."""
    from hardware.shuffler import design
    from hardware.shuffler.handsfree_sim import SHAFT_NOMINAL
    from hardware.shuffler.ranges import NOMINAL

    fast = NOMINAL.with_(motor_speed=1.15, supply_v=5.25)
    shaft = dataclasses.replace(SHAFT_NOMINAL, riser_speed=1.15)
    sim, _ = _sim(52, params=fast, shaft_params=shaft)
    assert sim.table.riser_duty < 0.85
    assert _play(sim) == []
    _exact(sim, 52)
    assert sim.table.stood_up == 0
    assert max(sim.table.wall_speeds) <= design.RISER_CARD_SPEED_MM_S * 1.01

    sim, _ = _sim(52, params=fast, shaft_params=shaft)
    sim.table.riser_duty = 1.0  # as if never calibrated, and run flat out
    assert _play(sim) == []
    assert max(sim.table.wall_speeds) > sim.table.stand_up_mm_s
    assert sim.table.stood_up > 0
    assert sim.table.deck() != sim.expected_deck()  # nothing saw it


def test_the_feed_runs_on_into_every_card_to_the_same_bay_and_stops_for_the_others() -> None:
    """Each card that follows one to the same bay is fed without a stop (the riser parts
    them); before a card to the other bay the feed stops, and the flap moves between."""
    rig = Rig(52)
    stops: list[float] = []
    set_motor = rig.shaft.set_motor

    def watch(on: bool) -> None:
        if not on and rig.shaft.motor:
            stops.append(rig.shaft.now)
        set_motor(on)

    rig.shaft.set_motor = watch  # type: ignore[method-assign]
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)
    plan = rig.ctl.plans[-1].handsfree
    assert plan is not None
    moves = sum(pp.router_moves for pp in plan.passes)
    follows = sum(len(pp.bays) - 1 - pp.router_moves for pp in plan.passes)
    assert rig.ctl.fed_on == follows > 100
    # a stop before each change of bay, and one as each pass ends
    assert moves <= len(stops) <= moves + 2 * len(plan.passes)


def test_the_deck_is_weighed_with_the_doors_still_while_the_press_turns_in() -> None:
    """Each restack weighs the deck only once the doors' swing is over (it shakes the load
    cell, at its worst here), and the press is already turning back in over the deck by
    then: its turn overlaps the weighing."""
    from hardware.shuffler.handsfree_sim import ShaftParams

    sim, events = _sim(52, shaft_params=ShaftParams(door_shake_g=4.0,
                                                    servo_s_per_60=0.12))
    table = sim.table
    weighed: list[tuple[float, bool]] = []
    turned_in: list[float] = []
    tray_cards, set_press = table.tray_cards, table.set_press

    def reading(now: float) -> float | None:
        value = tray_cards(now)
        if value is not None:
            weighed.append((now, table.doors_swung(now - 0.2, now)))
        return value

    def press(pose: PressPose, now: float) -> None:
        if pose is PressPose.LIFTED and table.press_pose is PressPose.OUT:
            turned_in.append(now)
        set_press(pose, now)

    table.tray_cards, table.set_press = reading, press  # type: ignore[method-assign]
    assert _play(sim) == []
    _exact(sim, 52)
    assert [e.data["finding"] for e in events if e.kind == "restack"] == ["ok"] * 6
    assert len(weighed) >= 6 and not any(swung for _t, swung in weighed)
    # before each of the 5 passes after the first, the press began its turn in before the
    # deck was weighed
    assert len(turned_in) == 5
    assert all(any(t < w < t + 0.5 for w, _s in weighed) for t in turned_in)


def test_the_press_lifts_off_the_last_card_as_it_is_fed_and_never_off_two() -> None:
    """The press starts lifting as each pass's last card is fed (alone in the tray the tyre
    carries it without the press), never while a second card lies over it; at the roughest
    corner of the feed every card still leaves, in order (the first lift, before the
    first pass, is the controller finding the press's pose with the feed stopped)."""
    from hardware.shuffler import ranges

    rough = min(ranges.corners(), key=lambda p: p.mu_tyre_card - p.mu_card_card)
    sim, events = _sim(52, params=dataclasses.replace(rough, cards=52))
    table = sim.table
    lifted_over: list[int] = []
    set_press = table.set_press

    def press(pose: PressPose, now: float) -> None:
        was = table.press_pose
        set_press(pose, now)  # (the table brought up to now)
        if pose is PressPose.LIFTED and was is PressPose.DOWN and table._feed_cmd == "drive":
            lifted_over.append(table._tray_count())

    table.set_press = press  # type: ignore[method-assign]
    assert _play(sim) == []
    _exact(sim, 52)
    assert lifted_over == [1] * 6


def test_the_press_turns_in_while_the_plan_is_searched_for(monkeypatch) -> None:
    """On a Pi the quiet keys' search takes a noticeable part of a second: the press, out
    of the shaft after the last shuffle, starts turning in over the new deck at the touch,
    not after the plan; a plan that cannot be made turns it back out."""
    from hardware.shuffler import restack

    rig = Rig(52)
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)
    assert rig.shaft.press is PressPose.OUT
    rig.shaft.tray = list(range(52))  # the player takes the deck and lays in another
    rig.shaft.bays = {Bay.UPPER: [], Bay.LOWER: []}
    poses: list[tuple[float, PressPose]] = []
    set_press = rig.shaft.set_press
    monkeypatch.setattr(rig.shaft, "set_press", lambda pose: (
        poses.append((rig.clock.monotonic(), pose)), set_press(pose))[1])
    slow = 0.5  # seconds the search takes here, as on a slow Pi
    plan_random = restack.handsfree.plan_random

    def searching(*args, **kwargs):
        rig.clock.advance(slow)
        return plan_random(*args, **kwargs)

    monkeypatch.setattr(restack.handsfree, "plan_random", searching)
    touched = rig.clock.monotonic()
    rig.ctl.touch()
    rig.run()
    _done(rig, 52)
    assert poses[0] == (touched, PressPose.LIFTED)  # turning in as the search starts
    down = next(t for t, pose in poses if pose is PressPose.DOWN)
    turn = handsfree.DEFAULT_RESTACK.press_turn_s
    assert touched + slow <= down < touched + slow + 0.01 and slow > turn

    def refused(*args, **kwargs):
        raise restack.PlanError("no plan")

    rig.shaft.tray = list(range(52))
    rig.shaft.bays = {Bay.UPPER: [], Bay.LOWER: []}
    monkeypatch.setattr(restack.handsfree, "plan_random", refused)
    poses.clear()
    with pytest.raises(restack.PlanError):
        rig.ctl.touch()
    assert [p for _, p in poses] == [PressPose.LIFTED, PressPose.OUT]
    assert rig.ctl.state is DeviceState.IDLE


def test_two_cards_the_run_down_draws_in_while_the_feed_runs_on_are_each_counted() -> None:
    """At the fastest corner, the lid opened as the feed runs on into a card to the same
    bay: its run-down draws two cards in. The riser alone brings both on before the feed
    starts again (a feed meanwhile would drive the card behind them too: a double)."""
    from hardware.shuffler import handsfree_sim

    params, shaft = handsfree_sim.corners((52,))[130]
    assert params.motor_speed == 1.15 and shaft.riser_speed == 1.15
    results = [_lid_open_at(at, params=params, shaft_params=shaft) for at in (2.8, 3.5)]
    assert results == [(None, 2), (None, 2)]
