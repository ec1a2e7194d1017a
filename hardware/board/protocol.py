"""The board's wire format, shared word for word by the host and the firmware (MicroPython).

Only the subset of Python both run: no `from __future__`, enum, dataclasses, typing at run
time, zlib or `binascii.crc_hqx`. The host's nicer types (the `Msg` enum, `HostLink`, its
events) are in `hardware.board.link`, built on this module; the firmware's core is
`hardware.board.firmware.core`.

Wire: each frame is COBS(type, seq, payload..., crc16_hi, crc16_lo) followed by 0x00, at most
64 bytes. CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) covers type, seq and payload. One host
message is in flight at a time; the board answers each (an ACK or the reply named below, with
the same seq). The board state is sent whole, so a duplicate or a retransmit is harmless.
Board events carry their own sequence numbers in the seq field; the host acknowledges each
with EVENT_ACK and the board resends until it does. Both sides send a heartbeat about once a
second; three missed ones mark the peer lost.

Protocol 3 (this one) carries scores up to 32767 (targets up to 1000) and the skunk lines,
and the hello carries the wire format's hash (`wire_hash`) and the board's settings fault.
The hash covers the message table, the sizes and the bytes the encoders make of fixed
examples, so a host and a firmware that drifted apart are told which side to update even
when nobody bumped PROTOCOL_VERSION.
"""

# ruff: noqa: UP031  (%-formatting: the firmware's MicroPython runs this module too)

from hardware.board import cobs
from hardware.errors import ProtocolError

PROTOCOL_VERSION = 3
MAX_WIRE = 64  # bytes on the wire per frame, 0x00 delimiter included
MAX_RAW = MAX_WIRE - 2  # COBS adds one byte to frames under 254 bytes, plus the delimiter
MAX_PAYLOAD = MAX_RAW - 4  # type, seq, crc16
LEDS_PER_CHUNK = 18  # 2 + 18 * 3 = 56 payload bytes
HEARTBEAT_MS = 1000
MISSES_FOR_LOST = 3
MAX_SCORE = 0x7FFF  # a score on the wire: one byte below 128, two bytes up to this
MAX_LINES = 3
MAX_CODE_DIGITS = 12
PALETTE_IDS = ("classic", "colorblind")  # wire order
COLOUR_ORDERS = ("RGB", "GRB", "GRBW")  # wire order of the hello's colour-order byte

# Message types. Host to board below 0x80, board to host from 0x80.
HELLO = 0x01  # [protocol, wire hash u32] -> DEV_HELLO
STATE = 0x02  # board state -> DEV_ACK
READ_INFO = 0x03  # -> DEV_INFO
READ_LEDS = 0x04  # [offset u16, count u8] -> DEV_LEDS
PING = 0x05  # heartbeat -> DEV_ACK
EVENT_ACK = 0x06  # [event seq]; no answer
TEST = 0x07  # [r, g, b] light every LED (power-capped) -> DEV_ACK
MAINTENANCE = 0x08  # -> DEV_ACK, then the board restarts into its plain REPL (for flashing)
DEV_HELLO = 0x81  # [protocol, build u16, leds u16, boot u32, tracks, holes, budget u16, order,
#                    wire hash u32, settings fault utf-8...]
DEV_ACK = 0x82  # [status (0 ok, 1 refused), reason utf-8...]
DEV_INFO = 0x83  # [boot u32, frame crc32 u32, leds u16, power (5 bytes), flags, state...]
DEV_LEDS = 0x84  # [offset u16, r, g, b, ...]
DEV_HEARTBEAT = 0x85  # [boot id u32, events waiting]
DEV_EVENT = 0x86  # seq = event seq; [kind, arg]

MSG_NAMES = {
    HELLO: "HELLO", STATE: "STATE", READ_INFO: "READ_INFO", READ_LEDS: "READ_LEDS",
    PING: "PING", EVENT_ACK: "EVENT_ACK", TEST: "TEST", MAINTENANCE: "MAINTENANCE",
    DEV_HELLO: "DEV_HELLO",
    DEV_ACK: "DEV_ACK", DEV_INFO: "DEV_INFO", DEV_LEDS: "DEV_LEDS",
    DEV_HEARTBEAT: "DEV_HEARTBEAT", DEV_EVENT: "DEV_EVENT",
}
EVENT_BUTTON = 1  # [button]: pressed (a track's button, or a short press of undo)
EVENT_HOLDING = 2  # [tenths]: undo is still down, held this long (up to 255)
EVENT_HELD = 3  # [tenths]: undo came up after a hold this long
BUTTON_UNDO = 0  # button numbers: 0 is undo, 1 + t is track t's commit/peg button
HELLO_SIZE = 18  # without the settings fault (a board whose config.py is right sends none)
MAX_FAULT = MAX_PAYLOAD - HELLO_SIZE
INFO_FLAG_WAITING = 1  # the board shows its "waiting for the Pi" pattern

