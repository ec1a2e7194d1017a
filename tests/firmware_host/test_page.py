"""The phone page in real headless Chromium against `crib serve --simulate` on 127.0.0.1.

One daemon (a subprocess, so it can be killed and restarted) and one browser for the
module; the tests run in file order and share the phones paired in the first ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.firmware_host.page_helpers import (
    BROWSER,
    SCREENSHOTS,
    Phone,
    current,
    wait_state,
    wait_text,
    wait_until,
)

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon

pytestmark = BROWSER


PHONES: dict[str, Phone] = {}


@pytest.fixture(scope="module")
def phones(browser: Any, daemon: Any) -> Iterator[dict[str, Phone]]:
    PHONES.clear()
    yield PHONES
    for phone in PHONES.values():
        phone.close()


@pytest.fixture(autouse=True)
def stays_on_the_pi(phones: dict[str, Phone]) -> Iterator[None]:
    """Every request of every phone goes to the daemon; no page error is thrown; axe-core
    found nothing on any screen a phone opened."""
    yield
    for name, phone in phones.items():
        assert phone.off_origin() == [], f"{name} requested {phone.off_origin()}"
        assert phone.errors == [], f"{name} page errors: {phone.errors}"
        found, phone.violations[:] = list(phone.violations), []
        assert found == [], f"{name}: {found}"


def next_code(daemon: Any) -> Callable[[], str | None]:
    """A reader of the next code the board lights, as a person at the table reads it.

    In simulation the daemon's log prints the code; the network never carries it.
    """
    pattern = re.compile(r"pairing code (\d{4,12}) is on the board")
    before = len(pattern.findall(daemon.log.read_text()))

    def read() -> str | None:
        found = pattern.findall(daemon.log.read_text())
        return found[-1] if len(found) > before else None

    return read


def board_tracks(daemon: Any) -> list[dict[str, int]]:
    return list(daemon.client.req("GET", "/api/board", auth=False).json()["tracks"])


def shot(phone: Phone, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.page.evaluate("document.getElementById('toast').hidden = true; window.scrollTo(0, 0)")
    phone.page.wait_for_timeout(700)  # let the pegs finish moving
    phone.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def version_of(phone: Phone) -> int:
    game = phone.state()["game"]
    return -1 if game is None else int(game["version"])


def tap_and_check(phone: Phone, daemon: Any, tap: Any, follower: Phone | None = None) -> None:
    """Tap, wait for the answer, then the board's read-back and the follower must agree."""
    before = version_of(phone)
    tap()
    phone.page.wait_for_function(f"() => window.cribState.game.version > {before}")
    shown = phone.shown_sides()
    assert shown == [{"front": s["front"], "back": s["back"]} for s in current(daemon)["sides"]]
    wait_until(lambda: board_tracks(daemon)[: len(shown)] == shown, 5, f"board LEDs at {shown}")
    wait_until(lambda: phone.drawn_pegs() == shown, 3, f"drawn pegs at {shown}")
    if follower is not None:
        wait_until(lambda: follower.shown_sides() == shown, 2.5, f"follower at {shown}")


# -- pairing and spectators ------------------------------------------------------------------
def test_spectator_is_read_only_then_pairs_with_the_code_on_the_board(
    browser: Any, daemon: Any, phones: dict[str, Phone]
) -> None:
    ann = phones["ann"] = Phone(browser, daemon.client.base).open()
    page = ann.page
    assert page.locator("#link").text_content() == "live · watching"
    assert page.locator("#watching").is_visible()
    assert not page.locator("#new-game").is_visible()  # spectators cannot start a game
    assert page.locator(".write:visible").count() == 0

    page.click("#pair-open")
    # Two ways, and no code is asked for until one is chosen.
    assert page.locator("#pair-type").is_visible() and page.locator("#pair-hold").is_visible()
    assert not page.locator("#pair-form [name=code]").is_visible()
    page.fill("#pair-form [name=name]", "ann-phone")
    shot(ann, "pairing-ways")
    # Holding undo: the page shows its own code, big, with the daemon's hold time.
    page.click("#pair-hold")
    wait_text(page, "pair-code", "^\\d{3} \\d{3}$")
    wait_text(page, "pair-compare-say", "undo button for 3 seconds")
    shot(ann, "pairing")
    # Or typing the code the board lights (tests/firmware_host/test_page_pairing.py holds undo).
    page.click("#pair-back")
    read_code = next_code(daemon)
    page.click("#pair-type")
    code = wait_until(read_code, 5, "a code on the board")
    wait_text(page, "pair-typed-say", "six-digit code")
    wrong = f"{(int(code) + 1) % 10 ** len(code):0{len(code)}d}"
    page.fill("#pair-form [name=code]", wrong)
    page.press("#pair-form [name=code]", "Enter")  # the phone keyboard's Go key submits
    wait_text(page, "pair-error", "^Wrong code \\(2 tries left\\)\\.$")
    page.fill("#pair-form [name=code]", code)
    page.click("#pair-submit")
    page.wait_for_function("() => !!window.cribState.token")
    assert not page.locator("#pair-dialog").is_visible()
    assert page.locator("#new-game").is_visible()
    assert page.locator("#link").text_content() == "live"
    wait_until(lambda: not daemon.client.req("GET", "/api/board", auth=False).json()["pairing"],
               3, "the code to go off the board")
    token = ann.state()["token"]
    assert daemon.client.req("GET", "/api/settings",
                             headers={"Authorization": f"Bearer {token}"}).status_code == 200


