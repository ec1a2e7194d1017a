"""Pairing through the phone page against a hijack (issue 12, item 2), in headless Chromium.

The daemon runs in this process (uvicorn in a thread) so that a test can hold the simulated
board's undo button through the board's own firmware, as a person at the table does, and read
the code the board lights. Another phone is an HTTP client on another loopback address
(127.0.0.2). `undo_hold_s` is set to an unusual 2.5 s: the page says what the daemon says.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.firmware_host.conftest import ThreadServer
from tests.firmware_host.page_helpers import BROWSER, Phone, wait_text, wait_until

# The module's fixture (pytest finds it by name; `as` marks it as meant to be here).
from tests.firmware_host.page_helpers import browser as browser

pytestmark = BROWSER

HOLD_S = 2.5


def serving(state: Path) -> Iterator[ThreadServer]:
    """A table on `state` whose undo is held HOLD_S to pair, its board answering (a fixture
    body)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CRIB_UNDO_HOLD_S", str(HOLD_S))
        srv = ThreadServer(state)
    assert srv.settings.undo_hold_s == HOLD_S
    with srv:
        srv.wait_board_idle()
        yield srv


def new_phone(browser: Any, server: ThreadServer) -> Iterator[Phone]:
    """A phone that has never paired; no page error, no request off the Pi (a fixture body)."""
    p = Phone(browser, f"http://127.0.0.1:{server.port}").open()
    yield p
    assert p.errors == [] and p.off_origin() == []
    p.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    yield from serving(tmp_path_factory.mktemp("pair-state"))


@pytest.fixture
def phone(browser: Any, server: ThreadServer) -> Iterator[Phone]:
    yield from new_phone(browser, server)


@pytest.fixture
def contested(browser: Any, tmp_path: Path) -> Iterator[tuple[Phone, ThreadServer]]:
    """A phone and a table of its own: phones turned away there wait their turn, and no other
    test may find them waiting."""
    for srv in serving(tmp_path / "state"):
        for p in new_phone(browser, srv):
            yield p, srv


def board_code(server: ThreadServer) -> str | None:
    """The digits lit on the simulated board now, as the person at the table reads them."""
    back = server.services.devices["board"].require().read_back(timeout=1.0)
    return None if back is None else back.code


def hold_undo(server: ThreadServer, seconds: float) -> None:
    """Hold the board's undo button, through the simulated board's firmware."""
    server.services.devices["board"].require().simulator.hold_undo(seconds)


def other_phone(server: ThreadServer) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=10,
                        transport=httpx.HTTPTransport(local_address="127.0.0.2"))


def token_names(server: ThreadServer) -> list[str]:
    return [str(t["name"]) for t in server.services.tokens.list()]


def compare(phone: Phone, name: str) -> str:
    """Open pairing, name the phone, choose the way by holding undo; the code shown."""
    page = phone.page
    page.click("#pair-open")
    page.wait_for_selector("#pair-dialog[open]")
    page.fill("#pair-form [name=name]", name)
    page.click("#pair-hold")
    wait_text(page, "pair-code", r"^\d{3} \d{3}$")
    return str(page.locator("#pair-code").text_content()).replace(" ", "")


def test_the_page_shows_its_own_code_and_pairs_when_undo_is_held(
        phone: Phone, server: ThreadServer) -> None:
    page = phone.page
    shown = compare(phone, "ann-phone")
    # The board lights the very code the page shows, big, for the person to compare.
    assert wait_until(lambda: board_code(server), 5, "the code on the board") == shown
    say = str(page.locator("#pair-compare-say").text_content())
    assert f"hold the board's undo button for {HOLD_S:g} seconds" in say, say
    wait_text(page, "pair-wait",
              r"^Waiting for the undo button… \(the code is good for 0:[0-3]\d\)$")
    # A short press is an undo, not an approval: the page keeps waiting.
    hold_undo(server, HOLD_S - 1.0)
    time.sleep(3.0)  # longer than the page's interval between its questions
    assert not phone.state()["token"] and page.locator("#pair-dialog").is_visible()
    assert page.locator("#pair-error").text_content() == ""
    # Held long enough: the page pairs by itself, with no tap.
    hold_undo(server, HOLD_S + 0.5)
    page.wait_for_function("() => !!window.cribState.token", timeout=10_000)
    assert not page.locator("#pair-dialog").is_visible()
    wait_text(page, "toast", "^Paired as “ann-phone”")
    token = phone.state()["token"]
    assert server.services.tokens.check(f"Bearer {token}") == "ann-phone"
    assert page.evaluate("() => localStorage.getItem('crib.token')") == token
    wait_until(lambda: board_code(server) is None, 5, "the code to go off the board")
    assert page.locator("#new-game").is_visible()  # it keeps score now


