"""Results and per-player statistics of a finished game: from the step's game-over event
(the row, written with the action that made it) and the engine's score records."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cribbage.rules import ResultKind
from firmware_host.bus import ActionCommitted, EventBus

if TYPE_CHECKING:
    from cribbage.game import Game
    from cribbage.game.events import Event, GameWon

log = logging.getLogger("crib.game")

# What counts as pegging in the statistics: the play, his heels, and a late peg in the show.
PEGGING_KINDS = frozenset({"pegging", "heels", "late"})


@dataclass(frozen=True, slots=True)
class ResultChange:
    """What an accepted action does to the results table: a row to write, or rows to drop."""

    row: tuple[int, dict[str, Any], list[dict[str, Any]]] | None = None
    drop_from: int | None = None  # the game of the match whose results an undo took back


def player_figures(game: Game) -> list[dict[str, Any]]:
    """Per-player figures of the current game of a match, from its score records."""
    result = game.result
    records = game.game_records()
    pegs = game.pegs
    out = []
    for side_index, members in enumerate(game.sides):
        pegging = sum(r.points for r in records
                      if r.side == side_index and r.kind in PEGGING_KINDS)
        for player in members:
            out.append({
                "name": game.names[player],
                "player": player,
                "side": side_index,
                "won": result is not None and result.winner == side_index,
                "skunk": result is not None and result.kind is not ResultKind.WIN,
                "score": pegs[side_index].front,
                "hands": [r.points for r in records if r.player == player and r.kind == "hand"],
                "cribs": [r.points for r in records if r.player == player and r.kind == "crib"],
                "pegging": pegging,
                "hands_played": game.hand_number,
            })
    return out


def result_change(after: Game, events: tuple[Event, ...]) -> ResultChange:
    """The results-table change of one step, from its events: a game won writes its row (a
    redo that wins it again, too); an undo that takes a game won back drops the rows from
    that game of the match on."""
    from cribbage.game.events import GameWon, Redone, Undone

    for event in events:
        won = event if isinstance(event, GameWon) else (
            _won(event.events) if isinstance(event, Redone | Undone) else None)
        if won is None:
            continue
        if isinstance(event, Undone):
            return ResultChange(drop_from=won.game)
        return ResultChange(row=(won.game, won.result.to_json(), player_figures(after)))
    return ResultChange()


def _won(events: tuple[Event, ...]) -> GameWon | None:
    """The game-over event among these, if any."""
    from cribbage.game.events import GameWon

    return next((e for e in events if isinstance(e, GameWon)), None)


class ResultsLog:
    """Says each game won in the journal, from the game-over event of a committed step."""

    def __init__(self, bus: EventBus) -> None:
        bus.register_event_handler(ActionCommitted, self._committed)

    def start(self) -> None:
        """Nothing to open."""

    def stop(self) -> None:
        """Nothing to close."""

    def _committed(self, event: ActionCommitted) -> None:
        if _won(event.events) is not None:
            log_result(event.entry.id, event.entry.game)


def log_result(game_id: int, game: Game) -> None:
    """One line for the journal when a game ends."""
    r = game.result
    if r is None:
        return
    names = [game.side_name(i) for i in range(len(game.sides))]
    loser = names[r.loser] if len(names) > 1 else "-"
    log.info("game %d result: %s beats %s (%s) %s", game_id, names[r.winner], loser,
             r.kind.value, "-".join(str(s) for s in r.scores))
