"""The press's link under load: the forces on the press's bore and the two SG90s, and how
long each of their moves takes, from the press's solids (its weight and inertia) and the
link's geometry in ``handsfree_parts``."""

from __future__ import annotations

import functools
import math

from hardware.shuffler.cad import handsfree_fasteners as hf
from hardware.shuffler.cad.handsfree_params import HandsFree
from hardware.shuffler.cad.handsfree_parts import (
    DOG_DEG,
    DOG_R,
    LIFT_T,
    LIFT_TIP_D,
    LUG_W,
    dog_point,
    lift_foot_z,
    lift_pivot,
    lift_tip,
    lift_travel,
    turn_axis,
    turn_servo_deg,
    turn_travel,
)

# The SG90 (TowerPro's sheet): 1.8 kg cm stall (0.176 N m) at 4.8 V, 0.1 s/60 degrees
# unloaded; the controller times each move at the slowest in the ranges, 0.12 s/60 degrees,
# plus 0.02 s. Its speed is taken to fall linearly with its torque, to 0 at stall.
SG90_STALL_NM = 1.8 * 0.0980665
SG90_S_PER_60 = 0.12  # the slowest unloaded
SERVO_SETTLE_S = 0.02
MU_RANGE = (0.2, 0.35)  # PETG on PETG and on steel, dry
G = 9.81


def bore_h(h: HandsFree) -> float:
    """The bore's length: the hub under the arm's top and the sleeve over it."""
    return h.press_hub_h + h.press_hub_up


@functools.lru_cache(maxsize=16)
def press_load(h: HandsFree, tungsten_g_mm3: float | None = None
               ) -> tuple[float, float, float]:
    """(weight N, its centre's x and y from the post's axis) of the press, from its solids
    (kept: the solids are the same for the same geometry)."""
    d = hf.TUNGSTEN_CLASS3_MIN_G_MM3 if tungsten_g_mm3 is None else tungsten_g_mm3
    cx, cy, _cz = hf.press_com(h, d)
    px, py = h.press_pivot
    return hf.press_mass_g(h, d) * hf.G_N_PER_G, cx - px, cy - py


def bore_friction_n(h: HandsFree, mu: float, weight: float, dx: float, dy: float,
                    lift: float = 0.0, lift_dx: float = 0.0) -> float:
    """The bore's friction (N) on the press held at its hub: its weight at (dx, dy) from the
    axis and ``lift`` (N, up) at (``lift_dx``, 0) make a couple the bore takes as two side
    loads ``bore_h`` apart."""
    mx = weight * dy  # about x: the press's weight out over the foot
    my = weight * dx - lift * lift_dx  # about y
    return 2 * mu * math.hypot(mx, my) / bore_h(h)


def fall_ratio(h: HandsFree, mu: float, tungsten_g_mm3: float | None = None) -> float:
    """The bore's friction over the press's weight, the press hanging free (lowered, the
    lift's tip under it going down faster than it falls): under 1 it falls by itself."""
    w, dx, dy = press_load(h, tungsten_g_mm3)
    return bore_friction_n(h, mu, w, dx, dy) / w


def lift_force_n(h: HandsFree, mu: float, a: float, tungsten_g_mm3: float | None = None
                 ) -> float:
    """The tip's push (N) that lifts the press, the lift servo at ``a`` degrees: its weight
    and the bore's friction, which the push itself changes (solved by iteration)."""
    w, dx, dy = press_load(h, tungsten_g_mm3)
    px, _py = h.press_pivot
    tip_dx = lift_tip(h, a)[0] - px
    f = w
    for _ in range(50):
        f = w + bore_friction_n(h, mu, w, dx, dy, f, tip_dx)
    return f


def lift_torque_nm(h: HandsFree, mu: float, a: float, tungsten_g_mm3: float | None = None
                   ) -> float:
    """The lift servo's torque (N m) lifting the press at ``a`` degrees: the push at the
    tip's top (its lever arm the horizontal run from the axis) and the tip's sliding
    friction along the lug's underside (its arm the height from the axis)."""
    f = lift_force_n(h, mu, a, tungsten_g_mm3)
    x, z = lift_tip(h, a)
    xl, zl = lift_pivot(h)
    return f * ((x - xl) + mu * abs(z + LIFT_TIP_D / 2 - zl)) / 1000.0


def hub_torque_nm(h: HandsFree, mu: float, swung: float, tungsten_g_mm3: float | None = None
                  ) -> float:
    """The torque (N m) that turns the press on the post at the top: the bore's friction
    (its weight's couple) at the bore's radius, and where it is held up: on the lift's tip
    (at the lug) until the lug leaves it, then on the follower (on the level leg)."""
    w, dx, dy = press_load(h, tungsten_g_mm3)
    r_bore = (h.press_post_d + h.press_hub_fit) / 2
    px, _py = h.press_pivot
    tip_dx = lift_tip(h, lift_travel(h))[0] - px
    on_tip = abs(abs(tip_dx) * math.sin(math.radians(swung))) < LUG_W / 2 + LIFT_T / 2
    r_hold = abs(tip_dx) if on_tip else h.press_post_d / 2 - h.groove_depth / 2
    lift = w if on_tip else 0.0
    friction = bore_friction_n(h, mu, w, dx, dy, lift, tip_dx if on_tip else 0.0)
    return mu * (w * r_hold + friction / (2 * mu) * 2 * r_bore) / 1000.0 if mu else 0.0


