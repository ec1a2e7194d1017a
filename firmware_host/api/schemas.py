"""Request and response bodies of the HTTP API, named by direction (…In, …Out)."""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from cribbage.actions import ACTION_TYPES
from cribbage.actions import json_schema as action_json_schema
from cribbage.rules import RULES
from firmware_host.config import SKUNK_RULES, TARGET_MAX, TARGET_MIN
from firmware_host.logs import UNSAFE_CLASS, unsafe_chars

Variant = Literal[tuple(RULES)]  # type: ignore[valid-type]  # the engine's variants


# What the schema promises is what validation accepts (the fuzz contract): integers with
# bounds, names and cards that are not blank. (An integral float like 1.0, which JSON Schema
# counts as an integer, is still refused: bodies are strict, never coerced.)
def _shown_name(name: str) -> str:
    """A name every screen, log and sheet shows as typed: no control, zero-width or direction
    characters (they hide text, reorder it, or start a forged log line)."""
    bad = unsafe_chars(name)
    if bad:
        raise PydanticCustomError(
            "name_characters",
            "the name holds {chars}: a name may not hold control, zero-width or "
            "direction characters; type it again with letters, digits and spaces",
            {"chars": ", ".join(bad)})
    return name


# The pattern says in JSON Schema what the validator checks: a visible character, and none
# of the characters `escape` rewrites.
NAME_PATTERN = f"^[^{UNSAFE_CLASS}]*[^{UNSAFE_CLASS}\\s][^{UNSAFE_CLASS}]*$"
Name = Annotated[str, Field(min_length=1, max_length=40, pattern=r"\S",
                            json_schema_extra={"pattern": NAME_PATTERN}),
                 AfterValidator(_shown_name)]
# A card's text: the schema says what the engine's `Card.parse` reads (the engine refuses the
# rest with its own sentence): rank then suit, a variation selector after either and a space
# or two around (the engine's CARD_PATTERN, bounded to the 8 characters a card may take),
# and a list of cards holds no text twice.
_VS = "[\ufe0e\ufe0f]?"
CARD_TEXT_PATTERN = (r"^\s{0,2}" + _VS + "(?:[2-9AaJjQqKkTt]|1" + _VS + "0)" + _VS
                     + "[CDHScdhs♣♦♥♠♧♢♡♤]" + _VS + r"\s{0,2}$")
CardText = Annotated[str, Field(min_length=2, max_length=8, pattern=r"\S",
                                json_schema_extra={"pattern": CARD_TEXT_PATTERN})]
UNIQUE = {"uniqueItems": True}


class _In(BaseModel):
    # Strict: a wrong type is refused (422), never coerced ("1" or true as a version, "yes"
    # as muggins); subclasses' model_config is merged with this one.
    model_config = ConfigDict(extra="forbid", strict=True)


def _players_branches(schema: dict[str, Any]) -> None:
    """What the engine refuses of a new game, said in the schema: as many names as the
    variant has players (a left-out variant is the configured one, or the one of that many
    players), no name twice, and a dealer among the players."""
    by_count: dict[int, list[str]] = {}
    for name, rules in RULES.items():
        by_count.setdefault(rules.players, []).append(name)
    schema["properties"]["names"]["uniqueItems"] = True
    schema["anyOf"] = [
        {"properties": {"names": {"minItems": n, "maxItems": n},
                        "variant": {"enum": [*variants, None]},
                        "dealer": {"anyOf": [{"type": "integer", "minimum": 0,
                                              "maximum": n - 1}, {"type": "null"}]}}}
        for n, variants in sorted(by_count.items())]
    schema["examples"] = [{"variant": "six-card", "names": ["Ann", "Bob"]}]


class GameCreateIn(_In):
    """A new game; left-out options take the configured defaults (a left-out variant that
    does not take as many players as there are names is the one that does)."""

    variant: Variant | None = None
    names: list[Name] = Field(min_length=2, max_length=4)
    target: int | None = Field(None, ge=TARGET_MIN, le=TARGET_MAX)
    skunk: Literal[SKUNK_RULES] | None = None  # type: ignore[valid-type]
    muggins: bool | None = None
    mode: Literal["keeper", "cards"] | None = None
    dealer: int | None = Field(None, ge=0, le=3)

    model_config = ConfigDict(extra="forbid", json_schema_extra=_players_branches)


def _engine_action_schema(schema: dict[str, Any]) -> None:
    """The schema of an action is the engine's (`cribbage.actions.json_schema`): exactly what
    its one parser reads, so the two cannot drift apart."""
    title = schema.get("title")
    schema.clear()
    schema.update({"title": title, "description": "One game action: `type` plus its fields "
                   "(docs/contracts.md section 1).", **action_json_schema()})


class ActionBodyIn(BaseModel):
    """One game action: `type` plus its fields (see docs/contracts.md section 1).

    Only the type is checked here; the engine's parser reads the fields, so that a malformed
    action is refused with the engine's sentence for the table (`say`).
    """

    model_config = ConfigDict(extra="allow", json_schema_extra=_engine_action_schema)

    type: Literal[ACTION_TYPES]  # type: ignore[valid-type]


