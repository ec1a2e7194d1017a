"""Helpers for the tests that draw requests from the daemon's published OpenAPI schema."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings

from tests.firmware_host.conftest import ThreadServer

BOUNDED = settings(derandomize=True, deadline=None, database=None,
                   suppress_health_check=list(HealthCheck))
"""The same cases every run, however long a request takes: `@settings(BOUNDED, max_examples=N)`."""


def published_schema(server: ThreadServer) -> Any:
    """The daemon's OpenAPI schema, read by schemathesis from its /openapi.json."""
    import schemathesis  # only the tests that draw from the schema pay for its import

    return schemathesis.openapi.from_url(f"http://127.0.0.1:{server.port}/openapi.json")


def integral_floats(value: Any) -> bool:
    """Whether a body holds a float like 1.0: JSON Schema counts it an integer, but bodies
    are strict on purpose (no quiet coercion, test_api_audit), so it is refused with a 422."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(integral_floats(v) for v in value.values())
    if isinstance(value, list):
        return any(integral_floats(v) for v in value)
    return False
