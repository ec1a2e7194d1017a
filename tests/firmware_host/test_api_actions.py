"""The one path for every action (`POST /api/games/{id}/actions`): the committed answer,
op-id dedupe, tokens, and error bodies that say what the engine said."""

from __future__ import annotations

import json
import logging

import pytest

from tests.firmware_host.conftest import Client, ThreadServer


def test_answer_is_the_committed_one(server: ThreadServer, client: Client) -> None:
    game = client.new_game(dealer=0)
    r = client.act(game, {"type": "peg", "side": 1, "points": 3}, op_id="fast-1")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    answer = r.json()
    assert answer["op_id"] == "fast-1" and answer["game"]["sides"][1]["front"] == 3
    row = server.services.store.find_op(game["id"], "fast-1")
    assert row is not None and row.response == answer
    assert client.req("GET", f"/api/games/{game['id']}", auth=False).json() == answer["game"]


def test_repeat_after_a_refold_gets_the_first_answer(server: ThreadServer,
                                                      client: Client) -> None:
    game = client.new_game(dealer=0)
    first = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="refold-op")
    assert first.status_code == 200
    server.services.games.forget(game["id"])  # as after a restart: folded from disk
    again = client.act(game, {"type": "peg", "side": 0, "points": 2}, op_id="refold-op")
    assert again.status_code == 200 and again.json() == first.json()
    now = client.req("GET", f"/api/games/{game['id']}", auth=False).json()
    assert now["version"] == 1 and now["sides"][0]["front"] == 2


def test_json_body_with_another_content_type_is_refused(client: Client) -> None:
    game = client.new_game(dealer=0)
    body = json.dumps({"version": 0, "op_id": "ct", "action": {"type": "peg", "side": 0,
                                                               "points": 1}})
    r = client.http.post(f"/api/games/{game['id']}/actions", content=body,
                         headers={"Authorization": f"Bearer {client.token}",
                                  "Content-Type": "text/plain"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_request"
    assert client.req("GET", f"/api/games/{game['id']}", auth=False).json()["version"] == 0


def test_revoked_token_is_refused_at_once(server: ThreadServer, client: Client) -> None:
    token = server.services.tokens.create("short-lived")
    phone = Client(client.base, token)
    game = phone.new_game(dealer=0)
    assert phone.act(game, {"type": "peg", "side": 0, "points": 1}).status_code == 200
    assert server.services.tokens.revoke("short-lived")
    r = phone.act({**game, "version": 1}, {"type": "peg", "side": 0, "points": 1})
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"


def test_errors_from_the_game_keep_their_bodies(client: Client) -> None:
    game = client.new_game(dealer=0)
    stale = client.act({**game, "version": 5}, {"type": "peg", "side": 0, "points": 1})
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    assert stale.json()["game"]["version"] == 0
    illegal = client.act(game, {"type": "peg", "side": 0, "points": 99})
    assert illegal.status_code == 422 and illegal.json()["code"] == "illegal_action"
    missing = client.act({**game, "id": 999999}, {"type": "peg", "side": 0, "points": 1})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_refusals_carry_the_sentence_for_the_table(client: Client) -> None:
    game = client.new_game(dealer=0)
    malformed = client.act(game, {"type": "peg", "side": 0})
    assert malformed.status_code == 422
    body = malformed.json()
    assert body["code"] == "invalid_action" and body["say"] == "A peg needs its points."
    assert "needs 'points'" in body["message"] and body["game"]["version"] == 0
    illegal = client.act(game, {"type": "count", "points": 25})
    assert illegal.status_code == 422
    body = illegal.json()
    assert body["code"] == "illegal_action"
    assert body["say"].startswith("25 isn't a hand anyone can hold")
    assert "cannot count 25" in body["message"] and body["game"]["version"] == 0


def test_an_engine_bug_is_a_500_with_the_traceback_in_the_log(
        client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from cribbage.game import Game

    game = client.new_game(dealer=0)

    def broken(self: Game, action: object) -> Game:
        return self.no_such_field  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(Game, "step", broken)  # the daemon's one call into the engine
    with caplog.at_level(logging.ERROR, logger="crib.api"):
        r = client.act(game, {"type": "peg", "side": 0, "points": 1})
    assert r.status_code == 500 and r.json()["code"] == "internal"
    assert "AttributeError" in r.json()["error"]
    logged = [rec for rec in caplog.records if rec.exc_info is not None]
    assert logged and logged[0].exc_info[0] is AttributeError  # type: ignore[index]
    monkeypatch.undo()
    now = client.req("GET", f"/api/games/{game['id']}", auth=False).json()
    assert now["version"] == 0  # nothing was applied or saved


def test_every_refusal_of_a_request_carries_a_sentence_for_the_page(client: Client) -> None:
    # A field the schema refuses, and a body the door refuses before the schema sees it.
    for body in ({"names": ["Ann", "Bob"], "target": 5}, "not json"):
        r = client.req("POST", "/api/games", content=body if isinstance(body, str) else None,
                       body=None if isinstance(body, str) else body,
                       headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        say = r.json()["say"]
        assert say[:1].isupper() and say.endswith(".") and "\n" not in say


def test_a_malformed_action_names_the_input_and_the_state_and_changes_nothing(
        client: Client) -> None:
    game = client.new_game(names=["Ann", "Bob"], dealer=0)
    for action, word in (({"type": "starter", "card": "ZZ"}, "'ZZ'"),
                         ({"type": "peg", "side": "0", "points": 2}, "whole number"),
                         ({"type": "fly"}, "'fly'")):
        r = client.act(game, action)
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["code"] == "invalid_action" and word in body["say"], body
        assert word in body["message"] and "Ann dealt" in body["message"], body  # the state
        assert body["game"]["version"] == 0 and "Ann dealt" not in body["say"]
    r = client.act(game, {"type": "peg", "side": 0, "points": 2})
    assert r.status_code == 200 and r.json()["game"]["version"] == 1
