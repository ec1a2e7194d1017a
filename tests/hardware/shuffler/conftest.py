"""One conformance harness per Shuffler implementation: the simulator, and the GPIO driver
on gpiozero mock pins wired to the same simulated machine."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from hardware.clock import FakeClock
from hardware.interfaces import DeviceEvent, DeviceState
from hardware.shuffler.controller import ShufflerController, Timing
from hardware.shuffler.simulator import ShufflerTable, SimulatedShuffler

# Active-high sensors, as the tests drive the pins by hand (the default, pull-up and low =
# card, has its own tests)
PINS = {"motor": 17, "router": 18, "left_sensor": 22, "right_sensor": 23,
        "tray_sensor": 24, "touch": 25, "led": 26, "brake": 27, "sensor_pull_up": False}


class Harness:
    """Drives one implementation with a FakeClock, playing the player's part."""

    kind: str
    shuffler: ShufflerController
    table: ShufflerTable
    clock: FakeClock

    def __init__(self) -> None:
        self.events: list[DeviceEvent] = []

    def load(self, cards: int) -> None:
        self.table.load(list(range(cards)))

    def run(self) -> None:
        raise NotImplementedError

    def resume(self) -> None:
        raise NotImplementedError

    def motor_on(self) -> bool:
        raise NotImplementedError

    def finish(self, max_rounds: int = 200) -> list[str]:
        """Run passes and follow prompts until idle; returns the prompts seen."""
        prompts = []
        for _ in range(max_rounds):
            self.run()
            st = self.shuffler.status()
            if st.state is DeviceState.WAITING:
                prompts.append(st.prompt or "")
                self.resume()
            else:
                return prompts
        raise AssertionError("the shuffle did not finish")

    def start_feed(self) -> None:
        """Step until the motor runs (the router settles first when it moves)."""
        for _ in range(100):
            dt = self.shuffler.step()
            if self.motor_on():
                return
            self.clock.advance(max(dt, 1e-4))
        raise AssertionError("the motor never started")

    def final_deck(self) -> list[int]:
        return self.table.deck()


class SimHarness(Harness):
    kind = "sim"

    def __init__(self, **kw: Any) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.shuffler = SimulatedShuffler(
            self.clock, rng=random.Random(7), machine_rng=random.Random(8), auto_load=False,
            **kw,
        )
        self.table = self.shuffler.table
        self.shuffler.subscribe(self.events.append)
        self.shuffler.open()

    def run(self) -> None:
        self.shuffler.run_until_settled(max_seconds=600)

    def resume(self) -> None:
        self.shuffler.resume()

    def motor_on(self) -> bool:
        return self.table.motor  # driven (a braked or coasting motor is not)


class GpioHarness(Harness):
    kind = "gpio"

    def __init__(self, router_kind: str = "servo", timing: Timing | None = None,
                 pins: dict[str, Any] | None = None, **kw: Any) -> None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from hardware.shuffler.gpio import GpioShuffler, router_settle_s
        from hardware.shuffler.mockrig import MockRig
        from hardware.shuffler.physics import MachineModel
        from hardware.shuffler.simulator import measured_timing

        super().__init__()
        self.clock = FakeClock()
        self.factory = MockFactory(pin_class=MockPWMPin)
        pins = {**(PINS if pins is None else pins), "router_kind": router_kind}
        model = MachineModel(**{k: kw.pop(k) for k in ("p", "q", "misroute", "double_feed")
                                if k in kw})
        speed = kw.pop("speed", 1.0)
        # the simulated flap moves as the configured router does
        kw.setdefault("router_settle_s", router_settle_s(pins))
        self.table = ShufflerTable(speed=speed, model=model, rng=random.Random(8), **kw)
        if timing is None:  # the simulated machine's own budgets, as calibrate measures them
            timing = measured_timing(self.table, router_settle_s(pins) / speed)
        self.shuffler = GpioShuffler(pins, self.clock, pin_factory=self.factory,
                                     rng=random.Random(7), timing=timing)
        self.shuffler.subscribe(self.events.append)
        self.shuffler.open()
        self.rig = MockRig(self.shuffler, self.table, self.factory, self.clock)
        self.rig.sync()

    def load(self, cards: int) -> None:
        super().load(cards)
        self.rig.sync()

    def run(self) -> None:
        run_gpio(self.shuffler, self.rig, self.clock)
        self._final_stack()

    def _final_stack(self) -> None:
        st = self.shuffler.status()
        plan = self.shuffler.plan
        if st.state is DeviceState.IDLE and plan and st.passes_done == plan.passes:
            if any(self.table.piles.values()):
                self.table.stack(plan.top_pile)

    def resume(self) -> None:
        sh = self.shuffler
        plan = sh.plan
        assert plan is not None
        fault = sh.fault
        if sh.state is DeviceState.WAITING:
            self.table.stack(plan.top_pile)
        elif fault is not None:
            action = fault.recovery.value
            if action == "retry_card":
                self.table.return_jammed()
            elif action == "continue":
                self.table.push_stuck()
            else:
                self.table.gather(plan.top_pile)
                deck = self.table.tray
                if len(deck) > plan.deck_size:
                    del deck[plan.deck_size:]
                else:
                    deck.extend(range(len(deck), plan.deck_size))
        self.rig.touch()

    def motor_on(self) -> bool:
        return self.shuffler.mechanism.motor_driven


def run_gpio(shuffler: Any, rig: Any, clock: FakeClock, rounds: int = 1_000_000) -> None:
    """Step a GpioShuffler and its mock rig on the FakeClock until it is not busy."""
    for _ in range(rounds):
        rig.sync()
        dt = shuffler.step()
        rig.sync()
        if shuffler.state is not DeviceState.BUSY:
            return
        nxt = rig.next_event()
        if nxt is not None:
            dt = min(dt, nxt - clock.monotonic())
        clock.advance(max(dt, 1e-4))
    raise AssertionError("the shuffler never settled")


def one_gpio_pass(shuffler: Any, rig: Any, table: ShufflerTable, clock: FakeClock,
                  cards: int) -> None:
    """Load `cards`, run one pass of a GpioShuffler over its mock rig to its end (or a
    fault), then let the last cards slide down to their piles."""
    table.load(list(range(cards)))
    rig.sync()
    shuffler.shuffle(cards, "light")
    run_gpio(shuffler, rig, clock, rounds=400_000)
    clock.advance(2.0)
    table.update(clock.monotonic())


def pin_history(factory: Any, name: str, pins: dict[str, Any] = PINS) -> list[bool]:
    """A pin's levels, each change once (MockPin records every change)."""
    return [bool(s.state) for s in factory.pin(pins[name]).states]


def make_harness(kind: str, **kw: Any) -> Harness:
    return SimHarness(**kw) if kind == "sim" else GpioHarness(**kw)


@pytest.fixture(params=["sim", "gpio"])
def harness_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


@pytest.fixture
def harness(harness_kind: str) -> Iterator[Harness]:
    h = make_harness(harness_kind)
    yield h
    h.shuffler.stop()
