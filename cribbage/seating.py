"""Seating a round from the evening so far: new opponents whenever any seating allows them,
short moves, fair byes, for any arrival or departure between rounds.

The room: the tables in the director's configured order form a loop. In round 1 the
players sit in registration order, the first half at tables 1..k (the staying side), the
second half opposite them (the moving side); an odd count leaves the last one out (the
bye). After each round the staying player keeps the table and the moving player moves one
table on (the last table's to the first), so each meets the other row in turn.

Each round is then checked against every pairing already played. A seating's pairs are a
matching of the players present, and the largest matching of "pairs still allowed" (found
exactly, cribbage.matching) says how many pairs can be new: the round takes the natural
rotation where its pairs are new and changes only as many pairs as it must. When no
seating avoids a repeat (a small group late in the evening), the round lists the pairs
that meet again (`repeated`): each is unavoidable, since a largest matching left them.
A tournament's qualifying rotation sets `limit` (the ACC's: 2): pairs may meet up to
`limit` times, new opponents still first, and `over_limit` lists the pairs no seating
could keep within it.

Byes: with an odd count one player sits out. The bye goes to a present player who has had
the fewest byes so far (nobody has a second before everyone present has had one; a late
arrival starts with none), first one left without a partner by the rotation, then the
moving side from the last table back. The player back from a bye, a late arrival, or one
whose partner left, takes a table freed by the change, nearest to where they sat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cribbage.matching import max_matching

NIGHT_ROUNDS = 9  # a club night's games (the ACC's grass-roots evening)


@dataclass(frozen=True, slots=True)
class Seat:
    """One table in one round: `stays` kept the table (or sat first), `moves` came to it."""

    table: str
    stays: str
    moves: str

    @property
    def names(self) -> tuple[str, str]:
        return (self.stays, self.moves)


@dataclass(frozen=True, slots=True)
class Seating:
    """One round: `seats` in the configured table order, `byes` sitting out, `repeated` the
    pairs meeting again (none of them avoidable), `over_limit` the pairs meeting more than
    the limit allows (none of them avoidable either)."""

    round: int
    seats: tuple[Seat, ...]
    byes: tuple[str, ...] = ()
    repeated: tuple[tuple[str, str], ...] = ()
    over_limit: tuple[tuple[str, str], ...] = ()

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(s.names for s in self.seats)

    @property
    def repeats(self) -> bool:
        """Some pair meets again (and no seating of these players avoids it)."""
        return bool(self.repeated)

    def note(self) -> str:
        """One sentence for the director: who meets again and why, or that nobody does."""
        if not self.repeated:
            return f"round {self.round}: everyone meets a new opponent"
        pairs = ", ".join(f"{a} v {b}" for a, b in self.repeated)
        return (f"round {self.round}: {pairs} meet again: no seating of the players present "
                "avoids it")


def meetings(earlier: Sequence[Seating]) -> Counter[frozenset[str]]:
    """How many times each pair has met in `earlier` rounds."""
    return Counter(frozenset(s.names) for r in earlier for s in r.seats)


def bye_counts(earlier: Sequence[Seating]) -> Counter[str]:
    """How many byes each player has had in `earlier` rounds."""
    return Counter(b for r in earlier for b in r.byes)


def seat_round(players: Sequence[str], tables: Sequence[str],
               earlier: Sequence[Seating] = (), *, limit: int = 1,
               rounds: int = NIGHT_ROUNDS) -> Seating:
    """The next round's seating of `players` (those present, in registration order) over
    `tables` (in the configured order), after the `earlier` rounds of the evening.

    `limit`: how many times two players may meet (1: never again, the club night; 2: the
    ACC's qualifying rotation); within it, new opponents come first. `rounds`: how many the
    evening plays (it picks the rotation: two rows when each row has that many players, the
    circle for a smaller group, so that 10 players meet nobody twice in nine rounds). Raises
    ValueError for
    fewer than two players, a name or table twice, a limit below 1, or more pairs than
    tables.
    """
    _check_unique("player", players)
    _check_unique("table", tables)
    if len(players) < 2:
        raise ValueError(f"{len(players)} player(s) present: a round needs at least two")
    if limit < 1:
        raise ValueError(f"limit {limit}: two players may meet at least once")
    need = len(players) // 2
    if need > len(tables):
        raise ValueError(f"{need} pairs need {need} tables: only {len(tables)} "
                         f"({', '.join(tables) or 'none'})")
    number = earlier[-1].round + 1 if earlier else 1
    met = meetings(earlier)
    where = {t: i for i, t in enumerate(tables)}
    last: dict[str, tuple[int, int]] = {}  # player -> (table position, 0 stays / 1 moves)
    for r in earlier:
        for s in r.seats:
            if s.table in where:
                last[s.stays], last[s.moves] = (where[s.table], 0), (where[s.table], 1)
    present = set(players)
    if len(players) // 2 >= rounds:
        natural, bye_first = _rotation(players, earlier, where), None
    else:
        natural, bye_first = _circle(players, number)
    natural = [(pos, a, b) for pos, a, b in natural if a in present and b in present]

    bye_to, candidates = _bye(players, natural, bye_counts(earlier), bye_first)
    natural = [t for t in natural if bye_to not in t[1:]]
    pairs, byes = _match(players, natural, met, bye_to, candidates, limit)
    seats = _place(pairs, natural, last, list(tables))
    return Seating(
        round=number, seats=seats, byes=byes,
        repeated=tuple(s.names for s in seats if met[frozenset(s.names)] >= 1),
        over_limit=tuple(s.names for s in seats if met[frozenset(s.names)] >= limit))


def _bye(players: Sequence[str], natural: Sequence[tuple[int, str, str]],
         had: Counter[str], first: str | None) -> tuple[str | None, list[str]]:
    """Who may have the bye (the fewest byes so far) and who has it unless a seating with
    fewer repeats needs another: the circle's empty seat's partner, one the rotation left
    without a partner, then the moving side from the last table back, then the staying
    side."""
    if len(players) % 2 == 0:
        return None, []
    fewest = min(had[p] for p in players)
    candidates = [p for p in players if had[p] == fewest]
    paired = {p for _, a, b in natural for p in (a, b)}
    back = sorted(natural, reverse=True)
    loose = [p for p in reversed(players) if p not in paired]
    order = [*([first] if first else []), *loose, *(b for _, _, b in back),
             *(a for _, a, _ in back)]
    return next(p for p in order if p in candidates), candidates


def _match(players: Sequence[str], natural: Sequence[tuple[int, str, str]],
           met: Counter[frozenset[str]], bye_to: str | None, candidates: Sequence[str],
           limit: int) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """The round's pairs and byes: the rotation's new pairs grown to a largest matching of
    new pairs, then of pairs within the limit; whoever is left meets again."""
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    vertices = n + (bye_to is not None)  # the empty seat of an odd count is vertex n

    def graph(most: int) -> list[list[int]]:
        adj: list[list[int]] = [[] for _ in range(vertices)]
        for i, a in enumerate(players):
            for j in range(i + 1, n):
                if met[frozenset((a, players[j]))] < most:
                    adj[i].append(j)
                    adj[j].append(i)
        for c in candidates:
            adj[index[c]].append(n)
            adj[n].append(index[c])
        return adj

    def start(most: int) -> list[int]:  # the rotation's pairs met fewer than `most` times
        mate = [-1] * vertices
        for _, a, b in natural:
            if met[frozenset((a, b))] < most:
                mate[index[a]], mate[index[b]] = index[b], index[a]
        if bye_to is not None:
            mate[index[bye_to]], mate[n] = n, index[bye_to]
        return mate

    mate = max_matching(graph(1), start(1))  # as many new opponents as any seating has
    if limit > 1 and -1 in mate:
        # Some must meet again: nobody past the limit if any seating allows, keeping the
        # rotation (its second turn round the room) rather than new pairs that strand
        # others at the limit later.
        mate = max_matching(graph(limit), start(limit))
    pairs = [(players[i], players[j]) for i, j in enumerate(mate[:n]) if i < j < n]
    byes = tuple(players[i] for i in range(n) if mate[i] == n)
    left = [p for i, p in enumerate(players) if mate[i] == -1]
    while left:  # no seating avoids these meetings: pair those who met least
        a = left.pop(0)
        b = min(left, key=lambda p: (met[frozenset((a, p))], index[p]))
        left.remove(b)
        pairs.append((a, b))
    return pairs, byes


def _circle(players: Sequence[str], number: int
            ) -> tuple[list[tuple[int, str, str]], str | None]:
    """The round-robin's circle for round `number` (the first seat stays, the others turn
    one seat a round, so each player moves about one table): pairs at table
    positions, and the player facing the empty seat of an odd count (the bye)."""
    # An odd count: the empty seat is the one that never turns; the last registered faces
    # it first.
    seats: list[str | None] = [None, *players] if len(players) % 2 else list(players)
    rest = seats[1:]
    shift = (number - 1) % len(rest)
    turned = [seats[0], *rest[len(rest) - shift:], *rest[:len(rest) - shift]]
    half = len(turned) // 2
    pairs = [(turned[i], turned[-1 - i]) for i in range(half)]
    bye = next((a or b for a, b in pairs if a is None or b is None), None)
    full = [(a, b) for a, b in pairs if a is not None and b is not None]
    return [(pos, a, b) for pos, (a, b) in enumerate(full)], bye


def _rotation(players: Sequence[str], earlier: Sequence[Seating], where: dict[str, int]
              ) -> list[tuple[int, str, str]]:
    """The natural seating (table position, stays, moves): round 1 in registration order,
    then the last round's with its moving side one table on."""
    if not earlier:
        k = len(players) // 2
        return [(i, players[i], players[k + i]) for i in range(k)]
    at = {where[s.table]: s for s in earlier[-1].seats if s.table in where}
    used = sorted(at)
    return [(pos, at[pos].stays, at[used[j - 1]].moves) for j, pos in enumerate(used)]


