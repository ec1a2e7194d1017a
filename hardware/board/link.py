"""The host half of the board's link, sans-I/O: bytes in, events out; commands in, bytes out.

No pyserial, no threads, no clock: every method that needs the time takes `now` (seconds,
monotonic). The wire format is `hardware.board.protocol`, the very module the firmware runs;
this module adds the host's types: the `Msg` enum, `DeviceInfo`, `ReadInfo`, the events and
`HostLink`. The host retransmits an unanswered message after an adaptive timeout (25 ms at
first, doubled per timeout up to RTO_MAX, 1 s, so the board is right within about 2 s of a
link healing). A message still unanswered after DEGRADED_TRIES tries while the board's
heartbeats arrive means bytes to the board are being lost: the link says `Degraded` and
starts over with a fresh hello.
"""

from __future__ import annotations

import enum
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from hardware.board import protocol as wire
from hardware.board.protocol import (
    LEDS_PER_CHUNK,
    MAX_PAYLOAD,
    MAX_WIRE,
    MISSES_FOR_LOST,
    PALETTE_IDS,
    PROTOCOL_VERSION,
    Frame,
    FrameReader,
    Garbled,
    crc16,
    encode_frame,
    frame_crc,
    seq_newer,
)
from hardware.errors import ProtocolError
from hardware.interfaces import BoardState, TrackPegs

HEARTBEAT_S = wire.HEARTBEAT_MS / 1000
# What a read-back proves, in the words the page, the API and `crib board test` use: the
# controller's frame buffer, never light (a dead or miswired strip reads back the same).
READ_BACK_MEANS = ("the board's controller holds the same frame; a strip cannot report its "
                   "LEDs - check them by eye with crib board walk")
RTO_INITIAL = 0.025
RTO_MAX = 1.0
DEGRADED_TRIES = 6  # tries of one message, unanswered while heartbeats arrive: one-way link

__all__ = [
    "LEDS_PER_CHUNK", "MAX_PAYLOAD", "MAX_WIRE", "PALETTE_IDS", "PROTOCOL_VERSION", "Frame",
    "FrameReader", "Garbled", "crc16", "encode_frame", "frame_crc", "seq_newer",
]


class Msg(enum.IntEnum):
    """Message types (the ints of `hardware.board.protocol`). Host to board below 0x80."""

    HELLO = wire.HELLO
    STATE = wire.STATE
    READ_INFO = wire.READ_INFO
    READ_LEDS = wire.READ_LEDS
    PING = wire.PING
    EVENT_ACK = wire.EVENT_ACK
    TEST = wire.TEST
    MAINTENANCE = wire.MAINTENANCE
    DEV_HELLO = wire.DEV_HELLO
    DEV_ACK = wire.DEV_ACK
    DEV_INFO = wire.DEV_INFO
    DEV_LEDS = wire.DEV_LEDS
    DEV_HEARTBEAT = wire.DEV_HEARTBEAT
    DEV_EVENT = wire.DEV_EVENT


REPLY_TO = {Msg.HELLO: Msg.DEV_HELLO, Msg.READ_INFO: Msg.DEV_INFO, Msg.READ_LEDS: Msg.DEV_LEDS}
EVENT_KINDS = {wire.EVENT_BUTTON: "button", wire.EVENT_HOLDING: "holding",
               wire.EVENT_HELD: "held"}


def to_board_state(state: wire.State) -> BoardState:
    """The firmware's plain State as the host's BoardState."""
    return BoardState(
        tracks=tuple(TrackPegs(front=p.front, back=p.back) for p in state.tracks),
        target=state.target, brightness=state.brightness, palette=state.palette,
        code=state.code, winner=state.winner, lines=tuple(state.lines),
    )


def encode_state(state: BoardState) -> bytes:
    """The board state as a STATE payload. Raises ProtocolError naming the field."""
    payload: bytes = wire.encode_state(state)
    return payload


def decode_state(payload: bytes) -> BoardState:
    """Undo `encode_state`. Raises ProtocolError naming what is wrong."""
    return to_board_state(wire.decode_state(payload))


