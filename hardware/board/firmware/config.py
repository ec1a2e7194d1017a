"""The board's settings, with the defaults a two-track 120-hole board on a Pico needs.

Edit this file on the board (or before `crib board flash`) to match the build; `main.py`
reads it at boot. Every value is checked by the firmware core at start.
"""

DATA_PIN = 0  # GPIO of the strip's data line (through a level shifter to 5 V)
TRACKS = 2  # 1 to 3
HOLES = 120  # 120, or 60 for a board gone round twice
LED_COUNT = None  # None: exactly the mapped LEDs (tracks * (holes + 2))
LED_MAP = None  # None: one serpentine strip; else per track the LED index of holes 0..holes+1
COLOUR_ORDER = "GRB"  # "GRB" for WS2812B, "GRBW" for SK6812 RGBW, "RGB" for a few others
SUPPLY_BUDGET_MA = 2000  # the LEDs' share of the 5 V supply: 2.0 A for a 3 A supply
IDLE_MA_PER_LED = 1  # the current model: dark LED
CHANNEL_MA = 15  # the current model: one colour channel at full
WATCHDOG_MS = 5000  # a hung loop is restarted by machine.WDT after this long
# Buttons: a switch from the GPIO to GND (the Pico's internal pull-up holds it high).
UNDO_PIN = 2  # the undo button (held: approves a pairing); None: no undo button
TRACK_BUTTON_PINS = (3, 4, 5)  # per track, its commit/peg button (the first TRACKS are used)
BOUNCE_MS = 20  # a button's level is taken once it has been steady this long
HOLD_REPORT_MS = 500  # while undo is held, the daemon is told how long, this often
