"""The board link's read wait on an open port (its own select on a tty, pyserial's public
`timeout` otherwise):
what the link relies on, pinned so that a pyserial upgrade that changes it fails here."""

from __future__ import annotations

import os
import termios
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from hardware.board.transport import SerialTransport


@pytest.fixture
def pty() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def _empty_read_s(read: Any) -> float:
    t0 = time.monotonic()
    assert read() == b""
    return time.monotonic() - t0


def test_a_new_timeout_on_an_open_port_is_the_wait_and_rewrites_no_termios(
        pty: tuple[int, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The link changes its wait on almost every read: a tcsetattr each time would
    # reconfigure a real USB serial port many times a second.
    master, path = pty
    transport = SerialTransport(path, exclusive=False)
    transport.open()
    writes: list[Any] = []
    real = termios.tcsetattr
    monkeypatch.setattr(termios, "tcsetattr", lambda *a: (writes.append(a), real(*a))[1])
    try:
        assert _empty_read_s(lambda: transport.read(0.3)) >= 0.29
        assert _empty_read_s(lambda: transport.read(0.01)) < 0.25
        assert writes == []
        os.write(master, b"abc")
        assert transport.read(0.3) == b"abc"
    finally:
        transport.close()


def test_wake_cuts_a_wait_short(pty: tuple[int, str]) -> None:
    _, path = pty
    transport = SerialTransport(path, exclusive=False)
    transport.open()
    try:
        transport.read(0.01)  # the port's wait is now set; the next read waits up to 1 s
        threading.Timer(0.05, transport.wake).start()
        assert _empty_read_s(lambda: transport.read(1.0)) < 0.8
    finally:
        transport.close()


def test_a_read_on_a_tty_asks_termios_nothing_whatever_its_wait(
        pty: tuple[int, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The link waits a retransmit's few ms, then a heartbeat's second, on every action: each
    # change of pyserial's timeout re-read the termios settings (tcgetattr) on the hot path.
    master, path = pty
    transport = SerialTransport(path, exclusive=False)
    transport.open()
    calls: list[str] = []
    for name in ("tcgetattr", "tcsetattr"):
        real = getattr(termios, name)
        monkeypatch.setattr(termios, name,
                            lambda *a, _n=name, _r=real: (calls.append(_n), _r(*a))[1])
    try:
        for wait in (0.02, 0.5, 0.01, 1.0):
            os.write(master, b"x")
            assert transport.read(wait) == b"x"
        assert _empty_read_s(lambda: transport.read(0.05)) >= 0.04
        assert calls == []
    finally:
        transport.close()


def test_a_pty_whose_other_end_went_away_is_an_error_naming_the_port() -> None:
    from hardware.errors import SerialLinkError

    master, slave = os.openpty()
    path = os.ttyname(slave)
    transport = SerialTransport(path, exclusive=False)
    transport.open()
    os.close(slave)
    os.close(master)  # the board unplugged
    try:
        with pytest.raises(SerialLinkError, match=f"read from board port {path} failed"):
            transport.read(0.5)
    finally:
        transport.close()


def test_a_wake_before_the_read_is_not_lost(pty: tuple[int, str]) -> None:
    # The worker clears its flag, then reads: a show() in between must still cut it short.
    _, path = pty
    transport = SerialTransport(path, exclusive=False)
    transport.open()
    try:
        transport.wake()
        assert _empty_read_s(lambda: transport.read(1.0)) < 0.5
        assert _empty_read_s(lambda: transport.read(0.2)) >= 0.19  # one wake, one return
    finally:
        transport.close()
