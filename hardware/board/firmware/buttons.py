"""The board's buttons: debounced on a millisecond clock, and the undo button's hold timed.

Plain MicroPython that also runs under CPython (the simulator and the tests run this very
module; `main.py` on the Pico only reads the pins and feeds their levels here). Sans-I/O:
`update(pressed, now_ms)` takes one sample of every button (True = pressed) and returns the
wire events it makes, as (kind, arg) pairs for `BoardCore.press(arg, now_ms, kind)`:

- a track's button (index 1 + track) pressed: (EVENT_BUTTON, 1 + track), at once;
- undo (index 0) let go before HOLD_REPORT_MS: (EVENT_BUTTON, 0), a plain undo;
- undo still down: (EVENT_HOLDING, tenths) every HOLD_REPORT_MS (tenths of a second held,
  up to 255), so the daemon can approve a pairing while the button is still held;
- undo let go after that: (EVENT_HELD, tenths).

The board does not decide what a hold means: the daemon compares the tenths with its one
`undo_hold_s`, as it does for the Pi's own undo button.

A level is taken once the raw sample has stayed the same for `bounce_ms` (20 ms by
default: mechanical switches bounce for 1 to 20 ms), so a bouncy press is one press. Times
are integer milliseconds from any start (main.py keeps a counter from ticks_ms).
"""

# ruff: noqa: UP031  (%-formatting: the firmware's MicroPython runs this module too)

from hardware.board.protocol import (
    BUTTON_UNDO,
    EVENT_BUTTON,
    EVENT_HELD,
    EVENT_HOLDING,
)

BOUNCE_MS = 20
HOLD_REPORT_MS = 500
MAX_TENTHS = 255


class Buttons:
    """`count` buttons (index 0 is undo, 1 + t is track t's). Raises ValueError for bad
    settings."""

    def __init__(self, count, bounce_ms=BOUNCE_MS, hold_report_ms=HOLD_REPORT_MS):
        if not 1 <= count <= 8:
            raise ValueError("%r buttons: the board has undo and 1 to 7 track buttons" % count)
        if not 0 <= bounce_ms <= 1000:
            raise ValueError("BOUNCE_MS %r is not 0..1000" % (bounce_ms,))
        if not 100 <= hold_report_ms <= 5000:
            raise ValueError("HOLD_REPORT_MS %r is not 100..5000" % (hold_report_ms,))
        self.count = count
        self.bounce_ms = bounce_ms
        self.hold_report_ms = hold_report_ms
        self.level = [False] * count  # the debounced levels (True: pressed)
        self._raw = [False] * count  # the last raw sample
        self._raw_at = [0] * count  # when the raw sample last changed
        self._down_at = 0  # when undo went down (its first raw edge)
        self._reports = 0  # holding reports sent for this press of undo

    def update(self, pressed, now_ms):
        """One sample of every button; returns the (kind, arg) events it makes."""
        events = []
        for i in range(self.count):
            raw = bool(pressed[i])
            if raw != self._raw[i]:
                self._raw[i] = raw
                self._raw_at[i] = now_ms
            if raw != self.level[i] and now_ms - self._raw_at[i] >= self.bounce_ms:
                self.level[i] = raw
                self._edge(i, raw, self._raw_at[i], events)
        if self.level[BUTTON_UNDO] and self._raw[BUTTON_UNDO]:
            held = now_ms - self._down_at
            due = (self._reports + 1) * self.hold_report_ms
            if held >= due and self._tenths(due) < MAX_TENTHS:
                self._reports = held // self.hold_report_ms
                events.append((EVENT_HOLDING, self._tenths(held)))
        return events

    def next_deadline(self, now_ms):
        """When `update` next has work without a new sample (a settling edge, a hold
        report); None when nothing is pending."""
        t = None
        for i in range(self.count):
            if self._raw[i] != self.level[i]:
                at = self._raw_at[i] + self.bounce_ms
                t = at if t is None else min(t, at)
        if self.level[BUTTON_UNDO] and self._raw[BUTTON_UNDO]:
            at = self._down_at + (self._reports + 1) * self.hold_report_ms
            if self._tenths(at - self._down_at) < MAX_TENTHS:
                t = at if t is None else min(t, at)
        return t

    def _tenths(self, ms):
        return min(MAX_TENTHS, ms // 100)

    def _edge(self, i, down, at, events):
        if i != BUTTON_UNDO:
            if down:
                events.append((EVENT_BUTTON, i))
            return
        if down:
            self._down_at = at
            self._reports = 0
        elif self._reports:
            events.append((EVENT_HELD, self._tenths(at - self._down_at)))
        else:
            events.append((EVENT_BUTTON, BUTTON_UNDO))


def hold_events(buttons, button, held_ms, start_ms=0, step_ms=5):
    """The events of pressing `button` cleanly for `held_ms` on `buttons`, sampled every
    `step_ms` (the simulator's hold, and tests); ends with every button up and settled."""
    events = []
    up = [False] * buttons.count
    down = list(up)
    down[button] = True
    t = start_ms
    end = start_ms + held_ms
    while t < end:
        events += buttons.update(down, t)
        t += step_ms
    events += buttons.update(up, t)
    events += buttons.update(up, t + buttons.bounce_ms)  # the release settles
    return events
