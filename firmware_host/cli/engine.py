"""`crib score`, `crib peg` and `crib stats`: the rules engine at the command line."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from cribbage.cards import Card, Rank, Suit, parse_cards
from cribbage.errors import CribbageError, DuplicateCardError, InvalidCardError
from cribbage.pegscore import MAX_COUNT, score_pegging
from cribbage.scoring import SHOW_SIZES, score_hand
from cribbage.stats import CENSUS_GAMES, census, deals_keeping_28, explain_29
from firmware_host.cli import fail

_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_RANK_TEXT = {r.symbol: r for r in Rank} | {"T": Rank.TEN}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `score`, `peg` and `stats` to the `crib` parser."""
    p = sub.add_parser("score", help="count a hand or crib with the starter")
    p.add_argument("cards", nargs="+", help="the hand's cards, like 5H 5C 5S JD")
    p.add_argument("--starter", required=True, help="the starter, like 5D")
    p.add_argument("--crib", action="store_true", help="count it as the crib")
    p.add_argument("--variant", default="six-card", choices=sorted(SHOW_SIZES))
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_score)

    p = sub.add_parser("peg", help="what the last card played scores in the play")
    p.add_argument("cards", nargs="+", help="cards since the reset, like 7 8 6 or 7H 8C 6D")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_peg)

    p = sub.add_parser("stats", help="exact show-score statistics over every hand and starter")
    p.add_argument("--crib", action="store_true", help="for cribs (a crib flush needs all five)")
    p.add_argument("--game", default="six-card", choices=list(CENSUS_GAMES))
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_stats)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _score(args: argparse.Namespace) -> int:
    try:
        result = score_hand(
            parse_cards(list(args.cards)), args.starter, crib=args.crib, variant=args.variant
        )
    except CribbageError as exc:
        return fail(args, exc)
    if args.json:
        _print_json(result.to_json())
        return 0
    what = "crib" if args.crib else "hand"
    print(f"{what} {' '.join(map(str, result.hand))}, starter {result.starter}")
    for combo in result.combinations:
        print(f"  {combo.kind:<8} {' '.join(map(str, combo.cards)):<16} {combo.points:>2}")
    print(
        f"fifteens {result.fifteens}, pairs {result.pairs}, runs {result.runs}, "
        f"flush {result.flush}, nobs {result.nobs}: total {result.total}"
    )
    print(f'"{result.say()}"')
    return 0


def _peg_tokens(texts: Sequence[str]) -> list[str]:
    """The words of the command line's cards, split at spaces and commas; raises
    InvalidCardError for an empty one (an empty word, or nothing between two commas), so no
    card is dropped without a word."""
    tokens: list[str] = []
    for i, text in enumerate(texts):
        if not text.strip():
            raise InvalidCardError(f"an empty card (item {i + 1}): {text!r} names no card")
        pieces = text.split(",")
        for piece in pieces:
            words = piece.split()
            if not words:
                raise InvalidCardError(f"an empty card between commas in {text!r} (item {i + 1})")
            tokens.extend(words)
    return tokens


def _peg_cards(texts: Sequence[str]) -> tuple[list[Card], list[str]]:
    """Cards from text, and each as it is shown: a bare rank is scored as a card of a suit not
    yet used for that rank (suits do not peg) but shown as the rank it was given.

    Raises InvalidCardError for an empty or unknown card or a rank played a fifth time, and
    DuplicateCardError for a card given twice, naming the cards as they were typed.
    """
    tokens = _peg_tokens(texts)
    bare = [_RANK_TEXT.get(t.upper()) for t in tokens]
    typed = [r.symbol if r is not None else str(Card.parse(t)) for t, r in zip(tokens, bare,
                                                                             strict=True)]
    given: set[Card] = set()
    for token, rank in zip(tokens, bare, strict=True):
        if rank is None:
            card = Card.parse(token)
            if card in given:
                # Checked before any rank gets its stand-in suit, so the message shows only
                # what was typed.
                raise DuplicateCardError(f"card {card} is given twice in {' '.join(typed)}")
            given.add(card)
    taken = set(given)
    cards: list[Card] = []
    for token, rank in zip(tokens, bare, strict=True):
        if rank is None:
            cards.append(Card.parse(token))
            continue
        free = [Card(rank, s) for s in _SUITS if Card(rank, s) not in taken]
        if not free:
            raise InvalidCardError(f"rank {token!r} is played a fifth time in {' '.join(typed)}")
        taken.add(free[0])
        cards.append(free[0])
    return cards, typed


def _peg(args: argparse.Namespace) -> int:
    try:
        cards, shown = _peg_cards(args.cards)
        count = sum(card.rank.pips for card in cards)
        if count > MAX_COUNT:  # worded with the cards as typed: no stand-in suits
            return fail(args, f"the count of {' '.join(shown)} is {count}, past {MAX_COUNT}")
        result = score_pegging(cards)
    except CribbageError as exc:
        return fail(args, exc)
    if args.json:
        _print_json(result.to_json() | {"cards": shown})
        return 0
    print(f"played {' '.join(shown)}: count {result.count}")
    print(
        f"fifteen {result.fifteen}, thirty-one {result.thirty_one}, pairs {result.pairs}, "
        f"run {result.run}: {result.total} for the {result.card.rank.symbol}"
    )
    print(f'"{result.say()}"')
    return 0


def _stats(args: argparse.Namespace) -> int:
    try:
        table = census(crib=args.crib, game=args.game)
    except CribbageError as exc:
        return fail(args, exc)
    hands = census(game=args.game) if args.game == "six-card" else None
    if args.json:
        data = table.to_json()
        if hands is not None:
            data["one_in_216580"] = explain_29(hands)
        _print_json(data)
        return 0
    what = "cribs" if args.crib else "hands"
    print(f"{args.game} {what}: {table.combinations:,} (cards, starter) combinations")
    print(f"{'score':>5} {'combinations':>12} {'share':>9} {'one in':>14}")
    for score in range(max(table.distribution) + 1):
        n = table.distribution.get(score, 0)
        one_in = f"{table.combinations / n:,.1f}" if n else "impossible"
        print(f"{score:>5} {n:>12,} {n / table.combinations:>9.4%} {one_in:>14}")
    mean = table.mean
    print(f"mean {float(mean):.4f} (= {mean.numerator}/{mean.denominator})")
    print(f"impossible: {', '.join(map(str, table.impossible))}")
    if hands is not None:
        print(explain_29(hands))
        deals = deals_keeping_28()
        print(
            f"Likewise the published 1 in 15,028 for a 28 is per six-card deal: {deals:,} deals, "
            f"1 in {936_491_920 / deals:,.1f}."
        )
    return 0
