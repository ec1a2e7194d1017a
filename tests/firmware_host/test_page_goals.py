"""The page's goals at the table, measured by whole games in headless Chromium at 360 x 740:
taps per hand, no scroll for any count or peg, and every utterance the page speaks.

The games are real: a game in the engine's dealt mode (random deals, random legal play, the
engine counting) is the script; the page keeps the same game in keeper mode (each peg and
count tapped) or in cards mode (each card tapped). Speech is recorded by a stub of
`speechSynthesis` installed before the page loads.
"""

from __future__ import annotations

import random
import re
import statistics
from functools import partial
from typing import Any

import pytest

from cribbage.actions import parse_action
from cribbage.game import Game
from cribbage.rules import MAX_COUNT
from cribbage.simulate import random_action
from tests.firmware_host.page_helpers import (
    BROWSER,
    Phone,
    current,
    in_view,
    wait_text,
    wait_until,
)

# The module's fixtures (pytest finds them by name; `as` marks them as meant to be here).
from tests.firmware_host.page_helpers import browser as browser
from tests.firmware_host.page_helpers import daemon as daemon
from tests.firmware_host.test_page_evening import SPEECH_STUB

pytestmark = BROWSER

PAD = (1, 2, 3, 4, 5, 6)  # the pegging pad's one-tap values; 12 is behind More


def script(variant: str, names: list[str], seed: int) -> list[dict[str, Any]]:
    """A whole game as the engine plays it: per hand, the pegs ("peg", side, points) in order
    and the counts ("count", side, points) in show order. A card's points are pegged in one
    tap, the go it then earns with them (laid for a pair, pegged "two and one for the go"):
    no other side scores in between, so the board is the same at every other peg."""
    rng = random.Random(seed)
    game = Game.new(variant=variant, names=names, dealer=0, mode="dealt")
    hands: list[dict[str, Any]] = []
    last_scored: tuple[str, int] | None = None  # the action and side of the last peg
    while game.view()["result"] is None:
        view = game.view()
        action = random_action(game, rng)
        out = game.apply(parse_action(action))
        game = out[0] if isinstance(out, tuple) else out
        after = game.view()
        if not hands or hands[-1]["hand"] != view["hand_number"]:
            hands.append({"hand": view["hand_number"], "steps": []})
        steps = hands[-1]["steps"]
        if action["type"] == "count":
            steps.append(("count", after["last_count"]["side"], after["last_count"]["points"]))
        else:
            if action["type"] == "play":
                last_scored = None  # a card laid since: a go's point is that card's
            for side, (was, now) in enumerate(zip(view["sides"], after["sides"], strict=True)):
                if now["front"] > was["front"]:
                    points = now["front"] - was["front"]
                    if action["type"] == "go" and last_scored == ("play", side):
                        steps[-1] = ("peg", side, steps[-1][2] + points)
                    else:
                        steps.append(("peg", side, points))
                    last_scored = (action["type"], side)
    return hands


def peg_taps(points: int) -> list[int]:
    """The pad taps a person makes for `points`: one button, or 6s and the rest."""
    if points in PAD or points == 12:
        return [points]
    out = []
    while points > 6:
        out.append(6)
        points -= 6
    return out + ([points] if points else [])


def speaking(browser: Any, daemon: Any) -> Phone:
    """A paired phone that speaks every count, its speech recorded (`window.__said`)."""
    phone = Phone(browser, daemon.client.base)
    phone.page.add_init_script(
        f"localStorage.setItem('crib.token', {daemon.token!r});"
        "localStorage.setItem('crib.speak', '1');")
    phone.page.add_init_script(SPEECH_STUB)
    return phone.open()


