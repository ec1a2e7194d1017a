"""The director's HTTP API over real HTTP on 127.0.0.1 (a real `crib club serve` and a real
Mosquitto): the token guards every change, reads are public, rounds are refused while a
round is being played, corrections are logged and change the standings, and the CSV
exports are safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path

import httpx

from firmware_host.clubwire import Online, Seating, decode, encode, table_topic
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import Director, TableClient, result, send, wait_for


def seat(director: Director, names: list[str]) -> dict[str, tuple[str, ...]]:
    assert director.post("/api/players", {"names": names}).status_code == 200
    reply = director.post("/api/rounds", {})
    assert reply.status_code == 201, reply.text
    return {t["table"]: tuple(t["names"]) for t in reply.json()["tables"]}


def test_every_change_needs_the_token_and_every_read_is_public(director: Director) -> None:
    for path, body in (("/api/players", {"names": ["Ann"]}), ("/api/rounds", {}),
                       ("/api/results/t1.x.1.1/correct", {"reason": "x", "winner": 0})):
        for token in (None, "wrong", director.token[:-1]):
            reply = director.post(path, body, token=token)
            assert reply.status_code == 401, (path, token, reply.text)
            assert "crib club token" in reply.json()["error"]
    for path in ("/api/export/scorecards.csv", "/api/export/standings.csv"):
        assert director.get(path).status_code == 401
    assert director.get("/api/night").json()["players"] == []  # nothing was registered
    for path in ("/", "/api/standings", "/api/night", "/api/players", "/api/rounds",
                 "/api/tables", "/api/health", "/static/style.css", "/static/standings.js"):
        assert director.get(path).status_code == 200, path
    # The token file is the director's alone.
    mode = stat.S_IMODE(os.stat(director.state / "director-token").st_mode)
    assert mode == 0o600


def test_the_page_loads_nothing_from_outside(director: Director) -> None:
    page = director.get("/")
    assert "Content-Security-Policy" in page.headers
    text = page.text + director.get("/static/standings.js").text + \
        director.get("/static/style.css").text
    assert "http://" not in text and "https://" not in text and "//cdn" not in text
    assert "/api/standings" in director.get("/static/standings.js").text


def test_bodies_are_capped_and_foreign_pages_may_not_write(director: Director) -> None:
    big = {"names": ["x" * 30] * 700}  # 23 KiB
    reply = director.post("/api/players", big)
    assert reply.status_code == 413
    reply = httpx.post(director.url + "/api/players", json={"names": ["Ann"]}, timeout=10,
                       headers={"Authorization": f"Bearer {director.token}",
                                "Origin": "http://evil.example"})
    assert reply.status_code == 403
    assert director.get("/api/players").json()["players"] == []


def test_players_are_kept_in_order_and_a_name_twice_is_refused(director: Director) -> None:
    assert director.post("/api/players", {"names": ["Ann", "Bob"]}).json()["players"] == [
        "Ann", "Bob"]
    assert director.post("/api/players", {"names": ["Cy"]}).json()["players"] == [
        "Ann", "Bob", "Cy"]
    twice = director.post("/api/players", {"names": ["Di", "Bob"]})
    assert twice.status_code == 409 and "Bob" in twice.json()["error"]
    assert director.get("/api/players").json()["players"] == ["Ann", "Bob", "Cy"]
    bad = director.post("/api/players", {"names": ["\x1b[31mred"]})
    assert bad.status_code == 422


def test_a_round_waits_for_the_last_ones_games_unless_forced(
        director: Director, broker: Broker) -> None:
    seats = seat(director, ["Ann", "Bob", "Cy", "Di", "Ed"])
    first = director.get("/api/rounds").json()["rounds"][0]
    assert len(first["byes"]) == 1  # five players: one sits out
    playing = {t: n for t, n in seats.items() if n}
    assert sorted(playing) == ["t1", "t2"]
    refused = director.post("/api/rounds", {})
    assert refused.status_code == 409
    assert "t1" in refused.json()["error"] and "t2" in refused.json()["error"]
    t1 = TableClient(broker, "t1")
    send(t1, result("t1", 1, playing["t1"], (121, 90), round_=1))  # type: ignore[arg-type]
    wait_for("t1's game in", lambda: "t1" not in director.post("/api/rounds", {}).json()
             .get("error", "t1"))
    still = director.post("/api/rounds", {})
    assert still.status_code == 409 and "t2" in still.json()["error"]
    forced = director.post("/api/rounds", {"force": True})
    assert forced.status_code == 201 and forced.json()["round"] == 2
    # The table reads its round-2 seating (retained).
    t1.subscribe("crib/v1/club/tables/t1/seating")
    wait_for("t1's seating", lambda: t1.received)
    seating = decode(Seating, t1.received[-1][1])
    assert seating.round == 2 and tuple(seating.names) == tuple(
        next(t["names"] for t in forced.json()["tables"] if t["table"] == "t1"))
    t1.close()
    night = director.get("/api/night").json()
    assert [r["round"] for r in night["rounds"]] == [1, 2] and night["rounds"][1]["forced"]


def test_corrections_change_the_standings_and_are_logged(
        director: Director, broker: Broker) -> None:
    seats = seat(director, ["Ann", "Bob", "Cy", "Di"])
    a, b = seats["t1"]
    t1 = TableClient(broker, "t1")
    game = result("t1", 1, (a, b), (121, 100), round_=1)
    send(t1, game)
    t1.close()
    wait_for("counted", lambda: director.row(a)["won"] == 1)
    reply = director.post(f"/api/results/{game.id}/correct",
                          {"winner": 1, "scores": [110, 121], "kind": "win",
                           "reason": "pegged wrong on the last hand"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["status"] == "counted" and reply.json()["winner"] == 1
    assert (director.row(b)["won"], director.row(b)["spread"]) == (1, 11)
    assert (director.row(a)["won"], director.row(a)["spread"]) == (0, -11)
    log = director.get("/api/night").json()["corrections"]
    assert len(log) == 1
    assert log[0]["result"] == game.id and log[0]["reason"] == "pegged wrong on the last hand"
    assert log[0]["old"]["winner"] == 0 and log[0]["old"]["scores"] == [121, 100]
    assert log[0]["new"]["winner"] == 1 and log[0]["new"]["scores"] == [110, 121]
    assert log[0]["who"].startswith("director@") and log[0]["at"] > 0
    # A correction that makes no sense is refused and changes nothing.
    bad = director.post(f"/api/results/{game.id}/correct",
                        {"winner": 0, "scores": [100, 121], "reason": "oops"})
    assert bad.status_code == 422 and director.row(b)["won"] == 1
    missing = director.post("/api/results/t9.x.1.1/correct", {"reason": "x", "winner": 0})
    assert missing.status_code == 404
    # Struck off altogether.
    void = director.post(f"/api/results/{game.id}/correct", {"void": True, "reason": "replay"})
    assert void.status_code == 200 and void.json()["status"] == "void"
    assert director.row(b)["played"] == 0
    assert len(director.get("/api/night").json()["corrections"]) == 2


def test_an_unmatched_result_is_shown_not_counted_until_corrected(
        director: Director, broker: Broker) -> None:
    seats = seat(director, ["Ann", "Bob", "Cy", "Di"])
    a, b = seats["t1"]
    t1 = TableClient(broker, "t1")
    game = result("t1", 1, (a, "Stranger"), (121, 70))
    send(t1, game)
    t1.close()
    wait_for("kept", lambda: director.get("/api/tables").json()["unmatched"])
    shown = director.get("/api/tables").json()["unmatched"][0]
    assert shown["id"] == game.id and "Stranger" in shown["problem"]
    assert director.row(a)["played"] == 0
    fixed = director.post(f"/api/results/{game.id}/correct",
                          {"names": [a, b], "reason": "Bob typed a nickname"})
    assert fixed.status_code == 200 and fixed.json()["status"] == "counted"
    assert director.row(a)["won"] == 1 and director.row(b)["lost"] == 1
    assert director.get("/api/tables").json()["unmatched"] == []


def test_csv_exports_have_the_formula_guard(director: Director, broker: Broker) -> None:
    evil = '=HYPERLINK("http://x.example","win")'
    seats = seat(director, [evil, "Bob", "+Cy", "Di"])
    t1, t2 = TableClient(broker, "t1"), TableClient(broker, "t2")
    send(t1, result("t1", 1, seats["t1"], (121, 95), round_=1))  # type: ignore[arg-type]
    send(t2, result("t2", 1, seats["t2"], (80, 121), "skunk", round_=1))  # type: ignore[arg-type]
    t1.close()
    t2.close()
    wait_for("both counted", lambda: sum(r["played"] for r in director.standings()["rows"]) == 4)
    cards = director.get("/api/export/scorecards.csv",
                         headers={"Authorization": f"Bearer {director.token}"})
    assert cards.status_code == 200 and cards.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(cards.text)))
    assert rows[0][:9] == ["round", "table", "player", "opponent", "score", "opponent_score",
                           "won", "game_points", "spread"]
    assert len(rows) == 1 + 4
    cells = [c for r in rows for c in r]
    assert "'" + evil in cells and "'+Cy" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    # Negative spreads stay numbers, not guarded text.
    assert any(c.startswith("-") for c in cells) and not any(c.startswith("'-") for c in cells)
    winner_t2 = seats["t2"][1]
    line = next(r for r in rows[1:] if r[2].lstrip("'") == winner_t2)
    assert line[1] == "t2" and line[4:9] == ["121", "80", "yes", "3", "41"]
    table = director.get("/api/export/standings.csv",
                         headers={"Authorization": f"Bearer {director.token}"})
    srows = list(csv.reader(io.StringIO(table.text)))
    assert srows[0] == ["place", "name", "game_points", "won", "lost", "skunks", "spread",
                        "played"]
    assert srows[1][1].removeprefix("'") == winner_t2 and "'" + evil in [r[1] for r in srows]


def test_without_a_tables_list_the_tables_online_are_seated_in_name_order(
        tmp_path: Path, broker: Broker) -> None:
    clients = {t: TableClient(broker, t) for t in ("t3", "t1", "t2")}
    with Director(tmp_path / "d2", broker) as director:
        for name, c in clients.items():
            c.publish(table_topic("club", name, "online"), encode(Online(online=True)),
                      retain=True)
        wait_for("three online", lambda: sum(
            t["online"] for t in director.get("/api/tables").json()["tables"]) == 3)
        clients["t2"].publish(table_topic("club", "t2", "online"),
                              encode(Online(online=False)), retain=True)
        wait_for("t2 offline", lambda: not next(
            t for t in director.get("/api/tables").json()["tables"]
            if t["table"] == "t2")["online"])
        seats = seat(director, ["Ann", "Bob", "Cy", "Di"])
        assert list(seats) == ["t1", "t3"] and all(len(n) == 2 for n in seats.values())
        for c in clients.values():
            c.subscribe("crib/v1/club/tables/+/seating")
        wait_for("t1 and t3 read theirs", lambda: clients["t1"].received
                 and clients["t3"].received)
        got = decode(Seating, clients["t3"].received[-1][1])
        assert got.table == "t3" and tuple(got.names) == seats["t3"]
        # Six players on the same two tables: the third pair has no table.
        director.post("/api/players", {"names": ["Ed", "Flo"]})
        refused = director.post("/api/rounds", {"force": True})
        assert refused.status_code == 409 and "only 2" in refused.json()["error"]
    for c in clients.values():
        c.close()
