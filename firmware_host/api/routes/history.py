"""Finished games, per-player statistics and exports."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from firmware_host.api.deps import ERRORS, Svc


def history(services: Svc) -> dict[str, Any]:
    return {"games": services.store.results()}


def stats(services: Svc) -> dict[str, Any]:
    return {"players": services.store.stats()}


def export(
    services: Svc,
    format: Literal["json", "csv"] = "json",
    game: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """Every game (or one) with its actions, as JSON or CSV, as a download."""
    name = f"cribbage-{'game-' + str(game) if game else 'all'}"
    if format == "csv":
        return PlainTextResponse(
            services.store.export_csv(game), media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="{name}.csv"'},
        )
    return JSONResponse(
        services.store.export_json(game),
        headers={"content-disposition": f'attachment; filename="{name}.json"'},
    )


def router() -> APIRouter:
    r = APIRouter(prefix="/api", tags=["history"], responses=ERRORS)
    r.add_api_route("/history", history, methods=["GET"])
    r.add_api_route("/stats", stats, methods=["GET"])
    r.add_api_route("/export", export, methods=["GET"], responses={200: {
        "description": "every game (or one) with its actions, as a download",
        "content": {"application/json": {}, "text/csv": {"schema": {"type": "string"}}}}})
    return r
