"""Pegging points: the record, the event, and the end of the game the moment a side reaches
the target (the front peg stops in the game hole)."""

from __future__ import annotations

from dataclasses import replace

from cribbage.game.events import Caught, Event, GameWon, Parts, Scored
from cribbage.game.state import HAND_AND_CRIB, Core, Phase, ScoreRecord
from cribbage.game.table import Table
from cribbage.rules import Result


def score(table: Table, c: Core, side: int, points: int, kind: str, player: int | None,
          out: list[Event], parts: Parts = (), say: str = "") -> Core:
    """Peg points to a side and record them; the game ends the moment a side reaches the
    target, with the front peg in the game hole (a board has no hole past it)."""
    if points <= 0:
        if kind in ("hand", "crib", HAND_AND_CRIB):
            rec = ScoreRecord(c.game_number, c.hand_number, side, player, kind, 0)
            c = replace(c, records=c.records + (rec,))
        return c
    target = table.config.target
    front = min(c.fronts[side] + points, target)
    rec = ScoreRecord(c.game_number, c.hand_number, side, player, kind,
                      front - c.fronts[side])
    fronts, backs = list(c.fronts), list(c.backs)
    fronts[side], backs[side] = front, c.fronts[side]
    c = replace(c, fronts=tuple(fronts), backs=tuple(backs), records=c.records + (rec,))
    if rec.points < points:
        say += f" (to the game hole, {rec.points} of {points})"
    out.append(Scored(side, player, rec.points, kind, parts, front, c.backs[side],
                      c.game_number, c.hand_number, say + "."))
    if front >= target:
        result = table.rules.result(c.fronts)
        assert result is not None
        out.append(game_won(table, c, result))
        c = replace(
            c, phase=Phase.OVER, result=result,
            games_won=_added(c.games_won, result.winner, 1),
            match_points=_added(c.match_points, result.winner, result.game_points),
        )
    return c


def _added(values: tuple[int, ...], i: int, more: int) -> tuple[int, ...]:
    return tuple(v + more if k == i else v for k, v in enumerate(values))


def game_won(table: Table, c: Core, result: Result) -> GameWon:
    """The game-over event: the result in words, and each losing side under a line."""
    lines = table.rules.lines
    named = tuple((n, v) for n, v in (("skunk", lines.skunk),
                                      ("double_skunk", lines.double_skunk),
                                      ("lurch", lines.lurch)) if v is not None)
    caught = []
    for side, score in enumerate(c.fronts):
        if side == result.winner:
            continue
        under = [(n, v) for n, v in named if score < v]
        if under:
            n, v = min(under, key=lambda x: x[1])  # the deepest line the side is under
            caught.append(Caught(side, table.side_name(side), n, v))
    winner = table.side_name(result.winner)
    others = " and ".join(str(s) for i, s in enumerate(c.fronts) if i != result.winner)
    verb = "win" if len(table.sides[result.winner]) > 1 else "wins"
    say = f"{winner} {verb} {c.fronts[result.winner]} to {others}"
    words = {"skunk": "skunked", "double_skunk": "double skunked", "lurch": "lurched"}
    if caught and len(table.sides) > 2:
        say += ": " + ", ".join(f"{x.name} is {words[x.line]} (under {x.under})"
                                for x in caught)
    elif caught:
        say += {"skunk": ", a skunk", "double_skunk": ", a double skunk",
                "lurch": ", lurched"}[caught[0].line]
    if result.game_points > 1:
        say += f" ({result.game_points} games)"
    return GameWon(c.game_number, result, winner, named, tuple(caught), say + ".")


__all__ = ["game_won", "score"]
