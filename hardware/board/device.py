"""The board's microcontroller, as a model a MicroPython or C port follows step by step.

It owns the LED frame buffer (3 bytes per LED), answers the host's messages (see
`protocol.Msg`), sends a heartbeat each second and its hello at boot, and keeps button
events until the host acknowledges them. Like the host half it is sans-I/O: the simulator
(or the firmware's main loop) feeds it bytes and the time and writes out what it returns.
"""

from __future__ import annotations

from collections import Counter, deque

from hardware.board.layout import BoardLayout
from hardware.board.protocol import (
    HEARTBEAT_S,
    LEDS_PER_CHUNK,
    MISSES_FOR_LOST,
    PROTOCOL_VERSION,
    DeviceInfo,
    FrameReader,
    Garbled,
    Msg,
    ReadInfo,
    decode_state,
    encode_frame,
    frame_crc,
    seq_newer,
)
from hardware.errors import BoardError, ProtocolError
from hardware.interfaces import BoardState

FIRMWARE_BUILD = 3
EVENT_BUFFER = 32  # events kept until acknowledged; the oldest go first when it overflows
EVENT_RTO = 0.05  # first resend of an unacknowledged event; doubles up to EVENT_RTO_MAX
EVENT_RTO_MAX = 1.0
EVENT_BUTTON = 1


