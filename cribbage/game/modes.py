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
from typing import TYPE_CHECKING, Any

from cribbage.actions import Action, Count, Starter
from cribbage.errors import InvalidActionError
from cribbage.game.refusals import REFUSED, Refusal, card_play_refusal, heels_allowed
from cribbage.game.show import check_count, counted_cards, shown_cards
from cribbage.game.state import JACK, Core, CountRecord, Phase
from cribbage.play import PlayState

if TYPE_CHECKING:
    from cribbage.game.machine import Game

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


class Mode:
    """What differs between the modes; one instance per mode."""

    name: str = ""
    first_phase = Phase.PLAY  # what a hand waits for first
    knows_cards = False  # every card is known: the true count of a hand can be told
    deal_refusal = Refusal("the cards are dealt by hand in this mode",
                           "The cards are already dealt.")
    discard_refusal = Refusal(
        "the discard is entered only when the cards are dealt by the engine",
        "The crib is already laid away.")

    def refusal(self, game: Game, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        """Why a peg, late peg, heels, starter, card, go or count is refused in the play or
        the show, or None (`explain` False: any refusal, its words unmade)."""
        raise NotImplementedError

    def turn(self, game: Game, c: Core, act: Starter) -> Core:
        """The state once the starter is turned (before his heels)."""
        return replace(c, starter=act.card)

    def count(self, game: Game, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        """The record of the count due (`entry`, from `show_order`); raises
        InvalidActionError or IllegalPlayError."""
        raise NotImplementedError

    def play_view(self, game: Game) -> dict[str, Any] | None:
        """The view's `play`: the cards laid this hand, or None when none are entered."""
        c = game.core
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

    def add_to_view(self, game: Game, view: dict[str, Any]) -> None:
        """Fields only this mode's view has."""

    def __repr__(self) -> str:
        return f"<mode {self.name}>"


class KeeperMode(Mode):
    """Points entered: the play is pegged by hand and each count is its points."""

    name = "keeper"

    def refusal(self, game: Game, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        c = game.core
        in_play = c.phase is Phase.PLAY
        if kind == "peg":
            return None if in_play else _SHOW_BEGUN
        if kind == "late_peg":
            return None if not in_play else _PLAY_GOES_ON
        if kind == "heels":
            return None if heels_allowed(game) else _no_heels(game) if explain else REFUSED
        if kind == "starter":
            if c.starter is not None:
                return _starter_known(game) if explain else REFUSED
            return None if in_play and not c.play_started else _PLAY_BEGUN
        if kind in ("play", "go"):
            return _KEPT_BY_POINTS
        return None  # a count: in the play (the show begins) or the show

    def count(self, game: Game, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        if act.cards is not None:
            raise InvalidActionError(game._message(
                act, "in keeper mode a count is its points, not cards"),
                say="Enter the points of the count.")
        if act.points is None:
            raise InvalidActionError(game._message(act, "a count needs its points"),
                                     say="Enter the points of the count.")
        points = check_count(game, act, act.points, entry["kind"], entry["label"])
        return CountRecord(entry["kind"], entry["player"], entry["side"], entry["label"],
                           points)

    def play_view(self, game: Game) -> dict[str, Any] | None:
        return None


def _starter_known(game: Game) -> Refusal:
    assert game.core.starter is not None
    return Refusal("the starter is already known",
                   f"The starter is the {game.core.starter.pretty}.")


def _no_heels(game: Game) -> Refusal:
    c = game.core
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

    def refusal(self, game: Game, kind: str, act: Action | None,
                explain: bool = True) -> Refusal | None:
        c = game.core
        if kind in ("peg", "late_peg"):
            return _PEGGED_FROM_CARDS
        if kind == "heels":
            return _HEELS_BY_ITSELF
        if kind == "starter":
            if c.starter is None:
                return None
            return _starter_known(game) if explain else REFUSED
        if kind in ("play", "go"):
            return card_play_refusal(game, kind, act, explain)
        if c.starter is None:  # a count
            return _NO_STARTER
        if c.phase is Phase.PLAY and c.play is not None and not c.play.done:
            if not explain:
                return REFUSED
            return Refusal(f"the play is not finished: {c.play.describe()}",
                           "Finish the play before the counts.")
        return None

    def turn(self, game: Game, c: Core, act: Starter) -> Core:
        c = replace(c, starter=act.card)
        assert c.dealer is not None
        ps = PlayState.for_rules(game.rules, self._hands(game, c), c.dealer,
                                 names=game.config.names, seen=[act.card])
        return replace(c, play=ps)

    def _hands(self, game: Game, c: Core) -> list[Any]:
        return [None] * game.players  # unknown until shown

    def count(self, game: Game, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        size = game.rules.crib_size if entry["kind"] == "crib" else game.rules.hand_size
        cards = shown_cards(game, c, act, entry["kind"], entry["player"], entry["label"], size)
        return counted_cards(game, c, act, entry, cards)


class DealtMode(CardsMode):
    """Every card known: the deal and the discard are entered, counts need no cards."""

    name = "dealt"
    first_phase = Phase.DEAL
    knows_cards = True
    deal_refusal = Refusal("the cards are already dealt", "The cards are already dealt.")
    discard_refusal = Refusal("the discard is over", "The crib is already laid away.")

    def turn(self, game: Game, c: Core, act: Starter) -> Core:
        card = act.card
        if card not in c.stock:
            raise game._error(act, f"{card} is not among the undealt cards",
                              f"The {card.pretty} was dealt: the starter is cut from the "
                              "rest of the pack.")
        return super().turn(game, replace(c, stock=tuple(x for x in c.stock if x != card)), act)

    def _hands(self, game: Game, c: Core) -> list[Any]:
        return list(c.hands)

    def count(self, game: Game, c: Core, act: Count, entry: dict[str, Any]) -> CountRecord:
        known = c.crib if entry["kind"] == "crib" else c.hands[entry["player"]]
        label = entry["label"]
        if act.cards is not None and set(act.cards) != set(known):
            raise game._error(act, f"{label} is {' '.join(map(str, known))}",
                              f"{label} is {' '.join(x.pretty for x in known)}.")
        return counted_cards(game, c, act, entry, list(known))

    def add_to_view(self, game: Game, view: dict[str, Any]) -> None:
        view["hands"] = [[str(x) for x in h] for h in game.core.hands]
        view["crib"] = [str(x) for x in game.core.crib]


KEEPER = KeeperMode()
CARDS = CardsMode()
DEALT = DealtMode()
MODE_OF: dict[str, Mode] = {m.name: m for m in (KEEPER, CARDS, DEALT)}
"""Each mode by its name (`Config.mode`)."""


__all__ = ["CARDS", "DEALT", "KEEPER", "MODE_OF", "CardsMode", "DealtMode", "KeeperMode", "Mode"]
