"""What an action did, as frozen values: the events `Game.step` returns with the new game.

Each event has a stable `kind` (its JSON `"kind"`), `say` (one sentence in a player's words,
the engine's own: "Ann pegs 2: fifteen two", "Bob's hand: fifteen two, and a pair is four")
and `to_json()` (a JSON-ready dict for the event stream). They are made by the machine as it
goes, never by comparing two states. An undo or redo carries the events it took back or did
again, and the pegs it moved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from cribbage.actions import Action, Jsonable
from cribbage.cards import Card
from cribbage.rules import Result

Parts = tuple[tuple[str, int], ...]


class _Event(Jsonable):
    """What every event has: a kind, a sentence and its JSON form (`kind`, `say` and its
    fields; the one JSON form of actions and events, `cribbage.actions.Jsonable`)."""

    __slots__ = ()
    kind: ClassVar[str]
    say: str
    TAG = "kind"


@dataclass(frozen=True, slots=True)
class DealerChosen(_Event):
    """The first dealer of a game: cut for (`cut`, one card per player) or entered."""

    kind: ClassVar[str] = "dealer"
    dealer: int
    cut: tuple[Card, ...]
    say: str


@dataclass(frozen=True, slots=True)
class HandBegun(_Event):
    """A new hand: who deals it (the crib is theirs)."""

    kind: ClassVar[str] = "hand"
    game: int
    hand: int
    dealer: int
    say: str


@dataclass(frozen=True, slots=True)
class GameBegun(_Event):
    """The next game of the match: the loser of the last one deals first."""

    kind: ClassVar[str] = "game"
    game: int
    dealer: int
    say: str


@dataclass(frozen=True, slots=True)
class Dealt(_Event):
    """The cards dealt (dealt mode): how many to each player and to the crib."""

    kind: ClassVar[str] = "deal"
    cards: int
    crib: int
    say: str


@dataclass(frozen=True, slots=True)
class Discarded(_Event):
    """A player laid cards away to the crib (dealt mode)."""

    kind: ClassVar[str] = "discard"
    player: int
    cards: tuple[Card, ...]
    say: str


@dataclass(frozen=True, slots=True)
class StarterTurned(_Event):
    """The starter (a jack gives the dealer two for his heels: a `Scored` follows)."""

    kind: ClassVar[str] = "starter"
    card: Card
    say: str


@dataclass(frozen=True, slots=True)
class CardPlayed(_Event):
    """A card laid in the play, with the count after it."""

    kind: ClassVar[str] = "play"
    player: int
    card: Card
    count: int
    say: str


@dataclass(frozen=True, slots=True)
class SaidGo(_Event):
    """A go: the player could not lay a card without passing 31."""

    kind: ClassVar[str] = "go"
    player: int
    count: int
    say: str


@dataclass(frozen=True, slots=True)
class Shown(_Event):
    """A hand or crib counted in the show: what it pegged, and with cards known, what it
    really makes (`true_total`) and the combinations (`breakdown`, `HandScore.to_json()`)."""

    kind: ClassVar[str] = "show"
    count: str  # "hand" or "crib"
    player: int
    side: int
    label: str
    points: int
    cards: tuple[Card, ...]
    true_total: int | None
    breakdown: Mapping[str, Any] | None
    notes: tuple[str, ...]
    say: str


@dataclass(frozen=True, slots=True)
class MugginsClaimed(_Event):
    """A side took points the last count missed."""

    kind: ClassVar[str] = "muggins"
    side: int
    points: int
    label: str
    say: str


@dataclass(frozen=True, slots=True)
class Scored(_Event):
    """Points pegged to a side: what for (`reason`, a `ScoreRecord` kind), the parts they are
    made of, and the side's pegs after them. A count of 0 is a `Shown` without a `Scored`."""

    kind: ClassVar[str] = "score"
    side: int
    player: int | None
    points: int
    reason: str
    parts: Parts
    front: int
    back: int
    game: int
    hand: int
    say: str


