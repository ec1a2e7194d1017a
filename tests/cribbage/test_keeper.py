"""The scorekeeper: keeper mode (points entered) and cards mode (cards entered)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cribbage import Game
from cribbage.actions import parse_action
from cribbage.cards import ALL_CARDS
from cribbage.errors import (
    CribbageError,
    IllegalPlayError,
    ImpossibleScoreError,
    InvalidActionError,
)
from cribbage.game import MAX_PEG, possible_counts
from cribbage.rules import RULES
from cribbage.simulate import random_action
from tests.cribbage.keeper_helpers import act, count, peg

NAMES = {
    "six-card": ("Ann", "Bob"),
    "five-card": ("Ann", "Bob"),
    "three-player": ("Ann", "Bob", "Cy"),
    "four-player": ("Ann", "Bob", "Cy", "Di"),
}


def new(variant: str = "six-card", **kw: Any) -> Game:
    return Game.new(variant, NAMES[variant], **kw)


def fronts(k: Game) -> list[int]:
    return [s["front"] for s in k.view()["sides"]]


def roundtrip(k: Game) -> Game:
    return Game.from_json(json.loads(json.dumps(k.to_json())))


# ---- what a hand can count -----------------------------------------------------------------


def test_four_card_hands_and_cribs_count_0_to_29_except_19_25_26_27() -> None:
    for crib in (False, True):
        assert possible_counts(4, crib) == frozenset(range(30)) - {19, 25, 26, 27}


def test_five_card_hands_of_three_cards_top_out_at_20() -> None:
    # 5 5 5 with the fourth 5 as starter: eight for fifteens, twelve for the double pair royal.
    totals = possible_counts(3, False)
    assert max(totals) == 20
    assert totals == frozenset(range(16)) | {20}


def test_every_random_hand_counts_a_possible_total() -> None:
    from cribbage.scoring import score_hand

    rng = random.Random(7)
    for _ in range(3000):
        for variant, size in (("six-card", 4), ("five-card", 3)):
            cards = rng.sample(ALL_CARDS, size + 1)
            for crib in (False, True) if size == 4 else (False,):
                total = score_hand(cards[:-1], cards[-1], crib=crib, variant=variant).total
                assert total in possible_counts(size, crib)


# ---- setting up ----------------------------------------------------------------------------


def test_the_lowest_cut_deals_and_a_tie_for_lowest_is_refused() -> None:
    k = new("three-player")
    assert k.view()["phase"] == "cut" and k.legal_actions() == ["cut", "dealer"]
    with pytest.raises(IllegalPlayError, match="Ann and Cy tie for the lowest card"):
        k.apply(parse_action({"type": "cut", "cards": ["4H", "9C", "4S"]}))
    k2 = k.apply(parse_action({"type": "cut", "cards": ["KH", "9C", "AS"]}))
    assert k2.view()["dealer"] == 2 and k2.view()["crib_owner"] == 2
    # A tie that is not for lowest does not matter; the ace is low.
    k3 = k.apply(parse_action({"type": "cut", "cards": ["KH", "KC", "AS"]}))
    assert k3.view()["dealer"] == 2
    with pytest.raises(IllegalPlayError, match="one card per player"):
        k.apply(parse_action({"type": "cut", "cards": ["KH", "9C"]}))
    with pytest.raises(IllegalPlayError, match="twice"):
        k.apply(parse_action({"type": "cut", "cards": ["KH", "KH", "2C"]}))


def test_the_dealer_can_be_entered() -> None:
    k = act(new(), {"type": "dealer", "player": 1})
    assert k.view()["dealer"] == 1 and k.view()["phase"] == "play"
    with pytest.raises(IllegalPlayError, match="no player 2"):
        new().apply(parse_action({"type": "dealer", "player": 2}))


@pytest.mark.parametrize(
    ("variant", "dealer", "labels"),
    [
        ("six-card", 0, ["Bob's hand", "Ann's hand", "Ann's crib"]),
        ("five-card", 1, ["Ann's hand", "Bob's hand", "Bob's crib"]),
        ("three-player", 1, ["Cy's hand", "Ann's hand", "Bob's hand", "Bob's crib"]),
        ("four-player", 3, ["Ann's hand", "Bob's hand", "Cy's hand", "Di's hand",
                            "Di's crib"]),
    ],
)
def test_the_show_order_runs_from_the_dealers_left_to_the_dealer_then_the_crib(
    variant: str, dealer: int, labels: list[str]
) -> None:
    k = new(variant, dealer=dealer)
    order = k.view()["show_order"]
    assert [e["label"] for e in order] == labels
    assert not any(e["done"] for e in order)
    sides = [e["side"] for e in order]
    if variant == "four-player":  # partners sit opposite: 0 & 2 against 1 & 3
        assert sides == [0, 1, 0, 1, 1]
        assert k.view()["sides"][0]["name"] == "Ann & Cy"
    else:
        assert sides == [e["player"] for e in order]
    # Each count marks its entry done and moves the next count on.
    for i, label in enumerate(labels[:-1]):
        assert k.view()["next_count"]["label"] == label
        k = k.apply(parse_action(count(2)))
        assert [e["done"] for e in k.view()["show_order"]] == [j <= i for j in range(len(labels))]
    assert k.view()["next_count"]["label"] == labels[-1]
    k = k.apply(parse_action(count(2)))
    # After the crib the deal passes left and a new hand begins.
    v = k.view()
    assert v["dealer"] == (dealer + 1) % len(NAMES[variant]) and v["hand_number"] == 2
    assert v["phase"] == "play" and not any(e["done"] for e in v["show_order"])


def test_five_card_gives_the_first_non_dealer_three_at_the_start() -> None:
    k = new("five-card", dealer=0)
    assert fronts(k) == [0, 3]
    # Five-card: the higher card deals (USPC) and the loser of the cut pegs three.
    k = act(new("five-card"), {"type": "cut", "cards": ["2H", "QC"]})  # Bob cuts high, deals
    assert fronts(k) == [3, 0]
    assert k.view()["sides"][0]["back"] == 0
    assert fronts(new("six-card", dealer=0)) == [0, 0]


# ---- entering points -----------------------------------------------------------------------


def test_a_hand_of_two_players_pegs_and_counts_with_front_and_back_pegs() -> None:
    k = new(dealer=0)  # Ann deals; Bob counts first
    k = act(k, {"type": "heels"}, peg(1, 2), peg(0, 3), peg(1, 1))
    assert fronts(k) == [5, 3]
    assert [s["back"] for s in k.view()["sides"]] == [2, 2]
    k = act(k, count(8))  # Bob's hand
    assert k.view()["phase"] == "show" and "peg" not in k.legal_actions()
    k = act(k, count(19), count(4))  # Ann's hand is nineteen (nothing), her crib 4
    v = k.view()
    assert fronts(k) == [9, 11] and [s["back"] for s in v["sides"]] == [5, 3]
    assert v["last_count"]["label"] == "Ann's crib" and v["last_count"]["points"] == 4
    assert v["dealer"] == 1 and v["next_count"]["label"] == "Ann's hand"


def test_nineteen_means_a_zero_hand_and_is_not_a_scoring_move() -> None:
    k = act(new(dealer=0), count(6), count(19))
    assert fronts(k) == [0, 6]
    assert k.view()["last_count"]["points"] == 0
    assert k.view()["sides"][0]["back"] == 0


def test_a_count_takes_the_nothings_due_before_it_each_recorded_and_said() -> None:
    k = act(new("four-player", dealer=0), peg(1, 2))
    game, events = k.step(parse_action({"type": "count", "points": 6, "nineteens": 2}))
    # Bob's and Cy's hands were nothing; Di's counts 6: three counts, one step.
    assert [(e.label, e.points) for e in events if e.kind == "show"] == [
        ("Bob's hand", 0), ("Cy's hand", 0), ("Di's hand", 6)]
    assert "Bob's hand: 19 (nothing)." in [e.say for e in events]
    assert fronts(game) == [0, 8]
    assert [(r.player, r.kind, r.points) for r in game.game_records()] == [
        (None, "pegging", 2), (1, "hand", 0), (2, "hand", 0), (3, "hand", 6)]
    assert game.view()["next_count"]["label"] == "Ann's hand"
    assert roundtrip(game).view() == game.view()
    back, undone = game.step(parse_action({"type": "undo"}))  # one undo takes back all three
    assert back.view()["next_count"]["label"] == "Bob's hand" and fronts(back) == [0, 2]
    assert undone[0].say == ("Undone: Bob's hand: 19 (nothing), Cy's hand: 19 (nothing), "
                             "Di's hand: 6 (Bob & Di 8 → 2).")
    # Every count but the crib may be nothing: the crib is then the count, the hand is over.
    over = act(game, {"type": "count", "points": 4, "nineteens": 1})
    assert over.view()["hand_number"] == 2 and fronts(over) == [4, 8]
    assert [r.kind for r in over.game_records()][-2:] == ["hand", "crib"]


@pytest.mark.parametrize("nineteens,error,words", [
    (0, InvalidActionError, "1 or more"),
    (-1, InvalidActionError, "1 or more"),
    (5, IllegalPlayError, "4 counts follow Bob's hand"),
    (True, InvalidActionError, "whole number"),
])
def test_nothings_past_the_crib_or_not_a_count_of_them_are_refused(
    nineteens: Any, error: type[Exception], words: str
) -> None:
    k = new("four-player", dealer=0)
    with pytest.raises(error, match=words):
        k.apply(parse_action({"type": "count", "points": 6, "nineteens": nineteens}))
    assert k.view()["next_count"]["label"] == "Bob's hand"  # nothing changed


def test_the_count_after_the_nothings_is_one_its_own_hand_can_make() -> None:
    k = act(new("five-card", dealer=0), count(6))  # Ann's hand (three cards) is next
    with pytest.raises(ImpossibleScoreError, match="Ann's crib cannot count 25"):
        k.apply(parse_action({"type": "count", "points": 25, "nineteens": 1}))
    k = act(k, {"type": "count", "points": 24, "nineteens": 1})  # the crib: four cards
    assert fronts(k) == [24, 9] and k.view()["hand_number"] == 2  # Bob: 3 to start, 6


def test_nothings_are_entered_in_turn_with_muggins_on_and_by_cards_in_cards_mode() -> None:
    k = new(dealer=0, muggins=True)
    with pytest.raises(IllegalPlayError, match="with muggins on each count"):
        k.apply(parse_action({"type": "count", "points": 6, "nineteens": 1}))
    rng = random.Random(3)
    k = new(dealer=0, mode="dealt")  # the cards known: each hand is counted from its cards
    while "count" not in k.legal_actions():
        k = k.apply(parse_action(random_action(k, rng)))
    with pytest.raises(IllegalPlayError, match="kept by points"):
        k.apply(parse_action({"type": "count", "nineteens": 1}))


def with_crib(points: int, **more: Any) -> dict[str, Any]:
    """The action of counting the dealer's hand and crib as one total."""
    return {"type": "count", "points": points, "with_crib": True, **more}


