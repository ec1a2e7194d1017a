"""The phone page as a player uses it, found in the review of issue 13 (headless Chromium at
360 px against `crib serve --simulate`): what the five-second toast hides must be in the toast,
an undo says what it took back, a partnership's result reads as English.

One daemon and one browser for the module; one phone, paired by the daemon's token.
"""

from __future__ import annotations

import re
from typing import Any

from tests.firmware_host.page_helpers import BROWSER, Phone, act, current, fresh, in_view, wait_text

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import ann as ann
from tests.firmware_host.page_helpers import ann_stays_on_the_pi as ann_stays_on_the_pi
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon

pytestmark = BROWSER


def covered_by_toast(page: Any, selector: str) -> bool:
    return bool(page.evaluate(
        """s => { const x = document.querySelector('#toast').getBoundingClientRect();
                  const y = document.querySelector(s).getBoundingClientRect();
                  return !document.querySelector('#toast').hidden && y.height > 0
                    && !(x.right <= y.left || y.right <= x.left
                         || x.bottom <= y.top || y.bottom <= x.top); }""", selector))


def test_the_winning_tap_says_the_result_in_its_toast(daemon: Any, ann: Phone) -> None:
    """The tap that ends the game says the result in its toast too (the toast leaves the
    result line in view).
    Partners win together: "Ann & Cy win", not "wins"."""
    fresh(daemon, ann, variant="four-player", names=["Ann", "Bob", "Cy", "Di"], dealer=0)
    for points in (12,) * 9 + (7,):
        act(daemon, {"type": "peg", "side": 0, "points": points})
    page = ann.page
    page.wait_for_function("() => window.cribState.game.sides[0].front === 115")
    page.click('#sides .side[data-side="1"] button[aria-label="Peg 2 for Bob & Di"]')
    page.click('#count-pad button[data-points="0"]')  # Bob's hand
    page.click('#count-pad button[data-points="6"]')  # Cy's hand: 121
    wait_text(page, "result", "^Ann & Cy win 121 to 2 — a double skunk")
    result = page.locator("#result").inner_text()
    assert not covered_by_toast(page, "#result")
    wait_text(page, "toast", "^" + re.escape("Cy's hand: 6. Ann & Cy win 121 to 2, a double skunk"))
    assert result.startswith("Ann & Cy win 121 to 2")


def test_a_count_toast_names_the_count_the_pad_moved_on_to(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    page = ann.page
    page.click('#count-pad button[data-points="8"]')
    wait_text(page, "count-label", "^Count for Ann's hand$")
    assert not covered_by_toast(page, "#count-label")
    wait_text(page, "toast", "^Bob's hand: 8\\. Next: Ann's hand")
    page.click('#count-pad button[data-points="4"]')
    wait_text(page, "toast", "^Ann's hand: 4\\. Next: Ann's crib")
    page.click('#count-pad button[data-points="2"]')  # the crib: the next hand's play begins
    wait_text(page, "toast", "^Ann's crib: 2\\. Hand 2: Bob deals\\.Undo$")


def test_undo_and_redo_say_what_moved_and_leave_no_stale_undo(daemon: Any, ann: Phone) -> None:
    """After Undo the toast of the tap taken back (with its own Undo) is gone."""
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    page = ann.page
    page.click('#sides .side[data-side="1"] button[aria-label="Peg 2 for Bob"]')
    wait_text(page, "toast", "^Bob pegs 2\\.Undo$")
    page.click("#undo-btn")
    wait_text(page, "toast", "^Undone: Bob pegs 2 \\(Bob 2 → 0\\)\\.$")
    assert page.locator("#toast button").count() == 0
    page.click("#redo-btn")
    wait_text(page, "toast", "^Redone: Bob pegs 2 \\(Bob 0 → 2\\)\\.$")
    assert [s["front"] for s in current(daemon)["sides"]] == [0, 2]


def test_toasts_are_sentences_and_the_late_peg_button_reads_as_a_control(
    daemon: Any, ann: Phone
) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, muggins=True)
    page = ann.page
    page.click("#heels-btn")
    wait_text(page, "toast", "^Two for his heels to Ann\\.Undo$")
    page.click('#count-pad button[data-points="8"]')  # Bob's hand
    page.locator("#muggins-box input").fill("4")
    page.click('#muggins-box button[data-side="0"]')
    wait_text(page, "toast",
              "^Muggins! Ann takes 4 missed in Bob's hand\\. Ann pegs 4 for muggins\\.Undo$")
    late = page.locator("#late-peg-btn")
    colour = late.evaluate("b => getComputedStyle(b).color")
    assert colour == page.locator(".side .name").first.evaluate("e => getComputedStyle(e).color")
    late.click()
    page.click('.side[data-side="1"] .pad button[aria-label="Late peg 1 for Bob"]')
    wait_text(page, "toast", "^Bob pegs 1 late, from the play\\.Undo$")


