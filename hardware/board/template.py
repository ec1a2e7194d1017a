"""The drilling template: the holes of a `StripPlan` at 1:1, as SVG and as tiled PDF pages.

Everything drawn comes from the plan (hole and LED centres, the strip's pieces) and from the
skunk lines the caller gives (the engine's: this module computes none). The SVG is the whole
board on one sheet; the PDF cuts it into pieces of A4 or US Letter that overlap, with
registration marks in every overlap, a trim line and a 100 mm bar on every page to check
the printer kept the scale. The PDF needs fpdf2 (the `docs` extra), imported only here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from hardware.board.layout import StripPlan
from hardware.errors import ConfigurationError

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm, portrait
PAGE_MARGIN = 10.0  # what a printer leaves blank, at most, on each side
FOOTER = 16.0  # the page's own band: its name and the 100 mm bar
OVERLAP = 20.0  # each piece overlaps its neighbour by this much
BAR_MM = 100.0
MARK_R = 4.0  # registration mark radius


@dataclass(frozen=True, slots=True)
class Line:
    """A skunk line across a leg's rows, just before the hole its score is in."""

    name: str
    score: int
    hole: int
    x: float
    y0: float
    y1: float


@dataclass(frozen=True, slots=True)
class Tile:
    """One printed page: the board's window [x, x + w] x [y, y + h] in mm, and its place."""

    paper: str
    landscape: bool
    row: int
    col: int
    rows: int
    cols: int
    x: float
    y: float
    w: float
    h: float

    @property
    def name(self) -> str:
        """The piece's name: a letter a row, a number a column (A1, A2, B1...)."""
        return f"{chr(ord('A') + self.row)}{self.col + 1}"

    def page_size(self) -> tuple[float, float]:
        """The page's width and height in mm."""
        w, h = PAPERS[self.paper]
        return (h, w) if self.landscape else (w, h)


def lines_at(plan: StripPlan, lines: Sequence[tuple[str, int]], target: int) -> list[Line]:
    """Where each skunk line (name, score) crosses the board: between the hole before it and
    its hole, across every track of that hole's leg. Raises ConfigurationError for a score
    that is not between 1 and the target."""
    layout = plan.layout()
    holes = {(h.track, h.hole): h for h in plan.holes_mm()}
    per_leg = plan.holes // plan.legs
    out = []
    for name, score in lines:
        if not 1 <= score < target:
            raise ConfigurationError(f"the {name} line {score} is not a score below {target}")
        hole = layout.hole_for_score(score, target)
        here = holes[(0, hole)]
        leg = (hole - 1) // per_leg
        before = holes.get((0, hole - 1))
        if before is not None and 1 <= hole - 1 and (hole - 2) // per_leg == leg:
            x = (before.x + here.x) / 2
        else:  # the first hole of a leg: half a pitch back along the pegs' way
            x = here.x - (plan.pitch / 2 if leg % 2 == 0 else -plan.pitch / 2)
        ys = [holes[(t, hole)].y for t in range(plan.tracks)]
        half = plan.track_spacing / 2
        out.append(Line(name, score, hole, x, min(ys) - half, max(ys) + half))
    return out


def tiles(width: float, height: float, paper: str) -> list[Tile]:
    """The pages that cover a width x height mm board, overlapping by OVERLAP, in the
    orientation that needs fewer pages. Raises ConfigurationError for an unknown paper."""
    if paper not in PAPERS:
        raise ConfigurationError(f"paper {paper!r}: one of {', '.join(PAPERS)}")
    best: list[Tile] = []
    for landscape in (True, False):
        pw, ph = PAPERS[paper]
        if landscape:
            pw, ph = ph, pw
        w, h = pw - 2 * PAGE_MARGIN, ph - 2 * PAGE_MARGIN - FOOTER
        cols = max(1, math.ceil((width - OVERLAP) / (w - OVERLAP)))
        rows = max(1, math.ceil((height - OVERLAP) / (h - OVERLAP)))
        found = [Tile(paper, landscape, r, c, rows, cols, c * (w - OVERLAP), r * (h - OVERLAP),
                      w, h) for r in range(rows) for c in range(cols)]
        if not best or len(found) < len(best):
            best = found
    return best