VERSION_MAX = 2**53
OP_ID_MAX = 100
NEVER_FIRST = ("next_game", "undo", "redo", "muggins", "late_peg", "deal", "discard", "play",
               "go")
"""Action types no new game allows (API games are kept or have their cards entered: no
result, nothing to undo or redo, no count, no deal, no starter yet)."""


def _first_action(schema: dict[str, Any]) -> None:
    """The schema says what version 0 can never be: an action no new game allows."""
    schema["if"] = {"properties": {"version": {"const": 0}}}
    schema["then"] = {"properties": {"action": {"properties": {"type": {"not": {
        "enum": list(NEVER_FIRST)}}}}}}


class ActionIn(_In):
    """An action based on the game version the client saw, with its operation id (the
    published schema; the route reads the body once and types the action with the engine's
    own parser)."""

    version: int = Field(ge=0, le=VERSION_MAX)
    op_id: str = Field(min_length=1, max_length=OP_ID_MAX)
    action: ActionBodyIn

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_first_action)


class SideOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    players: list[int]
    front: int
    back: int


class GameOut(BaseModel):
    """A game: the engine's view plus its id and version (number of accepted actions)."""

    model_config = ConfigDict(extra="allow")
    id: int
    version: int
    variant: str
    mode: str
    target: int
    phase: str
    names: list[str]
    sides: list[SideOut]
    dealer: int | None = None
    legal: list[str] = []


class EventOut(BaseModel):
    """What an action did, in the engine's words (docs/contracts.md: events)."""

    model_config = ConfigDict(extra="allow")
    kind: str
    say: str


class ActionOut(BaseModel):
    game: GameOut
    op_id: str
    # Left out only by answers logged before events were kept (a repeated old op id).
    events: list[EventOut] = []


class ErrorOut(BaseModel):
    """Every error: one sentence naming the problem, and a machine name."""

    model_config = ConfigDict(extra="allow")
    error: str
    code: str


def _sized(sizes: dict[tuple[str, bool], int], flag: str | None) -> Any:
    """A schema hook: `hand` holds as many cards as its variant (left out: six-card) and
    `flag` (left out: false) say, `sizes[(variant, flag)]`. Each branch is a whole object
    schema (a size and flag), so a generator picks one and draws from it without discarding
    bodies."""

    def hook(schema: dict[str, Any]) -> None:
        grouped: dict[tuple[int, bool], list[str]] = {}
        for (variant, on), n in sorted(sizes.items()):
            grouped.setdefault((n, on), []).append(variant)
        branches = []
        for (n, on), variants in sorted(grouped.items()):
            props = copy.deepcopy(schema["properties"])
            props["hand"].update(minItems=n, maxItems=n)
            props["variant"] = {**props["variant"], "enum": variants}
            needed = list(schema.get("required", []))
            needed += [] if "six-card" in variants else ["variant"]
            if flag is not None:
                props[flag] = {**props[flag], "const": on}
                needed += [flag] if on else []
            branches.append({"type": "object", "properties": props, "required": needed,
                             "additionalProperties": False})
        schema["anyOf"] = branches

    return hook


def _count_sizes() -> dict[tuple[str, bool], int]:
    return {(v, crib): r.crib_size if crib else r.hand_size
            for v, r in RULES.items() for crib in (False, True)}


class CountIn(_In):
    """A hand (or crib) and its starter: as many cards as the variant's show has."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra=_sized(_count_sizes(), "crib"))

    hand: list[CardText] = Field(min_length=3, max_length=5, json_schema_extra=UNIQUE)
    starter: CardText
    crib: bool = False
    variant: Variant = "six-card"


class CombinationOut(BaseModel):
    kind: str
    cards: list[str]
    points: int


class CountOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    total: int
    say: str
    combinations: list[CombinationOut]


def _crib_models(schema: dict[str, Any]) -> None:
    """The engine's crib models (read when the schema is first asked for, not at import:
    the advisor's module is heavy); the engine refuses another with its sentence."""
    from cribbage.advisor import MODELS

    schema["enum"] = list(MODELS)


