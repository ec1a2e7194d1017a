"""The FastAPI app: `create_app(settings, services)`; nothing is built at import time."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from firmware_host.api.deps import SCHEMAS
from firmware_host.api.guard import Door
from firmware_host.api.hosts import HostGuard, HostPolicy
from firmware_host.api.routes import (
    advice,
    board,
    club,
    events,
    games,
    history,
    page,
    pairing,
    rules,
    settings,
    shuffler,
)
from firmware_host.config import Settings
from firmware_host.errors import DaemonError, error_body, http_status
from firmware_host.services import Services
from firmware_host.store import storage_fault
from firmware_host.version import version

log = logging.getLogger("crib.api")

ROUTERS = (games, advice, rules, board, shuffler, history, pairing, settings, club, events,
           page)


async def daemon_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DaemonError)
    # A refusal that says when to come back (429, 409 while another phone pairs) says it in
    # HTTP's own header too, for clients that are not our page.
    wait = exc.extra.get("retry_after")
    headers = {"Retry-After": str(int(wait))} if isinstance(wait, int | float) else None
    return JSONResponse(error_body(exc), status_code=http_status(exc), headers=headers)


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = []
    for e in exc.errors():
        loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
        problems.append(f"{loc}: {e.get('msg')}")
    first = problems[0] if problems else "body: not readable"
    return JSONResponse(
        {"error": "bad request: " + "; ".join(problems[:5]), "code": "invalid_request",
         "problems": problems,
         # Every refusal carries a sentence for the page, as the engine's do.
         "say": f"The Pi couldn't use that request ({first}); nothing was changed."},
        status_code=422,
    )


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else "request refused"
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"there is no {request.url.path}"
    headers = exc.headers
    if exc.status_code == 405:
        # Starlette's Allow names the first route of the path only (GET of a GET and a PUT):
        # the published schema names them all.
        methods: set[str] = set()
        for template, ops in request.app.openapi()["paths"].items():
            if compile_path(template)[0].match(request.url.path):
                methods |= {m.upper() for m in ops}
        if methods:
            headers = {**(headers or {}), "Allow": ", ".join(sorted(methods))}
    return JSONResponse({"error": detail, "code": f"http_{exc.status_code}"},
                        status_code=exc.status_code, headers=headers)


class CrashGuard:
    """ASGI middleware: a bug (an engine AttributeError, ...) is a 500 with a JSON body, and
    its traceback in the log; the server never sees it, so the connection stays usable."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            fault = storage_fault(exc)
            if fault is not None:  # a write outside the store's transactions: still a 503
                log.error("%s %s: %s (%s)", scope["method"], scope["path"], fault, exc)
                if not started:
                    await JSONResponse(error_body(fault), status_code=503)(scope, receive, send)
                return
            log.error("internal error on %s %s", scope["method"], scope["path"], exc_info=exc)
            if not started:
                await JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}",
                                    "code": "internal"}, status_code=500)(scope, receive, send)


SETTLE_AFTER_S = 1.0  # after the start, READY and the first page load


def settle() -> None:
    """Collect once, then freeze what is alive: the modules, FastAPI, pydantic and the
    services live as long as the daemon; kept out of the collector's full passes, which
    stalled every request for tens of ms (the p99 of the pegging benchmark)."""
    gc.collect()
    gc.freeze()


def lifespan(services: Services) -> contextlib.AbstractAsyncContextManager[None]:
    """Start the services on the server's loop; stop them when it ends."""

    @contextlib.asynccontextmanager
    async def run(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        services.hub.bind(loop)
        services.health.bind(loop)
        services.start()
        # Once, after READY (a full collection costs tens of ms of the start): see settle.
        settling = loop.call_later(SETTLE_AFTER_S, settle)
        try:
            yield
        finally:
            settling.cancel()
            await asyncio.to_thread(services.stop)
            log.info("stopped")

    return run  # type: ignore[return-value]


def openapi_with(app: FastAPI, models: tuple[type[BaseModel], ...]
                 ) -> Callable[[], dict[str, Any]]:
    """`app.openapi` that also names `models`: bodies a route reads itself (referenced
    from its `openapi_extra`), which FastAPI would otherwise leave out of the components."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = FastAPI.openapi(app)  # sets app.openapi_schema, completed in place below
            _, defs = models_json_schema([(m, "validation") for m in models],
                                         ref_template="#/components/schemas/{model}")
            spec.setdefault("components", {}).setdefault("schemas", {}).update(
                defs.get("$defs", {}))
        return app.openapi_schema

    return build


def create_app(settings: Settings, services: Services) -> FastAPI:
    """The web API and page for these services; its lifespan starts and stops them."""
    app = FastAPI(title="Cribbage table", version=version(), lifespan=lifespan(services),
                  openapi_url="/openapi.json", docs_url=None, redoc_url=None)
    # No /docs: FastAPI's Swagger UI loads its script from a CDN, on the origin where the
    # page keeps its token. The schema is at /openapi.json for any offline viewer.
    policy = HostPolicy(settings.allowed_hosts)
    app.add_middleware(CrashGuard)  # added first: it runs inside the others
    app.add_middleware(Door, policy=policy)  # bodies, JSON and Origin, after the Host check
    app.add_middleware(HostGuard, policy=policy)
    app.state.services = services
    app.state.host_policy = policy
    app.state.stream_gate = events.StreamGate()  # who holds the live streams
    app.add_exception_handler(DaemonError, daemon_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for module in ROUTERS:
        app.include_router(module.router())
    app.openapi = openapi_with(app, SCHEMAS)  # type: ignore[method-assign]
    if page.STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=page.STATIC_DIR), name="static")
    return app
