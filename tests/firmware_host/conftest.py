"""Real daemons for the API tests: one in-thread uvicorn shared by the module, and
subprocess daemons (`crib serve --simulate`) for crash, notify and config tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from firmware_host.api import create_app
from firmware_host.app_main import bind_socket
from firmware_host.auth import Tokens
from firmware_host.config import load_settings
from firmware_host.services import Services, build_services
from firmware_host.store import Store
from tests.processes import CRIB, free_port


def write_config(state: Path, port: int, extra: str = "") -> Path:
    state.mkdir(parents=True, exist_ok=True)
    path = state / "config.toml"
    path.write_text(
        f'state_dir = "{state}"\nhost = "127.0.0.1"\nport = {port}\n'
        f'pairing_code_ttl_s = 30\n{extra}\n[shuffler]\nspeed = 200.0\n'
    )
    return path


def make_token(state: Path, name: str = "tester") -> str:
    store = Store(state / "cribbage.sqlite3")
    store.start()
    try:
        return Tokens(store).create(name)
    finally:
        store.stop()


class Client:
    """HTTP to one daemon, with its operator token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token
        # TCP_NODELAY: without it Nagle and delayed ACKs add 40 ms to each kept-alive request.
        self.http = httpx.Client(base_url=base, timeout=10, transport=httpx.HTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]))

    def req(self, method: str, path: str, body: Any = None, *, auth: bool = True,
            headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        h = {"Authorization": f"Bearer {self.token}"} if auth else {}
        h.update(headers or {})
        return self.http.request(method, path, json=body, headers=h, **kw)

    def new_game(self, **body: Any) -> dict[str, Any]:
        body.setdefault("names", ["Ann", "Bob"])
        r = self.req("POST", "/api/games", body)
        assert r.status_code == 201, r.text
        return dict(r.json())

    def act(self, game: dict[str, Any], action: dict[str, Any], op_id: str | None = None
            ) -> httpx.Response:
        op = op_id or f"op-{time.monotonic_ns()}"
        return self.req("POST", f"/api/games/{game['id']}/actions",
                        {"version": game["version"], "op_id": op, "action": action})

    def board_tracks(self) -> list[dict[str, int]] | None:
        r = self.req("GET", "/api/board", auth=False)
        assert r.status_code == 200, r.text
        return r.json()["tracks"]

    def wait_board(self, sides: list[dict[str, Any]], timeout: float = 5.0) -> list[Any]:
        """Poll the board's read-back until its pegs are the sides' front and back pegs."""
        want = [{"front": s["front"], "back": s["back"]} for s in sides]
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            seen = self.board_tracks()
            if seen is not None and seen[: len(want)] == want:
                return seen
            time.sleep(0.02)
        raise AssertionError(f"board shows {seen}, expected {want}")


class ThreadServer:
    """`create_app` under a real uvicorn in a thread, on a free port."""

    def __init__(self, state: Path) -> None:
        self.port = free_port()
        self.config = write_config(state, self.port)
        self.settings = load_settings(self.config, simulate=True)
        self.services: Services = build_services(self.settings)
        self.app = create_app(self.settings, self.services)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_config=None, access_log=False))
        self.sock = bind_socket("127.0.0.1", self.port)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def wait_board_idle(self, timeout: float = 10) -> None:
        """Wait for the simulated board to answer; AssertionError with the devices after."""
        deadline = time.monotonic() + timeout
        while self.services.devices["board"].state.value != "idle":
            assert time.monotonic() < deadline, self.services.devices.describe()
            time.sleep(0.02)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    state = tmp_path_factory.mktemp("state")
    with ThreadServer(state) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server: ThreadServer) -> Client:
    token = server.services.tokens.create("tester")
    c = Client(f"http://127.0.0.1:{server.port}", token)
    server.wait_board_idle()  # before the tests look at the board
    return c


class Daemon:
    """`crib serve --simulate` in a subprocess."""

    def __init__(self, state: Path, env: dict[str, str] | None = None, extra: str = "") -> None:
        self.state = state
        self.port = free_port()
        self.config = write_config(state, self.port, extra)
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = state / "daemon.log"
        self.token = make_token(state)
        self.client = Client(f"http://127.0.0.1:{self.port}", self.token)

    def start(self, wait: bool = True) -> float:
        """Start; returns seconds until /api/health answered."""
        t0 = time.monotonic()
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [CRIB, "serve", "--simulate", "--config", str(self.config)],
                stdout=log, stderr=log, env=self.env,
            )
        if wait:
            deadline = t0 + 15
            while True:
                assert self.proc.poll() is None, self.log.read_text()
                try:
                    if httpx.get(f"{self.client.base}/api/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.02)
        return time.monotonic() - t0

    def wait_board_idle(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while True:
            health = self.client.req("GET", "/api/health").json()
            if health["devices"]["board"]["state"] == "idle":
                return
            assert time.monotonic() < deadline, health
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(15)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
