"""A simulated hands-free shuffler: the drop shaft's timed physical model.

`HandsFreeTable` is the Lotus build's feed (tray, gate, roller, the motor under the deck's
load, slip and double feeds: `ShufflerTable`'s own physics, inherited) with the hands-free
build's path after it (docs/hands-free.md, "The drop shaft, specified"; the stations from
`hardware.shuffler.shaft`): the riser's take-away pair T1 and the branch pairs T2L/T2U on one
motor, the router's flap at the fork, each bay's beam, the bays over the tray, their doors on
SG90 servos, the piles falling through the close shaft's air, and the sensors the restack is
checked by (door sensors, the tray's load cell, the skew beam, the lid switch). Card ids are
the cards' positions when first loaded; every pile is kept top first.

`HandsFreeTableMechanism` is the controller's `Mechanism` and the `shaft.Shaft` over it.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, fields, replace
from typing import Any

from hardware.errors import ShufflerError
from hardware.interfaces import Clock
from hardware.shuffler import design
from hardware.shuffler import ranges as shuffler_ranges
from hardware.shuffler.handsfree import (
    BAY_OF_PILE,
    HANDSFREE_ROUTER,
    LEAVES_CLEAR_DEG,
    PILE_FALL_MAX_S,
    PRESS_LIFT_DEG,
    PRESS_LIFT_S,
    PRESS_LOWER_S,
    PRESS_TURN_CLEAR_DEG,
    PRESS_TURN_DEG,
    PRESS_TURN_S,
    ROUTER_PILE,
    SERVO_FRAME_S,
    SERVO_S_PER_60,
    Bay,
    PressPose,
    press_holds_mm,
)
from hardware.shuffler.physics import G
from hardware.shuffler.plan import Pile
from hardware.shuffler.ranges import Params
from hardware.shuffler.shaft import DEFAULT_SHAFT, ShaftGeometry
from hardware.shuffler.simulator import (
    SensorEdge,
    ShufflerTable,
    _Roller,
    _TableMechanism,
    _Unit,
)

_EPS = 1e-9
G_MM_S2 = 9810.0
AIR_KG_M3 = 1.2  # air at 20 C, sea level (textbook)

# The shaft's own ranges: (low, high), each with its source. The nominal is the middle.
SHAFT_RANGES: dict[str, tuple[float, float]] = {
    # The riser's N20 against its datasheet speed: the same +-15 % part-to-part spread as
    # the feed's motor (ranges.py "motor_speed"), independent of it (its own motor).
    "riser_speed": (0.85, 1.15),
    # SG90 at 4.8 V: 0.1 s per 60 degrees (datasheet), +-20 % (handsfree.SERVO_S_PER_60).
    "servo_s_per_60": SERVO_S_PER_60,
    # How far a pile's long edges bow to slip past the leaves' tips: estimate, to measure
    # (it sets the leaf angle at which the pile drops).
    "slip_flex_mm": (2.0, 6.0),
    # The vents over each bay's doors, open area beside the 1.5 mm gaps round a pile:
    # estimate, to measure (docs/hands-free.md: "slows it to roughly 0.7-1 m/s").
    "vent_area_mm2": (100.0, 400.0),
    # Discharge coefficient of the leak round a falling pile: 0.6 for a sharp-edged
    # orifice (textbook), up to 0.8 for the rounded gap: estimate, to measure.
    "discharge": (0.6, 0.8),
    # The load cell's noise a sample, g rms: 0.1-0.2 (estimate from typical 1 kg bar cells,
    # handsfree.RestackBuild)
    "cell_noise_g": (0.1, 0.2),
    # A landed pile's bounce and the cell's ring-down before the reading is steady, s:
    # estimate, to measure (handsfree.RestackBuild.settle_s is 0.15)
    "settle_s": (0.10, 0.25),
    # The cards' flexural modulus, GPa: paperboard and plastic playing cards, 3-5:
    # estimate, to measure (it sets how hard a card presses on the curl's walls)
    "card_modulus_gpa": (3.0, 5.0),
    # The sprung idler against each riser roller: 0.8 N +-20 % for a printed spring
    # (estimate, to measure). The first design's 0.5 N let the stiffest, thickest card stall
    # in the curl at 32 of the 768 corners (its drag needs 0.54 N at the spring's low end).
    "t1_idler_n": (0.64, 0.96),
    # A reading of the load cell taken while a bay's doors swing (their leaves, about 10 g
    # each, start and stop on their servo within 0.2 s; the reaction runs through the shaft
    # and the base to the tray's cell) errs by up to this many grams either way: estimate,
    # to measure at bring-up (a card weighs about 1.8 g).
    "door_shake_g": (1.0, 4.0),
}
# Samples the load cell averages a reading over: 16 at 80 samples a second (NAU7802;
# handsfree.RestackBuild.weigh_s)
CELL_SAMPLES = 16
CELL_WEIGH_S = 0.20
# The servos' 20 ms frame (handsfree.SERVO_FRAME_S, the PCA9685 at 50 Hz): a new pulse
# width is taken up at the end of the cycle under way, so a servo starts moving 0 to 20 ms
# after its command, by where in the cycle the command falls (`servo_frame_s`). The chip's
# oscillator runs free of the controller's clock: any phase gives the same spread.


def servo_frame_s(t: float) -> float:
    """Seconds from a servo commanded at `t` (s) to its first pulse of the new width: to the
    end of the PCA9685's cycle under way, more than 0 and at most SERVO_FRAME_S."""
    return SERVO_FRAME_S - math.fmod(t, SERVO_FRAME_S) if t >= 0 else SERVO_FRAME_S
DOOR_SWING_DEG = 90.0
# Each door leaf is hinged at its long wall and reaches this far across (docs/hands-free.md)
LEAF_MM = 33.0
# What a pile of a pass (24 to 56 cards: handsfree.bay_counts) does when it falls from the
# lower doors (55 mm) or the upper doors (to the tray, about 82 mm over a lower pile),
# across the shaft's and the cards' ranges, as `fall` reckons it: the figures the docs
# state ("slows it to roughly 0.7-1 m/s") widened to this model's corners. A single card
# floats down far slower (0.13-0.3 m/s): it does not fall as a pile.
PILE_LANDING_MM_S = (550.0, 1200.0)
PILE_FALL_S = (0.10, PILE_FALL_MAX_S)