INFO_HEAD = 16  # read info bytes before the state


class Frame:
    """One good frame: `type` (int), `seq`, `payload` (bytes)."""

    __slots__ = ("type", "seq", "payload")

    def __init__(self, mtype, seq, payload=b""):
        self.type = mtype
        self.seq = seq
        self.payload = bytes(payload)

    def __eq__(self, other):
        return (isinstance(other, Frame) and self.type == other.type
                and self.seq == other.seq and self.payload == other.payload)

    def __repr__(self):
        return "Frame(%s, %d, %r)" % (MSG_NAMES.get(self.type, self.type), self.seq,
                                      self.payload)


class Garbled:
    """Bytes dropped, and why ("cobs", "crc", "too_short", "too_long", "unknown_type", ...)."""

    __slots__ = ("reason", "detail")

    def __init__(self, reason, detail):
        self.reason = reason
        self.detail = detail

    def __eq__(self, other):
        return (isinstance(other, Garbled) and self.reason == other.reason
                and self.detail == other.detail)

    def __repr__(self):
        return "Garbled(%r, %r)" % (self.reason, self.detail)


def _crc16_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC16 = _crc16_table()


def crc16(data):
    """CRC-16/CCITT-FALSE of `data` (poly 0x1021, init 0xFFFF; check value 0x29B1)."""
    crc = 0xFFFF
    t = _CRC16
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ t[(crc >> 8) ^ b]
    return crc


def _crc32_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


try:  # CPython and most MicroPython ports have it in C; the loop below is the same CRC
    from binascii import crc32 as _crc32_c
except ImportError:  # pragma: no cover - a port without binascii.crc32
    _crc32_c = None
_CRC32 = None


def crc32(data):
    """CRC-32 (the zlib one) of `data`."""
    global _CRC32
    if _crc32_c is not None:
        return _crc32_c(data) & 0xFFFFFFFF
    if _CRC32 is None:
        _CRC32 = _crc32_table()
    t = _CRC32
    crc = 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def frame_crc(frame):
    """The checksum of an LED frame buffer the board reports (CRC-32)."""
    return crc32(bytes(frame))


def encode_frame(mtype, seq, payload=b""):
    """One frame ready for the wire. Raises ProtocolError if it would pass 64 bytes."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError("payload of %d bytes for type 0x%02x passes the %d-byte limit"
                            % (len(payload), mtype, MAX_PAYLOAD))
    raw = bytearray((mtype, seq & 0xFF))
    raw += payload
    c = crc16(raw)
    raw.append(c >> 8)
    raw.append(c & 0xFF)
    return cobs.encode(raw) + b"\x00"


class FrameReader:
    """Splits a byte stream at 0x00 and checks each frame; never raises on bad bytes."""

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data):
        """Feed received bytes; returns the Frames and Garbled pieces completed by them."""
        out = []
        for byte in data:
            if byte:
                if len(self._buf) < MAX_WIRE - 1:
                    self._buf.append(byte)
                elif not self._overflow:
                    self._overflow = True
                    out.append(Garbled("too_long", "no delimiter within %d bytes" % MAX_WIRE))
                continue
            chunk = bytes(self._buf)
            overflow = self._overflow
            self._buf = bytearray()
            self._overflow = False
            if overflow or not chunk:
                continue  # the rest of an over-long piece, or an idle delimiter
            out.append(check_frame(chunk))
        return out


def check_frame(chunk):
    """One COBS piece (no delimiter) as a Frame, or Garbled with the reason."""
    try:
        raw = cobs.decode(chunk)
    except ValueError as exc:  # ProtocolError; the builtin base works under MicroPython too
        return Garbled("cobs", str(exc))
    if len(raw) < 4:
        return Garbled("too_short", "%d bytes, a frame has at least 4" % len(raw))
    body = raw[:-2]
    crc = raw[-2] << 8 | raw[-1]
    mine = crc16(body)
    if mine != crc:
        return Garbled("crc", "CRC 0x%04x does not match 0x%04x" % (crc, mine))
    if body[0] not in MSG_NAMES:
        return Garbled("unknown_type", "message type 0x%02x" % body[0])
    return Frame(body[0], body[1], body[2:])


def seq_newer(seq, last):
    """True if `seq` comes after `last` in 8-bit serial-number arithmetic."""
    return last is None or 1 <= (seq - last) % 256 <= 127


def u16(data, at):
    return data[at] << 8 | data[at + 1]


def u32(data, at):
    return data[at] << 24 | data[at + 1] << 16 | data[at + 2] << 8 | data[at + 3]


# --- the board state ------------------------------------------------------------------------


class Pegs:
    """One track's two pegs as scores (the firmware's twin of the host's TrackPegs)."""

    __slots__ = ("front", "back")

    def __init__(self, front=0, back=0):
        self.front = front
        self.back = back

    def __eq__(self, other):
        return self.front == other.front and self.back == other.back

    def __repr__(self):
        return "Pegs(%d, %d)" % (self.front, self.back)


