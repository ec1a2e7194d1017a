"""Club scale figures (printed, not asserted): simulated tables on one real Mosquitto against
a real `crib club serve`; the director's lag, and the broker's and director's CPU and memory.

Run: `.venv/bin/python tests/benchmarks/bench_club.py` (about 6-8 minutes) or
`.venv/bin/python tests/benchmarks/bench_club.py --steps 50 --seconds 30`.

A simulated table is a paho-mqtt client with the table's own broker user (the club's ACL
applies): it publishes its live state (TableState, retained) at a table's pace, a peg every
2-5 s with jitter, and after 6-12 pegs a finished game (GameResult, QoS 1), then starts the
next; it subscribes to its own `counted`, as a real table does. All the simulated tables
run in one process of their own (`--simulate`: one thread, paho's external-loop calls on a
selector), so their CPU is not counted in the director's or the broker's.

Three lags, all on this machine's one clock:
- peg lag: from a table's publish (the `at` in its TableState) until the director's
  `GET /api/tables` (what the standings page shows of the live games) returns it; polled
  back to back with a 50 ms pause, so the figure includes up to one poll's wait.
- result lag: from a table's publish of a GameResult until its `counted` from the director
  lists it (the director has committed it).
- standings lag: from a table's publish of a GameResult that counts (a seat's first game)
  until a standings message shows it (its winner's `played` up by one), as one table,
  subscribed to the standings, receives it: the goal's "result to standings".
Every table of the largest step is seated in round 1 (two players each): each table's first
game counts in the standings; its later games are taken, stored and acknowledged the same
way and shown as a second result for the seat. The ramp stops at the first step whose p99
peg or result lag passes 1 s. Goals: p99 standings lag under 250 ms and p99 peg lag under
500 ms at 500 tables, nothing lost.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

POLL_PAUSE_S = 0.05
PEG_S = (2.0, 5.0)
PEGS_PER_GAME = (6, 12)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


# -- the simulated tables (their own process) -----------------------------------------------
def simulate(args: argparse.Namespace) -> int:
    """Run `args.tables` simulated tables for `args.seconds`; print one JSON line of the
    result lags (seconds) and counts."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from cribbage.rules import result_of
    from firmware_host.clubwire import (
        Counted,
        GameResult,
        LiveGame,
        Side,
        TableState,
        decode,
        encode,
        standings_topic,
        table_topic,
    )
    from tests.firmware_host.club.night_helpers import CLUB, NIGHT, passwords_for

    seats: dict[str, list[str]] = json.loads(Path(args.seats).read_text())
    names = [f"t{i + 1:03d}" for i in range(args.tables)]
    passwords = passwords_for([f"t{i + 1:03d}" for i in range(args.max_tables)])
    rng = random.Random(args.tables)
    sel = selectors.DefaultSelector()
    sent: dict[str, float] = {}  # "{id}@0" -> publish time
    lags: list[float] = []
    baseline: dict[str, int] = {}  # player -> games played before this step (retained)
    pending: dict[str, float] = {}  # a counting game's winner -> its result's publish time
    standings_lags: list[float] = []
    stats = {"states": 0, "results": 0, "refused_connect": 0}

    class Sim:
        def __init__(self, name: str) -> None:
            self.name = name
            self.names = seats.get(name) or [f"{name} north", f"{name} south"]
            self.game = 1
            self.scores = [0, 0]
            self.length = rng.randint(*PEGS_PER_GAME)
            self.pegs = rng.randrange(self.length)  # the tables' games end spread out
            self.connected = False
            c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{name}",
                            protocol=mqtt.MQTTv5)
            c.username_pw_set(name, passwords[name])
            c.on_connect = self.on_connect
            c.on_message = self.on_message
            self.client = c

        def on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:
            if reason.is_failure:
                stats["refused_connect"] += 1
                return
            self.connected = True
            client.subscribe(table_topic(CLUB, self.name, "counted"), qos=1)
            if self is sims[0]:  # one table watches the standings for all
                client.subscribe(standings_topic(CLUB), qos=1)

        def on_message(self, client: Any, userdata: Any, msg: Any) -> None:
            now = time.time()
            if msg.topic == standings_topic(CLUB):
                rows = json.loads(msg.payload)["rows"]
                if msg.retain or not baseline:
                    baseline.update({r["name"]: r["played"] for r in rows})
                    return
                for r in rows:
                    at = pending.get(r["name"])
                    if at is not None and r["played"] > baseline.get(r["name"], 0):
                        standings_lags.append(now - pending.pop(r["name"]))
                return
            for key in decode(Counted, msg.payload).ids:
                at = sent.pop(key, None)
                if at is not None:
                    lags.append(now - at)

        def peg(self) -> None:
            side = rng.randrange(2)
            self.scores[side] = min(120, self.scores[side] + rng.randint(1, 12))
            self.pegs += 1
            at = time.time()
            state = TableState(table=self.name, at=at, round=1, game=LiveGame(
                id=self.game, variant="six-card", target=121, hand=self.pegs // 4,
                phase="play", dealer=self.names[self.game % 2],
                sides=[Side(names=[n], score=s)
                       for n, s in zip(self.names, self.scores, strict=True)]))
            self.client.publish(table_topic(CLUB, self.name, "state"), encode(state), qos=0,
                                retain=True)
            stats["states"] += 1
            if self.pegs >= self.length:
                self.finish()

        def finish(self) -> None:
            w = 0 if self.scores[0] >= self.scores[1] else 1
            scores = list(self.scores)
            scores[w] = 121
            made = result_of(scores, 121)
            assert made is not None
            kind = made.kind.value  # the engine's, as a real table's
            rid = f"{self.name}.b{args.tables}x{args.run}.{self.game}.1"
            result = GameResult(
                id=rid, table=self.name, night=NIGHT, round=1, winner=w, kind=kind,
                sides=[Side(names=[n], score=s) for n, s in zip(self.names, scores, strict=True)],
                target=121, variant="six-card", finished_at=time.time())
            sent[f"{rid}@0"] = time.time()
            if self.game == 1 and baseline and baseline.get(self.names[w]) == 0:
                pending[self.names[w]] = sent[f"{rid}@0"]  # the seat's game: it counts
            self.client.publish(table_topic(CLUB, self.name, "results"), encode(result), qos=1)
            stats["results"] += 1
            self.game += 1
            self.scores = [0, 0]
            self.pegs = 0
            self.length = rng.randint(*PEGS_PER_GAME)

    sims = [Sim(n) for n in names]
    for s in sims:
        s.client.connect("127.0.0.1", args.port, 60)
        s.client.socket().setblocking(False)
        sel.register(s.client.socket(), selectors.EVENT_READ, s)

    def pump(timeout: float) -> None:
        for key, _ in sel.select(timeout):
            key.data.client.loop_read()
        for s in sims:
            if s.client.want_write():
                s.client.loop_write()

    deadline = time.monotonic() + 20
    while not all(s.connected for s in sims) and time.monotonic() < deadline:
        pump(0.05)
        for s in sims:
            s.client.loop_misc()
    start = time.monotonic()
    due = [(start + rng.uniform(0, PEG_S[1]), i) for i in range(len(sims))]
    heapq.heapify(due)
    misc_at = start
    while time.monotonic() < start + args.seconds:
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, i = heapq.heappop(due)
            sims[i].peg()
            heapq.heappush(due, (now + rng.uniform(*PEG_S), i))
        pump(max(0.0, min(0.02, due[0][0] - time.monotonic())) if due else 0.02)
        if now - misc_at > 1:
            misc_at = now
            for s in sims:
                s.client.loop_misc()
    drain = time.monotonic() + 10  # the last results' counted
    while (sent or pending) and time.monotonic() < drain:
        pump(0.05)
    for s in sims:
        s.client.disconnect()
    pump(0.1)
    print(json.dumps({"lags": lags, "standings_lags": standings_lags,
                      "lost": len(sent) + len(pending),
                      "cpu_s": _cpu_s(os.getpid()),
                      "connected": sum(s.connected for s in sims), **stats}))
    return 0


