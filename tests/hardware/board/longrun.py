"""A long run of the firmware core in one MicroPython VM, its collector running (tests, bench).

The loop runs inside the VM, as main.py's does on a Pico: state frames (the pegs moving, skunk
lines, now and then a pairing code), a button event every few frames acknowledged by the host
(EVENT_ACK), pings between. The WebAssembly port collects its garbage when a call into the VM
returns (it cannot scan the wasm stack mid-call; its heap grows instead), so the run goes in
batches of `batch` frames: one collection per batch, like a Pico whose heap fills that often.
Heap use is sampled at each batch's start (after a collection: the live heap, what the firmware
keeps) and end (before one: the high-water mark).
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.board.layout import BoardLayout
from hardware.board.wasm import RP2040_HEAP_BYTES, WasmBoard, new_session

HIST_US = 20  # per-frame time histogram: buckets this wide
HIST_BUCKETS = 5000  # up to 100 ms; slower frames land in the last bucket

LOOP = '''
import gc, time, array
from hardware.board.protocol import (encode_frame, encode_state, State, Pegs, HELLO, STATE,
    PING, EVENT_ACK, DEV_EVENT, FrameReader, Frame, PROTOCOL_VERSION)
class _Run:
    def __init__(self, fw, every):
        self.fw, self.every = fw, every
        self.hist = array.array('I', bytes(4 * HIST_BUCKETS))
        self.reader = FrameReader()
        self.now = 0
        self.seq = 1
        self.i = 0
        self.events = 0
        self.acked = 0
        fw.step(encode_frame(HELLO, 1, bytes((PROTOCOL_VERSION,))), 0)
    def batch(self, n):
        start = gc.mem_alloc()
        fw, hist, reader = self.fw, self.hist, self.reader
        for _ in range(n):
            i = self.i
            self.i += 1
            self.now += 7
            self.seq = seq = (self.seq + 1) & 0xFF
            if i % 50 == 49:
                frame = encode_frame(PING, seq)
            else:
                a = i % 121
                b = (i * 7) % 121
                code = '%06d' % (i % 1000000) if i % 997 == 0 else None
                st = State((Pegs(a, max(0, a - 3)), Pegs(b, max(0, b - 5))), 121, 128,
                           'classic', code, None, (91, 61))
                frame = encode_frame(STATE, seq, encode_state(st))
            t = time.ticks_us()
            out = fw.step(frame, self.now)
            if i % self.every == 0:
                fw.press(1 + i % 2, self.now)
                self.events += 1
                out += fw.data_to_send()
            us = time.ticks_diff(time.ticks_us(), t)
            k = us // HIST_US
            hist[k if k < HIST_BUCKETS else HIST_BUCKETS - 1] += 1
            for item in reader.feed(out):
                if isinstance(item, Frame) and item.type == DEV_EVENT:
                    fw.step(encode_frame(EVENT_ACK, 0, bytes((item.seq,))), self.now)
                    self.acked += 1
        print(start, gc.mem_alloc())
    def result(self):
        fw = self.fw
        print(fw.states_applied, self.events, self.acked, len(fw._events), fw.boot_id)
        print(' '.join('%d:%d' % (j, self.hist[j]) for j in range(HIST_BUCKETS) if self.hist[j]))
'''.replace("HIST_BUCKETS", str(HIST_BUCKETS)).replace("HIST_US", str(HIST_US))


@dataclass(frozen=True)
class LongRun:
    """What a long run measured (bytes, microseconds)."""

    frames: int
    states_applied: int
    events: int
    events_acked: int
    events_waiting: int
    boot_id_kept: bool
    collections: int
    heap_at_start: int
    live_high_water: int  # heap in use right after a collection, at most
    peak: int  # heap in use just before a collection, at most: the high-water mark
    heap_at_end: int
    batch: int  # frames between collections
    p50_us: int
    p99_us: int
    max_us: int

    @property
    def share_of_rp2040(self) -> float:
        return self.peak / RP2040_HEAP_BYTES


def _quantile(hist: dict[int, int], q: float) -> int:
    total = sum(hist.values())
    seen = 0
    for bucket in sorted(hist):
        seen += hist[bucket]
        if seen >= q * total:
            return (bucket + 1) * HIST_US
    return 0


def long_run(frames: int, *, event_every: int = 4, batch: int = 25) -> LongRun:
    """Run `frames` host frames (and a button event every `event_every`) through one core,
    `batch` frames per call into the VM (it collects between calls).

    Raises FirmwareCrashed if the VM stops, GuestError if the firmware raises.
    """
    session = new_session()
    marks: list[tuple[int, int]] = []
    try:
        board = WasmBoard(BoardLayout(), 0x5EED, 0, session=session)
        session.run(LOOP + f"_run = _Run({board._fw}, {int(event_every)})")
        done = 0
        while done < frames:
            n = min(batch, frames - done)
            a, b = session.run("_run.batch(_n)", _n=n).stdout.split()
            marks.append((int(a), int(b)))
            done += n
        out = session.run("_run.result()").stdout.splitlines()
    finally:
        session.close()
    applied, events, acked, waiting, boot = (int(x) for x in out[0].split())
    hist = {int(k): int(v) for k, v in (pair.split(":") for pair in out[1].split())}
    collections = sum(1 for (_, end), (start, _) in zip(marks[:-1], marks[1:], strict=True)
                      if start < end)
    return LongRun(frames, applied, events, acked, waiting, boot == 0x5EED, collections,
                   marks[0][0], max(a for a, _ in marks), max(b for _, b in marks),
                   marks[-1][1], batch, _quantile(hist, 0.5), _quantile(hist, 0.99),
                   (max(hist) + 1) * HIST_US)