class State:
    """What the board shows (the firmware's twin of the host's BoardState; same fields)."""

    def __init__(self, tracks=(), target=121, brightness=128, palette="classic", code=None,
                 winner=None, lines=()):
        self.tracks = tuple(tracks)
        self.target = target
        self.brightness = brightness
        self.palette = palette
        self.code = code
        self.winner = winner
        self.lines = tuple(lines)

    def __repr__(self):
        return "State(%r, target=%d, brightness=%d, palette=%r, code=%r, winner=%r, lines=%r)" % (
            self.tracks, self.target, self.brightness, self.palette, self.code, self.winner,
            self.lines)


def _score(out, value, name):
    if not 0 <= value <= MAX_SCORE:
        raise ProtocolError("%s %d does not fit the link (0..%d)" % (name, value, MAX_SCORE))
    if value < 0x80:
        out.append(value)
    else:
        out.append(0x80 | value >> 8)
        out.append(value & 0xFF)


def _read_score(payload, at):
    if at >= len(payload):
        raise ProtocolError("board state ends inside a score at byte %d" % at)
    b = payload[at]
    if b < 0x80:
        return b, at + 1
    if at + 1 >= len(payload):
        raise ProtocolError("board state ends inside a two-byte score at byte %d" % at)
    return (b & 0x7F) << 8 | payload[at + 1], at + 2


def _is_digits(code):
    for ch in code:
        if ch not in "0123456789":
            return False
    return len(code) > 0


def encode_state(state):
    """A board state (BoardState or State: same fields) as a STATE payload. Raises ProtocolError.

    flags (palette bit 0, tracks bits 1-2, winner+1 bits 3-4, code bit 5, lines bits 6-7),
    brightness, target, per track front and back, the lines, then the code (length and packed
    digits). Scores take one byte below 128, else two.
    """
    tracks = state.tracks
    if len(tracks) > 3:
        raise ProtocolError("%d tracks; the link carries at most 3" % len(tracks))
    if state.palette not in PALETTE_IDS:
        raise ProtocolError("palette %r is not one of %r" % (state.palette, PALETTE_IDS))
    winner = 0 if state.winner is None else state.winner + 1
    if not 0 <= winner <= 3:
        raise ProtocolError("winner %r is not a track 0..2" % (state.winner,))
    lines = tuple(state.lines)
    if len(lines) > MAX_LINES:
        raise ProtocolError("%d skunk lines; the link carries at most %d" % (len(lines), MAX_LINES))
    code = state.code
    if code is not None and (not _is_digits(code) or len(code) > MAX_CODE_DIGITS):
        raise ProtocolError("pairing code %r must be 1 to %d digits" % (code, MAX_CODE_DIGITS))
    if not 0 <= state.brightness <= 255:
        raise ProtocolError("brightness %d does not fit in a byte (0..255)" % state.brightness)
    flags = (PALETTE_IDS.index(state.palette) | len(tracks) << 1 | winner << 3
             | (code is not None) << 5 | len(lines) << 6)
    out = bytearray((flags, state.brightness))
    _score(out, state.target, "target")
    for t in range(len(tracks)):
        _score(out, tracks[t].front, "track %d front" % t)
        _score(out, tracks[t].back, "track %d back" % t)
    for line in lines:
        _score(out, line, "skunk line")
    if code is not None:
        digits = [int(c) for c in code]
        if len(digits) % 2:
            digits.append(0xF)
        out.append(len(code))
        for i in range(0, len(digits), 2):
            out.append(digits[i] << 4 | digits[i + 1])
    return bytes(out)