def keeper_game(browser: Any, daemon: Any, variant: str, names: list[str],
                seed: int) -> dict[str, Any]:
    """Play the scripted game on the page in keeper mode; what was measured."""
    plan = script(variant, names, seed)
    phone = speaking(browser, daemon)
    page = phone.page
    game = daemon.client.new_game(variant=variant, names=names, dealer=0)
    page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id === "
                           f"{game['id']}")
    page.evaluate("window.scrollTo(0, 0)")
    side_names = [s["name"] for s in game["sides"]]
    per_hand: list[int] = []
    idle: list[int] = []  # per hand, the taps that scored nothing (More, a zero hand's tap)
    idle_now = 0
    off_screen: list[str] = []
    wrong_words: list[tuple[str, list[str]]] = []
    taps = 0

    def tap(selector: str, expect: str) -> None:
        nonlocal taps
        if not in_view(page, selector):
            off_screen.append(f"hand {len(per_hand) + 1}: {selector}")
        # His heels, whenever due, in sight too (three pads never push it below the fold).
        if "heels" in phone.state()["game"]["legal"] and not in_view(page, "#heels-btn"):
            off_screen.append(f"hand {len(per_hand) + 1}: #heels-btn")
        before = phone.state()["game"]["version"]
        heard = len(page.evaluate("window.__said"))
        page.click(selector)
        taps += 1
        page.wait_for_function(f"() => window.cribState.game.version > {before}")
        page.wait_for_function(f"() => window.__said.length > {heard}")
        page.wait_for_timeout(30)
        new = list(page.evaluate(f"window.__said.slice({heard})"))
        if len(new) != 1 or not new[0].startswith(expect):
            wrong_words.append((expect, new))

    try:
        for hand in plan:
            start = taps
            steps = hand["steps"]
            nothing = False  # the count due was nothing: said by the next count's tap
            skip = False  # the crib was counted with the dealer's hand
            for i, (kind, side, points) in enumerate(steps):
                if current(daemon)["result"] is not None:
                    break
                if kind == "peg":
                    for p in peg_taps(points):
                        if p == 12:
                            page.click(f'.side[data-side="{side}"] button.more')
                            taps += 1
                            idle_now += 1
                        tap(f'.side[data-side="{side}"] .pad button[aria-label="Peg {p} for '
                            f'{side_names[side]}"]', f"{side_names[side]} peg")
                    continue
                if skip:  # the crib, counted with the dealer's hand
                    skip = False
                    continue
                label = current(daemon)["next_count"]["label"]
                later = i + 1 < len(steps) and steps[i + 1][0] == "count"
                dealer_hand = later and i + 2 == len(steps)  # the crib comes next and last
                if nothing and dealer_hand:  # the count due was nothing: the pad after it
                    tap(f'#count-after-pad button[data-points="{points}"]',
                        f"{label}: nineteen, nothing")
                    nothing = False
                elif dealer_hand:  # the hand and the crib in one total: one tap
                    both = current(daemon)["count_with_crib"]["label"]
                    total = points + steps[i + 1][2]
                    tap(f'#count-after-pad button[data-points="{total}"]',
                        f"{both}: {total or 'nothing'}.")
                    idle_now += total == 0
                    skip = True
                elif nothing:  # the count due was nothing, this one is on the pad after it
                    if points == 0 and later:  # nothing twice: the first has its own tap
                        tap('#count-pad button[data-points="0"]', f"{label}: nineteen, nothing")
                        idle_now += 1
                    else:
                        tap(f'#count-after-pad button[data-points="{points}"]',
                            f"{label}: nineteen, nothing")
                        idle_now += points == 0
                        nothing = False
                elif points == 0 and later and page.locator("#count-after-pad").is_visible():
                    nothing = True  # (in the play the pegging pads leave it no room)
                else:
                    words = "nineteen, nothing" if points == 0 else str(points)
                    tap(f'#count-pad button[data-points="{points}"]', f"{label}: {words}")
                    idle_now += points == 0
            per_hand.append(taps - start)
            idle.append(idle_now)
            idle_now = 0
        result = current(daemon)["result"]
        assert result is not None and max(s["front"] for s in current(daemon)["sides"]) >= 121
        assert re.search(r"wins? 121 to", page.evaluate("window.__said.at(-1)"))
        assert phone.errors == [] and phone.off_origin() == []
    finally:
        phone.close()
    full = per_hand[:-1]  # the last hand ends when a side reaches the target
    return {"per_hand": per_hand, "median": statistics.median(full), "off_screen": off_screen,
            "wrong_words": wrong_words, "taps": taps, "idle": idle}


