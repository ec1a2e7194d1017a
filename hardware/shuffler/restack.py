"""The hands-free shuffler's controller: every pass of the plan, and the restacks done by the
machine itself (docs/hands-free.md, "One shuffle, step by step" and "What can fail").

`HandsFreeController` is the shared `ShufflerController` (the feed, the router, the beams,
the pass's transition table) over a mechanism that is also a `Shaft` (riser, bay doors, door
sensors, load cell, skew beam, lid). Where the Lotus-style controller prompts the player to
stack a pile, this one runs the restack: the lower doors open, the tray is weighed and the
door sensors read, then the upper doors, then the skew beam; `handsfree.verify_restack`
judges it, and the next pass begins with no hands. Every fault the machine can put right
itself (a miscounted pass, a wrong or unverifiable restack, a caught pile) ends in a fresh
plan from the deck as it lies, which is uniform whatever that order is; the rest are prompts.

The restack is a script (a generator yielding the seconds to wait before its next step), so
the lid can pause it between any two steps, and a test's FakeClock runs it without sleeping.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hardware.errors import PlanError
from hardware.interfaces import Clock, DeviceState, ShufflerStatus
from hardware.shuffler import design, handsfree, pace, shaft
from hardware.shuffler.controller import (
    Fault,
    Mechanism,
    Recovery,
    ShufflerController,
    Timing,
    _Round,
)
from hardware.shuffler.handsfree import (
    ROUTER_PILE,
    Bay,
    BayCounts,
    DropStep,
    Finding,
    HandsFreePlan,
    PressPose,
    RestackBuild,
    RestackReading,
)
from hardware.shuffler.plan import Pile, Routing, ShufflePlan, make_plan
from hardware.shuffler.shaft import Shaft

# A card not seen at its beam in time: the riser runs alone this long to carry it on (the
# feed stopped, so no second card follows it) before the player is asked.
RISER_ALONE_S = 1.0
# A pile caught on its doors: they are closed and opened again this many times.
DOOR_RETRIES = 2
# Wrong-order restacks in a row before the player is asked to look at the door servos.
WRONG_ORDER_PROMPT = 2
# The longest the load cell may take to give a settled reading after a wait (s).
WEIGH_PATIENCE_S = 1.0
_POLL_S = 0.02
# The plans a controller keeps for a look afterwards (tests, audits), the last the current.
PLANS_KEPT = 16


class HandsFreeMechanism(Mechanism, Shaft, Protocol):
    """The hands-free build's parts: the Lotus-style feed, router and bay beams, and the
    shaft's riser, doors, door sensors, load cell, skew beam and lid."""


class Phase(enum.StrEnum):
    """Where a hands-free shuffle is."""

    PASS = "pass"
    RESTACK = "restack"
    PAUSED = "paused"


@dataclass(frozen=True)
class HandsFreeShufflePlan(ShufflePlan):
    """A controller plan carrying the hands-free plan it was made from (exact plans)."""

    handsfree: HandsFreePlan | None = field(default=None, repr=False, compare=False)


class LidGuard:
    """The mechanism as the controller sees it: every command that moves something (feed
    motor, riser, router, doors) is withheld while the lid is open; commands that stop a
    part always pass. The lid switch also cuts the actuators' power: this is the software's
    half of the same rule."""

    def __init__(self, mech: HandsFreeMechanism) -> None:
        self.inner = mech
        self.withheld: list[tuple[str, object]] = []  # what was not sent, for the record

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _open(self, what: str, value: object) -> bool:
        if self.inner.lid_closed():
            return False
        self.withheld.append((what, value))
        return True

    def set_motor(self, on: bool) -> None:
        if on and self._open("motor", on):
            return
        self.inner.set_motor(on)

    def set_riser(self, on: bool) -> None:
        if on and self._open("riser", on):
            return
        self.inner.set_riser(on)

    def set_router(self, pile: Pile) -> None:
        if self._open("router", pile):
            return
        self.inner.set_router(pile)

    def set_doors(self, bay: Bay, opened: bool) -> None:
        if self._open("doors", (bay, opened)):
            return
        self.inner.set_doors(bay, opened)

    def set_press(self, pose: PressPose) -> None:
        if self._open("press", pose):
            return
        self.inner.set_press(pose)


# The faults only a hands-free machine raises, and what a touch does after each: "replan"
# drops whatever the bays hold into the tray, counts the deck and plans afresh; "next" goes
# on with the plan (the deck's order is intact).
_HF_RESUME = {
    "riser_stall": "replan",
    "caught": "replan",
    "restack_count": "replan",
    "door_leads": "replan",
    "skewed": "next",
}


