"""The game state machine: deal to show, the end at the target, muggins, matches, random games."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage.cards import ALL_CARDS, parse_cards
from cribbage.errors import DuplicateCardError, IllegalPlayError
from cribbage.game import (
    GameState,
    Phase,
    apply,
    deal_action,
    legal_actions,
    legal_moves,
    random_action,
)
from cribbage.rules import RULES, ResultKind


def act(state: GameState, *actions: dict[str, Any]) -> GameState:
    for action in actions:
        state = apply(state, action)
    return state


def plays(state: GameState, moves: str) -> GameState:
    """Apply play moves written like "1:KH 0:go"."""
    for move in moves.split():
        who, what = move.split(":")
        action: dict[str, Any] = {"type": "go", "player": int(who)} if what == "go" else {
            "type": "play", "player": int(who), "card": what}
        state = apply(state, action)
    return state


def worked_hand(**options: Any) -> GameState:
    """how-to-play-cribbage.txt's worked hand: Ann (0) deals, Bob (1) holds 7, 6, 4, K."""
    state = GameState.new("six-card", ["Ann", "Bob"], dealer=0, **options)
    return act(
        state,
        {"type": "deal", "hands": [["8C", "6D", "5H", "5S", "9H", "QS"],
                                   ["7H", "6S", "4C", "KD", "2C", "3D"]]},
        {"type": "discard", "player": 1, "cards": ["2C", "3D"]},
        {"type": "discard", "player": 0, "cards": ["9H", "QS"]},
        {"type": "starter", "card": "5D"},
    )


def test_the_worked_hand_from_deal_to_show() -> None:
    state = worked_hand()
    assert state.phase is Phase.PLAY and legal_actions(state) == ["play"]
    state = plays(state, "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S")
    assert state.phase is Phase.SHOW and state.scores == (5, 7)
    assert state.next_count == ("hand", 1)  # the non-dealer counts first
    state = apply(state, {"type": "count"})
    assert state.scores == (5, 15) and state.last_count.true == 8
    state = apply(state, {"type": "count"})
    assert state.scores == (13, 15)
    assert state.next_count == ("crib", 0)
    state = apply(state, {"type": "count"})
    # "you pegged 7 and counted 8, 15 in all. The dealer pegged 5, counted 8 and took 4"
    assert state.scores == (17, 15) and state.backs == (13, 7)
    assert state.phase is Phase.DEAL and state.dealer == 1 and state.hand_number == 2


def test_dealers_twenty_six_with_his_heels() -> None:
    state = GameState.new("six-card", ["Ann", "Bob"], dealer=0)
    state = act(
        state,
        {"type": "deal", "hands": [["4C", "4D", "4H", "7S", "2C", "2D"],
                                   ["4S", "8C", "10D", "KH", "3C", "3D"]]},
        {"type": "discard", "player": 0, "cards": ["2C", "2D"]},
        {"type": "discard", "player": 1, "cards": ["3C", "3D"]},
        {"type": "starter", "card": "JH"},
    )
    assert state.scores == (2, 0)  # two for his heels, at once
    state = plays(state, "1:8C 0:7S 1:4S 0:4C 1:go 0:4D 0:4H 1:KH 1:10D")
    assert state.scores == (26, 1)


def test_heels_can_end_the_game_before_a_card_is_played() -> None:
    state = GameState.new("six-card", ["Ann", "Bob"], dealer=0)
    state = act(state, deal_action(state, random.Random(1)))
    state = act(state, *[{"type": "discard", "player": p, "cards": [str(c) for c in
                                                                    state.hands[p][:2]]}
                         for p in (0, 1)])
    jack = next(c for c in state.stock if c.rank == 11)
    state = replace(state, scores=(119, 80))
    state = apply(state, {"type": "starter", "card": str(jack)})
    assert state.phase is Phase.OVER and state.scores == (121, 80)
    assert state.result.kind is ResultKind.SKUNK and state.result.game_points == 2
    assert state.games_won == (2, 0)
    assert legal_actions(state) == ["next_game"]
    with pytest.raises(IllegalPlayError, match="cannot play now"):
        apply(state, {"type": "play", "player": 1, "card": str(state.hands[1][0])})


def test_game_ends_the_instant_a_side_pegs_out_in_the_play() -> None:
    state = replace(worked_hand(), scores=(100, 118))
    state = plays(state, "1:7H 0:8C 1:6S")  # Bob's run of three takes him to 121
    assert state.phase is Phase.OVER and state.scores == (102, 121)
    assert state.result.winner == 1 and state.result.kind is ResultKind.WIN


