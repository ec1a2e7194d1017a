"""A simulated two-pile shuffler: a timed physical model of the machine and its player.

`ShufflerTable` is the machine on the table: the feed tray, a one-card-per-cycle feed
motor, the router, two piles with card sensors, and a record of the true order of every
card. It models time per card from a card speed (`feed_speed_mm_s`, the default build's
by default: hardware.shuffler.design's arithmetic; `speed` runs the whole machine that many
times faster, for demos), an optional spread of that speed per card, split bias p,
clumping q, misroutes, double feeds, a feed jam or a card stuck on a sensor at a chosen
card. Its player actions (stack the piles, return a jammed card, gather the deck) are what
a player does when prompted. `SimulatedShuffler` is the shared controller over it.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass

from hardware.errors import ShufflerError
from hardware.interfaces import Clock
from hardware.shuffler import design
from hardware.shuffler.controller import Fault, ShufflerController, Timing
from hardware.shuffler.physics import MachineModel
from hardware.shuffler.plan import Pile

DOUBLE_BLOCK_SPAN = 1.5  # two cards fed together, overlapping by half a card


@dataclass(frozen=True, slots=True)
class SensorEdge:
    """A pile sensor changing: blocked (True) or clear (False) at time `at`."""

    at: float
    pile: Pile
    blocked: bool


class ShufflerTable:
    """The physical machine and deck. Card ids are the cards' positions when first loaded.

    `jam_at`, `stick_at` and `double_at` name the card (counted from 1 over every card fed
    since the table was made) at which that fault happens, once. Raises ShufflerError for
    a bad speed or model. `spread` is the relative standard deviation of each card's speed
    (slip, a worn tyre), drawn from `rng`.
    """

    def __init__(
        self,
        *,
        speed: float = 1.0,
        feed_speed_mm_s: float | None = None,
        spread: float = 0.0,
        model: MachineModel | None = None,
        rng: random.Random | None = None,
        jam_at: int | None = None,
        stick_at: int | None = None,
        double_at: int | None = None,
        router_settle_s: float | None = None,
    ) -> None:
        if not speed > 0:
            raise ShufflerError(f"simulator speed must be above 0, got {speed}")
        v = design.DEFAULT_DRIVE.surface_speed_mm_s if feed_speed_mm_s is None else feed_speed_mm_s
        if not v > 0:
            raise ShufflerError(f"simulated card speed must be above 0 mm/s, got {v}")
        if not 0 <= spread < 0.3:
            raise ShufflerError(f"card speed spread must be between 0 and 0.3, got {spread}")
        self.speed = speed
        self.spread = spread
        # the card speed the machine's clock sees (speed: everything that many times faster)
        self.feed_speed_mm_s = v * speed
        self.model = model or MachineModel()
        self.rng = rng if rng is not None else random.Random()
        self.jam_at, self.stick_at, self.double_at = jam_at, stick_at, double_at
        # a card blocks its beam for its transit, after its flight from the gate to the beam
        self.sensor_seconds = design.card_transit_s(self.feed_speed_mm_s)
        self.card_seconds = design.flight_s(self.feed_speed_mm_s,
                                            design.DEFAULT_DRIVE.motor_start_s / speed)
        # the router's changes (time, pile): a card goes where the flap is when its leading
        # edge reaches it; a change from a settle before a card reaches the flap until its
        # tail has left it is counted in `flap_hits` (the router moved under a card)
        self.router_settle_s = (design.DEFAULT_ROUTER.settle_s if router_settle_s is None
                                else router_settle_s) / speed
        self._router_log: list[tuple[float, Pile]] = [(float("-inf"), Pile.LEFT)]
        self._at_flap: dict[int, tuple[float, float]] = {}
        self.flap_hits = 0
        self.tray: list[int] = []  # top first
        self.piles: dict[Pile, list[int]] = {Pile.LEFT: [], Pile.RIGHT: []}  # top first
        self.jammed: int | None = None  # a card stuck in the feed
        self.router = Pile.LEFT
        self.motor = False
        self.fed = 0  # cards that left the tray, ever
        self._last_pile: Pile | None = None
        self._flight: list[tuple[float, int, tuple[int, ...], Pile]] = []  # heap of arrivals
        self._unblock: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self.blocked_at: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self._seq = 0
        self._scale: dict[int, float] = {}

    # --- the machine ----------------------------------------------------------------------

    def load(self, cards: list[int]) -> None:
        """The player puts cards in the tray (on top of any already there)."""
        self.tray[0:0] = list(cards)

    def set_motor(self, on: bool, now: float) -> None:
        """Motor on starts one feed cycle: one card (or two stuck together) leaves the tray."""
        if on and not self.motor:
            self._feed(now)
        self.motor = on

    def _feed(self, now: float) -> None:
        if not self.tray or self.jammed is not None:
            return
        card = self.tray.pop(0)
        self.fed += 1
        if self.jam_at is not None and self.fed == self.jam_at:
            self.jam_at = None
            self.jammed = card  # stuck in the feed: no card arrives
            return
        unit = [card]
        double = self.double_at is not None and self.fed == self.double_at
        if double:
            self.double_at = None
        if self.tray and (double or (self.model.double_feed
                                     and self.rng.random() < self.model.double_feed)):
            unit.append(self.tray.pop(0))
            self.fed += 1
        self._seq += 1
        # this card's own speed: the machine's, give or take its spread
        scale = max(0.5, self.rng.gauss(1.0, self.spread)) if self.spread else 1.0
        self._scale[self._seq] = scale
        v = self.feed_speed_mm_s * scale
        start = now + design.DEFAULT_DRIVE.motor_start_s / self.speed
        self._at_flap[self._seq] = (
            start + design.NIP_TO_FLAP_MM / v,
            start + (design.NIP_TO_FLAP_MM + design.FLAP_LENGTH_MM + design.CARD_LENGTH_MM
                     * (1.0 if len(unit) == 1 else DOUBLE_BLOCK_SPAN)) / v,
        )
        heapq.heappush(self._flight, (now + self.card_seconds / scale, self._seq, tuple(unit),
                                      self.router))

    def set_router(self, pile: Pile, now: float) -> None:
        """The router is sent to `pile` at `now`."""
        if pile is not self.router:
            self._router_log.append((now, pile))
        self.router = pile

    def _router_at(self, at: float) -> Pile:
        return next(p for t, p in reversed(self._router_log) if t <= at)

    def next_event(self) -> float | None:
        """When the next arrival or sensor change happens, if any is due."""
        times = [t for t in self._unblock.values() if t is not None]
        if self._flight:
            times.append(self._flight[0][0])
        return min(times) if times else None

    def update(self, now: float) -> list[SensorEdge]:
        """Advance to `now`; returns the sensor edges in time order."""
        edges: list[SensorEdge] = []
        while True:
            t_next = self.next_event()
            if t_next is None or t_next > now:
                return edges
            # unblocks first at equal times, so a sensor sees two separate cards
            for pile, t in self._unblock.items():
                if t is not None and t <= t_next:
                    self._unblock[pile] = None
                    self.blocked_at[pile] = None
                    edges.append(SensorEdge(t, pile, False))
            if self._flight and self._flight[0][0] <= t_next:
                t, seq, unit, _ = heapq.heappop(self._flight)
                scale = self._scale.pop(seq, 1.0)
                lead, tail = self._at_flap.pop(seq)
                if any(lead - self.router_settle_s < at < tail for at, _ in self._router_log):
                    self.flap_hits += 1
                pile = self.model.actual_pile(self._router_at(lead), self._last_pile, self.rng)
                self._last_pile = pile
                self.piles[pile][0:0] = list(unit)  # lands on top, its own order kept
                edges.append(SensorEdge(t, pile, True))
                self.blocked_at[pile] = t
                stick = self.stick_at is not None and self.fed >= self.stick_at
                if stick:
                    self.stick_at = None
                    self._unblock[pile] = None  # stays blocked until the player pushes it
                else:
                    # two cards fed together overlap: the beam sees one longer block
                    span = 1.0 if len(unit) == 1 else DOUBLE_BLOCK_SPAN
                    self._unblock[pile] = t + span * self.sensor_seconds / scale

    def sensor_blocked(self, pile: Pile) -> bool:
        return self.blocked_at[pile] is not None

    # --- the player -----------------------------------------------------------------------

    def stack(self, top: Pile) -> None:
        """Put the `top` pile on the other one and the deck in the tray."""
        self.tray = self.piles[top] + self.piles[top.other] + self.tray
        self.piles = {Pile.LEFT: [], Pile.RIGHT: []}

    def return_jammed(self) -> None:
        """Take the jammed card out and put it back on top of the tray."""
        if self.jammed is not None:
            self.tray.insert(0, self.jammed)
            self.jammed = None
            self.fed -= 1

    def push_stuck(self) -> None:
        """Push a card stuck at a pile sensor down onto its pile."""
        for pile in Pile:
            if self._unblock[pile] is None:
                self.blocked_at[pile] = None

    def gather(self, top: Pile) -> None:
        """Gather everything (piles, jammed card, tray) into the tray."""
        self.return_jammed()
        self.push_stuck()
        self._flight.clear()
        self._at_flap.clear()
        self.stack(top)

    def deck(self) -> list[int]:
        """The whole deck, top first, as it lies: tray, then left and right piles."""
        return self.tray + self.piles[Pile.LEFT] + self.piles[Pile.RIGHT]


class _TableMechanism:
    """The controller's Mechanism over a ShufflerTable (no pins in between)."""

    kind = "simulated"

    def __init__(self, table: ShufflerTable, clock: Clock, filter_s: float = 0.0) -> None:
        self.table = table
        self._clock = clock
        # a real beam's glitch filter takes each edge this late: the simulated one too
        self.filter_s = filter_s
        self._arrivals: list[Pile] = []
        self._block_start: dict[Pile, float] = {}
        self._blocks: dict[Pile, float] = {}
        self.led = False

    def open(self) -> None:
        pass

    def close(self) -> None:
        self.table.set_motor(False, self._clock.monotonic())

    def update(self, now: float) -> float | None:
        for edge in self.table.update(now - self.filter_s):
            if edge.blocked:
                self._arrivals.append(edge.pile)
                self._block_start[edge.pile] = edge.at
            elif edge.pile in self._block_start:
                self._blocks[edge.pile] = edge.at - self._block_start.pop(edge.pile)
        nxt = self.table.next_event()
        return None if nxt is None else nxt + self.filter_s

    def set_motor(self, on: bool) -> None:
        self.table.set_motor(on, self._clock.monotonic())

    def set_router(self, pile: Pile) -> None:
        self.table.set_router(pile, self._clock.monotonic())

    def set_led(self, on: bool) -> None:
        self.led = on

    def tray_loaded(self) -> bool:
        return bool(self.table.tray)

    def blocked_since(self, pile: Pile) -> float | None:
        return self.table.blocked_at[pile]

    def take_arrivals(self) -> list[Pile]:
        out, self._arrivals = self._arrivals, []
        return out

    def take_block(self, pile: Pile) -> float | None:
        return self._blocks.pop(pile, None)


