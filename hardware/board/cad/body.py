"""The board's top and base, from the same `StripPlan` as the LED map and the template.

The top is a plate with every hole of the template drilled through it; the base is a plate
with a channel under each row, where that row's piece of strip lies, and a notch joining two
rows at the end where their jumper wires run. Both in mm, the top's upper face at z = 0 going
down (-z), the base below it; x and y are the template's.
"""

from __future__ import annotations

from dataclasses import dataclass

from build123d import Align, Box, Cylinder, Part, Pos

from hardware.board.layout import StripPlan

MIN = (Align.MIN, Align.MIN, Align.MIN)
LOW = (Align.CENTER, Align.CENTER, Align.MIN)


@dataclass(frozen=True, slots=True)
class Body:
    """The body's sizes: the top's thickness, the holes, the base and its channels (mm)."""

    top: float = 6.0  # a 6 mm hardwood or birch-ply top: the holes go right through
    drill: float = 5.0  # for 5 mm pegs or LED lenses
    base: float = 9.0
    # 144/m strips are 10-12 mm wide (12 mm for most 5050 strips; an IP65 sleeve adds more):
    # the channel takes the widest and 0.5 mm each side. Rows closer than a channel and a
    # 1.5 mm wall (the default 12 mm rows) share one trough, cut as one: the strips lie side
    # by side in it, each under its row of holes.
    strip_width: float = 12.0
    strip_clearance: float = 0.5
    min_wall: float = 1.5
    channel_depth: float = 6.0  # the strip (3 mm) and a 3 mm diffuser above it
    channel_end: float = 6.0  # beyond the first and last LED of a row: the pads, the wires


    @property
    def channel_width(self) -> float:
        """A row's channel: the widest strip and its clearance both sides."""
        return self.strip_width + 2 * self.strip_clearance


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> Part:
    return Pos(x0, y0, z0) * Box(x1 - x0, y1 - y0, z1 - z0, align=MIN)


def top(plan: StripPlan, body: Body = Body()) -> Part:
    """The top plate with every hole of the plan drilled through."""
    width, depth = plan.size()
    plate = _box(0, width, 0, depth, -body.top, 0)
    holes = [Pos(h.x, h.y, -body.top - 1) * Cylinder(body.drill / 2, body.top + 2, align=LOW)
             for h in plan.holes_mm()]
    return plate - Part(children=holes) if holes else plate


def row_extent(plan: StripPlan, row: int, body: Body = Body()) -> tuple[float, float]:
    """Where a row's channel starts and ends in x: its strip piece and `channel_end` more."""
    s = plan.segments()[row]
    ends = (s.x, s.x + (s.count - 1) * plan.pitch * s.step)
    return min(ends) - body.channel_end, max(ends) + body.channel_end


def base(plan: StripPlan, body: Body = Body()) -> Part:
    """The base plate under the top, a channel under each row and a notch where the rows'
    jumper wires cross from one row's end to the next row's start."""
    width, depth = plan.size()
    z1 = -body.top
    z0 = z1 - body.base
    plate = _box(0, width, 0, depth, z0, z1)
    cuts = []
    half = body.channel_width / 2
    segments = plan.segments()
    for r, s in enumerate(segments):
        x0, x1 = row_extent(plan, r, body)
        y0, y1 = s.y - half, s.y + half
        for other in segments:  # a wall thinner than min_wall to a neighbour: one trough
            gap = abs(other.y - s.y) - body.channel_width
            if other is not s and gap < body.min_wall:
                y0, y1 = min(y0, other.y - half), max(y1, other.y + half)
        cuts.append(_box(x0, x1, y0, y1, z1 - body.channel_depth, z1 + 1))
        if r + 1 < len(segments):  # the jumper from this row's end to the next row's start
            nxt = segments[r + 1]
            x = s.x + (s.count - 1) * plan.pitch * s.step
            xa, xb = sorted((x, x + body.channel_end * s.step))
            cuts.append(_box(xa - half / 2, xb + half / 2, min(s.y, nxt.y), max(s.y, nxt.y),
                             z1 - body.channel_depth, z1 + 1))
    return plate - Part(children=cuts)
