"""What a phone shows and an error names: the JSON view of a game and its state in words."""

from __future__ import annotations

import json
from typing import Any

from cribbage.game.refusals import muggins_room, with_crib_refusal
from cribbage.game.state import MUGGINS_PHASES, Core, Phase
from cribbage.game.table import Table


def next_count(table: Table, c: Core) -> dict[str, Any] | None:
    """The count due next (in the play: the first of the show), or None."""
    if c.phase not in (Phase.PLAY, Phase.SHOW):
        return None
    return table.count_due(c)


def count_with_crib(table: Table, c: Core) -> dict[str, Any] | None:
    """The count due and the crib as one count of both (`Count(with_crib=True)`), when the
    game takes it now, or None."""
    if c.phase not in (Phase.PLAY, Phase.SHOW) or with_crib_refusal(table, c) is not None:
        return None
    return table.count_entry(c, True)


def turn(c: Core, due: dict[str, Any] | None) -> int | None:
    """The player the game waits for (`due`: the count due next): in the play with cards,
    the player to lay a card or say go; in the discard, the first player still to discard;
    in the show (and the play in keeper mode), the player whose count is due; None at the
    cut, the deal and after the game."""
    if c.phase is Phase.DISCARD:
        return next(p for p, done in enumerate(c.discarded) if not done)
    if c.phase not in (Phase.PLAY, Phase.SHOW):
        return None
    if c.play is not None and not c.play.done and c.phase is Phase.PLAY:
        return c.play.to_play
    return None if due is None else int(due["player"])


def view(table: Table, c: Core, *, can_undo: bool, can_redo: bool,
         legal: list[str]) -> dict[str, Any]:
    """The JSON-ready view of the game (docs/contracts.md section 1); `legal`: the action
    types allowed now."""
    cfg = table.config
    last = None
    if c.last_count is not None:
        lc = c.last_count
        last = {
            "side": lc.side, "points": lc.points, "label": lc.label, "kind": lc.kind,
            "player": lc.player,
            "breakdown": None if lc.breakdown is None else json.loads(lc.breakdown),
            "claimed": lc.claimed, "missed": lc.missed, "notes": list(lc.notes),
            "muggins_open": c.phase in MUGGINS_PHASES and muggins_room(table, c) > 0,
        }
    due = next_count(table, c)
    out: dict[str, Any] = {
        "variant": cfg.variant,
        "mode": cfg.mode,
        "target": cfg.target,
        "muggins": cfg.muggins,
        "skunk": cfg.skunk,
        "skunk_lines": list(table.skunk_lines),
        "names": list(cfg.names),
        "sides": [
            {"name": table.side_names[i], "players": list(members),
             "front": c.fronts[i], "back": c.backs[i]}
            for i, members in enumerate(table.sides)
        ],
        "cut": [str(x) for x in c.cut],  # the cut for deal, if one was made
        "dealer": c.dealer,
        "crib_owner": c.dealer,
        "hand_number": c.hand_number,
        "game_number": c.game_number,
        "phase": c.phase.value,
        "turn": turn(c, due),
        "starter": None if c.starter is None else str(c.starter),
        "next_count": due,
        "count_with_crib": count_with_crib(table, c),
        "show_order": table.show_order(c),
        "play": table.strategy.play_view(c),
        "last_count": last,
        "result": None if c.result is None else c.result.to_json(),
        "games_won": list(c.games_won),
        "match_points": list(c.match_points),
        "can_undo": can_undo,
        "can_redo": can_redo,
        "legal": legal,
    }
    table.strategy.add_to_view(c, out)
    return out


def describe(table: Table, c: Core) -> str:
    """The state in a few words, for error messages."""
    scores = ", ".join(f"{table.side_name(i)} {f}" for i, f in enumerate(c.fronts))
    if c.phase is Phase.CUT:
        return f"game {c.game_number}: the cut for deal is due; {scores}"
    if c.phase is Phase.OVER:
        assert c.result is not None
        return (f"game {c.game_number} is over, {table.side_name(c.result.winner)} won "
                f"({c.result.kind.value}); {scores}")
    dealer = table.names[c.dealer] if c.dealer is not None else "?"
    if c.phase in (Phase.DEAL, Phase.DISCARD):
        return f"hand {c.hand_number}, {dealer} deals, the {c.phase.value} is due; {scores}"
    nxt = next_count(table, c)
    where = "the play" if c.phase is Phase.PLAY else "the show"
    if c.phase is Phase.PLAY and c.play is not None and not c.play.done:
        where += f" ({c.play.describe()})"
    due = f", {nxt['label']} next" if nxt else ""
    return f"hand {c.hand_number}, {dealer} dealt, {where}{due}; {scores}"


__all__ = ["count_with_crib", "describe", "next_count", "turn", "view"]
