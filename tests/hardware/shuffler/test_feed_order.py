"""The tray is bottom-fed: the order every model of the machine follows, and the exact plan
reaching its secret target on a machine that feeds its bottom card first.

The reference pass below is written from the machine, not from the code under test: the
roller takes the bottom card of the tray, and each card lands on top of its pile.
"""

from __future__ import annotations

import random

import pytest

from hardware.interfaces import DeviceState
from hardware.shuffler.handsfree import uniformity
from hardware.shuffler.physics import deal_and_stack
from hardware.shuffler.plan import Pile, make_plan
from hardware.shuffler.simulator import ShufflerTable

from .conftest import SimHarness

L, R = Pile.LEFT, Pile.RIGHT


def _bottom_fed_pass(deck: list[int], piles: list[Pile], top: Pile) -> list[int]:
    """The machine by hand: take the tray's bottom card, drop it on top of the pile the i-th
    card fed is sent to; then stack `top` on the other pile."""
    tray = list(deck)  # top first
    landed: dict[Pile, list[int]] = {L: [], R: []}  # top first
    for pile in piles:
        landed[pile].insert(0, tray.pop())
    assert not tray
    return landed[top] + landed[top.other]


def test_a_pass_by_hand() -> None:
    # deck top to bottom 0 1 2 3 is fed 3, 2, 1, 0; 3 and 1 go left, 2 and 0 right. Landing
    # on top, the left pile is 1 over 3, the right 0 over 2: each in the deck's order.
    assert deal_and_stack([0, 1, 2, 3], [L, R, L, R], L) == [1, 3, 0, 2]
    assert deal_and_stack([0, 1, 2, 3], [L, R, L, R], R) == [0, 2, 1, 3]
    assert deal_and_stack([5, 3, 0, 4], [R] * 4, L) == [5, 3, 0, 4]  # one pile: no reversal


def test_deal_and_stack_is_the_bottom_fed_pass() -> None:
    rng = random.Random(1)
    for n in (1, 2, 3, 7, 52, 104):
        for top in (L, R):
            deck = list(range(n))
            rng.shuffle(deck)
            piles = [rng.choice((L, R)) for _ in range(n)]
            assert deal_and_stack(deck, piles, top) == _bottom_fed_pass(deck, piles, top)


def _exact_decks(n: int, decks: int, seed: int, top: Pile = L) -> list[tuple[int, ...]]:
    """`decks` exact plans of n cards on the bottom-fed machine, each card routed as the
    controller routes it: by the card it believes is the i-th from the bottom, its belief
    followed by deal_and_stack. Every final deck must be the plan's target."""
    rng = random.Random(seed)
    out = []
    for _ in range(decks):
        plan = make_plan(n, "exact", rng=rng, top_pile=top)
        assert plan.target is not None
        believed = list(range(n))
        deck = list(range(n))
        for j in range(1, plan.passes + 1):
            piles = [plan.radix_pile(j, c) for c in reversed(believed)]
            deck = _bottom_fed_pass(deck, piles, top)
            believed = deal_and_stack(believed, piles, top)
        assert believed == deck
        assert [plan.target[c] for c in deck] == list(range(n))
        out.append(tuple(deck))
    return out


@pytest.mark.parametrize(("n", "decks"), [(52, 3000), (104, 1500)])
def test_the_exact_plan_on_a_bottom_fed_machine_is_its_target_and_uniform(
        n: int, decks: int) -> None:
    u = uniformity(_exact_decks(n, decks, seed=n))
    assert u.decks == decks
    assert u.ok(), u


def test_the_exact_plan_reaches_its_target_with_the_right_pile_on_top() -> None:
    _exact_decks(52, 50, seed=3, top=R)
    _exact_decks(9, 50, seed=4, top=R)


def test_the_simulated_tray_feeds_its_bottom_card_first() -> None:
    table = ShufflerTable(jam_at=1)
    table.load(list(range(52)))  # 0 on top, 51 at the bottom
    table.set_motor(True, 0.0)
    table.update(1.0)
    assert table.jammed == 51  # the first card fed is the one the roller drives


def test_the_simulated_piles_keep_the_decks_order() -> None:
    h = SimHarness()
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()  # one pass; the player has not stacked yet
    assert h.shuffler.status().state is DeviceState.WAITING
    h.clock.advance(2.0)  # the last card slides down onto its pile
    h.table.update(h.clock.monotonic())
    left, right = h.table.piles[L], h.table.piles[R]
    assert sorted(left + right) == list(range(52)) and left and right
    # the bottom card fed first lies at the bottom of its pile: each pile reads top to
    # bottom in the deck's own order
    assert left == sorted(left) and right == sorted(right)
    h.shuffler.stop()


@pytest.mark.parametrize("n", [52, 104])
def test_the_exact_plan_on_the_simulated_machine_ends_in_its_target(n: int) -> None:
    h = SimHarness()
    h.load(n)
    h.shuffler.shuffle(n, "exact")
    h.finish()
    plan = h.shuffler.plan
    assert plan is not None and plan.target is not None
    assert h.shuffler.status().passes_done == plan.passes
    assert [plan.target[c] for c in h.final_deck()] == list(range(n))
    h.shuffler.stop()