def version_sentence(board: int, host: int = PROTOCOL_VERSION) -> str:
    """What to do when the board and this daemon speak different protocols."""
    fix = "run `crib board flash`" if board < host else "update the daemon"
    return (f"the board firmware speaks protocol {board}, this daemon speaks {host}: {fix}")


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the board says in its hello."""

    protocol: int
    build: int
    led_count: int
    boot_id: int
    tracks: int
    holes: int
    budget_ma: int = 0
    colour_order: str = "RGB"
    wire_hash: int = field(default_factory=wire.wire_hash)  # the board's wire format
    fault: str = ""  # a wrong setting in the board's config.py, named ("" when none)

    def encode(self) -> bytes:
        payload: bytes = wire.encode_hello(
            self.protocol, self.build, self.led_count, self.boot_id, self.tracks, self.holes,
            self.budget_ma, self.colour_order, self.fault, self.wire_hash)
        return payload

    @classmethod
    def decode(cls, payload: bytes) -> DeviceInfo:
        """Raises ProtocolError for a hello of the wrong size (of this protocol)."""
        return cls(*wire.decode_hello(payload))


@dataclass(frozen=True, slots=True)
class ReadInfo:
    """The board's answer to READ_INFO: its boot, frame checksum, power cap and state."""

    boot_id: int
    frame_crc: int
    led_count: int
    state: BoardState
    budget_ma: int = 0
    drawn_ma: int = 0
    dim: int = 256  # the cap's scale of the frame, 256 = not dimmed
    waiting: bool = False  # the board shows "waiting for the Pi"

    @property
    def dim_percent(self) -> int:
        return self.dim * 100 // 256

    def encode(self) -> bytes:
        payload: bytes = wire.encode_info(
            self.boot_id, self.frame_crc, self.led_count, self.budget_ma, self.drawn_ma,
            self.dim, wire.INFO_FLAG_WAITING if self.waiting else 0, encode_state(self.state))
        return payload

    @classmethod
    def decode(cls, payload: bytes) -> ReadInfo:
        boot, crc, leds, budget, drawn, dim, flags, state = wire.decode_info(payload)
        return cls(boot, crc, leds, to_board_state(state), budget, drawn, dim,
                   bool(flags & wire.INFO_FLAG_WAITING))


# --- host events ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Connected:
    """The hello was answered. `new_boot` when the board restarted since the last hello."""

    info: DeviceInfo
    new_boot: bool


@dataclass(frozen=True, slots=True)
class Refused:
    """The board cannot be used as it is; `reason` names the fix."""

    reason: str


@dataclass(frozen=True, slots=True)
class Lost:
    """The board stopped answering; the link keeps retrying the hello."""

    reason: str


@dataclass(frozen=True, slots=True)
class Degraded:
    """The board's heartbeats arrive but it does not answer: bytes to it are being lost.

    The link starts over with a fresh hello (retried with the capped back-off)."""

    reason: str


@dataclass(frozen=True, slots=True)
class StateShown:
    """The board acknowledged a state; `version` counts `show` calls."""

    version: int
    rtt: float | None


@dataclass(frozen=True, slots=True)
class CommandFailed:
    """The board refused a message (its reason), or the message was dropped."""

    type: Msg
    reason: str


@dataclass(frozen=True, slots=True)
class Acked:
    """A PING or TEST was acknowledged."""

    type: Msg
    rtt: float | None


@dataclass(frozen=True, slots=True)
class DeviceInput:
    """A button or other input on the board (delivered once, in order)."""

    seq: int
    kind: str
    arg: int


@dataclass(frozen=True, slots=True)
class Readback:
    """The board's frame buffer, read in chunks, and the state it says it shows."""

    info: ReadInfo
    leds: tuple[tuple[int, int, int], ...]
    consistent: bool  # the chunks match the board's frame checksum


