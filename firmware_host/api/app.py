"""The FastAPI app: `create_app(settings, services)`; nothing is built at import time."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ipaddress
import json
import logging
import re
import socket
from collections.abc import AsyncIterator, Callable
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from firmware_host.api.schemas import (
    ActionIn,
    ActionOut,
    AdviseIn,
    AdvisePlayIn,
    CountIn,
    CountOut,
    ErrorOut,
    GameCreateIn,
    GameOut,
    HealthOut,
    PairIn,
    PairStartOut,
    PlansOut,
    PlayHintOut,
    RaceOut,
    SettingsIn,
    SettingsOut,
    ShuffleIn,
    TokenOut,
)
from firmware_host.config import Settings
from firmware_host.errors import (
    BadRequestError,
    DaemonError,
    DeviceRefusedError,
    NotFoundError,
    http_status,
)
from firmware_host.services import Services, json_text, status_json

log = logging.getLogger("crib.api")
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
WATCHDOG_DEFAULT_S = 5.0

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422, 429, 503)
}


def _version() -> str:
    try:
        return metadata.version("cribbage-table")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def error_body(exc: DaemonError) -> dict[str, Any]:
    return {"error": exc.message, "code": exc.code, **exc.extra}


# -- host and origin checks
class HostPolicy:
    """Which Host headers and WebSocket Origins are allowed (against DNS rebinding).

    A Host that is an IP address is allowed (rebinding needs a name); a name must be in
    `allowed_hosts` (a leading '.' allows subdomains) or be this machine's name.
    An Origin must be the same as the Host, or a listed name.
    """

    SEEN_MAX = 256

    def __init__(self, allowed: list[str]) -> None:
        names = {h.lower().rstrip(".") for h in allowed}
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local", "localhost"}
        self.names = {n for n in names if not n.startswith(".")}
        self.suffixes = tuple(n for n in names if n.startswith("."))
        self._seen: dict[str, bool] = {}  # Host header -> allowed; the answer never changes

    @staticmethod
    def split(host: str) -> str:
        host = host.strip().lower()
        if host.startswith("["):
            return host[1: host.find("]")] if "]" in host else host
        if host.count(":") == 1:
            host = host.split(":", 1)[0]
        return host.rstrip(".")

    def named(self, name: str) -> bool:
        return name in self.names or any(name.endswith(s) for s in self.suffixes)

    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        seen = self._seen.get(host)
        if seen is None:
            seen = self._host_allowed(host)
            if len(self._seen) < self.SEEN_MAX:  # a flood of odd names cannot grow it
                self._seen[host] = seen
        return seen

    def _host_allowed(self, host: str) -> bool:
        name = self.split(host)
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return self.named(name)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        if origin is None:
            return True  # not a browser: nothing to protect against
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        if host and parts.netloc.lower() == host.strip().lower():
            return True
        return self.named(parts.hostname.lower())


class HostGuard:
    """ASGI middleware refusing requests with a Host header that is not allowed."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        if self.policy.host_allowed(host):
            await self.app(scope, receive, send)
            return
        log.warning("refused Host %r from %s", host, (scope.get("client") or ["?"])[0])
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": f"host {host!r} is not allowed (add it to allowed_hosts)",
                           "code": "forbidden_host"}).encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


async def operator(request: Request,
                   authorization: Annotated[str | None, Header()] = None) -> str:
    """The token's name; tokens travel only in the Authorization header, never a cookie.

    Async on purpose: the check is a hash and an indexed read (as `find_op` on the action
    path), cheaper than the thread-pool hop a sync dependency costs on every request.
    Raises AuthRequiredError.
    """
    services: Services = request.app.state.services
    return services.tokens.check(authorization)


Operator = Annotated[str, Depends(operator)]


def _check_play_cards(body: AdvisePlayIn) -> tuple[Any, ...]:
    """The played cards, parsed; raises BadRequestError naming a bad card and where it is."""
    from cribbage import CribbageError
    from cribbage.cards import parse_cards

    where: dict[str, str] = {}
    parsed: dict[str, tuple[Any, ...]] = {}
    places = (("the hand", body.hand), ("the played cards", body.played),
              ("the known cards", body.known))
    for place, items in places:
        try:
            parsed[place] = parse_cards(items)
        except CribbageError as exc:
            raise BadRequestError(f"cannot advise on that play: {place}: {exc}") from None
        for card in parsed[place]:
            # Name both places: a card cannot be in the hand and on the table at once.
            other = where.get(str(card))
            if other is not None and other != place:
                raise BadRequestError(
                    f"cannot advise on that play: {card} is in {other} and in {place}")
            where[str(card)] = place
    return parsed["the played cards"]


# -- the pegging fast path
ACTIONS_PATH = re.compile(r"/api/games/([0-9]{1,18})/actions")
FAST_BODY_MAX = 16 * 1024


