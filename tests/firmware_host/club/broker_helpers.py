"""A real Mosquitto for the club tests: started on a free port with a user per table and the
club's ACL (firmware_host.club.broker), restartable, and able to drop off the network."""

from __future__ import annotations

import getpass
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from firmware_host.club.broker import write_config
from tests.processes import free_port

MOSQUITTO = "/usr/sbin/mosquitto"
# The users of the tests' club: the director and three tables.
PASSWORDS = {"director": "d-secret", "t1": "one-secret", "t2": "two-secret", "t3": "3-secret"}


class Broker:
    """One Mosquitto process for a club; `passwords` maps user (table or "director") to
    password."""

    def __init__(self, directory: Path, club: str, passwords: dict[str, str]) -> None:
        if not Path(MOSQUITTO).exists():
            pytest.fail("mosquitto is missing: apt-get install mosquitto (.ci/run does)")
        self.club = club
        self.directory = directory
        self.passwords = dict(passwords)
        self.port = free_port()
        self.conf = write_config(directory, club, passwords, port=self.port, host="127.0.0.1",
                                 user=getpass.getuser())
        self.log = directory / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Broker:
        """Start it and wait until it accepts connections (on another free port when a
        parallel test took this one meanwhile); AssertionError if it does not."""
        for _ in range(5):
            if self._start():
                return self
            self.port = free_port()  # taken between the choice and the bind: choose again
            self.conf = write_config(self.directory, self.club, self.passwords, port=self.port,
                                     host="127.0.0.1", user=getpass.getuser())
        raise AssertionError(f"mosquitto found no free port: {self.log.read_text()}")

    def _start(self) -> bool:
        out = open(self.log, "ab")  # noqa: SIM115 (the broker holds it)
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=out,
                                     stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log.read_text()
                assert "Address already in use" in text, text
                self.log.write_text("")
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return True
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"mosquitto did not listen: {self.log.read_text()}")

    def stop(self) -> None:
        """Stop it as a service manager does (SIGTERM: it saves its persistence file)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def restart(self) -> None:
        """Stop and start again on the same port, with the same persistence."""
        self.stop()
        self.start()

    def freeze(self) -> None:
        """Stop answering without closing anything (SIGSTOP): a broker off the Wi-Fi."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """Answer again (SIGCONT)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
        self.stop()
