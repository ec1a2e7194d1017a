"""The game machine: one game of cribbage (and the match after it), from the cut to `next_game`.

`Game` is an immutable value. `apply(action)` returns the next state. A malformed action
raises `InvalidActionError`; one the rules do not allow now raises `IllegalPlayError` (or its
leaf `ImpossibleScoreError`); both name the action and the state, carry `.say` (one sentence
for the table) and change nothing. Every accepted action is kept, so `undo`/`redo` and a
lossless JSON form (config, the actions, the redo stack) come for free.

Three modes, one machine:
- "keeper": real cards, points entered (pegging points, each count in show order, his
  heels). Counts and muggins claims are bounded by what a hand can make; pegging by what one
  card can score. A peg forgotten in the play can be entered during the show as a late peg.
- "cards": real cards, cards entered: the starter, each card played and each hand shown. The
  play is run by `cribbage.play.PlayState` with unknown hands; counts by `score_hand`.
- "dealt": the engine knows every card: `deal` and `discard` come first, the starter must be
  an undealt card, a go with a card that fits is refused, counts need no cards. Simulations
  and the referee cases use this mode (`cribbage.simulate` makes random actions).

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

import enum
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from cribbage.actions import (
    Action,
    Count,
    Cut,
    Deal,
    Dealer,
    Discard,
    Go,
    Heels,
    LatePeg,
    Muggins,
    NextGame,
    Peg,
    Play,
    Redo,
    Starter,
    Undo,
    action_text,
    format_action,
    parse_action,
)
from cribbage.cards import ALL_CARDS, Card, check_distinct
from cribbage.errors import (
    CribbageError,
    IllegalPlayError,
    ImpossibleScoreError,
    InvalidActionError,
)
from cribbage.game.events import (
    CardPlayed,
    Caught,
    DealerChosen,
    Dealt,
    Discarded,
    Event,
    GameBegun,
    GameWon,
    HandBegun,
    Moved,
    MugginsClaimed,
    Parts,
    Redone,
    SaidGo,
    Scored,
    Shown,
    StarterTurned,
    Undone,
)
from cribbage.play import PlayState
from cribbage.rules import CutRule, Result, ResultKind, Rules, get_rules
from cribbage.tuples import set_at

MODES = ("keeper", "cards", "dealt")
ZERO_HAND = 19
"""A count of 19 is impossible, so tables say "nineteen" for a hand worth nothing."""

MAX_PEG = 15
"""The most one card can peg: a double pair royal (12) that makes fifteen (2), played last (1)."""

HEELS = 2
_JACK = 11
_FORMAT = "cribbage-keeper"
_FORMAT_VERSION = 1


class Phase(enum.StrEnum):
    """What the game waits for (a str: `k.phase == "play"` holds)."""

    CUT = "cut"
    DEAL = "deal"  # dealt mode only
    DISCARD = "discard"  # dealt mode only
    PLAY = "play"  # the starter, his heels and the play
    SHOW = "show"
    OVER = "over"


_MUGGINS_PHASES = (Phase.DEAL, Phase.PLAY, Phase.SHOW)
"""Muggins on the crib may be called after it, before the next deal."""


# ---- what a hand can count ---------------------------------------------------------------


@functools.cache
def possible_counts(cards: int, crib: bool) -> frozenset[int]:
    """Every total a hand (or crib) of `cards` cards can make with a starter.

    Fifteens, pairs and runs come from the ranks (every rank multiset); flush and nobs are
    added by which suit patterns the ranks allow: a flush needs distinct ranks (and a starter
    of a new rank to match it), nobs a jack in hand and a starter that is not a jack, and a
    hand of four jacks always holds the starter's jack.
    """
    from cribbage.ranks import all_multisets, rank_points

    totals: set[int] = set()
    for hand in all_multisets(cards):
        jacks = hand.count(_JACK)
        distinct = len(set(hand)) == cards
        for starter in range(1, 14):
            if hand.count(starter) == 4:
                continue
            base = rank_points(tuple(sorted(hand + (starter,))))
            extras: set[int] = set()
            if jacks < 4:
                extras.add(0)
            if jacks and starter != _JACK:
                extras.add(1)
            if distinct and not crib:
                extras.add(cards)  # flush of the hand, starter of another suit
            if distinct and starter not in hand:
                extras.add(cards + 1 + (1 if jacks else 0))  # with the starter (and nobs)
            totals.update(base + e for e in extras)
    return frozenset(totals)


def _describe_totals(totals: frozenset[int]) -> str:
    top = max(totals)
    gaps = [str(t) for t in range(top + 1) if t not in totals]
    if not gaps:
        return f"0 to {top}"
    return f"0 to {top} except {_and(gaps)}"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _say_impossible(points: int, kind: str, totals: frozenset[int]) -> str:
    top = max(totals)
    gaps = [str(t) for t in range(top + 1) if t not in totals]
    never = f", but never {_and(gaps)}" if gaps else ""
    return (f"{points} isn't a {kind} anyone can hold: counts go from 0 to {top}{never}.")


# ---- state -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Config:
    """The options a game was started with."""

    variant: str
    names: tuple[str, ...]
    target: int
    skunk: str
    muggins: bool
    mode: str
    dealer: int | None
    go_rule: str = "continue"
    double_skunk_games: int = 4

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "names": list(self.names),
            "target": self.target,
            "skunk": self.skunk,
            "muggins": self.muggins,
            "mode": self.mode,
            "dealer": self.dealer,
            "go_rule": self.go_rule,
            "double_skunk_games": self.double_skunk_games,
        }


@dataclass(frozen=True, slots=True)
class CountRecord:
    """The last count made: whose, what was pegged, and what muggins may still take."""

    kind: str  # "hand" or "crib"
    player: int
    side: int
    label: str
    points: int  # what the count pegged
    claimed: int = 0  # taken by muggins since
    true_total: int | None = None  # cards and dealt modes: what the cards really make
    breakdown: str | None = None  # cards and dealt modes: HandScore.to_json(), as JSON text
    cards: tuple[Card, ...] = ()
    notes: tuple[str, ...] = ()
    open: bool = True  # muggins may be called now

    @property
    def missed(self) -> int | None:
        if self.true_total is None:
            return None
        return self.true_total - self.points - self.claimed


@dataclass(frozen=True, slots=True)
class Pegs:
    """The two pegs of one side on the board: the front peg is the score."""

    front: int
    back: int


SCORE_KINDS = ("start", "heels", "pegging", "late", "hand", "crib", "muggins")
"""What a `ScoreRecord` was pegged for ("start": the five-card three for the first pone;
"late": a peg correction entered during the show)."""


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """Points pegged to a side (a hand or crib count is recorded even when it is 0).

    `points` is what moved the front peg: a count that passes the target is cut at the game
    hole. `player` is None for a side's peg entered without a player (partners, keeper mode).
    """

    game: int
    hand: int
    side: int
    player: int | None
    kind: str
    points: int


@dataclass(frozen=True, slots=True)
class HandTally:
    """One hand as a score sheet has it: who dealt, and each side's points by what they were
    pegged for (one number per side in each tuple)."""

    game: int
    hand: int
    dealer: int | None
    pegging: tuple[int, ...]  # the play, his heels, a late peg, the five-card start
    hand_counts: tuple[int, ...]
    crib: tuple[int, ...]
    muggins: tuple[int, ...]
    totals: tuple[int, ...]  # each side's score after the hand


@dataclass(frozen=True, slots=True)
class GameTally:
    """One game of the match: its first dealer, its result (None while it goes on), the pegs
    at its end (or now) and how many hands were dealt."""

    game: int
    first_dealer: int | None
    result: Result | None
    scores: tuple[int, ...]
    hands: int


_TALLY_COLUMN = {"start": "pegging", "heels": "pegging", "pegging": "pegging",
                 "late": "pegging", "hand": "hand_counts", "crib": "crib", "muggins": "muggins"}


@dataclass(frozen=True, slots=True)
class PlayNote:
    """Points pegged by the play engine, with the words a table says."""

    player: int
    points: int
    say: str


@dataclass(frozen=True, slots=True)
class Core:
    """The game state proper (everything but the undo/redo history)."""

    phase: Phase
    dealer: int | None
    fronts: tuple[int, ...]
    backs: tuple[int, ...]
    hand_number: int = 1
    game_number: int = 1
    show_index: int = 0
    play_started: bool = False
    heels_done: bool = False
    starter: Card | None = None
    play: PlayState | None = None  # cards and dealt modes
    play_notes: tuple[PlayNote, ...] = ()
    shown: tuple[Card, ...] = ()  # cards counted in this show
    last_count: CountRecord | None = None
    result: Result | None = None
    games_won: tuple[int, ...] = ()
    match_points: tuple[int, ...] = ()
    cut: tuple[Card, ...] = ()
    records: tuple[ScoreRecord, ...] = ()  # every score of the match, in order
    # dealt mode: the cards of this hand
    hands: tuple[tuple[Card, ...], ...] = ()  # each player's cards (kept hand after discard)
    discarded: tuple[bool, ...] = ()
    crib: tuple[Card, ...] = ()
    stock: tuple[Card, ...] = ()  # the undealt cards


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
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise IllegalPlayError(f"names must be a list of {rules.players} names, not {names!r}")
        clean = tuple(n.strip() if isinstance(n, str) else n for n in names)
        if len(clean) != rules.players or not all(isinstance(n, str) and n for n in clean):
            raise IllegalPlayError(
                f"{variant} needs {rules.players} non-empty names, not {list(names)!r}")
        folded = [n.casefold() for n in clean]
        twice = next((n for i, n in enumerate(clean) if n.casefold() in folded[:i]), None)
        if twice is not None:
            raise IllegalPlayError(
                f"names must differ: {twice!r} is given twice in {list(clean)!r}",
                say=f"Two players are called {twice}: give each player their own name.")
        if mode not in MODES:
            raise IllegalPlayError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if dealer is not None and not _is_index(dealer, rules.players):
            raise IllegalPlayError(
                f"dealer must be a player 0..{rules.players - 1} or None, not {dealer!r}")
        config = Config(variant, clean, rules.target, rules.skunk.value, rules.muggins, mode,
                        dealer, rules.go_rule.value, rules.double_skunk_games)
        n_sides = len(rules.sides)
        core = Core(phase=Phase.CUT, dealer=None, fronts=(0,) * n_sides,
                    backs=(0,) * n_sides, games_won=(0,) * n_sides,
                    match_points=(0,) * n_sides)
        keeper = cls(config, rules, core)
        if dealer is not None:
            keeper = replace(keeper, core=keeper._start_game(core, dealer, []))
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
        return self.config.mode

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
        n = len(self.sides)
        columns = ("pegging", "hand_counts", "crib", "muggins")
        dealers: dict[tuple[int, int], int | None] = {}
        for c in self._cores():
            if c.dealer is not None:
                dealers[(c.game_number, c.hand_number)] = c.dealer
        sheets: dict[tuple[int, int], dict[str, list[int]]] = {}
        for r in self.core.records:
            dealers.setdefault((r.game, r.hand), None)
            sheet = sheets.setdefault((r.game, r.hand), {k: [0] * n for k in columns})
            sheet[_TALLY_COLUMN[r.kind]][r.side] += r.points
        out: list[HandTally] = []
        totals: dict[int, list[int]] = {}
        for game, hand in sorted(dealers):
            sheet = sheets.get((game, hand)) or {k: [0] * n for k in columns}
            running = totals.setdefault(game, [0] * n)
            for column in columns:
                running[:] = [a + b for a, b in zip(running, sheet[column], strict=True)]
            out.append(HandTally(game, hand, dealers[(game, hand)], tuple(sheet["pegging"]),
                                 tuple(sheet["hand_counts"]), tuple(sheet["crib"]),
                                 tuple(sheet["muggins"]), tuple(running)))
        return tuple(out)

    def game_tallies(self) -> tuple[GameTally, ...]:
        """Every game of the match so far (the last one may still be going on), in order."""
        last: dict[int, Core] = {}
        first_dealer: dict[int, int] = {}
        for c in self._cores():
            last[c.game_number] = c
            if c.dealer is not None:
                first_dealer.setdefault(c.game_number, c.dealer)
        return tuple(GameTally(g, first_dealer.get(g), c.result,
                               c.result.scores if c.result is not None else c.fronts,
                               c.hand_number) for g, c in sorted(last.items()))

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
        c = self.core
        if self.config.mode != "dealt" or c.starter is None or self.next_count() is None or (
                c.phase is Phase.PLAY and (c.play is None or not c.play.done)):
            raise IllegalPlayError(f"no count of known cards is due ({self.describe()})")
        from cribbage.scoring import score_hand

        entry = self.show_order()[c.show_index]
        cards = c.crib if entry["kind"] == "crib" else c.hands[entry["player"]]
        return int(score_hand(cards, c.starter, crib=entry["kind"] == "crib",
                              variant=self.config.variant).total)

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
            moved = self._moved(self.core, before)
            return Step(game, (Undone(last, done, moved, self._say_moved(
                "Undone", last, done, moved)),))
        if isinstance(act, Redo):
            if not self.redo_stack:
                raise self._error(act, "there is nothing to redo", "There's nothing to redo.")
            again = self.redo_stack[-1]
            out: list[Event] = []
            core = self._step(again, out)
            done = tuple(out)
            game = replace(self, core=core, past=self.past + ((again, self.core, done),),
                           redo_stack=self.redo_stack[:-1])
            moved = self._moved(self.core, core)
            return Step(game, (Redone(again, done, moved, self._say_moved(
                "Redone", again, done, moved)),))
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

    def _moved(self, before: Core, after: Core) -> tuple[Moved, ...]:
        return tuple(Moved(i, a, b) for i, (a, b) in enumerate(
            zip(before.fronts, after.fronts, strict=True)) if a != b)

    def _say_moved(self, what: str, act: Action, done: tuple[Event, ...],
                   moved: tuple[Moved, ...]) -> str:
        said = done[0].say.rstrip(".") if done else action_text(act)
        pegs = ", ".join(f"{self.side_name(m.side)} {m.before} → {m.after}" for m in moved)
        return f"{what}: {said}" + (f" ({pegs})." if pegs else ".")

    def parse(self, action: Action | Mapping[str, Any]) -> Action:
        """The typed action; raises InvalidActionError naming the action and this state."""
        try:
            return parse_action(action)
        except InvalidActionError as exc:
            raise InvalidActionError(f"{exc} ({self.describe()})", say=exc.say) from None

    def legal_actions(self) -> list[str]:
        """The action types allowed now."""
        c = self.core
        mode = self.config.mode
        out: list[str] = []
        if c.phase is Phase.CUT:
            out += ["cut", "dealer"]
        elif c.phase is Phase.OVER:
            out.append("next_game")
        elif c.phase is Phase.DEAL:
            out.append("deal")
        elif c.phase is Phase.DISCARD:
            out.append("discard")
        elif mode == "keeper":
            if c.phase is Phase.PLAY:
                out.append("peg")
                if self._heels_allowed():
                    out.append("heels")
                if c.starter is None and not c.play_started:
                    out.append("starter")
            else:
                out.append("late_peg")
            out.append("count")
        elif c.phase is Phase.PLAY:
            if c.starter is None:
                out.append("starter")
            elif c.play is not None and not c.play.done:
                if c.play.can_play():
                    out.append("play")
                if c.play.can_go():
                    out.append("go")
            else:
                out.append("count")
        else:
            out.append("count")
        if c.phase in _MUGGINS_PHASES and self._muggins_room() > 0:
            out.append("muggins")
        if self.past:
            out.append("undo")
        if self.redo_stack:
            out.append("redo")
        return out

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
        c = self.core
        cfg = self.config
        last = None
        if c.last_count is not None:
            lc = c.last_count
            last = {
                "side": lc.side, "points": lc.points, "label": lc.label, "kind": lc.kind,
                "player": lc.player,
                "breakdown": None if lc.breakdown is None else json.loads(lc.breakdown),
                "claimed": lc.claimed, "missed": lc.missed, "notes": list(lc.notes),
                "muggins_open": c.phase in _MUGGINS_PHASES and self._muggins_room() > 0,
            }
        play = None
        if cfg.mode != "keeper" and c.play is not None:
            ps = c.play
            play = {
                "count": ps.count,
                "cards": [str(x) for x in ps.series],
                "next_player": ps.to_play,
                "played": [{"player": p, "card": str(x)} for p, x in ps.played],
                "done": ps.done,
                "say": [{"player": n.player, "points": n.points, "say": n.say}
                        for n in c.play_notes],
            }
        order = self.show_order()  # built once: the next count and the turn come from it
        next_count = self._next_of(order)
        view: dict[str, Any] = {
            "variant": cfg.variant,
            "mode": cfg.mode,
            "target": cfg.target,
            "muggins": cfg.muggins,
            "skunk": cfg.skunk,
            "skunk_lines": list(self.rules.skunk_lines),
            "names": list(cfg.names),
            "sides": [
                {"name": self.side_name(i), "players": list(members),
                 "front": c.fronts[i], "back": c.backs[i]}
                for i, members in enumerate(self.sides)
            ],
            "cut": [str(x) for x in c.cut],  # the cut for deal, if one was made
            "dealer": c.dealer,
            "crib_owner": c.dealer,
            "hand_number": c.hand_number,
            "game_number": c.game_number,
            "phase": c.phase.value,
            "turn": self._turn(lambda: next_count),
            "starter": None if c.starter is None else str(c.starter),
            "next_count": next_count,
            "show_order": order,
            "play": play,
            "last_count": last,
            "result": None if c.result is None else c.result.to_json(),
            "games_won": list(c.games_won),
            "match_points": list(c.match_points),
            "can_undo": bool(self.past),
            "can_redo": bool(self.redo_stack),
            "legal": self.legal_actions(),
        }
        if cfg.mode == "dealt":
            view["hands"] = [[str(x) for x in h] for h in c.hands]
            view["crib"] = [str(x) for x in c.crib]
        return view

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record: the options, every accepted action and the redo stack."""
        return {
            "format": _FORMAT,
            "version": _FORMAT_VERSION,
            "config": self.config.to_json(),
            "actions": [format_action(a) for a, _, _ in self.past],
            "redo": [format_action(a) for a in self.redo_stack],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from `to_json` by replaying it; raises CribbageError if malformed."""
        try:
            if data.get("format") != _FORMAT or data.get("version") != _FORMAT_VERSION:
                raise IllegalPlayError(
                    f"not a keeper record (format {data.get('format')!r}, "
                    f"version {data.get('version')!r})")
            cfg = data["config"]
            keeper = cls.new(cfg["variant"], cfg["names"], target=cfg["target"],
                             skunk=cfg["skunk"], muggins=cfg["muggins"], mode=cfg["mode"],
                             dealer=cfg["dealer"], go_rule=cfg.get("go_rule", "continue"),
                             double_skunk_games=cfg.get("double_skunk_games", 4))
            for i, action in enumerate(data["actions"]):
                if action.get("type") in ("undo", "redo"):
                    raise IllegalPlayError(f"action {i} of the record is an {action['type']}")
                keeper = keeper.apply(action)
            redo = tuple(keeper.parse(a) for a in data["redo"])
        except CribbageError:
            raise
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise IllegalPlayError(f"not a keeper record: {exc!r}") from None
        return replace(keeper, redo_stack=redo)

    def describe(self) -> str:
        """The state in a few words, for error messages."""
        c = self.core
        scores = ", ".join(f"{self.side_name(i)} {f}" for i, f in enumerate(c.fronts))
        if c.phase is Phase.CUT:
            return f"game {c.game_number}: the cut for deal is due; {scores}"
        if c.phase is Phase.OVER:
            assert c.result is not None
            return (f"game {c.game_number} is over, {self.side_name(c.result.winner)} won "
                    f"({c.result.kind.value}); {scores}")
        dealer = self.config.names[c.dealer] if c.dealer is not None else "?"
        if c.phase in (Phase.DEAL, Phase.DISCARD):
            return f"hand {c.hand_number}, {dealer} deals, the {c.phase.value} is due; {scores}"
        nxt = self.next_count()
        where = "the play" if c.phase is Phase.PLAY else "the show"
        if c.phase is Phase.PLAY and c.play is not None and not c.play.done:
            where += f" ({c.play.describe()})"
        due = f", {nxt['label']} next" if nxt else ""
        return f"hand {c.hand_number}, {dealer} dealt, {where}{due}; {scores}"

    def __repr__(self) -> str:
        return f"<Game {self.config.variant} {self.config.mode}: {self.describe()}>"

    # --- the actions ----------------------------------------------------------------------

    def _step(self, act: Action, out: list[Event]) -> Core:
        c = self.core
        if act.type not in self.legal_actions():
            raise self._error(act, *self._why_not(act))
        # Muggins must be called at once: any other action closes the last count.
        if not isinstance(act, Muggins) and c.last_count is not None and c.last_count.open:
            c = replace(c, last_count=replace(c.last_count, open=False))
        handler = getattr(self, "_do_" + act.type)
        return handler(c, act, out)  # type: ignore[no-any-return]

    def _do_cut(self, c: Core, act: Cut, out: list[Event]) -> Core:
        cards = act.cards
        if len(cards) != self.players:
            raise self._error(act, f"a cut needs one card per player ({self.players}), not "
                              f"{len(cards)}", f"Each of the {self.players} players cuts one card.")
        self._distinct(act, cards)
        dealer, word = self._cut_winner(act, cards)
        names = self.config.names
        cut = ", ".join(f"{names[p]} the {x.pretty}" for p, x in enumerate(cards))
        out.append(DealerChosen(dealer, cards, f"Cut for deal: {cut}; the {word} card deals, "
                                f"so {names[dealer]} deals."))
        return self._start_game(replace(c, cut=cards), dealer, out)

    def _cut_winner(self, act: Cut, cards: tuple[Card, ...]) -> tuple[int, str]:
        """Who deals after this cut, and the word for the card that wins ("low", "high");
        raises IllegalPlayError for a tie."""
        high = self.rules.cut is CutRule.HIGH
        best = (max if high else min)(x.rank for x in cards)
        winners = [p for p, x in enumerate(cards) if x.rank == best]
        word = "higher" if high else "lower"
        if self.players > 2:
            word = "highest" if high else "lowest"
        if len(winners) > 1:
            who = " and ".join(self.config.names[p] for p in winners)
            top = "highest" if high else "lowest"
            raise self._error(act, f"{who} tie for the {top} card; cut again",
                              f"{who} tie for the {top} card: cut again.")
        return winners[0], word

    def _do_dealer(self, c: Core, act: Dealer, out: list[Event]) -> Core:
        self._check_player(act, act.player)
        out.append(DealerChosen(act.player, (), f"{self.config.names[act.player]} deals."))
        return self._start_game(c, act.player, out)

    def _do_deal(self, c: Core, act: Deal, out: list[Event]) -> Core:
        rules = self.rules
        if len(act.hands) != rules.players:
            raise self._error(act, f"{rules.players} hands are dealt, not {len(act.hands)}")
        for p, hand in enumerate(act.hands):
            if len(hand) != rules.deal:
                raise self._error(act, f"{self.config.names[p]} gets {rules.deal} cards in "
                                  f"{rules.name}, not {len(hand)}")
        if len(act.crib) != rules.crib_from_deck:
            raise self._error(act, f"{rules.crib_from_deck} cards go to the crib in "
                              f"{rules.name}, not {len(act.crib)}")
        dealt = [x for h in act.hands for x in h] + list(act.crib)
        self._distinct(act, dealt)
        gone = set(dealt)
        crib = f" and {len(act.crib)} to the crib" if act.crib else ""
        out.append(Dealt(rules.deal, len(act.crib),
                         f"{self.config.names[c.dealer or 0]} deals {rules.deal} each{crib}."))
        return replace(c, phase=Phase.DISCARD, hands=act.hands, crib=act.crib,
                       stock=tuple(x for x in ALL_CARDS if x not in gone),
                       discarded=(False,) * rules.players)

    def _do_discard(self, c: Core, act: Discard, out: list[Event]) -> Core:
        p = self._check_player(act, act.player)
        who = self.config.names[p]
        self._distinct(act, act.cards)
        if c.discarded[p]:
            raise self._error(act, f"{who} has already discarded",
                              f"{who} has already laid away to the crib.")
        n = self.rules.discard
        if len(act.cards) != n:
            raise self._error(act, f"each player lays away {n} in {self.rules.name}",
                              f"Each player lays away {n} to the crib.")
        hand = c.hands[p]
        for x in act.cards:
            if x not in hand:
                raise self._error(act, f"{who} cannot discard {x}: {who} holds "
                                  f"{' '.join(map(str, hand))}", f"{who} doesn't hold the "
                                  f"{x.pretty}.")
        kept = tuple(x for x in hand if x not in act.cards)
        c = replace(c, hands=set_at(c.hands, p, kept), crib=c.crib + act.cards,
                    discarded=set_at(c.discarded, p, True))
        out.append(Discarded(p, act.cards, f"{who} lays away {_number(n)} to the crib."))
        if all(c.discarded):
            c = replace(c, phase=Phase.PLAY)
        return c

    def _do_peg(self, c: Core, act: Peg, out: list[Event]) -> Core:
        side = self._check_side(act, act.side)
        self._check_peg(act, act.points)
        if not c.play_started:
            c = replace(c, play_started=True)
        members = self.sides[side]
        return self._score(c, side, act.points, "pegging",
                           members[0] if len(members) == 1 else None, out,
                           (("pegging", act.points),),
                           f"{self.side_name(side)} pegs {act.points}")

    def _do_late_peg(self, c: Core, act: LatePeg, out: list[Event]) -> Core:
        """A peg of the play forgotten until the show: recorded as "late", the show goes on."""
        side = self._check_side(act, act.side)
        self._check_peg(act, act.points)
        members = self.sides[side]
        return self._score(c, side, act.points, "late",
                           members[0] if len(members) == 1 else None, out,
                           (("late", act.points),),
                           f"{self.side_name(side)} pegs {act.points} late, from the play")

    def _check_peg(self, act: Peg | LatePeg, points: int) -> None:
        if not 1 <= points <= MAX_PEG:
            raise ImpossibleScoreError(self._message(
                act, f"one card pegs 1 to {MAX_PEG} points in the play, not {points}"),
                say=f"One card pegs 1 to {MAX_PEG} in the play, not {points}.")

    def _do_heels(self, c: Core, act: Heels, out: list[Event]) -> Core:
        assert c.dealer is not None
        c = replace(c, heels_done=True)
        return self._heels(c, out)

    def _heels(self, c: Core, out: list[Event]) -> Core:
        assert c.dealer is not None
        return self._score(c, self.rules.side_of(c.dealer), HEELS, "heels", c.dealer, out,
                           (("heels", HEELS),),
                           f"Two for his heels to {self.config.names[c.dealer]}")

    def _do_starter(self, c: Core, act: Starter, out: list[Event]) -> Core:
        assert c.dealer is not None
        card = act.card
        mode = self.config.mode
        if mode == "dealt":
            if card not in c.stock:
                raise self._error(act, f"{card} is not among the undealt cards",
                                  f"The {card.pretty} was dealt: the starter is cut from the "
                                  "rest of the pack.")
            c = replace(c, stock=tuple(x for x in c.stock if x != card))
        c = replace(c, starter=card)
        out.append(StarterTurned(card, f"The starter is the {card.pretty}."))
        if mode != "keeper":
            hands: list[Any] = list(c.hands) if mode == "dealt" else [None] * self.players
            ps = PlayState.for_rules(self.rules, hands, c.dealer, names=self.config.names,
                                     seen=[card])
            c = replace(c, play=ps)
        if card.rank == _JACK:
            # Two for his heels, pegged at once: it can end the game before a card is played.
            c = self._heels(replace(c, heels_done=True), out)
        return c

    def _do_play(self, c: Core, act: Play, out: list[Event]) -> Core:
        return self._play_step(c, act, out)

    def _do_go(self, c: Core, act: Go, out: list[Event]) -> Core:
        return self._play_step(c, act, out)

    def _play_step(self, c: Core, act: Play | Go, out: list[Event]) -> Core:
        from cribbage.pegscore import score_pegging

        ps = c.play
        assert ps is not None
        self._check_player(act, act.player)
        try:
            new = ps.play(act.card, act.player) if isinstance(act, Play) else ps.go(act.player)
        except IllegalPlayError as exc:
            raise IllegalPlayError(self._message(act, str(exc)), say=exc.say) from None
        c = replace(c, play=new, play_started=True)
        names = self.config.names
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
            c = self._score(c, self.rules.side_of(event.player), event.points, "pegging",
                            event.player, out, event.parts or (("last", event.points),),
                            f"{who} pegs {event.points}: {say}")
            if c.phase is Phase.OVER:
                break
        return c

    def _do_count(self, c: Core, act: Count, out: list[Event]) -> Core:
        entry = self.show_order()[c.show_index]
        kind, player, side, label = entry["kind"], entry["player"], entry["side"], entry["label"]
        if self.config.mode == "keeper":
            if act.cards is not None:
                raise InvalidActionError(self._message(
                    act, "in keeper mode a count is its points, not cards"),
                    say="Enter the points of the count.")
            if act.points is None:
                raise InvalidActionError(self._message(act, "a count needs its points"),
                                         say="Enter the points of the count.")
            points = self._check_count(act, act.points, kind, label)
            record = CountRecord(kind, player, side, label, points)
        else:
            record = self._count_cards(c, act, kind, player, side, label)
            c = replace(c, shown=c.shown + record.cards)
        c = replace(c, last_count=record, phase=Phase.SHOW, play_started=True)
        shown = self._shown(record)
        out.append(shown)
        c = self._score(c, side, record.points, kind, player, out, self._count_parts(shown),
                        shown.say.rstrip("."))
        if c.phase is Phase.OVER:
            return replace(c, show_index=c.show_index + 1)
        c = replace(c, show_index=c.show_index + 1)
        if c.show_index > self.players:
            c = self._next_hand(c, out)
        return c

    def _shown(self, record: CountRecord) -> Shown:
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

    @staticmethod
    def _count_parts(shown: Shown) -> Parts:
        b = shown.breakdown
        if b is None or shown.points != shown.true_total:
            return ((shown.count, shown.points),)
        return tuple((k, b[k]) for k in ("fifteens", "pairs", "runs", "flush", "nobs") if b[k])

    def _count_cards(self, c: Core, act: Count, kind: str, player: int, side: int,
                     label: str) -> CountRecord:
        from cribbage.scoring import score_hand

        ps = c.play
        assert ps is not None and c.starter is not None
        size = self.rules.crib_size if kind == "crib" else self.rules.hand_size
        if self.config.mode == "dealt":
            known = c.crib if kind == "crib" else c.hands[player]
            if act.cards is not None and set(act.cards) != set(known):
                raise self._error(act, f"{label} is {' '.join(map(str, known))}",
                                  f"{label} is {' '.join(x.pretty for x in known)}.")
            parsed = list(known)
        else:
            parsed = self._shown_cards(c, act, kind, player, label, size)
        score = score_hand(parsed, c.starter, crib=kind == "crib", variant=self.config.variant)
        true_total = int(score.total)
        points = true_total
        if act.points is not None:
            claim = 0 if act.points == ZERO_HAND else act.points
            if not 0 <= claim <= true_total:
                raise ImpossibleScoreError(self._message(
                    act, f"{label} makes {true_total}, so it cannot be counted as {claim}"),
                    say=f"{label} makes {true_total}, not {claim}.")
            if claim != true_total and not self.config.muggins:
                raise self._error(act, f"{label} makes {true_total}, not {claim} (muggins is "
                                  "off: leave the points out to peg the true count)",
                                  f"{label} makes {true_total}, not {claim}.")
            points = claim
        notes: tuple[str, ...] = ()
        if kind == "hand" and ps.gos:
            shown: list[Any] = [None] * self.players
            shown[player] = parsed if ps.dealt[player] == size else None
            if shown[player] is not None:
                notes = tuple(
                    f"{self.config.names[g.player]} said go at {g.count} holding "
                    + " ".join(map(str, g.playable))
                    for g in ps.false_gos(shown))
        return CountRecord(kind, player, side, label, points, 0, true_total,
                           json.dumps(score.to_json()), tuple(parsed), notes)

    def _shown_cards(self, c: Core, act: Count, kind: str, player: int, label: str,
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
            raise self._error(act, f"{label} needs its {size} cards",
                              f"Enter the {size} cards of {label}.")
        if len(cards) != size:
            raise self._error(act, f"{label} has {size} cards, not {len(cards)}",
                              f"{label} has {size} cards, not {len(cards)}.")
        self._distinct(act, cards)
        played_by = {x: p for p, x in ps.played}
        for x in cards:
            if x == c.starter:
                raise self._error(act, f"{x} is the starter, so it cannot be in {label}",
                                  f"The {x.pretty} is the starter, so it isn't in {label}.")
            owner = played_by.get(x)
            if owner is not None and (kind == "crib" or owner != player):
                who = self.config.names[owner]
                raise self._error(act, f"{x} was played by {who}",
                                  f"The {x.pretty} was played by {who}.")
            if x in c.shown:
                raise self._error(act, f"{x} was already shown in this hand",
                                  f"The {x.pretty} was already shown in this hand.")
        missing = [x for x in played_own if x not in cards]
        if missing:
            who = self.config.names[player]
            raise self._error(act, f"{missing[0]} was played by {who}, so it must be in {label}",
                              f"{who} played the {missing[0].pretty}, so it is in {label}.")
        return cards

    def _do_muggins(self, c: Core, act: Muggins, out: list[Event]) -> Core:
        lc = c.last_count
        assert lc is not None
        side = self._check_side(act, act.side)
        if side == lc.side:
            who = self.side_name(lc.side)
            raise self._error(act, f"muggins is called by an opponent of {who}, who made the "
                              "count", f"Only an opponent can call muggins on {who}'s count.")
        counted = lc.points + lc.claimed
        if act.points is None:
            if lc.true_total is None:
                raise InvalidActionError(self._message(act, "muggins needs its points"),
                                         say="Enter the points muggins takes.")
            points = lc.missed or 0
        else:
            points = act.points
        if points < 1:
            raise ImpossibleScoreError(self._message(
                act, f"muggins takes 1 point or more, not {points}"),
                say="Muggins takes 1 point or more.")
        if lc.true_total is not None:
            if points > (lc.missed or 0):
                raise ImpossibleScoreError(self._message(
                    act, f"{lc.label} made {lc.true_total} and {counted} are accounted for, so "
                    f"only {lc.missed} can be claimed"),
                    say=f"{lc.label} missed only {lc.missed}.")
        else:
            totals = self._totals(lc.kind)
            if counted + points not in totals:
                raise ImpossibleScoreError(self._message(
                    act, f"{lc.label} counted {counted} and no {lc.kind} makes "
                    f"{counted + points} ({_describe_totals(totals)})"),
                    say=f"Muggins of {points} on {lc.label} makes {counted} + {points} = "
                    f"{counted + points}, and {_say_impossible(counted + points, lc.kind, totals)}")
        c = replace(c, last_count=replace(lc, claimed=lc.claimed + points))
        members = self.sides[side]
        name = self.side_name(side)
        out.append(MugginsClaimed(side, points, lc.label, f"Muggins! {name} takes {points} "
                                  f"missed in {lc.label}."))
        return self._score(c, side, points, "muggins", members[0] if len(members) == 1 else None,
                           out, (("muggins", points),), f"{name} pegs {points} for muggins")

    def _do_next_game(self, c: Core, act: NextGame, out: list[Event]) -> Core:
        result = c.result
        assert result is not None and c.dealer is not None
        n = self.players
        losers = self.sides[result.loser]
        dealer = next(p for p in [(c.dealer + k) % n for k in range(1, n + 1)] if p in losers)
        fresh = Core(phase=Phase.PLAY, dealer=None, fronts=(0,) * len(self.sides),
                     backs=(0,) * len(self.sides), game_number=c.game_number + 1,
                     games_won=c.games_won, match_points=c.match_points, records=c.records)
        out.append(GameBegun(fresh.game_number, dealer, f"Game {fresh.game_number}: "
                             f"{self.config.names[dealer]} deals first."))
        return self._start_game(fresh, dealer, out)

    # --- helpers --------------------------------------------------------------------------

    def _start_game(self, c: Core, dealer: int, out: list[Event]) -> Core:
        phase = Phase.DEAL if self.config.mode == "dealt" else Phase.PLAY
        c = replace(c, phase=phase, dealer=dealer, hand_number=1, show_index=0)
        out.append(self._hand_begun(c))
        if self.rules.non_dealer_start:
            # Five-card: the first non-dealer pegs three for last at the start of each game.
            pone = self.rules.left_of(dealer)
            n = self.rules.non_dealer_start
            c = self._score(c, self.rules.side_of(pone), n, "start", pone, out, (("start", n),),
                            f"{self.config.names[pone]} pegs {n} to start: "
                            f"{self.config.names[dealer]} has the first crib")
        return c

    def _hand_begun(self, c: Core) -> HandBegun:
        assert c.dealer is not None
        return HandBegun(c.game_number, c.hand_number, c.dealer,
                         f"Hand {c.hand_number}: {self.config.names[c.dealer]} deals.")

    def _next_hand(self, c: Core, out: list[Event]) -> Core:
        assert c.dealer is not None
        phase = Phase.DEAL if self.config.mode == "dealt" else Phase.PLAY
        c = replace(c, phase=phase, dealer=self.rules.left_of(c.dealer),
                    hand_number=c.hand_number + 1, show_index=0, play_started=False,
                    heels_done=False, starter=None, play=None, play_notes=(), shown=(),
                    hands=(), discarded=(), crib=(), stock=())
        out.append(self._hand_begun(c))
        return c

    def _score(self, c: Core, side: int, points: int, kind: str, player: int | None,
               out: list[Event], parts: Parts = (), say: str = "") -> Core:
        """Peg points to a side and record them; the game ends the moment a side reaches the
        target, with the front peg in the game hole (a board has no hole past it)."""
        if points <= 0:
            if kind in ("hand", "crib"):
                rec = ScoreRecord(c.game_number, c.hand_number, side, player, kind, 0)
                c = replace(c, records=c.records + (rec,))
            return c
        target = self.config.target
        front = min(c.fronts[side] + points, target)
        rec = ScoreRecord(c.game_number, c.hand_number, side, player, kind,
                          front - c.fronts[side])
        c = replace(c, fronts=set_at(c.fronts, side, front),
                    backs=set_at(c.backs, side, c.fronts[side]), records=c.records + (rec,))
        if rec.points < points:
            say += f" (to the game hole, {rec.points} of {points})"
        out.append(Scored(side, player, rec.points, kind, parts, front, c.backs[side],
                          c.game_number, c.hand_number, say + "."))
        if front >= target:
            result = self.rules.result(c.fronts)
            assert result is not None
            out.append(self._game_won(c, result))
            c = replace(
                c, phase=Phase.OVER, result=result,
                games_won=set_at(c.games_won, result.winner, c.games_won[result.winner] + 1),
                match_points=set_at(c.match_points, result.winner,
                                  c.match_points[result.winner] + result.game_points),
            )
        return c

    def _game_won(self, c: Core, result: Result) -> GameWon:
        """The game-over event: the result in words, and each losing side under a line."""
        lines = self.rules.lines
        named = tuple((n, v) for n, v in (("skunk", lines.skunk),
                                          ("double_skunk", lines.double_skunk),
                                          ("lurch", lines.lurch)) if v is not None)
        caught = []
        for side, score in enumerate(c.fronts):
            if side == result.winner:
                continue
            under = [(n, v) for n, v in named if score < v]
            if under:
                n, v = min(under, key=lambda x: x[1])  # the deepest line the side is under
                caught.append(Caught(side, self.side_name(side), n, v))
        winner = self.side_name(result.winner)
        others = " and ".join(str(s) for i, s in enumerate(c.fronts) if i != result.winner)
        verb = "win" if len(self.sides[result.winner]) > 1 else "wins"
        say = f"{winner} {verb} {c.fronts[result.winner]} to {others}"
        words = {"skunk": "skunked", "double_skunk": "double skunked", "lurch": "lurched"}
        if caught and len(self.sides) > 2:
            say += ": " + ", ".join(f"{x.name} is {words[x.line]} (under {x.under})"
                                    for x in caught)
        elif caught:
            say += {"skunk": ", a skunk", "double_skunk": ", a double skunk",
                    "lurch": ", lurched"}[caught[0].line]
        if result.game_points > 1:
            say += f" ({result.game_points} games)"
        return GameWon(c.game_number, result, winner, named, tuple(caught), say + ".")

    def _totals(self, kind: str) -> frozenset[int]:
        size = self.rules.crib_size if kind == "crib" else self.rules.hand_size
        return possible_counts(size, kind == "crib")

    def _check_count(self, act: Count, points: int, kind: str, label: str) -> int:
        totals = self._totals(kind)
        if points == ZERO_HAND:
            return 0
        if points < 0:
            raise ImpossibleScoreError(self._message(
                act, f"points cannot be negative ({points})"),
                say=f"A count can't be negative ({points}).")
        if points not in totals:
            raise ImpossibleScoreError(self._message(
                act, f"{label} cannot count {points}: no {self.config.variant} {kind} makes "
                f"{points} ({_describe_totals(totals)}; 19 means nothing)"),
                say=_say_impossible(points, kind, totals))
        return points

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

    def _heels_allowed(self) -> bool:
        c = self.core
        return (c.phase is Phase.PLAY and not c.heels_done and not c.play_started
                and (c.starter is None or c.starter.rank == _JACK))

    def _muggins_room(self) -> int:
        """How many more points muggins could claim on the last count (0: none)."""
        lc = self.core.last_count
        if not self.config.muggins or lc is None or not lc.open:
            return 0
        if lc.true_total is not None:
            return lc.missed or 0
        counted = lc.points + lc.claimed
        return max((t for t in self._totals(lc.kind) if t > counted), default=counted) - counted

    def _why_not(self, act: Action) -> tuple[str, str]:
        """Why an action type is not allowed now: (detail, sentence for the table)."""
        kind = act.type
        c = self.core
        mode = self.config.mode
        if c.phase is Phase.CUT and kind not in ("undo", "redo"):
            return ("the dealer is not known yet (cut for deal or enter the dealer)",
                    "Cut for deal first, or say who deals.")
        if c.phase is Phase.OVER and kind not in ("undo", "redo"):
            assert c.result is not None
            return ("the game is over (start the next game or undo)",
                    f"The game is over: {self.side_name(c.result.winner)} won. Start the next "
                    "game, or undo.")
        if c.phase is Phase.DEAL and kind not in ("undo", "redo"):
            return "the deal is due", "Deal the cards first."
        if c.phase is Phase.DISCARD and kind not in ("undo", "redo"):
            return "the discard to the crib is due", "Lay away to the crib first."
        fixed = {
            "cut": ("the dealer is already set", "The dealer is already chosen."),
            "dealer": ("the dealer is already set", "The dealer is already chosen."),
            "next_game": ("the game is not over", "The game isn't over yet."),
            "deal": ("the cards are dealt by hand in this mode" if mode != "dealt" else
                     "the cards are already dealt", "The cards are already dealt."),
            "discard": ("the discard is entered only when the cards are dealt by the engine"
                        if mode != "dealt" else "the discard is over",
                        "The crib is already laid away."),
            "undo": ("there is nothing to undo", "There's nothing to undo."),
            "redo": ("there is nothing to redo", "There's nothing to redo."),
            "muggins": (("muggins is off", "Muggins isn't played in this game.")
                        if not self.config.muggins else
                        ("there is no count whose missed points can be claimed now",
                         "Muggins is called right after a count that missed points.")),
        }
        if kind in fixed:
            return fixed[kind]
        if kind == "heels":
            if mode != "keeper":
                return ("in cards mode his heels is pegged when a jack is entered as starter",
                        "His heels is pegged by itself when a jack is the starter.")
            if c.heels_done:
                return ("his heels has already been pegged this hand",
                        "His heels is already pegged this hand.")
            if c.starter is not None and c.starter.rank != _JACK:
                return (f"the starter is {c.starter}, not a jack",
                        f"His heels is for a jack starter; the starter is the "
                        f"{c.starter.pretty}.")
            return ("his heels is pegged only when the starter is turned, before the play",
                    "His heels is pegged when the starter is turned, before the play.")
        if kind == "peg":
            if mode == "keeper":
                return ("pegging is over once the show has begun (enter a forgotten peg as a "
                        "late_peg)", "The play is over: to add a peg you forgot, enter it as "
                        "a late peg.")
            return ("in cards mode the play is pegged from the cards played",
                    "The play is pegged from the cards played.")
        if kind == "late_peg":
            if mode != "keeper":
                return ("in cards mode the play is pegged from the cards played",
                        "The play is pegged from the cards played.")
            return ("a late peg is entered during the show (in the play, peg as usual)",
                    "Peg it as usual: the play isn't over.")
        if kind == "starter":
            if c.starter is not None:
                return "the starter is already known", f"The starter is the {c.starter.pretty}."
            return "the play has begun", "The play has begun: the starter was missed."
        if kind in ("play", "go"):
            if mode == "keeper":
                return ("cards are played only in cards mode (peg the points instead)",
                        "Peg the points: this game is kept by points.")
            if c.starter is None:
                return "the starter must be entered first", "Turn the starter first."
            if kind == "go" and c.play is not None and not c.play.done:
                return self._why_not_go(act)
            if isinstance(act, Play) and c.play is not None and not c.play.done:
                return self._why_not_play(act)
            return "the play is over", "The play is over: count the hands."
        if kind == "count":
            if c.starter is None:
                return "the starter must be entered first", "Turn the starter first."
            if c.play is not None:
                return (f"the play is not finished: {c.play.describe()}",
                        "Finish the play before the counts.")
            return "not now", "Not now."
        return "not allowed now", "Not now."

    def _why_not_play(self, act: Play) -> tuple[str, str]:
        """No card of the player to play fits: the play's own refusal (out of turn, a card
        not held, past 31), or "say go"."""
        ps = self.core.play
        assert ps is not None and ps.to_play is not None
        try:
            self._check_player(act, act.player)
            ps.play(act.card, act.player)
        except IllegalPlayError as exc:
            return str(exc), exc.say
        who = self.config.names[ps.to_play]
        return (f"{who} has no card that fits under 31 ({ps.describe()}): say go",
                f"No card fits (the count is {ps.count}): say go.")

    def _why_not_go(self, act: Action) -> tuple[str, str]:
        ps = self.core.play
        assert ps is not None and ps.to_play is not None
        who = self.config.names[ps.to_play]
        if isinstance(act, Go) and act.player != ps.to_play:
            return (f"a go is not possible: it is {who}'s turn ({ps.describe()})",
                    f"It's {who}'s turn to play.")
        hand = ps.hands[ps.to_play]
        fits = [x for x in hand or () if x.pips <= 31 - ps.count]
        if fits:
            return (f"a go is not possible: {ps.describe()}; {who} holds {fits[0]}, which "
                    f"makes {ps.count + fits[0].pips}",
                    f"You can't say go: the {fits[0].pretty} fits "
                    f"(count {ps.count + fits[0].pips}).")
        return (f"a go is not possible: {ps.describe()}; any card fits under 31",
                f"You can't say go: the count is {ps.count}, so any card fits.")

    def _label(self, kind: str, player: int) -> str:
        return f"{self.config.names[player]}'s {kind}"

    def _message(self, act: Action, reason: str) -> str:
        return f"{action_text(act)} refused: {reason} ({self.describe()})"

    def _error(self, act: Action, reason: str, say: str | None = None) -> IllegalPlayError:
        if say is None:
            say = reason[:1].upper() + reason[1:] + "."
        return IllegalPlayError(self._message(act, reason), say=say)


def _number(n: int) -> str:
    return {1: "one", 2: "two", 3: "three"}.get(n, str(n))


def _is_index(value: Any, n: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n



__all__ = [
    "Config",
    "CountRecord",
    "GameTally",
    "HandTally",
    "Game",
    "MAX_PEG",
    "MODES",
    "Pegs",
    "Phase",
    "ResultKind",
    "SCORE_KINDS",
    "ScoreRecord",
    "ZERO_HAND",
    "possible_counts",
]
