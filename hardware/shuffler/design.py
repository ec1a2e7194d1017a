"""The default shuffler build's drive, router and card numbers, and the pace they give: one
source for the CAD, the timing model, the simulator and the docs' arithmetic.

Pure data and arithmetic (no CAD library, no I/O), so the Pi imports it freely.

The controller feeds one card at a time: router set (and settled by the time the card's
leading edge reaches the flap), motor on, the card travels from the gate to its pile's beam,
the motor stops, the card passes the beam, the beam clears, the next card. So a card's cycle
is its flight from the gate to the beam, its transit past the beam, and the gap: the motor's
start, the sensors' filter, and the part of the router's move that the flight cannot hide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Playing cards: every size the tray and the path take.
CARD_LENGTH_MM = 88.9
POKER_WIDTH_MM = 63.5
BRIDGE_WIDTH_MM = 57.2
CARD_THICKNESS_MIN_MM = 0.28
CARD_THICKNESS_MAX_MM = 0.32

# The card path, from the feed roller's nip along the card's travel. The beam sits a little
# more than a card beyond the nip, so the motor stops (when the beam sees the card's leading
# edge) only once the card has left the roller; the flap sits between them.
NIP_CLEARANCE_MM = 6.0
NIP_TO_BEAM_MM = CARD_LENGTH_MM + NIP_CLEARANCE_MM
NIP_TO_FLAP_MM = 40.0

# What a player takes to square the two piles and put the deck back in the tray.
RESTACK_S = 4.0


@dataclass(frozen=True, slots=True)
class DriveBuild:
    """The feed drive as built: motor speed under load and the roller's outside diameter.

    Raises ValueError for a speed or diameter that is not above 0.
    """

    motor_rpm_loaded: float = 850.0  # N20 6 V 1000 rpm gearmotor, about 85 % of no-load speed
    roller_diameter_mm: float = 30.0  # printed hub with its rubber tyre, outside diameter
    # An N20 reaches speed within a few of its ~10 ms mechanical time constants; about this
    # much of each start is lost against a motor already at speed.
    motor_start_s: float = 0.010

    def __post_init__(self) -> None:
        if not (self.motor_rpm_loaded > 0 and self.roller_diameter_mm > 0
                and self.motor_start_s >= 0):
            raise ValueError(
                f"motor speed and roller diameter must be above 0, got "
                f"{self.motor_rpm_loaded} rpm and {self.roller_diameter_mm} mm"
            )

    @property
    def surface_speed_mm_s(self) -> float:
        """The roller's surface speed, which is the card's feed speed (no slip)."""
        return math.pi * self.roller_diameter_mm * self.motor_rpm_loaded / 60.0


@dataclass(frozen=True, slots=True)
class RouterBuild:
    """The pile router: how long from its command until the flap is still.

    A servo waits for its next 20 ms frame, then turns at its rated speed (an SG90: about
    0.1 s per 60 degrees at 4.8 V) through the swing, then rings for a moment; a push-pull
    solenoid pulls in (or springs back) in about 15 ms. Raises ValueError for a negative time.
    """

    kind: str = "solenoid"
    swing_deg: float = 0.0  # servo only: from one pile's angle to the other's
    seconds_per_60_deg: float = 0.1
    frame_s: float = 0.020
    pull_in_s: float = 0.015  # solenoid: full power this long, then the holding power
    ring_s: float = 0.005  # the flap stops bouncing

    def __post_init__(self) -> None:
        if self.kind not in ("servo", "solenoid"):
            raise ValueError(f"router kind must be servo or solenoid, got {self.kind!r}")
        if min(self.swing_deg, self.seconds_per_60_deg, self.frame_s, self.pull_in_s,
               self.ring_s) < 0:
            raise ValueError("router times and swing must be 0 or more")

    @property
    def settle_s(self) -> float:
        """From the command to a still flap."""
        if self.kind == "servo":
            return self.frame_s + self.swing_deg / 60.0 * self.seconds_per_60_deg + self.ring_s
        return self.pull_in_s + self.ring_s


DEFAULT_DRIVE = DriveBuild()
# The default build routes with an SG90 servo on a 24-degree swing (the printed router holds
# one; it needs no holding current and costs a quarter of a solenoid): 75 ms from command to
# a still flap, of which the card's flight to the flap hides 30 ms at the default speed. A
# 5 V push-pull solenoid settles in 20 ms, all of it hidden: about 1.2 s less a pass.
SERVO_ROUTER = RouterBuild(kind="servo", swing_deg=24.0, ring_s=0.015)
SOLENOID_ROUTER = RouterBuild()
DEFAULT_ROUTER = SERVO_ROUTER


def card_transit_s(feed_speed_mm_s: float, card_length_mm: float = CARD_LENGTH_MM) -> float:
    """Seconds a card blocks a beam it passes at the feed speed (length / speed).

    Raises ValueError for a speed or length that is not above 0.
    """
    if not (feed_speed_mm_s > 0 and card_length_mm > 0):
        raise ValueError(
            f"feed speed and card length must be above 0, got {feed_speed_mm_s} mm/s and "
            f"{card_length_mm} mm"
        )
    return card_length_mm / feed_speed_mm_s


def flight_s(feed_speed_mm_s: float, start_s: float = DEFAULT_DRIVE.motor_start_s) -> float:
    """From motor on to the card's leading edge at its pile's beam."""
    return start_s + NIP_TO_BEAM_MM / feed_speed_mm_s


def router_wait_s(settle_s: float, feed_speed_mm_s: float) -> float:
    """How long the feed waits after a router move: the flap need only be still when the
    card's leading edge reaches it, so the flight from the nip to the flap is not waited."""
    return max(0.0, settle_s - NIP_TO_FLAP_MM / feed_speed_mm_s)


