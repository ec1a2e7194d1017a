"""The shuffler's printed parts and the bought parts they hold, as build123d solids.

Every solid is built in place, in the assembly's frame (see ``params``), so the assembly is
the parts side by side and the tests measure them where they sit. ``PRINT_ORIENTATION``
says how each printed part lies on the bed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from build123d import (
    Align,
    Box,
    Cone,
    Cylinder,
    Part,
    Plane,
    Polygon,
    Pos,
    Rot,
    Torus,
    extrude,
)

from hardware.shuffler.cad.params import PILES, Geometry, Point

MIN = (Align.MIN, Align.MIN, Align.MIN)
LOW = (Align.CENTER, Align.CENTER, Align.MIN)  # centred in x and y, sitting on z


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> Part:
    """An axis-aligned box between two corners."""
    return Pos(x0, y0, z0) * Box(x1 - x0, y1 - y0, z1 - z0, align=MIN)


def _y_cylinder(x: float, z: float, d: float, y0: float, y1: float) -> Part:
    """A cylinder whose axis runs along y, from y0 to y1."""
    return Pos(x, y0, z) * Rot(-90, 0, 0) * Cylinder(d / 2, y1 - y0, align=LOW)


def _z_cylinder(x: float, y: float, d: float, z0: float, z1: float) -> Part:
    return Pos(x, y, z0) * Cylinder(d / 2, z1 - z0, align=LOW)


def _band(start: Point, angle: float, length: float, below: float, above: float,
          width: float, back: float = 0.0, ahead: float = 0.0) -> Part:
    """A slab along a line of the side view that runs down at ``angle`` from ``start``.

    ``below``/``above`` are measured square to the line; ``back``/``ahead`` extend it.
    """
    slab = Pos(-back, 0, -below) * Box(back + length + ahead, width, below + above,
                                       align=(Align.MIN, Align.CENTER, Align.MIN))
    return Pos(start[0], 0, start[1]) * Rot(0, angle, 0) * slab


def _segments(g: Geometry) -> list[tuple[Point, float, float, float, float]]:
    """(start, angle, length, back, ahead) of the chute and the two branches."""
    x0, z0 = g.router_x0, g.land_z
    fx, fz = g.fork
    chute = math.hypot(fx - x0, fz - z0)
    left = math.dist(g.fork, g.left_outlet)
    right = math.dist(g.fork, g.right_outlet)
    return [((x0, z0), g.chute_angle, chute, 4.0, 3.0),
            (g.fork, g.lower_angle, left, 3.0, 0.0),
            (g.fork, g.upper_angle, right, 3.0, 0.0)]


# ----- printed parts -----

def _prism_xz(points: list[Point], y0: float, y1: float) -> Part:
    """A prism along y (from y0 to y1) on a polygon of the side view's (x, z) points."""
    face = Plane.XZ * Polygon(*[(x, z) for x, z in points], align=None)
    prism = extrude(face, amount=y1 - y0)  # towards +y or -y, as the polygon winds
    return Pos(0, y0 - prism.bounding_box().min.Y, 0) * prism


def countersink(x: float, y: float, z_top: float, depth: float) -> Part:
    """A 3.4 mm hole down from ``z_top`` for ``depth``, countersunk 90 degrees to 6.4 mm.

    An ISO 10642 M3 head (6 mm) then sits 0.2 mm under the surface.
    """
    sink = (6.4 - 3.4) / 2
    hole = _z_cylinder(x, y, 3.4, z_top - depth - 0.01, z_top + 0.01)
    return hole + Pos(x, y, z_top - sink) * Cone(1.7, 3.21, sink + 0.01, align=LOW)


