"""The standings page: static files shipped in the package, nothing from outside."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
# The page loads only its own files; no inline script, no frames, nothing from outside.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def index() -> Response:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html",
                        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"})


def router() -> APIRouter:
    r = APIRouter(include_in_schema=False)
    r.add_api_route("/", index, methods=["GET"])
    return r
