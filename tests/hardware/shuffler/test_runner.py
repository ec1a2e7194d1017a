"""The runner thread: the daemon's way of running a shuffler (start, shuffle, resume, stop)."""

from __future__ import annotations

import random
import threading

from hardware.clock import FakeClock
from hardware.interfaces import DeviceEvent, DeviceState
from hardware.shuffler.simulator import SimulatedShuffler


def test_runner_thread_runs_passes_and_stop_ends_it() -> None:
    sh = SimulatedShuffler(FakeClock(), rng=random.Random(1), machine_rng=random.Random(2))
    prompts, done = threading.Event(), threading.Event()
    seen: list[DeviceEvent] = []

    def on_event(e: DeviceEvent) -> None:
        seen.append(e)
        if e.kind == "prompt":
            (done if e.data.get("done") else prompts).set()

    sh.subscribe(on_event)
    sh.start()
    try:
        sh.shuffle(52, "light")
        for _ in range(2):
            assert prompts.wait(10), "no prompt from the runner"
            prompts.clear()
            assert sh.state is DeviceState.WAITING
            sh.resume()
        assert done.wait(10)
        assert sh.status().passes_done == 3
    finally:
        sh.stop()
    assert sh.state is DeviceState.STOPPED
    assert not sh.table.motor
    assert seen[-1].data == {"state": "stopped"}
