"""The big screen in Debian's Chromium at 1920x1080 and 1280x720: a club night of 39
players on 20 tables (the round's seating as soon as it is seated, the bye, the live
games), and a tournament's knockout (the bracket); everything on one screen without
scrolling, type readable across a room, pages that turn on their own when the field is
bigger than a screen, nothing loaded from outside, no axe-core violation. The screenshots
go to tests/artifacts/screenshots/ (docs/screenshots/ with CRIB_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_host.clubwire import LiveGame, Side, TableState, encode, table_topic
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import Director, TableClient, result, send, wait_for
from tests.firmware_host.page_helpers import BROWSER, SCREENSHOTS, browser  # noqa: F401

pytestmark = BROWSER

AXE = Path(__file__).resolve().parents[2] / "vendor" / "axe-core" / "axe.min.js"
TABLES = [f"t{i}" for i in range(1, 21)]
SIZES = [(1920, 1080), (1280, 720)]
LONG = "Bartholomew Featherstonehaugh-Smythe"  # a long name must not wrap a row


def state(table: str, names: list[str], scores: tuple[int, int], round_: int,
          winner: int | None = None) -> bytes:
    return encode(TableState(table=table, at=time.time(), round=round_, game=LiveGame(
        id=7, variant="six-card", target=121, hand=6, phase="play", winner=winner,
        sides=[Side(names=[names[0]], score=scores[0]), Side(names=[names[1]], score=scores[1])])))


@contextlib.contextmanager
def room(directory: Path) -> Iterator[tuple[Broker, dict[str, TableClient]]]:
    """A broker of its own (two directors on one broker would share its director user)
    and a client for each table."""
    passwords = {t: f"pw-{t}" for t in TABLES} | {"director": "pw-director"}
    with Broker(directory, "club", passwords) as broker:
        clients = {t: TableClient(broker, t) for t in TABLES}
        try:
            yield broker, clients
        finally:
            for client in clients.values():
                client.close()


def counted(d: Director) -> int:
    return sum(r["status"] == "counted" for r in d.get("/api/night").json()["results"])


def tables_of(round_view: dict[str, Any]) -> dict[str, list[str]]:
    return {t["table"]: t["names"] for t in round_view["tables"] if len(t["names"]) == 2}


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


def open_tv(browser: Any, url: str, size: tuple[int, int],  # noqa: F811
            path: str = "/") -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  bypass_csp=True)  # only for axe, injected below
    page = context.new_page()
    problems: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(url) else problems.append(r.url))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url + path)
    return context, page, problems


def check_screen(page: Any, name: str, size: tuple[int, int]) -> None:
    """No scrolling, readable type, no axe violation; a screenshot."""
    fits = page.evaluate("""() => document.documentElement.scrollHeight <= innerHeight &&
        document.documentElement.scrollWidth <= innerWidth""")
    assert fits
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        '.standings td.name, .pname, .mname')].filter(e => e.offsetParent)
        .map(e => parseFloat(getComputedStyle(e).fontSize)))""")
    assert smallest >= 0.021 * size[1], smallest  # 23 px at 1080, 15 px at 720
    page.add_script_tag(content=AXE.read_text())
    violations = page.evaluate("""async () => (await axe.run(document,
        {resultTypes: ['violations']})).violations.map(v =>
        `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
    assert violations == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"club-tv-{name}-{size[0]}x{size[1]}.png"))


def all_visible(page: Any, selector: str) -> list[str]:
    """The texts of `selector`'s elements wholly inside the viewport."""
    return list(page.evaluate("""s => [...document.querySelectorAll(s)].filter(e => {
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight + 1 && r.left >= 0 &&
               r.right <= innerWidth + 1; }).map(e => e.textContent)""", selector))


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
