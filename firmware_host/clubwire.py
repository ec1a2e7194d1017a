"""The club's wire contract: MQTT topics and their JSON payloads, version 1.

Every payload is one JSON object with `"v": 1`; a receiver refuses a payload that is too big,
not JSON (NaN and Infinity included), nested too deep, of another version or not of its
topic's shape (`PayloadError`, with a sentence), and carries on. Names are what a table's
page accepts (1-40 characters, a visible one among them, no control, zero-width or
direction character); club and table names are lowercase slugs, because they are topic
levels and broker user names. A result agrees with itself by the engine's rules: its id
starts with its table's name, exactly one side reached the target, and its winner and kind
are what `cribbage.rules.result_of` says of its scores, target and skunk rule.

Topics (`{club}` and `{table}` are slugs):

| topic                                   | from     | retained | QoS | payload   |
|-----------------------------------------|----------|----------|-----|-----------|
| crib/v1/{club}/tables/{table}/online    | table    | yes      | 1   | Online (will: false) |
| crib/v1/{club}/tables/{table}/state     | table    | yes      | 0   | TableState |
| crib/v1/{club}/tables/{table}/results   | table    | no       | 1   | GameResult |
| crib/v1/{club}/tables/{table}/seating   | director | yes      | 1   | Seating    |
| crib/v1/{club}/tables/{table}/counted   | director | yes      | 1   | Counted    |
| crib/v1/{club}/standings                | director | yes      | 1   | Standings  |
| homeassistant/sensor/{table}/{object}/config | table | yes   | 1   | Home Assistant discovery |

A result stays in the table's outbox until the director's `counted` lists its id and
revision (`"{id}@{rev}"`): the table sends it again on every reconnect until then, and the
director counts each id once, at its highest revision. An undo at the table that takes a
sent game's win back sends the same id with `rev` + 1 and `void` true; winning it again
sends `rev` + 2, not void.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from cribbage.errors import InvalidOptionError
from cribbage.rules import ResultKind, SkunkRule, result_of
from firmware_host.logs import unsafe_chars

VERSION = 1
PREFIX = f"crib/v{VERSION}"
MAX_PAYLOAD = 16 * 1024  # bytes: the biggest payload (standings of 64 players) is under 8 KiB
MAX_DEPTH = 8  # the deepest real payload (standings: object, list, object) is 3 levels
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
DIRECTOR_USER = "director"
# Broker user names a table may not take: the director's, and names a reader would take
# for the broker's or the director's own.
RESERVED = frozenset({DIRECTOR_USER, "admin", "root", "mosquitto", "broker", "club",
                      "standings", "all"})
SKUNK_RULES = tuple(rule.value for rule in SkunkRule)
# How a game was won: the engine's names, never listed again here.
RESULT_KINDS = tuple(kind.value for kind in ResultKind)
Kind = Literal[RESULT_KINDS]  # type: ignore[valid-type]


class PayloadError(ValueError):
    """A payload that is not what its topic carries: the sentence says what is wrong."""


def check_slug(what: str, value: str) -> str:
    """`value` if it is a slug (a-z, 0-9, '-', 1-32, first a letter or digit); raises
    ValueError naming `what` otherwise."""
    if not SLUG.match(value):
        raise ValueError(f"{what} {value!r}: use 1-32 lowercase letters, digits and '-', "
                         "starting with a letter or digit")
    if value in RESERVED and what == "table":
        raise ValueError(f"table {value!r}: that name is reserved (the director's or the "
                         "broker's); name the table t1, t2, ... or after its place")
    return value


# -- topics ---------------------------------------------------------------------------------
def table_topic(club: str, table: str, leaf: str) -> str:
    """`crib/v1/{club}/tables/{table}/{leaf}`."""
    return f"{PREFIX}/{club}/tables/{table}/{leaf}"


def standings_topic(club: str) -> str:
    """`crib/v1/{club}/standings`."""
    return f"{PREFIX}/{club}/standings"


def parse_table_topic(club: str, topic: str) -> tuple[str, str] | None:
    """(table, leaf) of a table topic of this club, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) != 6 or parts[:2] != ["crib", f"v{VERSION}"] or parts[2] != club \
            or parts[3] != "tables" or not SLUG.match(parts[4]):
        return None
    return parts[4], parts[5]


# -- payloads -------------------------------------------------------------------------------
def _shown(name: str) -> str:
    """`name` if it holds no control, zero-width or direction character; raises ValueError
    naming them."""
    bad = unsafe_chars(name)
    if bad:
        raise ValueError(f"the name holds {', '.join(bad)}: no control, zero-width or "
                         "direction characters")
    return name


Name = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^\s*\S.*$"),
                 AfterValidator(_shown)]
Slug = Annotated[str, Field(pattern=SLUG.pattern)]
Score = Annotated[int, Field(ge=0, le=1000)]


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    v: Literal[1] = VERSION


class Online(_Payload):
    """A table's presence: true while connected (the broker publishes the will's false)."""

    online: bool


class Side(BaseModel):
    """One side of a game: its players' names (one, or two partners) and its score."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    names: list[Name] = Field(min_length=1, max_length=2)
    score: Score
    back: Score | None = None  # the back peg, in live state


class LiveGame(BaseModel):
    """The game on a table now, as the board shows it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: int = Field(ge=1)
    variant: str = Field(max_length=32)
    target: Score
    sides: list[Side] = Field(min_length=2, max_length=3)
    dealer: Name | None = None  # who deals this hand
    hand: int = Field(ge=0)  # hands dealt so far
    phase: str = Field(max_length=32)
    winner: int | None = Field(None, ge=0, le=2)


