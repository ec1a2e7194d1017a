"""The advisor: which cards to lay away (exact expectations), and which card to play now.

`advise(hand, dealer=...)` ranks every possible discard by the expected points of the kept hand
over every starter, plus (dealer) or minus (non-dealer) the expected points of the crib.

Crib models, named in the output:

- ``random``: the other cards of the crib are uniformly random among the unseen cards and the
  starter is uniformly random among the rest. The expectation is exact (a `Fraction`): it equals
  the enumeration of every crib completion and starter (two players: 15 discards x 1,035
  completions x 44 starters), computed by rank pattern instead. Fifteens, pairs and runs depend
  only on the multiset of ranks, so each multiset of the cards still to come is scored once
  (`cribbage.ranks`) and weighted by how many ways the unseen cards make it (a product of
  binomials of the unseen count of each rank); flushes and nobs are added by counting suits.
- ``table``: the expected crib per discarded rank pair (per rank in the three- and four-player
  games), measured by simulated deals in which the opponents discard as this advisor does
  (``random`` model), made by ``crib advise-table`` (a fixed seed; see `measure_crib_table`)
  and shipped as ``cribbage/data/crib_table.json``. The hand part is still exact; known cards
  change only the hand part.

Variants: six-card (6 dealt, 2 thrown, crib completed by the opponent's 2), five-card (5 dealt,
2 thrown, the kept three score a flush of 3, or 4 with the starter), three-player (5 dealt,
1 thrown; the crib is completed by the two other players' discards and one card from the deck)
and four-player (5 dealt, 1 thrown, three other discards). In the four-player game pass
``dealer=True`` when your side owns the crib (your partner deals).

`advise_play(hand, played_since_reset, count)` (in `cribbage.pegadvice`, also importable from
here) picks the card to play by a one-ply expectation: the points it scores now minus the
expected points of the reply by an unseen card.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from itertools import combinations
from math import comb

from cribbage.cards import ALL_CARDS, Card, Rank, Suit, check_distinct, parse_cards
from cribbage.errors import (
    DuplicateCardError,
    InvalidCardError,
    InvalidHandError,
    UnknownModelError,
    UnknownVariantError,
)
from cribbage.pegadvice import PlayHint, PlayOption, _cards, _fmt, advise_play
from cribbage.ranks import POINTS_BY_KEY, RANK_BIT, all_multisets, rank_key
from cribbage.rules import RULES
from cribbage.scoring import score_hand

MODELS = ("random", "table")
"""The crib models, by name."""


@dataclass(frozen=True, slots=True)
class Deal:
    """How a variant deals, as far as the discard is concerned (derived from its Rules)."""

    dealt: int
    """Cards dealt to one player."""
    thrown: int
    """Cards that player lays away."""
    others: int
    """Crib cards that are not the player's own (other players' discards and deck cards)."""

    @property
    def kept(self) -> int:
        return self.dealt - self.thrown


DEALS: dict[str, Deal] = {
    name: Deal(dealt=r.deal, thrown=r.discard, others=r.crib_size - r.discard)
    for name, r in RULES.items()
}
"""The deal of each variant in `cribbage.RULES`."""

_JACK = Rank.JACK
_SUITS = tuple(Suit)


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """One way to lay away: the kept hand and the thrown cards, with their expectations.

    `hand`, `crib` and `net` are exact fractions (`crib` is a table value for the `table` model);
    `hand_min` and `hand_max` are over every unseen starter; `guaranteed` is the least the kept
    cards can score with any starter (the same as `hand_min`); `without_starter` is what the kept
    cards score by themselves.
    """

    keep: tuple[Card, ...]
    discard: tuple[Card, ...]
    hand: Fraction
    crib: Fraction
    net: Fraction
    hand_min: int
    hand_max: int
    without_starter: int

    @property
    def guaranteed(self) -> int:
        return self.hand_min

    def to_json(self) -> dict[str, object]:
        return {
            "keep": [str(c) for c in self.keep],
            "discard": [str(c) for c in self.discard],
            "hand": _fmt(self.hand),
            "crib": _fmt(self.crib),
            "net": _fmt(self.net),
            "hand_min": self.hand_min,
            "hand_max": self.hand_max,
            "guaranteed": self.guaranteed,
            "without_starter": self.without_starter,
            "exact": {"hand": str(self.hand), "crib": str(self.crib), "net": str(self.net)},
        }


@dataclass(frozen=True, slots=True)
class Advice:
    """Every discard of a dealt hand, best first (by net, then hand)."""

    hand: tuple[Card, ...]
    dealer: bool
    variant: str
    model: str
    known: tuple[Card, ...]
    unseen: int
    """How many cards the expectations range over (the deck less the hand and known cards)."""
    options: tuple[DiscardOption, ...]

    @property
    def best(self) -> DiscardOption:
        return self.options[0]

    def option(self, discard: Iterable[Card | str]) -> DiscardOption:
        """The option that throws these cards; raises InvalidCardError if there is none."""
        wanted = frozenset(parse_cards(list(discard)))
        for opt in self.options:
            if frozenset(opt.discard) == wanted:
                return opt
        raise InvalidCardError(
            f"no discard {' '.join(sorted(map(str, wanted)))} from {' '.join(map(str, self.hand))}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "hand": [str(c) for c in self.hand],
            "dealer": self.dealer,
            "variant": self.variant,
            "model": self.model,
            "known": [str(c) for c in self.known],
            "unseen": self.unseen,
            "options": [o.to_json() for o in self.options],
        }


# --- parsing and checks --------------------------------------------------------------------


def _deal_of(variant: str) -> Deal:
    try:
        return DEALS[variant]
    except (KeyError, TypeError):
        raise UnknownVariantError(
            f"unknown variant {variant!r} (one of {', '.join(DEALS)})"
        ) from None


def _unseen(hand: Sequence[Card], known: Sequence[Card]) -> list[Card]:
    check_distinct(hand)
    in_hand = set(hand)
    seen_known: set[Card] = set()
    for card in known:
        if card in in_hand:
            raise DuplicateCardError(f"known card {card} is also in the hand")
        if card in seen_known:
            raise DuplicateCardError(f"known card {card} is given twice")
        seen_known.add(card)
    return [c for c in ALL_CARDS if c not in in_hand and c not in seen_known]


# --- the exact (random model) counts -------------------------------------------------------


@cache
def _multisets(size: int) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """Every rank multiset of this size as (rank_key, ((rank, multiplicity), ...))."""
    out = []
    for ranks in all_multisets(size):
        parts = tuple((r, ranks.count(r)) for r in sorted(set(ranks)))
        out.append((rank_key(ranks), parts))
    return tuple(out)


def _weights(size: int, counts: Sequence[int]) -> list[tuple[int, int]]:
    """(rank_key, ways) for every multiset of `size` ranks the unseen cards can make."""
    out = []
    for key, parts in _multisets(size):
        w = 1
        for r, m in parts:
            w *= comb(counts[r], m)
            if not w:
                break
        else:
            out.append((key, w))
    return out


class _Unseen:
    """Counts of the unseen cards by rank and suit, and their weighted rank multisets."""

    def __init__(self, cards: Sequence[Card], others: int) -> None:
        self.cards = cards
        self.n = len(cards)
        self.by_rank = [0] * 14
        self.suits: dict[Suit, int] = dict.fromkeys(_SUITS, 0)
        self.rank_suits: list[list[Suit]] = [[] for _ in range(14)]
        for c in cards:
            self.by_rank[c.rank] += 1
            self.suits[c.suit] += 1
            self.rank_suits[c.rank].append(c.suit)
        self.jack_suits = [c.suit for c in cards if c.rank is _JACK]
        self.others = others
        # The crib's unknown cards and the starter, as one multiset of others+1 cards: each
        # (completion, starter) pair is a set of others+1 unseen cards with one marked starter.
        self.extra = _weights(others + 1, self.by_rank)
        self.crib_cases = comb(self.n, others) * (self.n - others)


def _hand_stats(keep: Sequence[Card], u: _Unseen) -> tuple[Fraction, int, int, int]:
    """(expected points over starters, min, max, points without a starter) of a kept hand."""
    key = rank_key(int(c.rank) for c in keep)
    size = len(keep)
    suit0 = keep[0].suit
    flush = all(c.suit is suit0 for c in keep)
    nob_suits = {c.suit for c in keep if c.rank is _JACK}
    # Suit points by the starter's suit: a flush of the kept cards (+1 if the starter
    # matches) and one for his nob.
    suit_pts = {
        s: (size + (s is suit0) if flush else 0) + (s in nob_suits) for s in _SUITS
    }
    total = 0
    lo, hi = 99, -1
    for r in range(1, 14):
        nr = u.by_rank[r]
        if not nr:
            continue
        base = POINTS_BY_KEY[key + RANK_BIT[r]]
        total += nr * base
        for s in u.rank_suits[r]:
            p = base + suit_pts[s]
            lo = min(lo, p)
            hi = max(hi, p)
    for s in _SUITS:
        total += u.suits[s] * suit_pts[s]
    alone = POINTS_BY_KEY[key] + (size if flush else 0)
    return Fraction(total, u.n), lo, hi, alone


def _crib_total(discard: Sequence[Card], u: _Unseen) -> int:
    """Sum of the crib's points over every completion and starter (exact integer)."""
    dkey = rank_key(int(c.rank) for c in discard)
    k = u.others
    pts = POINTS_BY_KEY
    # Each set of k+1 unseen cards is k+1 cases (any of them the starter), all scoring alike.
    total = (k + 1) * sum(w * pts[dkey + key] for key, w in u.extra)
    # Flush: the crib's four and the starter all of one suit.
    suit0 = discard[0].suit
    if all(c.suit is suit0 for c in discard):
        total += 5 * (k + 1) * comb(u.suits[suit0], k + 1)
    # Nobs: a jack in the crib of the starter's suit (at most one jack can match).
    for c in discard:
        if c.rank is _JACK:
            total += u.suits[c.suit] * comb(u.n - 1, k)
    for s in u.jack_suits:
        total += (u.suits[s] - 1) * comb(u.n - 2, k - 1)
    return total