# -- the bench ------------------------------------------------------------------------------
def step(director: Any, broker: Any, seats_file: Path, tables: int, max_tables: int,
         seconds: float, run: int) -> dict[str, Any]:
    """One step of the ramp: `tables` simulated tables for `seconds`."""
    import httpx

    sim = subprocess.Popen(
        [sys.executable, __file__, "--simulate", "--port", str(broker.port), "--tables",
         str(tables), "--max-tables", str(max_tables), "--seconds", str(seconds),
         "--seats", str(seats_file), "--run", str(run)],
        stdout=subprocess.PIPE, cwd=ROOT)
    bpid, dpid = broker.proc.pid, director.proc.pid
    cpu0 = (_cpu_s(bpid), _cpu_s(dpid))
    t0 = time.monotonic()
    peg_lags: list[float] = []
    last: dict[str, float] = {}
    polls = []
    http = httpx.Client(base_url=director.base, timeout=10)
    rss = [0.0, 0.0]
    while sim.poll() is None:
        p0 = time.monotonic()
        r = http.get("/api/tables")
        now = time.time()
        polls.append(time.monotonic() - p0)
        for t in r.json()["tables"]:
            at = t.get("state_at")
            if at is not None and last.get(t["table"]) != at:
                if t["table"] in last:  # not the state from before this step
                    peg_lags.append(now - at)
                last[t["table"]] = at
        rss = [max(rss[0], _rss_mb(bpid)), max(rss[1], _rss_mb(dpid))]
        time.sleep(POLL_PAUSE_S)
    wall = time.monotonic() - t0
    cpu = ((_cpu_s(bpid) - cpu0[0]) / wall * 100, (_cpu_s(dpid) - cpu0[1]) / wall * 100)
    out = json.loads(sim.stdout.read().decode().strip().splitlines()[-1]) if sim.stdout else {}
    http.close()
    lags = out.get("lags", [])
    slags = out.get("standings_lags", [])
    return {"st_p50": _pct(slags, 0.5), "st_p99": _pct(slags, 0.99),
            "tables": tables, "states": out.get("states", 0), "results": out.get("results", 0),
            "lost": out.get("lost", -1), "connected": out.get("connected", 0),
            "peg_p50": _pct(peg_lags, 0.5), "peg_p99": _pct(peg_lags, 0.99),
            "peg_n": len(peg_lags), "res_p50": _pct(lags, 0.5), "res_p99": _pct(lags, 0.99),
            "res_max": max(lags) if lags else float("nan"),
            "poll_ms": statistics.median(polls) * 1000 if polls else float("nan"),
            "broker_cpu": cpu[0], "director_cpu": cpu[1], "broker_rss": rss[0],
            "director_rss": rss[1], "sim_cpu": out.get("cpu_s", 0) / wall * 100,
            "rate": out.get("states", 0) / seconds}


