"""The live event stream: a snapshot, then every change, in order."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from dataclasses import dataclass, field

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from firmware_host.errors import AuthRequiredError
from firmware_host.services import Services

log = logging.getLogger("crib.api")

# Streams open at once: a table's phones need a handful. The cap keeps idle streams (which
# answer pings, so no timeout ends them) from filling the connection cap that HTTP needs.
MAX_STREAMS = 128
# Streams one address may hold without a token: a phone with a few tabs. One address cannot
# take the cap from everyone; a paired phone is never refused for unpaired streams' sake.
PER_ADDRESS = 8
POLL_S = 5  # what a refused page does instead: read the game every POLL_S seconds
PROTOCOL = "crib"  # the subprotocol a page offers, with "bearer.<token>" beside it
BEARER = "bearer."
EVICTED = 1013  # "try again later": closed to make room for a paired phone or a fair share


@dataclass(eq=False)
class Stream:
    """One open stream: who holds it, whether with a token, and its queue."""

    address: str
    paired: bool
    queue: asyncio.Queue[str | None]
    order: int = 0
    evicted: bool = field(default=False)


class StreamGate:
    """Who may hold the `cap` live streams: an address without a token at most `per_address`;
    when the cap is full, a paired phone closes the oldest unpaired stream of the address
    holding the most, and a watcher does too if that address holds two more than it.
    Bounded: one entry per open stream."""

    def __init__(self, cap: int = MAX_STREAMS, per_address: int = PER_ADDRESS) -> None:
        self.cap, self.per_address = cap, per_address
        self.open: list[Stream] = []
        self._order = itertools.count()

    def unpaired(self, address: str) -> int:
        return sum(1 for s in self.open if not s.paired and s.address == address)

    def refusal(self, address: str, paired: bool) -> str | None:
        """Why a new stream from `address` is refused (None: it may open; a stream may be
        evicted for it by `admit`)."""
        if not paired and self.unpaired(address) >= self.per_address:
            return (f"this address already holds {self.per_address} live streams: the page "
                    f"reads the game every {POLL_S} s instead")
        if len(self.open) < self.cap or self._victim(address, paired) is not None:
            return None
        return (f"all {self.cap} live streams are in use: the page reads the game every "
                f"{POLL_S} s instead; a paired phone always gets one")

    def _victim(self, address: str, paired: bool) -> Stream | None:
        counts: dict[str, int] = {}
        for s in self.open:
            if not s.paired:
                counts[s.address] = counts.get(s.address, 0) + 1
        if not counts:
            return None
        top = max(counts, key=lambda a: counts[a])
        if not paired and counts[top] < counts.get(address, 0) + 2:
            return None  # fair already: the newcomer would hold as many as the top
        return min((s for s in self.open if not s.paired and s.address == top),
                   key=lambda s: s.order)

    def admit(self, address: str, paired: bool, queue: asyncio.Queue[str | None]) -> Stream:
        """Count a new stream (after `refusal` said None), evicting one if the cap is full."""
        if len(self.open) >= self.cap:
            victim = self._victim(address, paired)
            if victim is not None:
                self.evict(victim)
        stream = Stream(address, paired, queue, next(self._order))
        self.open.append(stream)
        return stream

    def evict(self, stream: Stream) -> None:
        stream.evicted = True
        self.release(stream)
        q = stream.queue
        with contextlib.suppress(asyncio.QueueEmpty):
            while q.full():
                q.get_nowait()
        q.put_nowait(None)

    def release(self, stream: Stream) -> None:
        with contextlib.suppress(ValueError):
            self.open.remove(stream)


def stream_token(ws: WebSocket) -> str | None:
    """The token a stream carries: `Authorization: Bearer`, or, from a browser (which cannot
    set that header), the subprotocol `bearer.<token>` offered beside `crib`."""
    header = ws.headers.get("authorization")
    if header:
        return header
    for proto in ws.scope.get("subprotocols", ()):
        if proto.startswith(BEARER):
            return "Bearer " + proto[len(BEARER):]
    return None


def _paired(services: Services, ws: WebSocket) -> bool:
    token = stream_token(ws)
    if token is None:
        return False
    try:
        services.tokens.check(token)
    except AuthRequiredError:
        return False
    return True


async def _deny(ws: WebSocket, sentence: str) -> None:
    """Refuse before the handshake with a sentence and when to read again (browsers see a
    failed stream; other clients read the answer)."""
    say = sentence[:1].upper() + sentence[1:] + "."
    body = {"error": sentence, "code": "streams_full", "say": say, "poll_s": POLL_S}
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(JSONResponse(
            body, status_code=503, headers={"Retry-After": str(POLL_S)}))
    else:
        await ws.close(code=EVICTED)


async def events(ws: WebSocket) -> None:
    services: Services = ws.app.state.services
    policy = ws.app.state.host_policy
    if not policy.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
        log.warning("refused WebSocket from origin %r", ws.headers.get("origin"))
        await ws.close(code=1008)
        return
    gate: StreamGate = ws.app.state.stream_gate
    address = ws.client.host if ws.client else "?"
    paired = _paired(services, ws)
    why = gate.refusal(address, paired)
    if why is not None:
        log.warning("refused a WebSocket from %s: %s", address, why)
        await _deny(ws, why)
        return
    # Subscribed before the accept's await, so that streams opening at once are counted.
    snapshot, queue = services.hub.subscribe(services.snapshot)
    stream = gate.admit(address, paired, queue)
    try:
        offered = ws.scope.get("subprotocols", ())
        await ws.accept(subprotocol=PROTOCOL if PROTOCOL in offered else None)
    except BaseException:
        gate.release(stream)
        services.hub.unsubscribe(queue)
        raise

    async def watch_close() -> None:
        # Notice a client that leaves while nothing is being sent.
        with contextlib.suppress(Exception):
            while (await ws.receive())["type"] != "websocket.disconnect":
                pass
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait(None)

    watcher = asyncio.create_task(watch_close())
    try:
        await ws.send_json(snapshot)
        while True:
            message = await queue.get()
            if message is None:
                with contextlib.suppress(Exception):
                    if stream.evicted:
                        await ws.close(code=EVICTED, reason="make room: read the game by HTTP")
                    else:
                        await ws.close(code=1001)
                return
            await ws.send_text(message)  # encoded once by the hub for every subscriber
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watcher.cancel()
        gate.release(stream)
        services.hub.unsubscribe(queue)


def router() -> APIRouter:
    r = APIRouter(tags=["events"])
    r.add_api_websocket_route("/api/events", events)
    return r
