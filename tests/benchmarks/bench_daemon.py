"""Daemon speed figures (printed, not asserted): READY time, idle memory, pegging latency.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_daemon.py -s -o addopts=""`
or `.venv/bin/python tests/benchmarks/bench_daemon.py`.

The load runs in its own process (`--load`), so the client's CPU does not count inside the
daemon's, and it is a small HTTP/1.1 keep-alive client on asyncio streams rather than httpx:
on two cores a heavy client would queue its own requests and report its own delays as the
daemon's. Latency is still measured at the client, from the request's first byte to the
answer's last, and every answer is the committed one (WAL, synchronous=FULL). Each phase
also reports the daemon's CPU per action (from /proc), the figure that bounds flat-out
throughput: with 20 requests in flight, the last one waits for the other 19.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CLIENTS = 20
PACE_S = 0.5  # a realistic table: a tap every half second per phone
ACTIONS_PER_CLIENT = 60
SEQUENTIAL_ACTIONS = 200  # a game ends at 121: 240 one-point pegs
WARM_UP_ACTIONS = 20
IDLE_S = 20.0  # long enough for the kernel's 10 ms CPU ticks to read 0.05 %


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_cpu_s(pid: int) -> dict[int, float]:
    """CPU seconds of each live thread, by thread id, from the scheduler's nanosecond
    count (finer than the 10 ms ticks of /proc/PID/stat)."""
    out: dict[int, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out[int(task.name)] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return out


# -- the load (run in its own process) ------------------------------------------------------
class Http:
    """One kept-alive HTTP/1.1 connection with TCP_NODELAY (no Nagle/delayed-ACK stalls)."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.head = (f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                     "Content-Type: application/json\r\n").encode()
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.get_extra_info("socket").setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        self.writer.write(b"POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s"
                          % (path.encode(), self.head, len(data), data))
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def _client(index: int, clients: int, port: int, token: str, actions: int, pace: float,
                  latencies: list[float], ready: asyncio.Barrier) -> None:
    # Phones tap independently: each has its own phase and its own pauses. (The same pause
    # sequence for all, started together, made every paced tap a burst of 20 at once.)
    rng = random.Random(index)
    http = Http(port, token)
    await http.open()
    try:
        status, data = await http.post("/api/games", {"names": ["Ann", "Bob"], "dealer": 0})
        assert status == 201, data
        game = json.loads(data)
        await ready.wait()  # every game made: only pegging is measured
        if pace:
            await asyncio.sleep(pace * index / clients)
        for i in range(actions):
            body = {"version": game["version"], "op_id": f"{game['id']}-{i}",
                    "action": {"type": "peg", "side": i % 2, "points": 1}}
            t0 = time.perf_counter()
            status, data = await http.post(f"/api/games/{game['id']}/actions", body)
            latencies.append(time.perf_counter() - t0)
            assert status == 200, data
            game = json.loads(data)["game"]
            if pace:
                await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
    finally:
        http.close()


def load_main(port: int, token: str, clients: int, actions: int, pace: float) -> None:
    """Run `clients` concurrent clients; print {"wall": s, "latencies": [s, ...]}."""
    latencies: list[float] = []

    async def everyone() -> float:
        ready = asyncio.Barrier(clients)
        t0 = time.perf_counter()
        await asyncio.gather(*(_client(i, clients, port, token, actions, pace, latencies, ready)
                               for i in range(clients)))
        return time.perf_counter() - t0

    wall = asyncio.run(everyone())
    print(json.dumps({"wall": wall, "latencies": latencies}))


# -- the benchmark ----------------------------------------------------------------------------
def _phase(pid: int, port: int, token: str, clients: int, actions: int,
           pace: float) -> dict[str, float]:
    threads0 = _thread_cpu_s(pid)
    out = subprocess.run(
        [sys.executable, __file__, "--load", str(port), token, str(clients), str(actions),
         str(pace)], capture_output=True, text=True, timeout=600,
    )
    threads = {tid: t - threads0.get(tid, 0.0) for tid, t in _thread_cpu_s(pid).items()}
    loop_cpu = threads.pop(pid, 0.0)  # the main thread runs the event loop
    cpu = loop_cpu + sum(threads.values())
    if out.returncode != 0:
        raise RuntimeError(f"the load failed: {out.stderr[-3000:]}")
    result = json.loads(out.stdout)
    lat = sorted(result["latencies"])
    q = statistics.quantiles(lat, n=100)
    return {"actions": float(len(lat)), "per_s": len(lat) / result["wall"],
            "p50_ms": q[49] * 1000, "p99_ms": q[98] * 1000, "max_ms": lat[-1] * 1000,
            # All threads; then split: the event loop (HTTP, FastAPI, engine, board frames
            # queued) and every other thread (commit, board link, simulated board).
            "cpu_ms_per_action": cpu * 1000 / len(lat),
            "loop_ms_per_action": loop_cpu * 1000 / len(lat),
            "threads_ms_per_action": sum(threads.values()) * 1000 / len(lat)}