class BoardFirmware:
    """The device half of the link plus LED rendering.

    `receive_data(bytes, now)`, `poll(now)` and `press(button, now)` change it;
    `data_to_send()` gives the bytes for the wire; `frame` is what the LEDs show.
    """

    def __init__(
        self,
        layout: BoardLayout,
        boot_id: int,
        now: float = 0.0,
        *,
        build: int = FIRMWARE_BUILD,
        protocol: int = PROTOCOL_VERSION,
    ) -> None:
        self.layout = layout
        self.info = DeviceInfo(
            protocol=protocol, build=build, led_count=layout.led_count or 0,
            boot_id=boot_id & 0xFFFFFFFF, tracks=layout.tracks, holes=layout.holes,
        )
        self.frame = bytearray(3 * self.info.led_count)  # all dark at power-on
        self.state = BoardState()
        self.reader = FrameReader()
        self.garbled: Counter[str] = Counter()
        self.states_applied = 0
        self._out = bytearray()
        self._last_state_seq: int | None = None
        self._events: deque[tuple[int, int, int]] = deque()  # (seq, kind, arg)
        self._event_seq = 0
        self._event_sent: float | None = None
        self._event_rto = EVENT_RTO
        self.events_dropped = 0
        self._last_rx = now
        self._last_beat = now
        # Boot: say hello unasked, so a host that is listening learns of the restart at once.
        self._out += b"\x00" + encode_frame(Msg.DEV_HELLO, 0, self.info.encode())

    @property
    def boot_id(self) -> int:
        return self.info.boot_id

    def host_lost(self, now: float) -> bool:
        """True when the host has been silent for three heartbeats."""
        return now - self._last_rx > HEARTBEAT_S * MISSES_FOR_LOST

    def data_to_send(self) -> bytes:
        data = bytes(self._out)
        self._out.clear()
        return data

    def press(self, button: int, now: float) -> int:
        """A button on the board was pressed: queue the event; returns its sequence number."""
        self._event_seq = (self._event_seq + 1) & 0xFF
        if len(self._events) >= EVENT_BUFFER:
            self._events.popleft()
            self.events_dropped += 1
        self._events.append((self._event_seq, EVENT_BUTTON, button & 0xFF))
        self._send_event(now, force=len(self._events) == 1)
        return self._event_seq

    def poll(self, now: float) -> None:
        """Timers: the heartbeat and event resends."""
        if now - self._last_beat >= HEARTBEAT_S:
            self._last_beat = now
            payload = self.info.boot_id.to_bytes(4, "big") + bytes((min(len(self._events), 255),))
            self._out += encode_frame(Msg.DEV_HEARTBEAT, 0, payload)
        self._send_event(now)

    def next_deadline(self) -> float:
        t = self._last_beat + HEARTBEAT_S
        if self._events and self._event_sent is not None:
            t = min(t, self._event_sent + self._event_rto)
        return t

    def receive_data(self, data: bytes, now: float) -> None:
        """Handle received bytes; garbled frames are counted and dropped."""
        for item in self.reader.feed(data):
            if isinstance(item, Garbled):
                self.garbled[item.reason] += 1
                continue
            self._last_rx = now
            try:
                self._handle(item.type, item.seq, item.payload, now)
            except (ProtocolError, BoardError) as exc:
                self.garbled["bad_payload"] += 1
                self._ack(item.seq, refused=str(exc))
        self.poll(now)

    # internals -------------------------------------------------------------------------

    def _ack(self, seq: int, refused: str | None = None) -> None:
        payload = b"\x00" if refused is None else b"\x01" + refused.encode()[:40]
        self._out += encode_frame(Msg.DEV_ACK, seq, payload)

    def _handle(self, mtype: Msg, seq: int, payload: bytes, now: float) -> None:
        if mtype is Msg.HELLO:
            self._last_state_seq = None  # a new host session numbers from anywhere
            self._out += encode_frame(Msg.DEV_HELLO, seq, self.info.encode())
            self._event_sent = None  # resend the oldest waiting event now
        elif mtype is Msg.STATE:
            state = decode_state(payload)
            self.layout.check(state)
            if seq_newer(seq, self._last_state_seq):  # an older copy must not undo a newer
                self._last_state_seq = seq
                self.state = state
                self.layout.render(state, self.frame)
                self.states_applied += 1
            self._ack(seq)
        elif mtype is Msg.PING:
            self._ack(seq)
        elif mtype is Msg.READ_INFO:
            info = ReadInfo(self.info.boot_id, frame_crc(self.frame), self.info.led_count,
                            self.state)
            self._out += encode_frame(Msg.DEV_INFO, seq, info.encode())
        elif mtype is Msg.READ_LEDS:
            if len(payload) != 3:
                raise ProtocolError(f"READ_LEDS of {len(payload)} bytes, not 3")
            off, n = int.from_bytes(payload[:2], "big"), payload[2]
            if not 1 <= n <= LEDS_PER_CHUNK or off + n > self.info.led_count:
                raise ProtocolError(f"LEDs {off}..{off + n - 1} are not 1 to {LEDS_PER_CHUNK} "
                                    f"of the {self.info.led_count} LEDs")
            chunk = off.to_bytes(2, "big") + bytes(self.frame[3 * off : 3 * (off + n)])
            self._out += encode_frame(Msg.DEV_LEDS, seq, chunk)
        elif mtype is Msg.TEST:
            if len(payload) != 3:
                raise ProtocolError(f"TEST of {len(payload)} bytes, not 3 (r, g, b)")
            self.frame[:] = payload * self.info.led_count
            self._ack(seq)
        elif mtype is Msg.EVENT_ACK:
            if len(payload) == 1 and self._events and self._events[0][0] == payload[0]:
                self._events.popleft()
                self._event_sent = None
                self._event_rto = EVENT_RTO
                self._send_event(now, force=True)
        else:
            raise ProtocolError(f"board-bound stream carries board message {mtype.name}")

    def _send_event(self, now: float, force: bool = False) -> None:
        if not self._events:
            return
        due = self._event_sent is None or now >= self._event_sent + self._event_rto
        if not (force or due):
            return
        if self._event_sent is not None and not force:
            self._event_rto = min(self._event_rto * 2, EVENT_RTO_MAX)
        seq, kind, arg = self._events[0]
        self._out += encode_frame(Msg.DEV_EVENT, seq, bytes((kind, arg)))
        self._event_sent = now
