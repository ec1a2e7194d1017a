"""Why an action is refused now: the one decision `why_not`, `step` and the legal actions
come from.

`refusal(table, state, action)` answers completely (python-chess's `is_legal`): the action's
type against the phase and the mode, then every value (a player or side in range, cards not
given twice, a card held, a count some hand makes, a claim the cards allow). `Game.step` runs
it once and the handlers trust what passed. `kind_refusal` answers for a type alone, and
`legal_kinds` asks it for every type at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cribbage.actions import (
    Action,
    Count,
    Cut,
    Deal,
    Dealer,
    Discard,
    Go,
    LatePeg,
    Muggins,
    Peg,
    Play,
    Starter,
)
from cribbage.cards import Card
from cribbage.counts import describe_totals, say_impossible
from cribbage.errors import IllegalPlayError, ImpossibleScoreError, InvalidActionError
from cribbage.game.state import MAX_PEG, MUGGINS_PHASES, Core, Phase
from cribbage.game.table import Refusal, Table, refused
from cribbage.rules import CutRule

REFUSED = Refusal("not allowed now", "Not now.")
"""Any refusal, when only whether is asked (`legal_actions`), not why."""

ORDER = ("cut", "dealer", "next_game", "deal", "discard", "peg", "late_peg", "heels",
         "starter", "play", "go", "count", "muggins", "undo", "redo")
"""Every action type, in the order `legal_actions` lists them."""

NOTHING_TO = {"undo": Refusal("there is nothing to undo", "There's nothing to undo."),
              "redo": Refusal("there is nothing to redo", "There's nothing to redo.")}
_DEALER_SET = Refusal("the dealer is already set", "The dealer is already chosen.")
_NOT_OVER = Refusal("the game is not over", "The game isn't over yet.")
_MUGGINS_OFF = Refusal("muggins is off", "Muggins isn't played in this game.")
_NO_MISSED_POINTS = Refusal("there is no count whose missed points can be claimed now",
                            "Muggins is called right after a count that missed points.")
_PLAY_OVER = Refusal("the play is over", "The play is over: count the hands.")
_NO_STARTER = Refusal("the starter must be entered first", "Turn the starter first.")
_PHASE_DUE = {
    Phase.CUT: ("cut", "dealer"),
    Phase.OVER: ("next_game",),
    Phase.DEAL: ("deal",),
    Phase.DISCARD: ("discard",),
}
_PLAY_KINDS = ("peg", "late_peg", "heels", "starter", "play", "go", "count")
"""The types the mode decides, in the play and the show."""


def refusal(table: Table, c: Core, act: Action, *, undo: bool = False,
            redo: bool = False) -> Refusal | None:
    """Why `act` is refused in state `c` (`undo`, `redo`: whether there is anything to undo
    or redo), or None: then `step` accepts it."""
    kind = act.type
    if kind in NOTHING_TO:
        return None if (undo if kind == "undo" else redo) else NOTHING_TO[kind]
    found = kind_refusal(table, c, kind, act)
    if found is not None:
        return found
    check = _VALUES.get(kind)
    return None if check is None else check(table, c, act)


def legal_kinds(table: Table, c: Core, *, undo: bool, redo: bool) -> list[str]:
    """Every action type `kind_refusal` lets through now, in `ORDER`: the same decisions asked
    in bulk (the phase's own types, the mode's refusals in the play and the show, then
    muggins, undo and redo; a test checks it equals asking about each)."""
    due = _PHASE_DUE.get(c.phase)
    if due is None:
        refused = table.strategy.refusal
        out = [k for k in _PLAY_KINDS if refused(table, c, k, None, False) is None]
    else:
        out = list(due)
    if c.phase in MUGGINS_PHASES and muggins_room(table, c) > 0:
        out.append("muggins")
    if undo:
        out.append("undo")
    if redo:
        out.append("redo")
    return out


def kind_refusal(table: Table, c: Core, kind: str, act: Action | None = None) -> Refusal | None:
    """Why an action of type `kind` (undo and redo aside) is refused now whatever its values,
    or None (given the action, a refusal may be in its own words)."""
    if kind == "muggins" and c.phase in MUGGINS_PHASES and muggins_room(table, c) > 0:
        return None
    due = _PHASE_DUE.get(c.phase)
    if due is not None:
        return None if kind in due else _phase_refusal(table, c)
    if kind in ("cut", "dealer"):
        return _DEALER_SET
    if kind == "next_game":
        return _NOT_OVER
    if kind == "deal":
        return table.strategy.deal_refusal
    if kind == "discard":
        return table.strategy.discard_refusal
    if kind == "muggins":
        return _MUGGINS_OFF if not table.config.muggins else _NO_MISSED_POINTS
    if kind not in _PLAY_KINDS:
        raise ValueError(f"no action type {kind!r}")
    return table.strategy.refusal(table, c, kind, act, True)


def muggins_room(table: Table, c: Core) -> int:
    """How many more points muggins could claim on the last count (0: none)."""
    lc = c.last_count
    if not table.config.muggins or lc is None or not lc.open:
        return 0
    if lc.true_total is not None:
        return lc.missed or 0
    counted = lc.points + lc.claimed
    return max((t for t in table.totals(lc.kind) if t > counted), default=counted) - counted


def _phase_refusal(table: Table, c: Core) -> Refusal:
    """What the game waits for, when it is not the action asked for."""
    if c.phase is Phase.CUT:
        return Refusal("the dealer is not known yet (cut for deal or enter the dealer)",
                       "Cut for deal first, or say who deals.")
    if c.phase is Phase.OVER:
        assert c.result is not None
        return Refusal("the game is over (start the next game or undo)",
                       f"The game is over: {table.side_name(c.result.winner)} won. Start the "
                       "next game, or undo.")
    if c.phase is Phase.DEAL:
        return Refusal("the deal is due", "Deal the cards first.")
    return Refusal("the discard to the crib is due", "Lay away to the crib first.")


# ---- the play with cards ------------------------------------------------------------------


def card_play_refusal(table: Table, c: Core, kind: str, act: Action | None,
                      explain: bool = True) -> Refusal | None:
    """A card laid or a go, in the modes where cards are entered."""
    ps = c.play
    if c.starter is None:
        return _NO_STARTER
    if c.phase is not Phase.PLAY or ps is None or ps.done:
        return _PLAY_OVER
    if kind == "play":
        if ps.can_play():
            return None
        return _why_not_play(table, c, act) if explain else REFUSED
    if ps.can_go():
        return None
    return _why_not_go(table, c, act) if explain else REFUSED


def _why_not_play(table: Table, c: Core, act: Action | None) -> Refusal:
    """No card of the player to play fits: the play's own refusal (out of turn, a card
    not held, past 31), or "say go"."""
    ps = c.play
    assert ps is not None and ps.to_play is not None
    if isinstance(act, Play):
        found = _play(table, c, act)
        if found is not None:
            return found
    who = table.names[ps.to_play]
    return Refusal(f"{who} has no card that fits under 31 ({ps.describe()}): say go",
                   f"No card fits (the count is {ps.count}): say go.")


def _why_not_go(table: Table, c: Core, act: Action | None) -> Refusal:
    ps = c.play
    assert ps is not None and ps.to_play is not None
    who = table.names[ps.to_play]
    if isinstance(act, Go) and act.player != ps.to_play:
        return Refusal(f"a go is not possible: it is {who}'s turn ({ps.describe()})",
                       f"It's {who}'s turn to play.")
    hand = ps.hands[ps.to_play]
    fits = [x for x in hand or () if x.pips <= 31 - ps.count]
    if fits:
        return Refusal(f"a go is not possible: {ps.describe()}; {who} holds {fits[0]}, which "
                       f"makes {ps.count + fits[0].pips}",
                       f"You can't say go: the {fits[0].pretty} fits "
                       f"(count {ps.count + fits[0].pips}).")
    return Refusal(f"a go is not possible: {ps.describe()}; any card fits under 31",
                   f"You can't say go: the count is {ps.count}, so any card fits.")


def _play(table: Table, c: Core, act: Play) -> Refusal | None:
    assert c.play is not None
    return table.player_refusal(act.player) or _from_play(c.play.why_not_play(act.card,
                                                                              act.player))


def _go(table: Table, c: Core, act: Go) -> Refusal | None:
    assert c.play is not None
    return table.player_refusal(act.player) or _from_play(c.play.why_not_go(act.player))


def _from_play(exc: IllegalPlayError | None) -> Refusal | None:
    return None if exc is None else Refusal(str(exc), exc.say)


# ---- the values of each type --------------------------------------------------------------


def cut_winners(table: Table, cards: tuple[Card, ...]) -> list[int]:
    """The players whose cut card wins the deal (more than one: a tie)."""
    high = table.rules.cut is CutRule.HIGH
    best = (max if high else min)(x.rank for x in cards)
    return [p for p, x in enumerate(cards) if x.rank == best]


def _cut(table: Table, c: Core, act: Cut) -> Refusal | None:
    n, cards = table.players, act.cards
    if len(cards) != n:
        return Refusal(f"a cut needs one card per player ({n}), not {len(cards)}",
                       f"Each of the {n} players cuts one card.")
    found = table.cards_refusal(cards)
    if found is not None:
        return found
    winners = cut_winners(table, cards)
    if len(winners) == 1:
        return None
    who = " and ".join(table.names[p] for p in winners)
    top = "highest" if table.rules.cut is CutRule.HIGH else "lowest"
    return Refusal(f"{who} tie for the {top} card; cut again",
                   f"{who} tie for the {top} card: cut again.")


def _dealer(table: Table, c: Core, act: Dealer) -> Refusal | None:
    return table.player_refusal(act.player)


def _deal(table: Table, c: Core, act: Deal) -> Refusal | None:
    rules = table.rules
    if len(act.hands) != rules.players:
        return refused(f"{rules.players} hands are dealt, not {len(act.hands)}")
    for p, hand in enumerate(act.hands):
        if len(hand) != rules.deal:
            return refused(f"{table.names[p]} gets {rules.deal} cards in {rules.name}, "
                         f"not {len(hand)}")
    if len(act.crib) != rules.crib_from_deck:
        return refused(f"{rules.crib_from_deck} cards go to the crib in {rules.name}, "
                     f"not {len(act.crib)}")
    return table.cards_refusal([x for h in act.hands for x in h] + list(act.crib))


def _discard(table: Table, c: Core, act: Discard) -> Refusal | None:
    p = act.player
    found = table.player_refusal(p) or table.cards_refusal(act.cards)
    if found is not None:
        return found
    who = table.names[p]
    if c.discarded[p]:
        return Refusal(f"{who} has already discarded",
                       f"{who} has already laid away to the crib.")
    n = table.rules.discard
    if len(act.cards) != n:
        return Refusal(f"each player lays away {n} in {table.rules.name}",
                       f"Each player lays away {n} to the crib.")
    hand = c.hands[p]
    for x in act.cards:
        if x not in hand:
            return Refusal(f"{who} cannot discard {x}: {who} holds {' '.join(map(str, hand))}",
                           f"{who} doesn't hold the {x.pretty}.")
    return None


def _peg(table: Table, c: Core, act: Peg | LatePeg) -> Refusal | None:
    found = table.side_refusal(act.side)
    if found is not None or 1 <= act.points <= MAX_PEG:
        return found
    return Refusal(f"one card pegs 1 to {MAX_PEG} points in the play, not {act.points}",
                   f"One card pegs 1 to {MAX_PEG} in the play, not {act.points}.",
                   ImpossibleScoreError)


def _starter(table: Table, c: Core, act: Starter) -> Refusal | None:
    return table.strategy.starter_refusal(table, c, act)


def _count(table: Table, c: Core, act: Count) -> Refusal | None:
    if act.nineteens is not None:
        found = _nineteens(table, c, act.nineteens)
        if found is not None:
            return found
        c = replace(c, show_index=c.show_index + act.nineteens)
    if act.with_crib:
        found = with_crib_refusal(table, c)
        if found is not None:
            return found
    return table.strategy.count_refusal(table, c, act, table.count_entry(c, act.with_crib))


def with_crib_refusal(table: Table, c: Core) -> Refusal | None:
    """Why the count due cannot be counted with the crib as one total, or None: only the
    dealer's hand, the count before the crib, in a game kept by points with muggins off (no
    other side scores between the two, so the total changes no one's win)."""
    if not table.strategy.takes_hand_and_crib:
        return Refusal("only a game kept by points counts the dealer's hand and crib as one "
                       "total (enter each count)", "Enter the hand and the crib in turn.")
    if table.config.muggins:
        return Refusal("with muggins on the hand and the crib are counted in turn (a miss "
                       "in either can be called)",
                       "Count the hand and the crib in turn: muggins is on.")
    entry = table.count_due(c)
    if c.show_index != table.players - 1:
        dealer = table.names[c.dealer] if c.dealer is not None else "the dealer"
        return Refusal(f"{entry['label']} is due, and only the dealer's hand ({dealer}'s) is "
                       "counted with the crib",
                       f"Only {dealer}'s hand is counted with the crib; {entry['label']} is "
                       "due now.")
    return None


