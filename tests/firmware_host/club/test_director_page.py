"""The standings page in Debian's Chromium: live standings, the tables' games and the
unmatched results, from the director's own files only, readable on a phone and on a big
screen."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from firmware_host.clubwire import LiveGame, Side, TableState, encode, table_topic
from tests.firmware_host.club.broker_helpers import PASSWORDS, Broker
from tests.firmware_host.club.director_helpers import Director, TableClient, result, send, wait_for
from tests.firmware_host.page_helpers import BROWSER, PHONE, SCREENSHOTS, browser  # noqa: F401

pytestmark = BROWSER

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
def night(tmp_path: Path) -> Any:
    with Broker(tmp_path / "broker", "club", PASSWORDS) as broker, \
            Director(tmp_path / "director", broker, tables=["t1", "t2"]) as director:
        director.post("/api/players", {"names": ["Ann", "Bob", "Cy", EVIL]})
        seats = {t["table"]: t["names"] for t in director.post("/api/rounds", {}).json()["tables"]}
        t1, t2 = TableClient(broker, "t1"), TableClient(broker, "t2")
        send(t1, result("t1", 1, tuple(seats["t1"]), (121, 88), round_=1))  # type: ignore[arg-type]
        send(t1, result("t1", 2, ("Zed", "Bob"), (121, 3)))  # nobody called Zed tonight
        t2.publish(table_topic("club", "t2", "state"), encode(TableState(
            table="t2", at=time.time(), round=1, game=LiveGame(
                id=4, variant="six-card", target=121, hand=5, phase="play",
                sides=[Side(names=[seats["t2"][0]], score=67),
                       Side(names=[seats["t2"][1]], score=59)]))), retain=True)
        wait_for("counted and seen", lambda: director.row(seats["t1"][0])["won"] == 1 and any(
            t["game"] for t in director.get("/api/tables").json()["tables"]))
        t1.close()
        t2.close()
        yield director, seats


@pytest.mark.parametrize("screen", ["phone", "big"])
def test_the_page_shows_the_night_live(browser: Any, night: Any, screen: str) -> None:  # noqa: F811
    director, seats = night
    options = PHONE if screen == "phone" else {"viewport": {"width": 1920, "height": 1080}}
    context = browser.new_context(**options)
    page = context.new_page()
    outside: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(director.url) else outside.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: errors.append("a dialog opened: " + d.message))
    page.goto(director.url + "/")
    page.wait_for_selector("#standings tbody tr")
    names = page.locator("#standings tbody td.name").all_inner_texts()
    assert names[0] == seats["t1"][0] and sorted(names) == sorted(["Ann", "Bob", "Cy", EVIL])
    first = page.locator("#standings tbody tr").first.locator("td").all_inner_texts()
    assert first == ["1", seats["t1"][0], "3", "1-0", "+33"]  # 121-88: a skunk
    assert page.locator("#round").inner_text() == "round 1"
    tables = page.locator("#tables").inner_text()
    assert "t2" in tables and "67" in tables and "59" in tables and seats["t2"][0] in tables
    unmatched = page.locator("#unmatched").inner_text()
    assert "Zed" in unmatched and "not registered" in unmatched
    # Live: a correction shows within the polling period, without a reload.
    game = next(r for r in director.get("/api/night").json()["results"] if "Zed" in r["names"])
    director.post(f"/api/results/{game['id']}/correct", {"void": True, "reason": "test game"})
    page.wait_for_selector("#unmatched-box", state="hidden", timeout=15_000)
    # Readable: nothing wider than the screen, big enough type.
    wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not wide
    size = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#standings td.name')).fontSize)")
    assert size >= (17 if screen == "phone" else 28)
    assert outside == [] and errors == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"club-standings-{screen}.png"), full_page=True)
    context.close()
