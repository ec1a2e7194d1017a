"""Issue 13 item 16: the CSV export as a player reads it (a row per game, a row per hand),
through HTTP, with an undo that leaves no trace; the raw action log stays JSON."""

from __future__ import annotations

import csv
import io
import re
import time
from typing import Any

from tests.firmware_host.conftest import Client


def act(client: Client, game: dict[str, Any], action: dict[str, Any], op: str) -> dict[str, Any]:
    r = client.act(game, action, op_id=op)
    assert r.status_code == 200, r.text
    return dict(r.json()["game"])


def play_a_match(client: Client) -> tuple[dict[str, Any], list[str]]:
    """A five-card match: Fay skunks Gus 61 to 7 (with a peg undone on the way), then game
    two begins. Returns the last game body and the op ids used."""
    ops: list[str] = []

    def do(game: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        ops.append(f"export-op-{time.monotonic_ns()}")
        return act(client, game, action, ops[-1])

    g = client.new_game(variant="five-card", names=["Fay", "Gus"], dealer=0)
    g = do(g, {"type": "peg", "side": 1, "points": 5})  # a mistake...
    g = do(g, {"type": "undo"})  # ...taken back
    for _ in range(3):
        g = do(g, {"type": "peg", "side": 0, "points": 15})
    g = do(g, {"type": "count", "points": 4})  # Gus's hand
    g = do(g, {"type": "count", "points": 14, "with_crib": True})  # Fay's hand and crib

    g = do(g, {"type": "peg", "side": 0, "points": 2})  # 61: Fay wins
    assert g["result"]["kind"] == "skunk"
    g = do(g, {"type": "next_game"})  # Gus deals; Fay, the pone, starts with 3
    g = do(g, {"type": "peg", "side": 1, "points": 2})
    return g, ops


def download(client: Client, query: str) -> tuple[list[dict[str, str]], str, Any]:
    r = client.req("GET", f"/api/export?{query}", auth=False)
    assert r.status_code == 200, r.text
    return list(csv.DictReader(io.StringIO(r.text))), r.text, r.headers


def test_one_row_per_game_as_a_player_reads_it(client: Client) -> None:
    g, ops = play_a_match(client)
    before = time.time()
    rows, text, headers = download(client, f"format=csv&game={g['id']}")
    assert headers["content-type"].startswith("text/csv")
    assert headers["content-disposition"] == (
        f'attachment; filename="cribbage-game-{g["id"]}-games.csv"')
    assert list(rows[0]) == ["match", "game", "date", "players", "variant", "target", "winner",
                             "scores", "result", "game points"]
    first, second = rows
    assert {k: v for k, v in first.items() if k != "date"} == {
        "match": str(g["id"]), "game": "1", "players": "Fay, Gus",
        "variant": "Two players, five cards", "target": "61", "winner": "Fay",
        "scores": "61 to 7", "result": "skunk", "game points": "2"}
    assert {k: v for k, v in second.items() if k != "date"} == {
        "match": str(g["id"]), "game": "2", "players": "Fay, Gus",
        "variant": "Two players, five cards", "target": "61", "winner": "",
        "scores": "3 to 2", "result": "unfinished", "game points": ""}
    # Local ISO date and time, to the minute; never an epoch time or an op id.
    for row in rows:
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row["date"]), row["date"]
        stamp = time.mktime(time.strptime(row["date"], "%Y-%m-%d %H:%M"))
        assert before - 120 <= stamp <= before + 60
    assert not re.search(r"\d{10}\.\d", text)
    assert not any(op in text for op in ops) and "undo" not in text


def test_one_row_per_hand_with_dealer_points_and_running_totals(client: Client) -> None:
    g, ops = play_a_match(client)
    rows, text, headers = download(client, f"format=csv&game={g['id']}&rows=hands")
    assert headers["content-type"].startswith("text/csv")
    assert headers["content-disposition"].endswith(f'cribbage-game-{g["id"]}-hands.csv"')
    side = ["side {i}", "side {i} pegging", "side {i} hand", "side {i} crib",
            "side {i} hand and crib", "side {i} muggins", "side {i} total"]
    assert list(rows[0]) == ["match", "game", "hand", "dealer",
                             *[c.format(i=1) for c in side], *[c.format(i=2) for c in side]]
    table = [[r["game"], r["hand"], r["dealer"], *[r[c.format(i=i)] for i in (1, 2) for c in side]]
             for r in rows]
    assert table == [
        # The undone 5 for Gus is nowhere: his pegging is the five-card start's 3.
        # Fay's hand and crib were counted as one total: their own column, not split.
        ["1", "1", "Fay", "Fay", "45", "0", "0", "14", "0", "59",
         "Gus", "3", "4", "0", "0", "0", "7"],
        ["1", "2", "Gus", "Fay", "2", "0", "0", "0", "0", "61",
         "Gus", "0", "0", "0", "0", "0", "7"],
        ["2", "1", "Gus", "Fay", "3", "0", "0", "0", "0", "3",
         "Gus", "2", "0", "0", "0", "0", "2"],
    ]
    assert not any(op in text for op in ops)


def test_the_raw_action_log_stays_available_as_json(client: Client) -> None:
    g, ops = play_a_match(client)
    r = client.req("GET", f"/api/export?format=json&game={g['id']}", auth=False)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    log = r.json()["games"][0]["actions"]
    assert [a["op_id"] for a in log] == ops  # every accepted action, the undo too
    assert [a["action"]["type"] for a in log][:2] == ["peg", "undo"]


def test_every_match_at_once_and_bad_queries(client: Client) -> None:
    g, _ = play_a_match(client)
    rows, _, headers = download(client, "format=csv")
    assert 'filename="cribbage-all-games.csv"' in headers["content-disposition"]
    assert [r["game"] for r in rows if r["match"] == str(g["id"])] == ["1", "2"]
    hands, _, _ = download(client, "format=csv&rows=hands")
    assert [r["hand"] for r in hands if r["match"] == str(g["id"])] == ["1", "2", "1"]
    assert client.req("GET", "/api/export?format=csv&game=999999", auth=False).status_code == 404
    r = client.req("GET", "/api/export?format=csv&rows=actions", auth=False)
    assert r.status_code == 422 and r.json()["code"] == "invalid_request"


def test_three_scores_read_as_a_player_says_them() -> None:
    from firmware_host.export import _score_words

    assert _score_words([121, 113, 101]) == "121 to 113 and 101"
    assert _score_words([61, 7]) == "61 to 7"