@dataclass(frozen=True, slots=True)
class ShaftParams:
    """One drop shaft within its ranges (defaults: the middle of each). Raises ValueError
    for a value outside its range."""

    riser_speed: float = 1.0
    servo_s_per_60: float = 0.10
    slip_flex_mm: float = 4.0
    vent_area_mm2: float = 250.0
    discharge: float = 0.7
    cell_noise_g: float = 0.15
    settle_s: float = 0.175
    card_modulus_gpa: float = 4.0
    t1_idler_n: float = 0.8
    door_shake_g: float = 2.5

    def __post_init__(self) -> None:
        for name, (lo, hi) in SHAFT_RANGES.items():
            value = getattr(self, name)
            if not lo - 1e-9 <= value <= hi + 1e-9:
                raise ValueError(f"{name} = {value} is outside its range {lo}-{hi}")

    def label(self) -> str:
        parts = []
        for name, (lo, hi) in SHAFT_RANGES.items():
            value = getattr(self, name)
            tag = "lo" if abs(value - lo) < 1e-9 else "hi" if abs(value - hi) < 1e-9 else "mid"
            parts.append(f"{name}={tag}")
        return " ".join(parts)


SHAFT_NOMINAL = ShaftParams()
SHAFT_RANGED = tuple(f.name for f in fields(ShaftParams))


def shaft_corners() -> list[ShaftParams]:
    """Every corner of the shaft's own ranges (2^7)."""
    out = []
    for ends in itertools.product((0, 1), repeat=len(SHAFT_RANGED)):
        values = {n: SHAFT_RANGES[n][e] for n, e in zip(SHAFT_RANGED, ends, strict=True)}
        out.append(ShaftParams(**values))
    return out


def corners(decks: tuple[int, ...] = shuffler_ranges.DECKS,
            full: bool = False) -> list[tuple[Params, ShaftParams]]:
    """The feed's corners (ranges.corners) combined with the shaft's: with `full`, every
    pair; otherwise each feed corner with the three shaft corners that bound it: every range
    at its slow end (slow riser and servos, the slowest settle, the least vent: the longest
    restack, the slowest landing), at its fast end (the hardest landing), and the stiffest
    card against the weakest riser idler (the curl's worst grip)."""
    feed = shuffler_ranges.corners(decks)
    if full:
        return [(p, s) for p in feed for s in shaft_corners()]
    return [(p, s) for p in feed for s in SHAFT_BOUNDS]


def _bound(slow: bool) -> ShaftParams:
    lo = {n: r[0] for n, r in SHAFT_RANGES.items()}
    hi = {n: r[1] for n, r in SHAFT_RANGES.items()}
    a, b = (lo, hi) if slow else (hi, lo)
    return ShaftParams(riser_speed=a["riser_speed"], servo_s_per_60=b["servo_s_per_60"],
                       slip_flex_mm=a["slip_flex_mm"], vent_area_mm2=a["vent_area_mm2"],
                       discharge=a["discharge"], cell_noise_g=b["cell_noise_g"],
                       settle_s=b["settle_s"], door_shake_g=b["door_shake_g"])


SHAFT_BOUNDS = (_bound(True), _bound(False),
                ShaftParams(card_modulus_gpa=SHAFT_RANGES["card_modulus_gpa"][1],
                            t1_idler_n=SHAFT_RANGES["t1_idler_n"][0]))


# --- the curl -----------------------------------------------------------------------------


def curl_drag_n(params: Params, sp: ShaftParams, radius_mm: float,
                width_mm: float = design.POKER_WIDTH_MM) -> float:
    """The friction a card meets bent round the curl: bent to radius R it presses on the
    channel's walls with about EI/R^2 at each end of the bend (its moment EI/R over a lever
    of R), each sliding on printed plastic. An estimate, to measure."""
    ei = sp.card_modulus_gpa * 1000.0 * width_mm * params.card_thickness_mm ** 3 / 12.0
    return 2.0 * params.mu_card_petg * ei / radius_mm ** 2


def t1_grip_n(params: Params, sp: ShaftParams) -> float:
    """The most the take-away pair T1 pulls a card with: its idler's force on the tyre."""
    return sp.t1_idler_n * params.mu_tyre_card


# --- falling through the shaft's air ------------------------------------------------------


def terminal_speed_mm_s(cards: int, card_mass_kg: float, shaft: ShaftGeometry,
                        sp: ShaftParams, width_mm: float = design.POKER_WIDTH_MM) -> float:
    """A pile's terminal speed in the close shaft: its weight against the pressure of the
    air it pushes out through the gap round it and the vents, as through an orifice
    (dp = rho/2 (Q / (Cd A_leak))^2, Q = A v), so the drag is k v^2."""
    area = design.CARD_LENGTH_MM * width_mm * 1e-6  # m^2, the pile's face
    gap = (shaft.inside_length_mm * shaft.inside_width_mm) * 1e-6 - area
    leak = gap + sp.vent_area_mm2 * 1e-6
    weight = max(cards, 1) * card_mass_kg * 9.81
    v = math.sqrt(2.0 * weight * (sp.discharge * leak) ** 2 / (AIR_KG_M3 * area ** 3))
    return v * 1000.0


def fall(height_mm: float, terminal_mm_s: float) -> tuple[float, float]:
    """(seconds, landing speed mm/s) of a fall from rest through `height_mm` with quadratic
    drag of terminal speed `terminal_mm_s`: x = vt^2/g ln cosh(g t / vt)."""
    if height_mm <= 0:
        return 0.0, 0.0
    vt, g = terminal_mm_s, G_MM_S2
    k = height_mm * g / (vt * vt)
    if k > 300:  # at terminal speed for almost all of it
        return height_mm / vt + vt / g * math.log(2.0), vt
    t = vt / g * math.acosh(math.exp(k))
    return t, vt * math.tanh(g * t / vt)


def _fall_depth(t: float, terminal_mm_s: float) -> float:
    vt = terminal_mm_s
    x = G_MM_S2 * t / vt
    return vt * vt / G_MM_S2 * (x + math.log1p(math.exp(-2 * x)) - math.log(2.0)) \
        if x > 20 else vt * vt / G_MM_S2 * math.log(math.cosh(x))


# --- the parts ----------------------------------------------------------------------------


class _Door:
    """A bay's door pair on its SG90: its angle (0 closed, 90 open) moves at the servo's
    speed toward the commanded one after the servo's frame; it holds where it is without
    power."""

    def __init__(self, deg_per_s: float, back_deg_per_s: float | None = None) -> None:
        self.rate = deg_per_s  # opening (towards a higher angle)
        self.back = deg_per_s if back_deg_per_s is None else back_deg_per_s
        self.t0, self.a0, self.target = 0.0, 0.0, 0.0
        self.start = 0.0  # when it starts moving toward the target
        self.powered = True

    def angle(self, t: float) -> float:
        if not self.powered or t <= self.start:
            return self.a0
        if self.target >= self.a0:
            return min(self.target, self.a0 + self.rate * (t - self.start))
        return max(self.target, self.a0 - self.back * (t - self.start))

    def command(self, t: float, target: float, frame: float) -> None:
        self.a0 = self.angle(t)
        self.t0, self.target, self.start = t, target, t + frame

    def power(self, t: float, on: bool, frame: float) -> None:
        self.a0 = self.angle(t)
        self.t0, self.start, self.powered = t, t + frame, on

    def time_to(self, angle: float) -> float | None:
        """When it passes `angle` moving toward its target, or None."""
        if not self.powered:
            return None
        if self.target >= self.a0:
            if not self.a0 < angle <= self.target:
                return None
            return self.start + (angle - self.a0) / self.rate
        if not self.target <= angle < self.a0:
            return None
        return self.start + (self.a0 - angle) / self.back


