"""The director's corrections of a result, and the settling of a table's dispute."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, field_validator

from firmware_host.club.director.routes.deps import Director, NightDep
from firmware_host.club.director.routes.players import PlayersIn
from firmware_host.clubwire import Kind, Name, Score


class CorrectionIn(BaseModel):
    """What to change (anything left out stays) and why."""

    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=1, max_length=200)]
    winner: Literal[0, 1] | None = None
    scores: Annotated[list[Score], Field(min_length=2, max_length=2)] | None = None
    kind: Kind | None = None
    names: Annotated[list[Name], Field(min_length=2, max_length=2)] | None = None
    round: Annotated[int, Field(ge=1, le=99)] | None = None
    void: bool | None = None

    @field_validator("names")
    @classmethod
    def _printable(cls, names: list[str] | None) -> list[str] | None:
        return None if names is None else PlayersIn._printable(names)


def post_correct(result_id: str, body: CorrectionIn, night: NightDep,
                 who: Director) -> dict[str, Any]:
    """Correct a result: kept in the log with the old and new values."""
    changes = body.model_dump(exclude={"reason"})
    return night.correct(result_id, changes, " ".join(body.reason.split()), who)


class ResolveIn(BaseModel):
    """Count the table's revision (`accept`), or keep the result as it counts; and why."""

    model_config = ConfigDict(extra="forbid", strict=True)

    accept: bool
    reason: Annotated[str, Field(min_length=1, max_length=200)]


def post_resolve(seq: int, body: ResolveIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Settle a dispute: kept in the log with the old and new values when accepted."""
    return night.resolve(seq, body.accept, " ".join(body.reason.split()), who)


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/results/{result_id}/correct", post_correct, methods=["POST"])
    r.add_api_route("/api/disputes/{seq}/resolve", post_resolve, methods=["POST"])
    return r