def turn_ratio(h: HandsFree, swung: float, mu: float = 0.0) -> float:
    """The press's torque over the turn servo's at ``swung`` degrees: the pin at ``DOG_R``
    driven by the lever's slot (its sliding friction ``mu`` taken off the drive)."""
    sx, sy = turn_axis(h)
    x, y = dog_point(h, swung)
    rho = math.dist((sx, sy), (x, y))
    px, py = h.press_pivot
    # the pin's travel direction (tangent of its circle) against the lever's normal
    t = math.radians(DOG_DEG + swung)
    vx, vy = -math.sin(t), math.cos(t)
    lx, ly = (x - sx) / rho, (y - sy) / rho
    cos_g = abs(vx * -ly + vy * lx)
    sin_g = abs(vx * lx + vy * ly)
    return DOG_R * (cos_g - mu * sin_g) / rho


def turn_torque_nm(h: HandsFree, mu: float, swung: float,
                   tungsten_g_mm3: float | None = None) -> float:
    """The turn servo's torque (N m) at ``swung`` degrees."""
    return hub_torque_nm(h, mu, swung, tungsten_g_mm3) / turn_ratio(h, swung, mu)


@functools.lru_cache(maxsize=16)
def press_inertia(h: HandsFree, tungsten_g_mm3: float | None = None) -> float:
    """The press's moment of inertia about the post (kg m2), each solid taken at most: its
    whole mass at its farthest point from the axis."""
    d = hf.TUNGSTEN_CLASS3_MIN_G_MM3 if tungsten_g_mm3 is None else tungsten_g_mm3
    px, py = h.press_pivot
    j = 0.0
    for p, rho in hf.press_bodies(h, d):
        far = max(math.hypot(v.X - px, v.Y - py) for v in p.vertices())
        j += p.volume * rho / 1000.0 * (far / 1000.0) ** 2
    return j


def servo_move_s(travel_deg: float, load_nm, inertia, s_per_60: float = SG90_S_PER_60,
                 stall_nm: float = SG90_STALL_NM, steps: int = 400,
                 upto_deg: float | None = None) -> float:
    """Seconds an SG90 takes over ``travel_deg`` (plus ``SERVO_SETTLE_S``): driven at the
    torque its speed leaves (linear from stall at rest to none at its unloaded speed) less
    ``load_nm(deg)``, against ``inertia(deg)`` (kg m2 at its shaft), braking at stall torque
    in time to stop at the end; or, given ``upto_deg``, the seconds until it passes that
    angle (plus the same settle, its frame). Raises ValueError when the load stalls it."""
    w0 = math.radians(60.0) / s_per_60
    end = math.radians(travel_deg)
    th, w, t = 0.0, 0.0, 0.0
    dt = 1e-4
    until = end if upto_deg is None else math.radians(upto_deg)
    while th < until:
        deg = math.degrees(th)
        load, j = load_nm(deg), inertia(deg)
        if load >= stall_nm:
            raise ValueError(f"the SG90 stalls at {deg:.1f} degrees: {load:.3f} N m")
        brake = (stall_nm + load) / j
        if w > 0 and w * w / (2 * brake) >= end - th:
            w = max(w - brake * dt, 0.05)
        else:
            w = min(w + (stall_nm * (1 - w / w0) - load) / j * dt, w0 * (1 - load / stall_nm))
        th += w * dt
        t += dt
        if t > 5.0:
            raise ValueError("the SG90 never arrives")
    return t + SERVO_SETTLE_S


SG90_ROTOR = 1.0e-6  # kg m2 at the output: the motor and gear train, an upper estimate


def lift_s(h: HandsFree, mu: float, up: bool = True, tungsten_g_mm3: float | None = None
           ) -> float:
    """Seconds to lift the press from an empty tray to the top (``up``), or to let it down
    from the top onto an empty tray: the servo's travel, and going down no faster than
    the press falls on its own (its weight less the bore's friction, as measured)."""
    w, _dx, _dy = press_load(h, tungsten_g_mm3)
    m = w / G
    xl, _zl = lift_pivot(h)

    def load(deg: float) -> float:
        if not up:
            return 0.0
        bears = lift_foot_z(h, deg, 0) > h.press_rest_z(0) - 1e-9
        return lift_torque_nm(h, mu, deg, tungsten_g_mm3) if bears else 0.0

    def inertia(deg: float) -> float:
        arm = (lift_tip(h, deg)[0] - xl) / 1000.0
        return SG90_ROTOR + m * arm * arm

    t = servo_move_s(lift_travel(h), load, inertia)
    if up:
        return t
    a = G * (1 - fall_ratio(h, mu, tungsten_g_mm3))
    if a <= 0:
        raise ValueError(f"the press does not fall at mu {mu}")
    drop = (h.press_swing_z - h.press_rest_z(0)) / 1000.0
    return max(t, math.sqrt(2 * drop / a) + SERVO_SETTLE_S)


def turn_s(h: HandsFree, mu: float, out: bool = True, tungsten_g_mm3: float | None = None,
           upto_deg: float | None = None) -> float:
    """Seconds for the turn servo to take the press out (``out``) or back in, or (given
    ``upto_deg``) until the servo has turned that far."""
    travel = turn_travel(h)
    j = press_inertia(h, tungsten_g_mm3)

    def swung_at(deg: float) -> float:
        # the press's angle for the servo's: the lever's angle is monotonic in it
        lo, hi = 0.0, h.press_swing
        for _ in range(30):
            mid = (lo + hi) / 2
            if turn_servo_deg(h, mid) < deg:
                lo = mid
            else:
                hi = mid
        return lo if out else h.press_swing - lo

    def load(deg: float) -> float:
        s = swung_at(deg if out else travel - deg)
        return turn_torque_nm(h, mu, s, tungsten_g_mm3)

    def inertia(deg: float) -> float:
        s = swung_at(deg if out else travel - deg)
        return SG90_ROTOR + j * turn_ratio(h, s) ** 2

    return servo_move_s(travel, load, inertia, upto_deg=upto_deg)