# --- the table model -----------------------------------------------------------------------


TABLE_FILE = resources.files("cribbage").joinpath("data", "crib_table.json")
"""The shipped crib table of the `table` model (made by `crib advise-table`)."""


@cache
def crib_table() -> dict[str, dict[str, dict[str, float]]]:
    """The shipped table: variant -> "dealer"|"pone" -> "r1-r2" (ranks) -> expected crib.

    Raises FileNotFoundError if the data file is missing from the installation.
    """
    data = json.loads(TABLE_FILE.read_text("utf-8"))
    return data["tables"]


def table_key(discard: Sequence[Card]) -> str:
    """The table's key for thrown cards: their ranks, low first, like "5-10"."""
    return "-".join(str(int(r)) for r in sorted(c.rank for c in discard))


def _table_crib(discard: Sequence[Card], variant: str, dealer: bool) -> Fraction:
    tables = crib_table()
    if variant not in tables:
        raise UnknownModelError(
            f"the table model has no data for variant {variant!r} "
            f"(it has {', '.join(tables)}); use model 'random'"
        )
    value = tables[variant]["dealer" if dealer else "pone"][table_key(discard)]
    return Fraction(str(value))


# --- advise --------------------------------------------------------------------------------


def advise(
    hand: str | Iterable[Card | str],
    *,
    dealer: bool,
    variant: str = "six-card",
    model: str = "random",
    known: str | Iterable[Card | str] = (),
) -> Advice:
    """Rank every discard of a dealt hand by expected net points (hand +/- crib).

    Raises InvalidCardError (text not a card), DuplicateCardError (a card twice, or a known
    card in the hand), InvalidHandError (wrong number of cards for the variant),
    UnknownVariantError, UnknownModelError.
    """
    deal = _deal_of(variant)
    if model not in MODELS:
        raise UnknownModelError(f"unknown crib model {model!r} (one of {', '.join(MODELS)})")
    cards = _cards(hand, "hand")
    known_cards = _cards(known, "known cards")
    if len(cards) != deal.dealt:
        raise InvalidHandError(
            f"a {variant} hand is {deal.dealt} cards, got {len(cards)}: "
            f"{' '.join(map(str, cards)) or '(none)'}"
        )
    unseen_cards = _unseen(cards, known_cards)
    if len(unseen_cards) < deal.others + 1:
        raise InvalidHandError(
            f"only {len(unseen_cards)} unseen cards left; the crib and starter need "
            f"{deal.others + 1}"
        )
    u = _Unseen(unseen_cards, deal.others)
    sign = 1 if dealer else -1
    options = []
    for discard in combinations(cards, deal.thrown):
        keep = tuple(c for c in cards if c not in discard)
        hand_exp, lo, hi, alone = _hand_stats(keep, u)
        if model == "random":
            crib_exp = Fraction(_crib_total(discard, u), u.crib_cases)
        else:
            crib_exp = _table_crib(discard, variant, dealer)
        options.append(
            DiscardOption(
                keep=keep,
                discard=tuple(discard),
                hand=hand_exp,
                crib=crib_exp,
                net=hand_exp + sign * crib_exp,
                hand_min=lo,
                hand_max=hi,
                without_starter=alone,
            )
        )
    # Best net first; ties by the better hand, then by card order for a stable answer.
    options.sort(key=lambda o: (-o.net, -o.hand, [c.index for c in o.discard]))
    return Advice(
        hand=cards,
        dealer=dealer,
        variant=variant,
        model=model,
        known=known_cards,
        unseen=u.n,
        options=tuple(options),
    )


