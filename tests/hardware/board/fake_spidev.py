"""A fake `spidev.SpiDev` that reads the WS2812 bit stream back into colours, as a strip would.

It knows nothing of the driver's tables: it measures every high pulse in SPI bits at the
bus speed the driver set, says 0 or 1 by the WS2812B datasheet's windows, and needs the line
low for 280 us after the last bit (the latch) before it shows the frame.
"""

from __future__ import annotations

import threading

RGB = tuple[int, int, int]

# WS2812B V5 / SK6812 windows, in nanoseconds, for the high part of a bit.
T0H = (200, 420)
T1H = (580, 1000)
BIT_NS = (1000, 1600)  # a whole bit period (high + low), with the margin the chips allow
LATCH_NS = 280_000


class StripError(AssertionError):
    """The bit stream would not be read right by a real strip."""


def bits_of(data: bytes) -> list[int]:
    """The SPI line, one level per SPI bit, most significant bit first."""
    return [byte >> (7 - i) & 1 for byte in data for i in range(8)]


def decode_stream(data: bytes, hz: int, channels: int) -> list[tuple[int, ...]]:
    """The channel bytes per LED that a strip reads from `data` at `hz`.

    Raises StripError for a pulse outside the datasheet, or a missing latch gap.
    """
    ns = 1e9 / hz
    line = bits_of(data)
    values: list[int] = []
    i = 0
    n = len(line)
    while i < n:
        if line[i] == 0:
            start = i
            while i < n and line[i] == 0:
                i += 1
            if i == n:
                break
            if values and (i - start) * ns >= LATCH_NS:
                raise StripError(f"a {((i - start) * ns) / 1000:.0f} us low mid-frame latches it")
            continue
        high_start = i
        while i < n and line[i] == 1:
            i += 1
        high = (i - high_start) * ns
        low_start = i
        while i < n and line[i] == 0:
            i += 1
        low = (i - low_start) * ns
        if T0H[0] <= high <= T0H[1]:
            bit = 0
        elif T1H[0] <= high <= T1H[1]:
            bit = 1
        else:
            raise StripError(f"a {high:.0f} ns high pulse is neither a 0 nor a 1")
        if i < n and not BIT_NS[0] <= high + low <= BIT_NS[1]:
            raise StripError(f"a {high + low:.0f} ns bit is outside {BIT_NS} ns")
        values.append(bit)
    trailing = 0
    for level in reversed(line):
        if level:
            break
        trailing += 1
    if trailing * ns < LATCH_NS:
        raise StripError(f"the frame ends with {trailing * ns / 1000:.0f} us low, not 280 us")
    if len(values) % (8 * channels):
        raise StripError(f"{len(values)} bits is not a whole number of {channels}-byte LEDs")
    out = []
    for led in range(len(values) // (8 * channels)):
        chans = []
        for c in range(channels):
            byte = 0
            for b in values[(led * channels + c) * 8 : (led * channels + c + 1) * 8]:
                byte = byte << 1 | b
            chans.append(byte)
        out.append(tuple(chans))
    return out


def to_rgb(leds: list[tuple[int, ...]], order: str) -> list[RGB]:
    """Strip channel bytes back to RGB, by the strip's colour order (W must stay dark)."""
    out = []
    for chans in leds:
        named = dict(zip(order, chans, strict=True))
        if named.get("W", 0):
            raise StripError(f"white channel lit: {chans}")
        out.append((named["R"], named["G"], named["B"]))
    return out


class FakeSpiDev:
    """Stands in for `spidev.SpiDev`; `frames` holds every write as the strip decoded it."""

    instances: list[FakeSpiDev] = []

    def __init__(self, order: str = "GRB", fail_open: BaseException | None = None) -> None:
        self.order = order
        self.fail_open = fail_open
        self.opened: tuple[int, int] | None = None
        self.closed = False
        self.max_speed_hz = 0
        self.mode = -1
        self.writes: list[bytes] = []
        self.frames: list[list[RGB]] = []
        self.fail_write: OSError | None = None
        self.changed = threading.Condition()
        FakeSpiDev.instances.append(self)

    def open(self, bus: int, device: int) -> None:
        if self.fail_open is not None:
            raise self.fail_open
        self.opened = (bus, device)

    def writebytes2(self, data: bytes) -> None:
        if self.opened is None or self.closed:
            raise OSError(9, "Bad file descriptor")
        if self.fail_write is not None:
            raise self.fail_write
        assert self.mode == 0 and self.max_speed_hz > 0
        leds = to_rgb(decode_stream(bytes(data), self.max_speed_hz, len(self.order)), self.order)
        with self.changed:
            self.writes.append(bytes(data))
            self.frames.append(leds)
            self.changed.notify_all()

    def close(self) -> None:
        self.closed = True

    @property
    def leds(self) -> list[RGB]:
        """What the strip shows now: the last frame."""
        with self.changed:
            return self.frames[-1] if self.frames else []

    def wait_frames(self, n: int, timeout: float = 10.0) -> bool:
        """Wait until at least `n` frames were written."""
        with self.changed:
            return self.changed.wait_for(lambda: len(self.frames) >= n, timeout)
