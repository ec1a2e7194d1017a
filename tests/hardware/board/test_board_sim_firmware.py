"""`crib board-sim --firmware`: the MicroPython firmware behind a pty passes `crib board test`."""

from __future__ import annotations

import json
import os
import signal
import subprocess

from hardware.board.protocol import PROTOCOL_VERSION
from tests.processes import CRIB, crib


def test_board_sim_firmware_passes_board_test():
    with crib("board-sim", "--firmware", "--holes", "60") as proc:  # SIGINT inherited ignored
        path = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert os.path.exists(path), proc.stderr.read() if proc.poll() is not None else path
        test = subprocess.run([CRIB, "board", "test", "--port", path, "--pings", "5",
                               "--json", "--timeout", "20"],
                              capture_output=True, text=True, timeout=120)
        assert test.returncode == 0, test.stdout + test.stderr
        report = json.loads(test.stdout)
        assert report["protocol"] == PROTOCOL_VERSION and report["led_count"] == 2 * 62
        assert report["test_pattern"]["read_back"] is True and report["rtt_ms"]["n"] == 5
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert "MicroPython firmware" in proc.stderr.read()  # type: ignore[union-attr]
