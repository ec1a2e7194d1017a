"""The actions of a game as frozen values, with one parser and one formatter.

`parse_action(dict) -> Action` checks an action's shape: a mapping with a known `type`, no
unknown field, every required field, and each field of the right type (indexes and points are
whole numbers, cards are card texts, lists are lists). It raises `InvalidActionError` for a
malformed action. Whether an action is allowed (a player index in range, a card in the hand,
a possible count) is the game's business: `Game.apply` raises `IllegalPlayError`.
`action.to_json()` (`format_action`) gives the canonical dict back (`parse_action(a.to_json())
== a`): cards as rank then suit letter ("10H", never "T♥" or "10h"), no null fields. The
daemon's log stores it; `Cut.from_json(d)` (any class, or `parse_action`) reads any spelling an
earlier version stored, so old logs still load.

The vocabulary is docs/contracts.md's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from cribbage.cards import Card
from cribbage.errors import CribbageError, InvalidActionError

Cards = tuple[Card, ...]


def json_value(value: Any) -> Any:
    """A value of the engine as JSON: a card as its text, a value with `to_json` as that,
    tuples and lists as lists, mappings as dicts (each inside too)."""
    if isinstance(value, Card):
        return str(value)
    if hasattr(value, "to_json"):  # an event, an action, a result, a Caught, a Moved
        return value.to_json()
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    return value


class Jsonable:
    """The one JSON form of the engine's frozen records (actions and events): the class's
    tag (`type` of an action, `kind` of an event), then each field by `json_value`; an
    action leaves out its empty optional fields."""

    __slots__ = ()
    TAG: ClassVar[str]
    SKIP_NONE: ClassVar[bool] = False

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict."""
        tag = self.TAG
        out: dict[str, Any] = {tag: getattr(self, tag)}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None and self.SKIP_NONE:
                continue
            out[f.name] = json_value(value)
        return out


class _Action(Jsonable):
    """What every action has: its JSON form, canonical (`parse_action` reads it back)."""

    __slots__ = ()
    type: ClassVar[str]
    TAG = "type"
    SKIP_NONE = True

    @classmethod
    def from_json(cls, data: Any) -> Any:
        """The action of this class for a JSON action in any spelling `parse_action` reads;
        raises InvalidActionError (also for an action of another type)."""
        action = parse_action(data)
        if not isinstance(action, cls):
            raise InvalidActionError(f"{action_text(action)}: not a {cls.type} action",
                                     say="That isn't something the table can do.")
        return action


@dataclass(frozen=True, slots=True)
class Cut(_Action):
    """The cut for deal: one card per player; the lowest rank deals."""

    type: ClassVar[str] = "cut"
    cards: Cards


@dataclass(frozen=True, slots=True)
class Dealer(_Action):
    """The first dealer, entered instead of a cut."""

    type: ClassVar[str] = "dealer"
    player: int


@dataclass(frozen=True, slots=True)
class Deal(_Action):
    """The cards dealt (dealt mode): one list per player, and the cards dealt to the crib."""

    type: ClassVar[str] = "deal"
    hands: tuple[Cards, ...]
    crib: Cards = ()


@dataclass(frozen=True, slots=True)
class Discard(_Action):
    """A player lays cards away to the crib (dealt mode)."""

    type: ClassVar[str] = "discard"
    player: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class Peg(_Action):
    """Points pegged in the play (keeper mode)."""

    type: ClassVar[str] = "peg"
    side: int
    points: int


@dataclass(frozen=True, slots=True)
class LatePeg(_Action):
    """Points of the play entered late, during the show (a forgotten "one for last")."""

    type: ClassVar[str] = "late_peg"
    side: int
    points: int


@dataclass(frozen=True, slots=True)
class Heels(_Action):
    """Two for his heels: the dealer turned a jack as the starter (keeper mode)."""

    type: ClassVar[str] = "heels"


@dataclass(frozen=True, slots=True)
class Starter(_Action):
    """The starter card."""

    type: ClassVar[str] = "starter"
    card: Card


@dataclass(frozen=True, slots=True)
class Play(_Action):
    """A card laid in the play."""

    type: ClassVar[str] = "play"
    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class Go(_Action):
    """A go: the player cannot lay a card without passing 31."""

    type: ClassVar[str] = "go"
    player: int


