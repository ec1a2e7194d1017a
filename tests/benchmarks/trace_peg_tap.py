"""Files and hops for one peg tap, from the route to the commit and the LEDs (printed).

Run: `.venv/bin/python tests/benchmarks/trace_peg_tap.py [-v]`.

A real daemon in this process (uvicorn in a thread, the simulated board behind its serial
link): every call between the project's own functions (cribbage/, firmware_host/,
hardware/) is recorded on every thread while one peg is posted and shown on the board, and
again over an idle window as long (heartbeats, timers), which is taken away. A file is one the
tap runs code in; a hop is a call from one of the project's files into another (one caller
file, one callee file: counted once each).
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
PACKAGES = tuple(str(ROOT / p) + "/" for p in ("cribbage", "firmware_host", "hardware"))

calls: Counter[tuple[str, str, str]] = Counter()
recording = False


def _project(path: str) -> str | None:
    return path[len(str(ROOT)) + 1:] if path.startswith(PACKAGES) else None


def _profile(frame, event, arg):  # type: ignore[no-untyped-def]
    if not recording or event != "call":
        return
    callee = _project(frame.f_code.co_filename)
    if callee is None:
        return
    caller = frame.f_back
    # The nearest project frame up the stack is the caller (library frames between are
    # FastAPI, starlette, the thread pool: part of the hop, not files of ours).
    while caller is not None and _project(caller.f_code.co_filename) is None:
        caller = caller.f_back
    source = _project(caller.f_code.co_filename) if caller is not None else "<outside>"
    calls[(source or "<outside>", callee, frame.f_code.co_name)] += 1


def _window(seconds: float, act=None) -> Counter[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    global recording
    calls.clear()
    recording = True
    t0 = time.monotonic()
    if act is not None:
        act()
    while time.monotonic() - t0 < seconds:
        time.sleep(0.01)
    recording = False
    return Counter(calls)


def main() -> None:
    from tests.firmware_host.conftest import Client, ThreadServer, make_token

    verbose = "-v" in sys.argv
    threading.setprofile(_profile)
    sys.setprofile(_profile)
    with tempfile.TemporaryDirectory() as tmp, ThreadServer(Path(tmp) / "state") as srv:
        srv.wait_board_idle()
        client = Client(f"http://127.0.0.1:{srv.port}", make_token(Path(tmp) / "state"))
        game = client.new_game(mode="keeper", dealer=0)
        for action in ({"type": "starter", "card": "5H"}, {"type": "peg", "side": 0,
                                                            "points": 1}):
            game = client.act(game, action).json()["game"]
        time.sleep(0.5)
        board = srv.services.devices["board"]

        def tap() -> None:
            r = client.act(game, {"type": "peg", "side": 1, "points": 2})
            assert r.status_code == 200, r.text

        idle = _window(0.6)
        tapped = _window(0.6, tap)
        assert board.device is not None
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    idle_edges = {(a, b) for a, b, _ in idle}
    edges: Counter[tuple[str, str]] = Counter()
    called: dict[tuple[str, str], set[str]] = {}
    files: set[str] = set()
    functions: set[tuple[str, str]] = set()
    for (src, dst, name), n in tapped.items():
        if (src, dst) in idle_edges:
            continue
        files.add(dst)
        functions.add((dst, name))
        if src != dst:
            edges[(src, dst)] += n
            called.setdefault((src, dst), set()).add(name)
    print(f"one peg tap: {len(files)} files, {len(edges)} hops (file to file), "
          f"{sum(edges.values())} calls across files, {len(functions)} functions of ours")
    if verbose:
        for f in sorted(files):
            print("  file", f)
        for (a, b), n in sorted(edges.items()):
            print(f"  hop {a} -> {b} ({n} calls: {', '.join(sorted(called[(a, b)]))})")


if __name__ == "__main__":
    main()
