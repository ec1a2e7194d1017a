"""What one pass does to a deck, how an imperfect machine routes cards, and the physics
the timed simulator runs on (the feed's load and grip, the motor, the coast, the gate, the
landing).

Shared by the timed simulator, the controller, the audit's fast path and the hands-free
model, so all of them follow the same machine. A deck is a list of card ids, index 0 the top
card. The tray is bottom-fed: the roller drives the deck's bottom card, so the bottom card
leaves first, and each card lands on top of its pile. A pile so keeps its cards in the
deck's own order (no reversal), and stacking the named pile on the other makes a pass a
stable two-pile split.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hardware.errors import ShufflerError
from hardware.shuffler import design
from hardware.shuffler.plan import Pile

# A card's timing comes from the machine in front of it: its card speed (`[shuffler]
# feed_speed_mm_s`, measured by `crib shuffler calibrate`, else the default build's arithmetic
# in hardware.shuffler.design). Nothing here assumes one machine.
CARD_LENGTH_MM = design.CARD_LENGTH_MM


def card_transit_s(feed_speed_mm_s: float, card_length_mm: float = CARD_LENGTH_MM) -> float:
    """Seconds a card blocks a sensor it passes at the feed speed.

    Raises ShufflerError for a speed or length that is not above 0.
    """
    try:
        return design.card_transit_s(feed_speed_mm_s, card_length_mm)
    except ValueError as exc:
        raise ShufflerError(str(exc)) from None


def default_sensor_filter_ms(feed_speed_mm_s: float) -> float:
    """The card sensors' glitch filter at a card speed, in ms (design.sensor_filter_s)."""
    card_transit_s(feed_speed_mm_s)  # raises for a bad speed
    return round(design.sensor_filter_s(feed_speed_mm_s) * 1000.0, 1)


def feed_order(deck: Sequence[int]) -> tuple[int, ...]:
    """The cards of `deck` (top first) in the order the roller feeds them: the bottom first."""
    return tuple(reversed(deck))


def deal(deck: Sequence[int], piles: Sequence[Pile]) -> dict[Pile, tuple[int, ...]]:
    """Each pile, top first, after feeding `deck` (top first) from the bottom and the i-th
    card fed landing on top of piles[i]: a pile holds its cards in the deck's order.

    Raises ShufflerError when there is not one pile per card.
    """
    if len(piles) != len(deck):
        raise ShufflerError(f"{len(piles)} piles given for a deck of {len(deck)} cards")
    landed: dict[Pile, list[int]] = {Pile.LEFT: [], Pile.RIGHT: []}
    for card, pile in zip(feed_order(deck), piles, strict=True):
        landed[pile].append(card)  # on top of the cards landed before it
    return {pile: tuple(reversed(cards)) for pile, cards in landed.items()}


def deal_and_stack(deck: Sequence[int], piles: Sequence[Pile], top_pile: Pile) -> list[int]:
    """The deck (top first) after feeding it from the bottom, the i-th card fed to piles[i],
    and stacking `top_pile` on the other: its cards, then the other's, each in the order
    they had in `deck`.

    Raises ShufflerError when there is not one pile per card.
    """
    dealt = deal(deck, piles)
    return [*dealt[top_pile], *dealt[top_pile.other]]


