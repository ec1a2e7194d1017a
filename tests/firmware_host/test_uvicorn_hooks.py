"""What `firmware_host.uvicorn_hooks` builds on uvicorn: the parts of `H11Protocol` the
guards use (its connections, h11 state, cycle and transport). An upgrade that changes them
fails here, not as a daemon that no longer closes idle and slow clients."""

from __future__ import annotations

import asyncio
import inspect

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
from uvicorn.server import ServerState

from firmware_host.uvicorn_hooks import GuardedH11, OneWrite


async def _app(scope: object, receive: object, send: object) -> None:  # never called
    raise AssertionError


def test_the_h11_protocol_still_has_what_the_guards_use() -> None:
    made = inspect.getsource(H11Protocol.__init__)
    for name in ("self.connections", "self.conn", "self.cycle", "self.limit_concurrency",
                 "self.loop"):
        assert name in made, name
    assert "self.transport" in inspect.getsource(H11Protocol.connection_made)
    assert "self.cycle = RequestResponseCycle(" in inspect.getsource(H11Protocol.handle_events)
    cycle = inspect.getsource(RequestResponseCycle)
    assert "self.transport.write(" in cycle and "self.response_complete" in cycle
    for hook in ("connection_made", "connection_lost", "handle_events", "on_response_complete"):
        assert hook in vars(H11Protocol), hook


class _Transport:
    """A socket as the protocol sees it: what was written, in how many writes; closed?"""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default)

    def get_protocol(self) -> object:
        return self.protocol

    def set_protocol(self, protocol: object) -> None:
        self.protocol = protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _hello(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    await send({"type": "http.response.start", "status": 200,  # type: ignore[operator]
                "headers": [(b"content-length", b"5")]})
    await send({"type": "http.response.body", "body": b"hello"})  # type: ignore[operator]


def test_an_answer_leaves_in_one_write_and_a_silent_client_is_closed() -> None:
    class Quick(GuardedH11):
        header_timeout_s = 0.2

    async def run() -> tuple[_Transport, _Transport]:
        config = uvicorn.Config(_hello, log_config=None, lifespan="off")
        config.load()
        state = ServerState()
        served, silent = _Transport(), _Transport()
        for transport in (served, silent):
            proto = Quick(config, state, {}, asyncio.get_running_loop())
            transport.set_protocol(proto)
            proto.connection_made(transport)  # type: ignore[arg-type]
        served.protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await asyncio.sleep(0.05)
        assert isinstance(served.protocol.cycle.transport, OneWrite)
        await asyncio.sleep(0.4)
        return served, silent

    served, silent = asyncio.run(run())
    assert len(served.writes) == 1 and served.writes[0].endswith(b"\r\n\r\nhello")
    assert served.writes[0].startswith(b"HTTP/1.1 200 ")
    assert silent.closed and not silent.writes
