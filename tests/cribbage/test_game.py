"""The game machine with every card known ("dealt" mode): deal to show, the end at the target,
muggins, matches, random games."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.actions import parse_action
from cribbage.cards import ALL_CARDS, parse_cards
from cribbage.errors import IllegalPlayError, InvalidActionError
from cribbage.game import Game, Phase
from cribbage.rules import RULES, ResultKind
from cribbage.simulate import deal_action, legal_moves, random_action
from tests.cribbage.keeper_helpers import act


def new(variant: str = "six-card", names: Any = ("Ann", "Bob"), **options: Any) -> Game:
    return Game.new(variant, names, mode="dealt", **options)


def at(k: Game, *fronts: int) -> Game:
    """The same game with the front pegs moved (to test the end of a game)."""
    return replace(k, core=replace(k.core, fronts=fronts))


def plays(k: Game, moves: str) -> Game:
    """Apply play moves written like "1:KH 0:go"."""
    for move in moves.split():
        who, what = move.split(":")
        action: dict[str, Any] = {"type": "go", "player": int(who)} if what == "go" else {
            "type": "play", "player": int(who), "card": what}
        k = k.apply(parse_action(action))
    return k


def worked_hand(**options: Any) -> Game:
    """how-to-play-cribbage.txt's worked hand: Ann (0) deals, Bob (1) holds 7, 6, 4, K."""
    return act(
        new(dealer=0, **options),
        {"type": "deal", "hands": [["8C", "6D", "5H", "5S", "9H", "QS"],
                                   ["7H", "6S", "4C", "KD", "2C", "3D"]]},
        {"type": "discard", "player": 1, "cards": ["2C", "3D"]},
        {"type": "discard", "player": 0, "cards": ["9H", "QS"]},
        {"type": "starter", "card": "5D"},
    )


PLAY = "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S"


def test_the_worked_hand_from_deal_to_show() -> None:
    k = worked_hand()
    assert k.phase is Phase.PLAY and k.legal_actions() == ["play", "undo"]
    k = plays(k, PLAY)
    assert k.scores == (5, 7) and k.legal_actions()[0] == "count"
    assert k.next_count()["label"] == "Bob's hand"  # the non-dealer counts first
    k = k.apply(parse_action({"type": "count"}))
    assert k.scores == (5, 15) and k.last_count.true_total == 8
    k = k.apply(parse_action({"type": "count"}))
    assert k.scores == (13, 15) and k.next_count()["label"] == "Ann's crib"
    k = k.apply(parse_action({"type": "count"}))
    # "you pegged 7 and counted 8, 15 in all. The dealer pegged 5, counted 8 and took 4"
    assert k.scores == (17, 15) and k.backs == (13, 7)
    assert k.phase is Phase.DEAL and k.dealer == 1 and k.hand_number == 2


def test_dealers_twenty_six_with_his_heels() -> None:
    k = act(
        new(dealer=0),
        {"type": "deal", "hands": [["4C", "4D", "4H", "7S", "2C", "2D"],
                                   ["4S", "8C", "10D", "KH", "3C", "3D"]]},
        {"type": "discard", "player": 0, "cards": ["2C", "2D"]},
        {"type": "discard", "player": 1, "cards": ["3C", "3D"]},
        {"type": "starter", "card": "JH"},
    )
    assert k.scores == (2, 0)  # two for his heels, at once
    k = plays(k, "1:8C 0:7S 1:4S 0:4C 1:go 0:4D 0:4H 1:KH 1:10D")
    assert k.scores == (26, 1)


def test_heels_can_end_the_game_before_a_card_is_played() -> None:
    k = act(new(dealer=0), deal_action(new(dealer=0), random.Random(1)))
    k = act(k, *[{"type": "discard", "player": p, "cards": [str(c) for c in k.hands[p][:2]]}
                 for p in (0, 1)])
    jack = next(c for c in k.stock if c.rank == 11)
    k = at(k, 119, 80).apply(parse_action({"type": "starter", "card": str(jack)}))
    assert k.phase is Phase.OVER and k.scores == (121, 80)
    assert k.result.kind is ResultKind.SKUNK and k.result.game_points == 2
    assert k.match_points == (2, 0) and k.games_won == (1, 0)
    assert k.legal_actions() == ["next_game", "undo"]
    with pytest.raises(IllegalPlayError, match="the game is over"):
        k.apply(parse_action({"type": "play", "player": 1, "card": str(k.hands[1][0])}))


