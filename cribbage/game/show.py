"""The show: each count in order (hand by hand, then the crib) and muggins after it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from cribbage.actions import Count, Muggins
from cribbage.cards import Card
from cribbage.counts import describe_totals, say_impossible
from cribbage.errors import ImpossibleScoreError
from cribbage.game.events import Event, MugginsClaimed, Parts, Shown
from cribbage.game.score import score
from cribbage.game.setup import next_hand
from cribbage.game.state import HAND_AND_CRIB, ZERO_HAND, Core, CountRecord, Phase
from cribbage.game.table import Refusal, Stepped, Table


def count(table: Table, c: Core, act: Count) -> Stepped:
    """The next count in show order (in keeper mode after the nothings it takes); after the
    crib, the next hand."""
    out: list[Event] = []
    for _ in range(act.nineteens or 0):  # each a zero hand, recorded and said as such
        c = _counted(table, c, Count(points=ZERO_HAND), out)
    c = _counted(table, c, act, out)  # with the crib: the hand and crib, one count of both
    if c.phase is not Phase.OVER and c.show_index > table.players:
        c = next_hand(table, c, out)  # the crib was the last count
    return c, tuple(out)


def _counted(table: Table, c: Core, act: Count, out: list[Event]) -> Core:
    """The state after one count (two for a hand and crib together), its events added to
    `out`."""
    record = table.strategy.count(table, c, act, table.count_entry(c, act.with_crib))
    c = replace(c, last_count=record, phase=Phase.SHOW, play_started=True,
                shown=c.shown + record.cards, show_index=c.show_index + (2 if act.with_crib
                                                                           else 1))
    shown = shown_event(record)
    out.append(shown)
    return score(table, c, record.side, record.points, record.kind, record.player, out,
                 count_parts(shown), shown.say.rstrip("."))


def shown_event(record: CountRecord) -> Shown:
    """The event of a count: the cards' own words when they are known."""
    breakdown = None if record.breakdown is None else json.loads(record.breakdown)
    if breakdown is not None and record.points == record.true_total:
        said = breakdown["say"] if record.points else "nineteen, nothing"
    elif record.true_total is not None:
        said = f"{record.points} counted (the cards make {record.true_total})"
    elif record.kind == HAND_AND_CRIB:
        said = f"{record.points}" if record.points else "nothing"
    else:
        said = f"{record.points}" if record.points else "19 (nothing)"
    return Shown(record.kind, record.player, record.side, record.label, record.points,
                 record.cards, record.true_total, breakdown, record.notes,
                 f"{record.label}: {said}.")


def count_parts(shown: Shown) -> Parts:
    """What a count's points are made of: the combinations, or the points entered."""
    b = shown.breakdown
    if b is None or shown.points != shown.true_total:
        return ((shown.count, shown.points),)
    return tuple((k, b[k]) for k in ("fifteens", "pairs", "runs", "flush", "nobs") if b[k])


def true_total(table: Table, c: Core, kind: str, cards: tuple[Card, ...] | list[Card]) -> int:
    """What known cards count with this hand's starter."""
    from cribbage.scoring import score_hand

    assert c.starter is not None
    return int(score_hand(cards, c.starter, crib=kind == "crib",
                          variant=table.config.variant).total)


def claim_refusal(table: Table, act: Count, label: str, made: int) -> Refusal | None:
    """Why the points claimed with known cards are refused (more than the cards make, or
    short of them with muggins off), or None."""
    if act.points is None:
        return None
    claim = 0 if act.points == ZERO_HAND else act.points
    if not 0 <= claim <= made:
        return Refusal(f"{label} makes {made}, so it cannot be counted as {claim}",
                       f"{label} makes {made}, not {claim}.", ImpossibleScoreError)
    if claim != made and not table.config.muggins:
        return Refusal(f"{label} makes {made}, not {claim} (muggins is off: leave the points "
                       "out to peg the true count)", f"{label} makes {made}, not {claim}.")
    return None


def counted_cards(table: Table, c: Core, act: Count, entry: dict[str, Any],
                  cards: list[Card]) -> CountRecord:
    """The record of a count of known cards: the true count, or the claim (muggins on), and
    a note for each go said while holding a card that fitted."""
    from cribbage.scoring import score_hand

    ps = c.play
    assert ps is not None and c.starter is not None
    kind, player = entry["kind"], entry["player"]
    made = score_hand(cards, c.starter, crib=kind == "crib", variant=table.config.variant)
    total = int(made.total)
    points = total if act.points is None else 0 if act.points == ZERO_HAND else act.points
    notes: tuple[str, ...] = ()
    if kind == "hand" and ps.gos and ps.dealt[player] == table.size(kind):
        shown: list[Any] = [None] * table.players
        shown[player] = cards
        notes = tuple(f"{table.names[g.player]} said go at {g.count} holding "
                      + " ".join(map(str, g.playable)) for g in ps.false_gos(shown))
    return CountRecord(kind, player, entry["side"], entry["label"], points, 0, total,
                       json.dumps(made.to_json()), tuple(cards), notes)