def _meet(a: tuple[float, float] | None, b: tuple[float, float] | None, t0: float,
          t1: float, was: bool) -> tuple[int, bool]:
    """Whether spans `a` and `b` of [t0, t1] overlap as a new meeting (1, else 0: one
    already under way at t0, `was`, goes on), and whether they still meet at t1."""
    if not (a and b):
        return 0, False
    start, end = max(a[0], b[0]), min(a[1], b[1])
    if end - start <= 1e-6:
        return 0, False
    return (0 if was and start <= t0 + 1e-9 else 1), end >= t1 - 1e-9


def _span(servo: _Door, t0: float, t1: float, level: float,
          above: bool) -> tuple[float, float] | None:
    """The span of [t0, t1] in which `servo` stands over `level` (`above`) or under it,
    moving toward one target meanwhile (so it crosses `level` once at most); None if
    never."""
    def inside(a: float) -> bool:
        return a > level + 1e-9 if above else a < level - 1e-9

    first, last = inside(servo.angle(t0)), inside(servo.angle(t1))
    if first and last:
        return t0, t1
    if not first and not last:
        return None
    rate = servo.rate if servo.target >= servo.a0 else servo.back
    cross = servo.start + abs(level - servo.a0) / rate  # it starts after its frame
    cross = min(max(cross, t0), t1)
    return (t0, cross) if first else (cross, t1)


@dataclass(slots=True)
class _Drop:
    """A pile falling from a bay's doors: cards top first, the height its bottom fell from,
    and where it lands."""

    cards: list[int]
    bay: Bay
    z0: float  # its bottom's height at release, mm
    t0: float  # released
    vt: float  # terminal speed, mm/s
    onto: str = ""  # "tray" or "lower" (the lower doors), fixed when it gets there
    land_at: float = 0.0
    land_speed: float = 0.0
    decide_at: float | None = None  # an upper pile reaches the lower doors' height then
    skew: bool = False


@dataclass(frozen=True, slots=True)
class Landing:
    """One pile's landing: how many cards, from which bay, onto what, after how long a fall
    and at what speed."""

    bay: Bay
    cards: int
    onto: str
    height_mm: float
    fall_s: float
    speed_mm_s: float


def _checked_duty(duty: float) -> float:
    """The riser's PWM duty. Raises ShufflerError unless it is above 0 and at most 1."""
    if not 0 < duty <= 1:
        raise ShufflerError(f"the riser's PWM duty must be above 0 and at most 1, got {duty}")
    return duty


