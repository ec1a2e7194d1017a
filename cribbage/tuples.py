"""Small helpers for the engine's immutable values (the one copy of each)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, TypeVar

T = TypeVar("T")


def set_at(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """A copy of `values` with item `i` replaced by `value`."""
    return values[:i] + (value,) + values[i + 1:]


def field(index: int, doc: str) -> Any:
    """A read-only attribute for item `index` of a tuple subclass, documented by `doc`.

    CPython's namedtuple accessor (`collections._tuplegetter`, private: a C descriptor that
    reads an item several times faster than a property); a plain property where it is missing.
    tests/cribbage/test_structure.py fails when an upgrade takes it away.
    """
    try:
        from collections import _tuplegetter  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover
        return property(itemgetter(index), doc=doc)
    return _tuplegetter(index, doc)