READY_STARTS = 5  # READY is one start's wall time: noisy on a shared machine


def _ready_s(command: list[str], sock: socket.socket, env: dict[str, str]) -> float:
    """Seconds from the start of `command` to its READY=1 (then it is stopped)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while b"READY=1" not in sock.recv(4096):
            pass
        return time.monotonic() - t0
    finally:
        proc.terminate()
        proc.wait(15)


def run() -> dict[str, float]:
    from tests.firmware_host.conftest import CRIB, make_token, write_config
    from tests.processes import free_port

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        port = free_port()
        config = write_config(state, port)
        token = make_token(state)
        notify = Path(tmp) / "notify.sock"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(notify))
        sock.settimeout(15)
        env = {**os.environ, "NOTIFY_SOCKET": str(notify)}
        command = [CRIB, "serve", "--simulate", "--config", str(config)]
        starts = sorted(_ready_s(command, sock, env) for _ in range(READY_STARTS - 1))
        t0 = time.monotonic()
        log = (Path(tmp) / "log").open("wb")
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            while b"READY=1" not in sock.recv(4096):
                pass
            starts = sorted([*starts, time.monotonic() - t0])
            ready_s = statistics.median(starts)
            time.sleep(2)
            idle_mb = _rss_mb(proc.pid)
            # Idle: nothing to do but the devices' heartbeats (goal < 0.2 % of a core).
            cpu0 = _cpu_s(proc.pid)
            time.sleep(IDLE_S)
            idle_pct = (_cpu_s(proc.pid) - cpu0) * 100 / IDLE_S
            # A first game: FastAPI builds each route's state on its first request, and the
            # first SQLite pages are read: start-up costs, not costs per action.
            _phase(proc.pid, port, token, 1, WARM_UP_ACTIONS, 0.0)
            # One phone, one at a time, on the current game (the board follows every action).
            sequential = _phase(proc.pid, port, token, 1, SEQUENTIAL_ACTIONS, 0.0)
            paced = _phase(proc.pid, port, token, CLIENTS, ACTIONS_PER_CLIENT, PACE_S)
            flat = _phase(proc.pid, port, token, CLIENTS, ACTIONS_PER_CLIENT, 0.0)
            busy_mb = _rss_mb(proc.pid)
        except BaseException:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1)
            print((Path(tmp) / "log").read_text()[-6000:])
            raise
        finally:
            proc.terminate()
            proc.wait(15)
            sock.close()
            log.close()

    def line(name: str, f: dict[str, float]) -> str:
        return (f"{name}: {f['actions']:.0f} actions, p50 {f['p50_ms']:.1f} ms, "
                f"p99 {f['p99_ms']:.1f} ms, max {f['max_ms']:.1f} ms, "
                f"{f['per_s']:.0f} actions/s, daemon CPU {f['cpu_ms_per_action']:.2f} ms/action "
                f"(event loop {f['loop_ms_per_action']:.2f} + other threads "
                f"{f['threads_ms_per_action']:.2f})")

    print(f"\ndaemon: READY after {ready_s:.2f} s (median of {len(starts)} starts, min "
          f"{starts[0]:.2f} s; goal < 0.4 s); idle RSS {idle_mb:.1f} MB "
          f"(goal < 80 MB), {busy_mb:.1f} MB after load; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"daemon idle: {idle_pct:.2f} % of a core over {IDLE_S:.0f} s (goal < 0.2 %); "
          f"CPU per pegging action goal <= 0.7 ms (sequential)")
    print("pegging, latency at the client including the commit (goal: p99 < 10 ms):")
    print(line(f"  sequential (1 client, current game, board shown, after {WARM_UP_ACTIONS} "
               "actions of warm-up)", sequential))
    print(line(f"  paced ({CLIENTS} clients, one tap each ~{PACE_S * 1000:.0f} ms, "
               f"{CLIENTS / PACE_S:.0f}/s offered)", paced))
    print(line(f"  flat out ({CLIENTS} clients, no pause)", flat))
    figures = {"ready_s": ready_s, "ready_min_s": starts[0], "idle_rss_mb": idle_mb,
               "rss_after_load_mb": busy_mb, "idle_cpu_pct": idle_pct}
    for name, f in (("sequential", sequential), ("paced", paced), ("flat", flat)):
        figures |= {f"{name}_{k}": v for k, v in f.items()}
    return figures


def test_bench_daemon() -> None:
    run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", nargs=5, metavar=("PORT", "TOKEN", "CLIENTS", "ACTIONS",
                                                    "PACE"),
                        help="run only the client load and print its latencies as JSON")
    args = parser.parse_args()
    if args.load:
        port, token, clients, actions, pace = args.load
        load_main(int(port), token, int(clients), int(actions), float(pace))
    else:
        run()
