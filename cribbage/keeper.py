"""The scorekeeper: a game played with real cards, kept by entering points (or cards).

`Keeper` is an immutable value. `apply(action)` returns the next state; an illegal action
raises `IllegalPlayError` (or `ImpossibleScoreError`) naming the action and the state and
changes nothing. Every accepted action is kept, so `undo`/`redo` and a lossless JSON form
(config, the actions, the redo stack) come for free.

Two modes:
- "keeper": points are entered (pegging points, each count in show order, his heels).
  Counts and muggins claims are bounded by what a hand can make; pegging by what one card
  can score.
- "cards": the starter, each card played and each hand shown are entered; the play is run by
  `cribbage.play.PlayState` with unknown hands and counts by `score_hand`.

Choices (where tables differ):
- A side that reaches the target stops there: its front peg is put in the game hole
  (the target), and nothing more of the hand is counted.
- Muggins may be claimed by any other side, right after the count (before the next action);
  in keeper mode a claim must make the count a total some hand can make.
- In the next game of a match the loser deals; with partners, the losing side's player
  nearest the last dealer's left.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cribbage.cards import Card, check_distinct
from cribbage.errors import CribbageError, IllegalPlayError, ImpossibleScoreError
from cribbage.ranks import all_multisets, rank_points
from cribbage.rules import Result, ResultKind, Rules, get_rules

MODES = ("keeper", "cards")
ZERO_HAND = 19
"""A count of 19 is impossible, so tables say "nineteen" for a hand worth nothing."""

MAX_PEG = 15
"""The most one card can peg: a double pair royal (12) that makes fifteen (2), played last (1)."""

HEELS = 2
_JACK = 11
_FORMAT = "cribbage-keeper"
_FORMAT_VERSION = 1

# Fields of each action type, and which of them are required.
_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cut": (("cards",), ()),
    "dealer": (("player",), ()),
    "peg": (("side", "points"), ()),
    "heels": ((), ()),
    "starter": (("card",), ()),
    "play": (("player", "card"), ()),
    "go": (("player",), ()),
    "count": ((), ("points", "cards")),
    "muggins": (("side", "points"), ()),
    "undo": ((), ()),
    "redo": ((), ()),
    "next_game": ((), ()),
}
ACTION_TYPES: tuple[str, ...] = tuple(_FIELDS)


# ---- what a hand can count ---------------------------------------------------------------


@functools.cache
def possible_counts(cards: int, crib: bool) -> frozenset[int]:
    """Every total a hand (or crib) of `cards` cards can make with a starter.

    Fifteens, pairs and runs come from the ranks (every rank multiset); flush and nobs are
    added by which suit patterns the ranks allow: a flush needs distinct ranks (and a starter
    of a new rank to match it), nobs a jack in hand and a starter that is not a jack, and a
    hand of four jacks always holds the starter's jack.
    """
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
    text = gaps[0] if len(gaps) == 1 else ", ".join(gaps[:-1]) + " and " + gaps[-1]
    return f"0 to {top} except {text}"


# ---- state -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Config:
    """The options a kept game was started with."""

    variant: str
    names: tuple[str, ...]
    target: int
    skunk: str
    muggins: bool
    mode: str
    dealer: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "names": list(self.names),
            "target": self.target,
            "skunk": self.skunk,
            "muggins": self.muggins,
            "mode": self.mode,
            "dealer": self.dealer,
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
    true_total: int | None = None  # cards mode: what the cards really make
    breakdown: str | None = None  # cards mode: HandScore.to_json(), as JSON text
    cards: tuple[str, ...] = ()
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
class PlayNote:
    """Points pegged by the play engine, with the words a table says."""

    player: int
    points: int
    say: str


@dataclass(frozen=True, slots=True)
class Core:
    """The game state proper (everything but the undo/redo history)."""

    phase: str  # cut, play, show, over
    dealer: int | None
    fronts: tuple[int, ...]
    backs: tuple[int, ...]
    hand_number: int = 1
    game_number: int = 1
    show_index: int = 0
    play_started: bool = False
    heels_done: bool = False
    starter: str | None = None
    play: Any = None  # cards mode: cribbage.play.PlayState
    play_notes: tuple[PlayNote, ...] = ()
    shown: tuple[str, ...] = ()  # cards counted in this show
    last_count: CountRecord | None = None
    result: Result | None = None
    games_won: tuple[int, ...] = ()
    match_points: tuple[int, ...] = ()
    cut: tuple[str, ...] = ()
    records: tuple[ScoreRecord, ...] = ()  # every score of the match, in order


_Action = tuple[tuple[str, Any], ...]


def _freeze(action: Mapping[str, Any]) -> _Action:
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in action.items())


def _thaw(action: _Action) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in action}


@dataclass(frozen=True, slots=True)
class Keeper:
    """A kept game of cribbage (immutable). Build with `Keeper.new`, advance with `apply`."""

    config: Config
    rules: Rules = field(repr=False)
    core: Core
    past: tuple[tuple[_Action, Core], ...] = field(default=(), repr=False)
    redo_stack: tuple[_Action, ...] = field(default=(), repr=False)

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
    ) -> Keeper:
        """A new game; raises UnknownVariantError, InvalidOptionError or IllegalPlayError."""
        rules = get_rules(variant, target=target, skunk=skunk, muggins=muggins)
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise IllegalPlayError(f"names must be a list of {rules.players} names, not {names!r}")
        clean = tuple(n.strip() if isinstance(n, str) else n for n in names)
        if len(clean) != rules.players or not all(isinstance(n, str) and n for n in clean):
            raise IllegalPlayError(
                f"{variant} needs {rules.players} non-empty names, not {list(names)!r}")
        if mode not in MODES:
            raise IllegalPlayError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if dealer is not None and not _is_index(dealer, rules.players):
            raise IllegalPlayError(
                f"dealer must be a player 0..{rules.players - 1} or None, not {dealer!r}")
        config = Config(variant, clean, rules.target, rules.skunk.value, rules.muggins, mode,
                        dealer)
        n_sides = len(rules.sides)
        core = Core(phase="cut", dealer=None, fronts=(0,) * n_sides, backs=(0,) * n_sides,
                    games_won=(0,) * n_sides, match_points=(0,) * n_sides)
        keeper = cls(config, rules, core)
        if dealer is not None:
            keeper = replace(keeper, core=keeper._start_game(core, dealer))
        return keeper

    # --- public API -----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        return self.rules.sides

    @property
    def phase(self) -> str:
        return self.core.phase

    @property
    def scores(self) -> tuple[int, ...]:
        """The front peg of each side."""
        return self.core.fronts

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
    def turn(self) -> int | None:
        """The player the game waits for: in the play with cards, the player to lay a card or
        say go; in the show (and the play in keeper mode), the player whose count is due next;
        None before the deal is known and after the game."""
        c = self.core
        if c.phase not in ("play", "show"):
            return None
        if c.play is not None and not c.play.done and c.phase == "play":
            return int(c.play.to_play)
        nxt = self.next_count()
        return None if nxt is None else int(nxt["player"])

    @property
    def records(self) -> tuple[ScoreRecord, ...]:
        """Every score pegged in the match so far, in order (undone ones are gone)."""
        return self.core.records

    def game_records(self, game: int | None = None) -> tuple[ScoreRecord, ...]:
        """The scores of one game of the match (default: this one)."""
        game = self.core.game_number if game is None else game
        return tuple(r for r in self.core.records if r.game == game)

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

    def side_name(self, side: int) -> str:
        return " & ".join(self.config.names[p] for p in self.sides[side])

    def apply(self, action: Mapping[str, Any]) -> Keeper:
        """The state after `action`; raises IllegalPlayError naming the action and the state."""
        act = self._normalize(action)
        kind = act["type"]
        if kind == "undo":
            if not self.past:
                raise self._error(act, "there is nothing to undo")
            last, before = self.past[-1]
            return replace(self, core=before, past=self.past[:-1],
                           redo_stack=self.redo_stack + (last,))
        if kind == "redo":
            if not self.redo_stack:
                raise self._error(act, "there is nothing to redo")
            again = self.redo_stack[-1]
            core = self._step(_thaw(again))
            return replace(self, core=core, past=self.past + ((again, self.core),),
                           redo_stack=self.redo_stack[:-1])
        core = self._step(act)
        # The constructor, not replace(): the same Keeper, without re-reading every field.
        return type(self)(self.config, self.rules, core, self.past + ((_freeze(act), self.core),))

    def legal_actions(self) -> list[str]:
        """The action types allowed now."""
        c = self.core
        out: list[str] = []
        if c.phase == "cut":
            out += ["cut", "dealer"]
        elif c.phase == "over":
            out.append("next_game")
        elif self.config.mode == "keeper":
            if c.phase == "play":
                out.append("peg")
                if self._heels_allowed():
                    out.append("heels")
                if c.starter is None and not c.play_started:
                    out.append("starter")
            out.append("count")
        else:
            if c.phase == "play":
                if c.starter is None:
                    out.append("starter")
                elif c.play is not None and not c.play.done:
                    out.append("play")
                    if c.play.can_go():
                        out.append("go")
                else:
                    out.append("count")
            else:
                out.append("count")
        if c.phase in ("play", "show") and self._muggins_room() > 0:
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
        if self.core.phase not in ("play", "show"):
            return None
        entry = dict(order[self.core.show_index])
        del entry["done"]
        return entry

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
                "muggins_open": c.phase in ("play", "show") and self._muggins_room() > 0,
            }
        play = None
        if cfg.mode == "cards" and c.play is not None:
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
        order = self.show_order()
        return {
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
            "dealer": c.dealer,
            "crib_owner": c.dealer,
            "hand_number": c.hand_number,
            "game_number": c.game_number,
            "phase": c.phase,
            "starter": c.starter,
            "next_count": self._next_of(order),
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

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record: the options, every accepted action and the redo stack."""
        return {
            "format": _FORMAT,
            "version": _FORMAT_VERSION,
            "config": self.config.to_json(),
            "actions": [_thaw(a) for a, _ in self.past],
            "redo": [_thaw(a) for a in self.redo_stack],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Keeper:
        """Rebuild a keeper from `to_json` by replaying it; raises CribbageError if malformed."""
        try:
            if data.get("format") != _FORMAT or data.get("version") != _FORMAT_VERSION:
                raise IllegalPlayError(
                    f"not a keeper record (format {data.get('format')!r}, "
                    f"version {data.get('version')!r})")
            cfg = data["config"]
            keeper = cls.new(cfg["variant"], cfg["names"], target=cfg["target"],
                             skunk=cfg["skunk"], muggins=cfg["muggins"], mode=cfg["mode"],
                             dealer=cfg["dealer"])
            for i, action in enumerate(data["actions"]):
                if action.get("type") in ("undo", "redo"):
                    raise IllegalPlayError(f"action {i} of the record is an {action['type']}")
                keeper = keeper.apply(action)
            redo = []
            for action in data["redo"]:
                redo.append(_freeze(keeper._normalize(action)))
        except CribbageError:
            raise
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise IllegalPlayError(f"not a keeper record: {exc!r}") from None
        return replace(keeper, redo_stack=tuple(redo))

    def describe(self) -> str:
        """The state in a few words, for error messages."""
        c = self.core
        scores = ", ".join(f"{self.side_name(i)} {f}" for i, f in enumerate(c.fronts))
        if c.phase == "cut":
            return f"game {c.game_number}: the cut for deal is due; {scores}"
        if c.phase == "over":
            assert c.result is not None
            return (f"game {c.game_number} is over, {self.side_name(c.result.winner)} won "
                    f"({c.result.kind.value}); {scores}")
        dealer = self.config.names[c.dealer] if c.dealer is not None else "?"
        nxt = self.next_count()
        where = "the play" if c.phase == "play" else "the show"
        due = f", {nxt['label']} next" if nxt else ""
        return f"hand {c.hand_number}, {dealer} dealt, {where}{due}; {scores}"

    def __repr__(self) -> str:
        return f"<Keeper {self.config.variant} {self.config.mode}: {self.describe()}>"

    # --- the actions ----------------------------------------------------------------------

    def _step(self, act: dict[str, Any]) -> Core:
        kind = act["type"]
        c = self.core
        allowed = self.legal_actions()
        if kind not in allowed:
            raise self._error(act, self._why_not(kind))
        # Muggins must be called at once: any other action closes the last count.
        if kind != "muggins" and c.last_count is not None and c.last_count.open:
            c = replace(c, last_count=replace(c.last_count, open=False))
        return getattr(self, "_do_" + kind)(c, act)

    def _do_cut(self, c: Core, act: dict[str, Any]) -> Core:
        cards = act["cards"]
        low = min(Card.parse(x).rank for x in cards)
        lowest = [p for p, x in enumerate(cards) if Card.parse(x).rank == low]
        if len(lowest) > 1:
            who = " and ".join(self.config.names[p] for p in lowest)
            raise self._error(act, f"{who} tie for the lowest card; cut again")
        return self._start_game(replace(c, cut=tuple(cards)), lowest[0])

    def _do_dealer(self, c: Core, act: dict[str, Any]) -> Core:
        return self._start_game(c, act["player"])

    def _do_peg(self, c: Core, act: dict[str, Any]) -> Core:
        points = act["points"]
        if not 1 <= points <= MAX_PEG:
            raise ImpossibleScoreError(self._message(
                act, f"one card pegs 1 to {MAX_PEG} points in the play, not {points}"))
        if not c.play_started:
            c = replace(c, play_started=True)
        members = self.sides[act["side"]]
        return self._score(c, act["side"], points, "pegging",
                           members[0] if len(members) == 1 else None)

    def _do_heels(self, c: Core, act: dict[str, Any]) -> Core:
        assert c.dealer is not None
        c = replace(c, heels_done=True)
        return self._score(c, self.rules.side_of(c.dealer), HEELS, "heels", c.dealer)

    def _do_starter(self, c: Core, act: dict[str, Any]) -> Core:
        assert c.dealer is not None
        card = Card.parse(act["card"])
        c = replace(c, starter=str(card))
        if self.config.mode == "cards":
            from cribbage.play import PlayState

            ps = PlayState.for_rules(self.rules, [None] * self.players, c.dealer,
                                     names=self.config.names, seen=[card])
            c = replace(c, play=ps)
        if card.rank == _JACK:
            # Two for his heels, pegged at once: it can end the game before a card is played.
            c = self._score(replace(c, heels_done=True), self.rules.side_of(c.dealer), HEELS,
                            "heels", c.dealer)
        return c

    def _do_play(self, c: Core, act: dict[str, Any]) -> Core:
        return self._play_step(c, act)

    def _do_go(self, c: Core, act: dict[str, Any]) -> Core:
        return self._play_step(c, act)

    def _play_step(self, c: Core, act: dict[str, Any]) -> Core:
        from cribbage.pegscore import score_pegging

        ps = c.play
        try:
            new = ps.apply(act)
        except CribbageError as exc:
            raise IllegalPlayError(self._message(act, str(exc))) from None
        c = replace(c, play=new, play_started=True)
        for event in new.log[len(ps.log):]:
            if not event.points:
                continue
            if event.kind == "play":
                say = score_pegging(ps.series + (event.card,)).say()
            else:
                say = "thirty-one for two" if event.count == 31 else "one for last"
            c = replace(c, play_notes=c.play_notes + (PlayNote(event.player, event.points, say),))
            c = self._score(c, self.rules.side_of(event.player), event.points, "pegging",
                            event.player)
            if c.phase == "over":
                break
        return c

    def _do_count(self, c: Core, act: dict[str, Any]) -> Core:
        entry = self.show_order()[c.show_index]
        kind, player, side, label = entry["kind"], entry["player"], entry["side"], entry["label"]
        if self.config.mode == "keeper":
            if "cards" in act:
                raise self._error(act, "in keeper mode a count is its points, not cards")
            if "points" not in act:
                raise self._error(act, "a count needs its points")
            points = self._check_count(act, act["points"], kind, label)
            record = CountRecord(kind, player, side, label, points)
        else:
            record = self._count_cards(c, act, kind, player, side, label)
            c = replace(c, shown=c.shown + record.cards)
        c = replace(c, last_count=record, phase="show", play_started=True)
        c = self._score(c, side, record.points, kind, player)
        if record.points:
            if c.phase == "over":
                return replace(c, show_index=c.show_index + 1)
        c = replace(c, show_index=c.show_index + 1)
        if c.show_index > self.players:
            c = self._next_hand(c)
        return c

    def _count_cards(self, c: Core, act: dict[str, Any], kind: str, player: int, side: int,
                     label: str) -> CountRecord:
        from cribbage.scoring import score_hand

        ps = c.play
        assert ps is not None and c.starter is not None
        size = self.rules.crib_size if kind == "crib" else self.rules.hand_size
        played_own = [str(x) for x in ps.played_by(player)] if kind == "hand" else []
        if "cards" in act:
            cards = list(act["cards"])
        elif len(played_own) == size:
            cards = played_own  # every card of the hand was seen in the play
        else:
            raise self._error(act, f"{label} needs its {size} cards")
        parsed = [Card.parse(x) for x in cards]
        if len(parsed) != size:
            raise self._error(act, f"{label} has {size} cards, not {len(parsed)}")
        try:
            check_distinct(parsed)
        except CribbageError as exc:
            raise self._error(act, str(exc)) from None
        cards = [str(x) for x in parsed]
        played_by = {str(x): p for p, x in ps.played}
        for x in cards:
            if x == c.starter:
                raise self._error(act, f"{x} is the starter, so it cannot be in {label}")
            owner = played_by.get(x)
            if owner is not None and (kind == "crib" or owner != player):
                raise self._error(act, f"{x} was played by {self.config.names[owner]}")
            if x in c.shown:
                raise self._error(act, f"{x} was already shown in this hand")
        missing = [x for x in played_own if x not in cards]
        if missing:
            raise self._error(act, f"{missing[0]} was played by {self.config.names[player]}, "
                              f"so it must be in {label}")
        score = score_hand(parsed, Card.parse(c.starter), crib=kind == "crib",
                           variant=self.config.variant)
        true_total = int(score.total)
        points = true_total
        if "points" in act:
            claim = act["points"]
            claim = 0 if claim == ZERO_HAND else claim
            if not 0 <= claim <= true_total:
                raise ImpossibleScoreError(self._message(
                    act, f"{label} makes {true_total}, so it cannot be counted as {claim}"))
            if claim != true_total and not self.config.muggins:
                raise self._error(act, f"{label} makes {true_total}, not {claim} (muggins is "
                                  "off: leave the points out to peg the true count)")
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
                           json.dumps(score.to_json()), tuple(cards), notes)

    def _do_muggins(self, c: Core, act: dict[str, Any]) -> Core:
        lc = c.last_count
        assert lc is not None
        side, points = act["side"], act["points"]
        if side == lc.side:
            raise self._error(act, f"muggins is called by an opponent of "
                              f"{self.side_name(lc.side)}, who made the count")
        if points < 1:
            raise ImpossibleScoreError(self._message(act, f"muggins takes 1 point or more, "
                                                     f"not {points}"))
        counted = lc.points + lc.claimed
        if lc.true_total is not None:
            if points > (lc.missed or 0):
                raise ImpossibleScoreError(self._message(
                    act, f"{lc.label} made {lc.true_total} and {counted} are accounted for, so "
                    f"only {lc.missed} can be claimed"))
        else:
            totals = self._totals(lc.kind)
            if counted + points not in totals:
                raise ImpossibleScoreError(self._message(
                    act, f"{lc.label} counted {counted} and no {lc.kind} makes "
                    f"{counted + points} ({_describe_totals(totals)})"))
        c = replace(c, last_count=replace(lc, claimed=lc.claimed + points))
        members = self.sides[side]
        return self._score(c, side, points, "muggins", members[0] if len(members) == 1 else None)

    def _do_next_game(self, c: Core, act: dict[str, Any]) -> Core:
        result = c.result
        assert result is not None and c.dealer is not None
        n = self.players
        losers = self.sides[result.loser]
        dealer = next(p for p in [(c.dealer + k) % n for k in range(1, n + 1)] if p in losers)
        fresh = Core(phase="play", dealer=None, fronts=(0,) * len(self.sides),
                     backs=(0,) * len(self.sides), game_number=c.game_number + 1,
                     games_won=c.games_won, match_points=c.match_points, records=c.records)
        return self._start_game(fresh, dealer)

    # --- helpers --------------------------------------------------------------------------

    def _start_game(self, c: Core, dealer: int) -> Core:
        c = replace(c, phase="play", dealer=dealer, hand_number=1, show_index=0)
        if self.rules.non_dealer_start:
            # Five-card: the first non-dealer pegs three for last at the start of each game.
            pone = self.rules.left_of(dealer)
            c = self._score(c, self.rules.side_of(pone), self.rules.non_dealer_start, "start",
                            pone)
        return c

    def _next_hand(self, c: Core) -> Core:
        assert c.dealer is not None
        return replace(c, phase="play", dealer=self.rules.left_of(c.dealer),
                       hand_number=c.hand_number + 1, show_index=0, play_started=False,
                       heels_done=False, starter=None, play=None, play_notes=(), shown=())

    def _score(self, c: Core, side: int, points: int, kind: str,
               player: int | None = None) -> Core:
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
        c = replace(c, fronts=_set(c.fronts, side, front),
                    backs=_set(c.backs, side, c.fronts[side]), records=c.records + (rec,))
        if front >= target:
            result = self.rules.result(c.fronts)
            assert result is not None
            c = replace(
                c, phase="over", result=result,
                games_won=_set(c.games_won, result.winner, c.games_won[result.winner] + 1),
                match_points=_set(c.match_points, result.winner,
                                  c.match_points[result.winner] + result.game_points),
            )
        return c

    def _totals(self, kind: str) -> frozenset[int]:
        size = self.rules.crib_size if kind == "crib" else self.rules.hand_size
        return possible_counts(size, kind == "crib")

    def _check_count(self, act: dict[str, Any], points: int, kind: str, label: str) -> int:
        totals = self._totals(kind)
        if points == ZERO_HAND:
            return 0
        if points not in totals:
            raise ImpossibleScoreError(self._message(
                act, f"{label} cannot count {points}: no {self.config.variant} {kind} makes "
                f"{points} ({_describe_totals(totals)}; 19 means nothing)"))
        return points

    def _heels_allowed(self) -> bool:
        c = self.core
        return (c.phase == "play" and not c.heels_done and not c.play_started
                and (c.starter is None or c.starter.startswith("J")))

    def _muggins_room(self) -> int:
        """How many more points muggins could claim on the last count (0: none)."""
        lc = self.core.last_count
        if not self.config.muggins or lc is None or not lc.open:
            return 0
        if lc.true_total is not None:
            return lc.missed or 0
        counted = lc.points + lc.claimed
        return max((t for t in self._totals(lc.kind) if t > counted), default=counted) - counted

    def _why_not(self, kind: str) -> str:
        c = self.core
        mode = self.config.mode
        if c.phase == "cut" and kind not in ("undo", "redo"):
            return "the dealer is not known yet (cut for deal or enter the dealer)"
        if c.phase == "over" and kind not in ("undo", "redo"):
            return "the game is over (start the next game or undo)"
        reasons = {
            "cut": "the dealer is already set",
            "dealer": "the dealer is already set",
            "next_game": "the game is not over",
            "undo": "there is nothing to undo",
            "redo": "there is nothing to redo",
            "muggins": ("muggins is off" if not self.config.muggins else
                        "there is no count whose missed points can be claimed now"),
        }
        if kind in reasons:
            return reasons[kind]
        if kind == "heels":
            if mode == "cards":
                return "in cards mode his heels is pegged when a jack is entered as starter"
            if c.heels_done:
                return "his heels has already been pegged this hand"
            if c.starter is not None and Card.parse(c.starter).rank != _JACK:
                return f"the starter is {c.starter}, not a jack"
            return "his heels is pegged only when the starter is turned, before the play"
        if kind == "peg":
            if mode == "cards":
                return "in cards mode the play is pegged from the cards played"
            return "pegging is over once the show has begun"
        if kind == "starter":
            return "the starter is already known" if c.starter else "the play has begun"
        if kind in ("play", "go"):
            if mode == "keeper":
                return "cards are played only in cards mode (peg the points instead)"
            if c.starter is None:
                return "the starter must be entered first"
            if kind == "go" and c.play is not None and not c.play.done:
                return f"a go is not possible: {c.play.describe()}"
            return "the play is over"
        if kind == "count":
            if c.starter is None:
                return "the starter must be entered first"
            return f"the play is not finished: {c.play.describe()}" if c.play else "not now"
        return "not allowed now"

    def _label(self, kind: str, player: int) -> str:
        return f"{self.config.names[player]}'s {kind}"

    def _message(self, act: Mapping[str, Any], reason: str) -> str:
        return f"{_action_text(act)} refused: {reason} ({self.describe()})"

    def _error(self, act: Mapping[str, Any], reason: str) -> IllegalPlayError:
        return IllegalPlayError(self._message(act, reason))

    def _normalize(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """Check an action's shape and values; returns a clean dict; raises IllegalPlayError."""
        if not isinstance(action, Mapping):
            raise IllegalPlayError(f"an action is a dict with a 'type', not {action!r} "
                                   f"({self.describe()})")
        kind = action.get("type")
        if kind not in _FIELDS:
            raise IllegalPlayError(f"unknown action type {kind!r}; the types are "
                                   f"{', '.join(ACTION_TYPES)} ({self.describe()})")
        required, optional = _FIELDS[kind]
        extra = sorted(set(action) - set(required) - set(optional) - {"type"})
        if extra:
            raise self._error(action, f"unknown field {extra[0]!r} for {kind}")
        missing = [k for k in required if k not in action]
        if missing:
            raise self._error(action, f"{kind} needs {missing[0]!r}")
        out: dict[str, Any] = {"type": kind}
        for key in required + optional:
            if key not in action:
                continue
            value = action[key]
            if key in ("side",):
                if not _is_index(value, len(self.sides)):
                    raise self._error(action, f"no side {value!r} (sides are 0.."
                                      f"{len(self.sides) - 1})")
            elif key == "player":
                if not _is_index(value, self.players):
                    raise self._error(action, f"no player {value!r} (players are 0.."
                                      f"{self.players - 1})")
            elif key == "points":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise self._error(action, f"points must be a whole number, not {value!r}")
                if value < 0:
                    raise ImpossibleScoreError(self._message(
                        action, f"points cannot be negative ({value})"))
            elif key == "card":
                value = self._card(action, value)
            elif key == "cards":
                if isinstance(value, str) or not isinstance(value, Sequence):
                    raise self._error(action, f"cards must be a list, not {value!r}")
                value = [self._card(action, x) for x in value]
                try:
                    check_distinct([Card.parse(x) for x in value])
                except CribbageError as exc:
                    raise self._error(action, str(exc)) from None
                if kind == "cut" and len(value) != self.players:
                    raise self._error(action, f"a cut needs one card per player "
                                      f"({self.players}), not {len(value)}")
            out[key] = value
        return out

    def _card(self, action: Mapping[str, Any], value: Any) -> str:
        try:
            return str(Card.parse(value))
        except CribbageError as exc:
            raise self._error(action, str(exc)) from None


def _action_text(act: Mapping[str, Any]) -> str:
    kind = act.get("type")
    fields = ", ".join(f"{k}={v!r}" for k, v in act.items() if k != "type")
    return f"action {kind}" + (f" ({fields})" if fields else "")


def _is_index(value: Any, n: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1:]


__all__ = [
    "ACTION_TYPES",
    "Config",
    "CountRecord",
    "Keeper",
    "MAX_PEG",
    "MODES",
    "Pegs",
    "ResultKind",
    "SCORE_KINDS",
    "ScoreRecord",
    "ZERO_HAND",
    "possible_counts",
]
