"""Benchmark: a peg change reaching the simulated board's LED buffer through a real pty.

Run: .venv/bin/python tests/benchmarks/bench_board_link.py [--updates 500] [--firmware]
Prints p50/p99/max latency from `show()` to the frame buffer changing, and the bytes on the
wire per board update (goals: p99 under 20 ms, at most 32 bytes). `--firmware` runs the
board's firmware core under MicroPython (the WebAssembly port, Node) instead of CPython.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from hardware.board.host import SerialPegBoard
from hardware.board.layout import BoardLayout
from hardware.board.link import Msg, encode_state
from hardware.board.protocol import encode_frame
from hardware.board.simulator import BoardSimulator
from hardware.clock import SystemClock
from hardware.interfaces import BoardState, DeviceState, TrackPegs


def run(updates: int, tracks: int = 2, firmware: str = "cpython") -> dict[str, float]:
    layout = BoardLayout(tracks=tracks, holes=120)
    clock = SystemClock()
    sim = BoardSimulator(layout, clock, firmware=firmware)
    board = SerialPegBoard(sim.open_pty(), layout, clock)
    board.start()
    try:
        if not board.wait_connected(10) or board.state is not DeviceState.IDLE:
            raise SystemExit(f"board did not connect: {board.describe()}")
        latencies = []
        for i in range(updates):
            front = i % 120 + 1
            state = BoardState(tracks=tuple(TrackPegs(front, front - 1) for _ in range(tracks)),
                               lines=(91, 61))
            applied = sim.boots, sim.firmware.states_applied
            t0 = time.perf_counter()
            board.show(state)
            if not sim.wait_until(
                    lambda s, n=applied: (s.boots, s.firmware.states_applied) > n, 5):
                raise SystemExit(f"update {i} never reached the board")
            latencies.append((sim.rendered_at or 0) - t0)
            # wait for the ack so each update is measured alone, not coalesced
            deadline = time.monotonic() + 5
            while board.link.state_pending and time.monotonic() < deadline:
                time.sleep(0.0005)
        latencies.sort()
        worst = BoardState(tracks=(TrackPegs(999, 990), TrackPegs(998, 990)), target=1000,
                           code="123456789012", winner=0, lines=(751, 501))
        return {
            "updates": updates,
            "p50_ms": statistics.median(latencies) * 1000,
            "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] * 1000,
            "max_ms": latencies[-1] * 1000,
            "bytes_per_update": board.describe()["bytes_per_update"],
            "bytes_worst_case": len(encode_frame(Msg.STATE, 255, encode_state(worst))),
            "retransmits": board.link.stats.retransmits,
            "reboots": sim.boots - 1,
        }
    finally:
        board.stop()
        sim.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=500)
    parser.add_argument("--tracks", type=int, default=2)
    parser.add_argument("--firmware", action="store_true",
                        help="the firmware core under MicroPython (Node)")
    args = parser.parse_args(argv)
    kind = "micropython" if args.firmware else "cpython"
    r = run(args.updates, args.tracks, kind)
    print(f"peg change -> LED buffer over a pty, firmware core under {kind}, "
          f"{r['updates']} updates ({args.tracks} tracks, 2 skunk lines): "
          f"p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, max {r['max_ms']:.2f} ms "
          f"(goal p99 < 20 ms)")
    print(f"bytes on the wire per board update: {r['bytes_per_update']} ({args.tracks} tracks, "
          f"lines, no code); 2-track worst case {r['bytes_worst_case']} (scores near 1000, "
          "12-digit code, winner, 2 lines); goal <= 32")
    print(f"retransmits: {r['retransmits']}, board restarts: {r['reboots']}")
    return 0 if r["p99_ms"] < 20 and r["bytes_worst_case"] <= 32 else 1


def test_board_link_speed():
    """Also runnable with pytest tests/benchmarks/bench_board_link.py (prints, asserts goals)."""
    assert main(["--updates", "200"]) == 0


def test_board_link_speed_micropython_firmware():
    assert main(["--updates", "200", "--firmware"]) == 0


if __name__ == "__main__":
    sys.exit(main())