def test_game_ends_the_instant_a_side_pegs_out_in_the_play() -> None:
    k = plays(at(worked_hand(), 100, 118), "1:7H 0:8C 1:6S")  # Bob's run of three: 121
    assert k.phase is Phase.OVER and k.scores == (102, 121)
    assert k.result.winner == 1 and k.result.kind is ResultKind.WIN


def test_non_dealer_counts_out_before_the_dealer_counts_and_stops_in_the_game_hole() -> None:
    k = at(plays(worked_hand(), PLAY), 119, 115)
    k = k.apply(parse_action({"type": "count"}))
    # Bob's 8 would make 123: a board has no hole past 121, so his front peg stops there.
    assert k.phase is Phase.OVER and k.scores == (119, 121) and k.backs[1] == 115
    assert k.result.winner == 1 and k.result.scores == (119, 121)
    assert k.records[-1].points == 6  # what moved the peg


def test_muggins_on_lets_the_opponent_claim_missed_points() -> None:
    k = plays(worked_hand(muggins=True), PLAY)
    assert k.scores == (5, 7)
    with pytest.raises(IllegalPlayError, match="Bob's hand makes 8, so it cannot be counted as 10"):
        k.apply(parse_action({"type": "count", "points": 10}))
    k = k.apply(parse_action({"type": "count", "points": 6}))
    assert k.scores == (5, 13) and "muggins" in k.legal_actions()
    with pytest.raises(IllegalPlayError, match="opponent"):
        k.apply(parse_action({"type": "muggins", "side": 1}))
    k = k.apply(parse_action({"type": "muggins", "side": 0}))  # takes all that was missed
    assert k.scores == (7, 13) and "muggins" not in k.legal_actions()
    # A short count not claimed before the next action is lost.
    k = k.apply(parse_action({"type": "count", "points": 19}))  # "nineteen": nothing
    assert k.scores == (7, 13) and k.last_count.missed == 8
    k = k.apply(parse_action({"type": "count"}))
    assert "muggins" not in k.legal_actions() and k.scores == (11, 13)


def test_muggins_on_the_crib_is_open_until_the_next_deal() -> None:
    k = act(plays(worked_hand(muggins=True), PLAY), {"type": "count"}, {"type": "count"},
            {"type": "count", "points": 2})  # the crib makes 4
    assert k.phase is Phase.DEAL and "muggins" in k.legal_actions()
    assert act(k, {"type": "muggins", "side": 1}).scores == (15, 17)


def test_muggins_off_refuses_a_wrong_claim_with_the_true_count() -> None:
    k = plays(worked_hand(), PLAY)
    with pytest.raises(IllegalPlayError, match="makes 8, not 2") as info:
        k.apply(parse_action({"type": "count", "points": 2}))
    assert info.value.say == "Bob's hand makes 8, not 2."
    assert k.apply(parse_action({"type": "count", "points": 8})).scores == (5, 15)


def test_a_go_with_a_card_that_fits_is_refused_naming_the_card() -> None:
    k = plays(worked_hand(), "1:7H 0:8C 1:6S 0:6D")  # count 27; Bob holds 4C KD
    with pytest.raises(IllegalPlayError, match="a go is not possible") as info:
        k.apply(parse_action({"type": "go", "player": 1}))
    assert info.value.say == "You can't say go: the 4♣ fits (count 31)."
    with pytest.raises(IllegalPlayError) as info:
        k.apply(parse_action({"type": "play", "player": 0, "card": "5H"}))
    assert info.value.say == "It's Bob's turn to play."


