"""The cribbage rules engine: pure Python, no I/O, randomness only through an injected Random."""

from cribbage.cards import ALL_CARDS, Card, Deck, Rank, Suit, check_distinct, parse_cards
from cribbage.errors import (
    CribbageError,
    DuplicateCardError,
    IllegalPlayError,
    ImpossibleScoreError,
    InvalidCardError,
    InvalidHandError,
    UnknownVariantError,
)

__all__ = [
    "ALL_CARDS",
    "Card",
    "CribbageError",
    "Deck",
    "DuplicateCardError",
    "IllegalPlayError",
    "ImpossibleScoreError",
    "InvalidCardError",
    "InvalidHandError",
    "Rank",
    "Suit",
    "UnknownVariantError",
    "check_distinct",
    "parse_cards",
]