class HandsFreeTable(ShufflerTable):
    """The hands-free machine and deck (see the module's doc). Card ids are the cards'
    positions when first loaded.

    The feed is `ShufflerTable`'s: `set_motor`, `set_brake`, `set_router`, the tray, the
    gate and the double feeds. After the nip a card is carried by the riser: while its tail
    is still in the nip it moves with the feed roller (the riser's light idlers slip), then
    with the riser's belt; the riser's rollers run at their own motor's speed (`riser_drive`,
    design.RISER_DRIVE; spread by `ShaftParams.riser_speed`), less what the card's drag in
    the curl costs its motor, and start and run down as the riser_drive's times say;
    stopped, it holds every card on it where it is. A card whose drag in the curl
    beats T1's grip stalls there (`curl_stalls`). A card the feed drives into the tail of
    one the riser holds stops against it (`rams` counts them) until the riser runs again.
    The router's position when a card's leading edge reaches the flap decides its bay
    (`Pile.LEFT` the lower, `Pile.RIGHT` the upper); the card's tail passing its bay's slot
    lands it on top of that bay's pile (or through open doors). `set_doors` swings a bay's
    doors; once the leaves pass the angle where the pile slips between them the pile falls
    through the shaft's air onto whatever is under it.

    Faults (each counted from 1 over the table's life): `stall_at` names a card that stalls
    in the curl (`stall_frees`: whether the riser's next start frees it); `catch_at` a drop
    number (1 = the first doors to open on a pile) of which `catch_cards` bottom cards stay
    on a leaf (freed by the `catch_frees`-th reopening of those doors, or by the player);
    `skew_at` a drop that lands skewed; `dead_door` a bay whose servo never moves;
    `swapped_doors` the two servos' leads swapped (the shaft still stacks the upper pile on
    top: the door sensors show the upper bay emptying first); `bays_swapped` a mis-built
    machine that restacks in the wrong order: the flap fitted the other way up with the
    bays' beams swapped to match, so every card arrives where the controller expects it but
    the pile it planned for the top lies at the bottom. `double_at` and the rest as
    ShufflerTable. `card_weight_g` is the load cell's calibrated card weight (default: this
    deck's, as measured at bring-up). Player actions: `set_lid`, `take_stalled`,
    `free_caught`, `square_deck`.
    Raises ShufflerError for a bad speed, model or fault.
    """

    def __init__(
        self,
        *,
        shaft: ShaftGeometry | None = None,
        shaft_params: ShaftParams | None = None,
        stall_at: int | None = None,
        stall_frees: bool = True,
        catch_at: int | None = None,
        catch_cards: int = 3,
        catch_frees: int = 1,
        skew_at: int | None = None,
        dead_door: Bay | None = None,
        swapped_doors: bool = False,
        bays_swapped: bool = False,
        card_weight_g: float | None = None,
        riser_duty: float = 1.0,
        riser_drive: design.DriveBuild = design.RISER_DRIVE,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("router_settle_s", HANDSFREE_ROUTER.settle_s)
        if kwargs.get("drive") is None:
            kwargs["drive"] = design.HANDSFREE_DRIVE  # the build's own feed
        super().__init__(**kwargs)
        # the solenoid's spring brings the flap back to the lower bay sooner than it pulls it
        # over (as much sooner as the build's router, whatever its settle was given as)
        self.router_back_s = max(0.0, self.router_settle_s - (
            HANDSFREE_ROUTER.settle_s - HANDSFREE_ROUTER.back_settle_s) / self.speed)
        if catch_cards < 0 or catch_frees < 0:
            raise ShufflerError(
                f"a caught pile needs 0 or more cards and reopenings, got {catch_cards} "
                f"cards freed after {catch_frees}")
        if card_weight_g is not None and not card_weight_g > 0:
            raise ShufflerError(f"the load cell's card weight must be above 0 g, got "
                                f"{card_weight_g}")
        self.riser_duty = _checked_duty(riser_duty)
        self.riser_drive = riser_drive
        self.shaft = shaft or DEFAULT_SHAFT
        self.sp = shaft_params or SHAFT_NOMINAL
        self.stall_at, self.stall_frees = stall_at, stall_frees
        self.catch_at, self.catch_cards, self.catch_frees = catch_at, catch_cards, catch_frees
        self.skew_at, self.dead_door, self.swapped_doors = skew_at, dead_door, swapped_doors
        self.bays_swapped = bays_swapped
        # the path's stations, from the shaft's contract (its owner may move them)
        self.flap_mm = self.shaft.flap_mm
        self.beam_mm = {pile: self.shaft.beam_mm for pile in Pile}
        self.land_mm = {pile: self.shaft.slot_mm(BAY_OF_PILE[pile]) + self.card_length
                        for pile in Pile}
        # the stall catches a card's leading edge between T1 and the fork
        self.stall_mm = (self.shaft.t1_mm + self.shaft.flap_mm) / 2.0
        # T1 alone pulls a card round the curl once its tail leaves the nip: too weak, and
        # every card stalls there (no start of the riser changes that)
        self.curl_drag_n = curl_drag_n(self.params, self.sp, self.shaft.curl_radius_mm,
                                       float(self.geometry.card_width))
        self.curl_stalls = self.curl_drag_n >= t1_grip_n(self.params, self.sp)
        self._riser = _Roller()
        self.riser_on = False  # commanded
        self._feed_cmd = "coast"  # the feed's commanded mode (it may have no power)
        self._router_cmd = self.router
        self.lid = True  # closed
        servo_deg_s = 60.0 / self.sp.servo_s_per_60
        self.doors = {bay: _Door(servo_deg_s) for bay in Bay}
        self._door_swings: list[tuple[float, float]] = []  # (from, to) of each door move
        self.door_cmd = {bay: False for bay in Bay}
        # the press on its two servos, each slowed by its load: the lift's (0 down on the
        # deck, where it starts: the deck loaded, the press let down on it) and the turn's
        # (0 in, over the deck); the feed has the press's force only while it is down
        # their moves as the CAD times them under their loads at the slowest SG90 (0.12 s per
        # 60 degrees unloaded), scaled to this machine's servos
        scale = self.sp.servo_s_per_60 / SERVO_S_PER_60[1]
        self.press_lift = _Door(PRESS_LIFT_DEG / ((PRESS_LIFT_S - SERVO_FRAME_S) * scale),
                                PRESS_LIFT_DEG / ((PRESS_LOWER_S - SERVO_FRAME_S) * scale))
        self.press_turn = _Door(PRESS_TURN_DEG / ((PRESS_TURN_S - SERVO_FRAME_S) * scale))
        self.press_pose = PressPose.DOWN  # as last commanded
        # times the lower leaves and the press were in the shaft together (the press turned
        # under PRESS_TURN_CLEAR_DEG, the leaves over LEAVES_CLEAR_DEG), and times the turn's
        # servo moved off its rest with the press not at the top of the lift: each judged up
        # to _clash_t
        self._press_hits = 0
        self._press_jams = 0
        self._clash_t = 0.0
        self._clashing = self._jamming = False  # meeting at _clash_t
        self.press_g = design.HANDSFREE_PRESS_N / G * 1000.0  # its mass (g)
        self._bare_drive = replace(self.drive, press_n=0.0)
        # the leaf angle at which a pile's edges slip between the tips
        self.card_width = float(self.geometry.card_width)
        gap_needed = self.card_width - self.sp.slip_flex_mm
        cos = (self.shaft.inside_width_mm - gap_needed) / (2 * LEAF_MM)
        self.slip_deg = math.degrees(math.acos(max(-1.0, min(1.0, cos))))
        self._drops: list[_Drop] = []
        self.drops = 0  # piles released, ever
        self.landings: list[Landing] = []
        self.caught: dict[Bay, list[int]] = {Bay.UPPER: [], Bay.LOWER: []}  # top first
        self._catch_left = 0
        self.skewed_pile = False
        self.stalled: _Unit | None = None
        # a card the feed drove into the tail of one the riser holds: it stops there (its
        # tyre slips under it) until the riser carries the held card on
        self.rammed: _Unit | None = None
        self.rams = 0  # such meetings, ever: a controller that feeds into a held card
        # the load cell: the machine's own card weight, calibrated at bring-up on this deck
        self.card_g = self.params.card_mass_kg * 1000.0
        self.card_weight_g = self.card_g if card_weight_g is None else card_weight_g
        self._tray_change = 0.0  # when the tray's contents last changed (machine time)
        self._pending: list[SensorEdge] = []  # edges met while a command or a query ran

    def update(self, now: float) -> list[SensorEdge]:
        """Advance to `now`; returns the sensor edges since the last update, in time order
        (those met while a command or a reading brought the machine up to its time too)."""
        self._advance(now * self.speed)
        out, self._pending = self._pending, []
        return out

    def _advance(self, t_end: float) -> list[SensorEdge]:
        edges = super()._advance(t_end)
        self._pending.extend(edges)
        return edges

    def twin(self, riser_duty: float | None = None) -> HandsFreeTable:
        """A fresh table of the same machine (its physics, shaft and speed), empty, with no
        faults and its own random source, its riser running as in a pass (at `riser_duty`,
        else this table's)."""
        twin = HandsFreeTable(speed=self.speed, params=self.params, drive=self.drive,
                              geometry=self.geometry, rng=random.Random(0),
                              router_settle_s=self.router_settle_s * self.speed,
                              shaft=self.shaft, shaft_params=self.sp,
                              riser_duty=self.riser_duty if riser_duty is None else riser_duty,
                              riser_drive=self.riser_drive)
        twin.stand_up_mm_s = self.stand_up_mm_s
        twin._speed_scale = self._speed_scale
        twin.set_riser(True, 0.0)
        return twin

    def mechanism(self, clock: Clock, filter_s: float = 0.0) -> HandsFreeTableMechanism:
        """The controller's Mechanism and Shaft over this table."""
        return HandsFreeTableMechanism(self, clock, filter_s)

    def load(self, cards: list[int]) -> None:
        """The player puts cards in the tray (on top of any already there)."""
        super().load(cards)
        self._tray_change = self._t

    # --- the feed, under the lid's power --------------------------------------------------

    def set_motor(self, on: bool, now: float) -> None:
        self._feed_cmd = "drive" if on else "coast"
        if self.lid:
            self._set_mode(self._feed_cmd, now)

    def set_brake(self, now: float) -> None:
        self._feed_cmd = "brake"
        if self.lid:
            self._set_mode("brake", now)

    def set_router(self, pile: Pile, now: float) -> None:
        self._router_cmd = pile
        if self.lid:
            super().set_router(pile, now)

    # --- the riser ------------------------------------------------------------------------

    def riser_free_mm_s(self) -> float:
        """The riser rollers' no-load surface speed running: its own motor's
        (`riser_drive`, spread by `ShaftParams.riser_speed`) on the supply; on PWM a DC
        motor's no-load speed follows the duty (its mean voltage)."""
        scale = self._speed_scale / self.params.motor_speed * self.sp.riser_speed
        return self.riser_duty * self.riser_drive.free_speed_mm_s(self.params.supply_v, scale)

    def riser_speed_mm_s(self) -> float:
        """The riser's surface speed carrying a card round the curl: its motor slows under
        the card's drag there (a straight speed-torque line, as the feed's). The motor's
        torque spread is the feed's."""
        stall = (self.riser_drive.stall_force_n(self.params.supply_v, self.params.motor_torque)
                 * self.riser_duty)
        return self.riser_free_mm_s() * max(0.0, 1.0 - self.curl_drag_n / stall)

    def set_riser(self, on: bool, now: float) -> None:
        """Run or stop the riser's motor (stopped, it holds the cards where they are)."""
        t = now * self.speed
        self._advance(t)
        starting = on and not self.riser_on
        self.riser_on = on
        self._cached = None
        if self.lid:
            self._steer_riser(t)
            if starting:
                self._riser_started(t)

    def set_riser_duty(self, duty: float, now: float) -> None:
        """Set the riser motor's PWM duty (0 to 1]. Raises ShufflerError out of range."""
        _checked_duty(duty)
        t = now * self.speed
        self._advance(t)
        self.riser_duty = duty
        self._cached = None
        if self.lid:
            self._steer_riser(t)

    def _steer_riser(self, t: float) -> None:
        # the rollers' position is continuous across a change: each card's anchor holds
        if self.riser_on and self.lid:
            self._riser.set(t, self.riser_speed_mm_s(), self.riser_drive.motor_start_s)
            self._free_rammed(t)
        elif self.lid:
            # its DRV8874 with EN low (PH/EN mode) drives both outputs low: it brakes
            self._riser.set(t, 0.0, self.riser_drive.motor_start_s)
        else:
            self._riser.set(t, 0.0, self.riser_drive.run_down_s)  # no power: it coasts

    def _free_rammed(self, t: float) -> None:
        """The riser runs again: the card held ahead moves off, and the rammed card goes on
        with the feed roller from where it stopped."""
        unit, self.rammed = self.rammed, None
        if unit is not None and unit in self._units and unit.phase == "driven":
            unit.moves = True
            unit.x0, unit.s0, unit.t = self._roller.pos(t), unit.s, t

    def _ahead(self, unit: _Unit) -> _Unit | None:
        """The card the riser carries just ahead of the feed's card `unit`, if any."""
        ahead = [u for u in self._units if u is not unit and u.phase == "riser"]
        return min(ahead, key=lambda u: u.s) if ahead else None

    def _ram_at(self) -> tuple[float, _Unit] | None:
        """When the feed's card will be driven into the card ahead on the riser, if that
        card is held or is being brought to rest (the riser stopped, braking or running
        down). Every card leaves the tray shingled over the one before by the gate's
        setback (`start_mm`: its leading edge waits that far past the nip); driven further
        into a held card than that, it rams it. A running riser is faster than the feed
        (`design.RISER_OVERDRIVE`), so it only opens the gap."""
        unit = self._feeding
        if unit is None or unit.phase != "driven" or not unit.moves or unit is self.rammed:
            return None
        ahead = self._ahead(unit)
        if ahead is None:
            return None
        r = self._riser
        if ahead.moves and r.target > _EPS:
            return None
        rest = ahead.s if not ahead.moves else ahead.s0 + (r.x0 + r.u0 * r.tau - ahead.x0)
        meet = self._time_to(unit, rest - ahead.length + self.start_mm)
        if meet is None:
            return None
        t0 = max(self._t, unit.t)

        def gap(t: float) -> float:
            lead = unit.s0 + (self._roller.pos(t) - unit.x0) * unit.scale
            tail = ahead.s if not ahead.moves else ahead.s0 + (r.pos(t) - ahead.x0)
            return tail - ahead.length + self.start_mm - lead

        if meet <= t0:
            return t0, unit
        # the gap may open first (the held card still slowing) and then close: find the
        # first closing in steps, then its moment by bisection
        steps = 64
        lo, g_lo = t0, gap(t0)
        for k in range(1, steps + 1):
            hi = t0 + (meet - t0) * k / steps
            g_hi = gap(hi)
            if g_hi <= 1e-7 and (g_hi < g_lo or g_lo > 1e-7):
                break
            lo, g_lo = hi, g_hi
        else:
            return meet, unit
        if g_lo <= 1e-7:
            return lo, unit
        for _ in range(50):
            mid = (lo + hi) / 2
            if gap(mid) > 1e-7:
                lo = mid
            else:
                hi = mid
        return hi, unit

    def _ram(self, unit: _Unit, t: float) -> None:
        """The feed's card meets the held card's tail: it stops against it."""
        if unit is not self._feeding or unit.phase != "driven":
            return
        unit.moves = False
        self.rammed = unit
        self.rams += 1

    def _riser_started(self, t: float) -> None:
        """A fresh start of the riser: T1 may pull a stalled card free."""
        unit = self.stalled
        if unit is None or unit not in self._units:
            return
        self.stalled = None
        if self.stall_frees and not self.curl_stalls:
            unit.moves = True
            unit.jam_mm = None
            # T1 pulls it on; it stays the feed's card until its tail leaves the nip
            unit.phase = "riser"
            unit.x0, unit.s0, unit.t = self._riser.pos(t), unit.s, t
        else:
            self.stalled = unit

    # --- the lid --------------------------------------------------------------------------

    def set_lid(self, closed: bool, now: float) -> None:
        """The player opens or closes the lid: open, no actuator has power (the feed and
        the riser run down, the servos stop where they are, the router's solenoid lets its
        spring return the flap to the lower bay); closed, each takes its command again."""
        t = now * self.speed
        self._advance(t)
        if closed == self.lid:
            return
        self.lid = closed
        self._cached = None
        frame = servo_frame_s(t)
        self._judge_clash(t)
        for door in (*self.doors.values(), self.press_lift, self.press_turn):
            door.power(t, closed, frame)
        for door in self.doors.values():
            self._note_swing(door)
        if closed:
            self._set_mode(self._feed_cmd, now)
            super().set_router(self._router_cmd, now)
            self._steer_riser(t)
            if self.riser_on:
                self._riser_started(t)
        else:
            self._set_mode("coast", now)
            super().set_router(Pile.LEFT, now)
            self._steer_riser(t)

    # --- the doors ------------------------------------------------------------------------

    def set_doors(self, bay: Bay, opened: bool, now: float) -> None:
        """Command `bay`'s door servo open or closed (as wired: swapped leads turn the other
        bay's doors; a dead servo none)."""
        t = now * self.speed
        self._advance(t)
        self.door_cmd[bay] = opened
        moved = bay.other if self.swapped_doors else bay
        self._cached = None
        if moved is self.dead_door:
            return
        door = self.doors[moved]
        was_open = door.target > 0
        self._judge_clash(t)
        door.command(t, DOOR_SWING_DEG if opened else 0.0, servo_frame_s(t))
        self._note_swing(door)
        if opened and not was_open and self.caught[moved]:
            self._catch_left -= 1

    # --- the press ------------------------------------------------------------------------

    def place_press(self, pose: PressPose) -> None:
        """Put the press at `pose` at once, its servos there (a machine just built)."""
        self.press_pose = pose
        self.press_lift.a0 = self.press_lift.target = (
            0.0 if pose is PressPose.DOWN else PRESS_LIFT_DEG)
        self.press_turn.a0 = self.press_turn.target = (
            PRESS_TURN_DEG if pose is PressPose.OUT else 0.0)

    @property
    def press_hits(self) -> int:
        """Times the lower doors' leaves and the press met in the shaft (the leaves
        swinging into the press, or the press coming in under leaves not yet shut)."""
        self._judge_clash(self._t)
        return self._press_hits

    @property
    def press_jams(self) -> int:
        """Times the press's turn moved it off the top of its lift (turned out before it was
        lifted there, or let down while turned out)."""
        self._judge_clash(self._t)
        return self._press_jams

    def _judge_clash(self, t: float) -> None:
        """Judge the lower leaves and the press, and the press's two servos, since the last
        judgement, up to `t`: each moves toward one commanded angle meanwhile, so each is in
        the other's way over one span at most."""
        t0, self._clash_t = self._clash_t, max(self._clash_t, t)
        if t <= t0:
            return
        turn = self.press_turn
        inside = _span(turn, t0, t, PRESS_TURN_CLEAR_DEG, above=False)
        leaves = _span(self.doors[Bay.LOWER], t0, t, LEAVES_CLEAR_DEG, above=True)
        hit, self._clashing = _meet(inside, leaves, t0, t, self._clashing)
        self._press_hits += hit
        # the turn's lever takes the press's pin only at the top of the lift: turned off
        # its rest with the press lower, or the lift lowered under a turned press, it jams
        turned = _span(turn, t0, t, 0.0, above=True)
        low = _span(self.press_lift, t0, t, PRESS_LIFT_DEG, above=False)
        jam, self._jamming = _meet(turned, low, t0, t, self._jamming)
        self._press_jams += jam

    def set_press(self, pose: PressPose, now: float) -> None:
        """Command the press's two servos to `pose` (each takes its time to get there)."""
        t = now * self.speed
        self._advance(t)
        self._judge_clash(t)
        self.press_pose = pose
        lift = self.press_lift
        lift.command(t, 0.0 if pose is PressPose.DOWN else PRESS_LIFT_DEG, servo_frame_s(t))
        self.press_turn.command(t, PRESS_TURN_DEG if pose is PressPose.OUT else 0.0,
                                servo_frame_s(t))
        self._cached = None
        # its weight leaves or reaches the tray's load cell when it gets there
        there = lift.time_to(lift.target)
        self._tray_change = max(self._tray_change, t if there is None else there)

    def press_down(self, t: float | None = None) -> bool:
        """True when the press bears on the deck: the lift's horn is under the press
        resting on the tray's deck (it goes on down to its rest, slack)."""
        deck = len(self.tray) * self.params.card_thickness_mm
        return press_holds_mm(self.press_lift.angle(self._t if t is None else t)) <= deck + 1e-9

    def press_out(self, t: float | None = None) -> bool:
        """True when the press is lifted and turned out of the doors' and piles' way."""
        at = self._t if t is None else t
        return (self.press_turn.angle(at) >= PRESS_TURN_DEG - 1e-9
                and self.press_lift.angle(at) >= PRESS_LIFT_DEG - 1e-9)

    def press_at(self, pose: PressPose, t: float | None = None) -> bool:
        """True when both the press's servos stand where `pose` puts them."""
        if pose is PressPose.OUT:
            return self.press_out(t)
        at = self._t if t is None else t
        return (self.press_turn.angle(at) <= 1e-9
                and (self.press_lift.angle(at) <= 1e-9 if pose is PressPose.DOWN
                     else self.press_lift.angle(at) >= PRESS_LIFT_DEG - 1e-9))

    def _feed_drive(self) -> design.DriveBuild:
        return self.drive if self.press_down() else self._bare_drive

    def door_open(self, bay: Bay, t: float | None = None) -> bool:
        """True when `bay`'s leaves are past the angle where a pile slips between them."""
        at = self._t if t is None else t
        return self.doors[bay].angle(at) >= self.slip_deg - 1e-9

    def _release(self, bay: Bay, t: float) -> None:
        """`bay`'s leaves reached the slip angle: its pile falls (less any caught)."""
        pile = self.piles[ROUTER_PILE[bay]]
        self._standing[ROUTER_PILE[bay]] = None  # it falls with its pile
        cards = list(pile)
        if self.caught[bay] and self._catch_left <= 0:
            cards += self.caught[bay]
            self.caught[bay] = []
        pile.clear()
        if not cards:
            return
        self.drops += 1
        if self.catch_at is not None and self.drops == self.catch_at:
            self.catch_at = None
            hang = min(self.catch_cards, len(cards))
            if hang:
                self.caught[bay] = cards[len(cards) - hang:] + self.caught[bay]
                cards = cards[:len(cards) - hang]
                self._catch_left = self.catch_frees
        skew = self.skew_at is not None and self.drops == self.skew_at
        if skew:
            self.skew_at = None
        if cards:
            self._start_drop(cards, bay, t, skew)

    def _start_drop(self, cards: list[int], bay: Bay, t: float, skew: bool = False) -> None:
        vt = terminal_speed_mm_s(len(cards), self.params.card_mass_kg, self.shaft, self.sp,
                                 self.card_width)
        drop = _Drop(cards, bay, self.shaft.doors_z_mm(bay), t, vt, skew=skew)
        if bay is Bay.UPPER:
            depth = self.shaft.upper_doors_z_mm - self._lower_top_z()
            drop.decide_at = t + fall(depth, vt)[0]
        else:
            self._aim(drop, "tray")
        self._drops.append(drop)

    def _lower_top_z(self) -> float:
        return self.shaft.lower_doors_z_mm + self._height(len(self.piles[Pile.LEFT]))

    def _height(self, cards: int) -> float:
        return cards * self.params.card_thickness_mm

    def _aim(self, drop: _Drop, onto: str) -> None:
        drop.onto = onto
        floor = (self._height(len(self.tray)) if onto == "tray" else self._lower_top_z())
        height = max(0.0, drop.z0 - floor)
        secs, speed = fall(height, drop.vt)
        drop.land_at, drop.land_speed = drop.t0 + secs, speed
        drop.decide_at = None

    def _land_drop(self, drop: _Drop, t: float) -> None:
        self._drops.remove(drop)
        height = drop.z0 - (self._height(len(self.tray)) if drop.onto == "tray"
                            else self._lower_top_z())
        self.landings.append(Landing(drop.bay, len(drop.cards), drop.onto, height,
                                     t - drop.t0, drop.land_speed))
        if drop.onto == "tray":
            self.tray[0:0] = drop.cards
            self._tray_change = t
            if drop.skew:
                self.skewed_pile = True
        else:
            lower = self.piles[Pile.LEFT]
            lower[0:0] = drop.cards
            if self.door_open(Bay.LOWER, t):
                # the lower doors opened under it meanwhile: it goes on falling
                self._release(Bay.LOWER, t)

    # --- motion ---------------------------------------------------------------------------

    def _take_next(self, t: float) -> None:
        super()._take_next(t)
        unit = self._feeding
        self._tray_change = t
        if unit is not None and self.stall_at is not None and self.fed >= self.stall_at:
            self.stall_at = None
            unit.jam_mm = self.stall_mm

    def _leave_roller(self, unit: _Unit, t: float) -> None:
        """Its tail leaves the nip: T1 (the riser) carries it on; the next card comes
        onto the feed roller."""
        unit.phase = "riser"
        unit.v = self._roller.speed(t) * unit.scale
        self.exit_speeds.append(unit.v)
        unit.x0, unit.s0 = self._riser.pos(t), unit.s
        self._tray_change = t
        if self.curl_stalls:
            # the curl holds it harder than T1 pulls: it stops, its tail at the nip, and
            # the feed roller turns under nothing
            unit.moves = False
            self.stalled = unit
            return
        self._take_next(t)
        if self.mode == "drive":
            self._steer(t)

    def _time_to(self, unit: _Unit, s_mark: float) -> float | None:
        if unit.phase == "riser":
            if not unit.moves:
                return None
            return self._riser.time_to(unit.x0 + (s_mark - unit.s0))
        return super()._time_to(unit, s_mark)

    def _stop_time(self, unit: _Unit) -> float | None:
        return None  # every stretch is driven: nothing coasts to a stop

    def _move(self, unit: Any, t: float) -> None:
        if not isinstance(unit, _Unit):
            return
        if unit.phase == "riser":
            if unit.moves:
                unit.s = unit.s0 + (self._riser.pos(t) - unit.x0)
            unit.t = t
            return
        super()._move(unit, t)

    def _find_next(self) -> Any:
        best = super()._find_next()
        for bay, door in self.doors.items():
            opening = door.target >= self.slip_deg
            if opening and (self.piles[ROUTER_PILE[bay]]
                            or (self.caught[bay] and self._catch_left <= 0)):
                at = door.time_to(self.slip_deg)
                if at is not None and at >= self._t - 1e-9 and (best is None or at < best[0]):
                    best = (at, ("open", bay), None)
        for drop in self._drops:
            at = drop.decide_at if drop.decide_at is not None else drop.land_at
            if best is None or at < best[0]:
                best = (at, drop, None)
        ram = self._ram_at()
        if ram is not None and (best is None or ram[0] < best[0]):
            best = (ram[0], ("ram", ram[1]), None)
        return best

    def _event(self, unit: Any, mark: float | None, t: float,
               edges: list[SensorEdge]) -> None:
        if isinstance(unit, tuple):
            if unit[0] == "ram":
                self._move(unit[1], t)
                self._ram(unit[1], t)
            else:
                self._release(unit[1], t)
            return
        if isinstance(unit, _Drop):
            if unit.decide_at is not None:
                self._aim(unit, "tray" if self.door_open(Bay.LOWER, t) else "lower")
            else:
                self._land_drop(unit, t)
            return
        if unit.jam_mm is not None and unit.s >= unit.jam_mm - 1e-7:
            unit.moves, unit.jam_mm = False, None  # caught in the curl
            self.stalled = unit
            return
        if unit.phase == "driven" and mark is not None and mark >= unit.length - 1e-7 \
                and unit.s >= unit.length - 1e-7:
            self._leave_roller(unit, t)
        elif unit is self._feeding and unit.s >= unit.length - 1e-7:
            # a card freed from a stall, its tail now out of the nip: the next card
            self._tray_change = t
            self._take_next(t)
            if self.mode == "drive":
                self._steer(t)
        if unit.pile is None and unit.s >= self.flap_mm - 1e-7:
            self._at_flap(unit, t)
        if unit.pile is None:
            return
        self._at_beam(unit, t, edges)
        self._past_flap(unit, t)
        if unit.s >= self._landing_mm(unit) - 1e-7:
            self._land(unit, t)

    def _landing_mm(self, unit: _Unit) -> float:
        """Where its leading edge is when its tail passes its bay's slot."""
        assert unit.pile is not None
        return self.land_mm[unit.pile.other if self.bays_swapped else unit.pile]

    def _at_beam(self, unit: _Unit, t: float, edges: list[SensorEdge]) -> bool:
        assert unit.pile is not None
        beam = self.beam_mm[unit.pile]
        under = beam - 1e-7 <= unit.s < beam + unit.length - 1e-7
        if under != unit.under:
            self._cover(unit, under, t, edges)
        return False

    def _land(self, unit: _Unit, t: float) -> None:
        """Its tail passes the bay's slot: it lies on top of the bay's pile (or falls on
        through the bay's open doors)."""
        pile = unit.pile
        assert pile is not None
        if self.bays_swapped:
            pile = pile.other  # its beam was the other bay's, its bay is this one
        self._units.remove(unit)
        unit.phase = "landed"
        bay = BAY_OF_PILE[pile]
        # driven into the bay by its branch's rollers, it meets the end wall at the riser's
        # speed (the few mm it slides on the pile take little of it)
        wall = self._riser.speed(t)
        self.wall_speeds.append(wall)
        if self.door_open(bay, t):
            self._start_drop(list(unit.cards), bay, t)
            return
        self._onto_pile(unit, pile, wall)  # standing up as on the Lotus build, if too fast

    # --- sensors --------------------------------------------------------------------------

    def next_event(self) -> float | None:
        nxt = super().next_event()
        ready = self._reading_ready_at()
        if ready > self._t + 1e-9:
            ready /= self.speed
            nxt = ready if nxt is None else min(nxt, ready)
        return nxt

    def _tray_count(self) -> int:
        unit = self._feeding
        return len(self.tray) + (len(unit.cards) if unit is not None
                                 and unit.s - unit.length < 0 else 0)

    def _reading_ready_at(self) -> float:
        return self._tray_change + self.sp.settle_s + CELL_WEIGH_S

    def doors_hold(self, bay: Bay) -> bool:
        """The door sensor: a pile on `bay`'s doors (with any cards caught on them) stands
        high enough to break its beam (`ShaftGeometry.door_beam_top_mm`)."""
        cards = len(self.piles[ROUTER_PILE[bay]]) + len(self.caught[bay])
        return cards > 0 and self._height(cards) >= self.shaft.door_beam_top_mm - 1e-9

    def _note_swing(self, door: _Door) -> None:
        """Keep when `door` swings toward its target (nothing if it is there or unpowered)."""
        if not door.powered or door.angle(door.start) == door.target:
            return
        rate = door.rate if door.target >= door.a0 else door.back
        self._door_swings.append((door.start, door.start + abs(door.target - door.a0) / rate))
        self._door_swings = self._door_swings[-8:]

    def doors_swung(self, t0: float, t1: float) -> bool:
        """True when any bay's doors swung at some moment between `t0` and `t1` (machine
        time)."""
        return any(a < t1 - 1e-9 and b > t0 + 1e-9 for a, b in self._door_swings)

    def tray_cards(self, now: float) -> float | None:
        """The load cell as a count of cards, or None while the tray has changed within the
        settle and weighing time."""
        t = now * self.speed
        self._advance(t)
        if t < self._reading_ready_at() - 1e-9:
            return None
        noise = self.rng.gauss(0.0, self.sp.cell_noise_g / math.sqrt(CELL_SAMPLES))
        grams = self._tray_count() * self.card_g + noise
        if self.doors_swung(t - CELL_WEIGH_S, t):
            grams += self.rng.uniform(-1.0, 1.0) * self.sp.door_shake_g
        if self.press_down(t):
            grams += self.press_g  # the press rests on the deck, on the tray
        return grams / self.card_weight_g

    def skewed(self, now: float | None = None) -> bool:
        """The skew beam (z = skew_beam_z_mm): broken by a skewed pile, a deck higher than
        it, or a pile falling past it."""
        if now is not None:
            self._advance(now * self.speed)
        z = self.shaft.skew_beam_z_mm
        if self.skewed_pile or self._height(len(self.tray)) >= z:
            return True
        for drop in self._drops:
            bottom = drop.z0 - _fall_depth(max(0.0, self._t - drop.t0), drop.vt)
            if bottom <= z <= bottom + self._height(len(drop.cards)):
                return True
        return False

    # --- the player -----------------------------------------------------------------------

    def take_stalled(self) -> None:
        """Take the card stuck on the riser out and lay it on the deck in the tray."""
        self._cached = None
        self._bring_all()
        unit = self.stalled
        if unit is None:
            return
        self.stalled = None
        self._units.remove(unit)
        if unit is self._feeding:
            self._feeding = None
        self.tray[0:0] = list(unit.cards)
        self._tray_change = self._t

    def free_caught(self) -> None:
        """Free cards caught on a leaf: they go down on the deck in the tray."""
        self._cached = None
        for bay in (Bay.LOWER, Bay.UPPER):
            if self.caught[bay]:
                self.tray[0:0] = self.caught[bay]
                self.caught[bay] = []
                self._tray_change = self._t

    def square_deck(self) -> None:
        """Square the deck in the tray (a skewed pile lies flat again)."""
        self.skewed_pile = False

    def bay_pile(self, bay: Bay) -> list[int]:
        """The cards lying on `bay`'s doors, top first."""
        return list(self.piles[ROUTER_PILE[bay]])

    def deck(self) -> list[int]:
        """Every card, top first as a deck would be gathered: the upper bay, the lower bay,
        the piles falling, the cards on the path (the latest fed first), then the tray."""
        falling = [c for drop in self._drops for c in drop.cards]
        path = [c for unit in reversed(self._units) for c in unit.cards]
        return (self.caught[Bay.UPPER] + self.piles[Pile.RIGHT] + self.caught[Bay.LOWER]
                + self.piles[Pile.LEFT] + falling + path + self.tray)

    def settled(self) -> bool:
        """True when nothing will move without a command: no card the riser carries, no
        pile falling or about to fall (a card held by a stopped feed or riser, or stalled,
        stays where it is)."""
        return self._next() is None

    def card_s(self, card: int) -> float | None:
        """Where the leading edge of `card`'s unit is along the path now (mm from the nip),
        or None when it is not on the path."""
        for unit in self._units:
            if card in unit.cards:
                self._move(unit, self._t)
                return unit.s
        return None


class HandsFreeTableMechanism(_TableMechanism):
    """The controller's Mechanism and the shaft.Shaft over a HandsFreeTable."""

    table: HandsFreeTable

    def __init__(self, table: HandsFreeTable, clock: Clock, filter_s: float = 0.0) -> None:
        super().__init__(table, clock, filter_s)

    def close(self) -> None:
        super().close()
        self.table.set_riser(False, self._clock.monotonic())

    def set_motor(self, on: bool) -> None:
        if not on and not self.table.lid:
            # no power to brake with: the command stands for when the lid closes
            self._release_at = None
            self.table.set_motor(False, self._clock.monotonic())
            return
        super().set_motor(on)

    def set_riser(self, on: bool) -> None:
        self.table.set_riser(on, self._clock.monotonic())

    def set_riser_duty(self, duty: float) -> None:
        self.table.set_riser_duty(duty, self._clock.monotonic())

    def set_doors(self, bay: Bay, opened: bool) -> None:
        self.table.set_doors(bay, opened, self._clock.monotonic())

    def set_press(self, pose: PressPose) -> None:
        self.table.set_press(pose, self._clock.monotonic())

    def doors_hold(self, bay: Bay) -> bool:
        self.table._advance(self._clock.monotonic() * self.table.speed)
        return self.table.doors_hold(bay)

    def tray_cards(self) -> float | None:
        return self.table.tray_cards(self._clock.monotonic())

    def skewed(self) -> bool:
        return self.table.skewed(self._clock.monotonic())

    def lid_closed(self) -> bool:
        return self.table.lid


