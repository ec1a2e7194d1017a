"""The big screen's tests: a room (a broker of its own and a client per table), a TV-sized
Chromium page, and the checks every TV screen passes (no scrolling, readable type, no
axe-core violation) with its screenshot."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware_host.clubwire import LiveGame, Side, TableState, encode
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import Director, TableClient
from tests.firmware_host.page_helpers import SCREENSHOTS

AXE = Path(__file__).resolve().parents[2] / "vendor" / "axe-core" / "axe.min.js"
TABLES = [f"t{i}" for i in range(1, 21)]
SIZES = [(1920, 1080), (1280, 720)]


def state(table: str, names: list[str], scores: tuple[int, int], round_: int,
          winner: int | None = None) -> bytes:
    """A table's live state: a game of `names` at `scores`, seated in `round_`."""
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
    """How many results the director counts."""
    return sum(r["status"] == "counted" for r in d.get("/api/night").json()["results"])


def tables_of(round_view: dict[str, Any]) -> dict[str, list[str]]:
    """A seated round's tables with two players: table -> names."""
    return {t["table"]: t["names"] for t in round_view["tables"] if len(t["names"]) == 2}


def open_tv(browser: Any, url: str, size: tuple[int, int],
            path: str = "/") -> tuple[Any, Any, list[str]]:
    """A TV-sized page on `url` + `path`, and the list its outside requests and page errors
    go to."""
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


