"""Seating that is fair all evening: no pairing again while any seating avoids it, for any
arrival or departure; the moving side moves one table; byes passed to the fewest-byes
player and listed. Avoidability is checked by brute force over every seating of the
players present (small evenings), written here apart from the engine's matching."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.matching import max_matching
from cribbage.seating import Seat, Seating, seat_round

# Configured order, deliberately not string order (t10 sits between t2 and t3).
TABLES = ["t1", "t2", "t10", "t3", "t4", "t5", "t6"]


def perfect_matchings(people: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    """Every way to pair up `people` (an even number of them)."""
    if not people:
        yield []
        return
    first, rest = people[0], people[1:]
    for i, other in enumerate(rest):
        for more in perfect_matchings(rest[:i] + rest[i + 1:]):
            yield [(first, other), *more]


def fewest_possible(players: Sequence[str], earlier: Sequence[Seating], limit: int
                    ) -> tuple[int, int]:
    """By brute force: the fewest (pairs over the limit, then pairs met before) of any
    seating of `players` whose bye goes to someone with the fewest byes."""
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for r in earlier:
        for s in r.seats:
            met[frozenset((s.stays, s.moves))] += 1
        byes.update(r.byes)
    if len(players) % 2:
        low = min(byes[p] for p in players)
        choices = [[p for p in players if p != out] for out in players if byes[out] == low]
    else:
        choices = [list(players)]
    best_over = best_rep = None
    for group in choices:
        for m in perfect_matchings(group):
            over = sum(met[frozenset(p)] >= limit for p in m)
            if best_over is None or over < best_over:
                best_over = over
    for group in choices:
        for m in perfect_matchings(group):
            if sum(met[frozenset(p)] >= limit for p in m) == best_over:
                rep = sum(met[frozenset(p)] >= 1 for p in m)
                best_rep = rep if best_rep is None else min(best_rep, rep)
    assert best_over is not None and best_rep is not None
    return best_over, best_rep


def check_round(r: Seating, players: Sequence[str], earlier: Sequence[Seating]) -> None:
    """Everyone present sits once (or has the bye), only at configured tables, one pair a
    table; the bye goes to a fewest-byes player; the repeats listed are the real ones."""
    seated = [p for s in r.seats for p in s.names]
    assert sorted(seated + list(r.byes)) == sorted(players)
    assert len(r.byes) == len(players) % 2
    tables = [s.table for s in r.seats]
    assert len(set(tables)) == len(tables) and set(tables) <= set(TABLES)
    assert tables == sorted(tables, key=TABLES.index)  # listed in the configured order
    had: Counter[str] = Counter(b for e in earlier for b in e.byes)
    for b in r.byes:
        assert had[b] == min(had[p] for p in players), (b, had)
    met = {frozenset(s.names) for e in earlier for s in e.seats}
    assert set(r.repeated) == {s.names for s in r.seats if frozenset(s.names) in met}


# An evening: a starting count, then events: mostly rounds, some arrivals and departures
# (by index), so that small groups run out of new opponents and must be told.
events = st.lists(st.tuples(st.sampled_from(["round", "round", "round", "arrive", "leave"]),
                            st.integers(0, 20)), min_size=4, max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 9), events, st.sampled_from([1, 2]), st.sampled_from([1, 9]))
def test_no_repeat_while_any_seating_avoids_it(start: int, evening: list[tuple[str, int]],
                                                limit: int, planned: int) -> None:
    """`planned` 1 seats in two rows, 9 in the circle (the groups here are small)."""
    players = [f"p{i}" for i in range(start)]
    arrived = start
    earlier: list[Seating] = []
    for kind, arg in evening:
        if kind == "arrive" and len(players) < 10:
            players.append(f"p{arrived}")
            arrived += 1
        elif kind == "leave" and len(players) > 2:
            players.pop(arg % len(players))
        elif kind == "round":
            r = seat_round(players, TABLES, earlier, limit=limit, rounds=planned)
            check_round(r, players, earlier)
            over, rep = fewest_possible(players, earlier, limit)
            assert len(r.over_limit) == over, (r, earlier)
            if limit == 1:
                assert len(r.repeated) == rep, (r, earlier)
            earlier.append(r)


def moves(before: Seating, after: Seating) -> dict[str, int]:
    """How many places along the used tables' loop each player moved."""
    used = [s.table for s in before.seats]
    at = {p: used.index(s.table) for s in before.seats for p in s.names}
    return {p: (used.index(s.table) - at[p]) % len(used) for s in after.seats for p in s.names
            if p in at and s.table in used}


