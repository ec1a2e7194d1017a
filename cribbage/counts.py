"""What a hand can count: every total a hand or crib of so many cards makes with a starter.

Used by the game machine (a count entered in keeper mode must be one of them) and by the
catalogue of rules (`GET /api/rules` serves them to the page).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

_JACK = 11




@functools.cache
def possible_counts(cards: int, crib: bool) -> frozenset[int]:
    """Every total a hand (or crib) of `cards` cards can make with a starter.

    Fifteens, pairs and runs come from the ranks (every rank multiset); flush and nobs are
    added by which suit patterns the ranks allow: a flush needs distinct ranks (and a starter
    of a new rank to match it), nobs a jack in hand and a starter that is not a jack, and a
    hand of four jacks always holds the starter's jack.
    """
    from cribbage.ranks import all_multisets, rank_points

    totals: set[int] = set()
    for hand in all_multisets(cards):
        jacks = hand.count(_JACK)
        distinct = len(set(hand)) == cards
        for starter in range(1, 14):
            if hand.count(starter) == 4:
                continue
            base = rank_points(tuple(sorted(hand + (starter,))))
            extras: set[int] = set()
            if jacks < 4:
                extras.add(0)
            if jacks and starter != _JACK:
                extras.add(1)
            if distinct and not crib:
                extras.add(cards)  # flush of the hand, starter of another suit
            if distinct and starter not in hand:
                extras.add(cards + 1 + (1 if jacks else 0))  # with the starter (and nobs)
            totals.update(base + e for e in extras)
    return frozenset(totals)


@functools.cache
def possible_pair_counts(hand_cards: int, crib_cards: int) -> frozenset[int]:
    """Every total a hand of `hand_cards` and a crib of `crib_cards` can make between them:
    each hand total with each crib total (the one starter they share is not asked of them,
    so a total of two hands no deal holds together, such as 29 and 29, is still offered)."""
    return frozenset(a + b for a in possible_counts(hand_cards, False)
                     for b in possible_counts(crib_cards, True))


def describe_totals(totals: frozenset[int]) -> str:
    top = max(totals)
    gaps = [str(t) for t in range(top + 1) if t not in totals]
    if not gaps:
        return f"0 to {top}"
    return f"0 to {top} except {_and(gaps)}"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def say_impossible(points: int, kind: str, totals: frozenset[int]) -> str:
    top = max(totals)
    gaps = [str(t) for t in range(top + 1) if t not in totals]
    never = f", but never {_and(gaps)}" if gaps else ""
    if kind == "hand_and_crib":
        return (f"{points} isn't what a hand and a crib can make together: they go from 0 to "
                f"{top}{never}.")
    return (f"{points} isn't a {kind} anyone can hold: counts go from 0 to {top}{never}.")


__all__ = ["describe_totals", "possible_counts", "possible_pair_counts", "say_impossible"]
