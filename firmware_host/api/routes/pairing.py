"""Pairing a phone: a code lit on the board, or the undo button held."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from firmware_host.api.deps import ERRORS, Svc
from firmware_host.api.schemas import PairIn, PairStartOut, TokenOut


def pair_start(services: Svc) -> dict[str, Any]:
    return services.pairing.start()


def pair(body: PairIn, request: Request, services: Svc) -> dict[str, Any]:
    client = request.client.host if request.client else "?"
    token = services.pairing.pair(body.name, code=body.code, request=body.request,
                                  client=client)
    return {"token": token, "name": body.name.strip()}


def router() -> APIRouter:
    r = APIRouter(prefix="/api/pair", tags=["pairing"], responses=ERRORS)
    r.add_api_route("/start", pair_start, methods=["POST"], response_model=PairStartOut)
    r.add_api_route("", pair, methods=["POST"], response_model=TokenOut)
    return r
