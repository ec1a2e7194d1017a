"""The table's page in a club: the director's seating is one tap to start the game, and the
club's line says when results wait for the broker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.test_table_link import Director, seat, table, wait_for
from tests.firmware_host.page_helpers import BROWSER, Phone
from tests.firmware_host.page_helpers import browser as browser

pytestmark = BROWSER



def test_the_seated_game_starts_in_one_tap(browser: Any, tmp_path: Path, broker: Broker) -> None:
    director = Director(broker)
    daemon = table(tmp_path, broker)
    daemon.start()
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(f"localStorage.setItem('crib.token', {daemon.token!r});")
    try:
        seat(director, ["Ann", "Bob"], round_=2)
        wait_for("the seating", lambda: daemon.client.req(
            "GET", "/api/club", auth=False).json()["seating"])
        phone.open()
        start = phone.page.locator("#club-start")
        start.wait_for(state="visible", timeout=10000)
        assert start.inner_text() == "Round 2: Ann v Bob — start"
        assert "club: club · table t1 · connected" in phone.page.locator("#club-line").inner_text()
        start.click()
        phone.page.wait_for_function(
            "() => document.querySelector('#no-game').hidden", timeout=10000)
        game = daemon.client.req("GET", "/api/games/current", auth=False).json()
        assert game["names"] == ["Ann", "Bob"]
        broker.stop()
        wait_for("offline", lambda: not daemon.client.req(
            "GET", "/api/club", auth=False).json()["connected"])
        phone.page.reload()
        phone.page.wait_for_function(
            "() => document.querySelector('#club-line').textContent === 'club: offline'",
            timeout=10000)
        assert phone.off_origin() == [] and phone.errors == []
    finally:
        phone.close()
        daemon.close()
        director.close()
