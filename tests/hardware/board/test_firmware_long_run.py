"""The firmware core under a real MicroPython for thousands of frames, its collector running.

The full 100,000-frame run is `tests/benchmarks/bench_firmware.py --long-run 100000`; this
one is short enough for the default run and still crosses many collections in one VM.
"""

from __future__ import annotations

from hardware.board.wasm import RP2040_HEAP_BYTES

from .longrun import long_run


def test_thousands_of_frames_and_events_in_one_vm_through_many_collections():
    r = long_run(2000, event_every=4, batch=25)
    assert r.boot_id_kept  # one VM, no restart
    assert r.states_applied == 2000 - 2000 // 50  # every state frame shown; pings between
    assert r.events == 500 and r.events_acked == 500 and r.events_waiting == 0
    assert r.collections >= 70  # a collection between every two batches
    # the heap does not creep: what the firmware keeps after a collection stays put
    assert r.live_high_water - r.heap_at_start < 4096
    assert r.peak < RP2040_HEAP_BYTES  # fits a Pico's heap with collections this often
