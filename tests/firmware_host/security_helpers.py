"""A daemon under the real uvicorn settings of `crib serve`, and raw HTTP over a socket."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import uvicorn

from firmware_host.app_main import uvicorn_config
from firmware_host.uvicorn_hooks import GuardedH11
from tests.firmware_host.conftest import ThreadServer


class QuickH11(GuardedH11):
    """The daemon's protocol with a header timeout short enough for a test."""

    header_timeout_s = 0.6


class ServeServer(ThreadServer):
    """ThreadServer, but with `uvicorn_config` (the settings `crib serve` runs with)."""

    def __init__(self, state: Path, quick: bool = True) -> None:
        super().__init__(state)
        config = uvicorn_config(self.app, self.settings)
        if quick:
            config.http = QuickH11
        config.lifespan = "on"
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)


def raw(port: int, data: bytes, *, timeout: float = 5.0) -> bytes:
    """Send bytes on a fresh connection; everything answered until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may answer and close before all of it is sent
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            out += chunk
        return out


def status_of(answer: bytes) -> int:
    """The status code of a raw HTTP answer."""
    return int(answer.split(b" ", 2)[1])


def connect_from(i: int, port: int, subnet: int) -> socket.socket:
    """A connection to the daemon from the i-th of many loopback addresses (127.0.subnet+.x),
    so per-address limits do not hide what many phones at once do."""
    s = socket.socket()
    s.bind((f"127.0.{subnet + i // 250}.{1 + i % 250}", 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s