def tray(g: Geometry) -> Part:
    """The input tray: floor with the roller's slot, walls, the ears that carry the gate
    blade (the blade is the front wall), and the land past the tyre (level with its top) that
    the card rests on under the blade."""
    length, width = g.tray_inner
    x0, x1 = g.tray_x
    yi, yo = width / 2, width / 2 + g.wall
    zf, top = g.tray_floor_z, g.tray_wall_top
    body = _box(x0, x1, -yo, yo, zf - g.floor, zf)  # floor and the lip past the gate
    # The land: a ramp up from the floor beside the slot, level with the tyre's top on.
    zl, xs = g.land_z, g.land_start
    body += _prism_xz([(xs - g.land_ramp, zf), (x1, zf), (x1, zl), (xs, zl)], -yi, yi)
    body += _box(x0, x0 + g.wall, -yo, yo, zf, top)  # back wall
    for side in (-1, 1):
        body += _box(x0, g.gate_x, *sorted((side * yi, side * yo)), zf, top)  # side walls
    # The ears, beside the card's width, carry the gate blade's screws. No front wall spans
    # the card's width: it would be a 65 mm bridge over the card's way out.
    ear = yo + 10.0
    for side in (-1, 1):
        body += _box(g.gate_setback, g.gate_x, *sorted((side * yo, side * ear)),
                     zf - g.floor, zf + g.ear_height)
    # The roller's slot, and the window a TCRT5000 under the floor looks up through.
    half_w = g.hub_width / 2 + g.roller_slot_clearance
    body -= _box(-g.floor_opening / 2, g.floor_opening / 2, -half_w, half_w,
                 zf - g.floor - 1, zl + 1)
    # ... and over the slot the land is a plate that clears the tyre, its edge chamfered.
    lead = g.land_lead
    body += _prism_xz([(xs, zl - g.land_plate), (g.floor_opening / 2 + 0.01, zl - g.land_plate),
                       (g.floor_opening / 2 + 0.01, zl), (xs + lead, zl), (xs, zl - lead)],
                      -half_w - 0.01, half_w + 0.01)
    tx, ty = g.tcrt_at
    body -= _box(tx - 5, tx + 5, ty - 3, ty + 3, zf - g.floor - 1, zf + 1)
    for hole in gate_screw_points(g):
        body -= _x_hole(g, hole)
    # Every screw through the floor is countersunk flush: the card slides over their heads.
    for x, y in clamp_screw_points(g) + tray_screw_points(g):
        surface = g.support_z(x) if x > 0 else zf
        body -= countersink(x, y, surface, surface - zf + g.floor)
    return body


def clamp_screw_points(g: Geometry) -> list[tuple[float, float]]:
    """(x, y) of the two M3 screws that hold the motor clamp under the tray floor."""
    y = -g.hub_width / 2 - g.motor_gap - g.gearbox_len / 2
    return [(sx * 11.0, y) for sx in (-1, 1)]


def tray_screw_points(g: Geometry) -> list[tuple[float, float]]:
    """(x, y) of the four M3 screws that hold the tray down on the base."""
    x0 = g.tray_x[0] + g.wall + 8.0
    y = g.tray_inner[1] / 2 - 6.0
    return [(x, sy * y) for x in (x0, -25.0) for sy in (-1, 1)]


def gate_screw_points(g: Geometry) -> list[tuple[float, float, float]]:
    """(x, z, y) of the two M3 screws that hold the gate blade to the tray's ears."""
    y = g.tray_inner[1] / 2 + g.wall + 5.0
    z = g.tray_floor_z + g.ear_height / 2
    return [(g.gate_setback, z, -y), (g.gate_setback, z, y)]


def _x_hole(g: Geometry, hole: tuple[float, float, float]) -> Part:
    x, z, y = hole
    return Pos(x - 1, y, z) * Rot(0, 90, 0) * Cylinder(1.7, g.wall + 2 * g.wall + 2,
                                                       align=LOW)


def gate_blade(g: Geometry) -> Part:
    """The gate and the tray's front wall: a blade on the ears' outer face, its edge the gap
    above the land (slots set it), with a 45-degree lead-in on the deck's side."""
    half = g.tray_inner[1] / 2 + g.wall + 10.0
    z0 = g.land_z + g.gate_gap
    c = g.gate_chamfer
    blade = _prism_xz([(g.gate_x, z0 + c), (g.gate_x + c, z0), (g.gate_x + g.wall, z0),
                       (g.gate_x + g.wall, z0 + g.gate_blade_height),
                       (g.gate_x, z0 + g.gate_blade_height)], -half, half)
    for _x, z, y in gate_screw_points(g):
        slot = _box(g.gate_x - 1, g.gate_x + g.wall + 1, y - 1.7, y + 1.7,
                    z - g.gate_travel, z + g.gate_travel)
        for dz in (-g.gate_travel, g.gate_travel):
            slot += _x_hole(g, (g.gate_x, z + dz, y))
        blade -= slot
    return blade


def width_shims(g: Geometry) -> Part:
    """Two shims that hang on the tray's side walls and centre a narrower (bridge) deck.

    Each is ``(widest - deck width) / 2`` thick (3.15 mm for bridge cards in a poker tray).
    """
    length, width = g.tray_inner
    x0 = g.tray_x[0] + g.wall + 0.5
    x1 = g.gate_x - 0.5
    # For a poker deck the tray needs none: the part is then drawn for a bridge deck.
    t = g.bridge_shim
    top = g.tray_wall_top
    out = None
    for side in (-1, 1):
        yi, yo = width / 2 - t, width / 2
        plate = _box(x0, x1, *sorted((side * yi, side * yo)), g.tray_floor_z + 1.0, top)
        hook = _box(x0, x1, *sorted((side * yi, side * (yo + g.wall + 1.6))), top, top + 2.0)
        lip = _box(x0, x1, *sorted((side * (yo + g.wall), side * (yo + g.wall + 1.6))),
                   top - 8.0, top)
        shim = plate + hook + lip
        out = shim if out is None else out + shim
    return out


