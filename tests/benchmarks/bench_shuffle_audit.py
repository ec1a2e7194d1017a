"""Benchmark: `crib shuffle-audit` of 20,000 decks of 52 cards at 7 passes (goal: under 10 s).

Run: .venv/bin/python tests/benchmarks/bench_shuffle_audit.py, or `make bench`.
"""

from __future__ import annotations

import time

from hardware.shuffler.audit import AuditConfig, simulate


def main() -> None:
    for routing, passes in (("coin", 7), ("radix", 6)):
        started = time.perf_counter()
        report = simulate(AuditConfig(deck=52, passes=passes, routing=routing, decks=20_000))
        wall = time.perf_counter() - started
        est = (f", TV estimate {report.tv_estimate:.4f} +- {report.tv_estimate_se:.4f}"
               if report.tv_estimate is not None else "")
        print(f"shuffle-audit {routing}: 20,000 decks of 52 at {passes} passes in {wall:.2f} s "
              f"({'under' if wall < 10 else 'OVER'} the 10 s goal){est}; ok={report.ok}")


if __name__ == "__main__":
    main()


def test_bench_shuffle_audit() -> None:
    """So `make bench` (pytest over tests/benchmarks) prints these figures too."""
    main()
