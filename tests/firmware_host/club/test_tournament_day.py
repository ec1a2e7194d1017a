"""The tournament through the director: a real Mosquitto, real `crib serve --simulate`
tables and a real `crib club serve`; the qualifying rotation, the cut and the knockout
driven through the director's API, every game played at a table from its seating. The
director's qualifying standings, cut and bracket equal an independent computation from
the tables' own logs (tests/cribbage/tournament_reference.py).

A field of 13 (an odd count: byes in qualifying, a cut of 3: a bye to seed 1) runs in the
default suite; the 64-player day (32 tables, each its own daemon) is `slow`."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.firmware_host.club.tournament_helpers import Day, check_day, open_day, run_day

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    d = open_day(tmp_path_factory.mktemp("tournament"), tables=7, players=13,
                 first="=HYPERLINK(1)")
    try:
        yield d
    finally:
        d.close()


def post(day: Day, path: str, body: object, token: str | None = None) -> httpx.Response:
    return httpx.post(day.director.base + path, json=body, timeout=10, headers={
        "Authorization": f"Bearer {day.director.token if token is None else token}"})


def test_every_change_needs_the_token_and_nothing_runs_before_the_start(day: Day) -> None:
    for path in ("/api/tournament", "/api/tournament/rounds", "/api/tournament/cut"):
        reply = post(day, path, {}, token="wrong")
        assert reply.status_code == 401, (path, reply.text)
    for path in ("/api/tournament/standings.csv", "/api/tournament/bracket.csv"):
        assert httpx.get(day.director.base + path, timeout=10).status_code == 401
    assert day.director.get("/api/tournament")["stage"] == "none"
    reply = post(day, "/api/tournament/rounds", {})
    assert reply.status_code == 409 and "POST /api/tournament" in reply.json()["error"]
    reply = post(day, "/api/tournament", {"games": 2, "cut": 14})
    assert reply.status_code == 422 and "a cut of 14 from a field of 13" in reply.text


def test_a_13_player_day_equals_an_independent_computation(day: Day) -> None:
    seated = day.director.post("/api/tournament", {"games": 2, "limit": 2})
    assert seated["stage"] == "qualifying" and len(seated["byes"]) == 1
    # The configured order, one pair a table, six tables used for 12 players.
    assert [t["table"] for t in seated["tables"]] == [f"t{i}" for i in range(1, 8)]
    assert sum(len(t["names"]) == 2 for t in seated["tables"]) == 6
    again = post(day, "/api/tournament", {"games": 2})
    assert again.status_code == 409 and "started already" in again.text
    early = post(day, "/api/tournament/cut", {})
    assert early.status_code == 409 and "qualifying is not over" in early.text
    busy = post(day, "/api/tournament/rounds", {})
    assert busy.status_code == 409 and "still being played" in busy.text
    day.play_round(seated)
    # The director killed between rounds: the tournament is in its database.
    day.director.kill()
    day.director.start()
    assert day.director.get("/api/tournament")["stage"] == "qualifying"
    seated = day.director.post("/api/tournament/rounds", {})
    assert seated["round"] == 2 and seated["byes"] != day.rounds[0]["byes"]
    day.play_round(seated)
    over = post(day, "/api/tournament/rounds", {})
    assert over.status_code == 409 and "make the cut" in over.text
    cut = day.director.post("/api/tournament/cut", {})
    assert len(cut["cut"]["seeds"]) == 3  # a quarter of 13, rounded down
    first = cut["bracket"]["rounds"][0]["matches"]
    assert first[0]["bye"] and first[0]["winner"] == cut["cut"]["seeds"][0]
    while day.director.get("/api/tournament")["stage"] != "done":
        seated = day.director.post("/api/tournament/rounds", {})
        assert seated["stage"] == "knockout" and not seated["byes"]
        day.play_round(seated)
    view = day.director.get("/api/tournament")
    check_day(day, view, games=2)
    assert [r["name"] for r in view["bracket"]["rounds"]] == ["Semi-final", "Final"]
    done = post(day, "/api/tournament/rounds", {})
    assert done.status_code == 409 and "tournament is over" in done.text


def test_the_exports_are_the_view_with_the_formula_guard(day: Day) -> None:
    view = day.director.get("/api/tournament")
    assert view["stage"] == "done"
    auth = {"Authorization": f"Bearer {day.director.token}"}
    text = httpx.get(day.director.base + "/api/tournament/standings.csv", headers=auth,
                     timeout=10).text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:3] == ["place", "name", "game_points"]
    guarded = [("'" + n if n.startswith("=") else n) for n in (s["name"] for s in
                                                               view["standings"])]
    assert [r[1] for r in rows[1:]] == guarded and "'=HYPERLINK(1)" in guarded
    assert [r[8] for r in rows[1:4]] == ["1", "2", "3"]
    reply = httpx.get(day.director.base + "/api/tournament/bracket.csv", headers=auth,
                      timeout=10)
    assert "attachment" in reply.headers["content-disposition"]
    bracket = list(csv.reader(io.StringIO(reply.text)))
    assert bracket[1][1] == "Semi-final" and bracket[1][6] == "bye"
    assert bracket[-1][1] == "Final" and bracket[-1][7] == view["bracket"]["champion"]


@pytest.mark.slow
def test_a_64_player_tournament_through_32_real_tables(tmp_path: Path) -> None:
    """64 players on 32 tables (each a `crib serve --simulate` daemon), twelve qualifying
    rounds (the ACC's shortest), the cut to 16 and the four knockout rounds: 399 games."""
    t0 = time.monotonic()
    d = open_day(tmp_path, tables=32, players=64)
    try:
        started = time.monotonic() - t0
        view = run_day(d, games=12)
        check_day(d, view, games=12)
        assert len(view["cut"]["seeds"]) == 16 and view["bracket"]["size"] == 16
        print(f"\n64 players: tables up in {started:.0f} s, the day in "
              f"{time.monotonic() - t0:.0f} s")
    finally:
        d.close()
