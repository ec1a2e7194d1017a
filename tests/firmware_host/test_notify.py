"""The systemd notify protocol, read from a fake NOTIFY_SOCKET."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from firmware_host.notify import Notifier
from tests.firmware_host.conftest import Daemon


def _read_until(sock: socket.socket, key: str, timeout: float, seen: list[str]) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(4096).decode()
        except TimeoutError:
            break
        seen.append(data)
        if any(line.startswith(key) for line in data.splitlines()):
            return data
    raise AssertionError(f"no {key} in {seen}")


def test_daemon_reports_ready_watchdog_status_stopping(tmp_path: Path) -> None:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    daemon = Daemon(tmp_path / "state", env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"})
    seen: list[str] = []
    try:
        t0 = time.monotonic()
        daemon.start(wait=False)
        ready = _read_until(sock, "READY=1", 15, seen)
        print(f"READY after {time.monotonic() - t0:.2f} s")
        assert f"MAINPID={daemon.proc.pid}" in ready  # type: ignore[union-attr]
        # The API answers once READY was sent.
        assert daemon.client.req("GET", "/api/health").status_code == 200
        _read_until(sock, "WATCHDOG=1", 5, seen)
        _read_until(sock, "WATCHDOG=1", 5, seen)
        daemon.client.new_game(names=["Ann", "Bob"], dealer=0)
        status = _read_until(sock, "STATUS=", 5, seen)
        while "game 1" not in status:
            status = _read_until(sock, "STATUS=", 5, seen)
        line = next(s for s in status.splitlines() if s.startswith("STATUS="))
        assert "board" in line and "Ann 0" in line and "\n" not in line
        assert daemon.stop() == 0
        _read_until(sock, "STOPPING=1", 5, seen)
        log = daemon.log.read_text()
        assert "stopping (motor off, board state kept)" in log
    finally:
        daemon.close()
        sock.close()


def test_abstract_namespace_socket() -> None:
    name = f"crib-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    try:
        notifier = Notifier(path="@" + name, watchdog_usec="1000000")
        assert notifier.watchdog_s == 1.0
        assert notifier.ready("starting")
        assert sock.recv(4096).decode().splitlines()[0] == "READY=1"
        assert notifier.status("board idle;   no game")
        assert sock.recv(4096).decode() == "STATUS=board idle; no game"
        assert not notifier.status("board idle; no game")  # unchanged: not resent
        assert notifier.stopping()
        assert sock.recv(4096).decode().startswith("STOPPING=1")
    finally:
        sock.close()


def test_without_notify_socket_nothing_is_sent() -> None:
    notifier = Notifier(path="", watchdog_usec="")
    assert not notifier.enabled and not notifier.ready() and notifier.watchdog_s is None


def test_a_reader_that_does_not_read_never_blocks_the_sender(tmp_path: Path) -> None:
    path = str(tmp_path / "full.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    try:
        notifier = Notifier(path=path, watchdog_usec="")
        t0 = time.monotonic()
        sent = [notifier.watchdog() for _ in range(5000)]
        assert time.monotonic() - t0 < 5
        assert sent[0] and not sent[-1]  # the buffer filled up and later messages were dropped
    finally:
        sock.close()
