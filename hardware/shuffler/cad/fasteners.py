"""Every screw, nut and washer in the shuffler: one table, and each as a solid where it sits.

The build doc's "Hardware" rows for screws are checked against this table, and each screw's
length against the parts it joins (measured on the solids by the tests). Heads are modelled
to their standards, so a head that stands where a card or a part goes is found like any
other part:

- ISO 7045 pan head (cross recess): M2 4.0 x 1.6, M2.5 5.0 x 2.0, M3 5.6 x 2.4, M4 8.0 x
  3.1 mm.
- ISO 10642 countersunk (hexagon socket), 90 degrees: M3 head 6.0 mm across; it sits in a
  6.4 mm countersink 0.2 mm under the surface.
- ISO 4032 hexagon nut M3: 5.5 mm across flats, 2.4 mm high; ISO 7089 washer M3: 7 x 0.5 mm.

A thread-forming screw in printed plastic needs about two diameters of thread in the part it
forms its thread in (``MIN_ENGAGEMENT``); where a wall is thinner the screw takes a nut.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from build123d import Cone, Cylinder, Part, Pos, RegularPolygon, Rot, extrude

from hardware.shuffler.cad import parts
from hardware.shuffler.cad.params import Geometry

Vec = tuple[float, float, float]

# (head diameter, head height) by kind and thread; the countersunk head's height is its cone.
HEADS = {("pan", 2.0): (4.0, 1.6), ("pan", 2.5): (5.0, 2.0), ("pan", 3.0): (5.6, 2.4),
         ("countersunk", 3.0): (6.0, 1.5), ("pan", 4.0): (8.0, 3.1)}
# The thread's core (minor) diameter: the shank as modelled, so that a thread-forming screw
# in its pilot hole (2.5 mm for M3, 2.2 for M2.5, 2.0 for M2 less the thread it forms) is
# not counted as an overlap with the plastic it cuts.
CORE = {2.0: 1.567, 2.5: 1.933, 3.0: 2.387, 4.0: 3.141}
NUT = {3.0: (5.5, 2.4)}  # across flats, height
PILOT = {2.0: 1.7, 2.5: 2.2, 3.0: 2.5}  # the printed hole a thread-forming screw cuts into
WASHER = {3.0: (7.0, 0.5)}  # outside diameter, thickness
MIN_ENGAGEMENT = 2.0  # thread in the plastic, in screw diameters
COUNTERSINK_DEPTH = 0.2  # the head under the surface


@dataclass(frozen=True)
class Fastener:
    """One row of screws: where each one's head bears and which way its shank points.

    ``seats`` are the points on the axis where the head (or its washer) bears on the first
    part; for a countersunk head, its top face, sunk under the surface. ``axis`` points from
    the head into the parts.
    ``clamps`` are the parts the shank passes through in clearance holes, in order;
    ``thread_in`` is the part the screw forms its thread in, or None when a nut (with a
    washer under the head) takes it. ``row`` names the build doc's Hardware row.
    """

    row: str
    kind: str  # "pan" or "countersunk"
    d: float
    length: float  # ISO: under the head for a pan head, overall for a countersunk one
    seats: tuple[Vec, ...]
    axis: Vec
    clamps: tuple[str, ...]
    thread_in: str | None
    grip: float = 0.0  # with a nut: the parts' thickness between the washer and the nut

    @property
    def size(self) -> str:
        return f"M{self.d:g} × {self.length:g}"

    @property
    def head(self) -> tuple[float, float]:
        return HEADS[(self.kind, self.d)]

    @property
    def washer(self) -> float:
        """The washer under the head (screws that take a nut have one)."""
        return WASHER[self.d][1] if self.thread_in is None else 0.0

    @property
    def tip(self) -> float:
        """The tip's distance along the axis from the seat (the first part's face)."""
        return self.length - self.washer if self.kind == "pan" else self.length


def _along(axis: Vec) -> Rot:
    """The rotation that turns +z onto ``axis`` (one of the six axis directions)."""
    return {(0, 0, 1): Rot(0, 0, 0), (0, 0, -1): Rot(180, 0, 0), (1, 0, 0): Rot(0, 90, 0),
            (-1, 0, 0): Rot(0, -90, 0), (0, 1, 0): Rot(-90, 0, 0),
            (0, -1, 0): Rot(90, 0, 0)}[tuple(int(round(c)) for c in axis)]


def solids(f: Fastener) -> list[Part]:
    """Each screw of the row, with its washer and nut, as solids where they sit."""
    dk, k = f.head
    out = []
    for seat in f.seats:
        rot = _along(f.axis)
        if f.kind == "pan":
            # Built along +z with the seat at 0: head below (against the axis), shank above.
            screw = Pos(0, 0, -k - f.washer) * Cylinder(dk / 2, k, align=parts.LOW)
            screw += Pos(0, 0, -f.washer) * Cylinder(CORE[f.d] / 2, f.length, align=parts.LOW)
        else:
            # The 90-degree cone's top face is the seat (sunk under the surface).
            screw = Pos(0, 0, 0) * Cone(dk / 2, f.d / 2, k, align=parts.LOW)
            screw += Pos(0, 0, k) * Cylinder(CORE[f.d] / 2, f.length - k, align=parts.LOW)
        if f.thread_in is None:
            wd, wt = WASHER[f.d]
            screw += Pos(0, 0, -wt) * Cylinder(wd / 2, wt, align=parts.LOW)
        out.append(Pos(*seat) * rot * screw)
    return out


def nut_solids(f: Fastener) -> list[Part]:
    """The nuts of a row that takes nuts, ``grip`` along the axis past each seat."""
    if f.thread_in is not None:
        return []
    s, m = NUT[f.d]
    nut = extrude(RegularPolygon(s / math.sqrt(3), 6), amount=m)
    nut -= Cylinder(CORE[f.d] / 2, m, align=parts.LOW)
    return [Pos(*seat) * _along(f.axis) * (Pos(0, 0, f.grip) * nut) for seat in f.seats]


def table(g: Geometry) -> list[Fastener]:
    """Every fastener of the assembly, from the parts' own screw positions."""
    zf, top = g.tray_floor_z, g.base_top
    csk_top = COUNTERSINK_DEPTH
    return [
        Fastener("Gate screws", "pan", 3.0, 10,
                 tuple((g.gate_x + g.wall, y, z) for _x, z, y in parts.gate_screw_points(g)),
                 (-1, 0, 0), ("gate_blade", "tray"), None, grip=2 * g.wall),
        Fastener("Clamp screws", "countersunk", 3.0, 12,
                 tuple((x, y, g.support_z(x) - csk_top) for x, y in parts.clamp_screw_points(g)),
                 (0, 0, -1), ("tray",), "motor_clamp"),
        Fastener("Tray screws", "countersunk", 3.0, 10,
                 tuple((x, y, zf - csk_top) for x, y in parts.tray_screw_points(g)),
                 (0, 0, -1), ("tray",), "lid"),
        Fastener("Lid screws", "pan", 3.0, 10,
                 tuple((x, y, top) for x, y in parts.lid_screw_points(g)),
                 (0, 0, -1), ("lid",), "base"),
        Fastener("Router screws", "pan", 3.0, 10,
                 tuple((g.router_x0 + g.wall, y, z) for y, z in parts.router_screw_points(g)),
                 (-1, 0, 0), ("router", "base"), None, grip=2 * g.wall),
        Fastener("Pi screws", "pan", 2.5, 8,
                 tuple((x, y, g.floor + g.standoff_h + 1.6) for x, y in parts.pi_holes(g)),
                 (0, 0, -1), ("pi_board",), "base"),
        Fastener("Driver screws", "pan", 2.5, 8,
                 tuple((x, y, g.floor + g.standoff_h + 1.6) for x, y in parts.driver_holes(g)),
                 (0, 0, -1), ("driver_board",), "base"),
        Fastener("Servo screws", "pan", 2.0, 8, tuple(parts.servo_screw_points(g)), (0, -1, 0),
                 ("sg90_servo",), "servo_mount"),
    ]


def assembly_solids(g: Geometry) -> dict[str, Part]:
    """Every fastener as a solid, keyed ``row #n`` (screw and washer) and ``row #n nut``."""
    out: dict[str, Part] = {}
    for f in table(g):
        for n, solid in enumerate(solids(f)):
            out[f"{f.row} #{n + 1}"] = solid
        for n, solid in enumerate(nut_solids(f)):
            out[f"{f.row} #{n + 1} nut"] = solid
    return out