def _nineteens(table: Table, c: Core, n: int) -> Refusal | None:
    """Why the `n` counts due before this one cannot be taken as nothing, or None."""
    if not table.strategy.takes_nineteens:
        return Refusal("only a game kept by points takes the counts before this one as "
                       "nothing (enter each count)", "Enter each count in turn.")
    if table.config.muggins:
        return Refusal("with muggins on each count is entered in turn (a nothing can be "
                       "called)", "Enter each count in turn: muggins is on.")
    if n < 1:
        return Refusal(f"nineteens is 1 or more, not {n}",
                       "Say how many counts were nothing.", InvalidActionError)
    left = table.players - c.show_index  # the counts after the one due, the crib last
    if n > left:
        label = table.count_due(c)["label"]
        return Refusal(f"{left} count{'s' if left != 1 else ''} follow {label}, so "
                       f"{n} cannot be nothing before this one",
                       f"Only {left} count{'s' if left != 1 else ''} come after {label}."
                       if left else f"{label} is the last count.")
    return None


def _muggins(table: Table, c: Core, act: Muggins) -> Refusal | None:
    lc = c.last_count
    assert lc is not None
    found = table.side_refusal(act.side)
    if found is not None:
        return found
    if act.side == lc.side:
        who = table.side_name(lc.side)
        return Refusal(f"muggins is called by an opponent of {who}, who made the count",
                       f"Only an opponent can call muggins on {who}'s count.")
    if act.points is None:
        if lc.true_total is None:
            return Refusal("muggins needs its points", "Enter the points muggins takes.",
                           InvalidActionError)
        return None  # what the cards missed
    points, counted = act.points, lc.points + lc.claimed
    if points < 1:
        return Refusal(f"muggins takes 1 point or more, not {points}",
                       "Muggins takes 1 point or more.", ImpossibleScoreError)
    if lc.true_total is not None:
        if points <= (lc.missed or 0):
            return None
        return Refusal(f"{lc.label} made {lc.true_total} and {counted} are accounted for, so "
                       f"only {lc.missed} can be claimed", f"{lc.label} missed only {lc.missed}.",
                       ImpossibleScoreError)
    totals = table.totals(lc.kind)
    if counted + points in totals:
        return None
    return Refusal(f"{lc.label} counted {counted} and no {lc.kind} makes {counted + points} "
                   f"({describe_totals(totals)})",
                   f"Muggins of {points} on {lc.label} makes {counted} + {points} = "
                   f"{counted + points}, and {say_impossible(counted + points, lc.kind, totals)}",
                   ImpossibleScoreError)


_VALUES: dict[str, Callable[[Table, Core, Any], Refusal | None]] = {
    "cut": _cut, "dealer": _dealer, "deal": _deal, "discard": _discard, "peg": _peg,
    "late_peg": _peg, "starter": _starter, "play": _play, "go": _go, "count": _count,
    "muggins": _muggins,
}
"""The value checks of each type, once the type is allowed now (heels, next_game, undo and
redo have no values)."""


__all__ = ["NOTHING_TO", "ORDER", "REFUSED", "Refusal", "card_play_refusal", "cut_winners",
           "kind_refusal", "legal_kinds", "muggins_room", "refusal", "with_crib_refusal"]