def report(what: str, m: dict[str, Any]) -> None:
    print(f"\n{what}: {len(m['per_hand'])} hands, taps per hand {m['per_hand']}, "
          f"median {m['median']} (the last hand left out), {m['taps']} taps in all, "
          f"scoring nothing {m['idle']}, off screen {len(m['off_screen'])}")


def test_a_whole_two_player_keeper_game_six_taps_a_hand_no_scroll_every_word_right(
    browser: Any, daemon: Any
) -> None:
    m = keeper_game(browser, daemon, "six-card", ["Ann", "Bob"], seed=21)
    report("two players, keeper mode", m)
    assert m["off_screen"] == []
    assert m["wrong_words"] == []
    assert m["median"] <= 6


@pytest.mark.slow  # about a minute: 14 hands
def test_a_whole_three_player_keeper_game_eight_taps_a_hand(browser: Any, daemon: Any) -> None:
    m = keeper_game(browser, daemon, "three-player", ["Ann", "Bob", "Cy"], seed=21)
    report("three players, keeper mode", m)
    assert m["off_screen"] == []
    assert m["wrong_words"] == []
    assert m["median"] <= 8


@pytest.mark.slow  # about a minute: 8 hands
def test_a_whole_four_partner_keeper_game_nine_taps_a_hand(browser: Any, daemon: Any) -> None:
    m = keeper_game(browser, daemon, "four-player", ["Ann", "Bob", "Cy", "Di"], seed=21)
    report("four partners, keeper mode", m)
    assert m["off_screen"] == []
    assert m["wrong_words"] == []
    assert m["median"] <= 9


def start_keeper(phone: Phone, daemon: Any, **body: Any) -> None:
    """A new keeper game (Ann deals), open on the phone with its count pad drawn."""
    game = daemon.client.new_game(dealer=0, **body)
    phone.page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id "
                                 f"=== {game['id']}")
    phone.page.wait_for_selector("#count-pad button")


def tap_heard(phone: Phone, selector: str) -> list[str]:
    """Tap, wait for the game's next version and its words; what the phone said."""
    page = phone.page
    before, heard = phone.state()["game"]["version"], len(page.evaluate("window.__said"))
    page.click(selector)
    page.wait_for_function(f"() => window.cribState.game.version > {before}")
    page.wait_for_function(f"() => window.__said.length > {heard}")
    return list(page.evaluate(f"window.__said.slice({heard})"))


def test_a_zero_hand_takes_no_tap_of_its_own_and_one_undo_takes_back_both(
    browser: Any, daemon: Any
) -> None:
    """The pad of the count after the one due: one tap counts it and the one due as nothing
    (both recorded, both said); one Undo takes back both. Not with muggins on, not past the
    crib, and not in the play (the pegging pads leave it no room above the fold)."""
    phone = speaking(browser, daemon)
    page = phone.page
    after = "#count-after-pad"

    start, tap = partial(start_keeper, phone, daemon), partial(tap_heard, phone)

    try:
        start(variant="three-player", names=["Ann", "Bob", "Cy"])
        assert page.locator(after).is_hidden()  # the play: three pads fill the screen
        tap('#count-pad button[data-points="6"]')  # Bob's hand: the show begins
        page.wait_for_selector(f"{after} button")
        assert page.locator("#count-after-label").text_content() == (
            "Cy's hand nothing? Count Ann's hand:")
        assert in_view(page, f'{after} button[data-points="29"]')
        phone.check_axe("score, keeper mode, the show, the pad after the count due")
        said = tap(f'{after} button[data-points="8"]')
        assert len(said) == 1 and said[0].startswith("Cy's hand: nineteen, nothing. "
                                                     "Ann's hand: 8"), said
        game = current(daemon)
        assert [s["front"] for s in game["sides"]] == [8, 6, 0]
        assert game["next_count"]["label"] == "Ann's crib"
        assert page.locator(after).is_hidden()  # nothing comes after the crib
        said = tap("#undo-btn")  # one undo takes back Ann's hand and Cy's nothing, said so
        assert said and said[0].startswith("Undone: Cy's hand: 19 (nothing), Ann's hand: 8"), said
        assert current(daemon)["next_count"]["label"] == "Cy's hand"
        assert [s["front"] for s in current(daemon)["sides"]] == [0, 6, 0]

        start(names=["Ann", "Bob"], muggins=True)  # each count in turn: a nothing is called
        tap('#count-pad button[data-points="4"]')
        page.wait_for_function("() => window.cribState.game.phase === 'show'")
        assert page.locator(after).is_hidden()
        assert phone.errors == [] and phone.off_origin() == [] and phone.violations == []
    finally:
        phone.close()


