"""The board's firmware under a real MicroPython (the official WebAssembly port under Node),
byte for byte with the host.

Every firmware module is imported by MicroPython 1.27 from the very files a Pico
gets; the byte-level cases run the firmware core there and in CPython on the same input and
compare every byte out; main.py runs its loop against fake `machine`/`neopixel` modules on a
board file system built from the flash manifest. One VM per module keeps it fast.
"""

from __future__ import annotations

import ast
import zlib
from pathlib import Path

import pytest

from hardware.board import power  # noqa: E402
from hardware.board.firmware import manifest  # noqa: E402
from hardware.board.firmware.core import (  # noqa: E402
    FAULT_LEDS,
    FIRMWARE_BUILD,
    SETTINGS,
    BoardCore,
)
from hardware.board.layout import BoardLayout  # noqa: E402
from hardware.board.link import (  # noqa: E402
    Connected,
    DeviceInfo,
    DeviceInput,
    HostLink,
    Msg,
    Readback,
    ReadInfo,
    Refused,
    StateShown,
    encode_state,
)
from hardware.board.protocol import (  # noqa: E402
    PROTOCOL_VERSION,
    Frame,
    FrameReader,
    encode_frame,
    encode_host_hello,
    wire_hash,
)
from hardware.board.render import strip_bytes  # noqa: E402
from hardware.board.wasm import NodeSession, WasmBoard, new_session  # noqa: E402
from hardware.interfaces import BoardState, TrackPegs  # noqa: E402

from .cobs_vectors import VECTORS  # noqa: E402
from .helpers import Wire  # noqa: E402

LAYOUT = BoardLayout()
STATE = BoardState(tracks=(TrackPegs(300, 288), TrackPegs(61, 50)), target=1000,
                   brightness=200, lines=(751, 501))


@pytest.fixture(scope="module")
def mp():
    session = new_session()
    yield session
    session.close()


def run(mp, code: str) -> str:
    return mp.run(code).stdout.strip()


class Twin:
    """The firmware core under MicroPython and under CPython, fed the same bytes."""

    def __init__(self, mp, boot_id: int = 0x1234ABCD, layout: BoardLayout = LAYOUT, **kw):
        self.mp = WasmBoard(layout, boot_id, 0, session=mp, **kw)
        self.py = BoardCore(layout.geometry, boot_id, 0, **kw)

    def step(self, data: bytes, now_ms: int) -> list[Frame]:
        out = self.mp.step(data, now_ms)
        assert out == self.py.step(data, now_ms)  # byte for byte
        assert self.mp.frame == self.py.frame
        assert self.mp.states_applied == self.py.states_applied
        return [f for f in FrameReader().feed(out) if isinstance(f, Frame)]


def test_every_firmware_module_imports_under_micropython(mp):
    modules = [src[:-3].replace("/", ".") for src, _ in manifest.FILES
               if not src.endswith("main.py")]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules)
    assert run(mp, code + "print(sys.implementation.name)") == "micropython"


def test_cobs_matches_the_published_vectors_under_micropython(mp):
    run(mp, "from hardware.board import cobs")
    for raw, encoded in VECTORS:
        got = run(mp, f"e = cobs.encode(bytes.fromhex({raw.hex()!r}))\n"
                      "print(e.hex(), cobs.decode(e).hex())").split()
        assert got == [encoded.hex(), raw.hex() or got[1]]


def test_checksums_are_the_published_ones_under_micropython(mp):
    frame = bytes(range(256)) * 3
    got = run(mp, "from hardware.board.protocol import crc16, crc32\n"
                  f"print(crc16(b'123456789'), crc32(bytes.fromhex({frame.hex()!r})))")
    assert got.split() == ["10673", str(zlib.crc32(frame))]  # 0x29B1: CRC-16/CCITT-FALSE


