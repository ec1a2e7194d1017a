"""The hands-free drop shaft: a pass and a restack by hand, a plan that reaches every target
exactly, the pass and restack checks, and uniformity over many decks (and its failure when a
restack is made in the wrong order and not caught)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import pairwise

import pytest

from hardware.errors import DeckSizeError, PlanError, ShufflerError
from hardware.shuffler import design, pace
from hardware.shuffler.handsfree import (
    BAY_CAPACITY,
    SHAFT_RESTACK,
    Bay,
    BayCounts,
    Finding,
    HandsFreePlan,
    Recovery,
    Restack,
    _Routing,
    bay_counts,
    deal,
    face_down_passes,
    minimum_passes,
    pass_s,
    pile_limits,
    plan_for_target,
    plan_random,
    restack,
    run_pass,
    sense_restack,
    shuffle_s,
    uniformity,
    verify_pass,
    verify_restack,
)

U, L = Bay.UPPER, Bay.LOWER
WRONG = Restack(Bay.UPPER)  # the upper pile reaches the tray first


def _run(plan: HandsFreePlan, order_for: Callable[[int], Restack] = lambda j: SHAFT_RESTACK,
         ) -> tuple[int, ...]:
    """The deck after the machine makes every pass of `plan`, restacking pass j as told."""
    deck = tuple(range(plan.deck_size))
    for pp in plan.passes:
        deck = run_pass(deck, pp.bays, order_for(pp.number))
    return deck


# ----- one pass, by hand -----


def test_a_pass_feeds_the_bottom_card_first_and_keeps_each_bays_order() -> None:
    # deck top to bottom 0 1 2 3: fed 3, 2, 1, 0; 3 and 1 to the upper bay, 2 and 0 to the
    # lower. Landing on top, the upper bay holds 1 over 3 and the lower 0 over 2.
    piles = deal((0, 1, 2, 3), (U, L, U, L))
    assert piles.upper == (1, 3) and piles.lower == (0, 2)
    # the lower doors open first: its pile is the bottom, the upper pile lands on it
    assert restack(piles) == (1, 3, 0, 2)
    assert restack(piles, WRONG) == (0, 2, 1, 3)
    assert run_pass((0, 1, 2, 3), (U, L, U, L)) == (1, 3, 0, 2)


def test_a_pass_to_one_bay_leaves_the_deck_as_it_was() -> None:
    deck = (5, 3, 0, 4, 1, 2)
    assert run_pass(deck, (U,) * 6) == deck
    assert run_pass(deck, (L,) * 6) == deck


def test_deal_refuses_a_decision_per_card_missing_or_not_a_bay() -> None:
    with pytest.raises(ShufflerError, match="3 bay decisions given for a deck of 4"):
        deal((0, 1, 2, 3), (U, L, U))
    with pytest.raises(ShufflerError, match="upper or lower"):
        deal((0, 1), (U, "left"))  # type: ignore[arg-type]


# ----- the plan -----


@pytest.mark.parametrize("n", range(1, 105))
def test_every_deck_size_ends_exactly_in_its_target(n: int) -> None:
    """The keys searched for the fewest router moves, and the keys spread evenly, both
    reach the target exactly."""
    rng = random.Random(n)
    for extra in (0, 1, 2):
        for quiet in ((True, False) if extra == 0 else (False,)):
            target = list(range(n))
            rng.shuffle(target)
            plan = plan_for_target(target, minimum_passes(n) + extra, quiet=quiet)
            deck = _run(plan)
            assert all(target[card] == pos for pos, card in enumerate(deck))
            assert deck == plan.final_order()


def test_the_router_moves_about_two_fifths_less_than_with_even_keys() -> None:
    """Each card sent to the other bay than the last costs the pass about 40 ms: the plan's
    keys change bay far less often than the target positions spread evenly, whatever the
    target, within the bays' limits on every pass."""
    rng = random.Random(3)
    for n, k in ((52, 6), (104, 7), (40, 6)):
        lo, hi = pile_limits(n, k)
        ratios = []
        for _ in range(4):
            target = list(range(n))
            rng.shuffle(target)
            quiet = plan_for_target(target, k)
            even = plan_for_target(target, k, quiet=False)
            moves = sum(pp.router_moves for pp in quiet.passes)
            ratios.append(moves / sum(pp.router_moves for pp in even.passes))
            assert all(lo <= min(pp.counts.upper, pp.counts.lower)
                       and max(pp.counts.upper, pp.counts.lower) <= hi for pp in quiet.passes)
            assert plan_for_target(target, k).passes == quiet.passes  # the same plan again
        assert max(ratios) < 0.75, (n, ratios)


