"""The show: counting a hand or crib with the starter, the way a table counts it.

Fifteens, pairs and runs depend only on the ranks, so they come from a table over every rank
multiset (`cribbage.ranks`); flush and nobs are added by checking suits. Which cards make each
combination is worked out only when `HandScore.combinations` is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations as _subsets
from typing import Any

from cribbage.cards import Card, check_distinct, parse_cards
from cribbage.errors import InvalidCardError, InvalidHandError, UnknownVariantError
from cribbage.ranks import FIVE_WEIGHT, RANK_BIT, ROWS_BY_FIVE, ROWS_BY_KEY
from cribbage.rules import RULES
from cribbage.tuples import field as _field

# Cards in hand and in crib for each variant (the starter is extra): the rules' own sizes.
SHOW_SIZES: dict[str, tuple[int, int]] = {
    name: (rules.hand_size, rules.crib_size) for name, rules in RULES.items()
}
_FOUR_CARD_HAND = frozenset(v for v, (h, _c) in SHOW_SIZES.items() if h == 4)

KINDS = ("fifteen", "pair", "run", "flush", "nobs")


@dataclass(frozen=True, slots=True)
class Combination:
    """One scoring combination of the show: its kind, the cards that make it, its points."""

    kind: str
    cards: tuple[Card, ...]
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [str(c) for c in self.cards], "points": self.points}

    def __str__(self) -> str:
        return f"{self.kind} {' '.join(map(str, self.cards))} for {self.points}"




class HandScore(tuple):  # type: ignore[type-arg]
    """The count of a hand or crib with the starter (an immutable value; a tuple underneath).

    `.fifteens .pairs .runs .flush .nobs .total` are points; `.combinations` lists which cards
    make them; `.say()` gives the count as it is spoken at the table. Made by `score_hand`.
    """

    __slots__ = ()

    total: int = _field(0, "All the points.")
    flush: int = _field(1, "Points for the flush (0, 3, 4 or 5).")
    nobs: int = _field(2, "One for his nobs, or 0.")
    hand: tuple[Card, ...] = _field(3, "The hand's (or crib's) cards.")
    starter: Card = _field(4, "The starter.")
    crib: bool = _field(5, "Whether this is the crib.")
    variant: str = _field(6, "The variant's name.")
    parts: tuple[int, int, int, int, bool] = _field(
        7, "(fifteens, pairs, runs, their sum, whether the ranks include a jack)."
    )

    @property
    def fifteens(self) -> int:
        return self.parts[0]

    @property
    def pairs(self) -> int:
        return self.parts[1]

    @property
    def runs(self) -> int:
        return self.parts[2]

    @property
    def cards(self) -> tuple[Card, ...]:
        """The hand's cards and then the starter."""
        return (*self.hand, self.starter)

    @property
    def combinations(self) -> list[Combination]:
        """Every scoring combination, in counting order (fifteens, pairs, runs, flush, nobs)."""
        return _combinations(self)

    def say(self) -> str:
        """The count as a table says it, cumulative: "fifteen two, fifteen four, ..."."""
        return _say(self)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: cards, each part's points, total, combinations, the say."""
        return {
            "hand": [str(c) for c in self.hand],
            "starter": str(self.starter),
            "crib": bool(self.crib),
            "variant": self.variant,
            "total": self.total,
            "fifteens": self.fifteens,
            "pairs": self.pairs,
            "runs": self.runs,
            "flush": self.flush,
            "nobs": self.nobs,
            "combinations": [c.to_json() for c in self.combinations],
            "say": self.say(),
        }

    def __reduce__(self) -> tuple[Any, ...]:
        return (HandScore, (tuple(self),))

    def __repr__(self) -> str:
        hand = " ".join(map(str, self.hand))
        return (
            f"<HandScore {hand} / {self.starter}{' crib' if self.crib else ''}: {self.total} "
            f"(fifteens {self.fifteens}, pairs {self.pairs}, runs {self.runs}, "
            f"flush {self.flush}, nobs {self.nobs})>"
        )