def test_the_dealers_hand_and_crib_take_one_tap_said_as_one_and_one_undo_takes_both_back(
    browser: Any, daemon: Any
) -> None:
    """With the dealer's hand due, the pad below the count pad takes the hand and crib as one
    total (the engine's `count_with_crib`): one tap, one count of both, said as one; one Undo
    takes both back and says so. Not with muggins on, and for no other count."""
    phone = speaking(browser, daemon)
    page = phone.page
    both = "#count-after-pad"

    start, tap = partial(start_keeper, phone, daemon), partial(tap_heard, phone)

    try:
        start(variant="four-player", names=["Ann", "Bob", "Cy", "Di"])
        # Bob's and Cy's hands: the pad after the count due is the nothing's.
        for points, then in ((4, "Cy's hand nothing? Count Di's hand:"),
                             (6, "Di's hand nothing? Count Ann's hand:")):
            tap(f'#count-pad button[data-points="{points}"]')
            assert page.locator("#count-after-label").text_content() == then
        tap('#count-pad button[data-points="8"]')  # Di's hand: Ann's hand and crib are left
        assert page.locator("#count-after-label").text_content() == (
            "Or Ann's hand and crib in one total:")
        for points in (0, 19, 53, 58):  # every total in sight (19 is one here, not nothing)
            assert in_view(page, f'{both} button[data-points="{points}"]'), points
        assert page.locator(f'{both} button[data-points="54"]').count() == 0  # no such total
        assert page.locator(f'{both} button[data-points="19"]').get_attribute(
            "aria-label") == "19 for Ann's hand and crib"
        phone.check_axe("score, keeper mode, the dealer's hand and crib in one total")
        said = tap(f'{both} button[data-points="19"]')
        assert len(said) == 1 and said[0].startswith("Ann's hand and crib: 19."), said
        game = current(daemon)
        assert [s["front"] for s in game["sides"]] == [25, 12] and game["hand_number"] == 2
        assert game["last_count"]["label"] == "Ann's hand and crib"
        said = tap("#undo-btn")  # one undo takes back the hand and the crib
        assert said and said[0].startswith(
            "Undone: Ann's hand and crib: 19 (Ann & Cy 25 → 6)"), said
        game = current(daemon)
        assert game["next_count"]["label"] == "Ann's hand" and game["hand_number"] == 1
        assert [s["front"] for s in game["sides"]] == [6, 12]
        page.wait_for_selector(f'{both} button[data-points="58"]')
        said = tap('#count-pad button[data-points="12"]')  # or the hand alone, then the crib
        assert said[0].startswith("Ann's hand: 12"), said
        assert page.locator(both).is_hidden()  # nothing comes after the crib

        start(names=["Ann", "Bob"])  # two players: after the pone's hand, the dealer's
        page.locator(both).wait_for(state="hidden", timeout=3000)  # in the play: no room
        tap('#count-pad button[data-points="4"]')
        page.wait_for_selector(f'{both} button[data-points="0"]')
        # Offline, the tap waits named as what it is (one total, 0 not "19 (nothing)").
        phone.context.set_offline(True)
        wait_text(page, "link", "^offline", timeout=8000)
        version, heard = current(daemon)["version"], len(page.evaluate("window.__said"))
        page.click(f'{both} button[data-points="0"]')
        wait_text(page, "outbox", "Ann's hand and crib: 0")
        phone.context.set_offline(False)
        wait_until(lambda: current(daemon)["version"] == version + 1, 10, "the kept tap sent")
        page.wait_for_function(f"() => window.__said.length > {heard}", timeout=10000)
        said = page.evaluate(f"window.__said.slice({heard})")
        assert said[0].startswith("Ann's hand and crib: nothing."), said
        assert [s["front"] for s in current(daemon)["sides"]] == [0, 4]

        start(names=["Ann", "Bob"], muggins=True)  # each count in turn: a miss can be called
        tap('#count-pad button[data-points="4"]')
        page.wait_for_function("() => window.cribState.game.phase === 'show'")
        assert current(daemon)["count_with_crib"] is None and page.locator(both).is_hidden()
        assert phone.errors == [] and phone.off_origin() == [] and phone.violations == []
    finally:
        phone.close()


RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
RANK_WORDS = ["ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king"]
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def pips(card: str) -> int:
    return min(10, RANKS.index(card[:-1]) + 1)


def in_words(card: str) -> str:
    return f"{RANK_WORDS[RANKS.index(card[:-1])]} of {SUIT_WORDS[card[-1]]}"


def cards_script(variant: str, names: list[str], seed: int) -> list[dict[str, Any]]:
    """A game in dealt mode: per hand the starter, the play (plays and gos, each with the
    count it made), each player's hand after the discard and the crib."""
    rng = random.Random(seed)
    game = Game.new(variant=variant, names=names, dealer=0, mode="dealt")
    hands: list[dict[str, Any]] = []
    while game.view()["result"] is None:
        view = game.view()
        action = random_action(game, rng)
        out = game.apply(parse_action(action))
        game = out[0] if isinstance(out, tuple) else out
        if not hands or hands[-1]["hand"] != view["hand_number"]:
            hands.append({"hand": view["hand_number"], "play": [], "crib": [], "starter": None,
                          "held": {}})
        hand = hands[-1]
        kind = action["type"]
        if kind == "deal":
            hand["held"] = {p: list(cards) for p, cards in enumerate(action["hands"])}
            hand["crib"] += action.get("crib") or []
        elif kind == "discard":
            hand["crib"] += action["cards"]
            for card in action["cards"]:
                hand["held"][action["player"]].remove(card)
        elif kind == "starter":
            hand["starter"] = action["card"]
        elif kind in ("play", "go"):
            count = (view["play"] or {}).get("count", 0)
            made = count + pips(action["card"]) if kind == "play" else count
            hand["play"].append((kind, action["player"], action.get("card"), made))
    return hands


