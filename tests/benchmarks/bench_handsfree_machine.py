"""Benchmark: the hands-free shuffler's whole-shuffle machine time (52 cards: goal 45 s, at
most 1.5 x at every corner; 104 cards: 90 s), on the simulated machine from one touch, and
the audit's throughput (5,000 decks: goal about 10 minutes of this computer's time).

Run: .venv/bin/python tests/benchmarks/bench_handsfree_machine.py [EVERY] [AUDIT_DECKS], or
`make bench`. EVERY takes every n-th corner (1: all of them).
"""

from __future__ import annotations

import os
import random
import sys
import time

from hardware.clock import FakeClock
from hardware.shuffler import handsfree, handsfree_audit, handsfree_sim
from hardware.shuffler.handsfree_machine import SimulatedHandsFreeShuffler

GOAL_S = {52: 45.0, 104: 90.0}
NOMINAL_SEEDS = 6


def plan_s(cards: int, plans: int = 20) -> float:
    """Seconds this computer takes to plan one shuffle (the keys that move the router least),
    over `plans` secret orders."""
    rng = random.Random(5)
    started = time.perf_counter()
    for _ in range(plans):
        target = list(range(cards))
        rng.shuffle(target)
        handsfree.plan_for_target(target)
    return (time.perf_counter() - started) / plans


def shuffle_s(cards: int, seed: int = 1, **machine: object) -> tuple[float, int, int]:
    """One whole shuffle's machine time from one touch, the prompts it needed, and the
    mishaps the machine met unprompted (cards stood up, the flap moved under a card, doors
    opened into the press, the press turned off the top of its lift, a card fed into one held
    on the riser)."""
    clock = FakeClock()
    sim = SimulatedHandsFreeShuffler(clock, rng=random.Random(seed),
                                     machine_rng=random.Random(seed), touch_deck=cards,
                                     **machine)  # type: ignore[arg-type]
    sim.open()
    sim.touch()
    prompts = 0
    for _ in range(4):
        sim.run_until_settled(max_seconds=3600)
        if sim.fault is None:
            break
        prompts += 1
        sim.touch()
    took = clock.monotonic()
    t = sim.table
    mishaps = t.stood_up + t.flap_hits + t.press_hits + t.press_jams + t.rams
    sim.stop()
    return took, prompts, mishaps


def main(every: int = 1, audit_decks: int = 100) -> None:
    for cards in (52, 104):
        # each shuffle's plan is its own (a fresh secret order), and so is its time: the
        # nominal machine over several
        seeds = range(1, NOMINAL_SEEDS + 1)
        times = [shuffle_s(cards, seed)[0] for seed in seeds]
        nominal, slowest = sum(times) / len(times), max(times)
        goal = GOAL_S[cards]
        print(f"hands-free {cards} cards, nominal: {times[0]:.1f} s (seed 1), mean "
              f"{nominal:.1f} s, slowest {slowest:.1f} s over {len(times)} shuffles "
              f"({'within' if slowest <= goal else 'OVER'} the {goal:.0f} s goal); planning "
              f"{plan_s(cards):.3f} s a shuffle on this computer")
        worst, worst_label, prompted, mishapped = 0.0, "", 0, 0
        cases = handsfree_sim.corners((cards,))[::every]
        for params, shaft in cases:
            took, prompts, mishaps = shuffle_s(cards, params=params, shaft_params=shaft)
            prompted += prompts > 0
            mishapped += mishaps > 0
            if took > worst:
                worst, worst_label = took, f"{params} {shaft.label()}"
        print(f"hands-free {cards} cards, {len(cases)} corners: slowest {worst:.1f} s "
              f"({'within' if worst <= 1.5 * goal else 'OVER'} 1.5 x the goal, "
              f"{1.5 * goal:.0f} s) at {worst_label}; {prompted} corners needed the player, "
              f"{mishapped} met a card stood up, the flap under a card, doors into the press, "
              "the press turned off its lift's top or a card fed into a held one")
    # one process, then as `crib shuffle-audit` runs it: a process for each core
    cores = os.cpu_count() or 1
    for jobs in sorted({1, cores}):
        decks = audit_decks * jobs
        started = time.perf_counter()
        run = handsfree_audit.run(decks, 52, seed=2, jobs=jobs)
        wall = time.perf_counter() - started
        per = wall / decks
        print(f"hands-free audit, {jobs} of {cores} cores: {decks} decks of 52 in {wall:.1f} s "
              f"({per:.3f} s a deck; 5,000 decks about {5000 * per / 60:.1f} min, "
              f"{'within' if 5000 * per <= 600 else 'OVER'} the 10 min goal); "
              f"{run.summary()}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)


def test_bench_handsfree_machine() -> None:
    """So `make bench` (pytest over tests/benchmarks) prints these figures too."""
    main()
