"""The rounds: seat the next one over the tables."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from firmware_host.club.director.night import DirectorError
from firmware_host.club.director.routes.deps import Director, NightDep


class RoundIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    force: bool = False  # seat it even while the last round's games are not all in


def get_rounds(night: NightDep) -> dict[str, Any]:
    return {"night": night.night, "rounds": night.view()["rounds"]}


def post_round(body: RoundIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Seat the next round, publish each table's seating, return the round and its byes;
    409 while a tournament runs tonight (its rotation seats the rounds)."""
    from firmware_host.club.director.routes.tournament import running

    if running(night):
        raise DirectorError(409, "tournament_running",
                            "a tournament runs tonight: seat its rounds with "
                            "POST /api/tournament/rounds")
    return night.seat_round(force=body.force)


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/rounds", get_rounds, methods=["GET"])
    r.add_api_route("/api/rounds", post_round, methods=["POST"], status_code=201)
    return r
