"""The board link's read timeout, set through pyserial's public `timeout` on an open port:
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
