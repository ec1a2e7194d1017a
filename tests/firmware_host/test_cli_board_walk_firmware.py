"""`crib board walk` against the board's own MicroPython firmware, as a maker runs it.

`crib board-sim --firmware` runs the firmware core under a real MicroPython (the official
WebAssembly port under Node, with its garbage collector) behind a real pseudo-terminal;
`crib board walk` lights and reads back every hole of every track. Each step waits only for
the board's acknowledgement and read-back (no --delay).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest

from tests.processes import CRIB, crib

STEP = re.compile(r"^track (\d) hole (\d+) \(LED (\d+)\): (\w+)(.*)$")


@pytest.fixture
def firmware_board():
    """The path of a `crib board-sim --firmware` board (two tracks of 120 holes); it and its
    Node are killed afterwards, whatever the test did."""
    with crib("board-sim", "--firmware") as proc:  # SIGINT inherited ignored
        path = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert os.path.exists(path), proc.stderr.read() if proc.poll() is not None else path
        yield path
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        err = proc.stderr.read()  # type: ignore[union-attr]
        assert "restarts" not in err, err  # the VM never fell over (no simulated reboot)


def walk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CRIB, "board", "walk", "--delay", "0", *args],
                          capture_output=True, text=True, timeout=600)


def test_walk_holds_every_hole_of_every_track_on_the_micropython_firmware(firmware_board):
    done = walk("--port", firmware_board)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    steps = [STEP.match(line) for line in done.stdout.splitlines()]
    steps = [m for m in steps if m]
    assert [(int(m[1]), int(m[2])) for m in steps] == [
        (t, h) for t in (1, 2) for h in range(122)]
    assert all(m[5] == "" for m in steps), [m[0] for m in steps if m[5]]  # none "but holds"
    # the serpentine strip: track 1 from LED 0 up, track 2 back down from the far end
    assert [int(m[3]) for m in steps[:122]] == list(range(122))
    assert [int(m[3]) for m in steps[122:]] == list(range(243, 121, -1))
    assert {m[4] for m in steps[:122]} == {"red"} and {m[4] for m in steps[122:]} == {"blue"}
    assert done.stdout.splitlines()[0].startswith("walking 2 tracks, 120 holes each")


def test_walk_of_one_track_says_it_walks_that_track(firmware_board):
    done = walk("--port", firmware_board, "--track", "2")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("walking track 2 of 2, 120 holes each")
    assert [int(m[2]) for m in map(STEP.match, lines) if m] == list(range(122))
    assert all(m[1] == "2" for m in map(STEP.match, lines) if m)
