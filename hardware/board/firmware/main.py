"""The board's firmware entry point on the Pico: USB serial in and out, the LED strip, the
buttons, the watchdog. The only file that imports `machine`, `neopixel` or the USB console;
everything it runs is `hardware.board.firmware.core` and `.buttons` (debounce and the undo
hold), which the tests run under a real MicroPython: this file only reads the pins.

`crib board flash` copies it to the board as /main.py, beside the `hardware` package; the
Pico runs it at power-on. Settings are in hardware/board/firmware/config.py.
"""

# ruff: noqa: UP031  (%-formatting: MicroPython runs this file)

# Ctrl-C off first, before anything that takes time: importing our modules takes hundreds of
# ms (more from source), and a 0x03 from the daemon in that window would stop the firmware.
import micropython

micropython.kbd_intr(-1)

import sys  # noqa: E402
import time  # noqa: E402

import machine  # noqa: E402
import neopixel  # noqa: E402

from hardware.board.firmware.buttons import BOUNCE_MS, HOLD_REPORT_MS, Buttons  # noqa: E402
from hardware.board.firmware.core import (  # noqa: E402
    FAULT_LEDS,
    FaultCore,
    check_settings,
    make_core,
)
from hardware.board.render import strip_bytes  # noqa: E402

try:  # a config.py that does not even load is a fault to show, not a crash
    from hardware.board.firmware import config
except Exception as exc:  # noqa: BLE001
    config = None
    CONFIG_ERROR = "config.py does not load: %s" % (exc,)

MAINTENANCE_FLAG = "/maintenance"  # present at boot: stay in the REPL for mpremote
READ_MAX = 256  # bytes taken from USB per loop turn, so the strip and the watchdog keep up
WAIT_MAX_MS = 20  # the longest a loop turn waits for bytes
BUTTON_POLL_MS = 5  # with buttons wired, the pins are sampled at least this often
REFRESH_MS = 1000  # the strip is written again this often, changed or not (noise, a replug)


class UsbPort:
    """The USB CDC console as a raw byte port: select.poll for waiting, stdin/stdout buffers."""

    def __init__(self):
        import select

        self.stdin = sys.stdin.buffer
        self.stdout = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self, wait_ms):
        """Bytes that arrived, waiting up to `wait_ms` for the first; b"" if none."""
        out = bytearray()
        while len(out) < READ_MAX and self.poller.poll(wait_ms if not out else 0):
            byte = self.stdin.read(1)
            if not byte:
                break
            out += byte
        return bytes(out)

    def write(self, data):
        self.stdout.write(data)


def boot_id():
    """A fresh id per boot: the chip's unique id mixed with the time and a random number."""
    uid = 0
    for b in machine.unique_id():
        uid = (uid * 31 + b) & 0xFFFFFFFF
    try:
        import random

        rnd = random.getrandbits(32)
    except (ImportError, OSError):
        rnd = 0
    return (uid ^ rnd ^ time.ticks_us() * 2654435761) & 0xFFFFFFFF


def enter_maintenance():
    """Restart into the plain REPL, without the watchdog (which cannot be stopped once on)."""
    with open(MAINTENANCE_FLAG, "w") as f:
        f.write("mpremote\n")
    machine.reset()


def maintenance_boot():
    """True (and the flag gone) when this boot is for `crib board flash`."""
    import os

    try:
        os.remove(MAINTENANCE_FLAG)
    except OSError:
        return False
    return True


def button_pins(settings):
    """The buttons' pins, undo first, then one per track: inputs with the internal pull-up
    (a switch to GND reads 0 when pressed); None where a button is not wired. A config.py
    from before the buttons (no UNDO_PIN) has none."""
    numbers = [getattr(settings, "UNDO_PIN", None)]
    numbers += list(getattr(settings, "TRACK_BUTTON_PINS", None) or ())[:settings.TRACKS]
    if all(n is None for n in numbers):
        return []
    return [None if n is None else machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP)
            for n in numbers]