def press_z(g: Geometry, cards: int | None = None) -> float:
    """The press's underside: on top of a deck of ``cards`` (the tray's capacity)."""
    n = g.capacity_cards if cards is None else cards
    return g.nip[1] + g.pile_height(n)


def press(g: Geometry, cards: int | None = None) -> Part:
    """The press's foot: an open box the steel bar drops into, on the deck over the nip."""
    x0, x1 = g.press_x
    half = g.press_width / 2
    z0 = press_z(g, cards)
    sx, sy, sz = g.steel_bar
    foot = _box(x0, x1, -half, half, z0, z0 + g.press_height)
    cx = (x0 + x1) / 2
    foot -= _box(cx - sx / 2 - g.fit, cx + sx / 2 + g.fit, -sy / 2 - g.fit, sy / 2 + g.fit,
                 z0 + g.press_height - sz - g.fit, z0 + g.press_height + 1)
    return foot


def steel_bar(g: Geometry, cards: int | None = None) -> Part:
    """The press's weight: a cut length of mild steel flat bar in the foot's pocket."""
    x0, x1 = g.press_x
    sx, sy, sz = g.steel_bar
    cx = (x0 + x1) / 2
    top = press_z(g, cards) + g.press_height
    return _box(cx - sx / 2, cx + sx / 2, -sy / 2, sy / 2, top - sz, top)


def roller_hub(g: Geometry) -> Part:
    """The printed hub: two grooves for the O-ring tyre, a D bore for the motor's shaft."""
    ax, az = g.roller_axis
    half = g.hub_width / 2
    hub = _y_cylinder(ax, az, g.hub_flange_d, -half, half)
    for y in (-g.oring_pitch / 2, g.oring_pitch / 2):
        groove = _y_cylinder(ax, az, g.hub_flange_d + 2, y - g.oring_section / 2 - 0.1,
                             y + g.oring_section / 2 + 0.1)  # the ring unstretched, and 0.1
        groove -= _y_cylinder(ax, az, g.hub_groove_d, y - 2, y + 2)
        hub -= groove
    hub -= d_shaft(g, ax, az, -half - 0.01, -half + g.hub_bore_depth, g.shaft_d + 0.1)
    return hub


def d_shaft(g: Geometry, x: float, z: float, y0: float, y1: float, d: float) -> Part:
    """A D-shaped shaft (or bore) along y: a round with a flat on top."""
    rnd = _y_cylinder(x, z, d, y0, y1)
    keep = _box(x - d, x + d, y0 - 1, y1 + 1, z - d, z - d / 2 + g.shaft_flat + (d - 3) / 2)
    return rnd & keep


def motor_clamp(g: Geometry) -> Part:
    """Holds the N20's gearbox under the tray floor, its shaft on the roller's axis."""
    ax, az = g.roller_axis
    y1 = -g.hub_width / 2 - g.motor_gap
    y0 = y1 - g.gearbox_len
    zf = g.tray_floor_z - g.floor
    z0 = az - g.gearbox_h / 2 - g.fit - g.wall
    block = _box(ax - 14, ax + 14, y0, y1, z0, zf)
    block -= _box(ax - g.gearbox_w / 2 - g.fit, ax + g.gearbox_w / 2 + g.fit, y0 - 1, y1 + 1,
                  az - g.gearbox_h / 2 - g.fit, az + g.gearbox_h / 2 + g.fit)
    for x, y in clamp_screw_points(g):
        block -= _z_cylinder(x, y, 2.5, z0 - 1, zf + 1)
    return block


def router_screw_points(g: Geometry) -> list[tuple[float, float]]:
    """(y, z) of the two M3 screws through the router's flange and the base's front wall."""
    return [(y, g.base_top - 10.0) for y in (-12.0, 12.0)]


