"""`crib board-sim` and `crib board test`, run as a maker would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from firmware_host.cli import main
from hardware.board import power
from hardware.board.layout import BoardLayout
from hardware.board.protocol import PROTOCOL_VERSION
from hardware.board.simulator import BoardSimulator
from hardware.clock import SystemClock
from tests.processes import crib

CRIB = Path(sys.executable).with_name("crib")


def test_board_test_reports_version_leds_and_round_trip(capsys):
    with BoardSimulator(BoardLayout(tracks=3, holes=60), SystemClock()) as sim:
        rc = main(["board", "test", "--port", sim.open_pty(), "--json", "--pings", "5"])
        report = json.loads(capsys.readouterr().out)
        assert sim.leds[0] == (32, 32, 32) and len(set(sim.leds)) == 1  # the test pattern
    assert rc == 0 and report["ok"]
    assert report["protocol"] == PROTOCOL_VERSION and report["led_count"] == 3 * 62
    assert report["test_pattern"]["read_back"] is True
    assert report["rtt_ms"]["n"] == 5 and report["rtt_ms"]["p50"] > 0


def test_board_test_on_a_three_track_board_expects_the_capped_colour(capsys):
    # 366 LEDs of grey 32 would draw 366 + 366 * 3 * 32 * 15 / 255 = 2432 mA > 2000 mA.
    with BoardSimulator(BoardLayout(tracks=3, holes=120), SystemClock()) as sim:
        rc = main(["board", "test", "--port", sim.open_pty(), "--json", "--pings", "3"])
        report = json.loads(capsys.readouterr().out)
        held = set(sim.leds)
    assert rc == 0, report
    assert report["led_count"] == 366 and report["test_pattern"]["read_back"] is True
    tp = report["test_pattern"]
    assert held == {tuple(tp["shown_rgb"])} and tp["shown_rgb"][0] < 32  # dimmed, evenly
    # What the board shows is within its budget, and the report says by how much it dimmed.
    assert power.drawn_ma(bytes(tp["shown_rgb"]) * 366) <= 2000
    assert tp["dimmed"] == f"dimmed to {tp['dimmed_percent']}% to stay under 2.0 A"
    assert 70 <= tp["dimmed_percent"] < 100
    with BoardSimulator(BoardLayout(tracks=3, holes=120), SystemClock()) as sim:
        assert main(["board", "test", "--port", sim.open_pty(), "--pings", "2"]) == 0
    out = capsys.readouterr().out
    assert f"test pattern (dimmed to {tp['dimmed_percent']}% to stay under 2.0 A): sent, and " \
        "the board's controller holds the same" in out


def test_board_test_on_a_missing_port_fails_with_the_reason(capsys):
    rc = main(["board", "test", "--port", "/nonexistent/ttyACM9", "--timeout", "0.3"])
    err = capsys.readouterr().err
    assert rc == 1 and "/nonexistent/ttyACM9" in err and "No such file" in err


def test_board_test_on_a_missing_port_fails_at_once_in_one_line():
    # A 600 s hello timeout: the run's own 60 s limit fails the test if it waits for a hello.
    done = subprocess.run([str(CRIB), "board", "test", "--port", "/dev/nonexistent",
                           "--timeout", "600"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "crib board test: cannot open /dev/nonexistent: No such file or directory"]


def test_board_usage_errors_are_one_line_and_where_the_help_is():
    done = subprocess.run([str(CRIB), "board", "test"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "crib board test: the following arguments are required: --port",
        "see crib board test --help",
    ]


def test_board_sim_prints_a_path_that_board_test_can_open():
    with crib("board-sim", "--holes", "60") as proc:  # SIGINT inherited ignored
        path = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert os.path.exists(path)
        test = subprocess.run([str(CRIB), "board", "test", "--port", path, "--pings", "3"],
                              capture_output=True, text=True, timeout=60)
        assert test.returncode == 0, test.stderr
        assert "124 LEDs" in test.stdout
        # Honest: the read-back is the controller's buffer, not light from the LEDs.
        assert "the board's controller holds the same" in test.stdout
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    assert not os.path.exists(path)  # the pty and its link are gone
