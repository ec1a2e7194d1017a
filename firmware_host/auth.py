"""Operator tokens (hashed at rest) and pairing a phone by physical presence.

A phone pairs either with the four-digit code the board lights (`/api/pair/start`, then
`/api/pair` with the code), or by someone holding the board's undo button for three
seconds while a pairing request is pending (then `/api/pair` with the request id).
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from firmware_host.errors import AuthRequiredError, BadRequestError, PairingError, RateLimitedError
from firmware_host.store import Store

log = logging.getLogger("crib.auth")

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-']{0,39}$")


def hash_token(token: str) -> str:
    """The stored form of a token: tokens are 256 random bits, so one SHA-256 suffices."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str) -> str:
    """A token name (a phone or person); raises BadRequestError."""
    name = name.strip()
    if not NAME_RE.match(name):
        raise BadRequestError(
            f"token name {name!r} must be 1-40 letters, digits, spaces or _.-' "
            "starting with a letter or digit"
        )
    return name


class Tokens:
    """Create, check, list and revoke operator tokens in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, name: str) -> str:
        """A new token for `name` (replacing its old one); only the hash is kept."""
        name = check_name(name)
        token = "crib_" + secrets.token_urlsafe(32)
        self.store.add_token(name, hash_token(token))
        log.info("token created for %s", name)
        return token

    def check(self, authorization: str | None) -> str:
        """The token name behind an `Authorization: Bearer` header; raises AuthRequiredError."""
        if not authorization:
            raise AuthRequiredError(
                "this needs an operator token in the Authorization header (pair this phone)"
            )
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthRequiredError("the Authorization header must be 'Bearer <token>'")
        name = self.store.token_name(hash_token(token.strip()))
        if name is None:
            raise AuthRequiredError("the operator token is unknown or was revoked; pair again")
        return name

    def list(self) -> list[dict[str, object]]:
        return self.store.tokens()

    def revoke(self, name: str) -> bool:
        revoked = self.store.revoke_token(name)
        if revoked:
            log.info("token revoked for %s", name)
        return revoked


@dataclass
class PairingRequest:
    """A pending pairing: the code on the board and whether the undo hold approved it."""

    request: str
    code: str
    expires_at: float
    approved: bool = False
    failures: int = 0


class Pairing:
    """Pairing by physical presence, with rate limiting of attempts.

    `show_code(code_or_None)` puts the code on the board (and takes it off).
    """

    MAX_FAILURES = 5  # wrong codes before the code is withdrawn
    WINDOW_S = 60.0
    MAX_ATTEMPTS = 10  # attempts (right or wrong) per client per window
    MAX_STARTS = 6  # new codes per window, any client

    def __init__(
        self,
        tokens: Tokens,
        show_code: Callable[[str | None], None],
        *,
        ttl_s: float = 120.0,
        hold_s: float = 3.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tokens = tokens
        self.show_code = show_code
        self.ttl_s = ttl_s
        self.hold_s = hold_s
        self.now = now
        self._pending: PairingRequest | None = None
        self._attempts: dict[str, deque[float]] = {}
        self._starts: deque[float] = deque()
        self._lock = threading.Lock()

    def _limit(self, bucket: deque[float], limit: int, what: str) -> None:
        now = self.now()
        while bucket and bucket[0] <= now - self.WINDOW_S:
            bucket.popleft()
        if len(bucket) >= limit:
            wait = int(bucket[0] + self.WINDOW_S - now) + 1
            raise RateLimitedError(f"too many {what}; try again in {wait} s", retry_after=wait)
        bucket.append(now)

    def _current(self) -> PairingRequest | None:
        p = self._pending
        if p is not None and self.now() >= p.expires_at:
            self._pending = None
            self.show_code(None)
            return None
        return p

    def start(self) -> dict[str, object]:
        """Light a new code on the board; returns the request id and its lifetime."""
        with self._lock:
            self._limit(self._starts, self.MAX_STARTS, "pairing codes asked for")
            code = f"{secrets.randbelow(10000):04d}"
            self._pending = PairingRequest(
                request=secrets.token_urlsafe(12), code=code, expires_at=self.now() + self.ttl_s
            )
            request = self._pending.request
        self.show_code(code)
        log.warning("pairing code %s is on the board (valid %d s)", code, int(self.ttl_s))
        return {"request": request, "expires_s": self.ttl_s, "hold_s": self.hold_s}

    def undo_held(self, seconds: float) -> bool:
        """The undo button was held: approve the pending request if held long enough."""
        with self._lock:
            p = self._current()
            if p is None or seconds < self.hold_s:
                return False
            p.approved = True
        log.warning("pairing approved by holding the undo button")
        return True

    def pair(self, name: str, *, code: str | None, request: str | None, client: str) -> str:
        """A token for a correct code, or for an approved request; raises PairingError."""
        name = check_name(name)
        with self._lock:
            self._limit(self._attempts.setdefault(client, deque()), self.MAX_ATTEMPTS,
                        "pairing attempts")
            p = self._current()
            if p is None:
                raise PairingError("no pairing is pending: ask for a code first")
            if code is not None:
                ok = secrets.compare_digest(code.strip(), p.code)
            elif request is not None:
                if not secrets.compare_digest(request, p.request):
                    raise PairingError("that pairing request is not the pending one")
                if not p.approved:
                    raise PairingError(
                        f"waiting for the undo button to be held {self.hold_s:g} s", waiting=True
                    )
                ok = True
            else:
                raise BadRequestError("pairing needs the code from the board or a request id")
            if not ok:
                p.failures += 1
                left = self.MAX_FAILURES - p.failures
                if left <= 0:
                    self._pending = None
                    self.show_code(None)
                    raise PairingError("wrong code too often: the code is withdrawn; start again")
                raise PairingError(f"wrong code ({left} tries left)")
            self._pending = None
        self.show_code(None)
        token = self.tokens.create(name)
        log.warning("phone %r paired", name)
        return token

    @property
    def code(self) -> str | None:
        """The code on the board now, if any."""
        with self._lock:
            p = self._current()
            return None if p is None else p.code