def router(g: Geometry) -> Part:
    """The chute, the fork and the two branches, with the beams' bores and the flap's axle.

    Printed on its side: every floor and roof is then a wall and needs no support. The side
    it lies on (-y) is one flat face: that wall is as thick as a beam's boss, the beams'
    bores sunk in it; the bosses stand only on the other side (up on the bed).
    """
    inner_w = g.channel_width
    outer_w = inner_w + 2 * g.wall
    thick = g.beam_boss_len  # the bed side's wall is this much thicker
    outer = None
    inner = None
    for start, angle, length, back, ahead in _segments(g):
        o = Pos(0, -thick / 2, 0) * _band(start, angle, length, g.wall,
                                          g.channel_gap + g.wall, outer_w + thick, back, ahead)
        i = _band(start, angle, length, 0.0, g.channel_gap, inner_w, back + 6, ahead + 0.01)
        outer = o if outer is None else outer + o
        inner = i if inner is None else inner + i
    x0 = g.router_x0
    far = g.right_outlet[0]  # the right branch's end is cut square to the table there
    y0, y1 = -outer_w / 2 - thick, outer_w / 2
    body = outer & _box(x0, far, -outer_w, outer_w, 0, 400)
    # Mounting flange against the base's front wall.
    body += _box(x0, x0 + g.wall, y0, y1, g.base_top - 20, g.tray_floor_z - 2.0)
    # Foot: the far end rests on the bays' middle wall.
    rx = g.right_outlet[0]
    body += _box(rx - g.wall, rx, y0, y1, g.bay_wall_top, g.outlet_z - 0.5)
    body -= inner
    body -= _vane_swing(g)
    body -= _septum_tip(g)
    for pile in PILES:
        bx, bz = g.beam(pile)
        body += _y_cylinder(bx, bz, g.beam_boss_d, outer_w / 2, outer_w / 2 + g.beam_boss_len)
        body -= _y_cylinder(bx, bz, g.beam_hole_d, -outer_w, outer_w)
    px, pz = g.vane_pivot
    body -= _y_cylinder(px, pz, g.axle_d + 0.4, -outer_w, outer_w)
    for y, z in router_screw_points(g):
        body -= Pos(x0 - 1, y, z) * Rot(0, 90, 0) * Cylinder(1.7, g.wall + 2, align=LOW)
    return body


def _septum_tip(g: Geometry) -> Part:
    """The septum's knife edge, cut back square to the right branch's floor to a flat."""
    fx, fz = g.fork
    a = math.radians(g.upper_angle)
    ux, uz = math.cos(a), -math.sin(a)  # along the right branch's floor
    nx, nz = -uz, ux  # up out of it
    s0, s1 = g.septum_apex - 1.0, g.septum_start
    bx, bz = fx + ux * s1, fz + uz * s1
    pts = [(fx + ux * s0, fz + uz * s0), (bx, bz),
           (bx - nx * g.septum_flat, bz - nz * g.septum_flat)]
    w = g.channel_width / 2
    return _prism_xz(pts, -w, w)


def _vane_at(g: Geometry, pile_or_angle: str | float, grow: float = 0.0,
             width: float | None = None) -> Part:
    angle = g.vane_angle(pile_or_angle) if isinstance(pile_or_angle, str) else pile_or_angle
    px, pz = g.vane_pivot
    t = g.vane_thickness + 2 * grow
    w = (g.channel_width - 1.0) if width is None else width
    plate = Pos(0, 0, -t / 2) * Box(g.vane_length + grow, w, t,
                                    align=(Align.MIN, Align.CENTER, Align.MIN))
    plate += Rot(-90, 0, 0) * Cylinder(t / 2, w, align=(Align.CENTER, Align.CENTER,
                                                        Align.CENTER))
    return Pos(px, 0, pz) * Rot(0, angle, 0) * plate


def _vane_swing(g: Geometry) -> Part:
    """The room the flap sweeps between its two positions (cut from the router)."""
    lo, hi = g.upper_angle, g.lower_angle
    steps = 6
    out = None
    for k in range(steps + 1):
        a = lo + (hi - lo) * k / steps
        v = _vane_at(g, a, grow=g.vane_clearance, width=g.channel_width)
        out = v if out is None else out + v
    return out


def vane(g: Geometry, pile: str | None = "left") -> Part:
    """The router flap with its axle; ``pile`` is the position it is drawn in (None: flat).

    The axle's two stubs have a flat level with the plate's underside, so the part prints
    flat on it.
    """
    px, pz = g.vane_pivot
    outer = g.channel_width / 2 + g.wall
    angle = 0.0 if pile is None else g.vane_angle(pile)
    r = g.axle_d / 2
    y0, y1 = -outer - 1.0, outer + g.servo_horn_gap - 1.5
    # Stubs from the plate's edges out through the walls: in the channel the hinge is no
    # thicker than the plate, so the card passes over it.
    inner = (g.channel_width - 1.0) / 2
    axle = (_y_cylinder(0, 0, g.axle_d, y0, -inner + 0.01)
            + _y_cylinder(0, 0, g.axle_d, inner - 0.01, y1))
    axle -= _box(-r - 1, r + 1, y0 - 1, y1 + 1, -r - 1, -g.vane_thickness / 2)
    return _vane_at(g, angle) + Pos(px, 0, pz) * Rot(0, angle, 0) * axle


def servo_frame(g: Geometry) -> tuple[float, float, float, float, float]:
    """(x0, x1, z0, z1, y of the shaft face) of the SG90's body, shaft on the flap's axle."""
    px, pz = g.vane_pivot
    x0 = px - g.servo_shaft_from_end
    ys = g.channel_width / 2 + g.wall + g.servo_horn_gap
    return x0, x0 + g.servo_l, pz - g.servo_w / 2, pz + g.servo_w / 2, ys


SERVO_PILOT = 1.7  # the SG90's M2 thread-forming screws
SERVO_BOSS = 3.6  # bosses behind the plate: 6 mm of plastic for the screw's thread


