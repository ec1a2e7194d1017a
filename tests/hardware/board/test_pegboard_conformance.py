"""One conformance suite for `PegBoard`: the simulated board on a pty through `SerialPegBoard`
always, and a real board with `pytest -m hardware` and CRIB_BOARD_PORT=/dev/serial/by-id/...
(or `--port` where the root conftest defines it)."""

from __future__ import annotations

import os

import pytest

from hardware.board.host import SerialPegBoard
from hardware.board.layout import BoardLayout
from hardware.board.simulator import BoardSimulator
from hardware.clock import SystemClock
from hardware.interfaces import BoardState, DeviceEvent, DeviceState, PegBoard, TrackPegs

from .helpers import wait_for


def _real_port(request: pytest.FixtureRequest) -> str | None:
    return request.config.getoption("--port") or os.environ.get("CRIB_BOARD_PORT")


@pytest.fixture(params=["simulated", "micropython", "spi",
                        pytest.param("real", marks=pytest.mark.hardware)])
def board(request):
    layout = BoardLayout(
        tracks=int(os.environ.get("CRIB_BOARD_TRACKS", 2)),
        holes=int(os.environ.get("CRIB_BOARD_HOLES", 120)),
    )
    if request.param == "spi":  # the direct-SPI strip, read back by a fake spidev's decoder
        from hardware.board.spi import SpiPegBoard

        from .fake_spidev import FakeSpiDev

        spi_board = SpiPegBoard(layout, SystemClock(), spi_factory=FakeSpiDev,
                                bufsiz=lambda: 65536)
        yield spi_board
        spi_board.stop()
        return
    sim = None
    if request.param in ("simulated", "micropython"):  # the firmware core: CPython or MicroPython
        firmware = "micropython" if request.param == "micropython" else "cpython"
        sim = BoardSimulator(layout, SystemClock(), firmware=firmware)
        url = sim.open_pty()
    else:
        url = _real_port(request)
        if not url:
            pytest.skip("give --port (or CRIB_BOARD_PORT) the board's /dev/serial/by-id path")
    dev = SerialPegBoard(url, layout, SystemClock())
    yield dev
    dev.stop()
    if sim is not None:
        sim.close()


def test_is_a_pegboard(board):
    assert isinstance(board, PegBoard)


def test_start_connects_and_describe_is_json_ready(board):
    import json

    board.start()
    assert wait_for(lambda: board.state is DeviceState.IDLE)
    info = board.describe()
    assert info["state"] == "idle" and info["led_count"] == board.layout.led_count
    json.dumps(info)


def test_show_then_read_back_gives_the_pegs_and_code(board):
    board.start()
    assert wait_for(lambda: board.state is DeviceState.IDLE)
    state = BoardState(tracks=(TrackPegs(17, 9), TrackPegs(0, 0)), code="0427")
    board.show(state)
    assert wait_for(lambda: (rb := board.read_back(timeout=2)) is not None
                    and rb.tracks == state.tracks and rb.code == "0427")
    rb = board.read_back(timeout=2)
    assert rb is not None and len(rb.leds) == board.layout.led_count


def test_events_reach_subscribers_until_unsubscribed(board):
    got: list[DeviceEvent] = []
    unsubscribe = board.subscribe(got.append)
    board.start()
    assert wait_for(lambda: any(e.data.get("state") == "idle" for e in got))
    unsubscribe()
    n = len(got)
    board.stop()
    assert len(got) == n


def test_stop_is_idempotent_and_read_back_is_none_after(board):
    board.start()
    assert wait_for(lambda: board.state is DeviceState.IDLE)
    board.stop()
    board.stop()
    assert board.state is DeviceState.STOPPED
    assert board.read_back(timeout=0.2) is None