def test_the_dealers_hand_and_crib_are_one_count_of_both_recorded_said_and_undone_as_one() -> None:
    k = act(new("four-player", dealer=0), peg(0, 2), count(4), count(6))  # Bob's, Cy's hands
    assert k.view()["count_with_crib"] is None  # Di's hand is due: not the dealer's
    k = act(k, count(8))  # Di's hand: Ann's hand and her crib are left, nothing between them
    assert k.view()["count_with_crib"] == {"kind": "hand_and_crib", "player": 0, "side": 0,
                                           "label": "Ann's hand and crib"}
    assert k.why_not(parse_action(with_crib(19))) is None
    game, events = k.step(parse_action(with_crib(19)))  # a total: 19 is not nothing here
    assert [(e.kind, e.label, e.points) for e in events if e.kind == "show"] == [
        ("show", "Ann's hand and crib", 19)]
    assert events[0].say == "Ann's hand and crib: 19."
    assert fronts(game) == [27, 12] and game.view()["hand_number"] == 2
    assert [(r.player, r.kind, r.points) for r in game.game_records()][-1] == (
        0, "hand_and_crib", 19)
    first = game.hand_tallies()[0]  # a column of its own: the split was never told
    assert (first.hand_counts, first.crib, first.hand_and_crib, first.totals) == (
        (6, 12), (0, 0), (19, 0), (27, 12))
    assert roundtrip(game).view() == game.view()
    back, undone = game.step(parse_action({"type": "undo"}))  # one undo takes back both
    assert undone[0].say == "Undone: Ann's hand and crib: 19 (Ann & Cy 27 → 8)."
    assert back.view()["next_count"]["label"] == "Ann's hand" and fronts(back) == [8, 12]
    # Counted in turn it is the same board: the hand, then the crib.
    apart = act(back, count(12), count(7))
    assert fronts(apart) == fronts(game) and apart.view()["dealer"] == game.view()["dealer"]
    nothing = act(back, with_crib(0))
    assert fronts(nothing) == [8, 12] and nothing.game_records()[-1].kind == "hand_and_crib"