# -- a whole game --------------------------------------------------------------------------------
COUNTS = [12, 8, 19, 16, 24, 6, 10, 14, 20, 7, 29, 4]


def test_whole_keeper_game_to_121_through_the_page(
    browser: Any, daemon: Any, phones: dict[str, Phone]
) -> None:
    ann = phones["ann"]
    page = ann.page
    # A spectator follows along live.
    bob = phones["bob"] = Phone(browser, daemon.client.base).open()
    page.select_option("#dealer-select", "0")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#game:not([hidden])")
    game = current(daemon)
    assert game["names"] == ["Ann", "Bob"] and game["dealer"] == 0
    assert page.locator('.side[data-side="0"] .tags').text_content() == "deals · crib"
    due = page.locator("#due").text_content() or ""
    assert "Bob's hand, then Ann's hand, then Ann's crib" in due
    bob.page.wait_for_selector("#game:not([hidden])")
    assert bob.page.locator(".pad:visible").count() == 0  # read-only until paired

    def pad(side: int, points: int) -> Any:
        name = ["Ann", "Bob"][side]
        return lambda: page.click(
            f'.side[data-side="{side}"] .pad button[aria-label="Peg {points} for {name}"]')

    # His heels, a peg by number, and the five-second undo from the toast.
    tap_and_check(ann, daemon, lambda: page.click("#heels-btn"), bob)
    assert current(daemon)["sides"][0]["front"] == 2

    def number(side: int, n: int) -> Any:
        def tap() -> None:
            if page.locator(f'.side[data-side="{side}"] .pad input').count() == 0:
                page.click(f'.side[data-side="{side}"] button.more')  # a number is behind More
            page.fill(f'.side[data-side="{side}"] .pad input', str(n))
            page.click(f'.side[data-side="{side}"] .pad button[aria-label^="Peg the number"]')
        return tap

    tap_and_check(ann, daemon, number(1, 5), bob)
    tap_and_check(ann, daemon, pad(1, 4), bob)
    assert current(daemon)["sides"][1]["front"] == 9
    tap_and_check(ann, daemon, lambda: page.click("#toast button"), bob)  # Undo
    assert current(daemon)["sides"][1] == {**current(daemon)["sides"][1], "front": 5, "back": 0}

    # An impossible count is refused with a reason and changes nothing.
    v = version_of(ann)
    page.click("#count-input")  # let the count field take focus like a thumb would
    page.fill("#count-input", "27")
    page.click("#count-send")
    page.wait_for_function("() => /27/.test(document.getElementById('toast').textContent)")
    assert version_of(ann) == v and current(daemon)["version"] == v
    shot(ann, "score")

    turn = 0
    steps = 0
    while current(daemon)["result"] is None:
        game = current(daemon)
        steps += 1
        assert steps < 200, game
        if game["phase"] == "play":
            dealer = game["dealer"]
            for side, pts in ((1 - dealer, 2), (dealer, 1), (1 - dealer, 3)):
                if current(daemon)["result"] is None:
                    tap_and_check(ann, daemon, pad(side, pts), bob)
        if current(daemon)["result"] is not None:
            break
        points = COUNTS[turn % len(COUNTS)]
        turn += 1
        if points == 19:
            tap_and_check(ann, daemon, lambda: page.click("#count-19"), bob)
        else:
            def count(points: int = points) -> None:
                page.fill("#count-input", str(points))
                page.click("#count-send")
            tap_and_check(ann, daemon, count, bob)
        if turn == 3:
            # The Undo button takes back the last count; it is counted again.
            tap_and_check(ann, daemon, lambda: page.click("#undo-btn"), bob)
            tap_and_check(ann, daemon, lambda: page.click("#count-19"), bob)

    game = current(daemon)
    winner = game["result"]["winner"]
    assert game["sides"][winner]["front"] == 121
    result = page.locator("#result")
    result.wait_for(state="visible")
    assert f"{game['names'][winner]} wins" in (result.text_content() or "")
    bob.page.locator("#result").wait_for(state="visible")
    assert board_tracks(daemon)[winner]["front"] == 121
    ann.tab("board")
    wait_text(page, "board-note", "LEDs show the same")
    shot(ann, "board")
    ann.tab("score")


