"""Security figures (printed, not asserted): the daemon's memory after 100 bodies of 10 MB,
the requests a second one real client gets while 1,000 idle connections are open, the
live streams left for others and for a paired phone while one address floods, and how long
the owner takes to pair while 64 addresses take turns at the board.

Run: `.venv/bin/python -m pytest tests/benchmarks/bench_security.py -s -o addopts=""`.
Both run against `crib serve --simulate` in its own process (the uvicorn settings of the
unit: header and keep-alive timeouts, the connection cap, 64 KiB bodies).
"""

from __future__ import annotations

import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.firmware_host.conftest import Daemon  # noqa: E402
from tests.firmware_host.security_helpers import connect_from  # noqa: E402

BODY = 10 * 1024 * 1024
BODIES = 100
IDLE = 1000
MEASURE_S = 3.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def post_big(port: int, chunked: bool) -> int:
    """POST 10 MB to /api/count (the route that needs no token); returns the status."""
    head = f"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n" \
           "Content-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {BODY}\r\n\r\n"
    piece = b"[" * 65536
    if chunked:
        piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head.encode())
        sent = 0
        try:
            while sent < BODY:
                s.sendall(piece)
                sent += 65536
        except OSError:
            pass  # answered and closed before the body was all sent: the point
        answer = b""
        try:
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1") else 0


def bench_memory_after_big_bodies(tmp: Path) -> None:
    d = Daemon(tmp / "mem")
    d.start()
    try:
        assert d.proc is not None
        for _ in range(20):  # warm: the first requests load modules
            d.client.req("POST", "/api/count", {"hand": ["5H", "5C", "5S", "JD"],
                                                 "starter": "5D"}, auth=False)
        idle = rss_mb(d.proc.pid)
        t0 = time.monotonic()
        statuses = [post_big(d.port, chunked=i % 2 == 1) for i in range(BODIES)]
        took = time.monotonic() - t0
        time.sleep(1)
        after = rss_mb(d.proc.pid)
        print(f"\nmemory: idle {idle:.1f} MB, after {BODIES} bodies of 10 MB "
              f"(half chunked) {after:.1f} MB: {after - idle:+.1f} MB (goal: within 5 MB); "
              f"answers {sorted(set(statuses))}, {took:.1f} s")
    finally:
        d.stop()


