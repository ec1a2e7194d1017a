"""The shuffler mechanism's own dimensions, and the arithmetic the CAD and its tests share.

Pure Python (no CAD kernel): the card sizes and the drive's roller come from
``hardware.shuffler.design``; every other length here belongs to the mechanism.

Frame: x runs along the card path (the card moves towards +x), y across it (centred), z up
from the table. The roller's nip (the top of its tyre, where it drives the bottom card) is at
x = 0. Lengths in millimetres, angles in degrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from hardware.shuffler import design

Point = tuple[float, float]  # (x, z) in the side view

PILES = ("left", "right")


class PathSegment(NamedTuple):
    """One straight stretch of the card's path.

    ``surface`` is what the card's underside slides on: ``"petg"`` for a printed floor (the
    tray's land, the chute, a branch), ``"pile"`` for the last stretch, from the branch's
    outlet down onto the bay's pile (the bay's PETG floor for the first card, card on card
    after it) and on to the bay's end wall.
    """

    length_mm: float
    slope_deg: float  # positive downhill
    surface: str


@dataclass(frozen=True, slots=True)
class CardPath:
    """The card's path from the roller's nip to its bay's end wall, for one pile.

    ``segments`` run in order from the nip; ``names`` says which part each one is;
    ``beam_mm`` is where the pile's beam crosses the path (path length from the nip).
    """

    pile: str
    segments: tuple[PathSegment, ...]
    names: tuple[str, ...]
    beam_mm: float

    @property
    def length_mm(self) -> float:
        """Nip to the bay's end wall along the path."""
        return sum(s.length_mm for s in self.segments)

    def segment_at(self, s: float) -> PathSegment:
        """The segment the path is on ``s`` mm from the nip.

        Raises ValueError for an ``s`` before the nip or past the end wall.
        """
        if s < 0:
            raise ValueError(f"{s:.1f} mm is before the nip")
        for seg in self.segments:
            if s <= seg.length_mm:
                return seg
            s -= seg.length_mm
        raise ValueError(f"{s:.1f} mm past the {self.pile} bay's end wall")


def _drive_roller() -> float:
    return design.DEFAULT_DRIVE.roller_diameter_mm


# The card path's lengths are read from design.py when a Geometry is made (not when this
# module is imported), so the timing model and the CAD always agree.
def _nip_to_beam() -> float:
    return design.NIP_TO_BEAM_MM


def _nip_to_flap() -> float:
    return design.NIP_TO_FLAP_MM


def _flap_length() -> float:
    return design.FLAP_LENGTH_MM


def _end_pad() -> float:
    return design.END_WALL_PAD_MM


