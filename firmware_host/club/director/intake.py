"""The director's MQTT link (paho-mqtt): a persistent session that takes every table's
messages with QoS 1 and hands them to the night, and publishes what the night sends.

paho's network thread only sorts each message into its table's lane (`Lanes`): a bounded
queue of results and presence, and one slot for the live state that keeps the latest. One
worker takes the lanes in turn, one message from each table that has one, so a table that
floods its own topic waits behind itself: another table's result is taken within one turn,
and paho's thread is never held up (its keepalive goes out whatever arrives). What a lane
cannot hold is dropped with a line; a table's real result is not lost by it, because the
table sends it again until the director's `counted` lists it."""

from __future__ import annotations

import collections
import contextlib
import logging
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from firmware_host.club.director.config import DirectorConfig
from firmware_host.club.director.night import Night
from firmware_host.clubwire import DIRECTOR_USER, PREFIX, parse_table_topic

log = logging.getLogger("crib.club")

KEEPALIVE_S = 15
LANE = 32  # results and presence messages waiting per table (a real table has one or two)
DROP_LOG_S = 10.0  # a flooding table's drops are said once per this

Handle = Callable[[str, bytes, bool], None]


def client_id(club: str) -> str:
    """The client id: the director's user name (the club's broker ties every client id to
    its user, so no table's password can take this session and its queue)."""
    return DIRECTOR_USER


class Lanes:
    """One lane per table: a bounded queue, and a slot for the latest live state; a worker
    thread hands them to `handle` a table at a time, then calls `after` once a turn."""

    def __init__(self, club: str, handle: Handle, after: Callable[[], None],
                 size: int = LANE,
                 batch: Callable[[], contextlib.AbstractContextManager[None]] | None = None
                 ) -> None:
        self.club = club
        self.handle = handle
        self.after = after
        self.batch = batch or contextlib.nullcontext
        self.size = size
        self._queues: dict[str, collections.deque[tuple[str, bytes, bool]]] = {}
        self._state: dict[str, tuple[str, bytes, bool]] = {}
        self._ready: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._dropped: dict[str, int] = {}
        self._said: dict[str, float] = {}
        self._cond = threading.Condition()
        self._running = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._running = True
        self._thread = threading.Thread(target=self._work, name="club-lanes", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._running = False
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(10)

    def put(self, topic: str, payload: bytes, retained: bool) -> bool:
        """Queue a message in its table's lane (any other topic: the worker refuses it with
        a line); False when the lane is full and it was dropped."""
        where = parse_table_topic(self.club, topic)
        table, leaf = where if where is not None else ("", "")
        item = (topic, payload, retained)
        with self._cond:
            if leaf == "state":
                self._state[table] = item  # only the latest state matters
            else:
                queue = self._queues.setdefault(table, collections.deque())
                if len(queue) >= self.size:
                    self._drop(table)
                    return False
                queue.append(item)
            self._ready[table] = None
            self._cond.notify()
        return True

    def waiting(self) -> int:
        with self._cond:
            return sum(len(q) for q in self._queues.values()) + len(self._state)

    def _drop(self, table: str) -> None:
        self._dropped[table] = self._dropped.get(table, 0) + 1
        now = time.monotonic()
        if now - self._said.get(table, -1e9) >= DROP_LOG_S:
            self._said[table] = now
            log.warning("table %s sends faster than the director takes: %d message(s) "
                        "dropped so far (its lane holds %d; a real result is sent again)",
                        table or "?", self._dropped[table], self.size)

    def _next_turn(self) -> list[tuple[str, bytes, bool]]:
        """One message from each table with any (its live state first), in turn."""
        turn = []
        with self._cond:
            while self._running and not self._ready:
                self._cond.wait()
            for table in list(self._ready):
                state = self._state.pop(table, None)
                if state is not None:
                    turn.append(state)
                queue = self._queues.get(table)
                if queue:
                    turn.append(queue.popleft())
                if not queue and table not in self._state:
                    del self._ready[table]
        return turn

    def _work(self) -> None:
        while True:
            turn = self._next_turn()
            if not turn:
                if not self._running:
                    return
                continue
            try:
                # One turn, one commit: what it took is on disk before anything is told.
                with self.batch():
                    for topic, payload, retained in turn:
                        self.handle(topic, payload, retained)
                    self.after()
            except Exception as exc:  # a disk that refuses: said; the tables send again
                log.error("the director could not keep %d message(s): %s", len(turn), exc)


class Intake:
    """Component: `start()` connects in the background (and keeps reconnecting); messages
    arrive on paho's thread, where the night commits each before paho acknowledges it."""

    def __init__(self, config: DirectorConfig, night: Night, password: str) -> None:
        self.config = config
        self.night = night
        self.connected = False
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id(config.club),
                        protocol=mqtt.MQTTv5)
        c.username_pw_set(DIRECTOR_USER, password)
        if config.tls:
            c.tls_set(ca_certs=config.ca_file or None, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.reconnect_delay_set(min_delay=1, max_delay=10)
        c.on_connect = self._connected
        c.on_disconnect = self._disconnected
        c.on_message = self._message
        self.client = c
        self.lanes = Lanes(config.club, self._handle, night.publish_standings,
                           batch=night.batch)
        night.publish = self.publish

    @property
    def topic(self) -> str:
        return f"{PREFIX}/{self.config.club}/tables/+/+"

    def start(self) -> None:
        self.lanes.start()
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = self.config.session_expiry
        self.client.connect_async(self.config.broker, self.config.port, KEEPALIVE_S,
                                  clean_start=False, properties=props)
        self.client.loop_start()

    def stop(self) -> None:
        self.connected = False  # (no "lost the broker" line for our own goodbye)
        self.client.disconnect()
        self.client.loop_stop()
        self.lanes.stop()

    def publish(self, topic: str, data: bytes) -> None:
        """Publish retained with QoS 1 (paho sends it when connected; every (re)connect
        publishes the night's state again anyway)."""
        self.client.publish(topic, data, qos=1, retain=True)

    def status(self) -> str:
        where = f"{self.config.broker}:{self.config.port}"
        return f"broker {where}: connected" if self.connected else f"broker {where}: offline"

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                   properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker refused the director: %s", reason)
            return
        self.connected = True
        log.info("connected to the broker %s:%d (session %s)", self.config.broker,
                 self.config.port, "resumed" if flags.session_present else "new")
        # No local: the director's own seating and counted messages do not come back.
        client.subscribe(self.topic, options=SubscribeOptions(qos=1, noLocal=True))
        self.night.on_connect()

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                      properties: Any) -> None:
        if self.connected:
            log.warning("lost the broker (%s): reconnecting", reason)
        self.connected = False

    def _handle(self, topic: str, payload: bytes, retained: bool) -> None:
        self.night.on_message(topic, payload, retained, publish=False)

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # Only queued here: paho's thread must keep reading (and pinging). The broker's
        # acknowledgement is not the table's: a table keeps a result until `counted`.
        self.lanes.put(message.topic, message.payload, bool(message.retain))
