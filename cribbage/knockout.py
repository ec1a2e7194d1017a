"""The ACC tournament's playoffs: the cut to the top quarter and the knockout bracket.

As ACC-sanctioned events play them: after the qualifying rotation (`cribbage.seating`
with `limit=2`: nobody meets the same opponent more than twice), the standings order the
field by game points, then games won, then spread (`cribbage.tournament.standings`). The
top quarter (a quarter of the field rounded down, at least two) goes through, seeded in
that order. Players the three breaks cannot part are listed by name; when they straddle
the cut line the cut says so (`tied`), for the director to settle (a play-off game or the
club's own rule) before the bracket is drawn.

The bracket is the next power of two; the seats past the field are byes, given to the top
seeds (seed 1 meets the lowest seed, seed 2 the next lowest, ..., and seeds 1 and 2 can
only meet in the final). Each match is one game; its winner goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cribbage.tournament import GameRecord, Standing


@dataclass(frozen=True, slots=True)
class Cut:
    """Who goes through (`seeds`, seed 1 first), and the players level with the last of
    them on every break but left out by name order (`tied`; empty when the line is clean)."""

    seeds: tuple[str, ...]
    tied: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """One match: `round` of the knockout (1 first), `slot` from the top, the two seeds and
    players (None: not known yet, or nobody: a bye), the winner once played."""

    round: int
    slot: int
    seeds: tuple[int | None, int | None]
    players: tuple[str | None, str | None]
    winner: str | None
    bye: bool  # one side has nobody: the other goes on without a game
    game: GameRecord | None = None

    @property
    def ready(self) -> bool:
        """Both players known, no winner yet: a game to seat."""
        return not self.bye and self.winner is None and None not in self.players


@dataclass(frozen=True, slots=True)
class Bracket:
    """The whole knockout: `rounds` of matches (the first has size/2), the champion once
    the final is played."""

    seeds: tuple[str, ...]
    size: int
    rounds: tuple[tuple[Match, ...], ...]
    champion: str | None

    def ready(self) -> list[Match]:
        """The matches to play now: both players known and no winner, earliest round."""
        for matches in self.rounds:
            waiting = [m for m in matches if m.ready]
            if waiting:
                return waiting
        return []

    def round_names(self) -> list[str]:
        """The rounds' names as a room says them: ..., Quarter-final, Semi-final, Final."""
        names = {1: "Final", 2: "Semi-final", 4: "Quarter-final"}
        return [names.get(len(ms), f"Round of {2 * len(ms)}") for ms in self.rounds]


def cut_size(field: int) -> int:
    """The number who go through: a quarter of the field, rounded down, at least two;
    raises ValueError for a field under two."""
    if field < 2:
        raise ValueError(f"a field of {field}: a knockout needs at least two players")
    return max(2, field // 4)


def cut(rows: Sequence[Standing], size: int | None = None) -> Cut:
    """The top `size` (default the top quarter) of the qualifying standings `rows` (in
    their order), with the players level on the cut line; raises ValueError for a size
    below two or above the field."""
    size = cut_size(len(rows)) if size is None else size
    if not 2 <= size <= len(rows):
        raise ValueError(f"a cut of {size} from a field of {len(rows)}: "
                         "between two and the whole field")
    seeds = tuple(r.name for r in rows[:size])
    last = rows[size - 1]
    line = (last.game_points, last.won, last.spread)
    tied = tuple(r.name for r in rows[size:] if (r.game_points, r.won, r.spread) == line)
    return Cut(seeds=seeds, tied=tied)


def seed_order(size: int) -> list[int]:
    """The seeds of a `size`-bracket from the top line down (1, 8, 4, 5, 2, 7, 3, 6 for
    eight): each first-round match adds up to size + 1; raises ValueError unless `size`
    is a power of two."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket of {size}: a power of two, at least two")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def bracket(seeds: Sequence[str], games: Sequence[GameRecord] = ()) -> Bracket:
    """The bracket of `seeds` (seed 1 first) after the knockout `games` played so far.

    A game decides the match between its two players; each match is one game. Raises
    ValueError for fewer than two seeds, a name twice, or a game that is no match of the
    bracket (players not drawn against each other, or a match played twice).
    """
    if len(seeds) < 2:
        raise ValueError(f"{len(seeds)} seed(s): a knockout needs at least two players")
    if len(set(seeds)) != len(seeds):
        raise ValueError("a player is seeded twice")
    size = 1
    while size < len(seeds):
        size *= 2
    by_pair: dict[frozenset[str], GameRecord] = {}
    for g in games:
        pair = frozenset((g.winner, g.loser))
        if pair in by_pair:
            raise ValueError(f"{g.winner} and {g.loser} played twice in the knockout "
                             f"(rounds {by_pair[pair].round} and {g.round}): a match is "
                             "one game")
        by_pair[pair] = g
    used: set[frozenset[str]] = set()
    order = seed_order(size)
    line: list[tuple[int | None, str | None]] = [
        (s, seeds[s - 1]) if s <= len(seeds) else (None, None) for s in order]
    rounds: list[tuple[Match, ...]] = []
    number = 0
    while len(line) > 1:
        number += 1
        matches = []
        nxt: list[tuple[int | None, str | None]] = []
        for slot in range(len(line) // 2):
            (sa, a), (sb, b) = line[2 * slot], line[2 * slot + 1]
            bye = number == 1 and (a is None or b is None)
            game = None
            winner: str | None = None
            if bye:
                winner = a if b is None else b
            elif a is not None and b is not None:
                game = by_pair.get(frozenset((a, b)))
                if game is not None:
                    winner = game.winner
                    used.add(frozenset((a, b)))
            matches.append(Match(number, slot, (sa, sb), (a, b), winner, bye, game))
            ws = None if winner is None else (sa if winner == a else sb)
            nxt.append((ws, winner))
        rounds.append(tuple(matches))
        line = nxt
    stray = [g for pair, g in by_pair.items() if pair not in used]
    if stray:
        g = stray[0]
        raise ValueError(f"{g.winner} v {g.loser} (round {g.round}, table {g.table}) is no "
                         "match of the bracket: they were not drawn against each other")
    return Bracket(seeds=tuple(seeds), size=size, rounds=tuple(rounds), champion=line[0][1])
