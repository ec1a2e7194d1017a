"""The show: worked examples from the rule texts, the known-hands file, a brute-force reference."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribbage import (
    ALL_CARDS,
    Card,
    Combination,
    DuplicateCardError,
    HandScore,
    InvalidCardError,
    InvalidHandError,
    Rank,
    Suit,
    UnknownVariantError,
    parse_cards,
    score_hand,
)
from cribbage.ranks import PARTS_BY_FIVE, all_multisets, points_of, rank_points

DATA = Path(__file__).parent / "data" / "known_hands.txt"


# ---- a slow reference that shares no code with cribbage/ (only the Card type) ------------


def _value(card: Card) -> int:
    return min(int(card.rank), 10)


def slow_score(hand: list[Card], starter: Card, crib: bool = False) -> tuple[int, ...]:
    """(total, fifteens, pairs, runs, flush, nobs) by enumerating every subset of the cards."""
    cards = [*hand, starter]
    fifteens = 2 * sum(
        1
        for size in range(2, len(cards) + 1)
        for sub in combinations(cards, size)
        if sum(_value(c) for c in sub) == 15
    )
    pairs = 2 * sum(1 for x, y in combinations(cards, 2) if x.rank == y.rank)
    runs = 0
    for size in range(len(cards), 2, -1):
        found = 0
        for sub in combinations(cards, size):
            ranks = sorted(int(c.rank) for c in sub)
            if all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False)):
                found += 1
        if found:
            runs = size * found
            break
    flush = 0
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            flush = len(hand) + 1
        elif not crib:
            flush = len(hand)
    nobs = int(any(c.rank == 11 and c.suit == starter.suit for c in hand))
    return (fifteens + pairs + runs + flush + nobs, fifteens, pairs, runs, flush, nobs)


def parts(score: HandScore) -> tuple[int, ...]:
    return (score.total, score.fifteens, score.pairs, score.runs, score.flush, score.nobs)


def _known() -> list[tuple[str, str, bool, str, tuple[int, ...], str]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        hand, starter, kind, variant, numbers, note = (x.strip() for x in line.split(";"))
        expect = tuple(int(x) for x in numbers.split())
        rows.append((hand, starter, kind == "crib", variant, expect, note))
    return rows


KNOWN = _known()


def test_known_hands_file_is_substantial() -> None:
    assert len(KNOWN) >= 30


@pytest.mark.parametrize(("hand", "starter", "crib", "variant", "expect", "note"), KNOWN)
def test_known_hands(
    hand: str, starter: str, crib: bool, variant: str, expect: tuple[int, ...], note: str
) -> None:
    cards = list(parse_cards(hand))
    start = Card.parse(starter)
    # The file was counted by hand; the reference guards the file, the file guards the engine.
    assert slow_score(cards, start, crib) == expect, note
    assert parts(score_hand(cards, start, crib=crib, variant=variant)) == expect, note
    assert parts(score_hand(hand.split(), starter, crib=crib, variant=variant)) == expect


# ---- worked examples, said the way the texts say them --------------------------------------


def test_the_29_and_its_breakdown() -> None:
    score = score_hand("5H 5C 5S JD".split(), "5D")
    assert score.total == 29
    kinds = [c.kind for c in score.combinations]
    assert kinds.count("fifteen") == 8 and kinds.count("pair") == 6 and kinds.count("nobs") == 1
    nobs = [c for c in score.combinations if c.kind == "nobs"]
    assert nobs == [Combination("nobs", (Card.parse("JD"),), 1)]
    assert score.say().endswith(
        "a double pair royal is twenty-eight, and one for his nobs makes twenty-nine"
    )


def test_how_to_play_worked_count_is_said_like_the_table() -> None:
    score = score_hand(["5H", "6S", "7D", "7C"], "8H")
    assert score.say() == (
        "fifteen two, fifteen four, a pair is six, and a double run of four makes fourteen"
    )


def test_uspc_eight_seven_seven_six_two() -> None:
    score = score_hand("8C 7D 7H 6S".split(), "2C")
    assert score.total == 16
    assert score.say() == (
        "fifteen two, fifteen four, fifteen six, fifteen eight, a pair is ten, "
        "and a double run of three makes sixteen"
    )
    runs = [c for c in score.combinations if c.kind == "run"]
    got = {tuple(str(x) for x in r.cards) for r in runs}
    assert got == {("6S", "7D", "8C"), ("6S", "7H", "8C")}


def test_dealers_53_is_a_29_and_a_24_with_one_starter() -> None:
    starter = "5S"
    hand = score_hand("JS 5C 5D 5H".split(), starter)
    crib = score_hand("4C 4D 6H 6S".split(), starter, crib=True)
    assert (hand.total, crib.total, hand.total + crib.total) == (29, 24, 53)


def test_king_jack_five_five_is_fifteen_eight() -> None:
    score = score_hand("KC JD 5H 5S".split(), "2C")
    assert score.fifteens == 8
    assert score.say().startswith("fifteen two, fifteen four, fifteen six, fifteen eight")


def test_zero_hand_says_nineteen() -> None:
    score = score_hand("AC 3D 7H 9S".split(), "QD")
    assert score.total == 0 and score.say() == "nineteen" and score.combinations == []


def test_flush_and_nobs_are_said() -> None:
    score = score_hand("JC QC KC 10C".split(), "5C")
    said = score.say()
    assert "a flush of five is" in said and said.endswith("and one for his nobs makes eighteen")


def test_triple_and_quadruple_runs_and_pair_royal_are_named() -> None:
    assert (
        "a pair royal is twelve, and a triple run of three makes twenty-one"
        in score_hand("3C 3D 3H 4S".split(), "5H").say()
    )
    assert (
        "a quadruple run of three makes twenty-four"
        in score_hand("4C 4D 6H 6S".split(), "5H").say()
    )


def test_crib_flush_needs_all_five_and_five_card_flush_sizes() -> None:
    four = "2H 4H 6H 8H".split()
    assert score_hand(four, "KS").flush == 4
    assert score_hand(four, "KS", crib=True).flush == 0
    assert score_hand(four, "KH", crib=True).flush == 5
    assert score_hand(["2H", "4H", "6H"], "KS", variant="five-card").flush == 3
    assert score_hand(["2H", "4H", "6H"], "KH", variant="five-card").flush == 4
    assert score_hand(["2H", "4H", "6H", "9H"], "KS", crib=True, variant="five-card").flush == 0


def test_jack_starter_is_not_nobs() -> None:
    assert score_hand("JH 2C 4D 6S".split(), "JD").nobs == 0
    assert score_hand("JD 2C 4D 6S".split(), "9D").nobs == 1


# ---- bad input ---------------------------------------------------------------------------


def test_wrong_sizes_raise_naming_the_variant() -> None:
    with pytest.raises(InvalidHandError, match="six-card hand has 4 cards, not 3"):
        score_hand("5H 5C 5S".split(), "5D")
    with pytest.raises(InvalidHandError, match="five-card hand has 3 cards, not 4"):
        score_hand("5H 5C 5S JD".split(), "5D", variant="five-card")
    with pytest.raises(InvalidHandError, match="five-card crib has 4 cards, not 3"):
        score_hand("5H 5C 5S".split(), "5D", crib=True, variant="five-card")
    with pytest.raises(InvalidHandError):
        score_hand("5H 5C 5S JD 2C".split(), "5D")


def test_duplicates_raise_naming_the_card() -> None:
    with pytest.raises(DuplicateCardError, match="5H"):
        score_hand("5H 5C 5H JD".split(), "5D")
    with pytest.raises(DuplicateCardError, match="5D is both in the hand and the starter"):
        score_hand("5H 5C 5D JD".split(), "5D")
    # Card objects take the fast path; it must refuse duplicates just the same.
    five = Card.parse("5H")
    with pytest.raises(DuplicateCardError):
        score_hand((five, five, Card.parse("5C"), Card.parse("5S")), Card.parse("5D"))
    with pytest.raises(DuplicateCardError):
        score_hand(tuple(parse_cards("KC KD KH KS")), Card.parse("KS"))


def test_bad_text_and_unknown_variant() -> None:
    with pytest.raises(InvalidCardError, match="5X"):
        score_hand("5H 5C 5S 5X".split(), "5D")
    with pytest.raises(InvalidCardError):
        score_hand("5H 5C 5S JD".split(), "ZZ")
    with pytest.raises(UnknownVariantError, match="seven-card"):
        score_hand("5H 5C 5S JD".split(), "5D", variant="seven-card")


def test_value_semantics_and_json() -> None:
    a = score_hand(parse_cards("5H 5C 5S JD"), Card.parse("5D"))
    b = score_hand(["5H", "5C", "5S", "JD"], "5D")
    assert a == b and hash(a) == hash(b)
    with pytest.raises(AttributeError):
        a.total = 3  # type: ignore[misc]
    data = json.loads(json.dumps(a.to_json()))
    assert data["total"] == 29 and data["nobs"] == 1 and data["starter"] == "5D"
    assert sum(c["points"] for c in data["combinations"]) == 29
    assert data["say"] == a.say()


def test_list_input_is_copied() -> None:
    hand = list(parse_cards("5H 5C 5S JD"))
    score = score_hand(hand, Card.parse("5D"))
    hand[0] = Card.parse("2C")
    assert score.hand[0] == Card.parse("5H") and isinstance(score.hand, tuple)


# ---- properties --------------------------------------------------------------------------

deals = st.lists(st.sampled_from(ALL_CARDS), min_size=5, max_size=5, unique=True)


@settings(max_examples=400, deadline=None)
@given(deals, st.booleans())
def test_matches_the_brute_force_reference(cards: list[Card], crib: bool) -> None:
    hand, starter = cards[:4], cards[4]
    score = score_hand(hand, starter, crib=crib)
    assert parts(score) == slow_score(hand, starter, crib)
    assert sum(c.points for c in score.combinations) == score.total
    for kind, attr in (("fifteen", "fifteens"), ("pair", "pairs"), ("run", "runs")):
        assert sum(c.points for c in score.combinations if c.kind == kind) == getattr(score, attr)


@settings(max_examples=300, deadline=None)
@given(deals, st.booleans(), st.randoms(use_true_random=False))
def test_card_order_never_changes_a_score(cards: list[Card], crib: bool, rng: object) -> None:
    hand, starter = cards[:4], cards[4]
    shuffled = list(hand)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    a = score_hand(hand, starter, crib=crib)
    b = score_hand(shuffled, starter, crib=crib)
    assert parts(a) == parts(b)
    assert 0 <= a.total <= 29 and a.total not in (19, 25, 26, 27)


@settings(max_examples=200, deadline=None)
@given(deals)
def test_five_card_game_matches_reference(cards: list[Card]) -> None:
    hand, starter = cards[:3], cards[4]
    assert parts(score_hand(hand, starter, variant="five-card")) == slow_score(hand, starter)
    crib = score_hand(cards[:4], starter, crib=True, variant="five-card")
    assert parts(crib) == slow_score(cards[:4], starter, crib=True)


# ---- the rank table every score comes from -------------------------------------------------


def _cards_for(ranks: tuple[int, ...]) -> list[Card]:
    """Distinct cards with these ranks (suits handed out in turn)."""
    suits = list(Suit)
    seen: dict[int, int] = {}
    out = []
    for r in ranks:
        out.append(Card(Rank(r), suits[seen.get(r, 0)]))
        seen[r] = seen.get(r, 0) + 1
    return out


@pytest.mark.parametrize("size", [3, 4, 5])
def test_rank_table_matches_reference_for_every_multiset(size: int) -> None:
    count = 0
    for ranks in all_multisets(size):
        cards = _cards_for(ranks)
        # Give the hand mixed suits so the reference scores no flush and no nobs.
        _total, fifteens, pairs, runs, _flush, _nobs = slow_score(cards[:-1], cards[-1], True)
        expect = fifteens + pairs + runs
        assert rank_points(ranks) == expect, ranks
        assert points_of(reversed(ranks)) == expect
        count += 1
    assert count == {3: 455, 4: 1820, 5: 6175}[size]


def test_five_card_rank_key_is_one_to_one() -> None:
    assert len(PARTS_BY_FIVE) == 6175
    assert all(0 <= k < 2**30 for k in PARTS_BY_FIVE)  # one CPython digit: the fast path