def cards_game(browser: Any, daemon: Any, variant: str, names: list[str], seed: int,
               most_hands: int) -> dict[str, Any]:
    """Play the scripted game on the page in cards mode (no muggins): per hand the taps and
    the scrolls (a tap on a card or button not wholly in sight), and the words spoken wrong."""
    plan = cards_script(variant, names, seed)
    phone = speaking(browser, daemon)
    page = phone.page
    game = daemon.client.new_game(variant=variant, names=names, dealer=0, mode="cards")
    page.wait_for_function(f"() => window.cribState.game && window.cribState.game.id === "
                           f"{game['id']}")
    page.evaluate("window.scrollTo(0, 0)")
    per_hand: list[int] = []
    scrolls: list[int] = []
    off_screen: list[str] = []
    wrong: list[tuple[str, list[str]]] = []
    taps = 0

    def tap(selector: str, sends: bool = True) -> list[str]:
        nonlocal taps
        # In sight once the screen has settled (a person takes longer than that to aim).
        if not in_view(page, selector):
            page.wait_for_timeout(300)
            if not in_view(page, selector):
                off_screen.append(f"hand {len(per_hand) + 1}: {selector}")
        before = phone.state()["game"]["version"]
        heard = len(page.evaluate("window.__said"))
        page.click(selector)
        taps += 1
        if not sends:  # a card of a count, before its last
            page.wait_for_selector(f"{selector}[aria-pressed=true]")
            return []
        page.wait_for_function(f"() => window.cribState.game.version > {before}")
        page.wait_for_timeout(60)
        return list(page.evaluate(f"window.__said.slice({heard})"))

    def card(c: str) -> str:
        return f'#play-picker button[data-card="{c}"]'

    try:
        for hand in plan[:most_hands]:
            if current(daemon)["result"] is not None:
                break
            start, seen = taps, len(off_screen)
            tap(card(hand["starter"]))
            steps = hand["play"]
            i = 0
            while i < len(steps) and current(daemon)["result"] is None:
                kind, player, c, made = steps[i]
                nxt = steps[i + 1] if i + 1 < len(steps) else None
                limit = MAX_COUNT  # the engine's, as the page has it from the catalogue
                # Nobody else can play on: a card too big for the count is taken as this
                # player's go and the next series' lead (the picker offers it only then).
                if (kind == "go" and nxt and nxt[0] == "play" and pips(nxt[2]) > limit - made
                        and page.locator(card(nxt[2])).is_enabled()):
                    tap(card(nxt[2]))  # one tap: the go (one for last), and the lead
                    page.wait_for_function(
                        f"() => window.cribState.game.play.played.some(p => p.card === "
                        f"'{nxt[2]}') || !window.cribState.game.legal.includes('play')")
                    i += 2
                    continue
                if kind == "go":
                    tap("#go-btn")
                else:
                    said = tap(card(c))
                    want = f"{in_words(c)}, {made}"
                    if not said or not said[0].startswith(want):
                        wrong.append((want, said))
                i += 1
            number = current(daemon)["hand_number"]
            played: set[str] = set()
            while current(daemon)["result"] is None and current(daemon)["hand_number"] == number:
                now = current(daemon)
                due = now["next_count"]
                played = {p["card"] for p in (now["play"] or {}).get("played", [])}
                if due["kind"] == "crib":
                    missing = hand["crib"]
                else:
                    missing = [c for c in hand["held"][due["player"]] if c not in played]
                if not missing:
                    # A hand laid whole in the play: counted by the page with no tap.
                    was = now["version"]
                    wait_until(lambda was=was: current(daemon)["version"] > was, 5,
                               f"{due['label']} counted by itself")
                    continue
                for k, c in enumerate(missing):
                    tap(card(c), sends=k == len(missing) - 1)
            per_hand.append(taps - start)
            scrolls.append(len(off_screen) - seen)
        assert phone.errors == [] and phone.off_origin() == [], phone.errors
    finally:
        phone.close()
    return {"per_hand": per_hand, "scrolls": scrolls, "off_screen": off_screen,
            "wrong": wrong, "taps": taps}


@pytest.mark.parametrize("variant,names,hands", [
    ("six-card", ["Ann", "Bob"], 6),
    ("five-card", ["Ann", "Bob"], 5),
    ("three-player", ["Ann", "Bob", "Cy"], 4),
    ("four-player", ["Ann", "Bob", "Cy", "Di"], 4),
])
def test_cards_mode_taps_a_hand_every_one_a_card_and_no_scroll(
    browser: Any, daemon: Any, variant: str, names: list[str], hands: int
) -> None:
    """The starter, each card of the play, the cards never laid (the crib's, and a card kept
    in five-card) and each go that ends a series: nothing else, and nothing out of sight at
    360 x 740. Two players: at most 14 taps a hand."""
    m = cards_game(browser, daemon, variant, names, seed=21, most_hands=hands)
    print(f"\n{variant}, cards mode: taps per hand {m['per_hand']}, median "
          f"{statistics.median(m['per_hand'])}, scrolls per hand {m['scrolls']}")
    assert m["off_screen"] == []
    assert m["wrong"] == []
    if variant == "six-card":
        assert max(m["per_hand"]) <= 14, m["per_hand"]
