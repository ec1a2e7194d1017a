"""The director's intake on a real Mosquitto, with the director a real `crib club serve`:
results published by the tables' own credentials arrive in the standings, each game counted
once at its highest revision; what is not a table's own valid message is refused with one
log line and changes nothing."""

from __future__ import annotations

import json

import pytest

from firmware_host.clubwire import (
    Counted,
    Seating,
    decode,
    standings_topic,
    table_topic,
)
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import (
    NIGHT,
    Director,
    TableClient,
    result,
    send,
    wait_for,
)

PLAYERS = ["Ann", "Bob", "Cy", "Di"]




@pytest.fixture
def tables(broker: Broker) -> dict[str, TableClient]:
    clients = {t: TableClient(broker, t) for t in ("t1", "t2")}
    yield clients
    for c in clients.values():
        c.close()


def seat_first_round(director: Director) -> list[tuple[str, str]]:
    """Register the players, seat round 1; the pairs at t1 and t2."""
    assert director.post("/api/players", {"names": PLAYERS}).status_code == 200
    reply = director.post("/api/rounds", {})
    assert reply.status_code == 201, reply.text
    seats = {t["table"]: tuple(t["names"]) for t in reply.json()["tables"]}
    assert sorted(seats) == ["t1", "t2"]
    assert sorted(n for pair in seats.values() for n in pair) == sorted(PLAYERS)
    return [seats["t1"], seats["t2"]]


def test_results_from_the_tables_arrive_in_the_standings(
        director: Director, tables: dict[str, TableClient]) -> None:
    (a, b), (c, d) = seat_first_round(director)
    send(tables["t1"], result("t1", 1, (a, b), (121, 100), round_=1))
    send(tables["t2"], result("t2", 1, (c, d), (85, 121), "skunk", round_=1))
    wait_for("both games counted", lambda: director.standings()["rows"][0]["played"] == 1
             and all(r["played"] == 1 for r in director.standings()["rows"]))
    rows = {r["name"]: r for r in director.standings()["rows"]}
    assert (rows[a]["game_points"], rows[a]["won"], rows[a]["spread"]) == (2, 1, 21)
    assert (rows[b]["game_points"], rows[b]["lost"], rows[b]["spread"]) == (0, 1, -21)
    assert (rows[d]["game_points"], rows[d]["skunks"], rows[d]["spread"]) == (3, 1, 36)
    assert (rows[c]["game_points"], rows[c]["spread"]) == (0, -36)
    assert [r["name"] for r in director.standings()["rows"]][:2] == [d, a]
    assert director.standings()["round"] == 1 and director.standings()["night"] == NIGHT


def test_a_result_matched_by_names_when_it_carries_no_round(
        director: Director, tables: dict[str, TableClient]) -> None:
    (a, b), _ = seat_first_round(director)
    send(tables["t1"], result("t1", 1, (b, a), (90, 121)))  # no night, no round
    wait_for("counted", lambda: director.row(a)["won"] == 1)
    assert director.row(b)["lost"] == 1


def test_the_same_result_three_times_counts_once_and_the_table_is_told(
        director: Director, tables: dict[str, TableClient], broker: Broker) -> None:
    (a, b), _ = seat_first_round(director)
    t1 = tables["t1"]
    t1.subscribe(table_topic("club", "t1", "counted"))
    game = result("t1", 7, (a, b), (121, 99), round_=1)
    for _ in range(3):
        send(t1, game)
    wait_for("counted", lambda: director.row(a)["won"] == 1)

    def told() -> bool:
        return any(decode(Counted, p).ids == [game.counted_key()] for _, p in t1.received)

    wait_for("t1's counted lists the id at its revision", told)
    assert director.row(a)["game_points"] == 2 and director.row(a)["played"] == 1
    assert director.row(b)["played"] == 1
    night = director.get("/api/night").json()
    assert [r["id"] for r in night["results"]] == [game.id]


def test_a_void_revision_takes_the_game_back_and_a_later_one_counts_again(
        director: Director, tables: dict[str, TableClient]) -> None:
    (a, b), _ = seat_first_round(director)
    t1 = tables["t1"]
    send(t1, result("t1", 3, (a, b), (121, 110), round_=1))
    wait_for("rev 0 counted", lambda: director.row(a)["won"] == 1)
    send(t1, result("t1", 3, (a, b), (121, 110), round_=1, rev=1, void=True))
    wait_for("rev 1 voids it", lambda: director.row(a)["played"] == 0)
    assert director.row(b)["played"] == 0
    # Won again by the other side, then an old copy of rev 0 arrives late: rev 2 stands.
    send(t1, result("t1", 3, (a, b), (115, 121), round_=1, rev=2))
    wait_for("rev 2 counted", lambda: director.row(b)["won"] == 1)
    send(t1, result("t1", 3, (a, b), (121, 110), round_=1))
    send(t1, result("t1", 4, (a, b), (121, 1), "double_skunk", id_="t1.marker.1.1",
                    round_=None, night=None,
                    ))  # a marker after the old copy: once it is in, the copy was handled
    wait_for("the marker is kept", lambda: len(director.get("/api/night").json()["results"]) == 2)
    assert director.row(b)["won"] == 1 and director.row(a)["won"] == 0
    kept = {r["id"]: r for r in director.get("/api/night").json()["results"]}
    assert kept["t1.abcd1234.3.1"]["rev"] == 2 and kept["t1.abcd1234.3.1"]["status"] == "counted"
    # The second game of the same pairing in the round is kept but not counted.
    assert kept["t1.marker.1.1"]["status"] == "unmatched"


