"""`WorkerDevice`: what every peg board driver shares, one background thread and its status.

A board driver keeps its state under one lock, tells its subscribers each state change (a
`DeviceStatus`), and runs one worker thread that `start` begins once and `stop` ends: the
stop flag is set, the worker woken and joined (never from itself). The driver writes the
worker (`_run`) and what opening and closing its port means.
"""

from __future__ import annotations

import threading
from typing import Any

from hardware.interfaces import DeviceState, DeviceStatus, Subscriber, Subscribers, Unsubscribe

JOIN_S = 5.0  # how long `stop` waits for the worker


class WorkerDevice:
    """A device run by one worker thread named `thread_name`, guarded by `lock`."""

    def __init__(self, name: str, thread_name: str, lock: Any) -> None:
        self._lock = lock
        self._thread_name = thread_name
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._subs = Subscribers()
        self._status = DeviceStatus(name, lock, self._subs)

    @property
    def state(self) -> DeviceState:
        return self._status.state

    def subscribe(self, callback: Subscriber) -> Unsubscribe:
        return self._subs.add(callback)

    def _running(self) -> bool:
        """Whether the worker is alive (a second `start` does nothing then)."""
        return self._thread is not None and self._thread.is_alive()

    def _spawn(self) -> None:
        """Begin the worker (call with the lock held)."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
        self._thread.start()

    def _halt(self) -> None:
        """Tell the worker to stop, wake it and wait for it (unless it is the caller)."""
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=JOIN_S)
        self._thread = None

    def _run(self) -> None:  # pragma: no cover - every driver writes its own
        raise NotImplementedError