class BoardInputs:
    """The board's button events in the input panel's words (`InputPanel`): "undo",
    "undo_held" {seconds}, "button" {track}, so the daemon treats both panels alike.

    The board reports how long undo is held; `hold_s` (the daemon's one `undo_hold_s`, the
    same as for the Pi's undo button and pairing) decides: a hold reported while the
    button is down is "undo_held" once it reaches `hold_s`; a release before that is
    "undo". Raises ValueError for a hold time that is not above 0.
    """

    def __init__(self, hold_s: float = 3.0) -> None:
        if not hold_s > 0:
            raise ValueError(f"undo hold time must be above 0 s, got {hold_s}")
        self.hold_s = hold_s
        self._held = False  # "undo_held" already said for this press of undo

    def reset(self) -> None:
        """The board restarted: a press it was timing is gone."""
        self._held = False

    def translate(self, ev: DeviceInput) -> list[tuple[str, dict[str, float | int]]]:
        """(kind, data) for the panel's vocabulary; an unknown kind keeps its name."""
        if ev.kind == "button":
            if ev.arg == wire.BUTTON_UNDO:
                self._held = False
                return [("undo", {})]
            return [("button", {"track": ev.arg - 1})]
        if ev.kind in ("holding", "held"):
            seconds = ev.arg / 10
            released = ev.kind == "held"
            if self._held:  # said already for this press
                self._held = not released
                return []
            if seconds >= self.hold_s:
                self._held = not released
                return [("undo_held", {"seconds": seconds})]
            return [("undo", {})] if released else []
        return [(ev.kind, {"arg": ev.arg})]


HostEvent = (
    Connected | Refused | Lost | Degraded | StateShown | CommandFailed | Acked | DeviceInput
    | Readback | Garbled
)


class LinkState(enum.Enum):
    """Where the link is: one state, not a set of flags that could contradict each other."""

    STOPPED = "stopped"  # no port open
    HELLO = "hello"  # port open, saying hello
    CONNECTED = "connected"  # the hello was answered
    LOST = "lost"  # three heartbeats missed; saying hello again
    DEGRADED = "degraded"  # heartbeats arrive, answers do not; saying hello again
    REFUSED = "refused"  # the board cannot be used as it is (`HostLink.refused` says why)


S = LinkState
# Every change the link makes (a state may always stay as it is).
TRANSITIONS: dict[LinkState, frozenset[LinkState]] = {
    S.STOPPED: frozenset({S.HELLO, S.LOST, S.DEGRADED, S.CONNECTED, S.REFUSED}),
    S.HELLO: frozenset({S.CONNECTED, S.REFUSED, S.LOST, S.DEGRADED, S.STOPPED}),
    S.CONNECTED: frozenset({S.HELLO, S.LOST, S.DEGRADED, S.REFUSED, S.STOPPED}),
    S.LOST: frozenset({S.CONNECTED, S.REFUSED, S.STOPPED}),
    S.DEGRADED: frozenset({S.CONNECTED, S.REFUSED, S.LOST, S.STOPPED}),
    S.REFUSED: frozenset({S.CONNECTED, S.HELLO, S.STOPPED}),
}


@dataclass(slots=True)
class _Pending:
    type: Msg
    seq: int
    frame: bytes
    first_sent: float
    sent: float
    tries: int = 1
    tag: int = 0  # the state version for STATE, the LED offset for READ_LEDS


@dataclass(slots=True)
class LinkStats:
    """Counters for `describe()` and the benchmark."""

    retransmits: int = 0
    stale: int = 0
    resets: int = 0  # fresh hellos after a one-way link
    garbled: Counter[str] = field(default_factory=Counter)
    last_state_bytes: int = 0


