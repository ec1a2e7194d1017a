"""Measurements on the solids: rays through a part, overlaps between parts, bed fit."""

from __future__ import annotations

from itertools import combinations

from build123d import Part, Pos, Rot
from OCP.BRepIntCurveSurface import BRepIntCurveSurface_Inter
from OCP.gp import gp_Dir, gp_Lin, gp_Pnt


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


def laid_flat(part: Part, about_x: float, about_y: float) -> Part:
    """The part turned to its print orientation, resting on z = 0 at the origin."""
    turned = Rot(0, about_y, 0) * (Rot(about_x, 0, 0) * part)
    box = turned.bounding_box()
    return Pos(-box.min.X, -box.min.Y, -box.min.Z) * turned
