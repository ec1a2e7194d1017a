"""Results and per-player statistics of a finished game, from the engine's score records."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cribbage.rules import ResultKind

if TYPE_CHECKING:
    from cribbage.game import Game

log = logging.getLogger("crib.game")

# What counts as pegging in the statistics: the play, his heels, and a late peg in the show.
PEGGING_KINDS = frozenset({"pegging", "heels", "late"})


@dataclass(frozen=True, slots=True)
class ResultChange:
    """What an accepted action does to the results table: a row to write, or rows to drop."""

    row: tuple[int, dict[str, Any], list[dict[str, Any]]] | None = None
    drop_from: int | None = None  # the game of the match whose results an undo took back


def player_figures(keeper: Game) -> list[dict[str, Any]]:
    """Per-player figures of the keeper's current game, from its score records."""
    result = keeper.result
    records = keeper.game_records()
    pegs = keeper.pegs
    out = []
    for side_index, members in enumerate(keeper.sides):
        pegging = sum(r.points for r in records
                      if r.side == side_index and r.kind in PEGGING_KINDS)
        for player in members:
            out.append({
                "name": keeper.names[player],
                "player": player,
                "side": side_index,
                "won": result is not None and result.winner == side_index,
                "skunk": result is not None and result.kind is not ResultKind.WIN,
                "score": pegs[side_index].front,
                "hands": [r.points for r in records if r.player == player and r.kind == "hand"],
                "cribs": [r.points for r in records if r.player == player and r.kind == "crib"],
                "pegging": pegging,
                "hands_played": keeper.hand_number,
            })
    return out


def result_change(before: Game, after: Game, action_type: str) -> ResultChange:
    """The results-table change of going from `before` to `after` by an action of this type."""
    if after.result is not None and after.result != before.result:
        return ResultChange(row=(after.game_number, after.result.to_json(),
                                 player_figures(after)))
    if before.result is not None and after.result is None and action_type != "next_game":
        return ResultChange(drop_from=after.game_number)
    return ResultChange()


def log_result(game_id: int, keeper: Game) -> None:
    """One line for the journal when a game ends."""
    r = keeper.result
    if r is None:
        return
    names = [keeper.side_name(i) for i in range(len(keeper.sides))]
    loser = names[r.loser] if len(names) > 1 else "-"
    log.info("game %d result: %s beats %s (%s) %s", game_id, names[r.winner], loser,
             r.kind.value, "-".join(str(s) for s in r.scores))
