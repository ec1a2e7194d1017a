"""Counting a hand, which cards to throw, which card to play."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from firmware_host.api.deps import ERRORS
from firmware_host.api.schemas import AdviseIn, AdvisePlayIn, CountIn, CountOut, PlayHintOut
from firmware_host.errors import BadRequestError


def _refused(what: str, exc: Exception) -> BadRequestError:
    return BadRequestError(f"cannot {what}: {exc}", say=getattr(exc, "say", str(exc)))


def count(body: CountIn) -> JSONResponse:
    """The show count of a hand, with its breakdown."""
    from cribbage import CribbageError
    from cribbage.scoring import score_hand

    try:
        score = score_hand(body.hand, body.starter, crib=body.crib, variant=body.variant)
    except CribbageError as exc:
        raise _refused("count that hand", exc) from None
    return JSONResponse(score.to_json())


def advise(body: AdviseIn) -> JSONResponse:
    """Every discard of the dealt cards, best first."""
    from cribbage import CribbageError
    from cribbage.advisor import advise as engine_advise

    try:
        advice = engine_advise(body.hand, dealer=body.dealer, variant=body.variant,
                               model=body.model, known=body.known)
    except CribbageError as exc:
        raise _refused("advise on that hand", exc) from None
    return JSONResponse(advice.to_json())


def _played_cards(body: AdvisePlayIn) -> tuple[Any, ...]:
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
            raise _refused(f"advise on that play: {place}", exc) from None
        for card in parsed[place]:
            # Name both places: a card cannot be in the hand and on the table at once.
            other = where.get(str(card))
            if other is not None and other != place:
                raise BadRequestError(
                    f"cannot advise on that play: {card} is in {other} and in {place}")
            where[str(card)] = place
    return parsed["the played cards"]


def advise_play(body: AdvisePlayIn) -> JSONResponse:
    """The card to play now in the play, by a one-ply expectation over the unseen cards."""
    from cribbage import CribbageError
    from cribbage.advisor import advise_play as engine_advise_play

    played = _played_cards(body)
    total = body.count if body.count is not None else sum(c.pips for c in played)
    try:
        hint = engine_advise_play(body.hand, body.played, total, known=body.known)
    except CribbageError as exc:
        raise _refused("advise on that play", exc) from None
    return JSONResponse(hint.to_json())


def router() -> APIRouter:
    r = APIRouter(prefix="/api", tags=["count and advice"], responses=ERRORS)
    r.add_api_route("/count", count, methods=["POST"], response_model=CountOut)
    r.add_api_route("/advise", advise, methods=["POST"])
    r.add_api_route("/advise/play", advise_play, methods=["POST"], response_model=PlayHintOut)
    return r
