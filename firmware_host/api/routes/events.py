"""The live event stream: a snapshot, then every change, in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from firmware_host.services import Services

log = logging.getLogger("crib.api")

# Streams open at once: a table's phones need a handful. The cap keeps idle streams (which
# answer pings, so no timeout ends them) from filling the connection cap that HTTP needs.
MAX_STREAMS = 128


async def events(ws: WebSocket) -> None:
    services: Services = ws.app.state.services
    policy = ws.app.state.host_policy
    if not policy.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
        log.warning("refused WebSocket from origin %r", ws.headers.get("origin"))
        await ws.close(code=1008)
        return
    if services.hub.subscribers >= MAX_STREAMS:
        log.warning("refused a WebSocket: %d event streams are open", MAX_STREAMS)
        await ws.close(code=1013)  # before accept: the client gets a 403
        return
    # Subscribed before the accept's await, so that streams opening at once are counted.
    snapshot, queue = services.hub.subscribe(services.snapshot)
    try:
        await ws.accept()
    except BaseException:
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
                    await ws.close(code=1001)
                return
            await ws.send_text(message)  # encoded once by the hub for every subscriber
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watcher.cancel()
        services.hub.unsubscribe(queue)


def router() -> APIRouter:
    r = APIRouter(tags=["events"])
    r.add_api_websocket_route("/api/events", events)
    return r