class AdviseIn(_In):
    """A hand as dealt (as many cards as the variant deals) and whether it is the dealer's."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_sized(
        {(v, False): r.deal for v, r in RULES.items()}, None))

    hand: list[CardText] = Field(min_length=5, max_length=6, json_schema_extra=UNIQUE)
    dealer: bool
    variant: Variant = "six-card"
    model: str = Field("random", min_length=1, max_length=30,
                       json_schema_extra=_crib_models)
    known: list[CardText] = Field(default_factory=list, max_length=52, json_schema_extra=UNIQUE)


class AdvisePlayIn(_In):
    """The play so far: the cards still in hand, the cards laid since the count was reset
    (in order), the count (left out: their total) and other cards out of play."""

    hand: list[CardText] = Field(min_length=1, max_length=6, json_schema_extra=UNIQUE)
    played: list[CardText] = Field(default_factory=list, max_length=13, json_schema_extra=UNIQUE)
    count: int | None = Field(None, ge=0, le=31)
    known: list[CardText] = Field(default_factory=list, max_length=52, json_schema_extra=UNIQUE)

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"hand": ["5H", "KD", "4C", "AS"], "played": ["KH"],
                                         "count": 10}]},
    )


class PlayOptionOut(BaseModel):
    card: str
    count: int
    now: int
    reply: float
    net: float
    reason: str


class PlayHintOut(BaseModel):
    """The card to play now (null: say go), why, and every playable card, best first."""

    card: str | None
    reason: str
    count: int
    unseen: int
    options: list[PlayOptionOut]


class ShuffleIn(_In):
    deck: Literal[52, 104] | None = None
    plan: Literal["random", "exact", "light"] | None = None


# A phone's token name: the pattern says what `auth.check_name` accepts (spaces around are
# trimmed), and check_name refuses the rest with its own sentence for the page.
TokenName = Annotated[str, Field(
    min_length=1, max_length=64,
    json_schema_extra={"pattern": r"^\s*[A-Za-z0-9][A-Za-z0-9 _.\-']{0,39}\s*$"})]


class PairIn(_In):
    """A token for the code on the board (typed on the phone that asked), or for a request
    approved by holding the board's undo button."""

    name: TokenName
    code: str | None = Field(None, pattern=r"^\s*\d{4,12}\s*$")
    request: str | None = Field(None, min_length=1, max_length=64)

    # One of the two is needed, as text (the handler says so in a sentence): the schema says
    # it too (a null is no code).
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"anyOf": [
            {"required": ["code"], "properties": {"code": {"type": "string"}}},
            {"required": ["request"], "properties": {"request": {"type": "string"}}}]},
    )


class PairStartIn(_In):
    """`hold`: this request is approved by holding undo, and its answer carries the code
    (to compare with the board's); it cannot be approved by typing the code."""

    hold: bool = False


class PairStartOut(BaseModel):
    request: str
    expires_s: float
    hold_s: float
    digits: int
    code: str | None = None


class TokenOut(BaseModel):
    token: str
    name: str


class SettingsIn(_In):
    brightness: int | None = Field(None, ge=0, le=255)
    palette: Literal["classic", "colorblind"] | None = None
    # The phone that reads the counts aloud (its own id; "" for none): one at the table.
    speaker: str | None = Field(None, pattern=r"^[0-9a-f]{0,32}$")

    @field_validator("brightness", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        """15.0 is the whole number 15 (JSON Schema's integer, JSON's number either way)."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class SettingsOut(BaseModel):
    brightness: int
    palette: str
    speaker: str = ""


class HealthOut(BaseModel):
    """"ok", or "degraded" with the problems in sentences (the storage refusing writes)."""

    status: Literal["ok", "degraded"]
    problems: list[str] = []
    version: str
    uptime_s: float
    devices: dict[str, dict[str, Any]]
    club: dict[str, Any] | None = None  # the club link: on, connected, results waiting


class PlanOut(BaseModel):
    """One shuffle plan for a deck: passes, distance to a random deck and a plain sentence."""

    plan: str
    deck_size: int
    routing: str
    passes: int
    tv_distance: float
    quality: str
    random: bool
    pass_s: float  # a pass on the machine as configured
    shuffle_s: float  # every pass and the player's restacks
    time: str  # both, as one line for the page
    # the hands-free build: the plan turns the deck over (an odd number of passes), so the
    # deck goes in face up to come back face down
    load_face_up: bool = False


class PlansOut(BaseModel):
    deck: int
    default: str  # the plan a touch or the page's one button starts
    build: Literal["handsfree", "lotus"]  # who restacks: the machine, or the player
    hands_free: bool
    plans: list[PlanOut]


class ShufflerStatusOut(BaseModel):
    """The shuffler's status (hardware.interfaces.ShufflerStatus); only `state` and `fault`
    while no shuffler is connected."""

    state: str  # idle, busy, waiting, fault, absent, lost, stopped
    fault: str | None = None  # what went wrong, with what to do
    deck_size: int | None = None
    routing: str | None = None  # coin, radix or light
    passes_total: int = 0
    passes_done: int = 0
    cards_this_pass: int = 0
    pile_counts: list[int] = Field(default_factory=list)  # [left, right] this pass
    tv_distance: float | None = None  # the plan's distance to a uniform deck, 0 = exact
    quality: str | None = None
    prompt: str | None = None  # what the player must do now, in words
    hands_free: bool = False  # the machine restacks the piles itself
    phase: Literal["pass", "restack", "paused"] | None = None  # paused: the lid is open
    restacks_done: int = 0
    seconds_left: float | None = None  # the machine's estimate to the deck being ready


class RacePointOut(BaseModel):
    """The scores after one accepted action (version 0 is the start)."""

    version: int
    game_number: int
    type: str | None
    scores: list[int]


class RaceOut(BaseModel):
    """A game's score race: each side's score after every accepted action."""

    id: int
    names: list[str]
    target: int
    race: list[RacePointOut]
