"""When the daemon refuses the page a live stream, the page reads the game by HTTP instead
and says so; a paired phone still gets its stream. Headless Chromium against a real
`crib serve --simulate`."""

from __future__ import annotations

from typing import Any

from websockets.sync.client import connect

from firmware_host.api.routes.events import PER_ADDRESS
from tests.firmware_host.page_helpers import BROWSER, Phone, browser, daemon, wait_until

pytestmark = BROWSER
__all__ = ["browser", "daemon"]  # the fixtures this module uses


def test_a_refused_page_polls_and_says_so_and_a_paired_phone_stays_live(
        browser: Any, daemon: Any) -> None:
    url = daemon.client.base.replace("http", "ws") + "/api/events"
    # Another tab (or a flood) from this address holds its whole share of the streams.
    held = [connect(url) for _ in range(PER_ADDRESS)]
    watcher = paired = None
    try:
        watcher = Phone(browser, daemon.client.base)
        watcher.page.goto(daemon.client.base + "/")
        watcher.page.wait_for_function(
            "() => /^live view busy · checking every 5 s$/"
            ".test(document.getElementById('link').textContent)", timeout=15000)
        assert watcher.page.locator("#link").text_content() == "live view busy · checking every 5 s"
        # The table goes on: the polling page shows the new game.
        daemon.client.new_game(names=["Zed", "Yan"])
        wait_until(lambda: (watcher.state().get("game") or {}).get("names") == ["Zed", "Yan"],
                   15, "the polled game on the refused page")
        # A paired phone from the same address is not refused for the others' sake.
        paired = Phone(browser, daemon.client.base)
        paired.page.add_init_script(
            f"localStorage.setItem('crib.token', {daemon.token!r});"
            "localStorage.setItem('crib.phone', 'ann-phone');")
        paired.open()
        assert paired.page.locator("#link").text_content() == "live"
        assert watcher.errors == [] and paired.errors == []
    finally:
        for ws in held:
            ws.close()
        for phone in (watcher, paired):
            if phone is not None:
                phone.close()
