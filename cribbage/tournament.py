"""A club night's rules: game points, spread, the standings' order, and the seating.

As clubs play them (the American Cribbage Congress's grass-roots evenings): a loss scores 0
game points, a win 2, a win by a skunk 3 (a double skunk or a lurch counts as a skunk: 3).
The spread of a game is the winner's margin: + for the winner, - for the loser. Standings
order by game points, then games won, then spread (each club may choose its breaks, "skunks"
among them); players the breaks cannot part share a place ("1, 2, 2, 4").

The seating lives in `cribbage.seating` (no pairing again while any seating avoids it, short
moves, fair byes), the ACC playoffs in `cribbage.knockout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

KINDS = ("win", "skunk", "double_skunk", "lurch")
TIEBREAKS = ("game_points", "won", "spread", "skunks")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One counted game between two players."""

    round: int
    table: str
    winner: str
    loser: str
    winner_score: int
    loser_score: int
    kind: str  # "win" | "skunk" | "double_skunk" | "lurch"


@dataclass(frozen=True, slots=True)
class Bye:
    """A player who sat out a round."""

    round: int
    player: str


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line of the standings."""

    place: int
    name: str
    game_points: int
    won: int
    lost: int
    skunks: int  # games won by a skunk (or more)
    spread: int
    played: int


def game_points(kind: str, won: bool) -> int:
    """Game points of one game for a player who won it or lost it; raises ValueError for a
    kind that is not win, skunk, double_skunk or lurch."""
    if kind not in KINDS:
        raise ValueError(f"game kind {kind!r}: expected one of {', '.join(KINDS)}")
    if not won:
        return 0
    return 2 if kind == "win" else 3


def standings(players: Sequence[str], games: Sequence[GameRecord], byes: Sequence[Bye] = (),
              *, bye_points: int = 2, bye_spread: int = 0,
              tiebreaks: Sequence[str] = ("game_points", "won", "spread")) -> list[Standing]:
    """The standings of `players` after `games` and `byes`, best first.

    A bye scores `bye_points` game points and `bye_spread` spread, and counts as a game
    played and won (the director sets both; clubs differ). Players the breaks cannot part
    share a place and are listed by name. Raises ValueError for a name in a game or bye that
    is not a player, a bad kind, a bad tiebreak, or a player named twice.
    """
    _check_players(players)
    bad = [t for t in tiebreaks if t not in TIEBREAKS]
    if bad:
        raise ValueError(f"tiebreak {bad[0]!r}: expected some of {', '.join(TIEBREAKS)}")
    known = set(players)
    acc = {name: {"game_points": 0, "won": 0, "lost": 0, "skunks": 0, "spread": 0, "played": 0}
           for name in players}
    for g in games:
        for name in (g.winner, g.loser):
            if name not in known:
                raise ValueError(f"game at table {g.table} round {g.round}: {name!r} is not "
                                 "a registered player")
        if g.winner == g.loser:
            raise ValueError(f"game at table {g.table} round {g.round}: {g.winner!r} "
                             "cannot play themselves")
        margin = g.winner_score - g.loser_score
        w, lo = acc[g.winner], acc[g.loser]
        w["game_points"] += game_points(g.kind, True)
        lo["game_points"] += game_points(g.kind, False)
        w["won"] += 1
        lo["lost"] += 1
        w["skunks"] += g.kind != "win"
        w["spread"] += margin
        lo["spread"] -= margin
        w["played"] += 1
        lo["played"] += 1
    for b in byes:
        if b.player not in known:
            raise ValueError(f"bye in round {b.round}: {b.player!r} is not a registered player")
        a = acc[b.player]
        a["game_points"] += bye_points
        a["spread"] += bye_spread
        a["won"] += 1
        a["played"] += 1

    def key(name: str) -> tuple[int, ...]:
        return tuple(-acc[name][t] for t in tiebreaks)

    ordered = sorted(players, key=lambda n: (key(n), n))
    out: list[Standing] = []
    for i, name in enumerate(ordered):
        place = out[-1].place if out and key(ordered[i - 1]) == key(name) else i + 1
        out.append(Standing(place=place, name=name, **acc[name]))
    return out


def _check_players(players: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in players:
        if name in seen:
            raise ValueError(f"player {name!r} is registered twice")
        seen.add(name)
