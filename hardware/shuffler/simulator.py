"""A simulated two-pile shuffler: a timed physical model of the machine and its player.

`ShufflerTable` is the machine on the table: the feed tray (bottom-fed: the roller drives
the deck's bottom card, and each card lands on top of its pile, as
hardware.shuffler.physics.deal_and_stack), the feed motor and its roller,
the gate, the path with its router, two piles with card sensors, and a record of the true
order of every card. It runs on physics (hardware.shuffler.physics, from the parameters of
hardware.shuffler.ranges, the drive of hardware.shuffler.design and the CAD's path): each
card's speed falls with the deck over it, the motor starts, brakes or runs down, a card
coasts down the path's slopes and may stop (seen by a beam only under it), the gate feeds
none, one or two, a card lands flat or stands at its bay's wall; `speed` runs the whole
machine that many times faster (demos). Split bias p, clumping q, misroutes, double feeds,
a feed jam or a card stuck on a sensor at a chosen card are injected on top. Its player
actions (stack the piles, return a jammed card, gather the deck) are what a player does
when prompted. `SimulatedShuffler` is the shared controller over it, timed as
`crib shuffler calibrate` would time it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from hardware.errors import ShufflerError
from hardware.interfaces import Clock
from hardware.shuffler import design
from hardware.shuffler.controller import Fault, ShufflerController, Timing
from hardware.shuffler.physics import (
    DOUBLE_SPAN,
    MachineModel,
    cards_fed,
    coast_accel_mm_s2,
    feed_load,
    roller_speed_mm_s,
    stand_up_speed_mm_s,
    tyre_share,
)
from hardware.shuffler.plan import Pile
from hardware.shuffler.ranges import Params

# A card made to jam (a test's fault) catches this far past where it started: under the
# gate, out of the tray sensor's sight.
JAM_MM = 75.0
# The tray sensor's window, along the path from the nip (behind it: negative): it sees the
# bottom card until the card's tail has passed it. Estimate of the CAD's window, just behind
# the roller so that a card drawn on by the roller's run-on is still in the tray.
TRAY_SENSOR_MM = -10.0
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class SensorEdge:
    """A pile sensor changing: blocked (True) or clear (False) at time `at`."""

    at: float
    pile: Pile
    blocked: bool


class _Roller:
    """The tyre's surface: its position x (mm) and speed u (mm/s) follow a first-order lag
    toward a target speed with a time constant (the motor starting, braking or running
    down), anchored afresh at each change."""

    def __init__(self) -> None:
        self.t0, self.x0, self.u0, self.target, self.tau = 0.0, 0.0, 0.0, 0.0, 0.01

    def at(self, t: float) -> tuple[float, float]:
        """The surface's position and speed at time t (one exp for both)."""
        dt = max(0.0, t - self.t0)
        decay = math.exp(-dt / self.tau) if self.tau > 0 else 0.0
        return (self.x0 + self.target * dt + (self.u0 - self.target) * self.tau * (1.0 - decay),
                self.target + (self.u0 - self.target) * decay)

    def speed(self, t: float) -> float:
        return self.at(t)[1]

    def pos(self, t: float) -> float:
        return self.at(t)[0]

    def set(self, t: float, target: float, tau: float) -> None:
        self.x0, self.u0 = self.at(t)
        self.t0, self.target, self.tau = t, target, max(tau, 1e-6)

    def time_to(self, x: float) -> float | None:
        """When the surface reaches position x, or None if it never does."""
        if x <= self.x0 + _EPS:
            return self.t0
        if self.target <= _EPS:
            reach = self.u0 * self.tau
            frac = (x - self.x0) / reach if reach > 0 else 2.0
            return None if frac >= 1.0 - 1e-12 else self.t0 - self.tau * math.log(1.0 - frac)
        # Newton's method on the surface's position (it only moves forward), from the
        # time at the target speed; bisection if it strays
        t = self.t0 + (x - self.x0) / self.target
        lo, hi = self.t0, t + abs(self.u0 - self.target) * self.tau / self.target + self.tau
        for _ in range(50):
            s, u = self.at(t)
            err = s - x
            if abs(err) < 1e-7:
                return t
            if err < 0:
                lo = t
            else:
                hi = t
            t = t - err / u if u > 1e-9 else (lo + hi) / 2
            if not lo <= t <= hi:
                t = (lo + hi) / 2
        return t


