"""A card moved along its whole path through the assembly, as a solid, pose by pose.

The card is flexible along its length, as a playing card is: at each pose it lies on the
floor of every straight stretch it spans (one flat piece per stretch), so it bends where the
path bends. Its underside runs along the path's floor line (``params.card_path``): level
from the tray over the tyre's top and the land, down the chute, down the branch to the
outlet, and along the drop to the foot of the bay's end wall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from build123d import Compound, Part

from hardware.shuffler.cad import parts
from hardware.shuffler.cad.params import Geometry, Point

# What the card may touch (it slides on them or between them) and what rides above it.
GUIDES = frozenset({"tray", "o_rings", "router", "vane", "bays", "width_shims", "felt_pads"})
ABOVE = frozenset({"deck", "press", "steel_bar"})  # the cards above the bottom one, the press


@dataclass(frozen=True)
class Stretch:
    """A straight piece of the floor line: from ``s0`` to ``s1`` along the path (mm from the
    nip), starting at ``start`` and falling ``slope`` degrees."""

    s0: float
    s1: float
    start: Point
    slope: float


def stretches(g: Geometry, pile: str, cards: int = 0) -> list[Stretch]:
    """The floor line from behind the deck's back (level, at the nip's height) to the foot of
    ``pile``'s bay's end wall on a pile of ``cards``."""
    back = g.card_length + 20.0
    pts = [(g.nip[0] - back, g.nip[1]), *g.path(pile), g.end_wall(pile, cards)]
    out, s = [], -back
    for a, b in zip(pts, pts[1:], strict=False):
        length = math.dist(a, b)
        out.append(Stretch(s, s + length, a, math.degrees(math.atan2(a[1] - b[1], b[0] - a[0]))))
        s += length
    return out


def end_of_path(g: Geometry, pile: str, cards: int = 0) -> float:
    """Path length from the nip to the foot of the bay's end wall."""
    return stretches(g, pile, cards)[-1].s1


def card_at(g: Geometry, pile: str, head: float, width: float, thickness: float,
            lift: float = 0.0, cards: int = 0) -> list[Part]:
    """The card's pieces with its leading edge ``head`` mm along the path from the nip.

    ``lift`` raises it off the floor (a second card rides one thickness up).
    """
    tail = head - g.card_length
    out = []
    for st in stretches(g, pile, cards):
        a, b = max(st.s0, tail), min(st.s1, head)
        if b - a < 1e-6:
            continue
        ang = math.radians(st.slope)
        d = a - st.s0
        start = (st.start[0] + d * math.cos(ang), st.start[1] - d * math.sin(ang))
        out.append(parts._band(start, st.slope, b - a, -lift, lift + thickness, width))
    return out


def card_on_pile(g: Geometry, pile: str, width: float, thickness: float,
                 cards: int) -> Part:
    """The card come to rest: flat on a pile of ``cards`` in ``pile``'s bay, at its end wall."""
    x1, z = g.end_wall(pile, cards)
    return parts._box(x1 - g.card_length, x1, -width / 2, width / 2, z, z + thickness)


def common_volume(card: list[Part], part: Part) -> float:
    """Volume the card's pieces share with ``part`` (bounding boxes first)."""
    box = part.bounding_box()
    total = 0.0
    for piece in card:
        pb = piece.bounding_box()
        if any(tuple(pb.max)[i] < tuple(box.min)[i] - 1e-3
               or tuple(box.max)[i] < tuple(pb.min)[i] - 1e-3 for i in range(3)):
            continue
        common = part & piece
        total += sum(s.volume for s in common.solids()) if common else 0.0
    return total


END_SHORT = 0.5  # the last pose's leading edge short of the end wall's foot


def poses(g: Geometry, pile: str, start: float, fine: float, coarse: float,
          near: tuple[float, ...]) -> list[float]:
    """Head positions from ``start`` to the end wall: ``fine`` steps for four steps after
    each place in ``near`` (where the card meets something new), ``coarse`` elsewhere, every
    corner of the path, and the end: the leading edge ``END_SHORT`` before the wall's foot
    (the card lies tilted on the drop there, and its upper corner reaches the wall first)."""
    end = end_of_path(g, pile) - END_SHORT
    corners = [st.s1 for st in stretches(g, pile)]
    out, s = [start], start
    while s < end:
        close = any(0 <= s - n < fine * 4 for n in near)
        s = min(s + (fine if close else coarse), end)
        out.append(s)
    return sorted({round(v, 6) for v in out + [c for c in corners if start < c < end]})


def as_compound(pieces: list[Part]) -> Compound:
    return Compound(children=pieces)