def test_boot_hello_and_the_hello_answer_are_the_same_bytes(mp):
    twin = Twin(mp)
    boot = twin.step(b"", 0)  # the hello it sends unasked at boot
    assert [f.type for f in boot] == [Msg.DEV_HELLO]
    answer = twin.step(encode_frame(Msg.HELLO, 9, bytes((PROTOCOL_VERSION,))), 5)
    assert [(f.type, f.seq) for f in answer] == [(Msg.DEV_HELLO, 9)]
    assert answer[0].payload[0] == PROTOCOL_VERSION
    assert int.from_bytes(answer[0].payload[5:9], "big") == 0x1234ABCD


def test_state_is_acknowledged_and_drawn_as_the_host_draws_it(mp):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    acks = twin.step(encode_frame(Msg.STATE, 2, encode_state(STATE)), 2)
    assert [(f.type, f.seq, f.payload) for f in acks] == [(Msg.DEV_ACK, 2, b"\x00")]
    assert twin.mp.frame == LAYOUT.render(STATE)
    assert twin.mp.states_applied == 1


def test_a_retransmit_or_duplicate_is_acknowledged_but_not_applied_twice(mp):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    frame = encode_frame(Msg.STATE, 2, encode_state(STATE))
    acks = twin.step(frame + frame, 2) + twin.step(frame, 30)
    assert [(f.type, f.seq) for f in acks] == [(Msg.DEV_ACK, 2)] * 3
    assert twin.mp.states_applied == 1


def test_corrupt_bytes_are_dropped_and_counted_and_the_next_frame_is_served(mp):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    bad = bytearray(encode_frame(Msg.STATE, 2, encode_state(STATE)))
    bad[4] ^= 0x5A
    got = twin.step(bytes(bad) + bytes(range(1, 200)) + b"\x00"
                    + encode_frame(Msg.STATE, 3, encode_state(STATE)), 2)
    assert [(f.type, f.seq) for f in got] == [(Msg.DEV_ACK, 3)]
    assert twin.mp.eval("sorted(fw.garbled.items())") == "[('crc', 1), ('too_long', 1)]"
    assert twin.mp.frame == LAYOUT.render(STATE)


def test_a_reboot_says_hello_with_a_new_boot_id(mp):
    first, second = Twin(mp, boot_id=1), Twin(mp, boot_id=2)
    ids = [int.from_bytes(t.step(b"", 0)[0].payload[5:9], "big") for t in (first, second)]
    assert ids == [1, 2]
    assert second.mp.frame == bytes(3 * LAYOUT.led_count)  # dark after a restart


def test_button_events_are_resent_until_acknowledged_in_order(mp):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    for button in (3, 1):
        assert twin.mp.press(button, 10) == twin.py.press(button, 10)
    assert twin.mp.data_to_send() == twin.py.data_to_send()
    resent = [f for t in (40, 70, 130, 250) for f in twin.step(b"", t)
              if f.type == Msg.DEV_EVENT]
    assert [(f.seq, f.payload) for f in resent] == [(1, b"\x01\x03")] * 2  # 50 ms, 100 ms
    after = twin.step(encode_frame(Msg.EVENT_ACK, 0, b"\x01"), 260)
    assert [(f.type, f.seq, f.payload) for f in after] == [(Msg.DEV_EVENT, 2, b"\x01\x01")]
    twin.step(encode_frame(Msg.EVENT_ACK, 0, b"\x02"), 270)
    assert twin.mp.eval("len(fw._events)") == "0"


def test_the_power_cap_dims_a_full_white_test_under_the_budget(mp):
    layout = BoardLayout(tracks=3)
    twin = Twin(mp, layout=layout)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    twin.step(encode_frame(Msg.TEST, 2, b"\xff\xff\xff"), 2)
    expected = bytearray(b"\xff" * 3 * layout.led_count)
    scale = power.cap_frame(expected)
    assert twin.mp.frame == expected and twin.mp.dim == scale < 256
    assert power.drawn_ma(twin.mp.frame) <= power.BUDGET_MA
    info = twin.step(encode_frame(Msg.READ_INFO, 3), 3)[0]
    read = ReadInfo.decode(info.payload)
    assert read.budget_ma == 2000 and read.dim == scale and read.drawn_ma <= 2000
    assert read.dim_percent == scale * 100 // 256


