"""The club's wire contract: MQTT topics and their JSON payloads, version 1.

Every payload is one JSON object with `"v": 1`; a receiver refuses a payload that is too big,
not JSON, of another version or not of its topic's shape (`PayloadError`, with a sentence),
and carries on. Names are what a table's page accepts (1-40 visible characters); club and
table names are lowercase slugs, because they are topic levels and broker user names.

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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cribbage.rules import ResultKind

VERSION = 1
PREFIX = f"crib/v{VERSION}"
MAX_PAYLOAD = 16 * 1024  # bytes: the biggest payload (standings of 64 players) is under 8 KiB
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
DIRECTOR_USER = "director"
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
    if value == DIRECTOR_USER and what == "table":
        raise ValueError(f"table {value!r}: that name is the director's")
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
Name = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]*\S")]
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
    at: float  # the table's clock, seconds since the epoch


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
    finished_at: float
    rev: int = Field(0, ge=0, le=1000)
    void: bool = False  # the table took this game's win back

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
    rows: list[StandingRow] = Field(max_length=200)
    at: float


P = TypeVar("P", bound=_Payload)
LEAVES: dict[str, type[_Payload]] = {
    "online": Online, "state": TableState, "results": GameResult,
    "seating": Seating, "counted": Counted,
}


def encode(payload: _Payload) -> bytes:
    """The payload as compact JSON bytes."""
    return payload.model_dump_json().encode()


def decode(kind: type[P], data: bytes) -> P:
    """A payload of class `kind` from its bytes; raises PayloadError saying what is wrong
    (too big, not JSON, another version, a field missing or of the wrong type)."""
    if len(data) > MAX_PAYLOAD:
        raise PayloadError(f"{kind.__name__}: {len(data)} bytes, over the {MAX_PAYLOAD} allowed")
    try:
        raw: Any = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise PayloadError(f"{kind.__name__}: not JSON ({exc})") from None
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
        raise PayloadError(f"{kind.__name__}: {where}: {first['msg']} "
                           f"({exc.error_count()} problem(s))") from None
