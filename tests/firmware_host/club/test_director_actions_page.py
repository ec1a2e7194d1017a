"""The director's page (`/director`) in Chromium against a real `crib club serve` and a real
Mosquitto: behind the token, the director registers, seats, corrects a result, settles a
table's dispute and downloads the exports, with no axe violation."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.director_helpers import Director, TableClient, result, send
from tests.firmware_host.page_helpers import BROWSER, PHONE
from tests.firmware_host.page_helpers import browser as browser

pytestmark = BROWSER

AXE = Path(__file__).resolve().parents[2] / "vendor" / "axe-core" / "axe.min.js"


def _no_axe_violations(page: Any) -> None:
    page.add_script_tag(content=AXE.read_text())
    violations = page.evaluate("""async () => (await axe.run(document,
        {resultTypes: ['violations']})).violations.map(v =>
        `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
    assert violations == []


def test_the_director_runs_the_evening_from_the_page(
        browser: Any, director: Director, broker: Broker) -> None:  # noqa: F811
    context = browser.new_context(**PHONE, bypass_csp=True, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(director.url + "/director")
    # A wrong token is refused with a sentence; nothing else shows.
    page.fill("#token", "not-the-token")
    page.click("#token-form button")
    page.wait_for_selector("#said.bad")
    assert "not accepted" in page.inner_text("#said") and page.is_hidden("#desk")
    page.fill("#token", director.token)
    page.click("#token-form button")
    page.wait_for_selector("#desk", state="visible")
    _no_axe_violations(page)

    page.fill("#names", "Ann\nBob\nCy\nDi\nEd")
    page.click("#register-form button")
    page.wait_for_function("document.querySelectorAll('#players li').length === 5")
    assert director.get("/api/players").json()["players"] == ["Ann", "Bob", "Cy", "Di", "Ed"]
    page.click("#seat-form button")
    page.wait_for_function("document.querySelector('#round').textContent === 'round 1'")
    rows = page.locator("#seated tr").all_inner_texts()
    assert len(rows) == 2 and rows[0].startswith("t1")
    assert page.inner_text("#byes").startswith("Bye: ")  # five players: one sits out
    seats = {t["table"]: t["names"] for t in director.get("/api/rounds").json()["rounds"][0]
             ["tables"]}

    # A table's result arrives; the director corrects its scores from the page.
    t1 = TableClient(broker, "t1")
    game = result("t1", 1, tuple(seats["t1"]), (121, 100), round_=1)  # type: ignore[arg-type]
    send(t1, game)
    page.wait_for_selector("#results .d-status.counted")
    item = page.locator("#results > li").first
    item.locator("input[aria-label$=\"'s score\"]").nth(1).fill("80")
    item.locator("input.d-reason").fill("score card checked")
    item.locator("button[type=submit]").click()
    page.wait_for_selector("#said.good")
    assert director.row(seats["t1"][0])["game_points"] == 3  # 121-80: a skunk by the lines
    # A correction the lines refuse is said on the page, and changes nothing.
    item = page.locator("#results > li").first
    item.locator("input[aria-label$=\"'s score\"]").nth(0).fill("150")
    item.locator("input.d-reason").fill("typo")
    item.locator("button[type=submit]").click()
    page.wait_for_selector("#said.bad")
    assert "121" in page.inner_text("#said")

    # The table disagrees with the corrected result: a dispute, settled on the page.
    send(t1, result("t1", 1, tuple(seats["t1"]), (121, 100), round_=1, rev=1))  # type: ignore[arg-type]
    t1.close()
    page.wait_for_selector("#disputes > li")
    assert "corrected" in page.inner_text("#disputes")
    page.locator("#disputes input.d-reason").fill("players agree on 121-100")
    page.locator("#disputes button[type=submit]").click()
    page.wait_for_selector("#no-disputes", state="visible")
    assert director.row(seats["t1"][0])["game_points"] == 2

    # Exports, with the token the page holds: the bye has its row.
    with page.expect_download() as got:
        page.click("#export-cards")
    text = Path(got.value.path()).read_text()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][0] == "round" and len(rows) == 1 + 2 + 1
    assert any(r[3] == "(bye)" and r[9] == "bye" and r[7] == "2" for r in rows[1:])
    assert errors == []
    context.close()
