"""`crib club serve`: the configuration, the store, the token, the broker link and the web
page, run by the daemon's own serve helper (`firmware_host.serve`)."""

from __future__ import annotations

import logging
import time

import uvicorn

from firmware_host.club.director.app import create_app
from firmware_host.club.director.config import DirectorConfig
from firmware_host.club.director.intake import Intake
from firmware_host.club.director.night import Night
from firmware_host.club.director.store import DirectorStore
from firmware_host.club.director.token import ensure_token
from firmware_host.logs import configure_logging
from firmware_host.notify import Notifier
from firmware_host.serve import bind_socket, serve_app
from firmware_host.uvicorn_hooks import GuardedH11

log = logging.getLogger("crib.club")

MAX_CONNECTIONS = 512  # a room of phones and one big screen; the rest wait or are shed
KEEP_ALIVE_S = 5


class ServeError(RuntimeError):
    """The director cannot start: the sentence says why (the port, the state directory)."""


def serve(config: DirectorConfig) -> int:
    """Run the director until SIGTERM or SIGINT; returns the exit status. Raises
    ServeError or DirectorConfigError before anything is started."""
    started = time.monotonic()
    configure_logging(config.log_level)
    password = config.broker_password()
    try:
        token = ensure_token(config.state_dir)
    except OSError as exc:
        raise ServeError(f"state_dir {config.state_dir}: cannot use it ({exc.strerror})"
                         ) from None
    store = DirectorStore(config.state_dir / "director.sqlite3")
    store.start()
    try:
        sock = bind_socket(config.host, config.http_port)
    except Exception as exc:
        store.stop()
        raise ServeError(str(exc).replace("port:", "http_port:", 1)) from None
    night = Night(config, store)
    intake = Intake(config, night, password)
    app = create_app(night, token, intake=intake, components=[night, intake],
                     allowed_hosts=config.allowed_hosts)
    uv = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=3,
        http=GuardedH11, timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=MAX_CONNECTIONS + 1,
        h11_max_incomplete_event_size=16 * 1024, backlog=128, server_header=False,
        proxy_headers=False)

    def ready() -> str:
        log.info("director of club %s, night %s: ready on http://%s:%d/ in %.2f s",
                 config.club, night.night, config.host, config.http_port,
                 time.monotonic() - started)
        return f"club {config.club}, night {night.night}"

    try:
        return serve_app(uv, sock, notifier=Notifier(), log=log, on_ready=ready,
                         stopping_line="stopping the director (the night is kept)",
                         watchdog=True)
    finally:
        store.stop()
