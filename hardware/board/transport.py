"""The serial port: the only code in the board driver that touches pyserial.

`serial.serial_for_url` opens a real port (address it by `/dev/serial/by-id/...`, never by
ttyACM number), a `loop://` URL, or a pseudo-terminal path; real ports are opened
exclusively. Writes go out in the order they were queued: one FIFO, popped from the left,
written by one thread (Moonraker's writer popped the wrong end and reversed two writes).

A port with a file descriptor (every POSIX tty and pty) is waited on by one `select` over the
port and a wake pipe, with the wait given to each read: pyserial opens and configures it and
its timeout stays fixed, so a read costs one wakeup and one `os.read`, never a termios
round trip for a new timeout. A port without one (`loop://`, `socket://`) is read through
pyserial's timeout and woken by its `cancel_read`.
"""

from __future__ import annotations

import contextlib
import os
import select
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
        self._fd: int | None = None  # the open port's descriptor, when it has one
        # The wake pipe of an fd port: (read end, write end); made on open, closed on close
        # under `_wlock`, so a `wake` from another thread never writes to a reused number.
        self._pipe: tuple[int, int] | None = None
        self._wlock = threading.Lock()

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
        try:
            fd = self._port.fileno()
        except (AttributeError, NotImplementedError, serial.SerialException, OSError):
            fd = None  # loop:// and socket:// ports: read through pyserial
        if isinstance(fd, int):
            r, w = os.pipe()
            os.set_blocking(r, False)
            os.set_blocking(w, False)
            with self._wlock:
                self._fd, self._pipe = fd, (r, w)
        with self._qlock:
            self._queue.clear()  # bytes for the old connection mean nothing to the new one

    def close(self) -> None:
        """Close the port if open; never raises."""
        port, self._port = self._port, None
        with self._wlock:
            pipe, self._pipe, self._fd = self._pipe, None, None
        if pipe is not None:
            for end in pipe:
                with contextlib.suppress(OSError):
                    os.close(end)
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
                self._write(port, data)
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
        fd, pipe = self._fd, self._pipe
        if fd is not None and pipe is not None:
            return self._read_fd(fd, pipe[0], timeout)
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
        with self._wlock:
            if self._pipe is not None:
                with contextlib.suppress(OSError):  # full: a wake is already pending
                    os.write(self._pipe[1], b"!")
                return
        port = self._port
        if port is not None:
            try:
                port.cancel_read()
            except (serial.SerialException, OSError, AttributeError):
                pass

    def _read_fd(self, fd: int, wake_r: int, timeout: float) -> bytes:
        """`read` on a port with a descriptor: one select over the port and the wake pipe,
        then one read of what has come (pyserial opened it non-blocking)."""
        try:
            ready, _, _ = select.select([fd, wake_r], [], [], timeout)
            if wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
            if fd not in ready:
                return b""
            data = os.read(fd, 4096)
        except BlockingIOError:
            return b""  # another reader took it: nothing for us this time
        except (OSError, ValueError) as exc:
            raise SerialLinkError(f"read from board port {self.url} failed: {exc}") from exc
        if not data:
            # As pyserial says it: a device gone from Linux is always readable, and empty.
            raise SerialLinkError(f"read from board port {self.url} failed: the device reports "
                                  "readiness to read but returned no data (unplugged?)")
        return data

    def _write(self, port: serial.SerialBase, data: bytes) -> None:
        """Write all of `data`: straight to the descriptor while it takes it, the rest
        through pyserial (which waits until the port can take more)."""
        fd = self._fd
        if fd is not None:
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                n = 0
            data = data[n:]
            if not data:
                return
        port.write(data)

    def _require(self) -> serial.SerialBase:
        if self._port is None:
            raise SerialLinkError(f"board port {self.url} is not open")
        return self._port