# The fast path sums one small int per card, the five-card rank key (`cribbage.ranks`), and
# looks up the fifteens, pairs and runs; flush and nobs are then checked on suits (`index & 3`
# is the suit, `index // 4` the rank less one), nobs only when the ranks include a jack.
_RANK_OF = tuple(FIVE_WEIGHT[i // 4 + 1] for i in range(52))
_JACK_RANK = 11
# The index of the jack that is nobs with this starter (-1 when the starter is a jack: heels).
_NOBS_JACK = tuple(-1 if i // 4 + 1 == _JACK_RANK else 40 + (i & 3) for i in range(52))


# (fifteens, pairs, runs, their sum, a jack among the ranks) by rank key: five-card keys, and
# packed keys of any size (shipped tables: `cribbage.ranks`).
_PARTS5 = ROWS_BY_FIVE
_PARTS = ROWS_BY_KEY


def score_hand(
    hand: Sequence[Card | str] | str,
    starter: Card | str,
    *,
    crib: bool = False,
    variant: str = "six-card",
) -> HandScore:
    """Count a hand (or the crib, `crib=True`) with the starter; cards or text like "5H".

    Raises InvalidCardError for text that is not a card, DuplicateCardError naming a card given
    twice (or also the starter), InvalidHandError for the wrong number of cards for the variant,
    UnknownVariantError for an unknown variant.
    """
    # Fast path: four Card objects in a four-card variant; anything else takes the checked path.
    try:
        a, b, c, d = hand  # type: ignore[misc]
        ia: int = a.index  # type: ignore[union-attr,assignment]
        ib: int = b.index  # type: ignore[union-attr,assignment]
        ic: int = c.index  # type: ignore[union-attr,assignment]
        id_: int = d.index  # type: ignore[union-attr,assignment]
        is_: int = starter.index  # type: ignore[union-attr,assignment]
        parts = _PARTS5[_RANK_OF[ia] + _RANK_OF[ib] + _RANK_OF[ic] + _RANK_OF[id_] + _RANK_OF[is_]]
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        parts = None  # text, the wrong number of cards, or not cards at all
    if parts is None or (variant != "six-card" and variant not in _FOUR_CARD_HAND):
        return _score_checked(hand, starter, crib, variant)
    # A card given twice shows as a pair, so only hands with a pair need the distinct check.
    if parts[1] and len({ia, ib, ic, id_, is_}) != 5:
        return _score_checked(hand, starter, crib, variant)
    flush = nobs = 0
    suit = ia & 3
    if suit == ib & 3 and suit == ic & 3 and suit == id_ & 3:
        if suit == is_ & 3:
            flush = 5
        elif not crib:
            flush = 4
    if parts[4]:
        jack = _NOBS_JACK[is_]
        if ia == jack or ib == jack or ic == jack or id_ == jack:
            nobs = 1
    if type(hand) is not tuple:
        hand = (a, b, c, d)
    return HandScore((parts[3] + flush + nobs, flush, nobs, hand, starter, crib, variant, parts))


def _score_checked(
    hand: Sequence[Card | str] | str | Any, starter: Card | str | Any, crib: Any, variant: Any
) -> HandScore:
    """The general path: parse, check sizes and duplicates, then count."""
    sizes = SHOW_SIZES.get(variant) if isinstance(variant, str) else None
    if sizes is None:
        known = ", ".join(SHOW_SIZES)
        raise UnknownVariantError(f"unknown variant {variant!r} (known: {known})")
    if isinstance(hand, Card):
        raise InvalidHandError(f"a hand is several cards, not the single card {hand}")
    if not isinstance(hand, (str, Iterable)):
        raise InvalidHandError(f"not a hand of cards: {hand!r}")
    cards = parse_cards(hand)
    if starter is None:
        raise InvalidCardError("no starter given")
    if not isinstance(starter, (Card, str)):
        raise InvalidCardError(f"not a card: {starter!r}")
    start = Card.parse(starter)
    crib = bool(crib)
    want = sizes[1] if crib else sizes[0]
    if len(cards) != want:
        what = "crib" if crib else "hand"
        shown = " ".join(map(str, cards)) or "no cards"
        raise InvalidHandError(f"a {variant} {what} has {want} cards, not {len(cards)} ({shown})")
    seen = {card.index for card in cards}
    if len(seen) != len(cards) or start.index in seen:
        check_distinct(cards, start)  # raises, naming the card
    if len(cards) == 4 and variant in _FOUR_CARD_HAND:
        return score_hand(cards, start, crib=crib, variant=variant)  # no longer needs checks
    key = RANK_BIT[start.rank]
    for card in cards:
        key += RANK_BIT[card.rank]
    parts = _PARTS[key]
    suit = cards[0].suit
    flush = 0
    if all(card.suit is suit for card in cards):
        if start.suit is suit:
            flush = len(cards) + 1
        elif not crib:
            flush = len(cards)
    nobs = 0
    for card in cards:
        if card.index == 40 + (start.index & 3):
            nobs = 1
    return HandScore((parts[3] + flush + nobs, flush, nobs, cards, start, crib, variant, parts))


# ---- the breakdown, computed only when asked -------------------------------------------------


def _combinations(score: HandScore) -> list[Combination]:
    cards = score.cards
    out: list[Combination] = []
    for size in range(2, len(cards) + 1):
        for combo in _subsets(cards, size):
            if sum(c.pips for c in combo) == 15:
                out.append(Combination("fifteen", tuple(sorted(combo)), 2))
    for x, y in _subsets(cards, 2):
        if x.rank == y.rank:
            out.append(Combination("pair", tuple(sorted((x, y))), 2))
    out.extend(_run_combinations(cards))
    if score.flush:
        flushed = score.hand if score.flush == len(score.hand) else cards
        out.append(Combination("flush", tuple(flushed), score.flush))
    if score.nobs:
        jack = next(c for c in score.hand if c.index == 40 + (score.starter.index & 3))
        out.append(Combination("nobs", (jack,), 1))
    return out


def _run_combinations(cards: Sequence[Card]) -> list[Combination]:
    """Each way of making each maximal run of three or more ranks."""
    by_rank: dict[int, list[Card]] = {}
    for card in cards:
        by_rank.setdefault(int(card.rank), []).append(card)
    out: list[Combination] = []
    ranks = sorted(by_rank)
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        if j - i + 1 >= 3:
            ways: list[tuple[Card, ...]] = [()]
            for r in ranks[i : j + 1]:
                ways = [w + (c,) for w in ways for c in sorted(by_rank[r])]
            out.extend(Combination("run", w, len(w)) for w in ways)
        i = j + 1
    return out


_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """0..99 in words, as a count is said ("twenty-nine")."""
    if n < 20:
        return _ONES[n]
    tens, ones = divmod(n, 10)
    return _TENS[tens] + ("-" + _ONES[ones] if ones else "")


_RUN_WAYS = {1: "a run", 2: "a double run", 3: "a triple run", 4: "a quadruple run"}
_OF_A_KIND = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}


def _say(score: HandScore) -> str:
    """The cumulative spoken count; a hand of nothing is "nineteen"."""
    if score.total == 0:
        return "nineteen"
    items: list[tuple[str, int]] = []  # (name, points); fifteens are said differently
    running = 0
    fifteens: list[str] = []
    for _ in range(score.fifteens // 2):
        running += 2
        fifteens.append(f"fifteen {number_words(running)}")
    ranks = [int(c.rank) for c in score.cards]
    seen_pair = False
    for r in sorted(set(ranks)):
        n = ranks.count(r)
        if n >= 2:
            name = _OF_A_KIND[n]
            if n == 2 and seen_pair:
                name = "another pair"
            seen_pair = seen_pair or n == 2
            items.append((name, n * (n - 1)))
    runs = _run_combinations(score.cards)
    if runs:
        length = len(runs[0].cards)
        items.append(
            (
                f"{_RUN_WAYS.get(len(runs), f'{len(runs)} runs')} of {number_words(length)}",
                score.runs,
            )
        )
    if score.flush:
        items.append((f"a flush of {number_words(score.flush)}", score.flush))
    if score.nobs:
        items.append(("one for his nobs", 1))
    said = list(fifteens)
    for i, (name, points) in enumerate(items):
        running += points
        last = i == len(items) - 1
        if last and (said or i):
            said.append(f"and {name} makes {number_words(running)}")
        else:
            said.append(f"{name} is {number_words(running)}")
    return ", ".join(said)


__all__ = ["Combination", "HandScore", "KINDS", "SHOW_SIZES", "number_words", "score_hand"]
