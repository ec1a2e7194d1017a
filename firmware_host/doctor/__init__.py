"""`crib doctor`: checks an installation on the Pi and explains each problem with its fix.

Every check gives one line: a status, what was found, and what to do about it. Every path
and system lookup is a field of `Setup`, so tests can run broken installations. The checks
live by what they look at: `system` (platform, configuration, state, unit, power, disk),
`gpio` (groups, pin factory, SPI, motor) and `board` (the USB board).
"""

from __future__ import annotations

from firmware_host.doctor.board import check_board_hello, check_serial_port
from firmware_host.doctor.gpio import (
    _CORE_FREQ,
    PIN_FACTORIES,
    check_motor_release,
    check_pin_factory,
    check_spi,
    check_user_groups,
)
from firmware_host.doctor.installation import (
    DEFAULT_CONFIG,
    DEFAULT_STATE_DIR,
    DEFAULT_UNIT,
    SERVICE,
    SERVICE_USER,
    Setup,
    _resolve,
    pi_model,
)
from firmware_host.doctor.lookups import (
    BY_ID_DIR,
    MICROPYTHON_USB_ID,
    SYS_ROOT,
    BoardBusyError,
    gpiozero_pin_factory,
    micropython_ports,
    probe_board,
    sniff_repl,
)
from firmware_host.doctor.report import Check, Report, Status
from firmware_host.doctor.system import (
    check_config,
    check_disk,
    check_platform,
    check_power,
    check_state_dir,
    check_unit_version,
)

__all__ = [
    "BY_ID_DIR", "DEFAULT_CONFIG", "DEFAULT_STATE_DIR", "DEFAULT_UNIT", "MICROPYTHON_USB_ID",
    "PIN_FACTORIES", "SERVICE", "SERVICE_USER", "SYS_ROOT", "_CORE_FREQ", "BoardBusyError",
    "Check", "Report", "Setup", "Status", "_resolve", "check_board_hello", "check_config",
    "check_disk", "check_motor_release", "check_pin_factory", "check_platform", "check_power",
    "check_serial_port", "check_spi", "check_state_dir", "check_unit_version",
    "check_user_groups", "gpiozero_pin_factory", "micropython_ports", "pi_model",
    "probe_board", "run", "sniff_repl",
]


def run(setup: Setup) -> Report:
    """Run every check, in the order they are printed."""
    serial_check = check_serial_port(setup)
    return Report((
        check_platform(setup), check_config(setup), check_user_groups(setup),
        check_pin_factory(setup), serial_check, check_board_hello(setup, serial_check),
        check_spi(setup), check_motor_release(setup), check_state_dir(setup),
        check_unit_version(setup), check_power(setup), check_disk(setup),
    ))
