"""The default shuffler build's drive, router and card numbers, and the pace they give: one
source for the CAD, the timing model, the simulator and the docs' arithmetic.

Pure data and arithmetic (no CAD library, no I/O), so the Pi imports it freely.

The controller feeds one card at a time and overlaps the cards' travel: motor on, the card
travels from the gate to its pile's beam, the motor stops (the card has just left the
roller), and the next card may start while the last one is still passing its beam. The
next card waits only for what keeps each guarantee: when it goes to the same pile, until the
last card has cleared that pile's beam (so the beam never sees two cards as one block, and a
double feed's long block is judged before the next card comes); when it goes to the other
pile, until the last card's tail has left the flap and the router has moved and settled
before its leading edge reaches the flap (`other_pile_wait_s`; every time allows each card
to be `SPEED_TOLERANCE` slower or faster than the machine's card speed). At most one card is
in flight and one other is passing a beam. So a card's cycle is its flight from the gate to
the beam and that wait.
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

# The card path, from the feed roller's nip along the card's travel: the one source of these
# lengths for the timing and the CAD. Each pile's beam sits a little more than a card beyond
# the nip along its branch, so the motor stops (when the beam sees the card's leading edge)
# once the card has left the roller and before the roller can take the next card far. The
# flap's pivot is at the fork; its vane reaches FLAP_LENGTH_MM on along the path.
NIP_CLEARANCE_MM = 6.0
NIP_TO_BEAM_MM = CARD_LENGTH_MM + NIP_CLEARANCE_MM
NIP_TO_FLAP_MM = 49.0
FLAP_LENGTH_MM = 12.0
# The bottom card's leading edge rests against the tray's front wall, at most this far ahead
# of the nip (the CAD's gate_setback; a test holds it within): a card fed starts there.
FRONT_WALL_MAX_MM = 10.0
# Where the default build's bottom card waits: its leading edge at the gate blade, this far
# ahead of the nip (the CAD's gate_setback; the hands-free shaft's gate_mm).
GATE_MM = 7.0

# Each bay's end wall carries a self-adhesive felt pad this thick: a card reaching the wall
# at up to about 1.8 m/s (the steep branches speed it up) then settles flat instead of
# standing up against the wall (hardware.shuffler.physics, the landing). 0: a bare wall.
END_WALL_PAD_MM = 3.0

# Each card's own speed may differ from the machine's by this share (slip, a worn tyre, a
# bowed card): every gap between cards holds at a card this much slower followed by one this
# much faster.
SPEED_TOLERANCE = 0.10

# The riser's motor runs on PWM (DRV8874 #2 EN) at the duty `crib shuffler calibrate` sets,
# so that the cards move at this speed past the beams and into the bays: under the speed at
# which a card stands up against a bay's padded end wall (physics.stand_up_speed_mm_s: about
# 2.24 m/s) with 10 % to spare, whatever its motor's and supply's spread (at full duty the
# fastest corner of the ranges would reach about 2.49 m/s). A riser too slow to reach it runs
# at full duty.
RISER_CARD_SPEED_MM_S = 2000.0
# An uncalibrated machine's riser duty: at the fastest corner of the ranges it keeps the
# cards under the stand-up speed (2.77 x 0.78 = 2.16 m/s), at nominal about 1.80 m/s.
RISER_DUTY_UNCALIBRATED = 0.78

# What a player takes to square the two piles and put the deck back in the tray.
RESTACK_S = 4.0


@dataclass(frozen=True, slots=True)
class DriveBuild:
    """The feed drive as built: the gearmotor's datasheet figures, the supply, the roller's
    outside diameter and the press on the deck.

    The motor is a DC motor: at a supply V its no-load speed and stall torque scale with V
    from the rated figures, and under a load torque T it turns at n0 (1 - T / Tstall).
    hardware.shuffler.physics turns the deck's load into each card's speed; docs/hardware.md
    gives the torque arithmetic that chose these figures.
    Raises ValueError for a figure that is not above 0.
    """

    # Pololu 50:1 Micro Metal Gearmotor HP 6V (N20 size, 12 x 10 mm gearbox, 3 mm D shaft):
    # 625 rpm no-load and 15 oz-in (0.10 N m) stall at 6 V (Pololu's product figures, item
    # 2213, quoted on forum.pololu.com "Rpm/torque cart for 50:1 Micro Metal Gearmotor HP")
    rated_v: float = 6.0
    no_load_rpm: float = 625.0
    stall_n_m: float = 0.10
    supply_v: float = 5.0  # the driver's VM, from the 5 V supply
    roller_diameter_mm: float = 24.0  # printed hub with its two O-ring tyres, outside
    # A 255 g press (a printed foot with steel in it) rests on the deck over the tyre: the
    # deck's own weight puts only about half of itself on the tyre, too little traction
    # against card-on-card friction (docs/hardware.md, "Feed torque").
    press_n: float = 2.5
    # Pololu's stall current at the rated voltage (item 2213: 1.6 A at 6 V)
    stall_a: float = 1.6
    # The motor's mechanical time constant: estimate for an N20 (rotor inertia x winding
    # resistance / k^2 is a few ms; the gear train's inertia adds to it). It sets the
    # start-up and a braked stop (the shorted winding brakes with the same constant).
    motor_start_s: float = 0.010
    # Coasting (both driver inputs low), only friction stops the roller: estimate, an N20
    # gearmotor runs down with about this time constant.
    run_down_s: float = 0.060

    def __post_init__(self) -> None:
        if not (min(self.rated_v, self.no_load_rpm, self.stall_n_m, self.supply_v,
                    self.roller_diameter_mm, self.run_down_s) > 0
                and self.motor_start_s >= 0 and self.press_n >= 0):
            raise ValueError(
                f"motor figures, supply and roller diameter must be above 0, got "
                f"{self.no_load_rpm} rpm, {self.stall_n_m} N m, {self.supply_v} V and "
                f"{self.roller_diameter_mm} mm"
            )

    @property
    def roller_radius_m(self) -> float:
        return self.roller_diameter_mm / 2000.0

    def free_speed_mm_s(self, supply_v: float | None = None, scale: float = 1.0) -> float:
        """The tyre's no-load surface speed at a supply (the rated speed scaled by voltage)."""
        v = self.supply_v if supply_v is None else supply_v
        rpm = self.no_load_rpm * v / self.rated_v * scale
        return math.pi * self.roller_diameter_mm * rpm / 60.0

    def stall_force_n(self, supply_v: float | None = None, scale: float = 1.0) -> float:
        """The force at the tyre's surface that stalls the motor at a supply."""
        v = self.supply_v if supply_v is None else supply_v
        return self.stall_n_m * v / self.rated_v * scale / self.roller_radius_m

    def stall_current_a(self, supply_v: float | None = None) -> float:
        """The current a start or a stall draws at a supply (the driver must give it)."""
        v = self.supply_v if supply_v is None else supply_v
        return self.stall_a * v / self.rated_v

    def speed_under_mm_s(self, load_n: float, supply_v: float | None = None,
                         speed_scale: float = 1.0, torque_scale: float = 1.0) -> float:
        """The tyre's surface speed under a load force at its surface (0 when stalled)."""
        stall = self.stall_force_n(supply_v, torque_scale)
        return max(0.0, self.free_speed_mm_s(supply_v, speed_scale) * (1.0 - load_n / stall))


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
    # solenoid: let go, its spring brings the flap back this fast (None: as the pull-in)
    return_s: float | None = None

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

    @property
    def back_settle_s(self) -> float:
        """From the command back to the spring's side (the solenoid let go) to a still
        flap; a servo's is its settle either way."""
        if self.kind == "servo" or self.return_s is None:
            return self.settle_s
        return self.return_s + self.ring_s


