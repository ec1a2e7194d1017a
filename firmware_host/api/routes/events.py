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
# Streams one address may hold without a token, and one token may hold from anywhere: a phone
# with a few tabs. One address or one token cannot take the cap from everyone; a paired phone
# is never refused for unpaired streams' sake, nor for another token's beyond a fair share.
PER_ADDRESS = 8
PER_TOKEN = PER_ADDRESS
POLL_S = 5  # what a refused page does instead: read the game every POLL_S seconds
PROTOCOL = "crib"  # the subprotocol a page offers, with "bearer.<token>" beside it
BEARER = "bearer."
EVICTED = 1013  # "try again later": closed to make room for a paired phone or a fair share


@dataclass(eq=False)
class Stream:
    """One open stream: its address, its token's name (None: unpaired), and its queue."""

    address: str
    token: str | None
    queue: asyncio.Queue[str | None]
    order: int = 0
    evicted: bool = field(default=False)

    @property
    def paired(self) -> bool:
        return self.token is not None

    @property
    def holder(self) -> tuple[bool, str]:
        """Whose share it counts in: its token's, else its address's."""
        return (True, self.token) if self.token is not None else (False, self.address)


class StreamGate:
    """Who may hold the `cap` live streams: an address without a token at most `per_address`,
    a token (from any addresses) at most `per_token`. When the cap is full, a paired phone
    closes the oldest unpaired stream of the address holding the most, or, with none left,
    the oldest stream of the token holding the most if that token holds two more than its
    own; a watcher closes the oldest unpaired stream of the address holding the most if
    that address holds two more than it. Bounded: one entry per open stream."""

    def __init__(self, cap: int = MAX_STREAMS, per_address: int = PER_ADDRESS,
                 per_token: int = PER_TOKEN) -> None:
        self.cap, self.per_address, self.per_token = cap, per_address, per_token
        self.open: list[Stream] = []
        self._order = itertools.count()

    def held(self, holder: tuple[bool, str]) -> int:
        """Streams open in `holder`'s share ((True, token name) or (False, address))."""
        return sum(1 for s in self.open if s.holder == holder)

    def refusal(self, address: str, token: str | None) -> str | None:
        """Why a new stream from `address` with `token` (its name; None: unpaired) is refused
        (None: it may open; a stream may be evicted for it by `admit`)."""
        if token is None and self.held((False, address)) >= self.per_address:
            return (f"this address already holds {self.per_address} live streams: the page "
                    f"reads the game every {POLL_S} s instead")
        if token is not None and self.held((True, token)) >= self.per_token:
            return (f"this phone's token already holds {self.per_token} live streams: the "
                    f"page reads the game every {POLL_S} s instead")
        if len(self.open) < self.cap or self._victim(address, token) is not None:
            return None
        return (f"all {self.cap} live streams are in use: the page reads the game every "
                f"{POLL_S} s instead; a paired phone always gets one")

    def _victim(self, address: str, token: str | None) -> Stream | None:
        """The stream to close for a newcomer on a full cap, or None (refused)."""
        victim = self._top(False, (False, address), fair=token is not None)
        if victim is None and token is not None:
            victim = self._top(True, (True, token), fair=False)
        return victim

    def _top(self, paired: bool, mine: tuple[bool, str], fair: bool) -> Stream | None:
        """The oldest stream of the holder (of paired or unpaired streams) holding the most;
        None if there is none, or (unless `fair`: any holder will do) if it holds fewer
        than two more than `mine`."""
        counts: dict[tuple[bool, str], int] = {}
        for s in self.open:
            if s.paired == paired:
                counts[s.holder] = counts.get(s.holder, 0) + 1
        if not counts:
            return None
        top = max(counts, key=lambda h: counts[h])
        if not fair and counts[top] < counts.get(mine, 0) + 2:
            return None  # fair already: the newcomer would hold as many as the top
        return min((s for s in self.open if s.holder == top), key=lambda s: s.order)

    def admit(self, address: str, token: str | None,
              queue: asyncio.Queue[str | None]) -> Stream:
        """Count a new stream (after `refusal` said None), evicting one if the cap is full."""
        if len(self.open) >= self.cap:
            victim = self._victim(address, token)
            if victim is not None:
                self.evict(victim)
        stream = Stream(address, token, queue, next(self._order))
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


def _token_name(services: Services, ws: WebSocket) -> str | None:
    """The name of the token the stream carries; None for none, or an unknown one."""
    token = stream_token(ws)
    if token is None:
        return None
    try:
        return services.tokens.check(token)
    except AuthRequiredError:
        return None


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
    token = _token_name(services, ws)
    why = gate.refusal(address, token)
    if why is not None:
        log.warning("refused a WebSocket from %s: %s", address, why)
        await _deny(ws, why)
        return
    # Subscribed before the accept's await, so that streams opening at once are counted.
    snapshot, queue = services.hub.subscribe(services.snapshot)
    stream = gate.admit(address, token, queue)
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
