"""`crib serve`: configuration, the HTTP socket, services and uvicorn, with systemd notify."""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import signal
import socket
import sys
import time
from types import FrameType

import uvicorn

from firmware_host.api import create_app
from firmware_host.config import Settings
from firmware_host.errors import ConfigError
from firmware_host.notify import Notifier
from firmware_host.services import build_services

log = logging.getLogger("crib.daemon")


def configure_logging(level: str) -> None:
    """Plain lines on stderr; the journal adds time and priority."""
    logging.basicConfig(
        level=getattr(logging, level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )


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


class _Server(uvicorn.Server):
    """uvicorn's server, telling systemd STOPPING=1 as soon as a signal arrives."""

    notifier: Notifier

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Not uvicorn's own: it records the signal to raise it again after a clean shutdown,
        # and systemd expects exit 0 of a service that stopped on request. `should_exit` and
        # `force_exit` are uvicorn's public switches.
        if not self.should_exit:
            log.info("signal %d: stopping (motor off, board state kept)", sig)
            self.notifier.stopping()
            self.should_exit = True
        elif sig == signal.SIGINT:
            self.force_exit = True


def serve(settings: Settings, notifier: Notifier | None = None) -> int:
    """Run the daemon until SIGTERM or SIGINT; returns the exit status."""
    started = time.monotonic()
    configure_logging(settings.log_level)
    # `kill -USR1 <pid>` writes every thread's stack to the journal: for a daemon that hangs.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    notifier = notifier or Notifier()
    sock = bind_socket(settings.host, settings.port)
    services = build_services(settings, notifier=notifier)
    app = create_app(settings, services)
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on",
                            timeout_graceful_shutdown=3)
    server = _Server(config)
    server.notifier = notifier

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            notifier.ready(services.status_line())
            log.info("ready on http://%s:%d/ in %.2f s", settings.host, settings.port,
                     time.monotonic() - started)
        await task

    try:
        asyncio.run(main())
    finally:
        sock.close()
        notifier.close()
    return 0 if server.started else 1