def test_the_nothings_before_the_dealers_hand_and_crib_go_in_the_same_step() -> None:
    k = act(new("three-player", dealer=0), count(5))  # Bob's hand; Cy's is due
    game, events = k.step(parse_action(with_crib(12, nineteens=1)))
    assert [(e.label, e.points) for e in events if e.kind == "show"] == [
        ("Cy's hand", 0), ("Ann's hand and crib", 12)]
    assert fronts(game) == [12, 5, 0] and game.view()["hand_number"] == 2
    _, undone = game.step(parse_action({"type": "undo"}))
    assert undone[0].say == ("Undone: Cy's hand: 19 (nothing), Ann's hand and crib: 12 "
                             "(Ann 12 → 0).")


@pytest.mark.parametrize("variant", ["six-card", "five-card", "three-player", "four-player"])
def test_a_hand_and_crib_that_reach_the_target_win_as_the_two_counts_in_turn(
    variant: str,
) -> None:
    players = len(NAMES[variant])
    k = new(variant, dealer=0)
    while fronts(k)[0] < k.target - 16:  # the dealer's side to 16 short of the target
        k = act(k, peg(0, min(15, k.target - 16 - fronts(k)[0])))
    k = act(k, *[count(0) for _ in range(players - 1)])
    both = act(k, with_crib(20))
    apart = act(k, count(12), count(8))  # the hand alone does not win...
    hand_wins = act(k, count(20))  # ...this one does: the crib is never counted
    assert both.result == apart.result == hand_wins.result
    assert both.result is not None and both.result.winner == 0 and fronts(both)[0] == k.target
    assert both.game_records()[-1].points == 16  # cut at the game hole, as the hand's would be


@pytest.mark.parametrize("game,action,error,words", [
    (dict(dealer=0, muggins=True), with_crib(8), IllegalPlayError, "with muggins on"),
    (dict(dealer=0), with_crib(8), IllegalPlayError,
     "Bob's hand is due, and only the dealer's hand \\(Ann's\\)"),
    (dict(dealer=0, after=[count(4)]), with_crib(54), ImpossibleScoreError,
     "Ann's hand and crib cannot count 54: no six-card hand and crib together make 54"),
    (dict(dealer=0, after=[count(4)]), with_crib(-1), ImpossibleScoreError, "negative"),
    (dict(dealer=0, after=[count(4), count(6)]), with_crib(8), IllegalPlayError,
     "Ann's crib is due"),
    (dict(dealer=0, after=[count(4)]), {**with_crib(8), "with_crib": 1}, InvalidActionError,
     "true or false"),
])
def test_a_hand_and_crib_as_one_total_is_refused_naming_why_and_the_state(
    game: dict[str, Any], action: dict[str, Any], error: type[Exception], words: str
) -> None:
    after = game.pop("after", [])
    k = act(new(**game), *after)
    with pytest.raises(error, match=words) as info:
        k.apply(parse_action(action))
    if error is not InvalidActionError:  # a refusal of the game names the state it met
        assert "(hand 1, Ann dealt" in str(info.value), str(info.value)
        assert k.why_not(parse_action(action)) is not None
    assert act(k).view() == k.view()


def test_a_hand_and_crib_impossible_together_are_said_in_the_tables_words() -> None:
    k = act(new(dealer=0), count(4))
    with pytest.raises(ImpossibleScoreError) as info:
        k.apply(parse_action(with_crib(55)))
    assert info.value.say == ("55 isn't what a hand and a crib can make together: they go "
                              "from 0 to 58, but never 54 or 55.")


def test_a_hand_and_crib_as_one_total_is_for_a_game_kept_by_points() -> None:
    rng = random.Random(3)
    k = new(dealer=0, mode="dealt")
    while k.view()["next_count"] is None or k.view()["next_count"]["label"] != "Ann's hand":
        k = k.apply(parse_action(random_action(k, rng)))
    assert k.view()["count_with_crib"] is None
    with pytest.raises(IllegalPlayError, match="only a game kept by points"):
        k.apply(parse_action({"type": "count", "with_crib": True}))


@pytest.mark.parametrize("points", [19 + 6, 26, 27, 30, 99])
def test_a_count_no_hand_can_make_is_refused_naming_the_count_and_whose(points: int) -> None:
    k = act(new(dealer=0), count(4))
    with pytest.raises(ImpossibleScoreError, match=rf"Ann's hand cannot count {points}"):
        k.apply(parse_action(count(points)))
    with pytest.raises(IllegalPlayError):  # the leaf is also an IllegalPlayError
        k.apply(parse_action(count(points)))
    assert k.view()["next_count"]["label"] == "Ann's hand"  # nothing changed