def test_non_dealer_counts_out_before_the_dealer_counts() -> None:
    state = plays(worked_hand(), "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S")
    state = replace(state, scores=(119, 115))
    state = apply(state, {"type": "count"})
    assert state.phase is Phase.OVER and state.scores == (119, 123)
    assert state.result.winner == 1  # the dealer's 8 and crib are never counted


def test_muggins_on_lets_the_opponent_claim_missed_points() -> None:
    state = plays(worked_hand(muggins=True), "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S")
    assert state.scores == (5, 7)
    with pytest.raises(IllegalPlayError, match="count 10 for Bob's hand: the cards count 8"):
        apply(state, {"type": "count", "points": 10})
    state = apply(state, {"type": "count", "points": 6})
    assert state.scores == (5, 13) and "muggins" in legal_actions(state)
    with pytest.raises(IllegalPlayError, match="cannot claim its own count"):
        apply(state, {"type": "muggins", "side": 1})
    state = apply(state, {"type": "muggins", "side": 0})
    assert state.scores == (7, 13) and "muggins" not in legal_actions(state)
    # A short count not claimed before the next action is lost.
    state = apply(state, {"type": "count", "points": 19})  # "nineteen": nothing
    assert state.scores == (7, 13) and state.muggins.points == 8
    state = apply(state, {"type": "count"})
    assert state.muggins is None and state.scores == (11, 13)


def test_muggins_off_pegs_the_true_count() -> None:
    state = plays(worked_hand(), "1:7H 0:8C 1:6S 0:6D 1:4C 0:5H 1:KD 0:5S")
    state = apply(state, {"type": "count", "points": 2})
    assert state.scores == (5, 15) and state.muggins is None
    assert state.last_count.claimed == 2 and state.last_count.pegged == 8


def test_cut_for_deal_low_card_deals_and_a_tie_cuts_again() -> None:
    state = GameState.new("six-card", ["Ann", "Bob"])
    assert legal_actions(state) == ["cut", "dealer"]
    with pytest.raises(IllegalPlayError, match="Ann and Bob tie low, cut again"):
        apply(state, {"type": "cut", "cards": ["4H", "4S"]})
    with pytest.raises(DuplicateCardError):
        apply(state, {"type": "cut", "cards": ["4H", "4H"]})
    state = apply(state, {"type": "cut", "cards": ["KH", "2S"]})
    assert state.dealer == 1 and state.phase is Phase.DEAL


def test_five_card_gives_three_to_the_first_non_dealer_and_the_loser_deals_next() -> None:
    state = GameState.new("five-card", ["Ann", "Bob"])
    state = apply(state, {"type": "cut", "cards": ["AH", "9S"]})
    assert state.dealer == 0 and state.scores == (0, 3)
    state = replace(state, scores=(58, 20))
    state = act(
        state,
        {"type": "deal", "hands": [["KC", "QC", "9D", "2H", "3H"], ["KH", "5S", "8C", "4D",
                                                                    "6D"]]},
        {"type": "discard", "player": 0, "cards": ["2H", "3H"]},
        {"type": "discard", "player": 1, "cards": ["4D", "6D"]},
        {"type": "starter", "card": "AS"},
    )
    state = plays(state, "1:KH 0:KC")  # Ann's pair: 60
    state = plays(state, "1:5S 0:go 1:go")  # the single round ends; unplayed cards stay
    assert state.phase is Phase.SHOW and state.scores == (60, 21)
    state = apply(state, {"type": "count"})  # Bob: K 5 8 A: 15 two
    assert state.scores == (60, 23)
    state = apply(state, {"type": "count"})  # Ann: K Q 9 with the A: nothing
    assert state.scores == (60, 23) and state.next_count == ("crib", 0)
    state = apply(state, {"type": "count"})  # the crib's run of A 2 3 4 takes Ann out
    assert state.phase is Phase.OVER and state.result.winner == 0
    assert state.result.kind is ResultKind.SKUNK  # Bob under 31 in a game of 61
    state = apply(state, {"type": "next_game"})
    assert state.dealer == 1 and state.scores == (3, 0) and state.games_won == (2, 0)
    assert state.phase is Phase.DEAL


def test_three_player_show_order_and_four_player_partners_share_a_score() -> None:
    three = GameState.new("three-player", ["A", "B", "C"], dealer=1)
    assert three.show_order == [("hand", 2), ("hand", 0), ("hand", 1), ("crib", 1)]
    four = GameState.new("four-player", ["A", "B", "C", "D"], dealer=3)
    assert four.show_order[0] == ("hand", 0) and len(four.scores) == 2
    rng = random.Random(7)
    while four.phase is not Phase.SHOW:
        four = apply(four, random_action(four, rng))
    pegged = [0, 0, 0, 0]
    for e in four.play.log:
        pegged[e.player] += e.points
    assert four.scores == (pegged[0] + pegged[2], pegged[1] + pegged[3])


