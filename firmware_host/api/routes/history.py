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
    rows: Literal["games", "hands"] = "games",
) -> Response:
    """Every game (or one) as a download: CSV score sheets as a player reads them, one row
    per game (`rows=games`) or per hand (`rows=hands`); JSON, the raw action log."""
    name = f"cribbage-{'game-' + str(game) if game else 'all'}"
    if format == "csv":
        from firmware_host import export as sheets  # the engine is loaded only when asked

        text = (sheets.hands_csv if rows == "hands" else sheets.games_csv)(services.store, game)
        return PlainTextResponse(
            text, media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="{name}-{rows}.csv"'},
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
        "description": "score sheets as CSV (a row per game or per hand), or the action log "
                       "as JSON, as a download",
        "content": {"application/json": {}, "text/csv": {"schema": {"type": "string"}}}}})
    return r