def test_count_a_hand_with_the_picker_and_send_it_to_the_score(
    daemon: Any, phones: dict[str, Phone]
) -> None:
    ann = phones["ann"]
    page = ann.page
    page.click("#end-game")
    page.click("#new-game button[type=submit]")
    page.wait_for_function("() => window.cribState.game && window.cribState.game.version === 0"
                           " && !window.cribState.game.result")
    game = current(daemon)
    due = game["next_count"]
    ann.tab("count")
    for card in ("5H", "5S", "JD", "10C"):
        page.click(f'#count-picker button[data-card="{card}"]')
    page.click('#count-picker button[data-card="5D"]')  # the starter
    page.wait_for_selector("#breakdown .total")
    assert page.locator("#breakdown .total").text_content() == "21"
    say = page.locator("#breakdown .say").text_content() or ""
    assert say.startswith("fifteen two") and say.endswith("makes twenty-one")
    assert page.locator("#breakdown li").count() == 11
    # Tapping a combination highlights its cards.
    page.click('#breakdown li[data-kind="nobs"]')
    assert page.locator("#chosen .hi").evaluate_all("els => els.map(e => e.dataset.card)") == ["JD"]
    page.click('#breakdown li[data-kind="pair"] >> nth=0')
    assert sorted(page.locator("#chosen .hi").evaluate_all(
        "els => els.map(e => e.dataset.card)")) == ["5H", "5S"]
    shot(ann, "count")
    send = page.locator("#count-to-score")
    assert send.text_content() == f"Send 21 to {due['label']}"
    send.click()
    page.wait_for_selector("#tab-score:not([hidden])")
    wait_until(lambda: current(daemon)["sides"][due["side"]]["front"] == 21, 3, "21 counted")
    assert current(daemon)["version"] == 1
    wait_until(lambda: board_tracks(daemon)[due["side"]]["front"] == 21, 3, "21 on the board")


# -- the shuffler --------------------------------------------------------------------------------
def test_shuffle_follows_the_prompts_through_an_injected_jam(
    daemon: Any, phones: dict[str, Phone]
) -> None:
    ann = phones["ann"]
    page = ann.page
    ann.tab("shuffle")
    # A line each: the plan, how well it mixes, how long it takes.
    wait_text(page, "plan-quality", "^Plan9 passes of 52 cardsQualityrandom · distance 0\\.085 "
              "\\(0 is perfect\\)Timeabout [0-9]")
    page.select_option("#shuffle-form [name=plan]", "light")
    assert "NOT random" in (page.locator("#plan-quality").text_content() or "")
    page.select_option("#shuffle-form [name=plan]", "random")
    page.click("#shuffle-start")
    wait_state(page, "shuffle-status", "busy", "waiting", "fault")
    status = page.locator("#shuffle-status")
    # The progress drawn: a segment a pass, and the passes, cards and time left in words.
    assert page.locator("#shuffle-status .progress.passes > span").count() == 9
    wait_text(page, "shuffle-status", "Passes [0-9] of 9 done( · cards [0-9]+ of 52)? · about "
              "[0-9].* left")
    seen_jam = False
    prompts: list[str] = []
    for _ in range(30):
        wait_state(page, "shuffle-status", "waiting", "fault", "idle")
        state = status.get_attribute("data-state")
        text = status.text_content() or ""
        if state == "idle":
            break
        if state == "fault":
            assert "the feed is jammed" in text and "slide it back under the cards" in text, text
            assert page.locator("#shuffle-continue").text_content() == "Done, go on"
            if not seen_jam:
                shot(ann, "shuffle-jam")
            seen_jam = True
        else:
            m = re.search(r"Pass (\d+) of 9 done: put the LEFT pile on top of the RIGHT pile", text)
            assert m, text
            prompts.append(m.group(1))
            if m.group(1) == "3":
                shot(ann, "shuffle")
        page.click("#shuffle-continue")
        page.wait_for_function(
            f"() => document.getElementById('shuffle-status').textContent !== {text!r}")
    else:
        raise AssertionError("the shuffle did not finish")
    assert seen_jam
    assert prompts == [str(i) for i in range(1, 9)]
    assert "Shuffle done (9 passes)" in (status.text_content() or "")
    shuffler = daemon.client.req("GET", "/api/shuffler", auth=False).json()
    assert shuffler["state"] == "idle" and shuffler["passes_done"] == 9
    ann.tab("score")


