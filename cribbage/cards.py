"""Cards, ranks, suits and the deck."""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from cribbage.errors import DuplicateCardError, InvalidCardError


class Suit(enum.Enum):
    """A suit; the value is its one-letter symbol."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return self.value

    @property
    def glyph(self) -> str:
        return _GLYPHS[self]


_GLYPHS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_BY_TEXT: dict[str, Suit] = {}
for _s in Suit:
    _SUIT_BY_TEXT[_s.value] = _s
    _SUIT_BY_TEXT[_s.value.lower()] = _s
    _SUIT_BY_TEXT[_GLYPHS[_s]] = _s
# The white (outline) glyphs are common on phones and in copied text.
_SUIT_BY_TEXT.update({"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES})


class Rank(enum.IntEnum):
    """A rank, ace low; the value is its order (1..13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def pips(self) -> int:
        """The counting value: face cards count ten."""
        return min(int(self), 10)

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]


_RANK_SYMBOLS = {
    Rank.ACE: "A", Rank.TWO: "2", Rank.THREE: "3", Rank.FOUR: "4", Rank.FIVE: "5",
    Rank.SIX: "6", Rank.SEVEN: "7", Rank.EIGHT: "8", Rank.NINE: "9", Rank.TEN: "10",
    Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
}
_RANK_BY_TEXT: dict[str, Rank] = {}
for _r, _sym in _RANK_SYMBOLS.items():
    _RANK_BY_TEXT[_sym] = _r
    _RANK_BY_TEXT[_sym.lower()] = _r
_RANK_BY_TEXT.update({"T": Rank.TEN, "t": Rank.TEN})


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. `Card.parse("5H")`; `str(card) == "5H"`.

    `pips` (counting value) and `index` (0..51, rank-major) are derived and
    stored so that scoring loops read plain ints.
    """

    rank: Rank
    suit: Suit
    pips: int = field(init=False, repr=False, compare=False)
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank) or not isinstance(self.suit, Suit):
            raise InvalidCardError(f"not a card: rank={self.rank!r} suit={self.suit!r}")
        object.__setattr__(self, "pips", min(int(self.rank), 10))
        object.__setattr__(self, "index", (int(self.rank) - 1) * 4 + _SUIT_ORDER[self.suit])

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse `5H`, `10H`, `TH`, `th`, `5♥`; raises InvalidCardError naming the text."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCardError(f"not a card: {text!r}")
        if not text.strip():
            raise InvalidCardError(f"not a card: {text!r} is empty (write rank then suit, like 5H)")
        card = _PARSED.get(text.strip())
        if card is None:
            # Phones often send the emoji form of a suit: the glyph and a variation selector.
            card = _PARSED.get(text.strip().replace("\ufe0f", "").replace("\ufe0e", ""))
        if card is None:
            raise InvalidCardError(
                f"not a card: {text!r} (write rank then suit, like 5H, 10H, TH or 5♥)"
            )
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with this index (0..51); raises InvalidCardError."""
        if not isinstance(index, int) or not 0 <= index < 52:
            raise InvalidCardError(f"no card has index {index!r} (0..51)")
        return _ALL[index]

    def __str__(self) -> str:
        return self.rank.symbol + self.suit.value

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    @property
    def pretty(self) -> str:
        """The card with a suit glyph, like `5♥`."""
        return self.rank.symbol + self.suit.glyph


_SUIT_ORDER = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}
_ALL: tuple[Card, ...] = tuple(Card(r, s) for r in Rank for s in Suit)
_PARSED: dict[str, Card] = {}
for _c in _ALL:
    for _rt, _rr in _RANK_BY_TEXT.items():
        if _rr is not _c.rank:
            continue
        for _st, _ss in _SUIT_BY_TEXT.items():
            if _ss is _c.suit:
                _PARSED[_rt + _st] = _c

ALL_CARDS: tuple[Card, ...] = _ALL
"""The 52 cards, in index order (ace of clubs first)."""


def parse_cards(items: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse cards from `"5H 5C JD"`, `"5H,5C"` or a list (of cards, or of texts that each
    hold one or more cards, like command-line words).

    Raises InvalidCardError naming the text: for one that is not a card, and for an empty
    card (an empty string in a list, or nothing between two commas): no card is dropped.
    """
    if isinstance(items, str):
        return _parse_text(items, None)
    out: list[Card] = []
    for i, item in enumerate(items):
        if isinstance(item, Card):
            out.append(item)
        elif isinstance(item, str) and (item.strip() == "" or "," in item or " " in item.strip()):
            out.extend(_parse_text(item, i))
        else:
            out.append(Card.parse(item))
    return tuple(out)


def _parse_text(text: str, position: int | None) -> tuple[Card, ...]:
    where = "" if position is None else f" (item {position + 1})"
    if position is not None and not text.strip():
        raise InvalidCardError(f"an empty card{where}: {text!r} names no card")
    pieces = text.split(",")
    out: list[Card] = []
    for piece in pieces:
        words = piece.split()
        if not words and len(pieces) > 1:
            raise InvalidCardError(f"an empty card between commas in {text!r}{where}")
        out.extend(Card.parse(w) for w in words)
    return tuple(out)


def check_distinct(cards: Sequence[Card], starter: Card | None = None) -> None:
    """Raise DuplicateCardError naming a card that is given twice (or is also the starter)."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise DuplicateCardError(f"card {card} is given twice in {' '.join(map(str, cards))}")
        seen.add(card)
    if starter is not None and starter in seen:
        raise DuplicateCardError(f"card {starter} is both in the hand and the starter")


class Deck:
    """A pack of cards; shuffled only through an injected `random.Random`."""

    def __init__(self, cards: Iterable[Card] | None = None) -> None:
        self._cards: list[Card] = list(_ALL if cards is None else cards)
        check_distinct(self._cards)

    @classmethod
    def shuffled(cls, rng: random.Random) -> Deck:
        """A full pack in an order drawn from `rng`."""
        deck = cls()
        deck.shuffle(rng)
        return deck

    def shuffle(self, rng: random.Random) -> None:
        rng.shuffle(self._cards)

    def deal(self, n: int) -> tuple[Card, ...]:
        """Take n cards from the top; raises InvalidCardError if too few remain."""
        if n < 0 or n > len(self._cards):
            raise InvalidCardError(f"cannot deal {n} cards from a deck of {len(self._cards)}")
        out, self._cards = self._cards[:n], self._cards[n:]
        return tuple(out)

    def remove(self, cards: Iterable[Card]) -> None:
        """Take out the given cards; raises InvalidCardError for one not in the deck."""
        for card in cards:
            try:
                self._cards.remove(card)
            except ValueError:
                raise InvalidCardError(f"card {card} is not in the deck") from None

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self._cards)
