"""Issue 12 items 1, 4 and 8 through real HTTP on 127.0.0.1: bodies bounded while they
arrive, JSON refused before it is parsed, Origin on writes, WebSocket message size, idle and
slow clients timed out, connections capped, no proxy trust, no /docs."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from firmware_host.api.guard import MAX_BODY
from firmware_host.app_main import MAX_CONNECTIONS, RepeatFilter
from tests.firmware_host.conftest import Client, ThreadServer
from tests.firmware_host.security_helpers import ServeServer, raw, status_of


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeServer]:
    with ServeServer(tmp_path_factory.mktemp("served")) as srv:
        yield srv


COUNT = {"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"}


def head(port: int, path: str, length: int, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n{extra}\r\n"
            ).encode()


def test_a_huge_body_is_refused_on_its_length_without_reading_it(server: ThreadServer) -> None:
    # 50 MB announced, 1 KiB sent: the answer comes at once, and says why.
    t0 = time.monotonic()
    answer = raw(server.port, head(server.port, "/api/count", 50_000_000) + b"[" * 1024)
    assert status_of(answer) == 413, answer[:300]
    assert time.monotonic() - t0 < 2
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["code"] == "too_large" and "64 KiB" in body["error"]


def test_a_chunked_body_is_cut_off_as_it_passes_the_limit(client: Client) -> None:
    sent = 0

    def chunks():  # a body with no Content-Length: 4 MiB in 16 KiB chunks
        nonlocal sent
        for _ in range(256):
            sent += 16384
            yield b" " * 16384

    try:
        r = client.http.post("/api/count", content=chunks(),
                             headers={"content-type": "application/json"})
    except httpx.HTTPError:
        pytest.fail("the server dropped the connection instead of answering 413")
    assert r.status_code == 413, r.text
    assert "64 KiB" in r.json()["error"]
    # A body just under the limit is read and judged on its content.
    ok = json.dumps({**COUNT, "pad": " " * (MAX_BODY - 200)})
    assert client.http.post("/api/count", content=ok.encode(),
                            headers={"content-type": "application/json"}).status_code == 422


@pytest.mark.parametrize("size, status, code", [
    (b"ffffffffffffffffff1", 400, "bad_chunk"),  # 76 bits: no 64-bit parser takes it
    (b"10000000000000000", 400, "bad_chunk"),  # 2**64
    (b"%x" % (4 * MAX_BODY), 413, "too_large"),  # a size, but no body of ours fits
])
def test_a_chunk_too_big_to_be_a_body_is_answered_at_its_size_and_closed(
        served: ServeServer, size: bytes, status: int, code: str) -> None:
    """The chunk's size line alone, then silence: the answer comes at once (not at the
    header timeout, nor never), says why, and the connection is closed."""
    port = served.port
    request = (f"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
               ).encode() + size + b"\r\n" + b"[" * 10
    t0 = time.monotonic()
    answer = raw(port, request, timeout=3.0)
    took = time.monotonic() - t0
    assert answer.startswith(b"HTTP/1.1 "), (answer, took)
    assert status_of(answer) == status, answer[:300]
    head_, _, body = answer.partition(b"\r\n\r\n")
    assert b"connection: close" in head_.lower(), head_
    assert json.loads(body)["code"] == code, body
    assert took < 1.0, took  # answered at once, and closed (raw reads until the close)
    # The daemon goes on serving.
    assert httpx.post(f"http://127.0.0.1:{port}/api/count", json=COUNT).status_code == 200


def test_a_body_cut_off_by_a_refused_chunk_changes_nothing(served: ServeServer) -> None:
    """A whole new game in the first chunk, then a chunk no parser takes: the answer is the
    400, and the game is not made (the app never runs on part of a body)."""
    port = served.port
    token = served.services.tokens.create("chunker")
    before = len(served.services.store.games())
    body = json.dumps({"names": ["Ann", "Bob"]}).encode()
    request = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
               "Transfer-Encoding: chunked\r\n\r\n").encode()
    request += b"%x\r\n" % len(body) + body + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        s.sendall(request)
        time.sleep(0.3)  # the first chunk is read by the door before the next size comes
        s.sendall(b"ffffffffffffffffff1\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert status_of(answer) == 400, answer[:300]
    time.sleep(0.3)  # a game made after the answer would be stored by now
    assert len(served.services.store.games()) == before


@pytest.mark.parametrize("body, why", [
    (b'{"hand": ["5H", "5C", "5S", "JD"], "starter": "5\xff"}', "not UTF-8"),
    (b'{"hand": ["5H"], "starter": "5D", "crib": ' + b"9" * 5000 + b"}", "digits"),
    (b'{"hand": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nests"),
    (b'{"hand": ["5H", "5C", "5S", "JD"], "starter": "5D", "crib": NaN}', "NaN"),
])
def test_bad_json_is_a_422_with_a_sentence(client: Client, body: bytes, why: str) -> None:
    r = client.http.post("/api/count", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert why in r.json()["error"]


def test_state_changing_requests_check_origin(server: ThreadServer, client: Client) -> None:
    own = f"http://127.0.0.1:{server.port}"
    for origin in ("http://evil.example", f"http://localhost:{server.port + 1}", "null"):
        r = client.req("POST", "/api/games", {"names": ["A", "B"]}, headers={"Origin": origin})
        assert r.status_code == 403, (origin, r.text)
        assert r.json()["code"] == "forbidden_origin"
        r = client.req("POST", "/api/pair/start", {}, auth=False, headers={"Origin": origin})
        assert r.status_code == 403, (origin, r.text)
    r = client.req("POST", "/api/games", {"names": ["A", "B"]}, headers={"Origin": own})
    assert r.status_code == 201, r.text
    # localhost on the daemon's own port is the daemon's page too.
    r = client.req("PUT", "/api/settings", {"brightness": 40},
                   headers={"Origin": f"http://localhost:{server.port}"})
    assert r.status_code == 200, r.text
    # Reads are not guarded (a cross-site read is stopped by the browser itself).
    assert client.req("GET", "/api/health", headers={"Origin": "http://evil.example"}
                      ).status_code == 200


def test_websocket_origin_must_have_the_daemons_port(server: ThreadServer) -> None:
    url = f"ws://127.0.0.1:{server.port}/api/events"

    async def main() -> None:
        with pytest.raises(websockets.exceptions.WebSocketException):
            async with websockets.connect(url, origin="http://localhost:9999") as ws:
                await asyncio.wait_for(ws.recv(), 2)
        async with websockets.connect(url, origin=f"http://localhost:{server.port}") as ws:
            assert "game" in json.loads(await asyncio.wait_for(ws.recv(), 5))

    asyncio.run(main())


def test_no_docs_page_that_loads_from_a_cdn(client: Client) -> None:
    assert client.req("GET", "/docs").status_code == 404
    assert client.req("GET", "/openapi.json").status_code == 200


def test_websocket_messages_are_bounded(served: ServeServer) -> None:
    url = f"ws://127.0.0.1:{served.port}/api/events"

    async def main() -> int | None:
        async with websockets.connect(url, max_size=None) as ws:
            await asyncio.wait_for(ws.recv(), 5)
            await ws.send("x" * (1024 * 1024))  # 1 MiB: uvicorn's default allowed 16 MiB
            with pytest.raises(websockets.exceptions.ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
            return ws.close_code

    assert asyncio.run(main()) == 1009  # "message too big"


def test_idle_and_slow_clients_are_closed(served: ServeServer) -> None:
    # A connection that sends nothing, and one that sends its head a byte at a time.
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as idle:
        assert idle.recv(100) == b""  # closed by the server, not by the 5 s timeout
    assert time.monotonic() - t0 < 3
    t0 = time.monotonic()
    closed = False
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as slow:
        for byte in b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 100:
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.05)
            if time.monotonic() - t0 > 4:
                break
        if not closed:
            slow.settimeout(2)
            try:
                closed = slow.recv(100) == b""
            except ConnectionResetError:
                closed = True
    assert closed and time.monotonic() - t0 < 4
    # A real client is still served, and kept alive between its requests.
    with httpx.Client(base_url=f"http://127.0.0.1:{served.port}") as http:
        for _ in range(3):
            assert http.get("/api/health").status_code == 200


def test_no_forwarded_address_is_believed(served: ServeServer) -> None:
    config = served.server.config
    assert config.proxy_headers is False
    # Through HTTP: a forged X-Forwarded-For does not change who the pairing limits see.
    for i in range(4):
        r = httpx.post(f"http://127.0.0.1:{served.port}/api/pair",
                       json={"name": "eve", "code": "000000"},
                       headers={"X-Forwarded-For": f"10.0.0.{i}"})
        assert r.status_code in (403, 429), r.text
    seen = served.services.pairing.clients()
    assert seen and all(c == "127.0.0.1" for c in seen), seen


def test_connections_are_capped_below_the_units_file_limit() -> None:
    unit = (Path(__file__).parents[2] / "systemd" / "cribbage-table.service").read_text()
    limit = int(next(line.split("=", 1)[1] for line in unit.splitlines()
                     if line.startswith("LimitNOFILE=")))
    assert MAX_CONNECTIONS <= limit - 256, (MAX_CONNECTIONS, limit)


def test_repeated_log_lines_are_thinned() -> None:
    now = [0.0]
    f = RepeatFilter(burst=3, every_s=10, max_lines=4, now=lambda: now[0])

    def rec(msg: str) -> object:
        import logging
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, None, None)

    passed = [f.filter(rec("socket.accept() out of system resource")) for _ in range(1000)]
    assert passed.count(True) == 3
    now[0] = 10.0
    r = rec("socket.accept() out of system resource")
    assert f.filter(r) and "997 more like it" in r.getMessage()
    # Many different lines cannot grow the filter without bound.
    for i in range(10_000):
        f.filter(rec(f"line {i}"))
    assert len(f._seen) <= 4


def test_bodies_stalled_together_are_bounded_and_a_real_body_still_goes_through(
        served: ServeServer) -> None:
    # Each body is under the limit, but many stalled at once held 150 MB (2,048 of them).
    port = served.port
    stalled: list[socket.socket] = []
    answers: list[bytes] = []
    try:
        for _ in range(100):  # 100 x 60 KB: more than the 4 MiB that may be held at once
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(head(port, "/api/count", 64_000) + b" " * 60_000)
            stalled.append(s)
        time.sleep(0.3)
        for s in stalled:
            s.settimeout(0.05)
            try:
                answers.append(s.recv(4096))
            except TimeoutError:
                answers.append(b"")
        busy = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert 20 <= len(busy) <= 50, [a[:40] for a in answers]  # 4 MiB / 56 KB past 4 KiB
        assert b"retry-after: 1" in busy[0].lower() and b"too many large requests" in busy[0]
        # A phone's real body is never refused for the others' sake.
        r = httpx.post(f"http://127.0.0.1:{port}/api/count", json=COUNT, timeout=5)
        assert r.status_code == 200 and r.json()["total"] == 29
    finally:
        for s in stalled:
            s.close()
