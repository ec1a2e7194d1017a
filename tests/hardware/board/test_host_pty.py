"""The host driver against the simulated board through a real pseudo-terminal."""

from __future__ import annotations

import os

import pytest

from hardware.board.host import SerialPegBoard
from hardware.board.layout import BoardLayout
from hardware.board.protocol import PROTOCOL_VERSION
from hardware.board.simulator import BoardSimulator
from hardware.board.transport import Backoff, SerialTransport
from hardware.clock import SystemClock
from hardware.errors import BoardError, SerialLinkError
from hardware.interfaces import BoardState, DeviceEvent, DeviceState, TrackPegs

from .helpers import wait_for

STATE = BoardState(tracks=(TrackPegs(45, 38), TrackPegs(52, 40)), brightness=180)


@pytest.fixture
def rig():
    layout = BoardLayout()
    clock = SystemClock()
    sim = BoardSimulator(layout, clock)
    path = sim.open_pty()
    board = SerialPegBoard(path, layout, clock, backoff=Backoff(0.02, 0.2))
    events: list[DeviceEvent] = []
    board.subscribe(events.append)
    board.start()
    assert wait_for(lambda: board.state is DeviceState.IDLE)
    yield sim, board, events
    board.stop()
    sim.close()


def shows(sim: BoardSimulator, layout: BoardLayout, state: BoardState) -> bool:
    return sim.state == state and bytes(c for led in sim.leds for c in led) == bytes(
        layout.render(state))


def test_show_reaches_the_led_buffer_and_reads_back(rig):
    sim, board, _ = rig
    board.show(STATE)
    assert wait_for(lambda: shows(sim, board.layout, STATE))
    rb = board.read_back(timeout=5)
    assert rb is not None and rb.tracks == STATE.tracks and rb.code is None
    assert rb.boot_id == sim.boot_id and rb.leds == sim.leds


def test_pairing_code_is_lit_and_read_back(rig):
    sim, board, _ = rig
    board.show(BoardState(tracks=STATE.tracks, code="5820"))
    assert wait_for(lambda: sim.state.code == "5820")
    rb = board.read_back(timeout=5)
    assert rb is not None and rb.code == "5820"


def test_unplug_and_replug_the_board_shows_the_right_state_again(rig):
    sim, board, events = rig
    board.show(STATE)
    assert wait_for(lambda: shows(sim, board.layout, STATE))
    sim.unplug()
    assert wait_for(lambda: board.state is DeviceState.LOST)
    later = BoardState(tracks=(TrackPegs(60, 45), TrackPegs(52, 40)))
    board.show(later)  # shown while unplugged: must not block or be lost
    sim.replug()  # a USB-powered board restarts: dark, new boot id
    assert wait_for(lambda: shows(sim, board.layout, later))
    assert wait_for(lambda: board.state is DeviceState.IDLE)  # the Connected is dispatched
    states = [e.data["state"] for e in events if e.kind == "state"]
    assert "lost" in states and states[-1] == "idle"
    assert board.describe()["reconnects"] == 1


def test_reboot_of_the_board_gets_the_whole_state_again(rig):
    sim, board, events = rig
    board.show(STATE)
    assert wait_for(lambda: shows(sim, board.layout, STATE))
    new_id = sim.reboot()
    assert wait_for(lambda: shows(sim, board.layout, STATE))
    assert board.describe()["boot_id"] == new_id
    assert any(e.kind == "connected" and e.data["new_boot"] for e in events)


def test_board_that_stops_answering_is_lost_then_recovers(rig):
    sim, board, _ = rig
    sim.stop_answering()
    assert wait_for(lambda: board.state is DeviceState.LOST, timeout=15)
    assert board.read_back(timeout=0.2) is None
    sim.resume_answering()
    board.show(STATE)
    assert wait_for(lambda: board.state is DeviceState.IDLE, timeout=15)
    assert wait_for(lambda: shows(sim, board.layout, STATE), timeout=15)


@pytest.mark.parametrize("fault", ["drop", "corrupt"])
@pytest.mark.parametrize("direction", ["to_board", "to_host"])
def test_dropped_or_corrupted_bytes_are_recovered(rig, fault, direction):
    sim, board, _ = rig
    getattr(sim, f"{fault}_next")(5, direction)
    board.show(STATE)
    assert wait_for(lambda: shows(sim, board.layout, STATE))
    rb = board.read_back(timeout=5)
    assert rb is not None and rb.tracks == STATE.tracks


