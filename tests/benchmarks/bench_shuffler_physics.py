"""Benchmark: Monte-Carlo passes of the physics simulator at the corners of the parameter
ranges (hardware.shuffler.ranges): per corner, the pass time of 52 and 104 cards (mean and
the slowest of the runs), every fault and physical mishap (a card stopped unseen, the router
moving under a card, a card standing up at the end wall), and the whole shuffle's time per
plan (its passes and 4 s to restack each).

Each machine is calibrated first as `crib shuffler calibrate` would (a full tray, each card
timed); every pass draws each card's own speed afresh (its spread) and a fresh routing.

Run: .venv/bin/python tests/benchmarks/bench_shuffler_physics.py [--passes N] [--all]
By default it runs 200 passes per corner on 8 machines, reduced by what each parameter
can change: every corner of the card-on-card and card-on-PETG frictions, each with the
weakest drive (motor constants -15 %, 4.75 V, the heaviest 0.32 mm cards) and the strongest
(+15 %, 5.25 V, 0.28 mm), both for 52 and 104 cards, plus the nominal machine. The tyre's
friction decides only whether the tyre slips, never a card's speed while it grips (the
grip is at least 1.1 x the load at every corner, tests/hardware/shuffler/test_design.py),
so it is held at its worst, 0.8; the mixed motor corners lie between the weakest and the
strongest in load and in speed (each is monotonic in every motor figure). The unit tests
pass one deck at every one of the 256 corners; `--all` runs all of them here too.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections import Counter

from hardware.clock import FakeClock
from hardware.interfaces import DeviceState
from hardware.shuffler import design, pace
from hardware.shuffler.plan import Pile
from hardware.shuffler.ranges import NOMINAL, RANGES, Params, corners
from hardware.shuffler.simulator import SimulatedShuffler

FRICTIONS = ("mu_card_card", "mu_card_petg")


def default_corners() -> list[Params]:
    """The friction corners with the weakest and the strongest drive, and nominal."""
    out = []
    for ends in itertools.product((0, 1), repeat=len(FRICTIONS)):
        frictions = {n: RANGES[n][e] for n, e in zip(FRICTIONS, ends, strict=True)}
        frictions["mu_tyre_card"] = RANGES["mu_tyre_card"][0]
        for weak in (True, False):
            motor = {k: RANGES[k][0 if weak else 1]
                     for k in ("motor_speed", "motor_torque", "supply_v")}
            motor["card_thickness_mm"] = RANGES["card_thickness_mm"][1 if weak else 0]
            for cards in (52, 104):
                out.append(Params(cards=cards, **frictions, **motor))  # type: ignore[arg-type]
    return out + [NOMINAL, NOMINAL.with_(cards=104)]


def run_corner(params: Params, passes: int, seed: int) -> dict[str, object]:
    """`passes` single passes of `params.cards` on one calibrated machine."""
    clock = FakeClock()
    sh = SimulatedShuffler(clock, params=params, rng=random.Random(seed),
                           machine_rng=random.Random(seed + 1), auto_load=False)
    sh.open()
    n, table = params.cards, sh.table
    times: list[float] = []
    faults: Counter[str] = Counter()
    for _ in range(passes):
        table.load(list(range(n)))
        start = clock.monotonic()
        sh.shuffle(n, "light")
        sh.run_until_settled(max_seconds=600)
        if sh.state is DeviceState.WAITING:
            times.append(clock.monotonic() - start)
        else:
            faults[sh.fault.kind if sh.fault else sh.state.value] += 1
        sh.abort()
        table.gather(Pile.LEFT)
        table.tray.clear()
    return {"times": times, "faults": faults, "unseen": table.unseen_stops,
            "flap_hits": table.flap_hits, "stood_up": table.stood_up,
            "wall_max": max(table.wall_speeds, default=0.0),
            "speeds": sh._timing.speeds}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--passes", type=int, default=200)
    ap.add_argument("--all", action="store_true", help="every corner of the ranges")
    args = ap.parse_args(argv)
    chosen = corners() + [NOMINAL, NOMINAL.with_(cards=104)] if args.all else default_corners()
    print(f"{len(chosen)} corners x {args.passes} passes (a pass: one deck through both piles)")
    header = (f"{'corner':58} {'pass mean':>9} {'slowest':>8} {'faults':>10} "
              f"{'unseen':>6} {'flap':>4} {'stood':>5} {'wall m/s':>8}")
    print(header)
    started = time.perf_counter()
    results: dict[Params, dict[str, object]] = {}
    for i, params in enumerate(chosen):
        r = run_corner(params, args.passes, seed=1000 + i)
        results[params] = r
        ts: list[float] = r["times"]  # type: ignore[assignment]
        faults: Counter[str] = r["faults"]  # type: ignore[assignment]
        shown = ",".join(f"{k}:{v}" for k, v in sorted(faults.items())) or "none"
        mean = f"{statistics.fmean(ts):.2f} s" if ts else "-"
        slow = f"{max(ts):.2f} s" if ts else "-"
        print(f"{params.label():58} {mean:>9} {slow:>8} {shown:>10} {r['unseen']:>6} "
              f"{r['flap_hits']:>4} {r['stood_up']:>5} {r['wall_max'] / 1000:>8.2f}",
              flush=True)
    wall = time.perf_counter() - started
    print(f"\n{len(chosen) * args.passes} passes in {wall:.0f} s")
    # the whole shuffle per plan, from each corner's mean pass time
    passes_by = {52: pace.plan_passes(52), 104: pace.plan_passes(104)}
    print(f"\nwhole shuffle ({design.RESTACK_S:.0f} s to restack each pass), per plan:")
    print(f"{'corner':58} {'exact':>8} {'random':>8} {'light':>8}")
    for params, r in results.items():
        ts = r["times"]  # type: ignore[assignment]
        if not ts:
            continue
        mean = statistics.fmean(ts)
        cells = [f"{k * (mean + design.RESTACK_S):.0f} s"
                 for k in (passes_by[params.cards][p] for p in ("exact", "random", "light"))]
        print(f"{params.label():58} {cells[0]:>8} {cells[1]:>8} {cells[2]:>8}")


if __name__ == "__main__":
    main()


def test_bench_shuffler_physics() -> None:
    """So `make bench` (pytest over tests/benchmarks) prints these figures too."""
    main([])
