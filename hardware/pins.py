"""The table's pins: one table for the configuration's defaults, the docs and the schematics.

`firmware_host.config` takes its default pins from here, `systemd/config.example.toml` and the
wiring table of docs/hardware.md are checked against it by tests, and the schematics
(`hardware.schematics`) are drawn from it, so the four cannot drift apart.

Raspberry Pi pins are BCM GPIO numbers; Pico pins are GP numbers. Each pin has its key in the
configuration (`shuffler.pins.motor`, `inputs.tracks.0.a`, ...), or a `board.` key for a pin
that is not configured on the Pi (the SPI data line, the Pico's own pins).
"""

from __future__ import annotations

from dataclasses import dataclass

# The Raspberry Pi 40-pin header: BCM GPIO number -> physical pin (every 40-pin Pi).
PI_HEADER: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31,
    13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26,
    1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}
PI_GROUND = (6, 9, 14, 20, 25, 30, 34, 39)
PI_3V3 = (1, 17)

# The Raspberry Pi Pico (RP2040) 40-pin board: GP number -> physical pin.
PICO_PINOUT: dict[int, int] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}
PICO_GROUND = (3, 8, 13, 18, 23, 28, 33, 38)


@dataclass(frozen=True, slots=True)
class Pin:
    """One signal on a controller's pin: its configuration key, GPIO number and what it is."""

    key: str
    gpio: int
    what: str

    @property
    def name(self) -> str:
        """The last part of the key (`motor`, `a`, `button`)."""
        return self.key.rsplit(".", 1)[-1]

    def header(self) -> int:
        """The physical pin on the Pi's header (Pi pins only). Raises KeyError for a Pico pin."""
        return PI_HEADER[self.gpio]

    def pico_pin(self) -> int:
        """The physical pin on the Pico. Raises KeyError for a GP number the Pico lacks."""
        return PICO_PINOUT[self.gpio]


# The shuffler's pins on the Pi ([shuffler] pins).
SHUFFLER: tuple[Pin, ...] = (
    Pin("shuffler.pins.motor", 17, "feed motor driver input IN1"),
    Pin("shuffler.pins.brake", 27, "feed motor driver input IN2 (brake)"),
    Pin("shuffler.pins.router", 18, "router servo signal"),
    Pin("shuffler.pins.left_sensor", 23, "left pile card sensor"),
    Pin("shuffler.pins.right_sensor", 24, "right pile card sensor"),
    Pin("shuffler.pins.tray_sensor", 25, "tray sensor"),
    Pin("shuffler.pins.led", 26, "shuffler status LED"),
)

# The hands-free build's added pins ([shuffler] pins, docs/hands-free.md): the riser motor's
# driver and the lid switch's sense line. Apart from SHUFFLER: the Lotus-style build has
# neither, and its configuration's defaults stay as they are.
HANDSFREE: tuple[Pin, ...] = (
    Pin("shuffler.pins.riser", 22, "riser motor driver EN, PWM (DRV8874 #2; PH to GND)"),
    Pin("shuffler.pins.lid", 4, "lid switch sense (the actuators' 5 V through 10k/20k)"),
)
# The I2C bus the hands-free build's devices share: bus 1, fixed by the Pi's I2C block.
I2C_BUS: tuple[Pin, ...] = (
    Pin("board.i2c_sda", 2, "I2C1 SDA"),
    Pin("board.i2c_scl", 3, "I2C1 SCL"),
)


@dataclass(frozen=True, slots=True)
class I2cDevice:
    """A chip on the I2C bus: its configuration key, 7-bit address and what it does."""

    key: str
    address: int
    part: str
    what: str


I2C_DEVICES: tuple[I2cDevice, ...] = (
    I2cDevice("shuffler.i2c.pwm", 0x40, "PCA9685",
              "servos: channel 0 the lower doors, 1 the upper, 2 the press's lift, 3 its turn"),
    I2cDevice("shuffler.i2c.inputs", 0x20, "MCP23017",
              "GPA0 lower door sensor, GPA1 upper door sensor, GPA2 skew beam"),
    I2cDevice("shuffler.i2c.load_cell", 0x2A, "NAU7802", "the tray's load cell"),
)

