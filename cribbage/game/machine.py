"""The game machine: one game of cribbage (and the match after it), from the cut to `next_game`.

`Game` is an immutable value. `step(action) -> Step(game, events)` is the one step: the next
state and what the action did (`cribbage.game.events`); `apply(action)` is `step(action).game`.
The action is typed (`cribbage.actions`; JSON is read once, at the edge, by `parse_action`).
`why_not(action)` answers completely whether the rules allow it now (python-chess's
`is_legal`): a refusal, or None; `step` raises that refusal as `IllegalPlayError` (its leaf
`ImpossibleScoreError`, or `InvalidActionError` for a field the mode needs), naming the
action and the state with `.say` (one sentence for the table), and changes nothing; what
passed it, `step` trusts. `legal_actions()` is derived from the same refusals. Every
accepted action is kept, so `undo`/`redo` and a lossless JSON form (config, the actions, the
redo stack) come for free.

The package, by responsibility: `state` (the frozen values), `table` (what a handler may
know: options, rules, players, mode), `refusals` (the one decision), the handlers by phase,
each `(table, state, action) -> (state, events)`: `setup` (the cut, the deal, new hands and
games), `playing` (the starter, pegs, cards and gos), `show` (counts and muggins), with
`score` (pegging points, the game won); `modes` (keeper, cards, dealt: strategy objects),
`view`, `tallies`, `record` and `events`; what a hand can count is `cribbage.counts`. Only
this module knows `Game`.

Choices (where tables differ):
- A side that reaches the target stops there: its front peg is put in the game hole
  (the target), as on a board, and nothing more of the hand is counted.
- Muggins may be claimed by any other side, right after the count (before the next action);
  in keeper mode a claim must make the count a total some hand can make. With muggins off a
  claim that is not the true count is refused with the true count (cards and dealt modes).
- In the next game of a match the loser deals; with partners, the losing side's player
  nearest the last dealer's left.
- "Games won" counts games; "match points" adds up game points (a skunk is worth 2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from cribbage.actions import ACTION_CLASSES, Action, Muggins, Redo, Undo, action_text
from cribbage.cards import Card
from cribbage.errors import CribbageError, IllegalPlayError
from cribbage.game import playing, record, setup, show, tallies
from cribbage.game import view as views
from cribbage.game.events import Event, Redone, Undone, moved_pegs, say_moved
from cribbage.game.modes import MODE_OF, Mode
from cribbage.game.refusals import Refusal, legal_kinds, refusal
from cribbage.game.state import (
    Config,
    Core,
    CountRecord,
    GameTally,
    HandTally,
    Pegs,
    Phase,
    ScoreRecord,
)
from cribbage.game.table import Refused, Stepped, Table
from cribbage.play import PlayState
from cribbage.rules import Result, Rules, get_rules

_HANDLERS: dict[str, Callable[[Table, Core, Any], Stepped]] = {
    "cut": setup.cut, "dealer": setup.dealer, "deal": setup.deal, "discard": setup.discard,
    "next_game": setup.next_game, "peg": playing.peg, "late_peg": playing.late_peg,
    "heels": playing.heels_action, "starter": playing.starter, "play": playing.play,
    "go": playing.play, "count": show.count, "muggins": show.muggins,
}
"""What each action type does, once its refusal said None: (table, state, action) -> (the
next state, its events)."""

_TYPED = frozenset(ACTION_CLASSES.values())


class Step(NamedTuple):
    """What `Game.step` returns: the new game and the events the action caused, in order."""

    game: Game
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Game:
    """A game of cribbage (immutable). Build with `Game.new`, advance with `step`."""

    table: Table = field(repr=False)
    core: Core
    past: tuple[tuple[Action, Core, tuple[Event, ...]], ...] = field(default=(), repr=False)
    redo_stack: tuple[Action, ...] = field(default=(), repr=False)

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        variant: str = "six-card",
        names: Sequence[str] = ("Ann", "Bob"),
        *,
        target: int | None = None,
        skunk: str = "skunk",
        muggins: bool = False,
        mode: str = "keeper",
        dealer: int | None = None,
        **options: Any,
    ) -> Game:
        """A new game (a cut for deal is due unless `dealer` is given). Other rule options
        (go_rule, double_skunk_games) pass to `get_rules`.

        Raises UnknownVariantError, InvalidOptionError or IllegalPlayError.
        """
        rules = get_rules(variant, target=target, skunk=skunk, muggins=muggins, **options)
        config = setup.config_for(rules, variant, names, mode, dealer)
        table = Table(config, rules, MODE_OF[config.mode])
        n_sides = len(rules.sides)
        core = Core(phase=Phase.CUT, dealer=None, fronts=(0,) * n_sides,
                    backs=(0,) * n_sides, games_won=(0,) * n_sides,
                    match_points=(0,) * n_sides)
        if dealer is not None:
            core = setup.start_game(table, core, dealer, [])
        return cls(table, core)

    # --- typed reads ----------------------------------------------------------------------

    @property
    def config(self) -> Config:
        """The options the game was started with."""
        return self.table.config

    @property
    def rules(self) -> Rules:
        return self.table.rules

    @property
    def players(self) -> int:
        return self.table.players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        return self.table.sides

    @property
    def phase(self) -> Phase:
        return self.core.phase

    @property
    def scores(self) -> tuple[int, ...]:
        """The front peg of each side."""
        return self.core.fronts

    @property
    def backs(self) -> tuple[int, ...]:
        """The back peg of each side."""
        return self.core.backs

    @property
    def result(self) -> Result | None:
        """The result of this game once a side has reached the target (winner, kind, game
        points, scores), else None."""
        return self.core.result

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, by player index."""
        return self.table.names

    @property
    def mode(self) -> str:
        """The mode's name: "keeper", "cards" or "dealt"."""
        return self.table.config.mode

    @property
    def strategy(self) -> Mode:
        """What the mode does differently (`cribbage.game.modes`)."""
        return self.table.strategy

    @property
    def target(self) -> int:
        return self.table.config.target

    @property
    def pegs(self) -> tuple[Pegs, ...]:
        """The front and back peg of each side, as the board shows them."""
        return tuple(Pegs(f, b) for f, b in zip(self.core.fronts, self.core.backs, strict=True))

    @property
    def dealer(self) -> int | None:
        return self.core.dealer

    @property
    def hand_number(self) -> int:
        return self.core.hand_number

    @property
    def game_number(self) -> int:
        """Which game of the match this is (1 for the first)."""
        return self.core.game_number

    @property
    def starter(self) -> Card | None:
        return self.core.starter

    @property
    def play(self) -> PlayState | None:
        """The play of this hand (cards and dealt modes), once the starter is known."""
        return self.core.play

    @property
    def last_count(self) -> CountRecord | None:
        return self.core.last_count

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Dealt mode: each player's cards (the kept hand after the discard); else ()."""
        return self.core.hands

    @property
    def crib(self) -> tuple[Card, ...]:
        """Dealt mode: the crib so far."""
        return self.core.crib

    @property
    def stock(self) -> tuple[Card, ...]:
        """Dealt mode: the undealt cards (the starter is turned from these)."""
        return self.core.stock

    @property
    def turn(self) -> int | None:
        """The player the game waits for: in the play with cards, the player to lay a card or
        say go; in the discard, the first player still to discard; in the show (and the play
        in keeper mode), the player whose count is due next; None at the cut, the deal and
        after the game."""
        return views.turn(self.core, views.next_count(self.table, self.core))

    @property
    def records(self) -> tuple[ScoreRecord, ...]:
        """Every score pegged in the match so far, in order (undone ones are gone)."""
        return self.core.records

    def game_records(self, game: int | None = None) -> tuple[ScoreRecord, ...]:
        """The scores of one game of the match (default: this one)."""
        game = self.core.game_number if game is None else game
        return tuple(r for r in self.core.records if r.game == game)

    def _cores(self) -> tuple[Core, ...]:
        """Every state of the match that is not undone, the present one last."""
        return (*(core for _, core, _ in self.past), self.core)

    def hand_tallies(self) -> tuple[HandTally, ...]:
        """Every hand of the match so far (undone ones are gone), in order; a hand before the
        first dealer is known and with nothing pegged is left out."""
        return tallies.hand_tallies(len(self.sides), self._cores())

    def game_tallies(self) -> tuple[GameTally, ...]:
        """Every game of the match so far (the last one may still be going on), in order."""
        return tallies.game_tallies(self._cores())

    @property
    def games_won(self) -> tuple[int, ...]:
        """Games won by each side in the match (a skunk is still one game)."""
        return self.core.games_won

    @property
    def match_points(self) -> tuple[int, ...]:
        """Game points of each side in the match (a skunk 2, a double skunk 4 or 3)."""
        return self.core.match_points

    @property
    def skunk_lines(self) -> tuple[int, ...]:
        """The scores of this game's lines in the order the rules name them (skunk, double
        skunk; or the lurch line); a loser below a line is caught by it."""
        return self.table.skunk_lines

    @property
    def can_undo(self) -> bool:
        return bool(self.past)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def side_name(self, side: int) -> str:
        return self.table.side_name(side)

    def true_count(self) -> int:
        """Dealt mode: what the next count due really makes; raises IllegalPlayError when no
        count is due or the cards are not known."""
        total = show.true_count(self.table, self.core)
        if total is None:
            raise IllegalPlayError(f"no count of known cards is due ({self.describe()})")
        return total

    # --- actions --------------------------------------------------------------------------

    def why_not(self, action: Action) -> Refusal | None:
        """Why the typed `action` is refused now, or None: then `step` accepts it. The one
        complete answer (the type against the phase and mode, then every value). Raises
        TypeError for anything but a typed action (`parse_action` reads JSON)."""
        if type(action) not in _TYPED:
            raise TypeError(f"a game takes typed actions (cribbage.actions), not {action!r}: "
                            "read JSON with parse_action")
        if type(action) is Redo and self.redo_stack:
            # What is redone is asked about too (a record's redo stack was never checked).
            action = self.redo_stack[-1]
        return refusal(self.table, self.core, action, undo=bool(self.past),
                       redo=bool(self.redo_stack))

    def step(self, action: Action) -> Step:
        """The state after the typed `action` and the events it caused, in order:
        `game, events = g.step(action)`.

        Raises the refusal `why_not` gives: IllegalPlayError (or its leaf
        ImpossibleScoreError), or InvalidActionError for a field the mode needs; both name
        the action and the state, and this state is unchanged. TypeError for an untyped one.
        """
        found = self.why_not(action)
        if found is not None:
            raise self._worded(action, found)
        if isinstance(action, Undo):
            last, before, done = self.past[-1]
            game = replace(self, core=before, past=self.past[:-1],
                           redo_stack=self.redo_stack + (last,))
            moved = moved_pegs(self.core.fronts, before.fronts)
            return Step(game, (Undone(last, done, moved, say_moved(
                "Undone", action_text(last), done, moved, self.side_name)),))
        if isinstance(action, Redo):
            again = self.redo_stack[-1]
            core, done = self._advance(again)
            game = replace(self, core=core, past=self.past + ((again, self.core, done),),
                           redo_stack=self.redo_stack[:-1])
            moved = moved_pegs(self.core.fronts, core.fronts)
            return Step(game, (Redone(again, done, moved, say_moved(
                "Redone", action_text(again), done, moved, self.side_name)),))
        core, done = self._advance(action)
        # The constructor, not replace(): the same Game, without re-reading every field.
        return Step(type(self)(self.table, core, self.past + ((action, self.core, done),)),
                    done)

    def apply(self, action: Action) -> Game:
        """The state after `action`: `step(action).game`, for callers that need no events
        (replays, simulations). Raises as `step` does."""
        return self.step(action).game

    def legal_actions(self) -> list[str]:
        """The action types allowed now: every type the refusals let through."""
        return legal_kinds(self.table, self.core, undo=bool(self.past),
                           redo=bool(self.redo_stack))

    def show_order(self) -> list[dict[str, Any]]:
        """The counts of this hand in order, each with `done`; empty before the first deal."""
        return self.table.show_order(self.core)

    def next_count(self) -> dict[str, Any] | None:
        """The count due next (in the play: the first of the show), or None."""
        return views.next_count(self.table, self.core)

    def _advance(self, action: Action) -> Stepped:
        """The handler's step for an action its refusal let through."""
        c = self.core
        # Muggins must be called at once: any other action closes the last count.
        if not isinstance(action, Muggins) and c.last_count is not None and c.last_count.open:
            c = replace(c, last_count=replace(c.last_count, open=False))
        try:
            return _HANDLERS[action.type](self.table, c, action)
        except Refused as exc:
            raise self._worded(action, exc.refusal) from None

    def _worded(self, action: Action, found: Refusal) -> CribbageError:
        """A refusal as the error `step` raises: the action, why, and the game's state."""
        return found.error(f"{action_text(action)} refused: {found.detail} "
                           f"({self.describe()})", say=found.say)

    # --- JSON -----------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The JSON-ready view of the game (docs/contracts.md section 1)."""
        return views.view(self.table, self.core, can_undo=bool(self.past),
                          can_redo=bool(self.redo_stack), legal=self.legal_actions())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record: the options, every accepted action (in canonical form) and
        the redo stack."""
        return record.to_json(self.config, [a for a, _, _ in self.past], self.redo_stack)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from `to_json` by replaying it (records of earlier versions, with
        other spellings of the actions, load too); raises CribbageError if malformed."""
        try:
            game = cls.new(**record.options(data))
            for action in record.actions(data, "actions"):
                game = game.apply(action)
            redo = tuple(record.actions(data, "redo"))
        except CribbageError:
            raise
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise IllegalPlayError(f"not a keeper record: {exc!r}") from None
        return replace(game, redo_stack=redo)

    def describe(self) -> str:
        """The state in a few words, for error messages."""
        return views.describe(self.table, self.core)

    def __repr__(self) -> str:
        return f"<Game {self.config.variant} {self.config.mode}: {self.describe()}>"


__all__ = ["Game", "Step"]
