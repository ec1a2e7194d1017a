"""The pegging hint: which card to play now, by a one-ply expectation.

`advise_play(hand, played_since_reset, count)`: for each card that fits, the points it scores
now minus the expected points of the reply by an unseen card, with the reasons in words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from cribbage.cards import ALL_CARDS, Card, check_distinct, parse_cards
from cribbage.errors import IllegalPlayError, InvalidCardError, InvalidHandError
from cribbage.pegscore import score_pegging


def _cards(items: str | Iterable[Card | str], what: str) -> tuple[Card, ...]:
    try:
        return parse_cards(items if isinstance(items, str) else list(items))
    except InvalidCardError as exc:
        raise type(exc)(f"{what}: {exc}") from None


def _fmt(x: Fraction) -> float:
    return round(float(x), 4)


_RANK_WORDS = {
    1: ("ace", "aces"), 2: ("two", "twos"), 3: ("three", "threes"), 4: ("four", "fours"),
    5: ("five", "fives"), 6: ("six", "sixes"), 7: ("seven", "sevens"), 8: ("eight", "eights"),
    9: ("nine", "nines"), 10: ("ten", "tens"), 11: ("jack", "jacks"), 12: ("queen", "queens"),
    13: ("king", "kings"),
}


def _a(rank: int) -> str:
    word = _RANK_WORDS[rank][0]
    return ("an " if word[0] in "ae" else "a ") + word


def _pips_words(pips: int) -> str:
    """A card of this counting value, in words ("a ten-card" for ten)."""
    return "a ten-card" if pips == 10 else _a(pips)


@dataclass(frozen=True, slots=True)
class PlayOption:
    """One card that can be played now, with its one-ply value.

    `now` is what it pegs at once; `reply` the expected points of the opponent's answer by a
    uniformly random unseen card (0 for a card that cannot be played); `net` is now - reply.
    """

    card: Card
    count: int
    now: int
    reply: Fraction
    net: Fraction
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "card": str(self.card),
            "count": self.count,
            "now": self.now,
            "reply": _fmt(self.reply),
            "net": _fmt(self.net),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class PlayHint:
    """The card to play now (None: no card can be played, say go), with every option, best first."""

    card: Card | None
    reason: str
    count: int
    unseen: int
    options: tuple[PlayOption, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "card": None if self.card is None else str(self.card),
            "reason": self.reason,
            "count": self.count,
            "unseen": self.unseen,
            "options": [o.to_json() for o in self.options],
        }


def _gain_words(parts: dict[str, int], card: Card) -> list[str]:
    words = []
    if parts["fifteen"]:
        words.append("makes fifteen for 2")
    if parts["thirty_one"]:
        words.append("makes 31 for 2")
    pairs = parts["pairs"]
    if pairs == 2:
        words.append(f"pairs the {_RANK_WORDS[card.rank][0]} for 2")
    elif pairs == 6:
        words.append("makes a pair royal for 6")
    elif pairs == 12:
        words.append("makes a double pair royal for 12")
    if parts["run"]:
        words.append(f"makes a run of {parts['run']} for {parts['run']}")
    return words


def _risk_words(card: Card, count: int, paired: int, risk: dict[str, int], same: int) -> list[str]:
    """Why the reply is cheap or dear: the safety of the card and the biggest part of the reply."""
    after = count + card.pips
    if after == 31:
        return ["the count starts again, so no reply can score off it"]
    out = []
    if count == 0 and card.pips < 5:
        out.append(f"{_a(card.rank)} cannot be made fifteen")
    if not any(risk.values()):
        return out or [f"no unseen card can score off a count of {after}"]
    worst = max(risk, key=lambda k: risk[k])
    if worst == "pairs":
        if paired == 2:
            out.append("pairing invites a pair royal")
        elif paired == 6:
            out.append("a pair royal invites a double pair royal")
        else:
            out.append(f"it can be paired ({same} {_RANK_WORDS[card.rank][1]} unseen)")
    elif worst == "fifteen":
        out.append(f"it leaves {after}, where {_pips_words(15 - after)} makes fifteen")
    elif worst == "thirty_one":
        out.append(f"it leaves {after}, where {_pips_words(31 - after)} makes 31")
    else:
        out.append("it invites a run")
    return out


def advise_play(
    hand: str | Iterable[Card | str],
    played_since_reset: str | Iterable[Card | str],
    count: int,
    *,
    known: str | Iterable[Card | str] = (),
) -> PlayHint:
    """The card to play now: points now minus the expected reply by an unseen card.

    `played_since_reset` are the cards laid since the count was last reset (in order) and
    `count` their total; `known` are other cards out of play (earlier series, shown cards).
    Raises InvalidCardError, DuplicateCardError (a card in two places), InvalidHandError (no
    cards in hand), IllegalPlayError (a count that does not match the cards, or over 31).
    """
    cards = _cards(hand, "hand")
    played = _cards(played_since_reset, "played cards")
    known_cards = _cards(known, "known cards")
    if not cards:
        raise InvalidHandError("no cards in hand to play")
    check_distinct(tuple(cards) + tuple(played) + tuple(known_cards))
    total = sum(c.pips for c in played)
    if isinstance(count, bool) or not isinstance(count, int) or count != total:
        raise IllegalPlayError(
            f"count {count!r} does not match the cards played since the reset "
            f"({' '.join(map(str, played)) or 'none'} make {total})"
        )
    if count > 31:
        raise IllegalPlayError(f"count {count} is over 31")
    out = set(cards) | set(played) | set(known_cards)
    unseen = [c for c in ALL_CARDS if c not in out]
    options = []
    for card in cards:
        after = count + card.pips
        if after > 31:
            continue
        seq = (*played, card)
        mine = score_pegging(seq)
        parts = {k: getattr(mine, k) for k in ("fifteen", "thirty_one", "pairs", "run")}
        risk = dict.fromkeys(parts, 0)
        reply_total = 0
        if after < 31:
            for u in unseen:
                if after + u.pips > 31:
                    continue
                theirs = score_pegging((*seq, u))
                reply_total += theirs.total
                for k in risk:
                    v = getattr(theirs, k)
                    risk[k] += v
        reply = Fraction(reply_total, len(unseen)) if unseen else Fraction(0)
        words = _gain_words(parts, card)
        same = sum(1 for u in unseen if u.rank is card.rank)
        words += _risk_words(card, count, parts["pairs"], risk, same)
        options.append(
            PlayOption(
                card=card,
                count=after,
                now=mine.total,
                reply=reply,
                net=mine.total - reply,
                reason="; ".join(words),
            )
        )
    # Best net first; on a tie keep the lower cards for later (they fit under 31).
    options.sort(key=lambda o: (-o.net, -o.now, -o.card.pips, o.card.index))
    if not options:
        return PlayHint(card=None, count=count, unseen=len(unseen), options=(),
                        reason=f"go: no card in hand fits under 31 (the count is {count})")
    best = options[0]
    return PlayHint(card=best.card, reason=f"play {best.card}: {best.reason}", count=count,
                    unseen=len(unseen), options=tuple(options))


__all__ = ["PlayHint", "PlayOption", "advise_play"]