# The inputs on the Pi ([inputs]): undo, touch, then per track an encoder and its button.
INPUTS: tuple[Pin, ...] = (
    Pin("inputs.undo", 5, "undo button"),
    Pin("inputs.touch", 6, "touch sensor"),
    Pin("inputs.tracks.0.a", 12, "track 1 encoder A"),
    Pin("inputs.tracks.0.b", 13, "track 1 encoder B"),
    Pin("inputs.tracks.0.button", 16, "track 1 push button"),
    Pin("inputs.tracks.1.a", 19, "track 2 encoder A"),
    Pin("inputs.tracks.1.b", 20, "track 2 encoder B"),
    Pin("inputs.tracks.1.button", 21, "track 2 push button"),
)

# The SPI build's data line: SPI0 MOSI, fixed by the Pi's SPI block (not configurable).
SPI_DATA = Pin("board.spi_mosi", 10, "strip data (SPI0 MOSI)")
# SPI0's other pins, claimed when SPI is on: keep them free.
SPI_CLAIMED = (7, 8, 9, 10, 11)

# The Pico build: the pins the board's firmware config.py uses by default (GP numbers).
PICO_DATA = Pin("board.pico.data_pin", 0, "strip data")
PICO_UNDO = Pin("board.pico.undo_pin", 2, "undo button")
PICO_TRACK_BUTTONS: tuple[Pin, ...] = (
    Pin("board.pico.track_button_pins.0", 3, "track 1 peg button"),
    Pin("board.pico.track_button_pins.1", 4, "track 2 peg button"),
    Pin("board.pico.track_button_pins.2", 5, "track 3 peg button"),
)


def pi_pins() -> dict[str, int]:
    """Every configured Pi pin, key -> BCM number (the shuffler's, then the inputs')."""
    return {p.key: p.gpio for p in SHUFFLER + INPUTS}


def handsfree_defaults() -> dict[str, int]:
    """The hands-free build's added `[shuffler] pins`: name -> BCM number."""
    return {p.name: p.gpio for p in HANDSFREE}


def shuffler_defaults() -> dict[str, int]:
    """`[shuffler] pins` as the configuration's default: name -> BCM number."""
    return {p.name: p.gpio for p in SHUFFLER}


def gpio(key: str) -> int:
    """The GPIO number of the Pi pin with configuration key `key`. Raises KeyError."""
    return pi_pins()[key]


def track_defaults() -> list[dict[str, int]]:
    """`[inputs] tracks` as the configuration's default: per track {a, b, button}."""
    by_key = pi_pins()
    tracks = []
    while f"inputs.tracks.{len(tracks)}.a" in by_key:
        t = len(tracks)
        tracks.append({n: by_key[f"inputs.tracks.{t}.{n}"] for n in ("a", "b", "button")})
    return tracks


def _check() -> None:
    """The table's own consistency: no pin twice, every pin on its connector."""
    pi = SHUFFLER + INPUTS + HANDSFREE + I2C_BUS
    gpios = [p.gpio for p in pi]
    if len(set(gpios)) != len(gpios) or set(gpios) & set(SPI_CLAIMED):
        raise ValueError("a Pi pin is used twice, or by SPI0")
    for p in pi + (SPI_DATA,):
        p.header()
    if len({d.address for d in I2C_DEVICES}) != len(I2C_DEVICES):
        raise ValueError("two I2C devices share an address")
    pico = (PICO_DATA, PICO_UNDO) + PICO_TRACK_BUTTONS
    if len({p.gpio for p in pico}) != len(pico):
        raise ValueError("a Pico pin is used twice")
    for p in pico:
        p.pico_pin()


_check()
