"""The game machine: one game of cribbage and the match after it (see `cribbage.game.machine`)."""

from __future__ import annotations

from cribbage.game.events import EVENT_KINDS, Event
from cribbage.game.machine import (
    MAX_PEG,
    MODES,
    SCORE_KINDS,
    ZERO_HAND,
    Config,
    CountRecord,
    Game,
    GameTally,
    HandTally,
    Pegs,
    Phase,
    ResultKind,
    ScoreRecord,
    Step,
    possible_counts,
)

__all__ = [
    "EVENT_KINDS",
    "Event",
    "MAX_PEG",
    "MODES",
    "SCORE_KINDS",
    "ZERO_HAND",
    "Config",
    "CountRecord",
    "Game",
    "GameTally",
    "HandTally",
    "Pegs",
    "Phase",
    "ResultKind",
    "ScoreRecord",
    "Step",
    "possible_counts",
]
