"""The hands-free build's I2C devices (GPIO 2/3, bus 1): one small interface per device, a
register driver over an injected SMBus (smbus2.SMBus on the Pi), and a simulated device.

- `ServoPwm`: a PCA9685 (0x40) driving the SG90s (channel 0 the lower doors, 1 the upper,
  2 the press) at 50 Hz. Datasheet (NXP PCA9685 rev. 4): MODE1 0x00 (SLEEP bit 4, AI bit 5, RESTART
  bit 7), MODE2 0x01 (OUTDRV bit 2), LEDn_ON_L 0x06 + 4n (ON_L, ON_H, OFF_L, OFF_H; OFF_H
  bit 4 is full off), PRE_SCALE 0xFE = round(25 MHz / (4096 f)) - 1, written only asleep.
- `InputExpander`: an MCP23017 (0x20) reading the two door sensors and the skew beam on port
  A (IOCON.BANK = 0 addressing: IODIRA 0x00, GPPUA 0x0C, GPIOA 0x12); the sensors pull
  low when they see a card, so a bit low is active.
- `LoadCellAdc`: a NAU7802 (0x2A), the tray's load cell. Datasheet (Nuvoton NAU7802 rev.
  1.7): PU_CTRL 0x00 (RR bit 0, PUD 1, PUA 2, PUR 3, CS 4, CR 5, AVDDS 7), CTRL1 0x01
  (GAINS bits 0-2, VLDO bits 3-5), CTRL2 0x02 (CRS bits 4-6), ADCO_B2..B0 0x12-0x14 (24-bit
  two's complement, most significant byte first). Power-up: RR=1, then RR=0 and PUD=1, wait
  for PUR, then PUA and the LDO, gain and rate, then CS.

`EmulatedBus` keeps the three chips' registers in memory (what a real bus would reach), so
the register drivers run end to end in tests and in the GPIO mock rig; it logs every write.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from hardware.errors import HardwareError

PCA9685_ADDRESS = 0x40
MCP23017_ADDRESS = 0x20
NAU7802_ADDRESS = 0x2A

# PCA9685 registers and bits
MODE1, MODE2, LED0_ON_L, PRE_SCALE = 0x00, 0x01, 0x06, 0xFE
SLEEP, AI, RESTART, OUTDRV, FULL_OFF = 0x10, 0x20, 0x80, 0x04, 0x10
OSC_HZ = 25_000_000
# MCP23017 registers (IOCON.BANK = 0, the power-on addressing)
IODIRA, GPPUA, GPIOA = 0x00, 0x0C, 0x12
# NAU7802 registers and bits
PU_CTRL, CTRL1, CTRL2, ADCO_B2 = 0x00, 0x01, 0x02, 0x12
RR, PUD, PUA, PUR, CS, CR, AVDDS = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x80
GAIN_128, VLDO_3V3, RATE_80SPS = 0b111, 0b100 << 3, 0b011 << 4


class SMBusLike(Protocol):
    """The part of smbus2.SMBus the drivers use."""

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int]) -> None: ...

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]: ...


# ----- PWM for the door servos -----


class ServoPwm(Protocol):
    """Servo pulses on numbered channels at 50 Hz."""

    def open(self) -> None:
        """Set the device up; raises HardwareError (or OSError) when it does not answer."""
        ...

    def set_pulse_ms(self, channel: int, ms: float) -> None:
        """Send pulses of `ms` milliseconds on `channel`. Raises ValueError outside 0.2-3 ms."""
        ...

    def release(self, channel: int) -> None:
        """No pulses on `channel` (the servo goes limp)."""
        ...

    def pulse_ms(self, channel: int) -> float | None:
        """The pulse now sent on `channel`, or None when released."""
        ...


def _check_pulse(channel: int, ms: float) -> None:
    if not 0 <= channel <= 15:
        raise ValueError(f"PWM channel must be 0-15, got {channel}")
    if not 0.2 <= ms <= 3.0:
        raise ValueError(f"servo pulse must be 0.2-3.0 ms, got {ms}")


def prescale(frequency_hz: float) -> int:
    """The PCA9685's PRE_SCALE for `frequency_hz` from its 25 MHz oscillator (121 at 50 Hz).
    Raises ValueError outside the chip's 24-1526 Hz."""
    value = round(OSC_HZ / (4096 * frequency_hz)) - 1
    if not 3 <= value <= 255:
        raise ValueError(f"the PCA9685 cannot run at {frequency_hz} Hz")
    return value


