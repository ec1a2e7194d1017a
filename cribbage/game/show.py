"""The show: each count in order (hand by hand, then the crib) and muggins after it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cribbage.actions import Count, Muggins
from cribbage.cards import Card
from cribbage.counts import describe_totals, say_impossible
from cribbage.errors import IllegalPlayError, ImpossibleScoreError, InvalidActionError
from cribbage.game.events import Event, MugginsClaimed, Parts, Shown
from cribbage.game.score import score
from cribbage.game.setup import next_hand
from cribbage.game.state import ZERO_HAND, Core, CountRecord, Phase

if TYPE_CHECKING:
    from cribbage.game.machine import Game


def count(game: Game, c: Core, act: Count, out: list[Event]) -> Core:
    """The next count in show order; after the crib, the next hand."""
    entry = game.show_order()[c.show_index]
    record = game.strategy.count(game, c, act, entry)
    c = replace(c, last_count=record, phase=Phase.SHOW, play_started=True,
                shown=c.shown + record.cards, show_index=c.show_index + 1)
    shown = shown_event(game, record)
    out.append(shown)
    c = score(game, c, record.side, record.points, record.kind, record.player, out,
              count_parts(shown), shown.say.rstrip("."))
    if c.phase is not Phase.OVER and c.show_index > game.players:
        c = next_hand(game, c, out)  # the crib was the last count
    return c


def shown_event(game: Game, record: CountRecord) -> Shown:
    """The event of a count: the cards' own words when they are known."""
    breakdown = None if record.breakdown is None else json.loads(record.breakdown)
    if breakdown is not None and record.points == record.true_total:
        said = breakdown["say"] if record.points else "nineteen, nothing"
    elif record.true_total is not None:
        said = f"{record.points} counted (the cards make {record.true_total})"
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


def counted_cards(game: Game, c: Core, act: Count, entry: dict[str, Any],
                  parsed: list[Card]) -> CountRecord:
    """The record of a count of known cards: the true count, or the claim (muggins on), and
    a note for each go said while holding a card that fitted."""
    from cribbage.scoring import score_hand

    ps = c.play
    assert ps is not None and c.starter is not None
    kind, player, side, label = entry["kind"], entry["player"], entry["side"], entry["label"]
    size = game.rules.crib_size if kind == "crib" else game.rules.hand_size
    score = score_hand(parsed, c.starter, crib=kind == "crib", variant=game.config.variant)
    true_total = int(score.total)
    points = true_total
    if act.points is not None:
        claim = 0 if act.points == ZERO_HAND else act.points
        if not 0 <= claim <= true_total:
            raise ImpossibleScoreError(game._message(
                act, f"{label} makes {true_total}, so it cannot be counted as {claim}"),
                say=f"{label} makes {true_total}, not {claim}.")
        if claim != true_total and not game.config.muggins:
            raise game._error(act, f"{label} makes {true_total}, not {claim} (muggins is "
                              "off: leave the points out to peg the true count)",
                              f"{label} makes {true_total}, not {claim}.")
        points = claim
    notes: tuple[str, ...] = ()
    if kind == "hand" and ps.gos:
        shown: list[Any] = [None] * game.players
        shown[player] = parsed if ps.dealt[player] == size else None
        if shown[player] is not None:
            notes = tuple(
                f"{game.config.names[g.player]} said go at {g.count} holding "
                + " ".join(map(str, g.playable))
                for g in ps.false_gos(shown))
    return CountRecord(kind, player, side, label, points, 0, true_total,
                       json.dumps(score.to_json()), tuple(parsed), notes)


def shown_cards(game: Game, c: Core, act: Count, kind: str, player: int, label: str,
                 size: int) -> list[Card]:
    """Cards mode: the cards of the count (given, or all seen in the play), checked
    against what the play and this show have seen."""
    ps = c.play
    assert ps is not None
    played_own = list(ps.played_by(player)) if kind == "hand" else []
    if act.cards is not None:
        cards = list(act.cards)
    elif len(played_own) == size:
        cards = played_own  # every card of the hand was seen in the play
    else:
        raise game._error(act, f"{label} needs its {size} cards",
                          f"Enter the {size} cards of {label}.")
    if len(cards) != size:
        raise game._error(act, f"{label} has {size} cards, not {len(cards)}",
                          f"{label} has {size} cards, not {len(cards)}.")
    game._distinct(act, cards)
    played_by = {x: p for p, x in ps.played}
    for x in cards:
        if x == c.starter:
            raise game._error(act, f"{x} is the starter, so it cannot be in {label}",
                              f"The {x.pretty} is the starter, so it isn't in {label}.")
        owner = played_by.get(x)
        if owner is not None and (kind == "crib" or owner != player):
            who = game.config.names[owner]
            raise game._error(act, f"{x} was played by {who}",
                              f"The {x.pretty} was played by {who}.")
        if x in c.shown:
            raise game._error(act, f"{x} was already shown in this hand",
                              f"The {x.pretty} was already shown in this hand.")
    missing = [x for x in played_own if x not in cards]
    if missing:
        who = game.config.names[player]
        raise game._error(act, f"{missing[0]} was played by {who}, so it must be in {label}",
                          f"{who} played the {missing[0].pretty}, so it is in {label}.")
    return cards