def test_a_refused_phone_pairs_by_holding_undo_and_typing_what_the_board_lights(
        contested: tuple[Phone, ThreadServer]) -> None:
    phone, server = contested
    page = phone.page
    with other_phone(server) as eve:
        theirs = eve.post("/api/pair/start", json={})
        assert theirs.status_code == 200, theirs.text
        lit = wait_until(lambda: board_code(server), 5, "the other phone's code on the board")
        for way in ("#pair-type", "#pair-hold"):
            page.click("#pair-open")
            page.wait_for_selector("#pair-dialog[open]")
            page.click(way)
            # Refused in a sentence that says what the person at the table can do.
            wait_text(page, "pair-error", r"^Someone else is pairing; try again in \d+ s\. At the "
                      rf"table\? Hold the board's undo button for {HOLD_S:g} s: it lights a new "
                      r"code; type it here\.$")
            assert page.locator("#pair-form").get_attribute("data-step") == "typed"
            assert lit not in str(page.locator("#pair-dialog").text_content())
            assert board_code(server) == lit  # the other phone's request is not replaced
            page.click("#pair-cancel")
        page.click("#pair-open")
        page.fill("#pair-form [name=name]", "bob-phone")
        page.click("#pair-type")
        wait_text(page, "pair-error", "^Someone else is pairing")
        # The person at the table holds undo: the other phone's request is not approved (this
        # phone was turned away), the board lights a new code instead, and it is typed here.
        hold_undo(server, HOLD_S + 0.5)
        code = wait_until(lambda: (c := board_code(server)) != lit and c, 5, "a new code")
        r = eve.post("/api/pair", json={"name": "eve-phone", "request": theirs.json()["request"]})
        assert r.status_code == 403 and "type the code the board lights" in r.json()["error"]
        page.fill("#pair-form [name=code]", code)
        page.click("#pair-submit")
        page.wait_for_function("() => !!window.cribState.token")
    assert server.services.tokens.check(f"Bearer {phone.state()['token']}") == "bob-phone"
    assert "eve-phone" not in token_names(server)


def test_a_comparing_page_is_taken_to_typing_when_the_hold_lights_a_code(
        contested: tuple[Phone, ThreadServer]) -> None:
    phone, server = contested
    page = phone.page
    shown = compare(phone, "fay-phone")
    with other_phone(server) as eve:  # another phone is turned away: the board is contested
        assert eve.post("/api/pair/start", json={}).status_code == 409
    hold_undo(server, HOLD_S + 0.5)
    code = wait_until(lambda: (c := board_code(server)) != shown and c, 5, "a new code")
    wait_text(page, "pair-error", "^Someone at the board held undo: type the code the board "
              r"lights\.$")
    assert page.locator("#pair-form").get_attribute("data-step") == "typed"
    page.fill("#pair-form [name=code]", code)
    page.press("#pair-form [name=code]", "Enter")
    page.wait_for_function("() => !!window.cribState.token")
    assert server.services.tokens.check(f"Bearer {phone.state()['token']}") == "fay-phone"


def test_a_taken_name_is_refused_with_a_sentence_and_can_be_changed(
        phone: Phone, server: ThreadServer) -> None:
    page = phone.page
    if "ann-phone" not in token_names(server):  # paired by the first test, when it ran
        server.services.tokens.create("ann-phone")
    # By typing: the name is refused before the code is spent.
    page.click("#pair-open")
    page.fill("#pair-form [name=name]", "ann-phone")
    page.click("#pair-type")
    code = wait_until(lambda: board_code(server), 5, "the code on the board")
    page.fill("#pair-form [name=code]", code)
    page.click("#pair-submit")
    wait_text(page, "pair-error",
              "^A phone named 'ann-phone' is already paired: give this phone another name\\.$")
    assert page.evaluate("() => document.activeElement.name") == "name"
    # By holding undo: the page says it while it waits, and pairs once the name is free.
    page.click("#pair-back")
    page.click("#pair-hold")
    wait_text(page, "pair-code", r"^\d{3} \d{3}$")
    hold_undo(server, HOLD_S + 0.5)
    wait_text(page, "pair-error", "^A phone named 'ann-phone' is already paired")
    assert not phone.state()["token"]
    page.fill("#pair-form [name=name]", "-cy-")  # not a name the table takes: said, still waiting
    wait_text(page, "pair-error", "^Token name '-cy-' must be 1-40 letters")
    assert page.locator("#pair-form").get_attribute("data-step") == "compare"
    page.fill("#pair-form [name=name]", "cy-phone")
    page.wait_for_function("() => !!window.cribState.token", timeout=10_000)
    assert server.services.tokens.check(f"Bearer {phone.state()['token']}") == "cy-phone"
    assert token_names(server).count("ann-phone") == 1  # Ann's phone is still paired