def test_an_older_host_is_refused_with_the_side_to_update(mp):
    twin = Twin(mp)
    old = PROTOCOL_VERSION - 1
    hello = twin.step(encode_frame(Msg.HELLO, 1, bytes((old,))), 1)
    assert hello[0].payload[0] == PROTOCOL_VERSION  # the host learns which side to update
    ack = twin.step(encode_frame(Msg.STATE, 2, encode_state(STATE)), 2)[0]
    assert ack.payload == (f"\x01board speaks protocol {PROTOCOL_VERSION}, host {old}: "
                           "update the daemon").encode()
    assert twin.mp.states_applied == 0


def test_a_host_of_the_same_protocol_but_another_wire_format_is_refused(mp):
    twin = Twin(mp)
    hello = twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,)) + b"\xde\xad\xbe\xef"),
                      1)
    mine = int.from_bytes(hello[0].payload[14:18], "big")
    assert mine == wire_hash()  # MicroPython computes the very hash CPython does
    ack = twin.step(encode_frame(Msg.STATE, 2, encode_state(STATE)), 2)[0]
    assert ack.payload == (f"\x01wire {mine:08x}, host deadbeef: "
                           "run `crib board flash`").encode()
    assert twin.mp.states_applied == 0
    # the right hash (as the host sends it) is shown
    twin.step(encode_frame(Msg.HELLO, 3, encode_host_hello()), 3)
    ack = twin.step(encode_frame(Msg.STATE, 4, encode_state(STATE)), 4)[0]
    assert ack.payload == b"\x00" and twin.mp.states_applied == 1


