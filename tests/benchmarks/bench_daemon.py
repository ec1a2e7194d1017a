"""Daemon speed figures (printed, not asserted): READY time, idle memory, pegging latency.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_daemon.py -s -o addopts=""`
or `.venv/bin/python tests/benchmarks/bench_daemon.py`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.firmware_host.conftest import CRIB, free_port, make_token, write_config  # noqa: E402

NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
CLIENTS = 20
PACE_S = 0.5  # a realistic table: a tap every half second per phone
ACTIONS_PER_CLIENT = 60


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _client(base: str, token: str, latencies: list[float], pace: float = 0.0) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    # TCP_NODELAY: without it Nagle and delayed ACKs add 40 ms to every kept-alive request.
    transport = httpx.AsyncHTTPTransport(socket_options=NODELAY)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10,
                                 transport=transport) as http:
        r = await http.post("/api/games", json={"names": ["Ann", "Bob"], "dealer": 0})
        game = r.json()
        for i in range(ACTIONS_PER_CLIENT):
            body = {"version": game["version"], "op_id": f"{game['id']}-{i}",
                    "action": {"type": "peg", "side": i % 2, "points": 1}}
            t0 = time.perf_counter()
            r = await http.post(f"/api/games/{game['id']}/actions", json=body)
            latencies.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
            game = r.json()["game"]
            if pace:
                await asyncio.sleep(pace * (0.5 + (i * 7919 % 100) / 100))


def run() -> dict[str, float]:
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
        t0 = time.monotonic()
        log = (Path(tmp) / "log").open("wb")
        proc = subprocess.Popen([CRIB, "serve", "--simulate", "--config", str(config)],
                                env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            while b"READY=1" not in sock.recv(4096):
                pass
            ready_s = time.monotonic() - t0
            time.sleep(2)
            idle_mb = _rss_mb(proc.pid)
            latencies: list[float] = []
            base = f"http://127.0.0.1:{port}"

            async def all_clients(into: list[float], pace: float) -> None:
                await asyncio.gather(*(_client(base, token, into, pace)
                                       for _ in range(CLIENTS)))

            paced: list[float] = []
            asyncio.run(all_clients(paced, PACE_S))
            t1 = time.perf_counter()
            asyncio.run(all_clients(latencies, 0.0))
            wall = time.perf_counter() - t1
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
    pp = statistics.quantiles(sorted(paced), n=100)
    lat = sorted(latencies)
    p = statistics.quantiles(lat, n=100)
    figures = {
        "ready_s": ready_s,
        "idle_rss_mb": idle_mb,
        "rss_after_load_mb": busy_mb,
        "actions": float(len(lat)),
        "actions_per_s": len(lat) / wall,
        "p50_ms": p[49] * 1000,
        "p99_ms": p[98] * 1000,
        "max_ms": lat[-1] * 1000,
    }
    print(f"\ndaemon: READY after {ready_s:.2f} s (goal < 3 s); idle RSS {idle_mb:.1f} MB "
          f"(goal < 80 MB), {busy_mb:.1f} MB after load")
    print(f"pegging flat out from {CLIENTS} concurrent clients, {len(lat)} actions with commit: "
          f"p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms (goal < 10 ms), "
          f"max {figures['max_ms']:.1f} ms, {figures['actions_per_s']:.0f} actions/s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"paced (each of {CLIENTS} clients pegs every ~{PACE_S * 1000:.0f} ms, "
          f"{CLIENTS / PACE_S:.0f} actions/s offered): p50 {pp[49] * 1000:.1f} ms, "
          f"p99 {pp[98] * 1000:.1f} ms")
    figures |= {"paced_p50_ms": pp[49] * 1000, "paced_p99_ms": pp[98] * 1000}
    return figures


def test_bench_daemon() -> None:
    run()


if __name__ == "__main__":
    run()
