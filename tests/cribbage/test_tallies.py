"""A match as a score sheet reads it: one tally per hand and per game, from the engine's
records and its undo history (undone actions leave no trace)."""

from __future__ import annotations

from cribbage.game import Game
from cribbage.rules import ResultKind
from tests.cribbage.keeper_helpers import act, count, peg


def test_each_hand_has_its_dealer_its_points_by_kind_and_running_totals() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=0)
    k = act(k, peg(1, 2), peg(0, 1), count(8), {"type": "late_peg", "side": 0, "points": 1},
            count(12), count(5))  # Bob's hand 8, Ann's hand 12, Ann's crib 5
    k = act(k, peg(0, 3), {"type": "undo"}, peg(1, 4))  # the 3 was a mistake
    one, two = k.hand_tallies()
    assert (one.game, one.hand, one.dealer) == (1, 1, 0)
    assert (one.pegging, one.hand_counts, one.crib, one.muggins) == ((2, 2), (12, 8), (5, 0),
                                                                      (0, 0))
    assert one.totals == (19, 10)
    assert (two.hand, two.dealer, two.pegging, two.totals) == (2, 1, (0, 4), (19, 14))
    assert two.totals == k.scores


def test_each_game_of_a_match_has_its_result_and_the_next_starts_from_zero() -> None:
    k = Game.new("six-card", ("Ann", "Bob"), dealer=1, muggins=True)
    k = act(k, count(4), {"type": "muggins", "side": 1, "points": 2})  # Ann's hand, Bob muggins
    late = {"type": "late_peg", "side": 0, "points": 15}
    k = act(k, *[late] * 7)  # Ann at 109 with pegs forgotten in the play
    k = act(k, count(3), count(0))  # Bob's hand 3, Bob's crib 0 -> hand 2, Ann deals
    k = act(k, peg(0, 8))  # 4 + 105 + 8 = 117
    k = act(k, peg(0, 4))  # 121: Ann wins, Bob at 5 is double skunked
    assert k.result is not None and k.result.kind is ResultKind.DOUBLE_SKUNK
    k = act(k, {"type": "next_game"}, peg(1, 2))
    g1, g2 = k.game_tallies()
    assert (g1.game, g1.first_dealer, g1.scores, g1.hands) == (1, 1, (121, 5), 2)
    assert g1.result is not None and g1.result.winner == 0 and g1.result.game_points == 4
    assert (g2.game, g2.first_dealer, g2.result, g2.scores) == (2, 1, None, (0, 2))
    hands = k.hand_tallies()
    assert [(h.game, h.hand, h.dealer) for h in hands] == [(1, 1, 1), (1, 2, 0), (2, 1, 1)]
    assert hands[0].muggins == (0, 2) and hands[0].hand_counts == (4, 3)
    assert hands[0].pegging == (105, 0) and hands[0].crib == (0, 0)
    assert hands[1].totals == (121, 5) and hands[2].totals == (0, 2)
    # Read back from JSON (as after a restart), the sheet is the same.
    assert Game.from_json(k.to_json()).hand_tallies() == hands
