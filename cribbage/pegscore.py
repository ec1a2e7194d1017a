"""Pegging in the play: what the last card laid scores against the cards since the reset."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from cribbage.cards import Card, check_distinct, parse_cards
from cribbage.errors import IllegalPlayError, InvalidHandError
from cribbage.rules import MAX_COUNT
from cribbage.scoring import number_words
from cribbage.tuples import field as _field

_OF_A_KIND = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}




class PegScore(tuple):  # type: ignore[type-arg]
    """What the last card played scores: `.fifteen .thirty_one .pairs .run .total` (points).

    An immutable value (a tuple underneath). `.count` is the running count after the card;
    `.run` is the length of the run it completes (0 if none), which is also its points.
    """

    __slots__ = ()

    total: int = _field(0, "All the points.")
    fifteen: int = _field(1, "2 when the count is fifteen.")
    thirty_one: int = _field(2, "2 when the count is thirty-one.")
    pairs: int = _field(3, "2 pair, 6 pair royal, 12 double pair royal.")
    run: int = _field(4, "The length of the run the card completes, or 0.")
    count: int = _field(5, "The running count after the card.")
    cards: tuple[Card, ...] = _field(6, "The cards played since the reset, in order.")

    def __reduce__(self) -> tuple[Any, ...]:
        return (PegScore, (tuple(self),))

    def __repr__(self) -> str:
        return (
            f"<PegScore {' '.join(map(str, self.cards))} = {self.count}: {self.total} "
            f"(fifteen {self.fifteen}, thirty-one {self.thirty_one}, pairs {self.pairs}, "
            f"run {self.run})>"
        )

    @property
    def card(self) -> Card:
        """The card that scores (the last one played)."""
        return self.cards[-1]

    @property
    def of_a_kind(self) -> int:
        """How many cards of one rank end the play (1 when the last card pairs nothing)."""
        return {0: 1, 2: 2, 6: 3, 12: 4}[self.pairs]

    def say(self) -> str:
        """What the player says: "fifteen two", "thirty-one for two, and a pair is four"."""
        if self.fifteen:
            said = ["fifteen two"]
        elif self.thirty_one:
            said = ["thirty-one for two"]
        else:
            said = [number_words(self.count)]
        running = self.fifteen + self.thirty_one
        extras: list[tuple[str, int]] = []
        if self.pairs:
            extras.append((_OF_A_KIND[self.of_a_kind], self.pairs))
        if self.run:
            extras.append((f"a run of {number_words(self.run)}", self.run))
        for name, points in extras:
            if running:
                said.append(f"and {name} is {number_words(running + points)}")
            else:
                said.append(f"{name} for {number_words(points)}")
            running += points
        return ", ".join(said)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the cards, the count, each part's points, the total and the say."""
        return {
            "cards": [str(c) for c in self.cards],
            "count": self.count,
            "fifteen": self.fifteen,
            "thirty_one": self.thirty_one,
            "pairs": self.pairs,
            "run": self.run,
            "total": self.total,
            "say": self.say(),
        }


def run_length(ranks: Sequence[int]) -> int:
    """The longest run (3+) that the last k ranks make in any order, or 0."""
    n = len(ranks)
    if n < 3:
        return 0
    last = ranks[-1]
    lo = hi = last
    seen = 1 << last
    best = 0
    for k in range(2, n + 1):
        r = ranks[-k]
        if seen >> r & 1:
            break  # a repeated rank: no longer window can be a run
        seen |= 1 << r
        if r < lo:
            lo = r
        elif r > hi:
            hi = r
        if k >= 3 and hi - lo == k - 1:
            best = k
    return best


def score_pegging(cards: Iterable[Card | str] | str) -> PegScore:
    """Score the last of the cards played since the count was reset (cards or text like "7H").

    Raises InvalidCardError for text that is not a card, DuplicateCardError naming a card played
    twice, InvalidHandError when no card is given, IllegalPlayError when the count passes 31.
    """
    played: tuple[Card, ...] | None = None
    if type(cards) is tuple or type(cards) is list:
        try:
            pips = [c.pips for c in cards]  # type: ignore[union-attr]
            played = tuple(cards)  # type: ignore[arg-type]
        except AttributeError:
            played = None  # text: parse it below
    if played is None:
        played = parse_cards(cards)
        pips = [c.pips for c in played]
    n = len(played)
    if not n:
        raise InvalidHandError("no cards played: pegging scores the last card played")
    index = [c.index for c in played]
    if len(set(index)) != n:
        check_distinct(played)  # raises, naming the card
    count = sum(pips)
    if count > MAX_COUNT:
        shown = " ".join(map(str, played))
        raise IllegalPlayError(f"the count of {shown} is {count}, past {MAX_COUNT}")
    ranks = [i >> 2 for i in index]  # rank less one: only equality and differences matter
    last = ranks[-1]
    same = 1
    while same < n and ranks[-1 - same] == last:
        same += 1
    fifteen = 2 if count == 15 else 0
    thirty_one = 2 if count == MAX_COUNT else 0
    pairs = same * (same - 1)
    run = run_length(ranks) if same == 1 else 0
    return PegScore(
        (fifteen + thirty_one + pairs + run, fifteen, thirty_one, pairs, run, count, played)
    )


__all__ = ["MAX_COUNT", "PegScore", "run_length", "score_pegging"]
