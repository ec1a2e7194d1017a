"""One address cannot take the live streams from everyone: against the daemon under the
settings of `crib serve`, from many loopback addresses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from firmware_host.api.routes.events import MAX_STREAMS, PER_ADDRESS
from tests.firmware_host.security_helpers import ServeServer


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServeServer]:
    with ServeServer(tmp_path / "state") as srv:
        yield srv


async def open_stream(port: int, address: str, token: str | None = None) -> Any:
    """A stream from `address`, its snapshot read; a paired page offers its token as the
    browser can, in the subprotocols. Raises websockets' InvalidStatus when refused."""
    sock = socket.socket()
    sock.bind((address, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    protocols = ["crib", f"bearer.{token}"] if token else None
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/api/events", sock=sock,
                                  subprotocols=protocols, open_timeout=10)  # type: ignore[arg-type]
    assert "game" in json.loads(await asyncio.wait_for(ws.recv(), 10))
    return ws


def test_one_address_cannot_hold_every_stream_and_a_paired_phone_always_gets_one(
        served: ServeServer) -> None:
    token = served.services.tokens.create("streamer")
    port = served.port

    async def main() -> None:
        held: list[Any] = []
        try:
            refused = []
            for _ in range(MAX_STREAMS):  # one address asks for the whole cap
                try:
                    held.append(await open_stream(port, "127.0.40.1"))
                except websockets.exceptions.InvalidStatus as exc:
                    refused.append(exc.response)
            assert len(held) == PER_ADDRESS, len(held)
            # The refusal says why, and when to read again (the page polls meanwhile).
            first = refused[0]
            assert first.status_code == 503 and first.headers["Retry-After"].isdigit()
            body = json.loads(first.body)
            assert body["code"] == "streams_full" and body["poll_s"] >= 1, body
            left = MAX_STREAMS - served.services.hub.subscribers
            print(f"streams left for others while one address floods: {left}")
            assert left == MAX_STREAMS - PER_ADDRESS
            # Many addresses fill the rest of the cap with unpaired streams.
            i = 0
            while served.services.hub.subscribers < MAX_STREAMS:
                held.append(await open_stream(port, f"127.0.41.{1 + i // PER_ADDRESS}"))
                i += 1
            # A paired phone still gets its stream; so does a watcher from a new address
            # (each closes one stream of an address holding the most), and the closed
            # stream is told to try again later.
            phone = await open_stream(port, "127.0.42.1", token)
            assert phone.subprotocol == "crib"
            watcher = await open_stream(port, "127.0.42.2")
            closed = [ws for ws in held if ws.close_code is not None]
            await asyncio.sleep(0.2)
            closed = [ws for ws in held if ws.close_code is not None]
            assert len(closed) == 2 and {ws.close_code for ws in closed} == {1013}, closed
            held += [phone, watcher]
            assert served.services.hub.subscribers == MAX_STREAMS
            # A wrong token is no token: it gets no room a paired phone would.
            with pytest.raises(websockets.exceptions.InvalidStatus):
                for _ in range(PER_ADDRESS + 1):
                    held.append(await open_stream(port, "127.0.42.3", "crib_forged"))
        finally:
            for ws in held:
                await ws.close()

    asyncio.run(main())


def test_a_code_lit_for_one_phone_is_not_announced_to_the_others(served: ServeServer) -> None:
    import httpx

    port = served.port

    async def main() -> list[str]:
        ws = await open_stream(port, "127.0.43.1")
        try:
            async with httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}",
                    transport=httpx.AsyncHTTPTransport(local_address="127.0.43.2")) as owner:
                assert (await owner.post("/api/pair/start", json={})).status_code == 200
            seen = []
            with contextlib.suppress(TimeoutError):
                while True:
                    seen.append(await asyncio.wait_for(ws.recv(), 1.0))
            return seen
        finally:
            await ws.close()

    seen = asyncio.run(main())
    assert not [m for m in seen if '"board"' in m or "pairing" in m], seen


def test_one_paired_phone_cannot_hold_every_stream_and_another_still_gets_its_own(
        served: ServeServer) -> None:
    from firmware_host.api.routes.events import PER_TOKEN

    port = served.port
    tokens = [served.services.tokens.create(f"phone-{n}") for n in range(MAX_STREAMS // 8 + 1)]

    async def main() -> tuple[int, int]:
        held: list[Any] = []
        try:
            got = refused = 0
            for i in range(MAX_STREAMS):  # one paired phone asks for the whole cap, from
                try:                       # many addresses: its token's share binds
                    held.append(await open_stream(port, f"127.0.47.{1 + i}", tokens[0]))
                    got += 1
                except websockets.exceptions.InvalidStatus as exc:
                    refused += 1
                    body = json.loads(exc.response.body)
                    assert "this phone's token already holds" in body["error"], body
            # Other paired phones fill the cap, each with its share: all 128 are paired.
            n = 1
            while served.services.hub.subscribers < MAX_STREAMS:
                for _ in range(PER_TOKEN):
                    if served.services.hub.subscribers >= MAX_STREAMS:
                        break
                    held.append(await open_stream(port, f"127.0.48.{n}", tokens[n]))
                n += 1
            # One more paired phone still gets its two streams: each closes the oldest of
            # a token holding more than it (told to try again later).
            late = [await open_stream(port, "127.0.49.1", tokens[-1]) for _ in range(2)]
            held += late
            await asyncio.sleep(0.2)
            closed = [ws for ws in held if ws.close_code is not None]
            assert len(closed) == 2 and {ws.close_code for ws in closed} == {1013}, closed
            assert served.services.hub.subscribers == MAX_STREAMS
            return got, refused
        finally:
            for ws in held:
                await ws.close()

    got, refused = asyncio.run(main())
    print(f"one paired phone asking for {MAX_STREAMS} streams got {got} ({refused} refused); "
          "with the cap full of paired streams, another paired phone got 2 of 2")
    assert got == PER_TOKEN and refused == MAX_STREAMS - PER_TOKEN
