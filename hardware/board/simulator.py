"""A simulated board: the board's firmware core behind a real pseudo-terminal.

The core is the firmware's own `hardware.board.firmware.core`, run under CPython by default,
or under a real MicroPython (the WebAssembly port under Node, `hardware.board.wasm`) with
`firmware="micropython"`
(`crib board-sim --firmware`); this thread copies bytes between the pty and it.

The host opens the path `open_pty()` returns exactly as it opens a real board. The path is a
symlink that stays put across unplug and replug, as `/dev/serial/by-id/...` does for USB;
`pty_name` is the `/dev/pts/N` behind it. Fault commands: drop or corrupt the next N bytes
(either way), stop answering, reboot (a new boot id), unplug (the master side closes, so
the host sees the errors of a USB unplug) and replug. `repl=True` is a Pico with bare
MicroPython (a REPL prompt, no firmware); a MAINTENANCE message restarts ours into that.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import select
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from hardware.board import power
from hardware.board.firmware.buttons import Buttons, hold_events
from hardware.board.firmware.core import FIRMWARE_BUILD, BoardCore
from hardware.board.layout import BoardLayout
from hardware.board.link import to_board_state
from hardware.board.protocol import BUTTON_UNDO, PROTOCOL_VERSION
from hardware.errors import ConfigurationError, HardwareError
from hardware.interfaces import BoardState, Clock

_log = logging.getLogger("crib.board.sim")
TO_BOARD, TO_HOST = "to_board", "to_host"
FIRMWARES = ("cpython", "micropython")
MAINTENANCE_RESTART_S = 0.2  # after a MAINTENANCE ack: off USB this long, then the REPL


class BoardSimulator:
    """Runs the firmware core on a pty in a thread. Use `open_pty()`, then `close()`.

    `firmware` is "cpython" (the core in this process) or "micropython" (the same core under
    MicroPython under Node). Raises ConfigurationError for another name.
    """

    def __init__(
        self,
        layout: BoardLayout,
        clock: Clock,
        *,
        build: int = FIRMWARE_BUILD,
        protocol: int = PROTOCOL_VERSION,
        firmware: str = "cpython",
        budget_ma: int = power.BUDGET_MA,
        repl: bool = False,
    ) -> None:
        if firmware not in FIRMWARES:
            raise ConfigurationError(f"firmware {firmware!r} is not one of {FIRMWARES}")
        self.layout = layout
        self.clock = clock
        self.kind = firmware
        self._build, self._protocol, self._budget = build, protocol, budget_ma
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self.firmware = self._boot()
        self.boots = 1
        self._master: int | None = None
        self._slave: int | None = None
        self._dir: str | None = None
        self._link: str | None = None
        self.pty_name: str | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._wake_r, self._wake_w = os.pipe()
        self._drop = {TO_BOARD: 0, TO_HOST: 0}
        self._corrupt = {TO_BOARD: 0, TO_HOST: 0}
        self.muted = False
        self.rendered_at: float | None = None  # perf_counter() of the last applied state
        # A Pico with bare MicroPython answers as its REPL, not as our firmware. Ours goes
        # there after a MAINTENANCE message (as main.py does at the next boot).
        self.repl = self._bare = repl
        self.repl_received = bytearray()
        self.maintenance_requests = 0
        self._timer: threading.Timer | None = None

    # set-up ----------------------------------------------------------------------------

    def open_pty(self) -> str:
        """Create the pty and start the board; returns the stable path the host opens."""
        with self._lock:
            if self._closed:
                raise ConfigurationError("this board simulator is closed")
            if self._link is None:
                self._dir = tempfile.mkdtemp(prefix="crib-board-")
                self._link = os.path.join(self._dir, "ttyBOARD")
            if self._master is None:
                self._plug()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="board-sim", daemon=True)
                self._thread.start()
            return self._link

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.pty_name = os.ttyname(slave)
        assert self._link is not None
        tmp = self._link + ".new"
        os.symlink(self.pty_name, tmp)
        os.replace(tmp, self._link)

    def _ms(self) -> int:
        return int(self.clock.monotonic() * 1000)

    def _boot(self) -> Any:
        boot_id = secrets.randbits(32)
        if self.kind == "micropython":
            from hardware.board.wasm import WasmBoard

            old = getattr(self, "firmware", None)
            if old is not None:
                old.close()
            return WasmBoard(self.layout, boot_id, self._ms(), build=self._build,
                             protocol=self._protocol, budget_ma=self._budget)
        return BoardCore(self.layout.geometry, boot_id, self._ms(), build=self._build,
                         protocol=self._protocol, budget_ma=self._budget)

    # what the board shows --------------------------------------------------------------

    @property
    def leds(self) -> tuple[tuple[int, int, int], ...]:
        """The LED frame buffer, one RGB triple per LED."""
        with self._lock:
            f = self.firmware.frame
            return tuple((f[i], f[i + 1], f[i + 2]) for i in range(0, len(f), 3))

    @property
    def state(self) -> BoardState:
        """The board state the firmware last applied."""
        with self._lock:
            return to_board_state(self.firmware.state)

    @property
    def states_applied(self) -> int:
        with self._lock:
            return int(self.firmware.states_applied)

    @property
    def waiting(self) -> bool:
        """True while the board shows "waiting for the Pi"."""
        with self._lock:
            return bool(self.firmware.waiting)

    @property
    def boot_id(self) -> int:
        with self._lock:
            return self.firmware.boot_id

    @property
    def plugged(self) -> bool:
        with self._lock:
            return self._master is not None

    def wait_until(self, predicate: Callable[[BoardSimulator], bool], timeout: float) -> bool:
        """Wait (real time) until `predicate(self)` holds; False if `timeout` passes first."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self), timeout)

    # fault commands --------------------------------------------------------------------

    def drop_next(self, n: int, direction: str = TO_BOARD) -> None:
        """Lose the next `n` bytes going `direction` ("to_board" or "to_host")."""
        with self._lock:
            self._drop[self._dir_key(direction)] += n

    def corrupt_next(self, n: int, direction: str = TO_BOARD) -> None:
        """Flip bits in the next `n` bytes going `direction`."""
        with self._lock:
            self._corrupt[self._dir_key(direction)] += n

    def heal(self) -> None:
        """Stop dropping and corrupting bytes, both ways (the link healed)."""
        with self._lock:
            for direction in (TO_BOARD, TO_HOST):
                self._drop[direction] = self._corrupt[direction] = 0
            self._wake()

    def kick(self) -> None:
        """Make the board's loop look at the clock now (a test moved a fake clock)."""
        self._wake()

    def stop_answering(self) -> None:
        """Ignore everything and send nothing (a hung board) until `resume_answering`."""
        with self._lock:
            self.muted = True

    def resume_answering(self) -> None:
        with self._lock:
            self.muted = False
            self._wake()

    def reboot(self) -> int:
        """Restart the firmware: LEDs dark, a new boot id (returned), hello sent unasked."""
        with self._lock:
            self.firmware = self._boot()
            self.boots += 1
            self.repl = self._bare  # a reset runs main.py again
            self._changed.notify_all()
            self._wake()
            return self.firmware.boot_id

    def unplug(self) -> None:
        """Pull the USB cable: the pty closes and the stable path disappears."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            if self._link and os.path.lexists(self._link):
                os.unlink(self._link)
            self._wake()

    def replug(self, *, power_cycle: bool = True) -> None:
        """Plug it back in (a USB-powered board restarts, so by default it reboots)."""
        with self._lock:
            if self._master is not None:
                return
            if power_cycle:
                self.firmware = self._boot()
                self.boots += 1
                self.repl = self._bare
            self._plug()
            self._changed.notify_all()
            self._wake()

    def press(self, button: int) -> int:
        """Press a button on the board (0 undo, 1 + t track t's); returns the event's
        sequence number."""
        with self._lock:
            seq = int(self.firmware.press(button, self._ms()))
            self._wake()
            return seq

    def hold_undo(self, seconds: float) -> list[int]:
        """Hold the board's undo button for `seconds`, through the firmware's own debounce
        and hold timing (`firmware.buttons`); its events are queued at once. Returns their
        sequence numbers."""
        buttons = Buttons(1 + self.layout.tracks)
        with self._lock:
            now = self._ms()
            events = hold_events(buttons, BUTTON_UNDO, int(seconds * 1000), now)
            seqs = [int(self.firmware.press(arg, now, kind)) for kind, arg in events]
            self._wake()
            return seqs

    def close(self) -> None:
        """Stop the board and remove its pty; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            self.unplug()
        if self._thread is not None:
            self._thread.join(timeout=5)
        close = getattr(self.firmware, "close", None)
        if close is not None:
            close()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> BoardSimulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the board's main loop -------------------------------------------------------------

    @staticmethod
    def _dir_key(direction: str) -> str:
        if direction not in (TO_BOARD, TO_HOST):
            raise ConfigurationError(f"direction {direction!r} is not {TO_BOARD!r} or {TO_HOST!r}")
        return direction

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except OSError:
            pass

    def _mangle(self, data: bytes, direction: str) -> bytes:
        out = bytearray()
        for byte in data:
            if self._drop[direction]:
                self._drop[direction] -= 1
                continue
            if self._corrupt[direction]:
                self._corrupt[direction] -= 1
                byte ^= 0x5A
            out.append(byte)
        return bytes(out)

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                master = self._master
                wait = 1.0  # the firmware deadline or a wake cuts it short: no polling
                if master is not None and not self.muted:
                    fw_wait = self.firmware.next_deadline() / 1000 - self.clock.monotonic()
                    wait = min(wait, max(fw_wait, 0.0))
            fds = [self._wake_r] + ([master] if master is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], wait)
            except (OSError, ValueError):
                continue  # the master closed under us (unplug): go round again
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            with self._lock:
                if self._master is None or self._master != master:
                    continue
                data = b""
                if master in ready:
                    try:
                        data = os.read(master, 4096)
                    except OSError as exc:
                        if exc.errno not in (errno.EAGAIN, errno.EIO):
                            raise
                self._step(master, data)

    def _step(self, master: int, data: bytes) -> None:
        data = self._mangle(data, TO_BOARD)
        if self.muted:
            return
        if self.repl:
            self._repl_step(master, data)
            return
        fw = self.firmware
        before = fw.states_applied, fw.frame_version
        try:
            out = self._mangle(fw.step(data, self._ms()), TO_HOST)
        except HardwareError as exc:  # the MicroPython VM died: a watchdog reset, as on a Pico
            _log.warning("simulated board restarts: %s", exc)
            self.firmware = self._boot()
            self.boots += 1
            self._changed.notify_all()
            out = self._mangle(self.firmware.step(b"", self._ms()), TO_HOST)
            fw = self.firmware
        if (fw.states_applied, fw.frame_version) != before:
            self.rendered_at = time.perf_counter()
            self._changed.notify_all()
        if out:
            try:
                os.write(master, out)
            except OSError:
                pass  # nobody reading and the pty is full: a USB device drops it too
        if getattr(fw, "maintenance", False) and self._timer is None:
            # The ack is out; the board restarts (USB gone a moment) into its plain REPL.
            self.maintenance_requests += 1
            self._timer = threading.Timer(MAINTENANCE_RESTART_S, self._restart_into_repl)
            self._timer.daemon = True
            self._timer.start()

    def _repl_step(self, master: int, data: bytes) -> None:
        """Bare MicroPython's REPL, as much as a probe sees: a prompt for each return."""
        self.repl_received += data
        if b"\r" in data or b"\x03" in data:
            try:
                os.write(master, b"\r\n>>> ")
            except OSError:
                pass

    def _restart_into_repl(self) -> None:
        with self._lock:
            if self._closed:
                return
            self.unplug()
        time.sleep(MAINTENANCE_RESTART_S)  # USB enumerates again
        with self._lock:
            if self._closed:
                return
            self.repl = True
            self._timer = None
            self.boots += 1
            self.replug(power_cycle=False)