def served(port: int) -> float:
    """Requests a second one kept-alive client gets from GET /api/health."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        req = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        n, t0 = 0, time.monotonic()
        buf = b""
        while time.monotonic() - t0 < MEASURE_S:
            s.sendall(req)
            while True:
                head, sep, rest = buf.partition(b"\r\n\r\n")
                if sep:
                    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length"))
                    if len(rest) >= length:
                        assert head.startswith(b"HTTP/1.1 200"), head
                        buf = rest[length:]
                        break
                buf += s.recv(65536)
            n += 1
        return n / (time.monotonic() - t0)


def bench_requests_with_idle_connections(tmp: Path) -> None:
    d = Daemon(tmp / "idle")
    d.start()
    idle: list[socket.socket] = []
    try:
        alone = served(d.port)
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", d.port), timeout=5))
        opened = time.monotonic()
        time.sleep(0.5)
        rate = served(d.port)
        # The header timeout closes the idle ones: count how many the daemon dropped.
        time.sleep(max(0.0, opened + 12 - time.monotonic()))
        closed = 0
        for c in idle:
            c.settimeout(0.01)
            try:
                closed += c.recv(1) == b""
            except (TimeoutError, ConnectionResetError):
                pass
        print(f"\nidle connections: {IDLE} open, one client served {rate:.0f} requests/s "
              f"(alone: {alone:.0f}; GET /api/health, kept alive); 12 s later the daemon "
              f"had closed {closed} of the {IDLE} idle ones")
    finally:
        for c in idle:
            c.close()
        d.stop()


def fresh_requests(port: int, seconds: float) -> tuple[int, int]:
    """GET /api/health on a new connection each time for `seconds`: (answered, failed)."""
    ok = failed = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
                s.sendall(f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          "Connection: close\r\n\r\n".encode())
                ok += s.recv(12).startswith(b"HTTP/1.1 200")
        except OSError:
            failed += 1
    return ok, failed


def bench_idle_connections_over_a_shells_file_limit(tmp: Path) -> None:
    """`crib serve` started from a shell whose open-file limit is 1,024 (soft and hard: it
    cannot be raised): 1,100 idle connections, then a phone opening a connection a request."""
    from tests.firmware_host.test_security_limits import _serve

    for proc, port in _serve(tmp / "shell", 1024, 1024):
        idle = []
        try:
            for i in range(1100):
                idle.append(connect_from(i, port, subnet=4))
            time.sleep(0.5)
            files = len(list(Path(f"/proc/{proc.pid}/fd").iterdir()))
            ok, failed = fresh_requests(port, MEASURE_S)
            print(f"\nopen-file limit 1,024: 1,100 idle connections, the daemon holds {files} "
                  f"files; a phone (new connection each request) got {ok / MEASURE_S:.0f} "
                  f"answers/s, {failed} failed")
        finally:
            for s in idle:
                s.close()


def bench_memory_with_stalled_bodies(tmp: Path) -> None:
    """2,000 connections, each 64,000 bytes into a 65,000-byte body, then silent."""
    d = Daemon(tmp / "stalled")
    d.start()
    stalled: list[socket.socket] = []
    try:
        assert d.proc is not None
        idle = rss_mb(d.proc.pid)
        peak = idle
        for i in range(2000):
            s = connect_from(i, d.port, subnet=5)
            s.sendall(f"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1:{d.port}\r\n"
                      "Content-Type: application/json\r\nContent-Length: 65000\r\n\r\n"
                      .encode() + b" " * 64000)
            stalled.append(s)
            if i % 100 == 0:
                peak = max(peak, rss_mb(d.proc.pid))
        for _ in range(10):
            time.sleep(0.2)
            peak = max(peak, rss_mb(d.proc.pid))
        print(f"\nmemory: idle {idle:.1f} MB, 2,000 stalled bodies of 64 KB at once: peak "
              f"{peak:.1f} MB ({peak - idle:+.1f} MB; 148 MB before the 4 MiB body budget)")
    finally:
        for s in stalled:
            s.close()
        d.stop()


def bench_streams_while_one_address_floods(tmp: Path) -> None:
    import asyncio

    import websockets

    from firmware_host.api.routes.events import MAX_STREAMS
    from tests.firmware_host.test_security_streams import open_stream

    d = Daemon(tmp / "streams")
    d.start()

    async def main() -> tuple[int, int, int, bool, bool]:
        held = []
        try:
            got = refused = 0
            for _ in range(2 * MAX_STREAMS):  # one address asks for twice the cap
                try:
                    held.append(await open_stream(d.port, "127.0.44.1"))
                    got += 1
                except websockets.exceptions.InvalidStatus:
                    refused += 1
            i = 0
            while len(held) < MAX_STREAMS:  # others fill the rest
                held.append(await open_stream(d.port, f"127.0.45.{1 + i // 8}"))
                i += 1
            paired = await open_stream(d.port, "127.0.46.1", d.token)
            watcher = await open_stream(d.port, "127.0.46.2")
            held += [paired, watcher]
            return got, refused, MAX_STREAMS - got, paired.close_code is None, \
                watcher.close_code is None
        finally:
            for ws in held:
                await ws.close()

    try:
        got, refused, left, paired, watcher = asyncio.run(main())
        print(f"\nstreams: one address asking for {2 * 128} got {got} ({refused} refused with "
              f"503 and Retry-After); {left} of {128} left for the others; with the cap full, "
              f"a paired phone got one: {paired}, a new watcher got one: {watcher}")
    finally:
        d.stop()


ASK_S = 60.0  # how long the owner keeps asking for a code before giving up


def _board_code(server: object, other_than: str | None = None) -> str | None:
    """The code lit on the simulated board (once it is not `other_than`), as a person reads it."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        back = server.services.devices["board"].require().read_back(timeout=1.0)  # type: ignore[attr-defined]
        if back is not None and back.code is not None and back.code != other_than:
            return back.code  # type: ignore[no-any-return]
        time.sleep(0.02)
    return None


