"""The phone page at a four-handed table, as whole evenings at 360 x 740 found it: the spoken
count, the toast, the fold, the pad, the live link when the network goes, the last card of a
series, the jam's words, muggins, a three-handed skunk, pairing, the Count tab, target sizes
and a quiet load (one test for each, in real headless Chromium against `crib serve --simulate`).

One daemon and one browser for the module; Ann's phone is paired by the daemon's token.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.firmware_host.page_helpers import (
    BROWSER,
    Phone,
    act,
    current,
    fresh,
    in_view,
    wait_state,
    wait_text,
    wait_until,
)

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import ann as ann
from tests.firmware_host.page_helpers import ann_stays_on_the_pi as ann_stays_on_the_pi
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon

pytestmark = BROWSER

# speechSynthesis replaced by a recorder: every utterance the page speaks, in order.
SPEECH_STUB = """
window.__said = [];
Object.defineProperty(window, 'speechSynthesis', { configurable: true, value: {
  speak: (u) => window.__said.push(u.text), cancel: () => {}, pause: () => {}, resume: () => {},
  getVoices: () => [], speaking: false, pending: false } });
"""


def speaking_phone(browser: Any, daemon: Any) -> Phone:
    """A paired phone with "speak every count" on and speech recorded."""
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(
        f"localStorage.setItem('crib.token', {daemon.token!r});"
        "localStorage.setItem('crib.phone', 'cy-phone'); localStorage.setItem('crib.speak', '1');")
    phone.page.add_init_script(SPEECH_STUB)
    return phone.open()


def said(phone: Phone) -> list[str]:
    return list(phone.page.evaluate("window.__said"))


def spoken(phone: Phone, start: str) -> str:
    """The first thing said that starts with `start`, once it is said (a step is spoken when
    the stream brings it, a moment after the tap's answer)."""
    phone.page.wait_for_function("(start) => window.__said.some((s) => s.startsWith(start))",
                                 arg=start)
    return next(s for s in said(phone) if s.startswith(start))


def overlaps(page: Any, a: str, b: str) -> bool:
    return bool(page.evaluate(
        """([a, b]) => { const x = document.querySelector(a).getBoundingClientRect();
                          const y = document.querySelector(b).getBoundingClientRect();
                          return x.height > 0 && y.height > 0 && !(x.right <= y.left
                            || y.right <= x.left || x.bottom <= y.top || y.bottom <= x.top); }""",
        [a, b]))


def tap_and_wait(phone: Phone, selector: str) -> None:
    before = phone.state()["game"]["version"]
    phone.page.click(selector)
    phone.page.wait_for_function(f"() => window.cribState.game.version > {before}")


# 14 (first: the daemon has no game yet) -------------------------------------------------------
def test_14_a_load_with_no_game_logs_no_404(browser: Any, daemon: Any) -> None:
    assert daemon.client.req("GET", "/api/games/current", auth=False).status_code == 404
    phone = Phone(browser, daemon.client.base)
    bad: list[str] = []
    phone.page.on("console", lambda m: bad.append(m.text) if m.type == "error" else None)
    phone.page.on("response", lambda r: bad.append(f"{r.status} {r.url}") if r.status >= 400
                  else None)
    try:
        phone.open()
        phone.page.wait_for_selector("#no-game:not([hidden])")
        phone.page.wait_for_function(
            "() => document.querySelectorAll('#variant option').length > 1")
        phone.page.wait_for_timeout(1500)
        assert bad == []
    finally:
        phone.close()


def test_14_the_paired_toast_covers_no_cut_for_deal(browser: Any, daemon: Any, ann: Phone) -> None:
    daemon.client.new_game(names=["Ann", "Bob"])  # no dealer: the cut is due
    phone = Phone(browser, daemon.client.base).open()
    try:
        page = phone.page
        wait_text(page, "due", "^Cut for deal")
        phone.tab("settings")
        page.fill("#token-input", daemon.token)
        page.click("#token-use")
        wait_text(page, "toast", "^Paired with the token")
        phone.tab("score")
        page.wait_for_selector("#cut-now:not([hidden])")
        assert page.locator("#toast").is_visible()
        assert not overlaps(page, "#toast", "#cut-now")
        assert not overlaps(page, "#toast", "#due")
    finally:
        phone.close()


# 1, 2: what is spoken --------------------------------------------------------------------------
def test_1_the_spoken_count_at_31_and_at_the_last_card_is_the_count_reached(
    browser: Any, daemon: Any, ann: Phone
) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    act(daemon, {"type": "starter", "card": "2D"})
    cy = speaking_phone(browser, daemon)
    try:
        for card in ("KH", "5S", "QD", "6C"):  # Bob, Ann, Bob, Ann: thirty-one
            tap_and_wait(cy, f'#play-picker button[data-card="{card}"]')
        thirty_one = spoken(cy, "six of clubs")
        assert thirty_one.startswith("six of clubs, 31. Ann pegs 2"), said(cy)
        # The next series, to the last card: 9 + 8 + 7 (a run for Bob) + 4 = 28, one for last.
        for card in ("9C", "8D", "7S", "4H"):
            tap_and_wait(cy, f'#play-picker button[data-card="{card}"]')
        # (the hands, known from the play, are counted after it and said after it)
        last = spoken(cy, "four of hearts")
        assert last.startswith("four of hearts, 28. Ann pegs 1: "), said(cy)
        assert "for last" in last
        assert not any(", 0." in s or s.endswith(", 0") for s in said(cy)), said(cy)
    finally:
        cy.close()


def test_2_each_count_is_spoken_once(browser: Any, daemon: Any, ann: Phone) -> None:
    """Cards mode, the counts on the Score screen: a hand the play laid whole is one tap on a
    phone that did not end the play (and none after it), the crib is its four cards; each count
    is said once."""
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    for kind, player, card in [("starter", None, "2D"), ("play", 1, "KH"), ("play", 0, "5S"),
                               ("play", 1, "QD"), ("play", 0, "6C"), ("play", 1, "9C"),
                               ("play", 0, "8D"), ("play", 1, "7S"), ("play", 0, "4H")]:
        act(daemon, {"type": kind, "card": card, **({"player": player} if player is not None
                                                    else {})})
    cy = speaking_phone(browser, daemon)
    try:
        page = cy.page
        page.wait_for_function("() => window.cribState.game.play.done")
        start = len(said(cy))
        wait_text(page, "play-who", "^Bob's hand: every card is known")
        page.click("#go-btn")  # "Count Bob's hand": then Ann's hand, known too, by itself
        wait_text(page, "play-who", "^Ann's crib: tap the 4 cards")
        for card in ("JH", "QS", "3S"):
            page.click(f'#play-picker button[data-card="{card}"]')
        assert current(daemon)["next_count"]["label"] == "Ann's crib"
        page.click('#play-picker button[data-card="2C"]')  # the last card sends the count
        wait_until(lambda: current(daemon)["hand_number"] == 2, 5, "the crib counted")
        page.wait_for_timeout(300)
        words = said(cy)[start:]
        for label in ("Bob's hand: ", "Ann's hand: ", "Ann's crib: "):
            assert len([w for w in words if w.startswith(label)]) == 1, (label, words)
    finally:
        cy.close()


# 3: the toast ---------------------------------------------------------------------------------
def test_3_the_toast_leaves_the_hand_line_and_the_starter_in_view(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    page = ann.page
    page.evaluate("window.scrollTo(0, 0)")
    tap_and_wait(ann, '#play-picker button[data-card="2D"]')
    tap_and_wait(ann, '#play-picker button[data-card="KH"]')
    page.locator("#toast").wait_for(state="visible")
    wait_text(page, "due", "^Hand 1: Ann deals\\.")
    for line in ("#due", "#starter"):
        assert page.locator(line).is_visible()
        assert not overlaps(page, "#toast", line), f"the toast covers {line}"


# 4, 5: the fold and the pad -------------------------------------------------------------------
@pytest.mark.parametrize("variant,names", [
    ("six-card", ["Ann", "Bob"]),
    ("three-player", ["Ann", "Bob", "Cy"]),
    ("four-player", ["Ann", "Bob", "Cy", "Di"]),
])
def test_4_the_first_count_and_every_peg_are_above_the_fold(
    daemon: Any, ann: Phone, variant: str, names: list[str]
) -> None:
    fresh(daemon, ann, variant=variant, names=names, dealer=0)
    page = ann.page
    page.evaluate("window.scrollTo(0, 0)")
    for button in page.locator("#count-pad button").all():
        points = button.get_attribute("data-points")
        assert in_view(page, f'#count-pad button[data-points="{points}"]'), points
    for side in range(len(current(daemon)["sides"])):
        for p in (1, 2, 3, 4, 5, 6):
            assert in_view(page, f'.side[data-side="{side}"] .pad button:nth-child({p})'), (side, p)


def test_5_the_pegging_pad_has_plus_five(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    tap_and_wait(ann, '.side[data-side="1"] .pad button[aria-label="Peg 5 for Bob"]')
    assert [s["front"] for s in current(daemon)["sides"]] == [0, 5]
    wait_text(ann.page, "toast", "^Bob pegs 5\\.")


# 6: the live link -----------------------------------------------------------------------------
def test_6_a_dead_network_is_noticed_and_a_tap_made_offline_is_sent_once_when_back(
    browser: Any, daemon: Any, ann: Phone
) -> None:
    game = fresh(daemon, ann, names=["Ann", "Bob"], dealer=0)
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(f"localStorage.setItem('crib.token', {daemon.token!r});")
    phone.open()
    try:
        page = phone.page
        page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id === "
                               f"{game['id']}")
        wait_text(page, "link", "^live")
        went = time.monotonic()
        phone.context.set_offline(True)
        wait_text(page, "link", "^offline", timeout=8000)
        noticed = time.monotonic() - went
        print(f"\nthe page noticed the dead network after {noticed:.2f} s")
        assert noticed <= 5.0, noticed
        version = current(daemon)["version"]
        page.click('.side[data-side="1"] .pad button[aria-label="Peg 2 for Bob"]')
        wait_text(page, "outbox", "\\+2 for Bob")
        page.wait_for_timeout(1500)
        assert current(daemon)["version"] == version  # kept, not sent into the void
        phone.context.set_offline(False)
        wait_until(lambda: current(daemon)["version"] > version, 10, "the kept tap sent")
        page.wait_for_selector("#outbox", state="hidden")
        wait_text(page, "link", "^live")
        page.wait_for_timeout(1500)
        after = current(daemon)
        assert after["version"] == version + 1  # applied exactly once
        assert [s["front"] for s in after["sides"]] == [0, 2]
        assert phone.errors == []
    finally:
        phone.context.set_offline(False)
        phone.close()


def test_6_a_silent_network_with_the_stream_still_open_is_noticed_within_5_s(
    browser: Any, daemon: Any
) -> None:
    """A Wi-Fi drop: nothing answers and nothing fails, the WebSocket still looks open (TCP
    notices minutes later). The heartbeat's answer never comes: offline within 5 s."""
    phone = Phone(browser, daemon.client.base).open()
    hung: list[Any] = []
    try:
        page = phone.page
        wait_text(page, "link", "^live")
        page.route("**/api/health", lambda route: hung.append(route))  # never answered
        went = time.monotonic()
        wait_text(page, "link", "^offline", timeout=8000)
        noticed = time.monotonic() - went
        print(f"\nthe page noticed the silent network after {noticed:.2f} s")
        assert noticed <= 5.0, noticed
        page.unroute("**/api/health")
        wait_text(page, "link", "^live", timeout=10000)  # and back by itself
    finally:
        for route in hung:
            try:
                route.abort()
            except Exception:  # noqa: BLE001 - the page may have given up on it already
                pass
        phone.close()


# 7: the last card of a series -----------------------------------------------------------------
def test_7_the_player_who_laid_the_last_card_is_not_asked_to_say_go(
    daemon: Any, ann: Phone
) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    page = ann.page
    for kind, player, card in [("starter", None, "2D"), ("play", 1, "KH"), ("play", 0, "5S"),
                               ("play", 1, "QD"), ("go", 0, None), ("play", 1, "4C")]:
        act(daemon, {"type": kind, **({"card": card} if card else {}),
                     **({"player": player} if player is not None else {})})
    page.wait_for_function("() => window.cribState.game.play.count === 29")
    before = [s["front"] for s in current(daemon)["sides"]]
    # Bob laid the last card and Ann is out of the series: a card too big for 29 is Ann's
    # lead of the next series, and one tap takes Bob's one for last with it.
    assert page.locator("#go-btn").text_content() == "One for last"
    page.click('#play-picker button[data-card="9C"]')
    wait_until(lambda: current(daemon)["play"]["cards"] == ["9C"], 5, "Ann's lead")
    game = current(daemon)
    assert [s["front"] for s in game["sides"]] == [before[0], before[1] + 1]
    assert game["play"]["played"][-1] == {"player": 0, "card": "9C"}
    wait_text(page, "toast", "for last")
    assert "says go" not in ann.toast()


# 8: the jam's words ---------------------------------------------------------------------------
def test_8_the_jam_text_goes_once_the_shuffle_goes_on(daemon: Any, ann: Phone) -> None:
    page = ann.page
    ann.tab("shuffle")
    page.click("#shuffle-start")
    status = page.locator("#shuffle-status")
    for _ in range(5):
        wait_state(page, "shuffle-status", "waiting", "fault")
        if status.get_attribute("data-state") == "fault":
            break
        page.click("#shuffle-continue")
        page.wait_for_timeout(100)
    jam = status.text_content() or ""
    assert "jammed" in jam, jam
    page.click("#shuffle-continue")
    texts = wait_until(lambda: page.evaluate(
        """() => { const s = document.getElementById('shuffle-status');
                   return s.dataset.state !== 'fault' ? s.dataset.state + ': ' + s.textContent
                     : ''; }"""), 5, "the shuffle going on")
    assert "jammed" not in texts and "stuck" not in texts, texts
    daemon.client.req("POST", "/api/shuffler/abort", {})
    ann.tab("score")


# 9, 10: words about scores --------------------------------------------------------------------
def test_9_muggins_words_agree_with_the_toast_on_a_nineteen(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, muggins=True)
    page = ann.page
    page.click("#count-19")
    wait_text(page, "toast", "^Bob's hand: 19 \\(nothing\\)")
    page.wait_for_selector("#muggins-box:not([hidden])")
    text = page.locator("#muggins-box .muggins-text").text_content() or ""
    assert "counted 19 (nothing)" in text and "counted 0" not in text, text


def test_10_a_three_handed_skunk_says_who_is_under_the_line(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, variant="three-player", names=["Ann", "Bob", "Cy"], dealer=0)
    for side, total in ((0, 86), (2, 96), (1, 120)):
        for chunk in [12] * (total // 12) + ([total % 12] if total % 12 else []):
            act(daemon, {"type": "peg", "side": side, "points": chunk})
    page = ann.page
    page.wait_for_function("() => window.cribState.game.sides[1].front === 120")
    page.click('.side[data-side="1"] .pad button[aria-label="Peg 1 for Bob"]')
    wait_text(page, "result", "^Bob wins 121 to 86 and 96 — Ann is skunked \\(2 games\\)$")


# 11: pairing ----------------------------------------------------------------------------------
def test_11_the_pairing_name_field_is_not_pre_filled(browser: Any, daemon: Any) -> None:
    phone = Phone(browser, daemon.client.base).open()
    try:
        phone.page.click("#pair-open")
        phone.page.wait_for_selector("#pair-dialog[open]")
        assert phone.page.input_value("#pair-form [name=name]") == ""
        phone.page.fill("#pair-form [name=name]", "ann4159")
        assert phone.page.input_value("#pair-form [name=name]") == "ann4159"
    finally:
        phone.close()


# 12: the Count tab ----------------------------------------------------------------------------
def test_12_the_count_tab_is_a_free_count_unless_opened_for_the_count_due(
    daemon: Any, ann: Phone
) -> None:
    # With muggins the player's own count is typed on the Count tab.
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards", muggins=True)
    for kind, player, card in [("starter", None, "2D"), ("play", 1, "KH"), ("play", 0, "5S"),
                               ("play", 1, "QD"), ("play", 0, "6C"), ("play", 1, "9C"),
                               ("play", 0, "8D"), ("play", 1, "7S"), ("play", 0, "4H")]:
        act(daemon, {"type": kind, "card": card, **({"player": player} if player is not None
                                                    else {})})
    page = ann.page
    page.wait_for_function("() => window.cribState.game.play.done")
    ann.tab("count")
    page.click("#count-clear")
    # Free: any card, the game in progress or not.
    for card in ("KH", "5S", "QD", "6C"):
        assert page.locator(f'#count-picker button[data-card="{card}"]').is_enabled(), card
    for card in ("5H", "5S", "JD", "10C", "5D"):
        page.click(f'#count-picker button[data-card="{card}"]')
    page.wait_for_selector("#breakdown .total")
    assert page.locator("#count-to-score").is_hidden()  # a free count is sent to no one
    page.click("#count-clear")
    ann.tab("score")
    page.click("#count-send")  # Bob's hand, opened for the count due: Ann's cards are away
    page.wait_for_selector("#tab-count:not([hidden])")
    assert page.locator('#count-picker button[data-card="5S"]').is_disabled()
    wait_text(page, "count-greyed", "^Greyed: cards laid in the play from another hand\\.$")
    page.click("#count-clear")
    ann.tab("score")


# 13: target sizes -----------------------------------------------------------------------------
def test_13_checkboxes_and_breakdown_rows_are_44_px(daemon: Any, ann: Phone) -> None:
    fresh(daemon, ann, names=["Ann", "Bob"], dealer=0, mode="cards")
    page = ann.page

    def size(selector: str) -> tuple[float, float]:
        box = page.locator(selector).first.bounding_box()
        assert box, selector
        return box["width"], box["height"]

    ann.tab("settings")
    assert min(size("#speak-all")) >= 44
    ann.tab("count")
    assert min(size("#count-crib")) >= 44
    page.click("#count-clear")
    for card in ("5H", "5S", "JD", "10C", "5D"):
        page.click(f'#count-picker button[data-card="{card}"]')
    page.wait_for_selector("#breakdown li")
    for i in range(page.locator("#breakdown li").count()):
        assert size(f"#breakdown li >> nth={i}")[1] >= 44
    page.click("#count-clear")
    page.once("dialog", lambda d: d.accept())
    ann.tab("score")
    page.click("#end-game")
    page.wait_for_selector("#new-game")
    assert min(size("#new-game [name=muggins]")) >= 44


@pytest.fixture(autouse=True)
def shuffler_idle(daemon: Any) -> Iterator[None]:
    yield
    if daemon.client.req("GET", "/api/shuffler", auth=False).json()["state"] != "idle":
        daemon.client.req("POST", "/api/shuffler/abort", {})
