"""The shuffler controller: plans, passes, faults and events, shared by every implementation.

The controller is a step-driven state machine over a small `Mechanism` port (motor, router,
pile sensors, tray sensor, status LED). `step()` does everything that can be done at the
clock's current time and returns how long until it wants to run again; tests drive it with
a FakeClock and never sleep. `start()` adds a runner thread for real time.

The feed overlaps: a card is fed once the last one is seen at its beam (the motor stops
then), while that one still passes it; to the same pile only once that beam has cleared, to
the other pile only so that the router moves after the last card's tail has left the flap
and is still before the next card's leading edge reaches it (hardware.shuffler.design).
"""

from __future__ import annotations

import enum
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hardware.errors import ShufflerBusyError, ShufflerError, ShufflerNotReadyError
from hardware.interfaces import (
    Clock,
    DeviceEvent,
    DeviceState,
    ShufflerStatus,
    Subscriber,
    Subscribers,
    Unsubscribe,
)
from hardware.shuffler import design
from hardware.shuffler.physics import deal_and_stack, nominal_roller_speed_mm_s
from hardware.shuffler.plan import Pile, Routing, ShufflePlan, make_plan, secure_rng


class Mechanism(Protocol):
    """The physical parts the controller drives; one implementation per kind of machine."""

    kind: str  # "simulated", "gpio"

    def open(self) -> None:
        """Claim the parts; raises HardwareError (or OSError) when they are not there."""
        ...

    def close(self) -> None:
        """Motor off, parts released; idempotent."""
        ...

    def update(self, now: float) -> float | None:
        """Bring the parts up to `now`; returns the time of the next known change, if any."""
        ...

    def set_motor(self, on: bool) -> None: ...

    def set_router(self, pile: Pile) -> None: ...

    def set_led(self, on: bool) -> None: ...

    def tray_loaded(self) -> bool: ...

    def blocked_since(self, pile: Pile) -> float | None:
        """When the pile's card sensor became blocked, or None when it is clear."""
        ...

    def take_arrivals(self) -> list[Pile]:
        """Cards sensed arriving at the piles since the last call, in order."""
        ...

    def take_block(self, pile: Pile) -> float | None:
        """How long the pile's sensor was blocked the last time it cleared (once), or None."""
        ...


def _derived(feed_speed_mm_s: float, router_settle_s: float) -> dict[str, float]:
    """Every time budget of a machine whose cards move at `feed_speed_mm_s` (see Timing)."""
    transit = design.card_transit_s(feed_speed_mm_s)
    flight = design.flight_s(feed_speed_mm_s)
    wait = design.router_wait_s(router_settle_s, feed_speed_mm_s)
    cycle = flight + transit + wait
    filt = design.sensor_filter_s(feed_speed_mm_s)
    return {
        "card_timeout": round(3.0 * flight, 4),
        "blocked_limit": round(4.0 * transit, 4),
        "pass_base": 5.0,
        "per_card": round(2.0 * cycle, 4),
        "router_settle": round(wait, 4),
        "double_block": round(DOUBLE_BLOCK_TRANSITS * transit, 4),
        "sensor_filter": filt,
        "feed_speed_mm_s": feed_speed_mm_s,
        "router_move": router_settle_s,
        "flap_clear": round(design.flap_clear_s(feed_speed_mm_s), 4),
        "flap_lead": round(design.flap_lead_s(feed_speed_mm_s, filter_s=filt), 4),
    }


# A single card blocks a beam for one transit; two cards overlapping by half a card, 1.5.
DOUBLE_BLOCK_TRANSITS = 1.25
# The class's defaults (a machine with no timing given at all): the default build's roller
# speed under half a deck, from the arithmetic alone (the simulated path imports this module)
_DEFAULT = _derived(nominal_roller_speed_mm_s(design.DEFAULT_DRIVE),
                    design.DEFAULT_ROUTER.settle_s)