def test_a_jack_starter_in_cards_mode_says_his_heels_were_pegged(daemon: Any, ann: Phone) -> None:
    """The engine pegs his heels by itself when a jack is cut: the page says so, aloud too."""
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    page = ann.page
    page.evaluate("localStorage.setItem('crib.speak', '1'); window.cribState.spoken.length = 0")
    page.click('#play-picker button[data-card="JD"]')
    wait_text(page, "toast", "^The starter is the J♦\\. Two for his heels to Ann\\.Undo$")
    assert [s["front"] for s in current(daemon)["sides"]] == [2, 0]
    assert ann.state()["spoken"][-1] == "Starter, jack of diamonds. Two for his heels to Ann."
    page.evaluate("localStorage.setItem('crib.speak', '0')")
    page.click("#undo-btn")
    page.click('#play-picker button[data-card="5D"]')
    wait_text(page, "toast", "^The starter is the 5♦\\.Undo$")


def test_after_a_skunk_the_games_won_count_as_the_result_said(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    for _ in range(10):
        act(daemon, {"type": "peg", "side": 1, "points": 12})
    page = ann.page
    page.wait_for_function("() => window.cribState.game.sides[1].front === 120")
    page.click('.side[data-side="1"] .pad button[aria-label="Peg 1 for Bob"]')
    wait_text(page, "result", "^Bob wins 121 to 0 — a double skunk \\(4 games\\)$")
    page.click("#next-game")
    wait_text(page, "due", "^Hand 1: Ann deals")  # the loser deals first
    assert page.locator('.side[data-side="1"] .back').inner_text() == (
        "back peg 0 · games won 1, counting 4")
    assert page.locator('.side[data-side="0"] .back').inner_text() == "back peg 0 · games won 0"


def test_a_five_card_count_asks_for_the_card_never_laid_in_the_play(
    daemon: Any, ann: Phone
) -> None:
    """Five-card plays one round: Bob keeps 2♣. The Score screen says what is still to tap,
    and the last card tapped sends the count."""
    fresh(daemon, ann, variant="five-card", names=["Ann", "Bob"], dealer=0, mode="cards")
    for kind, player, card in [("starter", None, "4D"), ("play", 1, "9S"), ("play", 0, "KD"),
                               ("play", 1, "8H"), ("play", 0, "3S"), ("go", 1, None),
                               ("go", 0, None)]:
        act(daemon, {"type": kind, **({"player": player} if player is not None else {}),
                     **({"card": card} if card else {})})
    page = ann.page
    page.wait_for_function("() => window.cribState.game.legal.includes('count')")
    wait_text(page, "play-who", "^Bob's hand: tap the card not laid in the play\\.$")
    assert page.locator("#play-chosen").inner_text().strip() == "Bob's hand: 9♠ 8♥"
    # The starter and the cards Ann laid are out of the picker's way.
    for card in ("4D", "KD", "3S"):
        assert page.locator(f'#play-picker button[data-card="{card}"]').is_disabled(), card
    page.click('#play-picker button[data-card="2C"]')
    wait_text(page, "toast", "^Bob's hand: fifteen two\\. Next: Ann's hand")  # the engine's words
    wait_text(page, "play-who", "^Ann's hand: tap the card not laid in the play\\.$")
    assert page.locator("#play-chosen").inner_text().strip() == "Ann's hand: K♦ 3♠"


def test_the_five_card_pones_start_points_are_said(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, variant="five-card", names=["Ann", "Bob"], dealer=0)
    wait_text(ann.page, "due", "^Hand 1: Ann deals\\. Bob starts with 3\\. After the play: ")
    assert [s["front"] for s in current(daemon)["sides"]] == [0, 3]
    fresh(daemon, ann, variant="six-card", names=["Ann", "Bob"], dealer=0)
    wait_text(ann.page, "due", "^Hand 1: Ann deals\\. After the play: ")


def test_every_tab_label_fits_its_button_at_360_px(ann: Phone) -> None:
    spills = ann.page.evaluate("""[...document.querySelectorAll('.tabs button')]
        .filter(b => b.scrollWidth > b.clientWidth).map(b => b.textContent)""")
    assert spills == []


def test_the_new_game_form_refuses_a_short_target_and_a_name_given_twice_in_words(
    daemon: Any, ann: Phone
) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    page = ann.page
    page.once("dialog", lambda d: d.accept())
    page.click("#end-game")
    page.wait_for_selector("#new-game")
    before = current(daemon)["id"]
    page.fill("#name-fields input >> nth=0", "Ann")
    page.fill("#name-fields input >> nth=1", "ann")
    page.click("#new-game button[type=submit]")
    wait_text(page, "toast", "^Two players are called ann: give one of them another name\\.$")
    page.fill("#name-fields input >> nth=1", "Bob")
    page.select_option("#new-game [name=target]", "other")
    page.fill("#new-game [name=target_other]", "5")
    page.click("#new-game button[type=submit]")
    wait_text(page, "toast", "^The points to win must be 31 or more\\.$")
    assert current(daemon)["id"] == before  # neither started a game
    assert page.locator("#new-game").is_visible()


def test_with_muggins_on_the_box_opens_under_the_pad_and_the_pad_stays_in_view(
    daemon: Any, ann: Phone
) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, muggins=True)
    page = ann.page
    page.evaluate("window.scrollTo(0, 0)")
    page.click('#count-pad button[data-points="8"]')  # Bob's hand
    page.locator("#muggins-box").wait_for(state="visible")
    page.wait_for_timeout(400)  # a scroll to the box would be done by now
    assert in_view(page, "#muggins-box")
    assert in_view(page, '#count-pad button[data-points="29"]')  # Ann's hand: one tap, no scroll
    assert in_view(page, '#count-pad button[data-points="0"]')
