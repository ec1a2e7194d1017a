"""The live event stream: a snapshot, then every change, in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from firmware_host.services import Services

log = logging.getLogger("crib.api")


async def events(ws: WebSocket) -> None:
    services: Services = ws.app.state.services
    policy = ws.app.state.host_policy
    if not policy.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
        log.warning("refused WebSocket from origin %r", ws.headers.get("origin"))
        await ws.close(code=1008)
        return
    await ws.accept()
    snapshot, queue = services.hub.subscribe(services.snapshot)

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
