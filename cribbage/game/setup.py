"""The deal: the cut for deal (or the dealer entered), the cards dealt and laid away (dealt
mode), each new hand, and the next game of the match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from cribbage.actions import Cut, Deal, Dealer, Discard, NextGame
from cribbage.cards import ALL_CARDS
from cribbage.errors import IllegalPlayError
from cribbage.game.events import DealerChosen, Dealt, Discarded, Event, GameBegun, HandBegun
from cribbage.game.refusals import cut_winners
from cribbage.game.score import score
from cribbage.game.state import MODES, Config, Core, Phase
from cribbage.game.table import Stepped, Table
from cribbage.rules import CutRule, Rules
from cribbage.tuples import set_at


def cut(table: Table, c: Core, act: Cut) -> Stepped:
    """The cut for deal: the winning card deals (the refusals ruled out a tie)."""
    cards = act.cards
    dealer = cut_winners(table, cards)[0]
    high = table.rules.cut is CutRule.HIGH
    if table.players > 2:
        word = "highest" if high else "lowest"
    else:
        word = "higher" if high else "lower"
    names = table.names
    cut = ", ".join(f"{names[p]} the {x.pretty}" for p, x in enumerate(cards))
    out: list[Event] = [DealerChosen(dealer, cards, f"Cut for deal: {cut}; the {word} card "
                                     f"deals, so {names[dealer]} deals.")]
    return start_game(table, replace(c, cut=cards), dealer, out), tuple(out)


def dealer(table: Table, c: Core, act: Dealer) -> Stepped:
    out: list[Event] = [DealerChosen(act.player, (), f"{table.names[act.player]} deals.")]
    return start_game(table, c, act.player, out), tuple(out)


def deal(table: Table, c: Core, act: Deal) -> Stepped:
    rules = table.rules
    gone = {x for h in act.hands for x in h} | set(act.crib)
    crib = f" and {len(act.crib)} to the crib" if act.crib else ""
    said = Dealt(rules.deal, len(act.crib),
                 f"{table.names[c.dealer or 0]} deals {rules.deal} each{crib}.")
    return replace(c, phase=Phase.DISCARD, hands=act.hands, crib=act.crib,
                   stock=tuple(x for x in ALL_CARDS if x not in gone),
                   discarded=(False,) * rules.players), (said,)


def discard(table: Table, c: Core, act: Discard) -> Stepped:
    p = act.player
    kept = tuple(x for x in c.hands[p] if x not in act.cards)
    c = replace(c, hands=set_at(c.hands, p, kept), crib=c.crib + act.cards,
                discarded=set_at(c.discarded, p, True))
    said = Discarded(p, act.cards, f"{table.names[p]} lays away "
                     f"{_number(table.rules.discard)} to the crib.")
    if all(c.discarded):
        c = replace(c, phase=Phase.PLAY)
    return c, (said,)


def next_game(table: Table, c: Core, act: NextGame) -> Stepped:
    """The next game of the match: the loser (the losing side's player nearest the last
    dealer's left) deals first."""
    result = c.result
    assert result is not None and c.dealer is not None
    n = table.players
    losers = table.sides[result.loser]
    dealer = next(p for p in [(c.dealer + k) % n for k in range(1, n + 1)] if p in losers)
    fresh = Core(phase=Phase.PLAY, dealer=None, fronts=(0,) * len(table.sides),
                 backs=(0,) * len(table.sides), game_number=c.game_number + 1,
                 games_won=c.games_won, match_points=c.match_points, records=c.records)
    out: list[Event] = [GameBegun(fresh.game_number, dealer, f"Game {fresh.game_number}: "
                                  f"{table.names[dealer]} deals first.")]
    return start_game(table, fresh, dealer, out), tuple(out)


def start_game(table: Table, c: Core, dealer: int, out: list[Event]) -> Core:
    """The first hand of a game, dealt by `dealer` (its events added to `out`)."""
    c = replace(c, phase=table.strategy.first_phase, dealer=dealer, hand_number=1,
                show_index=0)
    out.append(hand_begun(table, c))
    if table.rules.non_dealer_start:
        # Five-card: the first non-dealer pegs three for last at the start of each game.
        pone = table.rules.left_of(dealer)
        n = table.rules.non_dealer_start
        c = score(table, c, table.side_of[pone], n, "start", pone, out, (("start", n),),
                  f"{table.names[pone]} pegs {n} to start: {table.names[dealer]} has the "
                  "first crib")
    return c


def hand_begun(table: Table, c: Core) -> HandBegun:
    assert c.dealer is not None
    return HandBegun(c.game_number, c.hand_number, c.dealer,
                     f"Hand {c.hand_number}: {table.names[c.dealer]} deals.")


def next_hand(table: Table, c: Core, out: list[Event]) -> Core:
    """The next hand, dealt by the last dealer's left (its event added to `out`)."""
    assert c.dealer is not None
    c = replace(c, phase=table.strategy.first_phase, dealer=table.rules.left_of(c.dealer),
                hand_number=c.hand_number + 1, show_index=0, play_started=False,
                heels_done=False, starter=None, play=None, play_notes=(), shown=(),
                hands=(), discarded=(), crib=(), stock=())
    out.append(hand_begun(table, c))
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
