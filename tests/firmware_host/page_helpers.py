"""Helpers for the phone page's browser tests: a daemon, a headless Chromium, phones."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.firmware_host.conftest import Daemon

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
_ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots are refreshed on request (CRIB_UPDATE_SCREENSHOTS=1 make test), so an
# ordinary test run leaves the work tree clean; otherwise they go beside the other artifacts.
SCREENSHOTS = (_ROOT / "docs" / "screenshots" if os.environ.get("CRIB_UPDATE_SCREENSHOTS")
               else _ROOT / "tests" / "artifacts" / "screenshots")
JAM_AT = 60  # card 8 of the second pass of a 52-card shuffle
AXE = _ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"


BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium"),
]
"""The marks of every browser test module: `pytestmark = BROWSER`."""


def page_daemon(state: Path, build: str = "lotus") -> Daemon:
    """`crib serve --simulate` with a fast simulated shuffler that jams once: the Lotus-style
    build (the player restacks) unless `build` says "handsfree"."""
    daemon = Daemon(state)
    # [shuffler] is the configuration's last table: these keys land in it.
    with daemon.config.open("a") as f:
        f.write(f"simulate_jam_at = {JAM_AT}\nbuild = {build!r}\n")
    return daemon


def running_page_daemon(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Daemon]:
    """A started `page_daemon` with its board answering, closed afterwards (a fixture body)."""
    d = page_daemon(tmp_path_factory.mktemp(name))
    try:  # a daemon whose board never answers is stopped too, not left running
        d.start()
        d.wait_board_idle()
        yield d
    finally:
        d.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def daemon(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The module's own `running_page_daemon`, its state named after the module."""
    yield from running_page_daemon(tmp_path_factory,
                                   request.module.__name__.rpartition(".")[2] + "-state")


@pytest.fixture(scope="module")
def ann(browser: Any, daemon: Daemon) -> Iterator[Phone]:
    """Ann's phone, paired earlier: the daemon's token and the name "ann-phone" in its storage
    (so the page knows it is Ann's)."""
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(
        f"localStorage.setItem('crib.token', {daemon.token!r});"
        "localStorage.setItem('crib.phone', 'ann-phone');")
    phone.open()
    yield phone
    phone.close()


@pytest.fixture(autouse=True)
def ann_stays_on_the_pi(ann: Phone) -> Iterator[None]:
    """Every request of Ann's phone goes to the daemon; no page error is thrown; axe-core
    found nothing on any screen the test opened."""
    yield
    assert ann.off_origin() == []
    assert ann.errors == [], ann.errors
    found, ann.violations[:] = list(ann.violations), []
    assert found == [], found


def current(daemon: Daemon) -> dict[str, Any]:
    """The game in progress, as the API gives it to anyone."""
    return dict(daemon.client.req("GET", "/api/games/current", auth=False).json())


def act(daemon: Daemon, action: dict[str, Any]) -> dict[str, Any]:
    """Apply `action` to the game in progress through the API, as another phone does; the game
    after it (AssertionError with the refusal if it is refused)."""
    r = daemon.client.act(current(daemon), action)
    assert r.status_code == 200, r.text
    return dict(r.json()["game"])


def fresh(daemon: Daemon, ann: Phone, **body: Any) -> dict[str, Any]:
    """A new game started by another phone, shown on this one."""
    ann.tab("score")
    game = daemon.client.new_game(**body)
    ann.page.wait_for_function(
        f"() => window.cribState.game && window.cribState.game.id === {game['id']}")
    ann.page.wait_for_selector("#game:not([hidden])")
    return game


def in_view(page: Any, selector: str) -> bool:
    """Whether the element is wholly inside the viewport, below the sticky header and tabs."""
    return bool(page.locator(selector).first.evaluate(
        """e => { const r = e.getBoundingClientRect();
                  const top = document.querySelector('.tabs').getBoundingClientRect().bottom;
                  return r.height > 0 && r.top >= top - 1 && r.bottom <= innerHeight + 1; }"""))