@dataclass(frozen=True, slots=True)
class Timing:
    """Time budgets (seconds): the fail-safes that stop the motor, the router's settle, the
    sensors' filter, all derived from one card speed by `for_speed` (the defaults are the
    default build's, hardware.shuffler.design):

    - `card_timeout`: motor on and no card at a beam within 3 flights (gate to beam): a jam;
    - `blocked_limit`: a beam blocked 4 card transits: a card stuck there;
    - `double_block`: a block longer than 1.25 transits is two overlapping cards;
    - `sensor_filter`: the beams' glitch filter, a sixth of a transit (at most 15 ms);
    - `router_settle`: the least wait after a router move, what the card's flight to the
      flap does not hide of the router's own settle time;
    - `flap_clear`, `flap_lead`: a card seen at its beam has its tail past the flap that much
      later (a slow card: the router may move then); a card fed reaches the flap that much
      later (a fast card: the flap is still by then), design.flap_clear_s / flap_lead_s;
    - a pass may take `pass_base + (per_card + router_settle) * cards`.

    Raises ShufflerError for a budget that is not above 0 (settle, filter: below 0).
    """

    card_timeout: float = _DEFAULT["card_timeout"]
    blocked_limit: float = _DEFAULT["blocked_limit"]
    pass_base: float = _DEFAULT["pass_base"]
    per_card: float = _DEFAULT["per_card"]
    poll: float = 0.005  # how often to look at the sensors while busy (real time)
    router_settle: float = _DEFAULT["router_settle"]
    # The tray sensor says empty while the motor runs: the card in flight has this long to
    # arrive before the motor stops (None: half the card timeout, 1.5 flights).
    empty_grace: float | None = None
    double_block: float = _DEFAULT["double_block"]
    sensor_filter: float = _DEFAULT["sensor_filter"]
    feed_speed_mm_s: float = _DEFAULT["feed_speed_mm_s"]  # what the budgets were derived from
    router_move: float = _DEFAULT["router_move"]  # the router's own settle (command to still)
    # From a card seen at its beam to its tail surely past the flap (a slow card): the router
    # may move for the next card then, not before.
    flap_clear: float = _DEFAULT["flap_clear"]
    # From motor on to the card's leading edge at the flap (a fast card): the flap must be
    # still by then, so a feed after a move waits router_move less this.
    flap_lead: float = _DEFAULT["flap_lead"]
    # Each card's own speed past its beam, which falls with the load of the cards still in
    # the tray over it: (left pile with 1 card in the tray, left with `full_cards`, right
    # with 1, right with `full_cards`), mm/s, as `crib shuffler calibrate` measured them over
    # a full deck; in between and beyond, in proportion to the cards in the tray (the motor's
    # speed falls in proportion to its load). Empty: every card at feed_speed_mm_s.
    speeds: tuple[float, ...] = ()
    full_cards: int = 52

    def __post_init__(self) -> None:
        for name in ("card_timeout", "blocked_limit", "pass_base", "per_card", "poll",
                     "double_block", "feed_speed_mm_s"):
            if not getattr(self, name) > 0:
                raise ShufflerError(f"shuffler timing {name} must be above 0 s, got "
                                    f"{getattr(self, name)}")
        if not (self.router_settle >= 0 and self.router_move >= 0 and self.flap_clear >= 0
                and self.flap_lead >= 0):
            raise ShufflerError(f"router settle time must be 0 s or more, got "
                                f"{self.router_settle}")
        if not self.sensor_filter >= 0:
            raise ShufflerError(f"sensor filter must be 0 s or more, got {self.sensor_filter}")
        if self.empty_grace is not None and not self.empty_grace > 0:
            raise ShufflerError(f"empty_grace must be above 0 s, got {self.empty_grace}")
        if self.speeds and (len(self.speeds) != 4 or min(self.speeds) <= 0):
            raise ShufflerError(f"card speeds must be four speeds above 0 mm/s (left and "
                                f"right, at one card and at a full tray), got {self.speeds}")
        if not 2 <= self.full_cards <= 104:
            raise ShufflerError(f"full_cards must be 2 to 104, got {self.full_cards}")

    def card_speed(self, pile: Pile, in_tray: int) -> float:
        """The speed past its beam of a card fed with `in_tray` cards in the tray (itself
        included) to `pile`: what its block and its stuck limit are judged against."""
        if not self.speeds:
            return self.feed_speed_mm_s
        i = 0 if pile is Pile.LEFT else 2
        one, full = self.speeds[i], self.speeds[i + 1]
        v = one + (full - one) * (max(in_tray, 1) - 1) / (self.full_cards - 1)
        return max(v, 0.25 * min(one, full))  # far past the calibrated deck: never below

    def transit_for(self, pile: Pile, in_tray: int) -> float:
        """How long that card blocks its beam."""
        return design.card_transit_s(self.card_speed(pile, in_tray))

    def double_block_for(self, pile: Pile, in_tray: int) -> float:
        """A block longer than this, for that card, is two cards overlapping."""
        if not self.speeds:
            return self.double_block
        return DOUBLE_BLOCK_TRANSITS * self.transit_for(pile, in_tray)

    def flap_clear_for(self, pile: Pile, in_tray: int) -> float:
        """From that card seen at its beam to its tail surely past the flap. The slower
        pile's speed: a card that drops off its branch's outlet before its tail has passed
        the beam blocks it for less than its length, so a block can flatter a card's speed."""
        if not self.speeds:
            return self.flap_clear
        return design.flap_clear_s(min(self.card_speed(Pile.LEFT, in_tray),
                                       self.card_speed(Pile.RIGHT, in_tray)))

    def flap_lead_for(self, in_tray: int) -> float:
        """From motor on to the leading edge at the flap of a card fed with `in_tray` cards
        in the tray (the faster pile's speed: the card may be fast)."""
        if not self.speeds:
            return self.flap_lead
        fast = max(self.card_speed(Pile.LEFT, in_tray), self.card_speed(Pile.RIGHT, in_tray))
        return design.flap_lead_s(fast, filter_s=self.sensor_filter)

    def blocked_limit_for(self, pile: Pile, in_tray: int) -> float:
        """A beam blocked this long by that card is a card stuck under it."""
        if not self.speeds:
            return self.blocked_limit
        return 4.0 * self.transit_for(pile, in_tray)

    @classmethod
    def for_speed(cls, feed_speed_mm_s: float,
                  router_settle_s: float = design.DEFAULT_ROUTER.settle_s,
                  **overrides: Any) -> Timing:
        """The budgets of a machine whose cards move at `feed_speed_mm_s`, with its router's
        settle time (command to a still flap); `overrides` replace derived budgets (None:
        derived) and are checked against the speed (`check_against_speed`).

        Raises ShufflerError for a bad speed or an override that cannot work at it.
        """
        if not feed_speed_mm_s > 0:
            raise ShufflerError(f"feed speed must be above 0 mm/s, got {feed_speed_mm_s}")
        values: dict[str, Any] = _derived(feed_speed_mm_s, router_settle_s)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("speeds"):
            values["speeds"] = tuple(float(v) for v in values["speeds"])
            values["full_cards"] = int(values.get("full_cards", 52))
        timing = cls(**values)
        timing.check_against_speed()
        return timing

    def check_against_speed(self) -> None:
        """Raises ShufflerError naming a budget that cannot work at this card speed: a filter
        as long as half a card's transit (cards unseen), a stuck limit within two cards'
        block (a double feed called stuck), a card timeout shorter than the card's flight."""
        v = self.feed_speed_mm_s
        transit = design.card_transit_s(v)
        speed = f"at {v / 1000:.2f} m/s a card passes a beam in {transit * 1000:.0f} ms"
        if self.sensor_filter >= transit / 2:
            raise ShufflerError(f"sensor filter {self.sensor_filter * 1000:g} ms is too long: "
                                f"{speed}; keep it below {transit * 500:.0f} ms")
        if self.blocked_limit <= 2 * transit:
            raise ShufflerError(f"blocked limit {self.blocked_limit:g} s is too short: {speed}, "
                                f"two overlapping cards for up to {2 * transit:.3f} s")
        flight = design.flight_s(v)
        if self.card_timeout <= flight:
            raise ShufflerError(f"card timeout {self.card_timeout:g} s is too short: at "
                                f"{v / 1000:.2f} m/s a card needs {flight:.3f} s to its beam")
        if not transit < self.double_block < self.blocked_limit:
            raise ShufflerError(f"double-feed block {self.double_block:g} s must lie between a "
                                f"card's transit and the blocked limit: {speed}")

    @property
    def tray_empty_grace(self) -> float:
        return self.card_timeout / 2 if self.empty_grace is None else self.empty_grace

    def scaled(self, factor: float) -> Timing:
        """Every budget multiplied by `factor` (a machine `factor` times slower)."""
        return replace(
            self,
            card_timeout=self.card_timeout * factor,
            blocked_limit=self.blocked_limit * factor,
            pass_base=self.pass_base * factor,
            per_card=self.per_card * factor,
            empty_grace=None if self.empty_grace is None else self.empty_grace * factor,
            double_block=self.double_block * factor,
            router_settle=self.router_settle * factor,
            router_move=self.router_move * factor,
            flap_clear=self.flap_clear * factor,
            flap_lead=self.flap_lead * factor,
            sensor_filter=self.sensor_filter * factor,
            feed_speed_mm_s=self.feed_speed_mm_s / factor,
            speeds=tuple(v / factor for v in self.speeds),
        )

    def pass_budget(self, cards: int) -> float:
        """The longest a pass of `cards` may run before the motor is stopped."""
        return self.pass_base + (self.per_card + self.router_settle) * cards