class SimulatedShuffler(ShufflerController):
    """A Shuffler over the simulated table, with a simulated player who follows prompts.

    `rng` routes the cards (secure when None); `machine_rng` drives the machine's own
    imperfections. `cards` is how many cards the player loads for a shuffle (default: the
    deck size asked for), so a wrong deck size can be simulated. Raises ShufflerError for
    bad settings.
    """

    def __init__(
        self,
        clock: Clock,
        *,
        speed: float = 1.0,
        feed_speed_mm_s: float | None = None,
        rng: random.Random | None = None,
        p: float = 0.5,
        q: float = 0.5,
        misroute: float = 0.0,
        double_feed: float = 0.0,
        jam_at: int | None = None,
        stick_at: int | None = None,
        double_at: int | None = None,
        cards: int | None = None,
        machine_rng: random.Random | None = None,
        timing: Timing | None = None,
        auto_load: bool = True,
    ) -> None:
        model = MachineModel(p=p, q=q, misroute=misroute, double_feed=double_feed)
        self.table = ShufflerTable(
            speed=speed, feed_speed_mm_s=feed_speed_mm_s, model=model, rng=machine_rng,
            jam_at=jam_at, stick_at=stick_at, double_at=double_at,
        )
        if timing is None:
            # the budgets of the machine simulated: its card speed, its router (a simulated
            # flap moves at once, but the controller waits what the real one would)
            timing = Timing.for_speed(self.table.feed_speed_mm_s,
                                      design.DEFAULT_ROUTER.settle_s / speed)
        self.cards = cards
        self.auto_load = auto_load
        super().__init__(_TableMechanism(self.table, clock, timing.sensor_filter), clock,
                         rng=rng, timing=timing)

    def shuffle(self, deck_size: int = 52, plan: str = "random"):  # type: ignore[override]
        """As Shuffler.shuffle; the simulated player loads a fresh deck if the tray is empty."""
        if (self.auto_load and not self.table.tray and not any(self.table.piles.values())
                and isinstance(deck_size, int) and 0 < deck_size <= 104):
            count = self.cards if self.cards is not None else deck_size
            self.table.load(list(range(count)))
        return super().shuffle(deck_size, plan)

    def _before_resume(self, action: str, fault: Fault | None) -> None:
        top = self._plan.top_pile if self._plan else Pile.LEFT
        if action == "stack":
            self.table.stack(top)
        elif action == "retry_card":
            self.table.return_jammed()
        elif action == "continue":
            self.table.push_stuck()
        elif action in ("redo_pass", "restart_plan"):
            self.table.gather(top)
            if fault is not None and fault.kind in ("short", "extra"):
                # the player fixes the deck size as the fault text asks
                deck = self.table.tray
                n = self._plan.deck_size if self._plan else len(deck)
                if len(deck) > n:
                    del deck[n:]
                else:
                    deck.extend(range(len(deck), n))
                self.cards = None
