"""The two uvicorn hooks the daemon overrides (`Server.main_loop`, `Server.handle_exit`):
public methods, but uvicorn's own loop must still call them. An upgrade that stops calling
them (or changes `on_tick`) fails here, not as a daemon that idles hot or exits 1 on SIGTERM."""

from __future__ import annotations

import asyncio
import inspect
import signal

import uvicorn

from firmware_host.app_main import _Server
from firmware_host.notify import Notifier


async def _app(scope: object, receive: object, send: object) -> None:  # never called
    raise AssertionError


def test_uvicorns_serve_still_runs_main_loop_and_installs_handle_exit() -> None:
    assert "self.main_loop()" in inspect.getsource(uvicorn.Server._serve)
    assert list(inspect.signature(uvicorn.Server.on_tick).parameters) == ["self", "counter"]
    assert "handle_exit" in inspect.getsource(uvicorn.Server.capture_signals)


def test_the_idle_loop_ticks_once_a_second_and_a_signal_ends_it_at_once() -> None:
    server = _Server(uvicorn.Config(_app, log_config=None))
    server.notifier = Notifier()
    ticks: list[int] = []

    async def on_tick(counter: int) -> bool:
        ticks.append(counter)
        return server.should_exit

    server.on_tick = on_tick  # type: ignore[method-assign]

    async def run() -> float:
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(server.main_loop())
        await asyncio.sleep(0.35)  # uvicorn's own loop would have ticked four times
        assert len(ticks) == 1
        started = loop.time()
        server.handle_exit(signal.SIGTERM, None)
        await asyncio.wait_for(task, 0.5)
        return loop.time() - started

    assert asyncio.run(run()) < 0.2  # woken by the signal, not by the next tick
    assert server.should_exit and not server.force_exit and len(ticks) == 2