# The Lotus-style build's drive, its default: the 50:1 N20 on the 5 V supply under a 24 mm
# roller (docs/hardware.md, "Feed torque": 2.17 x the worst deck's load). It may take
# HANDSFREE_DRIVE instead (the motor's mount and the roller's bore change with it).
DEFAULT_DRIVE = DriveBuild()
# The hands-free build's drive (docs/hardware.md, "The hands-free drive"): Pololu's 9.7:1
# Metal Gearmotor 25D mm HP 6V, 990 rpm no-load and 39 oz-in (0.275 N m) stall at 6 V,
# 6.5 A stall (Pololu's 25D comparison table as robotgear.com.au quotes it; the family's
# 4.4:1, item 4801, is 2200 rpm and 1.2 kg cm at 6 V on pololu.com), 25 mm can, 4 mm D
# shaft, on the same 5 V supply and 24 mm roller. The fastest drive that keeps
# the router's gap: with a faster one the braked roller draws the next card past the flap
# before the router may move (docs/hardware.md). Its time constant, estimate: rotor inertia
# about 5 g cm^2 (a 24 mm can motor) x its winding's 0.92 ohm (6 V / 6.5 A) / k^2 (5.4 mN m/A:
# the 1:1 motor's 5 oz-in at 6.5 A) is about 16 ms; its run-down coasting, about 0.1 s.
# The hands-free build's press bears at least this on the deck (N): its foot over the nip
# (docs/hands-free.md, "The press"); the CAD's test holds the press as drawn to it.
HANDSFREE_PRESS_N = 2.5
HANDSFREE_DRIVE = DriveBuild(no_load_rpm=990.0, stall_n_m=0.275, stall_a=6.5,
                             motor_start_s=0.015, run_down_s=0.10, press_n=HANDSFREE_PRESS_N)
