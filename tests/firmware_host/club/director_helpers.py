"""The director as the club tests run it: a real `crib club serve` subprocess on a free
port with its own state directory, against a real broker (broker_helpers.Broker); and a
table's MQTT client with the table's own credentials."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from cribbage.rules import result_of
from firmware_host.clubwire import GameResult, Side, encode, table_topic
from tests.firmware_host.club.broker_helpers import Broker
from tests.processes import free_port

REPO = Path(__file__).resolve().parents[3]
NIGHT = "2026-12-02"
WAIT_S = 30.0  # a loaded machine (2 cores, five test runs) is slow, never this slow


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """`check()`'s first truthy value, polled; AssertionError naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (httpx.HTTPError, OSError, KeyError, ValueError) as exc:
            last = exc
        else:
            if last:
                return last
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout:.0f} s (last: {last!r})")


class Director:
    """`crib club serve` in a subprocess; `settings` are written to its club.toml."""

    def __init__(self, directory: Path, broker: Broker, **settings: Any) -> None:
        self.dir = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.http_port = free_port()
        self.state = directory / "state"
        values: dict[str, Any] = {
            "club": broker.club, "broker": "127.0.0.1", "port": broker.port,
            "password": broker.passwords["director"], "host": "127.0.0.1",
            "http_port": self.http_port, "state_dir": str(self.state), "night": NIGHT,
            **settings}
        self.config = directory / "club.toml"
        self.config.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items()))
        self.log = directory / "director.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.http_port}"

    def start(self) -> Director:
        """Start it and wait until it answers HTTP and has subscribed at the broker."""
        out = open(self.log, "ab")  # noqa: SIM115 (the process holds it)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "firmware_host", "club", "serve", "--config",
             str(self.config)], cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=env)
        out.close()
        connects = self.text().count("connected to the broker")

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.text()
            return (httpx.get(self.url + "/api/standings", timeout=2).status_code == 200
                    and self.text().count("connected to the broker") > connects)

        wait_for("the director up and connected", up)
        return self

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    @property
    def token(self) -> str:
        return (self.state / "director-token").read_text().strip()

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10, **kw)

    def post(self, path: str, body: Any, token: str | None = "yes") -> httpx.Response:
        headers = {} if token is None else {
            "Authorization": f"Bearer {self.token if token == 'yes' else token}"}
        return httpx.post(self.url + path, json=body, headers=headers, timeout=10)

    def standings(self) -> dict[str, Any]:
        reply = self.get("/api/standings")
        assert reply.status_code == 200, reply.text
        return reply.json()  # type: ignore[no-any-return]

    def row(self, name: str) -> dict[str, Any]:
        return next(r for r in self.standings()["rows"] if r["name"] == name)

    def kill(self) -> None:
        """SIGKILL: nothing of the director's own shutdown runs."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)
        self.proc = None

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        code = self.proc.returncode
        self.proc = None
        return code

    def __enter__(self) -> Director:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class TableClient:
    """A paho client with a table's credentials (user = table name)."""

    def __init__(self, broker: Broker, user: str, password: str | None = None) -> None:
        self.user = user
        self.received: list[tuple[str, bytes]] = []
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{time.time_ns()}",
                        protocol=mqtt.MQTTv5)
        c.username_pw_set(user, password or broker.passwords[user])
        c.on_message = lambda client, userdata, m: self.received.append((m.topic, m.payload))
        c.connect("127.0.0.1", broker.port, 30)
        c.loop_start()
        self.client = c
        wait_for(f"{user} connected", c.is_connected, 10)

    def publish(self, topic: str, data: bytes, retain: bool = False) -> None:
        info = self.client.publish(topic, data, qos=1, retain=retain)
        info.wait_for_publish(10)

    def subscribe(self, topic: str) -> None:
        self.client.subscribe(topic, qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def result(table: str, number: int, names: tuple[str, str], scores: tuple[int, int],
           kind: str | None = None, *, round_: int | None = None, night: str | None = NIGHT,
           rev: int = 0, void: bool = False, winner: int | None = None,
           id_: str | None = None) -> GameResult:
    """A finished game's result as a table sends it (`winner`: the higher score's side;
    `kind`: what the engine makes of the scores)."""
    made = result_of(list(scores), 121)
    kind = kind or (made.kind.value if made is not None else "win")
    return GameResult(
        id=id_ or f"{table}.abcd1234.{number}.1", table=table,
        night=night if round_ is not None else None, round=round_,
        sides=[Side(names=[names[0]], score=scores[0]), Side(names=[names[1]], score=scores[1])],
        winner=(0 if scores[0] > scores[1] else 1) if winner is None else winner,
        kind=kind, target=121, variant="six-card", finished_at=time.time(), rev=rev, void=void)


def send(table: TableClient, res: GameResult, topic_table: str | None = None) -> None:
    """Publish a result on the results topic of `topic_table` (default: its own)."""
    table.publish(table_topic("club", topic_table or res.table, "results"), encode(res))