@dataclass(frozen=True, slots=True)
class Geometry:
    """Every dimension the parts are built from.

    Raises ValueError when a value leaves the mechanism unbuildable (see ``check``).
    """

    # The cards, from design.py. The tray and the path are always sized for the widest card
    # (poker); ``card_width`` is the deck loaded, and a narrower one gets the width shims.
    card_length: float = design.CARD_LENGTH_MM
    card_width: float = design.POKER_WIDTH_MM
    widest_card: float = design.POKER_WIDTH_MM
    card_thickness_min: float = design.CARD_THICKNESS_MIN_MM
    card_thickness_max: float = design.CARD_THICKNESS_MAX_MM
    capacity_cards: int = 104
    roller_diameter: float = field(default_factory=_drive_roller)

    # Printing: walls of at least four 0.4 mm perimeters and some.
    wall: float = 2.4
    floor: float = 3.0
    min_wall: float = 1.6

    # Clearances around the deck and the card in the path.
    side_clearance: float = 1.0  # each side of the deck in the tray
    end_clearance: float = 1.5  # each end of the deck in the tray
    path_side_clearance: float = 1.5  # each side of the card in the chute
    channel_gap: float = 4.0  # floor to roof of the chute: one bowed card and room
    bay_side_clearance: float = 2.0
    bay_end_clearance: float = 1.5
    # A self-adhesive felt pad on each bay's end wall takes the card's landing (design.py):
    # the bay is that much longer, and the card's path ends on the pad's face.
    end_pad: float = field(default_factory=_end_pad)
    pile_clearance: float = 5.0  # beam centre above a full pile, at the least

    # The tray and the separation gate.
    # Top of the tray floor above the table; the tyre's top (the nip), the land past it and
    # the chute's start are ``roller_protrusion`` higher. High enough that the long branch to
    # the far (right) bay still falls at ``min_slope``.
    tray_floor_z: float = 152.4
    tray_headroom: float = 36.0  # wall above a full deck: it guides the press on top
    # Nip to the inner face of the ears that carry the gate blade. The blade, on their outer
    # face, is the tray's front wall: the deck's front rests on it (no bridged wall).
    gate_setback: float = design.GATE_MM
    # The gate's gap in (nominal) card thicknesses, above the land the card rests on there.
    gate_gap_cards: float = 1.35  # 0.405 mm
    gate_travel: float = 2.5  # the blade's slots let it move this much up or down
    ear_height: float = 24.0  # the ears that carry the blade's two screws
    gate_chamfer: float = 1.0  # 45-degree lead-in on the blade's lower edge, deck side
    lip_length: float = 11.0  # tray floor (the land) past the gate blade
    # The land: past the tyre the floor rises to the tyre's top, so the bottom card leaves
    # the nip level and rests on the land under the blade. Over the roller's slot it is a
    # plate ``land_plate`` thick that starts where it clears the tyre by the slot clearance,
    # its leading edge chamfered ``land_lead``; beside the slot a ramp ``land_ramp`` long
    # climbs to it from the floor.
    land_plate: float = 1.6
    land_lead: float = 0.5
    land_ramp: float = 3.0

    # The roller: a printed hub with two O-rings as its tyre.
    roller_protrusion: float = 0.8  # tyre top above the tray floor
    # The tyre: two NBR 70A O-rings of 2.5 mm section, stretched 5-10 % onto the hub's
    # grooves so they hold without creeping (a stretched ring grips its groove; a loose one
    # walks off). ``oring_id`` 0 chooses the whole-millimetre stock size nearest 7.5 %
    # stretch for the roller's diameter: 23 mm for the 30 mm roller (9.5 %).
    oring_id: float = 0.0
    oring_section: float = 2.5
    hub_relief: float = 1.0  # hub flanges stay this far inside the tyre's top
    hub_width: float = 22.0
    oring_pitch: float = 14.0  # centre to centre of the two O-rings
    roller_slot_clearance: float = 1.0

    # The N20 gearmotor (12 x 10 mm gearbox, 3 mm D-shaft) and its clamp.
    gearbox_w: float = 12.0  # along x
    gearbox_h: float = 10.0  # along z
    gearbox_len: float = 9.0
    motor_can_len: float = 15.0
    shaft_d: float = 3.0
    shaft_flat: float = 2.5  # across the D's flat
    shaft_len: float = 10.0
    hub_bore_depth: float = 9.5
    motor_gap: float = 1.0  # gearbox face to hub
    fit: float = 0.2  # printed pocket over a bought part, each side

    # The path: a chute, then a fork into two branches, each ending over its pile bay.
    # Every stretch a card coasts on falls at least ``min_slope``: tan 25 deg = 0.47 is over
    # card-on-PETG friction's 0.2-0.4, so a free card speeds up and never stops in the path.
    min_slope: float = 25.0
    chute_angle: float = 25.0
    lower_angle: float = 43.0  # the branch into the near (left) bay
    # Along the card's path from the nip (design.py): the fork, where the flap is hinged, and
    # each pile's beam (the same on both branches: the controller stops the motor there).
    nip_to_flap: float = field(default_factory=_nip_to_flap)
    beam_path: float = field(default_factory=_nip_to_beam)
    beam_hole_d: float = 3.1  # a 3 mm IR LED or receiver
    beam_boss_d: float = 7.0
    beam_boss_len: float = 5.0
    outlet_rise: float = 5.0  # branch outlets above the bays' walls

    # The flap (vane) and its SG90 servo.
    vane_thickness: float = 2.4
    vane_clearance: float = 0.4
    vane_sink: float = 0.05  # the flap's top under the floor line
    # Where the branches part, the septum's wedge is cut back square to the right branch's
    # floor to a flat this thick: two 0.45 mm lines, not a knife edge the nozzle blunts.
    septum_flat: float = 0.9
    vane_length: float = field(default_factory=_flap_length)
    axle_d: float = 3.0
    servo_l: float = 22.8
    servo_w: float = 12.2
    servo_h: float = 22.7
    servo_tab_span: float = 32.2
    servo_tab_t: float = 2.5
    servo_tab_from_top: float = 4.3  # shaft face of the body to the tabs
    servo_shaft_from_end: float = 5.9
    servo_horn_gap: float = 6.0  # router wall to the servo's shaft face

    # The base: the Pi 4/5, the driver breakout and the wiring live in it.
    base_length: float = 112.0
    base_width: float = 112.0
    pi_board: tuple[float, float] = (85.0, 56.0)
    pi_holes: tuple[float, float] = (58.0, 49.0)
    driver_board: tuple[float, float] = (33.0, 21.0)  # TB6612 or DRV8833 breakout
    standoff_h: float = 6.0
    touch_pad: tuple[float, float] = (16.0, 12.0)  # TTP223 module, senses through the skin
    touch_skin: float = 1.6
    led_hole_d: float = 5.2
    # The main switch: a KCD1-101 rocker snaps into a 19.2 x 12.9 mm cut-out (its datasheet's
    # panel cut-out; bezel 21 x 15 mm) in a panel of 0.8-2 mm: the lid is thinned there.
    switch_cutout: tuple[float, float] = (19.2, 12.9)
    switch_panel: float = 1.6
    switch_at: tuple[float, float] = (-5.0, 44.0)
    # The TCRT5000 module (32 x 14 mm board, its sensor 10.2 x 5.8 x 7 mm at one end)
    # slides into rails under the lid, its sensor up under the tray floor's window.
    tcrt_board: tuple[float, float, float] = (32.0, 14.0, 1.6)
    tcrt_sensor: tuple[float, float, float] = (10.2, 5.8, 7.0)
    # The window's centre: 10 mm behind the nip, where the simulator's tray sensor sees the
    # bottom card until its tail has passed (simulator.TRAY_SENSOR_MM; a test holds them
    # equal), beside the roller's hub, on the side away from the motor.
    tcrt_at: tuple[float, float] = (-10.0, 23.0)

    # The press: a printed foot with a steel bar in it, resting on the deck over the nip
    # (its weight, design.py's press_n, gives the tyre its traction); it slides down between
    # the tray's walls (or the bridge shims) as the deck empties.
    press_length: float = 25.2  # along x, its front ``press_front_gap`` behind the blade
    press_front_gap: float = 1.0
    press_height: float = 32.6
    steel_bar: tuple[float, float, float] = (20.0, 50.0, 30.0)  # x, y, z: a cut flat bar
    steel_density: float = 7.85  # g/cm3, mild steel
    petg_density: float = 1.27  # g/cm3

    bed: float = 220.0

    def __post_init__(self) -> None:
        problems = self.check()
        if problems:
            raise ValueError("shuffler geometry: " + "; ".join(problems))

    # ----- derived numbers -----
    @property
    def nominal_card(self) -> float:
        return (self.card_thickness_min + self.card_thickness_max) / 2

    @property
    def gate_gap(self) -> float:
        """The gap the blade is set to: the land's top to the blade's edge."""
        return self.gate_gap_cards * self.nominal_card

    @property
    def land_z(self) -> float:
        """Top of the land past the tyre: level with the tyre's top (the nip)."""
        return self.tray_floor_z + self.roller_protrusion

    def tyre_top(self, x: float) -> float:
        """Height of the tyre's surface at ``x`` (below the axis' level: -inf)."""
        r = self.roller_diameter / 2
        ax, az = self.roller_axis
        return az + math.sqrt(r * r - (x - ax) ** 2) if abs(x - ax) < r else -math.inf

    @property
    def land_start(self) -> float:
        """x where the land's plate begins over the slot (it clears the tyre there)."""
        r = self.roller_diameter / 2
        under = self.land_z - self.land_plate - self.roller_slot_clearance - self.roller_axis[1]
        return self.roller_axis[0] + math.sqrt(max(r * r - under * under, 0.0))

    def support_z(self, x: float) -> float:
        """The top of what the bottom card rests on at ``x`` on the centre line (the tyre,
        the land over the slot with its chamfer, or the floor behind the slot)."""
        land = -math.inf
        if x >= self.land_start:
            land = min(self.land_z, self.land_z - self.land_lead + (x - self.land_start))
        floor = self.tray_floor_z if x < -self.floor_opening / 2 else -math.inf
        return max(self.tyre_top(x), land, floor)

    @property
    def gate_edge(self) -> tuple[float, float, float]:
        """(x from, x to, z) of the blade's lowest edge, its flat past the lead-in chamfer."""
        return (self.gate_x + self.gate_chamfer, self.gate_x + self.wall,
                self.land_z + self.gate_gap)

    @property
    def card_gap_at_gate(self) -> float:
        """The opening the bottom card meets at the gate: the blade's lowest edge down to the
        top of what the card rests on under it (the land, level with the tyre's top).

        Taken at the tightest point under the blade's flat, so it is the gap a card meets,
        not the blade's height above the tray floor.
        """
        x0, x1, z = self.gate_edge
        steps = 20
        top = max(self.support_z(x0 + (x1 - x0) * k / steps) for k in range(steps + 1))
        return z - top

    @property
    def gate_gap_range(self) -> tuple[float, float]:
        """(lowest, highest) gap: it passes the thickest card, and a second card is not
        dragged along under it (above 1.5 thicknesses of the thinnest, it is)."""
        return 1.0 * self.card_thickness_max, 1.5 * self.card_thickness_min

    def pile_height(self, cards: int) -> float:
        return cards * self.card_thickness_max

    @property
    def tray_inner(self) -> tuple[float, float]:
        """(length, width) inside the tray's walls (sized for the widest card)."""
        return (self.card_length + 2 * self.end_clearance,
                self.widest_card + 2 * self.side_clearance)

    @property
    def shim_thickness(self) -> float:
        """Each of the two width shims that centre a narrower deck (0 for the widest)."""
        return (self.widest_card - self.card_width) / 2

    @property
    def bridge_shim(self) -> float:
        """The shims' thickness as printed: for this deck, or for bridge cards if it is poker."""
        return self.shim_thickness or (self.widest_card - design.BRIDGE_WIDTH_MM) / 2

    @property
    def guide_gap(self) -> float:
        """Across the deck between the guides (the walls, or the shims when fitted)."""
        return self.tray_inner[1] - 2 * self.shim_thickness

    @property
    def tray_wall_top(self) -> float:
        return self.tray_floor_z + self.pile_height(self.capacity_cards) + self.tray_headroom

    @property
    def press_x(self) -> tuple[float, float]:
        """(back, front) of the press's foot: just behind the blade, over the nip."""
        front = self.gate_x - self.press_front_gap
        return front - self.press_length, front

    @property
    def press_width(self) -> float:
        """Across the foot: it fits between the bridge shims too."""
        return design.BRIDGE_WIDTH_MM + 2 * self.side_clearance - 1.0

    @property
    def steel_mass_g(self) -> float:
        x, y, z = self.steel_bar
        return x * y * z / 1000 * self.steel_density

    @property
    def nip(self) -> Point:
        return (0.0, self.tray_floor_z + self.roller_protrusion)

    @property
    def roller_axis(self) -> Point:
        return (0.0, self.nip[1] - self.roller_diameter / 2)

    def _fitted(self, ring_id: float) -> float:
        """The cross-section of an O-ring of ``ring_id`` stretched on the hub.

        The ring's volume, pi^2/4 x (ID + s) x s^2, is the same on the hub, where its outside
        is the roller's diameter D: (D - s') x s'^2 = (ID + s) x s^2, solved for s'.
        """
        want = (ring_id + self.oring_section) * self.oring_section ** 2
        s = self.oring_section
        for _ in range(60):  # a fixed point: s' = sqrt(want / (D - s'))
            s = math.sqrt(want / (self.roller_diameter - s))
        return s

    @property
    def tyre_oring_id(self) -> float:
        """The O-rings' inside diameter (``oring_id``, or the stock size chosen)."""
        if self.oring_id:
            return self.oring_id

        def stretch(ring_id: float) -> float:
            return (self.roller_diameter - 2 * self._fitted(ring_id)) / ring_id - 1

        near = round(self.roller_diameter - 2 * self.oring_section)
        return min(range(near - 4, near + 2), key=lambda i: abs(stretch(i) - 0.075))

    @property
    def oring_section_fitted(self) -> float:
        """The O-ring's cross-section stretched on the hub (its volume kept)."""
        return self._fitted(self.tyre_oring_id)

    @property
    def hub_groove_d(self) -> float:
        """The grooves' bottom: the tyre's outside is then the roller's diameter."""
        return self.roller_diameter - 2 * self.oring_section_fitted

    @property
    def oring_stretch(self) -> float:
        """The O-ring's stretch on its groove, as a share of its inside diameter."""
        return self.hub_groove_d / self.tyre_oring_id - 1

    @property
    def hub_flange_d(self) -> float:
        return self.roller_diameter - 2 * self.hub_relief

    @property
    def floor_opening(self) -> float:
        """Length along x of the tray floor's slot that the tyre comes up through."""
        r = self.roller_diameter / 2
        below = self.tray_floor_z - self.floor - self.roller_axis[1]  # floor's underside
        half = r if below <= 0 else math.sqrt(max(r * r - below * below, 0.0))
        return 2 * (half + self.roller_slot_clearance)

    @property
    def gate_x(self) -> float:
        """The gate blade's face towards the deck (on the ears' outer face): the deck's front."""
        return self.gate_setback + self.wall

    @property
    def tray_x(self) -> tuple[float, float]:
        """(back wall's outside, the lip's end): the inside runs back from the blade."""
        length, _ = self.tray_inner
        return (self.gate_x - length - self.wall,
                self.gate_x + self.wall + self.lip_length)

    @property
    def gate_blade_height(self) -> float:
        """The blade, from its edge up to the tray walls' top (it is the front wall)."""
        return self.tray_wall_top - self.gate_edge[2]

    @property
    def router_x0(self) -> float:
        return self.tray_x[1]

    @property
    def channel_width(self) -> float:
        return self.widest_card + 2 * self.path_side_clearance

    @property
    def bay_inner(self) -> tuple[float, float]:
        """(length, width) inside a bay, its end wall's felt pad included in the length."""
        return (self.card_length + 2 * self.bay_end_clearance + self.end_pad,
                self.widest_card + 2 * self.bay_side_clearance)

    @property
    def bay_floor_top(self) -> float:
        return self.floor

    @property
    def bay_wall_top(self) -> float:
        return self.bay_floor_top + self.pile_height(self.capacity_cards) + self.pile_clearance

    @property
    def fork_run(self) -> float:
        """x from the chute's start to the fork, so the fork is ``nip_to_flap`` along the path."""
        lip = math.dist(self.nip, (self.router_x0, self.land_z))
        return (self.nip_to_flap - lip) * math.cos(math.radians(self.chute_angle))

    @property
    def fork(self) -> Point:
        """Where the chute's floor meets the two branches."""
        return (self.router_x0 + self.fork_run,
                self.land_z - self.fork_run * math.tan(math.radians(self.chute_angle)))

    @property
    def outlet_z(self) -> float:
        return self.bay_wall_top + self.outlet_rise

    @property
    def left_outlet(self) -> Point:
        fx, fz = self.fork
        return (fx + (fz - self.outlet_z) / math.tan(math.radians(self.lower_angle)),
                self.outlet_z)

    @property
    def bays_x(self) -> tuple[float, float, float]:
        """(left bay's inner start, right bay's inner start, the part's far end)."""
        left = self.left_outlet[0]
        right = left + self.bay_inner[0] + self.wall
        return left, right, right + self.bay_inner[0] + self.wall

    @property
    def right_outlet(self) -> Point:
        return (self.bays_x[1], self.outlet_z)

    @property
    def upper_angle(self) -> float:
        fx, fz = self.fork
        ox, oz = self.right_outlet
        return math.degrees(math.atan2(fz - oz, ox - fx))

    def path(self, pile: str) -> list[Point]:
        """The card's underside from the nip to the branch outlet of ``pile`` (left/right):
        level over the land to the chute, down the chute to the fork, down the branch."""
        outlet = {"left": self.left_outlet, "right": self.right_outlet}[pile]
        return [self.nip, (self.router_x0, self.land_z), self.fork, outlet]

    def end_wall(self, pile: str, cards: int = 0) -> Point:
        """(x, z) where the felt pad on the bay's far end wall meets the top of a pile of
        ``cards``."""
        left, right, far = self.bays_x
        x = {"left": right - self.wall, "right": far - self.wall}[pile] - self.end_pad
        return x, self.bay_floor_top + self.pile_height(cards)

    def card_path(self, pile: str, cards: int = 0) -> CardPath:
        """The card's path to ``pile`` as straight segments, nip to the bay's end wall.

        The stretches are the land (level, from the nip to the chute), the chute, the
        branch, and the drop: a straight line from the branch's outlet to the foot of the
        bay's end wall on a pile of ``cards`` (0: the empty bay). The beam is where the
        branch crosses it. Raises ValueError for a pile that is not left or right.
        """
        if pile not in PILES:
            raise ValueError(f"pile must be left or right, got {pile!r}")
        pts = [*self.path(pile), self.end_wall(pile, cards)]
        names = ("land", "chute", f"{pile} branch", f"drop into the {pile} bay")
        segs = []
        for (ax, az), (bx, bz), name in zip(pts, pts[1:], names, strict=False):
            slope = math.degrees(math.atan2(az - bz, bx - ax))
            segs.append(PathSegment(math.dist((ax, az), (bx, bz)), slope,
                                    "pile" if name.startswith("drop") else "petg"))
        return CardPath(pile, tuple(segs), names, self.nip_to_beam(pile))

    def along(self, pile: str, s: float) -> tuple[Point, Point]:
        """The point ``s`` mm along the path to ``pile`` from the nip, and the path's direction.

        Raises ValueError when ``s`` is past the branch's outlet.
        """
        pts = self.path(pile)
        left = s
        for a, b in zip(pts, pts[1:], strict=False):
            seg = math.dist(a, b)
            if left <= seg:
                ux, uz = (b[0] - a[0]) / seg, (b[1] - a[1]) / seg
                return (a[0] + ux * left, a[1] + uz * left), (ux, uz)
            left -= seg
        raise ValueError(f"{s:.1f} mm is past the {pile} branch's outlet")

    def path_length(self, pile: str) -> float:
        """Nip to the outlet of ``pile``'s branch, along the path."""
        pts = self.path(pile)
        return sum(math.dist(a, b) for a, b in zip(pts, pts[1:], strict=False))

    def beam(self, pile: str) -> Point:
        """The beam's centre: mid-gap of the branch, ``beam_path`` along the path from the nip."""
        (fx, fz), (ux, uz) = self.along(pile, self.beam_path)
        half = self.channel_gap / 2
        return fx - uz * half, fz + ux * half  # up out of the floor, square to it

    def beam_past_fork(self, pile: str) -> float:
        """How far the beam is along its branch from the fork."""
        return self.beam_path - self.nip_to_flap

    def nip_to_beam(self, pile: str) -> float:
        """Path length from the nip to the beam's foot, found from the beam's centre.

        The centre is dropped square onto the branch's floor and the path is summed up to
        that foot, so this measures where the beam is rather than restating ``beam_path``.
        """
        bx, bz = self.beam(pile)
        pts = self.path(pile)
        best, done = None, 0.0
        for a, b in zip(pts, pts[1:], strict=False):
            seg = math.dist(a, b)
            ux, uz = (b[0] - a[0]) / seg, (b[1] - a[1]) / seg
            t = min(max((bx - a[0]) * ux + (bz - a[1]) * uz, 0.0), seg)
            off = math.dist((bx, bz), (a[0] + ux * t, a[1] + uz * t))
            if best is None or off < best[0] - 1e-9:
                best = (off, done + t)
            done += seg
        return best[1]

    @property
    def required_nip_to_beam(self) -> float:
        """Where the controller's timing expects each beam: design.py's NIP_TO_BEAM_MM."""
        return design.NIP_TO_BEAM_MM

    def beam_above_pile(self, pile: str, cards: int) -> float:
        """Height of the beam's lowest ray above a full pile of ``cards``."""
        return (self.beam(pile)[1] - self.beam_hole_d / 2) - (
            self.bay_floor_top + self.pile_height(cards))

    @property
    def vane_pivot(self) -> Point:
        """The flap's axle, under the fork on the bisector of the two branches' normals.

        Deep enough that the flap's top face, in either position, and its round hinge stay
        ``vane_sink`` under the floor lines of the chute and both branches: a card running
        down the floor steps down onto the flap by that much, never up against it.
        """
        mid = (self.upper_angle + self.lower_angle) / 2
        off = max(abs(mid - a) for a in (self.chute_angle, self.upper_angle, self.lower_angle))
        depth = (self.vane_thickness / 2 + self.vane_sink) / math.cos(math.radians(off))
        fx, fz = self.fork
        m = math.radians(mid)
        return fx - depth * math.sin(m), fz - depth * math.cos(m)

    @property
    def septum_apex(self) -> float:
        """Distance from the fork, along the right branch's floor, to where the branches part."""
        return self.channel_gap / math.sin(math.radians(self.lower_angle - self.upper_angle))

    @property
    def septum_start(self) -> float:
        """Distance from the fork, along the right branch's floor, to the septum's flat."""
        return self.septum_apex + self.septum_flat / math.tan(
            math.radians(self.lower_angle - self.upper_angle))

    def vane_angle(self, pile: str) -> float:
        """The flap's slope (degrees below horizontal) that sends a card to ``pile``.

        For the right pile it lies on the right branch's floor (cards ride up over it); for
        the left pile it closes the right branch (cards pass under it).
        """
        return {"right": self.upper_angle, "left": self.lower_angle}[pile]

    @property
    def base_x(self) -> tuple[float, float]:
        return self.router_x0 - self.base_length, self.router_x0

    @property
    def base_top(self) -> float:
        return self.tray_floor_z - self.floor

    def with_(self, **changes: float) -> Geometry:
        """A copy with some dimensions changed (the derived ones follow)."""
        return replace(self, **changes)

    def check(self) -> list[str]:
        """What makes this geometry unbuildable, in words (empty when it is fine)."""
        out = []
        lo, hi = self.gate_gap_range
        if not lo <= self.card_gap_at_gate < hi:
            out.append(f"gate gap {self.card_gap_at_gate:.3f} mm (blade edge to the land the "
                       f"card rests on) is outside {lo:.3f}-{hi:.3f} mm")
        if self.land_start + self.land_lead > self.gate_x + self.gate_chamfer:
            out.append(f"the land reaches the tyre's height at x = "
                       f"{self.land_start + self.land_lead:.2f} mm, past the blade's edge at "
                       f"{self.gate_x + self.gate_chamfer:.2f} mm: move the gate forward")
        if not 0.05 <= self.oring_stretch <= 0.10:
            out.append(f"O-ring {self.tyre_oring_id} mm ID on a {self.hub_groove_d:.2f} mm groove "
                       f"is stretched {self.oring_stretch:.1%}, outside 5-10 %")
        if self.card_width > self.widest_card:
            out.append(f"card width {self.card_width} mm is wider than the tray's "
                       f"{self.widest_card} mm")
        if 0 < self.shim_thickness < self.min_wall:
            out.append(f"width shim {self.shim_thickness:.2f} mm is under the "
                       f"{self.min_wall} mm minimum wall")
        for name in ("wall", "floor", "vane_thickness"):
            if getattr(self, name) < self.min_wall:
                out.append(f"{name} {getattr(self, name)} mm is under {self.min_wall} mm")
        if self.touch_skin < self.min_wall:
            out.append(f"touch_skin {self.touch_skin} mm is under {self.min_wall} mm")
        if not self.upper_angle < self.lower_angle:
            out.append(f"right branch slope {self.upper_angle:.1f} deg must be below the "
                       f"left branch's {self.lower_angle} deg")
        for name, slope in (("chute", self.chute_angle), ("left branch", self.lower_angle),
                            ("right branch", self.upper_angle)):
            if slope < self.min_slope:
                out.append(f"{name} falls {slope:.1f} deg, under {self.min_slope} deg: a card "
                           f"could stop on it (raise tray_floor_z)")
        if self.beam_path <= self.card_length:
            out.append(f"beam is {self.beam_path:.1f} mm along the path from the nip, not past "
                       f"the {self.card_length:.1f} mm card: the roller would still hold the "
                       f"card when its beam sees it")
        if self.fork_run < 10.0:
            out.append(f"fork is {self.nip_to_flap:.1f} mm along the path from the nip: the "
                       f"chute is only {self.fork_run:.1f} mm long")
        boss = self.beam_boss_d / 2
        for pile in ("left", "right"):
            past = self.beam_past_fork(pile)
            room = self.path_length(pile) - self.beam_path
            if past < self.septum_apex + boss:
                out.append(f"{pile} beam is {past:.1f} mm past the fork, before the branches "
                           f"part ({self.septum_apex + boss:.1f} mm with its boss)")
            elif room < boss:
                out.append(f"{pile} beam is {self.beam_path:.1f} mm along the path, past its "
                           f"branch's outlet less its boss ({room:.1f} mm left)")
            elif self.beam_above_pile(pile, self.capacity_cards) < self.pile_clearance:
                out.append(f"{pile} beam is under a full pile of {self.capacity_cards} cards "
                           f"plus {self.pile_clearance} mm")
        if not out and math.dist(self.beam("left"), self.beam("right")) < self.beam_boss_d:
            out.append("the two beams' bosses meet")
        if self.vane_length + self.vane_clearance >= self.septum_apex:
            out.append(f"flap {self.vane_length} mm reaches the septum at "
                       f"{self.septum_apex:.1f} mm from the fork")
        if self.roller_axis[1] - self.roller_diameter / 2 < self.floor + 5:
            out.append("roller reaches the base's floor: raise tray_floor_z")
        return out


DEFAULT = Geometry()