@dataclass(frozen=True, slots=True)
class Count(_Action):
    """The next count in show order: its points (keeper), or its cards and a claim; in keeper
    mode `nineteens` counts due before it were nothing ("nineteen"), taken with it, and
    `with_crib` counts the dealer's hand and crib together (`points` is their total)."""

    type: ClassVar[str] = "count"
    points: int | None = None
    cards: Cards | None = None
    nineteens: int | None = None
    with_crib: bool | None = None


@dataclass(frozen=True, slots=True)
class Muggins(_Action):
    """A side claims points the last count missed (muggins on)."""

    type: ClassVar[str] = "muggins"
    side: int
    points: int | None = None


@dataclass(frozen=True, slots=True)
class Undo(_Action):
    """Take back the last action."""

    type: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Redo(_Action):
    """Do the last undone action again."""

    type: ClassVar[str] = "redo"


@dataclass(frozen=True, slots=True)
class NextGame(_Action):
    """After a result: the next game of the match; the loser deals first."""

    type: ClassVar[str] = "next_game"


Action = (Cut | Dealer | Deal | Discard | Peg | LatePeg | Heels | Starter | Play | Go | Count
          | Muggins | Undo | Redo | NextGame)

ACTION_CLASSES: dict[str, type[Any]] = {
    cls.type: cls for cls in (Cut, Dealer, Deal, Discard, Peg, LatePeg, Heels, Starter, Play,
                              Go, Count, Muggins, Undo, Redo, NextGame)
}
ACTION_TYPES: tuple[str, ...] = tuple(ACTION_CLASSES)

# How each field is read: an index, points, a flag, a card, a list of cards, a list of lists.
_KINDS = {
    "player": "index", "side": "index", "points": "points", "nineteens": "points",
    "with_crib": "flag",
    "card": "card", "cards": "cards", "crib": "cards", "hands": "hands",
}


def _field_specs(cls: type[Any]) -> tuple[tuple[str, bool], ...]:
    """(name, required) of each field of an action class."""
    from dataclasses import MISSING

    return tuple((f.name, f.default is MISSING) for f in fields(cls))


_SPECS = {name: _field_specs(cls) for name, cls in ACTION_CLASSES.items()}


def parse_action(data: Any) -> Action:
    """The typed action for a JSON action; raises InvalidActionError naming what is wrong."""
    if isinstance(data, _CLASSES):
        if _well_typed(data):
            return data  # type: ignore[return-value]
        # Built in Python with a wrong field type (Peg(side="0"), Count(points=2.0)): read
        # its JSON form, which either makes it right (card texts become cards) or names
        # the field, rather than letting a TypeError out of the game later.
        return parse_action(format_action(data))  # type: ignore[arg-type]
    if not isinstance(data, Mapping):
        raise InvalidActionError(f"an action is a dict with a 'type', not {data!r}",
                                 say="That isn't something the table can do.")
    kind = data.get("type")
    cls = ACTION_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidActionError(
            f"unknown action type {kind!r}; the types are {', '.join(ACTION_TYPES)}",
            say=f"{kind!r} isn't something the table can do." if isinstance(kind, str) else
            "That isn't something the table can do.")
    specs = _SPECS[kind]
    names = {n for n, _ in specs}
    extra = sorted(k for k in data if k != "type" and k not in names)
    if extra:
        raise InvalidActionError(f"{_text(data)}: unknown field {extra[0]!r} for {kind}",
                                 say=f"A {kind} has no {extra[0]!r}.")
    values: dict[str, Any] = {}
    for name, required in specs:
        if name not in data or (data[name] is None and not required):
            if required:
                raise InvalidActionError(f"{_text(data)}: {kind} needs {name!r}",
                                         say=f"A {kind} needs its {name}.")
            continue
        values[name] = _read(data, kind, name, data[name])
    return cls(**values)  # type: ignore[no-any-return]


_CLASSES = tuple(ACTION_CLASSES.values())


def _is_cards(value: Any) -> bool:
    return type(value) is tuple and all(type(x) is Card for x in value)


_TYPED = {
    "index": lambda v: type(v) is int, "points": lambda v: type(v) is int,
    "flag": lambda v: type(v) is bool,
    "card": lambda v: type(v) is Card, "cards": _is_cards,
    "hands": lambda v: type(v) is tuple and all(_is_cards(h) for h in v),
}


def _well_typed(action: Any) -> bool:
    """Whether a typed action's fields hold what `parse_action` would have made."""
    for name, required in _SPECS[action.type]:
        value = getattr(action, name)
        if value is None and not required:
            continue
        if not _TYPED[_KINDS[name]](value):
            return False
    return True