def bench(steps: list[int], seconds: float) -> list[dict[str, Any]]:
    from tests.firmware_host.club.broker_helpers import Broker
    from tests.firmware_host.club.night_helpers import CLUB, Director, passwords_for

    max_tables = max(steps)
    names = [f"t{i + 1:03d}" for i in range(max_tables)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-club-") as tmp:
        root = Path(tmp)
        t0 = time.monotonic()
        broker = Broker(root / "broker", CLUB, passwords_for(names)).start()
        print(f"broker with {max_tables} table users ready in {time.monotonic() - t0:.1f} s")
        seated = names
        director = Director(root / "director", broker, seated)
        try:
            director.start()
            players = [f"P{i + 1:04d}" for i in range(2 * len(seated))]
            for first in range(0, len(players), 200):  # at most 200 names a request
                director.post("/api/players", {"names": players[first:first + 200]})
            t0 = time.monotonic()
            r = director.post("/api/rounds", {})
            print(f"{len(players)} players seated over {len(seated)} tables in "
                  f"{time.monotonic() - t0:.1f} s")
            seats = {t["table"]: t["names"] for t in r["tables"] if len(t["names"]) == 2}
            seats_file = root / "seats.json"
            seats_file.write_text(json.dumps(seats))
            for run, n in enumerate(steps):
                row = step(director, broker, seats_file, n, max_tables, seconds, run)
                rows.append(row)
                print_rows(rows[-1:], header=run == 0)
                assert director.proc is not None and director.proc.poll() is None, \
                    director.log_text()[-2000:]
                if max(row["peg_p99"], row["res_p99"]) > 1.0:
                    break
            counted = len(director.get("/api/standings")["rows"])
            print(f"standings rows: {counted}; director log "
                  f"{len(director.log_text().splitlines())} lines")
        finally:
            director.close()
            broker.stop()
    return rows


def print_rows(rows: list[dict[str, Any]], header: bool = True) -> None:
    if header:
        print(f"{'tables':>6} {'msg/s':>6} {'results':>7} {'lost':>4} "
              f"{'peg p50':>8} {'peg p99':>8} {'res p50':>8} {'res p99':>8} {'res max':>8} "
              f"{'std p50':>8} {'std p99':>8} "
              f"{'poll':>6} {'broker':>7} {'director':>8} {'b RSS':>6} {'d RSS':>6} "
              f"{'sims':>5}")
        print(f"{'':>6} {'':>6} {'':>7} {'':>4} {'ms':>8} {'ms':>8} {'ms':>8} {'ms':>8} "
              f"{'ms':>8} {'ms':>8} {'ms':>8} {'ms':>6} {'CPU %':>7} {'CPU %':>8} {'MB':>6} "
              f"{'MB':>6} {'CPU%':>5}")
    for r in rows:
        print(f"{r['tables']:>6} {r['rate']:>6.1f} {r['results']:>7} {r['lost']:>4} "
              f"{r['peg_p50'] * 1000:>8.0f} {r['peg_p99'] * 1000:>8.0f} "
              f"{r['res_p50'] * 1000:>8.0f} {r['res_p99'] * 1000:>8.0f} "
              f"{r['res_max'] * 1000:>8.0f} {r['st_p50'] * 1000:>8.0f} "
              f"{r['st_p99'] * 1000:>8.0f} {r['poll_ms']:>6.0f} {r['broker_cpu']:>7.1f} "
              f"{r['director_cpu']:>8.1f} {r['broker_rss']:>6.1f} {r['director_rss']:>6.1f} "
              f"{r['sim_cpu']:>5.0f}", flush=True)


def test_bench_club() -> None:
    """Under pytest (`-o addopts=""`): the first step only, printed."""
    print()
    bench([50], 30)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", default="50,100,200,400,500",
                   help="tables at each step of the ramp (50,100,200,400,500)")
    p.add_argument("--seconds", type=float, default=45, help="seconds per step (45)")
    p.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--tables", type=int, help=argparse.SUPPRESS)
    p.add_argument("--max-tables", type=int, help=argparse.SUPPRESS)
    p.add_argument("--seats", help=argparse.SUPPRESS)
    p.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.simulate:
        return simulate(args)
    steps = [int(s) for s in args.steps.split(",")]
    print(f"club bench: {len(os.sched_getaffinity(0))} CPUs, steps {steps}, "
          f"{args.seconds:.0f} s each, a peg every {PEG_S[0]:.0f}-{PEG_S[1]:.0f} s a table")
    bench(steps, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