def check_count(game: Game, act: Count, points: int, kind: str, label: str) -> int:
    """Keeper mode: the points of a count (19 is 0); raises ImpossibleScoreError for a
    total no such hand makes."""
    totals = game._totals(kind)
    if points == ZERO_HAND:
        return 0
    if points < 0:
        raise ImpossibleScoreError(game._message(
            act, f"points cannot be negative ({points})"),
            say=f"A count can't be negative ({points}).")
    if points not in totals:
        raise ImpossibleScoreError(game._message(
            act, f"{label} cannot count {points}: no {game.config.variant} {kind} makes "
            f"{points} ({describe_totals(totals)}; 19 means nothing)"),
            say=say_impossible(points, kind, totals))
    return points


def muggins(game: Game, c: Core, act: Muggins, out: list[Event]) -> Core:
    """A side claims what the last count missed."""
    lc = c.last_count
    assert lc is not None
    side = game._check_side(act, act.side)
    if side == lc.side:
        who = game.side_name(lc.side)
        raise game._error(act, f"muggins is called by an opponent of {who}, who made the "
                          "count", f"Only an opponent can call muggins on {who}'s count.")
    counted = lc.points + lc.claimed
    if act.points is None:
        if lc.true_total is None:
            raise InvalidActionError(game._message(act, "muggins needs its points"),
                                     say="Enter the points muggins takes.")
        points = lc.missed or 0
    else:
        points = act.points
    if points < 1:
        raise ImpossibleScoreError(game._message(
            act, f"muggins takes 1 point or more, not {points}"),
            say="Muggins takes 1 point or more.")
    if lc.true_total is not None:
        if points > (lc.missed or 0):
            raise ImpossibleScoreError(game._message(
                act, f"{lc.label} made {lc.true_total} and {counted} are accounted for, so "
                f"only {lc.missed} can be claimed"),
                say=f"{lc.label} missed only {lc.missed}.")
    else:
        totals = game._totals(lc.kind)
        if counted + points not in totals:
            raise ImpossibleScoreError(game._message(
                act, f"{lc.label} counted {counted} and no {lc.kind} makes "
                f"{counted + points} ({describe_totals(totals)})"),
                say=f"Muggins of {points} on {lc.label} makes {counted} + {points} = "
                f"{counted + points}, and {say_impossible(counted + points, lc.kind, totals)}")
    c = replace(c, last_count=replace(lc, claimed=lc.claimed + points))
    members = game.sides[side]
    name = game.side_name(side)
    out.append(MugginsClaimed(side, points, lc.label, f"Muggins! {name} takes {points} "
                              f"missed in {lc.label}."))
    return score(game, c, side, points, "muggins", members[0] if len(members) == 1 else None,
                 out, (("muggins", points),),
                 f"{name} {'pegs' if len(members) == 1 else 'peg'} {points} for muggins")


def true_count(game: Game) -> int:
    """Dealt mode: what the next count due really makes; raises IllegalPlayError when no
    count is due or the cards are not known."""
    c = game.core
    if not game.strategy.knows_cards or c.starter is None or game.next_count() is None or (
            c.phase is Phase.PLAY and (c.play is None or not c.play.done)):
        raise IllegalPlayError(f"no count of known cards is due ({game.describe()})")
    from cribbage.scoring import score_hand

    entry = game.show_order()[c.show_index]
    cards = c.crib if entry["kind"] == "crib" else c.hands[entry["player"]]
    return int(score_hand(cards, c.starter, crib=entry["kind"] == "crib",
                          variant=game.config.variant).total)


__all__ = ["check_count", "count", "count_parts", "counted_cards", "muggins", "shown_cards",
           "shown_event", "true_count"]