class Feed(enum.Enum):
    """Where a pass's feed is: no card in flight (between cards), or one in flight."""

    GAP = "gap"
    FLIGHT = "flight"


class Cause(enum.Enum):
    """What a step of the pass found (hardware.shuffler.controller._TRANSITIONS)."""

    TIMEOUT = "timeout"  # the pass ran past its budget
    ARRIVAL = "arrival"  # a card reached a beam
    CLEARED = "cleared"  # a beam a card was passing cleared
    STUCK = "stuck"  # a beam blocked past its card's limit
    JAM = "jam"  # the card in flight did not come in time
    TRAY_EMPTY = "tray_empty"  # the tray sensor sees no card
    WAIT = "wait"  # a card in flight, nothing yet
    PASS_DONE = "pass_done"  # every card of the deck counted
    NEXT = "next"  # the next card may be routed and fed


@dataclass(slots=True)
class _Round:
    """What one look at the parts found."""

    now: float
    nxt: float | None  # the parts' next known change
    move_due: float | None  # the router's move still to come
    arrivals: list[Pile]
    waits: list[float] = field(default_factory=list)  # deadlines to wake for
    stuck: tuple[Pile, int] | None = None  # the pile and card of a stuck beam


class Recovery(enum.StrEnum):
    """What `resume()` does after a fault."""

    RETRY_CARD = "retry_card"  # the jammed card is back under the deck: feed it again
    CONTINUE = "continue"  # nothing to undo: feed the next card
    REDO_PASS = "redo_pass"  # the deck is gathered into the tray: run this pass again
    RESTART_PLAN = "restart_plan"  # radix: a fresh exact plan from the current deck


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault in words a player understands, and how the controller recovers."""

    kind: str  # jam, stuck, double_feed, misroute, empty, short, extra, timeout
    text: str
    recovery: Recovery
    pass_number: int
    card: int


class ShufflerController:
    """A Shuffler over a Mechanism; SimulatedShuffler and GpioShuffler are this plus parts."""

    device_name = "shuffler"

    def __init__(
        self,
        mechanism: Mechanism,
        clock: Clock,
        *,
        rng: random.Random | None = None,
        timing: Timing | None = None,
        target_tv: float = 0.1,
        touch_deck: int = 52,
        touch_plan: str = "random",
    ) -> None:
        self._mech = mechanism
        self._touch_deck = touch_deck  # what a touch starts when nothing is under way
        self._touch_plan = touch_plan
        self._clock = clock
        self._rng = rng if rng is not None else secure_rng()
        self._timing = timing or Timing()
        self._target_tv = target_tv
        self._lock = threading.RLock()
        self._subscribers = Subscribers()
        self._pending: list[DeviceEvent] = []
        self._state = DeviceState.STOPPED
        self._opened = False
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._running = False
        self._reset_plan()
        self._last_fault: Fault | None = None
        self._last_error: str | None = None
        self.restarts = 0  # radix plans restarted after a fault
        self.passes_run = 0  # every completed pass, across restarts
        self.misroutes = 0  # cards sensed at a pile other than the one commanded

    # --- lifecycle ------------------------------------------------------------------------

    @property
    def state(self) -> DeviceState:
        return self._state

    @property
    def plan(self) -> ShufflePlan | None:
        return self._plan

    @property
    def fault(self) -> Fault | None:
        """The current fault, or None."""
        return self._fault

    def open(self) -> None:
        """Claim the parts without a runner thread (tests step by hand); never raises."""
        with self._lock:
            if self._opened:
                return
            try:
                self._mech.open()
            except Exception as exc:  # a missing device must not stop the daemon
                self._set_state(DeviceState.ABSENT)
                self._last_error = f"shuffler not found: {exc}"
            else:
                self._opened = True
                self._last_error = None
                self._mech.set_motor(False)
                self._set_state(DeviceState.IDLE)
        self._flush()

    def start(self) -> None:
        """Open the parts and run the controller in a background thread; never raises."""
        self.open()
        with self._lock:
            if not self._opened or self._thread is not None:
                return
            self._running = True
            self._thread = threading.Thread(target=self._run, name="shuffler", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Motor off, runner ended, parts released; idempotent."""
        with self._lock:
            self._running = False
            self._wake.set()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        with self._lock:
            if self._opened:
                try:
                    self._mech.set_motor(False)
                finally:
                    self._mech.close()
                    self._opened = False
            self._set_state(DeviceState.STOPPED)
        self._flush()

    def subscribe(self, callback: Subscriber) -> Unsubscribe:
        """Call `callback` on every event; returns the unsubscribe function."""
        return self._subscribers.add(callback)

    def describe(self) -> dict[str, Any]:
        """JSON-ready status for /api/health."""
        with self._lock:
            st = self.status()
            return {
                "state": st.state.value,
                "kind": self._mech.kind,
                "deck_size": st.deck_size,
                "routing": st.routing,
                "passes_total": st.passes_total,
                "passes_done": st.passes_done,
                "tv_distance": st.tv_distance,
                "quality": st.quality,
                "prompt": st.prompt,
                "fault": st.fault,
                "last_fault": self._last_fault.text if self._last_fault else None,
                "error": self._last_error,
                "restarts": self.restarts,
                "passes_run": self.passes_run,
                "misroutes": self.misroutes,
            }

    # --- commands -------------------------------------------------------------------------

    def status(self) -> ShufflerStatus:
        """The whole status now."""
        with self._lock:
            plan = self._plan
            return ShufflerStatus(
                state=self._state,
                deck_size=plan.deck_size if plan else None,
                routing=plan.routing.value if plan else None,
                passes_total=plan.passes if plan else 0,
                passes_done=self._passes_done,
                cards_this_pass=self._sensed,
                pile_counts=(self._counts[Pile.LEFT], self._counts[Pile.RIGHT]),
                tv_distance=plan.tv_distance if plan else None,
                quality=plan.quality if plan else None,
                prompt=self._prompt,
                fault=self._fault.text if self._fault else None,
                **self._extra_status(),
            )

    def _extra_status(self) -> dict[str, Any]:
        """More status fields, also carried by the "progress" event (a hands-free machine's
        phase and time left); none here."""
        return {}

    def shuffle(self, deck_size: int = 52, plan: str = "random") -> ShufflerStatus:
        """Plan and begin a shuffle of the deck in the tray.

        Raises DeckSizeError / PlanError (ShufflerError, ValueError) for a bad deck size or
        plan, ShufflerBusyError when a shuffle is under way, ShufflerNotReadyError before
        start().
        """
        with self._lock:
            if not self._opened:
                raise ShufflerNotReadyError(
                    f"the shuffler is {self._state.value}; start it before shuffling"
                )
            if self._state in (DeviceState.BUSY, DeviceState.WAITING, DeviceState.FAULT):
                raise ShufflerBusyError(
                    f"the shuffler is {self._state.value} (pass {self._passes_done + 1} of "
                    f"{self._plan.passes if self._plan else '?'}); abort it before a new shuffle"
                )
            new_plan = self._make_plan(deck_size, plan)  # raises before anything changes
            self._reset_plan()
            self._run_plan(new_plan)
        self._kick()
        self._flush()
        return self.status()

    def resume(self) -> ShufflerStatus:
        """The pile is stacked or the fault cleared: go on. A no-op when nothing waits."""
        with self._lock:
            if self._state is DeviceState.WAITING:
                self._before_resume("stack", None)
                self._begin_pass()
            elif self._state is DeviceState.FAULT and self._fault is not None:
                fault = self._fault
                self._before_resume(fault.recovery.value, fault)
                self._fault = None
                self._emit("fault", {"kind": fault.kind, "cleared": True})
                if fault.recovery is Recovery.RESTART_PLAN:
                    assert self._plan is not None
                    self.restarts += 1
                    self._run_plan(self._make_plan(self._plan.deck_size, self._plan.name),
                                   restart=self.restarts)
                elif fault.recovery is Recovery.REDO_PASS:
                    self._begin_pass()
                else:
                    # CONTINUE: the card is in its pile once its sensor clears (a card in
                    # flight at the fault still comes: it is waited for, never fed again);
                    # RETRY: the jammed card is back on the tray, to be fed again
                    if fault.recovery is Recovery.RETRY_CARD:
                        self._inflight = None
                    elif self._inflight is not None and not self._landed_in_fault():
                        # the card is still on the roller, stopped with the motor: the
                        # motor runs again until it is seen at its beam
                        self._mech.set_motor(True)
                        self._card_deadline = self._clock.monotonic() + self._timing.card_timeout
                    if self._fault is None:  # (the card that came may raise one itself)
                        self._go_on(fault)
        self._kick()
        self._flush()
        return self.status()

    def _go_on(self, fault: Fault) -> None:
        """Back to the pass after a fault the player cleared (lock held)."""
        # a sensor's filter takes a moment to see the card pushed down: the blocked-time
        # limit starts again from the touch, and a stuck card's long block is not a double
        # feed
        self._clear_from = self._clock.monotonic()
        if fault.kind == "stuck" and self._stuck_pile is not None:
            self._ignore_blocks.add(self._stuck_pile)
        self._pass_deadline = self._clock.monotonic() + self._timing.pass_budget(
            self._plan.deck_size if self._plan else 0
        )
        self._mech.set_led(True)
        self._set_state(DeviceState.BUSY)

    def _landed_in_fault(self) -> bool:
        """Whether the card in flight at a fault reached its beam meanwhile: its tail had
        left the roller when the motor stopped (it is at its beam a few mm later, within the
        beams' filter). Then it is taken as arrived and the motor stays off: run on, the
        roller would feed the next card under the count. Seen by its arrival, or, when the
        fault came between the beam's edge and its filtered arrival, by a beam blocked with
        no card passing it."""
        now = self._clock.monotonic()
        arrivals = self._mech.take_arrivals()
        if not arrivals:
            arrivals = [pile for pile in Pile if pile not in self._passing
                        and self._mech.blocked_since(pile) is not None][:1]
        if not arrivals:
            return False
        self._on_arrival(_Round(now, None, None, arrivals))
        return True

    def touch(self) -> ShufflerStatus | None:
        """The player touched the sensor, as on a Lotus: idle, it starts a shuffle of the
        configured deck and plan; waiting or faulted, it goes on; busy, it does nothing.

        Returns the status, or None when the touch was ignored. Raises what `shuffle` raises
        (ShufflerNotReadyError before start()).
        """
        with self._lock:
            self._emit("touch", {"state": self._state.value})
            state = self._state
        self._flush()
        if state in (DeviceState.WAITING, DeviceState.FAULT):
            return self.resume()
        if state is DeviceState.IDLE:
            return self.shuffle(self._touch_deck, self._touch_plan)
        if state is DeviceState.BUSY:
            return None
        raise ShufflerNotReadyError(
            f"the shuffler is {state.value}; a touch starts a shuffle only once it is started"
        )

    def abort(self) -> ShufflerStatus:
        """Stop the motor and drop the plan."""
        with self._lock:
            if self._opened:
                self._mech.set_motor(False)
                self._mech.set_led(False)
            had_plan = self._plan is not None
            self._reset_plan()
            if had_plan:
                self._prompt = "Shuffle stopped: take the cards out of the piles and the tray."
                self._emit("prompt", {"text": self._prompt})
            if self._opened:
                self._set_state(DeviceState.IDLE)
        self._flush()
        return self.status()

    # --- stepping -------------------------------------------------------------------------

    def step(self) -> float:
        """Do what can be done now; returns seconds until the next step is wanted."""
        with self._lock:
            wait = self._step_locked()
        self._flush()
        return wait

    def run_until_settled(self, max_seconds: float = 3600.0, max_steps: int = 1_000_000) -> None:
        """Step and sleep on the clock until the shuffler is not busy (tests, FakeClock)."""
        end = self._clock.monotonic() + max_seconds
        for _ in range(max_steps):
            wait = self.step()
            if self._state is not DeviceState.BUSY or self._clock.monotonic() >= end:
                return
            self._clock.sleep(max(wait, 1e-6))

    def _run(self) -> None:
        while self._running:
            wait = self.step()
            if self._state is DeviceState.BUSY:
                self._clock.sleep(min(wait, self._timing.poll * 4))
            else:
                self._wake.wait(0.25)
                self._wake.clear()

    def _kick(self) -> None:
        self._wake.set()

    def _step_locked(self) -> float:
        """One step of a pass: observe the parts, name what happened (the cause), and let
        the transition table's handler for (feed state, cause) act; a handler returns the
        wait until the next step, or None to look again at once."""
        if self._state is not DeviceState.BUSY or self._plan is None:
            return 0.25
        for _ in range(8 * self._plan.deck_size + 16):  # bounded: each round moves on
            r = self._observe()
            state = Feed.FLIGHT if self._inflight is not None else Feed.GAP
            wait = self._transition(state, self._cause(r))(r)
            if wait is not None:
                return wait
        return 0.0

    def _transition(self, state: Feed, cause: Cause) -> Callable[[_Round], float | None]:
        """The table's handler for (feed state, cause), bound to this controller: a
        subclass's override of a handler (the hands-free build's) is the one called."""
        return getattr(self, _TRANSITIONS[(state, cause)].__name__)

    def _observe(self) -> _Round:
        now = self._clock.monotonic()
        nxt = self._mech.update(now)
        r = _Round(now, nxt, self._move_router(now), self._mech.take_arrivals())
        if self._inflight is not None:
            r.waits.append(self._card_deadline)
        if r.move_due is not None:
            r.waits.append(r.move_due)
        return r

    def _cause(self, r: _Round) -> Cause:
        """What happened, the first of: the pass ran out of time, a card reached a beam, a
        beam cleared, a beam blocked too long; then, with a card in flight, its time ran
        out, the tray ran empty, or nothing yet; with none, the deck is through, the tray
        is empty, or the next card may go."""
        assert self._plan is not None
        n, t = self._plan.deck_size, self._timing
        if r.now > self._pass_deadline:
            return Cause.TIMEOUT
        if r.arrivals:
            return Cause.ARRIVAL
        if any(self._mech.blocked_since(pile) is None for pile in self._passing):
            return Cause.CLEARED
        for pile in Pile:
            since = self._mech.blocked_since(pile)
            if since is None:
                continue
            index = self._passing.get(pile, self._fed_ok - 1)
            limit = max(since, self._clear_from) + t.blocked_limit_for(pile, n - index)
            if r.now >= limit:
                r.stuck = (pile, index)
                return Cause.STUCK
            r.waits.append(limit)
        if self._inflight is not None:
            if r.now >= self._card_deadline:
                return Cause.JAM
            return Cause.WAIT if self._mech.tray_loaded() else Cause.TRAY_EMPTY
        if self._sensed >= n:
            return Cause.PASS_DONE
        return Cause.NEXT if self._mech.tray_loaded() else Cause.TRAY_EMPTY

    # --- the transition table's handlers (feed state, cause) -----------------------------

    def _on_timeout(self, r: _Round) -> float | None:
        return self._raise_fault("timeout", Recovery.REDO_PASS)

    def _on_unfed_arrival(self, r: _Round) -> float | None:
        """A card seen with none in flight: two cards came through on one feed."""
        self._arrived_pile = r.arrivals[0]
        self._count(r.arrivals)
        return self._raise_fault("double_feed", Recovery.CONTINUE, card=max(self._fed_ok, 1))

    def _on_arrival(self, r: _Round) -> float | None:
        """The card in flight is at its beam: the motor stops; the card passes its beam."""
        assert self._plan is not None and self._inflight is not None
        n, pile = self._plan.deck_size, r.arrivals[0]
        self._arrived_pile = pile
        index, self._inflight = self._inflight, None
        self._count(r.arrivals)
        self._fed_ok += 1
        self._last_pile = pile
        self._flap_free_at = self._lead_at_beam(r, pile) + self._timing.flap_clear_for(
            pile, n - index)
        self._passing[pile] = index
        commanded = self._commanded
        if not (len(r.arrivals) == 1 and pile is commanded and self._feed_on(r, pile)):
            self._mech.set_motor(False)
        if len(r.arrivals) > 1:
            return self._raise_fault("double_feed", Recovery.CONTINUE, card=index + 1)
        if pile is not commanded:
            self.misroutes += 1
            if self._plan.routing is Routing.RADIX:
                return self._raise_fault("misroute", Recovery.RESTART_PLAN, card=index + 1)
            # A symmetric misroute does no harm to coin routing (docs/shuffling.md).
            self._emit("warning", {"kind": "misroute", "card": index + 1, "pile": pile.value})
        return None

    def _lead_at_beam(self, r: _Round, pile: Pile) -> float:
        """When the card just seen reached its beam, as far as its tail's way past the flap
        may be timed from it: here when it was seen, the beam's filter later, for a card
        coasting down the Lotus build's path may slow on the way."""
        return r.now

    def _flap_lead(self) -> float:
        """From the next feed to its card's leading edge at the flap, at the soonest."""
        assert self._plan is not None
        return self._timing.flap_lead_for(self._plan.deck_size - self._fed_ok)

    def _feed_on(self, r: _Round, pile: Pile) -> bool:
        """Whether the feed runs straight on into the next card as this one, seen where it
        was sent, reaches its beam (the next card is then in flight); the Lotus build's
        never does: its cards part only when the feed stops."""
        return False

    def _on_cleared(self, r: _Round) -> float | None:
        """A beam cleared: its card is on its pile, one card long or two (judged against
        that card's own speed)."""
        assert self._plan is not None
        n = self._plan.deck_size
        for pile, index in list(self._passing.items()):
            if self._mech.blocked_since(pile) is not None:
                continue
            del self._passing[pile]
            took = self._mech.take_block(pile)
            ignore = pile in self._ignore_blocks
            self._ignore_blocks.discard(pile)
            if took is not None and took > self._timing.double_block_for(pile, n - index) \
                    and not ignore:
                # two overlapping cards block the beam as one, for longer than one card
                self._arrived_pile = pile
                self._count([pile])
                if self._inflight is not None and self._sensed >= n:
                    # the card fed since was the pair's second, which the tray sensor saw
                    # under the deck: none is to come
                    self._inflight = None
                return self._raise_fault("double_feed", Recovery.CONTINUE, card=index + 1)
        return None

    def _on_stuck(self, r: _Round) -> float | None:
        assert r.stuck is not None
        self._stuck_pile, index = r.stuck
        return self._raise_fault("stuck", Recovery.CONTINUE, card=index + 1)

    def _on_jam(self, r: _Round) -> float | None:
        assert self._inflight is not None
        return self._raise_fault("jam", Recovery.RETRY_CARD, card=self._inflight + 1)

    def _on_empty_in_flight(self, r: _Round) -> float | None:
        """The tray ran out under a running motor: only the card in flight may still come;
        then the motor stops whatever happens."""
        if self._empty_since is None:
            self._empty_since = r.now
        limit = self._empty_since + self._timing.tray_empty_grace
        if r.now >= limit:
            return self._raise_fault("short", Recovery.REDO_PASS)
        return self._wait(r.now, r.nxt, min([limit, *r.waits]))

    def _on_in_flight(self, r: _Round) -> float | None:
        """The motor runs: look at the tray sensor at the polling rate."""
        return min(self._wait(r.now, r.nxt, min(r.waits)), 4 * self._timing.poll)

    def _on_out_of_cards(self, r: _Round) -> float | None:
        """Every card counted, or the tray empty: once the last cards have cleared their
        beams, the pass ends, or the count says what is wrong."""
        assert self._plan is not None
        if self._passing:
            return self._wait(r.now, r.nxt, min(r.waits))
        if self._sensed >= self._plan.deck_size:
            if self._mech.tray_loaded():
                return self._raise_fault("extra", Recovery.REDO_PASS)
            return self._end_pass()
        return self._raise_fault("empty" if self._sensed == 0 else "short", Recovery.REDO_PASS)

    def _on_next_card(self, r: _Round) -> float | None:
        """The next card: its pile, then what it waits for, then the feed."""
        assert self._plan is not None
        t, now = self._timing, r.now
        if self._planned != self._fed_ok:
            self._commanded = self._route_for(self._fed_ok)
            self._planned = self._fed_ok
        target = self._commanded
        if target in self._passing or len(self._passing) > 1:
            # a card to a pile whose beam is still passing the last card waits until it
            # clears (never two cards in one block); and only one card passes at a time
            return self._wait(now, r.nxt, min(r.waits) if r.waits else now + t.poll)
        if self._router_at is not target:
            # the flap moves once the last card's tail has left it (never under a card), and
            # the next card may start before that: its leading edge reaches the flap only
            # once the flap is still
            move_at = max(now, self._flap_free_at)
            self._move = (move_at, target)
            self._router_at = target
            # below 0: the feed starts first
            move = self._router_move_s(target)
            lead = move - self._flap_lead()
            settle = max(0.0, t.router_settle - (t.router_move - move))
            self._feed_from = move_at + (max(lead, settle) if t.router_settle > 0 else lead)
            return None
        if now < self._feed_from:
            return self._wait(now, r.nxt, min([self._feed_from, *r.waits]))
        if self._move is None:
            self._mech.set_router(target)
        self._feed(now)
        return None

    def _router_move_s(self, target: Pile) -> float:
        """The router's own settle (command to a still flap) moving to `target`."""
        return self._timing.router_move

    def _move_router(self, now: float) -> float | None:
        """Move the router if its time has come; returns when it is due, if still to come."""
        if self._move is None:
            return None
        at, pile = self._move
        if now < at:
            return at
        self._mech.set_router(pile)
        self._move = None
        return None

    def _count(self, piles: list[Pile]) -> None:
        for pile in piles:
            self._counts[pile] += 1
            self._sensed += 1
        self._route_log.extend(piles)
        self._emit_progress()

    def _feed(self, now: float) -> None:
        self._mech.set_motor(True)
        self._inflight = self._fed_ok
        # from the motor's start, not the step's: a step held up (a loaded machine) must not
        # eat into the card's time
        self._card_deadline = max(now, self._clock.monotonic()) + self._timing.card_timeout
        self._empty_since = None

    def _wait(self, now: float, nxt: float | None, deadline: float) -> float:
        until = min(deadline, self._pass_deadline)
        if nxt is not None:
            until = min(until, nxt)
        return max(until - now, 0.0)

    # --- passes ---------------------------------------------------------------------------

    def _make_plan(self, deck_size: int, name: str) -> ShufflePlan:
        """A plan for this machine's target distance and random source; raises what
        `make_plan` raises (DeckSizeError, PlanError)."""
        return make_plan(deck_size, name, target_tv=self._target_tv, rng=self._rng)

    def _run_plan(self, plan: ShufflePlan, **note: object) -> None:
        """Shuffle by `plan` from its first pass, the deck in tray order (lock held)."""
        self._plan = plan
        self._order = list(range(plan.deck_size))
        self._passes_done = 0
        self._emit("plan", {**plan.to_json(), **note})
        self._begin_pass()

    def _reset_plan(self) -> None:
        self._plan: ShufflePlan | None = None
        self._passes_done = 0
        self._order: list[int] = []
        self._prompt: str | None = None
        self._fault: Fault | None = None
        self._counts = {Pile.LEFT: 0, Pile.RIGHT: 0}
        self._sensed = 0
        self._fed_ok = 0
        self._route_log: list[Pile] = []
        self._commanded = Pile.LEFT
        self._arrived_pile: Pile | None = None
        self._stuck_pile: Pile | None = None
        self._card_deadline = 0.0
        self._pass_deadline = 0.0
        self._clear_from = float("-inf")
        self._empty_since: float | None = None
        self._reset_feed()
        self._router_at: Pile | None = None  # where the router was last set, if known

    def _begin_pass(self) -> None:
        assert self._plan is not None
        self._counts = {Pile.LEFT: 0, Pile.RIGHT: 0}
        self._sensed = 0
        self._fed_ok = 0
        self._route_log = []
        self._reset_feed()
        self._prompt = None
        self._pass_deadline = self._clock.monotonic() + self._timing.pass_budget(
            self._plan.deck_size
        )
        self._mech.set_led(True)
        self._set_state(DeviceState.BUSY)
        self._emit_progress()

    def _reset_feed(self) -> None:
        """No card in flight or at a beam (a pass begins, or begins again)."""
        self._inflight: int | None = None  # the card fed, not yet seen at a beam
        self._passing: dict[Pile, int] = {}  # the card at each beam, seen, not yet clear
        self._ignore_blocks: set[Pile] = set()  # a stuck card's long block is no double
        self._last_pile: Pile | None = None
        self._planned: int | None = None  # the card whose pile is in _commanded
        self._flap_free_at = float("-inf")  # the last card's tail is past the flap then
        self._feed_from = float("-inf")  # the flap is still for a card fed from then
        self._move: tuple[float, Pile] | None = None  # the router's next move, and when

    def _route_for(self, index: int) -> Pile:
        assert self._plan is not None
        if self._plan.routing is Routing.RADIX:
            # the tray is bottom-fed: the index-th card fed lies index cards from the bottom
            card = self._order[len(self._order) - 1 - index]
            return self._plan.radix_pile(self._passes_done + 1, card)
        # a fresh secure bit per card: never a pattern, never timing
        return Pile.LEFT if self._rng.getrandbits(1) else Pile.RIGHT

    def _end_pass(self) -> float:
        plan = self._plan
        assert plan is not None
        self._mech.set_motor(False)
        if plan.routing is Routing.RADIX:
            # follow every card from the piles it was sensed at
            self._order = deal_and_stack(self._order, self._route_log, plan.top_pile)
        self._passes_done += 1
        self.passes_run += 1
        top, under = plan.top_pile.value.upper(), plan.top_pile.other.value.upper()
        k = plan.passes
        if self._passes_done >= k:
            self._mech.set_led(False)
            self._prompt = (
                f"Shuffle done ({k} passes): put the {top} pile on top of the {under} pile; "
                f"the deck is ready. {plan.quality}."
            )
            self._emit("prompt", {"text": self._prompt, "pile": plan.top_pile.value,
                                  "pass": k, "passes": k, "done": True})
            self._emit("done", {"passes": k, "tv_distance": plan.tv_distance,
                                "quality": plan.quality})
            self._before_resume("stack", None)  # the player squares the deck (simulators)
            self._set_state(DeviceState.IDLE)
            return 0.25
        self._prompt = (
            f"Pass {self._passes_done} of {k} done: put the {top} pile on top of the {under} "
            "pile, set the deck in the tray and touch the shuffler."
        )
        self._emit("prompt", {"text": self._prompt, "pile": plan.top_pile.value,
                              "pass": self._passes_done, "passes": k, "done": False})
        self._set_state(DeviceState.WAITING)
        return 0.25

    def _raise_fault(self, kind: str, recovery: Recovery, card: int | None = None) -> float:
        plan = self._plan
        assert plan is not None
        self._mech.set_motor(False)
        if self._move is not None:  # a move not made: where the router is, is unknown
            self._move, self._router_at = None, None
        if plan.routing is Routing.RADIX:
            recovery = Recovery.RESTART_PLAN  # the tracked order cannot be trusted any more
        n, i = plan.deck_size, self._passes_done + 1
        card = self._fed_ok + 1 if card is None else card
        text = self._fault_text(kind, recovery, n, i, plan.passes, card)
        self._fault = Fault(kind, text, recovery, i, card)
        self._last_fault = self._fault
        self._prompt = text
        self._set_state(DeviceState.FAULT)
        self._emit("fault", {"kind": kind, "text": text, "recovery": recovery.value,
                             "pass": i, "card": card, "cards": self._sensed})
        return 0.25

    def _fault_text(
        self, kind: str, recovery: Recovery, n: int, i: int, k: int, card: int
    ) -> str:
        sensed = self._sensed
        stuck = (self._stuck_pile or Pile.LEFT).value
        arrived = (self._arrived_pile or Pile.LEFT).value
        what = {
            "jam": f"Card {card} of {n} did not come through on pass {i} of {k}: the feed is "
            "jammed. The motor is stopped.",
            "stuck": f"A card is stuck at the {stuck} pile sensor (card {card} of {n}, pass {i} "
            f"of {k}; or two cards fed together, still held by the roller). The motor is "
            "stopped.",
            "double_feed": f"Two cards went through together at card {card} of {n} (pass {i} "
            f"of {k}); they are on the {arrived} pile.",
            "misroute": f"Card {card} of {n} landed on the {arrived} pile instead of the "
            f"{self._commanded.value} pile (pass {i} of {k}).",
            "empty": f"The feed tray is empty: the shuffle of {n} cards cannot start pass {i}.",
            "short": f"Only {sensed} of {n} cards counted on pass {i} of {k} and the tray is "
            "empty: cards are missing or stuck.",
            "extra": f"{n} cards counted on pass {i} of {k} and the tray is not empty: the "
            f"deck has more than {n} cards.",
            "timeout": f"Pass {i} of {k} ran past its time budget, so the motor was stopped "
            f"({sensed} of {n} cards counted).",
        }[kind]
        todo = {
            Recovery.RETRY_CARD: "Take the stuck card out, slide it back under the cards in "
            "the tray and touch the shuffler to go on.",
            Recovery.CONTINUE: (
                f"Push it down onto the {stuck} pile and touch the shuffler to go on."
                if kind == "stuck"
                else "Touch the shuffler to go on."
            ),
            Recovery.REDO_PASS: (
                f"Put the {n} cards in the tray and touch the shuffler to go on."
                if kind == "empty"
                else f"Clear the trays, gather all {n} cards (take out any extra) into the feed "
                f"tray and touch the shuffler to run pass {i} again; passes done so far count."
            ),
            Recovery.RESTART_PLAN: f"Gather all {n} cards from both piles and the tray into the "
            "feed tray and touch the shuffler: the exact shuffle starts again from pass 1 with "
            "a fresh order.",
        }[recovery]
        return f"{what} {todo}"

    def _before_resume(self, action: str, fault: Fault | None) -> None:
        """Hook for a simulated player to do what the prompt asked (real machines: nothing)."""

    # --- events ---------------------------------------------------------------------------

    def _set_state(self, state: DeviceState) -> None:
        if state is not self._state:
            self._state = state
            self._emit("state", {"state": state.value})

    def _emit_progress(self) -> None:
        plan = self._plan
        assert plan is not None
        self._emit("progress", {
            "pass": self._passes_done + 1,
            "passes": plan.passes,
            "cards": self._sensed,
            "deck": plan.deck_size,
            "left": self._counts[Pile.LEFT],
            "right": self._counts[Pile.RIGHT],
            **self._extra_status(),
        })

    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        self._pending.append(DeviceEvent(self.device_name, kind, data))

    def _flush(self) -> None:
        """Deliver queued events outside the lock, so a subscriber may call back in."""
        with self._lock:
            events, self._pending = self._pending, []
        self._subscribers.deliver(events)


