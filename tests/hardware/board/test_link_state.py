"""The host link's one state (LinkState) and its transition table."""

from __future__ import annotations

import pytest

from hardware.board.link import TRANSITIONS, DeviceInfo, HostLink, LinkState, Msg
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
