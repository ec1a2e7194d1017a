"""What one pass does to a deck, and how an imperfect machine routes cards.

Shared by the timed simulator and the audit's fast path so both measure the same machine.
A deck is a list of card ids, index 0 the top card. Cards are dealt from the top, each
lands on top of its pile (so each pile holds its cards in reverse), then the named pile
is stacked on top of the other.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from hardware.errors import ShufflerError
from hardware.shuffler import design
from hardware.shuffler.plan import Pile

# A card's timing comes from the machine in front of it: its card speed (`[shuffler]
# feed_speed_mm_s`, measured by `crib shuffler calibrate`, else the default build's arithmetic
# in hardware.shuffler.design). Nothing here assumes one machine.
CARD_LENGTH_MM = design.CARD_LENGTH_MM


def card_transit_s(feed_speed_mm_s: float, card_length_mm: float = CARD_LENGTH_MM) -> float:
    """Seconds a card blocks a sensor it passes at the feed speed.

    Raises ShufflerError for a speed or length that is not above 0.
    """
    try:
        return design.card_transit_s(feed_speed_mm_s, card_length_mm)
    except ValueError as exc:
        raise ShufflerError(str(exc)) from None


def default_sensor_filter_ms(feed_speed_mm_s: float) -> float:
    """The card sensors' glitch filter at a card speed, in ms (design.sensor_filter_s)."""
    card_transit_s(feed_speed_mm_s)  # raises for a bad speed
    return round(design.sensor_filter_s(feed_speed_mm_s) * 1000.0, 1)


def deal_and_stack(deck: Sequence[int], piles: Sequence[Pile], top_pile: Pile) -> list[int]:
    """The deck after dealing card i to piles[i] and stacking `top_pile` on top.

    Raises ShufflerError when there is not one pile per card.
    """
    if len(piles) != len(deck):
        raise ShufflerError(f"{len(piles)} piles given for a deck of {len(deck)} cards")
    top = [c for c, p in zip(deck, piles, strict=True) if p is top_pile]
    under = [c for c, p in zip(deck, piles, strict=True) if p is not top_pile]
    top.reverse()
    under.reverse()
    return top + under


@dataclass(frozen=True, slots=True)
class MachineModel:
    """An imperfect machine: split bias p (share sent left), clumping q (share of cards that
    land in the same pile as the card before), symmetric misroute rate, double-feed rate.

    p = q = 0.5 and zero rates is the ideal machine. Raises ShufflerError for values
    outside [0, 1].
    """

    p: float = 0.5
    q: float = 0.5
    misroute: float = 0.0
    double_feed: float = 0.0

    def __post_init__(self) -> None:
        for name in ("p", "q", "misroute", "double_feed"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ShufflerError(f"machine model {name} must be between 0 and 1, got {value}")

    @property
    def ideal(self) -> bool:
        return self.p == 0.5 and self.q == 0.5 and self.misroute == 0 and self.double_feed == 0

    def actual_pile(
        self, commanded: Pile, previous: Pile | None, rng: random.Random
    ) -> Pile:
        """Where a card commanded to `commanded` really lands, given the previous card's pile.

        Clumping models flipper lag: with probability 2q - 1 the card follows the previous
        one (q < 0.5: goes the other way with probability 1 - 2q); bias then pushes cards
        toward one side; a misroute sends a card to the other pile.
        """
        pile = commanded
        if previous is not None and self.q != 0.5:
            if self.q > 0.5:
                if rng.random() < 2 * self.q - 1:
                    pile = previous
            elif rng.random() < 1 - 2 * self.q:
                pile = previous.other
        if self.p < 0.5 and pile is Pile.LEFT and rng.random() < 1 - 2 * self.p:
            pile = Pile.RIGHT
        elif self.p > 0.5 and pile is Pile.RIGHT and rng.random() < 2 * self.p - 1:
            pile = Pile.LEFT
        if self.misroute and rng.random() < self.misroute:
            pile = pile.other
        return pile
