"""Attacks from a table's own credentials, on a real Mosquitto against a real `crib club
serve`: a table's password (or a phone paired to it) affects only that table's own seat.

Each test is one attack from the club night that a table could mount, and what the
director must do instead: count a result only for the seat of the table that sent it, keep
every table's id space and broker session its own, bound a flood to the table that sends
it, take revisions one up, check results and corrections by the engine's rules, and show a
table's disagreement to the director as a dispute."""

from __future__ import annotations

import json
import time

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_host.club.director.intake import client_id
from firmware_host.clubwire import GameResult, Side, encode, table_topic
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import (
    Director,
    TableClient,
    result,
    send,
    wait_for,
)

PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def seat_round(director: Director, players: list[str] | None = None) -> dict[str, list[str]]:
    if players is not None:
        assert director.post("/api/players", {"names": players}).status_code == 200
    reply = director.post("/api/rounds", {"force": True})
    assert reply.status_code == 201, reply.text
    return {t["table"]: t["names"] for t in reply.json()["tables"]}


def results(director: Director) -> dict[str, dict[str, object]]:
    return {r["id"]: r for r in director.get("/api/night").json()["results"]}


def connects(director: Director) -> int:
    return director.text().count("connected to the broker")


def test_a_result_naming_another_tables_players_counts_for_nobody(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    c, d = seats["t2"]
    t1, t2 = TableClient(broker, "t1"), TableClient(broker, "t2")
    # t1's password, t1's own topic and id space, t2's pairing: a skunk for c.
    forged = result("t1", 1, (c, d), (121, 40), round_=1)
    send(t1, forged)
    wait_for("the forged result kept", lambda: forged.id in results(director))
    kept = results(director)[forged.id]
    assert kept["status"] == "unmatched" and "not seated at t1" in str(kept["problem"])
    assert director.row(c)["played"] == 0
    # t2's real result is counted: the forged one claimed nothing.
    real = result("t2", 1, (c, d), (110, 121), round_=1)
    send(t2, real)
    wait_for("t2's real result counted", lambda: director.row(d)["won"] == 1)
    assert results(director)[real.id]["status"] == "counted"
    assert director.row(c)["won"] == 0 and director.row(c)["played"] == 1
    t1.close()
    t2.close()


def test_a_table_cannot_claim_another_tables_result_id(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    t1, t2 = TableClient(broker, "t1"), TableClient(broker, "t2")
    claimed = "t2.abcd1234.1.1"  # t2's next id, as GET /api/night shows ids
    before = director.text()
    forged = json.loads(encode(result("t1", 1, tuple(seats["t1"]), (121, 100), round_=1)))
    t1.publish(table_topic("club", "t1", "results"), json.dumps({**forged, "id": claimed})
               .encode())
    wait_for("the claim refused with a line", lambda: "is not table 't1''s" in
             director.text()[len(before):])
    assert claimed not in results(director)
    send(t2, result("t2", 1, tuple(seats["t2"]), (121, 100), round_=1, id_=claimed))
    wait_for("t2's own result under its id counted",
             lambda: results(director).get(claimed, {}).get("status") == "counted")
    t1.close()
    t2.close()


def test_a_tables_password_cannot_take_the_directors_session(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    had = connects(director)
    # t1's password with the director's client id and a clean start: on this broker a
    # client id is its user's name, so this is t1's own session, not the director's.
    taken: list[int] = []
    thief = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id("club"),
                        protocol=mqtt.MQTTv5)
    thief.username_pw_set("t1", broker.passwords["t1"])
    thief.on_connect = lambda *a: taken.append(1)
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 0
    thief.connect("127.0.0.1", broker.port, 30, clean_start=True, properties=props)
    thief.loop_start()
    wait_for("t1 connected under the director's id", lambda: taken)
    for other in ("t2", "crib-director-club"):
        other_id = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=other,
                               protocol=mqtt.MQTTv5)
        other_id.username_pw_set("t1", broker.passwords["t1"])
        other_id.connect("127.0.0.1", broker.port, 30)
        other_id.loop(1)
        other_id.disconnect()
    time.sleep(2)
    assert connects(director) == had, "the director was kicked off"
    assert director.get("/api/health").json()["ok"]
    thief.loop_stop()
    thief.disconnect()
    # The director's session and its queue survive: a result sent while the director is
    # down is counted when it is back.
    director.stop()
    t2 = TableClient(broker, "t2")
    send(t2, result("t2", 1, tuple(seats["t2"]), (121, 95), round_=1))
    t2.close()
    director.start()
    wait_for("the queued result counted", lambda: director.row(seats["t2"][0])["won"] == 1)


def test_one_tables_flood_costs_no_other_tables_result_nor_the_directors_link(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    had = connects(director)
    t1, t2 = TableClient(broker, "t1"), TableClient(broker, "t2")
    a, b = seats["t1"]
    flood = [encode(result("t1", 1000 + i, (a, b), (121, 100), round_=1)) for i in range(1500)]
    topic = table_topic("club", "t1", "results")
    started = time.monotonic()
    infos = [t1.client.publish(topic, data, qos=1) for data in flood]
    real = result("t2", 1, tuple(seats["t2"]), (121, 99), round_=1)  # type: ignore[arg-type]
    send(t2, real)
    for info in infos:
        info.wait_for_publish(60)
    flooded_in = time.monotonic() - started
    wait_for("t2's real result counted through the flood",
             lambda: results(director).get(real.id, {}).get("status") == "counted", 60)
    print(f"\n1,500 results flooded in {flooded_in:.2f} s; t2 counted "
          f"{time.monotonic() - started:.2f} s after the flood began")
    assert connects(director) == had, "the flood cut the director off"
    assert "drop" in director.text() or len(results(director)) < 1501
    # The flood counts for t1's seat at most once.
    assert director.row(a)["played"] + director.row(b)["played"] <= 2
    t1.close()
    t2.close()


def test_revisions_go_up_by_one(director: Director, broker: Broker) -> None:
    a, b, t1 = _first_game_counted(director, broker)
    before = director.text()
    send(t1, result("t1", 1, (a, b), (121, 100), round_=1, rev=1000, void=True))
    wait_for("rev 1000 refused", lambda: "jumps from revision 0 to 1000" in
             director.text()[len(before):])
    assert director.row(a)["won"] == 1
    # The table's real undo, one up, still applies.
    send(t1, result("t1", 1, (a, b), (121, 100), round_=1, rev=1, void=True))
    wait_for("rev 1 voids it", lambda: director.row(a)["played"] == 0)
    # A first revision above 0 is refused as well.
    send(t1, result("t1", 2, (a, b), (121, 100), round_=1, rev=5))
    wait_for("refused", lambda: "starts at revision 5" in director.text())
    t1.close()


def _refused_each(director: Director, broker: Broker, bad: list[tuple[bytes, str]]) -> None:
    """Publish each payload on t1's results topic; each is refused with its own WARNING
    line naming what is wrong, nothing is kept, and no ERROR or traceback is logged. (The
    log lets five lines of one kind through in ten seconds: a test sends at most five.)"""
    assert len(bad) <= 5
    t1 = TableClient(broker, "t1")
    before = director.text()
    for data, _ in bad:
        t1.publish(table_topic("club", "t1", "results"), data)
    wait_for("a line for each", lambda: director.text()[len(before):].count("refused")
             >= len(bad))
    new = director.text()[len(before):]
    lines = [ln for ln in new.splitlines() if "refused" in ln]
    for (_, words), line in zip(bad, lines, strict=True):
        assert words in line and line.startswith("WARNING"), (words, line)
    assert "ERROR" not in new and "RecursionError" not in new and "Traceback" not in new
    assert results(director) == {}
    t1.close()


def _raw(good: bytes, **changes: object) -> bytes:
    return json.dumps({**json.loads(good), **changes}).encode()


def test_a_result_that_disagrees_with_its_own_scores_is_refused_at_decode(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    a, b = seats["t1"]
    good = encode(result("t1", 1, (a, b), (121, 100), round_=1))

    def sides(x: int, y: int) -> list[dict[str, object]]:
        return [{"names": [a], "score": x}, {"names": [b], "score": y}]

    _refused_each(director, broker, [
        (_raw(good, sides=sides(40, 121)), "side 1 won, not side 0"),  # the loser as winner
        (_raw(good, sides=sides(121, 80)), "a skunk, not a win"),  # a skunk by the lines
        (_raw(good, sides=sides(150, 80), kind="skunk"), "stops at 121"),  # past the hole
        (_raw(good, sides=sides(100, 90)), "nobody reached 121"),
        (_raw(good, finished_at=float("nan")), "NaN"),
    ])


def test_hidden_characters_in_names_and_nested_json_are_refused_at_decode(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    a, b = seats["t1"]
    good = encode(result("t1", 1, (a, b), (121, 100), round_=1))

    def named(name: str) -> bytes:
        return _raw(good, sides=[{"names": [name], "score": 121},
                                 {"names": [b], "score": 100}])

    _refused_each(director, broker, [
        (named(a + "\u202e"), "\\u202e"),  # right-to-left override
        (named(a + "\u0085"), "\\x85"),  # next line
        (named("\u200b"), "\\u200b"),  # zero width: a name that shows nothing
        (b'{"v": 1, "id": ' + b"[" * 3000 + b"]" * 3000 + b"}", "nested deeper"),
    ])


def test_corrections_are_checked_against_the_target_and_the_lines(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    a, b = seats["t1"]
    t1 = TableClient(broker, "t1")
    game = result("t1", 1, (a, b), (121, 100), round_=1)
    send(t1, game)
    t1.close()
    wait_for("counted", lambda: director.row(a)["won"] == 1)
    url = f"/api/results/{game.id}/correct"
    plain = director.post(url, {"scores": [121, 80], "kind": "win", "reason": "card"})
    assert plain.status_code == 422 and "a skunk, not a win" in plain.json()["error"]
    past = director.post(url, {"scores": [150, 80], "reason": "card"})
    assert past.status_code == 422 and "121" in past.json()["error"]
    assert director.row(a)["game_points"] == 2
    # Scores alone: the engine says who won and how.
    fixed = director.post(url, {"scores": [121, 80], "reason": "miscounted a crib"})
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["kind"] == "skunk" and director.row(a)["game_points"] == 3


def _first_game_counted(director: Director, broker: Broker
                        ) -> tuple[str, str, TableClient]:
    """Round 1 seated, t1's game 121-100 counted; (winner, loser, t1's client)."""
    seats = seat_round(director, PLAYERS)
    a, b = seats["t1"]
    t1 = TableClient(broker, "t1")
    send(t1, result("t1", 1, (a, b), (121, 100), round_=1))
    wait_for("counted", lambda: director.row(a)["won"] == 1)
    return a, b, t1


def test_a_tables_change_to_a_corrected_result_is_a_dispute(
        director: Director, broker: Broker) -> None:
    a, b, t1 = _first_game_counted(director, broker)
    rid = "t1.abcd1234.1.1"
    assert director.post(f"/api/results/{rid}/correct",
                         {"scores": [121, 105], "reason": "a miscount"}).status_code == 200
    # The table's undo and its new result arrive after the correction: shown, not applied.
    send(t1, result("t1", 1, (a, b), (121, 100), round_=1, rev=1, void=True))
    send(t1, result("t1", 1, (a, b), (100, 121), round_=1, rev=2))
    wait_for("two disputes", lambda: len(director.get("/api/night").json()["disputes"]) == 2)
    tables = director.get("/api/tables").json()
    assert [d["rev"] for d in tables["disputes"]] == [1, 2]
    assert "corrected" in tables["disputes"][0]["why"]
    assert director.row(a)["won"] == 1 and director.row(a)["spread"] == 16
    # The table is told both were taken (it stops sending them).
    t1.subscribe(table_topic("club", "t1", "counted"))
    wait_for("counted lists rev 2", lambda: any(f"{rid}@2".encode() in p
                                                for _, p in t1.received))
    t1.close()
    # The director settles: the first is kept as counted, the newest accepted.
    seq = [d["seq"] for d in tables["disputes"]]
    stale = director.post(f"/api/disputes/{seq[0]}/resolve",
                          {"accept": True, "reason": "players agree"})
    assert stale.status_code == 409 and "newer revision" in stale.json()["error"]
    kept = director.post(f"/api/disputes/{seq[0]}/resolve", {"accept": False, "reason": "old"})
    assert kept.status_code == 200 and kept.json()["resolved"] == "kept"
    took = director.post(f"/api/disputes/{seq[1]}/resolve",
                         {"accept": True, "reason": "players agree"})
    assert took.status_code == 200 and took.json()["resolved"] == "accepted"
    assert director.row(b)["won"] == 1 and director.row(a)["won"] == 0
    assert director.get("/api/tables").json()["disputes"] == []
    log = director.get("/api/night").json()["corrections"]
    assert "accepted" in log[-1]["reason"] and log[-1]["new"]["winner"] == 1


def test_an_undo_of_an_earlier_rounds_game_is_a_dispute(
        director: Director, broker: Broker) -> None:
    a, b, t1 = _first_game_counted(director, broker)
    seat_round(director)  # round 2
    send(t1, result("t1", 1, (a, b), (121, 100), round_=1, rev=1, void=True))
    wait_for("a dispute", lambda: director.get("/api/tables").json()["disputes"])
    dispute = director.get("/api/tables").json()["disputes"][0]
    assert "round-1 game" in dispute["why"] and "round 2" in dispute["why"]
    assert director.row(a)["won"] == 1
    t1.close()


def test_a_result_for_another_target_is_shown_not_counted(
        director: Director, broker: Broker) -> None:
    seats = seat_round(director, PLAYERS)
    a, b = seats["t1"]
    t1 = TableClient(broker, "t1")
    short = GameResult(id="t1.x.1.1", table="t1", night="2026-12-02", round=1,
                       sides=[Side(names=[a], score=61), Side(names=[b], score=50)],
                       winner=0, kind="win", target=61, variant="six-card",
                       finished_at=time.time())
    send(t1, short)
    wait_for("kept", lambda: "t1.x.1.1" in results(director))
    got = results(director)["t1.x.1.1"]
    assert got["status"] == "unmatched" and "played to 61" in str(got["problem"])
    t1.close()
