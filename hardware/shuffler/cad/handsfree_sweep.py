"""The hands-free build's moving things as solids, pose by pose: a card up the riser into
each bay, a pile down the shaft, the door leaves turning, the press arm swinging out.

The card bends with the path: at each pose it is the band between two lines a card's
thickness apart along the centre line, from its tail to its head (sampled every 1 mm: the
chord's error on the 40 mm curl is 0.003 mm). Behind the nip it lies level in the tray; past
the slot it runs on level into its bay, over a full pile.
"""

from __future__ import annotations

import math

from build123d import Part

from hardware.shuffler.cad.handsfree_params import HandsFree
from hardware.shuffler.cad.parts import _box, _prism_xz
from hardware.shuffler.handsfree import Bay

# What a card may touch on its way: it slides between these (the tests give it a hair's
# clearance, so any overlap at all is a real collision).
GUIDES = frozenset({"riser_body", "riser_cover", "handsfree_tray", "o_rings", "riser_tyres",
                    "riser_rollers"})
ABOVE = frozenset({"deck", "press_foot"})  # the deck over the bottom card, its press


def card(h: HandsFree, bay: Bay, head: float, thickness: float, width: float,
         lift: float = 0.0) -> Part:
    """The card with its leading edge ``head`` mm along the path to ``bay``, as one solid:
    ``thickness`` centred on the centre line (raised ``lift`` along its normal)."""
    tail = head - h.g.card_length
    lo, hi = -thickness / 2 + lift, thickness / 2 + lift
    pieces = []
    if tail < 0:  # level in the tray behind the nip
        z = h.centre_z0
        pieces.append(_box(tail, min(head, 0.0) + 0.01, -width / 2, width / 2, z + lo, z + hi))
    a = max(tail, 0.0)
    if head > a:
        pts = []
        n = max(2, math.ceil(head - a))
        for side in (lo, hi):
            line = []
            for i in range(n + 1):
                p = h.at(bay, a + (head - a) * i / n)
                line.append((p.x - side * math.sin(p.heading), p.z + side * math.cos(p.heading)))
            pts.append(line)
        pieces.append(_prism_xz(pts[0] + pts[1][::-1], -width / 2, width / 2))
    out = pieces[0]
    for p in pieces[1:]:
        out += p
    return out


def pile(h: HandsFree, bottom: float, cards: int, width: float) -> Part:
    """A pile of ``cards`` (the thickest) squared against the back wall, its underside at
    ``bottom``."""
    xb = h.shaft_x[0]
    return _box(xb + 0.05, xb + 0.05 + h.g.card_length, -width / 2, width / 2, bottom,
                bottom + cards * h.g.card_thickness_max)


def common(a: Part, b: Part) -> float:
    """The volume ``a`` and ``b`` share (their boxes first)."""
    ba, bb = a.bounding_box(), b.bounding_box()
    if any(tuple(ba.max)[i] < tuple(bb.min)[i] - 1e-3 or tuple(bb.max)[i] < tuple(ba.min)[i] - 1e-3
           for i in range(3)):
        return 0.0
    c = a & b
    return sum(s.volume for s in c.solids()) if c else 0.0


def hits(moving: Part, model: dict[str, Part], skip: frozenset[str] = frozenset(),
         tol: float = 1e-3) -> dict[str, float]:
    """The parts of ``model`` (less ``skip``) that ``moving`` shares more than ``tol`` mm3
    with, and how much."""
    out = {}
    for name, part in model.items():
        if name in skip:
            continue
        v = common(moving, part)
        if v > tol:
            out[name] = round(v, 3)
    return out




PRESS = ("press_arm", "press_foot", "press_follower", "press_weight", "press_sleeve", "press_dog",
         "Press foot screws")


def press_parts(model: dict[str, Part]) -> dict[str, Part]:
    """The press's parts of ``model`` (arm, foot, sleeve, pins, weight and its screws)."""
    return {n: p for n, p in model.items() if n.startswith(PRESS)}


def press_far(h: HandsFree, press: Part) -> Part:
    """The press less its hub (everything farther than the hub's rim from the post's axis):
    what swings wide. The hub turns about its own axis on the post."""
    from hardware.shuffler.cad.parts import _z_cylinder

    px, py = h.press_pivot
    b = press.bounding_box()
    return press - _z_cylinder(px, py, h.press_hub_d + 1.2, b.min.Z - 1, b.max.Z + 1)


def clearances(moving: Part, model: dict[str, Part], within: float) -> dict[str, float]:
    """The least distance from ``moving`` to each part of ``model`` whose box comes within
    ``within`` mm of it (the others stand farther off)."""
    mb = moving.bounding_box()
    out = {}
    for name, part in model.items():
        pb = part.bounding_box()
        gap = max(max(tuple(pb.min)[i] - tuple(mb.max)[i], tuple(mb.min)[i] - tuple(pb.max)[i])
                  for i in range(3))
        if gap < within:
            out[name] = moving.distance_to(part)
    return out
