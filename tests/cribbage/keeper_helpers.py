"""Helpers for the scorekeeper's tests: actions written short, applied in turn."""

from __future__ import annotations

from typing import Any

from cribbage.actions import parse_action
from cribbage.game import Game


def act(k: Game, *actions: dict[str, Any]) -> Game:
    """`k` after each action in turn; the engine's error for the first it refuses."""
    for action in actions:
        k = k.apply(parse_action(action))
    return k


def peg(side: int, points: int) -> dict[str, Any]:
    """The action of pegging `points` for `side`."""
    return {"type": "peg", "side": side, "points": points}


def count(points: int) -> dict[str, Any]:
    """The action of counting `points` for the hand (or crib) now counted."""
    return {"type": "count", "points": points}
