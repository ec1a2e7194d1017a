"""The night's players: registered in order by the director."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, field_validator

from firmware_host.club.director.routes.deps import Director, NightDep
from firmware_host.clubwire import Name
from firmware_host.logs import unsafe_chars


class PlayersIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: Annotated[list[Name], Field(min_length=1, max_length=200)]

    @field_validator("names")
    @classmethod
    def _printable(cls, names: list[str]) -> list[str]:
        # The wire's Name pattern lets a control character through after the first one.
        for name in names:
            bad = unsafe_chars(name)
            if bad:
                raise ValueError(f"the name {name!r} has {', '.join(bad)}: use letters, "
                                 "digits, spaces and punctuation")
        return names


class LeaveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: Annotated[list[Name], Field(min_length=1, max_length=200)]
    back: bool = False  # they come back


def get_players(night: NightDep) -> dict[str, Any]:
    return {"night": night.night, "players": night.players(), "present": night.present()}


def post_leave(body: LeaveIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Players leave (or come back) before the next round; their games stay counted."""
    return {"night": night.night, "players": night.players(),
            "present": night.leave(body.names, back=body.back)}


def post_players(body: PlayersIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Register players (after those already in), in the order given."""
    return {"night": night.night, "players": night.register(body.names)}


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/players", get_players, methods=["GET"])
    r.add_api_route("/api/players", post_players, methods=["POST"])
    r.add_api_route("/api/players/leave", post_leave, methods=["POST"])
    return r
