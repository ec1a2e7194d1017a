"""The big screen in Debian's Chromium at 1920x1080 and 1280x720, a club night of 39
players on 20 tables: the round's seating as soon as it is seated, the bye, the live games,
everything on one screen without scrolling, type readable across a room, pages that turn
on their own when the field is bigger than a screen, nothing loaded from outside, no
axe-core violation. Screenshots: tests/artifacts/screenshots/club-tv-night-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from firmware_host.clubwire import table_topic
from tests.firmware_host.club.director_helpers import Director, result, send, wait_for
from tests.firmware_host.club.screen_helpers import (
    SIZES,
    TABLES,
    all_visible,
    check_screen,
    counted,
    open_tv,
    room,
    state,
    tables_of,
)
from tests.firmware_host.page_helpers import BROWSER, browser  # noqa: F401 (fixture)

pytestmark = BROWSER

LONG = "Bartholomew Featherstonehaugh-Smythe"  # a long name must not wrap a row


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[Director, dict[str, list[str]]]]:
    """Round 1 of 39 players played at three tables; round 2 seated (forced); two tables
    still showing their round-1 game, one playing round 2."""
    root = tmp_path_factory.mktemp("night")
    with room(root / "broker") as (broker, clients), \
            Director(root / "director", broker, tables=TABLES) as d:
        names = [LONG] + [f"Player {i:02}" for i in range(2, 40)]
        assert d.post("/api/players", {"names": names}).status_code == 200
        r1 = tables_of(d.post("/api/rounds", {}).json())
        for n, t in enumerate(["t1", "t2", "t3"]):
            send(clients[t], result(t, n + 1, tuple(r1[t]), (121, 80 + 5 * n), round_=1))  # type: ignore[arg-type]
            clients[t].publish(table_topic("club", t, "state"),
                               state(t, r1[t], (121, 80 + 5 * n), 1, winner=0), retain=True)
        wait_for("three results counted", lambda: counted(d) == 3)
        reply = d.post("/api/rounds", {"force": True})
        assert reply.status_code == 201, reply.text
        r2 = tables_of(reply.json())
        clients["t3"].publish(table_topic("club", "t3", "state"),
                              state("t3", r2["t3"], (67, 59), 2), retain=True)
        wait_for("t3 live", lambda: any(t["game"] and t["game"]["scores"] == [67, 59]
                                        for t in d.get("/api/tables").json()["tables"]))
        yield d, r2


@pytest.mark.parametrize("size", SIZES)
def test_a_night_of_39_on_20_tables_fits_one_screen(browser: Any, night: Any,  # noqa: F811
                                                     size: tuple[int, int]) -> None:
    director, seated = night
    context, page, problems = open_tv(browser, director.url, size)
    page.wait_for_selector(".standings tbody tr")
    page.wait_for_function("document.querySelectorAll('.trow').length === 19")
    assert page.locator("#round").inner_text() == "round 2"
    names = all_visible(page, ".standings td.name")
    assert len(names) == 39 and LONG in names
    rows = page.evaluate("""() => [...document.querySelectorAll('.standings tbody tr')]
        .map(r => r.getBoundingClientRect().height)""")
    assert max(rows) < 0.045 * size[1]  # one line a row: nothing wraps
    # Round 2's seating at once, in the configured order: t1 and t2 still show their
    # round-1 winners at the tables, but the screen shows who sits there now.
    shown = all_visible(page, ".trow .tname")
    assert shown == sorted(seated, key=TABLES.index) and len(shown) == 19
    t1 = page.locator(".trow", has_text="t1").first.inner_text()
    assert seated["t1"][0] in t1 and seated["t1"][1] in t1 and "to start" in t1
    t3 = page.locator(".trow").nth(2).inner_text()
    assert "67" in t3 and "59" in t3 and seated["t3"][0] in t3
    bye = page.locator("#byes").inner_text()
    playing = {p for pair in seated.values() for p in pair}
    assert bye.startswith("Bye: ") and bye[5:] not in playing
    check_screen(page, "night", size)
    assert problems == [] and page.locator("#link").inner_text() == "live"
    context.close()


def test_a_field_bigger_than_a_screen_turns_its_pages(browser: Any, night: Any) -> None:  # noqa: F811
    director, _ = night
    more = [f"Late {i:02}" for i in range(21)]  # 60 players: two pages of 40
    assert director.post("/api/players", {"names": more}).status_code == 200
    context, page, problems = open_tv(browser, director.url, (1280, 720), "/?cycle=2")
    page.wait_for_function("document.getElementById('standings-page').textContent === '1/2'")
    first = set(all_visible(page, ".standings td.name"))
    page.wait_for_function("document.getElementById('standings-page').textContent === '2/2'",
                           timeout=10_000)
    second = set(all_visible(page, ".standings td.name"))
    assert len(first) == 40 and len(second) == 20 and not first & second
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight")
    assert problems == []
    context.close()