def decode_state(payload):
    """Undo `encode_state` into a State. Raises ProtocolError naming what is wrong."""
    if len(payload) < 3:
        raise ProtocolError("board state of %d bytes; at least 3 needed" % len(payload))
    flags = payload[0]
    brightness = payload[1]
    ntracks = flags >> 1 & 3
    winner = flags >> 3 & 3
    has_code = flags >> 5 & 1
    nlines = flags >> 6 & 3
    if ntracks > 3:
        raise ProtocolError("board state flags 0x%02x name %d tracks" % (flags, ntracks))
    target, at = _read_score(payload, 2)
    tracks = []
    for _ in range(ntracks):
        front, at = _read_score(payload, at)
        back, at = _read_score(payload, at)
        tracks.append(Pegs(front, back))
    lines = []
    for _ in range(nlines):
        line, at = _read_score(payload, at)
        lines.append(line)
    code = None
    if has_code:
        if at >= len(payload):
            raise ProtocolError("board state of %d bytes is short of its pairing code"
                                % len(payload))
        n = payload[at]
        packed = payload[at + 1:]
        if not 1 <= n <= MAX_CODE_DIGITS or len(packed) != (n + 1) // 2:
            raise ProtocolError("pairing code of %d digits in %d bytes" % (n, len(packed)))
        digits = ""
        for i in range(n):
            d = packed[i // 2] >> 4 if i % 2 == 0 else packed[i // 2] & 0xF
            if d > 9:
                raise ProtocolError("pairing code has a nibble that is not a digit")
            digits += str(d)
        code = digits
    elif at != len(payload):
        raise ProtocolError("%d stray bytes after the board state" % (len(payload) - at))
    if winner > ntracks:
        raise ProtocolError("winner track %d is not among %d tracks" % (winner - 1, ntracks))
    return State(tracks, target, brightness, PALETTE_IDS[flags & 1], code,
                 winner - 1 if winner else None, lines)


# --- hello and read info --------------------------------------------------------------------


def encode_hello(protocol, build, led_count, boot_id, tracks, holes, budget_ma, order,
                 fault="", wire=None):
    """The board's hello payload (the protocol byte always first); `fault` names a bad
    setting in the board's config.py (cut to MAX_FAULT bytes), "" when there is none;
    `wire` is the wire hash to send (None: this module's)."""
    return (bytes((protocol,)) + build.to_bytes(2, "big") + led_count.to_bytes(2, "big")
            + (boot_id & 0xFFFFFFFF).to_bytes(4, "big") + bytes((tracks, holes))
            + budget_ma.to_bytes(2, "big") + bytes((COLOUR_ORDERS.index(order),))
            + (wire_hash() if wire is None else wire).to_bytes(4, "big")
            + fault.encode()[:MAX_FAULT])


def decode_hello(payload):
    """(protocol, build, leds, boot, tracks, holes, budget_ma, order, wire hash, fault).

    Another protocol's hello gives its version (and build where there) and zeros: the caller
    refuses it. Raises ProtocolError for an empty hello, or one of this protocol's bad size.
    """
    if len(payload) < 1:
        raise ProtocolError("empty hello")
    if payload[0] != PROTOCOL_VERSION:
        build = u16(payload, 1) if len(payload) >= 3 else 0
        return (payload[0], build, 0, 0, 0, 0, 0, "RGB", 0, "")
    if len(payload) < HELLO_SIZE:
        raise ProtocolError("hello of %d bytes; protocol %d sends at least %d"
                            % (len(payload), PROTOCOL_VERSION, HELLO_SIZE))
    if payload[13] >= len(COLOUR_ORDERS):
        raise ProtocolError("hello names colour order %d of %d" % (payload[13],
                                                                   len(COLOUR_ORDERS)))
    fault = bytes(payload[HELLO_SIZE:]).decode("utf-8", "replace") if len(payload) > HELLO_SIZE \
        else ""
    return (payload[0], u16(payload, 1), u16(payload, 3), u32(payload, 5), payload[9],
            payload[10], u16(payload, 11), COLOUR_ORDERS[payload[13]], u32(payload, 14), fault)


def encode_host_hello():
    """The host's HELLO payload: its protocol, then its wire hash."""
    return bytes((PROTOCOL_VERSION,)) + wire_hash().to_bytes(4, "big")


def wire_sentence(board_hash, host_hash, board_build, host_build):
    """What to do when both speak this protocol but their wire formats differ (one side
    was changed and the other not): the daemon carries the firmware it matches, so an older
    or equal board build is flashed, a newer one means the daemon is the older side."""
    side = "update the daemon" if board_build > host_build else "run `crib board flash`"
    return ("the board's wire format %08x (firmware build %d) differs from this daemon's "
            "%08x (build %d): %s" % (board_hash, board_build, host_hash, host_build, side))


def encode_info(boot_id, crc, led_count, budget_ma, drawn_ma, dim, flags, state_payload):
    """READ_INFO's answer: boot, frame CRC, LEDs, the power cap and the state it shows.

    `dim` is the share of full light the cap left the last frame, in 1/256 (256 = not
    dimmed); `drawn_ma` the modelled current of what the LEDs show.
    """
    return (boot_id.to_bytes(4, "big") + crc.to_bytes(4, "big") + led_count.to_bytes(2, "big")
            + budget_ma.to_bytes(2, "big") + min(drawn_ma, 0xFFFF).to_bytes(2, "big")
            + bytes((min(dim, 255) if dim < 256 else 255, flags | (dim >= 256) << 7))
            + state_payload)


def decode_info(payload):
    """(boot, crc, leds, budget_ma, drawn_ma, dim 0..256, flags, State). Raises ProtocolError."""
    if len(payload) < INFO_HEAD + 3:
        raise ProtocolError("read info of %d bytes; at least %d needed"
                            % (len(payload), INFO_HEAD + 3))
    flags = payload[15]
    dim = 256 if flags & 0x80 else payload[14]
    return (u32(payload, 0), u32(payload, 4), u16(payload, 8), u16(payload, 10),
            u16(payload, 12), dim, flags & 0x7F, decode_state(payload[INFO_HEAD:]))


# --- the wire format's hash -----------------------------------------------------------------

# Each message's fields, in order (what the encoders above write): part of the hash.
LAYOUTS = (
    (HELLO, "protocol u8, wire_hash u32"),
    (STATE, "flags u8 (palette 0, tracks 1-2, winner+1 3-4, code 5, lines 6-7), brightness u8,"
            " target score, per track front score back score, lines score*, code len u8"
            " bcd*; score u8 <128 else u16|0x8000"),
    (READ_INFO, ""),
    (READ_LEDS, "offset u16, count u8"),
    (PING, ""),
    (EVENT_ACK, "event_seq u8"),
    (TEST, "r u8, g u8, b u8"),
    (MAINTENANCE, ""),
    (DEV_HELLO, "protocol u8, build u16, leds u16, boot u32, tracks u8, holes u8, budget u16,"
                " order u8, wire_hash u32, fault utf8*"),
    (DEV_ACK, "status u8, reason utf8*"),
    (DEV_INFO, "boot u32, crc32 u32, leds u16, budget u16, drawn u16, dim u8, flags u8,"
               " state*"),
    (DEV_LEDS, "offset u16, rgb u8*3*"),
    (DEV_HEARTBEAT, "boot u32, events u8"),
    (DEV_EVENT, "kind u8, arg u8"),
)
_WIRE_HASH = None


def wire_description():
    """The wire format as bytes: the message table and layouts, the limits, and what the
    encoders make of fixed examples (so a change in the code shows, not only in the table)."""
    parts = ["%d" % PROTOCOL_VERSION]
    for mtype, layout in LAYOUTS:
        parts.append("%02x %s: %s" % (mtype, MSG_NAMES[mtype], layout))
    parts.append("wire %d chunk %d hello %d info %d score %d lines %d code %d" % (
        MAX_WIRE, LEDS_PER_CHUNK, HELLO_SIZE, INFO_HEAD, MAX_SCORE, MAX_LINES, MAX_CODE_DIGITS))
    parts.append("palettes %s orders %s" % (",".join(PALETTE_IDS), ",".join(COLOUR_ORDERS)))
    parts.append("events %d %d %d undo %d waiting %d beat %d lost %d" % (
        EVENT_BUTTON, EVENT_HOLDING, EVENT_HELD, BUTTON_UNDO, INFO_FLAG_WAITING, HEARTBEAT_MS,
        MISSES_FOR_LOST))
    state = State((Pegs(300, 288), Pegs(61, 5), Pegs(0, 0)), 1000, 200, "colorblind",
                  "1234567", 1, (751, 501, 91))
    sample = encode_state(state)
    parts.append(sample.hex())
    parts.append(encode_info(0x01020304, 0x0A0B0C0D, 366, 2000, 1234, 200, 1, sample).hex())
    parts.append(encode_frame(DEV_ACK, 0xFE, b"\x01no").hex())
    return "\n".join(parts).encode()


def wire_hash():
    """CRC-32 of `wire_description()` (computed once): the same under MicroPython."""
    global _WIRE_HASH
    if _WIRE_HASH is None:
        _WIRE_HASH = crc32(wire_description())
    return _WIRE_HASH