def test_another_tables_credentials_cannot_post_its_results(
        director: Director, tables: dict[str, TableClient]) -> None:
    _, (c, d) = seat_first_round(director)
    # t1 publishes on t2's topic: the broker drops it (ACL).
    send(tables["t1"], result("t2", 1, (c, d), (121, 50), round_=1), topic_table="t2")
    # t1 publishes on its own topic a result that says table t2: the director refuses it.
    send(tables["t1"], result("t2", 2, (c, d), (121, 60), round_=1), topic_table="t1")
    wait_for("the refusal is logged", lambda: "says table 't2'" in director.text())
    # A marker from t2 itself, sent after both: once it is in, the two were handled.
    send(tables["t2"], result("t2", 3, (d, c), (121, 70), round_=1))
    wait_for("t2's own result counted", lambda: director.row(d)["won"] == 1)
    assert director.row(c)["lost"] == 1 and director.row(c)["won"] == 0
    assert [r["id"] for r in director.get("/api/night").json()["results"]] == ["t2.abcd1234.3.1"]


BAD = [
    ("results", b"not json at all", "not JSON"),
    ("results", b'{"v": 1, "id": 5}', "GameResult"),
    ("results", b'{"v": 2, "id": "t1.x.1.1"}', "version 2"),
    ("results", b'{"v": 1, "pad": "' + b"x" * 20_000 + b'"}', "over the"),
    ("state", b'{"v": 1, "table": "t1", "at": "noon"}', "TableState"),
]


def test_bad_payloads_are_refused_with_a_log_line_and_change_nothing(
        director: Director, tables: dict[str, TableClient], broker: Broker) -> None:
    (a, b), _ = seat_first_round(director)
    before = director.text()
    # (An unknown leaf, or a seating only the director writes, would need the director's
    # password: the ACL refuses them from a table, and no second client can log in as the
    # director, whose client id is its user's.)
    for leaf, data, _ in BAD:
        tables["t1"].publish(table_topic("club", "t1", leaf), data)
    wait_for("a line for each", lambda: director.text().count("refused") - before.count(
        "refused") >= len(BAD))
    new = director.text()[len(before):]
    lines = [ln for ln in new.splitlines() if "refused" in ln]
    assert len(lines) == len(BAD), new
    for leaf, _, words in BAD:  # (a table's live state is taken before its queue)
        assert any(f"/t1/{leaf}" in line and words in line for line in lines), (words, lines)
    assert "Traceback" not in new
    # Still serving, still counting, nothing counted from the refused ones.
    send(tables["t1"], result("t1", 1, (a, b), (121, 80), round_=1))
    wait_for("a good result still counts", lambda: director.row(a)["won"] == 1)
    assert sum(r["played"] for r in director.standings()["rows"]) == 2
    assert len(director.get("/api/night").json()["results"]) == 1


def test_seating_is_retained_and_only_the_seated_table_reads_it(
        director: Director, broker: Broker) -> None:
    (a, b), (c, d) = seat_first_round(director)
    # Subscribed after the seating was published: the retained copy arrives.
    t1 = TableClient(broker, "t1")
    t1.subscribe("crib/v1/club/tables/+/seating")
    t1.subscribe(standings_topic("club"))
    wait_for("t1's seating", lambda: any(t.endswith("/seating") for t, _ in t1.received))
    wait_for("the standings", lambda: any(t.endswith("/standings") for t, _ in t1.received))
    t1.close()
    seatings = [decode(Seating, p) for t, p in t1.received if t.endswith("/seating")]
    assert [(s.table, s.round, s.night, tuple(s.names)) for s in seatings] == [
        ("t1", 1, NIGHT, (a, b))]
    assert seatings[0].target == 121
    standings = json.loads(next(p for t, p in t1.received if t.endswith("/standings")))
    assert sorted(r["name"] for r in standings["rows"]) == sorted(PLAYERS)


def test_the_director_killed_and_restarted_gets_what_was_sent_meanwhile(
        director: Director, tables: dict[str, TableClient]) -> None:
    (a, b), (c, d) = seat_first_round(director)
    send(tables["t1"], result("t1", 1, (a, b), (121, 95), round_=1))
    wait_for("first counted", lambda: director.row(a)["won"] == 1)
    director.kill()
    # While it is down, the broker queues these for its persistent session (QoS 1).
    send(tables["t2"], result("t2", 1, (c, d), (121, 40), "double_skunk", round_=1))
    send(tables["t1"], result("t1", 1, (a, b), (121, 95), round_=1))  # a copy, resent
    director.start()
    wait_for("the queued result counted", lambda: director.row(c)["won"] == 1)
    rows = {r["name"]: r for r in director.standings()["rows"]}
    assert (rows[c]["game_points"], rows[c]["spread"]) == (3, 81)
    assert (rows[a]["game_points"], rows[a]["played"]) == (2, 1)
    assert sum(r["played"] for r in rows.values()) == 4
    # The night, its players and round survived too.
    night = director.get("/api/night").json()
    assert night["players"] == PLAYERS and night["round"] == 1


def test_the_broker_restarted_the_director_reconnects_and_counts(
        director: Director, tables: dict[str, TableClient], broker: Broker) -> None:
    (a, b), (c, d) = seat_first_round(director)
    for c_ in tables.values():
        c_.close()
    broker.restart()
    wait_for("reconnected", lambda: director.text().count("connected to the broker") >= 2)
    t2 = TableClient(broker, "t2")
    t2.subscribe(table_topic("club", "t2", "seating"))
    send(t2, result("t2", 1, (c, d), (121, 101), round_=1))
    wait_for("counted after the restart", lambda: director.row(c)["won"] == 1)
    # The seating is still there for a table that reads it after the restart.
    wait_for("t2's seating", lambda: t2.received)
    assert tuple(decode(Seating, t2.received[-1][1]).names) == (c, d)
    t2.close()
