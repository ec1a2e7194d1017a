"""`crib board-sim --firmware`: the MicroPython firmware behind a pty passes `crib board test`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from hardware.board.protocol import PROTOCOL_VERSION

CRIB = Path(sys.executable).with_name("crib")


def test_board_sim_firmware_passes_board_test():
    proc = subprocess.Popen([str(CRIB), "board-sim", "--firmware", "--holes", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip()
        assert os.path.exists(path), proc.stderr.read() if proc.poll() is not None else path
        test = subprocess.run([str(CRIB), "board", "test", "--port", path, "--pings", "5",
                               "--json", "--timeout", "20"],
                              capture_output=True, text=True, timeout=120)
        assert test.returncode == 0, test.stdout + test.stderr
        report = json.loads(test.stdout)
        assert report["protocol"] == PROTOCOL_VERSION and report["led_count"] == 2 * 62
        assert report["test_pattern"]["read_back"] is True and report["rtt_ms"]["n"] == 5
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    assert "MicroPython firmware" in proc.stderr.read()
