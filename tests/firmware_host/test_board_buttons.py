"""The board's own buttons act through the running daemon as the Pi's buttons do: a press of
the board's undo (on the simulated board's firmware core) undoes the last action of the
current game, a track's button pegs what its encoder counted, and holding the board's undo
approves the pairing request shown on the board."""

from __future__ import annotations

import time
from typing import Any

from tests.firmware_host.conftest import Client, ThreadServer

UNDO, TRACK0 = 0, 1  # the board's button numbers (hardware.board.protocol)


def _wait(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _sim(server: ThreadServer) -> Any:
    return server.services.devices["board"].require().simulator  # type: ignore[attr-defined]


def _current(client: Client) -> dict[str, Any]:
    r = client.req("GET", "/api/games/current", auth=False)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_press_of_the_boards_undo_undoes_the_last_action(server: ThreadServer,
                                                          client: Client) -> None:
    game = client.new_game(dealer=1)
    r = client.act(game, {"type": "peg", "side": 0, "points": 2})
    assert r.status_code == 200, r.text
    r = client.act(r.json()["game"], {"type": "peg", "side": 1, "points": 5})
    assert r.status_code == 200, r.text
    pegged = r.json()["game"]
    assert [s["front"] for s in pegged["sides"]] == [2, 5]
    _sim(server).press(UNDO)
    _wait(lambda: _current(client)["version"] > pegged["version"])
    now = _current(client)
    assert [s["front"] for s in now["sides"]] == [2, 0]  # the 5 for side 1 is gone, only it
    client.wait_board(now["sides"])  # and the LEDs show it


def test_a_track_button_on_the_board_pegs_what_its_encoder_counted(server: ThreadServer,
                                                                    client: Client) -> None:
    game = client.new_game(dealer=1)
    server.services.devices["inputs"].require().turn(0, 3)  # type: ignore[attr-defined]
    time.sleep(0.1)  # the turn reaches the table's inputs first
    _sim(server).press(TRACK0)
    _wait(lambda: _current(client)["version"] > game["version"])
    assert [s["front"] for s in _current(client)["sides"]] == [3, 0]


def test_holding_the_boards_undo_approves_the_request_on_the_board(server: ThreadServer,
                                                                    client: Client) -> None:
    start = client.req("POST", "/api/pair/start", {}, auth=False)
    assert start.status_code == 200, start.text
    ask = {"name": "Cy's phone", "request": start.json()["request"]}
    hold_s = server.settings.undo_hold_s
    _sim(server).hold_undo(hold_s - 1.0)  # too short: an undo, not an approval
    time.sleep(0.3)
    r = client.req("POST", "/api/pair", ask, auth=False)
    assert r.status_code == 403 and r.json()["waiting"] is True
    _sim(server).hold_undo(hold_s + 0.5)
    deadline = time.monotonic() + 5
    while (r := client.req("POST", "/api/pair", ask, auth=False)).status_code != 200:
        assert time.monotonic() < deadline, r.text
        time.sleep(0.05)
    assert server.services.tokens.check(f"Bearer {r.json()['token']}") == "Cy's phone"
