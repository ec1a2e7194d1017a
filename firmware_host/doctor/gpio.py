"""The checks of the Pi's pins: the service user's groups, gpiozero's pin factory, the SPI
strip and what a killed daemon leaves the feed motor doing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from firmware_host.doctor.installation import INSTALL_HINT, SERVICE, Setup, _resolve, pi_model
from firmware_host.doctor.report import Check, Status


def check_user_groups(setup: Setup) -> Check:
    user = setup.user
    groups = setup.groups_of(user)
    if groups is None and pi_model(setup) is None:
        return Check("groups", Status.SKIP, f"not a Raspberry Pi: the service user {user!r} "
                     "is needed only by the installed service")
    if groups is None:
        return Check(
            "groups",
            Status.FAIL,
            f"the service user {user!r} does not exist",
            f"create it with {INSTALL_HINT}",
        )
    on_pi = pi_model(setup) is not None
    missing: list[str] = []
    absent: list[str] = []
    for name in ("gpio", "dialout"):
        if not setup.group_exists(name):
            absent.append(name)
        elif name not in groups:
            missing.append(name)
    # The unit's SupplementaryGroups= names spi: without the group the service cannot start.
    if not setup.group_exists("spi"):
        absent.append("spi")
    details = {"user": user, "groups": sorted(groups)}
    if missing:
        return Check(
            "groups",
            Status.FAIL,
            f"{user} is not in {', '.join(missing)}: it cannot open "
            + ("the GPIO chips" if missing == ["gpio"] else "the board's serial port"
               if missing == ["dialout"] else "the GPIO chips or the serial port"),
            f"sudo usermod -aG {','.join(missing)} {user} && sudo systemctl restart {SERVICE}",
            details,
        )
    if absent:
        status = Status.FAIL if on_pi else Status.SKIP
        return Check(
            "groups",
            status,
            f"no {', '.join(absent)} group on this system"
            + ("" if on_pi else " (not a Raspberry Pi OS)"),
            f"sudo groupadd --system {absent[0]} (install.sh does it; the unit needs "
            f"{', '.join(absent)})" if on_pi else None,
            details,
        )
    return Check("groups", Status.OK, f"{user} is in gpio and dialout", details=details)


# gpiozero's factories by the names GPIOZERO_PIN_FACTORY takes: the Debian package that brings
# each on Raspberry Pi OS, and the boards it drives (RPi.GPIO predates the Pi 5's RP1 chip).
PIN_FACTORIES: dict[str, tuple[str, str]] = {
    "lgpio": ("python3-lgpio", "every Pi, the Pi 5 included (the default)"),
    "rpigpio": ("python3-rpi.gpio", "Pi Zero 2 W, 3 and 4 (not the Pi 5)"),
    "pigpio": ("python3-pigpio pigpiod", "Pi Zero 2 W, 3 and 4, through the pigpiod daemon"),
    "native": ("", "experimental, no PWM: not for the servo or the motor's speed"),
}
_FACTORY_CLASSES = {"LGPIOFactory": "lgpio", "RPiGPIOFactory": "rpigpio",
                    "PiGPIOFactory": "pigpio", "NativeFactory": "native"}


def check_pin_factory(setup: Setup) -> Check:
    named = setup.environ.get("GPIOZERO_PIN_FACTORY")
    asked = (named or "").strip().lower()
    if asked and asked not in PIN_FACTORIES and asked != "mock":
        return Check("gpio", Status.FAIL,
                     f"GPIOZERO_PIN_FACTORY={named} names no gpiozero factory",
                     f"use one of {', '.join(PIN_FACTORIES)}, or unset it", {"env": named})
    try:
        name, reasons = setup.pin_factory()
    except ImportError as exc:
        return Check("gpio", Status.FAIL, f"gpiozero is not installed: {exc}",
                     f"rerun {INSTALL_HINT}")
    details = {"factory": name, "fallbacks": reasons, "env": named}
    if _resolve(setup.gpio_mode, setup) != "real":
        return Check("gpio", Status.SKIP,
                     f"GPIO devices are simulated in the configuration (gpiozero would use "
                     f"{name})", details=details)
    if name == "none":
        return _no_pin_factory(pi_model(setup), named, reasons, details)
    return _pin_factory_found(pi_model(setup), name, named, details)


def _no_pin_factory(model: str | None, named: str | None, reasons: list[str],
                    details: dict[str, Any]) -> Check:
    """The gpio check when no factory loads: fine off a Pi, else what brings one."""
    asked = (named or "").strip().lower()
    if model is None:
        return Check("gpio", Status.SKIP,
                     "mock/none: no pin factory loads (not a Pi); crib serve --simulate "
                     "simulates the GPIO devices", details=details)
    if asked in PIN_FACTORIES:  # the one asked for is missing: say what brings it
        package, boards = PIN_FACTORIES[asked]
        return Check("gpio", Status.FAIL,
                     f"GPIOZERO_PIN_FACTORY={named} does not load ({reasons[-1]})",
                     (f"sudo apt install {package}" if package else "unset it")
                     + f" ({asked}: {boards})", details)
    return Check("gpio", Status.FAIL,
                 f"no gpiozero pin factory loads ({'; '.join(reasons[:2])})",
                 "sudo apt install python3-lgpio, and a venv with --system-site-packages "
                 f"({INSTALL_HINT})", details)


def _pin_factory_found(model: str | None, name: str, named: str | None,
                       details: dict[str, Any]) -> Check:
    """The gpio check when gpiozero loads factory `name`: whether it can drive this Pi."""
    if name == "MockFactory":
        return Check("gpio", Status.WARN,
                     "mock: gpiozero uses MockFactory, no real pin moves",
                     "unset GPIOZERO_PIN_FACTORY", details)
    if model is not None and "Pi 5" in model and name != "LGPIOFactory":
        return Check("gpio", Status.FAIL,
                     f"gpiozero would use {name}, which cannot drive a Pi 5's GPIO",
                     "sudo apt install python3-lgpio", details)
    if name == "NativeFactory":
        return Check("gpio", Status.WARN,
                     "gpiozero falls back to its NativeFactory (no PWM, experimental)",
                     "sudo apt install python3-lgpio", details)
    short = _FACTORY_CLASSES.get(name)
    how = f" ({short}, asked for by GPIOZERO_PIN_FACTORY)" if named else (
        f" ({short}, gpiozero's first choice that loads)" if short else "")
    return Check("gpio", Status.OK, f"gpiozero will use {name}{how}", details=details)


_BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")  # Bookworm, then older
_SPI_ON = re.compile(r"^\s*dtparam=(?:[^#\n]*,)?spi=on\b", re.MULTILINE)
_CORE_FREQ = re.compile(r"^\s*core_freq(?:_min)?=", re.MULTILINE)


def _boot_config(setup: Setup) -> tuple[Path | None, str]:
    for rel in _BOOT_CONFIGS:
        path = setup.sys_root / rel
        try:
            return path, path.read_text(errors="replace")
        except OSError:
            continue
    return None, ""


def check_spi(setup: Setup) -> Check:
    if _resolve(setup.board_mode, setup) != "spi":
        return Check("spi", Status.SKIP, "the board is not on SPI in the configuration")
    device = setup.spi_device
    model = pi_model(setup)
    boot, text = _boot_config(setup)
    shown = f"/{boot.relative_to(setup.sys_root)}" if boot else "/boot/firmware/config.txt"
    details: dict[str, Any] = {"device": device, "boot_config": shown}
    problem = _spi_unusable(setup, model, text, shown)
    if problem is not None:
        return Check("spi", Status.FAIL, *problem, details)
    try:
        bufsiz = int((setup.sys_root / "sys/module/spidev/parameters/bufsiz").read_text())
    except (OSError, ValueError):
        bufsiz = 4096
    details["bufsiz"] = bufsiz
    details["frame_bytes"] = setup.spi_frame_bytes
    if setup.spi_frame_bytes > bufsiz:
        return Check("spi", Status.FAIL,
                     f"a frame is {setup.spi_frame_bytes} SPI bytes, more than spidev's "
                     f"buffer of {bufsiz}",
                     "add spidev.bufsiz=65536 to /boot/firmware/cmdline.txt and reboot", details)
    # On a Pi 3, 4 and Zero 2 W the SPI clock follows the core clock, which scales with load
    # unless pinned; a Pi 5's SPI is on the RP1 and keeps its clock.
    if model is not None and "Pi 5" not in model and not _CORE_FREQ.search(text):
        fix = "core_freq=500 and core_freq_min=500" if "Pi 4" in model or "Pi 400" in model \
            else "core_freq=250"
        return Check("spi", Status.WARN,
                     f"{device} is ready, but the core clock is not pinned: the LED timing "
                     "drifts when it scales", f"add {fix} to {shown} and reboot", details)
    return Check("spi", Status.OK, f"{device} is ready ({setup.spi_frame_bytes} bytes a "
                 f"frame, buffer {bufsiz})", details=details)


def _spi_unusable(setup: Setup, model: str | None, boot_text: str,
                  shown: str) -> tuple[str, str] | None:
    """(what, fix) when the service cannot open the SPI device at all, else None."""
    device = setup.spi_device
    if model is not None and not _SPI_ON.search(boot_text):
        return (f"SPI is off: no dtparam=spi=on in {shown}",
                f"sudo raspi-config nonint do_spi 0 (or add dtparam=spi=on to {shown}), "
                "then reboot")
    if not (setup.sys_root / device.lstrip("/")).exists():
        return (f"{device} does not exist", "turn SPI on (dtparam=spi=on) and reboot" if model
                else "not a Raspberry Pi: use board.mode = \"simulated\" here")
    groups = setup.groups_of(setup.user)
    if groups is not None and "spi" not in groups:
        return (f"{setup.user} is not in the spi group: it cannot open {device}",
                f"sudo usermod -aG spi {setup.user} && sudo systemctl restart {SERVICE}")
    return None


# Raspberry Pi kernels keep a released GPIO output driving as it was (so `gpioset` values
# persist), unless told otherwise; upstream returns it to an input. The module parameter says
# which; `dtparam=strict_gpiod` in config.txt sets it on every model.
_PERSIST_PARAMS = ("sys/module/pinctrl_bcm2835/parameters/persist_gpio_outputs",
                   "sys/module/pinctrl_rp1/parameters/persist_gpio_outputs")
_STRICT_GPIOD = re.compile(r"^\s*dtparam=(?:[^#\n]*,)?strict_gpiod(?:=on)?\s*(?:[,#]|$)",
                           re.MULTILINE)


def check_motor_release(setup: Setup) -> Check:
    """Whether a daemon killed with the feed motor on leaves the motor running."""
    model = pi_model(setup)
    if model is None:
        return Check("motor", Status.SKIP, "not a Raspberry Pi")
    if _resolve(setup.shuffler_mode, setup) != "real":
        return Check("motor", Status.SKIP, "the shuffler is not on GPIO in the configuration")
    boot, text = _boot_config(setup)
    shown = f"/{boot.relative_to(setup.sys_root)}" if boot else "/boot/firmware/config.txt"
    fix = f"add dtparam=strict_gpiod to {shown} and reboot"
    persist = None
    for rel in _PERSIST_PARAMS:
        try:
            persist = (setup.sys_root / rel).read_text().strip().upper()[:1] == "Y"
            break
        except OSError:
            continue
    details: dict[str, Any] = {"persist_gpio_outputs": persist, "boot_config": shown}
    if persist is False:
        return Check("motor", Status.OK, "a released GPIO goes back to an input: if the "
                     "daemon dies, the motor driver's pull-down stops the feed motor",
                     details=details)
    if persist is None and _STRICT_GPIOD.search(text):
        return Check("motor", Status.OK, f"dtparam=strict_gpiod is in {shown}: a released "
                     "GPIO goes back to an input", details=details)
    said = "keeps" if persist else "may keep"
    return Check("motor", Status.WARN,
                 f"this Pi {said} a released GPIO output driving: if the daemon or a "
                 "bring-up command is killed with the feed motor on, the motor keeps running",
                 fix, details)
