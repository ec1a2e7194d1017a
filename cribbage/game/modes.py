"""The three ways a game is kept, as strategy objects the machine asks (never a mode test):

- `KEEPER` ("keeper"): real cards, points entered (pegging points, each count in show order,
  his heels). Counts and muggins claims are bounded by what a hand can make; pegging by what
  one card can score. A peg forgotten in the play is entered during the show as a late peg.
- `CARDS` ("cards"): real cards, cards entered: the starter, each card played and each hand
  shown. The play is run by `cribbage.play.PlayState` with unknown hands; counts by
  `score_hand`.
- `DEALT` ("dealt"): the engine knows every card: `deal` and `discard` come first, the starter
  must be an undealt card, a go with a card that fits is refused, counts need no cards.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cribbage.actions import Action, Count, Starter
from cribbage.errors import InvalidActionError
from cribbage.game.refusals import REFUSED, card_play_refusal
from cribbage.game.show import (
    claim_refusal,
    counted_cards,
    points_refusal,
    shown_cards,
    true_total,
)
from cribbage.game.state import HAND_AND_CRIB, JACK, ZERO_HAND, Core, CountRecord, Phase
from cribbage.game.table import Mode, Refusal, Table
from cribbage.play import PlayState

_PEGGED_FROM_CARDS = Refusal("in cards mode the play is pegged from the cards played",
                             "The play is pegged from the cards played.")
_SHOW_BEGUN = Refusal(
    "pegging is over once the show has begun (enter a forgotten peg as a late_peg)",
    "The play is over: to add a peg you forgot, enter it as a late peg.")
_PLAY_GOES_ON = Refusal("a late peg is entered during the show (in the play, peg as usual)",
                        "Peg it as usual: the play isn't over.")
_PLAY_BEGUN = Refusal("the play has begun", "The play has begun: the starter was missed.")
_KEPT_BY_POINTS = Refusal("cards are played only in cards mode (peg the points instead)",
                          "Peg the points: this game is kept by points.")
_HEELS_BY_ITSELF = Refusal(
    "in cards mode his heels is pegged when a jack is entered as starter",
    "His heels is pegged by itself when a jack is the starter.")
_NO_STARTER = Refusal("the starter must be entered first", "Turn the starter first.")
_POINTS_NOT_CARDS = Refusal("in keeper mode a count is its points, not cards",
                            "Enter the points of the count.", InvalidActionError)
_POINTS_NEEDED = Refusal("a count needs its points", "Enter the points of the count.",
                         InvalidActionError)


class KeeperMode(Mode):
    """Points entered: the play is pegged by hand and each count is its points."""

    name = "keeper"
    takes_nineteens = True
    takes_hand_and_crib = True

    def refusal(self, table: Table, c: Core, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        in_play = c.phase is Phase.PLAY
        if kind == "peg":
            return None if in_play else _SHOW_BEGUN
        if kind == "late_peg":
            return None if not in_play else _PLAY_GOES_ON
        if kind == "heels":
            return None if heels_allowed(c) else _no_heels(c) if explain else REFUSED
        if kind == "starter":
            if c.starter is not None:
                return _starter_known(c) if explain else REFUSED
            return None if in_play and not c.play_started else _PLAY_BEGUN
        if kind in ("play", "go"):
            return _KEPT_BY_POINTS
        return None  # a count: in the play (the show begins) or the show

    def count_refusal(self, table: Table, c: Core, act: Count,
                      entry: dict[str, Any]) -> Refusal | None:
        if act.cards is not None:
            return _POINTS_NOT_CARDS
        if act.points is None:
            return _POINTS_NEEDED
        return points_refusal(table, act.points, entry["kind"], entry["label"])

    def count(self, table: Table, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        assert act.points is not None
        points = 0 if act.points == ZERO_HAND and entry["kind"] != HAND_AND_CRIB else act.points
        return CountRecord(entry["kind"], entry["player"], entry["side"], entry["label"],
                           points)


def heels_allowed(c: Core) -> bool:
    """Keeper mode: whether his heels may be pegged now (the starter turned, or about to be,
    and no card played)."""
    return (c.phase is Phase.PLAY and not c.heels_done and not c.play_started
            and (c.starter is None or c.starter.rank == JACK))


def _starter_known(c: Core) -> Refusal:
    assert c.starter is not None
    return Refusal("the starter is already known", f"The starter is the {c.starter.pretty}.")


def _no_heels(c: Core) -> Refusal:
    if c.heels_done:
        return Refusal("his heels has already been pegged this hand",
                       "His heels is already pegged this hand.")
    if c.starter is not None and c.starter.rank != JACK:
        return Refusal(f"the starter is {c.starter}, not a jack",
                       f"His heels is for a jack starter; the starter is the "
                       f"{c.starter.pretty}.")
    return Refusal("his heels is pegged only when the starter is turned, before the play",
                   "His heels is pegged when the starter is turned, before the play.")


class CardsMode(Mode):
    """Cards entered: the play and the counts are worked out from the cards."""

    name = "cards"

    def refusal(self, table: Table, c: Core, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        if kind in ("peg", "late_peg"):
            return _PEGGED_FROM_CARDS
        if kind == "heels":
            return _HEELS_BY_ITSELF
        if kind == "starter":
            if c.starter is None:
                return None
            return _starter_known(c) if explain else REFUSED
        if kind in ("play", "go"):
            return card_play_refusal(table, c, kind, act, explain)
        if c.starter is None:  # a count
            return _NO_STARTER
        if c.phase is Phase.PLAY and c.play is not None and not c.play.done:
            if not explain:
                return REFUSED
            return Refusal(f"the play is not finished: {c.play.describe()}",
                           "Finish the play before the counts.")
        return None

    def turn(self, table: Table, c: Core, act: Starter) -> Core:
        c = replace(c, starter=act.card)
        assert c.dealer is not None
        ps = PlayState.for_rules(table.rules, self._hands(table, c), c.dealer,
                                 names=table.names, seen=[act.card])
        return replace(c, play=ps)

    def _hands(self, table: Table, c: Core) -> list[Any]:
        return [None] * table.players  # unknown until shown

    def count_refusal(self, table: Table, c: Core, act: Count,
                      entry: dict[str, Any]) -> Refusal | None:
        cards = shown_cards(table, c, act, entry)
        if isinstance(cards, Refusal):
            return cards
        return claim_refusal(table, act, entry["label"],
                             true_total(table, c, entry["kind"], cards))

    def count(self, table: Table, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        cards = shown_cards(table, c, act, entry)
        assert not isinstance(cards, Refusal)
        return counted_cards(table, c, act, entry, cards)


class DealtMode(CardsMode):
    """Every card known: the deal and the discard are entered, counts need no cards."""

    name = "dealt"
    first_phase = Phase.DEAL
    knows_cards = True
    deal_refusal = Refusal("the cards are already dealt", "The cards are already dealt.")
    discard_refusal = Refusal("the discard is over", "The crib is already laid away.")

    def starter_refusal(self, table: Table, c: Core, act: Starter) -> Refusal | None:
        card = act.card
        if card in c.stock:
            return None
        return Refusal(f"{card} is not among the undealt cards",
                       f"The {card.pretty} was dealt: the starter is cut from the rest of "
                       "the pack.")

    def turn(self, table: Table, c: Core, act: Starter) -> Core:
        stock = tuple(x for x in c.stock if x != act.card)
        return super().turn(table, replace(c, stock=stock), act)

    def _hands(self, table: Table, c: Core) -> list[Any]:
        return list(c.hands)

    def count_refusal(self, table: Table, c: Core, act: Count,
                      entry: dict[str, Any]) -> Refusal | None:
        known = _known(c, entry)
        label = entry["label"]
        if act.cards is not None and set(act.cards) != set(known):
            return Refusal(f"{label} is {' '.join(map(str, known))}",
                           f"{label} is {' '.join(x.pretty for x in known)}.")
        return claim_refusal(table, act, label, true_total(table, c, entry["kind"], known))

    def count(self, table: Table, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        return counted_cards(table, c, act, entry, list(_known(c, entry)))

    def add_to_view(self, c: Core, view: dict[str, Any]) -> None:
        view["hands"] = [[str(x) for x in h] for h in c.hands]
        view["crib"] = [str(x) for x in c.crib]


def _known(c: Core, entry: dict[str, Any]) -> tuple[Any, ...]:
    return c.crib if entry["kind"] == "crib" else c.hands[entry["player"]]


KEEPER = KeeperMode()
CARDS = CardsMode()
DEALT = DealtMode()
MODE_OF: dict[str, Mode] = {m.name: m for m in (KEEPER, CARDS, DEALT)}
"""Each mode by its name (`Config.mode`)."""


__all__ = ["CARDS", "DEALT", "KEEPER", "MODE_OF", "CardsMode", "DealtMode", "KeeperMode", "Mode"]
