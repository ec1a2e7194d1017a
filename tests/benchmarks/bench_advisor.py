"""Benchmark: exact `random`-model advice for one dealt hand (goal: six-card under 25 ms median).

Run: .venv/bin/python tests/benchmarks/bench_advisor.py [--hands 200] [--check N]
`--check N` also compares N random six-card hands (every discard) with the brute-force
enumeration by score_hand from the tests (about 3 s a hand).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from cribbage import ALL_CARDS
from cribbage.advisor import DEALS, advise


def _hands(variant: str, count: int, seed: str) -> list[tuple]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        out.append(tuple(deck[: DEALS[variant].dealt]))
    return out


def bench(variant: str, count: int, model: str = "random") -> dict[str, float]:
    """Per-hand wall times (ms) of advise() over `count` seeded random hands."""
    times = []
    for i, hand in enumerate(_hands(variant, count, f"bench-{variant}")):
        started = time.perf_counter()
        advise(hand, dealer=bool(i % 2), variant=variant, model=model)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "median": statistics.median(times),
        "p90": times[int(0.9 * (len(times) - 1))],
        "max": times[-1],
        "mean": statistics.fmean(times),
    }


def check(count: int) -> None:
    # The reference lives in the tests; run as a script, the repository is not on the path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.cribbage.test_advisor import check_against_brute

    started = time.perf_counter()
    for i, hand in enumerate(_hands("six-card", count, "check")):
        check_against_brute(hand, "six-card", dealer=bool(i % 2))
    print(f"brute force: {count} six-card hands x 15 discards equal exactly "
          f"({time.perf_counter() - started:.0f} s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--check", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    advise("7C 9H 5H 5C 5D JS", dealer=True)
    print(f"first call (tables warm at import): {(time.perf_counter() - started) * 1000:.1f} ms")
    for variant in DEALS:
        for model in ("random", "table"):
            if model == "table" and variant != "six-card":
                continue
            f = bench(variant, args.hands, model)
            goal = ""
            if variant == "six-card" and model == "random":
                goal = f" ({'under' if f['median'] < 25 else 'OVER'} the 25 ms goal)"
            print(f"advise {variant:<12} {model:<6} {args.hands} hands: median "
                  f"{f['median']:.2f} ms, p90 {f['p90']:.2f} ms, max {f['max']:.2f} ms{goal}")
    if args.check:
        check(args.check)


def test_bench_advisor() -> None:
    main(["--hands", "200"])


if __name__ == "__main__":
    main()
