"""Errors of the daemon: one root, leaves that also subclass a builtin, HTTP codes in one table."""

from __future__ import annotations

from typing import Any


class DaemonError(Exception):
    """Root of every error the daemon raises on purpose.

    `code` is the machine name the API returns; `extra` is merged into the JSON error body.
    """

    code = "daemon_error"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class ConfigError(DaemonError, ValueError):
    """A configuration value that cannot be used; the message names the key."""

    code = "config_error"


class NotFoundError(DaemonError, LookupError):
    """A game, token or resource that does not exist."""

    code = "not_found"


class BadRequestError(DaemonError, ValueError):
    """A request whose content cannot be used (bad cards, bad variant, ...)."""

    code = "bad_request"


class StaleVersionError(DaemonError):
    """An action based on a game version that is no longer current."""

    code = "stale_version"


class InvalidActionError(DaemonError, ValueError):
    """A malformed game action (unknown type, missing or mistyped field); nothing changed.

    `extra` carries the engine's `say` (one sentence for the table) and the game.
    """

    code = "invalid_action"


class IllegalActionError(DaemonError, ValueError):
    """A well-formed action the rules refuse in the current state; nothing changed.

    `extra` carries the engine's `say` (one sentence for the table) and the game.
    """

    code = "illegal_action"


class AuthRequiredError(DaemonError, PermissionError):
    """A write without a valid operator token."""

    code = "unauthorized"


class ForbiddenError(DaemonError, PermissionError):
    """A request from a host name or origin that is not allowed."""

    code = "forbidden"


class PairingError(DaemonError, PermissionError):
    """A pairing attempt with a wrong or expired code, or none pending."""

    code = "pairing_failed"


class PairingBusyError(DaemonError):
    """Another phone's pairing request is pending; it cannot be replaced."""

    code = "pairing_busy"


class NameTakenError(DaemonError, ValueError):
    """A token name (a phone or person) that is already paired."""

    code = "name_taken"


class StorageError(DaemonError, OSError):
    """The state directory cannot be written (full, read-only, failing): nothing was saved."""

    code = "storage"


class RateLimitedError(DaemonError):
    """Too many attempts; try again later."""

    code = "rate_limited"


class DeviceUnavailableError(DaemonError, RuntimeError):
    """A device (or engine part) that is absent, lost or not built in."""

    code = "device_unavailable"


class DeviceRefusedError(DaemonError, ValueError):
    """A device refused a command (busy, bad plan, ...)."""

    code = "device_refused"


class ClubError(DaemonError):
    """A club request the table cannot do now (no seating from the director)."""

    code = "club"


# The one place where errors become HTTP status codes; the most specific class wins.
HTTP_STATUS: dict[type[DaemonError], int] = {
    DaemonError: 500,
    ConfigError: 500,
    NotFoundError: 404,
    BadRequestError: 422,
    StaleVersionError: 409,
    InvalidActionError: 422,
    IllegalActionError: 422,
    AuthRequiredError: 401,
    ForbiddenError: 403,
    PairingError: 403,
    PairingBusyError: 409,
    NameTakenError: 409,
    StorageError: 503,
    RateLimitedError: 429,
    DeviceUnavailableError: 503,
    DeviceRefusedError: 409,
    ClubError: 409,
}


def error_body(exc: DaemonError) -> dict[str, Any]:
    """The JSON error body: the sentence naming the problem, the machine name, the detail,
    and whatever the error carries (`say`, `game`, ...)."""
    return {"error": exc.message, "code": exc.code, "message": exc.message, **exc.extra}


def http_status(exc: DaemonError) -> int:
    """The HTTP status for an error (its nearest class in HTTP_STATUS)."""
    for cls in type(exc).__mro__:
        if cls in HTTP_STATUS:
            return HTTP_STATUS[cls]  # type: ignore[index]
    return 500
