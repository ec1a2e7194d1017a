"""The event stream component: ordered messages for `/api/events`.

Subscribes to what a phone shows: new games and committed actions (the game and the step's
events, each with `kind` and `say`), the board, the shuffler and the devices.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from firmware_host.bus import (
    ActionCommitted,
    BoardShown,
    DeviceChanged,
    EventBus,
    GameStarted,
    ShufflerChanged,
)
from hardware.interfaces import DeviceEvent

Message = dict[str, Any]


class EventHub:
    """Ordered events for `/api/events`: every message gets the next `seq`.

    `publish` may be called from any thread; delivery happens on the daemon's event loop,
    so a subscriber's snapshot and the deltas after it are never interleaved wrongly.
    Each message is encoded to JSON text once, for every subscriber (a phone on the table
    each), and not at all while nobody listens.
    """

    QUEUE_SIZE = 1000

    def __init__(self, bus: EventBus | None = None) -> None:
        self.seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: set[asyncio.Queue[str | None]] = set()
        if bus is not None:
            self.subscribe_to(bus)

    def subscribe_to(self, bus: EventBus) -> None:
        """Publish what the phones show, from the daemon's events."""
        bus.register_event_handler(GameStarted, lambda e: self.publish(
            {"type": "game", "game": e.entry.body(), "events": []}))
        bus.register_event_handler(ActionCommitted, self._committed)
        bus.register_event_handler(BoardShown, self._board)
        bus.register_event_handler(DeviceEvent, lambda e: self.publish(
            {"type": "device", "device": e.device, "kind": e.kind, "data": e.data}))
        bus.register_event_handler(DeviceChanged, lambda e: self.publish(
            {"type": "device", "device": e.name, "kind": "state", "data": e.described}))
        bus.register_event_handler(ShufflerChanged, lambda e: self.publish(
            {"type": "shuffler", "shuffler": e.status}))

    def _committed(self, event: ActionCommitted) -> None:
        # The game's text as it was committed and answered: not encoded a second time.
        self.publish_text(f'"type":"game","game":{event.game_text},'
                          f'"events":{event.events_text}')

    def _board(self, event: BoardShown) -> None:
        self.publish({"type": "board", "board": event.json})

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver on `loop` from now on (the app's lifespan binds its loop)."""
        self._loop = loop

    def start(self) -> None:
        """Nothing to open; the loop is bound by the app's lifespan."""

    def stop(self) -> None:
        """End every subscriber's stream (each gets None) and forget the loop."""
        for q in list(self._queues):
            with contextlib.suppress(asyncio.QueueFull):
                q.put_nowait(None)
        self._queues.clear()
        self._loop = None

    def publish(self, message: Message) -> None:
        """Queue a message for every subscriber (thread-safe; dropped before the loop is bound)."""
        self._send(message)

    def publish_text(self, members: str) -> None:
        """`publish` for a message already encoded: its JSON members, without the braces."""
        self._send(members)

    def _send(self, message: Message | str) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._deliver(message)
        else:
            loop.call_soon_threadsafe(self._deliver, message)

    def _deliver(self, message: Message | str) -> None:
        self.seq += 1
        if not self._queues:
            return
        if isinstance(message, str):
            text = f'{{{message},"seq":{self.seq}}}'
        else:
            text = json.dumps({**message, "seq": self.seq}, ensure_ascii=False,
                              separators=(",", ":"))
        for q in list(self._queues):
            try:
                q.put_nowait(text)
            except asyncio.QueueFull:
                # A client that does not read is dropped; it reconnects and gets a snapshot.
                self._queues.discard(q)
                q.get_nowait()
                q.put_nowait(None)

    def subscribe(
        self, snapshot: Callable[[], Message]
    ) -> tuple[Message, asyncio.Queue[str | None]]:
        """A snapshot stamped with the current seq and a queue of what follows it, as JSON
        text (None: the stream ends); on the loop."""
        q: asyncio.Queue[str | None] = asyncio.Queue(self.QUEUE_SIZE)
        snap = {"type": "snapshot", **snapshot(), "seq": self.seq}
        self._queues.add(q)
        return snap, q

    def unsubscribe(self, q: asyncio.Queue[str | None]) -> None:
        self._queues.discard(q)

    @property
    def subscribers(self) -> int:
        """How many streams are open."""
        return len(self._queues)
