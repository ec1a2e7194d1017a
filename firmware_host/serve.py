"""One way to run an ASGI app under uvicorn, for `crib serve` and `crib club serve`: on a
socket bound beforehand, with systemd's notify protocol (READY=1 once uvicorn listens,
STOPPING=1 as soon as SIGTERM or SIGINT arrives, WATCHDOG=1 from the event loop when asked)
and exit status 0 for a stop on request.

Only uvicorn's supported surface is used: `uvicorn.Server(config)`, `serve(sockets=...)`,
`started` and `should_exit`. uvicorn handles SIGTERM and SIGINT itself while it serves, and
after a graceful shutdown raises the signal again to the handler that was in place before:
ours, which does nothing, so the process ends by returning 0 as systemd expects of a
service stopped on request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from types import FrameType

import uvicorn

from firmware_host.errors import ConfigError
from firmware_host.notify import Notifier

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
WATCH_S = 0.1  # how soon a stop is told to systemd (uvicorn's own loop ticks at this pace)


def bind_socket(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else; raises ConfigError naming the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this on Linux: no 40 ms Nagle/delayed-ACK stall between
    # a response's header and body writes on kept-alive connections.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"port: cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@contextlib.contextmanager
def _absorbed_stop_signals() -> Iterator[None]:
    """While inside: SIGTERM and SIGINT outside uvicorn's serve (before it starts, and the
    one it raises again after its shutdown) do nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def absorb(sig: int, frame: FrameType | None) -> None:
        return None

    previous = {sig: signal.signal(sig, absorb) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve_app(config: uvicorn.Config, sock: socket.socket, *, notifier: Notifier,
              log: logging.Logger, on_ready: Callable[[], str],
              stopping_line: str = "stopping", watchdog: bool = False) -> int:
    """Serve `config`'s app on `sock` until SIGTERM or SIGINT; returns the exit status (0:
    stopped on request, 1: uvicorn could not start). `on_ready()` runs once uvicorn listens
    and returns the STATUS= line sent with READY=1; `watchdog`: send WATCHDOG=1 from the
    event loop at half systemd's interval (a component with its own health checks sends it
    otherwise). Closes `sock` and `notifier`."""
    server = uvicorn.Server(config)

    async def keep_watch(task: asyncio.Task[None]) -> None:
        told = False
        every = notifier.watchdog_s / 2 if watchdog and notifier.watchdog_s else None
        last = asyncio.get_running_loop().time()
        while not task.done():
            if server.should_exit and not told:
                told = True
                log.info("signal: %s", stopping_line)
                notifier.stopping()
            now = asyncio.get_running_loop().time()
            if every is not None and not told and now - last >= every:
                last = now
                notifier.watchdog()
            await asyncio.wait({task}, timeout=WATCH_S)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            notifier.ready(on_ready())
        await keep_watch(task)
        await task

    try:
        with _absorbed_stop_signals():
            asyncio.run(main())
    finally:
        sock.close()
        notifier.close()
    return 0 if server.started else 1
