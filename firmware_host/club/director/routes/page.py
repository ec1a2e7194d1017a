"""The pages: the standings screen at `/` and the director's page at `/director` (its
actions need the token, which the page asks for); static files shipped in the package,
nothing from outside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from firmware_host.club.director.routes.deps import Director, NightDep

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
# The page loads only its own files; no inline script, no frames, nothing from outside.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def index() -> Response:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html",
                        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"})


def director_page() -> Response:
    return FileResponse(STATIC_DIR / "director.html", media_type="text/html",
                        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache",
                                 "Referrer-Policy": "no-referrer"})


def whoami(night: NightDep, who: Director) -> dict[str, Any]:
    """200 with the token (the director's page checks it so), 401 without."""
    return {"ok": True, "who": who, "club": night.config.club, "night": night.night}


def router() -> APIRouter:
    r = APIRouter(include_in_schema=False)
    r.add_api_route("/", index, methods=["GET"])
    r.add_api_route("/director", director_page, methods=["GET"])
    r.add_api_route("/api/director", whoami, methods=["GET"])
    return r
