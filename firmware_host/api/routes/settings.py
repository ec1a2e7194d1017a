"""Settings the page may change (brightness, palette, the phone that speaks), and the daemon's
health."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.schemas import HealthOut, SettingsIn, SettingsOut
from firmware_host.version import version


def get_settings(services: Svc) -> dict[str, Any]:
    return services.board.settings_now()


def put_settings(body: SettingsIn, _: Operator, services: Svc) -> dict[str, Any]:
    return services.board.save_settings(body.brightness, body.palette, body.speaker)


def health(services: Svc) -> dict[str, Any]:
    status = services.status
    problems = status.problems()
    return {"status": "degraded" if problems else "ok", "problems": problems,
            "version": version(), "uptime_s": round(status.uptime(), 3),
            "devices": services.devices.describe(), "schema": services.store.schema_version(),
            "club": services.club.describe()}


def router() -> APIRouter:
    r = APIRouter(prefix="/api", tags=["settings"], responses=ERRORS)
    r.add_api_route("/settings", get_settings, methods=["GET"], response_model=SettingsOut)
    r.add_api_route("/settings", put_settings, methods=["PUT"], response_model=SettingsOut)
    r.add_api_route("/health", health, methods=["GET"], response_model=HealthOut)
    return r