@dataclass(slots=True)
class _Unit:
    """One card (or two fed together) on its way from the tray to a pile. `s` is its
    leading edge's distance along the path from the nip (mm) at time `t`."""

    seq: int
    cards: tuple[int, ...]  # top first, as they lie: the driven (bottom) card last
    length: float
    scale: float  # its own speed on the roller, as a share of the tyre's
    above: int  # cards over it in the tray when it was fed (its load)
    s: float
    t: float
    v: float = 0.0  # mm/s, while coasting
    phase: str = "driven"  # driven (on the roller), coast, stopped, landed
    x0: float = 0.0  # the roller's position when it began to drive this unit
    s0: float = 0.0  # and the unit's then
    moves: bool = True  # False: the tyre slips, the motor stalls, or the gate holds it
    pile: Pile | None = None
    flap_at: float | None = None  # when its leading edge reached the flap
    stick: bool = False  # a card made to stick under its beam (a test's fault)
    tipped: bool = False  # its centre has passed the branch's outlet: it drops in the bay
    under: bool = False  # it covers its pile's beam
    jam_mm: float | None = None  # a test's jam: the card catches in the feed here


class ShufflerTable:
    """The physical machine and deck. Card ids are the cards' positions when first loaded.

    Each card's speed comes from the drive's motor under the load of the cards still over
    it (hardware.shuffler.physics), slips or stalls if the load is beyond the tyre's grip or
    the motor; after the roller it coasts down the path's slopes (hardware.shuffler.cad
    .params: the geometry's own lengths and angles) and may stop, in sight of its beam or
    not; the gate's opening feeds one card, none or two; it lands on its pile, flat or
    standing against the end wall. `params` is the machine and deck (hardware.shuffler
    .ranges), `drive` the feed drive (hardware.shuffler.design), `geometry` the CAD's.

    `set_motor(on)` drives the motor (off: coasting, both driver inputs low, as with IN2 tied
    to ground); `set_brake()` shorts it (both inputs high). `feed_speed_mm_s` sets the
    motor's no-load speed so that a card with an empty tray moves at it (a machine of another
    speed); `speed` runs the whole machine that many times faster (demos). `spread`
    overrides `params.spread`. `jam_at`, `stick_at` and `double_at` name the card (counted
    from 1 over every card fed since the table was made) at which that fault happens, once.
    Raises ShufflerError for a bad speed or model.
    """

    def __init__(
        self,
        *,
        speed: float = 1.0,
        feed_speed_mm_s: float | None = None,
        spread: float | None = None,
        model: MachineModel | None = None,
        rng: random.Random | None = None,
        jam_at: int | None = None,
        stick_at: int | None = None,
        double_at: int | None = None,
        router_settle_s: float | None = None,
        params: Params | None = None,
        drive: design.DriveBuild | None = None,
        geometry: Any = None,
        padded: bool | None = None,
    ) -> None:
        from hardware.shuffler.cad.params import Geometry

        if not speed > 0:
            raise ShufflerError(f"simulator speed must be above 0, got {speed}")
        self.params = params or Params()
        if spread is not None:
            if not 0 <= spread < 0.3:
                raise ShufflerError(f"card speed spread must be between 0 and 0.3, got {spread}")
            self.params = replace(self.params, spread=spread)
        self.spread = self.params.spread
        self.geometry = geometry if geometry is not None else Geometry()
        self.drive = drive or design.DEFAULT_DRIVE
        self.share = tyre_share(self.geometry)
        self._speed_scale = self.params.motor_speed
        if feed_speed_mm_s is not None:
            if not feed_speed_mm_s > 0:
                raise ShufflerError(
                    f"simulated card speed must be above 0 mm/s, got {feed_speed_mm_s}")
            empty = roller_speed_mm_s(self.params, 0, self.drive, self.share)
            if not empty > 0:
                raise ShufflerError("the simulated tyre slips under a single card")
            self._speed_scale *= feed_speed_mm_s / empty
        self.speed = speed
        self.model = model or MachineModel()
        self.rng = rng if rng is not None else random.Random()
        self.jam_at, self.stick_at, self.double_at = jam_at, stick_at, double_at
        self.paths = {pile: self.geometry.card_path(pile.value) for pile in Pile}
        path = self.paths[Pile.LEFT]
        self.flap_mm = path.segments[0].length_mm + path.segments[1].length_mm
        self.beam_mm = {pile: p.beam_mm for pile, p in self.paths.items()}
        self.outlet_mm = {pile: sum(seg.length_mm for seg in p.segments[:3])
                          for pile, p in self.paths.items()}
        self.start_mm = float(self.geometry.gate_setback)  # a card's front at the front wall
        self.card_length = float(self.geometry.card_length)
        # above this at the end wall a card stands up (a felt pad on the wall, as built)
        self.stand_up_mm_s = stand_up_speed_mm_s(self.card_length, padded)
        self.gate_cards = cards_fed(self.geometry.card_gap_at_gate,
                                    self.params.card_thickness_mm)
        self.router_settle_s = (design.DEFAULT_ROUTER.settle_s if router_settle_s is None
                                else router_settle_s) / speed
        # a move back to the left pile (a solenoid's spring side) may settle sooner
        self.router_back_s = self.router_settle_s
        self._router_log: list[tuple[float, Pile]] = [(float("-inf"), Pile.LEFT)]
        self.flap_hits = 0
        # top first; the roller drives the bottom card: tray[-1] is the next card fed
        self.tray: list[int] = []
        self.piles: dict[Pile, list[int]] = {Pile.LEFT: [], Pile.RIGHT: []}  # top first
        self.router = Pile.LEFT
        self.motor = False
        self.mode = "coast"  # drive, brake, coast
        self.fed = 0  # cards that left the tray, ever
        self._last_pile: Pile | None = None
        self._roller = _Roller()
        self._units: list[_Unit] = []  # in flight, oldest first
        self._feeding: _Unit | None = None  # the unit on the roller
        self._standing: dict[Pile, _Unit | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self._covering: dict[Pile, int] = {Pile.LEFT: 0, Pile.RIGHT: 0}
        self.blocked_at: dict[Pile, float | None] = {Pile.LEFT: None, Pile.RIGHT: None}
        self._t = 0.0  # the machine's own time (real time x speed)
        self._cached: tuple[tuple[float, _Unit, float | None] | None] | None = None
        self._seq = 0
        # what happened, for tests and the benchmark
        self.unseen_stops = 0  # cards that stopped past their beam, before their bay
        self.stood_up = 0  # cards that stood up against a bay's end wall
        self.wall_speeds: list[float] = []  # each card's speed at its bay's end wall, mm/s
        self.exit_speeds: list[float] = []  # each card's speed leaving the roller, mm/s

    def twin(self) -> ShufflerTable:
        """A fresh table of the same machine (its physics and speed), empty, with no
        faults and its own random source."""
        twin = ShufflerTable(speed=self.speed, params=self.params, drive=self.drive,
                             geometry=self.geometry, rng=random.Random(0),
                             router_settle_s=self.router_settle_s * self.speed)
        twin.stand_up_mm_s = self.stand_up_mm_s
        twin._speed_scale = self._speed_scale
        return twin

    def mechanism(self, clock: Clock, filter_s: float = 0.0) -> _TableMechanism:
        """The controller's Mechanism over this table, ready to feed (as calibrate uses it)."""
        return _TableMechanism(self, clock, filter_s)

    # --- the machine ----------------------------------------------------------------------

    @property
    def jammed(self) -> int | None:
        """The card stuck in the feed (it cannot move), if any."""
        unit = self._feeding
        return unit.cards[-1] if unit is not None and not unit.moves else None

    def load(self, cards: list[int]) -> None:
        """The player puts cards in the tray (on top of any already there)."""
        self.tray[0:0] = list(cards)

    def cards_in_tray(self) -> bool:
        """What the tray sensor sees: cards in the tray, or one still under the deck."""
        unit = self._feeding
        # the sensor looks up through the floor just behind the nip: it sees a card until
        # its tail passes there
        return bool(self.tray) or (unit is not None
                                   and unit.s - unit.length < TRAY_SENSOR_MM)

    def set_motor(self, on: bool, now: float) -> None:
        """Drive the motor (on) or let it coast (off: both driver inputs low)."""
        self._set_mode("drive" if on else "coast", now)

    def set_brake(self, now: float) -> None:
        """Short the motor (both driver inputs high): it stops within a few ms."""
        self._set_mode("brake", now)

    def _set_mode(self, mode: str, now: float) -> None:
        if mode == self.mode:
            return
        self._advance(now * self.speed)
        self._cached = None
        self.mode = mode
        self.motor = mode == "drive"
        if mode == "drive" and self._feeding is None:
            self._take_next(self._t)
        self._steer(self._t)

    def _steer(self, t: float) -> None:
        """Set the roller's target for the motor's mode and the card it drives."""
        if self.mode == "drive":
            self._roller.set(t, self._drive_speed(), self.drive.motor_start_s)
        elif self.mode == "brake":
            self._roller.set(t, 0.0, self.drive.motor_start_s)
        else:
            self._roller.set(t, 0.0, self.drive.run_down_s)

    def _feed_drive(self) -> design.DriveBuild:
        """The drive as the bottom card meets it now (its press on the deck)."""
        return self.drive

    def _drive_speed(self) -> float:
        unit, p = self._feeding, self.params
        free = self.drive.free_speed_mm_s(p.supply_v, self._speed_scale)
        if unit is None:
            return free
        f = feed_load(p, unit.above, self._feed_drive(), self.share)
        load = min(f.load_n, f.traction_n)  # slipping, the tyre rubs at its grip
        stall = self.drive.stall_force_n(p.supply_v, p.motor_torque)
        return max(0.0, free * (1.0 - load / stall))

    def _take_next(self, t: float) -> None:
        """The next card in the tray comes onto the roller (after the last one left it)."""
        if not self.tray:
            self._feeding = None
            return
        card = self.tray.pop()  # the bottom card: the roller drives it
        self.fed += 1
        cards = [card]
        jam = self.jam_at is not None and self.fed == self.jam_at
        if jam:
            self.jam_at = None
        forced = self.double_at is not None and self.fed == self.double_at
        if forced:
            self.double_at = None
        drag = (self.gate_cards == 2 or forced
                or (self.model.double_feed and self.rng.random() < self.model.double_feed))
        if drag and self.tray:
            # the card above rides out on it: the unit's cards top first, as they lie
            cards.insert(0, self.tray.pop())
            self.fed += 1
        stick = self.stick_at is not None and self.fed >= self.stick_at
        if stick:
            self.stick_at = None
        self._seq += 1
        p = self.params
        scale = max(0.5, self.rng.gauss(1.0, p.spread)) if p.spread else 1.0
        above = len(self.tray) + len(cards) - 1
        f = feed_load(p, above, self._feed_drive(), self.share)
        stall = self.drive.stall_force_n(p.supply_v, p.motor_torque)
        moves = not (f.slips or f.load_n >= stall or self.gate_cards == 0)
        length = self.card_length * (1.0 if len(cards) == 1 else DOUBLE_SPAN)
        unit = _Unit(self._seq, tuple(cards), length, scale, above, s=self.start_mm, t=t,
                     x0=self._roller.pos(t), s0=self.start_mm, moves=moves, stick=stick,
                     jam_mm=self.start_mm + JAM_MM if jam else None)
        self._units.append(unit)
        self._feeding = unit

    def set_router(self, pile: Pile, now: float) -> None:
        """The router is sent to `pile` at `now`."""
        if pile is not self.router:
            self._router_log.append((now, pile))
        self.router = pile

    def _router_at(self, at: float) -> Pile:
        return next(p for t, p in reversed(self._router_log) if t <= at)

    # --- motion ---------------------------------------------------------------------------

    def _segment(self, unit: _Unit, centre: float) -> tuple[float, float, float]:
        """(slope, friction, end of the stretch) under a unit's centre at `centre` mm."""
        path = self.paths[unit.pile or Pile.RIGHT]
        done = 0.0
        for i, seg in enumerate(path.segments):
            if centre < done + seg.length_mm - _EPS or i == len(path.segments) - 1:
                mu = self.params.mu_card_petg
                if seg.surface == "pile" and self.piles[unit.pile or Pile.RIGHT]:
                    mu = self.params.mu_card_card
                return seg.slope_deg, mu, done + seg.length_mm
            done += seg.length_mm
        raise AssertionError("unreachable")

    def _marks(self, unit: _Unit) -> list[float]:
        """Where along the path something happens to a unit's leading edge."""
        L = unit.length
        marks = []
        if unit.pile is None:
            marks.append(self.flap_mm)
        else:
            beam = self.beam_mm[unit.pile]
            marks += [beam, beam + L, self._landing_mm(unit)]
            if unit.flap_at is not None:
                marks.append(self.flap_mm + design.FLAP_LENGTH_MM + L)
            if unit.stick:
                marks.append(beam + L / 3)
        if unit.phase == "driven" or unit is self._feeding:
            marks.append(L)  # its tail leaves the nip
            if unit.jam_mm is not None:
                marks.append(unit.jam_mm)
        ahead = self._obstacle(unit)
        if ahead is not None:
            marks.append(ahead)
        return [m for m in marks if m > unit.s + 1e-7]

    def _landing_mm(self, unit: _Unit) -> float:
        """Where its leading edge is when it drops into its bay (its centre past the
        branch's outlet)."""
        assert unit.pile is not None
        return self.outlet_mm[unit.pile] + unit.length / 2

    def _obstacle(self, unit: _Unit) -> float | None:
        """Where a stopped card ahead on the same way stops this one's leading edge."""
        best = None
        for other in self._units:
            if other is unit or other.phase != "stopped":
                continue
            tail = other.s - other.length
            same_way = (tail <= self.flap_mm or other.pile is unit.pile
                        or unit.pile is None)
            if same_way and tail > unit.s and (best is None or tail < best):
                best = tail
        return best

    def _pieces(self, unit: _Unit) -> Iterator[tuple[float, float, float, float, float]]:
        """A coasting unit's motion from its last state, stretch by stretch of the path
        under its centre: (t, s, v, a, s_end) at the start of each, until it stops."""
        t, s, v = unit.t, unit.s, unit.v
        half = unit.length / 2
        for _ in range(16):
            slope, mu, end = self._segment(unit, s - half)
            a = coast_accel_mm_s2(slope, mu)
            s_end = end + half
            yield t, s, v, a, s_end
            d = s_end - s
            disc = v * v + 2 * a * d
            if d <= 0 or disc < 0 or (abs(a) < 1e-9 and v <= 0):
                return
            dt = d / v if abs(a) < 1e-9 else (-v + math.sqrt(disc)) / a
            t, s, v = t + dt, s_end, math.sqrt(disc)

    def _time_to(self, unit: _Unit, s_mark: float) -> float | None:
        if unit.phase == "driven":
            if not unit.moves:
                return None
            return self._roller.time_to(unit.x0 + (s_mark - unit.s0) / unit.scale)
        if unit.phase != "coast":
            return None
        for t, s, v, a, s_end in self._pieces(unit):
            if s_mark > s_end + 1e-9:
                continue
            d = s_mark - s
            if abs(a) < 1e-9:
                return t + d / v if v > 0 else None
            disc = v * v + 2 * a * d
            return None if disc < 0 else t + (-v + math.sqrt(disc)) / a
        return None

    def _stop_time(self, unit: _Unit) -> float | None:
        if unit.phase != "coast":
            return None
        for t, s, v, a, s_end in self._pieces(unit):
            if a < 0 and v * v + 2 * a * (s_end - s) < 0:
                return t + v / -a
        return None

    def _next(self) -> tuple[float, _Unit, float | None] | None:
        """The next thing to happen: (time, unit, mark or None for a stop)."""
        if self._cached is None:
            self._cached = (self._find_next(),)
        return self._cached[0]

    def _find_next(self) -> tuple[float, _Unit, float | None] | None:
        best: tuple[float, _Unit, float | None] | None = None
        for unit in self._units:
            for mark in self._marks(unit):
                at = self._time_to(unit, mark)
                if at is not None and (best is None or at < best[0]):
                    best = (at, unit, mark)
            stop = self._stop_time(unit)
            if stop is not None and (best is None or stop < best[0]):
                best = (stop, unit, None)
        return best

    def _move(self, unit: _Unit, t: float) -> None:
        """Bring a unit to time t (no event in between)."""
        if unit.phase == "driven":
            if unit.moves:
                unit.s = unit.s0 + (self._roller.pos(t) - unit.x0) * unit.scale
        elif unit.phase == "coast":
            for t0, s0, v0, a, s_end in self._pieces(unit):
                dt = t - t0
                if a < 0:
                    dt = min(dt, v0 / -a)
                s1 = s0 + v0 * dt + 0.5 * a * dt * dt
                if s1 <= s_end + 1e-9:
                    unit.s, unit.v = s1, max(0.0, v0 + a * dt)
                    break
        unit.t = t

    def _advance(self, t_end: float) -> list[SensorEdge]:
        edges: list[SensorEdge] = []
        for _ in range(100_000):
            nxt = self._next()
            if nxt is None or nxt[0] > t_end + 1e-9:  # within a ns is now (float rounding)
                # each unit keeps its state at its last event: between events its motion
                # is the formula from there (no mark is crossed but at an event)
                self._t = max(self._t, t_end)
                return edges
            at, who, mark = nxt
            at = max(at, self._t)
            self._move(who, at)
            self._t = at
            if mark is not None:
                who.s = max(who.s, mark)  # exactly on it, against rounding
            self._cached = None
            self._event(who, mark, at, edges)
            self._cached = None
        raise ShufflerError("the simulated machine did not settle")

    def _event(self, unit: _Unit, mark: float | None, t: float,
               edges: list[SensorEdge]) -> None:
        """A unit reached a mark (or came to rest): do what happens there."""
        if mark is None:  # it came to rest
            self._stop(unit, edges, t)
            return
        if unit.jam_mm is not None and unit.s >= unit.jam_mm - 1e-7:
            unit.moves, unit.jam_mm = False, None  # caught in the feed: it moves no more
            return
        if unit.phase == "driven" and mark >= unit.length - 1e-7 \
                and unit.s >= unit.length - 1e-7:
            self._leave_roller(unit, t)
        if unit.pile is None and unit.s >= self.flap_mm - 1e-7:
            self._at_flap(unit, t)
        if unit.pile is None:
            return
        if self._at_beam(unit, t, edges):
            return
        self._past_flap(unit, t)
        if unit.tipped:
            self._land(unit, t)
        elif self._obstacle(unit) is not None and unit.s >= self._obstacle(unit) - 1e-7:
            self._stop(unit, edges, t)

    def _leave_roller(self, unit: _Unit, t: float) -> None:
        """Its tail leaves the nip: it coasts, and the next card comes onto the roller."""
        unit.phase = "coast"
        unit.v = self._roller.speed(t) * unit.scale
        self.exit_speeds.append(unit.v)
        self._take_next(t)
        if self.mode == "drive":
            self._steer(t)

    def _at_beam(self, unit: _Unit, t: float, edges: list[SensorEdge]) -> bool:
        """Cover or uncover its beam, drop off the outlet, or stick under the beam (True)."""
        assert unit.pile is not None
        L, beam = unit.length, self.beam_mm[unit.pile]
        if unit.stick and unit.s >= beam + L / 3 - 1e-7 and unit.phase in ("driven", "coast"):
            unit.phase, unit.v, unit.stick = "stopped", 0.0, False
            self._cover(unit, True, t, edges)
            return True
        under = beam - 1e-7 <= unit.s < beam + L - 1e-7 and not unit.tipped
        if unit.s >= self.outlet_mm[unit.pile] + L / 2 - 1e-7 and not unit.tipped:
            unit.tipped, under = True, False
        if under != unit.under:
            self._cover(unit, under, t, edges)
        return False

    def _past_flap(self, unit: _Unit, t: float) -> None:
        """Its tail has left the flap: did the router move while it was there?"""
        if unit.flap_at is None or unit.s < self.flap_mm + design.FLAP_LENGTH_MM + unit.length \
                - 1e-7:
            return
        lead, unit.flap_at = unit.flap_at, None
        longest = max(self.router_settle_s, self.router_back_s) * self.speed
        # newest first, back to the moves that could still be settling as its lead arrived
        # (the log grows with the machine's life: a whole scan made long runs quadratic)
        for at, pile in reversed(self._router_log):
            if at * self.speed <= lead - longest:
                break
            settle = self.router_back_s if pile is Pile.LEFT else self.router_settle_s
            if lead - settle * self.speed < at * self.speed < t:
                self.flap_hits += 1
                break

    def _cover(self, unit: _Unit, under: bool, t: float, edges: list[SensorEdge]) -> None:
        pile = unit.pile
        assert pile is not None
        if under == unit.under:
            return
        unit.under = under
        before = self._covering[pile]
        self._covering[pile] += 1 if under else -1
        at = t / self.speed
        if before == 0 and under:
            edges.append(SensorEdge(at, pile, True))
            self.blocked_at[pile] = at
        elif self._covering[pile] == 0 and not under:
            edges.append(SensorEdge(at, pile, False))
            self.blocked_at[pile] = None

    def _at_flap(self, unit: _Unit, t: float) -> None:
        lead = t / self.speed
        pile = self.model.actual_pile(self._router_at(lead), self._last_pile, self.rng)
        self._last_pile = pile
        unit.pile, unit.flap_at = pile, t

    def _stop(self, unit: _Unit, edges: list[SensorEdge], t: float) -> None:
        unit.phase, unit.v = "stopped", 0.0
        if unit.pile is None:
            return
        beam = self.beam_mm[unit.pile]
        if unit.s >= beam + unit.length - 1e-7 and not unit.tipped:
            self.unseen_stops += 1  # past its beam, short of its bay: nobody sees it

    def _bring_all(self) -> None:
        """Every unit's state at the table's time (before the player touches them)."""
        for unit in self._units:
            self._move(unit, self._t)

    def _land(self, unit: _Unit, t: float) -> None:
        """The unit drops into its bay and slides to the end wall, standing up against it
        when it arrives too fast; a standing card falls onto the next card that lands."""
        pile = unit.pile
        assert pile is not None
        slope, mu, end = self._segment(unit, unit.s - unit.length / 2 + 1e-6)
        rest = max(0.0, self.paths[pile].length_mm - unit.s)
        v2 = unit.v * unit.v + 2 * coast_accel_mm_s2(slope, mu) * rest
        wall = math.sqrt(max(0.0, v2))
        self.wall_speeds.append(wall)
        self._units.remove(unit)
        unit.phase = "landed"
        self._onto_pile(unit, pile, wall)

    def _onto_pile(self, unit: _Unit, pile: Pile, wall: float) -> None:
        """A unit lies on its pile, having met the end wall at `wall` mm/s: above the
        stand-up speed it stands against the wall. A card standing there is on the pile's
        top; the next slides under it and it topples onto that one: the two change places."""
        standing = self._standing[pile]
        under = len(standing.cards) if standing is not None else 0
        self.piles[pile][under:under] = list(unit.cards)
        self._standing[pile] = None
        if wall > self.stand_up_mm_s:
            self.stood_up += 1
            self._standing[pile] = unit

    def next_event(self) -> float | None:
        """When the next thing happens in the machine (a sensor may change then), if any."""
        nxt = self._next()
        return None if nxt is None else max(nxt[0], self._t) / self.speed

    def update(self, now: float) -> list[SensorEdge]:
        """Advance to `now`; returns the sensor edges in time order."""
        return self._advance(now * self.speed)

    def sensor_blocked(self, pile: Pile) -> bool:
        return self.blocked_at[pile] is not None

    # --- the player -----------------------------------------------------------------------

    def stack(self, top: Pile) -> None:
        """Put the `top` pile on the other one and the deck in the tray, once the cards
        still sliding to their piles have landed (a player waits for them)."""
        self._cached = None
        self._bring_all()
        for unit in list(self._units):
            if unit.phase == "coast" and unit.pile is not None:
                if unit.under:
                    self._cover(unit, False, self._t, [])
                unit.tipped = True
                self._land(unit, self._t)
        self._standing = {Pile.LEFT: None, Pile.RIGHT: None}  # squared with its pile
        self.tray = self.piles[top] + self.piles[top.other] + self.tray
        self.piles = {Pile.LEFT: [], Pile.RIGHT: []}

    def return_jammed(self) -> None:
        """Take the jammed card out and slide it back under the deck in the tray (the tray
        feeds its bottom card: it is fed again next)."""
        self._cached = None
        self._bring_all()
        unit = self._feeding
        if unit is not None and not unit.moves:
            self._units.remove(unit)
            self._feeding = None
            self.tray.extend(unit.cards)
            self.fed -= len(unit.cards)

    def push_stuck(self) -> None:
        """Push a card held under a pile's beam (stopped there, or two cards still on the
        roller) down onto its pile."""
        self._cached = None
        self._bring_all()
        for unit in list(self._units):
            if unit.phase in ("stopped", "driven") and unit.under:
                if unit is self._feeding:
                    self._feeding = None
                self._cover(unit, False, self._t, [])
                unit.tipped = True
                self._units.remove(unit)
                assert unit.pile is not None
                self.piles[unit.pile][0:0] = list(unit.cards)

    def gather(self, top: Pile) -> None:
        """Gather everything (piles, cards in the path, the feed, tray) into the tray."""
        self._cached = None
        self._bring_all()
        for unit in list(self._units):
            if unit.under:
                self._cover(unit, False, self._t, [])
            self.tray.extend(unit.cards)
        self._units.clear()
        self._feeding = None
        self.stack(top)

    def deck(self) -> list[int]:
        """The whole deck, top first, as it lies: tray, then left and right piles."""
        return self.tray + self.piles[Pile.LEFT] + self.piles[Pile.RIGHT]


def measured_timing(table: ShufflerTable, router_settle_s: float,
                    cards: int = 104) -> Timing:
    """The timing `crib shuffler calibrate` would write for this table's machine: a twin of
    it (no faults, the same physics) measured over a full tray of `cards`. Cached per
    machine, so many simulators of one machine measure it once."""
    # the table's kind and any parts of its own (a hands-free shaft) are the machine too
    key = (type(table), table.params, table.drive, table.geometry, table.speed,
           table._speed_scale, getattr(table, "shaft", None), getattr(table, "sp", None),
           round(router_settle_s, 9), cards)
    timing = _MEASURED.get(key)
    if timing is None:
        timing = _measure(table, router_settle_s, cards)
        _MEASURED[key] = timing
    return timing


_MEASURED: dict[tuple[Any, ...], Timing] = {}


def _measure(table: ShufflerTable, router_settle_s: float, cards: int) -> Timing:
    from hardware.clock import FakeClock
    from hardware.shuffler.calibrate import calibration, measure_cards

    twin = table.twin()
    twin.load(list(range(cards)))
    clock = FakeClock()
    mech = twin.mechanism(clock)
    times = measure_cards(mech, clock, cards, router_move_s=router_settle_s)
    values = calibration(times)["values"]
    return Timing.for_speed(values["feed_speed_mm_s"], router_settle_s,
                            speeds=tuple(values["card_speeds_mm_s"]),
                            full_cards=values["calibrated_cards"],
                            card_timeout=values.get("card_timeout_s"))


class _TableMechanism:
    """The controller's Mechanism over a ShufflerTable (no pins in between). A stop brakes
    the motor (both driver inputs high) for `design.BRAKE_HOLD_S`, then lets it coast."""

    kind = "simulated"

    def __init__(self, table: ShufflerTable, clock: Clock, filter_s: float = 0.0) -> None:
        self.table = table
        self._clock = clock
        # a real beam's glitch filter takes each edge this late: the simulated one too
        self.filter_s = filter_s
        self._arrivals: list[Pile] = []
        self._block_start: dict[Pile, float] = {}
        self._blocks: dict[Pile, float] = {}
        self._release_at: float | None = None
        self.led = False

    def open(self) -> None:
        pass

    def close(self) -> None:
        self._release_at = None
        self.table.set_motor(False, self._clock.monotonic())

    def update(self, now: float) -> float | None:
        if self._release_at is not None and now >= self._release_at:
            self._release_at = None
            self.table.set_motor(False, now)  # braked to a stop: both inputs low
        for edge in self.table.update(now - self.filter_s):
            if edge.blocked:
                self._arrivals.append(edge.pile)
                self._block_start[edge.pile] = edge.at
            elif edge.pile in self._block_start:
                self._blocks[edge.pile] = edge.at - self._block_start.pop(edge.pile)
        nxt = self.table.next_event()
        due = [t for t in (None if nxt is None else nxt + self.filter_s, self._release_at)
               if t is not None]
        return min(due) if due else None

    def set_motor(self, on: bool) -> None:
        now = self._clock.monotonic()
        if on:
            self._release_at = None
            self.table.set_motor(True, now)
        elif self.table.mode == "drive":
            self.table.set_brake(now)
            self._release_at = now + design.BRAKE_HOLD_S

    def set_router(self, pile: Pile) -> None:
        self.table.set_router(pile, self._clock.monotonic())

    def set_led(self, on: bool) -> None:
        self.led = on

    def tray_loaded(self) -> bool:
        return self.table.cards_in_tray()

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
        params: Params | None = None,
        spread: float | None = None,
        router_settle_s: float | None = None,
    ) -> None:
        model = MachineModel(p=p, q=q, misroute=misroute, double_feed=double_feed)
        settle = design.DEFAULT_ROUTER.settle_s if router_settle_s is None else router_settle_s
        self.table = ShufflerTable(
            speed=speed, feed_speed_mm_s=feed_speed_mm_s, model=model, rng=machine_rng,
            jam_at=jam_at, stick_at=stick_at, double_at=double_at, params=params,
            spread=spread, router_settle_s=settle,
        )
        if timing is None:
            # the budgets of the machine simulated, as calibrate would measure them on it:
            # each card's speed over a full tray, its router's settle
            timing = measured_timing(self.table, settle / speed)
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