def test_the_crib_of_the_five_card_game_is_four_cards_but_the_hands_three() -> None:
    k = new("five-card", dealer=0)
    with pytest.raises(ImpossibleScoreError, match="Bob's hand cannot count 17"):
        k.apply(parse_action(count(17)))
    k = act(k, count(20), count(12))  # 20 is the most three cards and a starter make
    k = act(k, count(24))  # Ann's crib: four sevens and an ace
    assert fronts(k) == [36, 23]


def test_a_negative_or_malformed_count_is_refused() -> None:
    k = new(dealer=0)
    with pytest.raises(ImpossibleScoreError, match="negative"):
        k.apply(parse_action(count(-2)))
    for bad in ("8", 8.0, True):
        with pytest.raises(InvalidActionError, match="whole number"):
            k.apply(parse_action({"type": "count", "points": bad}))
    with pytest.raises(InvalidActionError, match="needs its points"):
        k.apply(parse_action({"type": "count", "points": None}))


def test_pegging_is_bounded_by_what_one_card_can_score() -> None:
    k = new(dealer=0)
    assert fronts(k.apply(parse_action(peg(0, MAX_PEG)))) == [15, 0]
    for bad in (0, MAX_PEG + 1, 31):
        with pytest.raises(ImpossibleScoreError, match="one card pegs 1 to 15"):
            k.apply(parse_action(peg(0, bad)))
    with pytest.raises(IllegalPlayError, match="no side 2"):
        k.apply(parse_action(peg(2, 2)))


def test_his_heels_only_at_the_start_of_the_play_and_once() -> None:
    k = new(dealer=1)
    assert "heels" in k.legal_actions()
    k1 = k.apply(parse_action({"type": "heels"}))
    assert fronts(k1) == [0, 2]
    with pytest.raises(IllegalPlayError, match="already been pegged"):
        k1.apply(parse_action({"type": "heels"}))
    with pytest.raises(IllegalPlayError, match="before the play"):
        k.apply(parse_action(peg(0, 2))).apply(parse_action({"type": "heels"}))
    # A jack entered as the starter pegs it by itself; any other starter rules it out.
    assert fronts(k.apply(parse_action({"type": "starter", "card": "JD"}))) == [0, 2]
    with pytest.raises(IllegalPlayError, match="not a jack"):
        k.apply(parse_action({"type": "starter", "card": "5D"})).apply(parse_action(
                {"type": "heels"}))
    # In the next hand it is possible again, for the new dealer.
    k2 = act(k1, count(2), count(2), count(2), {"type": "heels"})
    assert fronts(k2) == [4, 6]


def test_unknown_and_malformed_actions_are_refused_and_change_nothing() -> None:
    k = act(new(dealer=0), peg(0, 2))
    before = k.to_json()
    malformed = [
        ({"type": "fly"}, "unknown action type"),
        ({"kind": "peg"}, "unknown action type"),
        ("peg", "dict"),
        ({"type": "peg", "side": 0}, "needs 'points'"),
        ({"type": "peg", "side": 0, "points": 2, "extra": 1}, "unknown field 'extra'"),
        ({"type": "starter", "card": "ZZ"}, "not a card"),
        ({"type": "starter", "card": ""}, "not a card"),
    ]
    illegal = [
        ({"type": "next_game"}, "not over"),
        ({"type": "redo"}, "nothing to redo"),
        ({"type": "muggins", "side": 1, "points": 2}, "muggins is off"),
        ({"type": "play", "player": 1, "card": "5H"}, "only in cards mode"),
    ]
    for action, words in malformed:  # read at the edge, before any game sees it
        with pytest.raises(InvalidActionError, match=words) as info:
            parse_action(action)
        assert info.value.say
    for action, words in illegal:
        with pytest.raises(IllegalPlayError, match=words) as info:
            k.apply(parse_action(action))
        assert "Ann dealt" in str(info.value)  # the state is named
        assert info.value.say and "Ann dealt" not in info.value.say
    with pytest.raises(TypeError, match="typed actions"):
        k.apply({"type": "peg", "side": 0, "points": 2})  # type: ignore[arg-type]
    assert k.to_json() == before


# ---- the end of a game ---------------------------------------------------------------------


def test_the_game_ends_mid_show_and_the_rest_of_the_hand_is_not_counted() -> None:
    k = new(dealer=0)
    k = act(k, *[peg(1, 12)] * 9)  # Bob on 108
    k = act(k, *[peg(0, 12)] * 9)  # Ann on 108
    k = act(k, count(13))  # Bob's hand takes him out; Ann's better hand never counts
    v = k.view()
    assert v["phase"] == "over" and fronts(k) == [108, 121]
    assert v["result"] == {"winner": 1, "loser": 0, "kind": "win", "game_points": 1,
                           "scores": [108, 121]}
    assert v["next_count"] is None and v["legal"] == ["next_game", "undo"]
    assert [e["done"] for e in v["show_order"]] == [True, False, False]
    with pytest.raises(IllegalPlayError, match="game 1 is over, Bob won"):
        k.apply(parse_action(count(29)))
    assert v["games_won"] == [0, 1]


def test_the_game_ends_on_his_heels() -> None:
    k = act(new(dealer=0), *[peg(0, 15)] * 7, count(2), count(14), count(0))
    assert fronts(k) == [119, 2] and k.view()["dealer"] == 1
    k = act(k, peg(0, 1), count(0), count(2), count(0))  # Ann 120, back to dealing
    assert k.view()["dealer"] == 0
    k = k.apply(parse_action({"type": "heels"}))
    assert k.view()["result"]["winner"] == 0 and fronts(k) == [121, 4]
    assert k.view()["result"]["kind"] == "double_skunk" and k.view()["result"]["game_points"] == 4


