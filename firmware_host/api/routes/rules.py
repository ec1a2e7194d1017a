"""The rules of every variant, as the engine publishes them (contracts.md item 2)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter


def rules() -> dict[str, Any]:
    """`cribbage.rules.catalogue()`, unchanged: variants, defaults, hand sizes, lines, counts."""
    from cribbage.rules import catalogue

    return catalogue()


def router() -> APIRouter:
    r = APIRouter(prefix="/api", tags=["rules"])
    r.add_api_route("/rules", rules, methods=["GET"])
    return r