def test_cut_for_deal_low_card_deals_and_a_tie_cuts_again() -> None:
    k = new()
    assert k.legal_actions() == ["cut", "dealer"]
    with pytest.raises(IllegalPlayError, match="Ann and Bob tie for the lowest card"):
        k.apply(parse_action({"type": "cut", "cards": ["4H", "4S"]}))
    with pytest.raises(IllegalPlayError, match="twice"):
        k.apply(parse_action({"type": "cut", "cards": ["4H", "4H"]}))
    k = k.apply(parse_action({"type": "cut", "cards": ["KH", "2S"]}))
    assert k.dealer == 1 and k.phase is Phase.DEAL


def test_five_card_gives_three_to_the_first_non_dealer_and_the_loser_deals_next() -> None:
    # the higher card deals
    k = new("five-card").apply(parse_action({"type": "cut", "cards": ["9H", "AS"]}))
    assert k.dealer == 0 and k.scores == (0, 3)
    k = act(
        at(k, 58, 20),
        {"type": "deal", "hands": [["KC", "QC", "9D", "2H", "3H"], ["KH", "5S", "8C", "4D",
                                                                    "6D"]]},
        {"type": "discard", "player": 0, "cards": ["2H", "3H"]},
        {"type": "discard", "player": 1, "cards": ["4D", "6D"]},
        {"type": "starter", "card": "AS"},
    )
    k = plays(k, "1:KH 0:KC")  # Ann's pair: 60
    k = plays(k, "1:5S 0:go 1:go")  # the single round ends; unplayed cards stay
    assert k.play.done and k.scores == (60, 21)
    k = k.apply(parse_action({"type": "count"}))  # Bob: K 5 8 A: 15 two
    assert k.scores == (60, 23)
    k = k.apply(parse_action({"type": "count"}))  # Ann: K Q 9 with the A: nothing
    assert k.scores == (60, 23) and k.next_count()["kind"] == "crib"
    k = k.apply(parse_action({"type": "count"}))  # the crib's run of A 2 3 4 takes Ann out
    assert k.phase is Phase.OVER and k.result.winner == 0
    assert k.result.kind is ResultKind.SKUNK  # Bob under 31 in a game of 61
    k = k.apply(parse_action({"type": "next_game"}))
    assert k.dealer == 1 and k.scores == (3, 0) and k.match_points == (2, 0)
    assert k.games_won == (1, 0) and k.phase is Phase.DEAL


def test_three_player_show_order_and_four_player_partners_share_a_score() -> None:
    three = new("three-player", ["A", "B", "C"], dealer=1)
    assert [(e["kind"], e["player"]) for e in three.show_order()] == [
        ("hand", 2), ("hand", 0), ("hand", 1), ("crib", 1)]
    four = new("four-player", ["A", "B", "C", "D"], dealer=3)
    assert four.show_order()[0]["player"] == 0 and len(four.scores) == 2
    rng = random.Random(7)
    while four.play is None or not four.play.done:
        four = four.apply(parse_action(random_action(four, rng)))
    pegged = [0, 0, 0, 0]
    for e in four.play.log:
        pegged[e.player] += e.points
    assert four.scores == (pegged[0] + pegged[2], pegged[1] + pegged[3])


def test_bad_actions_name_the_problem_and_change_nothing() -> None:
    k = worked_hand()
    before = k.to_json()
    with pytest.raises(IllegalPlayError, match="Ann cannot play 8C: it is Bob's turn"):
        k.apply(parse_action({"type": "play", "player": 0, "card": "8C"}))
    with pytest.raises(IllegalPlayError, match="count refused: the play is not finished"):
        k.apply(parse_action({"type": "count"}))
    with pytest.raises(InvalidActionError, match="unknown action type 'shuffle'"):
        k.apply(parse_action({"type": "shuffle"}))
    with pytest.raises(InvalidActionError, match="play needs 'card'"):
        k.apply(parse_action({"type": "play", "player": 1}))
    assert k.to_json() == before
    fresh = new(dealer=0)
    with pytest.raises(IllegalPlayError, match="Bob gets 6 cards in six-card, not 5"):
        fresh.apply(parse_action({"type": "deal", "hands": [["AC", "2C", "3C", "4C", "5C", "6C"],
                                               ["AD", "2D", "3D", "4D", "5D"]]}))
    with pytest.raises(IllegalPlayError, match="AC"):
        fresh.apply(parse_action({"type": "deal", "hands": [["AC", "2C", "3C", "4C", "5C", "6C"],
                                               ["AC", "2D", "3D", "4D", "5D", "6D"]]}))


