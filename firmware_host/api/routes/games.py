"""Games: start one, read one, act on one (the one path for every action), its score race."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.schemas import ActionIn, ActionOut, GameCreateIn, GameOut, RaceOut
from firmware_host.errors import BadRequestError, NotFoundError


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


async def act(game_id: int, body: ActionIn, _: Operator, services: Svc) -> Response:
    """Apply one action, committed before the answer (the same JSON text as was logged)."""
    content = await services.games.act_async(game_id, body.version, body.op_id,
                                             body.action.model_dump())
    return Response(content, media_type="application/json")


def race(game_id: int, services: Svc) -> dict[str, Any]:
    """Each side's score after every accepted action, from the game's log."""
    games = services.games
    entry = games.entry(game_id)  # raises NotFoundError
    start = games.fold(game_id, 0).keeper
    points = [{"version": 0, "game_number": start.game_number, "type": None,
               "scores": [p.front for p in start.pegs]}]
    for row in services.store.actions(game_id):
        if row.seq > entry.version:
            break  # the log is ahead of memory only while a commit is under way
        body = (row.response or {}).get("game")  # the answer as it was sent: JSON
        if body is None:  # logged before answers were kept: fold to it
            k = games.fold(game_id, row.seq).keeper
            number, scores = k.game_number, [p.front for p in k.pegs]
        else:
            number = int(body.get("game_number") or 1)
            scores = [int(s["front"]) for s in body["sides"]]
        points.append({"version": row.seq, "game_number": number,
                       "type": row.action.get("type"), "scores": scores})
    k = entry.keeper
    return {"id": game_id, "names": [k.side_name(i) for i in range(len(k.sides))],
            "target": k.target, "race": points}


def router() -> APIRouter:
    r = APIRouter(prefix="/api/games", tags=["games"], responses=ERRORS)
    r.add_api_route("", create_game, methods=["POST"], status_code=201, response_model=GameOut)
    r.add_api_route("/current", current_game, methods=["GET"], response_model=GameOut)
    r.add_api_route("/{game_id}", get_game, methods=["GET"], response_model=GameOut)
    r.add_api_route("/{game_id}/actions", act, methods=["POST"], response_model=ActionOut)
    r.add_api_route("/{game_id}/race", race, methods=["GET"], response_model=RaceOut)
    return r