def marks(pieces: Sequence[Tile]) -> list[tuple[float, float]]:
    """Registration marks: on the middle of every overlap, where both pages print them."""
    if not pieces:
        return []
    t0 = pieces[0]
    xs = sorted({p.x for p in pieces if p.col > 0})
    ys = sorted({p.y for p in pieces if p.row > 0})
    height = t0.rows * (t0.h - OVERLAP) + OVERLAP
    width = t0.cols * (t0.w - OVERLAP) + OVERLAP
    out = []
    for x in xs:  # a vertical overlap: marks down it, twice a page at least
        n = max(2, t0.rows * 2)
        out += [(x + OVERLAP / 2, height * (i + 0.5) / n) for i in range(n)]
    for y in ys:
        n = max(2, t0.cols * 2)
        out += [(width * (i + 0.5) / n, y + OVERLAP / 2) for i in range(n)]
    return out


class _Shapes:
    """The template as shapes in board mm, drawn the same by the SVG and the PDF writers."""

    def __init__(self, plan: StripPlan, lines: Sequence[Line], drill: float, title: str):
        self.plan, self.lines, self.drill, self.title = plan, lines, drill, title

    def draw(self, pen: _Pen) -> None:
        plan = self.plan
        width, height = plan.size()
        pen.rect(0, 0, width, height, "outline")
        for s in plan.segments():  # the strip under each row, and which way its data runs
            x1 = s.x + (s.count - 1) * plan.pitch * s.step
            pen.line(s.x, s.y, x1, s.y, "strip")
            pen.text(s.x - 3 * s.step, s.y - 2.5, 1.8, "DIN", "end" if s.step > 0 else "start")
        used = {h.led for h in plan.holes_mm()}
        for s in plan.segments():  # dark LEDs: not drilled, a dot to lay the strip by
            for i in range(s.count):
                if s.first + i not in used:
                    pen.dot(s.x + i * plan.pitch * s.step, s.y, 0.6, "dark")
        r = self.drill / 2
        for h in plan.holes_mm():
            kind = "start" if h.hole == 0 else "game" if h.hole == plan.holes + 1 else "hole"
            pen.hole(h.x, h.y, r, kind, h.track, h.hole, h.led)
            if kind != "hole":
                pen.text(h.x, h.y - r - 1.2, 2.0, "S" if kind == "start" else "G", "middle")
            elif h.hole % 5 == 0 and h.track == 0:
                pen.text(h.x, h.y - r - 1.2, 2.0, str(h.hole), "middle")
        for ln in self.lines:
            pen.line(ln.x, ln.y0, ln.x, ln.y1, "skunk")
            anchor = "end" if ln.x > width - 25 else "start" if ln.x < 25 else "middle"
            pen.text(ln.x, ln.y1 + 3.0, 2.2, f"{ln.name.replace('_', ' ')} {ln.score}", anchor)
        pen.text(3, height - 3, 2.5, self.title, "start")


class _Pen:
    def rect(self, x: float, y: float, w: float, h: float, kind: str) -> None: ...
    def line(self, x0: float, y0: float, x1: float, y1: float, kind: str) -> None: ...
    def dot(self, x: float, y: float, r: float, kind: str) -> None: ...
    def hole(self, x: float, y: float, r: float, kind: str, track: int, hole: int,
             led: int) -> None: ...
    def text(self, x: float, y: float, size: float, words: str, anchor: str) -> None: ...


_STROKE = {"outline": ("#000", 0.3, None), "strip": ("#9ab", 0.3, "2 1"),
           "skunk": ("#c60", 0.6, None), "cross": ("#000", 0.15, None),
           "trim": ("#000", 0.2, "3 2"), "mark": ("#000", 0.2, None)}


