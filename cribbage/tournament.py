"""A club night's rules: game points, spread, the standings' order, and the seating.

As clubs play them (the American Cribbage Congress's grass-roots evenings): a loss scores 0
game points, a win 2, a win by a skunk 3 (a double skunk or a lurch counts as a skunk: 3).
The spread of a game is the winner's margin: + for the winner, - for the loser. Standings
order by game points, then games won, then spread (each club may choose its breaks, "skunks"
among them); players the breaks cannot part share a place ("1, 2, 2, 4").

Seating: players sit in two rows in registration order: the first half stays, the second
half (the moving side) moves one table each round, so that each meets the other row in turn.
An odd count adds an empty seat, and is seated by the circle (everyone but the first player
moves one seat a round) so that the bye passes to each player in turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

KINDS = ("win", "skunk", "double_skunk", "lurch")
TIEBREAKS = ("game_points", "won", "spread", "skunks")
BYE = None  # the empty seat of an odd count


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


@dataclass(frozen=True, slots=True)
class Round:
    """One round's seating: table i seats `pairs[i]`; `byes` sit out; `repeats`: every pair
    of this round already met in an earlier one (the scheme has run out of new opponents)."""

    round: int
    pairs: tuple[tuple[str, str], ...]
    byes: tuple[str, ...]
    repeats: bool


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


def seating(players: Sequence[str], round: int, *, tables: int | None = None,
            method: str = "moving") -> Round:
    """The seating of round `round` (1 first) for `players` in registration order.

    `method="moving"` (the default): the first half stays at tables 1..n, the second half
    moves one table each round, so staying[i] meets moving[(i + round - 1) % n]; after n
    rounds the pairings repeat (`repeats`): a club with fewer than twice as many players as
    rounds meets opponents again. `method="circle"`: the round-robin circle (the first player
    stays, everyone else moves one seat), where everyone meets everyone once in (players - 1)
    rounds (one more for an odd count). An odd count adds an empty seat and is always seated
    by the circle: its bye passes to each player in turn, nobody has a second bye before
    everyone had one (two rows would leave the bye on one row). `tables` caps the
    tables used: the pairs past the last table sit out as byes that round.

    Raises ValueError for fewer than two players, a name twice, a round below 1, a cap
    below 1 or an unknown method.
    """
    _check_players(players)
    if len(players) < 2:
        raise ValueError(f"{len(players)} player(s): a round needs at least two")
    if round < 1:
        raise ValueError(f"round {round}: rounds count from 1")
    if tables is not None and tables < 1:
        raise ValueError(f"{tables} tables: a round needs at least one table")
    if method not in ("moving", "circle"):
        raise ValueError(f"seating method {method!r}: expected 'moving' or 'circle'")
    seats: list[str | None] = list(players)
    if len(seats) % 2:
        seats.append(BYE)
        method = "circle"
    pairs = _pairs(seats, round, method)
    period = len(seats) // 2 if method == "moving" else len(seats) - 1
    repeats = round > period
    cap = len(pairs) if tables is None else tables
    seated: list[tuple[str, str]] = []
    byes: list[str] = []
    for a, b in pairs:
        if a is None or b is None:
            byes.extend(p for p in (a, b) if p is not None)
        elif len(seated) < cap:
            seated.append((a, b))
        else:
            byes.extend((a, b))
    return Round(round=round, pairs=tuple(seated), byes=tuple(byes), repeats=repeats)


def _pairs(seats: list[str | None], round: int, method: str
           ) -> list[tuple[str | None, str | None]]:
    n = len(seats) // 2
    if method == "moving":
        staying, moving = seats[:n], seats[n:]
        shift = (round - 1) % n
        return [(staying[i], moving[(i + shift) % n]) for i in range(n)]
    # The circle: seat 0 stays; the others turn one place per round.
    rest = seats[1:]
    shift = (round - 1) % len(rest)
    turned = [seats[0], *rest[len(rest) - shift:], *rest[:len(rest) - shift]]
    return [(turned[i], turned[-1 - i]) for i in range(n)]


def _check_players(players: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in players:
        if name in seen:
            raise ValueError(f"player {name!r} is registered twice")
        seen.add(name)
