"""A whole game of cribbage as an immutable state machine: `apply(state, action) -> state`.

Actions are JSON-ready dicts with a `type` (the vocabulary of docs/contracts.md):

| type | fields | when |
|---|---|---|
| `cut` | `cards` (one per player) | the lowest rank deals; a tie for lowest is refused |
| `dealer` | `player` | the first dealer, entered instead of a cut |
| `deal` | `hands` (a list per player), `crib` (cards dealt to the crib, three-player) | |
| `discard` | `player`, `cards` | each player lays away to the crib, in any order |
| `starter` | `card` | the starter, from the undealt cards; a jack is two for his heels |
| `play` / `go` | `player` [, `card`] | the play (see cribbage.play) |
| `count` | [`points` claimed] | the next count in show order (19 claims nothing) |
| `muggins` | `side` [, `points`] | right after a short count, with muggins on |
| `next_game` | | after a result: the loser deals first |

Randomness lives only in the helpers that make an action (`cut_action`, `deal_action`,
`starter_action`, `random_action`), from an injected `random.Random`.

Counting: a `count` without points pegs the true score. A claim above the true score is
refused. A claim below it pegs the claim when muggins is on (any other side may then claim the
difference with `muggins` before the next action); with muggins off the engine knows the cards
and pegs the true score, as a friendly table corrects a miscount.

The game ends the instant a side reaches the target (on heels, in the play or in the show); the
rest of the hand is not counted.
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cribbage.cards import ALL_CARDS, Card, Deck, Rank, check_distinct
from cribbage.errors import CribbageError, IllegalPlayError
from cribbage.play import PlayState
from cribbage.rules import Result, Rules, get_rules
from cribbage.scoring import score_hand


class Phase(enum.Enum):
    """What the game waits for."""

    CUT = "cut"
    DEAL = "deal"
    DISCARD = "discard"
    STARTER = "starter"
    PLAY = "play"
    SHOW = "show"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class CountRecord:
    """A count made in the show: what was claimed, what was pegged, what the cards held."""

    kind: str  # "hand" or "crib"
    player: int
    side: int
    claimed: int
    pegged: int
    true: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "side": self.side,
                "claimed": self.claimed, "pegged": self.pegged, "true": self.true}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CountRecord:
        return cls(str(d["kind"]), int(d["player"]), int(d["side"]), int(d["claimed"]),
                   int(d["pegged"]), int(d["true"]))


@dataclass(frozen=True, slots=True)
class Muggins:
    """Points a count missed, open to a claim by any side but `side` until the next action."""

    side: int
    points: int


@dataclass(frozen=True, slots=True)
class GameState:
    """The whole game. Start one with `GameState.new`."""

    rules: Rules
    names: tuple[str, ...]
    phase: Phase = Phase.CUT
    dealer: int | None = None
    hand_number: int = 0
    scores: tuple[int, ...] = ()  # front peg of each side
    backs: tuple[int, ...] = ()  # back peg of each side
    games_won: tuple[int, ...] = ()  # game points of each side in the match
    hands: tuple[tuple[Card, ...], ...] = ()  # each player's cards (kept hand after discard)
    discarded: tuple[bool, ...] = ()
    crib: tuple[Card, ...] = ()
    stock: tuple[Card, ...] = ()  # the undealt cards
    starter: Card | None = None
    play: PlayState | None = None
    show_index: int = 0
    last_count: CountRecord | None = None
    muggins: Muggins | None = None
    result: Result | None = None
    cut: tuple[Card, ...] = field(default=())

    # --- construction -------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        variant: str | Rules = "six-card",
        names: Sequence[str] | None = None,
        *,
        dealer: int | None = None,
        **options: Any,
    ) -> GameState:
        """A new game (a cut for deal is due unless `dealer` is given).

        Raises UnknownVariantError, InvalidOptionError, or IllegalPlayError for bad names.
        """
        rules = variant.with_options(**options) if isinstance(variant, Rules) else get_rules(
            variant, **options)
        if names is None:
            names = tuple(f"Player {i + 1}" for i in range(rules.players))
        names = tuple(str(n) for n in names)
        if len(names) != rules.players:
            raise IllegalPlayError(
                f"{rules.name} needs {rules.players} names, not {len(names)}: {list(names)}")
        k = len(rules.sides)
        state = cls(rules=rules, names=names, scores=(0,) * k, backs=(0,) * k,
                    games_won=(0,) * k)
        if dealer is not None:
            state = apply(state, {"type": "dealer", "player": dealer})
        return state

    # --- queries ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def show_order(self) -> list[tuple[str, int]]:
        """(kind, player) for each count: left of the dealer round to the dealer, then crib."""
        if self.dealer is None:
            return []
        n = self.players
        order = [("hand", (self.dealer + i) % n) for i in range(1, n + 1)]
        return order + [("crib", self.dealer)]

    @property
    def next_count(self) -> tuple[str, int] | None:
        if self.phase is not Phase.SHOW:
            return None
        return self.show_order[self.show_index]

    def side_of(self, player: int) -> int:
        return self.rules.side_of(player)

    def describe(self) -> str:
        """A short account of the state for error messages."""
        scores = ", ".join(
            f"{'+'.join(self.names[p] for p in members)} {self.scores[i]}"
            for i, members in enumerate(self.rules.sides))
        where = f"phase {self.phase.value}"
        if self.phase is Phase.PLAY and self.play is not None:
            where += f", {self.play.describe()}"
        if self.phase is Phase.SHOW:
            kind, p = self.show_order[self.show_index]
            where += f", {self._label(kind, p)} to count"
        dealer = "" if self.dealer is None else f", {self.names[self.dealer]} deals"
        return f"hand {self.hand_number}{dealer}, {where} ({scores})"

    def true_count(self) -> int:
        """The true score of the next count due; raises IllegalPlayError outside the show."""
        if self.phase is not Phase.SHOW or self.starter is None:
            raise IllegalPlayError(f"no count is due ({self.describe()})")
        kind, p = self.show_order[self.show_index]
        cards = self.crib if kind == "crib" else self.hands[p]
        return int(score_hand(cards, self.starter, crib=kind == "crib",
                              variant=self.rules.name).total)

    def cards_accounted(self) -> list[Card]:
        """Every card the state holds: hands, crib, starter and stock (52 once dealt)."""
        out = [c for h in self.hands for c in h] + list(self.crib) + list(self.stock)
        if self.starter is not None:
            out.append(self.starter)
        return out

    # --- JSON ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "names": list(self.names),
            "phase": self.phase.value,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "backs": list(self.backs),
            "games_won": list(self.games_won),
            "hands": [[str(c) for c in h] for h in self.hands],
            "discarded": list(self.discarded),
            "crib": [str(c) for c in self.crib],
            "stock": [str(c) for c in self.stock],
            "starter": None if self.starter is None else str(self.starter),
            "play": None if self.play is None else self.play.to_json(),
            "show_index": self.show_index,
            "last_count": None if self.last_count is None else self.last_count.to_json(),
            "muggins": None if self.muggins is None else
            {"side": self.muggins.side, "points": self.muggins.points},
            "result": None if self.result is None else self.result.to_json(),
            "cut": [str(c) for c in self.cut],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> GameState:
        """Rebuild a state from `to_json`; raises IllegalPlayError for a malformed record."""
        try:
            return cls(
                rules=Rules.from_json(d["rules"]),
                names=tuple(str(n) for n in d["names"]),
                phase=Phase(d["phase"]),
                dealer=None if d["dealer"] is None else int(d["dealer"]),
                hand_number=int(d["hand_number"]),
                scores=tuple(int(x) for x in d["scores"]),
                backs=tuple(int(x) for x in d["backs"]),
                games_won=tuple(int(x) for x in d["games_won"]),
                hands=tuple(tuple(Card.parse(c) for c in h) for h in d["hands"]),
                discarded=tuple(bool(x) for x in d["discarded"]),
                crib=tuple(Card.parse(c) for c in d["crib"]),
                stock=tuple(Card.parse(c) for c in d["stock"]),
                starter=None if d["starter"] is None else Card.parse(d["starter"]),
                play=None if d["play"] is None else PlayState.from_json(d["play"]),
                show_index=int(d["show_index"]),
                last_count=None if d["last_count"] is None else CountRecord.from_json(
                    d["last_count"]),
                muggins=None if d["muggins"] is None else Muggins(
                    int(d["muggins"]["side"]), int(d["muggins"]["points"])),
                result=None if d["result"] is None else Result.from_json(d["result"]),
                cut=tuple(Card.parse(c) for c in d["cut"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IllegalPlayError(f"not a game record: {exc}") from None

    # --- internals ----------------------------------------------------------------------

    def _label(self, kind: str, player: int) -> str:
        return f"{self.names[player]}'s {kind}"

    def _peg(self, side: int, points: int) -> GameState:
        """Peg points to a side; reaching the target ends the game at once."""
        if points <= 0 or self.phase is Phase.OVER:
            return self
        front = self.scores[side]
        state = replace(self, scores=_set(self.scores, side, front + points),
                        backs=_set(self.backs, side, front))
        result = state.rules.result(state.scores)
        if result is None:
            return state
        won = _set(state.games_won, result.winner,
                   state.games_won[result.winner] + result.game_points)
        return replace(state, phase=Phase.OVER, result=result, games_won=won, muggins=None)

    def _start_game(self, dealer: int) -> GameState:
        state = replace(self, dealer=dealer, phase=Phase.DEAL, hand_number=1)
        if self.rules.non_dealer_start:
            # Five-card: three for last to the non-dealer, to offset the first crib.
            state = state._peg(self.side_of(self.rules.left_of(dealer)),
                               self.rules.non_dealer_start)
        return state


# --- the machine ------------------------------------------------------------------------


def legal_actions(state: GameState) -> list[str]:
    """The action types allowed now."""
    out: list[str] = []
    if state.muggins is not None:
        out.append("muggins")
    phase = state.phase
    if phase is Phase.CUT:
        out += ["cut", "dealer"]
    elif phase is Phase.DEAL:
        out.append("deal")
    elif phase is Phase.DISCARD:
        out.append("discard")
    elif phase is Phase.STARTER:
        out.append("starter")
    elif phase is Phase.PLAY and state.play is not None:
        out += sorted({a["type"] for a in state.play.legal_actions()}, reverse=True)
    elif phase is Phase.SHOW:
        out.append("count")
    elif phase is Phase.OVER:
        out.append("next_game")
    return out


def legal_moves(state: GameState) -> list[dict[str, Any]]:
    """Every concrete action allowed now, except cuts and deals (made by `cut_action` and
    `deal_action` from a Random): discards, starters, plays, gos, counts (true and short
    claims when muggins is on), muggins claims, next_game."""
    out: list[dict[str, Any]] = []
    if state.muggins is not None:
        for side in range(len(state.rules.sides)):
            if side != state.muggins.side:
                out.append({"type": "muggins", "side": side})
    phase = state.phase
    if phase is Phase.DISCARD:
        for p in range(state.players):
            if not state.discarded[p]:
                for combo in itertools.combinations(state.hands[p], state.rules.discard):
                    out.append({"type": "discard", "player": p,
                                "cards": [str(c) for c in combo]})
    elif phase is Phase.STARTER:
        out += [{"type": "starter", "card": str(c)} for c in state.stock]
    elif phase is Phase.PLAY and state.play is not None:
        out += state.play.legal_actions()
    elif phase is Phase.SHOW:
        true = state.true_count()
        out.append({"type": "count"})
        if state.rules.muggins:
            out += [{"type": "count", "points": k} for k in range(true)]
    elif phase is Phase.OVER:
        out.append({"type": "next_game"})
    return out


def apply(state: GameState, action: Mapping[str, Any]) -> GameState:
    """The state after `action`; raises IllegalPlayError (or a card error) naming the action
    and the state, and `state` is unchanged."""
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        raise IllegalPlayError(
            f"not an action: {action!r} (it needs a 'type'; {state.describe()})")
    kind = action["type"]
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise IllegalPlayError(
            f"unknown action type {kind!r}; types are {', '.join(_HANDLERS)} "
            f"({state.describe()})")
    if kind not in legal_actions(state):
        raise IllegalPlayError(f"cannot {kind} now: {state.describe()}")
    try:
        new = handler(state, action)
    except KeyError as exc:
        raise IllegalPlayError(
            f"action {dict(action)!r} lacks field {exc} ({state.describe()})") from None
    except CribbageError as exc:
        # Every refusal names the action and the state; the error keeps its type.
        raise type(exc)(f"{kind} refused: {exc} ({state.describe()})") from None
    # Any action but a claim closes the window for muggins on the last count.
    if kind != "muggins" and state.muggins is not None and new.muggins is state.muggins:
        new = replace(new, muggins=None)
    return new


def _cut(state: GameState, action: Mapping[str, Any]) -> GameState:
    cards = _cards(action["cards"], "cut")
    check_distinct(cards)
    if len(cards) != state.players:
        raise IllegalPlayError(
            f"cut {' '.join(map(str, cards))}: {state.players} players cut one card each")
    low = min(c.rank for c in cards)
    lowest = [p for p, c in enumerate(cards) if c.rank == low]
    if len(lowest) > 1:
        names = " and ".join(state.names[p] for p in lowest)
        raise IllegalPlayError(f"cut {' '.join(map(str, cards))}: {names} tie low, cut again")
    return replace(state, cut=cards)._start_game(lowest[0])


def _dealer(state: GameState, action: Mapping[str, Any]) -> GameState:
    p = action["player"]
    if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < state.players:
        raise IllegalPlayError(f"dealer {p!r}: players are 0..{state.players - 1}")
    return state._start_game(p)


def _deal(state: GameState, action: Mapping[str, Any]) -> GameState:
    rules = state.rules
    raw = action["hands"]
    if not isinstance(raw, Sequence) or len(raw) != rules.players:
        raise IllegalPlayError(f"deal: {rules.players} hands are dealt, not {raw!r}")
    hands = tuple(_cards(h, "deal") for h in raw)
    crib = _cards(action.get("crib", ()), "deal")
    for p, h in enumerate(hands):
        if len(h) != rules.deal:
            raise IllegalPlayError(
                f"deal: {state.names[p]} gets {rules.deal} cards in {rules.name}, not {len(h)}")
    if len(crib) != rules.crib_from_deck:
        raise IllegalPlayError(
            f"deal: {rules.crib_from_deck} cards go to the crib in {rules.name}, not {len(crib)}")
    dealt = [c for h in hands for c in h] + list(crib)
    check_distinct(dealt)
    gone = set(dealt)
    stock = tuple(c for c in ALL_CARDS if c not in gone)
    return replace(state, phase=Phase.DISCARD, hands=hands, crib=crib, stock=stock,
                   discarded=(False,) * rules.players, starter=None, play=None,
                   show_index=0, last_count=None)


def _discard(state: GameState, action: Mapping[str, Any]) -> GameState:
    p = _player(state, action, "discard")
    cards = _cards(action["cards"], "discard")
    check_distinct(cards)
    n = state.rules.discard
    if state.discarded[p]:
        raise IllegalPlayError(f"{state.names[p]} has already discarded ({state.describe()})")
    if len(cards) != n:
        raise IllegalPlayError(
            f"{state.names[p]} cannot discard {' '.join(map(str, cards))}: "
            f"each player lays away {n} in {state.rules.name}")
    hand = state.hands[p]
    for c in cards:
        if c not in hand:
            raise IllegalPlayError(
                f"{state.names[p]} cannot discard {c}: {state.names[p]} holds "
                f"{' '.join(map(str, hand))}")
    kept = tuple(c for c in hand if c not in cards)
    new = replace(state, hands=_set(state.hands, p, kept), crib=state.crib + cards,
                  discarded=_set(state.discarded, p, True))
    if all(new.discarded):
        new = replace(new, phase=Phase.STARTER)
    return new


def _starter(state: GameState, action: Mapping[str, Any]) -> GameState:
    card = Card.parse(action["card"])
    if card not in state.stock:
        raise IllegalPlayError(f"starter {card}: it is not among the undealt cards")
    assert state.dealer is not None
    new = replace(state, starter=card, stock=tuple(c for c in state.stock if c != card),
                  phase=Phase.PLAY,
                  play=PlayState.for_rules(state.rules, state.hands, state.dealer,
                                           names=state.names, seen=[card]))
    if card.rank is Rank.JACK:  # a jack: two for his heels
        new = new._peg(new.side_of(state.dealer), 2)
    return new


def _play(state: GameState, action: Mapping[str, Any]) -> GameState:
    assert state.play is not None
    play = state.play.apply(action)
    new = replace(state, play=play)
    for event in play.log[len(state.play.log):]:
        new = new._peg(new.side_of(event.player), event.points)
    if new.phase is Phase.PLAY and play.done:
        new = replace(new, phase=Phase.SHOW, show_index=0)
    return new


def _count(state: GameState, action: Mapping[str, Any]) -> GameState:
    kind, p = state.show_order[state.show_index]
    true = state.true_count()
    claimed = action.get("points")
    label = state._label(kind, p)
    if claimed is None:
        claimed = true
    if not isinstance(claimed, int) or isinstance(claimed, bool) or claimed < 0:
        raise IllegalPlayError(f"count {claimed!r} for {label}: a count is a whole number")
    if claimed == 19:
        claimed = 0  # a "nineteen" is a hand worth nothing
    if claimed > true:
        raise IllegalPlayError(f"count {claimed} for {label}: the cards count {true}")
    pegged = claimed if state.rules.muggins else true
    side = state.side_of(p)
    record = CountRecord(kind, p, side, claimed, pegged, true)
    new = replace(state, last_count=record, muggins=None)._peg(side, pegged)
    if new.phase is Phase.OVER:
        return new
    if state.rules.muggins and pegged < true:
        new = replace(new, muggins=Muggins(side, true - pegged))
    if state.show_index + 1 < len(state.show_order):
        return replace(new, show_index=state.show_index + 1)
    assert state.dealer is not None
    return replace(new, phase=Phase.DEAL, dealer=state.rules.left_of(state.dealer),
                   hand_number=state.hand_number + 1, hands=(), crib=(), stock=(),
                   starter=None, play=None, discarded=(), show_index=0)


def _muggins(state: GameState, action: Mapping[str, Any]) -> GameState:
    assert state.muggins is not None
    side = action["side"]
    sides = len(state.rules.sides)
    if not isinstance(side, int) or isinstance(side, bool) or not 0 <= side < sides:
        raise IllegalPlayError(f"muggins for side {side!r}: sides are 0..{sides - 1}")
    if side == state.muggins.side:
        raise IllegalPlayError(f"muggins for side {side}: a side cannot claim its own count")
    points = action.get("points", state.muggins.points)
    if not isinstance(points, int) or isinstance(points, bool) or not (
            1 <= points <= state.muggins.points):
        raise IllegalPlayError(
            f"muggins for {points!r}: the count missed {state.muggins.points}")
    return replace(state, muggins=None)._peg(side, points)


def _next_game(state: GameState, action: Mapping[str, Any]) -> GameState:
    assert state.result is not None and state.dealer is not None
    rules = state.rules
    k = len(rules.sides)
    loser_side = state.result.loser
    # The loser deals; with partners, the loser's player next round from the last dealer.
    n = rules.players
    dealer = next(q for q in ((state.dealer + i) % n for i in range(1, n + 1))
                  if rules.side_of(q) == loser_side)
    fresh = replace(state, scores=(0,) * k, backs=(0,) * k, result=None, hands=(), crib=(),
                    stock=(), starter=None, play=None, discarded=(), show_index=0,
                    last_count=None, muggins=None, cut=())
    return fresh._start_game(dealer)


_HANDLERS = {
    "cut": _cut,
    "dealer": _dealer,
    "deal": _deal,
    "discard": _discard,
    "starter": _starter,
    "play": _play,
    "go": _play,
    "count": _count,
    "muggins": _muggins,
    "next_game": _next_game,
}


# --- helpers that make actions from a Random -------------------------------------------------


def cut_action(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A cut for deal: one card each from a shuffled pack, cut again while the lowest tie."""
    while True:
        cards = Deck.shuffled(rng).deal(state.players)
        low = min(c.rank for c in cards)
        if sum(c.rank == low for c in cards) == 1:
            return {"type": "cut", "cards": [str(c) for c in cards]}


