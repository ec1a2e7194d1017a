"""What every CAD test module needs first: build123d, or a clear word why it is missing."""

from __future__ import annotations

import os

import pytest


def require_build123d() -> None:
    """Fail the calling test module when build123d is missing, with the command that
    installs it; skip it instead when CRIB_SKIP_CAD=1 says so."""
    try:
        import build123d  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        if os.environ.get("CRIB_SKIP_CAD") == "1":
            pytest.skip("build123d is not installed and CRIB_SKIP_CAD=1",
                        allow_module_level=True)
        pytest.fail("build123d is not installed: pip install -e '.[cad]' "
                    "(or set CRIB_SKIP_CAD=1 to skip the CAD checks)", pytrace=False)


def assert_prints_flat(name: str, part: object) -> None:
    """Assert that `part`, as it lies on the bed, rests on flat faces covering at least half
    its widest slice and bridges no downward face over air further than measure.BRIDGE_MM."""
    from build123d import GeomType

    from hardware.shuffler.cad import measure

    bed = measure.bed_faces(part)
    assert bed and all(f.geom_type == GeomType.PLANE for f in bed), name
    area = sum(f.area for f in bed)
    widest = max(measure.slice_area(part, z) for z in (0.5, 2.0, 5.0, 9.5))
    assert area >= 0.5 * widest, (name, round(area), round(widest))
    spans = {}
    for face in measure.downward_faces(part):
        span = measure.bridge_span(part, face)
        if span > measure.BRIDGE_MM:
            box = face.bounding_box()
            spans[(round(box.min.X, 1), round(box.min.Y, 1), round(box.min.Z, 1))] = round(span, 1)
    assert spans == {}, f"{name} bridges over air (mm): {spans}"
