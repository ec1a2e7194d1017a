"""`SerialPegBoard`: the host driver of the LED peg board, a `PegBoard` over a serial link.

One worker thread owns the port: it opens it (retrying with backoff), feeds received bytes
and the time to the sans-I/O `HostLink`, and writes what the link gives back, in order.
`show` only records the newest state and wakes the worker, so it never blocks. After a
reconnect or a board reboot (a new boot id) the whole state is sent again. The board's
buttons come out as the input panel's events ("undo", "undo_held" {seconds}, "button"
{track}), judged with `hold_s`, the daemon's one undo hold time.
"""

from __future__ import annotations

import threading
from typing import Any

from hardware.board.base import WorkerDevice
from hardware.board.layout import BoardLayout
from hardware.board.link import (
    Acked,
    BoardInputs,
    CommandFailed,
    Connected,
    Degraded,
    DeviceInput,
    Garbled,
    HostEvent,
    HostLink,
    Lost,
    Msg,
    Readback,
    Refused,
)
from hardware.board.transport import Backoff, SerialTransport
from hardware.errors import BoardError, ProtocolError, SerialLinkError
from hardware.interfaces import (
    BoardReadback,
    BoardState,
    Clock,
    DeviceEvent,
    DeviceState,
)


class SerialPegBoard(WorkerDevice):
    """The peg board behind its microcontroller on `url` (a port path, or a pyserial URL)."""

    def __init__(
        self,
        url: str,
        layout: BoardLayout,
        clock: Clock,
        *,
        transport: SerialTransport | None = None,
        backoff: Backoff | None = None,
        hold_s: float = 3.0,
    ) -> None:
        self.url = url
        self.inputs = BoardInputs(hold_s)
        self.layout = layout
        self.clock = clock
        self.transport = transport or SerialTransport(url)
        self.backoff = backoff or Backoff()
        self.link = HostLink(expect_leds=layout.led_count)
        super().__init__("board", "peg-board", threading.RLock())
        self._ever_connected = False
        self._reconnects = 0
        self._rb_cond = threading.Condition(self._lock)
        self._rb_result: Readback | None = None
        self._rb_gen = 0
        self._rb_waiting = 0  # read_back calls waiting for a Readback
        self._acks: dict[Msg, threading.Event] = {}
        self.last_rtt: float | None = None

    # Device ----------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting in the background; never raises for a missing board."""
        with self._lock:
            if self._running():
                return
            self._status.set(DeviceState.CONNECTING, "opening the port")
            self._spawn()

    def stop(self) -> None:
        """Stop talking to the board (it keeps showing its state); idempotent."""
        self._stop.set()
        self.transport.wake()
        self._halt()
        self.transport.close()
        with self._lock:
            self.link.connection_lost()
            self._rb_cond.notify_all()
        self._status.set(DeviceState.STOPPED, "stopped")

    def describe(self) -> dict[str, Any]:
        with self._lock:
            dev, stats = self.link.device, self.link.stats
            return {
                "state": self._status.state.value,
                "kind": "serial",
                "url": self.url,
                "protocol": dev.protocol if dev else None,
                "firmware_build": dev.build if dev else None,
                "led_count": dev.led_count if dev else None,
                "boot_id": dev.boot_id if dev else None,
                "rtt_ms": round(self.link.srtt * 1000, 2) if self.link.srtt else None,
                "rto_ms": round(self.link.rto * 1000, 1),
                "retransmits": stats.retransmits,
                "garbled": dict(stats.garbled),
                "bytes_per_update": stats.last_state_bytes or None,
                "reconnects": self._reconnects,
                "degraded": self.link.degraded,
                "link_resets": stats.resets,
                "budget_ma": dev.budget_ma if dev else None,
                "colour_order": dev.colour_order if dev else None,
                "fault": self._status.fault,
            }

    # PegBoard --------------------------------------------------------------------------

    def show(self, board: BoardState) -> None:
        """Make the board show `board`; sent and resent in the background.

        Raises BoardError (a ValueError) for a state this layout cannot show.
        """
        self.layout.check(board)
        with self._lock:
            try:
                self.link.show(board)
            except ProtocolError as exc:
                raise BoardError(str(exc)) from exc
        self._kick()

    def read_back(self, timeout: float = 1.0) -> BoardReadback | None:
        """Read the board's LED frame buffer; None if it does not answer within `timeout`."""
        with self._lock:
            if not self.link.connected:
                return None
            self._rb_gen += 1
            gen = self._rb_gen
            self._rb_result = None
            self.link.request_readback()
        self._kick()
        with self._rb_cond:
            self._rb_waiting += 1
            try:
                ok = self._rb_cond.wait_for(
                    lambda: self._rb_result is not None or self._rb_gen != gen
                    or not self.link.connected, timeout)
            finally:
                self._rb_waiting -= 1
            result = self._rb_result if ok and self._rb_gen == gen else None
        if result is None:
            return None
        tracks, code = self.layout.decode(result.leds, result.info.state)
        info = result.info
        return BoardReadback(tracks=tracks, code=code, leds=result.leds, boot_id=info.boot_id,
                             lines=info.state.lines, budget_ma=info.budget_ma,
                             dim_percent=info.dim_percent)

    # extras for `crib board test` -------------------------------------------------------

    def test_pattern(self, rgb: tuple[int, int, int], timeout: float = 2.0) -> bool:
        """Light every LED in `rgb` until the next `show`; True once the board acknowledged."""
        return self._command(Msg.TEST, lambda: self.link.request_test(rgb), timeout)

    def ping(self, timeout: float = 2.0) -> float | None:
        """One heartbeat round trip in seconds, or None if unanswered."""
        if not self._command(Msg.PING, self.link.request_ping, timeout):
            return None
        return self.last_rtt

    def wait_connected(self, timeout: float) -> bool:
        """Wait (real time) until the hello has been answered; False at once when the board
        was refused (its reason is the fault in `describe()`)."""
        with self._rb_cond:
            self._rb_cond.wait_for(
                lambda: self.link.connected or self.link.refused is not None, timeout)
            return self.link.connected

    def _command(self, mtype: Msg, request: Any, timeout: float) -> bool:
        done = threading.Event()
        with self._lock:
            if not self.link.connected:
                return False
            self._acks[mtype] = done
            request()
        self._kick()
        return done.wait(timeout)

    # worker ----------------------------------------------------------------------------

    def _kick(self) -> None:
        self._wake.set()
        self.transport.wake()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.transport.is_open and not self._connect():
                continue
            try:
                self._cycle()
            except SerialLinkError as exc:
                self._disconnected(str(exc))

    def _connect(self) -> bool:
        try:
            self.transport.open()
        except SerialLinkError as exc:
            state = DeviceState.LOST if self._ever_connected else DeviceState.ABSENT
            self._status.set(state, str(exc))
            self._wake.wait(self.backoff.next_delay())
            self._wake.clear()
            return False
        with self._lock:
            self.link.connection_made(self.clock.monotonic())
        self._status.set(DeviceState.CONNECTING, f"port {self.url} open, waiting for the hello")
        return True

    def _disconnected(self, reason: str) -> None:
        self.transport.close()
        with self._lock:
            self.link.connection_lost()
            self._rb_cond.notify_all()
        if not self._stop.is_set():
            state = DeviceState.LOST if self._ever_connected else DeviceState.ABSENT
            self._status.set(state, f"unplugged or failed: {reason}; retrying")
            self._wake.wait(self.backoff.next_delay())
            self._wake.clear()

    def _cycle(self) -> None:
        with self._lock:
            now = self.clock.monotonic()
            events = self.link.poll(now)
            self.transport.send(self.link.data_to_send())
            deadline = self.link.next_deadline()
        self.transport.flush()
        self._dispatch(events)
        wait = 0.05 if deadline is None else deadline - self.clock.monotonic()
        self._wake.clear()
        data = self.transport.read(wait)
        with self._lock:
            events = self.link.receive_data(data, self.clock.monotonic()) if data else []
            self.transport.send(self.link.data_to_send())
        self.transport.flush()
        self._dispatch(events)

    def _dispatch(self, events: list[HostEvent]) -> None:
        for ev in events:
            if isinstance(ev, Connected):
                if ev.new_boot:
                    self.inputs.reset()
                    with self._lock:
                        if self._rb_waiting and self._rb_result is None:
                            # the restart lost the read in progress: read the new boot's
                            self.link.request_readback()
                self._reconnects += self._ever_connected
                self._ever_connected = True
                self.backoff.reset()
                self._emit("connected", {"boot_id": ev.info.boot_id, "new_boot": ev.new_boot,
                                         "protocol": ev.info.protocol, "build": ev.info.build,
                                         "led_count": ev.info.led_count})
                self._status.set(DeviceState.IDLE, "board answered")
                with self._lock:
                    self._rb_cond.notify_all()
            elif isinstance(ev, Refused):
                self._status.set(DeviceState.FAULT, ev.reason)
                with self._lock:
                    self._rb_cond.notify_all()  # wait_connected: refused is an answer too
            elif isinstance(ev, Lost):
                self._status.set(DeviceState.LOST, f"{ev.reason}; retrying")
            elif isinstance(ev, Degraded):
                self._emit("degraded", {"reason": ev.reason})
                self._status.set(DeviceState.LOST, ev.reason)
            elif isinstance(ev, Readback):
                with self._lock:
                    self._rb_result = ev
                    self._rb_cond.notify_all()
            elif isinstance(ev, Acked):
                self.last_rtt = ev.rtt
                done = self._acks.pop(ev.type, None)
                if done is not None:
                    done.set()
            elif isinstance(ev, CommandFailed):
                self._emit("refused", {"message": ev.type.name, "reason": ev.reason})
            elif isinstance(ev, DeviceInput):
                # In the input panel's words, so the daemon acts on both alike.
                for kind, data in self.inputs.translate(ev):
                    self._emit(kind, {**data, "seq": ev.seq})
            elif isinstance(ev, Garbled):
                pass  # counted in link.stats; a noisy line is not news to subscribers

    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        self._subs.deliver([DeviceEvent("board", kind, data)])



