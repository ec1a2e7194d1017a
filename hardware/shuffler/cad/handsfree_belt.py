"""The riser's drive: one closed GT2 belt round the four roller pulleys, the riser motor's
pulley and a back-side idler, and the parts that carry the motor and the idler.

Every roller hub runs on the outside of its curl and must turn the same way, so the belt
wraps each roller pulley with its toothed side. T2L's pulley lies inside the triangle of
T1's, T2U's and T3U's, so no convex loop can wrap it: the belt dents in round a smooth idler
on its back (between the branches, its pin through both side plates) and out round T2L.
The loop's geometry is the pitch line's: straight runs tangent to the wheels' pitch circles.

Docs: docs/hands-free.md ("The riser's drive"), docs/shuffler-build.md (the BOM's rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from build123d import Part

from hardware.shuffler.cad import handsfree_parts as hp
from hardware.shuffler.cad.handsfree_params import HANDSFREE, HandsFree
from hardware.shuffler.cad.parts import _y_cylinder

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
    axes = {r.name: r.hub_axis(h) for r in hp.rollers(h)}
    r16 = pitch_radius(ROLLER_TEETH)
    return [Wheel("T1", *axes["T1"], r16), Wheel("T2U", *axes["T2U"], r16),
            Wheel("T3U", *axes["T3U"], r16), Wheel("T2L", *axes["T2L"], r16),
            Wheel("idler", *IDLER_AT, IDLER_OD / 2 + BACK, toothed=False),
            Wheel("motor", *MOTOR_AT, pitch_radius(MOTOR_TEETH))]


Point = tuple[float, float]


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
    yc = hp.riser_halves(h)[2]
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
    from hardware.shuffler.cad.parts import _prism_xz

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
    yc = hp.riser_halves(h)[2]
    return hp.gt2_pulley(*MOTOR_AT, MOTOR_TEETH, yc, PULLEY_HUB) - _y_cylinder(
        *MOTOR_AT, SHAFT_D, yc, motor_y(h)[0] + 1)


def _leg_points(h: HandsFree) -> list[Point]:
    return hp.riser_screw_points(h)[:2]


def motor_bracket(h: HandsFree = HANDSFREE) -> Part:
    """The bracket: a plate the gearbox's face is screwed to (two M3s from under it, their
    heads between it and the pulley's hub), the shaft through its middle, on two legs down
    to the riser's cover over its columns (their screws hold both) and two ribs from the
    legs to the plate. Its outer face, the gearbox's seat, is flat: it prints on it."""
    x, z = MOTOR_AT
    f, _b = motor_y(h)
    yc = hp.riser_halves(h)[2]
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
    from hardware.shuffler.cad.parts import _prism_xz

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
    yi, yb, yc = hp.riser_halves(h)
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