# The hands-free build's riser motor (docs/hands-free.md, "The riser's drive"): Pololu's 25D
# 4.4:1 HP 6V (item 4801: 2200 rpm no-load, 1.2 kg cm = 0.118 N m stall at 6 V, pololu.com;
# about 6 A stall, as its family), a 24-tooth GT2 pulley driving the rollers' 16-tooth ones
# (hardware/shuffler/cad/handsfree_parts.py), the 16 mm hubs: as a drive at the hubs, 1.5 x
# the motor's speed and 1/1.5 of its torque. Its time constants are the feed's 25D's.
RISER_STEP_UP = 24 / 16
RISER_DRIVE = DriveBuild(no_load_rpm=2200.0 * RISER_STEP_UP, stall_n_m=0.118 / RISER_STEP_UP,
                         stall_a=6.0, roller_diameter_mm=16.0, motor_start_s=0.015,
                         run_down_s=0.10, press_n=0.0)
# The riser's rollers turn this much over the feed roller's no-load speed at full duty (both
# motors nominal, on the one supply): 1.22. The riser's motor is spread +-15 % as the feed's
# (ranges.py), so it stays ahead of the feed at every corner only above 1.15 / 0.85 - 1 =
# 0.35: a riser slower than the feed bunches the cards and moves the flap under a card's
# tail. Once a card's tail leaves the nip it runs at the riser's speed: it clears its beam
# and the flap that much sooner, and a card fed on behind it to the same bay is pulled away
# from it. At r = 1 + this the next card's lead reaches the beams 88.9 (1 - 1/r) - 7 mm
# behind the card's tail (the next starts 7 mm ahead of the nip): 42 mm nominal, 27 mm (over
# 20 ms) at the corner of a slow riser and a fast feed (r = 1.64), well over the beams'
# filter.
RISER_OVERDRIVE = RISER_DRIVE.free_speed_mm_s() / HANDSFREE_DRIVE.free_speed_mm_s() - 1.0
# The torque rule every drive keeps: the motor's stall at the worst corner (the weakest
# motor, the lowest supply) at least this many times the worst deck's load at the roller.
TORQUE_MARGIN = 2.0
# A stop brakes the motor (both driver inputs high) this long, five of its time constants,
# then lets both inputs low: the roller has stopped, and the driver idles with no current.
BRAKE_HOLD_S = 0.05
# The flap's swing between its two branches, as the printed router is drawn (the left
# branch's 30 degrees less the right's 12.6 in hardware/shuffler/cad/params.py; a test holds
# the two equal); the servo's default angles are half of it either side of centre.
SERVO_SWING_DEG = 17.4
# The default build routes with the SG90 servo the printed router mounts: 64 ms from command
# to a still flap (its 20 ms frame, the 17.4-degree swing at 0.1 s per 60 degrees, 15 ms of
# ringing), which every change of pile waits in the gap at the flap: a pass of 52 takes about
# 6.9 s. A 5 V push-pull solenoid (pulled in at full power, then held at a share of it, within
# its duty cycle) settles in 20 ms, so a card to the other pile costs about what a card to the
# same pile does: about 1.1 s less a pass, but it needs a mount of its own.
SERVO_ROUTER = RouterBuild(kind="servo", swing_deg=SERVO_SWING_DEG, ring_s=0.015)
SOLENOID_ROUTER = RouterBuild()
# The hands-free build's router: a JF-0530B class solenoid turning the riser's flap through a
# lever (docs/hands-free.md, "The router's solenoid"). Its pull falls steeply with the gap:
# at the weak end of its range (3.75 N seated) with 1.5 x the moving mass, it pulls the flap
# over in 35.5 ms and the spring brings it back in 18.0 ms (the CAD's `router_swing_s`; 15.5
# and 14.7 ms at the quoted 5 N). Nothing senses the flap, so the controller allows the
# slowest each way.
HANDSFREE_SOLENOID_ROUTER = RouterBuild(pull_in_s=0.036, return_s=0.018)
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