def test_a_silent_host_gets_the_waiting_pattern_not_the_stale_game(mp):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))), 1)
    twin.step(encode_frame(Msg.STATE, 2, encode_state(STATE)), 2)
    twin.step(b"", 3500)
    assert twin.mp.waiting and twin.mp.frame != LAYOUT.render(STATE)
    lit = {i // 3 for i, c in enumerate(twin.mp.frame) if c}
    assert lit == {LAYOUT.index(0, 0), LAYOUT.index(0, 1), LAYOUT.index(1, 0), LAYOUT.index(1, 1)}
    twin.step(b"", 4600)  # the dot moves once a second
    assert twin.mp.frame[3 * LAYOUT.index(0, 2) + 2] > 0
    twin.step(encode_frame(Msg.PING, 3), 4700)  # the host is back: the game again
    assert not twin.mp.waiting and twin.mp.frame == LAYOUT.render(STATE)


def test_the_host_link_talks_to_the_micropython_board(mp):
    w = Wire(LAYOUT, board=lambda layout, boot, now, **kw: WasmBoard(layout, boot, now,
                                                                       session=mp, **kw))
    w.run(0.01)
    assert w.of(Connected) and not w.of(Refused)
    w.host.show(STATE)
    w.host.request_readback()
    w.run(0.2, dt=0.002)
    assert w.of(StateShown)[-1].version == 1
    rb = w.of(Readback)[-1]
    assert rb.consistent and rb.info.state == STATE
    assert bytes(c for led in rb.leds for c in led) == LAYOUT.render(STATE)
    w.device.press(6, int(w.now * 1000))
    w.run(0.05, dt=0.002)
    assert [e.arg for e in w.of(DeviceInput)] == [6]


# --- main.py on a board file system -----------------------------------------------------

FAKE_MACHINE = '''
class WDT:
    fed = 0
    timeout = None
    def __init__(self, timeout):
        WDT.timeout = timeout
    def feed(self):
        WDT.fed += 1
class Pin:
    IN = 0
    PULL_UP = 1
    low = set()  # the pins a test holds at GND (a pressed switch)
    made = {}
    def __init__(self, n, mode=None, pull=None):
        self.n, self.mode, self.pull = n, mode, pull
        Pin.made[n] = self
    def value(self):
        return 0 if self.n in Pin.low else 1
def unique_id():
    return b"\\xe6\\x61\\x41\\x04\\x03\\x2b\\x5c\\x2a"
'''
FAKE_NEOPIXEL = '''
class NeoPixel:
    made = []
    def __init__(self, pin, n, bpp=3):
        self.pin, self.n, self.bpp = pin, n, bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        NeoPixel.made.append(self)
    def write(self):
        self.writes += 1
'''
FAKE_PORT = '''
class FakePort:
    def __init__(self, chunks):
        self.chunks = list(chunks)
        self.out = bytearray()
    def read(self, wait_ms):
        return self.chunks.pop(0) if self.chunks else b""
    def write(self, data):
        self.out += data
'''


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    """A MicroPython VM whose /input is a board's file system: the manifest plus fakes."""
    root: Path = tmp_path_factory.mktemp("pico")
    for src, dest in manifest.files():
        target = root / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(src.read_bytes())
    (root / "machine.py").write_text(FAKE_MACHINE)
    (root / "neopixel.py").write_text(FAKE_NEOPIXEL)
    session = NodeSession(readonly_dir=str(root))
    session.run("import sys\nsys.path.insert(0, '/input')\n" + FAKE_PORT)
    yield session
    session.close()


def test_main_runs_its_loop_with_the_strip_the_watchdog_and_usb(pico):
    chunks = [encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))),
              encode_frame(Msg.STATE, 2, encode_state(STATE))]
    out = run(pico, "import main, machine, neopixel\n"
                    "class S:\n"
                    "    pass\n"
                    "from hardware.board.firmware import config\n"
                    "for k in dir(config):\n"
                    "    setattr(S, k, getattr(config, k))\n"
                    "S.TRACKS = 2\nS.DATA_PIN = 16\n"
                    f"port = FakePort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}])\n"
                    "core = main.run(S, port, turns=4)\n"
                    "strip = neopixel.NeoPixel.made[-1]\n"
                    "print(port.out.hex(), bytes(strip.buf).hex(), strip.pin.n, strip.n,"
                    " strip.writes, machine.WDT.fed, machine.WDT.timeout)")
    wire, buf, pin, n, writes, fed, timeout = out.split()
    frames = [f for f in FrameReader().feed(bytes.fromhex(wire)) if isinstance(f, Frame)]
    assert [(f.type, f.seq) for f in frames] == [
        (Msg.DEV_HELLO, 0), (Msg.DEV_HELLO, 1), (Msg.DEV_ACK, 2)]
    assert bytes.fromhex(buf) == strip_bytes(LAYOUT.render(STATE), "GRB")  # GRB on the wire
    assert (int(pin), int(n), int(fed), int(timeout)) == (16, LAYOUT.led_count, 4, 5000)
    assert int(writes) >= 1


def test_a_maintenance_request_is_acknowledged_then_the_board_restarts_to_its_repl(pico):
    chunks = [encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))),
              encode_frame(Msg.MAINTENANCE, 2)]
    out = run(pico, "import main\n"
                    "asked = []\n"
                    f"port = FakePort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}])\n"
                    "main.run(port=port, turns=10, maintenance=lambda: asked.append(1))\n"
                    "print(port.out.hex(), len(asked))")
    wire, asked = out.split()
    frames = [f for f in FrameReader().feed(bytes.fromhex(wire)) if isinstance(f, Frame)]
    assert [(f.type, f.seq) for f in frames][-1] == (Msg.DEV_ACK, 2)
    assert asked == "1"  # once, and the loop stopped there


