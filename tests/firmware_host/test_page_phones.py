"""Every phone at the table, in headless Chromium at 360 x 740: each step shown on every phone,
said by exactly one, the undo said too; taps kept in the browser's storage until the table
answers; nothing over the live line; axe-core clean on every screen the tests open.

Speech is recorded by a stub of `speechSynthesis` installed before the page loads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.firmware_host.page_helpers import (
    BROWSER,
    Phone,
    act,
    current,
    fresh,
    wait_text,
    wait_until,
)

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import ann as ann
from tests.firmware_host.page_helpers import ann_stays_on_the_pi as ann_stays_on_the_pi
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon
from tests.firmware_host.test_page_evening import SPEECH_STUB, overlaps

pytestmark = BROWSER


def table_phone(browser: Any, daemon: Any, name: str, speaks: str | None) -> Phone:
    """A paired phone with speech recorded; `speaks`: its "this phone speaks" wish as kept in
    its storage ("1", "0", or None for never set)."""
    phone = Phone(browser, daemon.client.base)
    wish = "" if speaks is None else f"localStorage.setItem('crib.speak', '{speaks}');"
    phone.page.add_init_script(
        f"if (!sessionStorage.getItem('seeded')) {{ sessionStorage.setItem('seeded', '1');"
        f"localStorage.setItem('crib.token', {daemon.token!r});"
        f"localStorage.setItem('crib.phone', '{name}'); {wish} }}")
    phone.page.add_init_script(SPEECH_STUB)
    return phone.open()


def said(phone: Phone) -> list[str]:
    """What the phone said aloud (the page's own record where speech is not stubbed)."""
    return list(phone.page.evaluate("window.__said || window.cribState.spoken"))


def speaker(daemon: Any) -> str:
    return str(daemon.client.req("GET", "/api/settings", auth=False).json()["speaker"])


def phone_id(phone: Phone) -> str:
    return str(phone.page.evaluate("localStorage.getItem('crib.id')"))


@pytest.fixture(scope="module")
def two(browser: Any, daemon: Any) -> Iterator[tuple[Phone, Phone]]:
    """Cy's phone (it speaks) and Di's (it does not), on the same table."""
    cy = table_phone(browser, daemon, "cy-phone", "1")
    wait_until(lambda: speaker(daemon) == phone_id(cy), 5, "Cy's phone speaking")
    di = table_phone(browser, daemon, "di-phone", "0")
    yield cy, di
    for p in (cy, di):
        assert p.errors == [] and p.off_origin() == []
        p.close()


def test_every_phone_shows_a_step_and_exactly_one_says_it(daemon: Any, ann: Phone,
                                                         two: tuple[Phone, Phone]) -> None:
    cy, di = two
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    for p in (cy, di):
        p.page.wait_for_selector(".pad:visible")
    heard = {p: len(said(p)) for p in (cy, di, ann)}
    # Di taps: Cy's phone (and Ann's, which only watched) shows it, and Cy's alone says it.
    di.page.click('.side[data-side="1"] .pad button[aria-label="Peg 3 for Bob"]')
    for p in (cy, ann, di):
        wait_text(p.page, "toast", "^Bob pegs 3")
    cy.page.wait_for_function(f"() => window.__said.length > {heard[cy]}")
    di.page.wait_for_timeout(500)
    assert said(cy)[heard[cy]:] == ["Bob pegs 3."]
    assert said(di)[heard[di]:] == [] and said(ann)[heard[ann]:] == []
    assert di.page.locator("#toast button", has_text="Undo").count() == 1  # the tapper's own
    assert cy.page.locator("#toast button").count() == 0
    # The undo is shown everywhere and said, so a corrected count is not two totals heard.
    di.page.click("#toast button")
    wait_text(cy.page, "toast", "^Undone: Bob pegs 3")
    cy.page.wait_for_function(f"() => window.__said.length > {heard[cy] + 1}")
    assert said(cy)[-1].startswith("Undone: Bob pegs 3")
    assert said(di)[heard[di]:] == []


def test_the_undo_of_a_count_is_said(daemon: Any, ann: Phone, two: tuple[Phone, Phone]) -> None:
    cy, di = two
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    cy.page.wait_for_selector("#count-pad button")
    cy.page.click('#count-pad button[data-points="8"]')  # Bob's hand
    cy.page.wait_for_function("() => window.__said.some(s => s.startsWith(\"Bob's hand: 8\"))")
    start = len(said(cy))
    di.page.click("#undo-btn")
    cy.page.wait_for_function(f"() => window.__said.length > {start}")
    assert said(cy)[start].startswith("Undone: Bob's hand: 8"), said(cy)[start:]


def test_the_phone_paired_first_speaks_and_a_phone_that_asks_takes_it_over(
    browser: Any, daemon: Any, two: tuple[Phone, Phone]
) -> None:
    cy, di = two
    daemon.client.req("PUT", "/api/settings", {"speaker": ""})  # nobody speaks now
    for p in (cy, di):
        p.page.wait_for_function("() => window.cribState.board.speaker === ''")
    eve = table_phone(browser, daemon, "eve-phone", None)  # never said: speaks, being first
    try:
        wait_until(lambda: speaker(daemon) == phone_id(eve), 5, "Eve's phone speaking")
        eve.tab("settings")
        assert eve.page.is_checked("#speak-all")
        flo = table_phone(browser, daemon, "flo-phone", None)  # someone speaks: Flo's is quiet
        flo_id = phone_id(flo)
        try:
            flo.page.wait_for_timeout(800)
            assert speaker(daemon) == phone_id(eve)
            flo.tab("settings")
            assert not flo.page.is_checked("#speak-all")
            flo.page.check("#speak-all")  # Flo takes it over; Eve's phone hears it and stops
            wait_until(lambda: speaker(daemon) == phone_id(flo), 5, "Flo's phone speaking")
            eve.page.wait_for_function("() => !document.getElementById('speak-all').checked")
            assert eve.page.evaluate("localStorage.getItem('crib.speak')") == "0"
            assert flo.errors == [] and eve.errors == []
        finally:
            flo.close()
    finally:
        eve.close()
    # Cy's phone heard the others take it over: its wish is off, and a reload keeps it quiet.
    assert cy.page.evaluate("localStorage.getItem('crib.speak')") == "0"
    cy.page.reload()
    cy.page.wait_for_function("() => window.cribState && window.cribState.live")
    cy.page.wait_for_timeout(800)
    assert speaker(daemon) == flo_id


def test_a_side_of_two_pegs_in_the_plural(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, variant="four-player", names=["Ann", "Bob", "Cy", "Di"], dealer=3)
    ann.page.click('.side[data-side="0"] .pad button[aria-label="Peg 3 for Ann & Cy"]')
    wait_text(ann.page, "toast", "^Ann & Cy peg 3\\.")


def test_a_tap_made_offline_survives_closing_the_page(browser: Any, daemon: Any) -> None:
    game = daemon.client.new_game(names=["Ann", "Bob"], dealer=0)
    phone = table_phone(browser, daemon, "gus-phone", "0")
    try:
        page = phone.page
        page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id === "
                               f"{game['id']}")
        version = current(daemon)["version"]
        phone.context.set_offline(True)
        wait_text(page, "link", "^offline", timeout=8000)
        page.click('.side[data-side="1"] .pad button[aria-label="Peg 2 for Bob"]')
        wait_text(page, "outbox", "\\+2 for Bob")
        # The link line is in sight with the tap kept: nothing covers it.
        assert page.locator("#link").is_visible() and not overlaps(page, "#toast", "#link")
        kept = json.loads(page.evaluate("localStorage.getItem('crib.outbox')"))
        assert [k["body"]["action"] for k in kept] == [{"type": "peg", "side": 1, "points": 2}]
        page.close()  # closed before the network came back
        phone.context.set_offline(False)
        again = phone.context.new_page()
        again.goto(phone.base + "/")
        wait_until(lambda: current(daemon)["version"] == version + 1, 10, "the kept tap sent")
        again.wait_for_function("() => localStorage.getItem('crib.outbox') === '[]'")
        again.wait_for_timeout(1500)
        after = current(daemon)
        assert after["version"] == version + 1 and [s["front"] for s in after["sides"]] == [0, 2]
    finally:
        phone.context.set_offline(False)
        phone.close()