def _slow(feed_speed_mm_s: float) -> float:
    return feed_speed_mm_s * (1.0 - SPEED_TOLERANCE)


def _fast(feed_speed_mm_s: float) -> float:
    return feed_speed_mm_s * (1.0 + SPEED_TOLERANCE)


def flap_clear_s(feed_speed_mm_s: float) -> float:
    """From a card's leading edge at its beam to its tail surely past the flap's vane (the
    router may move then), for a card `SPEED_TOLERANCE` slower than the machine."""
    tail_at_beam = NIP_TO_BEAM_MM - CARD_LENGTH_MM  # the tail's way past the nip then
    return max(0.0, NIP_TO_FLAP_MM + FLAP_LENGTH_MM - tail_at_beam) / _slow(feed_speed_mm_s)


def flap_lead_s(feed_speed_mm_s: float, start_s: float = DEFAULT_DRIVE.motor_start_s,
                filter_s: float | None = None) -> float:
    """From motor on to the card's leading edge at the flap, for a card `SPEED_TOLERANCE`
    faster than the machine: the flap must be still by then. The card may already be well on
    its way: it starts against the tray's front wall, ahead of the nip, and the roller turned
    on under it from the last card's tail leaving the nip until the motor stopped (the last
    card's run to its beam, the beam's filter, then the braked motor's run-on of about one
    time constant)."""
    v = _fast(feed_speed_mm_s)
    filt = sensor_filter_s(feed_speed_mm_s) if filter_s is None else filter_s
    drawn = FRONT_WALL_MAX_MM + NIP_CLEARANCE_MM + v * (filt + start_s)
    return start_run_s(max(0.0, NIP_TO_FLAP_MM - drawn), v, start_s)


def start_run_s(distance_mm: float, speed_mm_s: float, tau_s: float) -> float:
    """How long a card takes to run `distance_mm` from rest on a roller whose speed rises
    to `speed_mm_s` with the motor's time constant `tau_s` (d = v (t - tau (1 - e^-t/tau)));
    about tau + d / v far off, sqrt(2 d tau / v) close by."""
    if distance_mm <= 0:
        return 0.0
    if tau_s <= 0:
        return distance_mm / speed_mm_s
    t = tau_s + distance_mm / speed_mm_s
    for _ in range(40):  # Newton: the run is convex in t, from above it only falls
        run = speed_mm_s * (t - tau_s * (1.0 - math.exp(-t / tau_s))) - distance_mm
        rate = speed_mm_s * (1.0 - math.exp(-t / tau_s))
        if abs(run) < 1e-6 or rate <= 0:
            break
        t -= run / rate
    return t


def other_pile_wait_s(feed_speed_mm_s: float, settle_s: float,
                      start_s: float = DEFAULT_DRIVE.motor_start_s,
                      filter_s: float | None = None) -> float:
    """From a card seen at its beam to the next card's feed, when the next goes to the other
    pile: the router moves once the last card's tail has left the flap, and the next card's
    leading edge reaches the flap only once the router has settled."""
    v = feed_speed_mm_s
    return max(0.0, flap_clear_s(v) + settle_s - flap_lead_s(v, start_s, filter_s))


def sensor_filter_s(feed_speed_mm_s: float) -> float:
    """The pile sensors' glitch filter: a sixth of a card's transit (a card is always seen,
    and its edge's chatter never is), at most 15 ms (an optical sensor chatters for 1-5 ms;
    LeShuffler's firmware filters 15 ms), in whole tenths of a ms."""
    return round(min(card_transit_s(feed_speed_mm_s) / 6.0, 0.015), 4)
