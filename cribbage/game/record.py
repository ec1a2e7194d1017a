"""A game as a JSON record: its options, every accepted action in canonical form, the redo
stack; read back by replaying the actions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cribbage.actions import format_action
from cribbage.errors import CribbageError, IllegalPlayError

if TYPE_CHECKING:
    from cribbage.game.machine import Game

FORMAT = "cribbage-keeper"  # the record's name since the first version: saved games load
FORMAT_VERSION = 1


def to_json(game: Game) -> dict[str, Any]:
    """A JSON-ready record: the options, every accepted action and the redo stack."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": game.config.to_json(),
        "actions": [format_action(a) for a, _, _ in game.past],
        "redo": [format_action(a) for a in game.redo_stack],
    }

def from_json(cls: type[Game], data: Mapping[str, Any]) -> Game:
    """Rebuild a game from `to_json` by replaying it; raises CribbageError if malformed."""
    try:
        if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
            raise IllegalPlayError(
                f"not a keeper record (format {data.get('format')!r}, "
                f"version {data.get('version')!r})")
        cfg = data["config"]
        keeper = cls.new(cfg["variant"], cfg["names"], target=cfg["target"],
                         skunk=cfg["skunk"], muggins=cfg["muggins"], mode=cfg["mode"],
                         dealer=cfg["dealer"], go_rule=cfg.get("go_rule", "continue"),
                         double_skunk_games=cfg.get("double_skunk_games", 4))
        for i, action in enumerate(data["actions"]):
            if action.get("type") in ("undo", "redo"):
                raise IllegalPlayError(f"action {i} of the record is an {action['type']}")
            keeper = keeper.apply(action)
        redo = tuple(keeper.parse(a) for a in data["redo"])
    except CribbageError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise IllegalPlayError(f"not a keeper record: {exc!r}") from None
    return replace(keeper, redo_stack=redo)


__all__ = ["FORMAT", "FORMAT_VERSION", "from_json", "to_json"]
