"""The table's club: its link to the night's broker, and the game the director seated here."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from firmware_host.api.deps import ERRORS, Operator, Svc


class ClubStartIn(BaseModel):
    """Nothing: the seating says who plays and how."""

    model_config = ConfigDict(extra="forbid", strict=True)


def club(services: Svc) -> dict[str, Any]:
    """On or off, connected, results waiting, the line the page shows, the seating."""
    return services.club.describe()


def start(body: ClubStartIn, _: Operator, services: Svc) -> JSONResponse:
    """Start the game the director seated at this table (names, target, rules); 409 with
    a sentence when there is no seating."""
    d = services.settings.game
    entry = services.club.start_seated({"mode": d.mode})
    return JSONResponse(entry.body(), status_code=201)


def router() -> APIRouter:
    r = APIRouter(prefix="/api/club", tags=["club"], responses=ERRORS)
    r.add_api_route("", club, methods=["GET"])
    r.add_api_route("/start", start, methods=["POST"], status_code=201)
    return r
