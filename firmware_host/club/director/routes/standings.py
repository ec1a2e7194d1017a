"""Read-only, no token: the standings, the tables, the whole night, the health."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from firmware_host.club.director.routes.deps import NightDep


def get_standings(night: NightDep) -> dict[str, Any]:
    """The standings (the Standings payload of the broker's standings topic)."""
    return night.standings().model_dump(mode="json")


def get_tables(night: NightDep, request: Request) -> dict[str, Any]:
    """The tables in their order with their live game, presence and seat; this round's
    byes; the results not counted; the tables' open disputes."""
    intake = request.app.state.intake
    rounds = night.rounds()
    return {"night": night.night, "round": night.current_round(), "tables": night.tables(),
            "order": night.table_order(), "byes": rounds[-1]["byes"] if rounds else [],
            "unmatched": night.unmatched(), "disputes": night.disputes(open_only=True),
            "broker": {"connected": bool(intake and intake.connected),
                       "line": intake.status() if intake else "broker: not started"}}


def get_night(night: NightDep) -> dict[str, Any]:
    """Players, rounds with their seating, results with their corrections, tables."""
    return night.view()


def get_health(night: NightDep, request: Request) -> dict[str, Any]:
    """Whether the director has its broker, and where the night is."""
    intake = request.app.state.intake
    connected = bool(intake and intake.connected)
    return {"ok": connected, "club": night.config.club, "night": night.night,
            "round": night.current_round(), "broker": {
                "connected": connected,
                "line": intake.status() if intake else "broker: not started"}}


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/standings", get_standings, methods=["GET"])
    r.add_api_route("/api/tables", get_tables, methods=["GET"])
    r.add_api_route("/api/night", get_night, methods=["GET"])
    r.add_api_route("/api/health", get_health, methods=["GET"])
    return r
