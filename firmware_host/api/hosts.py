"""Which Host headers and WebSocket origins are allowed (against DNS rebinding)."""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("crib.api")

MAX_HEAD = 16 * 1024  # a request line and headers together; real ones are under 2 KiB


def head_size(scope: Scope) -> int:
    """The bytes of a request's head as sent: its line and every header line."""
    line = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 16
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"])


class HostPolicy:
    """Which Host headers and WebSocket Origins are allowed (against DNS rebinding).

    A Host that is an IP address is allowed (rebinding needs a name); a name must be in
    `allowed_hosts` (a leading '.' allows subdomains) or be this machine's name.
    An Origin must be the same as the Host, or a listed name.
    """

    SEEN_MAX = 256

    def __init__(self, allowed: list[str]) -> None:
        names = {h.lower().rstrip(".") for h in allowed}
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local", "localhost"}
        self.names = {n for n in names if not n.startswith(".")}
        self.suffixes = tuple(n for n in names if n.startswith("."))
        self._seen: dict[str, bool] = {}  # Host header -> allowed; the answer never changes

    @staticmethod
    def split(host: str) -> str:
        host = host.strip().lower()
        if host.startswith("["):
            return host[1: host.find("]")] if "]" in host else host
        if host.count(":") == 1:
            host = host.split(":", 1)[0]
        return host.rstrip(".")

    def named(self, name: str) -> bool:
        return name in self.names or any(name.endswith(s) for s in self.suffixes)

    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        seen = self._seen.get(host)
        if seen is None:
            seen = self._host_allowed(host)
            if len(self._seen) < self.SEEN_MAX:  # a flood of odd names cannot grow it
                self._seen[host] = seen
        return seen

    def _host_allowed(self, host: str) -> bool:
        name = self.split(host)
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return self.named(name)

    @staticmethod
    def port_of(netloc: str, scheme: str = "http") -> int | None:
        """The port of a Host header or an Origin's netloc (the scheme's default if none)."""
        try:
            port = urlsplit(f"{scheme}://{netloc.strip()}").port
        except ValueError:
            return None
        return port if port is not None else (443 if scheme == "https" else 80)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a browser page from `origin` may talk to this daemon reached as `host`:
        the same origin, or an allowed name on the SAME port (another port on an allowed
        name is another site: localhost:9999 is not the daemon's page)."""
        if origin is None:
            return True  # not a browser: nothing to protect against
        try:
            parts = urlsplit(origin)
            origin_port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        if host and parts.netloc.lower() == host.strip().lower():
            return True
        if origin_port is None:
            origin_port = 443 if parts.scheme == "https" else 80
        if not host or self.port_of(host) != origin_port:
            return False
        return self.named(parts.hostname.lower())


class HostGuard:
    """ASGI middleware refusing requests with a head over MAX_HEAD (431, however its bytes
    arrived: h11's own limit holds only for a head that is still incomplete) or a Host
    header that is not allowed (403)."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if head_size(scope) > MAX_HEAD:
            await self._too_large(scope, send)
            return
        host = ""
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
                break
        if self.policy.host_allowed(host):
            await self.app(scope, receive, send)
            return
        log.warning("refused Host %r from %s", host, (scope.get("client") or ["?"])[0])
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": f"host {host!r} is not allowed (add it to allowed_hosts)",
                           "code": "forbidden_host"}).encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _too_large(scope: Scope, send: Send) -> None:
        log.warning("refused a request head over %d KiB from %s", MAX_HEAD // 1024,
                    (scope.get("client") or ["?"])[0])
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1009})
            return
        sentence = (f"the request's headers pass the {MAX_HEAD // 1024} KiB limit: "
                    "nothing was read")
        body = json.dumps({"error": sentence, "code": "head_too_large",
                           "say": sentence[:1].upper() + sentence[1:] + "."}).encode()
        await send({"type": "http.response.start", "status": 431,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
