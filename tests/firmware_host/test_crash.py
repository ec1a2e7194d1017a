"""SIGKILL at random points: no acknowledged action lost, the board put back on restart."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from tests.firmware_host.conftest import Daemon


def _pegger(daemon: Daemon, game: dict[str, Any], acked: dict[str, int],
            stop: threading.Event, rng: random.Random) -> None:
    """Peg as fast as possible, recording each acknowledged op id with its version."""
    http = httpx.Client(base_url=daemon.client.base, timeout=2,
                        headers={"Authorization": f"Bearer {daemon.token}"})
    while not stop.is_set():
        op = f"op-{rng.random()}"
        body = {"version": game["version"], "op_id": op,
                "action": {"type": "peg", "side": rng.randrange(2), "points": 1}}
        try:
            r = http.post(f"/api/games/{game['id']}/actions", json=body)
        except httpx.HTTPError:
            return  # the daemon died under us: whatever was not answered may be lost
        if r.status_code != 200:
            return
        game = r.json()["game"]
        acked[op] = game["version"]
        if game["result"] is not None:
            return


def test_sigkill_loses_no_acknowledged_action(tmp_path: Path) -> None:
    rng = random.Random(4)
    daemon = Daemon(tmp_path / "state")
    try:
        daemon.start()
        game = daemon.client.new_game(names=["Ann", "Bob"], dealer=0)
        acked: dict[str, int] = {}
        for _round in range(2):
            stop = threading.Event()
            current = daemon.client.req("GET", f"/api/games/{game['id']}").json()
            before = len(acked)
            seed = rng.random()
            worker = threading.Thread(target=_pegger,
                                      args=(daemon, current, acked, stop, random.Random(seed)))
            worker.start()
            # A random point: after a few acknowledgements, then a random part of a request.
            wanted = before + rng.randint(1, 6)
            deadline = time.monotonic() + 10
            while len(acked) < wanted and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(rng.uniform(0, 0.02))
            daemon.kill()
            stop.set()
            worker.join(5)
            daemon.start()
            after = daemon.client.req("GET", f"/api/games/{game['id']}").json()
            assert acked, "no action was acknowledged before the kill"
            assert after["version"] >= max(acked.values())
            log = daemon.client.req("GET", f"/api/export?game={game['id']}").json()
            seq_of = {a["op_id"]: a["seq"] for a in log["games"][0]["actions"]}
            for op, version in acked.items():
                assert seq_of.get(op) == version, f"acknowledged {op} lost"
            # The pegs equal the log: one point per peg.
            assert sum(s["front"] for s in after["sides"]) == after["version"]
            daemon.wait_board_idle()
            daemon.client.wait_board(after["sides"])
    finally:
        daemon.close()
