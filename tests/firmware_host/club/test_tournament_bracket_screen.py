"""The big screen during a tournament's knockout, in Debian's Chromium at 1920x1080 and
1280x720: the bracket from the round being played, the matches' tables with the games
decided, no scrolling, no axe-core violation. Screenshots:
tests/artifacts/screenshots/club-tv-knockout-*.png. (A module of its own: its broker runs
after the night's has stopped.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.firmware_host.club.director_helpers import Director, result, send, wait_for
from tests.firmware_host.club.screen_helpers import (
    SIZES,
    TABLES,
    all_visible,
    check_screen,
    counted,
    open_tv,
    room,
    tables_of,
)
from tests.firmware_host.page_helpers import BROWSER, browser  # noqa: F401 (fixture)

pytestmark = BROWSER


@pytest.fixture(scope="module")
def knockout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Director]:
    """A tournament of 32: one qualifying game each, the cut to 8, two quarter-finals in."""
    root = tmp_path_factory.mktemp("cup")
    with room(root / "broker") as (broker, clients), \
            Director(root / "director", broker, tables=TABLES, night="cup-day") as d:
        assert d.post("/api/players", {"names": [f"Cup {i:02}" for i in range(1, 33)]}
                      ).status_code == 200
        r1 = d.post("/api/tournament", {"games": 1})
        assert r1.status_code == 201, r1.text
        for n, (t, names) in enumerate(tables_of(r1.json()).items()):
            send(clients[t], result(t, 100 + n, tuple(names), (121, 60 + 3 * n), round_=1,  # type: ignore[arg-type]
                                    night="cup-day"))
        wait_for("16 results counted", lambda: counted(d) == 16)
        assert d.post("/api/tournament/cut", {}).status_code == 200
        qf = d.post("/api/tournament/rounds", {})
        assert qf.status_code == 201, qf.text
        for n, (t, names) in enumerate(list(tables_of(qf.json()).items())[:2]):
            send(clients[t], result(t, 200 + n, tuple(names), (121, 100), round_=2,  # type: ignore[arg-type]
                                    night="cup-day"))
        wait_for("two quarter-finals in", lambda: sum(
            bool(m["winner"]) for m in d.get("/api/tournament").json()["bracket"]["rounds"][0]
            ["matches"]) == 2)
        yield d


@pytest.mark.parametrize("size", SIZES)
def test_the_knockout_shows_the_bracket(browser: Any, knockout: Director,  # noqa: F811
                                        size: tuple[int, int]) -> None:
    context, page, problems = open_tv(browser, knockout.url, size)
    page.wait_for_selector("#bracket .match")
    view = knockout.get("/api/tournament").json()
    rounds = page.locator("#bracket .bround h3").all_inner_texts()
    assert rounds == ["Quarter-final", "Semi-final", "Final"]
    assert page.locator("#round").inner_text() == "Quarter-final"
    seeds = view["cut"]["seeds"]
    assert sorted(all_visible(page, "#bracket .bround:first-child .mname")) == sorted(seeds)
    won = page.locator("#bracket .mline.won .mname").all_inner_texts()
    assert len(won) == 2 and set(won) <= set(seeds)
    semis = page.locator("#bracket .bround:nth-child(2) .mname").all_inner_texts()
    assert [n for n in semis if n != "…"] == won
    rows = all_visible(page, ".trow")  # the quarter-finals' tables, two of them decided
    assert len(rows) == 4 and sum("won" in r and "121" in r and "100" in r for r in rows) == 2
    check_screen(page, "knockout", size)
    assert problems == [] and page.locator("#link").inner_text() == "live"
    context.close()




def test_a_bracket_bigger_than_a_screen_turns_its_pages(browser: Any, tmp_path: Path,  # noqa: F811
                                                         ) -> None:
    """A cut of 20 (a bracket of 32, byes to seeds 1-12): two pages of eight first-round
    matches each, turning on their own, with the rounds after them beside."""
    with room(tmp_path / "broker") as (broker, clients), \
            Director(tmp_path / "director", broker, tables=TABLES, night="big-cup") as d:
        assert d.post("/api/players", {"names": [f"Cup {i:02}" for i in range(1, 33)]}
                      ).status_code == 200
        r1 = d.post("/api/tournament", {"games": 1, "cut": 20})
        assert r1.status_code == 201, r1.text
        for n, (t, names) in enumerate(tables_of(r1.json()).items()):
            send(clients[t], result(t, 300 + n, tuple(names), (121, 95), round_=1,  # type: ignore[arg-type]
                                    night="big-cup"))
        wait_for("16 results counted", lambda: counted(d) == 16)
        assert d.post("/api/tournament/cut", {}).status_code == 200
        context, page, problems = open_tv(browser, d.url, (1920, 1080), "/?cycle=2")
        page.wait_for_function("document.getElementById('bracket-page').textContent === '1/2'")
        heads = page.locator("#bracket .bround h3").all_inner_texts()
        assert heads == ["Round of 32", "Round of 16", "Quarter-final", "Semi-final"]
        first = all_visible(page, "#bracket .bround:first-child .match")
        page.wait_for_function("document.getElementById('bracket-page').textContent === '2/2'",
                               timeout=10_000)
        second = all_visible(page, "#bracket .bround:first-child .match")
        assert len(first) == len(second) == 8 and not set(first) & set(second)
        seeds = d.get("/api/tournament").json()["cut"]["seeds"]
        shown = " ".join(first + second)
        assert all(name in shown for name in seeds)
        check_screen(page, "bracket32", (1920, 1080))
        assert problems == []
        context.close()


def test_the_champion_is_shown_when_the_final_is_in(browser: Any, tmp_path: Path  # noqa: F811
                                                    ) -> None:
    with room(tmp_path / "broker") as (broker, clients), \
            Director(tmp_path / "director", broker, tables=TABLES, night="small-cup") as d:
        assert d.post("/api/players", {"names": [f"Cup {i}" for i in range(1, 9)]}
                      ).status_code == 200
        r1 = d.post("/api/tournament", {"games": 1})
        assert r1.status_code == 201, r1.text
        for n, (t, names) in enumerate(tables_of(r1.json()).items()):
            send(clients[t], result(t, 400 + n, tuple(names), (121, 90 + n), round_=1,  # type: ignore[arg-type]
                                    night="small-cup"))
        wait_for("4 results counted", lambda: counted(d) == 4)
        assert d.post("/api/tournament/cut", {}).status_code == 200
        final = d.post("/api/tournament/rounds", {})
        assert final.status_code == 201 and final.json()["name"] == "Final", final.text
        (t, names), = tables_of(final.json()).items()
        send(clients[t], result(t, 500, (names[1], names[0]), (121, 119), round_=2,
                                night="small-cup"))
        wait_for("the final counted", lambda: counted(d) == 5)
        context, page, problems = open_tv(browser, d.url, (1280, 720))
        page.wait_for_selector("#bracket .champion")
        assert page.locator("#round").inner_text() == f"champion: {names[1]}"
        assert page.locator("#bracket .champ").inner_text() == names[1]
        row = page.locator(".trow").first.inner_text()
        assert "won" in row and "121" in row and "119" in row
        check_screen(page, "champion", (1280, 720))
        assert problems == []
        context.close()
