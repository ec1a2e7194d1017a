"""The daemon's socket writes: an answer leaves in one write (head and body together)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

from firmware_host.app_main import GuardedH11
from tests.firmware_host.security_helpers import ServeServer


class CountingTransport:
    """The real transport, with every write recorded."""

    def __init__(self, transport: asyncio.Transport, writes: list[bytes]) -> None:
        self._transport = transport
        self.writes = writes

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


WRITES: list[bytes] = []


class CountingH11(GuardedH11):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CountingTransport(transport, WRITES))  # type: ignore[arg-type]


def _answer(s: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += s.recv(65536)
    return head + b"\r\n\r\n" + body


def test_each_answer_is_one_socket_write_with_its_head_and_body(tmp_path: Path) -> None:
    srv = ServeServer(tmp_path / "state")
    srv.server.config.http = CountingH11
    with srv, socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
        request = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode()
        answers = []
        for _ in range(3):  # kept alive: every answer on the connection, not only the first
            s.sendall(request)
            answers.append(_answer(s))
    assert len(WRITES) == 3, [w[:40] for w in WRITES]
    assert WRITES == answers
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 200 ")
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["status"] in ("ok", "degraded")
