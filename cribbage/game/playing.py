"""The play: the starter (and his heels), then the points pegged (keeper mode) or the cards
laid and the gos (cards and dealt modes, run by `cribbage.play.PlayState`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from cribbage.actions import Go, Heels, LatePeg, Peg, Play, Starter
from cribbage.errors import IllegalPlayError, ImpossibleScoreError
from cribbage.game.events import CardPlayed, Event, SaidGo, StarterTurned
from cribbage.game.score import score
from cribbage.game.state import HEELS, JACK, MAX_PEG, Core, Phase, PlayNote

if TYPE_CHECKING:
    from cribbage.game.machine import Game


def peg(game: Game, c: Core, act: Peg, out: list[Event]) -> Core:
    side = game._check_side(act, act.side)
    _check_peg(game, act, act.points)
    if not c.play_started:
        c = replace(c, play_started=True)
    members = game.sides[side]
    return score(game, c, side, act.points, "pegging",
                       members[0] if len(members) == 1 else None, out,
                       (("pegging", act.points),),
                       f"{game.side_name(side)} {_pegs(members)} {act.points}")


def _pegs(members: tuple[int, ...]) -> str:
    """The verb for a side: "Ann pegs", "Ann & Cy peg"."""
    return "pegs" if len(members) == 1 else "peg"


def late_peg(game: Game, c: Core, act: LatePeg, out: list[Event]) -> Core:
    """A peg of the play forgotten until the show: recorded as "late", the show goes on."""
    side = game._check_side(act, act.side)
    _check_peg(game, act, act.points)
    members = game.sides[side]
    return score(game, c, side, act.points, "late",
                       members[0] if len(members) == 1 else None, out,
                       (("late", act.points),),
                       f"{game.side_name(side)} {_pegs(members)} {act.points} late, "
                       "from the play")


def _check_peg(game: Game, act: Peg | LatePeg, points: int) -> None:
    if not 1 <= points <= MAX_PEG:
        raise ImpossibleScoreError(game._message(
            act, f"one card pegs 1 to {MAX_PEG} points in the play, not {points}"),
            say=f"One card pegs 1 to {MAX_PEG} in the play, not {points}.")


def heels_action(game: Game, c: Core, act: Heels, out: list[Event]) -> Core:
    assert c.dealer is not None
    c = replace(c, heels_done=True)
    return heels(game, c, out)


def heels(game: Game, c: Core, out: list[Event]) -> Core:
    assert c.dealer is not None
    return score(game, c, game.rules.side_of(c.dealer), HEELS, "heels", c.dealer, out,
                       (("heels", HEELS),),
                       f"Two for his heels to {game.config.names[c.dealer]}")


def starter(game: Game, c: Core, act: Starter, out: list[Event]) -> Core:
    assert c.dealer is not None
    card = act.card
    c = game.strategy.turn(game, c, act)
    out.append(StarterTurned(card, f"The starter is the {card.pretty}."))
    if card.rank == JACK:
        # Two for his heels, pegged at once: it can end the game before a card is played.
        c = heels(game, replace(c, heels_done=True), out)
    return c


def play(game: Game, c: Core, act: Play, out: list[Event]) -> Core:
    return _play_step(game, c, act, out)


def go(game: Game, c: Core, act: Go, out: list[Event]) -> Core:
    return _play_step(game, c, act, out)


def _play_step(game: Game, c: Core, act: Play | Go, out: list[Event]) -> Core:
    from cribbage.pegscore import score_pegging

    ps = c.play
    assert ps is not None
    game._check_player(act, act.player)
    try:
        new = ps.play(act.card, act.player) if isinstance(act, Play) else ps.go(act.player)
    except IllegalPlayError as exc:
        raise IllegalPlayError(game._message(act, str(exc)), say=exc.say) from None
    c = replace(c, play=new, play_started=True)
    names = game.config.names
    for event in new.log[len(ps.log):]:
        who = names[event.player]
        if event.kind == "play":
            assert event.card is not None
            out.append(CardPlayed(event.player, event.card, event.count,
                                  f"{who} plays the {event.card.pretty}: {event.count}."))
        elif event.kind == "go":
            out.append(SaidGo(event.player, event.count, f"{who} says go at {event.count}."))
        if not event.points:
            continue
        if event.kind == "play":
            assert event.card is not None
            say = score_pegging(ps.series + (event.card,)).say()
        else:
            say = "thirty-one for two" if event.count == 31 else "one for last"
        c = replace(c, play_notes=c.play_notes + (PlayNote(event.player, event.points, say),))
        c = score(game, c, game.rules.side_of(event.player), event.points, "pegging",
                        event.player, out, event.parts or (("last", event.points),),
                        f"{who} pegs {event.points}: {say}")
        if c.phase is Phase.OVER:
            break
    return c


__all__ = ["go", "heels", "heels_action", "late_peg", "peg", "play", "starter"]