def servo_screw_points(g: Geometry) -> list[tuple[float, float, float]]:
    """(x, y, z) where the SG90's two screws' heads bear on its tabs (the tabs' outer face)."""
    x0, x1, z0, z1, ys = servo_frame(g)
    cx = (x0 + x1) / 2
    ty = ys + g.servo_tab_from_top + g.servo_tab_t
    return [(cx + sx * 27.8 / 2, ty, (z0 + z1) / 2) for sx in (-1, 1)]


def servo_mount(g: Geometry) -> Part:
    """A plate between the router's wall and the SG90's tabs, on two legs from the wall.

    The servo goes in from outside, shaft first through the plate's opening, after the legs
    are glued; its tabs bear on the plate's outer face and its screws go into bosses behind.
    """
    x0, x1, z0, z1, ys = servo_frame(g)
    cx = (x0 + x1) / 2
    ty = ys + g.servo_tab_from_top  # the tabs' face towards the router
    wall_y = g.channel_width / 2 + g.wall
    px0, px1 = cx - g.servo_tab_span / 2 - 5, cx + g.servo_tab_span / 2 + 5
    pz0, pz1 = z0 - 4, z1 + 4
    plate = _box(px0, px1, ty - g.wall, ty, pz0, pz1)
    for x, _y, z in servo_screw_points(g):
        plate += _y_cylinder(x, z, SERVO_PILOT + 2 * 1.6, ty - g.wall - SERVO_BOSS,
                             ty - g.wall)
    for lx in (px0, px1 - 4):
        plate += _box(lx, lx + 4, wall_y, ty - g.wall, pz0, pz1)
    plate -= _box(x0 - g.fit, x1 + g.fit, ty - g.wall - SERVO_BOSS - 1, ty + 1,
                  z0 - g.fit, z1 + g.fit)
    for x, _y, z in servo_screw_points(g):
        plate -= _y_cylinder(x, z, SERVO_PILOT, ty - g.wall - SERVO_BOSS - 1, ty + 1)
    return plate


PI_USB_C = 11.2  # the Pi 4/5's USB-C power socket, from the board's SD-card end


def _gabled_hole_y(x: float, y0: float, y1: float, z0: float, z1: float, w: float) -> Part:
    """A hole through a wall along y, ``w`` wide at x, from z0 up, its top a 45-degree gable
    peaking at z1 (it prints without a bridge)."""
    h = z1 - z0
    shoulder = z1 - w / 2
    pts = [(x - w / 2, z0), (x + w / 2, z0), (x + w / 2, shoulder), (x, z1),
           (x - w / 2, shoulder)]
    assert h > w / 2
    return _prism_xz(pts, y0, y1)


def base(g: Geometry) -> Part:
    """The enclosure under the tray: the Pi, the driver and the wiring. Open at the top.

    Vents in both side walls over the Pi, an opening for the Pi's USB-C lead by its socket,
    the power jack and the LED board's cable in the back wall.
    """
    bx0, bx1 = g.base_x
    hw = g.base_width / 2
    w = g.wall
    rim = g.base_top - w  # the lid sits on the walls
    shell = _box(bx0, bx1, -hw, hw, 0, rim)
    shell -= _box(bx0 + w, bx1 - w, -hw + w, hw - w, g.floor, rim + 1)
    for x, y in lid_screw_points(g):  # corner posts for the lid's screws
        post = _box(x - 3, x + 3, y - 3, y + 3, g.floor, rim)
        post -= _z_cylinder(x, y, 2.5, g.floor + 4, rim + 1)
        shell += post
    # Standoffs for the Pi (M2.5) and the driver breakout, their pilot holes into the floor.
    for x, y in pi_holes(g) + driver_holes(g):
        shell += _z_cylinder(x, y, 6.0, g.floor, g.floor + g.standoff_h)
    for x, y in pi_holes(g) + driver_holes(g):
        shell -= _z_cylinder(x, y, 2.2, 1.0, g.floor + g.standoff_h + 1)
    # Back wall: the power jack and a slot for the LED board's cable (the switch is in the lid).
    shell -= Pos(bx0 - 1, -30.0, 20) * Rot(0, 90, 0) * Cylinder(4.0, w + 2, align=LOW)
    shell -= _box(bx0 - 1, bx0 + w + 1, 16, 24, 10, 30)
    # Front wall: the router's screws (nuts inside) and a hole for its wires (servo, beams).
    for y, z in router_screw_points(g):
        shell -= Pos(bx1 - w - 1, y, z) * Rot(0, 90, 0) * Cylinder(1.7, w + 2, align=LOW)
    shell -= _box(bx1 - w - 1, bx1 + 1, 40, 49, 55, 63)
    # The Pi's power lead, in at its USB-C socket, and vents over the Pi both sides.
    px, _py = pi_origin(g)
    usb_z = g.floor + g.standoff_h + 1.6 + 1.6
    shell -= _gabled_hole_y(px + PI_USB_C, -hw - 1, -hw + w + 1, usb_z - 4.5, usb_z + 11, 13)
    for k in range(VENTS):
        x = px + 20 + 6 * k
        for side in (-1, 1):
            shell -= _box(x, x + 2.5, *sorted((side * (hw + 1), side * (hw - w - 1))), 30, 60)
    return shell


