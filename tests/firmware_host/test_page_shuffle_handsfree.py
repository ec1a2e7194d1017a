"""The Shuffle screen of a hands-free machine, in headless Chromium at 360 x 740 against
`crib serve --simulate` (the simulated hands-free shuffler, paced fast) on 127.0.0.1: one
button shuffles the deck to the end, the progress drawn as it goes; a card stuck in the riser
is a prompt the one button answers; axe-clean and no scroll."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.firmware_host.conftest import Daemon
from tests.firmware_host.page_helpers import BROWSER, Phone, page_daemon, wait_state, wait_text

# The module's fixture (pytest finds it by name; `as` marks it as meant to be here).
from tests.firmware_host.page_helpers import browser as browser

pytestmark = BROWSER

# The simulated machine runs 50 times faster than real time: a 52-card shuffle of about 87 s
# of machine time is about 2 s here, long enough for the page to see every pass and restack.
SPEED = 50.0
STALL_AT = 60  # card 8 of the second pass of a 52-card shuffle stalls on the riser

# Every state the screen shows, as the page drew it: the bar's value, its passes and phase
# in words, the status's state and the words of any prompt.
RECORD = """() => {
  window.seen = [];
  const box = document.getElementById('shuffle-status');
  const look = () => {
    const bar = box.querySelector('.progress.passes');
    window.seen.push({state: box.dataset.state || '', phase: box.dataset.phase || '',
      value: bar ? Number(bar.getAttribute('aria-valuenow')) : null,
      line: (box.querySelector('.progress-line') || {}).textContent || '',
      prompt: (box.querySelector('.prompt, .fault') || {}).textContent || '',
      fits: document.scrollingElement.scrollHeight <= innerHeight
            && document.scrollingElement.scrollWidth <= innerWidth,
      size: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]});
  };
  new MutationObserver(look).observe(box, {subtree: true, childList: true, attributes: true,
                                           characterData: true});
}"""


# The lines of text each element's words take on screen.
LINES = """els => els.map(e => { const r = document.createRange(); r.selectNodeContents(e);
  return new Set([...r.getClientRects()].map(x => Math.round(x.bottom))).size; })"""


def handsfree_daemon(state: Path, stall_at: int | None = None) -> Daemon:
    """A page daemon with the hands-free build, paced at SPEED (a card stalled at `stall_at`)."""
    d = page_daemon(state, build="handsfree")
    text = d.config.read_text().replace("speed = 200.0", f"speed = {SPEED}")
    if stall_at is not None:
        text += f"simulate_stall_at = {stall_at}\n"
    d.config.write_text(text)
    return d


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Any]:
    """Start a daemon made by the test (closed afterwards)."""
    made: list[Daemon] = []

    def start(stall_at: int | None = None) -> Daemon:
        d = handsfree_daemon(tmp_path / f"state{len(made)}", stall_at)
        made.append(d)
        d.start()
        d.wait_board_idle()
        return d

    yield start
    for d in made:
        d.close()


def open_shuffle(browser: Any, daemon: Daemon) -> Phone:
    """A paired phone on the Shuffle screen (axe-core checks it as it opens)."""
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(f"localStorage.setItem('crib.token', {daemon.token!r});")
    phone.open()
    phone.tab("shuffle")
    return phone


def assert_clean(phone: Phone) -> None:
    assert phone.off_origin() == []
    assert phone.errors == [], phone.errors
    assert phone.violations == [], phone.violations


def test_one_touch_shuffles_the_deck_to_the_end_with_the_progress_drawn(
        browser: Any, started: Any) -> None:
    daemon = started()
    phone = open_shuffle(browser, daemon)
    page = phone.page
    try:
        # One button, no plan to choose: the machine's exact plan, a line each.
        wait_text(page, "plan-quality", "^Plan6 passes, restacked by the machine"
                  "Qualityrandom · distance 0\\.000 \\(0 is perfect\\)Timeabout [0-9]+ s, no hands")
        assert page.locator("#shuffle-plan").is_hidden()
        assert page.locator("#tab-shuffle button:visible").all_text_contents() == ["Shuffle"]
        # the plan, its quality and its time a line each
        rows = page.locator("#plan-quality .plan-line").evaluate_all(LINES)
        assert rows == [1, 1, 1], rows
        page.evaluate(RECORD)
        page.click("#shuffle-start")
        wait_state(page, "shuffle-status", "busy")
        phone.check_axe("the shuffle running")
        page.wait_for_function(
            "() => document.getElementById('shuffle-status').dataset.state === 'idle'",
            timeout=30_000)
        phone.check_axe("the shuffle done")
        seen = page.evaluate("window.seen")
        text = page.locator("#shuffle-status").text_content() or ""
        assert "Shuffle done (6 passes, restacked by the machine)" in text, text
        assert "Passes 6 of 6 done" in text
    finally:
        phone.close()
    assert_clean(phone)
    # never a prompt on the way, and never a scroll
    assert {s["state"] for s in seen} <= {"busy", "idle"}, {s["state"] for s in seen}
    scrolled = [(s["size"], s["prompt"]) for s in seen if not s["fits"]]
    assert scrolled == [], scrolled[:3]
    running = [s for s in seen if s["state"] == "busy" and s["value"] is not None]
    values = [s["value"] for s in running]
    assert values == sorted(values) and values[0] < 20 and values[-1] >= 80, values
    lines = [s["line"] for s in running]
    # every pass drawn with its phase, the cards of the pass and the machine's time left
    for k in range(6):
        assert any(line.startswith(f"Passes {k} of 6 done · passing · cards ")
                   and " left" in line for line in lines), (k, lines)
    assert any("restacking" in line for line in lines), lines
    def seconds(said: str) -> float:  # "48 s" or "1 min 32 s", as the page words it
        parts = said.removesuffix(" s").split(" min ")
        return float(parts[0]) if len(parts) == 1 else 60 * float(parts[0]) + float(parts[1])

    left = [seconds(line.rsplit("about ", 1)[1].removesuffix(" left")) for line in lines
            if line.endswith(" s left")]
    # from the first pass the time left is the build's own pace (about 50 s of machine time
    # for 52 cards on the simulated machine), counting down
    assert 40 < left[0] < 65 and left[-1] < 15 and left[0] > left[-1], left
    status = daemon.client.req("GET", "/api/shuffler", auth=False).json()
    assert status["state"] == "idle" and status["passes_done"] == 6
    assert status["hands_free"] is True and status["tv_distance"] == 0.0
    assert status["restacks_done"] == 6 and status["phase"] is None


def test_a_card_stuck_in_the_riser_is_a_prompt_the_one_button_answers(
        browser: Any, started: Any) -> None:
    daemon = started(stall_at=STALL_AT)
    phone = open_shuffle(browser, daemon)
    page = phone.page
    try:
        page.click("#shuffle-start")
        wait_state(page, "shuffle-status", "fault")
        text = page.locator("#shuffle-status").text_content() or ""
        assert "Card 8 of 52 did not reach its bay on pass 2" in text, text
        assert "take it out and lay it on the deck in the tray" in text, text
        resume = page.locator("#shuffle-continue")
        assert resume.is_visible() and resume.text_content() == "Resume"
        assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
        assert page.locator("#shuffle-continue").evaluate(
            "e => e.getBoundingClientRect().bottom <= innerHeight")
        phone.check_axe("the riser prompt")
        resume.click()
        page.wait_for_function(
            "() => document.getElementById('shuffle-status').dataset.state === 'idle'",
            timeout=30_000)
        assert resume.is_hidden()
        text = page.locator("#shuffle-status").text_content() or ""
        assert "Shuffle done (6 passes, restacked by the machine)" in text, text
    finally:
        phone.close()
    assert_clean(phone)
    status = daemon.client.req("GET", "/api/shuffler", auth=False).json()
    assert status["state"] == "idle" and status["passes_done"] == 6 and status["fault"] is None


# What the machine reports while its lid is open mid-shuffle (the controller's own words):
# the store is given it as the stream gives a status.
PAUSED = {
    "state": "waiting", "hands_free": True, "phase": "paused", "deck_size": 52,
    "routing": "radix", "passes_total": 6, "passes_done": 2, "cards_this_pass": 20,
    "pile_counts": [9, 11], "restacks_done": 2, "seconds_left": 50.4, "tv_distance": 0.0,
    "quality": "6 exact passes to a secret random order", "fault": None,
    "prompt": "The lid is open: the shuffle is paused (pass 3 of 6). Close the lid and touch "
              "to go on.",
}


def test_an_open_lid_is_drawn_as_paused_with_the_one_button_that_resumes(
        browser: Any, started: Any) -> None:
    daemon = started()
    phone = open_shuffle(browser, daemon)
    page = phone.page
    try:
        page.evaluate("""async (st) => {
            const store = await import('/static/js/store.js');
            store.state.shuffler = st; store.publish('shuffler'); }""", PAUSED)
        wait_state(page, "shuffle-status", "waiting")
        line = page.locator("#shuffle-status .progress-line").text_content()
        assert line == "Passes 2 of 6 done · paused: lid open · about 50 s left", line
        prompt = page.locator("#shuffle-status .prompt")
        assert prompt.text_content() == PAUSED["prompt"]
        assert prompt.get_attribute("role") == "alert"
        bar = page.locator("#shuffle-status .progress.passes")
        assert bar.get_attribute("aria-valuetext") == "2 of 6 passes done, paused: lid open"
        assert bar.locator(".seg-done").count() == 2 and bar.locator(".seg-now").count() == 1
        resume = page.locator("#shuffle-continue")
        assert resume.is_visible() and resume.text_content() == "Resume"
        assert page.locator("#shuffle-start").is_hidden()
        assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
        phone.check_axe("the lid open")
    finally:
        phone.close()
    assert_clean(phone)
