"""What the director's routers depend on: the night, and the director's token."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from firmware_host.club.director.night import DirectorError, Night
from firmware_host.club.director.token import same


async def night(request: Request) -> Night:
    return request.app.state.night  # type: ignore[no-any-return]


async def director(request: Request,
                   authorization: Annotated[str | None, Header()] = None) -> str:
    """Who is asking ("director@ADDRESS"); raises DirectorError (401) without the token in
    `Authorization: Bearer ...`."""
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not same(given.strip(), request.app.state.token):
        raise DirectorError(401, "auth_required",
                            "this needs the director's token (Authorization: Bearer ...): "
                            "`crib club token` prints it at the director's machine")
    client = request.client.host if request.client else "?"
    return f"director@{client}"


NightDep = Annotated[Night, Depends(night)]
Director = Annotated[str, Depends(director)]