class TableState(_Payload):
    """A table's live state (retained): its game, or none, and the round it is seated for."""

    table: Slug
    game: LiveGame | None = None
    round: int | None = Field(None, ge=1, le=99)
    at: float = Field(ge=0, allow_inf_nan=False)  # the table's clock, seconds since 1970


def check_result(sides: list[tuple[int, ...]] | list[int], target: int, skunk: str,
                 winner: int, kind: str) -> None:
    """Raises ValueError unless the scores make `winner` win by `kind` in a game to `target`
    with `skunk`'s lines (the engine's `result_of` decides; nothing here counts)."""
    scores = [int(s) for s in sides]  # type: ignore[arg-type]
    try:
        result = result_of(scores, target, skunk)
    except InvalidOptionError as exc:
        raise ValueError(str(exc)) from None
    if result is None:
        raise ValueError(f"scores {'-'.join(map(str, scores))}: nobody reached {target}")
    if max(scores) != target:
        raise ValueError(f"scores {'-'.join(map(str, scores))}: the winner's peg stops at "
                         f"{target}, the game hole")
    if result.winner != winner:
        raise ValueError(f"scores {'-'.join(map(str, scores))}: side {result.winner} won, "
                         f"not side {winner}")
    if result.kind.value != kind:
        raise ValueError(f"scores {'-'.join(map(str, scores))} to {target} ({skunk} lines): "
                         f"a {result.kind.value}, not a {kind}")


class GameResult(_Payload):
    """One finished game: sent until the director counts it; `id` is unique in the club."""

    id: str = Field(min_length=3, max_length=80, pattern=r"^[A-Za-z0-9._:-]+$")
    table: Slug
    night: str | None = Field(None, max_length=40)  # the seating's night, when seated
    round: int | None = Field(None, ge=1, le=99)  # the seating's round, when seated
    sides: list[Side] = Field(min_length=2, max_length=3)
    winner: int = Field(ge=0, le=2)
    kind: Kind
    target: Score
    variant: str = Field(max_length=32)
    skunk: Literal[SKUNK_RULES] = "skunk"  # type: ignore[valid-type]  # the game's lines
    finished_at: float = Field(ge=0, allow_inf_nan=False)
    rev: int = Field(0, ge=0, le=1000)
    void: bool = False  # the table took this game's win back

    @model_validator(mode="after")
    def _agrees(self) -> GameResult:
        if not self.id.startswith(f"{self.table}."):
            raise ValueError(f"id {self.id!r} is not table {self.table!r}'s (ids start "
                             f"with '{self.table}.')")
        if self.winner >= len(self.sides):
            raise ValueError(f"winner {self.winner}: there are {len(self.sides)} sides")
        check_result([s.score for s in self.sides], self.target, self.skunk, self.winner,
                     self.kind)
        return self

    def counted_key(self) -> str:
        """How the director's `counted` names this revision: "{id}@{rev}"."""
        return f"{self.id}@{self.rev}"


class Seating(_Payload):
    """The director's seating of one table for a round (retained): who plays there, and
    the game to start; `names` empty for a table with nobody this round."""

    night: str = Field(max_length=40)
    round: int = Field(ge=1, le=99)
    table: Slug
    names: list[Name] = Field(max_length=2)
    target: Score = 121
    variant: Literal["six-card"] = "six-card"
    skunk: str = Field("skunk", max_length=16)
    muggins: bool = False


class Counted(_Payload):
    """The results from this table that the director has counted (retained), each as
    "{id}@{rev}"."""

    night: str = Field(max_length=40)
    ids: list[str] = Field(max_length=400)


class StandingRow(BaseModel):
    """One player's line of the standings."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    place: int = Field(ge=1)
    name: Name
    game_points: int
    won: int = Field(ge=0)
    lost: int = Field(ge=0)
    skunks: int = Field(ge=0)
    spread: int
    played: int = Field(ge=0)


class Standings(_Payload):
    """The night's standings after the results counted so far (retained)."""

    night: str = Field(max_length=40)
    round: int = Field(ge=0, le=99)
    rows: list[StandingRow] = Field(max_length=1000)
    at: float = Field(ge=0, allow_inf_nan=False)


P = TypeVar("P", bound=_Payload)
LEAVES: dict[str, type[_Payload]] = {
    "online": Online, "state": TableState, "results": GameResult,
    "seating": Seating, "counted": Counted,
}


def encode(payload: _Payload) -> bytes:
    """The payload as compact JSON bytes."""
    return payload.model_dump_json().encode()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _depth(value: Any) -> int:
    """How deep lists and objects nest in `value` (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def decode(kind: type[P], data: bytes) -> P:
    """A payload of class `kind` from its bytes; raises PayloadError saying what is wrong
    (too big, not JSON, another version, a field missing or of the wrong type)."""
    if len(data) > MAX_PAYLOAD:
        raise PayloadError(f"{kind.__name__}: {len(data)} bytes, over the {MAX_PAYLOAD} allowed")
    try:
        raw: Any = json.loads(data, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise PayloadError(f"{kind.__name__}: not JSON ({exc})") from None
    except RecursionError:
        raise PayloadError(f"{kind.__name__}: nested deeper than JSON can be read") from None
    if _depth(raw) > MAX_DEPTH:
        raise PayloadError(f"{kind.__name__}: nested deeper than {MAX_DEPTH} levels")
    if not isinstance(raw, dict):
        raise PayloadError(f"{kind.__name__}: not a JSON object")
    if raw.get("v") != VERSION:
        raise PayloadError(f"{kind.__name__}: version {raw.get('v')!r}, this side speaks "
                           f"{VERSION}")
    try:
        return kind.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        msg = first["msg"].removeprefix("Value error, ")
        raise PayloadError(f"{kind.__name__}: {where}: {msg} "
                           f"({exc.error_count()} problem(s))") from None