def wait_until(check: Callable[[], Any], timeout: float = 5.0, what: str = "condition",
               interval: float = 0.05) -> Any:
    """Poll `check` until it returns something truthy; AssertionError naming `what` after."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


class Phone:
    """One browser context on the page: what a person sees and taps."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.context = browser.new_context(**PHONE)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.violations: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("websocket", lambda ws: self.requests.append(ws.url))
        # The message and where it was thrown (the stack names the module and line).
        self.page.on("pageerror", lambda e: self.errors.append(f"{e} at {e.stack or '?'}"))
        self.page.set_default_timeout(8000)

    def open(self) -> Phone:
        self.page.goto(self.base + "/")
        self.page.wait_for_function("() => window.cribState && window.cribState.live")
        return self

    def close(self) -> None:
        self.context.close()

    def tab(self, name: str) -> None:
        """Open a screen, as a person taps its tab; axe-core looks at it as it opens."""
        self.page.click(f'.tabs button[data-tab="{name}"]')
        self.page.wait_for_selector(f"#tab-{name}:not([hidden])")
        self.check_axe(f"the {name} screen")

    def check_axe(self, where: str) -> None:
        """Every violation axe-core finds in the page now (any impact), kept in `violations`
        with `where` (the fixtures assert there are none)."""
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.add_script_tag(content=AXE.read_text())  # the test's, not the page's
        found = self.page.evaluate("""async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => `${v.id} (${v.impact}): ` +
              v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
        }""")
        if found:
            self.violations.append(f"{where}: {found}")

    def state(self) -> dict[str, Any]:
        return dict(self.page.evaluate("() => window.cribState"))

    def shown_sides(self) -> list[dict[str, int]]:
        """Each side's front and back peg as the Score screen shows them."""
        return list(self.page.evaluate("""() => [...document.querySelectorAll('#sides .side')]
            .map(s => ({front: Number(s.querySelector('.score').textContent),
                        back: Number(s.querySelector('.back').dataset.back)}))"""))

    def drawn_pegs(self) -> list[dict[str, int]]:
        """Each track's pegs as the board drawing places them."""
        return list(self.page.evaluate("""() => {
            const out = [];
            for (const p of document.querySelectorAll('#board-svg .peg')) {
              const t = Number(p.dataset.track);
              out[t] = out[t] || {};
              out[t][p.dataset.kind] = Number(p.dataset.score);
            }
            return out; }"""))

    def toast(self) -> str:
        return str(self.page.locator("#toast").text_content() or "")

    def pair(self, code_reader: Callable[[], str | None], name: str) -> None:
        """Pair through the page with the code the board lights."""
        page = self.page
        page.locator("#pair-open").click()
        page.wait_for_selector("#pair-dialog[open]")
        page.click("#pair-type")  # the way by typing: the board lights the code now
        code = wait_until(code_reader, 5, "a pairing code on the board")
        page.fill("#pair-form [name=code]", code)
        page.fill("#pair-form [name=name]", name)
        page.click("#pair-submit")
        page.wait_for_function("() => !!window.cribState.token")

    def off_origin(self) -> list[str]:
        origin = re.escape(self.base.split("//", 1)[1])
        return [u for u in self.requests if not re.match(rf"^(https?|wss?)://{origin}/", u)]


def wait_text(page: Any, element_id: str, pattern: str, flags: str = "",
              timeout: float | None = None) -> None:
    """Wait until the element's text matches the regular expression (JavaScript syntax)."""
    page.wait_for_function(
        "([id, p, f]) => new RegExp(p, f).test(document.getElementById(id).textContent)",
        arg=[element_id, pattern, flags], **({"timeout": timeout} if timeout else {}))


def wait_state(page: Any, element_id: str, *states: str) -> None:
    """Wait until the element's data-state is one of `states`."""
    page.wait_for_function(
        "([id, s]) => s.includes(document.getElementById(id).dataset.state)",
        arg=[element_id, list(states)])
