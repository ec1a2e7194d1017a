"""Every fastener as a solid: the table against the build doc's Hardware rows, each screw's
length against the parts it joins (measured on the solids), and no head in the card's way.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler.cad import fasteners, parts
from hardware.shuffler.cad.assembly import assembly
from hardware.shuffler.cad.fasteners import HEADS, MIN_ENGAGEMENT, NUT, PILOT, WASHER
from hardware.shuffler.cad.measure import material_runs, overlaps
from hardware.shuffler.cad.params import DEFAULT

ROOT = Path(__file__).resolve().parents[3]
PITCH = {2.0: 0.4, 2.5: 0.45, 3.0: 0.5}
TABLE = fasteners.table(DEFAULT)


@pytest.fixture(scope="module")
def model():
    return assembly(DEFAULT)


def _hardware_rows() -> dict[str, tuple[str, int]]:
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    section = text.split("## Hardware", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and "screw" in cells[0].lower():
            rows[cells[0]] = (cells[1], int(cells[2]))
    return rows


def test_the_build_docs_screws_are_the_fastener_table():
    rows = _hardware_rows()
    assert set(rows) == {f.row for f in TABLE}
    for f in TABLE:
        text, qty = rows[f.row]
        assert qty == len(f.seats), f.row
        size = re.search(r"M(\d+(?:\.\d+)?) × (\d+)", text)
        assert size, f.row
        assert (float(size[1]), float(size[2])) == (f.d, f.length), f.row
        assert ("countersunk" in text) == (f.kind == "countersunk"), f.row
        assert ("pan head" in text) == (f.kind == "pan"), f.row
        assert ("nut" in text) == (f.thread_in is None), f.row


def test_the_heads_are_their_standards_sizes(model):
    pan = model["Lid screws #1"].bounding_box()  # head up, shank down
    assert pan.size.X == pytest.approx(HEADS[("pan", 3.0)][0])
    assert pan.max.Z - DEFAULT.base_top == pytest.approx(HEADS[("pan", 3.0)][1])
    csk = model["Clamp screws #2"]
    box = csk.bounding_box()
    assert box.size.X == pytest.approx(6.0)
    # The countersunk head sits under the land the card rides on, never above it.
    assert box.max.Z == pytest.approx(DEFAULT.land_z - fasteners.COUNTERSINK_DEPTH)
    nut = model["Gate screws #1 nut"].bounding_box()
    assert nut.size.X == pytest.approx(NUT[3.0][1])  # along the screw's axis
    assert min(nut.size.Y, nut.size.Z) == pytest.approx(NUT[3.0][0])


def _runs(part, f: fasteners.Fastener, seat, offset: float) -> list[tuple[float, float]]:
    """Material of ``part`` along rays parallel to the axis, ``offset`` off it (outside the
    screw's hole), as distances from the seat; the union over four sides."""
    ax = f.axis
    sides = [s for s in ((1, 0, 0), (0, 1, 0), (0, 0, 1)) if abs(sum(
        a * b for a, b in zip(s, ax, strict=True))) < 0.5]
    rays = [tuple(seat[i] + sign * offset * side[i] - 40 * ax[i] for i in range(3))
            for side in sides for sign in (-1, 1)]
    spans: list[tuple[float, float]] = []
    for origin in rays:
        spans += [(a - 40, b - 40) for a, b in material_runs(part, origin, ax)]
    return spans


@pytest.mark.parametrize("f", TABLE, ids=lambda f: f.row)
def test_each_screws_length_fits_the_parts_it_joins(model, f):
    for seat in f.seats:
        # The clamped parts lie tight against each other from the seat on.
        at = 0.0
        for name in f.clamps:
            spans = [s for s in _runs(model[name], f, seat, f.d / 2 + 0.8)
                     if s[1] > at + 0.05 and s[0] < at + 1.0]
            assert spans, (f.row, name, seat)
            at = max(b for _a, b in spans)
        if f.thread_in is None:
            # Through the parts, a nut, and at least one thread past it.
            assert at == pytest.approx(f.grip, abs=1e-3), f.row
            past = f.tip - f.grip - NUT[f.d][1]
            assert PITCH[f.d] <= past <= 3 * PITCH[f.d] + 1.5, (f.row, past)
            continue
        spans = [s for s in _runs(model[f.thread_in], f, seat, PILOT[f.d] / 2 + 0.25)
                 if s[1] > at + 0.05]
        start = min(a for a, _b in spans)
        end = max(b for a, b in spans if a < start + 0.05)
        assert start == pytest.approx(at, abs=0.05), (f.row, "a gap between the parts")
        engaged = min(f.tip, end) - start
        assert engaged >= MIN_ENGAGEMENT * f.d, (f.row, round(engaged, 2))
        # Thread-forming: the screw must not bottom out in a blind hole before it clamps.
        assert f.tip > at


def test_no_fastener_meets_a_part_or_another_fastener(model):
    shared = overlaps(model)
    pairs = {k: round(v, 4) for k, v in shared.items() if v > 1e-4
             and any(" #" in n for n in k)}
    assert pairs == {}
    # The overlap check did look at them: every screw meets the parts it joins (touching).
    for f in TABLE:
        for n in range(len(f.seats)):
            assert any(f"{f.row} #{n + 1}" in k for k in shared), f.row


def test_nothing_stands_on_the_tray_floor_or_the_land():
    # Every screw through the tray floor is countersunk: its head's top is under the surface.
    for f in TABLE:
        if "tray" in f.clamps and f.axis == (0, 0, -1):
            assert f.kind == "countersunk", f.row
            for x, _y, z in f.seats:
                surface = DEFAULT.support_z(x) if x > 0 else DEFAULT.tray_floor_z
                assert z < surface, (f.row, x)


def test_the_washers_and_nuts_are_on_the_screws_that_take_nuts():
    for f in TABLE:
        assert (f.washer > 0) == (f.thread_in is None)
        if f.thread_in is None:
            assert f.washer == WASHER[f.d][1]
    assert {f.row for f in TABLE if f.thread_in is None} == {"Gate screws", "Router screws"}
    assert len(parts.gate_screw_points(DEFAULT)) == 2
