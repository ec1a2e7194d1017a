"""The HTTP API against a real uvicorn on 127.0.0.1 with simulated devices."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any

import pytest
import websockets

from tests.firmware_host.conftest import Client, ThreadServer


def test_whole_keeper_game_to_121_with_board_matching(client: Client) -> None:
    rng = random.Random(121)
    game = client.new_game(names=["Ann", "Bob"], dealer=0)
    assert game["version"] == 0 and game["phase"] == "play"
    client.wait_board(game["sides"])
    actions = 0
    while game["result"] is None:
        legal = game["legal"]
        if game["phase"] == "play" and rng.random() < 0.6:
            action = {"type": "peg", "side": rng.randrange(2), "points": rng.choice([1, 2, 2, 3])}
        elif game["phase"] == "play" and "heels" in legal and rng.random() < 0.1:
            action = {"type": "heels"}
        elif game["can_undo"] and rng.random() < 0.05:
            action = {"type": "undo"}
        else:
            action = {"type": "count", "points": rng.choice([19, 2, 4, 6, 8, 8, 12, 16])}
        r = client.act(game, action)
        assert r.status_code == 200, r.text
        assert r.json()["game"]["version"] == game["version"] + 1
        game = r.json()["game"]
        actions += 1
        client.wait_board(game["sides"])
    assert actions > 20
    result = game["result"]
    winner = result["winner"]
    assert game["sides"][winner]["front"] == 121
    assert result["scores"] == [s["front"] for s in game["sides"]]
    assert game == client.req("GET", f"/api/games/{game['id']}", auth=False).json()
    history = client.req("GET", "/api/history", auth=False).json()["games"]
    mine = [h for h in history if h["game_id"] == game["id"]]
    assert len(mine) == 1 and mine[0]["result"]["winner"] == winner
    stats = client.req("GET", "/api/stats", auth=False).json()["players"]
    assert stats["Ann"]["games"] >= 1 and stats["Bob"]["games"] >= 1
    won = game["names"][winner]
    assert stats[won]["wins"] >= 1
    assert stats["Ann"]["best_hand"] is not None


def test_repeated_op_id_is_applied_once(client: Client) -> None:
    game = client.new_game(dealer=1)
    first = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="same-op")
    assert first.status_code == 200
    again = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="same-op")
    assert again.status_code == 200 and again.json() == first.json()
    now = client.req("GET", f"/api/games/{game['id']}", auth=False).json()
    assert now["version"] == 1 and now["sides"][0]["front"] == 2
    # Still the first answer after the game moved on.
    client.act(now, {"type": "peg", "side": 1, "points": 1})
    late = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="same-op")
    assert late.json() == first.json()


def test_two_clients_racing_on_one_version(client: Client) -> None:
    game = client.new_game(dealer=0)
    answers: list[Any] = []
    barrier = threading.Barrier(2)

    def go(side: int) -> None:
        barrier.wait()
        answers.append(client.act(game, {"type": "peg", "side": side, "points": 1},
                                  op_id=f"race-{side}"))

    threads = [threading.Thread(target=go, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted(a.status_code for a in answers)
    assert codes == [200, 409]
    lost = next(a for a in answers if a.status_code == 409).json()
    assert lost["code"] == "stale_version" and lost["game"]["version"] == 1
    assert "version" in lost["error"]
    now = client.req("GET", f"/api/games/{game['id']}", auth=False).json()
    assert now["version"] == 1 and sum(s["front"] for s in now["sides"]) == 1


def test_illegal_action_is_422_and_changes_nothing(client: Client) -> None:
    game = client.new_game(dealer=0)
    r = client.act(game, {"type": "count", "points": 27})
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "illegal_action" and "27" in body["error"]
    assert body["game"] == game
    r = client.act(game, {"type": "peg", "side": "left", "points": [1]})
    assert r.status_code == 422, r.text
    assert client.req("GET", f"/api/games/{game['id']}", auth=False).json() == game


MALFORMED: list[tuple[str, str, Any]] = [
    ("POST", "/api/games", {"names": "Ann"}),
    ("POST", "/api/games", {"names": ["Ann", "Bob"], "variant": "chess"}),
    ("POST", "/api/games", {"names": ["Ann", "Bob"], "target": -5}),
    ("POST", "/api/games", {"names": ["Ann", "Bob", "Cy"], "variant": "six-card"}),
    ("POST", "/api/games/1/actions", {"version": "x", "op_id": "a", "action": {"type": "peg"}}),
    ("POST", "/api/games/1/actions", {"version": 0, "op_id": "", "action": {"type": "peg"}}),
    ("POST", "/api/games/1/actions", {"version": 0, "op_id": "a", "action": {"type": "fly"}}),
    ("POST", "/api/games/abc/actions", {"version": 0, "op_id": "a", "action": {"type": "go"}}),
    ("POST", "/api/count", {"hand": ["5H", "5C", "5S", "JD"], "starter": "ZZ"}),
    ("POST", "/api/count", {"hand": ["5H", "5H", "5S", "JD"], "starter": "5D"}),
    ("POST", "/api/count", {"hand": 5, "starter": "5D"}),
    ("POST", "/api/advise", {"hand": ["5H"], "dealer": True}),
    ("POST", "/api/advise", {"hand": ["5H", "5C", "5S", "JD", "2C", "2C"], "dealer": True}),
    ("POST", "/api/shuffler/shuffle", {"deck": 51}),
    ("POST", "/api/shuffler/shuffle", {"plan": "riffle"}),
    ("POST", "/api/pair", {"name": "", "code": "1234"}),
    ("POST", "/api/pair", {"name": "p", "code": "12a4"}),
    ("PUT", "/api/settings", {"brightness": 300}),
    ("PUT", "/api/settings", {"palette": "neon"}),
    ("GET", "/api/games/abc", None),
    ("GET", "/api/export?format=xml", None),
    ("GET", "/api/export?game=zero", None),
]


@pytest.mark.parametrize(("method", "path", "body"), MALFORMED)
def test_malformed_requests_get_422_naming_the_problem(
    client: Client, method: str, path: str, body: Any
) -> None:
    r = client.req(method, path, body)
    assert r.status_code == 422, (r.status_code, r.text)
    assert r.json()["error"]


@pytest.mark.parametrize(
    "path", ["/api/games", "/api/games/1/actions", "/api/count", "/api/advise",
             "/api/shuffler/shuffle", "/api/pair", "/api/settings"]
)
def test_body_that_is_not_json_gets_422(client: Client, path: str) -> None:
    method = "PUT" if path == "/api/settings" else "POST"
    r = client.http.request(method, path, content=b"{not json",
                            headers={"Authorization": f"Bearer {client.token}",
                                     "Content-Type": "application/json"})
    assert r.status_code == 422 and "JSON" in r.json()["error"]


def test_count_and_advise(client: Client) -> None:
    r = client.req("POST", "/api/count", {"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"},
                   auth=False)
    assert r.status_code == 200
    body = r.json()
    assert body["total"] == 29 and body["say"]
    assert any(c["kind"] == "nobs" for c in body["combinations"])
    r = client.req("POST", "/api/advise",
                   {"hand": ["5H", "5C", "5S", "JD", "2C", "9D"], "dealer": True}, auth=False)
    assert r.status_code == 200, r.text


def test_writes_need_a_token_in_the_header(server: ThreadServer, client: Client) -> None:
    body = {"names": ["Ann", "Bob"]}
    assert client.req("POST", "/api/games", body, auth=False).status_code == 401
    bad = client.req("POST", "/api/games", body, auth=False,
                     headers={"Authorization": "Bearer crib_nope"})
    assert bad.status_code == 401 and bad.json()["code"] == "unauthorized"
    cookie = client.http.post("/api/games", json=body,
                              headers={"Cookie": f"token={client.token}"})
    assert cookie.status_code == 401
    query = client.http.post(f"/api/games?token={client.token}", json=body)
    assert query.status_code == 401
    other = server.services.tokens.create("revoked-phone")
    hdr = {"Authorization": f"Bearer {other}"}
    assert client.req("PUT", "/api/settings", {}, auth=False, headers=hdr).status_code == 200
    server.services.tokens.revoke("revoked-phone")
    assert client.req("PUT", "/api/settings", {}, auth=False, headers=hdr).status_code == 401
    # Reads need nothing.
    assert client.req("GET", "/api/health", auth=False).status_code == 200


def _code_on_the_board(server: ThreadServer) -> str | None:
    """The digits lit on the (simulated) board, as a person at the table reads them."""
    back = server.services.devices["board"].require().read_back(timeout=1.0)
    return None if back is None else back.code


def test_pairing_with_the_code_on_the_board(server: ThreadServer, client: Client) -> None:
    start = client.req("POST", "/api/pair/start", auth=False)
    assert start.status_code == 200
    deadline = time.monotonic() + 5
    code = None
    while code is None and time.monotonic() < deadline:
        code = _code_on_the_board(server)
    assert code is not None and len(code) == 6  # a 120-hole board shows six digits
    # Nobody on the network can read it: not from the board's read-back, not from the stream.
    seen = client.req("GET", "/api/board", auth=False).json()
    assert seen["pairing"] is True and seen["leds"] is None and code not in json.dumps(seen)
    assert code not in json.dumps(server.services.snapshot())
    wrong = "000000" if code != "000000" else "111111"
    r = client.req("POST", "/api/pair", {"name": "Ann's phone", "code": wrong}, auth=False)
    assert r.status_code == 403 and "wrong code" in r.json()["error"]
    r = client.req("POST", "/api/pair", {"name": "Ann's phone", "code": code}, auth=False)
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    hdr = {"Authorization": f"Bearer {token}"}
    assert client.req("PUT", "/api/settings", {"brightness": 100}, auth=False,
                      headers=hdr).json()["brightness"] == 100
    # The code is used up and leaves the board.
    r = client.req("POST", "/api/pair", {"name": "Eve", "code": code}, auth=False)
    assert r.status_code == 403
    deadline = time.monotonic() + 5
    while _code_on_the_board(server) is not None:
        assert time.monotonic() < deadline
    assert client.req("GET", "/api/board", auth=False).json()["pairing"] is False


def test_pairing_by_holding_undo(server: ThreadServer, client: Client) -> None:
    start = client.req("POST", "/api/pair/start", auth=False).json()
    ask = {"name": "Bob's phone", "request": start["request"]}
    r = client.req("POST", "/api/pair", ask, auth=False)
    assert r.status_code == 403 and r.json()["waiting"] is True
    panel = server.services.devices["inputs"].require()
    panel.hold_undo(1.0)  # too short
    time.sleep(0.1)
    assert client.req("POST", "/api/pair", ask, auth=False).status_code == 403
    panel.hold_undo(3.0)
    deadline = time.monotonic() + 5
    while True:
        r = client.req("POST", "/api/pair", ask, auth=False)
        if r.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert r.status_code == 200, r.text
    assert server.services.tokens.check(f"Bearer {r.json()['token']}") == "Bob's phone"


def test_host_header_allow_list(client: Client) -> None:
    for host in ("evil.example", "rebind.attacker.net:8080"):
        r = client.http.get("/api/health", headers={"Host": host})
        assert r.status_code == 403 and "not allowed" in r.json()["error"]
    for host in ("localhost", "127.0.0.1:1234", "cribbage.local", "[::1]:80", "192.168.1.20"):
        assert client.http.get("/api/health", headers={"Host": host}).status_code == 200


async def _ws(url: str, **kw: Any) -> Any:
    return await websockets.connect(url, open_timeout=5, **kw)


def test_event_stream_snapshot_then_ordered_deltas(server: ThreadServer, client: Client) -> None:
    url = f"ws://127.0.0.1:{server.port}/api/events"

    async def run() -> None:
        async with websockets.connect(url, origin=f"http://127.0.0.1:{server.port}") as ws:
            snap = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert snap["type"] == "snapshot"
            assert {"seq", "game", "board", "shuffler", "devices"} <= set(snap)
            game = await asyncio.to_thread(client.new_game, dealer=0)
            r = await asyncio.to_thread(client.act, game, {"type": "peg", "side": 1, "points": 3})
            assert r.status_code == 200
            seqs, games = [snap["seq"]], []
            while len(games) < 2:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
                seqs.append(msg["seq"])
                if msg["type"] == "game":
                    games.append(msg["game"])
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            assert [g["version"] for g in games] == [0, 1]
            assert games[1]["sides"][1]["front"] == 3

        async with websockets.connect(url) as ws:  # no Origin: not a browser, allowed
            assert json.loads(await ws.recv())["type"] == "snapshot"

    asyncio.run(run())


def test_event_stream_refuses_foreign_origin_and_host(server: ThreadServer) -> None:
    url = f"ws://127.0.0.1:{server.port}/api/events"

    async def run() -> None:
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with websockets.connect(url, origin="http://evil.example"):
                pass
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with websockets.connect(url, additional_headers={"Host": "evil.example"}):
                pass

    asyncio.run(run())


def test_openapi_names_schemas_by_direction(client: Client) -> None:
    spec = client.req("GET", "/openapi.json", auth=False).json()
    names = set(spec["components"]["schemas"])
    assert {"GameCreateIn", "GameOut", "ActionIn", "CountIn"} <= names
    assert "/api/games/{game_id}/actions" in spec["paths"]


def test_export_json_and_csv(client: Client) -> None:
    game = client.new_game(dealer=0)
    r = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="export-op")
    assert r.status_code == 200
    one = client.req("GET", f"/api/export?game={game['id']}", auth=False).json()
    assert [g["id"] for g in one["games"]] == [game["id"]]
    assert one["games"][0]["actions"][0]["action"] == {"type": "peg", "side": 0, "points": 2}
    csv_text = client.req("GET", f"/api/export?format=csv&game={game['id']}", auth=False).text
    lines = csv_text.strip().splitlines()  # the score sheet (test_api_export); no op ids
    assert lines[0].startswith("\"match\",\"game\",\"date\"") and "export-op" not in csv_text
    assert client.req("GET", "/api/export?game=99999", auth=False).status_code == 404


def test_shuffler_shuffle_progress_and_abort(client: Client) -> None:
    assert client.req("POST", "/api/shuffler/shuffle", {"deck": 52}, auth=False).status_code == 401
    r = client.req("POST", "/api/shuffler/shuffle", {"deck": 52, "plan": "exact"})
    assert r.status_code == 200, r.text
    status = r.json()
    assert status["deck_size"] == 52 and status["passes_total"] >= 1
    assert status["state"] in ("busy", "waiting", "idle")
    again = client.req("POST", "/api/shuffler/shuffle", {"deck": 52})
    assert again.status_code in (200, 409)
    r = client.req("POST", "/api/shuffler/abort")
    assert r.status_code == 200 and r.json()["state"] in ("idle", "stopped", "waiting")
    now = client.req("GET", "/api/shuffler", auth=False).json()
    assert now["state"] != "busy"
    health = client.req("GET", "/api/health", auth=False).json()
    assert set(health["devices"]) == {"board", "shuffler", "inputs"}
    assert health["devices"]["shuffler"]["kind"] == "simulated"


def test_a_game_with_two_players_of_one_name_is_refused_with_a_sentence(client: Client) -> None:
    r = client.req("POST", "/api/games", {"names": ["Ann", "Ann"]})
    assert r.status_code == 422
    assert r.json()["say"] == "Two players are called Ann: give each player their own name."
