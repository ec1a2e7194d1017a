"""The board's body: the top has the template's holes over the LEDs, the base a channel under
every row of the strip."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("build123d")
from build123d import Vector  # noqa: E402

from hardware.board.cad.body import Body, base, row_extent, top  # noqa: E402
from hardware.board.layout import StripPlan  # noqa: E402

PLAN = StripPlan(tracks=2, holes=60, legs=2)  # a small board keeps the booleans quick
BODY = Body()


@pytest.fixture(scope="module")
def the_top():
    return top(PLAN, BODY)


@pytest.fixture(scope="module")
def the_base():
    return base(PLAN, BODY)


def test_the_top_has_every_hole_and_only_those(the_top):
    width, depth = PLAN.size()
    holes = PLAN.holes_mm()
    assert len(holes) == PLAN.tracks * (PLAN.holes + 2)
    plate = width * depth * BODY.top
    drilled = len(holes) * math.pi * (BODY.drill / 2) ** 2 * BODY.top
    assert the_top.volume == pytest.approx(plate - drilled, rel=1e-4)
    bb = the_top.bounding_box()
    assert (bb.size.X, bb.size.Y, bb.size.Z) == pytest.approx((width, depth, BODY.top))
    mid = -BODY.top / 2
    for h in holes:  # open at the centre, wood half a pitch along the row (between holes)
        assert not the_top.is_inside(Vector(h.x, h.y, mid)), h
        assert the_top.is_inside(Vector(h.x, h.y + BODY.drill / 2 + 0.5, mid)), h


def test_the_base_has_a_channel_under_every_led(the_base):
    z = -BODY.top - BODY.channel_depth / 2
    for s in PLAN.segments():
        for i in range(s.count):
            x = s.x + i * PLAN.pitch * s.step
            assert not the_base.is_inside(Vector(x, s.y, z)), (s.row, i)
        # open across the widest strip and its clearance, centred under the row
        x = s.x + (s.count // 2) * PLAN.pitch * s.step
        for dy in (-BODY.channel_width / 2 + 0.05, BODY.channel_width / 2 - 0.05):
            assert not the_base.is_inside(Vector(x, s.y + dy, z)), (s.row, dy)
        x0, x1 = row_extent(PLAN, s.row, BODY)
        assert x1 - x0 >= (s.count - 1) * PLAN.pitch + 2 * BODY.channel_end - 1e-6
    # under the channel the base is solid: nothing to fall through
    s = PLAN.segments()[0]
    assert the_base.is_inside(Vector(s.x, s.y, -BODY.top - BODY.channel_depth - 1))


def test_every_hole_is_over_the_base_channel(the_base):
    z = -BODY.top - 0.5  # just under the top
    for h in PLAN.holes_mm():
        assert not the_base.is_inside(Vector(h.x, h.y, z)), h


def test_the_command_refuses_a_bad_map_file(tmp_path, capsys):
    from hardware.board.cad.__main__ import main

    (tmp_path / "m.json").write_text("{}")
    assert main([str(tmp_path / "out"), "--map", str(tmp_path / "m.json")]) == 2
    assert "not a file of crib board map" in capsys.readouterr().err


def test_a_12_mm_strip_fits_its_channel_and_close_rows_share_one_trough(the_base):
    """144/m strips are 10-12 mm wide: each row's channel takes 12 mm and 0.5 mm each side.
    The default rows, 12 mm apart, leave no wall between two 13 mm channels: they share
    one trough; the legs' blocks of rows, further apart, keep a wall between them."""
    assert BODY.strip_width >= 12.0
    assert BODY.channel_width >= BODY.strip_width + 2 * 0.5
    z = -BODY.top - BODY.channel_depth / 2
    segs = PLAN.segments()
    for a, b in zip(segs, segs[1:], strict=False):
        y = (a.y + b.y) / 2
        (a0, a1), (b0, b1) = row_extent(PLAN, a.row, BODY), row_extent(PLAN, b.row, BODY)
        x = (max(a0, b0) + min(a1, b1)) / 2  # mid-row, away from the jumpers' notches
        wall = abs(b.y - a.y) - BODY.channel_width
        if wall < BODY.min_wall:
            assert not the_base.is_inside(Vector(x, y, z)), (a.row, b.row)  # one trough
        else:
            assert the_base.is_inside(Vector(x, y, z)), (a.row, b.row)  # a wall between
    # Both kinds occur on the default board: rows in a leg 12 mm apart, legs 24 mm more.
    gaps = {round(abs(b.y - a.y), 3) for a, b in zip(segs, segs[1:], strict=False)}
    assert any(g - BODY.channel_width < BODY.min_wall for g in gaps)
    assert any(g - BODY.channel_width >= BODY.min_wall for g in gaps)