def shown_cards(table: Table, c: Core, act: Count, entry: dict[str, Any]) -> list[Card] | Refusal:
    """Cards mode: the cards of the count (given, or all seen in the play), or why they
    cannot be (against what the play and this show have seen)."""
    ps = c.play
    assert ps is not None
    kind, player, label = entry["kind"], entry["player"], entry["label"]
    size = table.size(kind)
    played_own = list(ps.played_by(player)) if kind == "hand" else []
    if act.cards is not None:
        cards = list(act.cards)
    elif len(played_own) == size:
        cards = played_own  # every card of the hand was seen in the play
    else:
        return Refusal(f"{label} needs its {size} cards", f"Enter the {size} cards of {label}.")
    if len(cards) != size:
        return Refusal(f"{label} has {size} cards, not {len(cards)}",
                       f"{label} has {size} cards, not {len(cards)}.")
    found = table.cards_refusal(cards)
    if found is not None:
        return found
    played_by = {x: p for p, x in ps.played}
    for x in cards:
        if x == c.starter:
            return Refusal(f"{x} is the starter, so it cannot be in {label}",
                           f"The {x.pretty} is the starter, so it isn't in {label}.")
        owner = played_by.get(x)
        if owner is not None and (kind == "crib" or owner != player):
            who = table.names[owner]
            return Refusal(f"{x} was played by {who}", f"The {x.pretty} was played by {who}.")
        if x in c.shown:
            return Refusal(f"{x} was already shown in this hand",
                           f"The {x.pretty} was already shown in this hand.")
    missing = [x for x in played_own if x not in cards]
    if missing:
        who = table.names[player]
        return Refusal(f"{missing[0]} was played by {who}, so it must be in {label}",
                       f"{who} played the {missing[0].pretty}, so it is in {label}.")
    return cards


def points_refusal(table: Table, points: int, kind: str, label: str) -> Refusal | None:
    """Keeper mode: why a count of `points` is refused (negative, or a total no such hand
    makes; 19 is nothing, but a total of a hand and crib together), or None."""
    both = kind == HAND_AND_CRIB
    if points == ZERO_HAND and not both:
        return None
    if points < 0:
        return Refusal(f"points cannot be negative ({points})",
                       f"A count can't be negative ({points}).", ImpossibleScoreError)
    totals = table.totals(kind)
    if points in totals:
        return None
    what = "hand and crib together make" if both else f"{kind} makes"
    return Refusal(f"{label} cannot count {points}: no {table.config.variant} {what} "
                   f"{points} ({describe_totals(totals)}{'' if both else '; 19 means nothing'})",
                   say_impossible(points, kind, totals), ImpossibleScoreError)


def muggins(table: Table, c: Core, act: Muggins) -> Stepped:
    """A side claims what the last count missed (all of it when the cards are known and no
    points are given)."""
    lc = c.last_count
    assert lc is not None
    points = act.points if act.points is not None else lc.missed or 0
    c = replace(c, last_count=replace(lc, claimed=lc.claimed + points))
    name = table.side_names[act.side]
    out: list[Event] = [MugginsClaimed(act.side, points, lc.label, f"Muggins! {name} takes "
                                       f"{points} missed in {lc.label}.")]
    c = score(table, c, act.side, points, "muggins", table.player_of[act.side], out,
              (("muggins", points),), f"{table.side_pegs[act.side]} {points} for muggins")
    return c, tuple(out)


def true_count(table: Table, c: Core) -> int | None:
    """Dealt mode: what the count due really makes; None when no count of known cards is
    due."""
    if not table.strategy.knows_cards or c.starter is None or c.phase not in (
            Phase.PLAY, Phase.SHOW) or (c.phase is Phase.PLAY and (c.play is None
                                                                  or not c.play.done)):
        return None
    entry = table.count_due(c)
    cards = c.crib if entry["kind"] == "crib" else c.hands[entry["player"]]
    return true_total(table, c, entry["kind"], cards)


__all__ = ["claim_refusal", "count", "count_parts", "counted_cards", "muggins",
           "points_refusal", "shown_cards", "shown_event", "true_count", "true_total"]
