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
from hardware.shuffler.gpio import GpioShuffler
from hardware.shuffler.mockrig import MockRig
from hardware.shuffler.simulator import ShufflerTable

from .conftest import one_gpio_pass

# mm/s: the speed of a card off the roller with an empty tray, the motor's no-load speed set
# to give it; every card slows with the deck over it (hardware.shuffler.physics)
SPEEDS = (500.0, 800.0, 1200.0)
CARDS = 52
# these are the Lotus-style build's speeds (the hands-free build's calibrate: at the end)
LOTUS = "[shuffler]\nbuild = \"lotus\"\n"


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> dict[float, dict[str, Any]]:
    """For each speed: the configuration file calibrate wrote, and its JSON report."""
    out: dict[float, dict[str, Any]] = {}
    for speed in SPEEDS:
        cfg = tmp_path_factory.mktemp("cal") / "config.toml"
        cfg.write_text("# my table\n[shuffler]\nmode = \"auto\"  # keep me\nbuild = \"lotus\"\n"
                       "\n[inputs]\nundo = 5\n"
                       "\n[shuffle]\ndeck = 104\n")
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
        self.table = ShufflerTable(feed_speed_mm_s=speed, rng=random.Random(6), **table)
        self.rig = MockRig(self.shuffler, self.table, self.factory, self.clock)

    def one_pass(self, cards: int) -> None:
        one_gpio_pass(self.shuffler, self.rig, self.table, self.clock, cards)


@pytest.mark.parametrize("speed", SPEEDS)
def test_calibrate_measures_a_full_deck_and_writes_each_cards_speed(calibrated, speed, capsys):
    path = calibrated[speed]["path"]
    lines = _calibrate(path, speed, capsys)
    settings = load_settings(path).shuffler
    speeds = settings.card_speeds_mm_s
    # the whole deck the configuration shuffles (104), every card measured
    assert [d["card"] for d in lines if d["kind"] == "card"] == list(range(1, 105))
    assert settings.calibrated_cards == 104 and speeds is not None
    # the card with an empty tray moves at about the machine's speed; the first card, under
    # the whole deck, slower; each pile's own
    left_one, left_full, right_one, right_full = speeds
    assert left_full < left_one and right_full < right_one
    assert abs(min(left_one, right_one) - speed) / speed < 0.35
    assert settings.feed_speed_mm_s == min(speeds)  # the budgets' speed: the slowest card
    spread = next(d for d in lines if d["kind"] == "spread")
    assert spread["worst_ratio"] < 1.15  # every card within its own line
    assert lines[-1]["written"] is True and lines[-1]["values"]["card_speeds_mm_s"] == speeds
    # the rest of the file is as it was: the comment, the key, the other table
    text = path.read_text()
    assert text.startswith("# my table\n[shuffler]\nmode = \"auto\"  # keep me\n"
                           "build = \"lotus\"\n")
    assert "[inputs]\nundo = 5\n" in text
    calibrated[speed]["written"] = speeds


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
    assert m.table.unseen_stops == 0 and m.table.flap_hits == 0
    assert m.shuffler.mechanism.glitches == 0


@pytest.mark.parametrize("speed", SPEEDS)
def test_a_real_double_feed_and_a_stuck_card_are_caught_at_each_speed(calibrated, speed,
                                                                      capsys):
    path = calibrated[speed]["path"]
    if "written" not in calibrated[speed]:
        _calibrate(path, speed, capsys)
    # two cards dragged through together, half a card apart: held under the beam by the
    # braked roller (or, off it, one block of 1.5 cards)
    m = Machine(path, speed, double_at=20)
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind in ("stuck", "double_feed")
    assert m.shuffler.fault.card == 20 and not m.shuffler.mechanism.motor_driven
    # a card stays under a beam
    m = Machine(path, speed, stick_at=30)
    m.one_pass(52)
    assert m.shuffler.fault is not None and m.shuffler.fault.kind == "stuck"
    assert m.shuffler.fault.card == 30 and not m.shuffler.mechanism.motor_driven


def test_the_default_configuration_is_the_default_builds_speed_and_a_dry_run_writes_nothing(
        tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(LOTUS)
    from hardware.shuffler import pace

    speed = pace.default_card_speed_mm_s()
    assert load_settings(cfg).shuffler.timing().feed_speed_mm_s == speed
    assert main(["shuffler", "calibrate", "--simulate", "--dry-run", "--config", str(cfg),
                 "--json"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    # the default build measured: its slowest card near the nominal figure, under a full deck
    assert last["written"] is False and 0.5 * speed < last["values"]["feed_speed_mm_s"] < speed
    assert cfg.read_text() == LOTUS


def test_calibrate_refuses_to_write_a_file_the_daemon_could_not_load(tmp_path, capsys):
    # an explicit filter that cannot work at the measured speed (above half a transit)
    cfg = tmp_path / "c.toml"
    original = LOTUS + "sensor_filter_ms = 40\nfeed_speed_mm_s = 200\n"
    cfg.write_text(original)
    assert main(["shuffler", "calibrate", "--simulate", "--sim-speed", "1200", "--cards",
                 "12", "--config", str(cfg)]) == 1
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


def test_calibrate_on_the_hands_free_build_measures_cards_carried_by_the_riser(tmp_path, capsys):
    from hardware.shuffler import design

    cfg = tmp_path / "c.toml"
    cfg.write_text("[shuffler]\nbuild = \"handsfree\"\n")
    assert main(["shuffler", "calibrate", "--simulate", "--cards", "12", "--config", str(cfg),
                 "--json"]) == 0
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    cards = [d for d in lines if d.get("kind") == "card"]
    assert len(cards) == 12  # the riser ran: every card reached a bay's beam
    written = load_settings(cfg).shuffler
    # past the beams a card moves at the riser's speed, faster than the feed gives it; at
    # full duty the riser would pass 2.0 m/s, so calibrate sets the PWM duty that brings its
    # fastest card down to it (under the end wall's stand-up speed) and writes the speeds
    # the cards will have at that duty
    feed = design.HANDSFREE_DRIVE.free_speed_mm_s(5.0)
    riser = next(d for d in lines if d.get("kind") == "riser")
    assert riser["full_duty_mm_s"] > design.RISER_CARD_SPEED_MM_S
    assert written.riser_duty == riser["riser_duty"] and 0.8 < written.riser_duty < 1
    assert feed < written.feed_speed_mm_s <= design.RISER_CARD_SPEED_MM_S
    assert max(written.card_speeds_mm_s or []) == pytest.approx(design.RISER_CARD_SPEED_MM_S,
                                                                abs=1.0)
    assert next(d for d in lines if d.get("kind") == "speed")["build"] == "handsfree"