def deal_action(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A deal from a pack shuffled by `rng`."""
    deck = Deck.shuffled(rng)
    rules = state.rules
    hands = [[str(c) for c in deck.deal(rules.deal)] for _ in range(rules.players)]
    crib = [str(c) for c in deck.deal(rules.crib_from_deck)]
    return {"type": "deal", "hands": hands, "crib": crib}


def starter_action(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A starter turned from the undealt cards; raises IllegalPlayError if none is due."""
    if state.phase is not Phase.STARTER:
        raise IllegalPlayError(f"no starter is due ({state.describe()})")
    return {"type": "starter", "card": str(rng.choice(state.stock))}


def random_action(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A legal action chosen by `rng` (uniformly among `legal_moves`, or a cut or deal)."""
    if state.phase is Phase.CUT:
        return cut_action(state, rng)
    if state.phase is Phase.DEAL and state.muggins is None:
        return deal_action(state, rng)
    moves = legal_moves(state)
    if state.phase is Phase.DEAL:
        moves.append(deal_action(state, rng))
    return rng.choice(moves)


def _player(state: GameState, action: Mapping[str, Any], what: str) -> int:
    p = action["player"]
    if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < state.players:
        raise IllegalPlayError(f"{what} by player {p!r}: players are 0..{state.players - 1}")
    return p


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise IllegalPlayError(f"{what}: cards must be a list, not {value!r}")
    return tuple(Card.parse(c) for c in value)


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1:]
