"""Pass plans: how many passes, how each card is routed, and how good the mix will be.

Plans are "random" (a fresh secure coin per card, passes from the exact Bayer-Diaconis
distance), "exact" (radix routing to a secret uniform target order, ceil(log2 n) passes)
and "light" (3 coin passes, honestly reported as not random).
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field

from hardware.errors import DeckSizeError, PlanError
from hardware.shuffler import math as smath

MIN_DECK = 2
MAX_DECK = smath.MAX_DECK
DEFAULT_TARGET_TV = 0.1  # 52 cards: 9 passes (0.085); 104 cards: 11 passes (0.060)
LIGHT_PASSES = 3


class Pile(enum.StrEnum):
    """The two output piles."""

    LEFT = "left"
    RIGHT = "right"

    @property
    def other(self) -> Pile:
        return Pile.RIGHT if self is Pile.LEFT else Pile.LEFT


class Routing(enum.StrEnum):
    """How each card's pile is chosen."""

    COIN = "coin"
    RADIX = "radix"
    LIGHT = "light"  # coin routing, too few passes to be random


PLAN_ROUTING = {"random": Routing.COIN, "exact": Routing.RADIX, "light": Routing.LIGHT}


def radix_key(position: int, deck_size: int, passes: int) -> int:
    """The radix key of the card bound for target `position`: the positions spread in
    order over 0 .. 2^passes - 1 (floor(position 2^passes / n), one apart at least when
    2^passes >= n), so every pass splits the deck about in half, even with more passes than
    the minimum."""
    return (position << passes) // deck_size


def check_deck_size(deck_size: object) -> int:
    """The deck size as an int; raises DeckSizeError outside 2..104."""
    if isinstance(deck_size, bool) or not isinstance(deck_size, int):
        raise DeckSizeError(f"deck size must be a whole number of cards, got {deck_size!r}")
    if deck_size < MIN_DECK:
        raise DeckSizeError(
            f"a deck of {deck_size} cards cannot be shuffled; the shuffler takes "
            f"{MIN_DECK} to {MAX_DECK} cards"
        )
    if deck_size > MAX_DECK:
        raise DeckSizeError(
            f"a deck of {deck_size} cards is too big; the shuffler takes at most {MAX_DECK} "
            "cards (two decks): shuffle it in parts"
        )
    return deck_size


def secure_rng() -> random.Random:
    """A generator drawing from the operating system's secure source."""
    return random.SystemRandom()


@dataclass(frozen=True)
class ShufflePlan:
    """A plan: deck size, routing, passes, the pile stacked on top, and the mix quality.

    `target` is the secret final order of a radix plan (target[c] = final position of the
    card now at position c, 0 = top); it is kept out of repr.
    """

    deck_size: int
    name: str  # "random", "exact" or "light"
    routing: Routing
    passes: int
    tv_distance: float
    quality: str
    top_pile: Pile = Pile.LEFT
    target: tuple[int, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def random(self) -> bool:
        """True when the plan claims a well-mixed deck."""
        return self.routing is not Routing.LIGHT

    def key(self, card: int) -> int:
        """The radix key of a card (by its position at the plan's start): its target
        position spread over the passes' keys (`radix_key`).

        The tray is bottom-fed, so a pass is a stable split and no reversal needs undoing
        (Result 4 of docs/shuffling.md: T' = T). Raises PlanError for a plan without a
        target order.
        """
        if self.target is None:
            raise PlanError(f"a {self.name} plan has no target order")
        return radix_key(self.target[card], self.deck_size, self.passes)

    def radix_pile(self, pass_number: int, card: int) -> Pile:
        """The pile for `card` on pass `pass_number` (1-based) of a radix plan.

        Bit pass_number-1 of the card's key: a 0 to the pile stacked on top, on every pass
        (least-significant digit first, each pass a stable split, so the last pass leaves
        the deck sorted by key: the target). Raises PlanError as `key`.
        """
        bit = (self.key(card) >> (pass_number - 1)) & 1
        return self.top_pile if bit == 0 else self.top_pile.other

    def to_json(self) -> dict[str, object]:
        """JSON-ready summary (never the secret target)."""
        return {
            "deck_size": self.deck_size,
            "plan": self.name,
            "routing": self.routing.value,
            "passes": self.passes,
            "tv_distance": self.tv_distance,
            "quality": self.quality,
            "top_pile": self.top_pile.value,
        }


def _quality_coin(n: int, k: int, tv: float, target: float) -> str:
    verdict = (
        "a well-mixed deck"
        if tv < target
        else "not yet a well-mixed deck"
    )
    return (
        f"{k} random passes: distance to a perfectly random deck {tv:.3f} "
        f"(0 is perfect, 1 is not mixed at all): {verdict}"
    )


def make_plan(
    deck_size: int,
    plan: str = "random",
    *,
    target_tv: float = DEFAULT_TARGET_TV,
    passes: int | None = None,
    rng: random.Random | None = None,
    top_pile: Pile = Pile.LEFT,
) -> ShufflePlan:
    """Plan a shuffle of `deck_size` cards.

    `passes` overrides the computed count (for audits); `rng` draws the radix target
    (secure by default). Raises DeckSizeError for a size outside 2..104 and PlanError for
    an unknown plan or a pass count that cannot work.
    """
    n = check_deck_size(deck_size)
    if plan not in PLAN_ROUTING:
        raise PlanError(
            f"unknown shuffle plan {plan!r}; choose one of: " + ", ".join(PLAN_ROUTING)
        )
    routing = PLAN_ROUTING[plan]
    if passes is not None and (isinstance(passes, bool) or not isinstance(passes, int)
                               or passes < 1 or passes > 64):
        raise PlanError(f"passes must be a whole number from 1 to 64, got {passes!r}")
    if routing is Routing.COIN:
        k = passes if passes is not None else smath.passes_needed(n, target_tv)
        tv = smath.tv(n, k)
        return ShufflePlan(n, plan, routing, k, tv, _quality_coin(n, k, tv, target_tv), top_pile)
    if routing is Routing.LIGHT:
        k = passes if passes is not None else LIGHT_PASSES
        tv = smath.tv(n, k)
        quality = (
            f"{k} passes: a light mix, NOT random (distance to a random deck {tv:.3f}); "
            "many neighbouring cards stay together. Use the random plan for fair play."
        )
        return ShufflePlan(n, plan, routing, k, tv, quality, top_pile)
    need = smath.radix_passes(n)
    k = passes if passes is not None else need
    if k < need:
        raise PlanError(
            f"an exact plan of {n} cards needs at least {need} passes (2^passes >= cards), "
            f"got {k}"
        )
    gen = rng if rng is not None else secure_rng()
    target = list(range(n))
    gen.shuffle(target)  # Fisher-Yates on the given (secure by default) generator
    quality = (
        f"{k} exact passes to a secret random order: distance to a perfectly random deck "
        "0.000, as long as each pile is stacked as prompted (a fault restarts the plan)"
    )
    return ShufflePlan(n, plan, routing, k, 0.0, quality, top_pile, tuple(target))