@settings(deadline=None)
@given(st.integers(2, 7))
def test_the_staying_side_stays_and_the_moving_side_moves_one_table(k: int) -> None:
    players = [f"p{i}" for i in range(2 * k)]
    earlier = [seat_round(players, TABLES, rounds=k)]  # rows: each row has k players
    assert earlier[0].pairs == tuple((players[i], players[k + i]) for i in range(k))
    assert [s.table for s in earlier[0].seats] == TABLES[:k]
    for _ in range(k - 1):
        r = seat_round(players, TABLES, earlier, rounds=k)
        assert not r.repeated
        assert moves(earlier[-1], r) == {**{p: 0 for p in players[:k]},
                                          **{p: 1 for p in players[k:]}}
        earlier.append(r)
    # Past k rounds the rows have all met: new pairs are left only within each row, and
    # an odd row leaves one player of each row over, who must meet again, and it says so.
    r = seat_round(players, TABLES, earlier, rounds=k)
    assert len(r.repeated) == k % 2
    assert ("meet again" in r.note()) == (k % 2 == 1)


def test_a_late_arrival_and_a_departure_repeat_nobody_over_nine_rounds() -> None:
    """The evening that went wrong: 18 players on 10 tables, a 19th after round 3, one
    leaving after round 6: nobody meets twice, byes go to different players, and apart
    from the players the changes touch everyone moves at most one table."""
    tables = [f"t{i}" for i in range(1, 11)]
    players = [f"P{i:02}" for i in range(18)]
    earlier: list[Seating] = []
    for number in range(1, 10):
        if number == 4:
            players.append("Late")
        if number == 7:
            players.remove("P05")
        r = seat_round(players, tables, earlier)
        assert r.round == number and not r.repeated, r
        assert [s.table for s in r.seats] == tables[:len(r.seats)] or number > 1
        if earlier:
            far = {p for p, d in moves(earlier[-1], r).items() if d > 1}
            assert len(far) <= 3, (number, far)
        earlier.append(r)
    byes = [b for r in earlier for b in r.byes]
    assert len(byes) == len(set(byes)) == 3  # rounds 4-6 have 19 players
    met = Counter(frozenset(s.names) for r in earlier for s in r.seats)
    assert max(met.values()) == 1


@pytest.mark.parametrize("count", range(3, 25))
def test_a_fixed_group_meets_nobody_twice_in_nine_rounds_when_a_round_robin_allows(
        count: int) -> None:
    """Two rows for a room of 18 or more, the circle below: either way nobody meets twice
    in a nine-round evening unless the group is too small for nine new opponents, and then
    only after it has met everyone (a round robin's rounds)."""
    players = [f"p{i:02}" for i in range(count)]
    tables = [f"t{i}" for i in range(1, 13)]
    earlier: list[Seating] = []
    new_rounds = count - 1 if count % 2 == 0 else count
    for number in range(1, 10):
        r = seat_round(players, tables, earlier)
        assert bool(r.repeated) == (number > new_rounds), (number, r)
        earlier.append(r)
    byes = Counter(b for r in earlier for b in r.byes)
    assert not byes or max(byes.values()) - min(byes.get(p, 0) for p in players) <= 1


