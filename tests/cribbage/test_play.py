"""The play state machine: worked examples from the rule texts, go rules, unknown hands."""

from __future__ import annotations

import pytest

from cribbage.cards import parse_cards
from cribbage.errors import IllegalPlayError, InvalidHandError
from cribbage.play import PlayState
from cribbage.rules import get_rules


def run(state: PlayState, moves: str) -> PlayState:
    """Apply moves written like "1:KH 0:6S 1:go" (player:card or player:go)."""
    for move in moves.split():
        who, what = move.split(":")
        state = state.go(int(who)) if what == "go" else state.play(what, int(who))
    return state


def two(dealer_hand: str, pone_hand: str) -> PlayState:
    """A two-player play: player 0 deals, player 1 (the pone) leads."""
    return PlayState.for_rules(get_rules("six-card"),
                               [parse_cards(dealer_hand), parse_cards(pone_hand)], dealer=0,
                               names=["Ann", "Bob"])


def events(state: PlayState) -> list[tuple[str, int, str, int]]:
    return [(e.kind, e.player, str(e.card) if e.card else "", e.points) for e in state.log]


def test_pagat_thirty_for_three() -> None:
    # cribbage-rules-and-hand-statistics.txt: A has K-K-2-2, B has 9-8-7-6; A leads.
    state = two("9C 8D 7H 6S", "KH KS 2C 2D")
    state = run(state, "1:KH 0:6S 1:KS 0:go 1:2C 1:2D")
    # "30 for 3": 2 for the pair of twos and 1 for last.
    assert events(state)[-2:] == [("play", 1, "2D", 2), ("last", 1, "", 1)]
    assert state.scores == (0, 3)
    assert state.count == 0 and state.to_play == 0  # B leads the second round
    state = run(state, "0:8D 0:7H")
    assert state.scores == (2, 3)  # "fifteen two"
    state = run(state, "0:9C")
    # "24 for 3 and 1 for last"
    assert events(state)[-2:] == [("play", 0, "9C", 3), ("last", 0, "", 1)]
    assert state.scores == (6, 3)
    assert state.done and state.legal_actions() == []


def test_dealers_twenty_six_point_play() -> None:
    # Dealer 4,4,4,7; pone 4,8,10,K; play 8, 7, 4, 4, go, 4, go, 4; K, 10.
    state = two("4C 4D 4H 7S", "4S 8C 10D KH")
    state = run(state, "1:8C 0:7S 1:4S 0:4C 1:go 0:4D 0:4H")
    kinds = events(state)
    assert ("play", 0, "7S", 2) in kinds  # fifteen
    assert ("play", 0, "4C", 2) in kinds  # pair
    assert ("play", 0, "4D", 6) in kinds  # pair royal
    assert ("play", 0, "4H", 14) in kinds  # double pair royal and 31, never also last
    assert not any(k == "last" for k, *_ in kinds)
    state = run(state, "1:KH 1:10D")
    assert state.done
    # 24 in the play; with two for his heels (the game's) that is the 26 of the text.
    assert state.scores == (24, 1)


def test_pones_eighteen_point_play() -> None:
    # Pone 2,3,4,6 and dealer A,5,7 plus a card of 4 or more: 2,A,3,5,4,7,6 then a go.
    state = two("AC 5D 7H 9S", "2C 3D 4H 6S")
    state = run(state, "1:2C 0:AC 1:3D 0:5D 1:4H 0:7H 1:6S")
    assert [e.points for e in state.log if e.player == 1] == [0, 3, 7, 7]
    state = run(state, "0:go")
    assert state.scores[1] == 18  # runs of 3, 5 and 7, fifteen, and one for the go
    assert state.to_play == 0 and state.count == 0
    state = run(state, "0:9S")
    assert state.done and state.scores == (1, 18)


def test_how_to_play_worked_round() -> None:
    # You (non-dealer) hold 7, 6, 4, K; the dealer 8, 6, 5, 5.
    state = two("8C 6D 5H 5S", "7H 6S 4C KD")
    state = run(state, "1:7H 0:8C 1:6S 0:6D 1:4C")
    assert state.count == 0 and state.to_play == 0  # 31: the dealer leads next
    assert [e.points for e in state.log] == [0, 2, 3, 2, 2]
    state = run(state, "0:5H 1:KD 0:5S")
    assert state.done
    assert state.scores == (5, 7)  # "you pegged 7 and the dealer pegged 5"


