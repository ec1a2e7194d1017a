"""The export: each printed part as STL and STEP lying as it prints, and the pictures."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from build123d import import_step, import_stl

from hardware.shuffler.cad import parts
from hardware.shuffler.cad.export import export_parts
from hardware.shuffler.cad.params import DEFAULT

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.timeout(900)


def test_a_part_exports_as_stl_and_step_that_read_back_as_the_same_solid(tmp_path):
    files = export_parts(tmp_path, names=("vane", "gate_blade"))
    assert sorted(f.name for f in files) == ["gate_blade.step", "gate_blade.stl",
                                            "vane.step", "vane.stl"]
    for name in ("vane", "gate_blade"):
        want = parts.PRINTED[name](DEFAULT).volume
        step = import_step(tmp_path / f"{name}.step")
        assert step.volume == pytest.approx(want, rel=1e-6)
        box = step.bounding_box()
        assert box.min.Z == pytest.approx(0, abs=1e-6)  # lying on the bed
        mesh = import_stl(tmp_path / f"{name}.stl")
        assert mesh.bounding_box().size.Z == pytest.approx(box.size.Z, abs=0.05)
    with pytest.raises(KeyError):
        export_parts(tmp_path, names=("teapot",))


def test_the_committed_pictures_are_svg_drawings_of_the_model():
    for name in ("shuffler-assembly.svg", "shuffler-assembly-side.svg"):
        path = ROOT / "docs" / name
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        lines = [e for e in root.iter() if e.tag.split("}")[-1] in ("line", "path")]
        assert len(lines) > 200, name
        assert path.stat().st_size < 400_000, name


@pytest.mark.slow
def test_the_command_exports_every_part_and_the_pictures(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hardware.shuffler.cad", "export",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    names = {p.name for p in tmp_path.iterdir()}
    for part in parts.PRINTED:
        assert {f"{part}.stl", f"{part}.step"} <= names
    assert {"assembly.step", "assembly.svg", "assembly-side.svg"} <= names