FAKE_TIME_PORT = '''
class Clock:
    t = 0
    def ticks_ms(self):
        return Clock.t
    def ticks_us(self):
        return Clock.t * 1000
    def ticks_diff(self, a, b):
        return a - b
class ScriptedPort:
    """Each read waits its `wait_ms` on the fake clock; pins change as the script says."""
    def __init__(self, chunks, script):
        self.chunks, self.script, self.out = list(chunks), list(script), bytearray()
        self.waits = []
    def read(self, wait_ms):
        self.waits.append(wait_ms)
        Clock.t += max(1, wait_ms)
        while self.script and self.script[0][0] <= Clock.t:
            _, pin, low = self.script.pop(0)
            if low:
                machine.Pin.low.add(pin)
            else:
                machine.Pin.low.discard(pin)
        return self.chunks.pop(0) if self.chunks else b""
    def write(self, data):
        self.out += data
'''


def test_main_reads_the_buttons_with_pull_ups_and_sends_their_events(pico):
    """A bouncy press of track 1's button (GP4) and undo (GP2) held 1.2 s, on a fake clock."""
    bounce = [(t, 4, on) for t, on in ((100, 1), (102, 0), (104, 1))] + [(300, 4, 0)]
    hold = [(1000, 2, 1), (2200, 2, 0)]
    chunks = [encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,)))]
    out = run(pico, "import main, machine\n" + FAKE_TIME_PORT +
              "main.time = Clock()\n"
              f"port = ScriptedPort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}],"
              f" {bounce + hold!r})\n"
              "core = main.run(port=port, turns=600)\n"
              "pins = sorted((n, p.mode, p.pull) for n, p in machine.Pin.made.items())\n"
              "print(port.out.hex(), max(port.waits), Clock.t, repr(core._events).replace("
              "' ', ''), pins)")
    wire, longest, ended, queued, pins = out.split(" ", 4)
    assert int(ended) > 2300
    # Undo on GP2 and the two tracks' buttons on GP3 and GP4, inputs with pull-ups (the
    # strip's data pin is made without a mode).
    assert "(2, 0, 1), (3, 0, 1), (4, 0, 1)" in pins and "(5," not in pins
    assert int(longest) <= 5  # with buttons wired, the pins are sampled every 5 ms or more
    events = [(f.seq, f.payload) for f in FrameReader().feed(bytes.fromhex(wire))
              if isinstance(f, Frame) and f.type == Msg.DEV_EVENT]
    # Nobody acknowledges here, so the first event is sent (and resent) and the rest wait.
    assert events and set(events) == {(1, bytes((1, 2)))}  # EVENT_BUTTON, track 1's button
    # In the queue: that one press (the bounce is not a second), then undo held 1.2 s:
    # reported at 0.5 s and 1.0 s while down, then its release after 1.2 s.
    assert ast.literal_eval(queued) == [(1, 1, 2), (2, 2, 5), (3, 2, 10), (4, 3, 12)]


def test_main_turns_ctrl_c_off_before_it_reads_a_byte(pico):
    # Frames carry 0x03: with the console's Ctrl-C on, the first one would stop the firmware.
    out = run(pico, "import main, machine\n"
                    "log = []\n"
                    "class MP:\n"
                    "    def kbd_intr(self, c):\n"
                    "        log.append('kbd_intr %d' % c)\n"
                    "class LogPort(FakePort):\n"
                    "    def read(self, wait_ms):\n"
                    "        log.append('read')\n"
                    "        return FakePort.read(self, wait_ms)\n"
                    "real, main.micropython = main.micropython, MP()\n"
                    "try:\n"
                    "    main.run(port=LogPort([b'\\x03\\x00']), turns=2)\n"
                    "finally:\n"
                    "    main.micropython = real\n"
                    "print(','.join(log))")
    assert out == "kbd_intr -1,read,read"