def _f(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


class _SvgPen(_Pen):
    def __init__(self) -> None:
        self.out: list[str] = []

    def _stroke(self, kind: str) -> str:
        colour, width, dash = _STROKE[kind]
        d = f' stroke-dasharray="{dash}"' if dash else ""
        return f'fill="none" stroke="{colour}" stroke-width="{width}"{d}'

    def rect(self, x: float, y: float, w: float, h: float, kind: str) -> None:
        self.out.append(f'<rect class="{kind}" x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" '
                        f'height="{_f(h)}" {self._stroke(kind)}/>')

    def line(self, x0: float, y0: float, x1: float, y1: float, kind: str) -> None:
        self.out.append(f'<line class="{kind}" x1="{_f(x0)}" y1="{_f(y0)}" x2="{_f(x1)}" '
                        f'y2="{_f(y1)}" {self._stroke(kind)}/>')

    def dot(self, x: float, y: float, r: float, kind: str) -> None:
        self.out.append(f'<circle class="{kind}" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" '
                        'fill="#9ab"/>')

    def hole(self, x: float, y: float, r: float, kind: str, track: int, hole: int,
             led: int) -> None:
        self.out.append(
            f'<circle class="{kind}" data-track="{track}" data-hole="{hole}" data-led="{led}" '
            f'cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" {self._stroke("outline")}/>')
        c = r * 0.6
        self.line(x - c, y, x + c, y, "cross")
        self.line(x, y - c, x, y + c, "cross")

    def text(self, x: float, y: float, size: float, words: str, anchor: str) -> None:
        self.out.append(f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" '
                        f'font-family="sans-serif" text-anchor="{anchor}">{escape(words)}</text>')


def scale_bar(pen: _Pen, x: float, y: float) -> None:
    """The 100 mm bar with a tick every 10 mm: measure it on the print before drilling."""
    pen.rect(x, y, BAR_MM, 2.0, "outline")
    for i in range(0, 11):
        pen.line(x + i * 10, y + 2.0, x + i * 10, y + (4.0 if i % 5 == 0 else 3.0), "cross")
    pen.text(x + BAR_MM + 2, y + 2.0, 2.5, "100 mm: measure it; a print not at 100% is no use",
             "start")


def svg(plan: StripPlan, lines: Sequence[Line], drill: float = 5.0, title: str = "") -> str:
    """The whole template at 1:1 as an SVG document (mm units), the 100 mm bar beneath."""
    width, height = plan.size()
    pen = _SvgPen()
    _Shapes(plan, lines, drill, title).draw(pen)
    pen.out.append('<g class="scale-bar">')
    scale_bar(pen, 5.0, height + 6.0)
    pen.out.append("</g>")
    h = height + 16.0
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}mm" height="{_f(h)}mm" '
            f'viewBox="0 0 {_f(width)} {_f(h)}">\n' + "\n".join(pen.out) + "\n</svg>\n")


def _fpdf() -> Any:
    try:
        from fpdf import FPDF
    except ImportError:
        raise ConfigurationError(
            "the PDF template needs fpdf2: pip install 'fpdf2==2.8.9' (in the docs and dev "
            "extras); the SVG template needs nothing") from None
    return FPDF


_PDF_GREY = {"#000": (0, 0, 0), "#9ab": (150, 165, 180), "#c60": (204, 102, 0)}


