"""The runner thread: the daemon's way of running a shuffler (start, shuffle, resume, stop)."""

from __future__ import annotations

import random
import threading
import time

from hardware.clock import FakeClock, PacedClock, SystemClock
from hardware.interfaces import Clock, DeviceEvent, DeviceState
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


class _Loaded(SimulatedShuffler):
    """A shuffler whose runner thread is held up after every step, as on a loaded Pi."""

    def step(self) -> float:
        wait = super().step()
        time.sleep(0.0015)
        return wait


def _run_light(clock: Clock) -> tuple[int, list[str]]:
    """A light shuffle of 52 cards on the runner thread: passes done and faults seen."""
    sh = _Loaded(clock, rng=random.Random(3), machine_rng=random.Random(4))
    faults: list[str] = []
    settled = threading.Event()

    def on_event(e: DeviceEvent) -> None:
        if e.kind == "fault":
            faults.append(e.data["kind"])
            settled.set()
        if e.kind == "prompt":
            settled.set()

    sh.subscribe(on_event)
    sh.start()
    try:
        sh.shuffle(52, "light")
        while not faults and sh.status().passes_done < 3:
            assert settled.wait(30), "the runner neither prompted nor faulted"
            settled.clear()
            if sh.state is DeviceState.WAITING:
                sh.resume()
        return sh.status().passes_done, faults
    finally:
        sh.stop()


def test_a_machine_run_faster_than_life_keeps_its_own_time() -> None:
    # 1.5 ms of real delay after each step is 0.3 s of machine time at 200x on the wall clock:
    # the motor would run on and cards would be called double feeds. On the paced clock a
    # delay costs real time only, and the machine shuffles as it would at its own pace.
    passes, faults = _run_light(PacedClock(200.0))
    assert (passes, faults) == (3, [])


def test_the_same_machine_on_the_wall_clock_faults() -> None:
    # what the paced clock prevents (the test above could not fail without it)
    _, faults = _run_light(_Sped(200.0))
    assert faults


class _Sped(SystemClock):
    """Real time, run `speed` times faster: a delay of the runner is `speed` times as long
    in the machine."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.t0 = time.monotonic()

    def monotonic(self) -> float:
        return (time.monotonic() - self.t0) * self.speed

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds / self.speed)
