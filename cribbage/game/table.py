"""What a phase handler may know of a game: its `Table` (the options, the rules, the players and
sides, the mode's strategy, the totals a hand can make, the player, side and card checks) and
the state-free `Refusal` it raises.

A handler is `(table, state, action) -> (state, events)`: it never sees the game's history,
and it words a refusal without the state; `Game.step` adds the game's description.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cribbage.actions import Action, Count, Starter
from cribbage.cards import Card, check_distinct
from cribbage.counts import possible_counts, possible_pair_counts
from cribbage.errors import CribbageError, IllegalPlayError
from cribbage.game.events import Event
from cribbage.game.state import HAND_AND_CRIB, Config, Core, CountRecord, Phase
from cribbage.rules import Rules

Stepped = tuple[Core, tuple[Event, ...]]
"""What a handler returns: the next state and the events of the step, in order."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action is refused, without the state: the detail (for logs and the API's error
    body), one sentence for the table, and the error it is raised as (`IllegalPlayError`,
    its leaf `ImpossibleScoreError`, or `InvalidActionError` for a field the mode needs)."""

    detail: str
    say: str
    error: type[CribbageError] = IllegalPlayError


def refused(detail: str, say: str | None = None,
            error: type[CribbageError] = IllegalPlayError) -> Refusal:
    """A refusal; `say` defaults to the detail as a sentence."""
    return Refusal(detail, say if say is not None else detail[:1].upper() + detail[1:] + ".",
                   error)


class Refused(Exception):  # noqa: N818 (a refusal raised, never an error of the engine's own)
    """A handler's refusal on its way to `Game.step`, which words it with the state."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.detail)
        self.refusal = refusal


