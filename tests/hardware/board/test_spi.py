"""The direct-SPI board: the WS2812 bit stream a strip would read, colour order, latch, faults."""

from __future__ import annotations

import time

import pytest

from hardware.board import spi
from hardware.board.layout import BoardLayout, scale
from hardware.board.spi import SpiPegBoard
from hardware.clock import FakeClock
from hardware.errors import ConfigurationError
from hardware.interfaces import BoardState, DeviceState, TrackPegs

from .fake_spidev import FakeSpiDev, StripError, decode_stream, to_rgb


def wait_for(predicate, timeout: float = 10.0) -> bool:
    """Poll until `predicate()` is true (the worker thread writes in real time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return bool(predicate())


def make(order: str = "GRB", layout: BoardLayout | None = None, **kw) -> tuple[SpiPegBoard,
                                                                             FakeSpiDev]:
    fake = FakeSpiDev(order)
    board = SpiPegBoard(layout or BoardLayout(), FakeClock(), colour_order=order,
                        spi_factory=lambda: fake, bufsiz=lambda: 4096, **kw)
    return board, fake


@pytest.fixture
def spi_board():
    board, fake = make()
    yield board, fake
    board.stop()


def test_every_colour_byte_round_trips_through_the_strip_decoder() -> None:
    # 86 LEDs of 3 bytes: every value 0..255 once, plus a few.
    values = bytes(range(256)) + b"\x00\xff"
    data = spi.encode(values)
    assert [v for led in decode_stream(data, spi.SPI_HZ, 3) for v in led] == list(values)
    assert len(data) == len(values) * 4 + spi.RESET_BYTES


def test_timing_is_inside_the_ws2812b_datasheet() -> None:
    ns = 1e9 / spi.SPI_HZ
    assert 1200 <= 4 * ns <= 1300  # one WS2812 bit: 1.25 us (800 kHz)
    assert 220 <= ns <= 380 and 580 <= 2 * ns <= 1000  # T0H and T1H of WS2812B V5
    assert spi.RESET_BYTES * 8 * ns >= 280_000  # the latch of a new WS2812B


def test_a_stream_without_the_latch_gap_is_refused_by_the_decoder() -> None:
    data = spi.encode(b"\x10\x20\x30")
    with pytest.raises(StripError, match="not 280 us"):
        decode_stream(data[: -spi.RESET_BYTES + 10], spi.SPI_HZ, 3)
    # ...and a stream at the wrong speed is refused too: the decoder really measures pulses.
    with pytest.raises(StripError):
        decode_stream(data, spi.SPI_HZ * 2, 3)


@pytest.mark.parametrize(("order", "wire"), [
    ("GRB", [0x20, 0x10, 0x30]), ("RGB", [0x10, 0x20, 0x30]), ("GRBW", [0x20, 0x10, 0x30, 0]),
])
def test_colour_order_puts_channels_where_the_chip_expects_them(order, wire) -> None:
    data = spi.encode(spi.order_bytes(bytes([0x10, 0x20, 0x30]), order))
    assert list(decode_stream(data, spi.SPI_HZ, len(order))[0]) == wire
    assert to_rgb(decode_stream(data, spi.SPI_HZ, len(order)), order) == [(0x10, 0x20, 0x30)]


def test_unknown_colour_order_and_device_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="'BRG' is not one of GRB, RGB, GRBW"):
        SpiPegBoard(BoardLayout(), FakeClock(), colour_order="BRG")
    with pytest.raises(ConfigurationError, match="/dev/ttyAMA0.*spidevB.C"):
        SpiPegBoard(BoardLayout(), FakeClock(), device="/dev/ttyAMA0")
    assert spi.parse_device("/dev/spidev1.2") == (1, 2)


def test_the_strip_shows_the_layout_rendering(spi_board) -> None:
    board, fake = spi_board
    board.start()
    assert wait_for(lambda: board.state is DeviceState.IDLE)
    assert fake.opened == (0, 0) and fake.max_speed_hz == spi.SPI_HZ and fake.mode == 0
    state = BoardState(tracks=(TrackPegs(17, 9), TrackPegs(5, 0)), brightness=200)
    board.show(state)
    layout = board.layout
    red = scale((220, 0, 0), 200)
    assert wait_for(lambda: fake.leds and fake.leds[layout.index(0, 17)] == red)
    expected = layout.render(state)
    assert fake.leds == [tuple(expected[i:i + 3]) for i in range(0, len(expected), 3)]
    assert fake.leds[layout.index(1, 5)] == scale((0, 60, 255), 200)
    assert fake.leds[layout.index(0, 9)] == scale((220, 0, 0), 200, 4)  # the back peg
    assert len(fake.leds) == 244


def test_grbw_strip_gets_four_channels_and_the_same_colours() -> None:
    board, fake = make("GRBW")
    try:
        board.start()
        board.show(BoardState(tracks=(TrackPegs(3, 1),)))
        assert wait_for(lambda: fake.leds and fake.leds[3] == scale((220, 0, 0), 128))
        assert len(fake.writes[-1]) == 244 * 16 + spi.RESET_BYTES
    finally:
        board.stop()


def test_read_back_is_what_was_last_written_and_says_so(spi_board) -> None:
    board, fake = spi_board
    assert board.read_back() is None  # not started
    board.start()
    state = BoardState(tracks=(TrackPegs(40, 30), TrackPegs(2, 0)), code="0427")
    board.show(state)
    assert wait_for(lambda: (rb := board.read_back()) is not None and rb.code == "0427")
    rb = board.read_back()
    assert rb is not None and list(rb.leds) == fake.leds and rb.boot_id is None
    assert rb.tracks == state.tracks
    assert "holds the same" in board.describe()["read_back"]


def test_the_frame_is_sent_again_so_a_glitched_led_heals() -> None:
    board, fake = make(refresh_s=0.01)
    try:
        board.start()
        assert fake.wait_frames(5, timeout=10)
        assert len({tuple(f) for f in fake.frames}) == 1
    finally:
        board.stop()


def test_the_cap_dims_every_frame_test_pattern_included() -> None:
    def halve(frame: bytearray) -> None:
        frame[:] = bytes(v // 2 for v in frame)

    board, fake = make(capper=halve)
    try:
        board.start()
        assert board.test_pattern((200, 100, 50))
        assert set(fake.leds) == {(100, 50, 25)}
        board.show(BoardState(tracks=(TrackPegs(1, 0),), brightness=255))
        assert wait_for(lambda: fake.leds[1] == (110, 0, 0))
    finally:
        board.stop()


def test_a_frame_larger_than_the_spidev_buffer_is_a_fault_with_the_fix() -> None:
    fake = FakeSpiDev()
    board = SpiPegBoard(BoardLayout(tracks=3), FakeClock(), spi_factory=lambda: fake,
                        bufsiz=lambda: 4096)
    board.start()
    info = board.describe()
    assert board.state is DeviceState.FAULT and fake.opened is None
    assert "366 LEDs is 4512 SPI bytes" in info["fault"]
    assert "spidev.bufsiz=65536" in info["fault"]


@pytest.mark.parametrize(("error", "state", "words"), [
    (FileNotFoundError(2, "No such file"), DeviceState.ABSENT, "dtparam=spi=on"),
    (PermissionError(13, "Permission denied"), DeviceState.FAULT, "spi group"),
    (ImportError("No module named 'spidev'"), DeviceState.ABSENT, "apt install python3-spidev"),
])
def test_open_failures_are_states_with_the_fix_never_raised(error, state, words) -> None:
    board = SpiPegBoard(BoardLayout(), FakeClock(),
                        spi_factory=lambda: FakeSpiDev(fail_open=error), bufsiz=lambda: 4096)
    events = []
    board.subscribe(events.append)
    board.start()
    assert board.state is state and words in board.describe()["fault"]
    assert events[-1].data["state"] == state.value
    assert board.read_back() is None


def test_a_write_error_is_a_fault_and_recovers(spi_board) -> None:
    board, fake = make(refresh_s=0.01)
    try:
        board.start()
        assert wait_for(lambda: board.state is DeviceState.IDLE)
        fake.fail_write = OSError(5, "Input/output error")
        assert wait_for(lambda: board.state is DeviceState.FAULT)
        assert "Input/output error" in board.describe()["fault"]
        fake.fail_write = None
        assert wait_for(lambda: board.state is DeviceState.IDLE)
    finally:
        board.stop()


def test_stop_closes_the_device_and_keeps_the_last_frame(spi_board) -> None:
    board, fake = spi_board
    board.start()
    board.show(BoardState(tracks=(TrackPegs(7, 0),)))
    assert wait_for(lambda: fake.leds and fake.leds[7] != (0, 0, 0))
    board.stop()
    # A frame may still have been on its way when stop() was called; after it, none is.
    n = len(fake.frames)
    board.stop()
    board.show(BoardState(tracks=(TrackPegs(9, 0),)))
    assert fake.closed and board.state is DeviceState.STOPPED and len(fake.frames) == n
    assert fake.leds[7] != (0, 0, 0)  # the strip keeps its last frame


def test_the_default_cap_is_the_firmware_power_model() -> None:
    from hardware.board import power

    board, fake = make()  # no capper given: the supply budget of 2.0 A
    try:
        board.start()
        assert board.test_pattern((255, 255, 255))
        frame = bytearray(b"".join(bytes(rgb) for rgb in fake.leds))
        assert power.drawn_ma(frame) <= 2000 < power.drawn_ma(bytes([255]) * len(frame))
        expected = bytearray([255]) * len(frame)
        power.cap_frame(expected, 2000)
        assert frame == expected  # byte for byte what the firmware would show
        assert board.describe()["dimmed_to_percent"] < 20
    finally:
        board.stop()
