"""The phone page's advisor, the play in cards mode and muggins, in real headless Chromium
against `crib serve --simulate` on 127.0.0.1.

One daemon and one browser for the module; the tests run in file order and share one phone
(paired by the daemon's token, named "ann-phone" so the page knows it is Ann's).
"""

from __future__ import annotations

from typing import Any

from tests.firmware_host.page_helpers import (
    BROWSER,
    SCREENSHOTS,
    Phone,
    current,
    wait_text,
    wait_until,
)

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import ann as ann
from tests.firmware_host.page_helpers import ann_stays_on_the_pi as ann_stays_on_the_pi
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon

pytestmark = BROWSER

DEALT = ["7C", "9H", "5H", "5C", "5D", "JS"]


def fronts(daemon: Any) -> list[int]:
    return [s["front"] for s in current(daemon)["sides"]]


def shot(phone: Phone, name: str, selector: str) -> None:
    """A phone-sized screenshot with `selector` at the top, below the sticky header."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.page.evaluate("document.getElementById('toast').hidden = true")
    phone.page.locator(selector).evaluate("e => e.scrollIntoView({block: 'start'})")
    phone.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def fits_360(phone: Phone) -> None:
    width = phone.page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide"


def best_row(page: Any) -> dict[str, str]:
    row = page.locator("#advice tbody tr").first
    return {"keep": row.get_attribute("data-keep") or "",
            "discard": row.get_attribute("data-discard") or "",
            "class": row.get_attribute("class") or "",
            "net": row.locator("td.net").text_content() or ""}


def wait_advice(page: Any, net: str) -> None:
    page.wait_for_function(
        "n => { const b = document.querySelector('#advice .advice-best');"
        " return b && b.dataset.net === n; }", arg=net)


def tap_in(phone: Phone, picker: str, *cards: str) -> None:
    for card in cards:
        before = phone.state()["game"]
        version = before["version"] if before else -1
        phone.page.click(f'#{picker} button[data-card="{card}"]')
        if picker == "play-picker":
            phone.page.wait_for_function(
                f"() => window.cribState.game.version > {version}")


# -- which two to throw ----------------------------------------------------------------------
def test_discard_hint_ranks_every_throw_with_an_in_page_dealer_choice(
    daemon: Any, ann: Phone
) -> None:
    # A keeper game with muggins on in which Bob deals: Ann (this phone) is the pone.
    game = daemon.client.new_game(names=["Ann", "Bob"], dealer=1, muggins=True)
    page = ann.page
    page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id === "
                           f"{game['id']}")
    page.wait_for_selector("#game:not([hidden])")
    # The Score screen's Hint opens the discard advisor on the Count screen.
    page.click("#hint-btn")
    page.wait_for_selector("#tab-count:not([hidden]) #advise-panel:not([hidden])")
    assert page.locator("#mode-advise").get_attribute("aria-pressed") == "true"
    # The page can tell: this phone is Ann's and Bob deals, so Ann is the pone.
    assert page.locator("#role-pone").get_attribute("aria-pressed") == "true"
    assert page.locator("#role-dealer").get_attribute("aria-pressed") == "false"
    assert "Bob deals this hand" in (page.locator("#role-note").text_content() or "")
    tap_in(ann, "advise-picker", *DEALT)
    wait_advice(page, "12.40")
    assert best_row(page) == {"keep": "5H 5C 5D JS", "discard": "7C 9H", "class": "best",
                              "net": "12.40"}
    # The player says otherwise: the dealer's figures.
    page.click("#role-dealer")
    wait_advice(page, "20.91")
    assert page.locator("#role-dealer").get_attribute("aria-pressed") == "true"
    assert best_row(page) == {"keep": "5H 5C 5D JS", "discard": "7C 9H", "class": "best",
                              "net": "20.91"}
    best = page.locator("#advice .advice-best").text_content() or ""
    assert "Keep 5♥ 5♣ 5♦ J♠, throw 7♣ 9♥ to your crib: 20.91" in best
    assert page.locator("#advice thead th").all_text_contents() == [
        "Keep", "Throw", "Hand", "Crib", "Net"]
    # Hand plus crib is the net; the rows are best first; all fifteen on request.
    assert page.locator("#advice tbody tr").count() == 6
    page.click("#advice-all")
    rows = page.locator("#advice tbody tr")
    assert rows.count() == 15
    table = [[float(x) for x in rows.nth(i).locator("td").all_text_contents()[2:]]
             for i in range(15)]
    nets = [r[2] for r in table]
    assert nets == sorted(nets, reverse=True)
    assert all(abs(h + c - n) <= 0.011 for h, c, n in table)
    assert page.locator("#advice tr.best").count() == 1
    page.click("#advice-all")
    fits_360(ann)
    shot(ann, "advise", "#mode-advise")
    # A seventh card cannot be picked; taking one back clears the advice.
    page.click('#advise-picker button[data-card="KD"]')
    wait_text(page, "toast", "6 cards are picked: tap one of them to take it back")
    assert page.locator("#dealt [data-card]").count() == 6
    page.click('#advise-picker button[data-card="JS"]')
    page.wait_for_function("() => !document.querySelector('#advice table')")
    page.click('#advise-picker button[data-card="JS"]')
    wait_advice(page, "20.91")
    ann.tab("score")


# -- muggins, keeper mode ----------------------------------------------------------------------
def test_muggins_in_keeper_mode_takes_the_missed_points(daemon: Any, ann: Phone) -> None:
    page = ann.page
    assert current(daemon)["next_count"]["label"] == "Ann's hand"
    page.fill("#count-input", "4")
    page.click("#count-send")
    page.wait_for_selector("#muggins-box:not([hidden])")
    assert fronts(daemon) == [4, 0]
    assert "Ann's hand was counted 4" in (page.locator("#muggins-box").text_content() or "")
    # Only the opponent can call it; a claim no hand can make is refused with the reason.
    assert page.locator("#muggins-box button").all_text_contents() == ["Muggins for Bob"]
    page.fill("#muggins-box input", "15")
    page.click("#muggins-box button")
    # The table's sentence, not the developer's detail (that stays in the API's error body).
    wait_text(page, "toast", "^Muggins of 15 on Ann's hand makes 4 \\+ 15 = 19, "
              "and 19 isn't a hand anyone can hold")
    assert "refused" not in ann.toast() and "(hand 1" not in ann.toast()
    assert fronts(daemon) == [4, 0]
    page.fill("#muggins-box input", "2")
    page.click("#muggins-box button")
    wait_until(lambda: fronts(daemon) == [4, 2], 3, "Bob's muggins pegged")
    page.wait_for_function("() => [...document.querySelectorAll('#sides .score')]"
                           ".map(s => s.textContent).join() === '4,2'")
    # Still open for more (a hand of 4 + 2 can make more); the next count closes it.
    page.fill("#count-input", "8")
    page.click("#count-send")
    wait_until(lambda: fronts(daemon) == [4, 10], 3, "Bob's hand counted")
    wait_text(page, "muggins-box", "Bob's hand was counted 8")
    assert page.locator("#muggins-box button").all_text_contents() == ["Muggins for Ann"]


# -- the play in cards mode ---------------------------------------------------------------------
def test_cards_mode_play_with_the_running_count_pegging_a_go_and_the_hint(
    daemon: Any, ann: Phone
) -> None:
    page = ann.page
    page.once("dialog", lambda d: d.accept())  # "Leave this game?"
    page.click("#end-game")
    page.wait_for_selector("#new-game")
    page.select_option("#new-game [name=mode]", "cards")
    page.check("#new-game [name=muggins]")
    page.select_option("#dealer-select", "0")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#play-cards:not([hidden])")
    game = current(daemon)
    assert game["mode"] == "cards" and game["muggins"] and game["dealer"] == 0
    wait_text(page, "play-who", "Cut the starter")
    tap_in(ann, "play-picker", "2D")
    assert current(daemon)["starter"] == "2D"
    wait_text(page, "play-who", "^Bob to play")
    assert page.locator('#play-picker button[data-card="2D"]').is_disabled()
    tap_in(ann, "play-picker", "KH")
    wait_text(page, "play-count", "^10$")

    # Ann asks for a hint: she taps the four cards she holds in the compact picker.
    page.click("#play-hint-btn")
    page.wait_for_selector("#play-hint:not([hidden])")
    wait_text(page, "play-hint-ask", "Tap the 4 cards Ann still holds")
    for card in ("KH", "2D"):  # played and the starter: not in anyone's hand
        assert page.locator(f'#hint-picker button[data-card="{card}"]').is_disabled()
    tap_in(ann, "hint-picker", "5S", "9C", "8D", "7S")
    page.wait_for_selector('#hint-out .hint-card[data-card="5S"]')
    assert (page.locator("#hint-out .hint-card").text_content() or "").startswith("Play 5♠")
    reason = page.locator("#hint-out .hint-reason").text_content() or ""
    assert reason.startswith("Makes fifteen for 2") and "fives unseen" in reason
    page.click('#hint-picker button[data-card="QD"]')  # a fifth card: refused
    wait_text(page, "toast", "Ann holds 4 cards")
    assert page.locator('#hint-picker button[aria-pressed="true"]').count() == 4
    page.wait_for_selector('#play-picker button.suggest[data-card="5S"]')
    fits_360(ann)
    shot(ann, "play-hint", "#play-cards")
    v = current(daemon)["version"]
    page.click("#hint-play")
    wait_until(lambda: current(daemon)["version"] == v + 1, 3, "5S played")
    wait_text(page, "play-count", "^15$")
    wait_text(page, "play-say", "Ann pegs 2: fifteen two")
    wait_text(page, "toast", "^Ann plays the 5♠: 15\\. Ann pegs 2: fifteen two\\.")
    assert fronts(daemon) == [2, 0]

    tap_in(ann, "play-picker", "QD")
    wait_text(page, "play-count", "^25$")
    # Ann's remembered hand has lost the five; nothing fits under 31: the hint says go.
    wait_text(page, "play-hint-ask", "Ann holds 9♣ 8♦ 7♠")
    wait_text(page, "hint-out", "^Say go")
    for card in ("7H", "KS"):  # over 31
        assert page.locator(f'#play-picker button[data-card="{card}"]').is_disabled()
    assert page.locator('#play-picker button[data-card="6H"]').is_enabled()
    page.click("#go-btn")
    wait_text(page, "play-who", "^Bob to play")
    tap_in(ann, "play-picker", "4C")
    wait_text(page, "play-count", "^29$")
    tap_in(ann, "play-picker", "AS")
    # Bob laid the last card of the series at 30: one for last, and the count starts again.
    wait_text(page, "play-count", "^0$")
    wait_text(page, "play-say", "Bob pegs 1: one for last")
    assert fronts(daemon) == [2, 1]
    wait_text(page, "play-who", "^Ann to play")
    tap_in(ann, "play-picker", "9C", "8D")
    wait_text(page, "play-count", "^17$")
    assert page.locator("#play-seq").text_content() == "9♣ 8♦"
    tap_in(ann, "play-picker", "7S")
    # A run of three, and one for the last card of the play.
    wait_until(lambda: fronts(daemon) == [6, 1], 3, "the run and last pegged")
    wait_text(page, "toast", "^Ann plays the 7♠: 24\\. Ann pegs 3: twenty-four, a run of three "
              "for three\\. Ann pegs 1: one for last\\.")
    page.wait_for_selector("#play-cards", state="hidden")
    notes = [(n["player"], n["points"], n["say"]) for n in current(daemon)["play"]["say"]]
    assert notes == [(0, 2, "fifteen two"), (1, 1, "one for last"),
                     (0, 3, "twenty-four, a run of three for three"), (0, 1, "one for last")]
    assert page.locator("#count-send").text_content() == "Count Bob's hand on the Count tab"


def test_muggins_in_cards_mode_claims_what_the_count_missed(daemon: Any, ann: Phone) -> None:
    page = ann.page
    page.click("#count-send")
    # The Count screen has Bob's four played cards and the starter already: 4 points.
    page.wait_for_selector("#tab-count:not([hidden]) #count-panel:not([hidden])")
    page.wait_for_selector("#breakdown .total")
    assert page.locator("#chosen [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)") == ["KH", "QD", "4C", "AS", "2D"]
    assert page.locator("#breakdown .total").text_content() == "4"
    # Bob counts only 2 of them.
    page.fill("#count-claim", "2")
    page.click("#count-to-score")
    page.wait_for_selector("#tab-score:not([hidden]) #muggins-box:not([hidden])")
    wait_until(lambda: fronts(daemon) == [6, 3], 3, "Bob's 2 pegged")
    text = page.locator("#muggins-box").text_content() or ""
    assert "Bob's hand was counted 2 but makes 4: 2 missed" in text
    assert page.locator("#muggins-box input").input_value() == "2"
    page.click('#muggins-box button[data-side="0"]')
    wait_until(lambda: fronts(daemon) == [8, 3], 3, "Ann's muggins pegged")
    page.wait_for_selector("#muggins-box", state="hidden")
    page.wait_for_function("() => [...document.querySelectorAll('#sides .score')]"
                           ".map(s => s.textContent).join() === '8,3'")
    # Ann's hand: her four played cards again; the full count when nothing is typed.
    page.click("#count-send")
    page.wait_for_selector("#breakdown .total")
    assert page.locator("#breakdown .total").text_content() == "7"
    page.click("#count-to-score")
    wait_until(lambda: fronts(daemon) == [15, 3], 3, "Ann's 7 pegged")
    assert current(daemon)["next_count"]["label"] == "Ann's crib"