def sensor_filter_s(feed_speed_mm_s: float) -> float:
    """The pile sensors' glitch filter: a sixth of a card's transit (a card is always seen,
    and its edge's chatter never is), at most 15 ms (an optical sensor chatters for 1-5 ms;
    LeShuffler's firmware filters 15 ms), in whole tenths of a ms."""
    return round(min(card_transit_s(feed_speed_mm_s) / 6.0, 0.015), 4)


@dataclass(frozen=True, slots=True)
class Pace:
    """One card's cycle and a pass's time on a build, from its numbers (seconds)."""

    feed_speed_mm_s: float
    transit_s: float  # the card past the beam: length / speed
    flight_s: float  # motor on to the beam (motor start + nip-to-beam / speed)
    filter_s: float  # the sensors' filter delays seeing the beam clear
    router_wait_s: float  # per router move, what the flight does not hide
    router_moves: float  # share of cards for which the router moves (coin routing: 1/2)

    @property
    def gap_s(self) -> float:
        """Between one card clearing the beam and the next being fed, on average, plus the
        motor's start: what a card costs beyond its own travel."""
        return self.filter_s + self.router_moves * self.router_wait_s + DEFAULT_DRIVE.motor_start_s

    @property
    def card_s(self) -> float:
        """One card's whole cycle."""
        moves = self.router_moves * self.router_wait_s
        return self.flight_s + self.transit_s + self.filter_s + moves

    def pass_s(self, cards: int) -> float:
        """A pass of `cards` cards."""
        return cards * self.card_s

    def shuffle_s(self, cards: int, passes: int, restack_s: float = RESTACK_S) -> float:
        """A whole shuffle: every pass, and the player's restack between passes and after
        the last (the piles are stacked into one deck)."""
        return passes * (self.pass_s(cards) + restack_s)


def pace(drive: DriveBuild = DEFAULT_DRIVE, router: RouterBuild = DEFAULT_ROUTER,
         feed_speed_mm_s: float | None = None, router_settle_s: float | None = None,
         filter_s: float | None = None) -> Pace:
    """The pace of a build (or of a machine whose card speed was measured, with its router's
    settle time and its sensors' filter, when they are set)."""
    v = drive.surface_speed_mm_s if feed_speed_mm_s is None else feed_speed_mm_s
    settle = router.settle_s if router_settle_s is None else router_settle_s
    return Pace(
        feed_speed_mm_s=v,
        transit_s=card_transit_s(v),
        flight_s=flight_s(v, drive.motor_start_s),
        filter_s=sensor_filter_s(v) if filter_s is None else filter_s,
        router_wait_s=router_wait_s(settle, v),
        router_moves=0.5,
    )


def plan_passes(cards: int) -> dict[str, int]:
    """Passes of each plan for a deck, as the planner makes them (default target)."""
    from hardware.shuffler.plan import make_plan

    return {name: make_plan(cards, name).passes for name in ("exact", "random", "light")}


def pace_line(cards: int, plan: str, passes: int, p: Pace | None = None,
              restack_s: float = RESTACK_S) -> str:
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
