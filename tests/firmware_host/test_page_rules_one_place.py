"""A variant's skunk lines changed in ONE place (the engine's `Rules.lines`) show on the LEDs,
in the game view, on the phone page (form and board drawing) and in the result (issue 14.2)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cribbage.rules import Rules, SkunkLines
from hardware.board.layout import SKUNK_RGB, BoardLayout
from tests.firmware_host.conftest import Client, ThreadServer
from tests.firmware_host.page_helpers import BROWSER, Phone, wait_text

# The module's fixture (pytest finds it by name; `as` marks it as meant to be here).
from tests.firmware_host.page_helpers import browser as browser

pytestmark = BROWSER

LINES = [100, 50]  # six-card's lines in this test; the engine's own are 91 and 61


@pytest.fixture
def moved_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one place a variant's lines come from, changed for six-card only."""
    original = Rules.lines

    def lines(self: Rules) -> SkunkLines:
        if self.name == "six-card":
            return SkunkLines(skunk=LINES[0], double_skunk=LINES[1])
        return original.fget(self)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(Rules, "lines", property(lines))


@pytest.fixture
def table(moved_lines: None, tmp_path: Path) -> Iterator[tuple[ThreadServer, Client]]:
    # In this process, so that the change above is the daemon's too.
    with ThreadServer(tmp_path) as server:
        client = Client(f"http://127.0.0.1:{server.port}", server.services.tokens.create("t"))
        server.wait_board_idle()
        yield server, client


@pytest.fixture
def phone(browser: Any, table: tuple[ThreadServer, Client]) -> Iterator[Phone]:
    _, client = table
    ann = Phone(browser, client.base)
    ann.page.add_init_script(f"localStorage.setItem('crib.token', {client.token!r});")
    yield ann.open()
    assert ann.errors == [] and ann.off_origin() == []
    ann.close()


def _leds_with_lines(server: ThreadServer, client: Client) -> list[tuple[int, ...]]:
    deadline = time.monotonic() + 5
    while True:
        board = client.req("GET", "/api/board", auth=False).json()
        if board["reachable"] and board["lines"] == LINES:
            return [tuple(rgb) for rgb in board["leds"]]
        assert time.monotonic() < deadline, board
        time.sleep(0.02)


def test_six_card_lines_moved_in_the_engine_show_on_leds_view_page_and_result(
        table: tuple[ThreadServer, Client], phone: Phone) -> None:
    server, client = table
    page = phone.page
    # The new-game form names the lines from the catalogue (once the page has loaded it).
    rules = client.req("GET", "/api/rules", auth=False).json()
    six = next(v for v in rules["variants"] if v["name"] == "six-card")
    assert six["skunk_lines"] == LINES
    page.wait_for_function("t => [...document.querySelectorAll('#variant option')]"
                           ".some(o => o.textContent === t)", arg=six["title"])
    page.select_option("#variant", "six-card")
    skunk = page.locator("#new-game [name=skunk] option[value=skunk]").text_content()
    assert skunk == f"Skunk under {LINES[0]}, double under {LINES[1]}"

    game = client.new_game(variant="six-card", names=["Ann", "Bob"], dealer=0)
    assert game["skunk_lines"] == LINES  # the view
    s = server.settings.board
    layout = BoardLayout(tracks=s.tracks, holes=s.holes)
    leds = _leds_with_lines(server, client)  # the LEDs, read back from the simulated board
    for track in range(s.tracks):
        for score in LINES:
            assert leds[layout.index(track, layout.hole_for_score(score, 121))] == SKUNK_RGB
        for score in (91, 61):
            assert leds[layout.index(track, layout.hole_for_score(score, 121))] != SKUNK_RGB

    page.wait_for_function(
        f"() => window.cribState.game && window.cribState.game.id === {game['id']}")
    phone.tab("board")
    page.wait_for_selector("#board-svg .skunk-line", state="attached")
    drawn = page.locator("#board-svg .skunk-line").evaluate_all("ls => ls.map(l => l.dataset.line)")
    assert sorted({int(x) for x in drawn}) == sorted(LINES)

    # Bob ends on 60: under 61 (the engine's own double-skunk line) but over the moved one.
    for side, points in [(1, 15)] * 4 + [(0, 15)] * 8 + [(0, 1)]:  # a peg is 1 to 15
        r = client.act(game, {"type": "peg", "side": side, "points": points})
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    result: dict[str, Any] = game["result"]
    assert result["kind"] == "skunk" and result["game_points"] == 2
    phone.tab("score")
    wait_text(page, "result", "a skunk")
    assert "double" not in (page.locator("#result").text_content() or "")
