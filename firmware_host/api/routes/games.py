"""Games: start one, read one, act on one (the one path for every action), its score race."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.guard import PARSED_JSON
from firmware_host.api.schemas import (
    OP_ID_MAX,
    VERSION_MAX,
    ActionIn,
    ActionOut,
    GameCreateIn,
    GameOut,
    RaceOut,
)
from firmware_host.errors import BadRequestError, NotFoundError
from firmware_host.services import Services

if TYPE_CHECKING:
    from cribbage.actions import Action


def variant_for(default: str, players: int) -> str:
    """The variant of a new game that names none: the configured one if it takes that many
    players, else the first of the engine's that does."""
    from cribbage.rules import RULES

    if RULES[default].players == players:
        return default
    return next((name for name, r in RULES.items() if r.players == players), default)


async def create_game(body: GameCreateIn, _: Operator, services: Svc) -> JSONResponse:
    """Start a new game (it becomes the current one); left-out options take the defaults
    (a left-out variant is the configured one, or the one for as many players as names)."""
    d = services.settings.game
    params = {
        "variant": body.variant or variant_for(d.variant, len(body.names)),
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


class ActionRequest(NamedTuple):
    """An action request read once from its body: the version the client saw, its operation
    id and the engine's typed action."""

    version: int
    op_id: str
    action: Action


_ENVELOPE = ("version", "op_id", "action")


def _problem(kind: str, loc: tuple[str, ...], msg: str, value: Any) -> dict[str, Any]:
    """One problem of a body, as FastAPI's own validation words it."""
    return {"type": kind, "loc": ("body", *loc), "msg": msg, "input": value}


def _refused(kind: str, loc: tuple[str, ...], msg: str, value: Any) -> RequestValidationError:
    """A 422 as FastAPI's own validation answers it."""
    return RequestValidationError([_problem(kind, loc, msg, value)])


def _envelope_problems(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every problem of an action request's envelope ({version, op_id, action}), all at
    once, as FastAPI's validation lists them; the action itself is the engine's to read."""
    problems = [_problem("missing", (name,), "Field required", data)
                for name in _ENVELOPE if name not in data]
    problems += [_problem("extra_forbidden", (k,), "Extra inputs are not permitted", data[k])
                 for k in data if k not in _ENVELOPE]
    version, op_id = data.get("version", 0), data.get("op_id", "-")
    if type(version) is not int or not 0 <= version <= VERSION_MAX:
        problems.append(_problem("int_type", ("version",), "version must be a whole number "
                                 f"from 0 to {VERSION_MAX}", version))
    if type(op_id) is not str or not 1 <= len(op_id) <= OP_ID_MAX:
        problems.append(_problem("string_type", ("op_id",), f"op_id must be text of 1 to "
                                 f"{OP_ID_MAX} characters", op_id))
    return problems


async def _body_json(request: Request) -> Any:
    """The body's JSON value: as the door parsed it, or (no door in front) from its text.
    Raises RequestValidationError for a body that is not JSON by its Content-Type or text."""
    if not _is_json(request.headers.get("content-type")):
        raise _refused("model_attributes_type", (), "the body must be JSON (Content-Type: "
                       "application/json)", None)
    if PARSED_JSON in request.scope:
        return request.scope[PARSED_JSON]
    try:
        return json.loads(await request.body())
    except ValueError as exc:
        raise _refused("json_invalid", (), f"the body is not JSON: {exc}", None) from None


async def action_request(request: Request, services: Services, game_id: int) -> ActionRequest:
    """The request's envelope checked and its action typed, from the body's one parse.

    Raises RequestValidationError (422, as FastAPI's) for an envelope that is not
    {version, op_id, action}; the engine's InvalidActionError, with the game, for an action
    `parse_action` refuses (422 with the engine's sentence for the table).
    """
    from cribbage.actions import ACTION_TYPES, parse_action
    from cribbage.errors import CribbageError

    data = await _body_json(request)
    if not isinstance(data, dict):
        raise _refused("model_attributes_type", (), "the body must be an object with "
                       "version, op_id and action", data)
    problems = _envelope_problems(data)
    try:
        action = parse_action(data.get("action"))
    except CribbageError as exc:
        if not problems:
            raise services.games.refusal(game_id, exc) from None
        # a body wrong in several places is told every one of them at once
        raw = data.get("action")
        loc = ("action", "type") if isinstance(raw, dict) and raw.get("type") not in (
            ACTION_TYPES) else ("action",)
        problems.append(_problem("action", loc, str(exc), raw))
    if problems:
        raise RequestValidationError(problems)
    return ActionRequest(data["version"], data["op_id"], action)


async def act(game_id: int, body: ActionIn, request: Request) -> Response:
    """Apply one action, committed before the answer (the same JSON text as was logged).

    Run by ActionRoute, which reads the body once: `body` is then its `ActionRequest` (the
    annotation is what the schema publishes). Needs the operator token (checked first). A
    `version` that is not the game's is a 409 with the game; an action the game refuses is
    a 422 with `say`.
    """
    services: Services = request.app.state.services
    content = await services.games.act_async(game_id, body.version, body.op_id,
                                             body.action)  # type: ignore[arg-type]
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
            body = await action_request(request, services, game_id)
            return await endpoint(game_id, body, request)

        return handle


def race(game_id: int, services: Svc) -> dict[str, Any]:
    """Each side's score after every accepted action (kept step by step by the games)."""
    entry = services.games.entry(game_id)  # raises NotFoundError
    k = entry.game
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
