"""Measurements on the solids: rays through a part, overlaps between parts, bed fit."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from build123d import Align, Box, GeomType, Part, Pos, Rot
from OCP.BRepClass import BRepClass_FaceClassifier
from OCP.BRepClass3d import BRepClass3d_SolidClassifier
from OCP.BRepIntCurveSurface import BRepIntCurveSurface_Inter
from OCP.gp import gp_Dir, gp_Lin, gp_Pnt
from OCP.TopAbs import TopAbs_IN


def ray_hits(shape: Part, origin: tuple[float, float, float],
             direction: tuple[float, float, float]) -> list[float]:
    """Distances along the (unit) ray from ``origin`` where it crosses the part's surface."""
    inter = BRepIntCurveSurface_Inter()
    inter.Init(shape.wrapped, gp_Lin(gp_Pnt(*origin), gp_Dir(*direction)), 1e-7)
    out: list[float] = []
    while inter.More():
        out.append(inter.W())
        inter.Next()
    out.sort()
    dedup: list[float] = []
    for w in out:
        if not dedup or w - dedup[-1] > 1e-6:
            dedup.append(w)
    return dedup


def material_runs(shape: Part, origin: tuple[float, float, float],
                  direction: tuple[float, float, float]) -> list[tuple[float, float]]:
    """The (enter, leave) spans of material along a ray that starts outside the part."""
    hits = [w for w in ray_hits(shape, origin, direction) if w > 0]
    runs = []
    for a, b in zip(hits[0::2], hits[1::2], strict=False):
        mid = [origin[i] + direction[i] * (a + b) / 2 for i in range(3)]
        if shape.is_inside(mid):
            runs.append((a, b))
    return runs


def gaps(shape: Part, origin: tuple[float, float, float],
         direction: tuple[float, float, float]) -> list[float]:
    """Lengths of the empty spans between material along a ray (the part's openings)."""
    runs = material_runs(shape, origin, direction)
    return [b[0] - a[1] for a, b in zip(runs, runs[1:], strict=False)]


def thinnest_run(shape: Part, rays: list[tuple[tuple[float, float, float],
                                              tuple[float, float, float]]]) -> float:
    """The shortest span of material any of the rays crosses."""
    spans = [b - a for o, d in rays for a, b in material_runs(shape, o, d)]
    return min(spans)


def overlaps(parts: dict[str, Part], tol: float = 1e-3) -> dict[tuple[str, str], float]:
    """Volume shared by each pair of parts whose boxes meet (pairs with none are left out)."""
    out = {}
    boxes = {n: p.bounding_box() for n, p in parts.items()}
    for a, b in combinations(parts, 2):
        ba, bb = boxes[a], boxes[b]
        if any(tuple(ba.max)[i] < tuple(bb.min)[i] - tol
               or tuple(bb.max)[i] < tuple(ba.min)[i] - tol for i in range(3)):
            continue
        common = parts[a] & parts[b]
        out[(a, b)] = sum(s.volume for s in common.solids()) if common else 0.0
    return out


def laid_flat(part: Part, about_x: float, about_y: float, about_z: float = 0.0) -> Part:
    """The part turned to its print orientation (about x, then y, then the bed's z),
    resting on z = 0 at the origin."""
    turned = Rot(0, 0, about_z) * (Rot(0, about_y, 0) * (Rot(about_x, 0, 0) * part))
    box = turned.bounding_box()
    return Pos(-box.min.X, -box.min.Y, -box.min.Z) * turned


# ----- printing: what rests on the bed, and what hangs over air -----

BRIDGE_MM = 15.0  # the longest bridge a part may print across without support
OVERHANG_DEG = 45.0  # a face whose normal is within this of straight down needs bridging


def bed_faces(part: Part, tol: float = 1e-4) -> list:
    """The faces lying on the bed (z = 0) of a part laid flat."""
    return [f for f in part.faces() if f.bounding_box().max.Z < tol]


