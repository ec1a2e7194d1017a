"""`until_stopped`: the handlers every long-running `crib` command installs for itself."""

from __future__ import annotations

import os
import signal

import pytest

from firmware_host.cli import until_stopped


@pytest.fixture
def sigint_ignored():
    """SIGINT ignored, as a script's background job inherits it; the test's own put back."""
    ours = signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGINT, ours)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_first_signal_stops_the_block_and_a_second_cannot_cut_its_clean_up_short(
        sig, sigint_ignored):
    inherited = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    cleaned = False
    with pytest.raises(KeyboardInterrupt), until_stopped():
        try:
            os.kill(os.getpid(), sig)
            signal.pause()  # never reached: the handler raised
        finally:
            os.kill(os.getpid(), sig)  # a second Ctrl-C while the motor is turned off
            cleaned = True
    assert cleaned
    assert {s: signal.getsignal(s) for s in inherited} == inherited  # SIG_IGN is back
