"""The hands-free build's printed parts as they print: each rests on a flat face, bridges no
further than the build doc allows (the same rules and measures as the Lotus build's parts,
``test_cad_print``), and fits a 220 x 220 mm bed.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import pytest

from tests.hardware.shuffler.cad_support import assert_prints_flat, require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402


from hardware.shuffler.cad import handsfree_parts
from hardware.shuffler.cad.handsfree_params import HANDSFREE

BED = HANDSFREE.g.bed


@pytest.mark.parametrize("name", sorted(handsfree_parts.PRINTED))
def test_each_part_prints_flat_without_long_bridges_and_fits_the_bed(name):
    part = handsfree_parts.printable(name)
    box = part.bounding_box()
    assert box.min.Z == pytest.approx(0, abs=1e-6)
    assert max(box.size.X, box.size.Y) <= BED, (name, tuple(box.size))
    assert_prints_flat(name, part)


def test_every_printed_part_has_an_orientation_and_a_count():
    assert set(handsfree_parts.PRINT_ORIENTATION) == set(handsfree_parts.PRINTED)
    assert all(n in handsfree_parts.PRINTED for n in handsfree_parts.COUNTS)


def _bom() -> list[list[str]]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "shuffler-build.md").read_text()
    section = text.split("## Hands-free build: parts to add", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in ln.split("|")[1:-1]] for ln in section.splitlines()
            if ln.startswith("| ") and not ln.startswith(("| Item", "| Part")) and "---" not in ln]
    return rows


def test_the_bom_lists_every_screw_of_the_model_with_its_size_and_count_and_adds_up():
    from hardware.shuffler.cad import handsfree_fasteners

    rows = {r[0]: r for r in _bom() if not r[0].startswith("`")}
    for f in handsfree_fasteners.table(HANDSFREE):
        row = rows[f.row]
        assert f.size in row[1], (f.row, f.size)
        assert int(row[2]) == len(f.seats), f.row
    total = round(sum(float(r[3]) for r in rows.values()), 2)
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "shuffler-build.md").read_text()
    assert f"**Added: ${total:.2f}.**" in doc, total
    # four roller pairs in the model, four of each in the list
    n = len(handsfree_parts.rollers(HANDSFREE))
    assert int(rows["Roller shafts"][2]) == n and int(rows["Roller bearings"][2]) == 2 * n
    assert int(rows["Pulleys"][2]) == n and int(rows["Motor pulley"][2]) == 1


def test_the_readme_shows_the_hands_free_machine_drawn_from_its_cad():
    import xml.etree.ElementTree as ET
    from pathlib import Path

    root_dir = Path(__file__).resolve().parents[3]
    path = root_dir / "docs" / "shuffler-handsfree.svg"
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    lines = [e for e in root.iter() if e.tag.split("}")[-1] in ("line", "path")]
    assert len(lines) > 200 and path.stat().st_size < 400_000
    readme = (root_dir / "README.md").read_text()
    assert "![The hands-free shuffler, from its parametric CAD" in readme
    assert "](docs/shuffler-handsfree.svg)" in readme


def test_the_build_docs_hands_free_parts_table_is_the_model():
    rows = {r[0].strip("`"): r for r in _bom() if r[0].startswith("`")}
    assert set(rows) == set(handsfree_parts.PRINTED)
    for name, row in rows.items():
        assert int(row[1]) == handsfree_parts.COUNTS.get(name, 1), name
        b = handsfree_parts.printable(name).bounding_box()
        dims = [float(v) for v in row[3].split(" × ")]
        assert dims == pytest.approx([b.size.X, b.size.Y, b.size.Z], abs=0.06), name