def test_wrong_codes_are_slowed_then_withdrawn_in_sentences(
        phone: Phone, server: ThreadServer) -> None:
    page = phone.page
    page.click("#pair-open")
    page.fill("#pair-form [name=name]", "dee-phone")
    page.click("#pair-type")
    code = wait_until(lambda: board_code(server), 5, "the code on the board")
    wrong = f"{(int(code) + 1) % 10 ** len(code):0{len(code)}d}"
    field = "#pair-form [name=code]"
    page.fill(field, wrong)
    page.press(field, "Enter")
    wait_text(page, "pair-error", r"^Wrong code \(2 tries left\)\.$")
    page.fill(field, wrong)
    page.press(field, "Enter")
    wait_text(page, "pair-error", r"^Wrong code \(1 try left\)\.$")
    page.press(field, "Enter")  # at once: this phone must wait now
    # Typing is slowed, and the sentence offers the other way.
    wait_text(page, "pair-error", r"^Too many wrong codes; try again in \d+ s, or hold the "
              r"board's undo button for [\d.]+ s \(the other way to pair\)\.$")
    wait_s = int(re.findall(r"\d+", str(page.locator("#pair-error").text_content()))[0])
    time.sleep(wait_s + 0.2)
    page.press(field, "Enter")
    wait_text(page, "pair-error", "^Wrong code too often: the code is withdrawn")
    assert page.locator("#pair-form").get_attribute("data-step") == "choose"
    assert board_code(server) is None and "dee-phone" not in token_names(server)



@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ThreadServer]:
    """A table of the test's own: the limits on asking for codes start afresh, whatever the
    file's other tests asked before (the test passes in any order)."""
    yield from serving(tmp_path / "own-state")


@pytest.fixture
def own_phone(browser: Any, own_server: ThreadServer) -> Iterator[Phone]:
    yield from new_phone(browser, own_server)


def test_the_pairing_dialog_has_no_serious_axe_violation(own_phone: Phone,
                                                         own_server: ThreadServer) -> None:
    phone, server = own_phone, own_server
    axe = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
    page = phone.page
    page.add_script_tag(content=axe.read_text())  # injected by the test, not loaded by the page
    if "eve-phone" not in token_names(server):  # paired in an earlier test, when it ran
        server.services.tokens.create("eve-phone")
    page.click("#pair-open")
    page.fill("#pair-form [name=name]", "eve-phone")  # taken: an error line is shown too
    found: dict[str, list[str]] = {}
    for step, way in (("choose", None), ("typed", "#pair-type"), ("compare", "#pair-hold")):
        if way:
            if step == "compare":
                page.click("#pair-back")
            page.click(way)
            page.wait_for_function("s => document.getElementById('pair-form').dataset.step === s",
                                   arg=step)
        if step == "typed":  # a taken name is said to the phone with the right code only
            code = wait_until(lambda: board_code(server), 5, "the code on the board")
            page.fill("#pair-form [name=code]", code)
            page.click("#pair-submit")
            wait_text(page, "pair-error", "already paired")
        result = page.evaluate("""async () => {
            const r = await axe.run(document.getElementById('pair-dialog'),
                                    {resultTypes: ['violations']});
            return r.violations.filter(v => ['serious', 'critical'].includes(v.impact))
              .map(v => `${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`);
        }""")
        if result:
            found[step] = result
    assert found == {}, found
    # Every control of the dialog is a touch target of 44 px or more.
    sizes = page.locator("#pair-dialog button:visible, #pair-dialog input:visible").evaluate_all(
        "ns => ns.map(n => [n.id || n.name, n.getBoundingClientRect().height])")
    assert all(h >= 44 for _, h in sizes), sizes
