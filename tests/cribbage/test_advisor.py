"""The advisor: exact against a brute-force enumeration with score_hand, and its pegging hint."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

from cribbage import (
    ALL_CARDS,
    Card,
    DuplicateCardError,
    IllegalPlayError,
    InvalidCardError,
    InvalidHandError,
    UnknownVariantError,
    parse_cards,
    score_hand,
    score_pegging,
)
from cribbage.advisor import (
    DEALS,
    UnknownModelError,
    advise,
    advise_play,
    crib_table,
    table_key,
)

# --- the slow, straightforward reference ----------------------------------------------------


def brute_hand(keep: Sequence[Card], unseen: Sequence[Card], variant: str):
    """(expected, min, max) of the kept hand over every unseen starter, by score_hand."""
    scores = [score_hand(keep, s, variant=variant).total for s in unseen]
    return Fraction(sum(scores), len(scores)), min(scores), max(scores)


def brute_crib(discard: Sequence[Card], unseen: Sequence[Card], others: int, variant: str):
    """Expected crib over every completion by `others` unseen cards and every starter."""
    total = cases = 0
    for completion in combinations(unseen, others):
        crib = tuple(discard) + completion
        for starter in unseen:
            if starter in completion:
                continue
            total += score_hand(crib, starter, crib=True, variant=variant).total
            cases += 1
    assert cases == comb(len(unseen), others) * (len(unseen) - others)
    return Fraction(total, cases)


def check_against_brute(hand, variant, known=(), discards=None, dealer=True):
    """Assert every (or the chosen) discard of the advice equals the brute force exactly."""
    deal = DEALS[variant]
    advice = advise(hand, dealer=dealer, variant=variant, known=known)
    unseen = [c for c in ALL_CARDS if c not in hand and c not in known]
    assert advice.unseen == len(unseen)
    assert len(advice.options) == comb(deal.dealt, deal.thrown)
    chosen = advice.options if discards is None else [advice.option(d) for d in discards]
    for opt in chosen:
        exp, lo, hi = brute_hand(opt.keep, unseen, variant)
        assert opt.hand == exp, (hand, opt.discard)
        assert (opt.hand_min, opt.hand_max) == (lo, hi)
        crib = brute_crib(opt.discard, unseen, deal.others, variant)
        assert opt.crib == crib, (hand, known, opt.discard)
        assert opt.net == exp + (crib if dealer else -crib)
    return advice


def random_case(rng: random.Random, variant: str, unseen_left: int | None):
    """A random dealt hand and, if `unseen_left` is given, enough known cards to leave that many."""
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    n = DEALS[variant].dealt
    hand = tuple(deck[:n])
    known = () if unseen_left is None else tuple(deck[n : 52 - unseen_left])
    return hand, known


# --- the worked example -----------------------------------------------------------------------


def test_worked_example_dealer_and_pone():
    hand = parse_cards("7C 9H 5H 5C 5D JS")
    for dealer, net in ((True, 20.9), (False, 12.4)):
        opt = advise(hand, dealer=dealer).option(["7C", "9H"])
        assert [str(c) for c in opt.keep] == ["5H", "5C", "5D", "JS"]
        assert round(float(opt.net), 1) == net
        assert opt.hand_max == 29  # the fourth five, in spades
        assert opt.hand_min == opt.guaranteed == 14
        assert opt.without_starter == 14


def test_worked_example_every_discard_exact_against_brute_force():
    hand = parse_cards("7C 9H 5H 5C 5D JS")
    advice = check_against_brute(hand, "six-card", discards=[["7C", "9H"], ["5H", "JS"]])
    assert [str(c) for c in advice.best.discard] == ["7C", "9H"]


def test_options_are_ranked_by_net_and_cover_every_discard():
    advice = advise("AH 2C 3D 4S 9C KD", dealer=False)
    nets = [o.net for o in advice.options]
    assert nets == sorted(nets, reverse=True)
    assert len({frozenset(o.discard) for o in advice.options}) == 15


# --- exactness on random hands ---------------------------------------------------------------


@pytest.mark.parametrize("variant", list(DEALS))
def test_random_hands_with_known_cards_equal_brute_force(variant):
    # Known cards shrink the unseen set so every discard can be enumerated quickly.
    rng = random.Random(f"known-{variant}")
    for i in range(8):
        hand, known = random_case(rng, variant, unseen_left=14 + i)
        check_against_brute(hand, variant, known=known, dealer=bool(i % 2))


@pytest.mark.parametrize("variant", ["six-card", "five-card"])
def test_random_full_deck_hands_equal_brute_force(variant):
    rng = random.Random(f"full-{variant}")
    for _ in range(3):
        hand, _known = random_case(rng, variant, None)
        discard = rng.choice(list(combinations(hand, DEALS[variant].thrown)))
        check_against_brute(hand, variant, discards=[discard])


def test_suited_hands_flush_and_nobs_equal_brute_force():
    # Flushes in hand and crib and jacks of several suits, where suit counting matters most.
    cases = [
        ("2H 4H 6H 8H JH QH", ()),
        ("JC JD JH JS 5C 5D", ()),
        ("3S 4S 5S 6S JD 9S", tuple(parse_cards("2S 7S 8S 10S QS KS AS"))),
    ]
    for hand, known in cases:
        cards = parse_cards(hand)
        advice = advise(cards, dealer=True, known=known)
        picks = [advice.options[0].discard, advice.options[-1].discard]
        check_against_brute(cards, "six-card", known=known, discards=picks)
    # Three players: a one-card throw of a jack or a heart, with spades and clubs known.
    three = parse_cards("JH 5H 6H 7H 8H")
    known3 = tuple(c for c in ALL_CARDS if c.suit.value in "SC")
    check_against_brute(three, "three-player", known=known3)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_a_few_hundred_random_hands_equal_brute_force():
    """ADVISOR_BRUTE_HANDS (default 300) random hands, all variants, every discard.

    Minutes long: deselected by default; run it with `-m slow`.
    """
    count = int(os.environ.get("ADVISOR_BRUTE_HANDS", "300"))
    rng = random.Random("a few hundred")
    variants = list(DEALS)
    for i in range(count):
        variant = variants[i % len(variants)]
        # Full deck for the two-card discards; one- card discards enumerate C(n,3) completions,
        # so they leave 30 unseen to keep the reference to about a second a hand.
        left = None if DEALS[variant].thrown == 2 else 30
        hand, known = random_case(rng, variant, left)
        check_against_brute(hand, variant, known=known, dealer=bool(i % 2))


# --- input errors -----------------------------------------------------------------------------


def test_bad_input_is_named():
    with pytest.raises(InvalidHandError, match="6 cards, got 5"):
        advise("7C 9H 5H 5C 5D", dealer=True)
    with pytest.raises(InvalidCardError, match="hand: not a card: '5X'"):
        advise("7C 9H 5H 5C 5D 5X", dealer=True)
    with pytest.raises(DuplicateCardError, match="5C"):
        advise("7C 9H 5H 5C 5C JS", dealer=True)
    with pytest.raises(DuplicateCardError, match="known card 7C is also in the hand"):
        advise("7C 9H 5H 5C 5D JS", dealer=True, known=["7C"])
    with pytest.raises(UnknownVariantError, match="seven-card"):
        advise("7C 9H 5H 5C 5D JS", dealer=True, variant="seven-card")
    with pytest.raises(UnknownModelError, match="'smart'"):
        advise("7C 9H 5H 5C 5D JS", dealer=True, model="smart")
    with pytest.raises(InvalidHandError, match="5 cards, got 6"):
        advise("7C 9H 5H 5C 5D JS", dealer=True, variant="five-card")


def test_known_cards_change_the_expectation():
    hand = "7C 9H 5H 5C 5D JS"
    base = advise(hand, dealer=True).option(["7C", "9H"])
    # With the last five known (not to come), the 29 and the five-starters are gone.
    less = advise(hand, dealer=True, known=["5S"]).option(["7C", "9H"])
    assert less.hand < base.hand
    assert less.hand_max < 29


def test_to_json_presents_floats_and_exact_fractions():
    data = advise("7C 9H 5H 5C 5D JS", dealer=True).to_json()
    assert data["model"] == "random" and data["variant"] == "six-card"
    assert data["unseen"] == 46
    top = data["options"][0]
    assert top["discard"] == ["7C", "9H"]
    assert round(top["net"], 1) == 20.9
    assert Fraction(top["exact"]["net"]) == Fraction(top["exact"]["hand"]) + Fraction(
        top["exact"]["crib"]
    )


# --- the table model --------------------------------------------------------------------------


def test_table_model_uses_the_shipped_table_for_the_crib():
    hand = "7C 9H 5H 5C 5D JS"
    for dealer in (True, False):
        advice = advise(hand, dealer=dealer, model="table")
        assert advice.model == "table"
        exact = advise(hand, dealer=dealer)
        side = "dealer" if dealer else "pone"
        for opt in advice.options:
            assert opt.hand == exact.option(opt.discard).hand
            expected = crib_table()["six-card"][side][table_key(opt.discard)]
            assert float(opt.crib) == pytest.approx(expected)


@pytest.mark.parametrize("variant", list(DEALS))
def test_table_covers_every_throw_with_plausible_values(variant):
    table = crib_table()[variant]
    keys = 91 if DEALS[variant].thrown == 2 else 13
    for side in ("dealer", "pone"):
        assert len(table[side]) == keys
        assert all(2.0 < v < 10.0 for v in table[side].values())
    # The dealer helps his own crib and the pone balks it, so the same throw is worth more
    # to the crib when the other discards come from the dealer.
    assert sum(table["pone"].values()) > sum(table["dealer"].values())


def test_six_card_table_puts_two_fives_first():
    table = crib_table()["six-card"]
    for side in ("dealer", "pone"):
        assert max(table[side], key=table[side].get) == "5-5"
        assert table[side]["5-5"] > table[side]["10-13"] + 2


# --- the pegging hint -------------------------------------------------------------------------


def brute_reply(played, card, unseen):
    """Expected points of a reply by a uniformly random unseen card, by score_pegging."""
    seq = (*played, card)
    count = sum(c.pips for c in seq)
    total = 0
    for u in unseen:
        if count < 31 and count + u.pips <= 31:
            total += score_pegging((*seq, u)).total
    return Fraction(total, len(unseen))


def test_play_hint_values_equal_one_ply_enumeration():
    rng = random.Random("play")
    for _ in range(20):
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        played: list[Card] = []
        for card in deck[4:]:
            if sum(c.pips for c in played) + card.pips > 31 or len(played) == rng.randint(0, 4):
                break
            played.append(card)
        hand, known = deck[:4], deck[20:26]
        count = sum(c.pips for c in played)
        hint = advise_play(hand, played, count, known=known)
        unseen = [c for c in ALL_CARDS if c not in hand and c not in played and c not in known]
        assert hint.unseen == len(unseen)
        legal = [c for c in hand if count + c.pips <= 31]
        assert sorted(o.card for o in hint.options) == sorted(legal)
        for o in hint.options:
            now = score_pegging((*played, o.card)).total
            assert o.now == now
            assert o.reply == brute_reply(played, o.card, unseen)
            assert o.net == now - o.reply
        if legal:
            assert hint.card == hint.options[0].card
            assert hint.options[0].net == max(o.net for o in hint.options)
        else:
            assert hint.card is None and hint.reason.startswith("go")


def test_play_hint_leads_a_four_and_says_why():
    hint = advise_play("4H 5C 10D JS", [], 0)
    assert str(hint.card) == "4H"
    assert "a four cannot be made fifteen" in hint.reason
    # The five is the worst lead: a ten-card (16 unseen) makes fifteen.
    assert str(hint.options[-1].card) == "5C"
    assert "ten-card makes fifteen" in hint.options[-1].reason


def test_play_hint_takes_points_and_names_the_pair_royal_risk():
    hint = advise_play("7H 8C KD 3S", ["8D"], 8)
    assert str(hint.card) == "8C"
    assert hint.options[0].now == 2
    assert "pairs the eight for 2" in hint.reason
    assert "pairing invites a pair royal" in hint.reason
    fifteen = next(o for o in hint.options if str(o.card) == "7H")
    assert fifteen.now == 2 and "makes fifteen for 2" in fifteen.reason


def test_play_hint_31_ends_the_series():
    hint = advise_play("AS 2C", ["10H", "10S", "9D"], 29)
    assert str(hint.card) == "2C"
    assert hint.options[0].now == 2 and hint.options[0].reply == 0


def test_play_hint_go_and_bad_input():
    hint = advise_play("KS QH", ["10H", "10S", "5D"], 25)
    assert hint.card is None and hint.options == ()
    assert "go" in hint.to_json()["reason"]
    with pytest.raises(IllegalPlayError, match="count 12 does not match"):
        advise_play("KS QH", ["10H"], 12)
    with pytest.raises(DuplicateCardError, match="10H"):
        advise_play("KS 10H", ["10H"], 10)
    with pytest.raises(InvalidHandError, match="no cards"):
        advise_play([], [], 0)
