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
