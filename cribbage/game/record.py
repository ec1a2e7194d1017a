"""A game as a JSON record: its options, every accepted action in canonical form, the redo
stack; read back (by `Game.from_json`) by replaying the actions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cribbage.actions import Action, format_action, parse_action
from cribbage.errors import IllegalPlayError
from cribbage.game.state import Config

FORMAT = "cribbage-keeper"  # the record's name since the first version: saved games load
FORMAT_VERSION = 1


def to_json(config: Config, actions: Sequence[Action], redo: Sequence[Action]) -> dict[str, Any]:
    """A JSON-ready record: the options, every accepted action and the redo stack."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": config.to_json(),
        "actions": [format_action(a) for a in actions],
        "redo": [format_action(a) for a in redo],
    }


def options(data: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a record, as `Game.new` takes them; raises IllegalPlayError (or
    KeyError, TypeError) for a record that is not one."""
    if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise IllegalPlayError(f"not a keeper record (format {data.get('format')!r}, "
                               f"version {data.get('version')!r})")
    cfg = data["config"]
    return {"variant": cfg["variant"], "names": cfg["names"], "target": cfg["target"],
            "skunk": cfg["skunk"], "muggins": cfg["muggins"], "mode": cfg["mode"],
            "dealer": cfg["dealer"], "go_rule": cfg.get("go_rule", "continue"),
            "double_skunk_games": cfg.get("double_skunk_games", 4)}


def actions(data: Mapping[str, Any], key: str) -> list[Action]:
    """The typed actions of a record's list `key` ("actions" or "redo", in any spelling an
    earlier version stored); raises InvalidActionError, or IllegalPlayError for an undo or
    redo among them (a record keeps what they did, never them)."""
    out = []
    for i, action in enumerate(data[key]):
        typed = parse_action(action)
        if typed.type in ("undo", "redo"):
            raise IllegalPlayError(f"{key} {i} of the record is an {typed.type}")
        out.append(typed)
    return out


__all__ = ["FORMAT", "FORMAT_VERSION", "actions", "options", "to_json"]
