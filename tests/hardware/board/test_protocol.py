"""The link protocol, sans-I/O: framing, every kind of damage, retransmission, events.

The board half is the firmware's own core (`hardware.board.firmware.core`) under CPython; the
same byte-level cases run under a real MicroPython in test_firmware_micropython.py."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.board import cobs
from hardware.board.layout import BoardLayout
from hardware.board.link import (
    RTO_INITIAL,
    RTO_MAX,
    Connected,
    DeviceInput,
    Lost,
    Msg,
    Readback,
    Refused,
    StateShown,
    decode_state,
    encode_state,
)
from hardware.board.protocol import (
    MAX_WIRE,
    PROTOCOL_VERSION,
    Frame,
    FrameReader,
    Garbled,
    crc16,
    encode_frame,
    encode_hello,
)
from hardware.errors import ProtocolError
from hardware.interfaces import BoardState, TrackPegs

from .helpers import Wire

STATE = BoardState(tracks=(TrackPegs(12, 10), TrackPegs(7, 0)), brightness=200)


def test_crc16_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1  # the published check value of CRC-16/CCITT-FALSE


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_never_emits_zero(data):
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert cobs.decode(encoded) == data


@pytest.mark.parametrize("bad", [b"\x05\x11", b"\x02\x00", b"\x00"])
def test_cobs_refuses_bad_blocks(bad):
    with pytest.raises(ProtocolError, match="COBS"):
        cobs.decode(bad)


scores = st.integers(0, 1000)
states = st.builds(
    BoardState,
    tracks=st.lists(st.builds(TrackPegs, scores, scores), max_size=3).map(tuple),
    target=st.integers(1, 1000),
    brightness=st.integers(0, 255),
    palette=st.sampled_from(["classic", "colorblind"]),
    code=st.none() | st.text("0123456789", min_size=1, max_size=12),
    winner=st.none() | st.integers(0, 2),
    lines=st.lists(st.integers(1, 999), max_size=3).map(tuple),
)


@given(states)
def test_state_round_trips_16_bit_scores_and_fits_one_frame(state):
    if state.winner is not None and state.winner >= len(state.tracks):
        with pytest.raises(ProtocolError):
            decode_state(encode_state(state))
        return
    assert decode_state(encode_state(state)) == state
    assert len(encode_frame(Msg.STATE, 255, encode_state(state))) <= MAX_WIRE


@given(st.lists(st.builds(TrackPegs, scores, scores), min_size=2, max_size=2).map(tuple),
       st.integers(1, 1000), st.sampled_from([(), (31,), (61,), (91, 61), (751, 501)]),
       st.none() | st.text("0123456789", min_size=1, max_size=6))
def test_a_two_track_update_is_at_most_32_bytes_on_the_wire(tracks, target, lines, code):
    state = BoardState(tracks=tracks, target=target, lines=lines, code=code, winner=1)
    assert len(encode_frame(Msg.STATE, 255, encode_state(state))) <= 32


def test_scores_above_255_reach_the_board():
    w = Wire()
    w.run(0.01)
    state = BoardState(tracks=(TrackPegs(612, 600), TrackPegs(999, 990)), target=1000,
                       lines=(751, 501))
    w.host.show(state)
    w.run(0.02)
    assert w.shown() == state
    assert w.device.frame == w.layout.render(state)


def test_encode_state_refuses_what_the_link_cannot_hold():
    with pytest.raises(ProtocolError, match="track 0 front 40000"):
        encode_state(BoardState(tracks=(TrackPegs(40000, 0),)))
    with pytest.raises(ProtocolError, match="skunk lines"):
        encode_state(BoardState(lines=(1, 2, 3, 4)))
    with pytest.raises(ProtocolError, match="digits"):
        encode_state(BoardState(code="12a4"))


def test_frames_are_at_most_64_bytes():
    with pytest.raises(ProtocolError, match="limit"):
        encode_frame(Msg.DEV_LEDS, 1, bytes(59))
    assert len(encode_frame(Msg.DEV_LEDS, 1, bytes(range(1, 59)))) <= MAX_WIRE


def test_reader_fed_byte_by_byte_gets_every_frame():
    frames = [encode_frame(Msg.STATE, i, encode_state(STATE)) for i in range(5)]
    reader = FrameReader()
    got = [item for byte in b"".join(frames) for item in reader.feed(bytes([byte]))]
    assert got == [Frame(Msg.STATE, i, encode_state(STATE)) for i in range(5)]


def test_every_single_byte_corruption_is_dropped_with_a_reason_and_the_next_frame_survives():
    good = encode_frame(Msg.STATE, 3, encode_state(STATE))
    after = encode_frame(Msg.PING, 4)
    for pos, flip in itertools.product(range(len(good) - 1), (0x01, 0x80, 0xFF)):
        bad = bytearray(good)
        bad[pos] ^= flip
        items = FrameReader().feed(bytes(bad) + after)
        assert items[-1] == Frame(Msg.PING, 4), (pos, flip)
        damaged = items[:-1]
        # a corrupted byte may become 0x00 and split the frame; each piece is refused
        assert damaged and all(isinstance(i, Garbled) for i in damaged), (pos, flip, items)
        assert all(i.reason in {"cobs", "crc", "too_short"} for i in damaged)


def test_truncated_frames_are_dropped_at_every_length():
    good = encode_frame(Msg.STATE, 3, encode_state(STATE))
    for cut in range(1, len(good) - 1):
        items = FrameReader().feed(good[:cut] + b"\x00" + good)
        assert isinstance(items[0], Garbled) and items[0].reason in {"cobs", "crc", "too_short"}
        assert items[1] == Frame(Msg.STATE, 3, encode_state(STATE))


def test_garbage_long_runs_and_unknown_types_are_counted_not_raised():
    rng = random.Random(5)
    reader = FrameReader()
    noise = bytes(rng.randrange(1, 256) for _ in range(500))
    unknown = encode_frame(0x42, 1)
    items = reader.feed(noise + b"\x00" + unknown + encode_frame(Msg.PING, 9))
    reasons = [i.reason for i in items if isinstance(i, Garbled)]
    assert reasons == ["too_long", "unknown_type"]
    assert items[-1] == Frame(Msg.PING, 9)


def test_random_noise_never_crashes_either_half():
    rng = random.Random(11)
    w = Wire()
    for _ in range(300):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        w.device.receive_data(blob, w.now)
        w.host.receive_data(blob, w.now)
    w.run(0.05)
    w.host.show(STATE)
    w.run(0.2)
    assert w.shown() == STATE


def test_hello_then_state_reaches_the_frame_buffer_fed_byte_by_byte():
    w = Wire()
    w.byte_by_byte = True
    w.run(0.01)
    assert [type(e) for e in w.events if not isinstance(e, Garbled)][0] is Connected
    w.host.show(STATE)
    w.run(0.01)
    assert w.shown() == STATE
    assert w.device.frame == w.layout.render(STATE)
    assert w.of(StateShown)[-1].version == 1
    assert w.host.stats.last_state_bytes <= 32


def test_lost_state_frame_is_retransmitted_with_a_doubling_timeout():
    w = Wire()
    w.run(0.01)
    dropped = []

    def drop_first_three(data: bytes) -> bytes:
        if data and len(dropped) < 3:
            dropped.append(w.now)
            return b""
        return data

    w.to_board = drop_first_three
    w.host.show(STATE)
    w.step()
    assert w.host.rto == pytest.approx(RTO_INITIAL, abs=0.01)
    w.run(0.5)
    assert w.shown() == STATE
    assert w.host.stats.retransmits == 3
    gaps = [round(b - a, 3) for a, b in zip(dropped, dropped[1:], strict=False)]
    assert gaps == [pytest.approx(0.025, abs=0.0015), pytest.approx(0.05, abs=0.0015)]
    assert w.of(StateShown)[-1].rtt is None  # Karn: no sample from a retransmitted frame


def test_rto_is_capped_at_one_second_and_the_device_is_marked_lost_after_three_beats():
    w = Wire()
    w.run(0.01)
    w.to_board = lambda b: b""
    w.to_host = lambda b: b""
    w.host.show(STATE)
    w.run(3.2, dt=0.01)
    lost = w.of(Lost)
    assert len(lost) == 1 and "3 heartbeats missed" in lost[0].reason
    w.run(30, dt=0.05)
    assert w.host.rto == RTO_MAX
    assert len(w.of(Lost)) == 1  # said once
    w.to_board = w.to_host = lambda b: b  # the board answers again
    w.run(2, dt=0.01)  # the back-off is capped: right within 2 s of the link healing
    assert w.host.connected and w.shown() == STATE


def test_duplicated_frames_are_harmless_both_ways():
    w = Wire()
    w.to_board = lambda b: b + b
    w.to_host = lambda b: b + b
    w.run(0.01)
    w.host.show(STATE)
    w.run(0.02)
    w.device.press(4, w.now)
    w.run(0.02)
    assert w.shown() == STATE
    assert [e.arg for e in w.of(DeviceInput)] == [4]
    assert len(w.of(Connected)) == 1
    assert w.host.stats.stale >= 1


def test_an_older_state_arriving_late_does_not_undo_a_newer_one():
    w = Wire()
    w.run(0.01)
    newer = BoardState(tracks=(TrackPegs(20, 12), TrackPegs(7, 0)))
    old_seq, new_seq = (w.host._seq + 1) & 0xFF, (w.host._seq + 2) & 0xFF
    old_frame = encode_frame(Msg.STATE, old_seq, encode_state(STATE))
    new_frame = encode_frame(Msg.STATE, new_seq, encode_state(newer))
    w.device.receive_data(new_frame + old_frame, w.now)  # reordered on the way
    assert w.shown() == newer
    acks = FrameReader().feed(w.device.data_to_send())
    assert [f.seq for f in acks if isinstance(f, Frame) and f.type == Msg.DEV_ACK] == [
        new_seq, old_seq]


def test_reordered_acks_are_ignored_as_stale():
    w = Wire()
    w.run(0.01)
    stale = encode_frame(Msg.DEV_ACK, (w.host._seq - 5) & 0xFF, b"\x00")
    w.host.show(STATE)
    w.host.poll(w.now)
    w.host.receive_data(stale, w.now)
    assert w.host.state_pending
    w.run(0.01)
    assert not w.host.state_pending


def test_newest_state_wins_when_shown_faster_than_acked():
    w = Wire()
    w.run(0.01)
    for front in range(1, 30):
        w.host.show(BoardState(tracks=(TrackPegs(front, front - 1),)))
    w.run(0.02)
    assert w.shown().tracks == (TrackPegs(29, 28),)
    assert w.device.states_applied <= 3  # coalesced, not 29 frames


def test_new_boot_id_sends_the_whole_state_again():
    w = Wire()
    w.run(0.01)
    w.host.show(STATE)
    w.run(0.01)
    w.reboot(boot_id=99)
    assert w.shown() == BoardState()  # dark after a restart
    w.run(0.02)
    assert w.shown() == STATE
    assert w.of(Connected)[-1].new_boot and w.host.device.boot_id == 99


def test_reboot_with_a_lost_hello_is_caught_by_the_heartbeat():
    w = Wire()
    w.run(0.01)
    w.host.show(STATE)
    w.run(0.01)
    w.reboot(boot_id=1234)
    w.device.data_to_send()  # its boot hello is lost on the wire
    w.run(1.5)
    assert w.shown() == STATE and w.host.device.boot_id == 1234


def test_protocol_mismatch_is_refused_with_the_fix():
    w = Wire()
    w.device.hello = encode_hello(PROTOCOL_VERSION + 1, 9, w.layout.led_count, 7, 2, 120,
                                  2000, "GRB")
    w.run(0.01)
    refused = w.of(Refused)
    assert refused and refused[0].reason == (
        f"the board firmware speaks protocol {PROTOCOL_VERSION + 1}, this daemon speaks "
        f"{PROTOCOL_VERSION}: update the daemon")
    assert not w.host.connected
    w.host.show(STATE)
    w.run(0.05)
    assert w.shown() == BoardState()  # nothing sent to a board we cannot talk to


def test_led_count_mismatch_names_the_configuration_fix():
    w = Wire()
    w.host.expect_leds = 124
    w.run(0.01)
    assert "set the board's tracks and holes in the configuration" in w.of(Refused)[0].reason


def test_button_events_are_buffered_until_acked_and_delivered_once_in_order():
    w = Wire()
    w.run(0.01)
    w.to_host = lambda b: b""  # the host hears nothing for a while
    for button in (1, 2, 3):
        w.device.press(button, w.now)
    w.run(0.5)
    assert not w.of(DeviceInput)
    w.to_host = lambda b: b
    w.run(1.5)
    assert [e.arg for e in w.of(DeviceInput)] == [1, 2, 3]
    assert not w.device._events  # all acknowledged


def test_event_ack_lost_means_a_resend_that_is_not_delivered_twice():
    w = Wire()
    w.run(0.01)
    drops = {"n": 0}

    def drop_event_acks(data: bytes) -> bytes:
        frames = [f for f in FrameReader().feed(data) if isinstance(f, Frame)]
        if any(f.type == Msg.EVENT_ACK for f in frames) and drops["n"] < 2:
            drops["n"] += 1
            return b""
        return data

    w.to_board = drop_event_acks
    w.device.press(5, w.now)
    w.run(1.0)
    assert [e.arg for e in w.of(DeviceInput)] == [5]
    assert drops["n"] == 2 and not w.device._events


def test_readback_returns_the_frame_buffer_and_state():
    w = Wire(BoardLayout(tracks=3, holes=60))
    w.run(0.01)
    state = BoardState(tracks=(TrackPegs(95, 80), TrackPegs(5, 0), TrackPegs(121, 100)),
                       code="314")
    w.host.show(state)
    w.host.request_readback()
    w.run(0.1)
    rb = w.of(Readback)[-1]
    assert rb.consistent and rb.info.state == state
    flat = bytes(c for led in rb.leds for c in led)
    assert flat == w.device.frame
    tracks, code = w.layout.decode(rb.leds, rb.info.state)
    assert tracks == state.tracks and code == "314"


def test_bad_payload_from_a_good_frame_is_refused_not_raised():
    w = Wire()
    w.run(0.01)
    w.device.receive_data(encode_frame(Msg.STATE, 50, b"\xff"), w.now)
    items = FrameReader().feed(w.device.data_to_send())
    ack = [f for f in items if isinstance(f, Frame) and f.type == Msg.DEV_ACK][0]
    assert ack.payload[0] == 1 and b"board state" in ack.payload
    assert w.device.garbled["bad_payload"] == 1
    events = w.host.receive_data(encode_frame(Msg.DEV_HEARTBEAT, 0, b"\x01"), w.now)
    assert any(isinstance(e, Garbled) and e.reason == "bad_payload" for e in events)
