"""A whole club night, simulated fast, with faults in its rounds: a real Mosquitto, four
tables that are real `crib serve --simulate` daemons, the director a real `crib club serve`,
games played through the tables' HTTP API. After every round the director's standings equal
the reference computed from the tables' own game logs, and every game is counted once.

The rounds run in this file's order on one night (module fixture): round 1 with the broker
restarted, round 2 with the broker frozen (off the Wi-Fi) for 10 s, round 3 with a table
killed mid-game, round 4 with the director killed; then the security checks. A minute-long
outage runs on its own small night (`slow`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware_host.clubwire import (
    GameResult,
    Side,
    TableState,
    encode,
    table_topic,
)
from tests.firmware_host.club.night_helpers import (
    CLUB,
    Night,
    Plan,
    Table,
    finish,
    open_night,
    play,
    wait_for,
    wait_waiting,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Night]:
    n = open_night(tmp_path_factory.mktemp("club-night"), tables=4, players=8)
    try:
        yield n
    finally:
        n.close()


def start_round(night: Night, number: int) -> list[tuple[Table, dict[str, Any], Plan]]:
    """Seat round `number` and start its game at every seated table, a few pegs in."""
    seated = night.seat_round()
    assert seated["round"] == number, seated
    games = []
    for table in night.seated_tables(seated):
        plan = Plan.draw(night.rng)
        game = play(table, table.start_seated(number), plan, night.rng, actions=3)
        assert game["result"] is None
        games.append((table, game, plan))
    assert len(games) == 4, seated
    return games


def check_night(night: Night) -> None:
    """Standings == reference, each result counted once, one to one with the tables' games."""
    night.wait_standings()
    night.check_results_one_to_one()


def test_round_1_the_broker_restarted_while_results_are_in_flight(night: Night) -> None:
    games = start_round(night, 1)
    (t1, g1, p1), (t2, g2, p2), *rest = games
    finish(t1, g1, p1, night.rng)  # one result out before the broker goes
    wait_for("t1's result counted", lambda: len(night.counted()) == 1, 30)
    night.broker.stop()
    finish(t2, g2, p2, night.rng)  # finished while the broker is down
    c = wait_waiting(t2, 1, offline=True)
    assert c["enabled"] and not c["connected"]
    health = t2.client.req("GET", "/api/health", auth=False).json()
    assert health["club"]["waiting"] == 1 and not health["club"]["connected"], health
    night.broker.start()
    for table, game, plan in rest:  # in flight as the broker comes back
        finish(table, game, plan, night.rng)
    check_night(night)
    assert t2.club()["waiting"] == 0 and t2.club()["connected"]
    skunks = sum(r["skunks"] for r in night.director_rows())
    print(f"round 1 (broker restarted): {len(night.counted())} counted, {skunks} skunks")


def test_round_2_the_broker_off_the_network_for_10_s(night: Night) -> None:
    games = start_round(night, 2)
    night.broker.freeze()
    try:
        t0 = time.monotonic()
        for table, game, plan in games[:2]:
            finish(table, game, plan, night.rng)
        for table, _, _ in games[:2]:
            # Frozen, the broker never acknowledges: the result waits (the table may not
            # have noticed the broker gone yet: its keepalive has not run out).
            wait_waiting(table, 1, offline=False, timeout=10)
        time.sleep(max(0.0, 10 - (time.monotonic() - t0)))
    finally:
        night.broker.thaw()
    for table, game, plan in games[2:]:
        finish(table, game, plan, night.rng)
    check_night(night)


def test_round_3_a_table_killed_mid_game_and_restarted(night: Night) -> None:
    games = start_round(night, 3)
    (t1, g1, p1), (t2, g2, p2), *rest = games
    g1 = play(t1, g1, p1, night.rng, actions=4)
    assert g1["result"] is None
    t1.kill()
    # The next table finishes its game while the other is down: one in flight.
    finish(t2, g2, p2, night.rng)
    t1.start()
    again = t1.game(g1["id"])
    assert again["version"] == g1["version"] and again["sides"] == g1["sides"], \
        "the game after the restart is the one before the kill"
    finish(t1, again, p1, night.rng)
    for table, game, plan in rest:
        finish(table, game, plan, night.rng)
    check_night(night)


def test_round_4_the_director_killed_and_restarted_while_tables_finish(night: Night) -> None:
    games = start_round(night, 4)
    before = len(night.counted())
    night.director.kill()
    for table, game, plan in games[:3]:
        finish(table, game, plan, night.rng)
    for table, _, _ in games[:3]:
        # The broker is up but nobody counts: the result waits at the table.
        c = wait_waiting(table, 1, offline=False, timeout=20)
        assert c["connected"], c
    night.director.start()
    table, game, plan = games[3]
    finish(table, game, plan, night.rng)
    check_night(night)
    assert len(night.counted()) == before + 4
    for table, _, _ in games:
        wait_for(f"{table.name}: nothing waiting", lambda t=table: t.club()["waiting"] == 0, 30)


