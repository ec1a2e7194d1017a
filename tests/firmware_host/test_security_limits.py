"""Issue 12 item 4 against a real `crib serve --simulate` process: idle connections cannot
lock a real phone out, even when the daemon is started from a shell whose open-file limit
is far below the connection cap (1,024, or less)."""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from firmware_host.api.routes.events import MAX_STREAMS, PER_ADDRESS
from tests.conftest import CRIB
from tests.firmware_host.conftest import ThreadServer
from tests.firmware_host.security_helpers import connect_from
from tests.firmware_host.test_security_streams import open_stream
from tests.processes import free_port


def _limits(pid: int) -> tuple[int, int]:
    """The process's open-file limits (soft, hard), as the kernel reports them."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def _serve(tmp_path: Path, soft: int, hard: int) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`crib serve --simulate` started under the open-file limits (soft, hard); stopped after."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    env |= {"HOME": str(tmp_path), "CRIB_STATE_DIR": str(tmp_path / "state")}
    proc = subprocess.Popen(
        [str(CRIB), "serve", "--simulate", "--port", str(port)], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)))
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 30
        for line in proc.stderr:
            if "ready on http://" in line:
                break
            assert time.monotonic() < deadline, "crib serve did not get ready"
        else:
            pytest.fail("crib serve ended before it was ready")
        yield proc, port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def low_limit(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    # A hard limit of 400 files: the daemon cannot raise it, so at most 144 connections.
    yield from _serve(tmp_path, 400, 400)


def test_idle_connections_over_the_file_limit_do_not_lock_out_a_phone(
        low_limit: tuple[subprocess.Popen[str], int]) -> None:
    proc, port = low_limit
    idle: list[socket.socket] = []
    try:
        # More idle connections than the process has files: before, accept() failed with
        # "Too many open files" and nobody was served until the idle ones timed out.
        for i in range(450):
            idle.append(connect_from(i, port, subnet=3))
        time.sleep(0.3)
        assert len(os.listdir(f"/proc/{proc.pid}/fd")) < 400
        served = 0
        for _ in range(10):  # a phone, a new connection for each request
            r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=3)
            served += r.status_code == 200
        assert served == 10
    finally:
        for s in idle:
            s.close()


def test_a_shells_open_file_limit_is_raised_to_what_the_cap_needs(tmp_path: Path) -> None:
    # A shell's usual 1,024 (soft) under a larger hard limit: raised, so 2,048 connections fit.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 2304:
        pytest.skip(f"the hard open-file limit here is {hard}")
    for proc, _ in _serve(tmp_path, 1024, hard):
        assert _limits(proc.pid)[0] == 2304


def test_event_streams_are_capped_and_http_is_still_served(server: ThreadServer) -> None:
    # Idle streams answer pings, so no timeout ends them: without a cap, 2,048 of them
    # filled the connection cap and no phone could load the page.
    # From many addresses: one address holds at most PER_ADDRESS of them.
    port = server.port

    def address(i: int) -> str:
        return f"127.0.6.{1 + i // PER_ADDRESS}"

    async def main() -> None:
        streams = []
        try:
            for i in range(MAX_STREAMS):
                streams.append(await open_stream(port, address(i)))
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
                await open_stream(port, address(0))
            assert refused.value.response.status_code == 503
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                assert (await http.get("/api/health")).status_code == 200
            # A closed stream makes room for the next phone.
            await streams.pop().close()
            deadline = time.monotonic() + 5
            while server.services.hub.subscribers >= MAX_STREAMS:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            ws = await open_stream(port, address(MAX_STREAMS - 1))
            await ws.close()
        finally:
            for ws in streams:
                await ws.close()

    asyncio.run(main())


def test_a_refusal_that_says_when_to_come_back_says_it_in_retry_after(
        server: ThreadServer) -> None:
    def phone(address: str) -> httpx.Client:
        return httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=5,
                            transport=httpx.HTTPTransport(local_address=address))

    try:
        asking, other = phone("127.0.5.2"), phone("127.0.5.3")
        answers = [asking.post("/api/pair/start", json={}) for _ in range(4)]
        assert [r.status_code for r in answers] == [200, 200, 200, 429]
        busy = other.post("/api/pair/start", json={})
        for r in (answers[-1], busy):
            assert r.status_code in (409, 429), r.text
            assert r.headers["retry-after"] == str(r.json()["retry_after"]), r.headers
            assert int(r.headers["retry-after"]) >= 1
    finally:
        server.services.pairing._pending = None  # the shared daemon's next test may pair
