"""The table's inputs reach the game and the shuffler through the running daemon."""

from __future__ import annotations

import time

from tests.firmware_host.conftest import Client, ThreadServer


def _wait(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _shuffler_state(client: Client) -> str:
    return client.req("GET", "/api/shuffler", auth=False).json()["state"]


def test_a_touch_starts_the_shuffle_as_on_a_lotus(server: ThreadServer, client: Client) -> None:
    _wait(lambda: _shuffler_state(client) == "idle")
    panel = server.services.devices["inputs"].require()
    panel.touch()  # type: ignore[attr-defined]
    # The touch event crosses from the panel to the shuffler: the shuffle starts.
    _wait(lambda: _shuffler_state(client) != "idle")
    status = client.req("GET", "/api/shuffler", auth=False).json()
    assert status["state"] in ("busy", "waiting")
    assert status["deck_size"] == server.settings.shuffle.deck