def test_uspc_examples_foreign_card_and_out_of_order_run() -> None:
    state = run(two("7C 7D 2C 3C", "8H 6S AC AD"), "1:8H 0:7C 1:6S")
    assert [e.points for e in state.log] == [0, 2, 3]  # 8, 7, 6: fifteen, then a run of 3
    state = run(two("7C 6D 2C 3C", "8H 7S AC AD"), "1:8H 0:7C 1:7S 0:6D")
    assert [e.points for e in state.log] == [0, 2, 2, 0]  # the extra seven breaks the run
    state = run(two("6C 7D 2C 3C", "9H 8S AC AD"), "1:9H 0:6C 1:8S 0:7D")
    assert [e.points for e in state.log] == [0, 2, 0, 4]  # 9, 6, 8, 7: a run of four


def test_thirty_one_with_a_pair_royal() -> None:
    state = run(two("6C 5D 2C 3C", "KH 5H 5S AD"), "1:KH 0:6C 1:5H 0:5D 1:5S")
    assert events(state)[-1] == ("play", 1, "5S", 8)  # pair royal 6 and 31 for 2
    assert state.count == 0 and state.to_play == 0  # the other player leads the next series


def test_cards_that_are_not_adjacent_do_not_pair() -> None:
    state = run(two("6C 2D 2C 3C", "5H 5S AC AD"), "1:5H 0:6C 1:5S")
    assert state.log[-1].points == 0 and state.count == 16


def test_the_player_who_gets_the_go_plays_on_and_scores() -> None:
    state = run(two("KC 5C 5D 9C", "KH QH AD 2D"), "1:KH 0:KC 1:QH 0:go")
    assert state.to_play == 1  # Bob gets the go and must play on if he can
    with pytest.raises(IllegalPlayError, match="Bob cannot say go: the count is 30 and Bob "
                                               "can play AD to make 31"):
        state.go(1)
    assert state.legal_actions() == [{"type": "play", "player": 1, "card": "AD"}]
    state = state.play("AD", 1)
    assert events(state)[-1] == ("play", 1, "AD", 2)  # 31 for 2, never also 1 for last
    assert state.scores == (2, 2) and state.to_play == 0


def test_illegal_play_names_the_card_and_the_count_and_changes_nothing() -> None:
    state = run(two("KC 5C 5D 9C", "KH 5H 3C 2D"), "1:KH 0:KC 1:5H")
    before = state.to_json()
    with pytest.raises(IllegalPlayError, match="Ann cannot play 9C: the count is 25 and 9C "
                                               "would make 34"):
        state.play("9C", 0)
    with pytest.raises(IllegalPlayError, match="Bob cannot play 3C: it is Ann's turn"):
        state.play("3C", 1)
    with pytest.raises(IllegalPlayError, match="Ann cannot play 4C: Ann holds"):
        state.play("4C", 0)
    with pytest.raises(IllegalPlayError, match="Ann cannot say go: the count is 25"):
        state.go(0)
    assert state.to_json() == before


def three(go_rule: str) -> PlayState:
    # Player 0 deals; player 1 leads.
    rules = get_rules("three-player", go_rule=go_rule)
    hands = [parse_cards("5C 5D"), parse_cards("KH 9C"), parse_cards("KS 8D")]
    return PlayState.for_rules(rules, hands, dealer=0)


def test_three_player_go_continue_rule() -> None:
    state = run(three("continue"), "1:KH 2:KS 0:5C 1:go 2:go")
    assert state.to_play == 0  # the third player still plays on
    state = run(state, "0:5D")  # pair, and out of cards: one for last
    assert events(state)[-2:] == [("play", 0, "5D", 2), ("last", 0, "", 1)]
    assert state.to_play == 1  # left of the last player leads
    state = run(state, "1:9C 2:8D")
    assert state.done and state.scores == (3, 0, 3)


def test_three_player_go_uspc_rule() -> None:
    state = run(three("uspc"), "1:KH 2:KS 0:5C 1:go 2:go")
    # The first player after the go could not play, so the next does not play.
    assert events(state)[-1] == ("last", 0, "", 1)
    assert state.count == 0 and state.to_play == 1
    state = run(state, "1:9C 2:8D 0:5D")
    assert state.done and state.scores == (2, 0, 2)


