"""The shuffler on machines of different card speeds, each with the configuration that
`crib shuffler calibrate` measured and wrote for it: whole passes count every card with no
false fault, and real double feeds and stuck cards are still caught. MockFactory pins, the
timed simulator and a FakeClock: nothing waits."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host.cli import main
from firmware_host.config import load_settings
from hardware.clock import FakeClock
from hardware.interfaces import DeviceState
from hardware.shuffler import design
from hardware.shuffler.gpio import GpioShuffler
from hardware.shuffler.mockrig import MockRig
from hardware.shuffler.simulator import ShufflerTable

SPEEDS = (300.0, 500.0, 1000.0, 1800.0)  # mm/s: 0.3, 0.5, 1.0 and 1.8 m/s
SPREAD = 0.03  # each card's speed differs by this much (sd), as a real tyre's does


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> dict[float, dict[str, Any]]:
    """For each speed: the configuration file calibrate wrote, and its JSON report."""
    out: dict[float, dict[str, Any]] = {}
    for speed in SPEEDS:
        cfg = tmp_path_factory.mktemp("cal") / "config.toml"
        cfg.write_text("# my table\n[shuffler]\nmode = \"auto\"  # keep me\n\n[inputs]\nundo = 5\n")
        out[speed] = {"path": cfg}
    return out


def _calibrate(path: Path, speed: float, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    code = main(["shuffler", "calibrate", "--simulate", "--sim-speed", str(speed),
                 "--config", str(path), "--json"])
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert code == 0, lines[-1]
    return lines


class Machine:
    """A GpioShuffler configured from a file, on mock pins, with a simulated machine of a
    true card speed behind them."""

    def __init__(self, config: Path, speed: float, **table: Any) -> None:
        settings = load_settings(config).shuffler
        self.clock = FakeClock()
        self.factory = MockFactory(pin_class=MockPWMPin)
        self.shuffler = GpioShuffler(dict(settings.pins), self.clock, pin_factory=self.factory,
                                     rng=random.Random(5), timing=settings.timing())
        self.shuffler.open()
        self.table = ShufflerTable(feed_speed_mm_s=speed, spread=SPREAD, rng=random.Random(6),
                                   **table)
        self.rig = MockRig(self.shuffler, self.table, self.factory, self.clock)

    def one_pass(self, cards: int) -> None:
        self.table.load(list(range(cards)))
        self.rig.sync()
        self.shuffler.shuffle(cards, "light")
        sh, rig, clock = self.shuffler, self.rig, self.clock
        for _ in range(200_000):
            rig.sync()
            dt = sh.step()
            rig.sync()
            if sh.state is not DeviceState.BUSY:
                return
            nxt = rig.next_event()
            if nxt is not None:
                dt = min(dt, nxt - clock.monotonic())
            clock.advance(max(dt, 1e-4))
        raise AssertionError("the pass never ended")


@pytest.mark.parametrize("speed", SPEEDS)
def test_calibrate_writes_the_machines_card_speed_within_10_percent(calibrated, speed, capsys):
    path = calibrated[speed]["path"]
    lines = _calibrate(path, speed, capsys)
    written = load_settings(path).shuffler.feed_speed_mm_s
    assert written is not None and abs(written - speed) / speed < 0.10
    # every card was measured, and the spread reported
    assert [d["card"] for d in lines if d["kind"] == "card"] == list(range(1, 13))
    blocks = next(d for d in lines if d["kind"] == "blocks")
    assert blocks["min_ms"] <= blocks["median_ms"] <= blocks["max_ms"] and 0 < blocks["cv"] < 0.1
    assert lines[-1]["written"] is True and lines[-1]["values"]["feed_speed_mm_s"] == written
    # the rest of the file is as it was: the comment, the key, the other table
    text = path.read_text()
    assert text.startswith("# my table\n[shuffler]\nmode = \"auto\"  # keep me\n")
    assert "[inputs]\nundo = 5\n" in text
    calibrated[speed]["written"] = written


@pytest.mark.parametrize("cards", [52, 104])
@pytest.mark.parametrize("speed", SPEEDS)
def test_a_full_pass_at_each_speed_counts_every_card_with_no_false_fault(calibrated, speed,
                                                                         cards, capsys):
    path = calibrated[speed]["path"]
    if "written" not in calibrated[speed]:
        _calibrate(path, speed, capsys)
    m = Machine(path, speed)
    m.one_pass(cards)
    st = m.shuffler.status()
    assert st.fault is None and st.state is DeviceState.WAITING, st.fault
    assert st.cards_this_pass == cards and sum(st.pile_counts) == cards
    assert sorted(m.table.piles["left"] + m.table.piles["right"]) == list(range(cards))
    assert m.shuffler.mechanism.glitches == 0


@pytest.mark.parametrize("speed", SPEEDS)
def test_a_real_double_feed_and_a_stuck_card_are_caught_at_each_speed(calibrated, speed,
                                                                      capsys):
    path = calibrated[speed]["path"]
    if "written" not in calibrated[speed]:
        _calibrate(path, speed, capsys)
    # two cards overlapping by half a card: one block of 1.5 transits
    m = Machine(path, speed, double_at=20)
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind == "double_feed"
    assert m.shuffler.fault.card == 20 and not m.factory.pin(17).state
    # a card stays under a beam
    m = Machine(path, speed, stick_at=30)
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind == "stuck"
    assert m.shuffler.fault.card == 30 and not m.factory.pin(17).state


def test_the_default_configuration_is_the_default_builds_speed_and_a_dry_run_writes_nothing(
        tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[shuffler]\n")
    speed = design.DEFAULT_DRIVE.surface_speed_mm_s
    assert load_settings(cfg).shuffler.timing().feed_speed_mm_s == speed
    assert main(["shuffler", "calibrate", "--simulate", "--dry-run", "--config", str(cfg),
                 "--json"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["written"] is False and abs(last["values"]["feed_speed_mm_s"] - speed) < 0.1 * speed
    assert cfg.read_text() == "[shuffler]\n"


def test_calibrate_refuses_to_write_a_file_the_daemon_could_not_load(tmp_path, capsys):
    # an explicit filter that cannot work at the measured speed (above half a transit, 25 ms,
    # at 1.8 m/s)
    cfg = tmp_path / "c.toml"
    original = "[shuffler]\nsensor_filter_ms = 30\nfeed_speed_mm_s = 400\n"
    cfg.write_text(original)
    assert main(["shuffler", "calibrate", "--simulate", "--sim-speed", "1800", "--config",
                 str(cfg)]) == 1
    out = capsys.readouterr().out
    assert "FAIL writing" in out and "sensor_filter_ms" in out
    assert cfg.read_text() == original  # untouched
    assert list(tmp_path.iterdir()) == [cfg]  # no temporary file left


def test_explicit_budgets_are_checked_against_the_speed(tmp_path):
    from firmware_host.errors import ConfigError

    cfg = tmp_path / "c.toml"
    cfg.write_text("[shuffler]\nfeed_speed_mm_s = 300\nblocked_limit_s = 0.5\n")
    with pytest.raises(ConfigError, match="blocked_limit_s"):
        load_settings(cfg)  # two overlapping cards block a beam 0.59 s at 0.3 m/s
    cfg.write_text("[shuffler]\nfeed_speed_mm_s = 300\nblocked_limit_s = 1.5\n")
    timing = load_settings(cfg).shuffler.timing()
    assert timing.blocked_limit == 1.5 and timing.feed_speed_mm_s == 300
    # an old configuration with the old fixed values still loads at the default speed
    cfg.write_text("[shuffler]\nsensor_filter_ms = 12\nrouter_settle_ms = 120\n"
                   "card_timeout_s = 1.0\nblocked_limit_s = 0.5\npass_base_s = 10.0\n"
                   "per_card_s = 0.5\n")
    timing = load_settings(cfg).shuffler.timing()
    assert (timing.sensor_filter, timing.card_timeout, timing.blocked_limit) == (0.012, 1.0, 0.5)
