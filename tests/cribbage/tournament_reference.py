"""An independent computation of a tournament, for the tests: its own sums, its own sort,
the bracket drawn from published seed lines and played by hand-written rules. Nothing here
calls the engine's rules."""

from __future__ import annotations

from collections.abc import Sequence

from cribbage.tournament import GameRecord

# Published bracket lines, top line down (seeds 1 and 2 on opposite halves).
SEED_LINES = {
    2: [1, 2],
    4: [1, 4, 2, 3],
    8: [1, 8, 4, 5, 2, 7, 3, 6],
    16: [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11],
}


def independent_standings(players: Sequence[str], games: Sequence[GameRecord],
                          byes: Sequence[str] = (), bye_points: int = 2
                          ) -> list[tuple[str, int, int, int]]:
    """(name, game points, won, spread), best first: 2 a win, 3 when the loser is under
    91 (a skunk or more, in a game to 121); a bye is a win worth `bye_points`."""
    gp = dict.fromkeys(players, 0)
    won = dict.fromkeys(players, 0)
    spread = dict.fromkeys(players, 0)
    for g in games:
        gp[g.winner] += 3 if g.loser_score < 91 else 2
        won[g.winner] += 1
        spread[g.winner] += g.winner_score - g.loser_score
        spread[g.loser] -= g.winner_score - g.loser_score
    for name in byes:
        gp[name] += bye_points
        won[name] += 1
    rows = [(p, gp[p], won[p], spread[p]) for p in players]
    return sorted(rows, key=lambda r: (-r[1], -r[2], -r[3], r[0]))


def independent_bracket(seeds: Sequence[str], games: Sequence[GameRecord]
                        ) -> list[list[str | None]]:
    """The winners of each round (None: not played yet), byes to the top seeds."""
    size = next(s for s in sorted(SEED_LINES) if s >= len(seeds))
    line: list[str | None] = [seeds[s - 1] if s <= len(seeds) else None
                              for s in SEED_LINES[size]]
    played = {frozenset((g.winner, g.loser)): g.winner for g in games}
    rounds = []
    first = True
    while len(line) > 1:
        nxt: list[str | None] = []
        for a, b in zip(line[::2], line[1::2], strict=True):
            if first and (a is None or b is None):
                nxt.append(a or b)
            elif a is None or b is None:
                nxt.append(None)
            else:
                nxt.append(played.get(frozenset((a, b))))
        rounds.append(nxt)
        line = nxt
        first = False
    return rounds
