"""Actions made from an injected `random.Random`, and every concrete legal move of a game.

Randomness lives only here: the game machine (`cribbage.game.Game`) is deterministic.
These helpers drive a game in "dealt" mode (the engine knows every card), for simulations,
property tests and the referee cases. They make JSON actions, as a phone or a log holds them:
`game.step(parse_action(action))`.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from cribbage.cards import Deck
from cribbage.errors import IllegalPlayError
from cribbage.game import Game, Phase


def cut_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """A cut for deal: one card each from a shuffled pack, cut again while the lowest tie."""
    while True:
        cards = Deck.shuffled(rng).deal(game.players)
        low = min(c.rank for c in cards)
        if sum(c.rank == low for c in cards) == 1:
            return {"type": "cut", "cards": [str(c) for c in cards]}


def deal_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """A deal from a pack shuffled by `rng`."""
    deck = Deck.shuffled(rng)
    rules = game.rules
    hands = [[str(c) for c in deck.deal(rules.deal)] for _ in range(rules.players)]
    crib = [str(c) for c in deck.deal(rules.crib_from_deck)]
    return {"type": "deal", "hands": hands, "crib": crib}


def starter_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """A starter turned from the undealt cards; raises IllegalPlayError if none is due."""
    if "starter" not in game.legal_actions() or not game.stock:
        raise IllegalPlayError(f"no starter is due ({game.describe()})")
    return {"type": "starter", "card": str(rng.choice(game.stock))}


def legal_moves(game: Game) -> list[dict[str, Any]]:
    """Every concrete action allowed now in dealt mode, except cuts and deals (made by
    `cut_action` and `deal_action`) and undo/redo: discards, starters, plays, gos, counts
    (the true one, and short claims when muggins is on), muggins claims, next_game."""
    out: list[dict[str, Any]] = []
    legal = game.legal_actions()
    if "muggins" in legal and game.last_count is not None:
        for side in range(len(game.sides)):
            if side != game.last_count.side:
                out.append({"type": "muggins", "side": side})
    if "discard" in legal:
        for p, done in enumerate(game.core.discarded):
            if not done:
                for combo in itertools.combinations(game.hands[p], game.rules.discard):
                    out.append({"type": "discard", "player": p,
                                "cards": [str(c) for c in combo]})
    if "starter" in legal:
        out += [{"type": "starter", "card": str(c)} for c in game.stock]
    if ("play" in legal or "go" in legal) and game.play is not None:
        out += game.play.legal_actions()
    if "count" in legal:
        out.append({"type": "count"})
        if game.rules.muggins:
            out += [{"type": "count", "points": k} for k in range(game.true_count())]
    if "next_game" in legal:
        out.append({"type": "next_game"})
    return out


def random_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """A legal action chosen by `rng` (uniformly among `legal_moves`, or a cut or deal)."""
    if game.phase is Phase.CUT:
        return cut_action(game, rng)
    moves = legal_moves(game)
    if game.phase is Phase.DEAL:
        moves.append(deal_action(game, rng))
    return rng.choice(moves)


__all__ = ["cut_action", "deal_action", "legal_moves", "random_action", "starter_action"]
