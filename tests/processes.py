"""`crib` started as a script's background job starts it, and never left behind.

A job a shell starts in the background (`make test > log 2>&1 &`) inherits SIGINT ignored:
`running` starts the command that way by default, so a command that waits for Ctrl-C is
tested as it must work there. It runs in a session (and process group) of its own, which is
killed whole when the block ends, passed or failed: a simulated board's Node, a daemon's
children and the command itself go with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

CRIB = str(Path(sys.executable).with_name("crib"))

_given: set[int] = set()
_given_lock = threading.Lock()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and that this test run has not
    handed out before: the kernel may hand the same free port to two calls in a row, and two
    daemons told the same port leave one serving both (a club's 32 tables did)."""
    with _given_lock:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in _given:
                _given.add(port)
                return port


@contextlib.contextmanager
def running(argv: Sequence[str], *, sigint: Any = signal.SIG_IGN,
            **popen: Any) -> Iterator[subprocess.Popen[str]]:
    """`argv` started with SIGINT's disposition `sigint` (ignored by default, as a background
    job inherits it), text pipes for its output, in a process group killed on leaving."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    # A disposition set to ignored survives exec; the test's own is put back at once.
    ours = signal.signal(signal.SIGINT, sigint)
    try:
        proc = subprocess.Popen(list(argv), text=True, start_new_session=True, **popen)
    finally:
        signal.signal(signal.SIGINT, ours)
    try:
        yield proc
    finally:
        kill_group(proc)


def crib(*args: str, **kw: Any) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
    """`running` the venv's `crib` with `args`."""
    return running([CRIB, *args], **kw)


def kill_group(proc: subprocess.Popen[str]) -> None:
    """Kill `proc`'s process group (it leads one: start_new_session) and reap `proc`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def group_alive(pgid: int, wait: float = 0.0) -> bool:
    """Whether any process of group `pgid` is still there after up to `wait` seconds (a
    killed child is gone once its new parent has reaped it)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.02)
