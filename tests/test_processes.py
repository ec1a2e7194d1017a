"""The suite's process helper: a failing test leaves no process behind, children included."""

from __future__ import annotations

import signal
import sys

import pytest

from tests.processes import group_alive, running

# A command that starts a child of its own (as `crib board-sim --firmware` starts Node),
# says its child's pid, and waits.
PARENT = ("import subprocess, sys, time\n"
          "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
          "print(child.pid, flush=True)\n"
          "time.sleep(60)\n")


def test_a_failing_test_leaves_neither_the_command_nor_its_child() -> None:
    with pytest.raises(AssertionError), running([sys.executable, "-c", PARENT]) as proc:
        int(proc.stdout.readline())  # type: ignore[union-attr]
        pgid = proc.pid
        assert group_alive(pgid)
        raise AssertionError("the test failed here")
    assert proc.returncode == -signal.SIGKILL
    assert not group_alive(pgid, wait=10)


def test_the_command_inherits_sigint_ignored_as_a_background_job_does() -> None:
    show = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"
    ours = signal.getsignal(signal.SIGINT)
    with running([sys.executable, "-c", show]) as proc:
        assert proc.communicate(timeout=30)[0].strip() == "True"
    assert signal.getsignal(signal.SIGINT) is ours  # the test's own is back
