"""What an action did, in the engine's words: the same events in the action's answer and on
the live stream; the action logged in its canonical form; the race kept from the steps."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import websockets

from tests.firmware_host.conftest import Client, ThreadServer


def _events(answer: dict[str, Any]) -> list[dict[str, Any]]:
    events = answer["events"]
    assert isinstance(events, list)
    for event in events:
        assert isinstance(event["kind"], str) and event["kind"]
        assert isinstance(event["say"], str) and event["say"].strip()
    return events


def test_a_peg_answers_with_its_events_and_the_stream_carries_the_same(
        server: ThreadServer, client: Client) -> None:
    url = f"ws://127.0.0.1:{server.port}/api/events"

    async def run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with websockets.connect(url, open_timeout=5) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "snapshot"
            game = await asyncio.to_thread(client.new_game, dealer=0)
            r = await asyncio.to_thread(client.act, game,
                                        {"type": "peg", "side": 1, "points": 2})
            assert r.status_code == 200, r.text
            messages: list[dict[str, Any]] = []
            while len(messages) < 2:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if msg["type"] == "game":
                    messages.append(msg)
            return r.json(), messages

    answer, (started, pegged) = asyncio.run(run())
    assert started["events"] == [] and started["game"]["version"] == 0
    events = _events(answer)
    scored = [e for e in events if e["kind"] == "score"]
    assert len(scored) == 1
    assert scored[0]["side"] == 1 and scored[0]["points"] == 2 and scored[0]["front"] == 2
    assert "2" in scored[0]["say"]
    # The stream says what the answer said: the same events and the same game.
    assert pegged["events"] == events and pegged["game"] == answer["game"]
    # A repeat of the op gets the first answer, events included.
    again = client.act({**answer["game"], "version": 0},
                       {"type": "peg", "side": 1, "points": 2}, op_id=answer["op_id"])
    assert again.json() == answer


def test_the_log_keeps_the_action_in_its_canonical_form(server: ThreadServer,
                                                        client: Client) -> None:
    game = client.new_game(mode="cards", dealer=0)
    r = client.act(game, {"type": "starter", "card": " 10♥ "})
    assert r.status_code == 200, r.text
    assert r.json()["game"]["starter"] == "10H"
    [row] = server.services.store.actions(game["id"])
    assert row.action == {"type": "starter", "card": "10H"}
    r = client.act(r.json()["game"], {"type": "play", "card": "5h", "player": 1})
    assert r.status_code == 200, r.text
    assert server.services.store.actions(game["id"])[-1].action == {
        "type": "play", "player": 1, "card": "5H"}


def test_the_race_is_the_same_from_memory_and_from_the_log(server: ThreadServer,
                                                           client: Client) -> None:
    game = client.new_game(dealer=0)
    for action in ({"type": "peg", "side": 0, "points": 2},
                   {"type": "peg", "side": 1, "points": 3}, {"type": "undo"},
                   {"type": "redo"}):
        r = client.act(game, action)
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    live = client.req("GET", f"/api/games/{game['id']}/race", auth=False).json()
    assert [p["scores"] for p in live["race"]] == [[0, 0], [2, 0], [2, 3], [2, 0], [2, 3]]
    server.services.games.forget(game["id"])  # as after a restart: folded from disk
    again = client.req("GET", f"/api/games/{game['id']}/race", auth=False).json()
    assert again == live
