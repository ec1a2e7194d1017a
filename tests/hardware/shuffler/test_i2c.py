"""The hands-free build's I2C devices: one conformance suite per interface against the
register driver (over the emulated chips) and the simulated device; then the registers the
drivers write, as the datasheets ask (hardware.shuffler.i2c)."""

from __future__ import annotations

from typing import Any

import pytest

from hardware.errors import HardwareError
from hardware.shuffler import i2c


def _no_sleep(_s: float) -> None:
    pass


class _Pwm:
    def __init__(self, kind: str) -> None:
        self.bus = i2c.EmulatedBus()
        self.dev: Any = (i2c.PCA9685(self.bus, sleep=_no_sleep) if kind == "driver"
                         else i2c.SimServoPwm())


class _Inputs:
    def __init__(self, kind: str) -> None:
        self.bus = i2c.EmulatedBus()
        self.sim = i2c.SimInputExpander()
        self.dev: Any = i2c.MCP23017(self.bus) if kind == "driver" else self.sim

    def drive(self, pin: int, level: bool) -> None:
        self.bus.pins[pin] = level
        self.sim.levels[pin] = level


class _Adc:
    def __init__(self, kind: str) -> None:
        self.bus = i2c.EmulatedBus()
        self.sim = i2c.SimLoadCellAdc()
        self.kind = kind
        self.dev: Any = (i2c.NAU7802(self.bus, sleep=_no_sleep) if kind == "driver"
                         else self.sim)

    def convert(self, raw: int) -> None:
        self.bus.set_adc(raw)
        self.sim.set(raw)


KINDS = ["driver", "sim"]


# ----- conformance: every implementation -----


@pytest.mark.parametrize("kind", KINDS)
def test_pwm_sends_the_pulse_asked_within_one_count(kind: str) -> None:
    pwm = _Pwm(kind).dev
    pwm.open()
    assert pwm.pulse_ms(0) is None and pwm.pulse_ms(1) is None  # no servo driven at start
    for ms in (1.0, 1.5, 2.0):
        pwm.set_pulse_ms(1, ms)
        assert pwm.pulse_ms(1) == pytest.approx(ms, abs=20e3 / 4096 / 1000)
    assert pwm.pulse_ms(0) is None
    pwm.release(1)
    assert pwm.pulse_ms(1) is None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("channel, ms", [(16, 1.0), (-1, 1.0), (0, 0.1), (0, 3.5)])
def test_pwm_refuses_a_bad_channel_or_pulse(kind: str, channel: int, ms: float) -> None:
    pwm = _Pwm(kind).dev
    pwm.open()
    with pytest.raises(ValueError):
        pwm.set_pulse_ms(channel, ms)


@pytest.mark.parametrize("kind", KINDS)
def test_inputs_read_pull_ups_and_driven_pins(kind: str) -> None:
    rig = _Inputs(kind)
    rig.dev.open(pull_ups=0b0000_0111)
    assert rig.dev.read() & 0b111 == 0b111  # nothing pulls the sensors low
    rig.drive(1, False)  # the upper door sensor sees a card
    assert rig.dev.read() & 0b111 == 0b101
    rig.drive(1, True)
    rig.drive(2, False)
    assert rig.dev.read() & 0b111 == 0b011


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("raw", [0, 1, 123_456, -1, -8_388_608, 8_388_607])
def test_adc_gives_each_signed_conversion_once(kind: str, raw: int) -> None:
    rig = _Adc(kind)
    rig.dev.open()
    assert not rig.dev.ready()
    rig.convert(raw)
    assert rig.dev.ready()
    assert rig.dev.read_raw() == raw
    assert not rig.dev.ready()


# ----- the registers -----


def test_pca9685_prescale_for_50_hz_is_written_asleep_then_woken() -> None:
    rig = _Pwm("driver")
    rig.dev.open()
    w = [(r, v) for a, r, v in rig.bus.writes if a == 0x40]
    assert i2c.prescale(50) == 121
    assert w[0] == (i2c.MODE1, 0x30)  # SLEEP | AI
    assert w[1] == (i2c.PRE_SCALE, 121)
    assert (i2c.MODE2, 0x04) in w[:4]
    assert w.index((i2c.MODE1, 0x20)) > 1  # awake only after the prescale
    assert rig.bus.regs[0x40][i2c.PRE_SCALE] == 121


def test_pca9685_on_off_counts_for_1_and_2_ms() -> None:
    rig = _Pwm("driver")
    rig.dev.open()
    rig.bus.writes.clear()
    rig.dev.set_pulse_ms(0, 1.0)
    rig.dev.set_pulse_ms(1, 2.0)
    # 25 MHz / (4096 x 122) = 50.03 Hz: 1.0 ms is 205 counts of 4096, 2.0 ms 410
    assert rig.bus.writes == [
        (0x40, 0x06, 0), (0x40, 0x07, 0), (0x40, 0x08, 205), (0x40, 0x09, 0),
        (0x40, 0x0A, 0), (0x40, 0x0B, 0), (0x40, 0x0C, 410 & 0xFF), (0x40, 0x0D, 1),
    ]
    rig.dev.release(0)
    assert rig.bus.regs[0x40][0x09] == 0x10  # full off: no pulses


def test_mcp23017_makes_port_a_inputs_with_pull_ups_and_reads_gpioa() -> None:
    rig = _Inputs("driver")
    rig.dev.open(pull_ups=0b0000_0111)
    assert rig.bus.writes == [(0x20, 0x00, 0xFF), (0x20, 0x0C, 0x07)]
    rig.bus.pins[0] = False
    assert rig.dev.read() == 0b0000_0110


def test_nau7802_powers_up_in_the_datasheet_order() -> None:
    rig = _Adc("driver")
    rig.dev.open()
    assert rig.bus.writes == [
        (0x2A, 0x00, 0x01),  # RR: reset
        (0x2A, 0x00, 0x02),  # PUD, then wait for PUR
        (0x2A, 0x01, 0x27),  # 3.3 V LDO, gain 128
        (0x2A, 0x02, 0x30),  # 80 samples a second
        (0x2A, 0x00, 0x86),  # PUA, AVDDS (internal LDO)
        (0x2A, 0x00, 0x96),  # CS: conversions start
    ]


def test_nau7802_that_never_powers_up_is_an_error() -> None:
    class Dead(i2c.EmulatedBus):
        def read_byte_data(self, i2c_addr: int, register: int) -> int:
            return 0

    dev = i2c.NAU7802(Dead(), sleep=_no_sleep)
    with pytest.raises(HardwareError, match="PUR"):
        dev.open()


@pytest.mark.parametrize("raw, b", [(0x7FFFFF, (0x7F, 0xFF, 0xFF)), (-1, (0xFF, 0xFF, 0xFF)),
                                    (-0x800000, (0x80, 0, 0)), (0x123456, (0x12, 0x34, 0x56))])
def test_24_bit_conversion(raw: int, b: tuple[int, int, int]) -> None:
    assert i2c.from_24bit(*b) == raw


def test_a_missing_chip_is_an_os_error() -> None:
    with pytest.raises(OSError):
        i2c.MCP23017(i2c.EmulatedBus(), address=0x21).open()