def play_random_game(variant: str, seed: int, *, options: dict[str, Any] | None = None,
                     keep_every: int = 0) -> tuple[Game, list[Game]]:
    """Play one game choosing uniformly among legal actions; check invariants on the way."""
    rng = random.Random(seed)
    rules = RULES[variant]
    k = new(variant, [f"P{i}" for i in range(rules.players)], **(options or {}))
    kept: list[Game] = []
    steps = 0
    while k.phase is not Phase.OVER:
        assert max(k.scores) < k.rules.target  # nobody is at the target mid-game
        if k.phase in (Phase.DISCARD, Phase.PLAY, Phase.SHOW) and k.hands:
            cards = [c for h in k.hands for c in h] + list(k.crib) + list(k.stock)
            cards += [k.starter] if k.starter is not None else []
            assert len(cards) == 52 and set(cards) == set(ALL_CARDS)
        if k.play is not None and not k.play.done:
            for p, hand in enumerate(k.hands):
                held = k.play.hands[p] or ()
                assert set(held) | set(k.play.played_by(p)) == set(hand)
        previous = k
        k = k.apply(parse_action(random_action(k, rng)))
        assert all(b >= a for a, b in zip(previous.scores, k.scores, strict=True))
        steps += 1
        if keep_every and steps % keep_every == 0:
            kept.append(k)
        assert steps < 5000
    return k, kept


@pytest.mark.parametrize("variant", sorted(RULES))
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32))
def test_random_games_conserve_cards_and_end_at_the_target(variant: str, seed: int) -> None:
    options = {"muggins": True} if seed % 2 else {"go_rule": "uspc"}
    k, _ = play_random_game(variant, seed, options=options)
    target = k.rules.target
    assert k.result is not None
    assert [i for i, s in enumerate(k.scores) if s >= target] == [k.result.winner]
    assert max(k.scores) == target  # the winner's peg is in the game hole
    assert sum(k.match_points) == k.result.game_points and sum(k.games_won) == 1
    assert all(sum(r.points for r in k.records if r.side == i) == s
               for i, s in enumerate(k.scores))
    again = k.apply(parse_action({"type": "next_game"}))
    assert again.phase is Phase.DEAL and max(again.scores) <= 3


@pytest.mark.parametrize("variant", sorted(RULES))
def test_json_round_trip_of_states_from_random_games(variant: str) -> None:
    options = {"muggins": True, "go_rule": "uspc", "double_skunk_games": 3}
    _, states = play_random_game(variant, 1234, options=options, keep_every=17)
    assert len(states) > 4
    phases = Counter(s.phase for s in states)
    assert phases[Phase.PLAY] and phases[Phase.SHOW]
    rng = random.Random(5)
    for k in states:
        again = Game.from_json(json.loads(json.dumps(k.to_json())))
        assert again == k and again.view() == k.view()
        assert legal_moves(again) == legal_moves(k)
        if k.phase is not Phase.OVER:
            action = random_action(k, random.Random(rng.random()))
            assert again.apply(parse_action(action)) == k.apply(parse_action(action))


def test_rng_only_in_the_action_helpers() -> None:
    k = new("three-player", ["A", "B", "C"], dealer=0)
    a = deal_action(k, random.Random(3))
    assert a == deal_action(k, random.Random(3))
    dealt = k.apply(parse_action(a))
    assert len(dealt.crib) == 1 and all(len(h) == 5 for h in dealt.hands)
    assert parse_cards(a["crib"]) == dealt.crib
