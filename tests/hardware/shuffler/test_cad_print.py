"""Each printed part as exported (lying as it prints): it rests on a flat face, and nothing
hangs over air further than the build doc allows.

The rules, stated in docs/shuffler-build.md ("Printed parts"): no part needs supports; a
face that faces down within 45 degrees of straight down prints only as a bridge, and no
point of it may lie more than 5 mm from an edge the layers below carry (a bridge of at most
10 mm, a ledge of at most 5 mm); a round hole across the layers bridges its chord where it is
steeper than 45 degrees. Each part rests on planar faces on the bed whose area is at least
half of its largest cross-section in the first 10 mm: a part on bosses or pins fails.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardware.shuffler.cad_support import assert_prints_flat, require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402


from hardware.shuffler import design
from hardware.shuffler.cad import measure, parts
from hardware.shuffler.cad.measure import BRIDGE_MM, OVERHANG_DEG
from hardware.shuffler.cad.params import DEFAULT

ROOT = Path(__file__).resolve().parents[3]
BRIDGE = DEFAULT.with_(card_width=design.BRIDGE_WIDTH_MM)


def _on_bed(name: str):
    built = parts.width_shims(BRIDGE) if name == "width_shims" else None
    return parts.printable(name, DEFAULT, built)


def _doc_rules() -> str:
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    return " ".join(text.split("## Printed parts", 1)[1].split("\n## ", 1)[0].split())


def test_the_build_doc_states_the_rules_the_test_applies():
    rules = _doc_rules()
    assert f"bridge of at most {BRIDGE_MM:g} mm" in rules
    assert f"{OVERHANG_DEG:g}°" in rules
    assert "No part needs supports" in rules
    # Natural PETG carries the beams' infrared round a card: the router is printed opaque.
    router = next(ln for ln in _doc_rules().split("| `")[1:] if ln.startswith("router`"))
    assert "black or opaque PETG" in router


@pytest.mark.parametrize("name", sorted(parts.PRINTED))
def test_each_part_rests_on_a_flat_face_and_bridges_no_further_than_allowed(name):
    part = _on_bed(name)
    assert part.bounding_box().min.Z == pytest.approx(0, abs=1e-6)
    assert_prints_flat(name, part)


def test_a_part_on_bosses_or_with_a_long_bridge_fails_the_rules():
    """The checks catch what the old router and servo mount did."""
    from hardware.shuffler.cad.measure import laid_flat

    # A plate standing on two 7 mm bosses, 5 mm above the bed.
    plate = parts._box(0, 100, 0, 60, 5, 7.4)
    for x in (20, 80):
        plate += parts._z_cylinder(x, 30, 7.0, 0, 5)
    flat = laid_flat(plate, 0, 0)
    area = sum(f.area for f in measure.bed_faces(flat))
    assert area < 0.5 * measure.slice_area(flat, 6.0)
    # A plate on two legs, bridged 34 mm.
    table = parts._box(0, 4, 0, 20, 0, 10) + parts._box(38, 42, 0, 20, 0, 10)
    table += parts._box(0, 42, 0, 20, 10, 12.4)
    spans = [measure.bridge_span(table, f) for f in measure.downward_faces(table)]
    assert 34 <= max(spans) <= 36  # the raster reads up to two of its steps long
