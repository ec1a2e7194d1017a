"""The lower holes, against the daemon under the settings of `crib serve`: a request head
over the limit however its bytes arrive, Content-Length with Transfer-Encoding, and what the
token-free pairing endpoints say about paired phones."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from firmware_host.app_main import MAX_HEADER_BYTES
from tests.firmware_host.security_helpers import ServeServer, raw, status_of


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeServer]:
    with ServeServer(tmp_path_factory.mktemp("lower")) as srv:
        yield srv


def _big_head(port: int, size: int) -> bytes:
    pads = "".join(f"X-Pad-{i}: {'a' * 1000}\r\n" for i in range(size // 1014 + 1))
    return f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{pads}\r\n".encode()


def test_a_head_over_the_limit_is_refused_in_one_write(served: ServeServer) -> None:
    head = _big_head(served.port, 100 * 1024)
    answer = raw(served.port, head)
    assert status_of(answer) == 431, answer[:200]
    assert b"16 KiB" in answer


def test_a_head_over_the_limit_is_refused_in_small_writes(served: ServeServer) -> None:
    head = _big_head(served.port, 4 * MAX_HEADER_BYTES)
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            for i in range(0, len(head), 1000):
                s.sendall(head[i:i + 1000])
                time.sleep(0.001)
        except OSError:
            pass  # refused and closed before the rest was sent
        answer = s.recv(1000)
    assert answer and status_of(answer) in (400, 431), answer[:200]


def test_a_head_under_the_limit_is_served(served: ServeServer) -> None:
    head = _big_head(served.port, MAX_HEADER_BYTES - 2048)
    assert len(head) < MAX_HEADER_BYTES
    assert status_of(raw(served.port, head + b"")) == 200


def test_content_length_with_transfer_encoding_is_a_400_and_closed(served: ServeServer) -> None:
    body = b'{"hand": ["5H", "5C", "5S", "JD"], "starter": "5D"}'
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    request = (f"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
               "Content-Type: application/json\r\nContent-Length: 5\r\n"
               "Transfer-Encoding: chunked\r\n\r\n").encode() + chunked
    # A second request behind it: smuggled, it would be answered too.
    smuggled = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n\r\n".encode()
    answer = raw(served.port, request + smuggled)
    assert status_of(answer) == 400, answer[:300]
    assert b"Transfer-Encoding" in answer and answer.count(b"HTTP/1.1 ") == 1, answer


def test_the_pairing_endpoint_does_not_say_which_names_are_paired(served: ServeServer) -> None:
    served.services.tokens.create("ann-phone")
    with httpx.Client(base_url=f"http://127.0.0.1:{served.port}", timeout=5,
                      transport=httpx.HTTPTransport(local_address="127.0.7.1")) as eve:
        answers = {}
        for name in ("ann-phone", "zed-phone"):
            for body in ({"name": name, "code": "000000"},
                         {"name": name, "request": "x" * 22}):
                r = eve.post("/api/pair", json=body)
                answers[name, tuple(body)] = (r.status_code, r.json()["code"])
    for way in (("name", "code"), ("name", "request")):
        assert answers["ann-phone", way] == answers["zed-phone", way], answers
        assert answers["ann-phone", way][1] != "name_taken", answers


def test_a_taken_name_is_said_only_to_the_phone_with_the_right_code(tmp_path: Path) -> None:
    from firmware_host.auth import Pairing, Tokens
    from firmware_host.errors import NameTakenError
    from firmware_host.store import Store

    store = Store(tmp_path / "db.sqlite3")
    store.start()
    try:
        tokens = Tokens(store)
        tokens.create("ann-phone")
        pairing = Pairing(tokens, lambda code: None)
        pairing.start("127.0.8.1")
        code = pairing.code
        with pytest.raises(NameTakenError):
            pairing.pair("ann-phone", code=code, request=None, client="127.0.8.1")
        # The code is not spent on a name that cannot be had: another name pairs with it.
        assert pairing.pair("bob-phone", code=code, request=None, client="127.0.8.1")
    finally:
        store.stop()
