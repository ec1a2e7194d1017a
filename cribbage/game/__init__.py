"""The game machine, split by responsibility: `Game` (machine), its `Step`, the `Table` a
handler may know, the refusals, events, state and modes.

`from cribbage.game import Game`; `new, events = game.step(action)` (a typed action).
"""

from __future__ import annotations

from cribbage.counts import possible_counts
from cribbage.game.events import EVENT_KINDS, Event
from cribbage.game.machine import Game, Step
from cribbage.game.modes import MODE_OF, Mode
from cribbage.game.refusals import Refusal
from cribbage.game.state import (
    MAX_PEG,
    MODES,
    SCORE_KINDS,
    ZERO_HAND,
    Config,
    CountRecord,
    GameTally,
    HandTally,
    Pegs,
    Phase,
    ScoreRecord,
)
from cribbage.game.table import Table
from cribbage.rules import ResultKind

__all__ = [
    "EVENT_KINDS",
    "MAX_PEG",
    "MODES",
    "MODE_OF",
    "SCORE_KINDS",
    "ZERO_HAND",
    "Config",
    "CountRecord",
    "Event",
    "Game",
    "GameTally",
    "HandTally",
    "Mode",
    "Pegs",
    "Phase",
    "Refusal",
    "ResultKind",
    "ScoreRecord",
    "Step",
    "Table",
    "possible_counts",
]
