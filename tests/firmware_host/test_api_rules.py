"""Every layer draws the rules the engine publishes: `/api/rules`, the view, the board."""

from __future__ import annotations

import time

import pytest

from hardware.board.layout import SKUNK_RGB, BoardLayout
from tests.firmware_host.conftest import Client, ThreadServer


def test_rules_are_the_engine_catalogue_unchanged(client: Client) -> None:
    from cribbage.rules import catalogue

    r = client.req("GET", "/api/rules", auth=False)
    assert r.status_code == 200 and r.json() == catalogue()
    six = next(v for v in r.json()["variants"] if v["name"] == "six-card")
    assert six["skunk_lines"] == [91, 61] and six["defaults"]["target"] == 121


def _board_after(client: Client, lines: list[int], timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        board = client.req("GET", "/api/board", auth=False).json()
        if board["reachable"] and board["lines"] == lines:
            return board  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, board
        time.sleep(0.02)


def test_one_variant_lines_changed_in_the_engine_show_everywhere(
        server: ThreadServer, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from cribbage.rules import Rules, SkunkLines

    # The one place a variant's lines come from; six-card games get lines at 100 and 50.
    original = Rules.lines

    def lines(self: Rules) -> SkunkLines:
        if self.name == "six-card":
            return SkunkLines(skunk=100, double_skunk=50)
        return original.fget(self)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(Rules, "lines", property(lines))
    game = client.new_game(variant="six-card", dealer=0)
    assert game["skunk_lines"] == [100, 50]
    board = _board_after(client, [100, 50])
    # The LEDs (read back from the simulated board) mark those holes on every track.
    s = server.settings.board
    layout = BoardLayout(tracks=s.tracks, holes=s.holes)
    leds = [tuple(rgb) for rgb in board["leds"]]
    for track in range(s.tracks):
        for score in (100, 50):
            assert leds[layout.index(track, layout.hole_for_score(score, 121))] == SKUNK_RGB
        assert leds[layout.index(track, layout.hole_for_score(91, 121))] != SKUNK_RGB
    # Another variant keeps its own lines.
    five = client.new_game(variant="five-card", names=["Ann", "Bob"], target=61, dealer=0)
    assert five["skunk_lines"] == [31]
    _board_after(client, [31])
