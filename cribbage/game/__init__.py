"""The game machine: one game of cribbage and the match after it (see `cribbage.game.machine`)."""

from __future__ import annotations

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
    possible_counts,
)

__all__ = [
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
    "possible_counts",
]
