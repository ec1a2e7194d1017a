"""What the daemon builds on uvicorn's internals, in one place: the h11 protocol with the
guards uvicorn has no setting for (the idle connection shed over the cap, a deadline for a
request head, a chunk size no body fits answered at once), and one write per answer.
Everything uvicorn offers as a setting (keep-alive, the incomplete-head limit, the
concurrency cap, the graceful-shutdown timeout, WebSocket sizes) is set in
`app_main.uvicorn_config` instead.
`tests/firmware_host/test_uvicorn_hooks.py` fails if an upgrade of uvicorn changes what
these rely on (and `test_security_door.py` if h11's chunk reader changes)."""

from __future__ import annotations

import asyncio
import logging

import h11
from h11._readers import ChunkedReader
from uvicorn.protocols.http.h11_impl import H11Protocol

from firmware_host.api.guard import chunk_refusal, refusal_body

log = logging.getLogger("crib.daemon")

MAX_CONNECTIONS = 2048  # the default cap (app_main derives the real one from the file limit)
HEADER_TIMEOUT_S = 10.0  # a request's headers must be complete within this (slow loris)


class OneWrite:
    """The transport as one answer's writes see it: what is written in one step of the
    event loop is sent in one system call (the answer's head, then its body, are two writes
    in uvicorn). Flushed when the answer is complete, before a close, and at the latest on
    the loop's next step, so a streamed answer is never held back."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def flush(self) -> None:
        if self._held:
            data = b"".join(self._held)
            self._held.clear()
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> object:
        return getattr(self._transport, name)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the two guards it lacks: over the cap, the connection
    idle longest is closed (its file descriptor freed) so that a new client is served, not
    the thousand idle ones before it; and a client whose request head is not complete
    within `HEADER_TIMEOUT_S` of the connection (or of its last answer) is closed: uvicorn's
    keep-alive timer starts only after a first answer, and any byte stops it.

    The cap is one below uvicorn's `limit_concurrency`, where uvicorn answers 503."""

    header_timeout_s = HEADER_TIMEOUT_S

    @property
    def max_connections(self) -> int:
        limit = self.limit_concurrency
        return MAX_CONNECTIONS if limit is None else max(1, limit - 1)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._idle_since = self.loop.time()
        self._waiting_since: tuple[object, float] = (None, self._idle_since)
        self._head_timer = self.loop.call_later(self.header_timeout_s / 2, self._check_head)
        if len(self.connections) > self.max_connections:
            self._shed()

    def _shed(self) -> None:
        """Close the connection idle longest (waiting for a request, none in progress), or
        this new one when every other is busy; closing ones are not counted."""
        live = 0
        oldest: GuardedH11 | None = None
        for other in self.connections:
            transport = getattr(other, "transport", None)
            if transport is None or transport.is_closing():
                continue
            live += 1
            if (other is not self and isinstance(other, GuardedH11)
                    and other.conn.their_state is h11.IDLE
                    and (other.cycle is None or other.cycle.response_complete)
                    and (oldest is None or other._idle_since < oldest._idle_since)):
                oldest = other
        if live <= self.max_connections:
            return
        log.warning("over %d connections: closing the one idle longest",
                    self.max_connections)
        (oldest or self).transport.close()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle and self.cycle is not None:
            # A new request: its answer's head and body leave in one socket write, not two
            # (each write to a socket is a system call and a TCP segment).
            self.cycle.transport = OneWrite(self.transport, self.loop)
        # h11 takes a chunk size of up to 20 hex digits and waits for that many bytes: a
        # size no body fits is answered at once instead (the door never sees the size).
        reader = getattr(self.conn, "_reader", None)
        if isinstance(reader, ChunkedReader) and not self.transport.is_closing():
            why = chunk_refusal(reader._bytes_in_chunk)
            if why is not None:
                self._refuse_chunk(*why)

    def _refuse_chunk(self, status: int, code: str, sentence: str) -> None:
        """Answer `status` with the door's JSON body unless an answer has begun, and close;
        the request's app sees a client that left."""
        log.warning("refused a request: %s", sentence)
        cycle = self.cycle
        if cycle is not None:
            started = cycle.response_started
            cycle.disconnected = True  # the app's answer, if any, goes nowhere
            cycle.message_event.set()
        else:
            started = False
        if not started and self.conn.our_state is h11.SEND_RESPONSE:
            body = refusal_body(code, sentence)
            self.transport.write(b"".join(self.conn.send(event) or b"" for event in (
                h11.Response(status_code=status, headers=[
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()), (b"connection", b"close")]),
                h11.Data(data=body), h11.EndOfMessage())))
        self.transport.close()

    def on_response_complete(self) -> None:
        transport = getattr(self.cycle, "transport", None)
        if isinstance(transport, OneWrite):
            transport.flush()  # the answer is whole: send it now
        super().on_response_complete()
        self._idle_since = self.loop.time()

    def connection_lost(self, exc: Exception | None) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
        super().connection_lost(exc)

    def _check_head(self) -> None:
        transport = self.transport
        if transport.is_closing() or transport.get_protocol() is not self:
            return  # closed, or upgraded to a WebSocket (which has its own pings)
        now = self.loop.time()
        # Waiting for a request head, or for the rest of a body: both must come in time.
        waiting = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
        marker = self.cycle  # a new request (or a new answer) makes a new cycle
        if not waiting or marker is not self._waiting_since[0]:
            self._waiting_since = (marker, now)
        elif now - self._waiting_since[1] >= self.header_timeout_s:
            transport.close()
            return
        self._head_timer = self.loop.call_later(self.header_timeout_s / 2, self._check_head)