class _PdfPen(_Pen):
    def __init__(self, pdf: Any, dx: float, dy: float) -> None:
        self.pdf = pdf
        self.dx, self.dy = dx, dy

    def _stroke(self, kind: str) -> None:
        pdf = self.pdf
        colour, width, dash = _STROKE[kind]
        pdf.set_draw_color(*_PDF_GREY[colour])
        pdf.set_line_width(width)
        if dash:
            on, off = (float(v) for v in dash.split())
            pdf.set_dash_pattern(dash=on, gap=off)
        else:
            pdf.set_dash_pattern()

    def rect(self, x: float, y: float, w: float, h: float, kind: str) -> None:
        self._stroke(kind)
        self.pdf.rect(x + self.dx, y + self.dy, w, h)

    def line(self, x0: float, y0: float, x1: float, y1: float, kind: str) -> None:
        self._stroke(kind)
        self.pdf.line(x0 + self.dx, y0 + self.dy, x1 + self.dx, y1 + self.dy)

    def dot(self, x: float, y: float, r: float, kind: str) -> None:
        self.pdf.set_fill_color(*_PDF_GREY["#9ab"])
        self.pdf.circle(x + self.dx, y + self.dy, r, style="F")

    def hole(self, x: float, y: float, r: float, kind: str, track: int, hole: int,
             led: int) -> None:
        self._stroke("outline")
        self.pdf.circle(x + self.dx, y + self.dy, r, style="D")
        c = r * 0.6
        self.line(x - c, y, x + c, y, "cross")
        self.line(x, y - c, x, y + c, "cross")

    def text(self, x: float, y: float, size: float, words: str, anchor: str) -> None:
        pdf = self.pdf
        pdf.set_font("helvetica", size=size * 72 / 25.4 * 1.4)
        w = pdf.get_string_width(words)
        shift = {"start": 0.0, "middle": w / 2, "end": w}[anchor]
        pdf.text(x + self.dx - shift, y + self.dy, words)


def pdf(plan: StripPlan, lines: Sequence[Line], paper: str, drill: float = 5.0,
        title: str = "") -> bytes:
    """The template cut into overlapping pages of `paper` ("a4" or "letter"), at 1:1.

    Raises ConfigurationError when fpdf2 is not installed or the paper is unknown.
    """
    fpdf_class = _fpdf()
    width, height = plan.size()
    pieces = tiles(width, height, paper)
    doc = fpdf_class(unit="mm", format=PAPERS[paper])
    doc.set_auto_page_break(False)
    doc.set_creator("cribbage-table crib board template")
    doc.set_creation_date(_EPOCH)  # the same plan gives the same file
    shapes = _Shapes(plan, lines, drill, title)
    reg = marks(pieces)
    for t in pieces:
        doc.add_page(orientation="L" if t.landscape else "P")
        pen = _PdfPen(doc, PAGE_MARGIN - t.x, PAGE_MARGIN - t.y)
        with doc.rect_clip(PAGE_MARGIN, PAGE_MARGIN, t.w, t.h):
            shapes.draw(pen)
            for mx, my in reg:
                pen._stroke("mark")
                doc.circle(mx + pen.dx, my + pen.dy, MARK_R, style="D")
                pen.line(mx - MARK_R * 1.5, my, mx + MARK_R * 1.5, my, "mark")
                pen.line(mx, my - MARK_R * 1.5, mx, my + MARK_R * 1.5, "mark")
        # Trim this page's left and top overlap halves away; the marks meet the page beneath.
        if t.col > 0:
            x = PAGE_MARGIN + OVERLAP / 2
            pen_page = _PdfPen(doc, 0, 0)
            pen_page.line(x, PAGE_MARGIN, x, PAGE_MARGIN + t.h, "trim")
        if t.row > 0:
            y = PAGE_MARGIN + OVERLAP / 2
            _PdfPen(doc, 0, 0).line(PAGE_MARGIN, y, PAGE_MARGIN + t.w, y, "trim")
        page = _PdfPen(doc, 0, 0)
        page._stroke("outline")
        doc.rect(PAGE_MARGIN, PAGE_MARGIN, t.w, t.h)
        foot = PAGE_MARGIN + t.h + 4.0
        page.text(PAGE_MARGIN, foot + 1.5, 3.0,
                  f"piece {t.name} of {t.rows} x {t.cols} ({paper}); print at 100% (no 'fit "
                  "to page'); trim on the dashed lines, lay the marks on the next piece's",
                  "start")
        bar = _PdfPen(doc, 0, 0)
        doc.set_fill_color(0, 0, 0)
        doc.rect(PAGE_MARGIN, foot + 5.0, BAR_MM, 2.0, style="F")  # the scale bar
        scale_bar(bar, PAGE_MARGIN, foot + 5.0)
    return bytes(doc.output())


def _epoch() -> object:
    import datetime

    return datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


_EPOCH = _epoch()
