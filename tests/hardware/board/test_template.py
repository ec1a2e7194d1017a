"""The drilling template puts every hole over its LED, prints at 1:1 on A4 and US Letter in
overlapping pieces, and draws the engine's skunk lines."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from cribbage.rules import RULES, get_rules
from hardware.board import template
from hardware.board.layout import DENSITIES, StripPlan, read_map
from hardware.errors import ConfigurationError

MM = 72 / 25.4  # PDF points in a millimetre
PAGES_PT = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}


def _holes(svg: str) -> dict[tuple[int, int], tuple[int, float, float, str]]:
    root = ET.fromstring(svg)
    out = {}
    for el in root.iter():
        if el.tag.endswith("circle") and el.get("data-hole") is not None:
            key = (int(el.get("data-track")), int(el.get("data-hole")))
            assert key not in out
            out[key] = (int(el.get("data-led")), float(el.get("cx")), float(el.get("cy")),
                        el.get("class"))
    return out


def _led_centre(doc: dict, led: int) -> tuple[float, float]:
    """Where LED `led` lies, from the map file's pieces of strip and its pitch alone."""
    for s in doc["segments"]:
        if s["first"] <= led < s["first"] + s["count"]:
            return s["x_mm"] + (led - s["first"]) * doc["pitch_mm"] * s["step"], s["y_mm"]
    raise AssertionError(f"LED {led} is on no piece of strip")


PLANS = [
    StripPlan(tracks=t, per_metre=d, skip=skip, legs=legs, track_spacing=12.0)
    for t, d, skip, legs in itertools.product((1, 2, 3), DENSITIES, (0, 1, 2), (1, 2))
] + [StripPlan(holes=60, legs=2, group=5), StripPlan(legs=3, end_skip=2, group=8),
     StripPlan(legs=4, tracks=3, per_metre=60, track_spacing=20.0)]


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.tracks}t-{p.holes}h-{p.per_metre}"
                         f"-skip{p.skip}-g{p.group}-legs{p.legs}")
def test_every_hole_is_over_its_led(tmp_path, plan):
    path = tmp_path / "map.json"
    import json

    path.write_text(json.dumps(plan.map_document()))
    doc = read_map(path)
    holes = _holes(template.svg(plan, []))
    per = plan.holes + 2
    assert len(holes) == plan.tracks * per
    leds = [led for led, *_ in holes.values()]
    assert len(set(leds)) == len(leds)
    for (track, hole), (led, x, y, kind) in holes.items():
        assert doc["led_map"][track][hole] == led
        lx, ly = _led_centre(doc, led)
        assert abs(x - lx) <= 0.5 and abs(y - ly) <= 0.5, (track, hole)
        assert kind == ("start" if hole == 0 else "game" if hole == per - 1 else "hole")
    # The holes of a group are one LED apart: the strip's own pitch, 1000 mm / density.
    pitch = 1000 / plan.per_metre
    per_leg = plan.holes // plan.legs
    for track, h in itertools.product(range(plan.tracks), range(1, plan.holes)):
        if h % per_leg == 0:
            continue  # the last hole of a leg: the next is on the next row
        (_, x0, y0, _), (_, x1, y1, _) = holes[(track, h)], holes[(track, h + 1)]
        gap = pitch * (1 + (plan.skip if h % plan.group == 0 else 0))
        assert y0 == y1 and abs(abs(x1 - x0) - gap) < 0.01, (track, h)
    # Every LED of the strip is counted, the dark ones included, and the last one is a hole.
    assert doc["led_count"] == 1 + max(leds)
    assert doc["led_count"] == sum(s["count"] for s in doc["segments"])


def test_the_figures_of_the_default_board():
    plan = StripPlan()  # 144/m, groups of five, one dark LED between, out and back
    assert round(plan.pitch, 3) == 6.944
    assert plan.led_count() == 292  # 2 x 122 holes and 48 dark LEDs
    width, depth = plan.size()
    assert (round(width), round(depth)) == (530, 90)
    straight = StripPlan(legs=1)
    first, last = straight.hole_at(0, 1), straight.hole_at(0, 120)
    # 120 holes in 24 groups: 119 pitches and 23 dark LEDs between them
    assert abs((last.x - first.x) - (119 + 23) * 1000 / 144) < 1e-6


def test_a_plan_that_cannot_be_laid_is_refused():
    for bad in ({"per_metre": 30}, {"legs": 7}, {"group": 7}, {"skip": -1},
                {"track_spacing": 3.0}, {"holes": 100}):
        with pytest.raises(ConfigurationError):
            StripPlan(**bad)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("plan", [StripPlan(), StripPlan(legs=1), StripPlan(tracks=3, legs=1),
                                  StripPlan(per_metre=60, tracks=3, track_spacing=40)],
                         ids=["default", "straight", "3-straight", "60m-wide"])