def bench_pairing_while_64_addresses_take_turns(tmp: Path) -> None:
    """The owner first asks for a code to type (retrying when told, for ASK_S), then, as a
    second owner, asks once and holds undo at the board and types what it lights."""
    import httpx

    from tests.firmware_host.security_helpers import ServeServer, TurnTakers

    def owner_phone(port: int, address: str) -> httpx.Client:
        return httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10,
                            transport=httpx.HTTPTransport(local_address=address))

    with ServeServer(tmp / "pairing") as server:
        server.wait_board_idle()
        with TurnTakers(server.port) as attack:
            with owner_phone(server.port, "127.0.63.1") as owner:
                t0, asks, refused, asked_in = time.monotonic(), 0, 0, None
                while time.monotonic() - t0 < ASK_S:
                    r = owner.post("/api/pair/start", json={})
                    asks += 1
                    if r.status_code == 200:
                        code = _board_code(server)
                        if owner.post("/api/pair", json={"name": "asker", "code": code}
                                      ).status_code == 200:
                            asked_in = time.monotonic() - t0
                            break
                    else:
                        refused += 1
                        time.sleep(min(float(r.headers.get("retry-after", 1)), 5.0))
            with owner_phone(server.port, "127.0.63.2") as owner:
                t0 = time.monotonic()
                owner.post("/api/pair/start", json={})
                theirs = _board_code(server)
                hold_s = server.settings.undo_hold_s
                time.sleep(hold_s)  # the person holds undo
                server.services.devices["board"].require().simulator.hold_undo(hold_s + 0.1)
                time.sleep(0.2)
                pending = server.services.pairing._pending
                approved_other = bool(pending is not None and pending.approved
                                      and pending.client != "127.0.63.2")
                seen, held_in = _board_code(server, other_than=theirs), None
                while seen is not None and time.monotonic() - t0 < 30:
                    r = owner.post("/api/pair", json={"name": "holder", "code": seen})
                    if r.status_code == 200:
                        held_in = time.monotonic() - t0
                        break
                    if r.status_code == 429:
                        time.sleep(float(r.headers["retry-after"]))
                    else:
                        seen = _board_code(server, other_than=seen) or seen
                        time.sleep(0.2)
        print(f"\npairing while 64 addresses take turns ({attack.counts['asks']} asks, "
              f"{attack.counts['granted']} granted, {attack.counts['guesses']} guesses; codes "
              f"live {server.settings.pairing_code_ttl_s:g} s): asking for a code, the owner "
              + (f"paired in {asked_in:.1f} s" if asked_in is not None else
                 f"never paired in {ASK_S:.0f} s") + f" ({refused} of {asks} asks refused); "
              "holding undo at the board, "
              + (f"paired in {held_in:.1f} s" if held_in is not None else
                 "never paired in 30 s") + f" (hold {hold_s:g} s included); the hold approved "
              f"another phone's request: {approved_other}")


def test_security_figures() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bench_pairing_while_64_addresses_take_turns(Path(tmp))
        bench_streams_while_one_address_floods(Path(tmp))
        bench_memory_after_big_bodies(Path(tmp))
        bench_memory_with_stalled_bodies(Path(tmp))
        bench_requests_with_idle_connections(Path(tmp))
        bench_idle_connections_over_a_shells_file_limit(Path(tmp))


if __name__ == "__main__":
    test_security_figures()
