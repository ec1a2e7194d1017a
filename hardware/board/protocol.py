"""The board's serial link, sans-I/O: bytes in, events out; commands in, bytes to send out.

No pyserial, no threads, no clock: every method that needs the time takes `now` (seconds,
monotonic). `HostLink` is the host half; the device half is `hardware.board.device`.

Wire: each frame is COBS(type, seq, payload..., crc16_hi, crc16_lo) followed by 0x00, at most
64 bytes. CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF; `binascii.crc_hqx`) covers type, seq
and payload. One host message is in flight at a time; the device answers each (an ACK or the
reply named below, with the same seq); the host retransmits the same frame after an adaptive
timeout (25 ms at first, doubled per timeout up to 5 s). The board state is sent whole, so a
duplicate or a retransmit is harmless. Device events carry their own sequence numbers in the
seq field; the host acknowledges each with EVENT_ACK and the device resends until it does.
Both sides send a heartbeat about once a second; three missed ones mark the peer lost.
"""

from __future__ import annotations

import binascii
import enum
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field

from hardware.board import cobs
from hardware.errors import ProtocolError
from hardware.interfaces import BoardState, TrackPegs

PROTOCOL_VERSION = 1
MAX_WIRE = 64  # bytes on the wire per frame, 0x00 delimiter included
MAX_RAW = MAX_WIRE - 2  # COBS adds one byte to frames under 254 bytes, plus the delimiter
MAX_PAYLOAD = MAX_RAW - 4  # type, seq, crc16
LEDS_PER_CHUNK = 18  # 2 + 18 * 3 = 56 payload bytes
HEARTBEAT_S = 1.0
MISSES_FOR_LOST = 3
RTO_INITIAL = 0.025
RTO_MAX = 5.0
PALETTE_IDS = ("classic", "colorblind")


class Msg(enum.IntEnum):
    """Message types. Host to device below 0x80, device to host from 0x80."""

    HELLO = 0x01  # [protocol] -> DEV_HELLO
    STATE = 0x02  # board state -> ACK
    READ_INFO = 0x03  # -> DEV_INFO
    READ_LEDS = 0x04  # [offset u16, count u8] -> DEV_LEDS
    PING = 0x05  # heartbeat -> ACK
    EVENT_ACK = 0x06  # [event seq]; no answer
    TEST = 0x07  # [r, g, b] light every LED -> ACK
    DEV_HELLO = 0x81  # [protocol, build u16, leds u16, boot id u32, tracks, holes]
    DEV_ACK = 0x82  # [status (0 ok, 1 refused), reason utf-8...]
    DEV_INFO = 0x83  # [boot id u32, frame crc32 u32, leds u16, board state...]
    DEV_LEDS = 0x84  # [offset u16, r, g, b, ...]
    DEV_HEARTBEAT = 0x85  # [boot id u32, events waiting]
    DEV_EVENT = 0x86  # seq = event seq; [kind, arg]


REPLY_TO = {Msg.HELLO: Msg.DEV_HELLO, Msg.READ_INFO: Msg.DEV_INFO, Msg.READ_LEDS: Msg.DEV_LEDS}
EVENT_KINDS = {1: "button"}


@dataclass(frozen=True, slots=True)
class Frame:
    """One good frame."""

    type: Msg
    seq: int
    payload: bytes = b""