VENTS = 8


def lid_screw_points(g: Geometry) -> list[tuple[float, float]]:
    """(x, y) of the lid's four M3 screws, in the base's inside corners."""
    bx0, bx1 = g.base_x
    hw = g.base_width / 2 - g.wall - 3.0
    return [(x, y) for x in (bx0 + g.wall + 3.0, bx1 - g.wall - 3.0) for y in (-hw, hw)]


TRAY_BOSS = 6.0  # under the lid: thread for the tray's screws


def lid(g: Geometry) -> Part:
    """The base's top: carries the tray, the main switch, the touch pad (from below), the
    status LED, and the TCRT5000 in rails under the tray floor's window."""
    bx0, bx1 = g.base_x
    hw = g.base_width / 2
    w = g.wall
    top = g.base_top
    plate = _box(bx0, bx1, -hw, hw, top - w, top)
    for x, y in tray_screw_points(g):  # bosses the tray's screws form their thread in
        plate += _z_cylinder(x, y, 7.0, top - w - TRAY_BOSS, top - w)
    plate += tcrt_rails(g)
    # The roller, its hub and the motor clamp hang through; the tray sensor looks up.
    plate -= _box(-15, 15, -22, 13, top - w - 1, top + 1)
    # The sensor's window, a slot out to the lid's front edge: the module slides along the
    # rails from there (before the lid goes on the base), its sensor in the slot.
    tx, ty = g.tcrt_at
    sw = g.tcrt_sensor[1] / 2 + 0.6
    plate -= _box(tx - g.tcrt_sensor[0] / 2 - 0.6, bx1 + 1, ty - sw, ty + sw, top - w - 1,
                  top + 1)
    # Touch pad (TTP223, senses through the skin) and the status LED, right of the tray.
    px, py = g.touch_pad
    plate -= _box(-60 - px / 2, -60 + px / 2, 44 - py / 2, 44 + py / 2, top - w - 1,
                  top - g.touch_skin)
    plate -= _z_cylinder(-30, 44, g.led_hole_d, top - w - 1, top + 1)
    # The main switch: its cut-out in a panel thinned from below to what its clips take.
    sx, sy = g.switch_at
    cl, cw = g.switch_cutout
    plate -= _box(sx - cl / 2 - 2, sx + cl / 2 + 2, sy - cw / 2 - 2, sy + cw / 2 + 2,
                  top - w - 1, top - g.switch_panel)
    plate -= _box(sx - cl / 2, sx + cl / 2, sy - cw / 2, sy + cw / 2, top - w - 1, top + 1)
    for x, y in tray_screw_points(g):
        plate -= _z_cylinder(x, y, 2.5, top - w - TRAY_BOSS - 1, top + 1)
    for x, y in lid_screw_points(g):
        plate -= _z_cylinder(x, y, 3.4, top - w - 1, top + 1)
    return plate


def tcrt_frame(g: Geometry) -> tuple[float, float, float, float]:
    """(board's x0, x1, its underside z, the sensor's top z) of the TCRT5000 module."""
    tx, _ty = g.tcrt_at
    bl, _bw, bt = g.tcrt_board
    sl, _sw, sh = g.tcrt_sensor
    x0 = tx - sl / 2 - 1.0
    sensor_top = g.tray_floor_z - g.floor - 0.3  # just under the tray floor's window
    return x0, x0 + bl, sensor_top - sh - bt, sensor_top


def tcrt_rails(g: Geometry) -> Part:
    """Two rails under the lid that the module's board slides into (sensor end first, to the
    stop), its edges on 45-degree ledges, so it prints (lid upside down) without support."""
    x0, x1, zb, _top = tcrt_frame(g)
    _tx, ty = g.tcrt_at
    half = g.tcrt_board[1] / 2
    lid_under = g.base_top - g.wall
    yi = half + 0.3
    bottom = zb - 1.5
    out = _box(x0 - 0.3 - g.wall, x0 - 0.3, ty - yi - g.wall, ty + yi + g.wall, bottom,
               lid_under)  # the stop
    for side in (-1, 1):
        out += _box(x0 - 0.3 - g.wall, x1 + 1, *sorted((ty + side * yi,
                                                        ty + side * (yi + g.wall))),
                    bottom, lid_under)
        # The ledge: its top slopes 45 degrees from the rail; the board's edge rests on it.
        ys, ye = ty + side * yi, ty + side * (half - 1.2)
        pts = [(ys, zb + 0.3), (ys, bottom), (ye, bottom)]
        ledge = Plane.YZ * Polygon(*pts, align=None)
        out += Pos(x0 - 0.3, 0, 0) * extrude(ledge, amount=x1 + 1 - x0 + 0.3)
    return out


