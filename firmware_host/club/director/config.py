"""The director's configuration: one TOML file (`/etc/cribbage-table/club.toml` or
`--config FILE`), checked by pydantic; every error names its key."""

from __future__ import annotations

import datetime
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cribbage import tournament
from cribbage.rules import SkunkRule
from firmware_host.clubwire import check_slug

DEFAULT_CONFIG = Path("/etc/cribbage-table/club.toml")


class DirectorConfigError(ValueError):
    """A configuration that cannot be used: the sentence names the file and the key."""


Port = Annotated[int, Field(ge=1, le=65535)]


class DirectorConfig(BaseModel):
    """What `crib club serve` needs: the club, its broker, the page's address, the night."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    club: str
    broker: str = "127.0.0.1"
    port: Port = 1883
    password: str = ""
    password_file: str = ""
    tls: bool = False
    ca_file: str = ""
    host: str = "0.0.0.0"
    http_port: Port = 8080
    state_dir: Path = Path("/var/lib/cribbage-club")
    night: str = Field("", max_length=40)
    target: int = Field(121, ge=31, le=1000)
    skunk: str = "skunk"  # the lines of tonight's games: a SkunkRule's value
    rounds: int = Field(9, ge=1, le=40)  # the evening's planned rounds (picks the rotation)
    bye_points: int = Field(2, ge=0, le=3)
    tiebreaks: list[str] = Field(default_factory=lambda: ["game_points", "won", "spread"],
                                 min_length=1, max_length=4)
    tables: list[str] = Field(default_factory=list, max_length=1000)
    allowed_hosts: list[str] = Field(default_factory=list)
    session_expiry: int = Field(7 * 24 * 3600, ge=60)  # seconds the broker keeps our queue
    log_level: str = Field("info", pattern=r"^(debug|info|warning|error)$")

    @field_validator("club")
    @classmethod
    def _club(cls, value: str) -> str:
        return check_slug("club", value)

    @field_validator("skunk")
    @classmethod
    def _skunk(cls, value: str) -> str:
        rules = [rule.value for rule in SkunkRule]  # the engine's, never listed again
        if value not in rules:
            raise ValueError(f"{value!r} is not a skunk rule: use one of {', '.join(rules)}")
        return value

    @field_validator("tiebreaks")
    @classmethod
    def _tiebreaks(cls, value: list[str]) -> list[str]:
        bad = [t for t in value if t not in tournament.TIEBREAKS]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a break: use some of "
                             f"{', '.join(tournament.TIEBREAKS)}, in order")
        if len(set(value)) != len(value):
            raise ValueError("a break is listed twice")
        return value

    @field_validator("tables")
    @classmethod
    def _tables(cls, value: list[str]) -> list[str]:
        for name in value:
            check_slug("table", name)
        if len(set(value)) != len(value):
            raise ValueError("a table is listed twice")
        return value

    def night_name(self, today: datetime.date | None = None) -> str:
        """The night's name: `night`, or today's date ("2026-12-02")."""
        return self.night or (today or datetime.date.today()).isoformat()

    def broker_password(self) -> str:
        """The director's broker password, from `password` or `password_file`; raises
        DirectorConfigError naming the key when neither gives one."""
        if self.password:
            return self.password
        if self.password_file:
            try:
                text = Path(self.password_file).read_text().strip()
            except OSError as exc:
                raise DirectorConfigError(
                    f"password_file {self.password_file}: cannot read it ({exc.strerror})"
                ) from None
            if text:
                return text
            raise DirectorConfigError(f"password_file {self.password_file}: it is empty")
        raise DirectorConfigError("password: the broker's director user needs one "
                                  "(password = \"...\" or password_file = \"/path\")")


def load_config(path: Path | str | None = None) -> DirectorConfig:
    """The configuration in `path` (default /etc/cribbage-table/club.toml); raises
    DirectorConfigError naming the file and the key."""
    file = Path(path) if path else DEFAULT_CONFIG
    try:
        with file.open("rb") as fh:
            raw = tomllib.load(fh)
    except FileNotFoundError:
        raise DirectorConfigError(f"config {file}: no such file (write it as docs/club.md "
                                  "shows, or give --config FILE)") from None
    except OSError as exc:
        raise DirectorConfigError(f"config {file}: cannot read it ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DirectorConfigError(f"config {file}: not TOML ({exc})") from None
    try:
        return DirectorConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in first["loc"]) or "?"
        if first["type"] == "extra_forbidden":
            sentence = "not a setting of the director"
        elif first["type"] == "missing":
            sentence = "missing (it is required)"
        else:
            sentence = first["msg"].removeprefix("Value error, ")
        raise DirectorConfigError(f"config {file}: key {key!r}: {sentence}") from None