@dataclass(frozen=True, slots=True)
class Caught:
    """A losing side below a line: `line` is "skunk", "double_skunk" or "lurch", `under` its
    score."""

    side: int
    name: str
    line: str
    under: int

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "name": self.name, "line": self.line, "under": self.under}


@dataclass(frozen=True, slots=True)
class GameWon(_Event):
    """A side reached the target: the result, the lines of the game and every losing side
    caught below one (with three players, each one under a line is named)."""

    kind: ClassVar[str] = "game_over"
    game: int
    result: Result
    winner: str
    lines: tuple[tuple[str, int], ...]
    caught: tuple[Caught, ...]
    say: str

    def to_json(self) -> dict[str, Any]:
        out = Jsonable.to_json(self)
        out["lines"] = dict(self.lines)
        return out


@dataclass(frozen=True, slots=True)
class Moved:
    """One side's front peg moved by an undo or redo."""

    side: int
    before: int
    after: int

    def to_json(self) -> dict[str, int]:
        return {"side": self.side, "before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True)
class Undone(_Event):
    """An undo: the action taken back, the events it had caused, the pegs moved back."""

    kind: ClassVar[str] = "undo"
    action: Action
    events: tuple[Event, ...]
    moved: tuple[Moved, ...]
    say: str


@dataclass(frozen=True, slots=True)
class Redone(_Event):
    """A redo: the action done again, the events it caused again, the pegs moved."""

    kind: ClassVar[str] = "redo"
    action: Action
    events: tuple[Event, ...]
    moved: tuple[Moved, ...]
    say: str


Event = (DealerChosen | HandBegun | GameBegun | Dealt | Discarded | StarterTurned | CardPlayed
         | SaidGo | Shown | MugginsClaimed | Scored | GameWon | Undone | Redone)

EVENT_CLASSES: dict[str, type[Any]] = {
    cls.kind: cls for cls in (DealerChosen, HandBegun, GameBegun, Dealt, Discarded,
                              StarterTurned, CardPlayed, SaidGo, Shown, MugginsClaimed, Scored,
                              GameWon, Undone, Redone)
}
EVENT_KINDS: tuple[str, ...] = tuple(EVENT_CLASSES)
"""Every event kind, stable: subscribers and the event stream key on these."""


def moved_pegs(before: tuple[int, ...], after: tuple[int, ...]) -> tuple[Moved, ...]:
    """Each side whose front peg differs between two states' fronts (an undo or redo)."""
    return tuple(Moved(i, a, b) for i, (a, b) in enumerate(zip(before, after, strict=True))
                 if a != b)


def say_moved(what: str, action: str, done: tuple[Event, ...], moved: tuple[Moved, ...],
              side_name: Callable[[int], str]) -> str:
    """ "Undone: Bob pegs 3 (Bob 3 → 0)." (a count that took nothings before it names each
    count: "Undone: Cy's hand: 19 (nothing), Ann's hand: 8 (Ann 8 → 0).")"""
    shows = [e.say.rstrip(".") for e in done if e.kind == "show"]
    said = ", ".join(shows) if len(shows) > 1 else done[0].say.rstrip(".") if done else action
    pegs = ", ".join(f"{side_name(m.side)} {m.before} → {m.after}" for m in moved)
    return f"{what}: {said}" + (f" ({pegs})." if pegs else ".")


__all__ = [
    "EVENT_CLASSES",
    "EVENT_KINDS",
    "Caught",
    "CardPlayed",
    "Dealt",
    "DealerChosen",
    "Discarded",
    "Event",
    "GameBegun",
    "GameWon",
    "HandBegun",
    "Moved",
    "MugginsClaimed",
    "Redone",
    "SaidGo",
    "Scored",
    "Shown",
    "StarterTurned",
    "Undone",
    "moved_pegs",
    "say_moved",
]
