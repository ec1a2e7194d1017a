"""The card shuffler: its status, its plans, shuffle, continue and abort."""

from __future__ import annotations

import functools
from typing import Annotated, Any

from fastapi import APIRouter, Query

from firmware_host.api.deps import ERRORS, Operator, Svc
from firmware_host.api.schemas import PlansOut, ShuffleIn, ShufflerStatusOut


def shuffler(services: Svc) -> dict[str, Any]:
    """The shuffler's status: passes, cards this pass, the prompt, and on a hands-free
    machine its phase, restacks and time left."""
    return services.shuffler.status()


def plans(services: Svc,
          deck: Annotated[int | None, Query(ge=2, le=104)] = None) -> dict[str, Any]:
    """Every plan for a deck: passes, distance to a random deck and a plain sentence, timed
    on the configured build (the machine's restacks, or the player's)."""
    from firmware_host.config import shuffler_pace
    from hardware.shuffler.pace import pace_line
    from hardware.shuffler.plan import PLAN_ROUTING, make_plan

    settings = services.settings
    size = deck or settings.shuffle.deck
    hands_free = settings.shuffler.hands_free
    pace = shuffler_pace(settings.shuffler)  # the machine as configured (calibrated)
    out = []
    for name in PLAN_ROUTING:
        p = make_plan(size, name)
        row = {"plan": name, "deck_size": p.deck_size, "routing": p.routing.value,
               "passes": p.passes, "tv_distance": round(p.tv_distance, 4),
               "quality": p.quality, "random": p.random,
               "pass_s": round(pace.pass_s(size), 1),
               "shuffle_s": round(pace.shuffle_s(size, p.passes), 1),
               "time": pace_line(size, name, p.passes, pace)}
        if hands_free:
            s = settings.shuffler
            row |= _hands_free_plan(size, name, p.passes, s.feed_speed_mm_s, s.riser_duty)
        out.append(row)
    return {"deck": size, "default": settings.shuffle.plan, "build": settings.shuffler.build,
            "hands_free": hands_free, "plans": out}


@functools.lru_cache(maxsize=32)
def _hands_free_plan(size: int, name: str, passes: int, speed: float | None,
                     duty: float | None) -> dict[str, Any]:
    """A plan on the hands-free build: the exact plan's passes are the drop shaft's own (an
    odd number turns the deck over: it is loaded face up), every restack is the machine's,
    timed by its doors; the time on the machine's calibrated speeds, else the build's."""
    import random

    from hardware.shuffler import design, handsfree

    p = (handsfree.handsfree_pace(size) if speed is None else handsfree.measured_pace(
        size, speed, duty or design.RISER_DUTY_UNCALIBRATED))
    restack = handsfree.DEFAULT_RESTACK.restack_s
    if name == "exact":
        # the time hangs a little on the secret order (the router's moves): a fixed sample
        hf = handsfree.plan_random(size, rng=random.Random(size))
        passes = len(hf.passes)
        whole = handsfree.shuffle_s(hf, p)
        row: dict[str, Any] = {
            "passes": passes, "tv_distance": 0.0, "random": True,
            "quality": (f"{passes} exact passes to a secret random order, every restack made "
                        "and checked by the machine: every order of the deck is equally "
                        "likely (distance 0)")}
    else:
        whole = passes * (p.pass_s(size) + restack)
        row = {}
    pass_s = whole / passes - restack
    return row | {"pass_s": round(pass_s, 1), "shuffle_s": round(whole, 1),
                  "load_face_up": passes % 2 == 1,
                  "time": (f"{name}: {passes} passes of {size} cards, about {whole:.0f} s in "
                           f"all, each pass about {pass_s:.0f} s and {restack:.1f} s to "
                           "restack by the machine")}


def shuffle(body: ShuffleIn, _: Operator, services: Svc) -> dict[str, Any]:
    """Begin a shuffle; the status reaches the stream from the shuffler's own events."""
    return services.shuffler.shuffle(body.deck, body.plan)


def resume(_: Operator, services: Svc) -> dict[str, Any]:
    """The player did what the prompt asked (stacked a pile, cleared a fault, closed the
    lid): go on."""
    return services.shuffler.resume()


def abort(_: Operator, services: Svc) -> dict[str, Any]:
    return services.shuffler.abort()


def router() -> APIRouter:
    r = APIRouter(prefix="/api/shuffler", tags=["shuffler"], responses=ERRORS)
    status = {"response_model": ShufflerStatusOut, "response_model_exclude_unset": True}
    r.add_api_route("", shuffler, methods=["GET"], **status)
    r.add_api_route("/plans", plans, methods=["GET"], response_model=PlansOut)
    r.add_api_route("/shuffle", shuffle, methods=["POST"], **status)
    r.add_api_route("/continue", resume, methods=["POST"], **status)
    r.add_api_route("/abort", abort, methods=["POST"], **status)
    return r
