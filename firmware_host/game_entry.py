"""A game in memory, as the games component keeps it and the dispatcher's events carry it.

Its own module so that the events (`firmware_host.bus`) name it without importing the
component that sends them.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cribbage.game import Game

Answer = dict[str, Any]
"""An action's answer: {"game", "op_id", "events"}."""


@dataclass
class GameEntry:
    """A game in memory: its engine state (the fold of its log) and its JSON view."""

    id: int
    params: dict[str, Any]
    keeper: Game
    version: int = 0
    view: dict[str, Any] = field(default_factory=dict)  # keeper.view(), for JSON only
    # Answers of actions whose commit is under way, by op id (removed once on disk).
    ops: dict[str, tuple[Answer, Future[None]]] = field(default_factory=dict)
    # Op ids of the actions on disk: only a repeated one needs a look in the store.
    logged: set[str] = field(default_factory=set)
    # Each side's score after every accepted action (the race), built step by step.
    race: list[dict[str, Any]] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {**self.view, "id": self.id, "version": self.version}


__all__ = ["Answer", "GameEntry"]
