"""`SpiPegBoard`: the peg board with no microcontroller, its strip driven by the Pi's SPI0 MOSI.

The simplest build: WS2812B (GRB) or SK6812 (GRB, GRBW) LEDs on GPIO10 (SPI0 MOSI, pin 19)
through a 3.3 V to 5 V level shifter. SPI is the one way that works the same on a Pi 3, 4,
5 and Zero 2 W (the PWM/PCM drivers do not run on a Pi 5's RP1).

The encoding, written here over the `spidev` package rather than taken from a library
(pi5neo sleeps 0.1 s per update and prints; rpi5-ws2812 needs numpy and knows only GRB;
Adafruit's neopixel_spi pulls in Blinka): each WS2812 bit is 4 SPI bits at 3.2 MHz, so a
bit lasts 1.25 us, a 0 is high for 312 ns (1000) and a 1 for 625 ns (1100) - the timing of
Adafruit's proven 8-bit patterns at half the bytes. Two WS2812 bits fill one SPI byte and
every byte ends low, so a pause between bytes only stretches a low, which the LEDs allow.
The frame ends with 300 us of zero bytes: the latch (50 us for old WS2812B, 280 us for new).

The frame goes out whole in one transfer: spidev splits anything larger than its `bufsiz`
(4096 bytes unless the kernel command line says `spidev.bufsiz=`), and the gap between the
pieces would latch a half-written strip, so a frame that does not fit is refused with the fix.

`read_back` returns what this Pi last wrote into the SPI buffer. A strip cannot be read, so
a dead or miswired strip still "reads back" right: the board's controller (here, this
driver) holds the same; the LEDs themselves are checked by eye with `crib board walk`.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from hardware.board.base import WorkerDevice
from hardware.board.layout import BoardLayout
from hardware.board.render import strip_bytes
from hardware.errors import BoardError, ConfigurationError
from hardware.interfaces import (
    BoardReadback,
    BoardState,
    Clock,
    DeviceState,
)

SPI_HZ = 3_200_000  # 4 SPI bits per WS2812 bit: 800 kHz on the LED side
SPI_BITS_PER_BIT = 4
ZERO_BITS = 0b1000  # high 312 ns, low 938 ns
ONE_BITS = 0b1100  # high 625 ns, low 625 ns
RESET_S = 300e-6  # low this long latches the frame (>= 280 us for WS2812B V5)
RESET_BYTES = math.ceil(RESET_S * SPI_HZ / 8)
COLOUR_ORDERS = ("GRB", "RGB", "GRBW")  # WS2812B; some clones; SK6812 RGBW
DEFAULT_DEVICE = "/dev/spidev0.0"
DEFAULT_BUFSIZ = 4096  # the spidev module's default buffer, in bytes
BUFSIZ_PATH = Path("/sys/module/spidev/parameters/bufsiz")
REFRESH_S = 1.0  # the frame is sent again this often, so a glitched LED heals

_DEVICE_RE = re.compile(r"^/dev/spidev(\d+)\.(\d+)$")


def _byte_table() -> tuple[bytes, ...]:
    """The 4 SPI bytes of each colour byte, most significant bit first."""
    table = []
    for value in range(256):
        word = 0
        for bit in range(7, -1, -1):
            word = (word << SPI_BITS_PER_BIT) | (ONE_BITS if value >> bit & 1 else ZERO_BITS)
        table.append(word.to_bytes(4, "big"))
    return tuple(table)


_TABLE = _byte_table()


def parse_device(path: str) -> tuple[int, int]:
    """(bus, chip select) of a /dev/spidevB.C path. Raises ConfigurationError for another path."""
    m = _DEVICE_RE.match(path)
    if m is None:
        raise ConfigurationError(f"{path!r} is not an SPI device: expected /dev/spidevB.C")
    return int(m.group(1)), int(m.group(2))


def check_colour_order(order: str) -> str:
    """The order if known. Raises ConfigurationError naming the known ones."""
    if order not in COLOUR_ORDERS:
        raise ConfigurationError(f"colour order {order!r} is not one of {', '.join(COLOUR_ORDERS)}")
    return order


def order_bytes(rgb_frame: bytes | bytearray, order: str = "GRB") -> bytes:
    """An RGB frame buffer in the strip's channel order (W dark): the firmware's own code."""
    return bytes(strip_bytes(rgb_frame, check_colour_order(order)))


def encode(channel_bytes: bytes | bytearray) -> bytes:
    """The SPI bytes that send these LED channel bytes, then the latch gap."""
    return b"".join([_TABLE[v] for v in channel_bytes]) + bytes(RESET_BYTES)


def frame_bytes(led_count: int, order: str = "GRB") -> int:
    """How many SPI bytes one frame of `led_count` LEDs takes, latch included."""
    return led_count * len(check_colour_order(order)) * SPI_BITS_PER_BIT + RESET_BYTES


def read_bufsiz(path: Path = BUFSIZ_PATH) -> int:
    """spidev's transfer buffer in bytes (its default where the module does not say)."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return DEFAULT_BUFSIZ