class HandsFreeController(ShufflerController):
    """A Shuffler over a hands-free mechanism: one touch shuffles the deck exactly, passes and
    restacks, with no player between passes.

    `restack` times the door steps (how long a door takes to open, a pile to fall, settle and
    be weighed: handsfree.RestackBuild); `pace` estimates the time left (the hands-free
    build's by default). `shuffle(n, "exact")` (and a touch, by default) runs
    `handsfree.plan_random(n)`: 6 passes for 52 cards, 7 for 104 (loaded face up, it comes
    back face down: every pass turns the cards over); "random" and
    "light" run their coin passes with the machine's restacks too.
    Raises as ShufflerController.
    """

    def __init__(
        self,
        mechanism: HandsFreeMechanism,
        clock: Clock,
        *,
        rng: random.Random | None = None,
        timing: Timing | None = None,
        target_tv: float = 0.1,
        touch_deck: int = 52,
        touch_plan: str = "exact",
        restack: RestackBuild = handsfree.DEFAULT_RESTACK,
        pace_: pace.Pace | None = None,
    ) -> None:
        self._guard = LidGuard(mechanism)
        self._shaft: HandsFreeMechanism = self._guard  # type: ignore[assignment]
        self._restack_build = restack
        # from a card's tail past its beam to its tail past the upper bay's slot, where it
        # lands, at half the timing's card speed (a riser at the slow end of its range)
        self._land_s = 2.0 * (shaft.DEFAULT_SHAFT.upper_slot_mm - shaft.DEFAULT_SHAFT.beam_mm) \
            / (timing or Timing()).feed_speed_mm_s
        # the time left is reckoned on this pace: given, or the build's own for each plan's
        # deck (then scaled by how the passes measured so far compared with it)
        self._pace_given = pace_
        self._pace = pace_ or handsfree.handsfree_pace(touch_deck)
        self._phase: Phase | None = None
        self._paused_phase: Phase | None = None
        self._paused_at = 0.0
        self._script: Generator[float, None, None] | None = None
        self._script_due = 0.0
        self._riser_grace = False
        self._nudged = False
        self._nudge_until = None
        self._feed_again_at: float | None = None  # after a pause, the feed carries a card on
        self._feed_again_card: int | None = None  # ... this card, unless seen by then
        # After a pause the feed's unbraked run-down may have carried cards on: until the
        # next feed, a card seen with none in flight is the next card, already started
        self._rundown = False
        self._rundown_until = float("-inf")  # ... and the riser alone brings them on until
        self._drawn: list[Pile] = []  # arrivals the run-down made, still to be taken
        self._tainted: str | None = None
        self._fed_on_card: int | None = None
        self._last_edge: float | None = None
        self._run_on_gap: float | None = None
        self._braked: tuple[float, float] | None = None
        self._wrong_orders = 0
        self._restacks_done = 0
        # the press as last commanded (None: not yet, its pose unknown), and when it is down
        # on the deck: the feed waits for it (without it the tyre slips under a full deck)
        self._press_pose: PressPose | None = None
        self._press_down_at = float("-inf")
        # the press may come in only once the lower leaves are out of its way: from the doors
        # last commanded shut, the build's press_in_s; a command waiting for that moment
        self._press_free_at = float("-inf")
        self._press_queue: list[PressPose] = []  # the rest of the way down, in the pass
        self._press_next_at = float("-inf")  # when its first step falls due
        self._press_at = float("-inf")  # when the step last commanded is surely done
        self._pass_started = 0.0
        self._predicted: list[float] = []
        self._measured = 0.0  # seconds of passes measured, against
        self._measured_predicted = 0.0  # what the pace predicted for them
        self.restacks_run = 0  # every restack, across plans
        self.fed_on = 0  # cards the feed ran straight on into, across plans
        self.replans = 0  # fresh plans made by the machine itself, without a player
        self.plans: list[HandsFreeShufflePlan] = []  # the last plans run, the last the current
        super().__init__(self._guard, clock, rng=rng, timing=timing, target_tv=target_tv,
                         touch_deck=touch_deck, touch_plan=touch_plan)

    @property
    def phase(self) -> Phase | None:
        return self._phase

    @property
    def withheld(self) -> list[tuple[str, object]]:
        """Every command withheld because the lid was open."""
        return self._guard.withheld

    # --- plans ----------------------------------------------------------------------------

    def shuffle(self, deck_size: int = 52, plan: str = "random") -> ShufflerStatus:
        """As ShufflerController's; the press, out of the shaft, starts turning in over the
        deck while the plan is searched for (on a Pi that search takes a noticeable part of
        a second), and turns back out if no plan is made."""
        with self._lock:
            early = (self._opened and self._state is DeviceState.IDLE
                     and self._press_pose is PressPose.OUT and self._shaft.lid_closed())
            if early:
                self._press_step(PressPose.LIFTED)
        try:
            return super().shuffle(deck_size, plan)
        except Exception:
            if early:
                with self._lock:
                    self._press_step(PressPose.OUT)
            raise

    def _make_plan(self, deck_size: int, name: str) -> ShufflePlan:
        """As ShufflerController's; an exact plan whose restacks the machine could not
        check (two equal piles under the door sensors' beams) is refused: PlanError."""
        if name != "exact":
            base = make_plan(deck_size, name, target_tv=self._target_tv, rng=self._rng,
                             top_pile=ROUTER_PILE[Bay.UPPER])
            return HandsFreeShufflePlan(**{f: getattr(base, f) for f in (
                "deck_size", "name", "routing", "passes", "tv_distance", "quality",
                "top_pile", "target")})
        hf = handsfree.plan_random(deck_size, rng=self._rng)
        blind = handsfree.unverifiable_passes(hf)
        if blind:
            c = hf.passes[blind[0] - 1].counts
            raise PlanError(
                f"The hands-free machine cannot check the restacks of a {deck_size}-card "
                f"deck: pass {blind[0]} leaves two piles of {c.lower} cards, too low for "
                f"its door sensors (they see {handsfree.DOOR_BEAM_CARDS} cards or more) and "
                "the same weight whichever falls first. Shuffle an odd number of cards, or "
                f"{2 * handsfree.DOOR_BEAM_CARDS} or more, or choose another plan.")
        k = len(hf.passes)
        quality = (f"{k} exact passes to a secret random order, every restack made and "
                   "checked by the machine: distance to a perfectly random deck 0.000")
        return HandsFreeShufflePlan(deck_size, name, Routing.RADIX, k, 0.0, quality,
                                    ROUTER_PILE[Bay.UPPER], hf.target, hf)

    def _run_plan(self, plan: ShufflePlan, **note: object) -> None:
        assert isinstance(plan, HandsFreeShufflePlan)
        self.plans.append(plan)
        del self.plans[:-PLANS_KEPT]
        self._restacks_done = 0
        self._tainted = None
        if self._pace_given is None:
            self._pace = handsfree.handsfree_pace(plan.deck_size)
        p = self._pace
        if plan.handsfree is not None:
            self._predicted = [handsfree.pass_s(pp.bays, p) for pp in plan.handsfree.passes]
        else:
            self._predicted = [p.pass_s(plan.deck_size)] * plan.passes
        super()._run_plan(plan, **note)

    def _route_for(self, index: int) -> Pile:
        plan = self._plan
        if isinstance(plan, HandsFreeShufflePlan) and plan.handsfree is not None:
            return ROUTER_PILE[plan.handsfree.passes[self._passes_done].bays[index]]
        return super()._route_for(index)

    def _replan(self, reason: str) -> None:
        """Every card is in the tray: a fresh plan from the deck as it lies, no hands."""
        assert self._plan is not None
        self.replans += 1
        self.restarts += 1
        self._emit("warning", {"kind": "replan", "reason": reason})
        self._run_plan(self._make_plan(self._plan.deck_size, self._plan.name),
                       restart=self.restarts, reason=reason)

    # --- passes ---------------------------------------------------------------------------

    def _begin_pass(self) -> None:
        self._phase = Phase.PASS
        self._riser_grace = False
        self._tainted = None
        self._nudged = False
        self._nudge_until: float | None = None
        self._feed_again_at = None
        self._rundown = False
        self._drawn = []
        self._pass_started = self._clock.monotonic()
        self._fed_on_card = None  # the card the feed ran on into
        self._last_edge = None  # the last card's edge at its beam
        self._run_on_gap = None  # from a card's edge to the next's, fed on
        self._braked = None  # (edge, brake) of the last stop at an arrival
        self._press_down_at = self._press_down(self._clock.monotonic())
        self._shaft.set_riser(True)
        super()._begin_pass()

    def _set_doors(self, bay: Bay, opened: bool) -> None:
        """Command `bay`'s doors; shut, the press may come in once the lower leaves are
        out of its way (either bay: swapped leads turn the other's)."""
        self._shaft.set_doors(bay, opened)
        if not opened:
            self._press_free_at = self._clock.monotonic() + self._restack_build.press_in_s

    def _press_path(self, pose: PressPose) -> list[PressPose]:
        """The poses from the press's last one to `pose`, one step at a time (through
        LIFTED: the turn's lever holds the press only at the top of the lift)."""
        now = self._press_pose
        if now is pose:
            return []
        if PressPose.LIFTED in (now, pose):
            return [pose]
        return [PressPose.LIFTED, pose]

    def _step_s(self, was: PressPose | None, pose: PressPose) -> float:
        """Seconds for the press's step from `was` to `pose` (from an unknown pose, the
        slower servo's); let down, until it bears on the deck the tray holds now (the whole
        deck between passes)."""
        b = self._restack_build
        if was is pose:
            return 0.0
        if was is None:
            return max(b.press_lift_s, b.press_lower_s, b.press_turn_s)
        if PressPose.OUT in (was, pose):
            return b.press_turn_s
        if pose is PressPose.LIFTED:
            return b.press_lift_s
        return b.press_lands_s(self._plan.deck_size if self._plan is not None else 0)

    def _press_step(self, pose: PressPose) -> float:
        """Command the press one step, to `pose` (any steps still waiting are dropped): the
        seconds until it is there (0 when it already is)."""
        self._press_queue = []
        was, self._press_pose = self._press_pose, pose
        if was is not pose:
            self._shaft.set_press(pose)
        took = self._step_s(was, pose)
        self._press_at = max(self._press_at, self._clock.monotonic() + took)
        return took

    def _press_to(self, pose: PressPose) -> Generator[float, None, None]:
        """Move the press to `pose`, step by step, each once the last has arrived (the first
        once any step still under way has)."""
        yield max(0.0, self._press_at - self._clock.monotonic())
        for step in self._press_path(pose):
            yield self._press_step(step)

    def _press_off(self) -> None:
        """Lift the press off the deck (one step: the lift's alone, safe from any pose), or
        leave it where it is if it is off already."""
        if self._press_pose in (None, PressPose.DOWN):
            self._press_step(PressPose.LIFTED)
        else:
            self._press_queue = []

    def _press_down(self, now: float) -> float:
        """Start the press down onto the deck: its steps are commanded in the pass as they
        fall due (the first once the lower leaves are out of its way, `_press_free_at`);
        returns when it will be down."""
        path = self._press_path(PressPose.DOWN)
        at = max(now, self._press_free_at, self._press_at)
        self._press_queue, self._press_next_at = path, at
        was = self._press_pose
        for pose in path:
            at += self._step_s(was, pose)
            was = pose
        return at

    def _observe(self) -> _Round:
        r = super()._observe()
        if self._drawn:
            r.arrivals[:0] = self._drawn
            self._drawn = []
        return r

    def _on_arrival(self, r: _Round) -> float | None:
        self._riser_grace = False
        if self._rundown and len(r.arrivals) > 1:
            # the run-down carried cards to their beams one after another, not together:
            # each is its own card, taken in turn
            self._drawn = r.arrivals[1:]
            r.arrivals = r.arrivals[:1]
        if self._rundown and r.arrivals:
            # it crossed its beam slowing down or starting from rest, not at the riser's
            # speed: its block's length tells nothing of a second card
            self._ignore_blocks.add(r.arrivals[0])
        fed_on = self._inflight is not None and self._inflight == self._fed_on_card
        edge = self._lead_at_beam(r, r.arrivals[0]) if r.arrivals else r.now
        if fed_on and self._last_edge is not None and edge > self._last_edge:
            # fed on behind the last card: it came from the front wall to the nip at the
            # feed's own speed, a card length (less its start) in this time
            self._run_on_gap = edge - self._last_edge
        self._last_edge = edge
        wait = super()._on_arrival(r)
        self._braked = None if self._inflight is not None else (edge, r.now)
        return wait

    def _router_move_s(self, target: Pile) -> float:
        """Back to the lower bay the solenoid's spring turns the flap sooner than the
        solenoid pulls it over (`design.HANDSFREE_SOLENOID_ROUTER`)."""
        move = self._timing.router_move
        if target is ROUTER_PILE[Bay.LOWER]:
            r = handsfree.HANDSFREE_ROUTER
            return max(0.0, move - (r.settle_s - r.back_settle_s))
        return move

    def _flap_lead(self) -> float:
        """From the next feed to its card at the flap: that card has lain on the feed roller
        since the last card's tail left the nip, and was drawn on from the front wall until
        the feed braked at that card's arrival and through the brake's run-on. Bounded with
        the feed's speed measured on this pass (a card fed on came from the front wall to
        the nip in the time between two arrivals), 10 % fast, starting at once at full
        speed; before any card was fed on, or after any other stop, the build's bound."""
        braked, gap = self._braked, self._run_on_gap
        if braked is None or gap is None or self._rundown:
            return super()._flap_lead()
        edge, stopped = braked
        v = (1.0 + design.SPEED_TOLERANCE) * design.CARD_LENGTH_MM / gap
        riser = self._timing.feed_speed_mm_s * (1.0 - design.SPEED_TOLERANCE)
        # the last card's tail left the nip this long before its edge reached the beam
        started = edge - design.NIP_CLEARANCE_MM / riser
        drawn = design.FRONT_WALL_MAX_MM + v * (
            stopped - started + design.HANDSFREE_DRIVE.motor_start_s)
        return max(0.0, design.NIP_TO_FLAP_MM - drawn) / v

    def _lead_at_beam(self, r: _Round, pile: Pile) -> float:
        """When its beam first saw it (the filter only confirms it later): the riser drives
        every card past the beam and the flap at its own speed."""
        since = self._mech.blocked_since(pile)
        return r.now if since is None else min(since, r.now)

    def _feed_on(self, r: _Round, pile: Pile) -> bool:
        """The next card goes to the same bay: the feed runs on into it. The riser pulls
        each card away from the next as its tail leaves the nip, so they reach the beam
        apart, and the flap stays where it is. A card to the other bay waits for the flap as
        before: it would reach the flap before the last card's tail has left it."""
        plan = self._plan
        assert plan is not None
        if (self._phase is not Phase.PASS or self._rundown or self._nudge_until is not None
                or self._feed_again_at is not None or self._fed_ok >= plan.deck_size
                or not self._mech.tray_loaded()):
            return False
        self._commanded, self._planned = self._route_for(self._fed_ok), self._fed_ok
        if self._commanded is not pile:
            return False
        self._mech.set_motor(True)  # (running already, unless the riser ran alone)
        self._inflight = self._fed_on_card = self._fed_ok
        self._card_deadline = r.now + self._timing.card_timeout
        self._empty_since = None
        self.fed_on += 1
        self._lift_for_last()
        return True

    def _on_unfed_arrival(self, r: _Round) -> float | None:
        """A card seen with none in flight. After a pause, before the next feed, it is the
        next card: the feed's unbraked run-down drew it in and the riser took it on, its bay
        decided at the flap (by the spring's, if the lid was open then). It is counted as
        that card and its bay checked against the plan. Otherwise two cards came through on
        one feed."""
        assert self._plan is not None
        if not self._rundown or self._fed_ok >= self._plan.deck_size:
            return super()._on_unfed_arrival(r)
        if self._planned != self._fed_ok:
            self._commanded = self._route_for(self._fed_ok)
            self._planned = self._fed_ok
        self._inflight = self._fed_ok
        return self._on_arrival(r)

    def _feed(self, now: float) -> None:
        self._rundown = False
        self._braked = None
        super()._feed(now)
        self._lift_for_last()

    def _lift_for_last(self) -> None:
        """The card now fed is the pass's last: the press starts lifting off it. Alone in
        the tray the tyre carries a card without the press (its own weight's share on the
        tyre against the floor's drag on the rest: 2.4 x at the roughest corner,
        `physics.feed_load`); any card over it slips, so the press stays down till then."""
        plan = self._plan
        if (plan is not None and self._phase is Phase.PASS
                and self._inflight == plan.deck_size - 1
                and self._press_pose is PressPose.DOWN and not self._press_queue):
            self._press_step(PressPose.LIFTED)

    def _on_jam(self, r: _Round) -> float | None:
        """No card at a beam in time: the feed stops and the riser runs alone up to
        RISER_ALONE_S to carry a card stalled on the rise; then the player is asked."""
        if not self._riser_grace:
            self._riser_grace = True
            self._mech.set_motor(False)
            self._shaft.set_riser(False)  # stopped and started again: the jolt frees a card
            self._shaft.set_riser(True)
            self._card_deadline = r.now + RISER_ALONE_S
            self._emit("warning", {"kind": "riser_stall", "card": self._fed_ok + 1})
            return None
        self._riser_grace = False
        self._inflight = None
        n = self._plan.deck_size if self._plan else 0
        return self._hf_fault(
            "riser_stall",
            f"Card {self._fed_ok + 1} of {n} did not reach its bay on pass "
            f"{self._passes_done + 1}: a card is stuck in the riser. Open the lid, take it "
            "out and lay it on the deck in the tray, close the lid and touch: the machine "
            "drops its bays into the tray and starts a fresh shuffle.")

    def _on_stuck(self, r: _Round) -> float | None:
        """A beam blocked too long: most often two cards fed together, the second still in
        the stopped feed's nip. The feed runs one card's transit to let it go (the pass is
        then replanned, its order unknown); a card still stuck after that is the player's."""
        if self._phase is Phase.PASS and not self._nudged and r.stuck is not None:
            self._nudged = True
            self._tainted = self._tainted or "stuck"
            self._mech.set_motor(True)
            self._nudge_until = r.now + design.card_transit_s(self._timing.feed_speed_mm_s)
            self._clear_from = r.now
            self._emit("warning", {"kind": "stuck", "pass": self._passes_done + 1,
                                   "card": r.stuck[1] + 1})
            return None
        return super()._on_stuck(r)

    def _on_next_card(self, r: _Round) -> float | None:
        while self._press_queue:
            if r.now < self._press_next_at:
                return self._wait(r.now, r.nxt, min([self._press_next_at, *r.waits]))
            pose, rest = self._press_queue[0], self._press_queue[1:]
            arrive = r.now + self._press_step(pose)
            # the next step once this one has arrived
            self._press_queue, self._press_next_at = rest, arrive
            self._press_down_at = arrive
        if r.now < self._press_down_at:
            return self._wait(r.now, r.nxt, min([self._press_down_at, *r.waits]))
        if self._rundown and r.now < self._rundown_until:
            # after a pause the riser alone first brings on any card the feed's run-down
            # drew in (two, when the feed was running on): each is counted as it arrives,
            # and a feed meanwhile would drive the card behind it too
            return self._wait(r.now, r.nxt, min([self._rundown_until, *r.waits]))
        if self._nudge_until is not None:
            if r.now < self._nudge_until:
                return self._wait(r.now, r.nxt, min([self._nudge_until, *r.waits]))
            self._mech.set_motor(False)
            self._nudge_until = None
        return super()._on_next_card(r)

    def _on_empty_in_flight(self, r: _Round) -> float | None:
        """The last card has left the tray: no more will come, so the feed stops after the
        grace, and the card's own deadline (then the riser alone) decides."""
        if self._empty_since is None:
            self._empty_since = r.now
        limit = self._empty_since + self._timing.tray_empty_grace
        if r.now >= limit:
            self._mech.set_motor(False)
            return self._wait(r.now, r.nxt, min(r.waits))
        return self._wait(r.now, r.nxt, min([limit, *r.waits]))

    def _raise_fault(self, kind: str, recovery: Recovery, card: int | None = None) -> float:
        """A double feed or a misroute is left to the pass's counts: the pass finishes, the
        machine restacks, and plans afresh (no hands). A pass short of cards with an empty
        tray is restacked and the load cell counts the deck."""
        if self._phase is Phase.PASS and kind in ("double_feed", "misroute", "short"):
            self._tainted = self._tainted or kind
            self._emit("warning", {"kind": kind, "pass": self._passes_done + 1,
                                   "card": self._fed_ok + 1 if card is None else card})
            if kind == "short":
                return self._end_pass()
            return 0.0
        self._shaft.set_riser(False)
        return super()._raise_fault(kind, recovery, card)

    def _fault_text(self, kind: str, recovery: Recovery, n: int, i: int, k: int,
                    card: int) -> str:
        text = super()._fault_text(kind, recovery, n, i, k, card)
        if recovery is Recovery.RESTART_PLAN:
            text = text.split(" Gather all")[0] + (
                " Open the lid, take out any card caught in the path and lay it on the deck "
                "in the tray, close the lid and touch: the machine drops its bays into the "
                "tray and starts a fresh exact shuffle.")
        return text

    def _end_pass(self) -> float:
        """The pass is through: check its counts against the plan, then restack."""
        plan = self._plan
        assert plan is not None
        self._mech.set_motor(False)
        now = self._clock.monotonic()
        j = self._passes_done
        if j < len(self._predicted):
            self._measured += now - self._pass_started
            self._measured_predicted += self._predicted[j]
        sensed = BayCounts(self._counts[ROUTER_PILE[Bay.UPPER]],
                           self._counts[ROUTER_PILE[Bay.LOWER]])
        if isinstance(plan, HandsFreeShufflePlan) and plan.handsfree is not None:
            pp = plan.handsfree.passes[j]
            check = handsfree.verify_pass(pp.counts, sensed)
            planned = [ROUTER_PILE[b] for b in pp.bays]
            if not check.ok:
                self._tainted = self._tainted or "miscount"
                self._emit("warning", {"kind": "miscount", "pass": j + 1,
                                       "detail": check.detail})
            elif self._route_log != planned:
                self._tainted = self._tainted or "misroute"
        self._passes_done += 1
        self.passes_run += 1
        self._start_script(self._restack_script(sensed, self._tainted))
        return 0.0

    # --- the restack ----------------------------------------------------------------------

    def _start_script(self, script: Generator[float, None, None]) -> None:
        self._phase = Phase.RESTACK
        self._script = script
        self._script_due = self._clock.monotonic()
        self._set_state(DeviceState.BUSY)
        self._emit_progress()

    def _leave_s(self, bay: Bay) -> float:
        """From `bay`'s doors commanded open to its pile surely off them."""
        b = self._restack_build
        return b.door_open_s + b.fall_s(b.lower_drop_mm if bay is Bay.LOWER else
                                        b.upper_drop_mm)

    def _drop_s(self, bay: Bay) -> float:
        b = self._restack_build
        drop = b.lower_drop_mm if bay is Bay.LOWER else b.upper_drop_mm
        return b.door_open_s + b.fall_s(drop) + b.settle_s + b.weigh_s

    def _read(self, opened: Bay, weigh: bool = True) -> Generator[float, None, DropStep]:
        """The door sensors and the tray's weight once the load cell has settled (not
        weighed: the door sensors alone)."""
        if not weigh:
            return DropStep(opened, None, self._shaft.doors_hold(Bay.UPPER),
                            self._shaft.doors_hold(Bay.LOWER))
            yield 0.0  # a generator, like the weighed reading
        waited = 0.0
        cards = self._shaft.tray_cards()
        while cards is None and waited < WEIGH_PATIENCE_S:
            yield _POLL_S
            waited += _POLL_S
            cards = self._shaft.tray_cards()
        return DropStep(opened, -1 if cards is None else round(cards),
                        self._shaft.doors_hold(Bay.UPPER), self._shaft.doors_hold(Bay.LOWER))

    def _restack_script(self, counts: BayCounts,
                        tainted: str | None) -> Generator[float, None, None]:
        """Lower doors, read; upper doors, read, skew beam; doors closed; then judge."""
        assert self._plan is not None
        n = self._plan.deck_size
        order = handsfree.SHAFT_RESTACK
        # the last card has cleared its beam; the riser carries its tail past its bay's slot
        # while the press, lifting off the tray since that card was fed, turns out of the
        # piles' way: the lower doors open once its turn has gone far enough
        started = self._clock.monotonic()
        yield from self._press_to(PressPose.LIFTED)
        lifted = self._clock.monotonic() - started
        self._press_step(PressPose.OUT)
        yield max(self._land_s - lifted, self._restack_build.doors_after_turn_s)
        self._shaft.set_riser(False)
        steps = []
        # a pile under the door sensors' beams is not seen: its sensor says nothing, and the
        # first pile is weighed as well
        blind = {bay for bay in Bay if counts[bay] < handsfree.DOOR_BEAM_CARDS}
        b = self._restack_build

        def seen(step: DropStep) -> DropStep:
            # (a beam broken still says a pile is there; whole, it says nothing of a small
            # one)
            return replace(
                step,
                upper_holds=None if Bay.UPPER in blind and not step.upper_holds
                else step.upper_holds,
                lower_holds=None if Bay.LOWER in blind and not step.lower_holds
                else step.lower_holds)

        first, second = order.first, order.second
        self._set_doors(first, True)
        if blind:
            # the first pile weighed alone in the tray before the second doors open
            yield self._drop_s(first)
            steps.append(seen((yield from self._read(first, weigh=True))))
            self._set_doors(second, True)
            second_at = self._clock.monotonic()
        else:
            # the second doors open before the first pile is read: their pile cannot leave
            # them before the reading, nor land before the first pile has
            yield b.upper_after_s
            self._set_doors(second, True)
            second_at = self._clock.monotonic()
            yield max(0.0, self._leave_s(first) - b.upper_after_s)
            # the first pile is read by the door sensors once it has left its doors (which
            # bay emptied: the order); the tray is weighed once, the whole deck in it
            steps.append(seen((yield from self._read(first, weigh=False))))
        yield max(0.0, second_at + self._leave_s(second) - self._clock.monotonic())
        step = yield from self._read(second, weigh=False)
        # the last pile is in the tray: the doors close, and before another pass the press
        # turns in over the deck as soon as the leaves are out of its way, while the deck is
        # weighed once the doors are still (their swing shakes the load cell; the press
        # turning on its post, hung from the shaft, does not bear on the tray). After the
        # last pass it stays out, for the player to take the deck.
        for shut in Bay:
            self._set_doors(shut, False)
        yield b.press_in_s
        if tainted is None and self._passes_done < self._plan.passes:
            self._press_step(PressPose.LIFTED)
        yield max(0.0, max(b.doors_still_s, b.settle_s) + b.weigh_s - b.press_in_s)
        step = replace(step, tray_cards=(yield from self._read(second)).tray_cards)
        steps.append(seen(step))
        skewed = self._shaft.skewed()
        # judged at once: the readings are taken; the press is turning in
        self.restacks_run += 1
        last = steps[-1]
        if tainted is not None:
            # the pass went wrong: only the count matters, for a fresh plan
            yield from self._settle_all(n, last, f"pass {self._passes_done}: {tainted}")
            return
        check = handsfree.verify_restack(counts, RestackReading(tuple(steps)), order)
        self._emit("restack", {"pass": self._passes_done, "finding": check.finding.value,
                               "detail": check.detail, "tray": last.tray_cards,
                               "skewed": skewed})
        if check.finding is Finding.OK:
            self._wrong_orders = 0
            if skewed:
                yield from self._tap()
                return
            self._restacked()
            return
        if check.finding is Finding.WRONG_ORDER:
            self._wrong_orders += 1
            if self._wrong_orders >= WRONG_ORDER_PROMPT:
                self._wrong_orders = 0
                self._hf_fault(
                    "door_leads",
                    f"The bays emptied in the wrong order {WRONG_ORDER_PROMPT} times in a "
                    f"row ({check.detail}): check the door servos' leads (the lower doors "
                    "on PWM channel 0, the upper on channel 1), close the lid and touch: a "
                    "fresh shuffle starts.")
                return
            yield from self._settle_all(n, last, f"wrong order: {check.detail}")
            return
        yield from self._settle_all(n, last, f"{check.finding.value}: {check.detail}")

    def _settle_all(self, n: int, last: DropStep,
                    reason: str) -> Generator[float, None, None]:
        """Every card must end in the tray before a fresh plan: a pile caught on its doors
        gets its doors closed and opened again (twice), then the player is asked. With the
        tray short and no door sensor seeing a pile, every bay's doors are worked so: a few
        cards lying flat on shut doors are under the sensors' beams."""
        step = last
        yield from self._press_to(PressPose.OUT)
        for attempt in range(DOOR_RETRIES + 1):
            held = [bay for bay in Bay if step.holds(bay)]
            if step.tray_cards == n and not held:
                self._replan(reason)
                return
            retry = held or ([Bay.LOWER, Bay.UPPER] if step.tray_cards < n else [])
            if not retry or attempt == DOOR_RETRIES:
                break
            for bay in retry:
                self._set_doors(bay, True)
                yield self._restack_build.door_open_s
                self._set_doors(bay, False)
                yield self._restack_build.door_open_s
                self._set_doors(bay, True)
                yield self._drop_s(bay)
                step = yield from self._read(bay)
            for bay in Bay:
                self._set_doors(bay, False)
            yield self._restack_build.door_open_s
        held = [bay.value for bay in Bay if step.holds(bay)]
        if held:
            self._hf_fault(
                "caught",
                f"Cards are caught on the {' and '.join(held)} bay's doors after "
                f"{DOOR_RETRIES} tries (the tray weighs {step.tray_cards} of {n} cards), or "
                "those doors do not open (check their servo). Open the lid, push the cards "
                "down onto the deck in the tray, close the lid and touch: a fresh shuffle "
                "starts.")
        else:
            self._hf_fault(
                "restack_count",
                f"The tray weighs {step.tray_cards} cards, not {n}, and no door sensor sees "
                "a pile"
                + (f", after both bays' doors were worked {DOOR_RETRIES} times. Open the lid, "
                   "look for the missing cards on the bays' doors and in the riser, make"
                   if step.tray_cards < n else ". Open the lid, make")
                + f" the deck whole ({n} cards) in the tray, close the lid and touch: a fresh "
                "shuffle starts.")

    def _tap(self) -> Generator[float, None, None]:
        """A pile landed skewed: the press comes down on the deck and squares it."""
        yield max(0.0, self._press_free_at - self._clock.monotonic())
        yield from self._press_to(PressPose.DOWN)
        yield self._restack_build.settle_s
        if self._shaft.skewed():
            self._hf_fault(
                "skewed",
                "The deck landed skewed in the tray and tapping did not square it: open the "
                "lid, square the deck without changing its order, close the lid and touch.")
            return
        self._restacked()

    def _recover_script(self) -> Generator[float, None, None]:
        """After a prompt: drop whatever the bays hold, count the tray, plan afresh."""
        assert self._plan is not None
        yield from self._press_to(PressPose.OUT)
        for bay in (Bay.LOWER, Bay.UPPER):
            self._set_doors(bay, True)
            yield self._drop_s(bay)
        last = yield from self._read(Bay.UPPER)
        for bay in Bay:
            self._set_doors(bay, False)
        yield self._restack_build.door_open_s
        yield from self._settle_all(self._plan.deck_size, last, "after the player's fix")

    def _restacked(self) -> None:
        """A verified restack: the next pass, or the deck is ready."""
        plan = self._plan
        assert plan is not None
        self._restacks_done += 1
        if self._passes_done < plan.passes:
            self._begin_pass()
            return
        self._phase = None
        self._script = None
        self._mech.set_led(False)
        self._press_off()  # off the deck, for the player to take it
        k = plan.passes
        turned = (" (turned over by its odd number of passes: loaded face up, it lies face "
                  "down)" if k % 2 else "")
        self._prompt = f"Shuffle done ({k} passes, restacked by the machine): the deck is " \
            f"ready in the tray{turned}. {plan.quality}."
        self._emit("prompt", {"text": self._prompt, "pass": k, "passes": k, "done": True})
        self._emit("done", {"passes": k, "tv_distance": plan.tv_distance,
                            "quality": plan.quality, "hands_free": True})
        self._set_state(DeviceState.IDLE)

    def _hf_fault(self, kind: str, text: str) -> float:
        """A fault the machine cannot put right itself: everything stops, the player is told."""
        plan = self._plan
        assert plan is not None
        self._mech.set_motor(False)
        self._shaft.set_riser(False)
        self._script = None
        self._phase = None
        action = _HF_RESUME[kind]
        recovery = Recovery.CONTINUE if action == "next" else Recovery.RESTART_PLAN
        self._fault = Fault(kind, text, recovery, self._passes_done, self._fed_ok)
        self._last_fault = self._fault
        self._prompt = text
        self._set_state(DeviceState.FAULT)
        self._emit("fault", {"kind": kind, "text": text, "recovery": recovery.value,
                             "pass": self._passes_done, "card": self._fed_ok,
                             "cards": self._sensed})
        return 0.25

    # --- the lid --------------------------------------------------------------------------

    def _pause(self, now: float) -> float:
        self._mech.set_motor(False)
        self._shaft.set_riser(False)
        self._paused_phase = self._phase
        self._paused_at = now
        self._phase = Phase.PAUSED
        assert self._plan is not None
        self._prompt = (f"The lid is open: the shuffle is paused (pass "
                        f"{min(self._passes_done + 1, self._plan.passes)} of "
                        f"{self._plan.passes}). Close the lid and touch to go on.")
        self._emit("prompt", {"text": self._prompt, "paused": True})
        self._set_state(DeviceState.WAITING)
        self._emit_progress()
        return 0.25

    def _unpause(self) -> None:
        now = self._clock.monotonic()
        held = now - self._paused_at
        self._pass_deadline += held
        self._script_due += held
        # the servos stopped with the power where they were: the press's and the leaves'
        # moves still under way take what they had left
        if self._press_queue:
            self._press_next_at += held
        if self._press_down_at > self._paused_at:
            self._press_down_at += held
        if self._press_free_at > self._paused_at:
            self._press_free_at += held
        if self._press_at > self._paused_at:
            self._press_at += held
        self._phase, self._paused_phase = self._paused_phase, None
        self._prompt = None
        if self._phase is Phase.PASS:
            self._shaft.set_riser(True)
            if self._router_at is not None:
                self._mech.set_router(self._router_at)
            if self._inflight is not None:
                # the card stopped with the power. It may have reached its beam just before
                # (the sensor's filter has not yet taken it): the riser alone first, and the
                # feed only once the filter would have shown it (its tail is in the nip until
                # its beam sees it, so the feed then carries it on)
                self._feed_again_at = now + 2 * self._timing.sensor_filter + self._timing.poll
                self._feed_again_card = self._inflight
                self._card_deadline = self._feed_again_at + self._timing.card_timeout
            self._clear_from = now
            # a card under a beam through the pause blocked it all that time, and one the
            # run-down carried past a beam blocked it while slowing down: neither is a double
            self._mech.update(now)
            self._rundown = True
            # no card the riser holds takes longer than a card's whole budget to its beam
            self._rundown_until = now + self._timing.card_timeout
            self._drawn = self._mech.take_arrivals()
            self._ignore_blocks |= set(self._passing) | set(self._drawn) | {
                p for p in Pile if self._mech.blocked_since(p) is not None}
        self._mech.set_led(True)
        self._set_state(DeviceState.BUSY)
        self._emit_progress()

    # --- commands and stepping ------------------------------------------------------------

    def resume(self) -> Any:
        """Paused with the lid now closed: go on where the plan stopped. After a prompt:
        what the prompt said (a fresh plan from the deck as the player left it, or the next
        pass). Otherwise as ShufflerController.resume."""
        with self._lock:
            if self._phase is Phase.PAUSED:
                if self._shaft.lid_closed():
                    self._unpause()
                handled = True
            elif self._state is DeviceState.FAULT and self._fault is not None \
                    and self._plan is not None:
                fault = self._fault
                self._before_resume(fault.recovery.value, fault)
                self._fault = None
                self._emit("fault", {"kind": fault.kind, "cleared": True})
                if _HF_RESUME.get(fault.kind) == "next":
                    if self._shaft.skewed():
                        self._hf_fault("skewed", fault.text)
                    else:
                        self._restacked()
                else:
                    self._start_script(self._recover_script())
                handled = True
            else:
                handled = False
        if not handled:
            return super().resume()
        self._kick()
        self._flush()
        return self.status()

    def abort(self) -> Any:
        with self._lock:
            self._script = None
            self._phase = None
            if self._opened:
                self._shaft.set_riser(False)
                self._press_off()
        return super().abort()

    def _step_locked(self) -> float:
        if self._state is not DeviceState.BUSY or self._plan is None:
            return 0.25
        now = self._clock.monotonic()
        if self._phase in (Phase.PASS, Phase.RESTACK) and not self._shaft.lid_closed():
            return self._pause(now)
        if self._phase is Phase.RESTACK:
            return self._step_script(now)
        if self._feed_again_at is not None:
            wait = super()._step_locked()  # an arrival the filter was holding is taken here
            now = self._clock.monotonic()
            if now < self._feed_again_at:
                return min(wait, self._feed_again_at - now)
            self._feed_again_at = None
            if self._inflight == self._feed_again_card and self._state is DeviceState.BUSY:
                self._mech.set_motor(True)
                self._card_deadline = now + self._timing.card_timeout
            return 0.0
        return super()._step_locked()

    def _step_script(self, now: float) -> float:
        nxt = self._mech.update(now)
        self._mech.take_arrivals()  # nothing arrives while the feed is still
        if now < self._script_due:
            return self._until(now, nxt)
        script = self._script
        if script is None:
            return 0.25
        try:
            wait = next(script)
        except StopIteration:
            if self._script is script:
                self._script = None
            return 0.0
        if self._script is not script:  # the script started another (a fresh plan) or ended
            return 0.0
        self._script_due = now + wait
        return self._until(now, nxt)

    def _until(self, now: float, nxt: float | None) -> float:
        due = self._script_due if nxt is None else min(self._script_due, nxt)
        return max(due - now, 0.0)

    # --- status ---------------------------------------------------------------------------

    def _extra_status(self) -> dict[str, Any]:
        return {"hands_free": True,
                "phase": self._phase.value if self._phase else None,
                "restacks_done": self._restacks_done,
                "seconds_left": self._seconds_left()}

    def _seconds_left(self) -> float | None:
        """The rest of the plan on the build's pace, scaled by how the passes measured so far
        compared with it; None with no plan under way."""
        plan = self._plan
        if plan is None or self._phase is None or not self._predicted:
            return None
        scale = (self._measured / self._measured_predicted if self._measured_predicted > 0
                 else 1.0)
        restack = self._restack_build.restack_s
        j = min(self._passes_done, len(self._predicted))
        left = sum(self._predicted[j:]) * scale + restack * (plan.passes - j)
        if self._phase is Phase.PASS and j < len(self._predicted):
            done = self._sensed / max(plan.deck_size, 1)
            left -= self._predicted[j] * scale * done
        if self._phase is Phase.RESTACK or self._paused_phase is Phase.RESTACK:
            left += restack  # the restack under way, counted with the pass it follows
        return round(max(left, 0.0), 1)