def test_the_toast_never_covers_the_live_line(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    page = ann.page
    for label in ("Peg 1 for Bob", "Peg 2 for Ann"):
        page.click(f'.pad button[aria-label="{label}"]')
        page.locator("#toast").wait_for(state="visible")
        assert page.locator("#link").is_visible()
        for line in ("#link", ".tabs", "#due"):
            assert not overlaps(page, "#toast", line), line


def test_quick_taps_right_after_start_are_each_read_against_the_game_they_reach(
    daemon: Any, ann: Phone
) -> None:
    """Start, then the starter and the first card tapped at once: the second tap is the card
    played (not a second starter, which the table refused with a 422 before)."""
    page = ann.page
    refused: list[str] = []
    page.on("response", lambda r: refused.append(f"{r.status} {r.request.post_data}")
            if "/actions" in r.url and r.status >= 400 and '"cut"' not in (r.request.post_data
                                                                          or "") else None)
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    ann.tab("score")
    page.once("dialog", lambda d: d.accept())
    page.click("#end-game")
    page.select_option("#variant", "six-card")
    page.select_option("#new-game [name=mode]", "cards")
    page.click("#new-game button[type=submit]")
    page.click('#play-picker button[data-card="5H"]')
    page.click('#play-picker button[data-card="KS"]')
    wait_until(lambda: (current(daemon)["play"] or {}).get("cards") == ["KS"], 5,
               "the K♠ played on the 5♥ starter")
    assert current(daemon)["starter"] == "5H"
    assert refused == []


# -- axe-core on every screen the tests open ------------------------------------------------------
def test_axe_finds_nothing_on_any_screen(daemon: Any, ann: Phone) -> None:
    page = ann.page
    page.add_init_script(SPEECH_STUB)  # "Say it" is shown where the phone has voices
    page.reload()
    page.wait_for_function("() => window.cribState && window.cribState.live")

    def check(screen: str) -> None:
        page.wait_for_timeout(250)
        ann.check_axe(screen)

    fresh(daemon, ann, variant="three-player", names=["Ann", "Bob", "Cy"], dealer=2)
    check("score, keeper mode, the play (his heels due)")
    act(daemon, {"type": "count", "points": 8})
    check("score, keeper mode, the show")
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    check("score, cards mode, the starter")
    act(daemon, {"type": "starter", "card": "2D"})
    page.click('#play-picker button[data-card="KH"]')
    page.locator("#toast").wait_for(state="visible")
    check("score, cards mode, the play, with a toast")
    page.click("#play-hint-btn")
    check("score, cards mode, the play's hint")
    for player, card in ((0, "5S"), (1, "QD"), (0, "6C"), (1, "9C"), (0, "8D"), (1, "7S"),
                         (0, "4H")):
        act(daemon, {"type": "play", "player": player, "card": card})
    wait_text(page, "play-who", "^Bob's hand: every card is known")
    check("score, cards mode, a count")
    for tab in ("count", "shuffle", "board", "history", "settings"):
        ann.tab(tab)
        check(tab)
    ann.tab("count")
    page.click("#count-clear")
    for card in ("5H", "5S", "JD", "10C", "5D"):
        page.click(f'#count-picker button[data-card="{card}"]')
    page.wait_for_selector("#breakdown .total")
    check("count, a hand counted (with Say it)")
    page.click("#count-clear")
    page.click("#mode-advise")
    check("count, which two to throw")
    for card in ("5H", "5S", "JD", "10C", "5D", "KS"):
        page.click(f'#advise-picker button[data-card="{card}"]')
    page.click("#role-dealer")
    page.wait_for_selector("#advice table")
    check("count, which two to throw, the advice")
    page.click("#mode-count")
    ann.tab("shuffle")
    page.click("#shuffle-start")
    page.wait_for_selector('#shuffle-status[data-state="busy"], '
                           '#shuffle-status[data-state="waiting"]')
    check("shuffle, running")
    daemon.client.req("POST", "/api/shuffler/abort", {})
    ann.tab("score")
    page.once("dialog", lambda d: d.accept())
    page.click("#end-game")
    page.wait_for_selector("#new-game")
    check("score, the new-game form")
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    found, ann.violations[:] = list(ann.violations), []
    assert found == [], found