# -- history, statistics, settings ------------------------------------------------------------
def test_history_statistics_race_and_settings(daemon: Any, phones: dict[str, Phone]) -> None:
    ann, bob = phones["ann"], phones["bob"]
    page = ann.page
    ann.tab("history")
    page.wait_for_selector("#history-list button[data-game]")
    finished = daemon.client.req("GET", "/api/history", auth=False).json()["games"][0]
    label = page.locator("#history-list button").first.text_content() or ""
    assert label.startswith(f"Score race of game {finished['game_id']}: ")
    scores = finished["result"]["scores"]
    assert f"Ann {scores[0]}" in label and f"Bob {scores[1]}" in label
    assert page.locator('#stats tr[data-player="Ann"]').count() == 1
    assert page.locator('#stats tr[data-player="Bob"] td').nth(1).text_content() == "1"
    page.click("#history-list button[data-game]")
    wait_text(page, "race-title", f"game {finished['game_id']}")
    lines = page.locator("#race polyline")
    assert lines.count() == 2
    race = daemon.client.req("GET", f"/api/games/{finished['game_id']}/race", auth=False).json()
    points = (lines.nth(0).get_attribute("points") or "").split()
    # The chart is the game as it stands: each undo takes its tap off, and is not drawn itself.
    undos = sum(1 for p in race["race"] if p["type"] == "undo")
    assert undos == 2 and not any(p["type"] == "redo" for p in race["race"])
    assert len(points) == len(race["race"]) - 2 * undos
    shot(ann, "history")

    ann.tab("settings")
    page.wait_for_selector('#devices li[data-device="board"][data-state="idle"]')
    page.locator("#settings-form [name=brightness]").fill("200")
    page.select_option("#settings-form [name=palette]", "colorblind")
    page.click("#settings-form button[type=submit]")
    wait_until(lambda: {**daemon.client.req("GET", "/api/settings", auth=False).json(),
                        "speaker": ""} == {"brightness": 200, "palette": "colorblind",
                                           "speaker": ""}, 3, "settings saved")
    # Both phones switch to the colour-blind-safe colours with the board.
    page.wait_for_function("() => document.body.classList.contains('colorblind')")
    bob.page.wait_for_function("() => document.body.classList.contains('colorblind')")
    shot(ann, "settings")
    page.select_option("#settings-form [name=palette]", "classic")
    page.click("#settings-form button[type=submit]")
    bob.page.wait_for_function("() => !document.body.classList.contains('colorblind')")
    ann.tab("score")


# -- two phones ---------------------------------------------------------------------------------
def test_a_conflicting_tap_is_not_applied_and_the_player_is_told(
    browser: Any, daemon: Any, phones: dict[str, Phone]
) -> None:
    cy = phones["cy"] = Phone(browser, daemon.client.base)
    frozen = {"on": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda m: None if frozen["on"] else ws.send(m))
        ws.on_message(lambda m: server.send(m))

    cy.page.route_web_socket(re.compile(r".*/api/events$"), route)
    cy.open()
    cy.pair(next_code(daemon), "cy-phone")
    game = daemon.client.new_game(names=["Ann", "Bob"], dealer=1)  # a fresh hand: pegging is on
    cy.page.wait_for_selector(".pad:visible")
    cy.page.wait_for_function(f"() => window.cribState.game.id === {game['id']}"
                              f" && window.cribState.game.version === {game['version']}")
    frozen["on"] = True
    # Someone else pegs first; this phone has not heard of it yet.
    r = daemon.client.act(game, {"type": "peg", "side": 1, "points": 3})
    assert r.status_code == 200
    moved = r.json()["game"]
    assert version_of(cy) == game["version"]
    cy.page.click('.side[data-side="0"] .pad button[aria-label="Peg 2 for Ann"]')
    # Said in the page, under the header (the live line stays in sight), and kept there.
    cy.page.wait_for_function("() => /Not applied: the game changed on another phone/.test("
                              "document.getElementById('outbox').textContent)")
    cy.page.wait_for_timeout(9000)  # longer than any toast: the choice is still there
    assert cy.page.locator("#outbox .refused button", has_text="Apply now").is_visible()
    now = current(daemon)
    assert now["version"] == moved["version"] and now["sides"] == moved["sides"]
    assert cy.shown_sides() == [{"front": s["front"], "back": s["back"]} for s in now["sides"]]
    # Still wanted: applied once, on top of the other phone's peg.
    cy.page.click("#outbox .refused button >> text=Apply now")
    cy.page.wait_for_selector("#outbox", state="hidden")
    wait_until(lambda: current(daemon)["version"] == moved["version"] + 1, 3, "the tap applied")
    assert current(daemon)["sides"][0]["front"] == moved["sides"][0]["front"] + 2
    frozen["on"] = False


