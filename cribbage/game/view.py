"""What a phone shows and an error names: the JSON view of a game and its state in words."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cribbage.game.refusals import muggins_room
from cribbage.game.state import MUGGINS_PHASES, Phase

if TYPE_CHECKING:
    from cribbage.game.machine import Game


def view(game: Game) -> dict[str, Any]:
    """The JSON-ready view of the game (docs/contracts.md section 1)."""
    c = game.core
    cfg = game.config
    last = None
    if c.last_count is not None:
        lc = c.last_count
        last = {
            "side": lc.side, "points": lc.points, "label": lc.label, "kind": lc.kind,
            "player": lc.player,
            "breakdown": None if lc.breakdown is None else json.loads(lc.breakdown),
            "claimed": lc.claimed, "missed": lc.missed, "notes": list(lc.notes),
            "muggins_open": c.phase in MUGGINS_PHASES and muggins_room(game) > 0,
        }
    order = game.show_order()  # built once: the next count and the turn come from it
    next_count = game._next_of(order)
    view: dict[str, Any] = {
        "variant": cfg.variant,
        "mode": cfg.mode,
        "target": cfg.target,
        "muggins": cfg.muggins,
        "skunk": cfg.skunk,
        "skunk_lines": list(game.rules.skunk_lines),
        "names": list(cfg.names),
        "sides": [
            {"name": game.side_name(i), "players": list(members),
             "front": c.fronts[i], "back": c.backs[i]}
            for i, members in enumerate(game.sides)
        ],
        "cut": [str(x) for x in c.cut],  # the cut for deal, if one was made
        "dealer": c.dealer,
        "crib_owner": c.dealer,
        "hand_number": c.hand_number,
        "game_number": c.game_number,
        "phase": c.phase.value,
        "turn": game._turn(lambda: next_count),
        "starter": None if c.starter is None else str(c.starter),
        "next_count": next_count,
        "show_order": order,
        "play": game.strategy.play_view(game),
        "last_count": last,
        "result": None if c.result is None else c.result.to_json(),
        "games_won": list(c.games_won),
        "match_points": list(c.match_points),
        "can_undo": bool(game.past),
        "can_redo": bool(game.redo_stack),
        "legal": game.legal_actions(),
    }
    game.strategy.add_to_view(game, view)
    return view


def describe(game: Game) -> str:
    """The state in a few words, for error messages."""
    c = game.core
    scores = ", ".join(f"{game.side_name(i)} {f}" for i, f in enumerate(c.fronts))
    if c.phase is Phase.CUT:
        return f"game {c.game_number}: the cut for deal is due; {scores}"
    if c.phase is Phase.OVER:
        assert c.result is not None
        return (f"game {c.game_number} is over, {game.side_name(c.result.winner)} won "
                f"({c.result.kind.value}); {scores}")
    dealer = game.config.names[c.dealer] if c.dealer is not None else "?"
    if c.phase in (Phase.DEAL, Phase.DISCARD):
        return f"hand {c.hand_number}, {dealer} deals, the {c.phase.value} is due; {scores}"
    nxt = game.next_count()
    where = "the play" if c.phase is Phase.PLAY else "the show"
    if c.phase is Phase.PLAY and c.play is not None and not c.play.done:
        where += f" ({c.play.describe()})"
    due = f", {nxt['label']} next" if nxt else ""
    return f"hand {c.hand_number}, {dealer} dealt, {where}{due}; {scores}"


__all__ = ["describe", "view"]