class Mode:
    """What differs between the ways a game is kept (one instance per mode, in `modes`)."""

    name: str = ""
    first_phase = Phase.PLAY  # what a hand waits for first
    knows_cards = False  # every card is known: the true count of a hand can be told
    takes_nineteens = False  # a count by points may take the nothings due before it
    takes_hand_and_crib = False  # the dealer's hand and crib may be counted as one total
    deal_refusal = Refusal("the cards are dealt by hand in this mode",
                           "The cards are already dealt.")
    discard_refusal = Refusal(
        "the discard is entered only when the cards are dealt by the engine",
        "The crib is already laid away.")

    def refusal(self, table: Table, c: Core, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        """Why a peg, late peg, heels, starter, card, go or count is refused in the play or
        the show, or None (`explain` False: any refusal, its words unmade)."""
        raise NotImplementedError

    def starter_refusal(self, table: Table, c: Core, act: Starter) -> Refusal | None:
        """Why this starter card cannot be the starter (once a starter is due), or None."""
        return None

    def turn(self, table: Table, c: Core, act: Starter) -> Core:
        """The state once the starter is turned (before his heels)."""
        return replace(c, starter=act.card)

    def count_refusal(self, table: Table, c: Core, act: Count,
                      entry: dict[str, Any]) -> Refusal | None:
        """Why this count of the count due (`entry`, from `show_order`) is refused, or None."""
        raise NotImplementedError

    def count(self, table: Table, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        """The record of the count due (`count_refusal` said None)."""
        raise NotImplementedError

    def play_view(self, c: Core) -> dict[str, Any] | None:
        """The view's `play`: the cards laid this hand, or None when none are entered."""
        ps = c.play
        if ps is None:
            return None
        return {
            "count": ps.count,
            "cards": [str(x) for x in ps.series],
            "next_player": ps.to_play,
            "played": [{"player": p, "card": str(x)} for p, x in ps.played],
            "done": ps.done,
            "say": [{"player": n.player, "points": n.points, "say": n.say}
                    for n in c.play_notes],
        }

    def add_to_view(self, c: Core, view: dict[str, Any]) -> None:
        """Fields only this mode's view has."""

    def __repr__(self) -> str:
        return f"<mode {self.name}>"


@dataclass(frozen=True, slots=True)
class Table:
    """A game's fixed part: its options, rules and mode (immutable), with what the handlers
    read of them on every step kept as plain fields."""

    config: Config
    rules: Rules
    strategy: Mode
    names: tuple[str, ...] = field(init=False)
    sides: tuple[tuple[int, ...], ...] = field(init=False)
    players: int = field(init=False)
    side_of: tuple[int, ...] = field(init=False)  # each player's side
    side_names: tuple[str, ...] = field(init=False)  # "Ann", or "Ann & Cy" for partners
    player_of: tuple[int | None, ...] = field(init=False)  # a side's one player (None: two)
    side_pegs: tuple[str, ...] = field(init=False)  # "Ann pegs", "Ann & Cy peg" (plural)
    skunk_lines: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        sides, names = self.rules.sides, self.config.names
        side_names = tuple(" & ".join(names[p] for p in s) for s in sides)
        for name, value in (
                ("names", names), ("sides", sides), ("players", self.rules.players),
                ("side_of", tuple(self.rules.side_of(p) for p in range(self.rules.players))),
                ("side_names", side_names),
                ("player_of", tuple(s[0] if len(s) == 1 else None for s in sides)),
                ("side_pegs", tuple(f"{n} {'pegs' if len(s) == 1 else 'peg'}"
                                    for n, s in zip(side_names, sides, strict=True))),
                ("skunk_lines", self.rules.skunk_lines)):
            object.__setattr__(self, name, value)

    def side_name(self, side: int) -> str:
        return self.side_names[side]

    def label(self, kind: str, player: int) -> str:
        """ "Ann's hand", "Bob's crib", "Bob's hand and crib". """
        return f"{self.names[player]}'s {'hand and crib' if kind == HAND_AND_CRIB else kind}"

    def size(self, kind: str) -> int:
        """The cards of a hand or a crib in the show."""
        return self.rules.crib_size if kind == "crib" else self.rules.hand_size

    def totals(self, kind: str) -> frozenset[int]:
        """Every total a hand (or crib, or a hand and crib together) of this game can count."""
        if kind == HAND_AND_CRIB:
            return possible_pair_counts(self.rules.hand_size, self.rules.crib_size)
        return possible_counts(self.size(kind), kind == "crib")

    def player_refusal(self, player: int) -> Refusal | None:
        """Why `player` is no player of this game, or None."""
        n = self.players
        if 0 <= player < n:
            return None
        return Refusal(f"no player {player!r} (players are 0..{n - 1})",
                       f"There are {n} players, numbered 0 to {n - 1}.")

    def side_refusal(self, side: int) -> Refusal | None:
        """Why `side` is no side of this game, or None."""
        n = len(self.sides)
        if 0 <= side < n:
            return None
        return Refusal(f"no side {side!r} (sides are 0..{n - 1})",
                       f"There are {n} sides, numbered 0 to {n - 1}.")

    def cards_refusal(self, cards: Sequence[Card]) -> Refusal | None:
        """Why these cards cannot lie together (one given twice), or None."""
        try:
            check_distinct(cards)
        except CribbageError as exc:
            return Refusal(str(exc), "The same card can't be in two places.")
        return None

    def show_order(self, c: Core) -> list[dict[str, Any]]:
        """The counts of this hand in order, each with `done`; empty before the first deal."""
        if c.dealer is None:
            return []
        n = self.players
        out = []
        for i, p in enumerate([(c.dealer + 1 + k) % n for k in range(n)] + [c.dealer]):
            kind = "crib" if i == n else "hand"
            out.append({"kind": kind, "player": p, "side": self.side_of[p],
                        "label": self.label(kind, p), "done": i < c.show_index})
        return out

    def count_due(self, c: Core) -> dict[str, Any]:
        """The count due (in the play or the show), as `show_order` lists it."""
        p, n = c.dealer, self.players
        assert p is not None
        if c.show_index < n:
            p = (p + 1 + c.show_index) % n
            kind = "hand"
        else:
            kind = "crib"
        return {"kind": kind, "player": p, "side": self.side_of[p],
                "label": self.label(kind, p)}

    def count_entry(self, c: Core, with_crib: bool | None) -> dict[str, Any]:
        """The count an action makes: the one due, or (`with_crib`) the hand due and the crib
        as one count of both, HAND_AND_CRIB."""
        entry = self.count_due(c)
        if not with_crib:
            return entry
        return {**entry, "kind": HAND_AND_CRIB, "label": self.label(HAND_AND_CRIB,
                                                                     entry["player"])}


__all__ = ["Mode", "Refusal", "Refused", "Stepped", "Table", "refused"]
