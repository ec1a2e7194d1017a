"""The LED strip's current model and the supply cap, shared by the firmware and the host.

Plain MicroPython. PJRC's measurements of WS2812B/SK6812: about 1 mA per LED dark, roughly
13-17 mA per colour channel at full (15 used here). A 5 V 3 A supply gets a 2.0 A budget by
default, leaving room for the chip and the Pico. Every frame the board shows, the test
pattern included, is scaled down as a whole (colours keep their ratios) until the modelled
current is within the budget: a full-white test on 244 LEDs would otherwise draw about 11 A.
"""

IDLE_MA = 1  # per LED, dark
CHANNEL_MA = 15  # per colour channel at 255
BUDGET_MA = 2000  # default supply budget: a 5 V 3 A supply
FULL = 256  # the scale that leaves a frame as it is


def drawn_ma(frame, idle_ma=IDLE_MA, channel_ma=CHANNEL_MA):
    """The modelled current of an RGB frame buffer, in mA (rounded up)."""
    return idle_ma * (len(frame) // 3) + (sum(frame) * channel_ma + 254) // 255


def cap_scale(frame, budget_ma=BUDGET_MA, idle_ma=IDLE_MA, channel_ma=CHANNEL_MA):
    """The scale (0..256, 256 = unchanged) that keeps `frame` within `budget_ma`."""
    avail = budget_ma - idle_ma * (len(frame) // 3)
    if avail <= 0:
        return 0
    need = sum(frame) * channel_ma  # in mA * 255
    if need <= avail * 255:
        return FULL
    return avail * 255 * FULL // need


def cap_frame(frame, budget_ma=BUDGET_MA, idle_ma=IDLE_MA, channel_ma=CHANNEL_MA):
    """Dim `frame` (a bytearray, RGB) in place to stay within `budget_ma`; returns the scale.

    Rounding down keeps the result within the budget: every channel is at most its share.
    """
    s = cap_scale(frame, budget_ma, idle_ma, channel_ma)
    if s < FULL:
        for i in range(len(frame)):
            frame[i] = frame[i] * s >> 8
    return s


def percent(s):
    """A scale as the percent of full light it leaves (100 = not dimmed)."""
    return s * 100 // FULL