# --- measuring the table -------------------------------------------------------------------


def _table_keys(thrown: int) -> list[tuple[int, ...]]:
    """Every rank pair (or rank) that can be thrown, low first."""
    return list(all_multisets(thrown))


def measure_crib_table(
    variant: str, rng: random.Random, *, samples: int
) -> dict[str, dict[str, float]]:
    """Expected crib per thrown rank(s), for the dealer and the pone, by simulated deals.

    For each side and each rank pair (rank, when one card is thrown), `samples` times: the
    thrown cards get random suits, the rest of the deal is dealt from a pack shuffled by `rng`,
    every other player lays away the best discard of this advisor's `random` model for its seat,
    and the crib is scored exactly over every starter left in the pack. The value is the mean.
    Raises UnknownVariantError.
    """
    deal = _deal_of(variant)
    rules = RULES[variant]
    out: dict[str, dict[str, float]] = {"dealer": {}, "pone": {}}
    for side in ("dealer", "pone"):
        i_deal = side == "dealer"
        for ranks in _table_keys(deal.thrown):
            total = Fraction(0)
            for _ in range(samples):
                pack = list(ALL_CARDS)
                rng.shuffle(pack)
                mine: list[Card] = []
                for r in ranks:
                    card = next(c for c in pack if c.rank == r)
                    pack.remove(card)
                    mine.append(card)
                # The rest of my hand is out of the pack; the others do not see it.
                del pack[: deal.dealt - deal.thrown]
                crib = list(mine)
                for seat in _other_seats(rules.players, i_deal):
                    hand, pack = pack[: deal.dealt], pack[deal.dealt :]
                    crib += advise(hand, dealer=seat, variant=variant).best.discard
                crib += pack[: rules.crib_from_deck]
                pack = pack[rules.crib_from_deck :]
                pts = sum(score_hand(crib, s, crib=True, variant=variant).total for s in pack)
                total += Fraction(pts, len(pack))
            out[side]["-".join(map(str, ranks))] = round(float(total / samples), 3)
    return out


def _other_seats(players: int, i_deal: bool) -> list[bool]:
    """For each other player, whether the crib is his side's (how he lays away)."""
    if players == 2:
        return [not i_deal]
    if players == 3:
        # I deal: two non-dealers. I do not: the dealer and the other non-dealer.
        return [False, False] if i_deal else [True, False]
    # Four players, partners opposite: my partner's interest is mine, the others' the reverse.
    return [i_deal, not i_deal, not i_deal]


__all__ = [
    "DEALS",
    "MODELS",
    "TABLE_FILE",
    "Advice",
    "Deal",
    "DiscardOption",
    "PlayHint",
    "PlayOption",
    "advise",
    "advise_play",
    "crib_table",
    "measure_crib_table",
    "table_key",
]
