"""The Shuffler contract, run against the simulator and the GPIO driver on mock pins."""

from __future__ import annotations

import pytest

from hardware.errors import DeckSizeError, PlanError, ShufflerBusyError
from hardware.interfaces import DeviceState, Shuffler

from .conftest import Harness, make_harness


def test_is_a_shuffler(harness: Harness) -> None:
    assert isinstance(harness.shuffler, Shuffler)
    assert harness.shuffler.state is DeviceState.IDLE
    assert harness.shuffler.describe()["kind"] in ("simulated", "gpio")


def test_random_plan_runs_nine_passes_with_prompts(harness: Harness) -> None:
    harness.load(52)
    st = harness.shuffler.shuffle(52, "random")
    assert (st.state, st.passes_total, st.routing) == (DeviceState.BUSY, 9, "coin")
    assert st.tv_distance is not None and round(st.tv_distance, 3) == 0.085
    prompts = harness.finish()
    assert len(prompts) == 8
    assert prompts[3].startswith("Pass 4 of 9 done: put the LEFT pile on top")
    st = harness.shuffler.status()
    assert (st.state, st.passes_done, st.cards_this_pass, sum(st.pile_counts)) == (
        DeviceState.IDLE, 9, 52, 52)
    assert st.prompt is not None and st.prompt.startswith("Shuffle done (9 passes)")
    deck = harness.final_deck()
    assert sorted(deck) == list(range(52)) and deck != list(range(52))
    assert not harness.motor_on()
    progress = [e.data for e in harness.events if e.kind == "progress"]
    assert progress[-1] == {"pass": 9, "passes": 9, "cards": 52, "deck": 52,
                            "left": st.pile_counts[0], "right": st.pile_counts[1]}
    assert [e.data["state"] for e in harness.events if e.kind == "state"][:3] == [
        "idle", "busy", "waiting"]
    # the default build's pace a pass (hardware.shuffler.design), router moves included
    from hardware.shuffler.pace import pace

    expected = 9 * pace().pass_s(52)
    assert 0.9 * expected < harness.clock.monotonic() < 1.1 * expected


def test_exact_plan_ends_in_the_target_order(harness: Harness) -> None:
    harness.load(52)
    harness.shuffler.shuffle(52, "exact")
    harness.finish()
    plan = harness.shuffler.plan
    assert plan is not None and plan.target is not None and plan.passes == 6
    assert [plan.target[c] for c in harness.final_deck()] == list(range(52))


def test_bad_requests_are_refused_and_lose_nothing(harness: Harness) -> None:
    with pytest.raises(DeckSizeError, match="at most 104"):
        harness.shuffler.shuffle(105)
    with pytest.raises(PlanError):
        harness.shuffler.shuffle(52, "quick")
    assert harness.shuffler.state is DeviceState.IDLE
    harness.load(52)
    harness.shuffler.shuffle(52)
    with pytest.raises(ShufflerBusyError) as info:
        harness.shuffler.shuffle(52)
    assert isinstance(info.value, ValueError)
    assert harness.shuffler.status().passes_total == 9


