"""The installed package's version (the API's and the health answer's)."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The installed package's version."""
    try:
        return metadata.version("cribbage-table")
    except metadata.PackageNotFoundError:
        return "0+unknown"