def test_a_small_group_says_truthfully_when_it_must_meet_again() -> None:
    players = ["Ann", "Bob", "Cy", "Dee"]
    earlier: list[Seating] = []
    for _ in range(3):  # four players: three rounds of new opponents
        earlier.append(seat_round(players, TABLES, earlier))
        assert not earlier[-1].repeats
    r = seat_round(players, TABLES, earlier)
    assert len(r.repeated) == 2 and r.repeats
    assert "no seating of the players present avoids it" in r.note()


def test_byes_pass_to_everyone_before_anyone_has_two() -> None:
    players = [f"p{i}" for i in range(7)]
    earlier: list[Seating] = []
    for _ in range(7):
        earlier.append(seat_round(players, TABLES, earlier))
    byes = [b for r in earlier for b in r.byes]
    assert sorted(byes) == sorted(players)
    assert earlier[0].byes == ("p6",)  # the last registered sits out first


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="'Ann' is listed twice"):
        seat_round(["Ann", "Bob", "Ann"], TABLES)
    with pytest.raises(ValueError, match="at least two"):
        seat_round(["Ann"], TABLES)
    with pytest.raises(ValueError, match="3 pairs need 3 tables: only 2"):
        seat_round([f"p{i}" for i in range(6)], ["t1", "t2"])
    with pytest.raises(ValueError, match="limit 0"):
        seat_round(["Ann", "Bob"], TABLES, limit=0)
    with pytest.raises(ValueError, match="mate"):
        max_matching([[1], [0]], [1, -1])


@settings(deadline=None)
@given(st.integers(2, 12), st.data())
def test_the_matching_is_as_large_as_brute_force_finds(n: int, data: st.DataObject) -> None:
    edges = data.draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                              .filter(lambda e: e[0] < e[1]), max_size=n * 2))
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    mate = max_matching(adj)
    size = sum(1 for i, m in enumerate(mate) if m > i)
    assert all(mate[m] == i and m in adj[i] for i, m in enumerate(mate) if m != -1)

    def best(free: frozenset[int]) -> int:
        if not free:
            return 0
        v = min(free)
        rest = free - {v}
        return max([best(rest)] + [1 + best(rest - {u}) for u in adj[v] if u in rest])
    assert size == best(frozenset(range(n)))


def test_a_seat_names_the_staying_player_first() -> None:
    assert Seat("t1", "Ann", "Bob").names == ("Ann", "Bob")


@pytest.mark.parametrize("count", range(3, 18))
def test_in_the_circle_nobody_moves_more_than_one_table(count: int) -> None:
    """While the round robin lasts (nine rounds at most)."""
    players = [f"p{i:02}" for i in range(count)]
    tables = [f"t{i}" for i in range(1, 10)]
    earlier = [seat_round(players, tables)]
    for _ in range(min(9, count - 1 if count % 2 == 0 else count) - 1):
        r = seat_round(players, tables, earlier)
        before = {p: tables.index(s.table) for s in earlier[-1].seats for p in s.names}
        after = {p: tables.index(s.table) for s in r.seats for p in s.names}
        assert max(abs(after[p] - before[p]) for p in after if p in before) <= 1, r
        earlier.append(r)


@pytest.mark.parametrize("games", [12, 22])
@pytest.mark.parametrize("count", [5, 8, 11, 13, 16, 24])
def test_a_qualifying_rotation_meets_nobody_three_times_while_possible(count: int,
                                                                       games: int) -> None:
    """The ACC's limit of two meetings: kept for as long as a double round robin lasts."""
    players = [f"p{i:02}" for i in range(count)]
    tables = [f"t{i}" for i in range(1, 13)]
    earlier: list[Seating] = []
    for _ in range(games):
        earlier.append(seat_round(players, tables, earlier, limit=2, rounds=games))
    met = Counter(frozenset(s.names) for r in earlier for s in r.seats)
    double = 2 * (count - 1 if count % 2 == 0 else count)
    assert max(met.values()) <= 2 or games > double
    assert not any(r.over_limit for r in earlier) or games > double
    played = Counter(p for r in earlier for s in r.seats for p in s.names)
    assert max(played.values()) - min(played.values()) <= 1  # byes spread evenly