class SpiBus(Protocol):
    """What this driver uses of `spidev.SpiDev` (tests give a fake)."""

    max_speed_hz: int
    mode: int

    def open(self, bus: int, device: int) -> None: ...
    def writebytes2(self, data: bytes) -> None: ...
    def close(self) -> None: ...


def open_spidev() -> SpiBus:
    """A new `spidev.SpiDev`. Raises ImportError when spidev is not installed (pip extra `pi`)."""
    import spidev  # type: ignore[import-not-found]

    return spidev.SpiDev()  # type: ignore[no-any-return]


Capper = Callable[[bytearray], Any]


def budget_capper(budget_a: float = 2.0) -> Capper:
    """Dims a frame in place to the supply budget, by the firmware's own model (`power`)."""
    from hardware.board import power

    budget_ma = round(budget_a * 1000)

    def cap(frame: bytearray) -> int:
        return int(power.cap_frame(frame, budget_ma))

    return cap


class SpiPegBoard(WorkerDevice):
    """The LED strip on `device` (/dev/spidev0.0), drawn by `layout.render`, capped, ordered.

    Every frame is dimmed to stay within `budget_a` amperes by the firmware's power model
    (`capper` replaces that in tests); `spi_factory` makes the bus (spidev by default).
    """

    def __init__(
        self,
        layout: BoardLayout,
        clock: Clock,
        *,
        device: str = DEFAULT_DEVICE,
        colour_order: str = "GRB",
        budget_a: float = 2.0,
        capper: Capper | None = None,
        spi_factory: Callable[[], SpiBus] = open_spidev,
        bufsiz: Callable[[], int] = read_bufsiz,
        refresh_s: float = REFRESH_S,
    ) -> None:
        self.layout = layout
        self.clock = clock
        self.device = device
        self.bus_cs = parse_device(device)
        self.colour_order = check_colour_order(colour_order)
        self.budget_a = budget_a
        self.capper = capper if capper is not None else budget_capper(budget_a)
        self.last_scale: int | None = None  # the cap's last scale, 256 = not dimmed
        self._spi_factory = spi_factory
        self._bufsiz = bufsiz
        self.refresh_s = refresh_s
        super().__init__("board", "spi-board", threading.Lock())
        self._wrote = threading.Condition(self._lock)
        self._spi: SpiBus | None = None
        self._wanted = BoardState()
        self._test_rgb: tuple[int, int, int] | None = None
        self._written: tuple[BoardState, bytes] | None = None  # state and RGB frame on the wire
        self._written_test: tuple[int, int, int] | None = None
        self.frames_written = 0

    # Device ----------------------------------------------------------------------------

    def start(self) -> None:
        """Open the SPI device and begin sending; a missing device is ABSENT, never raised."""
        with self._lock:
            if self._running():
                return
        self._status.set(DeviceState.CONNECTING, f"opening {self.device}")
        need = frame_bytes(self.layout.led_count or 0, self.colour_order)
        have = self._bufsiz()
        if need > have:
            self._status.set(DeviceState.FAULT,
                             f"a frame of {self.layout.led_count} LEDs is {need} SPI bytes, more "
                             f"than spidev's buffer of {have}: add spidev.bufsiz=65536 to "
                             "/boot/firmware/cmdline.txt and reboot")
            return
        try:
            spi = self._spi_factory()
            spi.open(*self.bus_cs)
            spi.max_speed_hz = SPI_HZ
            spi.mode = 0
        except ImportError as exc:
            self._status.set(DeviceState.ABSENT, f"the spidev package is not installed ({exc}): "
                             "sudo apt install python3-spidev (install.sh does it)")
            return
        except FileNotFoundError:
            self._status.set(DeviceState.ABSENT, f"{self.device} does not exist: turn SPI on "
                             "(dtparam=spi=on in /boot/firmware/config.txt) and reboot")
            return
        except PermissionError:
            self._status.set(DeviceState.FAULT, f"no permission to open {self.device}: add the "
                             "service user to the spi group")
            return
        except OSError as exc:
            self._status.set(DeviceState.FAULT, f"{self.device} cannot be opened: {exc}")
            return
        with self._lock:
            self._spi = spi
            self._spawn()

    def stop(self) -> None:
        """Stop sending (the strip keeps its last frame) and close the device; idempotent."""
        self._halt()
        with self._lock:
            spi, self._spi = self._spi, None
        if spi is not None:
            try:
                spi.close()
            except OSError:
                pass
        self._status.set(DeviceState.STOPPED, "stopped")

    def describe(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": self._status.state.value,
                "kind": "spi",
                "device": self.device,
                "led_count": self.layout.led_count,
                "colour_order": self.colour_order,
                "spi_hz": SPI_HZ,
                "frame_bytes": frame_bytes(self.layout.led_count or 0, self.colour_order),
                "frames_written": self.frames_written,
                "budget_a": self.budget_a,
                "dimmed_to_percent": (None if self.last_scale is None
                                      else self.last_scale * 100 // 256),
                "read_back": "what this Pi last wrote to the strip: the board's controller "
                             "holds the same; a strip cannot report its LEDs",
                "protocol": None,
                "firmware_build": None,
                "boot_id": None,
                "fault": self._status.fault,
            }

    # PegBoard --------------------------------------------------------------------------

    def show(self, board: BoardState) -> None:
        """Make the strip show `board`; written by the worker at once.

        Raises BoardError (a ValueError) for a state this layout cannot show.
        """
        self.layout.check(board)
        with self._lock:
            self._wanted = board
            self._test_rgb = None
        self._wake.set()

    def read_back(self, timeout: float = 1.0) -> BoardReadback | None:
        """What this Pi last wrote to the strip (not what the LEDs show); None when stopped."""
        with self._lock:
            if self._spi is None or self._written is None:
                return None
            state, rgb = self._written
        leds = tuple((rgb[i], rgb[i + 1], rgb[i + 2]) for i in range(0, len(rgb), 3))
        tracks, code = self.layout.decode(leds, state)
        return BoardReadback(tracks=tracks, code=code, leds=leds, boot_id=None)

    # extras for `crib board test` and `crib board walk` ---------------------------------

    def test_pattern(self, rgb: tuple[int, int, int], timeout: float = 2.0) -> bool:
        """Light every LED in `rgb` (capped) until the next `show`; True once written."""
        if any(not 0 <= c <= 255 for c in rgb):
            raise BoardError(f"test colour {rgb} has a channel outside 0..255")
        with self._lock:
            if self._spi is None:
                return False
            rgb = (int(rgb[0]), int(rgb[1]), int(rgb[2]))
            self._test_rgb = rgb
            before = self.frames_written
        self._wake.set()
        with self._wrote:
            return self._wrote.wait_for(
                lambda: (self.frames_written > before and self._written_test == rgb)
                or self._spi is None, timeout
            ) and self._spi is not None

    def wait_connected(self, timeout: float) -> bool:
        """Wait (real time) until the first frame went out; False if it did not in time."""
        with self._wrote:
            return self._wrote.wait_for(
                lambda: self.frames_written > 0 or self._spi is None, timeout
            ) and self._spi is not None

    # worker ----------------------------------------------------------------------------

    def render(self) -> tuple[BoardState, tuple[int, int, int] | None, bytearray]:
        """The state, any test colour, and the capped RGB frame the strip should show now."""
        with self._lock:
            state, test = self._wanted, self._test_rgb
        if test is not None:
            frame = bytearray(bytes(test) * (self.layout.led_count or 0))
        else:
            frame = self.layout.render(state)
        scaled = self.capper(frame)
        self.last_scale = scaled if isinstance(scaled, int) else None
        return state, test, frame

    def _run(self) -> None:
        first = True
        while not self._stop.is_set():
            if not first:
                self._wake.wait(self.refresh_s)
                self._wake.clear()
                if self._stop.is_set():
                    return
            first = False
            state, test, frame = self.render()
            data = encode(order_bytes(frame, self.colour_order))
            try:
                with self._lock:
                    spi = self._spi
                    if spi is None:
                        return
                    spi.writebytes2(data)
                    self._written = (state, bytes(frame))
                    self._written_test = test
                    self.frames_written += 1
                    self._wrote.notify_all()
            except OSError as exc:
                self._status.set(DeviceState.FAULT, f"writing to {self.device} failed: {exc}")
                continue
            self._status.set(DeviceState.IDLE, f"writing {self.device}")
