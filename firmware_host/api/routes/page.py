"""The phone page: index.html and its static files, served by the daemon itself."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, PlainTextResponse, Response

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"


def index() -> Response:
    page = STATIC_DIR / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return PlainTextResponse("the page is not installed; the API is described at /openapi.json")


def router() -> APIRouter:
    r = APIRouter(include_in_schema=False)
    r.add_api_route("/", index, methods=["GET"])
    return r
