"""The door: request bodies bounded while they arrive, JSON checked before FastAPI parses it,
one framing per request, and the Origin of every state-changing request checked."""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from firmware_host.api.hosts import HostPolicy

log = logging.getLogger("crib.api")

MAX_BODY = 64 * 1024  # the largest real body (a game action, a hand) is under 1 KiB
# Bodies held at once, all requests together, beyond each request's first FREE_BODY bytes:
# 2,048 connections each stalling 64 KiB into a body held 150 MB (never given back to the
# system); real bodies fit in FREE_BODY, so they are never refused for others' sake.
FREE_BODY = 4 * 1024
BODY_BUDGET = 4 * 1024 * 1024
MAX_DEPTH = 16  # the deepest real body is an action inside its envelope: depth 3
MAX_INT_DIGITS = 19  # a 64-bit integer; no real field needs more
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PARSED_JSON = "crib.json"
"""The scope key of a JSON body the door has parsed: the edge reads it from here, never the
text again (the action route types the action from it once)."""


class BodyRefused(ValueError):
    """A body that is read no further: `status` and the sentence for the client."""

    def __init__(self, status: int, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.code = code
        self.sentence = sentence


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BodyRefused(422, "invalid_request",
                          f"the number {text[:12]}… has {len(text.lstrip('-'))} digits: "
                          f"no field takes more than {MAX_INT_DIGITS}")
    return int(text)


def _float(text: str) -> float:
    if len(text) > 40:
        raise BodyRefused(422, "invalid_request", "a number in the body has over 40 characters")
    return float(text)


def json_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON text (strings are skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def check_json(body: bytes) -> Any:
    """The body's JSON value, refusing JSON that FastAPI would answer with a 400 or choke on:
    not UTF-8, nested deeper than MAX_DEPTH, integers longer than MAX_INT_DIGITS. Raises
    BodyRefused (422)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyRefused(422, "invalid_request",
                          f"the body is not UTF-8 (byte {exc.start} is {body[exc.start]:#04x})"
                          ) from None
    # Fewer brackets than the limit cannot nest past it (brackets inside strings only add
    # to the count): every real body is judged by two counts, not a walk of its text.
    depth = 0 if text.count("[") + text.count("{") <= MAX_DEPTH else json_depth(text)
    if depth > MAX_DEPTH:
        raise BodyRefused(422, "invalid_request",
                          f"the JSON body nests {depth} deep: no request nests more than "
                          f"{MAX_DEPTH}")
    try:
        return json.loads(text, parse_int=_int, parse_float=_float,
                          parse_constant=_no_constant)
    except ValueError as exc:
        if isinstance(exc, BodyRefused):
            raise
        raise BodyRefused(422, "invalid_request", f"the body is not JSON: {exc}") from None


def _no_constant(name: str) -> Any:
    raise BodyRefused(422, "invalid_request", f"{name} is not a JSON number")


def _is_json(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            return b"json" in value.lower()
    return True  # FastAPI reads a body without a content type as JSON


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope["headers"]:
        if name == wanted:
            return str(value.decode("latin-1"))
    return None


def refusal_body(code: str, sentence: str) -> bytes:
    """The JSON error body of a refusal at the door."""
    # The sentence is already in words a player can read: it is the page's `say` too.
    say = sentence[:1].upper() + sentence[1:]
    return json.dumps({"error": sentence, "code": code, "message": sentence,
                       "say": say if say.endswith((".", "!", "?")) else say + "."}).encode()


def chunk_refusal(left: int, max_body: int = MAX_BODY) -> tuple[int, str, str] | None:
    """Why a chunk with `left` bytes still to come is refused (status, code, sentence), or
    None. A size past a signed 64-bit integer is malformed (llhttp answers 400; h11 takes
    20 hex digits); one past `max_body` fits no body of ours (smaller ones the door counts
    as they arrive)."""
    if left >= 2 ** 63:
        return (400, "bad_chunk", "a chunk of the body announces a size past 63 bits: the "
                "request is malformed, and nothing more was read")
    if left > max_body:
        return (413, "too_large", f"a chunk of the body announces over {left} bytes: the "
                f"limit is {max_body // 1024} KiB, and nothing more was read")
    return None


async def refuse(send: Send, status: int, code: str, sentence: str,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer with a JSON error body and close the connection (the rest of the body is
    never read)."""
    body = refusal_body(code, sentence)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class Door:
    """ASGI middleware: a state-changing request from a foreign Origin is refused (403);
    a body over `max_body` is refused (413) on its Content-Length, or as soon as the bytes
    that arrived pass it (chunked), never buffered; a JSON body that is not UTF-8, too
    deep or has huge integers is refused (422) before FastAPI parses it."""

    def __init__(self, app: ASGIApp, policy: HostPolicy, max_body: int = MAX_BODY,
                 budget: int = BODY_BUDGET) -> None:
        self.app = app
        self.policy = policy
        self.max_body = max_body
        self.budget = budget
        self.held = 0  # bytes past FREE_BODY held by bodies being read (one event loop)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method in WRITE_METHODS:
            origin = _header(scope, b"origin")
            if not self.policy.origin_allowed(origin, _header(scope, b"host")):
                log.warning("refused %s %s from origin %r", method, scope["path"], origin)
                await refuse(send, 403, "forbidden_origin",
                             f"a page from {origin} may not change anything here: "
                             "only this daemon's own page may")
                return
        length = _header(scope, b"content-length")
        if length is not None and _header(scope, b"transfer-encoding") is not None:
            # Two framings: a proxy in front may read the other one (request smuggling).
            await refuse(send, 400, "bad_framing",
                         "a request may not carry both Content-Length and Transfer-Encoding")
            return
        if length is not None and (not length.strip().isdigit() or int(length) > self.max_body):
            await refuse(send, 413, "too_large", self._too_large(length))
            return
        if method not in WRITE_METHODS:
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read(receive)
            if body and _is_json(scope):
                scope[PARSED_JSON] = check_json(body)
        except BodyRefused as exc:
            await refuse(send, exc.status, exc.code, exc.sentence,
                         [(b"retry-after", b"1")] if exc.status == 503 else None)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self, length: str) -> str:
        return (f"the request body is {length.strip()} bytes: the limit is "
                f"{self.max_body // 1024} KiB, and nothing was read")

    async def _read(self, receive: Receive) -> bytes:
        """The whole body, counted as it arrives; raises BodyRefused past `max_body`, or
        (503) when the bodies being read together pass the budget."""
        chunks: list[bytes] = []
        size = held = 0
        try:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    # Gone (or cut off at a refused chunk) before the body was whole: the
                    # app never runs on part of one (this answer reaches no one).
                    raise BodyRefused(400, "body_cut_off", "the request body ended before "
                                      "it was whole: nothing was done")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    raise BodyRefused(413, "too_large",
                                      f"the request body passed the {self.max_body // 1024} "
                                      "KiB limit: nothing was read past it")
                more = max(0, size - FREE_BODY) - held
                if more and self.held + more > self.budget:
                    raise BodyRefused(503, "busy",
                                      "the daemon is reading too many large requests at once: "
                                      "nothing was read; try again in a moment")
                held += more
                self.held += more
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
            return b"".join(chunks)
        finally:
            self.held -= held
