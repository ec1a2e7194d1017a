"""The serial port: the only code in the board driver that touches pyserial.

`serial.serial_for_url` opens a real port (address it by `/dev/serial/by-id/...`, never by
ttyACM number), a `loop://` URL, or a pseudo-terminal path; real ports are opened
exclusively. Writes go out in the order they were queued: one FIFO, popped from the left,
written by one thread (Moonraker's writer popped the wrong end and reversed two writes).
"""

from __future__ import annotations

import threading
from collections import deque

import serial

from hardware.errors import SerialLinkError

BAUDRATE = 115200

class Backoff:
    """Reconnect delays: `first`, doubled per failure, capped at `cap`; `reset` on success."""

    def __init__(self, first: float = 0.05, cap: float = 2.0) -> None:
        self.first, self.cap = first, cap
        self._next = first

    def next_delay(self) -> float:
        delay = self._next
        self._next = min(self._next * 2, self.cap)
        return delay

    def reset(self) -> None:
        self._next = self.first


class SerialTransport:
    """One serial port: open, read with a timeout, queue writes and flush them in order.

    Every failure (missing port, unplug, locked by another program) raises SerialLinkError
    (an OSError) naming the port.
    """

    def __init__(self, url: str, *, baudrate: int = BAUDRATE, exclusive: bool = True) -> None:
        self.url = url
        self.baudrate = baudrate
        self.exclusive = exclusive
        self._port: serial.SerialBase | None = None
        self._queue: deque[bytes] = deque()
        self._qlock = threading.Lock()
        self._timeout: float | None = None

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        """Open the port. Raises SerialLinkError if it is missing, busy or refuses."""
        self.close()
        kwargs: dict[str, object] = {"baudrate": self.baudrate, "timeout": 0.05}
        if not self.url.startswith(("loop://", "socket://", "rfc2217://", "spy://")):
            kwargs["exclusive"] = self.exclusive
        try:
            self._port = serial.serial_for_url(self.url, **kwargs)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise SerialLinkError(f"cannot open board port {self.url}: {exc}") from exc
        self._timeout = 0.05
        with self._qlock:
            self._queue.clear()  # bytes for the old connection mean nothing to the new one

    def close(self) -> None:
        """Close the port if open; never raises."""
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def send(self, data: bytes) -> None:
        """Queue bytes to write; `flush` writes them in this order. Safe from any thread."""
        if data:
            with self._qlock:
                self._queue.append(bytes(data))

    def flush(self) -> int:
        """Write everything queued, oldest first; returns the bytes written.

        Raises SerialLinkError if the port is closed or fails (unplugged).
        """
        port = self._require()
        written = 0
        while True:
            with self._qlock:
                if not self._queue:
                    return written
                data = self._queue.popleft()
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                raise SerialLinkError(f"write to board port {self.url} failed: {exc}") from exc
            written += len(data)

    def read(self, timeout: float) -> bytes:
        """Bytes received, waiting up to `timeout` s for the first; b"" if none came.

        Returns early when `wake` is called. Raises SerialLinkError on unplug.
        """
        port = self._require()
        # Capped at a heartbeat: `wake` cuts a wait short, so a long one costs no latency.
        timeout = round(max(0.001, min(timeout, 1.0)), 3)
        try:
            if timeout != self._timeout:
                # pyserial's public setter: on a POSIX port it re-reads the termios settings
                # (a few microseconds) and writes none, since VMIN/VTIME do not change.
                port.timeout = timeout
                self._timeout = timeout
            first = port.read(1)
            if not first:
                return b""
            waiting = port.in_waiting
            return first + (port.read(waiting) if waiting else b"")
        except (serial.SerialException, OSError) as exc:
            raise SerialLinkError(f"read from board port {self.url} failed: {exc}") from exc

    def wake(self) -> None:
        """Make a waiting `read` return now (new data to send)."""
        port = self._port
        if port is not None:
            try:
                port.cancel_read()
            except (serial.SerialException, OSError, AttributeError):
                pass

    def _require(self) -> serial.SerialBase:
        if self._port is None:
            raise SerialLinkError(f"board port {self.url} is not open")
        return self._port
