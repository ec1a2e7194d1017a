"""A club night's rules: game points, spread, standings order and shared places (the seating:
test_tournament_seating.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cribbage.tournament import Bye, GameRecord, game_points, standings


def test_game_points_are_zero_two_three() -> None:
    assert [game_points(k, True) for k in ("win", "skunk", "double_skunk", "lurch")] == \
        [2, 3, 3, 3]
    assert {game_points(k, False) for k in ("win", "skunk", "double_skunk", "lurch")} == {0}
    with pytest.raises(ValueError, match="'skunked'"):
        game_points("skunked", True)


NIGHT = [  # round, table, winner, loser, scores, kind
    GameRecord(1, "t1", "Ann", "Bob", 121, 88, "skunk"),
    GameRecord(1, "t2", "Cy", "Dee", 121, 110, "win"),
    GameRecord(2, "t1", "Bob", "Cy", 121, 119, "win"),
    GameRecord(2, "t2", "Dee", "Ann", 121, 100, "win"),
    GameRecord(3, "t1", "Ann", "Cy", 121, 60, "double_skunk"),
    GameRecord(3, "t2", "Bob", "Dee", 121, 95, "skunk"),
]


def test_standings_of_a_small_night() -> None:
    rows = standings(["Ann", "Bob", "Cy", "Dee"], NIGHT)
    by = {r.name: r for r in rows}
    # Ann: skunk 3 + loss 0 + double skunk 3; margins +33 -21 +61.
    assert (by["Ann"].game_points, by["Ann"].won, by["Ann"].spread) == (6, 2, 73)
    # Bob: loss, win by 2, skunk by 26.
    assert (by["Bob"].game_points, by["Bob"].won, by["Bob"].spread) == (5, 2, -33 + 2 + 26)
    assert (by["Cy"].game_points, by["Cy"].spread) == (2, 11 - 2 - 61)
    assert (by["Dee"].game_points, by["Dee"].skunks, by["Dee"].spread) == (2, 0, -11 + 21 - 26)
    assert [r.name for r in rows] == ["Ann", "Bob", "Dee", "Cy"]  # Dee's spread beats Cy's
    assert [r.place for r in rows] == [1, 2, 3, 4]
    assert by["Ann"].skunks == 2 and by["Ann"].played == 3


def test_full_ties_share_a_place_and_list_by_name() -> None:
    games = [GameRecord(1, "t1", "Zed", "Amy", 121, 100, "win"),
             GameRecord(1, "t2", "Bea", "Cal", 121, 100, "win")]
    rows = standings(["Zed", "Amy", "Bea", "Cal", "Dan"], games)
    assert [(r.place, r.name) for r in rows] == [(1, "Bea"), (1, "Zed"), (3, "Dan"),
                                                 (4, "Amy"), (4, "Cal")]


def test_a_bye_scores_what_the_director_sets() -> None:
    rows = standings(["Ann", "Bob", "Cy"], [GameRecord(1, "t1", "Ann", "Bob", 121, 100, "win")],
                     [Bye(1, "Cy")], bye_points=2, bye_spread=10)
    cy = next(r for r in rows if r.name == "Cy")
    assert (cy.game_points, cy.won, cy.played, cy.spread) == (2, 1, 1, 10)


def test_skunks_can_break_ties() -> None:
    games = [GameRecord(r, "t1", "Ann", "Bob", 121, 95, "win") for r in (1, 2, 3)]
    games += [GameRecord(r, "t2", "Cy", "Dee", 121, 90, "skunk") for r in (1, 2)]
    # Ann: 6 points, spread 78, no skunk; Cy: 6 points, spread 62, two skunks.
    plain = standings(["Ann", "Bob", "Cy", "Dee"], games, tiebreaks=("game_points", "spread"))
    skunks = standings(["Ann", "Bob", "Cy", "Dee"], games,
                       tiebreaks=("game_points", "skunks", "spread"))
    assert plain[0].name == "Ann" and skunks[0].name == "Cy"
    with pytest.raises(ValueError, match="'luck'"):
        standings(["Ann", "Bob"], [], tiebreaks=("luck",))


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="'Eve' is not a registered player"):
        standings(["Ann", "Bob"], [GameRecord(1, "t1", "Eve", "Bob", 121, 1, "win")])
    with pytest.raises(ValueError, match="'Ann' is registered twice"):
        standings(["Ann", "Bob", "Ann"], [])


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 120),
                          st.sampled_from(["win", "skunk", "double_skunk", "lurch"])),
                max_size=30))
def test_points_and_spreads_add_up(games: list[tuple[int, int, int, str]]) -> None:
    players = [f"p{i}" for i in range(6)]
    records = [GameRecord(1, "t", players[w], players[lo], 121, s, k)
               for w, lo, s, k in games if w != lo]
    rows = standings(players, records)
    assert sum(r.game_points for r in rows) == sum(game_points(g.kind, True) for g in records)
    assert sum(r.spread for r in rows) == 0
    assert sum(r.won for r in rows) == sum(r.lost for r in rows) == len(records)
    assert [r.place for r in rows] == sorted(r.place for r in rows)
