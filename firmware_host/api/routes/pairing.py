"""Pairing a phone: a code lit on the board, or the undo button held."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from firmware_host.api.deps import ERRORS, Svc
from firmware_host.api.schemas import PairIn, PairStartIn, PairStartOut, TokenOut


def _client(request: Request) -> str:
    # The socket's peer: uvicorn believes no X-Forwarded-For unless proxies are configured.
    return request.client.host if request.client else "?"


def pair_start(request: Request, services: Svc, body: PairStartIn | None = None
               ) -> dict[str, Any]:
    """Light a code on the board for this phone; 409 while another phone's is pending."""
    return services.pairing.start(_client(request), hold=bool(body and body.hold))


def pair(body: PairIn, request: Request, services: Svc) -> dict[str, Any]:
    token = services.pairing.pair(body.name, code=body.code, request=body.request,
                                  client=_client(request))
    return {"token": token, "name": body.name.strip()}


def router() -> APIRouter:
    r = APIRouter(prefix="/api/pair", tags=["pairing"], responses=ERRORS)
    r.add_api_route("/start", pair_start, methods=["POST"], response_model=PairStartOut)
    r.add_api_route("", pair, methods=["POST"], response_model=TokenOut)
    return r