def _moves_counted(keys: list[int], passes: int) -> int:
    """The router's moves for cards fed by `keys`, counted afresh pass by pass."""
    moves = 0
    for j in range(passes):
        deck = sorted(range(len(keys)), key=lambda c: (keys[c] & ((1 << j) - 1), c))
        moves += sum(((keys[a] ^ keys[b]) >> j) & 1 for a, b in pairwise(deck))
    return moves


@pytest.mark.parametrize(("n", "k"), [(52, 6), (104, 7), (9, 4), (3, 2)])
def test_the_key_search_keeps_count_of_the_router_moves(n: int, k: int) -> None:
    """The search judges each key change by its change in router moves without recounting
    the deck: after any changes, its count and every change it predicted match a count
    made afresh (a wrong count would keep plans that move the router more)."""
    rng = random.Random(n * k)
    keys = [rng.randrange(1 << k) for _ in range(n)]
    routing = _Routing(keys, k)
    assert routing.moves == _moves_counted(keys, k)
    for _ in range(400):
        card, key = rng.randrange(n), rng.randrange(1 << k)
        before = _moves_counted(keys, k)
        keys[card] = key
        after = _moves_counted(keys, k)
        assert routing.delta(card, key) == after - before, (card, key)
        routing.set_key(card, key)
        assert routing.moves == after
        assert routing.lowers == [sum((x >> j) & 1 for x in keys) for j in range(k)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 52, 64, 65, 100, 104])
def test_passes_are_ceil_log2_of_the_deck(n: int) -> None:
    k = math.ceil(math.log2(n)) if n > 1 else 0
    assert minimum_passes(n) == k
    assert len(plan_for_target(range(n)).passes) == k
    assert face_down_passes(n) == k + k % 2


def test_52_cards_take_6_passes_and_104_take_7_which_turn_the_deck_over() -> None:
    assert len(plan_random(52).passes) == 6 and not plan_random(52).face_up
    assert minimum_passes(104) == 7
    assert len(plan_random(104).passes) == 7 and plan_random(104).face_up
    assert not plan_random(104, passes=face_down_passes(104)).face_up


def test_no_plan_of_fewer_passes_reaches_every_order() -> None:
    # k stable two-pile passes make at most 2^k rising sequences; 52 cards in reverse have 52
    with pytest.raises(PlanError, match="needs 6 to 64 passes, got 5"):
        plan_for_target(range(52), 5)
    with pytest.raises(PlanError, match="needs 7 to 64 passes, got True"):
        plan_for_target(range(104), True)  # type: ignore[arg-type]


def test_a_target_that_is_not_an_order_of_the_cards_is_refused() -> None:
    with pytest.raises(PlanError, match="its own position"):
        plan_for_target([0, 1, 1])
    with pytest.raises(PlanError, match="its own position"):
        plan_for_target([0, 2])
    with pytest.raises(PlanError, match="at least one card"):
        plan_for_target([])
    with pytest.raises(DeckSizeError):
        plan_random(105)


def test_the_secret_target_is_not_in_the_plans_repr() -> None:
    plan = plan_for_target([2, 0, 3, 1])
    assert "target" not in repr(plan)


def test_each_pass_commands_the_counts_it_plans_and_no_bay_overflows() -> None:
    rng = random.Random(7)
    for n in [*range(2, 105, 5), 52, 104]:
        for k in {minimum_passes(n), face_down_passes(n)}:
            lo, hi = pile_limits(n, k)
            assert (lo, hi) == (min(min(c.upper, c.lower) for c in bay_counts(n, k)),
                                max(max(c.upper, c.lower) for c in bay_counts(n, k)))
            plan = plan_random(n, rng=rng, passes=k)
            # each pass's counts are the plan's, known to the beams before the pass; every
            # pile within the even keys' least and most
            for pp in plan.passes:
                assert pp.counts == BayCounts.of(pp.bays) and pp.counts.total == n
                assert lo <= min(pp.counts.upper, pp.counts.lower)
                assert max(pp.counts.upper, pp.counts.lower) <= hi <= BAY_CAPACITY
    assert max(max(c.upper, c.lower) for c in bay_counts(104, 8)) == 56
    assert max(max(c.upper, c.lower) for c in bay_counts(52, 6)) == 28


def test_the_default_plan_draws_from_the_secure_source() -> None:
    plans = {plan_random(52).target for _ in range(5)}
    assert len(plans) == 5


