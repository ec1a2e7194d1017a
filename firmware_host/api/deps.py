"""What every router depends on: the services, the operator's token, the error responses."""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any

from fastapi import Depends, Header, Request

from firmware_host.api.schemas import ErrorOut
from firmware_host.services import Services

# A reference, not {"model": ErrorOut}: FastAPI builds a validator for every model response
# of every route (8 codes on each of two dozen routes: a tenth of the daemon's start-up);
# create_app names the schemas of SCHEMAS in the components.
SCHEMAS = (ErrorOut,)
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"description": HTTPStatus(code).phrase, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}}
    for code in (401, 403, 404, 409, 413, 422, 429, 503)
}


async def services(request: Request) -> Services:
    """The daemon's services, as `create_app` stored them on the app."""
    return request.app.state.services  # type: ignore[no-any-return]


async def operator(request: Request,
                   authorization: Annotated[str | None, Header()] = None) -> str:
    """The token's name; tokens travel only in the Authorization header, never a cookie.

    Async on purpose: the check is a hash and an indexed read, cheaper than the thread-pool
    hop a sync dependency costs on every request. Raises AuthRequiredError.
    """
    return request.app.state.services.tokens.check(authorization)  # type: ignore[no-any-return]


Svc = Annotated[Services, Depends(services)]
Operator = Annotated[str, Depends(operator)]