def json_bytes(content: Any) -> bytes:
    """`content` encoded exactly as starlette's JSONResponse encodes it."""
    return json_text(content).encode("utf-8")


class ActionFastPath:
    """ASGI middleware answering well-formed `POST /api/games/{id}/actions` directly.

    A pegging tap is the request a table makes most, and FastAPI's per-request machinery
    (dependency solving, a thread-pool hop, ten middleware layers) cost several times the
    action itself. Only a request FastAPI would accept is answered here: a JSON body that
    validates as ActionIn with the same pydantic model, and a valid operator token. Anything
    else (bad JSON, a bad body, no token, another content type) goes on to the FastAPI route
    with its body replayed, so every error is FastAPI's own. The answer is the route's:
    committed before it is sent, the same JSON and the same error bodies.
    """

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        match = ACTIONS_PATH.fullmatch(scope["path"])
        if match is None:
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        more = True
        while more:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > FAST_BODY_MAX:
                break
        accepted = None if more else self._accepted(scope, body)
        if accepted is None:
            await self.app(scope, _replay(messages, receive), send)
            return
        services = self.services
        try:
            status, content = 200, await services.games.act_json(
                int(match.group(1)), accepted.version, accepted.op_id,
                accepted.action.model_dump())
        except DaemonError as exc:
            status, content = http_status(exc), json_bytes(error_body(exc))
        except Exception as exc:  # as the app's catch-all handler answers
            log.exception("internal error on POST %s", scope["path"])
            status, content = 500, json_bytes({"error": f"internal error: {type(exc).__name__}:"
                                                         f" {exc}", "code": "internal"})
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-length", str(len(content)).encode()),
                                (b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": content})

    def _accepted(self, scope: Scope, body: bytes) -> ActionIn | None:
        """The validated body if FastAPI would accept this request, else None."""
        content_type = authorization = None
        for name, value in scope["headers"]:
            if name == b"content-type" and content_type is None:
                content_type = value
            elif name == b"authorization" and authorization is None:
                authorization = value
        if (content_type is None or authorization is None or not body
                or content_type.split(b";", 1)[0].strip().lower() != b"application/json"):
            return None
        try:
            parsed = ActionIn.model_validate(json.loads(body), from_attributes=True)
            self.services.tokens.check(authorization.decode("latin-1"))
        except Exception:  # bad JSON, a bad body, no token, ...: nothing has changed
            return None  # so FastAPI answers it, with its own error
        return parsed


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A receive that gives back the messages already read, then reads on."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


# -- the app
async def _ticks(services: Services) -> None:
    """WATCHDOG=1 while healthy, STATUS= when it changes, device changes logged."""
    notifier = services.notifier
    interval = (notifier.watchdog_s / 2) if notifier.watchdog_s else WATCHDOG_DEFAULT_S
    interval = min(interval, 1.0)
    while True:
        healthy = services.tick()
        if healthy and notifier.watchdog_s:
            notifier.watchdog()
        notifier.status(services.status_line())
        await asyncio.sleep(interval)


def create_app(settings: Settings, services: Services) -> FastAPI:
    """The web API and page for these services; its lifespan starts and stops them."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services.hub.bind(asyncio.get_running_loop())
        services.start()
        # What is alive now (modules, FastAPI, pydantic, the services) lives as long as the
        # daemon: keep it out of the collector's full passes, each of which stalled every
        # request for tens of ms (the p99 of the pegging benchmark).
        gc.collect()
        gc.freeze()
        ticker = asyncio.create_task(_ticks(services))
        try:
            yield
        finally:
            services.notifier.stopping()
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            await asyncio.to_thread(services.stop)
            log.info("stopped")

    app = FastAPI(title="Cribbage table", version=_version(), lifespan=lifespan,
                  openapi_url="/openapi.json", docs_url="/docs", redoc_url=None)
    policy = HostPolicy(settings.allowed_hosts)
    # Added first, so it runs inside HostGuard: a refused Host never reaches it.
    app.add_middleware(ActionFastPath, services=services)
    app.add_middleware(HostGuard, policy=policy)
    app.state.services = services

    # errors ------------------------------------------------------------------------------
    @app.exception_handler(DaemonError)
    async def daemon_error(request: Request, exc: DaemonError) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=http_status(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors():
            loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
            problems.append(f"{loc}: {e.get('msg')}")
        return JSONResponse(
            {"error": "bad request: " + "; ".join(problems[:5]), "code": "invalid_request",
             "problems": problems},
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"there is no {request.url.path}"
        return JSONResponse({"error": detail, "code": f"http_{exc.status_code}"},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}",
                             "code": "internal"}, status_code=500)

    # health --------------------------------------------------------------------------------
    @app.get("/api/health", response_model=HealthOut)
    def health() -> dict[str, Any]:
        return {"status": "ok", "version": _version(), "uptime_s": round(services.uptime(), 3),
                "devices": services.devices_json(), "schema": services.store.schema_version()}

    # games -----------------------------------------------------------------------------------
    @app.post("/api/games", status_code=201, response_model=GameOut, responses=ERRORS)
    async def create_game(body: GameCreateIn, _: Operator) -> JSONResponse:
        d = settings.game
        params = {
            "variant": body.variant or d.variant,
            "names": [n.strip() for n in body.names],
            "target": body.target if body.target is not None else d.target,
            "skunk": body.skunk or d.skunk,
            "muggins": d.muggins if body.muggins is None else body.muggins,
            "mode": body.mode or d.mode,
            "dealer": body.dealer,
        }
        if any(not n for n in params["names"]):
            raise BadRequestError("every player needs a name")
        entry = services.games.create(params)
        return JSONResponse(entry.body(), status_code=201)

    @app.get("/api/games/current", response_model=GameOut, responses=ERRORS)
    async def current_game() -> JSONResponse:
        entry = services.games.current()
        if entry is None:
            raise NotFoundError("no game has been started")
        return JSONResponse(entry.body())

    @app.get("/api/games/{game_id}", response_model=GameOut, responses=ERRORS)
    async def get_game(game_id: int) -> JSONResponse:
        return JSONResponse(services.games.entry(game_id).body())

    @app.post("/api/games/{game_id}/actions", response_model=ActionOut, responses=ERRORS)
    async def act(game_id: int, body: ActionIn, _: Operator) -> JSONResponse:
        answer = await services.games.act_async(game_id, body.version, body.op_id,
                                    body.action.model_dump())
        return JSONResponse(answer)

    @app.get("/api/games/{game_id}/race", response_model=RaceOut, responses=ERRORS)
    def race(game_id: int) -> dict[str, Any]:
        """Each side's score after every accepted action, from the game's log."""
        entry = services.games.entry(game_id)  # raises NotFoundError
        start = services.games._fold(game_id, 0).view
        points = [{"version": 0, "game_number": int(start.get("game_number") or 1),
                   "type": None, "scores": [int(s["front"]) for s in start["sides"]]}]
        for row in services.store.actions(game_id):
            if row.seq > entry.version:
                break  # the log is ahead of memory only while a commit is under way
            body = (row.response or {}).get("game")
            if body is None:  # logged before answers were kept: fold to it
                body = services.games._fold(game_id, row.seq).view
            points.append({"version": row.seq, "game_number": int(body.get("game_number") or 1),
                           "type": row.action.get("type"),
                           "scores": [int(s["front"]) for s in body["sides"]]})
        view = entry.view
        return {"id": game_id, "names": [s["name"] for s in view["sides"]],
                "target": int(view.get("target") or 121), "race": points}

    # counting and advice ----------------------------------------------------------------------
    @app.post("/api/count", response_model=CountOut, responses=ERRORS)
    def count(body: CountIn) -> JSONResponse:
        from cribbage import CribbageError
        from cribbage.scoring import score_hand

        try:
            score = score_hand(body.hand, body.starter, crib=body.crib, variant=body.variant)
        except (CribbageError, ValueError) as exc:
            raise BadRequestError(f"cannot count that hand: {exc}") from None
        return JSONResponse(score.to_json())

    @app.post("/api/advise", responses=ERRORS)
    def advise(body: AdviseIn) -> JSONResponse:
        from cribbage import CribbageError
        from cribbage.advisor import advise as engine_advise

        try:
            advice = engine_advise(body.hand, dealer=body.dealer, variant=body.variant,
                                   model=body.model, known=body.known)
        except (CribbageError, ValueError, LookupError) as exc:
            raise BadRequestError(f"cannot advise on that hand: {exc}") from None
        return JSONResponse(advice.to_json())

    @app.post("/api/advise/play", response_model=PlayHintOut, responses=ERRORS)
    def advise_play(body: AdvisePlayIn) -> JSONResponse:
        """The card to play now in the play, by a one-ply expectation over the unseen cards."""
        from cribbage import CribbageError
        from cribbage.advisor import advise_play as engine_advise_play

        played = _check_play_cards(body)
        count = body.count if body.count is not None else sum(c.pips for c in played)
        try:
            hint = engine_advise_play(body.hand, body.played, count, known=body.known)
        except CribbageError as exc:
            raise BadRequestError(f"cannot advise on that play: {exc}") from None
        return JSONResponse(hint.to_json())

    # devices ------------------------------------------------------------------------------------
    @app.get("/api/board", responses=ERRORS)
    def board() -> dict[str, Any]:
        device = services.devices["board"].require()
        back = device.read_back(timeout=1.0)
        if back is None:
            return {"reachable": False, "tracks": None, "pairing": None, "leds": None,
                    "shown": services.snapshot()["board"]}
        # While a pairing code is lit, the LEDs spell it: they stay on the board, not the LAN.
        pairing = back.code is not None
        return {
            "reachable": True,
            "tracks": [{"front": t.front, "back": t.back} for t in back.tracks],
            "pairing": pairing,
            "leds": None if pairing else [list(rgb) for rgb in back.leds],
            "boot_id": back.boot_id,
        }

    def _shuffler_call(call: Callable[[Any], Any]) -> dict[str, Any]:
        device = services.devices["shuffler"].require()
        try:
            status = call(device)
        except (ValueError, RuntimeError) as exc:
            raise DeviceRefusedError(f"the shuffler refused: {exc}") from None
        out = status_json(status)
        services.hub.publish({"type": "shuffler", "shuffler": out})
        return out

    @app.get("/api/shuffler", responses=ERRORS)
    def shuffler() -> dict[str, Any]:
        return services.shuffler_json()

    @app.get("/api/shuffler/plans", response_model=PlansOut, responses=ERRORS)
    def shuffle_plans(deck: Annotated[int | None, Query(ge=2, le=104)] = None) -> dict[str, Any]:
        """Every plan for a deck: passes, distance to a random deck and a plain sentence."""
        from hardware.shuffler.plan import PLAN_ROUTING, make_plan

        size = deck or settings.shuffle.deck
        plans = []
        for name in PLAN_ROUTING:
            p = make_plan(size, name)
            plans.append({"plan": name, "deck_size": p.deck_size, "routing": p.routing.value,
                          "passes": p.passes, "tv_distance": round(p.tv_distance, 4),
                          "quality": p.quality, "random": p.random})
        return {"deck": size, "default": settings.shuffle.plan, "plans": plans}

    @app.post("/api/shuffler/shuffle", responses=ERRORS)
    def shuffle(body: ShuffleIn, _: Operator) -> dict[str, Any]:
        deck = body.deck or settings.shuffle.deck
        plan = body.plan or settings.shuffle.plan
        return _shuffler_call(lambda d: d.shuffle(deck, plan))

    @app.post("/api/shuffler/continue", responses=ERRORS)
    def resume(_: Operator) -> dict[str, Any]:
        return _shuffler_call(lambda d: d.resume())

    @app.post("/api/shuffler/abort", responses=ERRORS)
    def abort(_: Operator) -> dict[str, Any]:
        return _shuffler_call(lambda d: d.abort())

    # history ------------------------------------------------------------------------------------
    @app.get("/api/history")
    def history() -> dict[str, Any]:
        return {"games": services.store.results()}

    @app.get("/api/stats")
    def stats() -> dict[str, Any]:
        return {"players": services.store.stats()}

    @app.get("/api/export", responses=ERRORS)
    def export(
        format: Literal["json", "csv"] = "json",
        game: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
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

    # pairing and settings ----------------------------------------------------------------------
    @app.post("/api/pair/start", response_model=PairStartOut, responses=ERRORS)
    def pair_start() -> dict[str, Any]:
        return services.pairing.start()

    @app.post("/api/pair", response_model=TokenOut, responses=ERRORS)
    def pair(body: PairIn, request: Request) -> dict[str, Any]:
        client = request.client.host if request.client else "?"
        token = services.pairing.pair(body.name, code=body.code, request=body.request,
                                      client=client)
        return {"token": token, "name": body.name.strip()}

    @app.get("/api/settings", response_model=SettingsOut)
    def get_settings() -> dict[str, Any]:
        return services.board_settings()

    @app.put("/api/settings", response_model=SettingsOut, responses=ERRORS)
    def put_settings(body: SettingsIn, _: Operator) -> dict[str, Any]:
        return services.set_board_settings(body.brightness, body.palette)

    # event stream --------------------------------------------------------------------------------
    @app.websocket("/api/events")
    async def events(ws: WebSocket) -> None:
        if not policy.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
            log.warning("refused WebSocket from origin %r", ws.headers.get("origin"))
            await ws.close(code=1008)
            return
        await ws.accept()
        snapshot, queue = services.hub.subscribe(services.snapshot)

        async def watch_close() -> None:
            # Notice a client that leaves while nothing is being sent.
            with contextlib.suppress(Exception):
                while (await ws.receive())["type"] != "websocket.disconnect":
                    pass
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)

        watcher = asyncio.create_task(watch_close())
        try:
            await ws.send_json(snapshot)
            while True:
                message = await queue.get()
                if message is None:
                    with contextlib.suppress(Exception):
                        await ws.close(code=1001)
                    return
                await ws.send_json(message)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            watcher.cancel()
            services.hub.unsubscribe(queue)

    # the page -------------------------------------------------------------------------------------
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        page = STATIC_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return PlainTextResponse("the page is not installed; the API is at /docs")

    return app

