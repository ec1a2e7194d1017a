"""A table in a club: its live state and results reach the director's topics over a real
Mosquitto, a result waits through an outage and a SIGKILL, and the seating starts a game."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from firmware_host import clubwire as schema
from tests.firmware_host.club.broker_helpers import PASSWORDS, Broker
from tests.firmware_host.conftest import Daemon


def wait_for(what: str, check: Callable[[], Any], timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Director:
    """The director's side of the wire, by hand: what arrives, and what it publishes."""

    def __init__(self, broker: Broker) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-director")
        self.client.username_pw_set("director", PASSWORDS["director"])
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port)
        self.client.subscribe("crib/v1/club/#", qos=1)
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        with self.lock:
            self.messages.append((message.topic, message.payload, message.retain))

    def of(self, leaf: str) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(p) for t, p, _ in self.messages
                    if t == schema.table_topic("club", "t1", leaf) and p]

    def publish(self, leaf: str, payload: bytes) -> None:
        self.client.publish(schema.table_topic("club", "t1", leaf), payload, qos=1,
                            retain=True).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()



def table(tmp_path: Path, broker: Broker) -> Daemon:
    extra = (f'\n[club]\nbroker = "127.0.0.1"\nport = {broker.port}\nclub = "club"\n'
             f'table = "t1"\npassword = "{PASSWORDS["t1"]}"\n')
    return Daemon(tmp_path / "t1", extra=extra)


def seat(director: Director, names: list[str], round_: int = 1) -> None:
    director.publish("seating", schema.encode(schema.Seating(
        night="2026-12-02", round=round_, table="t1", names=names)))


def win(daemon: Daemon, game: dict[str, Any], loser: int = 100) -> dict[str, Any]:
    """Peg side 1 to `loser`, then side 0 to 121: a win (or a skunk under 91)."""
    for side, total in ((1, loser), (0, 121)):
        while game["sides"][side]["front"] < total:
            step = min(15, total - game["sides"][side]["front"])
            r = daemon.client.act(game, {"type": "peg", "side": side, "points": step})
            assert r.status_code == 200, r.text
            game = r.json()["game"]
    assert game["result"] is not None
    return game


def club(daemon: Daemon) -> dict[str, Any]:
    r = daemon.client.req("GET", "/api/club", auth=False)
    assert r.status_code == 200, r.text
    return dict(r.json())


def start_seated(daemon: Daemon) -> dict[str, Any]:
    r = daemon.client.req("POST", "/api/club/start", {})
    assert r.status_code == 201, r.text
    game = dict(r.json())
    if "dealer" in game["legal"]:
        r = daemon.client.act(game, {"type": "dealer", "player": 0})
        game = r.json()["game"]
    return game


def test_a_seated_game_is_live_and_its_result_counts_once(tmp_path: Path,
                                                          broker: Broker) -> None:
    director = Director(broker)
    daemon = table(tmp_path, broker)
    daemon.start()
    try:
        assert daemon.client.req("POST", "/api/club/start", {}, auth=False).status_code == 401
        nobody = daemon.client.req("POST", "/api/club/start", {})
        assert nobody.status_code == 409 and "not seated" in nobody.json()["error"]
        seat(director, ["Ann", "Bob"], round_=3)
        wait_for("the seating", lambda: (club(daemon).get("seating") or {}).get("round") == 3)
        game = start_seated(daemon)
        assert game["names"] == ["Ann", "Bob"]
        state = wait_for("live state", lambda: [
            s for s in director.of("state")
            if s["game"] and s["game"]["id"] == game["id"] and s["round"] == 3])[-1]
        assert [s["names"] for s in state["game"]["sides"]] == [["Ann"], ["Bob"]]
        win(daemon, game, loser=80)
        result = wait_for("the result", lambda: director.of("results"))[0]
        assert (result["round"], result["night"], result["kind"], result["winner"]) == \
            (3, "2026-12-02", "skunk", 0)
        assert [s["score"] for s in result["sides"]] == [121, 80]
        assert club(daemon)["waiting"] == 1
        director.publish("counted", schema.encode(schema.Counted(
            night="2026-12-02", ids=[f"{result['id']}@0"])))
        wait_for("counted", lambda: club(daemon)["waiting"] == 0)
        assert "connected" in club(daemon)["line"]
        health = daemon.client.req("GET", "/api/health", auth=False).json()
        assert health["club"]["waiting"] == 0 and health["club"]["connected"]
    finally:
        daemon.close()
        director.close()


def test_a_result_waits_through_an_outage_and_a_sigkill(tmp_path: Path,
                                                        broker: Broker) -> None:
    daemon = table(tmp_path, broker)
    daemon.start()
    try:
        wait_for("connected", lambda: club(daemon)["connected"])
        broker.stop()
        wait_for("offline", lambda: not club(daemon)["connected"])
        game = daemon.client.new_game(names=["Cy", "Dee"])
        if "dealer" in game["legal"]:
            game = daemon.client.act(game, {"type": "dealer", "player": 0}).json()["game"]
        win(daemon, game)
        assert club(daemon)["line"] == "club: offline, 1 result waiting"
        daemon.kill()  # a power cut, with the result on disk and never sent
        daemon.start()
        assert club(daemon)["waiting"] == 1
        director = Director(broker.start())
        try:
            result = wait_for("the result after the outage", lambda: director.of("results"),
                              timeout=45)[0]
            assert [s["names"] for s in result["sides"]] == [["Cy"], ["Dee"]]
            assert result["round"] is None and result["kind"] == "win"
        finally:
            director.close()
    finally:
        daemon.close()


def test_an_undo_after_sending_voids_the_result(tmp_path: Path, broker: Broker) -> None:
    director = Director(broker)
    daemon = table(tmp_path, broker)
    daemon.start()
    try:
        game = daemon.client.new_game(names=["Ann", "Bob"])
        if "dealer" in game["legal"]:
            game = daemon.client.act(game, {"type": "dealer", "player": 0}).json()["game"]
        game = win(daemon, game)
        wait_for("the result", lambda: director.of("results"))
        r = daemon.client.act(game, {"type": "undo"})
        assert r.status_code == 200, r.text
        void = wait_for("the void", lambda: [m for m in director.of("results") if m["void"]])
        assert void[0]["rev"] == 1 and void[0]["id"] == director.of("results")[0]["id"]
    finally:
        daemon.close()
        director.close()


def test_bad_seating_payloads_are_refused_with_a_line(tmp_path: Path, broker: Broker) -> None:
    director = Director(broker)
    daemon = table(tmp_path, broker)
    daemon.start()
    try:
        wait_for("connected", lambda: club(daemon)["connected"])
        for bad in (b"not json", b'{"v": 1, "round": "one"}', b'{"v": 2}', b"[" * 20000,
                    schema.encode(schema.Seating(night="n", round=1, table="t2",
                                                 names=["X", "Y"]))):
            director.publish("seating", bad)
        wait_for("five refusals", lambda: daemon.log.read_text().count(
            "club: refused a message") >= 5)
        assert club(daemon)["seating"] is None
        assert daemon.proc is not None and daemon.proc.poll() is None
    finally:
        daemon.close()
        director.close()


def test_a_table_with_no_club_runs_no_client(tmp_path: Path) -> None:
    daemon = Daemon(tmp_path / "alone")
    daemon.start()
    try:
        assert club(daemon) == {"enabled": False, "connected": False, "waiting": 0,
                                "line": "club: off", "seating": None}
        assert not (tmp_path / "alone" / "club.sqlite3").exists()
    finally:
        daemon.close()
