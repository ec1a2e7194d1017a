"""GET /api/board says what its read-back proves: the controller's frame, not light."""

from __future__ import annotations

from tests.firmware_host.conftest import Client, ThreadServer


def test_the_board_read_back_says_it_is_the_controllers_frame(server: ThreadServer,
                                                              client: Client) -> None:
    body = client.req("GET", "/api/board", auth=False).json()
    assert body["reachable"] is True and len(body["leds"]) == 244
    assert body["read_back_means"] == (
        "the board's controller holds the same frame; a strip cannot report its LEDs - "
        "check them by eye with crib board walk")