def test_pieces_cover_the_board_with_overlap_and_marks(paper, plan):
    width, depth = plan.size()
    pieces = template.tiles(width, depth, paper)
    page_w, page_h = template.PAPERS[paper]
    for t in pieces:  # each window is on the page inside the printer's margin
        pw, ph = t.page_size()
        assert {pw, ph} == {page_w, page_h}
        assert t.w + 2 * template.PAGE_MARGIN <= pw + 1e-9
        assert t.h + 2 * template.PAGE_MARGIN + template.FOOTER <= ph + 1e-9
    cols, rows = pieces[0].cols, pieces[0].rows
    assert len(pieces) == cols * rows
    grid = {(t.row, t.col): t for t in pieces}
    assert grid[(0, 0)].x == 0 and grid[(0, 0)].y == 0
    assert grid[(0, cols - 1)].x + grid[(0, cols - 1)].w >= width
    assert grid[(rows - 1, 0)].y + grid[(rows - 1, 0)].h >= depth
    for (r, c), t in grid.items():  # neighbours overlap by OVERLAP
        if c + 1 < cols:
            assert abs(t.x + t.w - grid[(r, c + 1)].x - template.OVERLAP) < 1e-9
        if r + 1 < rows:
            assert abs(t.y + t.h - grid[(r + 1, c)].y - template.OVERLAP) < 1e-9
    marks = template.marks(pieces)
    if len(pieces) > 1:
        assert marks
    for mx, my in marks:  # every mark is printed whole on two pieces at least
        on = [t for t in pieces if t.x + template.MARK_R <= mx <= t.x + t.w - template.MARK_R
              and t.y <= my <= t.y + t.h]
        assert len(on) >= 2, (mx, my)


def _ops(page):
    from pypdf.generic import ContentStream

    return ContentStream(page.get_contents(), page.pdf).operations


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_pdf_is_the_paper_at_one_to_one(paper):
    pytest.importorskip("fpdf")
    pypdf = pytest.importorskip("pypdf")
    import io

    plan = StripPlan()
    data = template.pdf(plan, [], paper)
    reader = pypdf.PdfReader(io.BytesIO(data))
    width, depth = plan.size()
    pieces = template.tiles(width, depth, paper)
    assert len(reader.pages) == len(pieces)
    for page, piece in zip(reader.pages, pieces, strict=True):
        size = sorted((float(page.mediabox.width), float(page.mediabox.height)))
        assert size == pytest.approx(sorted(PAGES_PT[paper]), abs=0.05)
        bars = []
        for operands, op in _ops(page):
            if op == b"cm":  # nothing scales the drawing
                assert [float(v) for v in operands[:4]] == [1, 0, 0, 1]
            if op == b"re" and float(operands[2]) == pytest.approx(100 * MM, abs=0.01):
                bars.append(abs(float(operands[3])))
        assert pytest.approx(2 * MM, abs=0.01) in bars  # the 100 mm scale bar, 2 mm thick
        text = page.extract_text()
        assert f"piece {piece.name} of {piece.rows} x {piece.cols}" in " ".join(text.split())
        assert "100 mm" in text


def test_the_pdf_holes_are_where_the_svg_has_them():
    pytest.importorskip("fpdf")
    pypdf = pytest.importorskip("pypdf")
    import io

    plan = StripPlan()
    data = template.pdf(plan, [], "a4")
    page = pypdf.PdfReader(io.BytesIO(data)).pages[0]
    piece = template.tiles(*plan.size(), "a4")[0]
    page_h = float(page.mediabox.height)
    starts = []  # a circle starts at its rightmost point: (cx + r, cy)
    for operands, op in _ops(page):
        if op == b"m":
            starts.append((float(operands[0]) / MM, (page_h - float(operands[1])) / MM))
    r = 2.5
    for hole in plan.holes_mm():
        x = hole.x - piece.x + template.PAGE_MARGIN
        y = hole.y - piece.y + template.PAGE_MARGIN
        if x + r < template.PAGE_MARGIN + piece.w:
            assert any(abs(sx - (x + r)) < 0.05 and abs(sy - y) < 0.05 for sx, sy in starts), \
                hole


@pytest.mark.parametrize("variant,skunk", [(v, s) for v in RULES for s in
                                           ("skunk", "lurch", "none")])
def test_the_engines_skunk_lines_are_drawn_between_their_holes(variant, skunk):
    rules = get_rules(variant, skunk=skunk)
    named = [(k, v) for k, v in rules.lines.to_json().items() if v is not None]
    assert sorted(v for _, v in named) == sorted(rules.skunk_lines)
    plan = StripPlan()
    svg = template.svg(plan, template.lines_at(plan, named, rules.target))
    root = ET.fromstring(svg)
    drawn = [el for el in root.iter() if el.get("class") == "skunk"]
    words = [" ".join("".join(el.itertext()).split()) for el in root.iter()
             if el.tag.endswith("text")]
    assert len(drawn) == len(rules.skunk_lines)
    layout = plan.layout()
    for (name, score), el in zip(named, drawn, strict=True):
        assert f"{name.replace('_', ' ')} {score}" in words
        hole = plan.hole_at(0, layout.hole_for_score(score, rules.target))
        x = float(el.get("x1"))
        assert float(el.get("x2")) == x
        # between the hole before and the line's own hole, across every track
        assert 0 < abs(x - hole.x) <= plan.pitch * (plan.skip + 1) / 2 + 0.01
        ys = sorted((float(el.get("y1")), float(el.get("y2"))))
        for t in range(plan.tracks):
            assert ys[0] < plan.hole_at(t, hole.hole).y < ys[1]
        before = [h for h in plan.holes_mm() if h.track == 0 and h.hole == hole.hole - 1]
        if before and before[0].y == hole.y:
            assert min(before[0].x, hole.x) < x < max(before[0].x, hole.x)


def test_a_line_off_the_board_is_refused():
    with pytest.raises(ConfigurationError, match="not a score below 121"):
        template.lines_at(StripPlan(), [("skunk", 121)], 121)


def test_the_svg_is_millimetres():
    svg = template.svg(StripPlan(), [])
    root = ET.fromstring(svg)
    width, depth = StripPlan().size()
    assert root.get("width") == f"{width:g}mm"
    box = [float(v) for v in root.get("viewBox").split()]
    assert box[2] == pytest.approx(width)
    assert re.search(r"100 mm", svg)
