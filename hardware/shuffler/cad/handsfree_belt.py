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
from hardware.shuffler.cad.parts import _box, _y_cylinder

GT2_PITCH = 2.0
BELT_W = 6.0
BELT_T = 1.38  # GT2 6 mm belt, overall: its back is 0.63 mm outside the pitch line
BACK = 0.63
ROLLER_TEETH = 16
# The motor's pulley: the 6 V 1500 rpm N20 turns 1250 rpm on 5 V; 40 T over the rollers'
# 16 T (2.5 : 1) turns the 16 mm tyres 3125 rpm unloaded (2.62 m/s, 2.5 x the hands-free
# feed roller's 1.04 m/s), so the driver's duty trims it to twice the feed's surface speed
# with the motor still ahead under load.
MOTOR_TEETH = 40
RISER_MOTOR_RPM = 1500.0  # the N20's no-load speed at its rated 6 V (its listing's figure)
RISER_MOTOR_V = 6.0
IDLER_OD = 10.0  # F623ZZ flanged bearing, 3 x 10 x 4 mm: two side by side
IDLER_W = 8.0
# The motor's axis: over the lower curl's centre, between the cover's columns. The idler's:
# between the branches (10.8 mm from the nearest centre line), where the loop's pitch line
# comes to 400 mm, a stock closed belt (200 teeth).
MOTOR_AT = (28.0, 195.4)
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

GEARBOX = (12.0, 10.0, 9.0)  # the N20's gearbox: across x, across z, along y
CAN_L = 15.0
SHAFT_L = 10.0
PULLEY_HUB = 6.0
LIP = 1.5  # the bracket's floor under the gearbox's face
LEG_D = 8.0


def motor_y(h: HandsFree) -> tuple[float, float]:
    """(the gearbox's face, its back): past the 40 T pulley's hub and the bracket's lip."""
    face = belt_y(h)[1] + PULLEY_HUB + 0.5 + LIP
    return face, face + GEARBOX[2]


def riser_motor(h: HandsFree = HANDSFREE) -> Part:
    """The riser's N20 gearmotor: gearbox, can, and its 3 mm shaft into the pulley."""
    x, z = MOTOR_AT
    f, b = motor_y(h)
    w, t = GEARBOX[0] / 2, GEARBOX[1] / 2
    return (_box(x - w, x + w, f, b + CAN_L, z - t, z + t)
            + _y_cylinder(x, z, 3.0, f - SHAFT_L, f + 0.01))


def motor_pulley(h: HandsFree = HANDSFREE) -> Part:
    """The 40 T pulley on the motor's shaft, its teeth in the belt's plane."""
    yc = hp.riser_halves(h)[2]
    return hp.gt2_pulley(*MOTOR_AT, MOTOR_TEETH, yc, PULLEY_HUB) - _y_cylinder(
        *MOTOR_AT, 3.0, yc, motor_y(h)[0] + 1)


def _leg_points(h: HandsFree) -> list[Point]:
    return hp.riser_screw_points(h)[:2]


def motor_bracket(h: HandsFree = HANDSFREE) -> Part:
    """The bracket: a block round the gearbox (pressed in from outside, its face on the
    lip), two legs down to the riser's cover over its columns, whose screws hold both."""
    x, z = MOTOR_AT
    f, b = motor_y(h)
    yc = hp.riser_halves(h)[2]
    w, t = GEARBOX[0] / 2 + 0.1, GEARBOX[1] / 2 + 0.1
    c = 2.4
    block = _box(x - w - c, x + w + c, f - LIP, b, z - t - c, z + t + c)
    for lx, lz in _leg_points(h):
        block += _y_cylinder(lx, lz, LEG_D, yc, b)
        block += _rib((lx, lz), (x, z), LEG_D, f - LIP, b)
    block -= _box(x - w, x + w, f, b + 1, z - t, z + t)
    block -= _y_cylinder(x, z, 5.0, f - LIP - 1, f + 0.01)  # the gearbox's boss and shaft
    for lx, lz in _leg_points(h):
        block -= _y_cylinder(lx, lz, 3.4, yc - 1, b + 1)
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
    return [(x, motor_y(h)[1], z) for x, z in _leg_points(h)]


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
