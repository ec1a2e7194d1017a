"""The bring-up commands as a maker runs them: in-process, and `crib` in a subprocess with
Ctrl-C (SIGINT) and SIGTERM during a motor jog."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.config import on_raspberry_pi
from firmware_host.errors import ConfigError
from tests.processes import running

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CRIB_STATE_DIR", str(tmp_path))  # defaults, not the user's config
    monkeypatch.delenv("CRIB_CONFIG", raising=False)


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_inputs_watch_prints_every_kind_of_input(capsys):
    assert main(["inputs", "watch", "--simulate", "--json"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    kinds = [(d.get("device"), d["kind"]) for d in lines]
    assert kinds.count(("inputs", "encoder")) == 2 and kinds.count(("inputs", "button")) == 2
    assert ("inputs", "undo") in kinds and ("inputs", "undo_held") in kinds
    assert kinds.count(("inputs", "touch")) == 1
    sensors = [(d["sensor"], d["blocked"]) for d in lines
               if d["kind"] == "sensor" and d["sensor"] in ("left", "right")]
    assert sensors == [("left", True), ("left", False), ("right", True), ("right", False)]


def test_inputs_watch_reads_the_hands_free_doors_skew_lid_and_load_cell(tmp_path, capsys):
    """The hands-free build's bring-up: the door sensors and skew beam on the I2C expander,
    the lid, and the load cell in counts and in cards over the configured tare (a blocked
    beam reads low on the expander; the simulated person lays 52 cards in the tray)."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("[shuffler]\nload_cell_tare = 81234\nload_cell_counts_per_card = 3900\n")
    assert main(["inputs", "watch", "--simulate", "--json", "--config", str(cfg)]) == 0
    lines = _json_lines(capsys.readouterr().out)
    shaft = [(d["sensor"], d["blocked"]) for d in lines
             if d["kind"] == "sensor" and d["sensor"] not in ("left", "right")]
    # each as it stands when the watch starts, then once blocked and clear again
    assert shaft == [("lower_door", False), ("upper_door", False), ("skew", False),
                     ("lower_door", True), ("lower_door", False), ("upper_door", True),
                     ("upper_door", False), ("skew", True), ("skew", False)]
    assert [d["closed"] for d in lines if d["kind"] == "lid"] == [True, False, True]
    weights = [(d["raw"], d["cards"]) for d in lines if d["kind"] == "load_cell"]
    assert weights == [(81234, 0.0), (81234 + 52 * 3900, 52.0)]


def test_the_daemon_weighs_with_the_configured_tare_and_counts(tmp_path):
    """The load cell's bring-up figures reach the hands-free driver the daemon builds."""
    from firmware_host.components.factories import _shuffler_real
    from firmware_host.config import load_settings

    cfg = tmp_path / "c.toml"
    cfg.write_text("[shuffler]\nload_cell_tare = -1200.5\nload_cell_counts_per_card = 4100\n"
                   "door_pulse_ms = {lower = [0.9, 1.95]}\n")
    settings = load_settings(cfg)
    from hardware.clock import FakeClock
    from hardware.shuffler.handsfree import Bay

    sh, _ = _shuffler_real(settings, FakeClock())
    assert (sh.mechanism.tare_raw, sh.mechanism.counts_per_card) == (-1200.5, 4100.0)
    assert sh.mechanism.door_pulses == {Bay.LOWER: {False: 0.9, True: 1.95},
                                        Bay.UPPER: {False: 1.0, True: 2.0}}
    bad = tmp_path / "bad.toml"
    for text, key in (("load_cell_counts_per_card = 0", "load_cell_counts_per_card"),
                      ("door_pulse_ms = {lower = [1.0, 3.0]}", "door_pulse_ms lower"),
                      ("door_pulse_ms = {middle = [1.0, 2.0]}", "unknown bay 'middle'")):
        bad.write_text(f"[shuffler]\n{text}\n")
        with pytest.raises(ConfigError, match=key):
            load_settings(bad)


