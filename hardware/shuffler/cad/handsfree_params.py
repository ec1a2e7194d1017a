"""The hands-free build's riser and drop shaft: the card's path and the shaft's dimensions.

Pure Python (no CAD kernel), in the Lotus build's frame (``params``): x along the card's
travel out of the tray (the nip at x = 0), y across, z up from the table. Heights that
``hardware.shuffler.shaft`` gives from the tray floor's top are ``Geometry.tray_floor_z``
higher here. The path is the card's centre line, built from straight runs and arcs:

- both branches: level from the nip to T1, then the curl up at ``curl_radius_mm``;
- the lower branch keeps curling to a half turn and runs back, level, into the lower bay;
- the upper branch leaves the curl at the fork (the flap) on a reverse arc of the same
  radius for ``fork_reverse`` (so the two channels part, with a septum between them, just
  past the flap's tip), curls to vertical, rises straight, curls over and runs back into
  the upper bay, ``upper_rise`` above the lower branch.

Docs: docs/hands-free.md ("The drop shaft, specified", "Building the hands-free machine").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from hardware.shuffler import design
from hardware.shuffler.cad.params import DEFAULT, Geometry
from hardware.shuffler.handsfree import Bay
from hardware.shuffler.shaft import DEFAULT_SHAFT, ShaftGeometry

BAYS = (Bay.LOWER, Bay.UPPER)
SEPTUM_GAP = 3.0  # the most a card crosses unguided from the flap's tip to the septum
SKEW_BEAM_SETBACK = 3.5  # the skew beam's axis in front of the shaft's back wall
DOOR_BEAM_WEB = 0.8  # printed wall between a door beam's bore and the knuckle's seat under it
GAME_DECKS = (52, 104)  # the decks whose plans the door beams must see every pile of
TRAY_EAR = 10.0  # the tray's ears (which carry the gate blade) past its side walls: parts.tray


class Piece(NamedTuple):
    """One piece of the centre line: a straight run (``radius`` 0) or an arc turning
    ``turn`` radians (positive: towards +z from +x, the curl's sense)."""

    length: float
    radius: float = 0.0

    @property
    def turn(self) -> float:
        return self.length / self.radius if self.radius else 0.0


class Pose(NamedTuple):
    """A point of the centre line, its heading (radians from +x towards +z) and its path
    length from the nip."""

    s: float
    x: float
    z: float
    heading: float


@dataclass(frozen=True, slots=True)
class HandsFree:
    """Every dimension the hands-free parts are built from.

    Raises ValueError when the shaft's stations do not fit the path the riser can make.
    """

    g: Geometry = DEFAULT
    shaft: ShaftGeometry = DEFAULT_SHAFT
    # The upper branch bends back (away from the curl's centre) this far past the fork, at
    # the curl's radius: the two channels then part just past the flap's tip.
    fork_reverse: float = 14.0
    # The curl starts on the land just past the tray's lip; T1 (shaft.py) sits on it, its
    # hub clear of the floating tray.
    curl_start: float = 25.0
    wall: float = 2.4
    # Each bay's felt pad (design.END_WALL_PAD_MM, as the Lotus build's bays carry) lies in
    # a pocket in the back wall, its face flush with the wall's: the wall is that much
    # thicker, so a pile has the shaft's whole length and the beams see no pad.
    end_pad: float = design.END_WALL_PAD_MM
    end_pad_w: float = 60.0  # across the shaft: the widest card's middle
    end_pad_h: float = 35.0  # up from the doors, past the slot's top: where the cards strike
    septum: float = 1.6
    gap: float = 4.0  # the channel, floor to roof, as the Lotus chute
    shaft_wall: float = 5.0  # the shaft's long walls: 2.5 mm pockets for the open leaves
    leaf_t: float = 2.4
    leaf_width: float = 32.0  # each door leaf, hinge axis to its free edge
    hinge_d: float = 5.0  # the leaf's knuckle round its 2 mm steel pin
    pin_d: float = 2.0
    window_h: float = 45.0  # the loading window, up from the tray floor
    tray_wall_h: float = 10.0  # the hands-free tray's walls (the shaft carries the rest)
    float_gap: float = 1.0  # the tray floats on its load cell: nothing else touches it
    roof: float = 10.0  # the shaft's closed top above the upper slot's roof
    vent_w: float = 3.0
    hub_d: float = 16.0  # the riser's driven hubs, O-rings on
    idler_d: float = 10.0
    bearing_od: float = 6.0  # MR63ZZ: 3 x 6 x 2.5 mm
    bearing_w: float = 2.5
    pulley_d: float = 12.2  # GT2 16-tooth, over the teeth
    beam_d: float = 3.1
    slot_clearance: float = 3.0  # a card's underside above the fullest pile at its slot
    bay_capacity: int = 64
    load_cell: tuple[float, float, float] = (80.0, 12.7, 12.7)  # YZC-133 1 kg bar
    load_cell_holes: tuple[float, float] = (5.0, 15.0)  # from each end, M4 (two each end)
    switch: tuple[float, float, float] = (20.0, 6.4, 10.2)  # SS-5GL body, its M2 holes
    switch_hole_pitch: float = 9.5
    gear_module: float = 1.5
    # The press: a rigid arm and foot on a printed post outside the -y wall (a swing clamp's
    # cam: a straight leg, then a turning one). At 0 degrees the arm slides freely down the
    # post's straight leg with the deck (the foot rests on it); to leave, it is lifted up that
    # leg until the foot's underside stands ``press_lift_clear`` over a full tray's deck, then
    # it turns ``press_swing`` degrees on the turning leg, rising ``press_helix_rise`` more.
    # That leg is level (a bayonet's): a helix as shallow as the room allows (1.2 mm over
    # 105 degrees on the 10 mm post, a 7.5 degree lead) is under PETG's friction angle (about
    # 14 degrees), so gravity could not turn the press back, nor a pull on the hub turn it
    # out: the link turns it either way, and the rise's height goes to the weight instead.
    # Its weight is a tungsten-alloy block in the foot's pocket, over the nip: the foot takes
    # the whole height under the shut lower leaves, and the arm joins it at its -y end (a heel
    # the arm's end laps onto), not over it.
    press_post_d: float = 10.0
    press_hub_d: float = 18.0
    press_hub_h: float = 16.0  # the hub under the arm's top
    # The hub's bore runs on ``press_hub_up`` above the arm (outside the shaft, where nothing
    # limits it): hung from its hub alone, the press's weight 45 mm out from the post makes a
    # couple the bore takes as two side loads, and their friction (2 mu W e / h) holds it up
    # unless h > 2 mu e. At the 16 mm hub that is mu < 0.18, under PETG's 0.2-0.35: the press
    # would hang where the link left it. 56 mm lets it fall at mu 0.35 with its friction
    # 55 % of its weight, and keeps the lift's push within half the SG90's stall torque
    # (``handsfree_link_forces.fall_ratio``, ``lift_torque_nm``; measured on the solids by tests).
    press_hub_up: float = 40.0
    press_hub_fit: float = 0.4  # the hub's bore over the post
    press_pivot_gap: float = 1.0  # the hub clear of the shaft's outer wall
    # The post's axis in x: as far forward as its hub stands 0.5 mm clear of the gate blade's
    # -y screw (its washer, nut and tail behind the tray's ear; a test measures it), so the
    # foot's far corners, swinging back, stay clear of the skew beam's bore for the longest
    # foot (the foot's centre, as first drawn, was -4.2 mm)
    press_pivot_x: float = -4.3
    press_lift_clear: float = 1.5
    press_swing: float = 105.0  # out past square: the foot then stands clear of the wall
    press_helix_rise: float = 0.0
    press_arm_t: float = 5.0  # the arm, its top flush with the foot's
    press_arm_w: float = 8.0
    # the whole press's height, foot underside to arm top: all there is under the lower
    # leaves' knuckles (1.5 mm clear, ``check``) over a full deck, less the lift
    press_foot_h: float = 14.2
    # twice the foot's reach towards +y from the nip's centre line (its heel reaches the other
    # way to the tray's wall): the longest whose swing keeps the wall's window off the beam
    press_foot_w: float = 43.0
    press_side_gap: float = 1.5  # the heel's -y end inside the tray's -y wall
    press_heel: float = 7.0  # the heel, under the arm's end: its two screws' heads' width
    press_floor: float = 0.8  # the foot's printed floor under the weight (PETG on the card)
    press_pocket_wall: float = 0.8  # the pocket's printed side walls (two 0.4 mm perimeters)
    press_weight_fit: float = 0.1  # the block's clearance in its pocket, each side
    follower_d: float = 3.0  # ISO 8734 dowel, 3 x 6 mm, pressed into the hub
    follower_l: float = 6.0
    groove_w: float = 3.4
    groove_depth: float = 1.5
    press_window_margin: float = 2.0  # the -y wall's window past the press's swept band
    # The door sensors: a 3 mm IR break-beam across each bay, wall to wall at the skew
    # beam's x (behind the leaves' back ends), its axis this far over the bay's doors: as
    # low as its bore stays ``DOOR_BEAM_WEB`` clear of the leaves' knuckle seat in the walls
    door_beam_h: float = 4.0

    def __post_init__(self) -> None:
        problems = self.check()
        if problems:
            raise ValueError("hands-free geometry: " + "; ".join(problems))

    # ----- heights (z above the table) -----
    @property
    def zf(self) -> float:
        """The tray floor's top."""
        return self.g.tray_floor_z

    @property
    def centre_z0(self) -> float:
        """The card's centre line at the nip: on the tyre's top, half a card up."""
        return self.g.land_z + self.g.card_thickness_max / 2

    def doors_z(self, bay: Bay) -> float:
        """The top of ``bay``'s door leaves."""
        return self.zf + self.shaft.doors_z_mm(bay)

    # ----- the press's travel -----
    @property
    def press_pivot(self) -> tuple[float, float]:
        """(x, y) of the press post's axis: outside the -y wall, its hub clear of it."""
        return self.press_pivot_x, -(self.shaft_half_w + self.shaft_wall + self.press_hub_d / 2
                                     + self.press_pivot_gap)

    @property
    def tray_ear_corner(self) -> tuple[float, float]:
        """(x, y) of the tray's -y ear's back outer corner (``parts.tray``: the ears reach
        ``TRAY_EAR`` past the walls, from the gate's setback to the gate)."""
        return self.g.gate_setback, -(self.g.tray_inner[1] / 2 + self.g.wall + TRAY_EAR)

    @property
    def press_foot_y(self) -> tuple[float, float]:
        """(-y end, +y end) of the foot: its heel's end inside the tray's -y wall, its +y end
        ``press_foot_w / 2`` past the nip's centre line."""
        return -(self.g.tray_inner[1] / 2 - self.press_side_gap), self.press_foot_w / 2

    @property
    def press_heel_y(self) -> float:
        """Where the foot's heel (the arm's end on it) ends towards +y."""
        return self.press_foot_y[0] + self.press_heel

    @property
    def press_pocket(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1) of the foot's pocket: inside its walls, from the heel (solid, its
        own wall) to the +y end's wall."""
        x0, x1 = self.g.press_x
        t = self.press_pocket_wall
        return x0 + t, x1 - t, self.press_heel_y, self.press_foot_y[1] - t

    @property
    def press_weight_box(self) -> tuple[float, float, float, float, float]:
        """(x0, x1, y0, y1, height) of the tungsten block in the pocket, the foot on the deck
        (its underside at z 0): the pocket less its fit, as tall as the pocket is deep."""
        x0, x1, y0, y1 = self.press_pocket
        f = self.press_weight_fit
        return x0 + f, x1 - f, y0 + f, y1 - f, self.press_foot_h - self.press_floor

    def press_rest_z(self, cards: int | None = None) -> float:
        """The foot's underside resting on a deck of ``cards`` (a full tray by default)."""
        n = self.g.capacity_cards if cards is None else cards
        return self.g.nip[1] + self.g.pile_height(n)

    @property
    def press_swing_z(self) -> float:
        """The foot's underside at the top of the post's straight leg, where the swing
        starts: ``press_lift_clear`` over a full tray's deck."""
        return self.press_rest_z() + self.press_lift_clear

    def press_z_at(self, swung: float) -> float:
        """The foot's underside turned ``swung`` degrees on the turning leg."""
        return self.press_swing_z + self.press_helix_rise * swung / self.press_swing

    def press_path(self, cards: int | None = None, step_mm: float = 2.0,
                   step_deg: float = 2.0) -> list[tuple[float, float]]:
        """The press's poses (foot's underside z, degrees turned) from resting on a deck of
        ``cards`` up the straight leg, then out on the turning leg: no pose moves any point
        of it more than ``step_mm``, nor turns it more than ``step_deg``."""
        z0, z1 = self.press_rest_z(cards), self.press_swing_z
        n = max(1, math.ceil((z1 - z0) / step_mm))
        out = [(z0 + (z1 - z0) * i / n, 0.0) for i in range(n + 1)]
        k = max(1, math.ceil(self.press_swing / step_deg))
        out += [(self.press_z_at(self.press_swing * i / k), self.press_swing * i / k)
                for i in range(1, k + 1)]
        return out

    def press_outline(self) -> list[tuple[float, float, float, float]]:
        """(x0, x1, y0, y1) of the arm and of its foot (with the heel) in plan, at 0 degrees."""
        px, py = self.press_pivot
        x0, x1 = self.g.press_x
        y0, y1 = self.press_foot_y
        w = self.press_arm_w / 2
        return [(px - w, px + w, py, y0), (x0, x1, y0, y1)]

    def press_reach(self) -> float:
        """The farthest any point of the arm or its foot stands from the post's axis."""
        px, py = self.press_pivot
        return max(math.hypot(x - px, y - py) for x0, x1, y0, y1 in self.press_outline()
                   for x in (x0, x1) for y in (y0, y1))

    def press_window_x(self, step_deg: float = 0.5) -> float:
        """The back end of the -y wall's window: the least x at which the arm or its foot,
        turning, stands in that wall (sampled in plan), less ``press_window_margin``."""
        px, py = self.press_pivot
        y_out = -(self.shaft_half_w + self.shaft_wall)
        y_in = -self.shaft_half_w
        least = px
        k = math.ceil(self.press_swing / step_deg)
        for x0, x1, y0, y1 in self.press_outline():
            pts = [(x0 + (x1 - x0) * i / 20, y0 + (y1 - y0) * j / 40)
                   for i in range(21) for j in range(41)]
            for a in range(k + 1):
                t = math.radians(self.press_swing * a / k)
                c, s = math.cos(t), math.sin(t)
                for x, y in pts:
                    dx, dy = x - px, y - py
                    if y_out <= py + dx * s + dy * c <= y_in:
                        least = min(least, px + dx * c - dy * s)
        return least - self.press_window_margin

    def pile_top(self, bay: Bay, cards: int | None = None) -> float:
        n = self.bay_capacity if cards is None else cards
        return self.doors_z(bay) + n * self.g.card_thickness_max

    # ----- the door sensors -----
    @property
    def door_beam_cards(self) -> int:
        """The least pile that covers a door beam's bore wholly at the thinnest card: the
        beam is broken by this many cards or more on the doors."""
        top = self.door_beam_h + self.beam_d / 2
        return math.ceil(top / self.g.card_thickness_min - 1e-9)

    @staticmethod
    def least_pile() -> int:
        """The smallest pile any pass of the game decks' plans leaves in a bay (the least
        and the face-down pass counts, as the controller may choose either)."""
        from hardware.shuffler.handsfree import bay_counts, face_down_passes, minimum_passes

        return min(min(c.upper, c.lower) for n in GAME_DECKS
                   for k in {minimum_passes(n), face_down_passes(n)} for c in bay_counts(n, k))

    # ----- the shaft, inside -----
    @property
    def shaft_x(self) -> tuple[float, float]:
        """(back, front) inner faces: the tray's inside plus a share of the spare length."""
        front = self.g.gate_x + (self.shaft.inside_length_mm - self.g.tray_inner[0]) / 2
        return front - self.shaft.inside_length_mm, front

    @property
    def shaft_half_w(self) -> float:
        return self.shaft.inside_width_mm / 2

    @property
    def hinge_y(self) -> float:
        """The hinge pins' |y|: in the long walls, so that a leaf turned down lies in its
        pocket, clear of the shaft's inside."""
        return self.shaft_half_w + self.leaf_t / 2 + 0.3

    # ----- the path -----
    def pieces(self, bay: Bay) -> list[Piece]:
        """The centre line from the nip to ``bay``'s slot (the front wall's inner face)."""
        r, s = self.shaft.curl_radius_mm, self.shaft
        into_curl = s.flap_mm - self.curl_start
        if bay is Bay.LOWER:
            head = [Piece(self.curl_start), Piece(math.pi * r, r)]
        else:
            heading = (into_curl - self.fork_reverse) / r
            rise = [Piece(self.curl_start), Piece(into_curl, r), Piece(self.fork_reverse, -r),
                    Piece((math.pi / 2 - heading) * r, r)]
            top = self._run(rise + [Piece(math.pi / 2 * r, r)])[-1].z
            # the straight rise makes the top run ``upper_rise`` above the lower branch's
            up = self.centre_z0 + 2 * r + self.upper_rise - top
            head = rise + [Piece(up), Piece(math.pi / 2 * r, r)]
        end = self._run(head)[-1]
        return head + [Piece(end.x - self.shaft_x[1])]

    @property
    def upper_rise(self) -> float:
        """The upper branch's top run above the lower's: the lower bay's roof (the upper
        doors and their knuckles) and a full upper pile above its slot's floor."""
        return self.shaft.upper_doors_z_mm - self.shaft.lower_doors_z_mm

    def _run(self, pieces: list[Piece], step: float = 0.5) -> list[Pose]:
        x, z, h, s = 0.0, self.centre_z0, 0.0, 0.0
        out = [Pose(s, x, z, h)]
        for p in pieces:
            n = max(1, math.ceil(p.length / step))
            for _ in range(n):
                ds = p.length / n
                if p.radius:
                    dh = ds / p.radius
                    # exact chord of the arc: no drift with the step
                    c = 2 * p.radius * math.sin(dh / 2)
                    x += c * math.cos(h + dh / 2)
                    z += c * math.sin(h + dh / 2)
                    h += dh
                else:
                    x += ds * math.cos(h)
                    z += ds * math.sin(h)
                s += ds
                out.append(Pose(s, x, z, h))
        return out

    def path(self, bay: Bay, step: float = 0.5) -> list[Pose]:
        """The centre line sampled every ``step`` mm or less, nip to ``bay``'s slot."""
        return self._run(self.pieces(bay), step)

    def at(self, bay: Bay, s: float) -> Pose:
        """The centre line ``s`` mm from the nip (past the slot: on into the bay, level).

        Raises ValueError for an ``s`` before the nip.
        """
        if s < 0:
            raise ValueError(f"{s:.1f} mm is before the nip")
        pts = self.path(bay, 0.25)
        if s >= pts[-1].s:
            end = pts[-1]
            return Pose(s, end.x - (s - end.s), end.z, math.pi)
        i = min(int(s / (pts[-1].s / (len(pts) - 1))), len(pts) - 2)
        while pts[i].s > s:
            i -= 1
        while pts[i + 1].s < s:
            i += 1
        a, b = pts[i], pts[i + 1]
        t = (s - a.s) / (b.s - a.s)
        return Pose(s, a.x + t * (b.x - a.x), a.z + t * (b.z - a.z),
                    a.heading + t * (b.heading - a.heading))

    def slot_length(self, bay: Bay) -> float:
        """Nip to ``bay``'s slot along the centre line (measured on the sampled path)."""
        pts = self.path(bay, 0.1)
        return sum(math.dist((a.x, a.z), (b.x, b.z)) for a, b in zip(pts, pts[1:], strict=False))

    def slot_z(self, bay: Bay) -> float:
        """The centre line's height where it enters ``bay``."""
        return self.path(bay)[-1].z

    def parting(self, apart: float) -> float:
        """Path length past the fork where the upper branch's centre line first stands
        ``apart`` mm from the lower branch's (measured between the sampled paths)."""
        fork = self.shaft.flap_mm
        lower = [(p.x, p.z) for p in self.path(Bay.LOWER, 0.25) if p.s >= fork - 1]
        for p in self.path(Bay.UPPER, 0.25):
            if p.s > fork and min(math.dist((p.x, p.z), q) for q in lower) >= apart:
                return p.s - fork
        raise ValueError(f"the branches never stand {apart} mm apart")

    @property
    def septum_apex(self) -> float:
        """Past the fork, where the two channels (``gap`` each) part."""
        return self.parting(self.gap)

    @property
    def septum_start(self) -> float:
        """Past the fork, where the septum has its flat (``Geometry.septum_flat``)."""
        return self.parting(self.gap + self.g.septum_flat)

    def tightest_bend(self, step: float = 2.0) -> float:
        """The smallest radius of the centre line over both paths: the circle through each
        three points ``step`` apart (the path's own points, not a stated radius)."""
        best = math.inf
        for bay in BAYS:
            pts = self.path(bay, step / 4)
            for a, b, c in zip(pts, pts[4:], pts[8:], strict=False):
                best = min(best, _circumradius((a.x, a.z), (b.x, b.z), (c.x, c.z)))
        return best

    def station(self, bay: Bay, s: float) -> tuple[float, float, float]:
        """(x, z, heading) of the centre line at ``s``."""
        p = self.at(bay, s)
        return p.x, p.z, p.heading

    def floor_point(self, bay: Bay, s: float, side: float = -1.0, extra: float = 0.0
                    ) -> tuple[float, float]:
        """The point beside the centre line at ``s`` on the outside of the curl (``side``
        -1: the floor the card slides on, towards -normal) ``gap / 2 + extra`` away."""
        p = self.at(bay, s)
        d = (self.gap / 2 + extra) * side
        return p.x - d * math.sin(p.heading), p.z + d * math.cos(p.heading)

    def check(self) -> list[str]:
        """What makes the path unbuildable, in words (empty when it is fine)."""
        out = []
        s = self.shaft
        fork = self.at(Bay.LOWER, s.flap_mm)
        if fork.heading <= 0:
            out.append("the fork lies before the curl")
        lower_z = self.slot_z(Bay.LOWER) - self.g.card_thickness_max / 2
        if lower_z < self.pile_top(Bay.LOWER) + self.slot_clearance:
            out.append(f"the lower slot's floor at {lower_z - self.zf:.1f} mm is under a full "
                       f"lower pile plus {self.slot_clearance} mm")
        upper_z = self.slot_z(Bay.UPPER) - self.g.card_thickness_max / 2
        if upper_z < self.pile_top(Bay.UPPER) + self.slot_clearance:
            out.append(f"the upper slot's floor at {upper_z - self.zf:.1f} mm is under a full "
                       f"upper pile plus {self.slot_clearance} mm")
        roof = self.slot_z(Bay.LOWER) + self.gap / 2
        if roof > self.doors_z(Bay.UPPER) - self.leaf_t - self.hinge_d / 2:
            out.append("the lower slot's roof reaches the upper doors")
        if self.pieces(Bay.UPPER)[2].turn <= -self.pieces(Bay.UPPER)[1].turn:
            out.append("the upper branch's reverse arc turns it level or down")
        if self.pieces(Bay.UPPER)[4].length < 0:
            out.append("the upper branch has no straight rise")
        tip = self.g.vane_length + self.g.vane_clearance
        if tip >= self.septum_apex:
            out.append(f"the flap ({self.g.vane_length} mm) reaches the septum at "
                       f"{self.septum_apex:.1f} mm past the fork")
        elif self.septum_apex > tip + SEPTUM_GAP:
            out.append(f"the septum starts {self.septum_apex:.1f} mm past the fork, more than "
                       f"{SEPTUM_GAP} mm past the flap's tip: a card to the lower bay would "
                       f"find no floor there")
        if self.pieces(Bay.LOWER)[-1].length < self.wall:
            out.append("the lower curl's top stands over the shaft")
        arm_top = self.press_z_at(self.press_swing) + self.press_foot_h
        knuckle = self.doors_z(Bay.LOWER) - self.leaf_t / 2 - self.hinge_d / 2
        if arm_top + 1.5 > knuckle:
            out.append(f"the press arm, lifted, reaches {arm_top - self.zf:.1f} mm: within "
                       f"1.5 mm of the lower leaves' knuckles")
        if math.dist(self.press_pivot, self.tray_ear_corner) < self.press_hub_d / 2 + 0.5:
            out.append("the press's hub meets the tray's ear")
        if self.press_pocket[3] - self.press_pocket[2] < 10.0:
            out.append("the press foot's pocket is under 10 mm across")
        skew_back = self.shaft_x[0] + SKEW_BEAM_SETBACK + self.beam_d / 2
        if self.press_window_x() < skew_back + 1.0:
            out.append(f"the press's window in the -y wall reaches x = "
                       f"{self.press_window_x():.1f} mm, into the skew beam's bore")
        seat = -self.leaf_t / 2 + (self.hinge_d + 0.6) / 2  # the knuckle's seat, over the doors
        if self.door_beam_h - self.beam_d / 2 < seat + DOOR_BEAM_WEB:
            out.append(f"the door beams' bores at {self.door_beam_h} mm over the doors come "
                       f"within {DOOR_BEAM_WEB} mm of the leaves' knuckle seats")
        if self.door_beam_cards > self.least_pile():
            out.append(f"the door beams need {self.door_beam_cards} cards on the doors, more "
                       f"than the least pile a game deck's plan makes ({self.least_pile()})")
        return out


def _circumradius(a: tuple[float, float], b: tuple[float, float],
                  c: tuple[float, float]) -> float:
    """The radius of the circle through three points (inf when they are in line)."""
    ab, bc, ca = math.dist(a, b), math.dist(b, c), math.dist(c, a)
    cross = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return math.inf if cross < 1e-12 else ab * bc * ca / (2 * cross)


def card_strain(radius_mm: float, thickness_mm: float) -> float:
    """A card's surface strain bent to ``radius_mm`` on its centre line: t / 2R."""
    return thickness_mm / (2 * radius_mm)


HANDSFREE = HandsFree()
