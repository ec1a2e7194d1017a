"""The systemd notify protocol, written directly: datagrams of KEY=VALUE lines to NOTIFY_SOCKET.

Does nothing when NOTIFY_SOCKET is unset (not run by systemd). A socket path starting
with '@' is in the abstract namespace.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

log = logging.getLogger("crib.notify")


class Notifier:
    """Sends READY=1, WATCHDOG=1, STATUS=... and STOPPING=1 to systemd."""

    def __init__(self, path: str | None = None, watchdog_usec: str | None = None) -> None:
        self.path = path if path is not None else os.environ.get("NOTIFY_SOCKET")
        usec = watchdog_usec if watchdog_usec is not None else os.environ.get("WATCHDOG_USEC")
        pid = os.environ.get("WATCHDOG_PID")
        try:
            interval = int(usec) / 1e6 if usec else None
        except ValueError:
            interval = None
        if pid and pid.isdigit() and int(pid) != os.getpid():
            interval = None  # the watchdog is meant for another process
        self.watchdog_s = interval
        self._sock: socket.socket | None = None
        # Reentrant: a signal handler (SIGTERM: STOPPING=1) runs on the main thread, and may
        # interrupt a send that holds the lock; a plain Lock hung the daemon there for good.
        self._lock = threading.RLock()
        self._last_status: str | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.path)

    def _address(self) -> str | bytes:
        assert self.path
        if self.path.startswith("@"):
            return "\0" + self.path[1:]
        return self.path

    def send(self, *lines: str) -> bool:
        """Send one datagram of lines; returns whether it was sent (never raises)."""
        if not self.path:
            return False
        message = "\n".join(lines).encode()
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(
                        socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                    )
                    # Never block the event loop: a reader that does not read loses messages.
                    self._sock.setblocking(False)
                self._sock.sendto(message, self._address())
            except OSError as exc:
                log.debug("notify %s failed: %s", lines, exc)
                return False
        return True

    def ready(self, status: str | None = None) -> bool:
        lines = ["READY=1", f"MAINPID={os.getpid()}"]
        if status:
            lines.append(f"STATUS={status}")
            self._last_status = status
        return self.send(*lines)

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """Send STATUS= (one line) when it changed."""
        text = " ".join(text.split())
        if text == self._last_status:
            return False
        self._last_status = text
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1", "STATUS=stopping")

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