def _read(data: Mapping[str, Any], kind: str, name: str, value: Any) -> Any:
    how = _KINDS[name]
    if how in ("index", "points"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidActionError(
                f"{_text(data)}: {name} must be a whole number, not {value!r}",
                say=f"The {name} of a {kind} must be a whole number, not {value!r}.")
        return value
    if how == "flag":
        if not isinstance(value, bool):
            raise InvalidActionError(f"{_text(data)}: {name} must be true or false, not {value!r}",
                                     say=f"The {name} of a {kind} must be true or false, not "
                                     f"{value!r}.")
        return value
    if how == "card":
        return _card(data, value)
    if how == "cards":
        return _cards(data, name, value)
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidActionError(f"{_text(data)}: {name} must be a list of lists of cards",
                                 say="The deal must list each player's cards.")
    return tuple(_cards(data, name, h) for h in value)


def _cards(data: Mapping[str, Any], name: str, value: Any) -> Cards:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidActionError(f"{_text(data)}: {name} must be a list of cards, not {value!r}",
                                 say="The cards must be a list, like [\"5H\", \"JD\"].")
    return tuple(_card(data, x) for x in value)


def _card(data: Mapping[str, Any], value: Any) -> Card:
    try:
        return Card.parse(value)
    except CribbageError as exc:
        raise InvalidActionError(
            f"{_text(data)}: {exc}",
            say=f"{value!r} isn't a card: write the rank then the suit, like 5H or 10♥.",
        ) from None


# A card's text as `Card.parse` reads it: rank then suit (5H, 10h, TH, 5♥, 5♡), with spaces
# around it and the emoji variation selectors phones add anywhere in it.
_VS = "[\ufe0e\ufe0f]*"
CARD_PATTERN = (r"^\s*" + _VS + "(?:[2-9AaJjQqKkTt]|1" + _VS + "0)" + _VS
                + "[CDHScdhs♣♦♥♠♧♢♡♤]" + _VS + r"\s*$")
"""The JSON Schema pattern of a card's text: exactly the texts `Card.parse` reads."""


def _field_schema(kind: str) -> dict[str, Any]:
    card = {"type": "string", "pattern": CARD_PATTERN}
    cards = {"type": "array", "items": card}
    return {"index": {"type": "integer"}, "points": {"type": "integer"},
            "flag": {"type": "boolean"}, "card": card,
            "cards": cards, "hands": {"type": "array", "items": cards}}[kind]


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one action: exactly what `parse_action` reads, one branch per type.

    Whole numbers are whole numbers (1.0 is refused, as JSON Schema would not say); an
    optional field may be null. Whether the action is allowed now is the game's business.
    """
    branches = []
    for kind, cls in ACTION_CLASSES.items():
        props: dict[str, Any] = {"type": {"const": kind}}
        required = ["type"]
        for name, needed in _SPECS[kind]:
            one = _field_schema(_KINDS[name])
            props[name] = one if needed else {"anyOf": [one, {"type": "null"}]}
            if needed:
                required.append(name)
        branches.append({
            "title": cls.__name__, "description": (cls.__doc__ or "").strip().splitlines()[0],
            "type": "object", "properties": props, "required": required,
            "additionalProperties": False,
        })
    return {"oneOf": branches}


def format_action(action: Action) -> dict[str, Any]:
    """The canonical JSON form of an action (the inverse of `parse_action`)."""
    return action.to_json()


def _text(data: Mapping[str, Any]) -> str:
    kind = data.get("type")
    detail = ", ".join(f"{k}={v!r}" for k, v in data.items() if k != "type")
    return f"action {kind}" + (f" ({detail})" if detail else "")


def action_text(action: Action | Mapping[str, Any]) -> str:
    """An action in a few words for error messages: `action count (points=25)`."""
    data = action if isinstance(action, Mapping) else format_action(action)
    return _text(data)


__all__ = [
    "ACTION_CLASSES",
    "ACTION_TYPES",
    "CARD_PATTERN",
    "Action",
    "Jsonable",
    "Count",
    "Cut",
    "Deal",
    "Dealer",
    "Discard",
    "Go",
    "Heels",
    "LatePeg",
    "Muggins",
    "NextGame",
    "Peg",
    "Play",
    "Redo",
    "Starter",
    "Undo",
    "action_text",
    "format_action",
    "json_schema",
    "json_value",
    "parse_action",
]
