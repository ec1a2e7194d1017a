"""The pace of a shuffler build: a card's cycle, a pass and a whole shuffle, from the card
speed (measured by `crib shuffler calibrate`, or the default build's as its simulated
calibration measures it) and the router's and sensors' times in hardware.shuffler.design.

Above the physics and the simulator (the default card speed is what the simulated machine
measures), so design.py stays pure data and arithmetic that everything else may import.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hardware.shuffler import design

if TYPE_CHECKING:
    from hardware.shuffler.ranges import Params


def default_card_speed_mm_s(drive: design.DriveBuild = design.DEFAULT_DRIVE,
                            cards: int = 52) -> float:
    """The default card speed: a card's speed past the beams at the middle of a deck of
    `cards`, at the middle of every range (hardware.shuffler.ranges.NOMINAL) on the default
    geometry, as `crib shuffler calibrate` measures the simulated machine (both piles
    averaged over time: a harmonic mean, a slow pile's cards take longer). The one figure the
    pace table and an uncalibrated machine's timing start from."""
    return measured_card_speed_mm_s(drive, cards=cards)


def measured_card_speed_mm_s(drive: design.DriveBuild = design.DEFAULT_DRIVE,
                             params: Params | None = None, cards: int = 52,
                             router_settle_s: float = design.DEFAULT_ROUTER.settle_s) -> float:
    """A card's speed past the beams at the middle of a deck of `cards`, as `crib shuffler
    calibrate` measures the simulated machine of `drive` at `params` (a corner of
    hardware.shuffler.ranges; None: the middle of every range) on the default geometry with
    the drive's own roller (harmonic mean of both piles)."""
    return _measured(drive, params, cards, round(router_settle_s, 9))


@functools.lru_cache(maxsize=1024)
def _measured(drive: design.DriveBuild, params: Params | None, cards: int,
              settle_s: float) -> float:
    from hardware.shuffler.cad.params import Geometry
    from hardware.shuffler.plan import Pile
    from hardware.shuffler.ranges import NOMINAL
    from hardware.shuffler.simulator import ShufflerTable, measured_timing

    p = NOMINAL if params is None else params
    geometry = Geometry()
    if geometry.roller_diameter != drive.roller_diameter_mm:
        geometry = geometry.with_(roller_diameter=drive.roller_diameter_mm)
    table = ShufflerTable(drive=drive, params=p.with_(cards=cards), geometry=geometry)
    timing = measured_timing(table, settle_s, cards)
    mid = (cards + 1) // 2
    left, right = timing.card_speed(Pile.LEFT, mid), timing.card_speed(Pile.RIGHT, mid)
    return 2.0 / (1.0 / left + 1.0 / right)


@dataclass(frozen=True, slots=True)
class Pace:
    """One card's cycle and a pass's time on a build, from its numbers (seconds)."""

    feed_speed_mm_s: float
    transit_s: float  # the card past the beam: length / speed
    flight_s: float  # motor on to the beam (motor start + nip-to-beam / speed)
    filter_s: float  # the sensors' filter delays seeing the beam change
    same_wait_s: float  # after a card is seen, before the next to the same pile is fed:
    # the card clears its beam (its transit; the clear is seen a filter late, as the arrival)
    other_wait_s: float  # ... before the next to the other pile is fed (the router moves)
    router_moves: float  # share of cards for which the router moves (coin routing: 1/2)
    # A build whose feed runs on into the next card to the same pile (the hands-free
    # build's): from one card at its beam to that next card at its beam. None: it stops.
    run_on_s: float | None = None

    @property
    def gap_s(self) -> float:
        """From one card seen at its beam to the next card's feed, on average."""
        return (self.router_moves * self.other_wait_s
                + (1.0 - self.router_moves) * self.same_wait_s)

    @property
    def card_s(self) -> float:
        """One card's whole cycle, from one card seen at its beam to the next: the wait, then
        the next card's flight, seen a filter late; on average over the router's moves (a
        card to the same pile follows on, where the build runs on)."""
        fly = self.flight_s + self.filter_s
        same = self.same_wait_s + fly if self.run_on_s is None else self.run_on_s
        return self.router_moves * (self.other_wait_s + fly) + (1.0 - self.router_moves) * same

    def pass_s(self, cards: int) -> float:
        """A pass of `cards` cards: the first card's flight, each next card's cycle, and the
        last clears its beam (its transit)."""
        if cards <= 0:
            return 0.0
        return self.flight_s + self.filter_s + (cards - 1) * self.card_s + self.transit_s

    def shuffle_s(self, cards: int, passes: int, restack_s: float = design.RESTACK_S) -> float:
        """A whole shuffle: every pass, and the player's restack between passes and after
        the last (the piles are stacked into one deck)."""
        return passes * (self.pass_s(cards) + restack_s)


def pace(drive: design.DriveBuild = design.DEFAULT_DRIVE,
         router: design.RouterBuild = design.DEFAULT_ROUTER,
         feed_speed_mm_s: float | None = None, router_settle_s: float | None = None,
         filter_s: float | None = None) -> Pace:
    """The pace of a build (or of a machine whose card speed was measured, with its router's
    settle time and its sensors' filter, when they are set)."""
    v = default_card_speed_mm_s(drive) if feed_speed_mm_s is None else feed_speed_mm_s
    settle = router.settle_s if router_settle_s is None else router_settle_s
    filt = design.sensor_filter_s(v) if filter_s is None else filter_s
    return Pace(
        feed_speed_mm_s=v,
        transit_s=design.card_transit_s(v),
        flight_s=design.flight_s(v, drive.motor_start_s),
        filter_s=filt,
        same_wait_s=design.card_transit_s(v),
        other_wait_s=design.other_pile_wait_s(v, settle, drive.motor_start_s, filt),
        router_moves=0.5,
    )


def plan_passes(cards: int) -> dict[str, int]:
    """Passes of each plan for a deck, as the planner makes them (default target)."""
    from hardware.shuffler.plan import make_plan

    return {name: make_plan(cards, name).passes for name in ("exact", "random", "light")}


def pace_line(cards: int, plan: str, passes: int, p: Pace | None = None,
              restack_s: float = design.RESTACK_S) -> str:
    """One line for a player: what a pass and the whole shuffle of a plan take."""
    p = p or pace()
    whole = p.shuffle_s(cards, passes, restack_s)
    word = "pass" if passes == 1 else "passes"
    return (f"{plan}: {passes} {word} of {cards} cards, about {p.pass_s(cards):.0f} s a pass, "
            f"{_minutes(whole)} in all with {restack_s:.0f} s to restack each pass "
            f"(cards at {p.feed_speed_mm_s / 1000:.2f} m/s)")


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.1f} min"