# ----- the checks -----


def test_a_pass_counted_as_commanded_goes_on_and_a_miscount_replans() -> None:
    assert verify_pass(BayCounts(26, 26), BayCounts(26, 26)).recovery is Recovery.CONTINUE
    check = verify_pass(BayCounts(26, 26), BayCounts(27, 25))
    assert check.finding is Finding.MISCOUNT and check.recovery is Recovery.REPLAN
    assert "upper bay counted 27" in check.detail


@pytest.mark.parametrize("door_sensors", [True, False])
def test_every_restack_is_judged_right_only_when_it_was_right(door_sensors: bool) -> None:
    for upper in range(0, 21):
        for lower in range(0, 21):
            counts = BayCounts(upper, lower)
            right = verify_restack(counts, sense_restack(counts, door_sensors=door_sensors))
            wrong = verify_restack(counts, sense_restack(counts, WRONG,
                                                         door_sensors=door_sensors))
            if door_sensors or upper != lower or upper == 0:
                assert right.ok, (counts, right)
            else:  # equal piles and no door sensor: the order cannot be seen
                assert right.finding is Finding.UNVERIFIED
            if upper and lower:  # a wrong order, and a deck the plan does not know
                assert not wrong.ok and wrong.recovery is Recovery.REPLAN, (counts, wrong)
            elif upper or lower:  # the same deck, but a door opened out of turn
                assert not wrong.ok and wrong.finding is not Finding.WRONG_ORDER, wrong
                assert wrong.recovery in (Recovery.RETRY_DOORS, Recovery.PROMPT)


def test_a_wrong_restack_of_equal_piles_is_caught_by_the_door_sensors() -> None:
    counts = BayCounts(26, 26)  # the weight cannot tell these piles apart
    check = verify_restack(counts, sense_restack(counts, WRONG))
    assert check.finding is Finding.WRONG_ORDER
    assert check.detail == "the upper bay emptied before the lower bay"
    blind = verify_restack(counts, sense_restack(counts, WRONG, door_sensors=False))
    assert blind.finding is Finding.UNVERIFIED and blind.recovery is Recovery.REPLAN
    # ... and the right one too is never trusted without them
    blind_right = verify_restack(counts, sense_restack(counts, door_sensors=False))
    assert blind_right.finding is Finding.UNVERIFIED


def test_a_wrong_restack_is_caught_with_only_the_lower_bays_door_sensor() -> None:
    counts = BayCounts(26, 26)
    wrong = sense_restack(counts, WRONG)
    one_eyed = type(wrong)(tuple(type(s)(s.opened, s.tray_cards, None, s.lower_holds)
                                 for s in wrong.steps))
    check = verify_restack(counts, one_eyed)
    assert check.finding is Finding.WRONG_ORDER and check.recovery is Recovery.REPLAN
    assert "still held its pile" in check.detail


def test_a_wrong_restack_of_unequal_piles_is_caught_by_the_weight_alone() -> None:
    counts = BayCounts(28, 24)
    check = verify_restack(counts, sense_restack(counts, WRONG, door_sensors=False))
    assert check.finding is Finding.WRONG_ORDER
    assert "took 28 cards first" in check.detail


def test_cards_caught_on_a_door_are_retried_and_a_short_tray_is_a_prompt() -> None:
    counts = BayCounts(28, 24)
    caught = verify_restack(counts, sense_restack(counts, caught=3))
    assert caught.finding is Finding.CARDS_LEFT and caught.recovery is Recovery.RETRY_DOORS
    assert "took 21 of the lower bay's 24 cards" in caught.detail
    # a card lost from the shaft: no bay holds it, and the tray is one short
    good = sense_restack(counts)
    short = type(good)((good.steps[0], type(good.steps[1])(U, 51, False, False)))
    check = verify_restack(counts, short)
    assert check.finding is Finding.CARDS_LEFT and check.recovery is Recovery.PROMPT
    assert "51 of 52" in check.detail


def test_a_reading_that_is_not_a_restack_is_refused() -> None:
    counts = BayCounts(2, 2)
    good = sense_restack(counts)
    with pytest.raises(ShufflerError, match="two door steps"):
        verify_restack(counts, type(good)(good.steps[:1]))
    with pytest.raises(ShufflerError, match="opens lower, then upper"):
        verify_restack(counts, sense_restack(counts, plan=WRONG))
    with pytest.raises(ShufflerError, match="cannot hang"):
        sense_restack(counts, caught=3)
    with pytest.raises(ShufflerError, match="fewer than 0"):
        BayCounts(-1, 2)


