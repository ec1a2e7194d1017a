"""The simulated hands-free shuffler: the hands-free controller over the simulated drop shaft
(hardware.shuffler.handsfree_sim), with a simulated player who does what the prompts ask.

Built as `SimulatedShuffler` is (clock, rng for the plans, machine_rng for the machine's own
imperfections, faults injected by card or drop number), so the daemon builds it for
`--simulate`. It also keeps what an audit needs: the deck as it lay at each touch and at
each plan's start, so the deck the machine hands back can be judged against its input.
"""

from __future__ import annotations

import random
from typing import Any

from hardware.interfaces import Clock
from hardware.shuffler import design, handsfree, pace
from hardware.shuffler.controller import Fault, Timing
from hardware.shuffler.handsfree import ROUTER_PILE, Bay, RestackBuild
from hardware.shuffler.handsfree_sim import HandsFreeTable, HandsFreeTableMechanism
from hardware.shuffler.plan import Pile, ShufflePlan
from hardware.shuffler.ranges import Params
from hardware.shuffler.restack import HandsFreeController


def handsfree_timing(table: HandsFreeTable, router_settle_s: float,
                     cards: int = 104) -> Timing:
    """The timing `crib shuffler calibrate` would write for this hands-free machine: a twin
    of it (no faults, the same physics, the riser running at the table's duty) measured over
    a full tray, each card past its beam at the riser's speed. Cached per machine."""
    key = (table.params, table.sp, table.shaft, table.drive, table.riser_drive, table.geometry,
           table.speed, table._speed_scale, table.riser_duty, round(router_settle_s, 9), cards)
    timing = _MEASURED.get(key)
    if timing is None:
        values = _calibrate(table, router_settle_s, cards, table.riser_duty)
        if values is None:
            # a machine whose riser stalls a card cannot be calibrated: it runs on its
            # build's card speed, and its controller meets the stalls as they come
            timing = Timing.for_speed(pace.default_card_speed_mm_s(table.drive),
                                      router_settle_s)
        else:
            timing = Timing.for_speed(values["feed_speed_mm_s"], router_settle_s,
                                      speeds=tuple(values["card_speeds_mm_s"]),
                                      full_cards=values["calibrated_cards"],
                                      card_timeout=values.get("card_timeout_s"))
        _MEASURED[key] = timing
    return timing


def calibrated_riser_duty(table: HandsFreeTable, router_settle_s: float,
                          cards: int = 104) -> float:
    """The riser's PWM duty `crib shuffler calibrate` would set on this machine: measured at
    full duty, brought down to design.RISER_CARD_SPEED_MM_S (1 for a riser slower than that,
    or one that cannot be measured)."""
    from hardware.shuffler.calibrate import riser_duty

    key = (table.params, table.sp, table.shaft, table.drive, table.riser_drive, table.geometry,
           table.speed, table._speed_scale, round(router_settle_s, 9), cards)
    duty = _DUTIES.get(key)
    if duty is None:
        values = _calibrate(table, router_settle_s, cards, 1.0)
        duty = 1.0 if values is None else float(riser_duty(values)["riser_duty"])
        _DUTIES[key] = duty
    return duty


def _calibrate(table: HandsFreeTable, router_settle_s: float, cards: int,
               duty: float) -> dict[str, Any] | None:
    """Calibrate's values on a fresh twin of `table` with its riser at `duty` (None when a
    card cannot be measured)."""
    from hardware.clock import FakeClock
    from hardware.shuffler.calibrate import CalibrationError, calibration, measure_cards

    twin = table.twin(riser_duty=duty)
    twin.load(list(range(cards)))
    clock = FakeClock()
    mech = HandsFreeTableMechanism(twin, clock)
    try:
        times = measure_cards(mech, clock, cards, router_move_s=router_settle_s)
        values: dict[str, Any] = calibration(times)["values"]
    except CalibrationError:
        return None
    return values


_MEASURED: dict[tuple[Any, ...], Timing] = {}
_DUTIES: dict[tuple[Any, ...], float] = {}


