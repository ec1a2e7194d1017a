"""The hands-free machine's simulator: cards up the riser into the bays the router chose, the
doors' drops and the restack they make, the sensors that check it, the faults and the lid,
across the ranges of the physics (hardware/shuffler/handsfree_sim.py)."""

from __future__ import annotations

import random

import pytest

from hardware.shuffler import handsfree
from hardware.shuffler.handsfree import ROUTER_PILE, Bay
from hardware.shuffler.handsfree_sim import (
    HandsFreeTable,
    ShaftParams,
)
from hardware.shuffler.ranges import Params

# The driver's pause after a card is seen at its beam before the router may move: its tail
# clears the flap (49 + 12 + 88.9 mm from the nip) by then even at the slowest corner
CLEAR_S = 0.12
ROUTER_S = 0.03


def drive_pass(table: HandsFreeTable, bays: list[Bay], t: float = 0.0) -> float:
    """Feed one card per bay decision as a controller does (router, motor on until the beam
    sees the card, brake), the riser running; returns the time all have landed."""
    table.set_riser(True, t)
    for i, bay in enumerate(bays):
        table.set_router(ROUTER_PILE[bay], t)
        t += ROUTER_S
        table.set_motor(True, t)
        seen = False
        for _ in range(10_000):
            nxt = table.next_event()
            assert nxt is not None, f"card {i + 1} never reached a beam"
            t = max(t, nxt)
            if any(e.blocked for e in table.update(t)):
                seen = True
                break
        assert seen
        table.set_brake(t)
        t += 0.05
        table.set_motor(False, t)
        t += CLEAR_S
    return settle(table, t)


def settle(table: HandsFreeTable, t: float) -> float:
    """Run the machine until nothing moves (cards landed, piles fallen)."""
    for _ in range(10_000):
        if table.settled():
            return t
        nxt = table.next_event()
        assert nxt is not None, "the machine stopped with cards in motion"
        t = max(t, nxt)
        table.update(t)
    raise AssertionError("the machine did not settle")


def restack(table: HandsFreeTable, t: float,
            order: handsfree.Restack = handsfree.SHAFT_RESTACK) -> tuple[handsfree.DropStep, ...]:
    """Open the doors in `order`, reading the sensors after each pile settles."""
    steps = []
    for bay in (order.first, order.second):
        table.set_doors(bay, True, t)
        t = settle(table, t + 0.5)
        count = None
        for _ in range(100):
            count = table.tray_cards(t)
            if count is not None:
                break
            t += 0.05
        assert count is not None
        steps.append(handsfree.DropStep(bay, round(count), table.doors_hold(Bay.UPPER),
                                        table.doors_hold(Bay.LOWER)))
    return tuple(steps)


def random_bays(n: int, seed: int) -> list[Bay]:
    rng = random.Random(seed)
    return [rng.choice(list(Bay)) for _ in range(n)]


@pytest.mark.parametrize("n", [52, 104])
def test_every_card_reaches_its_bay_in_order_and_the_drops_make_the_planned_deck(n: int) -> None:
    table = HandsFreeTable(rng=random.Random(n), params=Params(cards=n))
    deck = list(range(n))
    table.load(deck)
    bays = random_bays(n, n)
    t = drive_pass(table, bays)
    piles = handsfree.deal(deck, bays)
    assert tuple(table.bay_pile(Bay.UPPER)) == piles.upper
    assert tuple(table.bay_pile(Bay.LOWER)) == piles.lower
    assert table.flap_hits == 0
    steps = restack(table, t)
    assert tuple(table.tray) == handsfree.run_pass(deck, bays)
    counts = handsfree.BayCounts.of(bays)
    check = handsfree.verify_restack(counts, handsfree.RestackReading(steps))
    assert check.ok, check.detail
    assert not table.skewed(0.0 + t + 5)


def test_a_fall_is_slowed_by_the_shafts_air() -> None:
    table = HandsFreeTable(rng=random.Random(1))
    deck = list(range(52))
    table.load(deck)
    t = drive_pass(table, random_bays(52, 3))
    restack(table, t)
    lower, upper = table.landings
    free = (2 * lower.height_mm / 9810.0) ** 0.5
    assert lower.fall_s > free
    assert 600 < lower.speed_mm_s < (2 * 9810.0 * lower.height_mm) ** 0.5
    assert upper.onto == "tray" and upper.height_mm > lower.height_mm


def test_shaft_params_refuse_values_outside_their_ranges() -> None:
    with pytest.raises(ValueError, match="servo_s_per_60"):
        ShaftParams(servo_s_per_60=0.5)
