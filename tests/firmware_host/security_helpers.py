"""A daemon under the real uvicorn settings of `crib serve`, and raw HTTP over a socket."""

from __future__ import annotations

import random
import socket
import threading
import time
from pathlib import Path

import httpx
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


class TurnTakers:
    """64 addresses (127.0.70.1-64, eight threads of eight) taking turns at the board: each
    asks for a code (typed or compare) the moment the board is free, keeps it lit without
    typing it, and guesses a code meanwhile, each request from the next address."""

    def __init__(self, port: int, threads: int = 8, per_thread: int = 8) -> None:
        self.port = port
        self.counts = {"asks": 0, "granted": 0, "guesses": 0}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(
            [f"127.0.70.{1 + per_thread * t + i}" for i in range(per_thread)],), daemon=True)
            for t in range(threads)]

    def _run(self, addresses: list[str]) -> None:
        phones = [httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=10,
                               transport=httpx.HTTPTransport(local_address=a))
                  for a in addresses]
        try:
            while not self._stop.is_set():
                for eve in phones:
                    if self._stop.is_set():
                        break
                    try:
                        r = eve.post("/api/pair/start", json={"hold": random.random() < 0.5})
                        self.counts["asks"] += 1
                        self.counts["granted"] += r.status_code == 200
                        eve.post("/api/pair", json={
                            "name": "eve", "code": f"{random.randrange(10 ** 6):06d}"})
                        self.counts["guesses"] += 1
                    except httpx.HTTPError:
                        pass  # a refused connection is the daemon's right; ask again
                    time.sleep(0.01)
        finally:
            for eve in phones:
                eve.close()

    def __enter__(self) -> TurnTakers:
        for t in self._threads:
            t.start()
        deadline = time.monotonic() + 10
        while self.counts["granted"] < 3:  # the board is taken in turn before the owner comes
            if time.monotonic() > deadline:
                raise AssertionError(f"the attackers never got the board: {self.counts}")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(10)