@dataclass(frozen=True, slots=True)
class Garbled:
    """Bytes dropped, and why ("cobs", "crc", "too_short", "too_long", "unknown_type", ...)."""

    reason: str
    detail: str


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data`."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode_frame(mtype: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame ready for the wire. Raises ProtocolError if it would pass 64 bytes."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {len(payload)} bytes for type {mtype:#04x} passes "
                            f"the {MAX_PAYLOAD}-byte limit")
    raw = bytes((mtype, seq & 0xFF)) + payload
    raw += crc16(raw).to_bytes(2, "big")
    return cobs.encode(raw) + b"\x00"


class FrameReader:
    """Splits a byte stream at 0x00 and checks each frame; never raises on bad bytes."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | Garbled]:
        """Feed received bytes; returns the frames and garbled pieces completed by them."""
        out: list[Frame | Garbled] = []
        for byte in data:
            if byte:
                if len(self._buf) < MAX_WIRE - 1:
                    self._buf.append(byte)
                elif not self._overflow:
                    self._overflow = True
                    out.append(Garbled("too_long", f"no delimiter within {MAX_WIRE} bytes"))
                continue
            chunk, overflow = bytes(self._buf), self._overflow
            self._buf.clear()
            self._overflow = False
            if overflow or not chunk:
                continue  # the rest of an over-long piece, or an idle delimiter
            out.append(self._check(chunk))
        return out

    @staticmethod
    def _check(chunk: bytes) -> Frame | Garbled:
        try:
            raw = cobs.decode(chunk)
        except ProtocolError as exc:
            return Garbled("cobs", str(exc))
        if len(raw) < 4:
            return Garbled("too_short", f"{len(raw)} bytes, a frame has at least 4")
        body, crc = raw[:-2], int.from_bytes(raw[-2:], "big")
        if crc16(body) != crc:
            return Garbled("crc", f"CRC {crc:#06x} does not match {crc16(body):#06x}")
        try:
            mtype = Msg(body[0])
        except ValueError:
            return Garbled("unknown_type", f"message type {body[0]:#04x}")
        return Frame(mtype, body[1], bytes(body[2:]))


# --- payloads -------------------------------------------------------------------------------


def encode_state(state: BoardState) -> bytes:
    """The board state as a STATE payload (at most 15 bytes). Raises ProtocolError."""
    if len(state.tracks) > 3:
        raise ProtocolError(f"{len(state.tracks)} tracks; the link carries at most 3")
    if state.palette not in PALETTE_IDS:
        raise ProtocolError(f"palette {state.palette!r} is not one of {PALETTE_IDS}")
    winner = 0 if state.winner is None else state.winner + 1
    if not 0 <= winner <= 3:
        raise ProtocolError(f"winner {state.winner} is not a track 0..2")
    code = state.code or ""
    if state.code is not None and (not code.isdigit() or not code.isascii() or len(code) > 12):
        raise ProtocolError(f"pairing code {state.code!r} must be 1 to 12 digits")
    flags = PALETTE_IDS.index(state.palette) | len(state.tracks) << 1 | winner << 3
    flags |= (state.code is not None) << 5
    out = bytearray((flags, _byte(state.brightness, "brightness"), _byte(state.target, "target")))
    for t, pegs in enumerate(state.tracks):
        out += bytes((_byte(pegs.front, f"track {t} front"), _byte(pegs.back, f"track {t} back")))
    if state.code is not None:
        digits = [int(c) for c in code] + ([0xF] if len(code) % 2 else [])
        out.append(len(code))
        out += bytes(digits[i] << 4 | digits[i + 1] for i in range(0, len(digits), 2))
    return bytes(out)


def decode_state(payload: bytes) -> BoardState:
    """Undo `encode_state`. Raises ProtocolError naming what is wrong."""
    if len(payload) < 3:
        raise ProtocolError(f"board state of {len(payload)} bytes; at least 3 needed")
    flags, brightness, target = payload[0], payload[1], payload[2]
    if flags & 0xC0 or flags & 1 >= len(PALETTE_IDS):
        raise ProtocolError(f"board state flags {flags:#04x} use unknown bits")
    ntracks, winner, has_code = flags >> 1 & 3, flags >> 3 & 3, flags >> 5 & 1
    need = 3 + 2 * ntracks
    if len(payload) < need + has_code:
        raise ProtocolError(f"board state of {len(payload)} bytes is short of {need + has_code}")
    tracks = tuple(
        TrackPegs(front=payload[3 + 2 * t], back=payload[4 + 2 * t]) for t in range(ntracks)
    )
    code = None
    rest = payload[need:]
    if has_code:
        n = rest[0]
        packed = rest[1:]
        if not 1 <= n <= 12 or len(packed) != (n + 1) // 2:
            raise ProtocolError(f"pairing code of {n} digits in {len(packed)} bytes")
        nibbles = [x for b in packed for x in (b >> 4, b & 0xF)][:n]
        if any(d > 9 for d in nibbles):
            raise ProtocolError("pairing code has a nibble that is not a digit")
        code = "".join(str(d) for d in nibbles)
    elif rest:
        raise ProtocolError(f"{len(rest)} stray bytes after the board state")
    if winner > ntracks:
        raise ProtocolError(f"winner track {winner - 1} is not among {ntracks} tracks")
    return BoardState(
        tracks=tracks, target=target, brightness=brightness,
        palette=PALETTE_IDS[flags & 1], code=code, winner=winner - 1 if winner else None,
    )


def _byte(value: int, name: str) -> int:
    if not 0 <= value <= 255:
        raise ProtocolError(f"{name} {value} does not fit in a byte (0..255)")
    return value


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the board says in its hello."""

    protocol: int
    build: int
    led_count: int
    boot_id: int
    tracks: int
    holes: int

    def encode(self) -> bytes:
        return (
            bytes((self.protocol,)) + self.build.to_bytes(2, "big")
            + self.led_count.to_bytes(2, "big") + self.boot_id.to_bytes(4, "big")
            + bytes((self.tracks, self.holes))
        )

    @classmethod
    def decode(cls, payload: bytes) -> DeviceInfo:
        """Raises ProtocolError for a hello of the wrong size (from protocol 1 on)."""
        if len(payload) < 1:
            raise ProtocolError("empty hello")
        if payload[0] == PROTOCOL_VERSION and len(payload) != 11:
            raise ProtocolError(f"hello of {len(payload)} bytes; protocol 1 sends 11")
        if len(payload) < 11:  # another protocol: keep what is known, the caller refuses it
            return cls(payload[0], 0, 0, 0, 0, 0)
        return cls(
            protocol=payload[0], build=int.from_bytes(payload[1:3], "big"),
            led_count=int.from_bytes(payload[3:5], "big"),
            boot_id=int.from_bytes(payload[5:9], "big"), tracks=payload[9], holes=payload[10],
        )


@dataclass(frozen=True, slots=True)
class ReadInfo:
    """The board's answer to READ_INFO: its boot, frame checksum and the state it holds."""

    boot_id: int
    frame_crc: int
    led_count: int
    state: BoardState

    def encode(self) -> bytes:
        return (
            self.boot_id.to_bytes(4, "big") + self.frame_crc.to_bytes(4, "big")
            + self.led_count.to_bytes(2, "big") + encode_state(self.state)
        )

    @classmethod
    def decode(cls, payload: bytes) -> ReadInfo:
        if len(payload) < 13:
            raise ProtocolError(f"read info of {len(payload)} bytes; at least 13 needed")
        return cls(
            boot_id=int.from_bytes(payload[0:4], "big"),
            frame_crc=int.from_bytes(payload[4:8], "big"),
            led_count=int.from_bytes(payload[8:10], "big"), state=decode_state(payload[10:]),
        )


def frame_crc(frame: bytes | bytearray) -> int:
    """The checksum of an LED frame buffer the board reports (CRC-32)."""
    return zlib.crc32(frame) & 0xFFFFFFFF


def seq_newer(seq: int, last: int | None) -> bool:
    """True if `seq` comes after `last` in 8-bit serial-number arithmetic."""
    return last is None or 1 <= (seq - last) % 256 <= 127


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


HostEvent = (
    Connected | Refused | Lost | StateShown | CommandFailed | Acked | DeviceInput | Readback
    | Garbled
)


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

    frames_in: int = 0
    frames_out: int = 0
    bytes_out: int = 0
    retransmits: int = 0
    stale: int = 0
    garbled: Counter[str] = field(default_factory=Counter)
    last_state_bytes: int = 0


class HostLink:
    """The host half of the link. Feed it bytes and time; send what it gives you."""

    def __init__(self, *, expect_leds: int | None = None) -> None:
        self.expect_leds = expect_leds
        self.reader = FrameReader()
        self.stats = LinkStats()
        self.device: DeviceInfo | None = None
        self.connected = False
        self.lost = False
        self.refused: str | None = None
        self.rto = RTO_INITIAL
        self.srtt: float | None = None
        self._out = bytearray()
        self._seq = 0
        self._inflight: _Pending | None = None
        self._started = False
        self._last_rx = 0.0
        self._last_ping = 0.0
        self._desired: BoardState | None = None
        self._version = 0
        self._shown_version = 0
        self._queue: deque[tuple[Msg, bytes]] = deque()
        self._last_event: int | None = None
        self._rb_wanted = False
        self._rb_info: ReadInfo | None = None
        self._rb_leds: list[tuple[int, int, int]] = []
        self._rb_tries = 0

    # commands --------------------------------------------------------------------------

    def connection_made(self, now: float) -> None:
        """A (new) port is open: start over with a hello; the state will be sent again."""
        self.reader = FrameReader()
        self.connected = False
        self.refused = None
        self._inflight = None
        self._queue.clear()
        self._rb_info = None
        self._started = True
        self._last_rx = now
        self._out += b"\x00"  # ends any half frame the board holds from before
        self._shown_version = -1 if self._desired is not None else 0

    def connection_lost(self) -> None:
        """The port went away (unplugged): nothing is in flight any more."""
        self._started = False
        self.connected = False
        self._inflight = None
        self._rb_info = None
        self._out.clear()

    def show(self, state: BoardState) -> int:
        """Make the board show `state` (the newest replaces any unsent one); returns its version.

        Raises ProtocolError if the state cannot be encoded.
        """
        encode_state(state)
        self._desired = state
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
        if not self._started or self.refused:
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
            self.stats.frames_in += 1
            try:
                self._handle(item, now, events)
            except ProtocolError as exc:
                self.stats.garbled["bad_payload"] += 1
                events.append(Garbled("bad_payload", f"{item.type.name}: {exc}"))
        events += self.poll(now)
        return events

    def poll(self, now: float) -> list[HostEvent]:
        """Run timers (retransmit, heartbeat, lost) and start the next message."""
        events: list[HostEvent] = []
        if not self._started or self.refused:
            return events
        if now - self._last_rx > HEARTBEAT_S * MISSES_FOR_LOST and not self.lost:
            was = self.connected
            self.lost = True
            self.connected = False
            self._inflight = None
            self._rb_info = None
            if was or self.device is not None:
                events.append(Lost(f"no answer for {now - self._last_rx:.1f} s "
                                   f"({MISSES_FOR_LOST} heartbeats missed)"))
        p = self._inflight
        if p is not None and now >= p.sent + self.rto:
            self.stats.retransmits += 1
            p.tries += 1
            p.sent = now
            self.rto = min(self.rto * 2, RTO_MAX)
            self._write(p.frame)
        if self._inflight is None:
            self._send_next(now)
        return events

    # internals -------------------------------------------------------------------------

    def _write(self, frame: bytes) -> None:
        self._out += frame
        self.stats.frames_out += 1
        self.stats.bytes_out += len(frame)

    def _send(self, mtype: Msg, payload: bytes, now: float, tag: int = 0) -> None:
        self._seq = (self._seq + 1) & 0xFF
        frame = encode_frame(mtype, self._seq, payload)
        self._inflight = _Pending(mtype, self._seq, frame, now, now, tag=tag)
        if mtype is Msg.STATE:
            self.stats.last_state_bytes = len(frame)
        self._write(frame)

    def _send_next(self, now: float) -> None:
        if not self.connected:
            self._send(Msg.HELLO, bytes((PROTOCOL_VERSION,)), now)
        elif self.state_pending:
            assert self._desired is not None
            self._send(Msg.STATE, encode_state(self._desired), now, tag=self._version)
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
        if f.type < 0x80:
            raise ProtocolError(f"host-bound stream carries host message {f.type.name}")
        self._last_rx = now
        if f.type is Msg.DEV_HELLO:
            self._on_hello(f, now, events)
        elif f.type is Msg.DEV_HEARTBEAT:
            if len(f.payload) != 5:
                raise ProtocolError(f"heartbeat of {len(f.payload)} bytes, not 5")
            boot = int.from_bytes(f.payload[:4], "big")
            if self.connected and self.device and boot != self.device.boot_id:
                self.connected = False  # rebooted and its hello was lost: hello again
                self._inflight = None
        elif f.type is Msg.DEV_EVENT:
            if len(f.payload) != 2:
                raise ProtocolError(f"event of {len(f.payload)} bytes, not 2")
            self._out += encode_frame(Msg.EVENT_ACK, 0, bytes((f.seq,)))
            if seq_newer(f.seq, self._last_event):
                self._last_event = f.seq
                kind = EVENT_KINDS.get(f.payload[0], f"kind{f.payload[0]}")
                events.append(DeviceInput(f.seq, kind, f.payload[1]))
            else:
                self.stats.stale += 1
        elif not self.connected:
            self.stats.stale += 1  # answers from before the hello
        elif f.type is Msg.DEV_ACK:
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
        elif f.type is Msg.DEV_INFO:
            if self._matches(f, Msg.DEV_INFO):
                self._complete(now)
                self._rb_info = ReadInfo.decode(f.payload)
                self._rb_leds = []
        elif f.type is Msg.DEV_LEDS:
            if not self._matches(f, Msg.DEV_LEDS):
                return
            p, _ = self._complete(now)
            off, rgb = int.from_bytes(f.payload[:2], "big"), f.payload[2:]
            if off != p.tag or len(rgb) % 3 or self._rb_info is None:
                raise ProtocolError(f"LED chunk at {off} with {len(rgb)} bytes, asked {p.tag}")
            self._rb_leds += [tuple(rgb[i : i + 3]) for i in range(0, len(rgb), 3)]  # type: ignore[misc]
            if len(self._rb_leds) >= self._rb_info.led_count:
                info, leds = self._rb_info, tuple(self._rb_leds)
                self._rb_info = None
                flat = bytes(c for rgb3 in leds for c in rgb3)
                ok = frame_crc(flat) == info.frame_crc
                if not ok and self._rb_tries < 3:  # the frame changed mid-read: read again
                    self._rb_tries += 1
                    self._rb_wanted = True
                else:
                    events.append(Readback(info, leds, ok))
        else:
            raise ProtocolError(f"unexpected {f.type.name}")

    def _on_hello(self, f: Frame, now: float, events: list[HostEvent]) -> None:
        info = DeviceInfo.decode(f.payload)
        self.refused = None  # judged afresh: the board may have been flashed since
        if self._inflight is not None and self._inflight.type is Msg.HELLO:
            if f.seq == self._inflight.seq:
                self._complete(now)
        if info.protocol != PROTOCOL_VERSION:
            older = "host" if info.protocol > PROTOCOL_VERSION else "board firmware"
            self.refused = (
                f"the board speaks protocol {info.protocol} and this host speaks "
                f"{PROTOCOL_VERSION}: update the {older} so both match"
            )
        elif self.expect_leds is not None and info.led_count != self.expect_leds:
            self.refused = (
                f"the board has {info.led_count} LEDs ({info.tracks} tracks of {info.holes} "
                f"holes) but the layout needs {self.expect_leds}: set the board's tracks and "
                "holes in the configuration to match it"
            )
        if self.refused:
            self._inflight = None
            self.connected = False
            events.append(Refused(self.refused))
            return
        new_boot = self.device is not None and info.boot_id != self.device.boot_id
        if new_boot or not self.connected:
            self._last_event = None if new_boot else self._last_event
            self._shown_version = -1 if self._desired is not None else 0  # send it all again
            if self._inflight is not None and self._inflight.type is not Msg.HELLO:
                self._inflight = None
        if new_boot:
            self._rb_info = None
        fresh = new_boot or not self.connected
        self.device = info
        self.connected = True
        self.lost = False
        self._last_ping = now
        if fresh:
            events.append(Connected(info, new_boot))