def test_a_lost_answer_is_sent_again_and_applied_once(
    daemon: Any, phones: dict[str, Phone]
) -> None:
    ann = phones["ann"]
    page = ann.page
    sent: list[dict[str, Any]] = []

    def drop_first_answer(route: Any) -> None:
        sent.append(route.request.post_data_json)
        if len(sent) == 1:
            route.fetch()  # the daemon gets it and answers...
            route.abort("connectionreset")  # ...but the answer never reaches the phone
        else:
            route.continue_()

    before = current(daemon)
    page.evaluate("document.getElementById('toast').textContent = ''")
    page.route("**/api/games/*/actions", drop_first_answer)
    try:
        page.click('.side[data-side="1"] .pad button[aria-label="Peg 1 for Bob"]')
        # The answer of the resent tap is the first answer: "Bob pegs 1." with its undo.
        wait_text(page, "toast", "^Bob pegs 1\\.")
        assert ann.state()["game"]["version"] == before["version"] + 1
    finally:
        page.unroute("**/api/games/*/actions")
    assert len(sent) == 2 and sent[0]["op_id"] == sent[1]["op_id"]
    after = current(daemon)
    assert after["version"] == before["version"] + 1
    assert after["sides"][1]["front"] == before["sides"][1]["front"] + 1


def test_the_page_is_usable_at_360_px_with_labels_everywhere(phones: dict[str, Phone]) -> None:
    page = phones["ann"].page
    for tab in ("score", "count", "shuffle", "board", "history", "settings"):
        phones["ann"].tab(tab)
        page.wait_for_timeout(150)
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 360, f"{tab} is {width} px wide"
        unnamed = page.evaluate("""() => [...document.querySelectorAll('button, a.button')]
            .filter(b => b.offsetParent !== null)
            .filter(b => !(b.getAttribute('aria-label') || b.textContent).trim())
            .map(b => b.outerHTML.slice(0, 80))""")
        assert unnamed == [], f"{tab}: buttons without a name {unnamed}"
        unlabelled = page.evaluate("""() => [...document.querySelectorAll('input, select')]
            .filter(i => i.offsetParent !== null && i.type !== 'hidden')
            .filter(i => !i.getAttribute('aria-label') && !i.closest('label')
                         && !(i.id && document.querySelector(`label[for="${i.id}"]`)))
            .map(i => i.outerHTML.slice(0, 80))""")
        assert unlabelled == [], f"{tab}: fields without a label {unlabelled}"
        # Touch targets of 44 px and more, the card picker's keys included.
        small = page.evaluate("""() => [...document.querySelectorAll('button, a.button, select')]
            .filter(b => b.offsetParent !== null)
            .filter(b => { const r = b.getBoundingClientRect();
                           return r.height < 44 || r.width < 44; })
            .map(b => b.textContent.trim().slice(0, 20))""")
        assert small == [], f"{tab}: touch targets under 44 px {small}"
    # Dark theme: light text on a dark background.
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(18, 22, 28)"
    manifest = page.evaluate("fetch('/static/manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone" and len(manifest["icons"]) >= 2
    phones["ann"].tab("score")


def test_the_page_survives_a_daemon_restart(daemon: Any, phones: dict[str, Phone]) -> None:
    ann, bob = phones["ann"], phones["bob"]
    before = current(daemon)
    daemon.kill()
    for phone in (ann, bob):
        wait_text(phone.page, "link", "^offline · updated \\d+ s ago$")
    ann.page.wait_for_timeout(1200)
    assert ann.shown_sides() == [{"front": s["front"], "back": s["back"]} for s in before["sides"]]
    daemon.start()
    daemon.wait_board_idle()
    for phone in (ann, bob):
        phone.page.wait_for_function("() => window.cribState.live", timeout=15000)
    assert ann.page.locator("#link").text_content() == "live"
    assert bob.page.locator("#link").text_content() == "live · watching"
    assert ann.state()["game"]["id"] == before["id"]
    assert ann.state()["game"]["version"] == before["version"]
    # Paired still: the next tap goes through and the follower sees it.
    tap_and_check(ann, daemon, lambda: ann.page.click(
        '.side[data-side="0"] .pad button[aria-label="Peg 2 for Ann"]'), bob)