EventCallback = Callable[[DeviceEvent], None]

_Handler = Callable[[ShufflerController, _Round], "float | None"]
# The pass's transitions, keyed by (feed state, cause), in the style of h11: every cause a
# step can find has its handler in each state it can happen in.
_TRANSITIONS: dict[tuple[Feed, Cause], _Handler] = {
    (Feed.GAP, Cause.TIMEOUT): ShufflerController._on_timeout,
    (Feed.FLIGHT, Cause.TIMEOUT): ShufflerController._on_timeout,
    (Feed.GAP, Cause.ARRIVAL): ShufflerController._on_unfed_arrival,
    (Feed.FLIGHT, Cause.ARRIVAL): ShufflerController._on_arrival,
    (Feed.GAP, Cause.CLEARED): ShufflerController._on_cleared,
    (Feed.FLIGHT, Cause.CLEARED): ShufflerController._on_cleared,
    (Feed.GAP, Cause.STUCK): ShufflerController._on_stuck,
    (Feed.FLIGHT, Cause.STUCK): ShufflerController._on_stuck,
    (Feed.FLIGHT, Cause.JAM): ShufflerController._on_jam,
    (Feed.FLIGHT, Cause.TRAY_EMPTY): ShufflerController._on_empty_in_flight,
    (Feed.FLIGHT, Cause.WAIT): ShufflerController._on_in_flight,
    (Feed.GAP, Cause.PASS_DONE): ShufflerController._on_out_of_cards,
    (Feed.GAP, Cause.TRAY_EMPTY): ShufflerController._on_out_of_cards,
    (Feed.GAP, Cause.NEXT): ShufflerController._on_next_card,
}
