"""Operator tokens (hashed at rest) and pairing a phone by physical presence.

A phone pairs either with the code the board lights (`/api/pair/start`, then `/api/pair`
with the code), or by someone holding the board's undo button for three seconds while its
pairing request is the one on the board (then `/api/pair` with the request id). Presence
wins: a hold while other phones contend for the board lights a code that any phone may
type (`/api/pair` with the code), so no number of addresses asking keeps the owner out.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

from firmware_host.errors import (
    AuthRequiredError,
    BadRequestError,
    DaemonError,
    NameTakenError,
    PairingBusyError,
    PairingError,
    RateLimitedError,
)
from firmware_host.logs import escape, unsafe_chars
from firmware_host.store import Store

log = logging.getLogger("crib.auth")

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-']{0,39}$")


def _same(given: str, secret: str) -> bool:
    """A constant-time comparison that takes any text: compare_digest raises TypeError for
    a str that is not ASCII (a fuzzed request id was a 500)."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode())


def hash_token(token: str) -> str:
    """The stored form of a token: tokens are 256 random bits, so one SHA-256 suffices."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str) -> str:
    """A token name (a phone or person); raises BadRequestError."""
    name = name.strip()
    bad = unsafe_chars(name)
    if bad:
        raise BadRequestError(
            f"token name {escape(name)!r} holds {', '.join(bad)}: a name may not hold "
            "control, zero-width or direction characters")
    if not NAME_RE.match(name):
        raise BadRequestError(
            f"token name {name!r} must be 1-40 letters, digits, spaces or _.-' "
            "starting with a letter or digit"
        )
    return name


class Tokens:
    """Create, check, list and revoke operator tokens in the store."""

    TOUCH_EVERY_S = 60.0  # the last use is recorded to the minute, not one write a request
    # The tokens stamp makes a revoke take effect at once; the age limit only bounds a
    # stamp that could not be written (a full disk).
    CACHE_S = 2.0
    CACHE_MAX = 64

    def __init__(self, store: Store, now: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.now = now
        self._touched: dict[str, float] = {}
        # digest -> (name, when read, tokens stamp then): a request's check is a stat, not
        # a database read.
        self._known: dict[str, tuple[str, float, tuple[int, ...]]] = {}

    def exists(self, name: str) -> bool:
        """Whether a token of this name exists."""
        return any(t["name"] == name.strip() for t in self.store.tokens())

    def create(self, name: str, *, replace: bool = False) -> str:
        """A new token for `name`; only the hash is kept. Raises BadRequestError for a bad
        name, NameTakenError when the name has a token and `replace` is not given (a second
        phone must not silently log the first one out)."""
        name = check_name(name)
        token = "crib_" + secrets.token_urlsafe(32)
        if not self.store.add_token(name, hash_token(token), replace=replace):
            raise NameTakenError(
                f"a phone named {name!r} is already paired: choose another name, or revoke "
                f"{name!r} first", name=name)
        log.info("token %s for %s", "replaced" if replace else "created", name)
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
        name = self._name(hash_token(token.strip()))
        if name is None:
            raise AuthRequiredError("the operator token is unknown or was revoked; pair again")
        self._touch(name)
        return name

    def _name(self, digest: str) -> str | None:
        """The name of a known token's digest: from the cache while the store's tokens
        stamp is unchanged (a revoke anywhere, the CLI's too, changes it at once) and the
        entry is under CACHE_S old, else from the store. Unknown digests are not cached."""
        stamp = self.store.tokens_stamp()  # before the read it guards
        now = self.now()
        hit = self._known.get(digest)
        # An entry counts only under the stamp it was read with (safe from any thread).
        if hit is not None and hit[2] == stamp and now - hit[1] < self.CACHE_S:
            return hit[0]
        name = self.store.token_name(digest)
        if name is not None:
            if len(self._known) >= self.CACHE_MAX:
                self._known.clear()
            self._known[digest] = (name, now, stamp)
        return name

    def _touch(self, name: str) -> None:
        """Record the use for `crib token list`, at most once a minute per token; a store
        that cannot write does not refuse the request (the write it guards reports that)."""
        now = self.now()
        if now - self._touched.get(name, -math.inf) < self.TOUCH_EVERY_S:
            return
        self._touched[name] = now
        try:
            self.store.touch_token(name)
        except (DaemonError, sqlite3.Error) as exc:
            log.warning("could not record the use of token %s: %s", name, exc)

    def list(self) -> list[dict[str, object]]:
        return self.store.tokens()

    def revoke(self, name: str) -> bool:
        revoked = self.store.revoke_token(name)
        if revoked:
            log.info("token revoked for %s", name)
        return revoked


@dataclass
class PairingRequest:
    """A pending pairing: its secret id, its code on the board, the client that asked (None:
    lit by a hold at the board, for whoever types it), and whether the undo hold approved
    it. A `hold` request is approved only by the undo button (its page shows the code to
    compare with the board's), never by typing the code."""

    request: str
    code: str
    client: str | None
    hold: bool
    expires_at: float
    approved: bool = False
    failures: int = 0


class FailureThrottle:
    """Pairing guesses: a growing delay after failures that decays with time (not a reconnect
    back-off: that is `hardware.board.transport.Backoff`). After `level` recent failures
    (halved every `half_life_s`) beyond `free`, the next try waits `base_s * 2**(n-1)`
    seconds from the last failure, at most `cap_s`."""

    __slots__ = ("free", "base_s", "cap_s", "half_life_s", "level", "last")

    def __init__(self, free: int, base_s: float, cap_s: float, half_life_s: float) -> None:
        self.free, self.base_s, self.cap_s, self.half_life_s = free, base_s, cap_s, half_life_s
        self.level = 0.0
        self.last = 0.0

    def _decayed(self, now: float) -> float:
        return self.level * 0.5 ** ((now - self.last) / self.half_life_s) if self.level else 0.0

    def wait(self, now: float) -> float:
        """Seconds until the next try is allowed (0: now)."""
        over = round(self._decayed(now)) - self.free
        if over <= 0:
            return 0.0
        return max(0.0, self.last + min(self.cap_s, self.base_s * 2 ** (over - 1)) - now)

    def failed(self, now: float) -> None:
        self.level = self._decayed(now) + 1
        self.last = now


class Recent:
    """Per-client state in a bounded LRU map: a LAN attacker with many addresses cannot grow
    it past `size` (the oldest client is forgotten; the overall limits still hold)."""

    def __init__(self, size: int, make: Callable[[], object]) -> None:
        self.size, self.make = size, make
        self._items: OrderedDict[str, object] = OrderedDict()

    def get(self, client: str) -> object:
        item = self._items.pop(client, None)
        if item is None:
            item = self.make()
            while len(self._items) >= self.size:
                self._items.popitem(last=False)
        self._items[client] = item
        return item

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[str]:
        return list(self._items)

    def peek(self, client: str) -> object | None:
        """The client's entry if it has one (made by nothing, moved by nothing)."""
        return self._items.get(client)

    def items(self) -> list[tuple[str, object]]:
        return list(self._items.items())

    def forget(self, client: str) -> None:
        self._items.pop(client, None)

    def put(self, client: str, item: object) -> None:
        """Set the client's entry, as the most recently seen."""
        self._items.pop(client, None)
        while len(self._items) >= self.size:
            self._items.popitem(last=False)
        self._items[client] = item


@dataclass
class Waiter:
    """A client refused while the board was busy: since when it waits, and until when its
    claim holds (its retry time, with room for a person to come back)."""

    since: float
    until: float


class Pairing:
    """Pairing by physical presence, against hijacks, brute force and denial.

    One request is pending at a time, its code on the board; a second client cannot replace
    it (409) and the same client replacing its own gets a new code. Holding undo approves the
    request whose code is on the board, nothing else. A typed code is accepted only from the
    client that asked, and dies after MAX_FAILURES wrong guesses; each client's wrong guesses
    slow down that client only. Codes to type are what guessing needs, so wrong guesses of
    everyone together slow down new codes to type, never a code already on the board, and
    never the undo-button way. When the board is free, a client that has waited with fewer
    unfinished requests goes first (a neighbour taking turns from many addresses cannot keep
    the board); starts are limited per client. Every limiter is bounded in memory.

    Presence wins over any number of addresses: holding undo approves the request on the
    board only while no other phone has been turned away lately (an uncontested board: the
    person compared the codes with no one else asking). On a contested board, or an empty
    one, the hold withdraws what is lit and lights a code for whoever types it: only
    someone who sees the board can. Its wrong guesses (anyone's, each phone slowed as for
    any code) are spared SPARE times; then the board lights a code as long as it shows
    (12 digits on 120 holes), which guessing at any rate cannot find before it runs out.
    `show_code(code_or_None)` puts the code on the board (and takes it off).
    """

    MAX_FAILURES = 3  # wrong codes before the code dies
    DIGITS = 6  # on a board that can show them (one digit per ten holes)
    CLIENTS = 1024  # per-client limiter entries kept (least recently seen forgotten)
    STARTS = 3  # new requests per client per START_WINDOW_S
    START_WINDOW_S = 600.0
    CHECKS = 30  # request-id checks per client per minute (the page asks while waiting)
    UNFINISHED_S = 1800.0  # a request that ended without a token counts this long
    CLAIM_S = 60.0  # a waiting client's claim holds this long past its retry time
    CONTEST_S = 600.0  # a phone turned away this recently makes a hold light a code to type
    SPARE = 20  # wrong guesses of a code lit by a hold before a longer one replaces it
    # The Pi itself may ask for codes without a per-client limit (it can run `crib token
    # create` anyway); its wrong guesses are slowed down like anyone's.
    LOCAL = frozenset({"127.0.0.1", "::1"})

    def __init__(
        self,
        tokens: Tokens,
        show_code: Callable[[str | None], None],
        *,
        ttl_s: float = 120.0,
        hold_s: float = 3.0,
        digits: int = DIGITS,
        most_digits: int = 12,
        log_code: bool = True,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 4 <= digits <= 12:
            raise ValueError(f"pairing codes of {digits} digits: 4 to 12 fit a board")
        self.tokens = tokens
        self.show_code = show_code
        self.ttl_s = ttl_s
        self.hold_s = hold_s
        self.digits = digits
        # The longest code the board shows (one digit per ten holes): a code lit by a hold
        # grows to it once guessing has begun.
        self.most_digits = max(digits, min(most_digits, 12))
        # The code proves presence at the board: the journal, which more people can read
        # than can stand at the table, gets it only where no real board shows it.
        self.log_code = log_code
        self.now = now
        self._pending: PairingRequest | None = None
        # Per client: starts (times), request checks (times), wrong-guess back-off, requests
        # that ended without a token (times), and a claim while it waits for the board.
        self._starts = Recent(self.CLIENTS, lambda: deque(maxlen=self.STARTS))
        self._checks = Recent(self.CLIENTS, lambda: deque(maxlen=self.CHECKS))
        # One typo is free; then 1 s, 2 s, 4 s, ... up to 5 minutes, halving every 10 minutes.
        self._guesses = Recent(self.CLIENTS, lambda: FailureThrottle(1, 1.0, 300.0, 600.0))
        self._unfinished = Recent(self.CLIENTS, lambda: deque(maxlen=8))
        self._waiting = Recent(self.CLIENTS, lambda: Waiter(0.0, 0.0))
        # New codes to type, after wrong guesses of everyone together: five free, then 1 s,
        # 2 s, ... up to 5 minutes between codes, halving every half hour.
        self._typed = FailureThrottle(5, 1.0, 300.0, 1800.0)
        # The last two phones turned away while the board was busy, and when: a hold
        # approves a request only if no phone but its own was turned away lately.
        self._refused = Recent(2, float)
        self._lock = threading.Lock()

    def clients(self) -> list[str]:
        """The clients the limiters remember (as the daemon saw their addresses)."""
        with self._lock:
            return sorted(set(self._starts.keys()) | set(self._guesses.keys())
                          | set(self._checks.keys()) | set(self._waiting.keys()))

    @property
    def _or_hold(self) -> str:
        return f"or hold the board's undo button for {self.hold_s:g} s (the other way to pair)"

    def _window(self, times: object, limit: int, window_s: float, what: str) -> None:
        assert isinstance(times, deque)
        now = self.now()
        if len(times) >= limit and times[0] > now - window_s:
            wait = int(times[0] + window_s - now) + 1
            raise RateLimitedError(f"too many {what} from this phone; try again in {wait} s",
                                   retry_after=wait)
        times.append(now)

    def _end(self, p: PairingRequest) -> None:
        """A request ends without a token (ran out, withdrawn, replaced): its client's."""
        if p.client is not None:
            times = self._unfinished.get(p.client)
            assert isinstance(times, deque)
            times.append(self.now())
        self._pending = None

    def _current(self) -> PairingRequest | None:
        p = self._pending
        if p is not None and self.now() >= p.expires_at:
            self._end(p)
            self.show_code(None)
            return None
        return p

    def _unfinished_count(self, client: str) -> int:
        times = self._unfinished.peek(client)
        if not isinstance(times, deque):
            return 0
        since = self.now() - self.UNFINISHED_S
        return sum(1 for t in times if t > since)

    def _wait(self, client: str, retry_after: float) -> None:
        """Record that `client` was refused while it waits for the board."""
        now = self.now()
        self._refused.put(client, now)
        waiter = self._waiting.peek(client)
        if not isinstance(waiter, Waiter) or waiter.until < now:
            waiter = Waiter(now, 0.0)
        waiter.until = max(waiter.until, now + retry_after + self.CLAIM_S)
        self._waiting.put(client, waiter)

    def _ahead(self, client: str) -> Waiter | None:
        """A waiting client that goes before `client` on a free board: fewer unfinished
        requests, or as many and waiting longer."""
        now = self.now()
        mine = self._waiting.peek(client)
        rank = (self._unfinished_count(client),
                mine.since if isinstance(mine, Waiter) and mine.until >= now else now)
        best: Waiter | None = None
        for other, waiter in self._waiting.items():
            assert isinstance(waiter, Waiter)
            if other == client or waiter.until < now:
                continue
            if (self._unfinished_count(other), waiter.since) < rank:
                best = waiter
        return best

    def start(self, client: str = "?", *, hold: bool = False) -> dict[str, object]:
        """Light a new code on the board; returns the request id (a secret: it claims the
        token), its lifetime, the code's length, and for a `hold` request the code itself.
        Raises PairingBusyError (another client's request is pending, or another client has
        waited first), RateLimitedError."""
        with self._lock:
            now = self.now()
            p = self._current()
            if p is not None and p.client is None:
                wait = int(p.expires_at - now) + 1
                self._wait(client, wait)
                raise PairingBusyError(
                    f"someone at the board held undo: type the code the board lights, or try "
                    f"again in {wait} s", retry_after=wait, hold_s=self.hold_s, lit=True)
            if p is not None and p.client != client:
                wait = int(p.expires_at - now) + 1
                self._wait(client, wait)
                raise PairingBusyError(
                    f"someone else is pairing; try again in {wait} s", retry_after=wait,
                    hold_s=self.hold_s)
            if p is None and self._ahead(client) is not None:
                wait = 5
                self._wait(client, wait)
                raise PairingBusyError(
                    f"another phone has been waiting to pair; try again in {wait} s",
                    retry_after=wait, hold_s=self.hold_s)
            if not hold:
                typed = math.ceil(self._typed.wait(now))
                if typed > 0:
                    raise RateLimitedError(
                        f"too many wrong codes were typed here lately: a code to type can be "
                        f"asked for in {typed} s, {self._or_hold}", retry_after=typed)
            if client not in self.LOCAL:
                self._window(self._starts.get(client), self.STARTS, self.START_WINDOW_S,
                             "pairing requests")
            if p is not None:
                self._end(p)  # replaced by its own client
            self._waiting.forget(client)
            code = self._new_code(self.digits)
            self._pending = PairingRequest(
                request=secrets.token_urlsafe(16), code=code, client=client, hold=hold,
                expires_at=now + self.ttl_s)
            request = self._pending.request
        self._lit(code)
        out: dict[str, object] = {"request": request, "expires_s": self.ttl_s,
                                  "hold_s": self.hold_s, "digits": self.digits}
        if hold:
            out["code"] = code  # to this requester only: compare it with the board's
        return out

    def undo_held(self, seconds: float) -> str | None:
        """The undo button was held: approve the request whose code is on the board if no
        other phone was turned away lately ("approved"); else withdraw what is lit and light
        a code for whoever types it ("lit"). None: held too briefly."""
        if seconds < self.hold_s:
            return None
        with self._lock:
            p = self._current()
            if p is not None and p.client is not None and not self._contested(p.client):
                p.approved = True
                log.warning("pairing approved by holding the undo button")
                return "approved"
            if p is not None:
                self._end(p)  # withdrawn: its phone is told to type the code the board lights
            code = self._new_code(self.digits)
            self._pending = PairingRequest(
                request=secrets.token_urlsafe(16), code=code, client=None, hold=False,
                expires_at=self.now() + self.ttl_s)
        self._lit(code, ", lit by holding the undo button")
        return "lit"

    def _contested(self, client: str) -> bool:
        """Whether a phone other than `client` was turned away in the last CONTEST_S."""
        since = self.now() - self.CONTEST_S
        return any(other != client and isinstance(at, float) and at > since
                   for other, at in self._refused.items())

    def _new_code(self, digits: int) -> str:
        return "".join(str(secrets.randbelow(10)) for _ in range(digits))

    def _lit(self, code: str, why: str = "") -> None:
        """Put `code` on the board, and in the log where no real board lights it."""
        self.show_code(code)
        if self.log_code:
            log.warning("pairing code %s is on the board (valid %d s)%s", code,
                        int(self.ttl_s), why)
        else:
            log.warning("a pairing code is on the board (valid %d s)%s", int(self.ttl_s), why)

    def pair(self, name: str, *, code: str | None, request: str | None, client: str) -> str:
        """A token for a correct code typed by the client that asked, or for an approved
        request; raises PairingError, RateLimitedError, BadRequestError, NameTakenError."""
        name = check_name(name)
        with self._lock:
            if code is not None:
                self._guess_allowed(client)
                p = self._current()
                if p is None:
                    raise PairingError("no pairing is pending: ask for a code first")
                if p.hold:
                    raise PairingError("this request is approved by holding the board's undo "
                                       "button, not by typing its code")
                ok = p.client in (client, None) and _same(code.strip(), p.code)
                if not ok:
                    self._wrong(p, client)
            elif request is not None:
                self._window(self._checks.get(client), self.CHECKS, 60.0, "pairing checks")
                p = self._current()
                if p is None:
                    raise PairingError("no pairing is pending: ask for a code first")
                if p.client is None:
                    raise PairingError("someone at the board held undo: type the code the "
                                       "board lights", lit=True)
                if not _same(request, p.request):
                    raise PairingError("that pairing request is not the pending one")
                if not p.approved:
                    raise PairingError(
                        f"waiting for the undo button to be held {self.hold_s:g} s", waiting=True
                    )
            else:
                raise BadRequestError("pairing needs the code from the board or a request id")
            # Only now, to the phone that proved its presence, is a taken name said (no
            # one without the code learns which names are paired); the code is not spent.
            if self.tokens.exists(name):
                raise NameTakenError(f"a phone named {name!r} is already paired: give this "
                                     "phone another name", name=name)
            # Saved before the request is spent: on a full or read-only disk (StorageFault,
            # 503) the same code or approval pairs once there is room again.
            token = self.tokens.create(name)
            self._pending = None
        self.show_code(None)
        log.warning("phone %r paired", name)
        return token

    def _guess_allowed(self, client: str) -> None:
        now = self.now()
        backoff = self._guesses.get(client)
        assert isinstance(backoff, FailureThrottle)
        wait = backoff.wait(now)
        if wait > 0:
            secs = int(wait) + 1
            raise RateLimitedError(f"too many wrong codes; try again in {secs} s, "
                                   f"{self._or_hold}", retry_after=secs)

    def _wrong(self, p: PairingRequest, client: str) -> None:
        """Count a wrong guess (the client's; for the requester, its code's and everyone's
        codes to type); always raises."""
        now = self.now()
        backoff = self._guesses.get(client)
        assert isinstance(backoff, FailureThrottle)
        backoff.failed(now)
        if p.client is None:
            self._wrong_lit(p)
        if p.client != client:
            # Never right (only the requester's guess counts): slows this client only.
            raise PairingError("that code is not for this phone: ask for your own code")
        self._typed.failed(now)
        p.failures += 1
        left = self.MAX_FAILURES - p.failures
        if left <= 0:
            self._end(p)
            self.show_code(None)
            raise PairingError("wrong code too often: the code is withdrawn; ask again")
        raise PairingError(f"wrong code ({left} {'try' if left == 1 else 'tries'} left)")

    def _wrong_lit(self, p: PairingRequest) -> None:
        """A wrong guess of a code lit by a hold (anyone may type it): spared SPARE times,
        then a code as long as the board shows replaces it, once; where the board shows no
        longer one, the code is withdrawn (hold undo again). Always raises."""
        p.failures += 1
        if p.failures < self.SPARE or len(p.code) > self.digits:  # spared, or long already
            raise PairingError("wrong code: type the code the board lights")
        if self.most_digits > len(p.code):
            p.code = self._new_code(self.most_digits)
            self._lit(p.code, ", longer after many wrong guesses")
            raise PairingError("wrong code: the board now lights a longer code; type that one",
                               lit=True)
        self._end(p)
        self.show_code(None)
        raise PairingError("wrong code too often: the code is withdrawn; hold the board's "
                           "undo button again")

    @property
    def code(self) -> str | None:
        """The code on the board now, if any."""
        with self._lock:
            p = self._current()
            return None if p is None else p.code