def pi_origin(g: Geometry) -> tuple[float, float]:
    return g.base_x[0] + g.wall + 8.0, -g.base_width / 2 + g.wall + 8.0


def pi_holes(g: Geometry) -> list[tuple[float, float]]:
    x0, y0 = pi_origin(g)
    hx, hy = g.pi_holes
    return [(x0 + 3.5 + dx, y0 + 3.5 + dy) for dx in (0, hx) for dy in (0, hy)]


def driver_origin(g: Geometry) -> tuple[float, float]:
    return pi_origin(g)[0] + g.pi_board[0] - g.driver_board[0], 20.0


def driver_holes(g: Geometry) -> list[tuple[float, float]]:
    x0, y0 = driver_origin(g)
    dx, dy = g.driver_board
    return [(x0 + 2.5, y0 + dy / 2), (x0 + dx - 2.5, y0 + dy / 2)]


def bays(g: Geometry) -> Part:
    """The two pile bays, left (near) and right (far), with finger notches."""
    left, right, far = g.bays_x
    length, width = g.bay_inner
    hw = width / 2 + g.wall
    body = _box(left - g.wall, far, -hw, hw, 0, g.bay_wall_top)
    for x in (left, right):
        body -= _box(x, x + length, -width / 2, width / 2, g.bay_floor_top,
                     g.bay_wall_top + 1)
        cx = x + length / 2
        for side in (-1, 1):  # notches both sides, to lift a pile out
            body -= _box(cx - 13, cx + 13, *sorted((side * (width / 2 - 1), side * (hw + 1))),
                         g.bay_floor_top + 12, g.bay_wall_top + 1)
    return body


# ----- bought parts (for the fit checks and the picture) -----

def n20_motor(g: Geometry) -> Part:
    ax, az = g.roller_axis
    y1 = -g.hub_width / 2 - g.motor_gap
    gear = _box(ax - g.gearbox_w / 2, ax + g.gearbox_w / 2, y1 - g.gearbox_len, y1,
                az - g.gearbox_h / 2, az + g.gearbox_h / 2)
    can = _box(ax - g.gearbox_w / 2, ax + g.gearbox_w / 2,
               y1 - g.gearbox_len - g.motor_can_len, y1 - g.gearbox_len,
               az - g.gearbox_h / 2, az + g.gearbox_h / 2)
    shaft = d_shaft(g, ax, az, y1, y1 + g.shaft_len, g.shaft_d)
    return gear + can + shaft


def o_rings(g: Geometry) -> Part:
    ax, az = g.roller_axis
    s = g.oring_section_fitted
    major = (g.hub_groove_d + s) / 2
    out = None
    for y in (-g.oring_pitch / 2, g.oring_pitch / 2):
        ring = Pos(ax, y, az) * Rot(90, 0, 0) * Torus(major, s / 2)
        out = ring if out is None else out + ring
    return out


def sg90(g: Geometry) -> Part:
    x0, x1, z0, z1, ys = servo_frame(g)
    body = _box(x0, x1, ys, ys + g.servo_h, z0, z1)
    cx = (x0 + x1) / 2
    ty = ys + g.servo_tab_from_top
    tabs = _box(cx - g.servo_tab_span / 2, cx + g.servo_tab_span / 2, ty,
                ty + g.servo_tab_t, z0, z1)
    for x, _y, z in servo_screw_points(g):  # the tabs' 2 mm holes
        tabs -= _y_cylinder(x, z, 2.2, ty - 1, ty + g.servo_tab_t + 1)
    body += tabs
    px, pz = g.vane_pivot
    body += _y_cylinder(px, pz, 4.8, ys - 1.5, ys)  # the splined output and horn's hub
    return body


def tcrt5000(g: Geometry) -> Part:
    """The TCRT5000 module: its board in the lid's rails, its sensor under the window."""
    x0, x1, zb, top = tcrt_frame(g)
    tx, ty = g.tcrt_at
    _bl, bw, bt = g.tcrt_board
    sl, sw, _sh = g.tcrt_sensor
    board = _box(x0, x1, ty - bw / 2, ty + bw / 2, zb, zb + bt)
    return board + _box(tx - sl / 2, tx + sl / 2, ty - sw / 2, ty + sw / 2, zb + bt, top)


def kcd1_switch(g: Geometry) -> Part:
    """The KCD1 rocker: its body through the lid's cut-out, its 21 x 15 mm bezel on top."""
    sx, sy = g.switch_at
    cl, cw = g.switch_cutout
    top = g.base_top
    body = _box(sx - cl / 2 + 0.1, sx + cl / 2 - 0.1, sy - cw / 2 + 0.1, sy + cw / 2 - 0.1,
                top - g.switch_panel - 20, top)
    return body + _box(sx - 10.5, sx + 10.5, sy - 7.5, sy + 7.5, top, top + 2.5)