def test_four_player_partners_skip_players_out_of_cards() -> None:
    rules = get_rules("four-player")
    hands = [parse_cards("AC"), parse_cards("KH 2C"), parse_cards("QS 3C"), parse_cards("10D")]
    state = PlayState.for_rules(rules, hands, dealer=0)
    state = run(state, "1:KH 2:QS 3:10D")  # 30, and K Q 10 is no run
    assert state.to_play == 0
    state = run(state, "0:AC")  # 31 for 2; players 0 and 3 are out of cards
    assert events(state)[-1] == ("play", 0, "AC", 2)
    assert state.to_play == 1  # left of the last player, who has cards
    state = run(state, "1:2C 2:3C")
    assert state.done and state.scores == (2, 0, 1, 0)


def test_five_card_single_round_leaves_cards_unplayed() -> None:
    rules = get_rules("five-card")
    state = PlayState.for_rules(rules, [parse_cards("KC QC 9D"), parse_cards("KH 5S 8C")],
                                dealer=0)
    state = run(state, "1:KH 0:KC 1:5S 0:go 1:go")
    assert state.done
    assert state.scores == (2, 1)  # Ann's pair; Bob's 1 for last ends the play
    assert state.left == (2, 1) and state.hands[0] == parse_cards("QC 9D")


def test_unknown_hands_record_gos_and_report_false_ones() -> None:
    rules = get_rules("six-card")
    state = PlayState.for_rules(rules, [None, None], dealer=0, names=["Ann", "Bob"],
                                seen=["5D"])
    assert state.left == (4, 4)
    with pytest.raises(IllegalPlayError, match="already been seen"):
        state.play("5D", 1)
    with pytest.raises(IllegalPlayError, match="any card can be played"):
        state.go(1)
    state = run(state, "1:KH 0:QS 1:5C 0:go 1:4H 1:go")  # neither go can be checked yet
    assert [(g.player, g.count) for g in state.gos] == [(0, 25), (1, 29)]
    assert events(state)[-1] == ("last", 1, "", 1)
    state = run(state, "0:9S 1:8H 0:8S 0:go 0:7S")
    assert state.done and state.scores == (4, 1)
    honest = [parse_cards("QS 9S 8S 7S"), parse_cards("KH 5C 4H 8H")]
    assert state.false_gos(honest) == []
    assert state.false_gos([None, None]) == []
    with pytest.raises(InvalidHandError, match="lacks 9S"):
        state.false_gos([parse_cards("QS 2C 8S 7S"), None])
    with pytest.raises(InvalidHandError, match="held 4 cards, but 3 were shown"):
        state.false_gos([parse_cards("QS 9S 8S"), None])


def test_false_go_is_found_when_the_hand_is_shown() -> None:
    state = PlayState.for_rules(get_rules("six-card"), [None, None], dealer=0)
    state = run(state, "1:KH 0:QS 1:5C 0:go 1:4H 1:go")
    state = run(state, "0:9S 1:8H 0:3C 0:7S")
    assert state.done
    false = state.false_gos([parse_cards("QS 9S 3C 7S"), parse_cards("KH 5C 4H 8H")])
    # Ann said go at 25 holding the 3C (28); Bob's go at 29 with the 8H and 3D was true.
    assert [(f.player, f.count, f.playable) for f in false] == [(0, 25, parse_cards("3C"))]


def test_json_round_trip_mid_play() -> None:
    state = run(three("uspc"), "1:KH 2:KS 0:5C 1:go")
    again = PlayState.from_json(state.to_json())
    assert again == state
    assert run(again, "2:go").to_json() == run(state, "2:go").to_json()


def test_how_to_play_runs_in_any_order_and_a_stray_card() -> None:
    state = run(two("2C 5D 9C 9D", "4H 3S 6H KD"), "1:4H 0:2C 1:3S 0:5D 1:6H")
    assert [e.points for e in state.log] == [0, 0, 3, 4, 5]  # 4 2 3, then 5, then 6
    state = run(two("2C 3D 9C 9D", "4H 7S 6H KD"), "1:4H 0:2C 1:7S 0:3D")
    assert state.log[-1].points == 0  # 4, 2, 7, 3 is nothing


def test_json_round_trip_with_unknown_hands_and_recorded_gos() -> None:
    state = PlayState.for_rules(get_rules("four-player"), [None, ["KH", "5C"], None, 3],
                                dealer=0, seen=["5D"])
    state = run(state, "1:KH 2:QS 3:5H 0:4C 1:go")
    assert state.gos == ()  # a known hand's go is checked at once
    again = PlayState.from_json(state.to_json())
    assert again == state and again.hands[1] == parse_cards("5C")
    with pytest.raises(InvalidHandError, match="not a play record"):
        PlayState.from_json({"hands": []})
