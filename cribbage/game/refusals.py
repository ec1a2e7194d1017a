"""Why an action is refused now: the one decision the legal actions are derived from.

`refusal(game, kind, act)` answers for an action type (and, given the action, in its own
words): None when the type is allowed now. `Game.legal_actions()` is every type it allows;
`Game.step` raises its refusal; `Game.why_not(action)` adds what the step itself checks (a
card not held, a count no hand makes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cribbage.actions import Action, Go, Play
from cribbage.errors import IllegalPlayError
from cribbage.game.state import JACK, MUGGINS_PHASES, Phase

if TYPE_CHECKING:
    from cribbage.game.machine import Game


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action is refused: the detail (for logs and the API's error body) and one
    sentence for the table."""

    detail: str
    say: str


REFUSED = Refusal("not allowed now", "Not now.")
"""Any refusal, when only whether is asked (`legal_actions`), not why."""

ORDER = ("cut", "dealer", "next_game", "deal", "discard", "peg", "late_peg", "heels",
         "starter", "play", "go", "count", "muggins", "undo", "redo")
"""Every action type, in the order `legal_actions` lists them."""

_NOTHING_TO = {"undo": Refusal("there is nothing to undo", "There's nothing to undo."),
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


def legal_kinds(game: Game) -> list[str]:
    """Every action type `refusal` lets through now, in `ORDER`: the same decisions asked in
    bulk (the phase's own types, the mode's refusals in the play and the show, then muggins,
    undo and redo as `refusal` decides them; a test checks it equals asking about each)."""
    c = game.core
    due = _PHASE_DUE.get(c.phase)
    if due is None:
        refused = game.strategy.refusal
        out = [k for k in _PLAY_KINDS if refused(game, k, None, False) is None]
    else:
        out = list(due)
    if c.phase in MUGGINS_PHASES and muggins_room(game) > 0:
        out.append("muggins")
    if game.past:
        out.append("undo")
    if game.redo_stack:
        out.append("redo")
    return out


def refusal(game: Game, kind: str, act: Action | None = None, *,
            explain: bool = True) -> Refusal | None:
    """Why an action of type `kind` (the action itself if given) is refused now, or None.
    With `explain` False any refusal may be `REFUSED`, its words unmade (whether, not why)."""
    c = game.core
    if kind in _NOTHING_TO:
        return None if (game.past if kind == "undo" else game.redo_stack) else _NOTHING_TO[kind]
    if kind == "muggins" and c.phase in MUGGINS_PHASES and muggins_room(game) > 0:
        return None
    due = _PHASE_DUE.get(c.phase)
    if due is not None:
        return None if kind in due else _phase_refusal(game)
    if kind in ("cut", "dealer"):
        return _DEALER_SET
    if kind == "next_game":
        return _NOT_OVER
    if kind == "deal":
        return game.strategy.deal_refusal
    if kind == "discard":
        return game.strategy.discard_refusal
    if kind == "muggins":
        return _MUGGINS_OFF if not game.config.muggins else _NO_MISSED_POINTS
    if kind not in _PLAY_KINDS:
        raise ValueError(f"no action type {kind!r}")
    return game.strategy.refusal(game, kind, act, explain)


def heels_allowed(game: Game) -> bool:
    """Keeper mode: whether his heels may be pegged now (the starter turned, or about to be,
    and no card played)."""
    c = game.core
    return (c.phase is Phase.PLAY and not c.heels_done and not c.play_started
            and (c.starter is None or c.starter.rank == JACK))


def muggins_room(game: Game) -> int:
    """How many more points muggins could claim on the last count (0: none)."""
    lc = game.core.last_count
    if not game.config.muggins or lc is None or not lc.open:
        return 0
    if lc.true_total is not None:
        return lc.missed or 0
    counted = lc.points + lc.claimed
    return max((t for t in game._totals(lc.kind) if t > counted), default=counted) - counted


_PLAY_KINDS = ("peg", "late_peg", "heels", "starter", "play", "go", "count")
"""The types the mode decides, in the play and the show."""


def _phase_refusal(game: Game) -> Refusal:
    """What the game waits for, when it is not the action asked for."""
    c = game.core
    if c.phase is Phase.CUT:
        return Refusal("the dealer is not known yet (cut for deal or enter the dealer)",
                       "Cut for deal first, or say who deals.")
    if c.phase is Phase.OVER:
        assert c.result is not None
        return Refusal("the game is over (start the next game or undo)",
                       f"The game is over: {game.side_name(c.result.winner)} won. Start the "
                       "next game, or undo.")
    if c.phase is Phase.DEAL:
        return Refusal("the deal is due", "Deal the cards first.")
    return Refusal("the discard to the crib is due", "Lay away to the crib first.")


# ---- the play with cards ------------------------------------------------------------------


def card_play_refusal(game: Game, kind: str, act: Action | None,
                      explain: bool = True) -> Refusal | None:
    """A card laid or a go, in the modes where cards are entered."""
    c = game.core
    ps = c.play
    if c.starter is None:
        return _NO_STARTER
    if c.phase is not Phase.PLAY or ps is None or ps.done:
        return _PLAY_OVER
    if kind == "play":
        if ps.can_play():
            return None
        return _why_not_play(game, act) if explain else REFUSED
    if ps.can_go():
        return None
    return _why_not_go(game, act) if explain else REFUSED


def _why_not_play(game: Game, act: Action | None) -> Refusal:
    """No card of the player to play fits: the play's own refusal (out of turn, a card
    not held, past 31), or "say go"."""
    ps = game.core.play
    assert ps is not None and ps.to_play is not None
    if isinstance(act, Play):
        try:
            game._check_player(act, act.player)
            ps.play(act.card, act.player)
        except IllegalPlayError as exc:
            return Refusal(str(exc), exc.say)
    who = game.config.names[ps.to_play]
    return Refusal(f"{who} has no card that fits under 31 ({ps.describe()}): say go",
                   f"No card fits (the count is {ps.count}): say go.")


def _why_not_go(game: Game, act: Action | None) -> Refusal:
    ps = game.core.play
    assert ps is not None and ps.to_play is not None
    who = game.config.names[ps.to_play]
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


__all__ = ["ORDER", "REFUSED", "Refusal", "card_play_refusal", "heels_allowed", "legal_kinds",
           "muggins_room", "refusal"]