def pressed(pins):
    """One sample of every button: True where pressed (pulled to GND)."""
    return [pin is not None and pin.value() == 0 for pin in pins]


def run(settings=config, port=None, turns=None, maintenance=enter_maintenance):
    """The main loop; `turns` bounds it (tests), None runs until the watchdog or power goes.

    The settings are checked before the watchdog is armed: a wrong one runs `run_fault`
    (the fault pattern, no watchdog, no reset loop) instead. A MAINTENANCE message (sent by
    `crib board flash`) is acknowledged, then `maintenance` restarts the board into its
    REPL so mpremote can copy files.
    """
    micropython.kbd_intr(-1)  # 0x03 in a frame is data, not Ctrl-C
    if port is None:
        port = UsbPort()
    if settings is None:
        return run_fault(None, "config.py", CONFIG_ERROR, port, turns, maintenance)
    name, reason = check_settings(settings)
    if reason:
        return run_fault(settings, name, reason, port, turns, maintenance)
    wdt = machine.WDT(timeout=settings.WATCHDOG_MS)
    core = make_core(settings, boot_id(), 0)
    order = settings.COLOUR_ORDER
    strip = neopixel.NeoPixel(machine.Pin(settings.DATA_PIN), core.led_count,
                              bpp=4 if order == "GRBW" else 3)
    pins = button_pins(settings)
    buttons = Buttons(len(pins), getattr(settings, "BOUNCE_MS", BOUNCE_MS),
                      getattr(settings, "HOLD_REPORT_MS", HOLD_REPORT_MS)) if pins else None
    wait_max = BUTTON_POLL_MS if pins else WAIT_MAX_MS
    now = 0
    last = time.ticks_ms()
    shown = -1
    written = 0
    turn = 0
    while turns is None or turn < turns:
        turn += 1
        wdt.feed()
        wait = min(core.next_deadline(), written + REFRESH_MS) - now
        data = port.read(max(0, min(wait_max, wait)))
        t = time.ticks_ms()
        now += time.ticks_diff(t, last)
        last = t
        if buttons is not None:
            for kind, arg in buttons.update(pressed(pins), now):
                core.press(arg, now, kind)
        out = core.step(data, now)
        if out:
            port.write(out)
        if core.maintenance:
            maintenance()
            break
        if core.frame_version != shown:
            shown = core.frame_version
            strip_bytes(core.frame, order, strip.buf)
            strip.write()
            written = now
        elif now - written >= REFRESH_MS:  # as the SPI build does: a glitched LED heals
            strip.write()
            written = now
    return core


def run_fault(settings, name, reason, port, turns=None, maintenance=enter_maintenance):
    """A wrong setting: no watchdog; the fault pattern on the strip's first LEDs (when the
    data pin itself is right) and the setting named to the daemon (`FaultCore`)."""
    core = FaultCore(name, reason, boot_id(), 0)
    strip = None
    pin = getattr(settings, "DATA_PIN", None) if settings is not None else None
    if name != "DATA_PIN" and isinstance(pin, int) and 0 <= pin < 30:
        strip = neopixel.NeoPixel(machine.Pin(pin), FAULT_LEDS)
    now = 0
    last = time.ticks_ms()
    shown = -1
    turn = 0
    while turns is None or turn < turns:
        turn += 1
        data = port.read(max(0, min(WAIT_MAX_MS, core.next_deadline() - now)))
        t = time.ticks_ms()
        now += time.ticks_diff(t, last)
        last = t
        out = core.step(data, now)
        if out:
            port.write(out)
        if core.maintenance:
            maintenance()
            break
        if strip is not None and core.frame_version != shown:
            shown = core.frame_version
            strip_bytes(core.frame, "GRB", strip.buf)
            strip.write()
    return core


if __name__ == "__main__":
    if maintenance_boot():
        micropython.kbd_intr(3)  # the plain REPL, for mpremote
    else:
        run()