def test_bad_actions_name_the_problem_and_change_nothing() -> None:
    state = worked_hand()
    before = state.to_json()
    with pytest.raises(IllegalPlayError, match="Ann cannot play 8C: it is Bob's turn"):
        apply(state, {"type": "play", "player": 0, "card": "8C"})
    with pytest.raises(IllegalPlayError, match="cannot count now: hand 1, Ann deals, phase play"):
        apply(state, {"type": "count"})
    with pytest.raises(IllegalPlayError, match="unknown action type 'shuffle'"):
        apply(state, {"type": "shuffle"})
    with pytest.raises(IllegalPlayError, match="names no card"):
        apply(state, {"type": "play", "player": 1})
    assert state.to_json() == before
    fresh = GameState.new("six-card", ["Ann", "Bob"], dealer=0)
    with pytest.raises(IllegalPlayError, match="Bob gets 6 cards in six-card, not 5"):
        apply(fresh, {"type": "deal", "hands": [["AC", "2C", "3C", "4C", "5C", "6C"],
                                                ["AD", "2D", "3D", "4D", "5D"]]})
    with pytest.raises(DuplicateCardError, match="AC"):
        apply(fresh, {"type": "deal", "hands": [["AC", "2C", "3C", "4C", "5C", "6C"],
                                                ["AC", "2D", "3D", "4D", "5D", "6D"]]})


def play_random_game(variant: str, seed: int, *, options: dict[str, Any] | None = None,
                     keep_every: int = 0) -> tuple[GameState, list[GameState]]:
    """Play one game choosing uniformly among legal actions; check invariants on the way."""
    rng = random.Random(seed)
    rules = RULES[variant]
    state = GameState.new(variant, [f"P{i}" for i in range(rules.players)], **(options or {}))
    kept: list[GameState] = []
    steps = 0
    while state.phase is not Phase.OVER:
        assert max(state.scores) < state.rules.target  # nobody is past the target mid-game
        if state.phase in (Phase.DISCARD, Phase.STARTER, Phase.PLAY, Phase.SHOW):
            cards = state.cards_accounted()
            assert len(cards) == 52 and set(cards) == set(ALL_CARDS)
        if state.phase is Phase.PLAY:
            for p, hand in enumerate(state.hands):
                held = state.play.hands[p]
                assert set(held) | set(state.play.played_by(p)) == set(hand)
        previous = state
        state = apply(state, random_action(state, rng))
        assert all(b >= a for a, b in zip(previous.scores, state.scores, strict=True))
        steps += 1
        if keep_every and steps % keep_every == 0:
            kept.append(state)
        assert steps < 5000
    return state, kept


@pytest.mark.parametrize("variant", sorted(RULES))
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32))
def test_random_games_conserve_cards_and_end_at_the_target(variant: str, seed: int) -> None:
    options = {"muggins": True} if seed % 2 else {"go_rule": "uspc"}
    state, _ = play_random_game(variant, seed, options=options)
    target = state.rules.target
    assert state.result is not None
    winners = [i for i, s in enumerate(state.scores) if s >= target]
    assert winners == [state.result.winner]
    assert sum(state.games_won) == state.result.game_points
    again = apply(state, {"type": "next_game"})
    assert again.phase is Phase.DEAL and max(again.scores) <= 3


@pytest.mark.parametrize("variant", sorted(RULES))
def test_json_round_trip_of_states_from_random_games(variant: str) -> None:
    _, states = play_random_game(variant, 1234, options={"muggins": True}, keep_every=7)
    assert len(states) > 10
    phases = Counter(s.phase for s in states)
    assert phases[Phase.PLAY] and phases[Phase.SHOW]
    rng = random.Random(5)
    for state in states:
        text = json.dumps(state.to_json())
        again = GameState.from_json(json.loads(text))
        assert again == state
        assert again.to_json() == state.to_json()
        assert legal_moves(again) == legal_moves(state)
        if state.phase is not Phase.OVER:
            action = random_action(state, random.Random(rng.random()))
            assert apply(again, action) == apply(state, action)


def test_rng_only_in_the_action_helpers() -> None:
    state = GameState.new("three-player", ["A", "B", "C"], dealer=0)
    a = deal_action(state, random.Random(3))
    assert a == deal_action(state, random.Random(3))
    dealt = apply(state, a)
    assert len(dealt.crib) == 1 and all(len(h) == 5 for h in dealt.hands)
    assert parse_cards(a["crib"]) == dealt.crib