def test_pegging_past_the_target_stops_in_the_game_hole() -> None:
    k = act(new(dealer=0), *[peg(1, 15)] * 8)  # 120
    k = k.apply(parse_action(peg(1, 6)))
    assert fronts(k) == [0, 121] and k.view()["sides"][1]["back"] == 120


def _reach(k: Game, side: int, score: int) -> Game:
    """Peg a side up to a score during the play."""
    front = fronts(k)[side]
    while front < score:
        step = min(MAX_PEG, score - front)
        k = k.apply(parse_action(peg(side, step)))
        front += step
    return k


@pytest.mark.parametrize(
    ("skunk", "loser", "kind", "points"),
    [
        ("skunk", 91, "win", 1),
        ("skunk", 90, "skunk", 2),
        ("skunk", 61, "skunk", 2),
        ("skunk", 60, "double_skunk", 4),
        ("lurch", 60, "lurch", 2),
        ("lurch", 61, "win", 1),
        ("none", 10, "win", 1),
    ],
)
def test_skunk_double_skunk_and_lurch(skunk: str, loser: int, kind: str, points: int) -> None:
    k = _reach(new(dealer=0, skunk=skunk), 1, loser)
    k = _reach(k, 0, 121)
    assert k.view()["result"]["kind"] == kind and k.view()["result"]["game_points"] == points
    assert k.view()["match_points"] == [points, 0]


def test_next_game_the_loser_deals_first_and_games_are_tallied() -> None:
    k = _reach(new("five-card", dealer=0), 0, 61)  # Bob starts with 3, loses
    assert k.view()["result"]["kind"] == "skunk"  # a game of 61: one line at 31
    k = k.apply(parse_action({"type": "next_game"}))
    v = k.view()
    assert v["dealer"] == 1 and v["game_number"] == 2 and v["hand_number"] == 1
    assert fronts(k) == [3, 0] and v["games_won"] == [1, 0] and v["result"] is None
    # Partners: the losing side deals, from the last dealer's left.
    k4 = _reach(new("four-player", dealer=0), 0, 121).apply(parse_action({"type": "next_game"}))
    assert k4.view()["dealer"] == 1 and k4.view()["games_won"] == [1, 0]


def test_three_players_the_lowest_is_the_loser() -> None:
    k = _reach(_reach(new("three-player", dealer=0), 0, 80), 2, 95)
    k = _reach(k, 1, 121)
    r = k.view()["result"]
    assert (r["winner"], r["loser"], r["kind"]) == (1, 0, "skunk")
    assert k.apply(parse_action({"type": "next_game"})).view()["dealer"] == 0


# ---- muggins -------------------------------------------------------------------------------


def test_muggins_takes_points_a_count_missed_within_what_a_hand_can_make() -> None:
    k = act(new(dealer=0, muggins=True), count(8))  # Bob's hand counted 8
    assert "muggins" in k.legal_actions()
    with pytest.raises(IllegalPlayError, match="opponent"):
        k.apply(parse_action({"type": "muggins", "side": 1, "points": 2}))
    k1 = k.apply(parse_action({"type": "muggins", "side": 0, "points": 4}))
    assert fronts(k1) == [4, 8] and k1.view()["last_count"]["claimed"] == 4
    # 8 + 4 + 7 = 19: no hand makes it.
    with pytest.raises(ImpossibleScoreError, match="no hand makes 19"):
        k1.apply(parse_action({"type": "muggins", "side": 0, "points": 7}))
    # Muggins is called at once: the next count closes it.
    k2 = k1.apply(parse_action(count(2)))
    assert "muggins" in k2.legal_actions()  # now for Ann's hand, by Bob
    k3 = k2.apply(parse_action(count(0)))
    with pytest.raises(IllegalPlayError, match="no count whose missed points"):
        k3.apply(parse_action(peg(0, 2))).apply(parse_action(
                {"type": "muggins", "side": 0, "points": 1}))


def test_muggins_on_the_crib_can_be_called_as_the_next_hand_begins() -> None:
    k = act(new(dealer=0, muggins=True), count(2), count(2), count(28))
    assert k.view()["hand_number"] == 2 and "muggins" in k.legal_actions()
    k = k.apply(parse_action({"type": "muggins", "side": 1, "points": 1}))  # 28 + 1 = 29
    assert fronts(k) == [30, 3]
    assert "muggins" not in k.legal_actions()  # nothing above 29


def test_muggins_can_win_the_game() -> None:
    k = _reach(new(dealer=0, muggins=True), 0, 118)
    k = act(k, count(4))
    k = k.apply(parse_action({"type": "muggins", "side": 0, "points": 3}))
    assert k.view()["result"]["winner"] == 0


# ---- undo and redo -------------------------------------------------------------------------


def test_undo_and_redo_across_a_hand_change_and_a_game_end() -> None:
    k0 = _reach(new(dealer=0), 1, 110)
    k = act(k0, count(6), count(2))
    k1 = k.apply(parse_action(count(4)))  # the crib: the deal passes to Bob
    assert k1.view()["dealer"] == 1
    u = k1.apply(parse_action({"type": "undo"}))
    assert u.core == k.core and u.view()["dealer"] == 0 and u.view()["can_redo"]
    assert u.apply(parse_action({"type": "redo"})) == k1
    k2 = act(k1, peg(1, 5))  # Bob to 121
    assert k2.view()["phase"] == "over"
    back = k2.apply(parse_action({"type": "undo"}))
    assert back.view()["phase"] == "play" and back.view()["result"] is None
    assert back.view()["games_won"] == [0, 0]
    again = back.apply(parse_action({"type": "redo"}))
    assert again == k2 and again.view()["games_won"] == [0, 1]
    # A new action clears the redo stack.
    other = back.apply(parse_action(peg(1, 1)))
    assert not other.view()["can_redo"]
    with pytest.raises(IllegalPlayError, match="nothing to redo"):
        other.apply(parse_action({"type": "redo"}))
    # Undo all the way to the start, then no further.
    for _ in range(len(k2.to_json()["actions"])):
        k2 = k2.apply(parse_action({"type": "undo"}))
    assert k2.view()["phase"] == "play" and fronts(k2) == [0, 0] and not k2.view()["can_undo"]
    with pytest.raises(IllegalPlayError, match="nothing to undo"):
        k2.apply(parse_action({"type": "undo"}))