def _paho(night: Night, user: str) -> mqtt.Client:
    """A connected paho client with `user`'s password (not the table's own client id)."""
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"intruder-{user}-{time.time_ns()}",
                    protocol=mqtt.MQTTv5)
    c.username_pw_set(user, night.broker.passwords[user])
    c.connect("127.0.0.1", night.broker.port, 30)
    c.loop_start()
    wait_for(f"paho as {user} connected", c.is_connected, 10)
    return c


def _sentinel(night: Night, c: mqtt.Client, table: str) -> None:
    """Publish a valid live state after what was sent before, and wait until the director
    has it: the broker keeps one client's messages in order, so the director has seen all
    that went before."""
    at = time.time()
    state = TableState(table=table, game=None, at=at)
    c.publish(table_topic(CLUB, table, "state"), encode(state), qos=1).wait_for_publish(10)

    def seen() -> bool:
        tables = night.director.get("/api/night")["tables"]
        return any(t["table"] == table and t["state_at"] == at for t in tables)
    wait_for("the director has the sentinel state", seen, 20)


def _result(table: str, rid: str) -> GameResult:
    return GameResult(id=rid, table=table, night="2026-12-02", round=1,
                      sides=[Side(names=["Player A"], score=121),
                             Side(names=["Player E"], score=12)],
                      winner=0, kind="double_skunk", target=121, variant="six-card",
                      finished_at=time.time())


def test_a_tables_password_cannot_publish_another_tables_results(night: Night) -> None:
    rows, ids = night.director_rows(), {r["id"] for r in night.director.get("/api/night")
                                       ["results"]}
    c = _paho(night, "t1")
    try:
        fake = _result("t2", "t2.deadbeef.99.1")
        info = c.publish(table_topic(CLUB, "t2", "results"), encode(fake), qos=1)
        info.wait_for_publish(10)
        _sentinel(night, c, "t1")
    finally:
        c.loop_stop()
        c.disconnect()
    after = {r["id"] for r in night.director.get("/api/night")["results"]}
    assert after == ids, after - ids
    assert night.director_rows() == rows


# Five refusals of one kind: the director's log lets five of a line through, then folds the
# rest of a flood into one line a 10 s.
BAD_PAYLOADS: list[tuple[str, bytes]] = [
    ("wrong schema", json.dumps({"v": 1, "id": "t1.x.1.1", "hello": "there"}).encode()),
    ("20 KB", json.dumps({"v": 1, "pad": "x" * 20_000}).encode()),
    ("wrong types", _result("t1", "t1.badtypes.1.1").model_dump_json()
     .replace('"score":121', '"score":"121"').replace('"winner":0', '"winner":"0"').encode()),
    ("not JSON", b"\xff\xfe{not json"),
    ("a JSON list", b"[1, 2, 3]"),
    ("another table in its body", encode(_result("t2", "t2.spoof.1.1"))),
]


def test_bad_payloads_on_a_tables_own_topic_are_refused_with_a_log_line(night: Night) -> None:
    rows = night.director_rows()
    ids = {r["id"] for r in night.director.get("/api/night")["results"]}
    log_before = night.director.log_text()
    c = _paho(night, "t1")
    try:
        for _, data in BAD_PAYLOADS:
            c.publish(table_topic(CLUB, "t1", "results"), data, qos=1).wait_for_publish(10)
        _sentinel(night, c, "t1")
    finally:
        c.loop_stop()
        c.disconnect()
    assert night.director.proc is not None and night.director.proc.poll() is None
    assert night.director.get("/api/health")["ok"]
    after = {r["id"] for r in night.director.get("/api/night")["results"]}
    assert after == ids, after - ids
    assert night.director_rows() == rows
    new_lines = night.director.log_text()[len(log_before):].splitlines()
    refused = [line for line in new_lines if "refused" in line and "t1/results" in line]
    assert len(refused) == len(BAD_PAYLOADS), "\n".join(new_lines)
    assert any("16384" in line for line in refused), refused  # the 20 KB one, by its size
    assert not any("Traceback" in line for line in new_lines), "\n".join(new_lines)


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_the_broker_unreachable_for_a_minute(tmp_path: Path) -> None:
    n = open_night(tmp_path, tables=2, players=4, seed=60)
    try:
        seated = n.seat_round()
        games = []
        for table in n.seated_tables(seated):
            plan = Plan.draw(n.rng)
            games.append((table, play(table, table.start_seated(1), plan, n.rng, 3), plan))
        n.broker.freeze()
        try:
            t0 = time.monotonic()
            for table, game, plan in games:
                finish(table, game, plan, n.rng)
            for table, _, _ in games:
                # The table's keepalive runs out within the minute: it says offline.
                wait_waiting(table, 1, offline=True, timeout=55)
            time.sleep(max(0.0, 60 - (time.monotonic() - t0)))
        finally:
            n.broker.thaw()
        n.wait_standings(timeout=90)
        n.check_results_one_to_one()
    finally:
        n.close()