class SimulatedHandsFreeShuffler(HandsFreeController):
    """A hands-free Shuffler over the simulated drop shaft and a simulated player.

    `rng` draws the plans (secure when None); `machine_rng` drives the machine's own
    imperfections. Faults (`stall_at`, `catch_at`, `skew_at`, `swapped_doors`, `dead_door`,
    `double_at`, ...) are the table's (hardware.shuffler.handsfree_sim.HandsFreeTable).
    `wrong_restacks` (0 to 1) is the share of verified restacks the simulation then turns
    into the wrong order behind the sensors' back (an audit's deliberately broken machine);
    `wrong_pass` makes every plan's restack after that pass (1-based) wrong the same way.
    `cards` is how many cards the player loads (default: the deck size asked for); `drive`
    is the feed's (the hands-free build's own, design.HANDSFREE_DRIVE).
    Raises ShufflerError for bad settings.
    """

    def __init__(
        self,
        clock: Clock,
        *,
        speed: float = 1.0,
        rng: random.Random | None = None,
        machine_rng: random.Random | None = None,
        timing: Timing | None = None,
        params: Params | None = None,
        spread: float | None = None,
        router_settle_s: float | None = None,
        cards: int | None = None,
        auto_load: bool = True,
        touch_deck: int = 52,
        touch_plan: str = "exact",
        restack: RestackBuild = handsfree.DEFAULT_RESTACK,
        wrong_restacks: float = 0.0,
        wrong_pass: int | None = None,
        drive: design.DriveBuild = design.HANDSFREE_DRIVE,
        **faults: Any,
    ) -> None:
        settle = (handsfree.HANDSFREE_ROUTER.settle_s if router_settle_s is None
                  else router_settle_s)
        self.table = HandsFreeTable(speed=speed, rng=machine_rng, params=params,
                                    spread=spread, router_settle_s=settle, drive=drive,
                                    **faults)
        if timing is None:
            # calibrated as `crib shuffler calibrate` would: the riser's duty, then the
            # cards' speeds at it
            self.table.riser_duty = calibrated_riser_duty(self.table, settle / speed)
            timing = handsfree_timing(self.table, settle / speed)
        self.cards = cards
        self.auto_load = auto_load
        self.wrong_restacks = wrong_restacks
        self.wrong_pass = wrong_pass
        self._machine_rng = machine_rng or random.Random()
        self.touch_decks: list[list[int]] = []  # the deck at each shuffle's start
        self.plan_decks: list[list[int]] = []  # the deck at each plan's start
        self.wrong_made = 0  # restacks made wrong on purpose
        super().__init__(HandsFreeTableMechanism(self.table, clock, timing.sensor_filter),
                         clock, rng=rng, timing=timing, touch_deck=touch_deck,
                         touch_plan=touch_plan, restack=restack)

    def shuffle(self, deck_size: int = 52, plan: str = "exact"):  # type: ignore[override]
        """As Shuffler.shuffle; the simulated player loads a fresh deck if the machine is
        empty."""
        if (self.auto_load and not self.table.deck() and isinstance(deck_size, int)
                and 0 < deck_size <= 104):
            count = self.cards if self.cards is not None else deck_size
            self.table.load(list(range(count)))
        self.touch_decks.append(self.table.deck())
        return super().shuffle(deck_size, plan)

    def _run_plan(self, plan: ShufflePlan, **note: object) -> None:
        self.plan_decks.append(self.table.deck())
        super()._run_plan(plan, **note)

    def expected_deck(self) -> list[int] | None:
        """The deck the current exact plan ends in (top first), from the deck at its start."""
        plan = self.plans[-1].handsfree if self.plans else None
        if plan is None or not self.plan_decks:
            return None
        start = self.plan_decks[-1]
        return [start[c] for c in plan.final_order()]

    def _restacked(self) -> None:
        if (self.wrong_pass is not None and self._passes_done == self.wrong_pass) or (
                self.wrong_restacks > 0 and self._machine_rng.random() < self.wrong_restacks):
            # the piles end in the other order, and no sensor saw it
            upper = self._counts[Pile.RIGHT]
            tray = self.table.tray
            n = self._plan.deck_size if self._plan else len(tray)
            deck = tray[:n]
            tray[:n] = deck[upper:] + deck[:upper]
            self.wrong_made += 1
        super()._restacked()

    def set_lid(self, closed: bool) -> None:
        """The player opens or shuts the lid."""
        self.table.set_lid(closed, self._clock.monotonic())

    def _before_resume(self, action: str, fault: Fault | None) -> None:
        kind = fault.kind if fault is not None else ""
        if not self.table.lid:
            self.set_lid(True)
        if kind == "skewed":
            self.table.square_deck()
        elif kind == "door_leads":
            self.table.swapped_doors = False
            self.table.dead_door = None
        elif fault is not None:
            # the prompt: take out a stuck card and lay it on the deck, push caught cards
            # down; a jammed feed's card goes back under the deck
            self.table.take_stalled()
            self.table.free_caught()
            if kind == "caught":
                # a pile on doors that do not open: the player lifts it out onto the deck
                for bay in (Bay.LOWER, Bay.UPPER):
                    pile = self.table.piles[ROUTER_PILE[bay]]
                    if pile:
                        self.table.tray[0:0] = pile
                        pile.clear()
                        self.table._tray_change = self.table._t
            if kind in ("jam", "riser_stall"):
                self.table.return_jammed()  # a card held at the gate, if that is where
            elif kind == "stuck":
                self.table.push_stuck()

    def bays_empty(self) -> bool:
        """True when both bays' doors hold nothing."""
        return not any(self.table.doors_hold(bay) for bay in Bay)