def test_undo_undoes_the_cut() -> None:
    k = act(new(), {"type": "cut", "cards": ["2H", "9C"]}, {"type": "undo"})
    assert k.view()["phase"] == "cut" and k.view()["dealer"] is None


# ---- whole games and the JSON round-trip ---------------------------------------------------


class Model:
    """An independent tally of a keeper game: the scores the board must show."""

    def __init__(self, variant: str, target: int) -> None:
        self.rules = RULES[variant]
        self.target = target
        self.scores = [0] * len(self.rules.sides)
        self.dealer: int | None = None
        self.index = 0
        self.over = False

    def side(self, player: int) -> int:
        return next(i for i, s in enumerate(self.rules.sides) if player in s)

    def add(self, side: int, points: int) -> None:
        self.scores[side] = min(self.target, self.scores[side] + points)
        self.over = self.scores[side] >= self.target

    def deal(self, dealer: int) -> None:
        self.dealer = dealer
        if self.rules.non_dealer_start:
            self.add(self.side((dealer + 1) % self.rules.players), 3)

    def count(self, points: int) -> None:
        assert self.dealer is not None
        n = self.rules.players
        owner = (self.dealer + 1 + self.index) % n if self.index < n else self.dealer
        self.add(self.side(owner), 0 if points == 19 else points)
        self.index += 1
        if self.index > n and not self.over:
            self.dealer, self.index = (self.dealer + 1) % n, 0


def play_random_game(variant: str, seed: int, *, target: int | None = None,
                     check: Any = None, muggins: bool = False) -> Game:
    rng = random.Random(seed)
    k = Game.new(variant, NAMES[variant], target=target, muggins=muggins)
    model = Model(variant, k.view()["target"])
    hand_size = RULES[variant].hand_size
    steps = 0
    while k.view()["phase"] != "over":
        legal = k.legal_actions()
        if "cut" in legal:
            cards = [str(c) for c in rng.sample(ALL_CARDS, len(NAMES[variant]))]
            try:
                k = k.apply(parse_action({"type": "cut", "cards": cards}))
            except IllegalPlayError:
                continue
            model.deal(k.view()["dealer"])
        elif "peg" in legal and rng.random() < 0.6:
            side = rng.randrange(len(model.scores))
            points = rng.choice([1, 1, 2, 2, 3, 4, 6])
            k = k.apply(parse_action(peg(side, points)))
            model.add(side, points)
        elif "heels" in legal and rng.random() < 0.05:
            k = k.apply(parse_action({"type": "heels"}))
            model.add(model.side(k.view()["dealer"]), 2)
        else:
            kind = k.view()["next_count"]["kind"]
            totals = sorted(possible_counts(4 if kind == "crib" else hand_size, kind == "crib"))
            points = rng.choice(totals[:14] + [19])
            k = k.apply(parse_action(count(points)))
            model.count(points)
        if check is not None:
            check(k)
        assert fronts(k) == model.scores
        steps += 1
    assert model.over and max(model.scores) == model.target
    return k


@pytest.mark.parametrize("variant", list(NAMES))
def test_whole_random_games_of_every_variant_end_exactly_at_the_target(variant: str) -> None:
    for seed in range(3):
        k = play_random_game(variant, seed)
        v = k.view()
        winner = v["result"]["winner"]
        assert v["sides"][winner]["front"] == v["target"]
        assert sum(1 for s in v["sides"] if s["front"] >= v["target"]) == 1
        assert v["legal"] == ["next_game", "undo"]
        for s in v["sides"]:
            assert 0 <= s["back"] <= s["front"]


@pytest.mark.parametrize("variant", list(NAMES))
def test_json_round_trip_at_every_step_of_random_games(variant: str) -> None:
    def check(k: Game) -> None:
        again = roundtrip(k)
        assert again == k and again.view() == k.view()
        if k.view()["can_undo"]:
            u = k.apply(parse_action({"type": "undo"}))
            assert roundtrip(u) == u and roundtrip(u).apply(parse_action({"type": "redo"})) == k

    play_random_game(variant, 11, target=61, check=check)


def test_from_json_refuses_a_malformed_record() -> None:
    good = act(new(dealer=0), peg(0, 2)).to_json()
    with pytest.raises(CribbageError):
        Game.from_json({"format": "other"})
    bad = json.loads(json.dumps(good))
    bad["actions"].append({"type": "count", "points": 25})
    with pytest.raises(ImpossibleScoreError):
        Game.from_json(bad)
    bad = json.loads(json.dumps(good))
    del bad["config"]
    with pytest.raises(IllegalPlayError, match="not a keeper record"):
        Game.from_json(bad)


def test_the_view_has_the_contract_keys() -> None:
    v = new(dealer=0).view()
    for key in ("variant", "mode", "target", "muggins", "skunk", "names", "sides", "dealer",
                "crib_owner", "hand_number", "phase", "next_count", "show_order", "play",
                "last_count", "result", "games_won", "can_undo", "can_redo", "legal"):
        assert key in v
    assert v["next_count"] == {"kind": "hand", "player": 1, "side": 1, "label": "Bob's hand"}
    json.dumps(v)


# ---- cards mode ----------------------------------------------------------------------------


