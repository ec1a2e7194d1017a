"""Pegging in the play: the texts' sequences, and a brute-force reference on random plays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage import (
    ALL_CARDS,
    Card,
    DuplicateCardError,
    IllegalPlayError,
    InvalidCardError,
    InvalidHandError,
    score_pegging,
)


def peg(text: str) -> tuple[int, int, int, int, int]:
    s = score_pegging(text.split())
    return (s.fifteen, s.thirty_one, s.pairs, s.run, s.total)


def test_how_to_play_worked_round() -> None:
    # Non-dealer 7, dealer 8 (15 for 2), non-dealer 6 (run of three), dealer 6 (pair),
    # non-dealer 4 (31 for 2); then 5, K (15 for 2), 5 (nothing: the dealer's 1 is for last).
    assert peg("7H") == (0, 0, 0, 0, 0)
    assert peg("7H 8C") == (2, 0, 0, 0, 2)
    assert peg("7H 8C 6D") == (0, 0, 0, 3, 3)
    assert peg("7H 8C 6D 6S") == (0, 0, 2, 0, 2)
    assert peg("7H 8C 6D 6S 4C") == (0, 2, 0, 0, 2)
    assert peg("5D KC") == (2, 0, 0, 0, 2)
    assert peg("5D KC 5S") == (0, 0, 0, 0, 0)


def test_statistics_text_first_example() -> None:
    # K 6 K 2 2: "30 for 3" is the pair of twos plus one for last (last is the play's).
    assert peg("KS 6H KD 2C") == (0, 0, 0, 0, 0)
    assert peg("KS 6H KD 2C 2D") == (0, 0, 2, 0, 2)
    # Second round: 8, 7 (fifteen two), 9 ("24 for 3": the run 7-8-9).
    assert peg("8C 7C") == (2, 0, 0, 0, 2)
    assert peg("8C 7C 9D") == (0, 0, 0, 3, 3)


def test_runs_in_any_order_and_foreign_cards() -> None:
    assert peg("4H 2H 3H") == (0, 0, 0, 3, 3)
    assert peg("4H 2H 3H 5H") == (0, 0, 0, 4, 4)
    assert peg("4H 2H 3H 5H 6H") == (0, 0, 0, 5, 5)
    assert peg("4H 2H 7H 3H") == (0, 0, 0, 0, 0)  # one stray card breaks it
    assert peg("QH KH AH") == (0, 0, 0, 0, 0)  # ace is low
    assert peg("8C 7D 7H 6S") == (0, 0, 0, 0, 0)  # USPC: the extra seven is foreign
    assert peg("9C 6D 8H 7S") == (0, 0, 0, 4, 4)  # USPC: 6 7 8 9 out of order


def test_runs_of_six_and_seven_and_the_pones_18() -> None:
    # Statistics text: 2, A, 3, 5, 4, 7, 6 gives pone runs of 3, 5 and 7 and a fifteen.
    plays = "2C AC 3C 5C 4C 7C 6C".split()
    got = [score_pegging(plays[: i + 1]) for i in range(len(plays))]
    assert [g.run for g in got] == [0, 0, 3, 0, 5, 0, 7]
    assert got[4].fifteen == 2  # 2+1+3+5+4 = 15
    pone = got[2].total + got[4].total + got[6].total
    assert pone + 1 == 18  # and one for the go
    assert peg("AC 2C 3C 4C 5C 6C") == (0, 0, 0, 6, 6)


def test_pair_royal_and_double_pair_royal_and_the_dealers_26() -> None:
    # Statistics text: 8, 7, 4, 4, go, 4, go, 4 — dealer pegs 2, 2, 6, 12 and 31 for 2.
    assert peg("8S 7D") == (2, 0, 0, 0, 2)
    assert peg("8S 7D 4C 4D") == (0, 0, 2, 0, 2)
    assert peg("8S 7D 4C 4D 4H") == (0, 0, 6, 0, 6)
    assert peg("8S 7D 4C 4D 4H 4S") == (0, 2, 12, 0, 14)
    assert 2 + 2 + 2 + 6 + 14 == 26  # heels + fifteen + pair + pair royal + (12 + 31 for 2)


def test_thirty_one_with_a_pair_or_run_both_count() -> None:
    s = score_pegging("KH 7S 7C 7D".split())  # 10 + 21 = 31, pair royal
    assert (s.thirty_one, s.pairs, s.total) == (2, 6, 8)
    assert s.say() == "thirty-one for two, and a pair royal is eight"
    s = score_pegging("KH QS 5C 3D AS 2C".split())  # 10+10+5+3+1+2 = 31, run A-2-3
    assert (s.count, s.thirty_one, s.run, s.total) == (31, 2, 3, 5)


def test_say() -> None:
    assert score_pegging("7H 8C".split()).say() == "fifteen two"
    assert score_pegging("7H 8C 6D 6S 4C".split()).say() == "thirty-one for two"
    assert score_pegging("KH QS 9C 2D".split()).say() == "thirty-one for two"
    assert score_pegging("KH 5S 8C 8D".split()).say() == "thirty-one for two, and a pair is four"
    assert score_pegging("5H 5S".split()).say() == "ten, a pair for two"
    assert score_pegging("5H KS 5S".split()).say() == "twenty"
    assert score_pegging("4C 6D 5H".split()).say() == "fifteen two, and a run of three is five"


def test_over_31_and_bad_input() -> None:
    with pytest.raises(IllegalPlayError, match="KH QH JH 2C is 32"):
        score_pegging("KH QH JH 2C".split())
    with pytest.raises(DuplicateCardError, match="7H"):
        score_pegging("7H 8C 7H".split())
    with pytest.raises(InvalidCardError, match="7X"):
        score_pegging("7X 8C".split())
    with pytest.raises(InvalidHandError):
        score_pegging([])


def test_json() -> None:
    data = score_pegging("KH 7S 7C 7D".split()).to_json()
    assert data == {
        "cards": ["KH", "7S", "7C", "7D"],
        "count": 31,
        "fifteen": 0,
        "thirty_one": 2,
        "pairs": 6,
        "run": 0,
        "total": 8,
        "say": "thirty-one for two, and a pair royal is eight",
    }


def slow_peg(cards: list[Card]) -> int:
    """Total for the last card by the definitions, written independently."""
    count = sum(min(int(c.rank), 10) for c in cards)
    points = (2 if count == 15 else 0) + (2 if count == 31 else 0)
    same = 0
    for c in reversed(cards):
        if c.rank != cards[-1].rank:
            break
        same += 1
    points += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for k in range(len(cards), 2, -1):
        ranks = sorted(int(c.rank) for c in cards[-k:])
        if ranks == list(range(ranks[0], ranks[0] + k)):
            points += k
            break
    return points


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=8, unique=True))
def test_matches_reference_and_is_sane(cards: list[Card]) -> None:
    # Keep the longest prefix under 31, as a play would.
    played: list[Card] = []
    for c in cards:
        if sum(min(int(x.rank), 10) for x in played) + min(int(c.rank), 10) > 31:
            break
        played.append(c)
    s = score_pegging(played)
    assert s.total == slow_peg(played)
    assert 0 <= s.total <= 2 + 12 + 7 and s.run in (0, 3, 4, 5, 6, 7)
    assert not (s.pairs and s.run)