class PCA9685:
    """ServoPwm over a PCA9685 on `bus`."""

    def __init__(self, bus: SMBusLike, address: int = PCA9685_ADDRESS,
                 frequency_hz: float = 50.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.bus, self.address = bus, address
        self.prescale = prescale(frequency_hz)
        # the frequency the prescale really gives: the pulse counts are reckoned from it
        self.frequency_hz = OSC_HZ / (4096 * (self.prescale + 1))
        self._sleep = sleep

    def open(self) -> None:
        b, a = self.bus, self.address
        b.write_byte_data(a, MODE1, SLEEP | AI)  # asleep: the prescale can be written
        b.write_byte_data(a, PRE_SCALE, self.prescale)
        b.write_byte_data(a, MODE2, OUTDRV)
        b.write_byte_data(a, MODE1, AI)  # awake
        self._sleep(0.0005)  # the oscillator starts within 500 us
        b.write_byte_data(a, MODE1, AI | RESTART)
        for channel in range(16):
            self.release(channel)

    def counts(self, ms: float) -> int:
        """The OFF count of a pulse of `ms` milliseconds (of 4096 in a period)."""
        return round(ms / 1000.0 * self.frequency_hz * 4096)

    def set_pulse_ms(self, channel: int, ms: float) -> None:
        _check_pulse(channel, ms)
        off = self.counts(ms)
        self.bus.write_i2c_block_data(self.address, LED0_ON_L + 4 * channel,
                                      [0, 0, off & 0xFF, off >> 8])

    def release(self, channel: int) -> None:
        self.bus.write_i2c_block_data(self.address, LED0_ON_L + 4 * channel,
                                      [0, 0, 0, FULL_OFF])

    def pulse_ms(self, channel: int) -> float | None:
        on_l, on_h, off_l, off_h = self.bus.read_i2c_block_data(
            self.address, LED0_ON_L + 4 * channel, 4)
        if off_h & FULL_OFF:
            return None
        width = (((off_h & 0x0F) << 8) | off_l) - (((on_h & 0x0F) << 8) | on_l)
        return (width % 4096) / 4096 / self.frequency_hz * 1000.0


class SimServoPwm:
    """A simulated ServoPwm: the pulses it was told, exactly."""

    def __init__(self) -> None:
        self.pulses: dict[int, float | None] = {}
        self.opened = False

    def open(self) -> None:
        self.opened = True
        self.pulses = dict.fromkeys(range(16))

    def set_pulse_ms(self, channel: int, ms: float) -> None:
        _check_pulse(channel, ms)
        self.pulses[channel] = ms

    def release(self, channel: int) -> None:
        self.pulses[channel] = None

    def pulse_ms(self, channel: int) -> float | None:
        return self.pulses.get(channel)


# ----- the input expander for the door sensors and the skew beam -----


class InputExpander(Protocol):
    """Eight inputs with pull-ups."""

    def open(self, pull_ups: int = 0xFF) -> None:
        """Every pin an input, `pull_ups` the pins pulled up; raises as ServoPwm.open."""
        ...

    def read(self) -> int:
        """The eight pins' levels, bit n for pin n (1 high)."""
        ...


class MCP23017:
    """InputExpander over port A of an MCP23017 on `bus`."""

    def __init__(self, bus: SMBusLike, address: int = MCP23017_ADDRESS) -> None:
        self.bus, self.address = bus, address

    def open(self, pull_ups: int = 0xFF) -> None:
        self.bus.write_byte_data(self.address, IODIRA, 0xFF)
        self.bus.write_byte_data(self.address, GPPUA, pull_ups & 0xFF)

    def read(self) -> int:
        return self.bus.read_byte_data(self.address, GPIOA) & 0xFF


class SimInputExpander:
    """A simulated InputExpander: `levels` drive the pins; an open pin reads its pull-up."""

    def __init__(self) -> None:
        self.levels: dict[int, bool] = {}
        self.pull_ups = 0

    def open(self, pull_ups: int = 0xFF) -> None:
        self.pull_ups = pull_ups & 0xFF

    def read(self) -> int:
        value = 0
        for pin in range(8):
            level = self.levels.get(pin, bool(self.pull_ups >> pin & 1))
            value |= int(level) << pin
        return value


# ----- the load cell's ADC -----


class LoadCellAdc(Protocol):
    """A 24-bit bridge ADC."""

    def open(self) -> None:
        """Power it up and start converting; raises HardwareError when it does not."""
        ...

    def ready(self) -> bool:
        """True when a new conversion waits to be read."""
        ...

    def read_raw(self) -> int:
        """The latest conversion, signed."""
        ...


def from_24bit(b2: int, b1: int, b0: int) -> int:
    """A signed value from three bytes, most significant first (two's complement)."""
    value = (b2 << 16) | (b1 << 8) | b0
    return value - (1 << 24) if value & 0x800000 else value


class NAU7802:
    """LoadCellAdc over a NAU7802 on `bus`: internal 3.3 V LDO, gain 128, 80 samples a second.
    """

    def __init__(self, bus: SMBusLike, address: int = NAU7802_ADDRESS,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.bus, self.address = bus, address
        self._sleep = sleep

    def open(self) -> None:
        b, a = self.bus, self.address
        b.write_byte_data(a, PU_CTRL, RR)  # reset every register
        b.write_byte_data(a, PU_CTRL, PUD)  # out of reset, digital powered up
        for _ in range(100):  # power-up ready within about 200 us
            if b.read_byte_data(a, PU_CTRL) & PUR:
                break
            self._sleep(0.001)
        else:
            raise HardwareError("the NAU7802 load cell ADC did not power up (PUR never set)")
        b.write_byte_data(a, CTRL1, VLDO_3V3 | GAIN_128)
        b.write_byte_data(a, CTRL2, RATE_80SPS)
        b.write_byte_data(a, PU_CTRL, PUD | PUA | AVDDS)
        self._sleep(0.6)  # the analog front end and the LDO settle
        b.write_byte_data(a, PU_CTRL, PUD | PUA | AVDDS | CS)

    def ready(self) -> bool:
        return bool(self.bus.read_byte_data(self.address, PU_CTRL) & CR)

    def read_raw(self) -> int:
        return from_24bit(*self.bus.read_i2c_block_data(self.address, ADCO_B2, 3))


class SimLoadCellAdc:
    """A simulated LoadCellAdc: set `raw` and it is ready with it."""

    def __init__(self) -> None:
        self.raw = 0
        self.fresh = False
        self.powered = False

    def set(self, raw: int) -> None:
        self.raw, self.fresh = raw, True

    def open(self) -> None:
        self.powered = True

    def ready(self) -> bool:
        return self.powered and self.fresh

    def read_raw(self) -> int:
        self.fresh = False
        return self.raw


# ----- the three chips' registers, in memory -----


class EmulatedBus:
    """An SMBus reaching emulated PCA9685, MCP23017 and NAU7802 chips: registers in memory,
    auto-increment as the chips do, the NAU7802's PUR after PUD and CR with each new value.
    `pins` are the MCP23017's port A inputs driven from outside (None: the pull-up or low).
    Every write is logged as (address, register, value). Raises OSError for an address no
    chip answers, as a real bus does."""

    def __init__(self) -> None:
        self.regs: dict[int, dict[int, int]] = {
            PCA9685_ADDRESS: {MODE1: 0x11, PRE_SCALE: 0x1E},
            MCP23017_ADDRESS: {IODIRA: 0xFF, GPPUA: 0x00},
            NAU7802_ADDRESS: {PU_CTRL: 0x00},
        }
        self.writes: list[tuple[int, int, int]] = []
        self.pins: dict[int, bool] = {}
        self._adc = 0

    def _chip(self, addr: int) -> dict[int, int]:
        if addr not in self.regs:
            raise OSError(121, f"no I2C device answers at 0x{addr:02x}")
        return self.regs[addr]

    def set_adc(self, raw: int) -> None:
        """A new conversion of the load cell (signed 24-bit)."""
        value = raw & 0xFFFFFF
        regs = self.regs[NAU7802_ADDRESS]
        regs[ADCO_B2], regs[ADCO_B2 + 1], regs[ADCO_B2 + 2] = (
            value >> 16, value >> 8 & 0xFF, value & 0xFF)
        if regs.get(PU_CTRL, 0) & CS:
            regs[PU_CTRL] |= CR

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None:
        regs = self._chip(i2c_addr)
        self.writes.append((i2c_addr, register, value))
        if i2c_addr == PCA9685_ADDRESS and register == PRE_SCALE and not regs[MODE1] & SLEEP:
            return  # the chip ignores the prescale while awake
        if i2c_addr == NAU7802_ADDRESS and register == PU_CTRL:
            if value & RR:
                self.regs[NAU7802_ADDRESS] = {PU_CTRL: value}
                return
            value = (value & ~(PUR | CR)) | (PUR if value & PUD else 0) | (
                regs.get(PU_CTRL, 0) & CR if value & CS else 0)
        regs[register] = value & 0xFF

    def read_byte_data(self, i2c_addr: int, register: int) -> int:
        regs = self._chip(i2c_addr)
        if i2c_addr == MCP23017_ADDRESS and register == GPIOA:
            value = 0
            for pin in range(8):
                pulled = bool(regs.get(GPPUA, 0) >> pin & 1)
                value |= int(self.pins.get(pin, pulled)) << pin
            return value
        return regs.get(register, 0)

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int]) -> None:
        for i, value in enumerate(data):
            self.write_byte_data(i2c_addr, register + i, value)

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]:
        out = [self.read_byte_data(i2c_addr, register + i) for i in range(length)]
        if i2c_addr == NAU7802_ADDRESS and register == ADCO_B2:
            self.regs[NAU7802_ADDRESS][PU_CTRL] &= ~CR  # read: no new conversion yet
        return out

    def close(self) -> None:
        pass
