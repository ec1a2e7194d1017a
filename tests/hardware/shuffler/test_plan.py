"""Pass plans: sizes, defaults, honest quality, and radix routing that lands on its target."""

from __future__ import annotations

import random

import pytest

from hardware.errors import DeckSizeError, HardwareError, PlanError, ShufflerError
from hardware.shuffler.physics import deal_and_stack, feed_order
from hardware.shuffler.plan import Pile, Routing, make_plan


@pytest.mark.parametrize("size", [0, 1, 105, 200, -3, "52", True])
def test_bad_deck_sizes_are_refused_with_a_clear_error(size: object) -> None:
    with pytest.raises(DeckSizeError) as info:
        make_plan(size)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, ShufflerError) and isinstance(info.value, HardwareError)
    assert "104" in str(info.value) or "whole number" in str(info.value)


def test_defaults_follow_shuffle_math() -> None:
    p52 = make_plan(52)
    assert (p52.routing, p52.passes, round(p52.tv_distance, 3)) == (Routing.COIN, 9, 0.085)
    assert "0.085" in p52.quality
    p104 = make_plan(104)
    assert (p104.passes, round(p104.tv_distance, 3)) == (11, 0.060)
    assert make_plan(52, "exact").passes == 6
    assert make_plan(104, "exact").passes == 7
    assert make_plan(2).passes >= 1


def test_light_plan_says_it_is_not_random() -> None:
    plan = make_plan(52, "light")
    assert plan.passes == 3
    assert plan.tv_distance == 1.0
    assert "NOT random" in plan.quality
    assert not plan.random


def test_unknown_plan_and_short_radix_are_refused() -> None:
    with pytest.raises(PlanError, match="unknown shuffle plan 'fast'"):
        make_plan(52, "fast")
    with pytest.raises(PlanError, match="at least 6 passes"):
        make_plan(52, "exact", passes=5)


def test_target_stays_out_of_repr_and_json() -> None:
    plan = make_plan(52, "exact", rng=random.Random(1))
    assert plan.target is not None
    assert "target" not in repr(plan)
    assert "target" not in plan.to_json()


@pytest.mark.parametrize("n", [2, 3, 5, 8, 9, 51, 52, 64, 65, 103, 104])
@pytest.mark.parametrize("extra", [0, 1])
def test_radix_routing_puts_every_card_at_its_target(n: int, extra: int) -> None:
    rng = random.Random(n * 10 + extra)
    for _ in range(5):
        base = make_plan(n, "exact", rng=rng)
        plan = make_plan(n, "exact", rng=rng, passes=base.passes + extra)  # odd and even k
        order = list(range(n))
        for j in range(1, plan.passes + 1):
            piles = [plan.radix_pile(j, c) for c in feed_order(order)]
            order = deal_and_stack(order, piles, plan.top_pile)
        assert plan.target is not None
        assert [plan.target[c] for c in order] == list(range(n))


def test_radix_routing_works_with_the_right_pile_on_top() -> None:
    plan = make_plan(52, "exact", rng=random.Random(5), top_pile=Pile.RIGHT)
    order = list(range(52))
    for j in range(1, plan.passes + 1):
        piles = [plan.radix_pile(j, c) for c in feed_order(order)]
        order = deal_and_stack(order, piles, Pile.RIGHT)
    assert plan.target is not None
    assert [plan.target[c] for c in order] == list(range(52))
