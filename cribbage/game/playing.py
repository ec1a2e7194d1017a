"""The play: the starter (and his heels), then the points pegged (keeper mode) or the cards
laid and the gos (cards and dealt modes, run by `cribbage.play.PlayState`)."""

from __future__ import annotations

from dataclasses import replace

from cribbage.actions import Go, Heels, LatePeg, Peg, Play, Starter
from cribbage.game.events import CardPlayed, Event, SaidGo, StarterTurned
from cribbage.game.score import score
from cribbage.game.state import HEELS, JACK, Core, Phase, PlayNote
from cribbage.game.table import Stepped, Table


def peg(table: Table, c: Core, act: Peg) -> Stepped:
    """Points pegged in the play (keeper mode)."""
    if not c.play_started:
        c = replace(c, play_started=True)
    return _pegged(table, c, act, "pegging", f"{table.side_pegs[act.side]} {act.points}")


def late_peg(table: Table, c: Core, act: LatePeg) -> Stepped:
    """A peg of the play forgotten until the show: recorded as "late", the show goes on."""
    return _pegged(table, c, act, "late",
                   f"{table.side_pegs[act.side]} {act.points} late, from the play")


def _pegged(table: Table, c: Core, act: Peg | LatePeg, kind: str, say: str) -> Stepped:
    out: list[Event] = []
    c = score(table, c, act.side, act.points, kind, table.player_of[act.side], out,
              ((kind, act.points),), say)
    return c, tuple(out)


def heels_action(table: Table, c: Core, act: Heels) -> Stepped:
    """Two for his heels, entered (keeper mode)."""
    out: list[Event] = []
    return heels(table, replace(c, heels_done=True), out), tuple(out)


def heels(table: Table, c: Core, out: list[Event]) -> Core:
    assert c.dealer is not None
    return score(table, c, table.side_of[c.dealer], HEELS, "heels", c.dealer, out,
                 (("heels", HEELS),), f"Two for his heels to {table.names[c.dealer]}")


def starter(table: Table, c: Core, act: Starter) -> Stepped:
    """The starter turned; a jack pegs his heels at once (it can end the game before a card
    is played)."""
    card = act.card
    c = table.strategy.turn(table, c, act)
    out: list[Event] = [StarterTurned(card, f"The starter is the {card.pretty}.")]
    if card.rank == JACK:
        c = heels(table, replace(c, heels_done=True), out)
    return c, tuple(out)


def play(table: Table, c: Core, act: Play | Go) -> Stepped:
    """A card laid or a go (cards and dealt modes): the play's events and what they peg."""
    from cribbage.pegscore import score_pegging

    ps = c.play
    assert ps is not None
    # Trusted: the refusal asked the play's own `why_not_play` / `why_not_go`.
    new = ps.push_play(act.card) if isinstance(act, Play) else ps.push_go()
    c = replace(c, play=new, play_started=True)
    names = table.names
    out: list[Event] = []
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
        c = score(table, c, table.side_of[event.player], event.points, "pegging",
                  event.player, out, event.parts or (("last", event.points),),
                  f"{who} pegs {event.points}: {say}")
        if c.phase is Phase.OVER:
            break
    return c, tuple(out)


__all__ = ["heels", "heels_action", "late_peg", "peg", "play", "starter"]
