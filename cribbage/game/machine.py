"""The game machine: one game of cribbage (and the match after it), from the cut to `next_game`.

`Game` is an immutable value. `step(action) -> Step(game, events)` is the one step: the next
state and what the action did (`cribbage.game.events`); `apply(action)` is `step(action).game`.
A malformed action raises `InvalidActionError`; one the rules do not allow now raises
`IllegalPlayError` (or its leaf `ImpossibleScoreError`); both name the action and the state,
carry `.say` (one sentence for the table) and change nothing. `why_not(action)` gives the
refusal without raising; `legal_actions()` is derived from the same refusals. Every accepted
action is kept, so `undo`/`redo` and a lossless JSON form (config, the actions, the redo
stack) come for free.

The package, by phase: `state` (the frozen values), `setup` (the cut, the deal, new hands and
games), `playing` (the starter, pegs, cards and gos), `show` (counts and muggins), `score`
(pegging points, the game won), `refusals`, `modes` (keeper, cards, dealt: strategy objects),
`view`, `tallies` and `events`; what a hand can count is `cribbage.counts`.

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

from cribbage.actions import (
    Action,
    Muggins,
    Redo,
    Undo,
    action_text,
    parse_action,
)
from cribbage.cards import Card, check_distinct
from cribbage.counts import possible_counts
from cribbage.errors import CribbageError, IllegalPlayError, InvalidActionError
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
from cribbage.play import PlayState
from cribbage.rules import Result, Rules, get_rules

_STEPS: dict[str, Callable[..., Core]] = {
    "cut": setup.cut, "dealer": setup.dealer, "deal": setup.deal, "discard": setup.discard,
    "next_game": setup.next_game, "peg": playing.peg, "late_peg": playing.late_peg,
    "heels": playing.heels_action, "starter": playing.starter, "play": playing.play,
    "go": playing.go, "count": show.count, "muggins": show.muggins,
}
"""What each action type does: (game, core, action, events out) -> the next core."""


class Step(NamedTuple):
    """What `Game.step` returns: the new game and the events the action caused, in order."""

    game: Game
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Game:
    """A game of cribbage (immutable). Build with `Game.new`, advance with `apply`."""

    config: Config
    rules: Rules = field(repr=False)
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
        n_sides = len(rules.sides)
        core = Core(phase=Phase.CUT, dealer=None, fronts=(0,) * n_sides,
                    backs=(0,) * n_sides, games_won=(0,) * n_sides,
                    match_points=(0,) * n_sides)
        keeper = cls(config, rules, core)
        if dealer is not None:
            keeper = replace(keeper, core=setup.start_game(keeper, core, dealer, []))
        return keeper

    # --- typed reads ----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        return self.rules.sides

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
        return self.config.names

    @property
    def mode(self) -> str:
        """The mode's name: "keeper", "cards" or "dealt"."""
        return self.config.mode

    @property
    def strategy(self) -> Mode:
        """What the mode does differently (`cribbage.game.modes`)."""
        return MODE_OF[self.config.mode]

    @property
    def target(self) -> int:
        return self.config.target

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
        return self._turn(self.next_count)

    def _turn(self, next_count: Callable[[], dict[str, Any] | None]) -> int | None:
        """`turn`, asking `next_count` only when the count due decides it (the view passes
        the one it has already built)."""
        c = self.core
        if c.phase is Phase.DISCARD:
            return next(p for p, done in enumerate(c.discarded) if not done)
        if c.phase not in (Phase.PLAY, Phase.SHOW):
            return None
        if c.play is not None and not c.play.done and c.phase is Phase.PLAY:
            return c.play.to_play
        nxt = next_count()
        return None if nxt is None else int(nxt["player"])

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
        return tallies.hand_tallies(self)

    def game_tallies(self) -> tuple[GameTally, ...]:
        """Every game of the match so far (the last one may still be going on), in order."""
        return tallies.game_tallies(self)

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
        return self.rules.skunk_lines

    @property
    def can_undo(self) -> bool:
        return bool(self.past)

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def side_name(self, side: int) -> str:
        return " & ".join(self.config.names[p] for p in self.sides[side])

    def true_count(self) -> int:
        """Dealt mode: what the next count due really makes; raises IllegalPlayError when no
        count is due or the cards are not known."""
        return show.true_count(self)

    # --- actions --------------------------------------------------------------------------

    def step(self, action: Action | Mapping[str, Any]) -> Step:
        """The state after `action` (a typed action or its JSON dict) and the events it caused,
        in order: `game, events = g.step(action)`.

        Raises InvalidActionError for a malformed action, IllegalPlayError (or its leaf
        ImpossibleScoreError) for one the rules do not allow now; both name the action and
        the state, and this state is unchanged.
        """
        act = self.parse(action)
        if isinstance(act, Undo):
            if not self.past:
                raise self._error(act, "there is nothing to undo", "There's nothing to undo.")
            last, before, done = self.past[-1]
            game = replace(self, core=before, past=self.past[:-1],
                           redo_stack=self.redo_stack + (last,))
            moved = moved_pegs(self.core.fronts, before.fronts)
            return Step(game, (Undone(last, done, moved, say_moved(
                "Undone", action_text(last), done, moved, self.side_name)),))
        if isinstance(act, Redo):
            if not self.redo_stack:
                raise self._error(act, "there is nothing to redo", "There's nothing to redo.")
            again = self.redo_stack[-1]
            out: list[Event] = []
            core = self._step(again, out)
            done = tuple(out)
            game = replace(self, core=core, past=self.past + ((again, self.core, done),),
                           redo_stack=self.redo_stack[:-1])
            moved = moved_pegs(self.core.fronts, core.fronts)
            return Step(game, (Redone(again, done, moved, say_moved(
                "Redone", action_text(again), done, moved, self.side_name)),))
        out = []
        core = self._step(act, out)
        done = tuple(out)
        # The constructor, not replace(): the same Game, without re-reading every field.
        return Step(type(self)(self.config, self.rules, core,
                               self.past + ((act, self.core, done),)), done)

    def apply(self, action: Action | Mapping[str, Any]) -> Game:
        """The state after `action`: `step(action).game`, for callers that need no events
        (replays, simulations). Raises as `step` does."""
        return self.step(action).game

    def parse(self, action: Action | Mapping[str, Any]) -> Action:
        """The typed action; raises InvalidActionError naming the action and this state."""
        try:
            return parse_action(action)
        except InvalidActionError as exc:
            raise InvalidActionError(f"{exc} ({self.describe()})", say=exc.say) from None

    def legal_actions(self) -> list[str]:
        """The action types allowed now: every type the refusals let through."""
        return legal_kinds(self)

    def why_not(self, action: Action | Mapping[str, Any]) -> Refusal | None:
        """Why `action` would be refused now (None: `step` accepts it), without raising for
        a refusal. Raises InvalidActionError for a malformed action."""
        act = self.parse(action)
        found = refusal(self, act.type, act)
        if found is not None or isinstance(act, Undo | Redo):
            return found
        try:
            self._step(act, [])
        except IllegalPlayError as exc:
            return Refusal(str(exc), exc.say)
        return None

    def show_order(self) -> list[dict[str, Any]]:
        """The counts of this hand in order, each with `done`; empty before the first deal."""
        c = self.core
        if c.dealer is None:
            return []
        n = self.players
        out = []
        for i, p in enumerate([(c.dealer + 1 + k) % n for k in range(n)] + [c.dealer]):
            kind = "crib" if i == n else "hand"
            out.append({"kind": kind, "player": p, "side": self.rules.side_of(p),
                        "label": self._label(kind, p), "done": i < c.show_index})
        return out

    def next_count(self) -> dict[str, Any] | None:
        """The count due next (in the play: the first of the show), or None."""
        return self._next_of(self.show_order())

    def _next_of(self, order: list[dict[str, Any]]) -> dict[str, Any] | None:
        if self.core.phase not in (Phase.PLAY, Phase.SHOW):
            return None
        entry = dict(order[self.core.show_index])
        del entry["done"]
        return entry

    # --- JSON -----------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The JSON-ready view of the game (docs/contracts.md section 1)."""
        return views.view(self)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record: the options, every accepted action (in canonical form) and
        the redo stack."""
        return record.to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from `to_json` by replaying it (records of earlier versions, with
        other spellings of the actions, load too); raises CribbageError if malformed."""
        return record.from_json(cls, data)

    def describe(self) -> str:
        """The state in a few words, for error messages."""
        return views.describe(self)

    def __repr__(self) -> str:
        return f"<Game {self.config.variant} {self.config.mode}: {self.describe()}>"

    # --- the actions ----------------------------------------------------------------------

    def _step(self, act: Action, out: list[Event]) -> Core:
        c = self.core
        refused = refusal(self, act.type, act)
        if refused is not None:
            raise self._error(act, refused.detail, refused.say)
        # Muggins must be called at once: any other action closes the last count.
        if not isinstance(act, Muggins) and c.last_count is not None and c.last_count.open:
            c = replace(c, last_count=replace(c.last_count, open=False))
        return _STEPS[act.type](self, c, act, out)






















    # --- helpers --------------------------------------------------------------------------






    def _totals(self, kind: str) -> frozenset[int]:
        size = self.rules.crib_size if kind == "crib" else self.rules.hand_size
        return possible_counts(size, kind == "crib")


    def _check_player(self, act: Action, player: int) -> int:
        if not 0 <= player < self.players:
            raise self._error(act, f"no player {player!r} (players are 0..{self.players - 1})",
                              f"There are {self.players} players, numbered 0 to "
                              f"{self.players - 1}.")
        return player

    def _check_side(self, act: Action, side: int) -> int:
        n = len(self.sides)
        if not 0 <= side < n:
            raise self._error(act, f"no side {side!r} (sides are 0..{n - 1})",
                              f"There are {n} sides, numbered 0 to {n - 1}.")
        return side

    def _distinct(self, act: Action, cards: Sequence[Card]) -> None:
        try:
            check_distinct(cards)
        except CribbageError as exc:
            raise self._error(act, str(exc), "The same card can't be in two places.") from None




    def _label(self, kind: str, player: int) -> str:
        return f"{self.config.names[player]}'s {kind}"

    def _message(self, act: Action, reason: str) -> str:
        return f"{action_text(act)} refused: {reason} ({self.describe()})"

    def _error(self, act: Action, reason: str, say: str | None = None) -> IllegalPlayError:
        if say is None:
            say = reason[:1].upper() + reason[1:] + "."
        return IllegalPlayError(self._message(act, reason), say=say)


__all__ = ["Game", "Step"]