# ----- uniformity over many decks -----

DECKS = 5000


def _simulate(wrong: Callable[[random.Random, int], bool], seed: int,
              ) -> tuple[list[tuple[int, ...]], int, int, int]:
    """DECKS shuffles of 52 cards on the drop shaft, a restack made wrong where `wrong` says
    and not acted on; returns the final decks, the decks equal to their target, the wrong
    restacks and how many of those the verifier caught. Every 25th plan has the keys the
    machine uses (searched for the fewest router moves), the rest the keys spread evenly:
    both reach the target, and the even ones keep 15,000 plans quick (the whole machine's
    audit, `test_handsfree_audit`, plans as the machine does)."""
    rng = random.Random(seed)
    decks: list[tuple[int, ...]] = []
    exact = wrongs = caught = 0
    for i in range(DECKS):
        target = list(range(52))
        rng.shuffle(target)
        plan = plan_for_target(target, quiet=i % 25 == 0)
        deck = tuple(range(52))
        for pp in plan.passes:
            made = WRONG if wrong(rng, pp.number) else SHAFT_RESTACK
            if made is WRONG:
                wrongs += 1
                caught += not verify_restack(pp.counts, sense_restack(pp.counts, made)).ok
            deck = run_pass(deck, pp.bays, made)
        decks.append(deck)
        exact += deck == plan.final_order()
    return decks, exact, wrongs, caught


def test_5000_decks_of_52_are_exactly_their_targets_and_uniform() -> None:
    decks, exact, wrongs, _ = _simulate(lambda rng, j: False, seed=11)
    assert exact == DECKS and wrongs == 0
    u = uniformity(decks)
    assert u.decks == DECKS
    assert u.ok(), u
    assert abs(u.adjacency_expected - 2 * 51 / 52) < 1e-12


@pytest.mark.parametrize(("case", "wrong"), [
    ("a restack at random, as a player who ignores the prompt", lambda rng, j: rng.random() < 0.5),
    ("the first restack always wrong", lambda rng, j: j == 1),
])
def test_restacks_made_wrong_on_purpose_fail_uniformity_and_are_all_caught(
        case: str, wrong: Callable[[random.Random, int], bool]) -> None:
    decks, exact, wrongs, caught = _simulate(wrong, seed=12)
    assert wrongs > 0 and caught == wrongs, case
    assert exact < DECKS
    u = uniformity(decks)
    assert not u.ok(), (case, u)
    # cards sit where the plan did not put them: the machine routes cards by where it wrongly
    # believes they are (whether neighbours then stay together more or less than in a random
    # deck depends on the plan's keys, so only the positions are asserted)
    assert u.position_z > 4, (case, u)


def test_uniformity_refuses_decks_that_are_not_orders() -> None:
    with pytest.raises(ShufflerError, match="at least 2 decks"):
        uniformity([(0, 1)])
    with pytest.raises(ShufflerError, match="deck 2 is not an order"):
        uniformity([(0, 1, 2), (0, 1, 1)])


def test_a_machine_that_never_shuffles_fails_uniformity() -> None:
    u = uniformity([tuple(range(52))] * 200)
    assert not u.ok() and u.adjacency_mean == 51


# ----- time -----


def test_a_pass_takes_design_pys_pace_for_its_own_router_moves() -> None:
    p = pace.pace(router=design.HANDSFREE_SOLENOID_ROUTER)
    n = 52
    same = (U,) * n
    alternate = tuple(U if i % 2 else L for i in range(n))
    for bays, moves in ((same, 0.0), (alternate, 1.0)):
        expected = pace.Pace(p.feed_speed_mm_s, p.transit_s, p.flight_s, p.filter_s,
                             p.same_wait_s, p.other_wait_s, moves)
        assert pass_s(bays, p) == pytest.approx(expected.pass_s(n))
    assert pass_s((), p) == 0.0


def test_a_shuffle_is_its_passes_and_a_restack_after_each() -> None:
    plan = plan_random(52, rng=random.Random(1))
    p = pace.pace(router=design.HANDSFREE_SOLENOID_ROUTER)
    passes = sum(pass_s(pp.bays, p) for pp in plan.passes)
    whole = shuffle_s(plan, p)
    restack_s = (whole - passes) / 6
    # two doors, two falls (45 and 90 mm), two settles and two weighings
    assert 0.9 < restack_s < 2.0
    assert shuffle_s(plan, pace.pace(router=design.SERVO_ROUTER)) > whole
