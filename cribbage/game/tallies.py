"""The match as a score sheet: each hand's points by what they were pegged for, and each
game's result, from the score records (undone actions are gone)."""

from __future__ import annotations

from collections.abc import Sequence

from cribbage.game.state import TALLY_COLUMN, Core, GameTally, HandTally


def hand_tallies(sides: int, cores: Sequence[Core]) -> tuple[HandTally, ...]:
    """Every hand of the match so far (`cores`: every state not undone, the present one
    last), in order; a hand before the first dealer is known and with nothing pegged is
    left out."""
    n = sides
    columns = ("pegging", "hand_counts", "crib", "hand_and_crib", "muggins")
    dealers: dict[tuple[int, int], int | None] = {}
    for c in cores:
        if c.dealer is not None:
            dealers[(c.game_number, c.hand_number)] = c.dealer
    sheets: dict[tuple[int, int], dict[str, list[int]]] = {}
    for r in cores[-1].records:
        dealers.setdefault((r.game, r.hand), None)
        sheet = sheets.setdefault((r.game, r.hand), {k: [0] * n for k in columns})
        sheet[TALLY_COLUMN[r.kind]][r.side] += r.points
    out: list[HandTally] = []
    totals: dict[int, list[int]] = {}
    for game, hand in sorted(dealers):
        sheet = sheets.get((game, hand)) or {k: [0] * n for k in columns}
        running = totals.setdefault(game, [0] * n)
        for column in columns:
            running[:] = [a + b for a, b in zip(running, sheet[column], strict=True)]
        out.append(HandTally(game, hand, dealers[(game, hand)], tuple(sheet["pegging"]),
                             tuple(sheet["hand_counts"]), tuple(sheet["crib"]),
                             tuple(sheet["hand_and_crib"]), tuple(sheet["muggins"]),
                             tuple(running)))
    return tuple(out)


def game_tallies(cores: Sequence[Core]) -> tuple[GameTally, ...]:
    """Every game of the match so far (the last one may still be going on), in order."""
    last: dict[int, Core] = {}
    first_dealer: dict[int, int] = {}
    for c in cores:
        last[c.game_number] = c
        if c.dealer is not None:
            first_dealer.setdefault(c.game_number, c.dealer)
    return tuple(GameTally(g, first_dealer.get(g), c.result,
                           c.result.scores if c.result is not None else c.fronts,
                           c.hand_number) for g, c in sorted(last.items()))


__all__ = ["game_tallies", "hand_tallies"]
