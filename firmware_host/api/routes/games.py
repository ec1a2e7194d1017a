"""Games: start one, read one, act on one (the one path for every action), its score race."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.schemas import ActionIn, ActionOut, GameCreateIn, GameOut, RaceOut
from firmware_host.errors import BadRequestError, NotFoundError
from firmware_host.services import Services


async def create_game(body: GameCreateIn, _: Operator, services: Svc) -> JSONResponse:
    """Start a new game (it becomes the current one); left-out options take the defaults."""
    d = services.settings.game
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


async def current_game(services: Svc) -> JSONResponse:
    entry = services.games.current()
    if entry is None:
        raise NotFoundError("no game has been started")
    return JSONResponse(entry.body())


async def get_game(game_id: int, services: Svc) -> JSONResponse:
    return JSONResponse(services.games.entry(game_id).body())


def _is_json(content_type: str | None) -> bool:
    kind = (content_type or "").partition(";")[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/")
                                           and kind.endswith("+json"))


async def action_body(request: Request) -> ActionIn:
    """The request's body as an ActionIn, validated once from its bytes.

    Raises RequestValidationError (422, as FastAPI's own) for a body that is not JSON
    (by its Content-Type or its text) or not an action.
    """
    if not _is_json(request.headers.get("content-type")):
        raise RequestValidationError([{
            "type": "model_attributes_type", "loc": ("body",), "input": None,
            "msg": "the body must be JSON (Content-Type: application/json)"}])
    try:
        return ActionIn.model_validate_json(await request.body())
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        ) from None


async def act(game_id: int, body: ActionIn, request: Request) -> Response:
    """Apply one action, committed before the answer (the same JSON text as was logged).

    Needs the operator token (checked first, by ActionRoute). A `version` that is not the
    game's is a 409 with the game; an action the game refuses is a 422 with `say`.
    """
    from cribbage.actions import parse_action
    from cribbage.errors import CribbageError

    services: Services = request.app.state.services
    try:
        # The one parse of the action: typed from here to the log.
        action = parse_action(body.action.model_dump())
    except CribbageError as exc:
        raise services.games.refusal(game_id, exc) from None
    content = await services.games.act_async(game_id, body.version, body.op_id, action)
    return Response(content, media_type="application/json")


def path_int(request: Request, name: str) -> int:
    """A whole-number path parameter; raises RequestValidationError (422) as FastAPI does."""
    raw = request.path_params[name]
    try:
        return int(raw)
    except ValueError:
        raise RequestValidationError([{
            "type": "int_parsing", "loc": ("path", name), "input": raw,
            "msg": "Input should be a valid integer, unable to parse string as an integer",
        }]) from None


class ActionRoute(APIRoute):
    """The one route of every game action, run by plain calls instead of FastAPI's
    per-request dependency solving: the token first, then the path and the body, each
    checked once (401 before 422, FastAPI's error bodies), then `act`.

    This is the daemon's hot path, a request per peg; the solver cost more CPU than the
    engine, the commit and the board frame together. FastAPI's documented extension point
    (a route class with its own `get_route_handler`); the schema is still FastAPI's own.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint = self.endpoint

        async def handle(request: Request) -> Response:
            services: Services = request.app.state.services
            services.tokens.check(request.headers.get("authorization"))
            game_id = path_int(request, "game_id")
            return await endpoint(game_id, await action_body(request), request)

        return handle


def race(game_id: int, services: Svc) -> dict[str, Any]:
    """Each side's score after every accepted action (kept step by step by the games)."""
    entry = services.games.entry(game_id)  # raises NotFoundError
    k = entry.keeper
    return {"id": game_id, "names": [k.side_name(i) for i in range(len(k.sides))],
            "target": k.target, "race": list(entry.race)}


def router() -> APIRouter:
    r = APIRouter(prefix="/api/games", tags=["games"], responses=ERRORS)
    r.add_api_route("", create_game, methods=["POST"], status_code=201, response_model=GameOut)
    r.add_api_route("/current", current_game, methods=["GET"], response_model=GameOut)
    r.add_api_route("/{game_id}", get_game, methods=["GET"], response_model=GameOut)
    r.add_api_route("/{game_id}/actions", act, methods=["POST"], response_model=ActionOut,
                    route_class_override=ActionRoute)
    r.add_api_route("/{game_id}/race", race, methods=["GET"], response_model=RaceOut)
    return r
