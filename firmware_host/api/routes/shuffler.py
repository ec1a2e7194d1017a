"""The card shuffler: its status, its plans, shuffle, continue and abort."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.schemas import PlansOut, ShuffleIn


def shuffler(services: Svc) -> dict[str, Any]:
    return services.shuffler.status()


def plans(services: Svc,
          deck: Annotated[int | None, Query(ge=2, le=104)] = None) -> dict[str, Any]:
    """Every plan for a deck: passes, distance to a random deck and a plain sentence."""
    from firmware_host.config import shuffler_pace
    from hardware.shuffler.pace import pace_line
    from hardware.shuffler.plan import PLAN_ROUTING, make_plan

    settings = services.settings
    size = deck or settings.shuffle.deck
    pace = shuffler_pace(settings.shuffler)  # the machine as configured (calibrated)
    out = []
    for name in PLAN_ROUTING:
        p = make_plan(size, name)
        out.append({"plan": name, "deck_size": p.deck_size, "routing": p.routing.value,
                    "passes": p.passes, "tv_distance": round(p.tv_distance, 4),
                    "quality": p.quality, "random": p.random,
                    "pass_s": round(pace.pass_s(size), 1),
                    "shuffle_s": round(pace.shuffle_s(size, p.passes), 1),
                    "time": pace_line(size, name, p.passes, pace)})
    return {"deck": size, "default": settings.shuffle.plan, "plans": out}


def shuffle(body: ShuffleIn, _: Operator, services: Svc) -> dict[str, Any]:
    """Begin a shuffle; the status reaches the stream from the shuffler's own events."""
    return services.shuffler.shuffle(body.deck, body.plan)


def resume(_: Operator, services: Svc) -> dict[str, Any]:
    return services.shuffler.resume()


def abort(_: Operator, services: Svc) -> dict[str, Any]:
    return services.shuffler.abort()


def router() -> APIRouter:
    r = APIRouter(prefix="/api/shuffler", tags=["shuffler"], responses=ERRORS)
    r.add_api_route("", shuffler, methods=["GET"])
    r.add_api_route("/plans", plans, methods=["GET"], response_model=PlansOut)
    r.add_api_route("/shuffle", shuffle, methods=["POST"])
    r.add_api_route("/continue", resume, methods=["POST"])
    r.add_api_route("/abort", abort, methods=["POST"])
    return r