def play(player: int, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


# how-to-play-cribbage.txt, "A worked round of play" and "A worked hand, start to finish":
# Ann (non-dealer) holds 7 6 4 K, Bob (dealer) 5 5 6 8, the starter is the 5 of diamonds.
WORKED_PLAY = [play(0, "7S"), play(1, "8H"), play(0, "6S"), play(1, "6H"), play(0, "4C"),
               play(1, "5C"), play(0, "KH"), play(1, "5S")]


def cards_game(**kw: Any) -> Game:
    return Game.new("six-card", ("Ann", "Bob"), mode="cards", dealer=1, **kw)


def test_cards_mode_pegs_the_worked_round_of_play_and_counts_the_worked_hand() -> None:
    k = cards_game()
    assert k.legal_actions() == ["starter"]
    k = k.apply(parse_action({"type": "starter", "card": "5D"}))
    pegged = []
    for a in WORKED_PLAY:
        k = k.apply(parse_action(a))
        pegged.append(fronts(k))
    # 8 for fifteen, the 6 for a run of three, the pair of sixes, the 4 for 31; then the king
    # for fifteen and the last 5 for last card.
    assert pegged == [[0, 0], [0, 2], [3, 2], [3, 4], [5, 4], [5, 4], [7, 4], [7, 5]]
    v = k.view()
    assert v["play"]["done"] and v["legal"] == ["count", "undo"]
    assert [(n["player"], n["points"]) for n in v["play"]["say"]] == [
        (1, 2), (0, 3), (1, 2), (0, 2), (0, 2), (1, 1)]
    says = [n["say"] for n in v["play"]["say"]]
    assert says[0] == "fifteen two" and "run of three" in says[1] and says[-1] == "one for last"
    # Each hand was seen whole in the play, so no cards need entering.
    k = k.apply(parse_action({"type": "count"}))
    assert v["next_count"]["label"] == "Ann's hand"
    assert k.view()["last_count"]["points"] == 8
    assert k.view()["last_count"]["breakdown"]["total"] == 8
    k = k.apply(parse_action({"type": "count"}))  # Bob's 5 5 6 8: eight
    assert fronts(k) == [15, 13]
    # the crib: four
    k = k.apply(parse_action({"type": "count", "cards": ["2C", "3H", "9S", "QD"]}))
    assert fronts(k) == [15, 17]  # "you ... 15 in all. The dealer ... 17 in all."
    v = k.view()
    assert v["dealer"] == 0 and v["hand_number"] == 2 and v["starter"] is None
    assert v["last_count"]["label"] == "Bob's crib"


def test_cards_mode_go_and_last_card_as_in_the_pagat_example() -> None:
    # cribbage-rules-and-hand-statistics.txt: A has K K 2 2, B has 9 8 7 6; A leads.
    k = cards_game().apply(parse_action({"type": "starter", "card": "3C"}))
    k = act(k, play(0, "KS"), play(1, "6D"), play(0, "KH"))
    assert k.view()["play"]["count"] == 26 and "go" in k.legal_actions()
    k = act(k, {"type": "go", "player": 1}, play(0, "2S"), play(0, "2H"))
    assert fronts(k) == [3, 0]  # "30 for 3": the pair of twos and one for last
    k = act(k, play(1, "8D"), play(1, "7D"), play(1, "9D"))
    assert fronts(k) == [3, 6]  # fifteen two, then "24 for 3 and 1 for last"
    with pytest.raises(IllegalPlayError, match="over"):
        k.apply(parse_action(play(0, "AS")))


def test_cards_mode_refuses_cards_that_cannot_be_in_the_hand_shown() -> None:
    k = act(cards_game(), {"type": "starter", "card": "5D"}, *WORKED_PLAY)
    with pytest.raises(IllegalPlayError, match="8H was played by Bob"):
        k.apply(parse_action({"type": "count", "cards": ["7S", "6S", "4C", "8H"]}))
    with pytest.raises(IllegalPlayError, match="KH was played by Ann, so it must be in"):
        k.apply(parse_action({"type": "count", "cards": ["7S", "6S", "4C", "KS"]}))
    k = act(k, {"type": "count"}, {"type": "count"})
    with pytest.raises(IllegalPlayError, match="5D is the starter"):
        k.apply(parse_action({"type": "count", "cards": ["2C", "3H", "9S", "5D"]}))
    with pytest.raises(IllegalPlayError, match="7S was played by Ann"):
        k.apply(parse_action({"type": "count", "cards": ["2C", "3H", "9S", "7S"]}))
    with pytest.raises(IllegalPlayError, match="needs its 4 cards"):
        k.apply(parse_action({"type": "count"}))
    with pytest.raises(IllegalPlayError, match="has 4 cards, not 3"):
        k.apply(parse_action({"type": "count", "cards": ["2C", "3H", "9S"]}))


def test_cards_mode_refuses_what_the_play_does_not_allow() -> None:
    k = cards_game()
    with pytest.raises(IllegalPlayError, match="starter must be entered first"):
        k.apply(parse_action(play(0, "7S")))
    k = k.apply(parse_action({"type": "starter", "card": "5D"}))
    with pytest.raises(IllegalPlayError, match="Bob cannot play"):
        k.apply(parse_action(play(1, "7S")))
    with pytest.raises(IllegalPlayError, match="already been seen"):
        k.apply(parse_action(play(0, "5D")))
    with pytest.raises(IllegalPlayError, match="go is not possible"):
        k.apply(parse_action({"type": "go", "player": 0}))
    with pytest.raises(IllegalPlayError, match="play is not finished"):
        k.apply(parse_action({"type": "count", "cards": ["7S", "6S", "4C", "KH"]}))
    with pytest.raises(IllegalPlayError, match="pegged from the cards"):
        k.apply(parse_action(peg(0, 2)))
    with pytest.raises(IllegalPlayError, match="jack is entered as starter"):
        k.apply(parse_action({"type": "heels"}))


def test_cards_mode_a_jack_starter_pegs_his_heels_and_can_end_the_game() -> None:
    k = cards_game().apply(parse_action({"type": "starter", "card": "JC"}))
    assert fronts(k) == [0, 2]
    k = cards_game(target=2).apply(parse_action({"type": "starter", "card": "JC"}))
    assert k.view()["result"]["winner"] == 1


def test_cards_mode_the_game_ends_mid_play() -> None:
    k = act(cards_game(target=4), {"type": "starter", "card": "5D"}, *WORKED_PLAY[:4])
    assert k.view()["phase"] == "over" and fronts(k) == [3, 4]
    with pytest.raises(IllegalPlayError, match="over"):
        k.apply(parse_action(WORKED_PLAY[4]))


def test_cards_mode_muggins_takes_what_a_count_missed() -> None:
    k = act(cards_game(muggins=True), {"type": "starter", "card": "5D"}, *WORKED_PLAY)
    k = k.apply(parse_action({"type": "count", "points": 6}))  # Ann's hand makes 8
    assert fronts(k) == [13, 5] and k.view()["last_count"]["missed"] == 2
    with pytest.raises(ImpossibleScoreError, match="only 2 can be claimed"):
        k.apply(parse_action({"type": "muggins", "side": 1, "points": 3}))
    k = k.apply(parse_action({"type": "muggins", "side": 1, "points": 2}))
    assert fronts(k) == [13, 7] and "muggins" not in k.legal_actions()
    with pytest.raises(ImpossibleScoreError, match="makes 8, so it cannot be counted as 10"):
        k.apply(parse_action({"type": "undo"})).apply(parse_action(
                {"type": "undo"})).apply(parse_action({"type": "count", "points": 10}))


def test_cards_mode_without_muggins_a_wrong_claim_is_refused() -> None:
    k = act(cards_game(), {"type": "starter", "card": "5D"}, *WORKED_PLAY)
    with pytest.raises(IllegalPlayError, match="makes 8, not 6"):
        k.apply(parse_action({"type": "count", "points": 6}))
    assert fronts(k.apply(parse_action({"type": "count", "points": 8}))) == [15, 5]


def test_cards_mode_json_round_trip_at_every_step() -> None:
    k = cards_game(muggins=True)
    steps = [{"type": "starter", "card": "5D"}, *WORKED_PLAY, {"type": "count", "points": 6},
             {"type": "muggins", "side": 1, "points": 1}, {"type": "count"},
             {"type": "count", "cards": ["2C", "3H", "9S", "QD"]}, {"type": "undo"}]
    for a in steps:
        k = k.apply(parse_action(a))
        again = roundtrip(k)
        assert again == k and again.view() == k.view()


def test_cards_mode_five_card_single_round_a_false_go_and_unplayed_cards() -> None:
    from cribbage.scoring import score_hand

    k = Game.new("five-card", ("Ann", "Bob"), mode="cards", dealer=1)
    assert fronts(k) == [3, 0]  # three for last to the non-dealer at the start
    k = act(k, {"type": "starter", "card": "2C"}, play(0, "TH"), play(1, "5H"), play(0, "KS"),
            {"type": "go", "player": 1}, play(0, "6D"))
    assert fronts(k) == [5, 2] and k.view()["play"]["done"]  # one round only: 31 ends it
    k = k.apply(parse_action({"type": "count"}))  # Ann's three cards were all played
    bob = ["5H", "4S", "9C"]
    with pytest.raises(IllegalPlayError, match="needs its 3 cards"):
        k.apply(parse_action({"type": "count"}))
    k = k.apply(parse_action({"type": "count", "cards": bob}))
    last = k.view()["last_count"]
    assert last["points"] == score_hand(bob, "2C", variant="five-card").total == 2
    assert last["notes"] == ["Bob said go at 25 holding 4S"]
    with pytest.raises(IllegalPlayError, match="4S was already shown"):
        k.apply(parse_action({"type": "count", "cards": ["4S", "AC", "AD", "AH"]}))
    k = k.apply(parse_action({"type": "count", "cards": ["AS", "AC", "AD", "AH"]}))
    assert fronts(k) == [5, 2 + 2 + 12]


def test_new_refuses_bad_options_naming_them() -> None:
    from cribbage.errors import UnknownVariantError

    with pytest.raises(UnknownVariantError, match="seven-card"):
        Game.new("seven-card")
    with pytest.raises(IllegalPlayError, match="needs 3 non-empty names"):
        Game.new("three-player", ("Ann", "Bob"))
    with pytest.raises(IllegalPlayError, match="mode must be one of keeper, cards"):
        Game.new(mode="robot")
    with pytest.raises(ValueError, match="target"):
        Game.new(target=0)
    with pytest.raises(ValueError, match="skunk"):
        Game.new(skunk="sometimes")
    with pytest.raises(IllegalPlayError, match="dealer must be a player 0..1"):
        Game.new(dealer=5)
    k = Game.new("six-card", (" Ann ", "Bob"), target=61, skunk="lurch", muggins=True)
    v = k.view()
    assert (v["names"], v["target"], v["skunk"], v["muggins"]) == (["Ann", "Bob"], 61, "lurch",
                                                                   True)


def test_cards_mode_four_players_peg_for_their_side() -> None:
    k = Game.new("four-player", NAMES["four-player"], mode="cards", dealer=3)
    k = act(k, {"type": "starter", "card": "2C"}, play(0, "7H"), play(1, "8H"), play(2, "9H"))
    assert fronts(k) == [3, 2]  # Bob's fifteen for side 1, Cy's run of three for side 0
    assert k.view()["play"]["next_player"] == 3


def test_two_players_with_one_name_are_refused_with_a_sentence() -> None:
    # Every label, count toast and CSV row names a player: two "Ann"s make them ambiguous.
    with pytest.raises(IllegalPlayError) as err:
        Game.new("three-player", ["Ann", "Bob", "ann "])
    assert err.value.say == "Two players are called ann: give each player their own name."
    assert Game.new("three-player", ["Ann", "Bob", "Cy"]).names == ("Ann", "Bob", "Cy")
