"""Benchmark: the hands-free shuffle's time per plan and deck size, at the nominal machine and
at every corner of the ranges (hardware.shuffler.ranges.corners()), against the goals (45 s
for 52 cards, 90 s for 104, at nominal; 1.5 x that at every corner).

Two figures per machine:
- the model: handsfree.shuffle_s, the pace arithmetic of design.py at the card speed the
  simulated feed is calibrated to (measured_timing, as `crib shuffler calibrate`), over
  random plans of the face-down passes, with the drop shaft's restacks;
- the simulated passes: the controller over the simulated feed with the same drive, one pass
  of each plan's deck with coin routing (a radix pass changes bay about as often), times the
  plan's passes, plus the restacks (nominal and the slowest corner only: each is a run).

It prints figures and asserts nothing timed. Also the drive's torque margin and grip, and the
Lotus drive's figures for comparison.

Run: .venv/bin/python tests/benchmarks/bench_handsfree.py [--plans N] [--drive lotus]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from hardware.clock import FakeClock
from hardware.interfaces import DeviceState
from hardware.shuffler import design, handsfree
from hardware.shuffler.controller import ShufflerController
from hardware.shuffler.physics import feed_margins
from hardware.shuffler.ranges import NOMINAL, Params, corners
from hardware.shuffler.simulator import ShufflerTable, _TableMechanism, measured_timing

GOALS = {52: 45.0, 104: 90.0}
CORNER_FACTOR = 1.5
DRIVES = {"handsfree": design.HANDSFREE_DRIVE, "lotus": design.DEFAULT_DRIVE}


def simulated_pass_s(drive: design.DriveBuild, params: Params, seed: int = 5) -> float:
    """One pass of `params.cards` by the controller over the simulated feed (seconds)."""
    settle = handsfree.HANDSFREE_ROUTER.settle_s
    table = ShufflerTable(drive=drive, params=params, rng=random.Random(seed),
                          router_settle_s=settle)
    timing = measured_timing(table, settle, params.cards)
    clock = FakeClock()
    sh = ShufflerController(_TableMechanism(table, clock, timing.sensor_filter), clock,
                            rng=random.Random(seed + 1), timing=timing)
    sh.open()
    table.load(list(range(params.cards)))
    sh.shuffle(params.cards, "light")
    start = clock.monotonic()
    sh.run_until_settled(max_seconds=600)
    if sh.state is not DeviceState.WAITING or table.flap_hits:
        raise RuntimeError(f"{params.label()}: {sh.fault} ({table.flap_hits} flap hits)")
    return clock.monotonic() - start


def model(drive: design.DriveBuild, cards: int, plans: list[handsfree.HandsFreePlan],
          params: Params | None) -> tuple[float, float]:
    """The model's mean shuffle time over `plans` at a corner, and the card speed."""
    p = handsfree.handsfree_pace(cards, params, drive)
    whole = statistics.mean(handsfree.shuffle_s(pl, p, handsfree.DEFAULT_RESTACK)
                            for pl in plans)
    return whole, p.feed_speed_mm_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plans", type=int, default=20, help="random plans per deck size")
    ap.add_argument("--drive", choices=sorted(DRIVES), default="handsfree")
    args = ap.parse_args()
    drive = DRIVES[args.drive]
    t0 = time.perf_counter()
    m = feed_margins(drive)
    print(f"drive {args.drive}: {drive.no_load_rpm:g} rpm, {drive.stall_n_m:g} N m at "
          f"{drive.rated_v:g} V, on {drive.supply_v:g} V, {drive.roller_diameter_mm:g} mm "
          f"roller; torque margin at the worst corner {m.torque:.2f} x, grip {m.grip:.2f} x")
    print(f"restack {handsfree.DEFAULT_RESTACK.restack_s:.2f} s")
    rng = random.Random(3)
    for n in (52, 104):
        passes = handsfree.face_down_passes(n)
        plans = [handsfree.plan_random(n, rng=rng, passes=passes) for _ in range(args.plans)]
        restacks = passes * handsfree.DEFAULT_RESTACK.restack_s

        nominal, v = model(drive, n, plans, None)
        rows = []
        for c in corners((n,)):
            whole, vc = model(drive, n, plans, c)
            rows.append((whole, vc, c))
        rows.sort(key=lambda r: r[0])
        worst, v_worst, c_worst = rows[-1]
        best = rows[0]
        goal = GOALS[n]
        print(f"\n{n} cards, {passes} passes face down (goal {goal:g} s; every corner "
              f"{CORNER_FACTOR * goal:g} s)")
        print(f"  model, nominal: {nominal:6.1f} s  card speed {v:5.0f} mm/s  "
              f"({'met' if nominal <= goal else 'NOT met'})")
        print(f"  model, slowest corner: {worst:6.1f} s  card speed {v_worst:5.0f} mm/s  "
              f"({'met' if worst <= CORNER_FACTOR * goal else 'NOT met'})  {c_worst.label()}")
        print(f"  model, fastest corner: {best[0]:6.1f} s  card speed {best[1]:5.0f} mm/s  "
              f"{best[2].label()}")
        met = sum(1 for r in rows if r[0] <= CORNER_FACTOR * goal)
        print(f"  corners within {CORNER_FACTOR} x the goal: {met} of {len(rows)}")
        for label, params in (("nominal", NOMINAL.with_(cards=n)), ("slowest corner", c_worst),
                              ("fastest corner", best[2])):
            one = simulated_pass_s(drive, params)
            print(f"  simulated passes, {label}: {one:5.2f} s a pass, "
                  f"{passes * one + restacks:6.1f} s a shuffle")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
