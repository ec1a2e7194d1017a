"""Exact show statistics over every (hand, starter) combination, counted by rank pattern.

Fifteens, pairs and runs depend only on ranks, so the census walks the rank multisets of the
hand (1,820 of four ranks) and the starter's rank (13) and weighs each by how many suit choices
make it; flush and nobs are counted from the suits in closed form:

- the hand's suits can be chosen in prod C(4, count of rank) ways and then the starter in
  (4 - count of the starter's rank) ways;
- for any hand, the starter's suit is equally likely to be each suit the hand leaves free of its
  rank, and each is a hand jack's suit with chance (jacks in hand) / 4, so nobs comes with
  exactly jacks/4 of the combinations (none when the starter is a jack: that is heels);
- a flush needs distinct ranks; then 4 of the 4**n hand suit choices are one suit, and the
  starter matches in 1 of its 4 choices (0 of 3 if its rank is in the hand).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import comb, prod
from typing import Any

from cribbage.errors import UnknownVariantError
from cribbage.ranks import rank_points

JACK = 11
FIVE = 5

CENSUS_GAMES = {"six-card": 4, "five-card": 3}
"""Hand sizes the census knows (three- and four-player hands are four cards, like six-card)."""
_ALIASES = {"three-player": "six-card", "four-player": "six-card"}


def cell(hand_ranks: tuple[int, ...], starter_rank: int, *, crib: bool = False) -> Counter[int]:
    """How many suit choices give each show score, for a hand of these ranks and this starter.

    Raises KeyError for more than four cards of a rank.
    """
    out: Counter[int] = Counter()
    for score, n in _cell(tuple(sorted(hand_ranks)), starter_rank, crib):
        out[score] += n
    return out


def _cell(hand: tuple[int, ...], starter: int, crib: bool) -> list[tuple[int, int]]:
    """(score, combinations) pairs for one sorted hand rank multiset and starter rank."""
    n = len(hand)
    in_hand = hand.count(starter)
    if in_hand >= 4:
        return []
    base = rank_points(tuple(sorted((*hand, starter))))
    ways = (4 - in_hand) * prod([comb(4, hand.count(r)) for r in set(hand)])
    jacks = hand.count(JACK)
    nobs_all = ways * jacks // 4 if starter != JACK else 0
    out: list[tuple[int, int]] = []
    if len(set(hand)) == n:  # distinct ranks: a flush is possible
        # Five-card flushes need the starter's rank out of the hand; with a jack in hand (and
        # not a jack starter) they all have nobs too, as the starter shares the jack's suit.
        flush5 = 0 if in_hand else 4
        nobs5 = flush5 if jacks and starter != JACK else 0
        if flush5:
            out.append((base + n + 1 + (1 if nobs5 else 0), flush5))
        # A hand flush has the starter off suit, so never nobs; the crib scores it nothing.
        out.append((base + (0 if crib else n), 12))
        rest = ways - flush5 - 12
        rest_nobs = nobs_all - nobs5
    else:
        rest, rest_nobs = ways, nobs_all
    if rest_nobs:
        out.append((base + 1, rest_nobs))
    if rest - rest_nobs:
        out.append((base, rest - rest_nobs))
    return out


@dataclass(frozen=True, slots=True)
class Census:
    """The exact distribution of show scores over every (hand, starter) combination."""

    game: str
    crib: bool
    distribution: dict[int, int]

    @property
    def combinations(self) -> int:
        return sum(self.distribution.values())

    @property
    def mean(self) -> Fraction:
        """The exact mean score."""
        return Fraction(sum(s * n for s, n in self.distribution.items()), self.combinations)

    @property
    def impossible(self) -> list[int]:
        """Scores from 0 to the maximum that no combination makes."""
        top = max(self.distribution)
        return [s for s in range(top + 1) if not self.distribution.get(s)]

    def one_in(self, score: int) -> Fraction | None:
        """N such that a combination scores `score` once in N (None if it never does)."""
        n = self.distribution.get(score, 0)
        return Fraction(self.combinations, n) if n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "crib": self.crib,
            "combinations": self.combinations,
            "mean": float(self.mean),
            "mean_fraction": f"{self.mean.numerator}/{self.mean.denominator}",
            "impossible": self.impossible,
            "distribution": {str(s): n for s, n in sorted(self.distribution.items())},
        }


def census(*, crib: bool = False, game: str = "six-card") -> Census:
    """The exact show census for hands (or cribs) of a game; raises UnknownVariantError."""
    name = _ALIASES.get(game, game)
    if name not in CENSUS_GAMES:
        raise UnknownVariantError(
            f"no census for game {game!r} (known: {', '.join([*CENSUS_GAMES, *_ALIASES])})"
        )
    return _census(bool(crib), name)


@cache
def _census(crib: bool, game: str) -> Census:
    # The five-card game's crib is four cards, like the six-card crib.
    n = 4 if crib else CENSUS_GAMES[game]
    total = [0] * 32
    for hand in combinations_with_replacement(range(1, 14), n):
        for starter in range(1, 14):
            for score, count in _cell(hand, starter, crib):
                total[score] += count
    dist = {score: count for score, count in enumerate(total) if count}
    return Census(game=game, crib=crib, distribution=dist)


# ---- the texts' "1 in 216,580" -------------------------------------------------------------

SIX_CARD_DEALS = comb(52, 6) * 46
"""(six cards dealt to a player, starter) pairs: 20,358,520 x 46 = 936,491,920."""


def deals_keeping_29() -> int:
    """Six-card deals (with the starter) from which a 29 can be kept.

    The 29 is the jack of the starter's suit with the other three fives, the starter a five:
    4 choices of suit, and the two discards any 2 of the other 47 cards. No deal holds two.
    """
    return 4 * comb(47, 2)


def deals_keeping_28() -> int:
    """Six-card deals (with the starter) whose best keep is exactly 28.

    Either all four fives are dealt (the other two cards from the 48 others) and the starter is
    one of the 16 ten-cards not dealt; or three fives are dealt, the fourth is the starter, and
    the other three cards hold a ten-card that is not the nobs jack (15 of them) and not the
    nobs jack itself (else the best keep is 29).
    """
    four_fives = comb(48, 2) * 16 - 16 * 47  # each ten-card sits in 47 of the pairs
    three_fives = 4 * (comb(47, 3) - comb(32, 3))
    return four_fives + three_fives


def explain_29(hands: Census | None = None) -> str:
    """How the published "1 in 216,580" for a 29 arises, with the census's own figure."""
    hands = hands or census()
    n29 = hands.distribution.get(29, 0)
    per_combo = hands.one_in(29)
    deals = deals_keeping_29()
    per_deal = Fraction(SIX_CARD_DEALS, deals)
    return (
        f"{n29} of the {hands.combinations:,} (four-card hand, starter) combinations score 29, "
        f"1 in {_fmt(per_combo)}. The published 1 in 216,580 is per six-card deal: "
        f"{deals:,} of the {SIX_CARD_DEALS:,} (six dealt, starter) deals hold a 29 to keep "
        f"(4 suits x C(47,2) discards), 1 in {_fmt(per_deal)}; it is {_fmt(per_combo / per_deal)} "
        f"times likelier because a six-card deal offers C(6,4) = 15 hands to keep."
    )


def _fmt(x: Fraction | None) -> str:
    if x is None:
        return "never"
    if x.denominator == 1:
        return f"{x.numerator:,}"
    return f"{float(x):,.1f}"


__all__ = [
    "CENSUS_GAMES",
    "Census",
    "SIX_CARD_DEALS",
    "cell",
    "census",
    "deals_keeping_28",
    "deals_keeping_29",
    "explain_29",
]
