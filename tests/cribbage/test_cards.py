"""Cards: parsing, printing, the deck."""

from __future__ import annotations

import random

import pytest

from cribbage import (
    ALL_CARDS,
    Card,
    Deck,
    DuplicateCardError,
    InvalidCardError,
    Rank,
    Suit,
    check_distinct,
    parse_cards,
)


@pytest.mark.parametrize("text", ["10H", "TH", "th", "10♥", "10♡", " 10h "])
def test_parse_forms_of_ten_of_hearts(text: str) -> None:
    card = Card.parse(text)
    assert card == Card(Rank.TEN, Suit.HEARTS) and str(card) == "10H"


def test_round_trip_and_index() -> None:
    assert len(set(ALL_CARDS)) == 52
    for i, card in enumerate(ALL_CARDS):
        assert Card.parse(str(card)) == card and card.index == i and Card.from_index(i) is card
    assert Card.parse("JD").pips == 10 and Card.parse("AS").pips == 1


@pytest.mark.parametrize("text", ["", "1H", "11H", "5X", "H5", "5HH", "joker"])
def test_bad_text_names_the_text(text: str) -> None:
    with pytest.raises(InvalidCardError, match="not a card"):
        Card.parse(text)


def test_parse_cards_and_duplicates() -> None:
    assert parse_cards("5H, 5C JD") == (Card.parse("5H"), Card.parse("5C"), Card.parse("JD"))
    with pytest.raises(DuplicateCardError, match="5H"):
        check_distinct(parse_cards("5H 5C 5H"))
    with pytest.raises(DuplicateCardError, match="5D"):
        check_distinct(parse_cards("5H 5D"), Card.parse("5D"))


def test_deck_is_shuffled_only_by_the_given_random() -> None:
    a = Deck.shuffled(random.Random(3)).cards
    b = Deck.shuffled(random.Random(3)).cards
    assert a == b and sorted(a) == list(ALL_CARDS)
    deck = Deck()
    hand = deck.deal(6)
    assert len(hand) == 6 and len(deck) == 46
    with pytest.raises(InvalidCardError):
        deck.deal(47)
    with pytest.raises(InvalidCardError, match=str(hand[0])):
        deck.remove([hand[0]])


@pytest.mark.parametrize("given", ["", "  ", ["5H", "", "5C"], ["5H", " "], "5H,,5C",
                                   "5H, ,5C", "5H,5C,", ["5H,", "5C"]])
def test_an_empty_card_is_refused_not_dropped(given: object) -> None:
    if given in ("", "  "):
        with pytest.raises(InvalidCardError, match="empty"):
            Card.parse(given)  # type: ignore[arg-type]
        return
    with pytest.raises(InvalidCardError, match="empty"):
        parse_cards(given)  # type: ignore[arg-type]


def test_command_line_words_may_hold_several_cards() -> None:
    assert parse_cards(["5H 5C", "JD"]) == parse_cards("5H 5C JD")
    assert parse_cards("") == () and parse_cards([]) == ()