def _place(pairs: Sequence[tuple[str, str]], natural: Sequence[tuple[int, str, str]],
           last: dict[str, tuple[int, int]], tables: list[str]) -> tuple[Seat, ...]:
    """Put the pairs at tables: the rotation's pairs where it puts them; then a pair one
    of whom sat at a free table keeps it (the staying side first); then the rest at the
    free table nearest to where they sat, or the first free one."""
    free = set(range(len(tables)))
    placed: dict[int, tuple[str, str]] = {}
    rest = []
    rotation = {frozenset((a, b)): (pos, a, b) for pos, a, b in natural}
    for pair in pairs:
        hit = rotation.get(frozenset(pair))
        if hit is not None and hit[0] in free:
            placed[hit[0]] = (hit[1], hit[2])
            free.discard(hit[0])
        else:
            rest.append(pair)
    unplaced = []
    for a, b in sorted(rest, key=lambda p: min(last.get(x, (0, 9))[1] for x in p)):
        options = sorted((last[x][1], last[x][0], x, y) for x, y in ((a, b), (b, a))
                         if x in last and last[x][0] in free)
        if options:
            _, pos, x, y = options[0]
            placed[pos] = (x, y)
            free.discard(pos)
        else:
            unplaced.append((a, b))
    for a, b in unplaced:
        seen = [last[x][0] for x in (a, b) if x in last]
        pos = min(free, key=lambda f: (min((abs(f - s) for s in seen), default=0), f))
        placed[pos] = (a, b)
        free.discard(pos)
    return tuple(Seat(tables[pos], *placed[pos]) for pos in sorted(placed))


def _check_unique(what: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{what} {name!r} is listed twice")
        seen.add(name)