@dataclass(frozen=True, slots=True)
class MachineModel:
    """An imperfect machine: split bias p (share sent left), clumping q (share of cards that
    land in the same pile as the card before), symmetric misroute rate, double-feed rate.

    p = q = 0.5 and zero rates is the ideal machine. Raises ShufflerError for values
    outside [0, 1].
    """

    p: float = 0.5
    q: float = 0.5
    misroute: float = 0.0
    double_feed: float = 0.0

    def __post_init__(self) -> None:
        for name in ("p", "q", "misroute", "double_feed"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ShufflerError(f"machine model {name} must be between 0 and 1, got {value}")

    @property
    def ideal(self) -> bool:
        return self.p == 0.5 and self.q == 0.5 and self.misroute == 0 and self.double_feed == 0

    def actual_pile(
        self, commanded: Pile, previous: Pile | None, rng: random.Random
    ) -> Pile:
        """Where a card commanded to `commanded` really lands, given the previous card's pile.

        Clumping models flipper lag: with probability 2q - 1 the card follows the previous
        one (q < 0.5: goes the other way with probability 1 - 2q); bias then pushes cards
        toward one side; a misroute sends a card to the other pile.
        """
        pile = commanded
        if previous is not None and self.q != 0.5:
            if self.q > 0.5:
                if rng.random() < 2 * self.q - 1:
                    pile = previous
            elif rng.random() < 1 - 2 * self.q:
                pile = previous.other
        if self.p < 0.5 and pile is Pile.LEFT and rng.random() < 1 - 2 * self.p:
            pile = Pile.RIGHT
        elif self.p > 0.5 and pile is Pile.RIGHT and rng.random() < 2 * self.p - 1:
            pile = Pile.LEFT
        if self.misroute and rng.random() < self.misroute:
            pile = pile.other
        return pile


# --- the machine's physics ---------------------------------------------------------------
# The timed simulator (hardware.shuffler.simulator) runs on these; the parameters and their
# ranges are in hardware.shuffler.ranges, the drive's figures in hardware.shuffler.design,
# the path's lengths and slopes in hardware.shuffler.cad.params (pure Python).

G = 9.81  # m/s^2

# Separation at the gate, in card thicknesses of the opening over what the card rests on:
# below one card the bottom card butts the blade and nothing feeds; above about 1.5 the card
# above it is dragged through with it (docs/shuffler-mechanics.md: a gate a little over one
# card, about 1.3-1.6 thicknesses; the "about 1.5").
SEPARATION_MIN_CARDS = 1.0
SEPARATION_DRAG_CARDS = 1.5
# Two cards dragged through together leave shingled, the second about half a card behind:
# the beam sees one block 1.5 cards long (estimate, as the controller's double-feed test).
DOUBLE_SPAN = 1.5

# The landing. A card reaching its bay's end wall stops there; the wall turns part of its
# kinetic energy into pivoting the card up about its leading edge. It stands against the
# wall when that lifts its centre as high as leaning at STAND_ANGLE_DEG needs.
# Estimates: against the bare printed wall half of the energy goes into the pivot (the rest
# into the wall and the card's bending); against a felt pad on the wall (the default build,
# design.END_WALL_PAD_MM) about a seventh, the pad taking the rest; a card leaning at 60
# degrees or more stays up against the wall.
STAND_ENERGY_SHARE = 0.5
STAND_ENERGY_SHARE_PADDED = 0.15
STAND_ANGLE_DEG = 60.0


def tyre_share(geometry: object) -> float:
    """The share of the deck's weight on the tyre: a stiff deck resting on the tyre's top
    at the nip (x = 0) and on the tray floor under its rear edge, its front edge against the
    tray's front wall (`gate_setback` ahead of the nip). A deck of loose cards is that stiff
    over a card's length: lifted 0.8 mm at one end it bends over more than 100 mm.
    """
    front = float(geometry.gate_setback)  # type: ignore[attr-defined]
    length = float(geometry.card_length)  # type: ignore[attr-defined]
    rear, centre = front - length, front - length / 2
    if rear >= 0:  # the whole deck ahead of the nip: nothing rests on the tyre
        return 0.0
    return max(0.0, min(1.0, (centre - rear) / (0.0 - rear)))


@dataclass(frozen=True, slots=True)
class FeedLoad:
    """What the tyre must overcome to move the bottom card, and what it can give (N)."""

    load_n: float  # friction the bottom card meets: card above, floor, the press
    traction_n: float  # the tyre's grip: tyre-on-card friction x its normal force

    @property
    def slips(self) -> bool:
        return self.load_n >= self.traction_n


def feed_load(params: Any, above: int, drive: design.DriveBuild, share: float) -> FeedLoad:
    """The load on the bottom card with `above` cards over it (the press on top).

    The whole weight above and the press bear on the bottom card (card on card); the part
    of the deck's weight not on the tyre bears on the floor (card on PETG); the press sits
    over the tyre. With no card above, the press's foot rubs the card itself (PETG on card).
    """
    w = params.card_mass_kg * G
    deck = (above + 1) * w
    press = drive.press_n
    top = params.mu_card_card * (above * w + press) if above else params.mu_card_petg * press
    load = top + params.mu_card_petg * (1.0 - share) * deck
    traction = params.mu_tyre_card * (share * deck + press)
    return FeedLoad(load, traction)


def roller_speed_mm_s(params: Any, above: int, drive: design.DriveBuild,
                      share: float) -> float:
    """The tyre's surface speed, and so the bottom card's, with `above` cards over it: 0 when
    the tyre slips under the card or the motor stalls."""
    f = feed_load(params, above, drive, share)
    if f.slips:
        return 0.0
    return drive.speed_under_mm_s(f.load_n, params.supply_v, params.motor_speed,
                                  params.motor_torque)


def coast_accel_mm_s2(slope_deg: float, mu: float) -> float:
    """A card sliding down a slope (degrees, downhill positive) at friction mu: g (sin a -
    mu cos a), in mm/s^2 (below 0 it slows)."""
    a = math.radians(slope_deg)
    return G * 1000.0 * (math.sin(a) - mu * math.cos(a))


def cards_fed(gap_mm: float, thickness_mm: float) -> int:
    """How many cards leave the tray on one feed through a gate opening of `gap_mm` over
    what the card rests on: 0 (the card butts the blade), 1, or 2 (one dragged along)."""
    ratio = gap_mm / thickness_mm
    if ratio < SEPARATION_MIN_CARDS:
        return 0
    return 2 if ratio > SEPARATION_DRAG_CARDS + 1e-9 else 1


def stand_up_speed_mm_s(card_length_mm: float = CARD_LENGTH_MM,
                        padded: bool | None = None) -> float:
    """The speed at the end wall above which a card stands up against it (`padded`: a felt
    pad on the wall; None: as the default build, design.END_WALL_PAD_MM)."""
    if padded is None:
        padded = design.END_WALL_PAD_MM > 0
    share = STAND_ENERGY_SHARE_PADDED if padded else STAND_ENERGY_SHARE
    rise = card_length_mm / 2000.0 * math.sin(math.radians(STAND_ANGLE_DEG))
    return math.sqrt(2.0 * G * rise / share) * 1000.0


def nominal_roller_speed_mm_s(drive: design.DriveBuild, cards: int = 52) -> float:
    """The tyre's speed under the middle card of a deck of `cards` at the middle of every
    range, on the default geometry (the arithmetic alone, no path)."""
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.ranges import NOMINAL

    return roller_speed_mm_s(NOMINAL, cards // 2, drive, tyre_share(Geometry()))


def reaches_bay(geometry: Any, pile: str, exit_mm_s: float, mu_petg: float,
                card_length_mm: float = CARD_LENGTH_MM) -> bool:
    """Whether a card leaving the roller (its tail at the nip) at `exit_mm_s` coasts, its
    centre over each stretch in turn, until its centre passes the branch's outlet and it
    drops into the bay (the first card: the bay's floor is PETG too)."""
    path = geometry.card_path(pile)
    outlet = sum(seg.length_mm for seg in path.segments[:3])
    centre, v2, start = card_length_mm / 2, exit_mm_s ** 2, 0.0
    for seg in path.segments[:3]:
        end = start + seg.length_mm
        if end > centre:
            run = min(end, outlet) - max(start, centre)
            v2 += 2 * coast_accel_mm_s2(seg.slope_deg, mu_petg) * run
            if v2 <= 0:
                return False
            centre = min(end, outlet)
        start = end
    return True


def slowest_card_speed_mm_s(geometry: Any, mu_petg: float) -> float:
    """The slowest speed off the roller at which a card still reaches each bay, at a
    card-on-PETG friction (0 when every stretch after the roller carries a card on)."""
    lo, hi = 0.0, 5000.0
    if all(reaches_bay(geometry, pile, 1e-6, mu_petg) for pile in ("left", "right")):
        return 0.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if all(reaches_bay(geometry, pile, mid, mu_petg) for pile in ("left", "right")):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True, slots=True)
class FeedMargins:
    """How a drive stands against the worst deck over every corner of the ranges: the
    motor's stall force over the load (torque) and the tyre's grip over the load (grip),
    each the least over every corner and deck, for the first card (the whole deck over it)
    and the last; and the corner where the torque is least."""

    torque: float
    grip: float
    worst: Any


def feed_margins(drive: design.DriveBuild, share: float | None = None) -> FeedMargins:
    """The drive's least torque and grip margins over hardware.shuffler.ranges.corners()
    (both decks), on the default geometry's tyre share unless given."""
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.ranges import corners

    share = tyre_share(Geometry()) if share is None else share
    torque, grip, worst = float("inf"), float("inf"), None
    for p in corners():
        stall = drive.stall_force_n(p.supply_v, p.motor_torque)
        for above in (0, p.cards - 1):
            f = feed_load(p, above, drive, share)
            if stall / f.load_n < torque:
                torque, worst = stall / f.load_n, p
            grip = min(grip, f.traction_n / f.load_n)
    return FeedMargins(torque, grip, worst)
