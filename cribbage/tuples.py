"""Small helpers for the engine's immutable values (the one copy of each)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def set_at(values: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """A copy of `values` with item `i` replaced by `value`."""
    return values[:i] + (value,) + values[i + 1:]