def test_the_watchdog_is_fed_once_per_loop_turn_and_never_after_a_failure(pico):
    # A loop that fails stops feeding: the exception leaves run() and machine.WDT resets the
    # board; nothing else (no timer, no handler) keeps the watchdog quiet.
    out = run(pico, "import main, machine\n"
                    "class DyingPort(FakePort):\n"
                    "    reads = 0\n"
                    "    def read(self, wait_ms):\n"
                    "        DyingPort.reads += 1\n"
                    "        if DyingPort.reads == 3:\n"
                    "            raise OSError(5)\n"
                    "        return b''\n"
                    "machine.WDT.fed = 0\n"
                    "try:\n"
                    "    main.run(port=DyingPort([]), turns=10)\n"
                    "    print('returned')\n"
                    "except OSError:\n"
                    "    print('raised', machine.WDT.fed, machine.WDT.timeout)")
    assert out == "raised 3 5000"


def test_a_grbw_strip_gets_four_bytes_an_led_with_the_white_channel_dark(pico):
    chunks = [encode_frame(Msg.HELLO, 1, bytes((PROTOCOL_VERSION,))),
              encode_frame(Msg.STATE, 2, encode_state(STATE))]
    out = run(pico, "import main, neopixel\n"
                    "from hardware.board.firmware import config\n"
                    "class W:\n"
                    "    pass\n"
                    "for k in dir(config):\n"
                    "    setattr(W, k, getattr(config, k))\n"
                    "W.COLOUR_ORDER = 'GRBW'\n"
                    f"port = FakePort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}])\n"
                    "core = main.run(W, port, turns=3)\n"
                    "strip = neopixel.NeoPixel.made[-1]\n"
                    "print(strip.bpp, bytes(strip.buf).hex())")
    bpp, buf = out.split()
    rgb = LAYOUT.render(STATE)
    wire = bytes.fromhex(buf)
    assert int(bpp) == 4 and len(wire) == 4 * LAYOUT.led_count
    for led in range(LAYOUT.led_count):
        r, g, b = rgb[3 * led:3 * led + 3]
        assert wire[4 * led:4 * led + 4] == bytes((g, r, b, 0)), led
    assert any(rgb)  # the state lit something, so the order was really checked


@pytest.mark.parametrize(("host", "fix"), [
    (PROTOCOL_VERSION - 1, "update the daemon"),
    (PROTOCOL_VERSION + 1, "run `crib board flash`"),
])
def test_a_host_of_another_protocol_is_told_which_side_to_update(mp, host, fix):
    twin = Twin(mp)
    twin.step(encode_frame(Msg.HELLO, 1, bytes((host,))), 1)
    ack = twin.step(encode_frame(Msg.STATE, 2, encode_state(STATE)), 2)[0]
    assert ack.type == Msg.DEV_ACK
    assert ack.payload == b"\x01" + (f"board speaks protocol {PROTOCOL_VERSION}, host {host}: "
                                     f"{fix}").encode()
    assert twin.mp.states_applied == 0 and twin.mp.frame == bytes(3 * LAYOUT.led_count)


# --- the flash manifest holds everything main.py needs, transitively ----------------------

# What MicroPython on a Pico has built in (the rp2 port): main.py may import these.
PICO_BUILTINS = {"machine", "micropython", "neopixel", "rp2", "sys", "time", "select", "os",
                 "random", "gc", "struct", "binascii", "array", "io", "errno", "math"}
HARDWARE_ONLY = {"machine", "neopixel", "rp2"}  # the layout rule: main.py alone