def felt_pads(g: Geometry) -> Part:
    """The self-adhesive felt pads on the two bays' end walls, where the cards land."""
    _length, width = g.bay_inner
    out = None
    for pile in PILES:
        x, _z = g.end_wall(pile)
        pad = _box(x, x + g.end_pad, -width / 2, width / 2, g.bay_floor_top,
                   g.bay_wall_top - 1.0)
        out = pad if out is None else out + pad
    return out


def deck(g: Geometry, cards: int | None = None) -> Part:
    """A full deck of ``cards`` (the tray's capacity by default) resting on the roller."""
    n = g.capacity_cards if cards is None else cards
    x1 = g.gate_x - g.end_clearance
    z0 = g.nip[1]
    return _box(x1 - g.card_length, x1, -g.card_width / 2, g.card_width / 2, z0,
                z0 + g.pile_height(n))


def pi_board(g: Geometry) -> Part:
    """The Pi: its board with 2.7 mm holes, its parts kept 3 mm clear of them."""
    x0, y0 = pi_origin(g)
    z = g.floor + g.standoff_h
    bx, by = g.pi_board
    board = _box(x0, x0 + bx, y0, y0 + by, z, z + 1.6)
    parts_on = _box(x0 + 2, x0 + bx - 2, y0 + 6, y0 + by - 2, z + 1.6, z + 18)
    for x, y in pi_holes(g):
        board -= _z_cylinder(x, y, 2.7, z - 1, z + 3)
        parts_on -= _z_cylinder(x, y, 6.0, z, z + 20)
    return board + parts_on


def driver_board(g: Geometry) -> Part:
    x0, y0 = driver_origin(g)
    z = g.floor + g.standoff_h
    dx, dy = g.driver_board
    board = _box(x0, x0 + dx, y0, y0 + dy, z, z + 1.6)
    for x, y in driver_holes(g):
        board -= _z_cylinder(x, y, 2.7, z - 1, z + 3)
    return board + _box(x0 + 6, x0 + dx - 6, y0 + 2, y0 + dy - 2, z + 1.6, z + 10)


def printable(name: str, g: Geometry, built: Part | None = None) -> Part:
    """Printed part ``name`` as it goes on the bed: turned, resting on z = 0.

    ``built`` is the part already built in place (not for the flap, which prints flat).
    Raises KeyError for a name that is not a printed part.
    """
    from hardware.shuffler.cad.measure import laid_flat

    if name == "vane":
        part = vane(g, None)
    else:
        part = PRINTED[name](g) if built is None else built
    o = PRINT_ORIENTATION[name]
    return laid_flat(part, o.about_x, o.about_y, o.about_z)


@dataclass(frozen=True)
class Orientation:
    """How a printed part lies on the bed: rotations (degrees) about x, then y, then the
    bed's vertical (to fit the bed's diagonal)."""

    about_x: float = 0.0
    about_y: float = 0.0
    about_z: float = 0.0
    note: str = "as modelled, floor down"


PRINT_ORIENTATION = {
    "base": Orientation(note="open side up"),
    "lid": Orientation(about_x=180, note="top face down, the touch pad's pocket up"),
    "tray": Orientation(note="floor down"),
    "gate_blade": Orientation(about_y=90, note="flat on its face"),
    "width_shims": Orientation(about_x=180, note="hooks down"),
    "roller_hub": Orientation(about_x=90, note="on its end face, bore up"),
    "motor_clamp": Orientation(about_x=90, note="on its end face, pocket vertical"),
    "router": Orientation(about_x=90, about_z=10,
                          note="on its flat side wall, turned 10 degrees on the bed"),
    "vane": Orientation(note="flat, on the axle's flat"),
    "servo_mount": Orientation(about_x=-90, note="plate down, legs up"),
    "bays": Orientation(note="floor down"),
    "press": Orientation(note="open side up"),
}

PRINTED = {
    "base": base,
    "lid": lid,
    "tray": tray,
    "gate_blade": gate_blade,
    "width_shims": width_shims,
    "roller_hub": roller_hub,
    "motor_clamp": motor_clamp,
    "router": router,
    "vane": vane,
    "servo_mount": servo_mount,
    "bays": bays,
    "press": press,
}

BOUGHT = {
    "n20_motor": n20_motor,
    "o_rings": o_rings,
    "sg90_servo": sg90,
    "pi_board": pi_board,
    "driver_board": driver_board,
    "tcrt5000": tcrt5000,
    "kcd1_switch": kcd1_switch,
    "steel_bar": steel_bar,
    "felt_pads": felt_pads,
}