PANEL_WORDS = ("undo", "undo_held", "button", "encoder")


def panel_events(events: list[DeviceEvent]) -> list[tuple[str, dict]]:
    return [(e.kind, {k: v for k, v in e.data.items() if k != "seq"}) for e in events
            if e.kind in PANEL_WORDS]


def test_board_buttons_arrive_once_in_order_in_the_input_panels_words(rig):
    sim, board, events = rig
    sim.drop_next(40, "to_host")  # the first tries are lost on the way
    for button in (2, 0, 1):  # track 2's button, undo, track 1's button
        sim.press(button)
    assert wait_for(lambda: len(panel_events(events)) >= 3)
    assert panel_events(events) == [("button", {"track": 1}), ("undo", {}),
                                    ("button", {"track": 0})]
    assert all(e.device == "board" for e in events)


def test_holding_the_boards_undo_is_undo_held_from_the_hold_time_on():
    layout = BoardLayout()
    clock = SystemClock()
    with BoardSimulator(layout, clock) as sim:
        board = SerialPegBoard(sim.open_pty(), layout, clock, hold_s=2.0)
        events: list[DeviceEvent] = []
        board.subscribe(events.append)
        board.start()
        try:
            assert wait_for(lambda: board.state is DeviceState.IDLE)
            sim.hold_undo(1.5)  # shorter than hold_s: an undo, as on the Pi's button
            sim.hold_undo(3.2)
            assert wait_for(lambda: len(panel_events(events)) >= 2)
            assert wait_for(lambda: sim.firmware._events == [])  # every event acknowledged
            assert panel_events(events) == [("undo", {}), ("undo_held", {"seconds": 2.0})]
        finally:
            board.stop()


def test_show_refuses_a_state_the_layout_cannot_show(rig):
    _, board, _ = rig
    with pytest.raises(BoardError, match="pairing code"):
        board.show(BoardState(code="x1"))


def test_missing_port_is_absent_and_retried_until_it_appears():
    layout = BoardLayout()
    sim = BoardSimulator(layout, SystemClock())
    path = sim.open_pty()
    sim.unplug()
    board = SerialPegBoard(path, layout, SystemClock(), backoff=Backoff(0.02, 0.1))
    try:
        board.start()  # never raises for a missing board
        assert wait_for(lambda: board.state is DeviceState.ABSENT)
        board.show(STATE)
        sim.replug()
        assert wait_for(lambda: shows(sim, layout, STATE))
    finally:
        board.stop()
        sim.close()
    assert board.state is DeviceState.STOPPED
    board.stop()  # idempotent


@pytest.mark.parametrize(("board_speaks", "fix"), [
    (PROTOCOL_VERSION - 1, "run `crib board flash`"), (PROTOCOL_VERSION + 1, "update the daemon"),
])
def test_protocol_mismatch_is_a_fault_naming_the_side_to_update(board_speaks, fix):
    layout = BoardLayout()
    sim = BoardSimulator(layout, SystemClock(), protocol=board_speaks)
    board = SerialPegBoard(sim.open_pty(), layout, SystemClock())
    try:
        board.start()
        assert wait_for(lambda: board.state is DeviceState.FAULT)
        assert board.describe()["fault"] == (
            f"the board firmware speaks protocol {board_speaks}, this daemon speaks "
            f"{PROTOCOL_VERSION}: {fix}")
    finally:
        board.stop()
        sim.close()


def test_transport_writes_in_order_and_opens_exclusively():
    loop = SerialTransport("loop://")
    loop.open()
    for chunk in (b"first ", b"second ", b"third"):
        loop.send(chunk)
    loop.flush()
    got = b""
    while len(got) < 18:
        got += loop.read(0.05)
    assert got == b"first second third"
    loop.close()
    sim = BoardSimulator(BoardLayout(), SystemClock())
    try:
        a, b = SerialTransport(sim.open_pty()), SerialTransport(sim.pty_name or "")
        a.open()
        with pytest.raises(SerialLinkError, match="cannot open board port"):
            b.open()  # the same pty is locked by the first opener
        a.close()
    finally:
        sim.close()
    with pytest.raises(SerialLinkError):
        SerialTransport(os.path.join("/nonexistent", "ttyX")).open()