# --- re-flashing: our firmware steps aside for mpremote -------------------------------------

HELLO_WAIT_S = 1.5  # our firmware answers a hello within a few ms; a REPL never does
REPL_WAIT_S = 15.0  # a Pico restarts and enumerates on USB again in 1 to 3 s
REPL_PROMPT = b">>> "


def restart_into_repl(url: str, *, hello_wait: float = HELLO_WAIT_S,
                      repl_wait: float = REPL_WAIT_S) -> bool:
    """Make the board on `url` ready for mpremote. Returns True when it ran our firmware and
    was restarted into its plain MicroPython REPL (the MAINTENANCE message), False when it
    did not answer as our firmware (bare MicroPython: nothing was sent but a hello).

    Our firmware turns Ctrl-C off (frames carry 0x03), so mpremote cannot interrupt it; on
    MAINTENANCE it acknowledges, restarts and stays in its REPL for one boot. Raises
    SerialLinkError when the port cannot be opened, BoardError when the firmware does not
    acknowledge (an old build without MAINTENANCE) or does not come back as a REPL.
    """
    import time

    from hardware.board.protocol import (
        DEV_ACK,
        DEV_HELLO,
        HELLO,
        MAINTENANCE,
        PROTOCOL_VERSION,
        Frame,
        FrameReader,
        encode_frame,
    )

    def frames_until(port: SerialTransport, want: int, seq: int | None, wait: float,
                     resend: bytes) -> Frame | bytes | None:
        """The wanted frame; or the bytes read, once a REPL prompt is among them."""
        reader = FrameReader()
        seen = b""
        deadline = time.monotonic() + wait
        next_send = 0.0
        while (now := time.monotonic()) < deadline:
            if now >= next_send:  # a frame may be lost in the board's boot: say it again
                port.send(resend)
                port.flush()
                next_send = now + 0.25
            data = port.read(min(0.05, deadline - now))
            seen = (seen + data)[-64:]
            for item in reader.feed(data):
                if isinstance(item, Frame) and item.type == want and (
                        seq is None or item.seq == seq):
                    return item
            if REPL_PROMPT in seen:
                return seen
        return None

    port = SerialTransport(url)
    port.open()
    try:
        # The hello, then a return: our firmware drops the return as noise (the next frame's
        # leading 0x00 ends it), bare MicroPython answers it with its prompt.
        hello = b"\x00" + encode_frame(HELLO, 1, bytes((PROTOCOL_VERSION,))) + b"\r"
        said = frames_until(port, DEV_HELLO, None, hello_wait, hello)
        if not isinstance(said, Frame):
            return False
        build = int.from_bytes(said.payload[1:3], "big") if len(said.payload) >= 3 else 0
        ack = frames_until(port, DEV_ACK, 2, 2.0, b"\x00" + encode_frame(MAINTENANCE, 2))
        if not isinstance(ack, Frame):
            raise BoardError(
                f"the board on {url} runs our firmware (build {build}), which does not restart "
                "for flashing: hold BOOTSEL while plugging it in, copy MicroPython's UF2 for the "
                "Pico onto the drive, then flash again")
    finally:
        port.close()
    deadline = time.monotonic() + repl_wait
    while time.monotonic() < deadline:
        time.sleep(0.1)
        port = SerialTransport(url)
        try:
            port.open()  # gone while the board restarts; then back as the REPL
            port.send(b"\r")
            port.flush()
            seen = b""
            until = time.monotonic() + 0.5
            while REPL_PROMPT not in seen and time.monotonic() < until:
                seen += port.read(0.05)
            if REPL_PROMPT in seen:
                return True
        except SerialLinkError:
            continue
        finally:
            port.close()
    raise BoardError(f"the board on {url} acknowledged MAINTENANCE but did not come back as "
                     f"a MicroPython REPL within {repl_wait:g} s: unplug it, plug it in, and "
                     "flash again")
