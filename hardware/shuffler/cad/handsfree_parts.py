"""The hands-free build's printed parts and the bought parts they hold, as build123d solids.

Built in place in the Lotus build's frame (``params``), from ``handsfree_params.HandsFree``.
The hands-free machine keeps the Lotus build's tray floor, gate, feed roller and motor; its
tray's walls stop ``tray_wall_h`` up (the window side has none: the lid is that wall) and
the tray floats on its load cell, touching nothing else. Over it: the shaft (back and long
walls and a closed top, printed top down, with the press's post), the riser (its body and
its cover, lugs round every hub's bearings, the flap in its fork) whose front plate closes
the shaft above the gate blade, the door leaves, the press (arm, foot and the sleeve that
lengthens its bore) and its link (the lift's and the turn's servos, horn, lever and
mounts: "the press's link", with its forces and times), the lid. The
riser's belt, idler, motor and its bracket are drawn at the end ("the riser's drive"), and
after them the solenoid that turns the flap, its bracket and its lever ("the router's
solenoid").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from build123d import (
    Axis,
    Circle,
    Cylinder,
    Helix,
    Part,
    Plane,
    Polygon,
    Pos,
    Rectangle,
    Rot,
    extrude,
    revolve,
    sweep,
)

from hardware.shuffler.cad import parts
from hardware.shuffler.cad.fasteners import COUNTERSINK_DEPTH
from hardware.shuffler.cad.handsfree_params import BAYS, HANDSFREE, SKEW_BEAM_SETBACK, HandsFree
from hardware.shuffler.cad.parts import _box, _prism_xz, _y_cylinder, _z_cylinder
from hardware.shuffler.handsfree import Bay

Point = tuple[float, float]


# ----- the path's outlines -----

def _offset_line(h: HandsFree, bay: Bay, s0: float, s1: float, off: float,
                 step: float = 2.0) -> list[Point]:
    """The line ``off`` mm along the normal (towards the curl's centre) from the centre
    line, from ``s0`` to ``s1`` along the path to ``bay``."""
    n = max(2, math.ceil((s1 - s0) / step))
    out = []
    for i in range(n + 1):
        p = h.at(bay, s0 + (s1 - s0) * i / n)
        out.append((p.x - off * math.sin(p.heading), p.z + off * math.cos(p.heading)))
    return out


def _strip(h: HandsFree, bay: Bay, s0: float, s1: float, lo: float, hi: float) -> list[Point]:
    """The side-view outline between offsets ``lo`` and ``hi`` from ``s0`` to ``s1``."""
    return _offset_line(h, bay, s0, s1, lo) + _offset_line(h, bay, s0, s1, hi)[::-1]


def floor_off(h: HandsFree) -> float:
    """The channel's floor (the curl's outside, the card's underside) from the centre line."""
    return -h.g.card_thickness_max / 2


def roof_off(h: HandsFree) -> float:
    return floor_off(h) + h.gap


@dataclass(frozen=True)
class Roller:
    """A roller pair on the riser: ``bay``'s path at ``s``; the driven hub under the floor,
    the sprung idler over the roof."""

    name: str
    bay: Bay
    s: float

    def hub_axis(self, h: HandsFree) -> Point:
        p = h.at(self.bay, self.s)
        off = floor_off(h) - h.hub_d / 2
        return p.x - off * math.sin(p.heading), p.z + off * math.cos(p.heading)

    def idler_axis(self, h: HandsFree) -> Point:
        p = h.at(self.bay, self.s)
        off = -floor_off(h) + h.idler_d / 2
        return p.x - off * math.sin(p.heading), p.z + off * math.cos(p.heading)


def rollers(h: HandsFree = HANDSFREE) -> list[Roller]:
    """T1 (both paths), T2L, T2U and T3U, at shaft.py's stations."""
    s = h.shaft
    return [Roller("T1", Bay.LOWER, s.t1_mm), Roller("T2L", Bay.LOWER, s.t2_mm),
            Roller("T2U", Bay.UPPER, s.t2_mm), Roller("T3U", Bay.UPPER, s.t3_upper_mm)]


def riser_start(h: HandsFree) -> float:
    """The riser's first point along the path: past the tray's lip by the float gap."""
    return h.g.router_x0 + h.float_gap


def _channel_outline(h: HandsFree, bay: Bay, lo: float, hi: float, s_from: float) -> Part:
    end = h.path(bay)[-1].s
    return _prism_xz(_strip(h, bay, s_from, end + h.wall + 0.5, lo, hi), -1, 1)


def _profile(h: HandsFree, outline: list[Point]) -> object:
    return Polygon(*outline, align=None)


def _side_outline(h: HandsFree) -> list[Point]:
    """The riser's side plates: round the upper branch's outside, down the shaft's front."""
    fo = floor_off(h) - h.wall
    start = riser_start(h)
    end = h.path(Bay.UPPER)[-1].s
    outer = _offset_line(h, Bay.UPPER, start, end, fo - 0.0, step=2.0)
    front = h.shaft_x[1]
    top = riser_top(h)
    return [(start, h.g.land_z - h.wall - 8.0), *outer[1:],
            (front, top), (front, h.g.tray_wall_top + h.g.gate_travel + 0.5),
            (front + h.wall, h.g.tray_wall_top + h.g.gate_travel + 0.5),
            (front + h.wall, h.g.land_z + h.float_gap),
            (start, h.g.land_z + h.float_gap)]


def riser_top(h: HandsFree) -> float:
    """The riser's front plate's top: over the upper slot's roof wall."""
    return h.slot_z(Bay.UPPER) + roof_off(h) + h.wall


def _xz_prism(points: list[Point], y0: float, y1: float) -> Part:
    return _prism_xz(points, y0, y1)


def riser_halves(h: HandsFree) -> tuple[float, float, float]:
    """(inner y, body's outer y, cover's outer y): the channel's half width and the side
    plates on either side (the body's at -y, the cover's at +y)."""
    yi = h.g.channel_width / 2
    return yi, -(yi + h.wall), yi + h.wall


def _channel_walls(h: HandsFree) -> Part:
    """Floor and roof of both branches, and the lower branch's start, as one side-view set."""
    start = riser_start(h)
    fo, ro = floor_off(h), roof_off(h)
    walls = None
    for bay in BAYS:
        end = h.path(bay)[-1].s
        for lo, hi in ((fo - h.wall, fo), (ro, ro + h.wall)):
            w = _prism_xz(_strip(h, bay, start, end, lo, hi), 0, 1)
            walls = w if walls is None else walls + w
    return walls


VOID_OVER = 0.02  # the channel is cut this much over each side: more than the sagitta of
# the outline's 2 mm chords on the 40 mm curl (0.0125 mm), so no chord stands into the path


def _voids(h: HandsFree, y0: float, y1: float) -> Part:
    start = riser_start(h) - 1
    fo, ro = floor_off(h) - VOID_OVER, roof_off(h) + VOID_OVER
    out = None
    for bay in BAYS:
        end = h.path(bay)[-1].s + h.wall + 2
        v = _prism_xz(_strip(h, bay, start, end, fo, ro), y0, y1)
        out = v if out is None else out + v
    return out


def riser_body(h: HandsFree = HANDSFREE) -> Part:
    """The riser: the -y side plate with the channel's floors and roofs standing on it (both
    branches, the septum where they part), the front plate over the shaft with each bay's
    slot, the roller pairs' bearing seats and windows, the beams' bores, the flap's gap."""
    yi, yb, _yc = riser_halves(h)
    body = _xz_prism(_side_outline(h), yb, -yi)
    # the channel's walls across the card's width
    start = riser_start(h)
    fo, ro = floor_off(h), roof_off(h)
    for bay in BAYS:
        end = h.path(bay)[-1].s
        for lo, hi in ((fo - h.wall, fo), (ro, ro + h.wall)):
            body += _xz_prism(_strip(h, bay, start, end, lo, hi), -yi, yi)
    # the front plate, above the gate blade, closing the shaft
    front = h.shaft_x[1]
    zb = h.g.tray_wall_top + h.g.gate_travel + 0.5
    top = riser_top(h)
    body += _box(front, front + h.wall, -yi, yi, zb, top)
    body -= _voids(h, -yi, yi)
    # the flap's opening in the lower branch's floor, from the fork to past its tip
    fork = h.shaft.flap_mm
    body -= _xz_prism(_strip(h, Bay.LOWER, fork - 0.5, fork + h.g.vane_length + 0.4,
                             fo - h.wall - 0.1, fo + 0.1), -yi, yi)
    body -= flap_swing(h)
    body -= _flap_axle_hole(h, yb - 1, yi)
    for r in rollers(h):
        body += hub_lug(h, r, yb, -yi)
    for r in rollers(h):
        body -= _roller_cutouts(h, r, yb)
    for bay in BAYS:
        bx, bz = beam_point(h, bay)
        body -= _y_cylinder(bx, bz, h.beam_d, yb - 1, -yi + 0.01)
    body -= idler_pin_hole(h, yb - 1, -yi + 0.01)
    for x, z in riser_screw_points(h):
        body += _y_cylinder(x, z, RISER_BOSS, -yi - 0.01, yi)
        body -= _y_cylinder(x, z, 2.5, -yi + 2.0, yi + 0.01)  # the cover's thread-forming M3s
    return body - router_pilots(h)


def riser_cover(h: HandsFree = HANDSFREE) -> Part:
    """The riser's +y side plate, screwed to the channel's walls: bearing seats and beams."""
    yi, _yb, yc = riser_halves(h)
    cover = _xz_prism(_side_outline(h), yi, yc)
    cover -= _flap_axle_hole(h, yi - 1, yc + 1)
    for r in rollers(h):
        cover += hub_lug(h, r, yi, yc)
    for r in rollers(h):
        cover -= _roller_cutouts(h, r, yc, side=1)
    for bay in BAYS:
        bx, bz = beam_point(h, bay)
        cover -= _y_cylinder(bx, bz, h.beam_d, yi - 0.01, yc + 1)
    for x, z in riser_screw_points(h):
        cover -= _y_cylinder(x, z, 3.4, yi - 1, yc + 1)
    return cover - idler_pin_hole(h, yi - 1, yc + 1)


def _flap_axle_hole(h: HandsFree, y0: float, y1: float) -> Part:
    x, z = flap_pivot(h)
    return _y_cylinder(x, z, h.g.axle_d + 0.3, y0, y1)


def flap_pivot(h: HandsFree) -> Point:
    """The flap's axle: under the lower branch's floor at the fork."""
    p = h.at(Bay.LOWER, h.shaft.flap_mm)
    off = floor_off(h) - h.g.vane_thickness / 2 - 0.05
    return p.x - off * math.sin(p.heading), p.z + off * math.cos(p.heading)


def beam_point(h: HandsFree, bay: Bay) -> Point:
    """Each bay's beam: mid-channel, ``NIP_TO_BEAM`` along its branch."""
    p = h.at(bay, h.shaft.beam_mm)
    off = (floor_off(h) + roof_off(h)) / 2
    return p.x - off * math.sin(p.heading), p.z + off * math.cos(p.heading)


HUB_LUG_WALL = 2.5  # plate round each driven hub's bearing seat


def hub_lug(h: HandsFree, r: Roller, y0: float, y1: float) -> Part:
    """The side plate's lug round a driven hub's bearing: the hubs run under the channel's
    floor, outside the curl, beyond the plate's edge (the floor's outer face), so the plate
    reaches out to carry each bearing (a disc round the axis, joined to the floor wall)."""
    hx, hz = r.hub_axis(h)
    p = h.at(r.bay, r.s)
    tx, tz = math.cos(p.heading), math.sin(p.heading)
    rad = h.bearing_od / 2 + HUB_LUG_WALL
    inner = floor_off(h) - h.wall / 2  # inside the floor wall
    fx, fz = p.x - inner * math.sin(p.heading), p.z + inner * math.cos(p.heading)
    quad = [(hx - rad * tx, hz - rad * tz), (hx + rad * tx, hz + rad * tz),
            (fx + rad * tx, fz + rad * tz), (fx - rad * tx, fz - rad * tz)]
    return _y_cylinder(hx, hz, 2 * rad, y0, y1) + _prism_xz(quad, y0, y1)


def _roller_cutouts(h: HandsFree, r: Roller, y_out: float, side: int = -1) -> Part:
    """Windows through the floor and roof for the hub and the idler, the hub's bearing seat
    (6 mm, 2.5 deep from the plate's outside) and shaft hole, the idler's sprung slot."""
    yi = h.g.channel_width / 2
    hx, hz = r.hub_axis(h)
    ix, iz = r.idler_axis(h)
    wy = yi + 0.01
    out = _y_cylinder(hx, hz, h.hub_d + 2, -wy, wy) + _y_cylinder(ix, iz, h.idler_d + 2, -wy, wy)
    y_in = side * yi
    lo, hi = sorted((y_out - side * 1.0, y_in))
    out += _y_cylinder(hx, hz, 3.4, lo - 1, hi + 1)
    seat = sorted((y_out + side * 0.01, y_out - side * h.bearing_w))
    out += _y_cylinder(hx, hz, h.bearing_od + 0.1, *seat)
    # the idler's pin rides in a slot along the normal: its spring pushes it onto the card
    p = h.at(r.bay, r.s)
    nx, nz = -math.sin(p.heading), math.cos(p.heading)
    for k in range(5):
        out += _y_cylinder(ix + nx * k * 0.5, iz + nz * k * 0.5, 3.2, lo - 1, hi + 1)
    return out


RISER_BOSS = 8.0  # the columns across the channel's width the cover's screws thread into


# From the lower curl's centre: the columns inside the curl, clear of its idlers (they run
# 30-40 mm from the centre), of the gate blade (up to x = 11.8 mm), of the riser motor's 24 T
# pulley and of the belt's runs past it. The first two carry the motor bracket's legs too.
RISER_SCREWS = ((18.0, -22.36), (-7.0, 27.64), (2.0, -16.36), (8.0, 27.64))


def riser_screw_points(h: HandsFree) -> list[Point]:
    """(x, z) of the M3 screws that hold the cover, in columns inside the lower curl (the
    first two through the riser motor bracket's legs as well)."""
    cx, cz = h.curl_start, h.centre_z0 + h.shaft.curl_radius_mm
    return [(cx + dx, cz + dz) for dx, dz in RISER_SCREWS]


def riser_hub(h: HandsFree = HANDSFREE, r: Roller | None = None) -> Part:
    """A driven hub: two O-ring grooves, on its 3 mm shaft (all four alike; T1's here)."""
    r = r or rollers(h)[0]
    hx, hz = r.hub_axis(h)
    half = h.g.channel_width / 2 - 0.5
    hub = _y_cylinder(hx, hz, h.hub_d - 2 * 1.8 + 2 * 0.8, -half, half)  # flanges
    for y in (-18.0, 18.0):
        groove = _y_cylinder(hx, hz, h.hub_d, y - 1.35, y + 1.35)
        groove -= _y_cylinder(hx, hz, h.hub_d - 2 * 2.4, y - 2, y + 2)
        hub -= groove
    return hub - _y_cylinder(hx, hz, 3.1, -half - 1, half + 1)


def riser_idler(h: HandsFree = HANDSFREE, r: Roller | None = None) -> Part:
    """A plain idler over the card, free on its pin."""
    r = r or rollers(h)[0]
    ix, iz = r.idler_axis(h)
    half = h.g.channel_width / 2 - 0.5
    return _y_cylinder(ix, iz, h.idler_d, -half, half) - _y_cylinder(ix, iz, 3.3, -half - 1,
                                                                     half + 1)


def riser_rollers(h: HandsFree = HANDSFREE) -> Part:
    """Every hub and idler in place (printed, four of each)."""
    out = None
    for r in rollers(h):
        for p in (riser_hub(h, r), riser_idler(h, r)):
            out = p if out is None else out + p
    return out


def riser_tyres(h: HandsFree = HANDSFREE) -> Part:
    """The O-rings on the hubs: their tops are the channel's floor line (the card's
    underside)."""
    from build123d import Torus

    out = None
    for r in rollers(h):
        hx, hz = r.hub_axis(h)
        for y in (-18.0, 18.0):
            ring = Pos(hx, y, hz) * Rot(90, 0, 0) * Torus(h.hub_d / 2 - 1.2, 1.2)
            out = ring if out is None else out + ring
    return out


def riser_shafts(h: HandsFree = HANDSFREE) -> Part:
    """The 3 mm steel shafts (80 mm) through the hubs, and the bearings on them, and the
    GT2 pulleys outside the cover."""
    yi, yb, yc = riser_halves(h)
    out = None
    for r in rollers(h):
        hx, hz = r.hub_axis(h)
        part = _y_cylinder(hx, hz, 3.0, yc + 9.0 - 80.0, yc + 9.0)
        for y0, y1 in ((yb, yb + h.bearing_w), (yc - h.bearing_w, yc)):
            part += _y_cylinder(hx, hz, h.bearing_od, y0, y1) - _y_cylinder(hx, hz, 3.0, y0 - 1,
                                                                              y1 + 1)
        part += gt2_pulley(hx, hz, 16, yc, 7.0)
        ix, iz = r.idler_axis(h)
        part += _y_cylinder(ix, iz, 3.0, yb + 0.5, yc - 0.5)  # the idler's pin
        out = part if out is None else out + part
    return out


def gt2_pulley(x: float, z: float, teeth: int, y_face: float, hub: float) -> Part:
    """A GT2 pulley on a y axis: its teeth (the outside diameter, the pitch circle less
    0.254 mm a side) from 1 mm past ``y_face`` for 7 mm between two 0.4 mm flanges, then a
    ``hub`` mm long set-screw hub."""
    pitch = teeth * 2.0 / math.pi
    od = pitch - 0.508
    y0 = y_face + 1.0
    out = _y_cylinder(x, z, od, y0, y0 + 7.0)
    for a in (y0, y0 + 6.6):
        out += _y_cylinder(x, z, od + 2.4, a, a + 0.4)
    if hub:
        out += _y_cylinder(x, z, min(16.0, od - 2.0), y0 + 7.0 - 0.01, y0 + 7.0 + hub)
    return out


# ----- the shaft -----

def shaft_outer(h: HandsFree) -> tuple[float, float, float, float]:
    """(back outer x, front x, outer |y|, top z): the back wall holds the pads' pockets."""
    xb, xf = h.shaft_x
    top = h.slot_z(Bay.UPPER) + roof_off(h) + h.wall + h.roof - h.wall
    return xb - h.wall - h.end_pad, xf, h.shaft_half_w + h.shaft_wall, top


def end_pad_box(h: HandsFree, bay: Bay, grow: float = 0.0) -> tuple[float, ...]:
    """(x0, x1, y0, y1, z0, z1) of ``bay``'s felt pad in its pocket in the back wall, its
    face flush with the wall's inner face (``grow``: the pocket's clearance round it)."""
    xb = h.shaft_x[0]
    zd = h.doors_z(bay)
    half = h.end_pad_w / 2 + grow
    return (xb - h.end_pad - grow, xb, -half, half, zd + 0.5 - grow, zd + 0.5 + h.end_pad_h + grow)


def end_pads(h: HandsFree = HANDSFREE) -> Part:
    """The two bays' self-adhesive felt pads, each in its pocket over its bay's doors."""
    out = None
    for bay in BAYS:
        p = _box(*end_pad_box(h, bay))
        out = p if out is None else out + p
    return out


def shaft_bottom(h: HandsFree) -> float:
    return h.zf + h.tray_wall_h + h.float_gap


LEAF_END = 1.0  # each leaf's front end short of the gate's ears


def skew_x(h: HandsFree) -> float:
    """The skew beam's x: across the shaft near its back wall, behind the press's foot and
    the leaves' back ends."""
    return h.shaft_x[0] + SKEW_BEAM_SETBACK


def leaf_x(h: HandsFree) -> tuple[float, float]:
    """(back, front) of every door leaf: from past the skew beam to short of the blade."""
    return skew_x(h) + h.beam_d / 2 + 2.0, h.g.gate_setback - LEAF_END


def shaft(h: HandsFree = HANDSFREE) -> Part:
    """The shaft: back wall, long walls with the open leaves' pockets and vents, the closed
    top; the window side's wall stops over the window; the hinge pins' holes, the skew
    beam's bore, the press arm's notch, the lid's hinge knuckles."""
    xo, xf, yo, top = shaft_outer(h)
    xb, _ = h.shaft_x
    yi = h.shaft_half_w
    z0 = shaft_bottom(h)
    g = h.g
    # the long walls end short of the gate blade; the riser's front plate closes the front
    body = _box(xo, g.gate_x - 0.1, -yo, yo, z0, top)
    body -= _box(xb, xf + 1, -yi, yi, z0 - 1, top - h.wall)
    body -= _box(g.gate_setback - 0.5, xf + 1, -yo - 1, yo + 1, z0 - 1,
                 h.zf + g.ear_height + h.float_gap)
    # the window: the +y wall stops above it (the lid covers it)
    body -= _box(xo - 1, xf + 1, yi - 0.01, yo + 1, z0 - 1, h.zf + h.window_h)
    lx0, lx1 = leaf_x(h)
    for bay in BAYS:
        zd = h.doors_z(bay)
        for side in (-1, 1):
            # the open leaf hangs in this pocket (2.5 mm into the wall)
            pocket = sorted((side * (yi - 0.01), side * (h.hinge_y + h.leaf_t / 2 + 0.3)))
            body -= _box(lx0 - 0.5, lx1 + 0.5, *pocket, zd - h.leaf_width - 3.0, zd + 1.5)
            body -= _x_cylinder(xo - 1, lx1 + 0.5, side * h.hinge_y, hinge_z(h, bay),
                                h.hinge_d + 0.6)
            # the hinge pin's holes through the back wall and the knuckle's seat
            body -= _x_cylinder(xo - 1, xb + 1, side * h.hinge_y, hinge_z(h, bay),
                                h.hinge_d + 0.4)
        # vents over the doors, upright slots (no bridge as printed, top down)
        for x in vent_xs(h):
            for side in (-1, 1):
                if side > 0 and zd + 4 < h.zf + h.window_h:
                    continue
                y = sorted((side * (yi - 1), side * (yo + 1)))
                body -= _box(x - h.vent_w / 2, x + h.vent_w / 2, *y, zd + 4, zd + 24)
    # each bay's felt pad sits in a pocket, its face flush with the wall's; the pocket's
    # floor slopes at 45 degrees, so upside down on the bed it needs no bridge
    for bay in BAYS:
        x0, _x1, y0, y1, z0, z1 = end_pad_box(h, bay, 0.2)
        d = xb - x0
        body -= _xz_prism([(x0, z0), (xb + 0.01, z0 - d - 0.01), (xb + 0.01, z1), (x0, z1)],
                          y0, y1)
    # the skew beam's bore across y, through the -y wall (the receiver is in the lid)
    body -= _y_cylinder(skew_x(h), skew_z(h), h.beam_d, -yo - 1, -yi + 0.01)
    # the press's arm and foot leave through a notch at the -y wall's foot
    nx0, nx1, nz0, nz1 = press_notch(h)
    body -= _box(nx0, nx1, -yo - 1, -yi + 0.01, nz0, nz1)
    for x in lid_hinge_xs(h):
        body += _lid_knuckle(h, x)
    body += servo_bosses(h) + switch_mount(h) + press_post(h) + link_bosses(h)
    for _x, y, z in servo_mount_screws(h):  # the pilots run on into the back wall
        body -= _x_cylinder(xo - SERVO_BOSS - 1, xo + 2.0, y, z, 2.5)
    body -= door_beam_cuts(h)
    return body


def _x_cylinder(x0: float, x1: float, y: float, z: float, d: float) -> Part:
    return Pos(x0, y, z) * Rot(0, 90, 0) * Cylinder(d / 2, x1 - x0, align=parts.LOW)


def hinge_z(h: HandsFree, bay: Bay) -> float:
    """The hinge pins' height: the leaves' top face is at the doors' height."""
    return h.doors_z(bay) - h.leaf_t / 2


def skew_z(h: HandsFree) -> float:
    return h.zf + h.shaft.skew_beam_z_mm


def vent_xs(h: HandsFree) -> list[float]:
    xb, xf = h.shaft_x
    return [xb + 12 + 17 * k for k in range(5)]


# ----- the doors -----

def leaf(h: HandsFree, bay: Bay, side: int, opened: float = 0.0, gear: bool = True) -> Part:
    """One door leaf of ``bay`` on the ``side`` (-1: -y) wall, turned ``opened`` degrees
    (0 closed, 90 hanging in its pocket): the plate, its knuckle through the back wall, and
    the spur segment that meshes with the other leaf's behind it (``gear``: printed apart,
    pressed and glued onto the knuckle's end with the leaves shut)."""
    lx0, lx1 = leaf_x(h)
    xo = shaft_outer(h)[0]
    hy, hz = side * h.hinge_y, hinge_z(h, bay)
    zd = h.doors_z(bay)
    # built about the hinge: the plate reaches towards the centre line
    inner = side * (h.hinge_y - h.leaf_width)
    plate = _box(lx0, lx1, *sorted((hy, inner)), zd - h.leaf_t, zd)
    plate += _x_cylinder(lx0, lx1, hy, hz, h.hinge_d)
    plate += _x_cylinder(gear_x(h, bay)[0], lx0 + 0.01, hy, hz, h.hinge_d - 1.0)
    if gear:
        plate += gear_segment(h, bay, side)
    plate -= _x_cylinder(xo - 20, lx1 + 1, hy, hz, h.pin_d + 0.3)
    # opening turns the leaf down: the -y leaf about +x, the +y leaf about -x
    return Pos(0, hy, hz) * Rot(side * opened, 0, 0) * Pos(0, -hy, -hz) * plate


GEAR_T = 4.0
GEAR_GAP = 1.0  # between the back wall and the lower bay's gears, and between the two pairs


def gear_x(h: HandsFree, bay: Bay) -> tuple[float, float]:
    """(x0, x1) of ``bay``'s gear segments: the lower pair next to the back wall, the upper
    pair behind it (each pair turns clear of the other's knuckles and horn)."""
    x1 = shaft_outer(h)[0] - GEAR_GAP - (0.0 if bay is Bay.LOWER else GEAR_T + GEAR_GAP)
    return x1 - GEAR_T, x1


def gear_segment(h: HandsFree, bay: Bay, side: int) -> Part:
    """A spur segment on the leaf's knuckle, behind the back wall: pitch radius the hinge's
    |y|, so the two leaves' segments mesh on the centre line and turn them alike."""
    x0, x1 = gear_x(h, bay)
    hy, hz = side * h.hinge_y, hinge_z(h, bay)
    m = h.gear_module
    rp = h.hinge_y
    teeth = round(2 * rp / m)
    ra, rf = rp + m, rp - 1.25 * m
    # the sector spans from pointing up to 10 degrees below the centre line's direction
    pts = [(0.0, 0.0)]
    a0, a1 = -100.0, 10.0  # above the hinge: opening turns the top part to the centre
    n = teeth * (a1 - a0) / 360
    steps = max(4, round(n)) * 4
    for k in range(steps + 1):
        a = math.radians(a0 + (a1 - a0) * k / steps)
        r = ra if (k % 4) in (1, 2) else rf
        pts.append((r * math.cos(a), -r * math.sin(a)))
    # (u, v): u towards the centre line, v down; turn into (y, z)
    yz = [(hy - side * u, hz + v) for u, v in pts]
    face = Rot(0, 90, 0) * Polygon(*[(-z, y) for y, z in yz], align=None)
    seg = extrude(face, amount=x1 - x0)
    box = seg.bounding_box()
    return Pos(x0 - box.min.X, 0, 0) * seg


def door_leaves(h: HandsFree = HANDSFREE, opened: float = 0.0) -> Part:
    """All four leaves, at ``opened`` degrees."""
    out = None
    for bay in BAYS:
        for side in (-1, 1):
            p = leaf(h, bay, side, opened)
            out = p if out is None else out + p
    return out


def hinge_pins(h: HandsFree = HANDSFREE) -> Part:
    """The 2 mm steel pins (70 mm) the leaves turn on, through the back wall."""
    out = None
    for bay in BAYS:
        for side in (-1, 1):
            x0 = gear_x(h, bay)[0] - 0.5
            p = _x_cylinder(x0, x0 + 70.0, side * h.hinge_y, hinge_z(h, bay), h.pin_d)
            out = p if out is None else out + p
    return out


# ----- the door servos -----

def servo_frame(h: HandsFree, bay: Bay) -> tuple[float, float, float, float, float]:
    """The SG90 driving ``bay``'s -y leaf: its output on the hinge's axis behind the gears,
    (x of its shaft face, y0, y1, z0, z1) of its body."""
    g = h.g
    xs = gear_x(h, Bay.UPPER)[0] - g.servo_horn_gap
    hy, hz = -h.hinge_y, hinge_z(h, bay)
    # the output shaft is servo_shaft_from_end from the body's -y end
    y0 = hy - g.servo_shaft_from_end
    return xs, y0, y0 + g.servo_l, hz - g.servo_w / 2, hz + g.servo_w / 2


def sg90(h: HandsFree, face: tuple[float, float, float], out: tuple[float, float, float],
         along: tuple[float, float, float], shaft: float) -> Part:
    """An SG90's body as a solid: its output shaft's face centre at ``face``, the shaft
    pointing ``out`` (``shaft`` mm of it drawn, the horn's spline), the body's length along
    ``along`` (the shaft ``servo_shaft_from_end`` from its end towards -``along``), its two
    mounting tabs with their screw holes."""
    g = h.g
    x0, x1 = -g.servo_shaft_from_end, g.servo_l - g.servo_shaft_from_end
    body = _box(x0, x1, -g.servo_w / 2, g.servo_w / 2, -g.servo_h, 0.0)
    cx = (x0 + x1) / 2
    tz = -g.servo_tab_from_top
    tabs = _box(cx - g.servo_tab_span / 2, cx + g.servo_tab_span / 2, -g.servo_w / 2,
                g.servo_w / 2, tz - g.servo_tab_t, tz)
    half = (g.servo_tab_span - 4.6) / 2  # the tabs' holes, 2.3 mm in from their ends
    for x in (cx - half, cx + half):
        tabs -= _z_cylinder(x, 0.0, 2.2, tz - g.servo_tab_t - 1, tz + 1)
    body += tabs + _z_cylinder(0.0, 0.0, 4.8, -0.01, shaft)
    return Plane(origin=face, x_dir=along, z_dir=out) * body


def sg90s(h: HandsFree = HANDSFREE) -> Part:
    out = None
    for bay in BAYS:
        xs, _y0, _y1, _z0, _z1 = servo_frame(h, bay)
        body = sg90(h, (xs, -h.hinge_y, hinge_z(h, bay)), (1, 0, 0), (0, 1, 0),
                    gear_x(h, bay)[0] - 0.5 - xs)
        out = body if out is None else out + body
    return out


def servo_screw_points(h: HandsFree, bay: Bay) -> list[tuple[float, float, float]]:
    """(x, y, z) of the two M2 screws through the servo's tabs, heads on the tabs."""
    g = h.g
    xs, y0, y1, z0, z1 = servo_frame(h, bay)
    tx = xs - g.servo_tab_from_top - g.servo_tab_t
    cy, cz = (y0 + y1) / 2, (z0 + z1) / 2
    half = (g.servo_tab_span - 4.6) / 2  # the tabs' holes, 2.3 mm in from their ends
    return [(tx, cy - half, cz), (tx, cy + half, cz)]


SERVO_BOSS = 7.0  # the back wall's bosses the mount's legs are screwed to (thread)


def _servo_plate(h: HandsFree) -> tuple[float, float, float, float, float, float]:
    """(x0, x1, y0, y1, z0, z1) of the servos' plate, the tabs against its -x face."""
    g = h.g
    zs = [servo_frame(h, b) for b in BAYS]
    x0 = zs[0][0] - g.servo_tab_from_top
    return (x0, x0 + 6.0, min(f[1] for f in zs) - 4.0, max(f[2] for f in zs) + 4.0,
            legs_z(h)[0], max(f[4] for f in zs) + 4.0)


def legs_z(h: HandsFree) -> tuple[float, float]:
    """The mount's legs run under the lower gears' sweep, at the back wall's foot."""
    z0 = shaft_bottom(h) + 0.5
    return z0, z0 + 5.0


def servo_mount_screws(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the M3 screws' seats: on each leg's -x face, into the back wall's
    bosses."""
    x0, x1, y0, y1, z0, z1 = _servo_plate(h)
    zl = sum(legs_z(h)) / 2
    return [(x1, y, zl) for y in (y0 + 5.0, y1 - 5.0)]


def servo_mount(h: HandsFree = HANDSFREE) -> Part:
    """Both door servos' plate, behind the gears: the servos' bodies through it, their tabs
    screwed to it; two legs over the gears to the back wall's bosses."""
    g = h.g
    x0, x1, y0, y1, z0, z1 = _servo_plate(h)
    plate = _box(x0, x1, y0, y1, z0, z1)
    for bay in BAYS:
        _xs, fy0, fy1, fz0, fz1 = servo_frame(h, bay)
        plate -= _box(x0 - 1, x1 + 1, fy0 - g.fit, fy1 + g.fit, fz0 - g.fit, fz1 + g.fit)
        for _x, y, z in servo_screw_points(h, bay):
            plate -= _x_cylinder(x0 - 1, x1 + 1, y, z, parts.SERVO_PILOT)
    xb = shaft_outer(h)[0] - SERVO_BOSS
    lz0, lz1 = legs_z(h)
    for _x, y, zl in servo_mount_screws(h):
        plate += _box(x1 - 0.01, xb, y - 4.0, y + 4.0, lz0, lz1)
        plate -= _x_cylinder(x1 - 1, xb + 1, y, zl, 3.4)
        plate -= _x_cylinder(x0 - 1, x1, y, zl, 6.2)  # the head's way in
    return plate


def servo_bosses(h: HandsFree) -> Part:
    """The back wall's bosses for the servo mount's legs (part of the shaft)."""
    xo = shaft_outer(h)[0]
    out = None
    for _x, y, z in servo_mount_screws(h):
        b = _x_cylinder(xo - SERVO_BOSS, xo + 0.01, y, z, 6.0)
        out = b if out is None else out + b
    for _x, y, z in servo_mount_screws(h):
        out -= _x_cylinder(
            xo - SERVO_BOSS - 1, xo + 2.0, y, z, 2.5)
    return out


# ----- the press -----
#
# A swing clamp's motion: the arm and its foot are one rigid body on a printed post that
# hangs from an ear on the shaft's -y wall. A pin in the arm's hub runs in the post's groove:
# a straight leg (at 0 degrees the press slides down it with the deck, its foot on the top
# card) and, from the top of that leg, a turning one (level, ``press_helix_rise`` 0: it turns
# out of the shaft at the top of its lift). So the foot always leaves straight up off the
# deck, swings over a full tray's deck with ``press_lift_clear`` to spare, and comes back
# down onto it straight.
# The press's weight is a tungsten-alloy block in the foot's pocket, over the nip; the arm
# reaches the foot at its -y end, lapping onto a heel there, so the foot takes the whole
# height under the shut lower leaves.


def press_move(h: HandsFree, part: Part, foot_z: float | None = None, swung: float = 0.0
               ) -> Part:
    """``part``, modelled with the foot on a full tray's deck, moved to the pose whose foot
    underside is at ``foot_z`` (default: that rest) turned ``swung`` degrees on the post."""
    dz = 0.0 if foot_z is None else foot_z - h.press_rest_z()
    px, py = h.press_pivot
    return Pos(px, py, dz) * Rot(0, 0, swung) * Pos(-px, -py, 0) * part


def _arm_z(h: HandsFree) -> tuple[float, float]:
    """The arm's underside and top (flush with the foot's), its foot on a full tray's deck
    (the modelled pose)."""
    z1 = h.press_rest_z() + h.press_foot_h
    return z1 - h.press_arm_t, z1


def follower_z(h: HandsFree, foot_z: float) -> float:
    """The hub's pin's axis, with the foot's underside at ``foot_z``: mid-hub."""
    return foot_z + h.press_foot_h - h.press_hub_h / 2


def press_ear_z(h: HandsFree) -> tuple[float, float]:
    """The ear the post hangs from: over the hub's sleeve at the top of its travel."""
    z0 = h.press_z_at(h.press_swing) + h.press_foot_h + h.press_hub_up + 1.5
    return z0, z0 + 6.0


def press_post_z(h: HandsFree) -> float:
    """The post's free end: under the hub with the foot on the empty tray's tyre."""
    return h.press_rest_z(0) + h.press_foot_h - h.press_hub_h - 1.0


EAR_GUSSET_DEG = 50.0  # the gusset over the ear: steeper than 45 degrees as printed


def press_post(h: HandsFree = HANDSFREE) -> Part:
    """The post (part of the shaft): a column hanging from a gusseted ear on the -y wall's
    outside, with the follower's groove: the straight leg, then the turning one."""
    px, py = h.press_pivot
    r = h.press_post_d / 2
    yo = -(h.shaft_half_w + h.shaft_wall)
    e0, e1 = press_ear_z(h)
    ye = py - r - 3.0
    post = _z_cylinder(px, py, h.press_post_d, press_post_z(h), e0 + 0.01)
    post += _box(px - r - 2.0, px + r + 2.0, ye, yo + 0.01, e0, e1)
    rise = (yo - ye) * math.tan(math.radians(EAR_GUSSET_DEG))
    gusset = Plane.YZ * Polygon((yo + 0.01, e1 - 0.01), (ye, e1 - 0.01), (yo + 0.01, e1 + rise),
                                align=None)
    g = extrude(gusset, amount=2 * r + 4.0)
    post += Pos(px - r - 2.0 - g.bounding_box().min.X, 0, 0) * g
    for bay in BAYS:  # the wall's vents stay open through the gusset
        zd = h.doors_z(bay)
        for x in vent_xs(h):
            post -= _box(x - h.vent_w / 2, x + h.vent_w / 2, ye - 1, yo + 1, zd + 4, zd + 24)
    return post - press_groove(h)


GROOVE_RUN_ON = 25.0  # degrees of the turning leg past the swing's end: the pin's own width


def press_groove(h: HandsFree) -> Part:
    """The follower's groove in the post: the straight leg at 180 degrees (towards -x), from
    2 mm under the pin with the foot on the empty tyre to the swing's start, then the turning
    leg (swept along the pin's own path, on past the swing's end by the pin's width): level
    (a bayonet's) when ``press_helix_rise`` is 0, else a helix."""
    px, py = h.press_pivot
    r = h.press_post_d / 2
    w = h.groove_w
    lo = follower_z(h, h.press_rest_z(0)) - 2.0 - w / 2
    z0 = follower_z(h, h.press_swing_z)
    out = _box(px - r - 1.0, px - r + h.groove_depth, py - w / 2, py + w / 2, lo, z0 + w / 2)
    turn = h.press_swing + GROOVE_RUN_ON
    mid = r + (1.0 - h.groove_depth) / 2  # the section from the groove's floor to past the rim
    if h.press_helix_rise == 0:
        section = Plane.XZ * Rectangle(h.groove_depth + 1.0, w).translate((mid, 0, 0))
        leg = revolve(section, Axis.Z, turn)
        return out + Pos(px, py, z0) * Rot(0, 0, 180.0) * leg
    height = h.press_helix_rise * turn / h.press_swing
    helix = Helix(360.0 * h.press_helix_rise / h.press_swing, height, r)
    section = Plane(origin=(mid, 0, 0), x_dir=(1, 0, 0), z_dir=helix.tangent_at(0)) * Rectangle(
        h.groove_depth + 1.0, w)
    leg = sweep(section, path=helix, is_frenet=True)
    return out + Pos(px, py, z0) * Rot(0, 0, 180.0) * leg


def _heel_y(h: HandsFree) -> tuple[float, float]:
    """(y0, y1) of the foot's heel, where the arm's end laps onto it."""
    return h.press_foot_y[0], h.press_heel_y


def foot_screw_points(h: HandsFree) -> list[tuple[float, float]]:
    """(x, y) of the two M3s through the arm's end into the heel, 5 mm in from its ends."""
    x0, x1 = h.g.press_x
    y = sum(_heel_y(h)) / 2
    return [(x0 + 5.0, y), (x1 - 5.0, y)]


def press_arm(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
              ) -> Part:
    """The arm: its hub on the post (the follower's hole in it), reaching through the -y
    wall to the foot's heel and lapping onto it, the foot's two countersunk screws through
    that end. At ``foot_z`` (the foot's underside; default on a full deck), turned ``swung``
    degrees."""
    px, py = h.press_pivot
    z0, z1 = _arm_z(h)
    w = h.press_arm_w / 2
    x0, x1 = h.g.press_x
    y0, y1 = _heel_y(h)
    arm = _box(px - w, px + w, py, y0 + 0.01, z0, z1) + _box(x0, x1, y0, y1, z0, z1)
    arm += _z_cylinder(px, py, h.press_hub_d, z1 - h.press_hub_h, z1)
    arm -= _z_cylinder(px, py, h.press_post_d + h.press_hub_fit, z1 - h.press_hub_h - 1, z1 + 1)
    fz = follower_z(h, h.press_rest_z())
    arm -= _x_cylinder(px - h.press_hub_d / 2 - 1, px, py, fz, h.follower_d + 0.1)
    for x, y in foot_screw_points(h):
        arm -= parts.countersink(x, y, z1, h.press_arm_t + 1)
    return press_move(h, arm, foot_z, swung)


def press_foot(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
               ) -> Part:
    """The foot on the deck over the nip: a printed floor (PETG on the top card) under an
    open pocket for the tungsten block, its heel at the -y end lower by the arm's
    thickness, with the screws' pilots."""
    x0, x1 = h.g.press_x
    zb = h.press_rest_z()
    top = zb + h.press_foot_h
    fy0, fy1 = h.press_foot_y
    hy0, hy1 = _heel_y(h)
    foot = _box(x0, x1, fy0, fy1, zb, top)
    foot -= _box(x0 - 1, x1 + 1, hy0 - 1, hy1, top - h.press_arm_t, top + 1)
    px0, px1, py0, py1 = h.press_pocket
    foot -= _box(px0, px1, py0, py1, zb + h.press_floor, top + 1)
    for x, y in foot_screw_points(h):
        foot -= _z_cylinder(x, y, 2.5, zb + 0.5, top)
    return press_move(h, foot, foot_z, swung)


def press_follower(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
                   ) -> Part:
    """The follower: a 3 x 6 mm steel dowel glued in the hub's hole, 1.2 mm short of the
    groove's floor."""
    px, py = h.press_pivot
    r_in = h.press_post_d / 2 - h.groove_depth + 0.3
    pin = _x_cylinder(px - r_in - h.follower_l, px - r_in, py, follower_z(h, h.press_rest_z()),
                      h.follower_d)
    return press_move(h, pin, foot_z, swung)


def press_weight(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
                 ) -> Part:
    """The tungsten-alloy block in the foot's pocket, on its floor, its top flush with the
    foot's."""
    x0, x1, y0, y1, height = h.press_weight_box
    zb = h.press_rest_z() + h.press_floor
    return press_move(h, _box(x0, x1, y0, y1, zb, zb + height), foot_z, swung)


def foot_screw_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the foot's two countersunk M3s' heads, the foot on a full deck."""
    return [(x, y, _arm_z(h)[1] - COUNTERSINK_DEPTH) for x, y in foot_screw_points(h)]


def press_pose(h: HandsFree, swung: float) -> float:
    """The foot's underside on the press's path at ``swung`` degrees (0: on a full deck)."""
    return h.press_rest_z() if swung == 0 else h.press_z_at(swung)


def press_notch(h: HandsFree) -> tuple[float, float, float, float]:
    """(x0, x1, z0, z1) of the opening in the -y wall's foot: the arm's straight travel at
    0 degrees, and everything the arm and its foot sweep in that wall as they turn."""
    px, _py = h.press_pivot
    x1 = px + h.press_arm_w / 2 + 1.5
    z1 = h.press_z_at(h.press_swing) + h.press_foot_h + 1.0
    return h.press_window_x(), x1, shaft_bottom(h) - 1.0, z1


# ----- the press's link -----
# What lifts the press and turns it: two SG90s on the PCA9685 (the lift's on channel 2, the
# press's channel; the turn's on a channel of its own), each on a printed mount screwed to
# bosses on the shaft's -y wall over the wall's notch.
#
# Why so (docs/hands-free.md, "The press's link"): hung from its hub alone the press jams
# on the post unless the bore is long (``HandsFree.press_hub_up``), so whatever lifts it at
# the hub must let it fall by its own weight, and a pull on it cannot also push it down onto
# the deck; a spring turning it back in would press the follower on the straight leg and
# jam the fall; and one servo cannot both lift (about a horizontal axis) and turn (about the
# post's) with a link that goes slack at every deck height. So:
# - the lift: a printed prong on the lift servo's horn, its rounded tip under the sleeve's
#   lug (on the -x side, where it puts no couple on the bore about x). It only pushes up:
#   at rest it stands ``LIFT_SLACK`` under the lug of a press resting on an empty tray's
#   tyre, so on any deck it bears nothing, and lowered the press falls after it;
# - the turn: a slotted lever on the turn servo's horn, over the post's ear; a steel pin
#   standing up from the lug enters the slot in the last few millimetres of the lift (the
#   servo waits at 0 degrees) and the lever turns the press out and back, both driven.
LUG_T = 4.0  # the sleeve's lug, at its top: the lift's tip bears on its underside
LUG_W = 7.0
LUG_R = 28.0  # the lug's end from the post's axis
DOG_R = 25.0  # the turn pin's axis from the post's axis
DOG_D = 3.0  # ISO 8734 dowel, 3 x 24 mm, glued through the lug
DOG_L = 24.0
DOG_DEG = 180.0  # where the lug points with the press at 0 degrees: -x
LIFT_R = 18.5  # the lift horn: its pivot to its tip's axis (the least for the lift)
LIFT_TIP_D = 6.0  # the horn's width, its tip rounded to it
LIFT_T = 3.0
LIFT_REACH = 13.0  # the tip's axis at its nearest the post: the finger 0.5 mm off the sleeve
LIFT_SLACK = 1.0  # the tip's top under the lug at rest, the press on an empty tray
HORN_STACK = 3.0  # the servo's own horn between its output face and a printed horn
# The turn servo's axis: inside the pin's circle, off to the side of the pin's arc's end
# (towards -y): the lever then turns about 145 degrees for the press's 105, the pin at 11 mm
# from it at the closest, and the lever keeps clear of the ear's gusset under it
TURN_D = 14.0
TURN_DIR = 275.0
LEVER_W = 9.0
LEVER_T = 4.0
LEVER_HUB_D = 10.0
SLOT_END = 2.5  # the slot past the pin at either end of its travel
MOUNT_T = 6.0
LINK_BOSS = 7.0  # the wall's bosses the mounts are screwed to (thread in them)


def sleeve_z(h: HandsFree) -> tuple[float, float]:
    """(bottom, top) of the hub's sleeve, the press on a full deck: from the arm's top up
    ``press_hub_up``."""
    z1 = _arm_z(h)[1]
    return z1, z1 + h.press_hub_up


def _lug_dir(h: HandsFree) -> Point:
    return math.cos(math.radians(DOG_DEG)), math.sin(math.radians(DOG_DEG))


def press_sleeve(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
                 ) -> Part:
    """The hub's sleeve: a tube on the post standing on the arm's hub (epoxied to its top),
    carrying the bore on to ``press_hub_up`` over the arm, and at its top the lug the lift
    bears under, with the turn pin's hole."""
    px, py = h.press_pivot
    z0, z1 = sleeve_z(h)
    ux, uy = _lug_dir(h)
    tube = _z_cylinder(px, py, h.press_hub_d, z0, z1)
    lug = _box(0.0, LUG_R, -LUG_W / 2, LUG_W / 2, z1 - LUG_T, z1)
    lug += _z_cylinder(LUG_R, 0.0, LUG_W, z1 - LUG_T, z1)
    lug = Pos(px, py, 0) * Rot(0, 0, DOG_DEG) * lug
    tube += lug
    tube -= _z_cylinder(px, py, h.press_post_d + h.press_hub_fit, z0 - 1, z1 + 1)
    tube -= _z_cylinder(px + DOG_R * ux, py + DOG_R * uy, DOG_D + 0.05, z1 - LUG_T - 1, z1 + 1)
    return press_move(h, tube, foot_z, swung)


def press_dog(h: HandsFree = HANDSFREE, foot_z: float | None = None, swung: float = 0.0
              ) -> Part:
    """The turn pin: a 3 x 24 mm dowel glued through the lug, flush with its underside,
    standing up into the lever's slot at the top of the lift."""
    px, py = h.press_pivot
    ux, uy = _lug_dir(h)
    z = sleeve_z(h)[1] - LUG_T
    return press_move(h, _z_cylinder(px + DOG_R * ux, py + DOG_R * uy, DOG_D, z, z + DOG_L),
                      foot_z, swung)


def lug_under(h: HandsFree, foot_z: float) -> float:
    """The lug's underside with the foot's underside at ``foot_z``."""
    return foot_z + h.press_foot_h + h.press_hub_up - LUG_T


# -- the lift --

def lift_pivot(h: HandsFree) -> tuple[float, float]:
    """(x, z) of the lift servo's axis (along y)."""
    px, _py = h.press_pivot
    lo = lug_under(h, h.press_rest_z(0)) - LIFT_SLACK
    hi = lug_under(h, h.press_swing_z)
    return px - LIFT_REACH - LIFT_R, (lo + hi) / 2 - LIFT_TIP_D / 2


def _tip_deg(h: HandsFree, top_z: float) -> float:
    """The horn's direction (degrees from +x towards +z) with its tip's top at ``top_z``."""
    _x, z = lift_pivot(h)
    return math.degrees(math.asin((top_z - LIFT_TIP_D / 2 - z) / LIFT_R))


def lift_angles(h: HandsFree = HANDSFREE) -> tuple[float, float]:
    """(rest, top) of the lift horn (degrees from +x towards +z): at rest its tip stands
    ``LIFT_SLACK`` under the lug of a press on an empty tray; at the top the press's foot
    is at the swing's height."""
    return (_tip_deg(h, lug_under(h, h.press_rest_z(0)) - LIFT_SLACK),
            _tip_deg(h, lug_under(h, h.press_swing_z)))


def lift_travel(h: HandsFree = HANDSFREE) -> float:
    """Degrees the lift servo turns from rest to the top."""
    rest, top = lift_angles(h)
    return top - rest


def lift_tip(h: HandsFree, a: float) -> tuple[float, float]:
    """(x, z) of the tip's axis, the lift servo turned ``a`` degrees from rest."""
    x, z = lift_pivot(h)
    t = math.radians(lift_angles(h)[0] + a)
    return x + LIFT_R * math.cos(t), z + LIFT_R * math.sin(t)


def lift_foot_z(h: HandsFree, a: float, cards: int | None = None) -> float:
    """The foot's underside with the lift servo at ``a`` degrees, the press at 0 degrees on
    a deck of ``cards`` (full by default): on the deck until the tip meets the lug."""
    top = lift_tip(h, a)[1] + LIFT_TIP_D / 2
    lifted = top - (h.press_foot_h + h.press_hub_up - LUG_T)
    return min(max(h.press_rest_z(cards), lifted), h.press_swing_z)


def lift_y(h: HandsFree) -> tuple[float, float]:
    """(y0, y1) of the horn's blade: beside the lug (its -y side), 1 mm off it, so that the
    blade, rising from under the lug to the servo's axis over it, never passes through it;
    a finger at its tip reaches under the lug."""
    py = h.press_pivot[1]
    y1 = py - LUG_W / 2 - 1.0
    return y1 - LIFT_T, y1


def finger_y(h: HandsFree) -> float:
    """How far the tip's finger reaches under the lug (towards +y): 1 mm short of its side."""
    return h.press_pivot[1] + LUG_W / 2 - 1.0


def lift_face_y(h: HandsFree) -> float:
    """The lift servo's output face (its body towards -y)."""
    return lift_y(h)[0] - HORN_STACK


def press_lift_horn(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The printed horn on the lift servo (screwed to the servo's own one-arm horn): a hub
    round the axis, a blade out to the rounded tip and the tip's finger under the lug,
    turned ``a`` degrees from rest."""
    x, z = lift_pivot(h)
    y0, y1 = lift_y(h)
    w = LIFT_TIP_D / 2
    blade = _box(0.0, LIFT_R, y0, y1, -w, w) + _y_cylinder(LIFT_R, 0.0, LIFT_TIP_D, y0,
                                                            finger_y(h))
    blade += _y_cylinder(0.0, 0.0, 10.0, y0, y1)
    blade -= _y_cylinder(0.0, 0.0, 2.2, y0 - 1, y1 + 1)  # the horn's screw through it
    deg = lift_angles(h)[0] + a
    return Pos(x, 0, z) * Rot(0, -deg, 0) * blade


def lift_sg90(h: HandsFree = HANDSFREE) -> Part:
    x, z = lift_pivot(h)
    return sg90(h, (x, lift_face_y(h), z), (0, 1, 0), (-1, 0, 0), HORN_STACK)


def _lift_plate(h: HandsFree) -> tuple[float, float, float, float, float, float]:
    """(x0, x1, y0, y1, z0, z1) of the lift servo's plate: its tabs on the plate's -y face."""
    g = h.g
    x, z = lift_pivot(h)
    yf = lift_face_y(h)
    bx0, bx1 = x - (g.servo_l - g.servo_shaft_from_end), x + g.servo_shaft_from_end
    cx = (bx0 + bx1) / 2
    return (cx - g.servo_tab_span / 2 - 2.0, cx + g.servo_tab_span / 2 + 2.0,
            yf - g.servo_tab_from_top, yf - g.servo_tab_from_top + MOUNT_T,
            z - g.servo_w / 2 - 1.7, z + g.servo_w / 2 + 4.0)


def lift_servo_screw_points(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the lift servo's two M2 screws' heads, on its tabs."""
    g = h.g
    x0, x1, y0, _y1, _z0, _z1 = _lift_plate(h)
    _x, z = lift_pivot(h)
    half = (g.servo_tab_span - 4.6) / 2
    cx = (x0 + x1) / 2
    return [(cx - half, y0 - g.servo_tab_t, z), (cx + half, y0 - g.servo_tab_t, z)]


def link_wall_y(h: HandsFree) -> float:
    """The bosses' face the mounts' flanges bear on: ``LINK_BOSS`` out from the -y wall."""
    return -(h.shaft_half_w + h.shaft_wall) - LINK_BOSS


LIFT_LEG_X = (-66.0, -58.0)  # between the -y wall's vents (x = -70.45 and -53.45)


def lift_mount_screws(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the lift mount's two M3s' heads: on its leg's flange, into the bosses."""
    x0, x1, _y0, _y1, z0, z1 = _lift_plate(h)
    xm = sum(LIFT_LEG_X) / 2
    # 3.2 mm in from the plate's ends: the heads clear of the servo's tab screws' tips
    return [(xm, link_wall_y(h) - MOUNT_T, z) for z in (z0 + 3.2, z1 - 3.2)]


def press_lift_mount(h: HandsFree = HANDSFREE) -> Part:
    """The lift servo's mount: a plate the servo's body passes through, its tabs screwed to
    it, and a leg to two bosses on the -y wall over the wall's notch."""
    g = h.g
    x0, x1, y0, y1, z0, z1 = _lift_plate(h)
    x, z = lift_pivot(h)
    plate = _box(min(x0, LIFT_LEG_X[0]), x1, y0, y1, z0, z1)
    plate += _box(LIFT_LEG_X[0], LIFT_LEG_X[1], y1 - 0.01, link_wall_y(h), z0, z1)
    bx0 = x - (g.servo_l - g.servo_shaft_from_end)
    plate -= _box(bx0 - g.fit, x + g.servo_shaft_from_end + g.fit, y0 - 1, y1 + 1,
                  z - g.servo_w / 2 - g.fit, z + g.servo_w / 2 + g.fit)
    for sx, _sy, sz in lift_servo_screw_points(h):
        plate -= _y_cylinder(sx, sz, parts.SERVO_PILOT, y0 - 1, y1 + 1)
    for sx, sy, sz in lift_mount_screws(h):
        plate -= _y_cylinder(sx, sz, 3.4, sy - 1, link_wall_y(h) + 1)
        plate -= _y_cylinder(sx, sz, 6.2, y0 - 1, sy)  # the head's way in
    return plate


# -- the turn --

def turn_axis(h: HandsFree) -> Point:
    """(x, y) of the turn servo's axis (upright)."""
    px, py = h.press_pivot
    t = math.radians(TURN_DIR)
    return px + TURN_D * math.cos(t), py + TURN_D * math.sin(t)


def dog_point(h: HandsFree, swung: float) -> Point:
    """(x, y) of the turn pin's axis with the press turned ``swung`` degrees."""
    px, py = h.press_pivot
    t = math.radians(DOG_DEG + swung)
    return px + DOG_R * math.cos(t), py + DOG_R * math.sin(t)


def lever_deg(h: HandsFree, swung: float) -> float:
    """The lever's direction in plan (degrees from +x) that holds the pin with the press
    turned ``swung`` degrees (the pin on the slot's centre line)."""
    sx, sy = turn_axis(h)
    x, y = dog_point(h, swung)
    return math.degrees(math.atan2(y - sy, x - sx))


def _turned_deg(a: float, b: float) -> float:
    """From direction ``a`` to ``b`` (degrees), the short way round."""
    return (b - a + 180.0) % 360.0 - 180.0


def turn_travel(h: HandsFree = HANDSFREE) -> float:
    """Degrees the turn servo turns to take the press from 0 to ``press_swing``."""
    return abs(_turned_deg(lever_deg(h, 0.0), lever_deg(h, h.press_swing)))


def groove_play_deg(h: HandsFree) -> float:
    """The press's play about the post at 0 degrees: the follower in the straight leg."""
    return math.degrees(math.asin((h.groove_w - h.follower_d) / 2 / (h.press_post_d / 2)))


def slot_w(h: HandsFree) -> float:
    """The lever's slot: the pin, 0.3 mm, and the press's play at 0 degrees each side at the
    pin's radius (so the pin, coming up, always finds it and never fights the groove)."""
    return DOG_D + 0.3 + 2 * DOG_R * math.tan(math.radians(groove_play_deg(h)))


def lever_z(h: HandsFree) -> tuple[float, float]:
    """(z0, z1) of the lever: its top 0.5 mm over the pin's at the top of the lift."""
    top = lug_under(h, h.press_swing_z) + DOG_L + 0.5
    return top - LEVER_T, top


def slot_span(h: HandsFree) -> tuple[float, float]:
    """(near, far) of the slot along the lever from the turn axis: the pin's travel in it
    and ``SLOT_END`` past each end."""
    sx, sy = turn_axis(h)
    k = 42
    d = [math.dist((sx, sy), dog_point(h, h.press_swing * i / k)) for i in range(k + 1)]
    return min(d) - DOG_D / 2 - SLOT_END, max(d) + DOG_D / 2 + SLOT_END


def press_turn_lever(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The slotted lever on the turn servo (screwed to its own horn), the servo turned
    ``a`` degrees from holding the press at 0 (positive: with the press turning out)."""
    sx, sy = turn_axis(h)
    z0, z1 = lever_z(h)
    near, far = slot_span(h)
    w = LEVER_W / 2
    lever = _box(0.0, far + 2.0, -w, w, z0, z1) + _z_cylinder(0.0, 0.0, LEVER_HUB_D, z0, z1)
    lever += _z_cylinder(far + 2.0, 0.0, LEVER_W, z0, z1)
    sw = slot_w(h) / 2
    lever -= _box(near, far, -sw, sw, z0 - 1, z1 + 1)
    lever -= _z_cylinder(0.0, 0.0, 2.2, z0 - 1, z1 + 1)
    sign = 1.0 if _turned_deg(lever_deg(h, 0.0), lever_deg(h, h.press_swing)) > 0 else -1.0
    return Pos(sx, sy, 0) * Rot(0, 0, lever_deg(h, 0.0) + sign * a) * lever


def turn_face_z(h: HandsFree) -> float:
    return lever_z(h)[1] + HORN_STACK


def turn_sg90(h: HandsFree = HANDSFREE) -> Part:
    sx, sy = turn_axis(h)
    t = math.radians(TURN_DIR)
    return sg90(h, (sx, sy, turn_face_z(h)), (0, 0, -1), (math.cos(t), math.sin(t), 0),
                HORN_STACK)


def _turn_plate_z(h: HandsFree) -> tuple[float, float]:
    zf = turn_face_z(h) + h.g.servo_tab_from_top
    return zf - MOUNT_T, zf


TURN_FLANGE = 17.0  # over the ear's gusset, on the wall above the upper vents
TURN_SCREW_X = -16.0


def turn_mount_screws(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the turn mount's two M3s' heads, on its leg's flange."""
    z0, z1 = _turn_plate_z(h)
    # one over the other on the flange that stands ``TURN_FLANGE`` over the plate's leg
    return [(TURN_SCREW_X, link_wall_y(h) - MOUNT_T, z1 + dz) for dz in (6.0, 13.0)]


def turn_servo_screw_points(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the turn servo's two M2 screws' heads, on its tabs."""
    g = h.g
    sx, sy = turn_axis(h)
    t = math.radians(TURN_DIR)
    cx = (g.servo_l - 2 * g.servo_shaft_from_end) / 2
    half = (g.servo_tab_span - 4.6) / 2
    z = _turn_plate_z(h)[1] + g.servo_tab_t
    return [(sx + (cx + k) * math.cos(t), sy + (cx + k) * math.sin(t), z) for k in (-half, half)]


def press_turn_mount(h: HandsFree = HANDSFREE) -> Part:
    """The turn servo's mount: a plate over the lever the servo's body stands through (its
    tabs screwed down onto it) and a leg to two bosses on the -y wall."""
    g = h.g
    sx, sy = turn_axis(h)
    z0, z1 = _turn_plate_z(h)
    t = TURN_DIR
    x0, x1 = -g.servo_shaft_from_end, g.servo_l - g.servo_shaft_from_end
    cx = (x0 + x1) / 2
    m = 4.0
    plate = _box(cx - g.servo_tab_span / 2 - 2.0, cx + g.servo_tab_span / 2 + 2.0,
                 -g.servo_w / 2 - m, g.servo_w / 2 + m, z0, z1)
    plate -= _box(x0 - g.fit, x1 + g.fit, -g.servo_w / 2 - g.fit, g.servo_w / 2 + g.fit,
                  z0 - 1, z1 + 1)
    plate = Pos(sx, sy, 0) * Rot(0, 0, t) * plate
    yw = link_wall_y(h)
    xs = TURN_SCREW_X
    # the leg: beside the servo's body, then over its near end to the plate
    plate += _box(xs - 4.0, xs + 4.0, sy - 3.0, yw - MOUNT_T + 0.01, z0, z1)
    plate += _box(xs - 4.0, sx - 2.0, yw - MOUNT_T - 4.0, yw - MOUNT_T + 0.01, z0, z1)
    plate += _box(xs - 4.0, xs + 4.0, yw - MOUNT_T, yw, z0, z1 + TURN_FLANGE)
    for x, y, z in turn_mount_screws(h):
        plate -= _y_cylinder(x, z, 3.4, y - 1, yw + 1)
    for x, y, _z in turn_servo_screw_points(h):
        plate -= _z_cylinder(x, y, parts.SERVO_PILOT, z0 - 1, z1 + 1)
    return plate


def link_bosses(h: HandsFree) -> Part:
    """The -y wall's bosses for the two mounts (part of the shaft), their pilots."""
    yo = -(h.shaft_half_w + h.shaft_wall)
    out = None
    for x, _y, z in link_mount_seats(h):
        b = _y_cylinder(x, z, 6.0, link_wall_y(h), yo + 0.01)
        out = b if out is None else out + b
    for x, _y, z in link_mount_seats(h):
        out -= _y_cylinder(x, z, 2.5, link_wall_y(h) - 1, yo + 1.0)
    return out


def link_mount_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the four M3s' heads of both mounts (lift, then turn)."""
    return lift_mount_screws(h) + turn_mount_screws(h)


LINK_MOVING = ("press_lift_horn", "press_turn_lever")


def link_moving(h: HandsFree = HANDSFREE, lift: float = 0.0, turn: float = 0.0
                ) -> dict[str, Part]:
    """The link's moving parts, the lift servo ``lift`` and the turn servo ``turn`` degrees
    from rest."""
    return {"press_lift_horn": press_lift_horn(h, lift),
            "press_turn_lever": press_turn_lever(h, turn)}


def turn_servo_deg(h: HandsFree, swung: float) -> float:
    """The turn servo's angle from rest with the press turned ``swung`` degrees."""
    return abs(_turned_deg(lever_deg(h, 0.0), lever_deg(h, swung)))


# ----- the lid, its switch, the load cell -----

# The lid turns on one pin along x through both hinges: at each, a knuckle on the +y wall
# above the window between two knuckles on the lid's top edge. Opening, its bottom edge
# swings out (+y) and up. Whatever the lid carries above the pin's level moves in towards
# the wall as it opens, so all of it stays within ``LID_PIN_OUT`` of the pin's axis (it
# never reaches the wall's outer face); everything farther out is below the pin and swings
# away from the wall. At ``LID_OPEN`` degrees the lid's outer face lands on the stops of
# the wall's knuckles.
LID_PIN_OUT = 10.0  # the pin's axis outside the wall's outer face
LID_KNUCKLE_R = 4.0  # every knuckle round the pin: 2.85 mm of wall round its 2.3 mm bore
LID_OPEN = 110.0  # degrees: the window clear of the lid for the deck to slide in
LID_GAP = 0.5  # the lid's parts above its top edge off the wall's outer face
OVERHANG = 1.2  # undersides rise 1.2 in 1 (50 degrees from level): they print unsupported
# The lid switch's hinge lever, measured from the body's lever face (taken from the SS-5GL
# class's hinge-lever figures: operating 8.8 mm and pretravel 1.6 mm from the mounting
# holes' centre line, 5.1 mm from the face; overtravel 0.6 mm): it operates 3.7 mm out and
# lies free at 5.3 mm; the lid's tab holds it 3.4 mm out, past operating, short of bottoming.
LEVER_OP = 3.7
LEVER_FREE = 5.3
LEVER_PRESSED = 3.4


def lid_hinge_xs(h: HandsFree) -> list[float]:
    xb, xf = h.shaft_x
    return [xb + 10.0, xf - 14.0]


def lid_hinge_z(h: HandsFree) -> float:
    return h.zf + h.window_h + 4.0


def lid_pin_y(h: HandsFree) -> float:
    """The lid pin's axis: ``LID_PIN_OUT`` outside the shaft's +y wall."""
    return h.shaft_half_w + h.shaft_wall + LID_PIN_OUT


def lid_turn(h: HandsFree, part: Part, opened: float) -> Part:
    """``part`` turned with the lid ``opened`` degrees about its pin (its bottom edge out)."""
    y, z = lid_pin_y(h), lid_hinge_z(h)
    return Pos(0, y, z) * Rot(opened, 0, 0) * Pos(0, -y, -z) * part


def _pin_prism(h: HandsFree, points: list[Point], x0: float, x1: float,
               round_pin: bool = False) -> Part:
    """A prism along x from x0 to x1 on a polygon of (y, z) points about the pin's axis; with
    ``round_pin``, joined to a knuckle's cylinder round the pin and bored for it (drawn as
    one section: a cylinder fused on after reads back as a trimmed face, no radius)."""
    y, z = lid_pin_y(h), lid_hinge_z(h)
    section = Polygon(*[(y + dy, z + dz) for dy, dz in points], align=None)
    if round_pin:
        section += Pos(y, z) * Circle(LID_KNUCKLE_R)
        section -= Pos(y, z) * Circle((h.pin_d + 0.3) / 2)
    prism = extrude(Plane.YZ * section, amount=x1 - x0)
    return Pos(x0 - prism.bounding_box().min.X, 0, 0) * prism


def _lid_knuckle(h: HandsFree, x: float) -> Part:
    """A knuckle on the shaft's +y wall above the window, the lid's pin through it, and its
    stop: the lid's outer face lands on it at ``LID_OPEN`` degrees."""
    w = LID_PIN_OUT + 0.01
    face = -(LID_PIN_OUT - 0.2)  # the lid's outer face, about the pin
    c, s = math.cos(math.radians(LID_OPEN)), math.sin(math.radians(LID_OPEN))
    # that face turned LID_OPEN degrees, over the 13 mm of it under the lid's top edge
    a, b = [(face * c - dz * s, face * s + dz * c) for dz in (0.0, -13.0)]
    # from the stop's far end its top rises 1.2 in 1 to the wall (the shaft prints top
    # down); its underside just inside the cylinder's (a tangent join makes a face the
    # print checks cannot read)
    web = [(-w, -LID_KNUCKLE_R + 0.3), (0.0, -LID_KNUCKLE_R + 0.3), a, b,
           (-w, b[1] + OVERHANG * (b[0] + w))]
    return _pin_prism(h, web, x - 3, x + 3, round_pin=True)


def lid(h: HandsFree = HANDSFREE, opened: float = 0.0) -> Part:
    """The window's cover, ``opened`` degrees: its inside face is the tray's wall there (the
    deck's side guide), a pocket for the lower +y leaf when open, knuckles on its top edge,
    and the tab that closes the lid switch."""
    xo, xf, yo, _top = shaft_outer(h)
    yi = h.shaft_half_w
    zb, zt = h.zf + 0.5, h.zf + h.window_h - 0.5
    xf = h.g.gate_setback - 0.5  # short of the gate's ears
    plate = _box(xo, xf, yi, yo + 0.2, zb, zt)
    lx0, lx1 = leaf_x(h)
    zd = h.doors_z(Bay.LOWER)
    plate -= _box(lx0 - 0.5, lx1 + 0.5, yi - 0.01, h.hinge_y + h.leaf_t / 2 + 0.3,
                  zd - h.leaf_width - 3.0, zt + 1)
    plate -= _y_cylinder(skew_x(h), skew_z(h), h.beam_d, yi - 0.01, yo + 1)  # the receiver
    # the bottom edge's inside corner cut back past the tray floor's edge (2 mm out, 3 mm
    # up: no overhang as printed): opening, the edge dips as it swings out, and over the
    # floor it would meet it
    plate -= _pin_prism(h, [(yi - 0.01 - lid_pin_y(h), zb - 0.01 - lid_hinge_z(h)),
                            (yi + 2.0 - lid_pin_y(h), zb - 0.01 - lid_hinge_z(h)),
                            (yi - 0.01 - lid_pin_y(h), zb + 3.0 - lid_hinge_z(h))],
                        xo - 1, xf + 1)
    face = yo + 0.2 - lid_pin_y(h)  # the plate's outer face and top edge, about the pin
    top = zt - lid_hinge_z(h)
    near = -(LID_PIN_OUT - LID_GAP)
    for x in lid_hinge_xs(h):
        for dx in (-6.5, 6.5):
            web = [(face, top + OVERHANG * face), (0.0, top), (0.0, 0.0), (near, 0.0),
                   (near, top), (face, top)]
            plate += _pin_prism(h, web, x + dx - 3, x + dx + 3, round_pin=True)
    # the tab that holds the lid switch's lever: inside the pin's line, so it drops away
    # from the lever as the lid opens, and within LID_PIN_OUT of the pin, so it never
    # reaches the wall; its top falls 1 in 3 outwards, so its inner edge (the farthest in,
    # the fastest down) is what holds the lever
    sx0, sx1, sy0, _sy1, sz0, _sz1 = switch_frame(h)
    up = sz0 - LEVER_PRESSED - lid_hinge_z(h)
    inner = sy0 + 0.5 - lid_pin_y(h)
    edge = -(h.pin_d / 2 + 0.6)  # the one pin runs on past it, from hinge to hinge
    tab = [(face, top - 0.5 + OVERHANG * (face - edge)), (edge, top - 0.5),
           (edge, up + (inner - edge) / 3), (inner, up), (near, up + near - inner),
           (near, top), (face, top)]
    plate += _pin_prism(h, tab, sx0 + 2.0, sx1 - 2.0)
    return lid_turn(h, plate, opened) if opened else plate


def lever_travel(h: HandsFree) -> Part:
    """Where the lid switch's lever moves between free and operating, under its body."""
    x0, x1, y0, y1, z0, _z1 = switch_frame(h)
    return _box(x0, x1, y0, y1, z0 - LEVER_FREE, z0 - LEVER_OP)


SWITCH_BLOCK = 6.0  # the block on the shaft's +y wall the switch is screwed to


def switch_frame(h: HandsFree) -> tuple[float, float, float, float, float, float]:
    """The lid switch's body (x0, x1, y0, y1, z0, z1): on a block on the shaft's +y wall
    above the window, its lever down towards the lid's tab."""
    _xo, _xf, yo, _top = shaft_outer(h)
    sl, sw, sh = h.switch
    x1 = lid_hinge_xs(h)[1] - 12.0
    z0 = lid_hinge_z(h) + 10.0
    return x1 - sl, x1, yo + SWITCH_BLOCK, yo + SWITCH_BLOCK + sw, z0, z0 + sh


def switch_mount(h: HandsFree = HANDSFREE) -> Part:
    """The block on the shaft's +y wall that carries the lid switch: its two M2 screws
    thread into it."""
    x0, x1, y0, _y1, z0, z1 = switch_frame(h)
    yo = shaft_outer(h)[2]
    block = _box(x0 - 2.0, x1 + 2.0, yo - 0.01, y0, z0 - 2.0, z1 + 2.0)
    for x, z in switch_screw_points(h):
        block -= _y_cylinder(x, z, 1.7, yo - 1, y0 + 1)
    return block


def switch_screw_points(h: HandsFree) -> list[tuple[float, float]]:
    """(x, z) of the switch's two M2 screws, its datasheet's hole pitch apart."""
    x0, x1, _y0, _y1, z0, z1 = switch_frame(h)
    cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
    return [(cx - h.switch_hole_pitch / 2, cz), (cx + h.switch_hole_pitch / 2, cz)]


def microswitch(h: HandsFree = HANDSFREE) -> Part:
    x0, x1, y0, y1, z0, z1 = switch_frame(h)
    body = _box(x0, x1, y0, y1, z0, z1)
    for x, z in switch_screw_points(h):
        body -= _y_cylinder(x, z, 2.3, y0 - 1, y1 + 1)
    return body


def load_cell_x(h: HandsFree) -> tuple[float, float]:
    """(fixed end, loaded end) of the bar: under the tray's back, clear of the feed motor."""
    x1 = -30.0
    return x1 - h.load_cell[0], x1


def saddle_z(h: HandsFree) -> tuple[float, float]:
    top = h.zf - h.g.floor
    return top - 5.0, top


def tray_saddle(h: HandsFree = HANDSFREE) -> Part:
    """Under the tray: the tray's four countersunk screws thread into it, and the load
    cell's loaded end is screwed under it on a 2 mm spacer."""
    z0, z1 = saddle_z(h)
    x0 = h.g.tray_x[0] + h.wall
    plate = _box(x0, -20.0, -h.g.tray_inner[1] / 2, h.g.tray_inner[1] / 2, z0, z1)
    for x, y in parts.tray_screw_points(h.g):
        plate += _z_cylinder(x, y, 7.0, z0 - SADDLE_BOSS, z0 + 0.01)
        plate -= _z_cylinder(x, y, 2.5, z0 - SADDLE_BOSS - 1, z1 + 1)
    lx0, lx1 = load_cell_x(h)
    plate += _box(lx1 - 20.0, lx1, -h.load_cell[1] / 2, h.load_cell[1] / 2, z0 - 2.0, z0 + 0.01)
    for x in load_cell_holes(h)[1]:
        plate -= _z_cylinder(x, 0.0, 4.5, z0 - 3, z1 + 1)
        plate -= _z_cylinder(x, 0.0, 8.6, z1 - SADDLE_CBORE, z1 + 1)  # the head, under the tray
    return plate


SADDLE_CBORE = 3.4
SADDLE_BOSS = 5.0  # under the saddle: thread for the tray's screws


def load_cell_holes(h: HandsFree) -> tuple[list[float], list[float]]:
    lx0, lx1 = load_cell_x(h)
    a, b = h.load_cell_holes
    return [lx0 + a, lx0 + b], [lx1 - a, lx1 - b]


def load_cell_z(h: HandsFree) -> tuple[float, float]:
    top = saddle_z(h)[0] - 2.0
    return top - h.load_cell[2], top


def load_cell(h: HandsFree = HANDSFREE) -> Part:
    """The 1 kg straight bar (YZC-133): M4 threads at each end, its gauge's hole."""
    lx0, lx1 = load_cell_x(h)
    z0, z1 = load_cell_z(h)
    w = h.load_cell[1] / 2
    bar = _box(lx0, lx1, -w, w, z0, z1)
    bar -= _y_cylinder((lx0 + lx1) / 2, (z0 + z1) / 2, 8.0, -w - 1, w + 1)
    for x in load_cell_holes(h)[0] + load_cell_holes(h)[1]:
        bar -= _z_cylinder(x, 0.0, CORE_M4, z0 - 1, z1 + 1)
    return bar


CORE_M4 = 3.141


def load_cell_foot(h: HandsFree = HANDSFREE) -> Part:
    """The block under the bar's fixed end, on a 2 mm spacer; it stands on the base."""
    lx0, _ = load_cell_x(h)
    z0, _z1 = load_cell_z(h)
    w = h.load_cell[1] / 2 + 4.0
    block = _box(lx0, lx0 + 20.0, -w, w, z0 - 20.0, z0 - 2.0)
    block += _box(lx0, lx0 + 20.0, -h.load_cell[1] / 2, h.load_cell[1] / 2, z0 - 2.01, z0)
    for x in load_cell_holes(h)[0]:
        block -= _z_cylinder(x, 0.0, 4.5, z0 - 21, z0 + 1)
        block -= _z_cylinder(x, 0.0, 8.6, z0 - 21, z0 - 10.0)  # the screw's head from below
    return block


# ----- the tray, and the whole machine -----

def handsfree_tray(h: HandsFree = HANDSFREE) -> Part:
    """The Lotus build's tray with its walls cut to ``tray_wall_h`` (the shaft stands over
    them, not on them) and none on the window's side: its floor, land, slot, ears and screw
    holes are the Lotus tray's own."""
    g = h.g
    whole = parts.tray(g)
    x0, x1 = g.tray_x
    yo = g.tray_inner[1] / 2 + g.wall
    keep = _box(x0 - 1, g.gate_setback, -yo - 1, yo + 1, g.tray_floor_z - g.floor - 1,
                h.zf + h.tray_wall_h)
    keep += _box(g.gate_setback, x1 + 1, -yo - 20, yo + 20, g.tray_floor_z - g.floor - 1,
                 h.zf + g.ear_height)
    cut = whole & keep
    cut -= _box(x0 - 1, g.gate_setback, g.tray_inner[1] / 2 - 0.01, yo + 1, h.zf - 0.01,
                h.zf + h.tray_wall_h + 1)
    # a slot in the -y wall for the press's arm, down on an empty tray's tyre
    px, _py = h.press_pivot
    w = h.press_arm_w / 2 + 1.5
    return cut - _box(px - w, px + w, -yo - 1, -g.tray_inner[1] / 2 + 0.01,
                      h.zf - 0.01, h.zf + h.tray_wall_h + 1)


# ----- the flap in the fork -----

FLAP_SINK = 0.05  # the flap's top under the floor line: a card steps down onto it, never up


def _flap_lower(h: HandsFree) -> Part:
    """The flap set for the lower bay: its top curved as the lower branch's floor,
    ``FLAP_SINK`` under it, from the fork for the flap's length; its underside flat (the
    chord's, ``vane_thickness`` under the top's ends: it prints on it), its hinge round the
    axle and the axle's stubs through the side plates cut flat there too."""
    g = h.g
    fork = h.shaft.flap_mm
    hi = floor_off(h) - FLAP_SINK
    w = (g.channel_width - 1.0) / 2
    yi, yb, yc = riser_halves(h)
    top = _offset_line(h, Bay.LOWER, fork, fork + g.vane_length, hi, 0.5)
    (x0, z0), (x1, z1) = top[0], top[-1]
    tx, tz = (x1 - x0) / math.dist(top[0], top[-1]), (z1 - z0) / math.dist(top[0], top[-1])
    nx, nz = -tz, tx  # towards the curl's centre
    t = g.vane_thickness
    under = [(x1 - nx * t, z1 - nz * t), (x0 - nx * t, z0 - nz * t)]
    plate = _xz_prism(top + under, -w, w)
    px, pz = flap_pivot(h)
    plate += _y_cylinder(px, pz, t, -w, w)
    plate += _y_cylinder(px, pz, g.axle_d, lever_y(h)[0], -w + 0.01)  # through the lever
    plate += _y_cylinder(px, pz, g.axle_d, w - 0.01, yc + 1.0)
    # everything under the chord's plane goes: the part's flat underside, and the stubs'
    # flat (the lever's key on the -y stub)
    return plate - _flat_cut(h, 0.0, lever_y(h)[0] - 2.0, yc + 2.0)


def flap_print_angle(h: HandsFree) -> float:
    """Degrees about y that lay the flap's flat underside on the bed."""
    fork = h.shaft.flap_mm
    top = _offset_line(h, Bay.LOWER, fork, fork + h.g.vane_length, floor_off(h), 1.0)
    (x0, z0), (x1, z1) = top[0], top[-1]
    return math.degrees(math.atan2(z1 - z0, x1 - x0))


def flap_angle(h: HandsFree, step: float = 0.25) -> float:
    """Degrees the flap turns out (away from the curl's centre) to send a card to the upper
    bay: the least that keeps its top ``FLAP_SINK`` under the upper branch's floor along its
    whole length (the floors curve opposite ways from the fork)."""
    g = h.g
    fork = h.shaft.flap_mm
    px, pz = flap_pivot(h)
    top = _offset_line(h, Bay.LOWER, fork, fork + g.vane_length, floor_off(h) - FLAP_SINK, 0.5)
    floor = _offset_line(h, Bay.UPPER, fork - 1.0, fork + g.vane_length + 3.0, floor_off(h),
                         0.25)
    a = 0.0
    while a < 45.0:
        t = math.radians(a)
        worst = -math.inf
        for x, z in top[1:]:
            dx, dz = x - px, z - pz
            # clockwise in the side view: away from the curl's centre
            rx = px + dx * math.cos(t) + dz * math.sin(t)
            rz = pz - dx * math.sin(t) + dz * math.cos(t)
            q = min(floor, key=lambda f: math.dist(f, (rx, rz)))
            i = floor.index(q)
            a0, a1 = floor[max(i - 1, 0)], floor[min(i + 1, len(floor) - 1)]
            tx, tz = a1[0] - a0[0], a1[1] - a0[1]
            n = math.hypot(tx, tz)
            # above the floor: towards the channel (the left of the upper path's travel)
            worst = max(worst, ((rx - q[0]) * -tz + (rz - q[1]) * tx) / n)
        if worst <= -FLAP_SINK:
            return a
        a += step
    raise ValueError("no flap angle keeps the flap under the upper branch's floor")


def flap(h: HandsFree = HANDSFREE, bay: Bay = Bay.LOWER) -> Part:
    """The flap set for ``bay``: turned ``flap_angle`` out for the upper bay."""
    px, pz = flap_pivot(h)
    a = 0.0 if bay is Bay.LOWER else flap_angle(h)
    return Pos(px, 0, pz) * Rot(0, a, 0) * Pos(-px, 0, -pz) * _flap_lower(h)


def flap_swing(h: HandsFree) -> Part:
    """The room the flap turns in, ``vane_clearance`` round it, across the whole channel."""
    g = h.g
    px, pz = flap_pivot(h)
    fork = h.shaft.flap_mm
    hi = floor_off(h) - FLAP_SINK + g.vane_clearance
    lo = floor_off(h) - FLAP_SINK - g.vane_thickness - g.vane_clearance
    yi = g.channel_width / 2
    plate = _xz_prism(_strip(h, Bay.LOWER, fork - 0.5, fork + g.vane_length + g.vane_clearance,
                             lo, hi), -yi, yi)
    end = flap_angle(h)
    out = None
    for k in range(7):
        a = end * k / 6
        p = Pos(px, 0, pz) * Rot(0, a, 0) * Pos(-px, 0, -pz) * plate
        out = p if out is None else out + p
    return out


# ----- the door sensors -----
#
# Each bay's door sensor is a 3 mm IR break-beam pair (the skew beam's part, Adafruit 2167)
# across the shaft from long wall to long wall, at the skew beam's x: behind the leaves'
# back ends, in the 6.2 mm between the back wall and the leaves' pockets, where no leaf
# comes shut or open. Its axis is ``door_beam_h`` over the bay's doors: a pile lying on them
# breaks it; an empty bay leaves it whole. The emitter is in the -y wall, the receiver in
# the +y wall, each pushed into its bore from outside until its flange meets the wall (its
# lens 0.7 mm back from the inner face), and held there by a printed clip screwed to the
# wall beside it (one M2, towards the back wall's end), its sleeved leads out through the
# clip and bent flat along it: the emitters' down, the receivers' up (the lid swings below
# them).

LED_D = 3.0  # a 3 mm (T-1) LED's body and lens
LED_L = 4.3  # lens tip to flange
LED_FLANGE_D = 3.8
LED_FLANGE_T = 1.0
SLEEVE_D = 3.0  # the heat-shrink over the leads' joints, behind the flange
SLEEVE_L = 10.0  # bent flat along the clip, this far from the LED's axis
CLIP_T = 2.0
CLIP_FRONT = 3.0  # the clip's front edge past the beam's axis (short of the pockets' ends)
CLIP_HALF_H = 3.0  # the clip's edges over and under the beam's axis
CLIP_SCREW_BACK = 3.8  # its screw behind the beam's axis, in the wall's corner
CLIP_SCREW_L = 6.0  # M2 x 6: 4 mm of thread in the 5 mm wall


def door_beam_z(h: HandsFree, bay: Bay) -> float:
    """The axis of ``bay``'s door beam: ``door_beam_h`` over its doors."""
    return h.doors_z(bay) + h.door_beam_h


def door_beam_tip_y(h: HandsFree) -> float:
    """|y| of each LED's lens: its flange on the wall's outer face."""
    return h.shaft_half_w + h.shaft_wall - LED_L


def door_beam(h: HandsFree = HANDSFREE, bay: Bay = Bay.LOWER) -> Part:
    """The light of ``bay``'s door beam: the LED's 3 mm from the emitter's lens to the
    receiver's, what a pile must cut and nothing else may."""
    y = door_beam_tip_y(h)
    return _y_cylinder(skew_x(h), door_beam_z(h, bay), LED_D, -y, y)


def _span(side: int, a: float, b: float) -> tuple[float, float]:
    """|y| from ``a`` to ``b`` on the ``side`` wall, low to high."""
    lo, hi = sorted((side * a, side * b))
    return lo, hi


def _led(h: HandsFree, bay: Bay, side: int) -> Part:
    """One LED of ``bay``'s beam in the ``side`` wall: lens and body in the bore, the flange
    on the wall's outer face, the sleeved leads out through the clip and bent flat along
    it (down on the -y wall, up on the +y)."""
    x, z = skew_x(h), door_beam_z(h, bay)
    yo = h.shaft_half_w + h.shaft_wall
    led = _y_cylinder(x, z, LED_D, *_span(side, door_beam_tip_y(h), yo))
    led += _y_cylinder(x, z, LED_FLANGE_D, *_span(side, yo, yo + LED_FLANGE_T))
    yl = yo + CLIP_T + SLEEVE_D / 2  # the bent sleeve's axis
    led += _y_cylinder(x, z, SLEEVE_D, *_span(side, yo + LED_FLANGE_T, yl))
    led += _z_cylinder(x, side * yl, SLEEVE_D, *sorted((z, z + side * SLEEVE_L)))
    return led


def _at_each_led(h: HandsFree, make: Callable[[HandsFree, Bay, int], Part]) -> Part:
    """``make(h, bay, side)`` for each bay's emitter (-y) and receiver (+y), as one."""
    out = None
    for bay in BAYS:
        for side in (-1, 1):
            p = make(h, bay, side)
            out = p if out is None else out + p
    return out


def door_beam_leds(h: HandsFree = HANDSFREE) -> Part:
    """Both bays' pairs: the emitters in the -y wall, the receivers in the +y wall."""
    return _at_each_led(h, _led)


def door_beam_clip(h: HandsFree = HANDSFREE, bay: Bay = Bay.LOWER, side: int = -1) -> Part:
    """The clip over ``bay``'s LED in the ``side`` wall: a plate on the wall's outer face
    from the back wall's end to short of the leaves' pockets, a recess over the LED's
    flange, a hole for its leads (narrower than the flange), its screw's clearance hole."""
    x, z = skew_x(h), door_beam_z(h, bay)
    xo = shaft_outer(h)[0]
    yo = h.shaft_half_w + h.shaft_wall
    clip = _box(xo, x + CLIP_FRONT, *_span(side, yo, yo + CLIP_T), z - CLIP_HALF_H,
                z + CLIP_HALF_H)
    clip -= _y_cylinder(x, z, LED_FLANGE_D + 0.4, *_span(side, yo - 1, yo + LED_FLANGE_T + 0.05))
    clip -= _y_cylinder(x, z, SLEEVE_D + 0.4, *_span(side, yo - 1, yo + CLIP_T + 1))
    return clip - _y_cylinder(x - CLIP_SCREW_BACK, z, 2.4, *_span(side, yo - 1, yo + CLIP_T + 1))


def door_beam_clips(h: HandsFree = HANDSFREE) -> Part:
    return _at_each_led(h, door_beam_clip)


def door_beam_screw_seats(h: HandsFree, side: int) -> list[tuple[float, float, float]]:
    """(x, y, z) of the clips' M2 heads on the ``side`` wall, on each clip's outer face."""
    y = side * (h.shaft_half_w + h.shaft_wall + CLIP_T)
    return [(skew_x(h) - CLIP_SCREW_BACK, y, door_beam_z(h, bay)) for bay in BAYS]


def door_beam_cuts(h: HandsFree) -> Part:
    """What the shaft loses for the door beams: each LED's bore through its wall and each
    clip screw's pilot."""
    from hardware.shuffler.cad.fasteners import PILOT

    yo, yi = h.shaft_half_w + h.shaft_wall, h.shaft_half_w
    deep = CLIP_SCREW_L - CLIP_T + 0.3

    def holes(h: HandsFree, bay: Bay, side: int) -> Part:
        z = door_beam_z(h, bay)
        hole = _y_cylinder(skew_x(h), z, h.beam_d, *_span(side, yo + 1, yi - 0.01))
        return hole + _y_cylinder(skew_x(h) - CLIP_SCREW_BACK, z, PILOT[2.0],
                                  *_span(side, yo + 1, yo - deep))

    return _at_each_led(h, holes)


@dataclass(frozen=True)
class Orientation:
    """How a printed part lies on the bed (as ``parts.Orientation``)."""

    about_x: float = 0.0
    about_y: float = 0.0
    about_z: float = 0.0
    note: str = "as modelled, floor down"


PRINTED = {
    "handsfree_tray": handsfree_tray,
    "riser_body": riser_body,
    "riser_cover": riser_cover,
    "riser_hub": riser_hub,
    "riser_idler": riser_idler,
    "shaft": shaft,
    "door_leaf": lambda h: leaf(h, Bay.LOWER, -1, gear=False),
    "door_gear": lambda h: gear_segment(h, Bay.LOWER, -1) - _x_cylinder(
        gear_x(h, Bay.LOWER)[0] - 1, gear_x(h, Bay.LOWER)[1] + 1, -h.hinge_y,
        hinge_z(h, Bay.LOWER), h.hinge_d - 1.0),
    "door_servo_mount": servo_mount,
    "press_arm": press_arm,
    "press_foot": press_foot,
    "press_sleeve": press_sleeve,
    "press_lift_horn": press_lift_horn,
    "press_lift_mount": press_lift_mount,
    "press_turn_lever": press_turn_lever,
    "press_turn_mount": press_turn_mount,
    "riser_motor_bracket": lambda h: motor_bracket(h),
    "flap": lambda h: flap(h, Bay.LOWER),
    "router_lever": lambda h: router_lever(h),
    "router_link": lambda h: router_link(h),
    "router_bracket": lambda h: router_bracket(h),
    "lid": lid,
    "tray_saddle": tray_saddle,
    "load_cell_foot": load_cell_foot,
    "door_beam_clip": door_beam_clip,
}

PRINT_ORIENTATION = {
    "handsfree_tray": parts.PRINT_ORIENTATION["tray"],
    "riser_body": Orientation(about_x=90, note="on its side plate, the channel's walls up"),
    "riser_cover": Orientation(about_x=-90, note="flat, outside face down"),
    "riser_hub": Orientation(about_x=90, note="on its end face"),
    "riser_idler": Orientation(about_x=90, note="on its end face"),
    "shaft": Orientation(about_x=180, note="top down, open bottom up"),
    "door_leaf": Orientation(about_y=90, note="standing on its front end"),
    "door_gear": Orientation(about_y=90, note="flat"),
    "door_servo_mount": Orientation(about_y=-90, note="plate down, legs up"),
    "press_arm": Orientation(about_x=180, note="top face down, the hub standing up"),
    "press_foot": Orientation(note="floor down, pocket up"),
    "press_sleeve": Orientation(about_x=180, note="the lug's top face down, the tube up"),
    "press_lift_horn": Orientation(about_x=90, note="flat, its servo side down, the finger up"),
    "press_lift_mount": Orientation(about_x=90, note="the plate's tab face down, the leg up"),
    "press_turn_lever": Orientation(note="flat"),
    "press_turn_mount": Orientation(note="the plate down, the flange up"),
    "riser_motor_bracket": Orientation(
        about_x=-90, note="the plate's outer face (the gearbox's seat) down, legs and ribs up"),
    "flap": Orientation(about_y=flap_print_angle(HANDSFREE), note="on its flat underside"),
    "router_lever": Orientation(about_x=90, note="flat, its outer face down"),
    "router_link": Orientation(about_x=90, note="flat, its outer face down"),
    "router_bracket": Orientation(
        about_x=90, note="the solenoid's seat down, the feet and the stops up"),
    "lid": Orientation(note="standing on its bottom edge, knuckles up"),
    "tray_saddle": Orientation(about_x=180, note="top face down"),
    "load_cell_foot": Orientation(note="floor down"),
    "door_beam_clip": Orientation(about_x=90, note="flat, its outer face down"),
}

# printed this many, alike
COUNTS = {"riser_hub": 4, "riser_idler": 4, "door_leaf": 4, "door_gear": 4,
          "door_beam_clip": 4}


def printable(name: str, h: HandsFree = HANDSFREE) -> Part:
    """Printed part ``name`` as it goes on the bed. Raises KeyError for an unknown name."""
    from hardware.shuffler.cad.measure import laid_flat

    o = PRINT_ORIENTATION[name]
    return laid_flat(PRINTED[name](h), o.about_x, o.about_y, o.about_z)


def printed(h: HandsFree = HANDSFREE, doors: float = 0.0, press: float = 0.0
            ) -> dict[str, Part]:
    """Every printed part in place: the leaves at ``doors`` degrees open, the press arm
    swung ``press`` degrees out."""
    out = {name: PRINTED[name](h) for name in PRINTED
           if name not in ("door_leaf", "door_gear", "riser_hub", "riser_idler",
                           "press_arm", "press_sleeve", "press_lift_horn",
                           "press_turn_lever", "door_beam_clip")}
    out["door_beam_clips"] = door_beam_clips(h)
    out["riser_rollers"] = riser_rollers(h)
    out["door_leaves"] = door_leaves(h, doors)
    fz = press_pose(h, press)
    out["press_arm"] = press_arm(h, fz, press)
    out["press_foot"] = press_foot(h, fz, press)
    out["press_sleeve"] = press_sleeve(h, fz, press)
    up = 0.0 if press == 0 else lift_travel(h)
    out |= link_moving(h, up, turn_servo_deg(h, press))
    return out


def bought(h: HandsFree = HANDSFREE, cards: int | None = None, press: float = 0.0
           ) -> dict[str, Part]:
    """The bought parts in place, with the Lotus build's feed under the tray (the press's
    pin and weight with it, turned ``press`` degrees out)."""
    g = h.g
    fz = press_pose(h, press)
    return {
        "press_follower": press_follower(h, fz, press), "press_weight": press_weight(h, fz, press),
        "press_dog": press_dog(h, fz, press), "press_lift_sg90": lift_sg90(h),
        "press_turn_sg90": turn_sg90(h),
        "gate_blade": parts.gate_blade(g), "roller_hub": parts.roller_hub(g),
        "motor_clamp": parts.motor_clamp(g), "n20_motor": parts.n20_motor(g),
        "o_rings": parts.o_rings(g), "deck": parts.deck(g, cards),
        "riser_tyres": riser_tyres(h), "riser_shafts": riser_shafts(h),
        "hinge_pins": hinge_pins(h), "door_sg90s": sg90s(h), "microswitch": microswitch(h),
        "load_cell": load_cell(h),
        "riser_motor": riser_motor(h), "motor_pulley": motor_pulley(h),
        "belt": belt(h), "belt_idler": belt_idler(h),
        "router_solenoid": router_solenoid(h), "router_plunger": router_plunger(h),
        "router_pin": router_pin(h), "router_spring": router_spring(h),
        "door_beams": door_beam_leds(h), "end_pads": end_pads(h),
    }


# ----- the riser's drive -----
# The riser's drive: one closed GT2 belt round the four roller pulleys, the riser motor's
# pulley and a back-side idler, and the parts that carry the motor and the idler.
#
# Every roller hub runs on the outside of its curl and must turn the same way, so the belt
# wraps each roller pulley with its toothed side. T2L's pulley lies inside the triangle of
# T1's, T2U's and T3U's, so no convex loop can wrap it: the belt dents in round a smooth idler
# on its back (between the branches, its pin through both side plates) and out round T2L.
# The loop's geometry is the pitch line's: straight runs tangent to the wheels' pitch circles.
#
# Docs: docs/hands-free.md ("The riser's drive"), docs/shuffler-build.md (the BOM's rows).

GT2_PITCH = 2.0
BELT_W = 6.0
BELT_T = 1.38  # GT2 6 mm belt, overall: its back is 0.63 mm outside the pitch line
BACK = 0.63
ROLLER_TEETH = 16
# The motor's pulley: Pololu's 25D 4.4:1 HP 6V (item 4801) turns 2200 rpm unloaded at 6 V
# (pololu.com), 1833 rpm on the 5 V supply; 24 T over the rollers' 16 T (1.5 : 1) turns the
# 16 mm hubs 2750 rpm (2.30 m/s, 2.2 x the hands-free feed roller's 1.04 m/s), and the
# driver's duty trims it to the riser's calibrated speed.
MOTOR_TEETH = 24
RISER_MOTOR_RPM = 2200.0  # the 25D 4.4:1 HP 6V's no-load speed at its rated 6 V
RISER_MOTOR_V = 6.0
IDLER_OD = 10.0  # F623ZZ flanged bearing, 3 x 10 x 4 mm: two side by side
IDLER_W = 8.0
# The idler's axis: between the branches (10.8 mm from the nearest centre line). The motor's:
# inside the lower curl, up and back from its centre to where the loop's pitch line comes
# to 400 mm, a stock closed belt (200 teeth), round the 24 T pulley; there T1 keeps 4.9
# teeth in mesh and the run down to T1 passes the cover's screw head 2.3 mm off.
MOTOR_AT = (23.0, 199.08)
IDLER_AT = (75.0, 202.5)
IDLER_PIN_D = 3.0


def pitch_radius(teeth: int) -> float:
    return teeth * GT2_PITCH / (2 * math.pi)


def riser_surface_speed(h: HandsFree = HANDSFREE, supply_v: float = 5.0,
                        motor: float = 1.0) -> float:
    """The riser's tyres' unloaded surface speed (mm/s): the motor's no-load speed scaled to
    ``supply_v`` and by ``motor`` (its part-to-part spread), stepped up by the belt."""
    rpm = RISER_MOTOR_RPM * supply_v / RISER_MOTOR_V * motor * MOTOR_TEETH / ROLLER_TEETH
    return rpm / 60 * math.pi * h.hub_d


@dataclass(frozen=True)
class Wheel:
    """A wheel the belt goes round: its axis (x, z), the pitch line's radius on it, and
    whether the toothed side wraps it (turning with the loop) or the belt's back does."""

    name: str
    x: float
    z: float
    radius: float
    toothed: bool = True


def wheels(h: HandsFree = HANDSFREE) -> list[Wheel]:
    """The loop's wheels in order round it (anticlockwise in the side view, seen from +y)."""
    axes = {r.name: r.hub_axis(h) for r in rollers(h)}
    r16 = pitch_radius(ROLLER_TEETH)
    return [Wheel("T1", *axes["T1"], r16), Wheel("T2U", *axes["T2U"], r16),
            Wheel("T3U", *axes["T3U"], r16), Wheel("T2L", *axes["T2L"], r16),
            Wheel("idler", *IDLER_AT, IDLER_OD / 2 + BACK, toothed=False),
            Wheel("motor", *MOTOR_AT, pitch_radius(MOTOR_TEETH))]




def run(a: Wheel, b: Wheel) -> tuple[Point, Point, float]:
    """The straight run from ``a`` to ``b``: where it leaves ``a``, where it meets ``b``, and
    its heading (radians). A toothed wheel lies left of the run (the loop turns round it
    anticlockwise), a back-side one right of it.

    Raises ValueError when the wheels overlap so that no such run exists.
    """
    ra = a.radius if a.toothed else -a.radius
    rb = b.radius if b.toothed else -b.radius
    d = math.dist((a.x, a.z), (b.x, b.z))
    if abs(ra - rb) >= d:
        raise ValueError(f"no belt run from {a.name} to {b.name}")
    th = math.atan2(b.z - a.z, b.x - a.x) + math.asin((ra - rb) / d)
    nx, nz = -math.sin(th), math.cos(th)  # the run's left
    return (a.x - ra * nx, a.z - ra * nz), (b.x - rb * nx, b.z - rb * nz), th


def runs(ws: list[Wheel]) -> list[tuple[Point, Point, float]]:
    return [run(ws[i], ws[(i + 1) % len(ws)]) for i in range(len(ws))]


def wraps(ws: list[Wheel]) -> list[float]:
    """Degrees of each wheel the belt wraps: positive where the toothed side turns it with
    the loop, negative on the back; a simple loop's sum is 360."""
    rs = runs(ws)
    out = []
    for i, w in enumerate(ws):
        turn = (rs[i][2] - rs[i - 1][2]) % (2 * math.pi)
        out.append(math.degrees(turn if w.toothed else turn - 2 * math.pi))
    return out


def length(ws: list[Wheel]) -> float:
    """The pitch line's length round the loop (mm)."""
    arcs = sum(abs(math.radians(a)) * w.radius for a, w in zip(wraps(ws), ws, strict=True))
    return arcs + sum(math.dist(p, q) for p, q, _th in runs(ws))


def teeth_in_mesh(ws: list[Wheel]) -> dict[str, float]:
    """Teeth of each toothed wheel inside the belt's wrap."""
    return {w.name: a / 360 * 2 * math.pi * w.radius / GT2_PITCH
            for a, w in zip(wraps(ws), ws, strict=True) if w.toothed}


def pitch_line(ws: list[Wheel], step_deg: float = 2.0) -> list[Point]:
    """The pitch line round the loop as points: each run, then the arc on the next wheel."""
    rs = runs(ws)
    pts: list[Point] = []
    for i, (p, q, th) in enumerate(rs):
        pts.append(p)
        pts.append(q)
        w = ws[(i + 1) % len(ws)]
        th_next = rs[(i + 1) % len(rs)][2]
        turn = (th_next - th) % (2 * math.pi)
        if not w.toothed:
            turn -= 2 * math.pi
        n = max(1, math.ceil(abs(math.degrees(turn)) / step_deg))
        sign = 1 if w.toothed else -1
        for k in range(1, n):
            a = th + turn * k / n
            # the contact point: the wheel's centre less its (signed) radius along the left
            pts.append((w.x + sign * w.radius * math.sin(a), w.z - sign * w.radius * math.cos(a)))
    return pts


# ----- the solids -----

def belt_y(h: HandsFree) -> tuple[float, float]:
    """The belt's plane across y: the pulleys' teeth, outside the riser's cover and the
    heads of its screws."""
    yc = riser_halves(h)[2]
    return yc + 1.0, yc + 1.0 + BELT_W + 1.0


def belt(h: HandsFree = HANDSFREE) -> Part:
    """The belt: its band from the teeth's roots (0.254 mm inside the pitch line: the
    pulleys' outside diameter; the teeth in their grooves are not drawn) to its back."""
    line = pitch_line(wheels(h))
    y0, y1 = belt_y(h)
    inside = _offset_loop(line, 0.254 - 0.03)
    outside = _offset_loop(line, -(BACK - 0.03))
    return _prism(outside, y0 + 0.5, y1 - 0.5) - _prism(inside, y0, y1)


def _offset_loop(pts: list[Point], d: float) -> list[Point]:
    """The closed polyline moved ``d`` to its left (into an anticlockwise loop)."""
    out = []
    n = len(pts)
    for i in range(n):
        a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
        t1 = _unit((b[0] - a[0], b[1] - a[1]))
        t2 = _unit((c[0] - b[0], c[1] - b[1]))
        nx, nz = _unit((-(t1[1] + t2[1]), t1[0] + t2[0]))
        cosh = max(0.3, nx * -t1[1] + nz * t1[0])
        out.append((b[0] + nx * d / cosh, b[1] + nz * d / cosh))
    return out


def _unit(v: Point) -> Point:
    n = math.hypot(*v) or 1.0
    return v[0] / n, v[1] / n


def _prism(pts: list[Point], y0: float, y1: float) -> Part:

    clean = [pts[0]]
    for p in pts[1:]:
        if math.dist(p, clean[-1]) > 0.05:
            clean.append(p)
    if math.dist(clean[0], clean[-1]) < 0.05:
        clean.pop()
    return _prism_xz(clean, y0, y1)


# ----- the motor, its bracket, the idler -----

# Pololu's 25D gearmotors (pololu.com, item 4801 and the 25D family's pages): a can just
# under 25 mm across, 63 mm long from the gearbox's face (25Dx63L), the 4 mm D-shaft 12.5 mm
# out of the face, on the can's axis. Assumed (check them on Pololu's 25D dimension
# drawing): the gearbox 25.0 mm across for its first 15 mm and the motor 24.2 mm behind it
# (the replacement motor's listing); the face's two M3 holes 17 mm apart on a line through
# the shaft (the motor's own face's pattern, as the replacement motor's listing gives it),
# tapped at least 4 mm deep.
MOTOR_D = 25.0
CAN_D = 24.2
GEARBOX_L = 15.0
MOTOR_L = 63.0
SHAFT_D = 4.0
SHAFT_L = 12.5
FACE_HOLES = 17.0  # apart, along x
FACE_HOLE_DEPTH = 4.0
PULLEY_HUB = 7.0  # the 24 T pulley's set-screw hub past its teeth (16 mm overall)
PLATE_T = 3.0  # the bracket's plate under the gearbox's face
PLATE_D = 30.0
HEAD_H = 2.4  # the face screws' M3 pan heads, between the pulley's hub and the plate
LEG_D = 8.0
RIB_W = 7.0
RIB_Y0 = 1.0  # the ribs' underside this far past the belt's plane (the pulleys' flanges)
RELIEF_R = 12.0  # the ribs cut back round the pulley's hub and the face screws' heads


def motor_y(h: HandsFree) -> tuple[float, float]:
    """(the gearbox's face, the motor's back end): past the 24 T pulley's hub, the face
    screws' heads and the bracket's plate."""
    face = belt_y(h)[1] + PULLEY_HUB + 0.5 + HEAD_H + PLATE_T
    return face, face + MOTOR_L


def face_holes() -> list[Point]:
    """(x, z) of the two M3 holes in the gearbox's face."""
    x, z = MOTOR_AT
    return [(x - FACE_HOLES / 2, z), (x + FACE_HOLES / 2, z)]


def riser_motor(h: HandsFree = HANDSFREE) -> Part:
    """The riser's 25D gearmotor: gearbox, can, its 4 mm shaft into the pulley, the face's
    two tapped M3 holes (drawn at the tap's 2.5 mm)."""
    x, z = MOTOR_AT
    f, b = motor_y(h)
    motor = (_y_cylinder(x, z, MOTOR_D, f, f + GEARBOX_L)
             + _y_cylinder(x, z, CAN_D, f + GEARBOX_L - 0.01, b)
             + _y_cylinder(x, z, SHAFT_D, f - SHAFT_L, f + 0.01))
    for hx, hz in face_holes():
        motor -= _y_cylinder(hx, hz, 2.5, f - 0.01, f + FACE_HOLE_DEPTH)
    return motor


def motor_pulley(h: HandsFree = HANDSFREE) -> Part:
    """The 24 T pulley on the motor's shaft, its teeth in the belt's plane."""
    yc = riser_halves(h)[2]
    return gt2_pulley(*MOTOR_AT, MOTOR_TEETH, yc, PULLEY_HUB) - _y_cylinder(
        *MOTOR_AT, SHAFT_D, yc, motor_y(h)[0] + 1)


def _leg_points(h: HandsFree) -> list[Point]:
    return riser_screw_points(h)[:2]


def motor_bracket(h: HandsFree = HANDSFREE) -> Part:
    """The bracket: a plate the gearbox's face is screwed to (two M3s from under it, their
    heads between it and the pulley's hub), the shaft through its middle, on two legs down
    to the riser's cover over its columns (their screws hold both) and two ribs from the
    legs to the plate. Its outer face, the gearbox's seat, is flat: it prints on it."""
    x, z = MOTOR_AT
    f, _b = motor_y(h)
    yc = riser_halves(h)[2]
    seat = f - PLATE_T
    rib0 = belt_y(h)[1] + RIB_Y0
    block = _y_cylinder(x, z, PLATE_D, seat, f)
    for lx, lz in _leg_points(h):
        block += _y_cylinder(lx, lz, LEG_D, yc, f)
        block += _rib((lx, lz), (x, z), RIB_W, rib0, f)
    block -= _y_cylinder(x, z, 2 * RELIEF_R, rib0 - 1, seat)
    block -= _y_cylinder(x, z, 8.0, seat - 1, f + 1)  # the shaft and the face's boss
    for hx, hz in face_holes():
        block -= _y_cylinder(hx, hz, 3.4, seat - 1, f + 1)
    for lx, lz in _leg_points(h):
        block -= _y_cylinder(lx, lz, 3.4, yc - 1, f + 1)
    return block


def _rib(a: Point, b: Point, w: float, y0: float, y1: float) -> Part:
    """A flat bar ``w`` wide from ``a`` to ``b`` in the side view, from y0 to y1."""

    dx, dz = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dz)
    nx, nz = -dz / n * w / 2, dx / n * w / 2
    return _prism_xz([(a[0] + nx, a[1] + nz), (b[0] + nx, b[1] + nz), (b[0] - nx, b[1] - nz),
                      (a[0] - nx, a[1] - nz)], y0, y1)


def bracket_screw_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the bracket's two M3s' heads, on its legs' outer ends."""
    return [(x, motor_y(h)[0], z) for x, z in _leg_points(h)]


def face_screw_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the two M3s' heads under the plate, into the gearbox's face."""
    return [(x, motor_y(h)[0] - PLATE_T, z) for x, z in face_holes()]


def belt_idler(h: HandsFree = HANDSFREE) -> Part:
    """The idler: two F623ZZ flanged bearings side by side on a 3 mm pin through both
    side plates (the pin glued in the body's plate), the belt's back on them."""
    x, z = IDLER_AT
    yi, yb, yc = riser_halves(h)
    y0, y1 = belt_y(h)
    mid = (y0 + y1) / 2
    pin = _y_cylinder(x, z, IDLER_PIN_D, yb, mid + IDLER_W / 2 + 0.8)
    bearings = None
    for a in (mid - IDLER_W / 2, mid):
        ring = _y_cylinder(x, z, IDLER_OD, a, a + IDLER_W / 2)
        bearings = ring if bearings is None else bearings + ring
    for a in (mid - IDLER_W / 2, mid + IDLER_W / 2 - 1.0):  # the flanges, outside the belt
        bearings += _y_cylinder(x, z, 11.5, a, a + 1.0)
    bearings -= _y_cylinder(x, z, IDLER_PIN_D, y0 - 2, y1 + 2)
    return pin + bearings


def idler_pin_hole(h: HandsFree, y0: float, y1: float) -> Part:
    """The idler pin's hole through a side plate."""
    return _y_cylinder(*IDLER_AT, IDLER_PIN_D + 0.1, y0, y1)


# ----- the router's solenoid -----
# What turns the flap: a lever keyed on the flap's axle stub outside the body's (-y) side
# plate, a steel pin in the lever's end running in a slot across a printed link on the
# solenoid's plunger, the solenoid lying on a printed bracket screwed over two of the riser's
# columns (their -y ends; the +y ends carry the cover's and the motor bracket's screws). The
# belt drive is on the other (+y) side. Pulled in (on) the plunger draws the lever round the
# flap's ``flap_angle`` to the upper bay; off, the return spring pushes it back to the lower
# bay. Each end has a hard stop: a pad on the bracket that the lever's arm bears on, so the
# rest (the flap's top 0.05 mm under the lower floor) is set by printed faces, not by the
# solenoid; at the upper stop the plunger is still ``SOL_GAP_END`` short of bottoming.
#
# The JF-0530B class (5 V push-pull, open frame), as shop listings and makers' builds give
# it (no maker's datasheet found; check the part as bought): a frame 30 x 13.4 x 15 mm (long
# along the plunger x across x high off its mounting face), the plunger's axis 7.5 mm off
# that face, two M2 tapped holes in it 24 mm apart on its centre line; a 6 mm plunger with
# 10 mm of stroke; 5 N quoted ("12V 5N/10mm", and the same frame at 5 V), drawn as plain
# solids.
#
# Its pull falls steeply with the gap (``sol_force_n``): F = F0 (g0 / (g + g0))^2, F0 the
# seated (0 mm) pull. No curve is published for the JF-0530B; the only measured curves
# found for the class are Seeed's wiki pages: HCNE1-0630 (open frame 16 x 19 x 30 mm, 12 V,
# 9.6 W) 1030 g at 0 mm, 400 g at 2 mm, 220 g at 4 mm; HCNE1-0520 (13 x 15 x 20 mm, 12 V,
# 6 W) 400 g, 65 g, 20 g. The shape is the 30 mm frame's (g0 = 3.3 mm: 399 g and 211 g at 2
# and 4 mm): the JF-0530B's length, and the flatter of the two (the 20 mm frame's g0 is
# about 1.3 mm), so the model errs towards the solenoid. The quoted 5 N is read as F0, the
# seated pull (a listing with no curve gives its best figure), and the design must work
# from a weak clone's 3.75 N (-25 %) to the 5 N.
# With the stop leaving 2.0 mm and the rest at 6.0 mm (the first drawing) it pulled 0.63 N
# at rest at 5 N against the spring's 1.0 N: the flap would not move. So the upper stop now
# keeps the plunger 0.4 mm off bottoming (a printed face; 0.3 mm is a layer and a half) and
# the swing uses 4.4 to 0.4 mm. The 13 mm lever stays: the swing takes 0.31 mm of stroke a
# millimetre of lever, so the pull's torque on the flap at rest, F(g_end + 0.31 r) r, is
# largest at r = (g_end + g0) / 0.31 = 12 mm; a shorter lever starts no better (at 8 mm,
# 2.5 mm of stroke, it has 4 % less torque at rest) and puts the card's push on the pin
# harder. Even so the JF-0530B is too weak for 15 ms (docs/hands-free.md).
SOL_L = 30.0
SOL_W = 13.4
SOL_H = 15.0
SOL_AXIS_H = 7.5
SOL_HOLES = 24.0
SOL_HOLE_D = 1.6  # the M2 thread's core, as the model draws a tapped hole
SOL_HOLE_DEPTH = 3.5  # assumed: the frame's tapped holes (or its clinched nuts)
PLUNGER_D = 6.0
SOL_STROKE = 10.0
PLUNGER_OUT = 16.0  # past the frame's face, pulled fully out: the stroke and its tip
PLUNGER_L = 36.0
SOL_F0_N = 5.0  # the quoted 5 N, read as the seated pull
SOL_F0_MIN_N = 3.75  # a weak clone: -25 %
SOL_G0_MM = 3.3  # the curve's shape: fitted to Seeed's HCNE1-0630 (below)
# Seeed's published points (gap mm, pull g) the shape is fitted to, and the smaller frame's
HCNE1_0630_G = ((0.0, 1030.0), (2.0, 400.0), (4.0, 220.0))
HCNE1_0520_G = ((0.0, 400.0), (2.0, 65.0), (4.0, 20.0))
SOL_GAP_END = 0.4  # the plunger short of bottoming at the upper stop (the stop, not the
# solenoid, ends the swing)
PLUNGER_G = 8.0  # steel, 6 mm x 36 mm (7.85 g/cm3)

# The lever: its pin LEVER_R from the flap's axis, its arm pointing LEVER_MID_DEG (in the
# side view, from +x towards +z) half way through the swing: there the plunger's axis is the
# pin's tangent, so the pin crosses the link's slot by only r (1 - cos(swing / 2)).
LEVER_R = 13.0
LEVER_MID_DEG = 188.0
LEVER_T = 4.0
LEVER_W = 6.0
LEVER_HUB_D = 9.0
LEVER_GAP = 0.6  # off the side plate (and 1.5 mm off T1's shaft end in it)
PIN_D = 2.0  # ISO 8734 dowel, 2 x 20 mm, pressed into the lever
PIN_L = 20.0
STOP_GAP = 0.02  # the model's lever stands this short of each stop (it rests on it)
STOP_T = 4.0
BRACKET_T = 3.0
BRACKET_SCREWS = (0, 3)  # the riser's columns the bracket is screwed over (RISER_SCREWS)
FOOT_D = 9.0
LINK_BORE = 4.0  # the plunger's tip glued this far into the link
LINK_NOSE = 5.0  # the link past the plunger's tip; the pin 2.5 mm from the tip
LINK_HALF = 4.0
# The return spring on the plunger, between the frame's face and the link (in place of the
# unit's own light spring, whose rate no listing gives): 8 mm OD, 0.35 mm wire, 5 coils
# (3 active: G d^4 / 8 D^3 n = 0.11 N/mm, taken as 0.1), 12.7 mm free, 1.75 mm solid; 6.4 mm
# long at rest (0.63 N: 1.25 x the stiffest card's push at the pin, SPRING_MARGIN) and
# 2.4 mm at the upper stop (1.03 N). Its preload is the least that holds the card with that
# margin: every 0.1 N more at rest is 0.1 N less of the solenoid's 0.69 N there at 3.75 N.
SPRING_OD = 8.0
SPRING_ID = 7.2
SPRING_K = 0.1
SPRING_FREE = 12.7
SPRING_SOLID = 1.75
SPRING_MARGIN = 1.25


def lever_angles(h: HandsFree = HANDSFREE) -> tuple[float, float]:
    """The lever's arm (degrees in the side view) at the lower bay's rest and at the
    upper bay's stop: the flap's turn takes it clockwise."""
    half = flap_angle(h) / 2
    return LEVER_MID_DEG + half, LEVER_MID_DEG - half


def _u() -> Point:
    """The plunger's axis in the side view, from the pin towards the solenoid."""
    m = math.radians(LEVER_MID_DEG)
    return math.sin(m), -math.cos(m)


def pin_mid(h: HandsFree) -> Point:
    px, pz = flap_pivot(h)
    m = math.radians(LEVER_MID_DEG)
    return px + LEVER_R * math.cos(m), pz + LEVER_R * math.sin(m)


def pin_travel(h: HandsFree, a: float) -> float:
    """How far along the plunger's axis the pin stands from its mid-swing place with the
    flap turned ``a`` degrees (negative at rest, positive at the upper stop)."""
    m = math.radians(LEVER_MID_DEG)
    return LEVER_R * math.sin(m - math.radians(lever_angles(h)[0] - a))


def _local(h: HandsFree, s: float, p: float) -> Point:
    """The side view's point ``s`` along the plunger's axis from the pin's mid place, ``p``
    across it."""
    (x, z), (ux, uz) = pin_mid(h), _u()
    return x + s * ux + p * uz, z + s * uz - p * ux


def _band(h: HandsFree, s0: float, s1: float, p0: float, p1: float, y0: float,
          y1: float) -> Part:
    pts = [_local(h, s0, p0), _local(h, s1, p0), _local(h, s1, p1), _local(h, s0, p1)]
    return _prism_xz(pts, y0, y1)


def _axial(h: HandsFree, s0: float, s1: float, d: float, y: float) -> Part:
    """A cylinder on the plunger's axis (at ``y``) from ``s0`` to ``s1``."""
    from build123d import Cylinder

    ux, uz = _u()
    cx, cz = _local(h, (s0 + s1) / 2, 0.0)
    return Pos(cx, y, cz) * Rot(0, math.degrees(math.atan2(ux, uz)), 0) * Cylinder(
        d / 2, s1 - s0)


def lever_y(h: HandsFree) -> tuple[float, float]:
    """(outer, inner) y of the lever."""
    yb = riser_halves(h)[1]
    return yb - LEVER_GAP - LEVER_T, yb - LEVER_GAP


def bracket_y(h: HandsFree) -> tuple[float, float]:
    """(outer, inner) y of the bracket's plate: the solenoid's seat is the outer face."""
    inner = lever_y(h)[0] - 0.85
    return inner - BRACKET_T, inner


def sol_axis_y(h: HandsFree) -> float:
    return bracket_y(h)[0] - SOL_AXIS_H


def sol_face_s(h: HandsFree) -> float:
    """The frame's face (where the plunger leaves it) along the axis: at the upper stop the
    plunger is in to ``SOL_GAP_END`` short of bottoming, the pin ``LINK_NOSE / 2`` past its
    tip."""
    out = PLUNGER_OUT - (SOL_STROKE - SOL_GAP_END)
    return pin_travel(h, flap_angle(h)) + LINK_NOSE / 2 + out


def plunger_tip_s(h: HandsFree, a: float) -> float:
    return pin_travel(h, a) + LINK_NOSE / 2


def sol_gap(h: HandsFree, a: float) -> float:
    """The plunger's gap to bottoming (mm) with the flap at ``a``."""
    return SOL_STROKE - (PLUNGER_OUT - (sol_face_s(h) - plunger_tip_s(h, a)))


def _turned(h: HandsFree, part: Part, a: float) -> Part:
    px, pz = flap_pivot(h)
    return Pos(px, 0, pz) * Rot(0, a, 0) * Pos(-px, 0, -pz) * part


def _flat_cut(h: HandsFree, extra: float, y0: float, y1: float) -> Part:
    """Everything past the flap's flat underside's plane (``extra`` further out): the cut
    that makes the flap and its stubs flat, and, 0.05 mm further, the lever's D-bore's flat."""
    fork = h.shaft.flap_mm
    top = _offset_line(h, Bay.LOWER, fork, fork + h.g.vane_length, floor_off(h) - FLAP_SINK,
                       0.5)
    (x0, z0), (x1, z1) = top[0], top[-1]
    n = math.dist(top[0], top[-1])
    tx, tz = (x1 - x0) / n, (z1 - z0) / n
    nx, nz = -tz, tx
    t, far = h.g.vane_thickness + extra, 20.0
    cut = [(x0 - nx * t - tx * far, z0 - nz * t - tz * far),
           (x1 - nx * t + tx * far, z1 - nz * t + tz * far),
           (x1 - nx * (t + far) + tx * far, z1 - nz * (t + far) + tz * far),
           (x0 - nx * (t + far) - tx * far, z0 - nz * (t + far) - tz * far)]
    return _prism_xz(cut, y0, y1)


def _arm(h: HandsFree, deg: float, r: float, w: float, y0: float, y1: float) -> Part:
    px, pz = flap_pivot(h)
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    ex, ez = px + r * c, pz + r * s
    nx, nz = -s * w / 2, c * w / 2
    return _prism_xz([(px + nx, pz + nz), (ex + nx, ez + nz), (ex - nx, ez - nz),
                      (px - nx, pz - nz)], y0, y1)


def router_lever(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The lever on the flap's -y stub, the flap turned ``a`` degrees: a hub with the stub's
    D-shaped bore (keyed on the flat the flap's underside cuts across the stub, and glued),
    an arm to the pin's boss, the pin's hole."""
    px, pz = flap_pivot(h)
    y0, y1 = lever_y(h)
    rest = lever_angles(h)[0]
    c, s = math.cos(math.radians(rest)), math.sin(math.radians(rest))
    qx, qz = px + LEVER_R * c, pz + LEVER_R * s
    lever = (_y_cylinder(px, pz, LEVER_HUB_D, y0, y1) + _arm(h, rest, LEVER_R, LEVER_W, y0, y1)
             + _y_cylinder(qx, qz, LEVER_W, y0, y1))
    bore = _y_cylinder(px, pz, h.g.axle_d + 0.1, y0 - 1, y1 + 1)
    bore -= _flat_cut(h, 0.05, y0 - 2, y1 + 2)
    lever -= bore
    lever -= _y_cylinder(qx, qz, PIN_D + 0.02, y0 - 1, y1 + 1)
    return _turned(h, lever, a)


def pin_point(h: HandsFree, a: float) -> Point:
    px, pz = flap_pivot(h)
    deg = math.radians(lever_angles(h)[0] - a)
    return px + LEVER_R * math.cos(deg), pz + LEVER_R * math.sin(deg)


def router_pin(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The 2 x 20 mm dowel pressed into the lever, through the bracket's window into the
    link's slot."""
    y1 = lever_y(h)[1] - 0.25
    return _y_cylinder(*pin_point(h, a), PIN_D, y1 - PIN_L, y1)


def link_y(h: HandsFree) -> tuple[float, float]:
    y = sol_axis_y(h)
    return y - LINK_HALF - 0.5, y + LINK_HALF


def router_link(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The link glued on the plunger's tip: the slot across the axis the pin runs in."""
    tip = plunger_tip_s(h, a)
    y0, y1 = link_y(h)
    link = _band(h, tip - LINK_NOSE, tip + LINK_BORE, -LINK_HALF, LINK_HALF, y0, y1)
    link -= _axial(h, tip - 0.01, tip + LINK_BORE + 0.01, PLUNGER_D + 0.05, sol_axis_y(h))
    pin_s = tip - LINK_NOSE / 2
    slot = PIN_D + 0.1
    link -= _band(h, pin_s - slot / 2, pin_s + slot / 2, -1.5, 1.5, y0 - 1, y1 + 1)
    for p in (-1.5, 1.5):
        link -= _y_cylinder(*_local(h, pin_s, p), slot, y0 - 1, y1 + 1)
    return link


def router_plunger(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    tip = plunger_tip_s(h, a)
    return _axial(h, tip, tip + PLUNGER_L, PLUNGER_D, sol_axis_y(h))


def router_spring(h: HandsFree = HANDSFREE, a: float = 0.0) -> Part:
    """The return spring, drawn as its envelope (a tube) between the link and the frame."""
    s0 = plunger_tip_s(h, a) + LINK_BORE + 0.01
    s1 = sol_face_s(h) - 0.01
    y = sol_axis_y(h)
    return _axial(h, s0, s1, SPRING_OD, y) - _axial(h, s0 - 1, s1 + 1, SPRING_ID, y)


def sol_hole_points(h: HandsFree) -> list[Point]:
    mid = sol_face_s(h) + SOL_L / 2
    return [_local(h, mid - SOL_HOLES / 2, 0.0), _local(h, mid + SOL_HOLES / 2, 0.0)]


def router_solenoid(h: HandsFree = HANDSFREE) -> Part:
    """The solenoid's frame and coil as one solid, its mounting face on the bracket: the
    plunger's bore through it, the two tapped M2 holes (drawn at the thread's core)."""
    f = sol_face_s(h)
    y_seat = bracket_y(h)[0]
    body = _band(h, f, f + SOL_L, -SOL_W / 2, SOL_W / 2, y_seat - SOL_H, y_seat)
    body -= _axial(h, f - 1, f + SOL_L + 1, PLUNGER_D + 0.3, sol_axis_y(h))
    for x, z in sol_hole_points(h):
        body -= _y_cylinder(x, z, SOL_HOLE_D, y_seat - SOL_HOLE_DEPTH, y_seat + 0.01)
    return body


def bracket_screw_points(h: HandsFree) -> list[Point]:
    pts = riser_screw_points(h)
    return [pts[i] for i in BRACKET_SCREWS]


def _stop(h: HandsFree, deg: float, side: int, y0: float, y1: float) -> Part:
    """A stop pad beside the arm at ``deg``, on its ``side`` (+1: anticlockwise)."""
    px, pz = flap_pivot(h)
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    nx, nz = -s * side, c * side
    near, far = LEVER_W / 2 + STOP_GAP, LEVER_W / 2 + STOP_GAP + STOP_T
    pts = []
    for r, d in ((LEVER_HUB_D / 2 + 3.0, near), (LEVER_R - 1.0, near), (LEVER_R - 1.0, far),
                 (LEVER_HUB_D / 2 + 3.0, far)):
        pts.append((px + r * c + d * nx, pz + r * s + d * nz))
    return _prism_xz(pts, y0, y1)


def _hull(points: list[Point]) -> list[Point]:
    """The convex hull, anticlockwise (Andrew's monotone chain)."""
    pts = sorted(set(points))

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    upper: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def router_bracket(h: HandsFree = HANDSFREE) -> Part:
    """The bracket: a plate over the lever, on two feet over the riser's columns (a
    countersunk M3 through each into the column), the solenoid's seat on its outer face (two
    M2s from the inner face into the frame), a window for the lever's pin, and the two stop
    pads the lever's arm rests on (lower bay: the spring holds it there; upper: the
    solenoid)."""
    yb = riser_halves(h)[1]
    y_out, y_in = bracket_y(h)
    rest, end = lever_angles(h)
    f = sol_face_s(h)
    pts = [_local(h, s, p) for s in (f - 1.0, f + SOL_L + 1.0)
           for p in (-SOL_W / 2 - 1.0, SOL_W / 2 + 1.0)]
    for x, z in bracket_screw_points(h):
        pts += [(x + FOOT_D / 2 * math.cos(k * math.pi / 8), z + FOOT_D / 2 * math.sin(
            k * math.pi / 8)) for k in range(16)]
    px, pz = flap_pivot(h)
    for deg in (rest + 22.0, end - 22.0, (rest + end) / 2):
        pts.append((px + 3.0 * math.cos(math.radians(deg)),
                    pz + 3.0 * math.sin(math.radians(deg))))
        pts.append((px + (LEVER_R + 3.0) * math.cos(math.radians(deg)),
                    pz + (LEVER_R + 3.0) * math.sin(math.radians(deg))))
    plate = _prism_xz(_hull(pts), y_out, y_in)
    for x, z in bracket_screw_points(h):
        plate += _y_cylinder(x, z, FOOT_D, y_in - 0.01, yb)
    plate += _stop(h, rest, 1, y_in - 0.01, lever_y(h)[1] - 0.25)
    plate += _stop(h, end, -1, y_in - 0.01, lever_y(h)[1] - 0.25)
    # the pin's window: an arc round the flap's axis, 1 mm clear of the pin at either end
    win = []
    for k in range(13):
        deg = math.radians(end - 6.0 + (rest - end + 12.0) * k / 12)
        win.append((px + (LEVER_R - PIN_D) * math.cos(deg), pz + (LEVER_R - PIN_D) * math.sin(
            deg)))
    for k in range(12, -1, -1):
        deg = math.radians(end - 6.0 + (rest - end + 12.0) * k / 12)
        win.append((px + (LEVER_R + PIN_D) * math.cos(deg), pz + (LEVER_R + PIN_D) * math.sin(
            deg)))
    plate -= _prism_xz(win, y_out - 1, y_in + 1)
    # the flap's stub and the lever's hub under the plate: room for them
    plate -= _y_cylinder(px, pz, LEVER_HUB_D + 1.0, y_in - 0.5, y_in + 1)
    from hardware.shuffler.cad.parts import countersink

    for x, z in bracket_screw_points(h):
        plate -= Pos(x, y_out, z) * Rot(90, 0, 0) * countersink(0, 0, 0, yb - y_out + 1.0)
    for x, z in sol_hole_points(h):
        plate -= _y_cylinder(x, z, 2.4, y_out - 1, y_in + 1)
    return plate


def router_pilots(h: HandsFree) -> Part:
    """The pilot holes the bracket's screws form their thread in: through the body's side
    plate into the -y ends of the two columns (part of the riser's body)."""
    yi, yb, _yc = riser_halves(h)
    out = None
    for x, z in bracket_screw_points(h):
        hole = _y_cylinder(x, z, 2.5, yb - 1, -yi + 9.0)
        out = hole if out is None else out + hole
    return out


def router_bracket_screw_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the bracket's countersunk M3s' heads, sunk in its outer face."""
    y = bracket_y(h)[0] + COUNTERSINK_DEPTH
    return [(x, y, z) for x, z in bracket_screw_points(h)]


def router_solenoid_screw_seats(h: HandsFree) -> list[tuple[float, float, float]]:
    """(x, y, z) of the two M2s' heads on the bracket's inner face, into the frame."""
    y = bracket_y(h)[1]
    return [(x, y, z) for x, z in sol_hole_points(h)]


ROUTER_MOVING = ("router_lever", "router_pin", "router_link", "router_plunger",
                 "router_spring")


def router_moving(h: HandsFree = HANDSFREE, a: float = 0.0) -> dict[str, Part]:
    """The router's moving parts with the flap turned ``a`` degrees (0: the lower bay)."""
    return {"router_lever": router_lever(h, a), "router_pin": router_pin(h, a),
            "router_link": router_link(h, a), "router_plunger": router_plunger(h, a),
            "router_spring": router_spring(h, a)}


# ----- the router's force and time -----

PETG_G_MM3 = 1.27e-3  # as handsfree_fasteners' press weight
STEEL_G_MM3 = 7.85e-3
# A card bent round the curl presses on the outer floor with about EI / R^2 at each end of
# the bend (handsfree_sim.curl_drag_n's estimate): the stiffest, thickest card (5 GPa,
# 0.32 mm, 63.5 mm wide) on the 40 mm curl, 0.54 N, all of it taken on the flap's tip
# (12 mm out), pushing it out towards the upper bay's setting: the spring must hold more.
CARD_PUSH_N = 5000.0 * 63.5 * 0.32 ** 3 / 12.0 / 40.0 ** 2


def spring_n(h: HandsFree, a: float) -> float:
    """The return spring's push (N) with the flap turned ``a`` degrees."""
    length = sol_face_s(h) - plunger_tip_s(h, a) - LINK_BORE
    return SPRING_K * (SPRING_FREE - length)


def router_moving_mass_g(h: HandsFree = HANDSFREE) -> float:
    """The mass the solenoid moves, taken to its plunger (g): the plunger, the link and a
    third of the spring along the axis; the flap, the lever and the pin turning, each taken
    at most (its whole mass at its farthest point from the axis) over the lever's radius
    squared."""
    px, pz = flap_pivot(h)

    def far(part: Part) -> float:
        return max(math.dist((v.X, v.Z), (px, pz)) for v in part.vertices())

    turning = 0.0
    for part, density in ((flap(h), PETG_G_MM3), (router_lever(h), PETG_G_MM3),
                          (router_pin(h), STEEL_G_MM3)):
        turning += part.volume * density * far(part) ** 2
    link = router_link(h).volume * PETG_G_MM3
    spring = 0.5  # a 0.4 mm wire spring of 8 mm: about 1.5 g; a third moves with the tip
    return PLUNGER_G + link + spring + turning / LEVER_R ** 2


def sol_force_n(gap_mm: float, f0_n: float = SOL_F0_N) -> float:
    """The solenoid's pull (N) at ``gap_mm`` short of bottoming, ``f0_n`` seated:
    F0 (g0 / (g + g0))^2. Raises ValueError for a negative gap."""
    if gap_mm < 0:
        raise ValueError(f"the plunger's gap must be 0 mm or more, got {gap_mm} mm")
    return f0_n * (SOL_G0_MM / (gap_mm + SOL_G0_MM)) ** 2


def card_push_at_pin_n(h: HandsFree = HANDSFREE, lever_r: float = LEVER_R) -> float:
    """The stiffest card's push on the flap's tip, taken to the lever's pin along the
    plunger's axis (N)."""
    return CARD_PUSH_N * h.g.vane_length / lever_r


def solenoid_swing_s(travel_mm: float, gap_end_mm: float, spring_rest_n: float,
                     spring_k: float, f0_n: float, mass_g: float, card_n: float,
                     pull: bool = True, dt: float = 1e-5) -> float:
    """Seconds for the plunger to go ``travel_mm`` between the stops, pulled in (``pull``)
    from ``gap_end_mm + travel_mm`` to ``gap_end_mm`` by the solenoid (``sol_force_n`` at
    each step's gap) against the spring, or sprung back by the spring alone against the
    card's push. Raises ValueError when the net force at the start does not move it, or when
    it stalls on its way."""
    m = mass_g / 1000.0
    x, v, t = 0.0, 0.0, 0.0
    while x < travel_mm:
        # the spring: its rest push, growing as the plunger goes in (x from the rest stop
        # pulling, from the upper stop returning)
        spring = spring_rest_n + spring_k * (x if pull else travel_mm - x)
        # the card's push helps a pull: left out; it holds back the return
        if pull:
            f = sol_force_n(gap_end_mm + travel_mm - x, f0_n) - spring
        else:
            f = spring - card_n
        if t == 0.0 and f <= 0:
            raise ValueError(f"the router does not start: {f:.2f} N net at the stop "
                             f"({'pulling' if pull else 'springing back'}, {f0_n:.2f} N "
                             f"seated, gap {gap_end_mm + travel_mm:.2f} mm)")
        v += f / m * dt
        x += v * 1000.0 * dt
        t += dt
        if v <= 0 or t > 1.0:
            raise ValueError(f"the router stalls {x:.2f} mm into its {travel_mm:.2f} mm "
                             f"({f0_n:.2f} N seated)")
    return t


def router_swing_s(h: HandsFree = HANDSFREE, f0_n: float = SOL_F0_N, pull: bool = True,
                   mass_g: float | None = None, dt: float = 1e-5) -> float:
    """Seconds for the flap to swing from one stop to the other as drawn: pulled in
    (``pull``) by a solenoid of seated pull ``f0_n`` against the spring, or sprung back by
    the spring alone against a card's push. Raises ValueError when it does not start or
    stalls on its way."""
    end = flap_angle(h)
    return solenoid_swing_s(pin_travel(h, end) - pin_travel(h, 0.0), sol_gap(h, end),
                            spring_n(h, 0.0), SPRING_K, f0_n,
                            router_moving_mass_g(h) if mass_g is None else mass_g,
                            card_push_at_pin_n(h), pull, dt)