def test_shuffler_jog_drives_one_servo_to_a_pulse(capsys):
    """Bring-up fits the horns and finds the doors' pulses servo by servo."""
    assert main(["shuffler", "jog", "--simulate", "--json", "--servo", "upper_door",
                 "--pulse-ms", "1.25"]) == 0
    line = _json_lines(capsys.readouterr().out)[-1]
    assert (line["servo"], line["channel"]) == ("upper_door", 1)
    assert line["pulse_ms"] == pytest.approx(1.25, abs=0.01)  # the PCA9685's 4096 steps
    assert main(["shuffler", "jog", "--simulate", "--servo", "press_turn",
                 "--pulse-ms", "2.6"]) == 2
    assert "0.5 to 2.5 ms" in capsys.readouterr().err
    assert main(["shuffler", "jog", "--simulate", "--motor", "1", "--pulse-ms", "1"]) == 2


def test_inputs_watch_uses_the_configured_hold_time(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text("undo_hold_s = 5.0\n")
    assert main(["inputs", "watch", "--simulate", "--json", "--config", str(cfg)]) == 0
    lines = _json_lines(capsys.readouterr().out)
    # the simulated person holds undo hold_s + 0.5 s: a hold at 5 s (reported while still
    # held), not at 3 s
    held = [d for d in lines if d["kind"] == "undo_held"]
    assert len(held) == 1 and held[0]["seconds"] == 5.0


def test_shuffler_test_feeds_one_card_to_each_pile_and_reports_timings(capsys):
    assert main(["shuffler", "test", "--simulate", "--json"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    feeds = [d for d in lines if d["kind"] == "feed"]
    assert [(f["pile"], f["sensed"], f["ok"]) for f in feeds] == [
        ("left", ["left"], True), ("right", ["right"], True)]
    from hardware.shuffler import design
    from hardware.shuffler.plan import Pile
    from hardware.shuffler.simulator import ShufflerTable, measured_timing

    # the simulated default build, as calibrate measures it: the first two cards of a deck
    machine = measured_timing(ShufflerTable(), design.DEFAULT_ROUTER.settle_s, 52)
    for f, in_tray in zip(feeds, (52, 51), strict=True):
        v = machine.card_speed(Pile(f["pile"]), in_tray)
        # a card's flight (the deck's load slows it) plus the filter; its transit past the beam
        assert 0.5 * design.flight_s(v) < f["arrive_ms"] / 1000 < 2.5 * design.flight_s(v)
        transit = design.card_transit_s(v)
        assert abs(f["blocked_ms"] / 1000 - transit) < 0.1 * transit
    assert lines[-1]["kind"] == "result" and lines[-1]["ok"] is True


def test_shuffler_test_text_output_and_a_bad_config(tmp_path, capsys):
    assert main(["shuffler", "test", "--simulate"]) == 0
    out = capsys.readouterr().out
    assert "ok left: card sensed at left" in out and "PASS" in out
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[shuffler]\nrouter_settle_ms = -1\n")
    assert main(["shuffler", "test", "--simulate", "--config", str(cfg)]) == 2
    assert "shuffler.router_settle_ms" in capsys.readouterr().err


def test_jog_router_and_motor_in_process(capsys):
    assert main(["shuffler", "jog", "--router", "right", "--simulate", "--json"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    assert lines[0] == {**lines[0], "kind": "router", "pile": "right"}
    assert lines[-1]["states"] == [False]  # the motor never ran
    assert main(["shuffler", "jog", "--motor", "0.05", "--simulate", "--json"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    assert lines[-1]["states"] == [False, True, False] and len(lines[-1]["states"]) == 3
    assert main(["shuffler", "jog", "--motor", "600", "--simulate"]) == 2


def _crib(*args: str, **kw):
    """`crib` in a process group of its own (killed afterwards), SIGINT inherited ignored."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return running([sys.executable, "-m", "firmware_host", *args], cwd=ROOT, env=env, **kw)


@pytest.mark.parametrize("inherited", [signal.SIG_IGN, signal.SIG_DFL], ids=["ignored", "default"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_jog_motor_stops_at_once_on_ctrl_c_or_sigterm(sig, inherited):
    # Started from a script (`make test > log &`), SIGINT comes in ignored: the motor must
    # still stop at the signal, not run out its 30 s.
    with _crib("shuffler", "jog", "--motor", "30", "--simulate", "--json",
               sigint=inherited) as proc:
        first = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        assert first["kind"] == "motor" and first["on"] is True
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err  # interrupted: a jog that ran its 30 s ends with 0
    lines = _json_lines(out)
    assert [d["kind"] for d in lines] == ["motor", "motor_pin"]
    assert lines[0]["on"] is False
    assert lines[1]["states"] == [False, True, False]  # off, on for the jog, off at the signal


def test_shuffler_test_runs_as_a_command():
    with _crib("shuffler", "test", "--simulate") as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.count("ok ") == 2 and "PASS: one card to each pile" in out


def test_inputs_watch_runs_as_a_command_and_a_reader_that_leaves_ends_it_quietly():
    with _crib("inputs", "watch", "--simulate", "--json") as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert [d["kind"] for d in _json_lines(out)][:3] == ["ready", "encoder", "button"]
    # `crib inputs watch | head -1`: the pipe closes after one line; no traceback per event
    with _crib("inputs", "watch", "--simulate", "--json") as proc:
        assert json.loads(proc.stdout.readline())["kind"] == "ready"  # type: ignore[union-attr]
        proc.stdout.close()  # type: ignore[union-attr]
        err = proc.stderr.read()  # type: ignore[union-attr]
        assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_board_walk_runs_as_a_command_and_ctrl_c_ends_it():
    with _crib("board", "walk", "--simulate", "--track", "2") as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    steps = [ln for ln in out.splitlines() if ln.startswith("track 2 hole ")]
    assert len(steps) == 122 and steps[0].startswith("track 2 hole 0 (LED 243): ")
    with _crib("board", "walk", "--simulate", "--delay", "0.2") as proc:
        assert proc.stdout.readline().startswith("walking 2 tracks")  # type: ignore[union-attr]
        proc.stdout.readline()  # type: ignore[union-attr]  # the first hole is lit
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "track 2 hole" not in out  # it stopped on track 1


@pytest.mark.parametrize(("command", "nothing"), [
    (("shuffler", "test"), "there is no shuffler"),
    (("shuffler", "jog", "--motor", "1"), "there is no shuffler"),
    (("shuffler", "calibrate"), "there is no shuffler"),
    (("inputs", "watch"), "there are no table inputs")])
def test_off_a_pi_a_bring_up_command_says_in_one_line_to_simulate(command, nothing, crib):
    if on_raspberry_pi():
        pytest.skip("checks a machine with no GPIO")
    done = crib(*command, env={"PYTHONWARNINGS": "default"})  # gpiozero's warnings would show
    words = " ".join(command[:2])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"crib {words}: {nothing} here (this machine is not a Raspberry Pi): "
        f"`crib {words} --simulate` runs the simulated one"]


@pytest.mark.parametrize(("given", "pauses"), [((), []), (("--delay", "0.2"), [0.2] * 122)])
def test_a_simulated_walk_pauses_on_a_hole_only_when_told(given, pauses, monkeypatch, capsys):
    # A simulated board has no LEDs to watch: by default its walk does not wait on each hole
    # (a real board's waits 0.5 s, to watch it).
    from firmware_host.cli import hardware

    slept: list[float] = []

    class Time:
        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def sleep(seconds: float) -> None:
            if seconds >= 0.1:  # the read-back's own polls are shorter
                slept.append(seconds)
            time.sleep(min(seconds, 0.01))

    monkeypatch.setattr(hardware, "time", Time)
    assert main(["board", "walk", "--simulate", "--track", "2", *given]) == 0
    assert capsys.readouterr().out.count("track 2 hole ") == 122
    assert slept == pauses