def _down(face, limit: float) -> bool:
    """Whether some of ``face`` faces down more steeply than ``limit`` (its normal's z)."""
    if face.geom_type == GeomType.PLANE:
        return face.normal_at(face.center()).Z < limit
    return any(face.normal_at(u / 4, v / 4).Z < limit for u in range(5) for v in range(5))


def downward_faces(part: Part, overhang: float = OVERHANG_DEG, tol: float = 1e-4) -> list:
    """The faces above the bed that face down within ``overhang`` degrees of straight down."""
    limit = -math.cos(math.radians(overhang)) + 1e-9
    return [f for f in part.faces() if f.bounding_box().min.Z > tol and _down(f, limit)]


def bridge_span(part: Part, face) -> float:
    """How far ``face`` spans over air: twice the farthest any point of it lies from where
    the layers below carry it (material just under the face's rim).

    A curved face (the top of a hole across the layers) spans its chord where it is steeper
    than the overhang limit.
    """
    if face.geom_type == GeomType.CYLINDER:
        return 2 * face.radius * math.sin(math.radians(OVERHANG_DEG))
    box = face.bounding_box()
    if face.geom_type != GeomType.PLANE:
        return min(box.size.X, box.size.Y)
    n = face.normal_at(face.center())
    c = face.center()

    def z_at(x: float, y: float) -> float:
        return c.Z - (n.X * (x - c.X) + n.Y * (y - c.Y)) / n.Z

    step = min(max(min(box.size.X, box.size.Y) / 10, 0.25), 1.0)
    step = max(step, math.sqrt((box.size.X + 2) * (box.size.Y + 2) / 6000))  # at most ~6000
    pad = 2 * step + 0.5
    nx = int((box.size.X + 2 * pad) / step) + 1
    ny = int((box.size.Y + 2 * pad) / step) + 1
    xs = np.linspace(box.min.X - pad, box.max.X + pad, nx + 1)
    ys = np.linspace(box.min.Y - pad, box.max.Y + pad, ny + 1)
    in_face = BRepClass_FaceClassifier()
    inside = np.zeros((len(xs), len(ys)), dtype=bool)
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            in_face.Perform(face.wrapped, gp_Pnt(x, y, z_at(x, y)), 1e-4)
            inside[i, j] = in_face.State() == TopAbs_IN
    if not inside.any():
        return 0.0
    # Material just under the face's rim carries it: test the ring of points around it.
    ring = np.zeros_like(inside)
    for di in range(-2, 3):  # two steps out: a point right on the rim may classify "on"
        for dj in range(-2, 3):
            ring |= np.roll(np.roll(inside, di, axis=0), dj, axis=1)
    ring &= ~inside
    solids = [BRepClass3d_SolidClassifier(s.wrapped) for s in part.solids()]
    carried = []
    for i, j in zip(*np.nonzero(ring), strict=True):
        x, y = xs[i], ys[j]
        for solid in solids:
            solid.Perform(gp_Pnt(x, y, z_at(x, y) - 0.3), 1e-6)
            if solid.State() == TopAbs_IN:
                carried.append((x, y))
                break
    if not carried:
        return math.inf
    on = np.array([(xs[i], ys[j]) for i, j in zip(*np.nonzero(inside), strict=True)])
    sup = np.array(carried)
    worst = 0.0
    for k in range(0, len(on), 512):
        d = ((on[k:k + 512, None, :] - sup[None, :, :]) ** 2).sum(axis=2).min(axis=1)
        worst = max(worst, float(d.max()))
    return 2 * math.sqrt(worst)


def slice_area(part: Part, z: float, thickness: float = 0.1) -> float:
    """The area of the part's cross-section at height ``z`` (a thin slab's volume / its
    thickness)."""
    box = part.bounding_box()
    slab = Pos(box.min.X - 1, box.min.Y - 1, z) * Box(box.size.X + 2, box.size.Y + 2,
                                                    thickness, align=(Align.MIN,) * 3)
    common = part & slab
    return sum(s.volume for s in common.solids()) / thickness if common else 0.0
