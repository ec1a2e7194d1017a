"""The deal: the cut for deal (or the dealer entered), the cards dealt and laid away (dealt
mode), each new hand, and the next game of the match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from cribbage.actions import Cut, Deal, Dealer, Discard, NextGame
from cribbage.cards import ALL_CARDS, Card
from cribbage.errors import IllegalPlayError
from cribbage.game.events import DealerChosen, Dealt, Discarded, Event, GameBegun, HandBegun
from cribbage.game.score import score
from cribbage.game.state import MODES, Config, Core, Phase
from cribbage.rules import CutRule, Rules
from cribbage.tuples import set_at

if TYPE_CHECKING:
    from cribbage.game.machine import Game


def cut(game: Game, c: Core, act: Cut, out: list[Event]) -> Core:
    cards = act.cards
    if len(cards) != game.players:
        raise game._error(act, f"a cut needs one card per player ({game.players}), not "
                          f"{len(cards)}", f"Each of the {game.players} players cuts one card.")
    game._distinct(act, cards)
    dealer, word = _cut_winner(game, act, cards)
    names = game.config.names
    cut = ", ".join(f"{names[p]} the {x.pretty}" for p, x in enumerate(cards))
    out.append(DealerChosen(dealer, cards, f"Cut for deal: {cut}; the {word} card deals, "
                            f"so {names[dealer]} deals."))
    return start_game(game, replace(c, cut=cards), dealer, out)


def _cut_winner(game: Game, act: Cut, cards: tuple[Card, ...]) -> tuple[int, str]:
    """Who deals after this cut, and the word for the card that wins ("low", "high");
    raises IllegalPlayError for a tie."""
    high = game.rules.cut is CutRule.HIGH
    best = (max if high else min)(x.rank for x in cards)
    winners = [p for p, x in enumerate(cards) if x.rank == best]
    word = "higher" if high else "lower"
    if game.players > 2:
        word = "highest" if high else "lowest"
    if len(winners) > 1:
        who = " and ".join(game.config.names[p] for p in winners)
        top = "highest" if high else "lowest"
        raise game._error(act, f"{who} tie for the {top} card; cut again",
                          f"{who} tie for the {top} card: cut again.")
    return winners[0], word


def dealer(game: Game, c: Core, act: Dealer, out: list[Event]) -> Core:
    game._check_player(act, act.player)
    out.append(DealerChosen(act.player, (), f"{game.config.names[act.player]} deals."))
    return start_game(game, c, act.player, out)


def deal(game: Game, c: Core, act: Deal, out: list[Event]) -> Core:
    rules = game.rules
    if len(act.hands) != rules.players:
        raise game._error(act, f"{rules.players} hands are dealt, not {len(act.hands)}")
    for p, hand in enumerate(act.hands):
        if len(hand) != rules.deal:
            raise game._error(act, f"{game.config.names[p]} gets {rules.deal} cards in "
                              f"{rules.name}, not {len(hand)}")
    if len(act.crib) != rules.crib_from_deck:
        raise game._error(act, f"{rules.crib_from_deck} cards go to the crib in "
                          f"{rules.name}, not {len(act.crib)}")
    dealt = [x for h in act.hands for x in h] + list(act.crib)
    game._distinct(act, dealt)
    gone = set(dealt)
    crib = f" and {len(act.crib)} to the crib" if act.crib else ""
    out.append(Dealt(rules.deal, len(act.crib),
                     f"{game.config.names[c.dealer or 0]} deals {rules.deal} each{crib}."))
    return replace(c, phase=Phase.DISCARD, hands=act.hands, crib=act.crib,
                   stock=tuple(x for x in ALL_CARDS if x not in gone),
                   discarded=(False,) * rules.players)


def discard(game: Game, c: Core, act: Discard, out: list[Event]) -> Core:
    p = game._check_player(act, act.player)
    who = game.config.names[p]
    game._distinct(act, act.cards)
    if c.discarded[p]:
        raise game._error(act, f"{who} has already discarded",
                          f"{who} has already laid away to the crib.")
    n = game.rules.discard
    if len(act.cards) != n:
        raise game._error(act, f"each player lays away {n} in {game.rules.name}",
                          f"Each player lays away {n} to the crib.")
    hand = c.hands[p]
    for x in act.cards:
        if x not in hand:
            raise game._error(act, f"{who} cannot discard {x}: {who} holds "
                              f"{' '.join(map(str, hand))}", f"{who} doesn't hold the "
                              f"{x.pretty}.")
    kept = tuple(x for x in hand if x not in act.cards)
    c = replace(c, hands=set_at(c.hands, p, kept), crib=c.crib + act.cards,
                discarded=set_at(c.discarded, p, True))
    out.append(Discarded(p, act.cards, f"{who} lays away {_number(n)} to the crib."))
    if all(c.discarded):
        c = replace(c, phase=Phase.PLAY)
    return c


def next_game(game: Game, c: Core, act: NextGame, out: list[Event]) -> Core:
    result = c.result
    assert result is not None and c.dealer is not None
    n = game.players
    losers = game.sides[result.loser]
    dealer = next(p for p in [(c.dealer + k) % n for k in range(1, n + 1)] if p in losers)
    fresh = Core(phase=Phase.PLAY, dealer=None, fronts=(0,) * len(game.sides),
                 backs=(0,) * len(game.sides), game_number=c.game_number + 1,
                 games_won=c.games_won, match_points=c.match_points, records=c.records)
    out.append(GameBegun(fresh.game_number, dealer, f"Game {fresh.game_number}: "
                         f"{game.config.names[dealer]} deals first."))
    return start_game(game, fresh, dealer, out)


def start_game(game: Game, c: Core, dealer: int, out: list[Event]) -> Core:
    phase = game.strategy.first_phase
    c = replace(c, phase=phase, dealer=dealer, hand_number=1, show_index=0)
    out.append(hand_begun(game, c))
    if game.rules.non_dealer_start:
        # Five-card: the first non-dealer pegs three for last at the start of each game.
        pone = game.rules.left_of(dealer)
        n = game.rules.non_dealer_start
        c = score(game, c, game.rules.side_of(pone), n, "start", pone, out, (("start", n),),
                        f"{game.config.names[pone]} pegs {n} to start: "
                        f"{game.config.names[dealer]} has the first crib")
    return c


def hand_begun(game: Game, c: Core) -> HandBegun:
    assert c.dealer is not None
    return HandBegun(c.game_number, c.hand_number, c.dealer,
                     f"Hand {c.hand_number}: {game.config.names[c.dealer]} deals.")


def next_hand(game: Game, c: Core, out: list[Event]) -> Core:
    assert c.dealer is not None
    phase = game.strategy.first_phase
    c = replace(c, phase=phase, dealer=game.rules.left_of(c.dealer),
                hand_number=c.hand_number + 1, show_index=0, play_started=False,
                heels_done=False, starter=None, play=None, play_notes=(), shown=(),
                hands=(), discarded=(), crib=(), stock=())
    out.append(hand_begun(game, c))
    return c


def config_for(rules: Rules, variant: str, names: Sequence[str], mode: str,
               dealer: int | None) -> Config:
    """The options of a new game, checked; raises IllegalPlayError naming the bad one."""
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
    if dealer is not None and not (isinstance(dealer, int) and not isinstance(dealer, bool)
                                   and 0 <= dealer < rules.players):
        raise IllegalPlayError(
            f"dealer must be a player 0..{rules.players - 1} or None, not {dealer!r}")
    return Config(variant, clean, rules.target, rules.skunk.value, rules.muggins, mode,
                  dealer, rules.go_rule.value, rules.double_skunk_games)


def _number(n: int) -> str:
    return {1: "one", 2: "two", 3: "three"}.get(n, str(n))


__all__ = ["config_for", "cut", "deal", "dealer", "discard", "hand_begun", "next_game", "next_hand",
           "start_game"]