def test_abort_stops_the_motor_and_drops_the_plan(harness: Harness) -> None:
    harness.load(52)
    harness.shuffler.shuffle(52)
    harness.start_feed()
    assert harness.motor_on()
    st = harness.shuffler.abort()
    assert st.state is DeviceState.IDLE and st.passes_total == 0
    if harness.kind == "gpio":
        harness.rig.sync()  # type: ignore[attr-defined]
    assert not harness.motor_on()


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_feed_jam_stops_the_motor_and_resumes_the_pass(kind: str) -> None:
    h = make_harness(kind, jam_at=52 * 2 + 20)  # pass 3, card 20
    h.load(52)
    h.shuffler.shuffle(52)
    for _ in range(2):
        h.run()
        h.resume()
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT and not h.motor_on()
    assert st.fault is not None
    assert st.fault.startswith("Card 20 of 52 did not come through on pass 3 of 9")
    assert "slide it back under the cards in the tray" in st.fault
    assert st.passes_done == 2 and st.cards_this_pass == 19
    h.resume()
    h.finish()
    st = h.shuffler.status()
    assert st.state is DeviceState.IDLE and st.passes_done == 9
    assert sorted(h.final_deck()) == list(range(52))


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_radix_plan_restarts_fresh_after_a_fault(kind: str) -> None:
    h = make_harness(kind, jam_at=52 * 3 + 7)
    h.load(52)
    h.shuffler.shuffle(52, "exact")
    h.finish()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT
    assert st.fault is not None and "starts again from pass 1 with a fresh order" in st.fault
    first = h.shuffler.plan
    h.resume()
    assert h.shuffler.status().passes_done == 0
    start = list(h.table.tray)  # the gathered deck: the fresh plan's positions
    assert sorted(start) == list(range(52))
    h.finish()
    plan = h.shuffler.plan
    assert plan is not None and plan.target is not None and plan is not first
    assert h.shuffler.restarts == 1 and h.shuffler.passes_run == 3 + 6
    final = h.final_deck()
    assert all(final[plan.target[c]] == start[c] for c in range(52))


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_wrong_deck_size_is_counted_and_explained(kind: str) -> None:
    h = make_harness(kind)
    h.load(50)
    h.shuffler.shuffle(52)
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT
    assert st.fault is not None
    assert st.fault.startswith("Only 50 of 52 cards counted on pass 1 of 9")
    assert "gather all 52 cards" in st.fault and "run pass 1 again" in st.fault
    h.resume()  # the player adds the missing cards
    h.finish()
    assert h.shuffler.status().passes_done == 9


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_too_many_cards_and_an_empty_tray(kind: str) -> None:
    h = make_harness(kind)
    h.shuffler.shuffle(52)
    h.run()
    st = h.shuffler.status()
    assert st.fault is not None and st.fault.startswith("The feed tray is empty")
    h.shuffler.abort()
    h.load(53)
    h.shuffler.shuffle(52)
    h.run()
    st = h.shuffler.status()
    assert st.fault is not None and "more than 52 cards" in st.fault


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_card_stuck_at_a_sensor(kind: str) -> None:
    h = make_harness(kind, stick_at=30)
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT and not h.motor_on()
    assert st.fault is not None and "stuck at the" in st.fault and "card 30 of 52" in st.fault
    h.resume()
    h.finish()
    assert h.shuffler.status().passes_done == 3


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_double_feed_is_a_fault_and_the_pass_goes_on(kind: str) -> None:
    # Two cards dragged through together, the second half a card behind: when the first
    # reaches its beam the second is still on the roller, which brakes, so the pair stays
    # under the beam: the beam blocked past its limit stops the pass at that card. The
    # player pushes the pair down; the pass then counts one card short and runs again.
    h = make_harness(kind, double_at=10)
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.run()
    st = h.shuffler.status()
    fault = h.shuffler.fault
    assert st.state is DeviceState.FAULT and fault is not None
    assert fault.kind == "stuck" and fault.card == 10 and "two cards fed together" in fault.text
    assert st.cards_this_pass == 10 and not h.motor_on()
    h.resume()
    h.run()
    fault = h.shuffler.fault
    assert fault is not None and fault.kind == "short" and h.shuffler.status().cards_this_pass == 51
    h.resume()  # the player gathers the deck: the pass runs again
    h.finish()
    st = h.shuffler.status()
    assert st.state is DeviceState.IDLE and st.passes_done == 3
    assert sorted(h.final_deck()) == list(range(52))


@pytest.mark.parametrize("kind", ["sim", "gpio"])
def test_pass_time_budget_stops_the_motor(kind: str) -> None:
    from hardware.shuffler.controller import Timing

    # a slow machine (cards block the sensors 0.5 s): only the pass budget is tight
    h = make_harness(kind, speed=0.1, timing=Timing(card_timeout=5.0, pass_base=2.0,
                                                     per_card=0.1, blocked_limit=8.0,
                                                     double_block=4.0))
    h.load(52)
    h.shuffler.shuffle(52)
    h.run()
    st = h.shuffler.status()
    assert st.state is DeviceState.FAULT and not h.motor_on()
    assert st.fault is not None and "ran past its time budget" in st.fault


def test_misroute_warns_coin_and_restarts_radix() -> None:
    h = make_harness("sim", misroute=0.05)
    h.load(52)
    h.shuffler.shuffle(52, "light")
    h.finish()
    assert h.shuffler.status().passes_done == 3
    assert h.shuffler.misroutes > 0
    assert any(e.kind == "warning" for e in h.events)
    h2 = make_harness("sim", misroute=0.2)
    h2.load(52)
    h2.shuffler.shuffle(52, "exact")
    h2.run()
    st = h2.shuffler.status()
    assert st.state is DeviceState.FAULT and st.fault is not None
    assert "instead of the" in st.fault
