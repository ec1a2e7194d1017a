"""The host link's one state (LinkState) and its transition table."""

from __future__ import annotations

import pytest

from hardware.board.link import (
    RECEIVE,
    TRANSITIONS,
    Acked,
    DeviceInfo,
    HostLink,
    LinkState,
    Msg,
)
from hardware.board.protocol import PROTOCOL_VERSION, encode_frame


def hello(link: HostLink, now: float, boot: int = 1) -> None:
    info = DeviceInfo(PROTOCOL_VERSION, 6, 244, boot, 2, 120, 2000, "GRB")
    link.receive_data(encode_frame(Msg.DEV_HELLO, link._seq, info.encode()), now)


def test_a_link_goes_hello_connected_lost_and_back_and_says_so_in_one_state():
    link = HostLink()
    assert link.state is LinkState.STOPPED and link.next_deadline() is None
    link.connection_made(0.0)
    link.poll(0.0)
    assert link.state is LinkState.HELLO and not link.connected
    hello(link, 0.01)
    assert link.state is LinkState.CONNECTED and link.connected and not link.lost
    link.poll(10.0)  # silent for ten seconds
    assert link.state is LinkState.LOST and link.lost and not link.connected
    link.connection_lost()  # unplugged while lost ...
    link.connection_made(11.0)  # ... and back: still lost until the board answers
    assert link.state is LinkState.LOST
    hello(link, 11.01, boot=2)
    assert link.state is LinkState.CONNECTED
    hello(link, 11.02, boot=2)
    link.receive_data(encode_frame(Msg.DEV_HELLO, 0, b"\x01\x00\x03"), 11.03)  # protocol 1
    assert link.state is LinkState.REFUSED and "run `crib board flash`" in link.refused
    assert link.next_deadline() is None
    link.connection_made(12.0)  # a new port (flashed meanwhile): judged afresh
    assert link.state is LinkState.HELLO and link.refused is None


def test_a_change_outside_the_table_is_refused():
    link = HostLink()
    assert LinkState.LOST not in TRANSITIONS[LinkState.REFUSED]
    link.state = LinkState.REFUSED
    with pytest.raises(RuntimeError, match="from refused to lost"):
        link._to(LinkState.LOST)
    assert set(TRANSITIONS) == set(LinkState)


def test_every_state_says_what_each_board_message_does():
    board_messages = {m for m in Msg if m >= 0x80}
    assert set(RECEIVE) == {(s, m) for s in LinkState for m in board_messages}


@pytest.mark.parametrize("state", [s for s in LinkState if s is not LinkState.CONNECTED])
def test_an_answer_before_the_hello_is_stale_in_every_state_but_connected(state):
    link = HostLink()
    link.connection_made(0.0)
    link.poll(0.0)
    hello(link, 0.01)
    link.request_ping()
    link.poll(2.0)  # a ping in flight
    seq = link._seq
    link.state = state
    events = link.receive_data(encode_frame(Msg.DEV_ACK, seq, b""), 2.01)
    assert not any(isinstance(e, Acked) for e in events) and link.stats.stale == 1
    link.state = LinkState.CONNECTED
    events = link.receive_data(encode_frame(Msg.DEV_ACK, seq, b""), 2.02)
    assert any(isinstance(e, Acked) and e.type is Msg.PING for e in events)


def test_a_heartbeat_of_another_boot_says_hello_again_only_when_connected():
    link = HostLink()
    link.connection_made(0.0)
    link.poll(0.0)
    hello(link, 0.01, boot=1)
    beat = (7).to_bytes(4, "big") + b"\x00"  # boot 7: it restarted, its hello was lost
    link.state = LinkState.DEGRADED
    link.receive_data(encode_frame(Msg.DEV_HEARTBEAT, 0, beat), 0.02)
    assert link.state is LinkState.DEGRADED
    link.state = LinkState.CONNECTED
    link.receive_data(encode_frame(Msg.DEV_HEARTBEAT, 0, beat), 0.03)
    assert link.state is LinkState.HELLO