class HostLink:
    """The host half of the link. Feed it bytes and time; send what it gives you."""

    def __init__(self, *, expect_leds: int | None = None) -> None:
        self.expect_leds = expect_leds
        self.reader = FrameReader()
        self.stats = LinkStats()
        self.device: DeviceInfo | None = None
        self.state = LinkState.STOPPED
        self._resume = LinkState.HELLO  # the state a new port starts in (lost stays lost)
        self.refused: str | None = None  # why, in REFUSED
        self.rto = RTO_INITIAL
        self.srtt: float | None = None
        self._out = bytearray()
        self._seq = 0
        self._inflight: _Pending | None = None
        self._last_rx = 0.0
        self._last_ping = 0.0
        self._desired: BoardState | None = None
        self._desired_payload = b""  # encode_state(_desired): encoded once, by `show`
        self._version = 0
        self._shown_version = 0
        self._queue: deque[tuple[Msg, bytes]] = deque()
        self._last_event: int | None = None
        self._rb_wanted = False
        self._rb_info: ReadInfo | None = None
        self._rb_leds: list[tuple[int, int, int]] = []
        self._rb_tries = 0

    @property
    def connected(self) -> bool:
        return self.state is LinkState.CONNECTED

    @property
    def lost(self) -> bool:
        return self.state is LinkState.LOST

    @property
    def degraded(self) -> bool:
        return self.state is LinkState.DEGRADED

    def _to(self, new: LinkState) -> None:
        """Change state. Raises RuntimeError for a change TRANSITIONS does not have."""
        if new is not self.state and new not in TRANSITIONS[self.state]:
            raise RuntimeError(f"the board link cannot go from {self.state.value} to "
                               f"{new.value}")
        self.state = new

    # commands --------------------------------------------------------------------------

    def connection_made(self, now: float) -> None:
        """A (new) port is open: start over with a hello; the state will be sent again."""
        self.reader = FrameReader()
        self.refused = None
        if self.state is LinkState.STOPPED:
            start, self._resume = self._resume, LinkState.HELLO
        elif self.state in (LinkState.LOST, LinkState.DEGRADED):
            start = self.state  # still saying hello, still lost
        else:
            start = LinkState.HELLO
        self._to(start)
        self._inflight = None
        self._queue.clear()
        self._rb_info = None
        self._last_rx = now
        self._out += b"\x00"  # ends any half frame the board holds from before
        self._shown_version = -1 if self._desired is not None else 0

    def connection_lost(self) -> None:
        """The port went away (unplugged): nothing is in flight any more."""
        self._resume = self.state if self.state in (LinkState.LOST, LinkState.DEGRADED) else (
            LinkState.HELLO)
        self._to(LinkState.STOPPED)
        self._inflight = None
        self._rb_info = None
        self._out.clear()

    def show(self, state: BoardState) -> int:
        """Make the board show `state` (the newest replaces any unsent one); returns its version.

        Raises ProtocolError if the state cannot be encoded.
        """
        payload = encode_state(state)
        self._desired, self._desired_payload = state, payload
        self._version += 1
        return self._version

    def request_readback(self) -> None:
        """Read the board's frame buffer; a `Readback` event follows."""
        self._rb_wanted = True
        self._rb_tries = 0

    def request_test(self, rgb: tuple[int, int, int]) -> None:
        """Light every LED in one colour until the next state; an `Acked(TEST)` follows."""
        self._queue.append((Msg.TEST, bytes(rgb)))

    def request_ping(self) -> None:
        """Send a heartbeat now (an `Acked(PING)` with the round-trip time follows)."""
        self._queue.append((Msg.PING, b""))

    @property
    def state_pending(self) -> bool:
        """True while the newest state has not been acknowledged."""
        return self._desired is not None and self._shown_version != self._version

    def data_to_send(self) -> bytes:
        """The bytes to write, in order; empties the buffer."""
        data = bytes(self._out)
        self._out.clear()
        return data

    def next_deadline(self) -> float | None:
        """When `poll` next has work (a retransmit, heartbeat or lost check)."""
        if self.state in (LinkState.STOPPED, LinkState.REFUSED):
            return None
        times = [self._last_rx + HEARTBEAT_S * MISSES_FOR_LOST]
        if self._inflight is not None:
            times.append(self._inflight.sent + self.rto)
        elif self.connected:
            times.append(self._last_ping + HEARTBEAT_S)
        return min(times)

    # input -----------------------------------------------------------------------------

    def receive_data(self, data: bytes, now: float) -> list[HostEvent]:
        """Feed received bytes; returns what happened. Never raises on bad bytes."""
        events: list[HostEvent] = []
        for item in self.reader.feed(data):
            if isinstance(item, Garbled):
                self.stats.garbled[item.reason] += 1
                events.append(item)
                continue
            try:
                self._handle(item, now, events)
            except ProtocolError as exc:
                self.stats.garbled["bad_payload"] += 1
                events.append(Garbled("bad_payload", f"{Msg(item.type).name}: {exc}"))
        events += self.poll(now)
        return events

    def poll(self, now: float) -> list[HostEvent]:
        """Run timers (retransmit, heartbeat, lost) and start the next message."""
        events: list[HostEvent] = []
        if self.state in (LinkState.STOPPED, LinkState.REFUSED):
            return events
        self._check_lost(now, events)
        self._check_one_way(now, events)
        p = self._inflight
        if p is not None and now >= p.sent + self.rto:
            self.stats.retransmits += 1
            p.tries += 1
            p.sent = now
            self.rto = min(self.rto * 2, RTO_MAX)
            self._write(b"\x00" + p.frame)  # a delimiter first: noise may have eaten the last
        if self._inflight is None:
            self._send_next(now)
        return events

    def _check_lost(self, now: float, events: list[HostEvent]) -> None:
        """MISSES_FOR_LOST heartbeats without a byte from the board: lost, hello again."""
        if now - self._last_rx <= HEARTBEAT_S * MISSES_FOR_LOST or self.lost:
            return
        was = self.connected
        self._to(LinkState.LOST)
        self._inflight = None
        self._rb_info = None
        if was or self.device is not None:
            events.append(Lost(f"no answer for {now - self._last_rx:.1f} s "
                               f"({MISSES_FOR_LOST} heartbeats missed)"))

    def _check_one_way(self, now: float, events: list[HostEvent]) -> None:
        """A message unanswered DEGRADED_TRIES times while the board's heartbeats arrive: the
        way to the board is broken. Say so, and start over with a fresh hello."""
        p = self._inflight
        if (p is None or now < p.sent + self.rto or p.tries < DEGRADED_TRIES or self.lost
                or self._last_rx <= p.first_sent):
            return
        self.stats.resets += 1
        self.rto = RTO_INITIAL  # the hello starts quick again; the cap still holds
        self._inflight = None
        self._rb_info = None
        self._shown_version = -1 if self._desired is not None else 0
        if not self.degraded:
            self._to(LinkState.DEGRADED)
            events.append(Degraded(
                f"the board's heartbeats arrive but {p.type.name} went unanswered "
                f"{p.tries} times: bytes to the board are being lost; starting over "
                "with a hello"))

    # internals -------------------------------------------------------------------------

    def _write(self, frame: bytes) -> None:
        self._out += frame

    def _send(self, mtype: Msg, payload: bytes, now: float, tag: int = 0) -> None:
        self._seq = (self._seq + 1) & 0xFF
        frame = encode_frame(mtype, self._seq, payload)
        self._inflight = _Pending(mtype, self._seq, frame, now, now, tag=tag)
        if mtype is Msg.STATE:
            self.stats.last_state_bytes = len(frame)
        self._write(frame)

    def _send_next(self, now: float) -> None:
        if not self.connected:
            self._send(Msg.HELLO, wire.encode_host_hello(), now)
        elif self.state_pending:
            assert self._desired is not None
            self._send(Msg.STATE, self._desired_payload, now, tag=self._version)
        elif self._rb_info is not None and len(self._rb_leds) < self._rb_info.led_count:
            off = len(self._rb_leds)
            n = min(LEDS_PER_CHUNK, self._rb_info.led_count - off)
            self._send(Msg.READ_LEDS, off.to_bytes(2, "big") + bytes((n,)), now, tag=off)
        elif self._rb_wanted:
            self._rb_wanted = False
            self._send(Msg.READ_INFO, b"", now)
        elif self._queue:
            mtype, payload = self._queue.popleft()
            self._send(mtype, payload, now)
        elif now - self._last_ping >= HEARTBEAT_S:
            self._send(Msg.PING, b"", now)
            self._last_ping = now

    def _complete(self, now: float) -> tuple[_Pending, float | None]:
        p = self._inflight
        assert p is not None
        self._inflight = None
        rtt = None
        if p.tries == 1:  # Karn: a retransmitted message says nothing about the delay
            rtt = now - p.first_sent
            self.srtt = rtt if self.srtt is None else 0.875 * self.srtt + 0.125 * rtt
        base = self.srtt if self.srtt is not None else RTO_INITIAL
        self.rto = min(max(RTO_INITIAL, 2 * base), RTO_MAX)
        return p, rtt

    def _matches(self, frame: Frame, expect: Msg) -> bool:
        p = self._inflight
        if p is None or p.seq != frame.seq or REPLY_TO.get(p.type, Msg.DEV_ACK) is not expect:
            self.stats.stale += 1  # a duplicate or late answer: already handled
            return False
        return True

    def _handle(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """One frame from the board: what it does is RECEIVE's, by (the link's state, the
        frame's type). Raises ProtocolError for a host message or a payload that is wrong."""
        mtype = Msg(f.type)
        if mtype < 0x80:
            raise ProtocolError(f"host-bound stream carries host message {mtype.name}")
        self._last_rx = now
        handler = RECEIVE.get((self.state, mtype))
        if handler is None:
            raise ProtocolError(f"unexpected {mtype.name}")
        handler(self, Frame(mtype, f.seq, f.payload), now, events)

    # what a frame does (RECEIVE, below the class, says in which state) -------------------

    def _stale(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """An answer from before the hello, or a duplicate: already handled."""
        self.stats.stale += 1

    def _on_heartbeat(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """The board is there (the time of it is all that counts before the hello)."""
        self._heartbeat_boot(f)

    def _on_heartbeat_connected(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """A heartbeat of another boot: it restarted and its hello was lost, so hello again."""
        assert self.device is not None
        if self._heartbeat_boot(f) != self.device.boot_id:
            self._to(LinkState.HELLO)
            self._inflight = None

    @staticmethod
    def _heartbeat_boot(f: Frame) -> int:
        """The boot id a heartbeat carries. Raises ProtocolError for a wrong size."""
        if len(f.payload) != 5:
            raise ProtocolError(f"heartbeat of {len(f.payload)} bytes, not 5")
        return int.from_bytes(f.payload[:4], "big")

    def _on_event(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """A button: acknowledged always, reported once, in order."""
        if len(f.payload) != 2:
            raise ProtocolError(f"event of {len(f.payload)} bytes, not 2")
        self._out += encode_frame(Msg.EVENT_ACK, 0, bytes((f.seq,)))
        if not seq_newer(f.seq, self._last_event):
            self.stats.stale += 1
            return
        self._last_event = f.seq
        kind = EVENT_KINDS.get(f.payload[0], f"kind{f.payload[0]}")
        events.append(DeviceInput(f.seq, kind, f.payload[1]))

    def _on_ack(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """The answer to a STATE, PING, TEST or MAINTENANCE: done, or refused with a reason."""
        if not self._matches(f, Msg.DEV_ACK):
            return
        p, rtt = self._complete(now)
        if f.payload[:1] not in (b"", b"\x00"):
            reason = f.payload[1:].decode("utf-8", "replace") or "refused"
            if p.type is Msg.STATE:
                self._shown_version = p.tag  # resending the same state would fail again
            events.append(CommandFailed(p.type, reason))
        elif p.type is Msg.STATE:
            self._shown_version = max(self._shown_version, p.tag)
            events.append(StateShown(p.tag, rtt))
        else:
            events.append(Acked(p.type, rtt))

    def _on_info(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """The first answer of a read-back: the LED chunks follow."""
        if self._matches(f, Msg.DEV_INFO):
            self._complete(now)
            self._rb_info = ReadInfo.decode(f.payload)
            self._rb_leds = []

    def _on_leds(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """A chunk of the read-back; the last one checked against the board's checksum.

        Raises ProtocolError for a chunk that is not the one asked for."""
        if not self._matches(f, Msg.DEV_LEDS):
            return
        p, _ = self._complete(now)
        off, rgb = int.from_bytes(f.payload[:2], "big"), f.payload[2:]
        if off != p.tag or len(rgb) % 3 or self._rb_info is None:
            raise ProtocolError(f"LED chunk at {off} with {len(rgb)} bytes, asked {p.tag}")
        self._rb_leds += [tuple(rgb[i : i + 3]) for i in range(0, len(rgb), 3)]  # type: ignore[misc]
        if len(self._rb_leds) < self._rb_info.led_count:
            return
        info, leds = self._rb_info, tuple(self._rb_leds)
        self._rb_info = None
        ok = frame_crc(bytes(c for rgb3 in leds for c in rgb3)) == info.frame_crc
        if not ok and self._rb_tries < 3:  # the frame changed mid-read: read again
            self._rb_tries += 1
            self._rb_wanted = True
        else:
            events.append(Readback(info, leds, ok))

    def _on_hello(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        """The board's hello: connected (again, or after a restart), or refused with the fix."""
        info = DeviceInfo.decode(f.payload)
        if self._inflight is not None and self._inflight.type is Msg.HELLO:
            if f.seq == self._inflight.seq:
                self._complete(now)
        # judged afresh: the board may have been flashed since
        self.refused = refusal(info, self.expect_leds)
        if self.refused:
            self._inflight = None
            self._to(LinkState.REFUSED)
            events.append(Refused(self.refused))
            return
        new_boot = self.device is not None and info.boot_id != self.device.boot_id
        fresh = new_boot or not self.connected
        if fresh:
            self._last_event = None if new_boot else self._last_event
            self._shown_version = -1 if self._desired is not None else 0  # send it all again
            if self._inflight is not None and self._inflight.type is not Msg.HELLO:
                self._inflight = None
        if new_boot:
            self._rb_info = None
        self.device = info
        self._to(LinkState.CONNECTED)
        self._last_ping = now
        if fresh:
            events.append(Connected(info, new_boot))


Receiver = Callable[[HostLink, Frame, float, list[HostEvent]], None]
# What a frame from the board does, by (the link's state, the frame's type), as h11 keys its
# transitions: a hello, a heartbeat and a button count in every state; an answer counts only
# once connected (before, it answers a message of an earlier hello). A (state, type) that is
# not here is a protocol error.
_ANY_STATE: dict[Msg, Receiver] = {
    Msg.DEV_HELLO: HostLink._on_hello,
    Msg.DEV_HEARTBEAT: HostLink._on_heartbeat,
    Msg.DEV_EVENT: HostLink._on_event,
    Msg.DEV_ACK: HostLink._stale,
    Msg.DEV_INFO: HostLink._stale,
    Msg.DEV_LEDS: HostLink._stale,
}
RECEIVE: dict[tuple[LinkState, Msg], Receiver] = {
    **{(state, mtype): handler for state in LinkState for mtype, handler in _ANY_STATE.items()},
    (S.CONNECTED, Msg.DEV_HEARTBEAT): HostLink._on_heartbeat_connected,
    (S.CONNECTED, Msg.DEV_ACK): HostLink._on_ack,
    (S.CONNECTED, Msg.DEV_INFO): HostLink._on_info,
    (S.CONNECTED, Msg.DEV_LEDS): HostLink._on_leds,
}


def refusal(info: DeviceInfo, expect_leds: int | None) -> str | None:
    """Why a board that says `info` in its hello cannot be used, with the fix; else None."""
    if info.protocol != PROTOCOL_VERSION:
        return version_sentence(info.protocol)
    if info.fault:
        return (f"the board's config.py is wrong: {info.fault}; fix it "
                "(hardware/board/firmware/config.py), then run `crib board flash`")
    if info.wire_hash != wire.wire_hash():
        from hardware.board.firmware.core import FIRMWARE_BUILD

        return wire.wire_sentence(info.wire_hash, wire.wire_hash(), info.build, FIRMWARE_BUILD)
    if expect_leds is not None and info.led_count != expect_leds:
        return (f"the board has {info.led_count} LEDs ({info.tracks} tracks of {info.holes} "
                f"holes) but the layout needs {expect_leds}: set the board's tracks and "
                "holes in the configuration to match it")
    return None
