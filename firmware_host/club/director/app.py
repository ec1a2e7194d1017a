"""The director's FastAPI app: `create_app(night, token, ...)`; nothing is built at import
time. The table's door and host guard stand in front (bodies capped while they arrive,
foreign Origins refused for writes, Host names checked)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from firmware_host.api.app import CrashGuard, http_error, invalid_request
from firmware_host.api.guard import Door
from firmware_host.api.hosts import HostGuard, HostPolicy
from firmware_host.club.director.night import DirectorError, Night
from firmware_host.club.director.routes import export, page, players, results, rounds, standings
from firmware_host.club.director.routes import tournament as tournament_routes
from firmware_host.version import version

log = logging.getLogger("crib.club")

ROUTERS = (standings, players, rounds, results, export, page, tournament_routes)
MAX_BODY = 16 * 1024  # the biggest real body (200 names) is under 9 KiB


class Component(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


async def director_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DirectorError)
    say = exc.sentence[:1].upper() + exc.sentence[1:]
    return JSONResponse({"error": exc.sentence, "code": exc.code,
                         "say": say if say.endswith(".") else say + "."},
                        status_code=exc.status,
                        headers={"WWW-Authenticate": "Bearer"} if exc.status == 401 else None)


def create_app(night: Night, token: str, *, intake: Any = None,
               components: Sequence[Component] = (), allowed_hosts: Sequence[str] = ()
               ) -> FastAPI:
    """The director's web API and page; its lifespan starts and stops `components`."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        for c in components:
            c.start()
        try:
            yield
        finally:
            for c in reversed(components):
                await asyncio.to_thread(c.stop)

    app = FastAPI(title="Cribbage club director", version=version(), lifespan=lifespan,
                  openapi_url="/openapi.json", docs_url=None, redoc_url=None)
    policy = HostPolicy(list(allowed_hosts))
    app.add_middleware(CrashGuard)
    app.add_middleware(Door, policy=policy, max_body=MAX_BODY)
    app.add_middleware(HostGuard, policy=policy)
    app.state.night = night
    app.state.token = token
    app.state.intake = intake
    app.add_exception_handler(DirectorError, director_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for module in ROUTERS:
        app.include_router(module.router())
    app.mount("/static", StaticFiles(directory=page.STATIC_DIR), name="static")
    return app