def _imports(path: Path) -> set[str]:
    """Every module an import statement names, in functions too (those run later)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            # `from hardware.board import cobs` imports the module hardware.board.cobs
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_the_manifest_holds_every_module_main_imports_transitively():
    on_board = dict(manifest.FILES)  # repository path -> board path
    by_module = {dest[:-3].replace("/", ".").removesuffix(".__init__"): manifest.ROOT / src
                 for src, dest in manifest.FILES}
    todo, seen, outside = ["main"], set(), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for imported in _imports(by_module[name]):
            parts = imported.split(".")
            if parts[0] != "hardware":
                outside.add(parts[0])
                continue
            source = manifest.ROOT / "/".join(parts)
            is_module = source.with_suffix(".py").is_file() or (source / "__init__.py").is_file()
            if not is_module:  # `from hardware.board.x import NAME`: NAME is in module x
                continue
            assert imported in by_module, (
                f"{name} imports {imported}, which the flash manifest does not copy")
            todo.append(imported)
            for i in range(1, len(parts)):  # a package's __init__ runs first
                todo.append(".".join(parts[:i]))
        if name != "main":
            assert not _imports(by_module[name]) & HARDWARE_ONLY, name
    assert outside <= PICO_BUILTINS, outside - PICO_BUILTINS
    assert "hardware.board.firmware.core" in seen and "hardware.board.cobs" in seen
    assert on_board["hardware/board/firmware/main.py"] == "main.py"
    unused = set(by_module) - seen
    assert unused == set(), f"copied to the board but never imported: {unused}"


# --- boot: Ctrl-C off first, settings checked before the watchdog, the strip refreshed ------


def test_main_turns_ctrl_c_off_before_it_imports_anything_of_ours():
    """The first statements of main.py: import micropython, kbd_intr(-1); only then ours."""
    tree = ast.parse((manifest.ROOT / "hardware/board/firmware/main.py").read_text())
    body = [n for n in tree.body if not (isinstance(n, ast.Expr)
                                         and isinstance(n.value, ast.Constant))]
    assert isinstance(body[0], ast.Import) and body[0].names[0].name == "micropython"
    call = body[1].value
    assert ast.unparse(call) == "micropython.kbd_intr(-1)"


def _settings(**changes: object) -> str:
    lines = ["class S:\n    pass\n", "from hardware.board.firmware import config\n",
             "for k in dir(config):\n    setattr(S, k, getattr(config, k))\n"]
    lines += [f"S.{k} = {v!r}\n" for k, v in changes.items()]
    return "".join(lines)


@pytest.mark.parametrize(("changes", "setting", "says"), [
    ({"WATCHDOG_MS": 9000}, "WATCHDOG_MS", "WATCHDOG_MS = 9000 is not 100..8388"),
    ({"TRACKS": 4}, "TRACKS", "TRACKS = 4 is not 1..3"),
    ({"COLOUR_ORDER": "BGR"}, "COLOUR_ORDER", "COLOUR_ORDER = 'BGR'"),
    ({"TRACK_BUTTON_PINS": (3, 0, 5)}, "TRACK_BUTTON_PINS",
     "TRACK_BUTTON_PINS: GP0 used twice"),
])
def test_a_bad_setting_arms_no_watchdog_names_itself_and_blinks_its_number(
        pico, changes, setting, says):
    chunks = [encode_frame(Msg.HELLO, 1, encode_host_hello()),
              encode_frame(Msg.STATE, 2, encode_state(STATE))]
    out = run(pico, "import main, machine, neopixel\n" + FAKE_TIME_PORT + _settings(**changes)
              + "main.time = Clock()\nmachine.WDT.timeout = None\n"
              f"port = ScriptedPort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}],"
              " [])\n"
              "core = main.run(S, port, turns=200)\n"
              "strip = neopixel.NeoPixel.made[-1]\n"
              "print(port.out.hex(), machine.WDT.timeout, strip.n, strip.writes, core.code)")
    wire, timeout, n, writes, code = out.split()
    assert timeout == "None"  # never armed: no reset loop, and flashing still works
    frames = [f for f in FrameReader().feed(bytes.fromhex(wire)) if isinstance(f, Frame)]
    hello = DeviceInfo.decode(frames[0].payload)
    assert says in hello.fault
    acks = [f for f in frames if f.type == Msg.DEV_ACK]
    assert acks[0].payload.startswith(b"\x01config.py: ")  # the state is refused with it
    assert int(code) == SETTINGS.index(setting) + 1  # the number of red LEDs
    assert int(writes) >= 4  # blinking (200 turns of 20 ms: 4 s)
    assert int(n) == FAULT_LEDS


def test_a_board_with_a_bad_setting_still_restarts_for_flashing(pico):
    chunks = [encode_frame(Msg.HELLO, 1, encode_host_hello()), encode_frame(Msg.MAINTENANCE, 2)]
    out = run(pico, "import main, machine\n" + FAKE_TIME_PORT + _settings(WATCHDOG_MS=10000)
              + "main.time = Clock()\nasked = []\n"
              f"port = ScriptedPort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}],"
              " [])\n"
              "main.run(S, port, turns=50, maintenance=lambda: asked.append(1))\n"
              "print(port.out.hex(), len(asked))")
    wire, asked = out.split()
    frames = [f for f in FrameReader().feed(bytes.fromhex(wire)) if isinstance(f, Frame)]
    assert (frames[-1].type, frames[-1].seq, frames[-1].payload) == (Msg.DEV_ACK, 2, b"\x00")
    assert asked == "1"


def test_the_strip_is_written_again_every_second_though_nothing_changed(pico):
    chunks = [encode_frame(Msg.HELLO, 1, encode_host_hello()),
              encode_frame(Msg.STATE, 2, encode_state(STATE))]
    ping = encode_frame(Msg.PING, 3)
    out = run(pico, "import main, machine, neopixel\n" + FAKE_TIME_PORT + _settings()
              + "main.time = Clock()\n"
              f"port = ScriptedPort([bytes.fromhex(h) for h in {[c.hex() for c in chunks]!r}]"
              # a ping now and then: the host stays, so no waiting pattern
              f" + ([bytes.fromhex({ping.hex()!r})] + [b''] * 99) * 20, [])\n"
              "core = main.run(S, port, turns=2000)\n"
              "strip = neopixel.NeoPixel.made[-1]\n"
              "print(strip.writes, core.frame_version, machine.Clock.t if hasattr(machine, 'Clock')"
              " else Clock.t)")
    writes, versions, t = (int(x) for x in out.split())
    assert versions == 1  # one state shown, never changed
    # the loop turns about every 5 ms (buttons wired): 10 s or so, a write a second
    assert t // 1000 - 1 <= writes - versions <= t // 1000 + 1


def test_the_host_names_the_bad_setting_and_a_drifted_wire_format():
    link = HostLink()
    link.connection_made(0.0)
    link.poll(0.0)
    link.data_to_send()
    bad = DeviceInfo(PROTOCOL_VERSION, 6, 0, 1, 0, 0, 0, "GRB", wire_hash(),
                     "WATCHDOG_MS = 9000 is not 100..8388 (RP2040)")
    events = link.receive_data(encode_frame(Msg.DEV_HELLO, 1, bad.encode()), 0.01)
    refused = [e for e in events if isinstance(e, Refused)]
    assert refused and "WATCHDOG_MS = 9000" in refused[0].reason
    assert "crib board flash" in refused[0].reason
    for build, side in ((FIRMWARE_BUILD - 1, "run `crib board flash`"),
                        (FIRMWARE_BUILD, "run `crib board flash`"),
                        (FIRMWARE_BUILD + 1, "update the daemon")):
        link = HostLink()
        link.connection_made(0.0)
        link.poll(0.0)
        drifted = DeviceInfo(PROTOCOL_VERSION, build, 244, 1, 2, 120, 2000, "GRB",
                             wire_hash() ^ 1)
        events = link.receive_data(encode_frame(Msg.DEV_HELLO, 1, drifted.encode()), 0.01)
        refused = [e for e in events if isinstance(e, Refused)]
        assert refused and refused[0].reason.endswith(side), refused
        assert f"{wire_hash() ^ 1:08x}" in refused[0].reason
