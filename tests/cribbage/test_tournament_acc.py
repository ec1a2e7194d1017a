"""The ACC tournament in the engine: a qualifying rotation where nobody meets the same
opponent more than twice, the cut to the top quarter seeded by game points, games won and
spread, a knockout bracket with byes to the top seeds. A simulated 64-player day is checked
against an independent computation (tests/cribbage/tournament_reference.py: its own sums,
its own sort, the bracket drawn from published seed lines and played by hand)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.knockout import bracket, cut, cut_size, seed_order
from cribbage.seating import Seating, seat_round
from cribbage.tournament import GameRecord, Standing, standings
from tests.cribbage.tournament_reference import (
    SEED_LINES,
    independent_bracket,
    independent_standings,
)


def result(rng: random.Random, rnd: int, table: str, a: str, b: str) -> GameRecord:
    """A random game to 121: the loser's score makes it a win, a skunk or a double skunk."""
    winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
    score = rng.choice([rng.randint(91, 119), rng.randint(91, 119), rng.randint(61, 90),
                        rng.randint(30, 60)])
    kind = "win" if score >= 91 else "skunk" if score >= 61 else "double_skunk"
    return GameRecord(rnd, table, winner, loser, 121, score, kind)


def test_a_64_player_day_equals_an_independent_computation() -> None:
    rng = random.Random(64)
    players = [f"Player {i:02}" for i in range(64)]
    tables = [f"t{i}" for i in range(1, 33)]
    earlier: list[Seating] = []
    games: list[GameRecord] = []
    for _ in range(14):  # an ACC qualifying round: 12-22 games
        r = seat_round(players, tables, earlier, limit=2)
        assert not r.over_limit and not r.byes and len(r.seats) == 32
        games += [result(rng, r.round, s.table, s.stays, s.moves) for s in r.seats]
        earlier.append(r)
    met = Counter(frozenset((g.winner, g.loser)) for g in games)
    assert max(met.values()) <= 2
    assert all(sum(p in pair for pair in met.elements()) == 14 for p in players)

    rows = standings(players, games)
    mine = independent_standings(players, games)
    assert [(r.name, r.game_points, r.won, r.spread) for r in rows] == mine

    c = cut(rows)
    assert cut_size(64) == 16 and c.seeds == tuple(r[0] for r in mine[:16])
    line = mine[15][1:]
    assert c.tied == tuple(r[0] for r in mine[16:] if r[1:] == line)

    knockout: list[GameRecord] = []
    b = bracket(c.seeds)
    rnd = 14
    while b.champion is None:
        rnd += 1
        ready = b.ready()
        assert ready and all(m.round == ready[0].round for m in ready)
        knockout += [result(rng, rnd, f"t{i + 1}", m.players[0], m.players[1])  # type: ignore[arg-type]
                     for i, m in enumerate(ready)]
        b = bracket(c.seeds, knockout)
    assert b.round_names() == ["Round of 16", "Quarter-final", "Semi-final", "Final"]

    rounds = independent_bracket(c.seeds, knockout)
    assert [[m.winner for m in ms] for ms in b.rounds] == rounds
    assert b.champion == rounds[-1][0] and len(knockout) == 15


def test_byes_go_to_the_top_seeds_when_the_cut_is_no_power_of_two() -> None:
    seeds = [f"s{i}" for i in range(1, 13)]  # a field of 48-51: twelve go through
    b = bracket(seeds)
    first = b.rounds[0]
    byes = sorted(m.winner for m in first if m.bye)  # type: ignore[type-var]
    assert byes == sorted(seeds[:4])  # 16 - 12 = four byes, seeds 1-4
    assert {frozenset(m.players) for m in first if not m.bye} == {
        frozenset((seeds[a - 1], seeds[b - 1])) for a, b in ((5, 12), (6, 11), (7, 10), (8, 9))}
    assert [m.players for m in b.ready()] == [m.players for m in first if not m.bye]
    # The byes' players wait in round 2 for the winners of their halves.
    assert all(sum(p is not None for p in m.players) == 1 for m in b.rounds[1])


@settings(deadline=None)  # up to 69 brackets drawn: slow on a loaded machine, never wrong
@given(st.integers(2, 70), st.randoms(use_true_random=False))
def test_any_field_plays_down_to_one_champion(n: int, rng: random.Random) -> None:
    seeds = [f"s{i}" for i in range(n)]
    played: list[GameRecord] = []
    b = bracket(seeds)
    while b.champion is None:
        played += [result(rng, 1, "t", m.players[0], m.players[1])  # type: ignore[arg-type]
                   for m in b.ready()]
        b = bracket(seeds, played)
    assert len(played) == n - 1  # every game knocks one player out
    if n <= 16:
        assert [[m.winner for m in ms] for ms in b.rounds] == independent_bracket(seeds, played)
    losers = {g.loser for g in played}
    assert losers == set(seeds) - {b.champion}
    size = len(seed_order(b.size))
    assert size // 2 < n <= size or n == size == 2


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_seed_order_meets_the_best_last(size: int) -> None:
    """If the better seed always wins, every round pairs seed s with the round's
    (players + 1 - s): 1 v 16, then 1 v 8, 1 v 4 (the semi-finals 1 v 4 and 2 v 3), 1 v 2."""
    line = seed_order(size)
    assert sorted(line) == list(range(1, size + 1))
    while len(line) > 1:
        pairs = [line[i:i + 2] for i in range(0, len(line), 2)]
        assert {sum(p) for p in pairs} == {len(line) + 1}, pairs
        line = [min(p) for p in pairs]


def test_seed_order_puts_seeds_1_and_2_on_opposite_halves() -> None:
    assert seed_order(16) == SEED_LINES[16]
    assert 2 in SEED_LINES[16][8:] and 3 in SEED_LINES[16][8:] and 4 in SEED_LINES[16][:8]
    assert all(seed_order(n) == line for n, line in SEED_LINES.items())
    with pytest.raises(ValueError, match="power of two"):
        seed_order(12)


def test_the_cut_takes_a_quarter_and_names_a_tie_on_the_line() -> None:
    assert [cut_size(n) for n in (2, 7, 8, 10, 64, 65, 200)] == [2, 2, 2, 2, 16, 16, 50]
    rows = [Standing(i + 1, f"p{i}", 10 - i, 3, 0, 0, 5, 3) for i in range(8)]
    rows[2] = Standing(2, "p2", 9, 3, 0, 0, 5, 3)  # level with p1 on every break
    c = cut(rows, 2)
    assert c.seeds == ("p0", "p1") and c.tied == ("p2",)
    assert cut(rows, 3).tied == ()
    with pytest.raises(ValueError, match="a cut of 9 from a field of 8"):
        cut(rows, 9)


def test_a_game_that_is_no_match_is_refused() -> None:
    seeds = ["a", "b", "c", "d"]
    with pytest.raises(ValueError, match="a v b .* no match of the bracket"):
        bracket(seeds, [GameRecord(9, "t1", "a", "b", 121, 100, "win")])
    twice = [GameRecord(9, "t1", "a", "d", 121, 100, "win"),
             GameRecord(10, "t1", "d", "a", 121, 100, "win")]
    with pytest.raises(ValueError, match="played twice"):
        bracket(seeds, twice)
