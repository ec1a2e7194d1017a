"""`crib serve`: configuration, the HTTP socket, services and uvicorn, with systemd notify."""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import resource
import signal
import time

import uvicorn
from starlette.types import ASGIApp

from firmware_host.api import create_app
from firmware_host.api.hosts import MAX_HEAD
from firmware_host.config import Settings
from firmware_host.errors import DaemonError
from firmware_host.logs import RepeatFilter, configure_logging
from firmware_host.notify import Notifier
from firmware_host.serve import bind_socket, serve_app
from firmware_host.services import build_services
from firmware_host.uvicorn_hooks import HEADER_TIMEOUT_S, MAX_CONNECTIONS, GuardedH11, OneWrite

log = logging.getLogger("crib.daemon")

# Re-exported: the tests and benchmarks reach them here.
__all__ = ["HEADER_TIMEOUT_S", "MAX_CONNECTIONS", "GuardedH11", "OneWrite", "RepeatFilter",
           "bind_socket", "configure_logging", "serve", "uvicorn_config"]


# Connections: a Pi Zero's daemon serves a few phones. The unit's LimitNOFILE is 4096; the
# cap (MAX_CONNECTIONS) leaves room under it for the database, the serial link, GPIO and
# the journal.
FD_RESERVE = 256  # files the daemon holds besides its connections, with room to spare
KEEP_ALIVE_S = 5  # an idle kept-alive connection is closed after this
MAX_HEADER_BYTES = MAX_HEAD  # h11's buffer for an incomplete head; HostGuard checks whole ones
WS_MAX_MESSAGE = 64 * 1024  # the page sends nothing bigger than a close frame


def open_file_limit() -> int:
    """Raise the soft open-file limit towards what the connection cap needs (a shell's
    1,024 would be reached first: accept() then fails and nobody is served), as far as the
    hard limit allows; returns the soft limit now in force. Never raises."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_CONNECTIONS + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def connection_cap(files: int) -> int:
    """How many connections fit under an open-file limit of `files`, at most MAX_CONNECTIONS."""
    if files == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, files - FD_RESERVE))


def uvicorn_config(app: ASGIApp, settings: Settings) -> uvicorn.Config:
    """uvicorn's settings for the daemon: timeouts, caps (from the open-file limit in force),
    no proxy trust unless configured."""
    proxies = list(settings.trusted_proxies)
    cap = connection_cap(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    return uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=3,
        http=GuardedH11, ws="websockets-sansio", ws_max_size=WS_MAX_MESSAGE,
        timeout_keep_alive=KEEP_ALIVE_S, h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        limit_concurrency=cap + 1, backlog=128,
        # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: a local process could
        # then pose as any phone to the pairing limits.
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None,
        server_header=False,
    )


def serve(settings: Settings, notifier: Notifier | None = None) -> int:
    """Run the daemon until SIGTERM or SIGINT; returns the exit status."""
    started = time.monotonic()
    configure_logging(settings.log_level)
    # `kill -USR1 <pid>` writes every thread's stack to the journal: for a daemon that hangs.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    notifier = notifier or Notifier()
    files = open_file_limit()
    if connection_cap(files) < MAX_CONNECTIONS:
        log.warning("the open-file limit is %d: at most %d connections (LimitNOFILE=%d "
                    "allows %d)", files, connection_cap(files), MAX_CONNECTIONS + FD_RESERVE,
                    MAX_CONNECTIONS)
    sock = bind_socket(settings.host, settings.port)
    services = build_services(settings, notifier=notifier)
    try:
        # Opened here, not in the lifespan: a state directory that can't be used is one
        # line from `crib serve` (StoreError), not uvicorn's startup traceback.
        services.store.start()
    except DaemonError:
        sock.close()
        raise
    app = create_app(settings, services)

    def ready() -> str:
        log.info("ready on http://%s:%d/ in %.2f s", settings.host, settings.port,
                 time.monotonic() - started)
        return services.status.status_line()

    return serve_app(uvicorn_config(app, settings), sock, notifier=notifier, log=log,
                     on_ready=ready, stopping_line="stopping (motor off, board state kept)")
