"""The checks of the machine and the service: platform, configuration, state directory, unit,
power and disk."""

from __future__ import annotations

import re
import stat
import tempfile
from pathlib import Path

from firmware_host.doctor.installation import DEFAULT_CONFIG, INSTALL_HINT, SERVICE, Setup, pi_model
from firmware_host.doctor.report import Check, Status

# Free space below these stops the event log, or soon will.
DISK_FAIL_BYTES = 100 * 1024 * 1024
DISK_WARN_BYTES = 500 * 1024 * 1024

# Bits of the firmware's get_throttled word: now (low) and since boot (high).
_THROTTLE_NOW = {
    0: "under-voltage",
    1: "ARM frequency capped",
    2: "throttled",
    3: "soft temperature limit",
}
_THROTTLE_SINCE_BOOT_SHIFT = 16


def check_platform(setup: Setup) -> Check:
    model = pi_model(setup)
    if model is None:
        return Check(
            "platform", Status.OK, "not a Raspberry Pi: Pi-only checks are skipped", None
        )
    return Check("platform", Status.OK, model, details={"model": model})


def check_config(setup: Setup) -> Check:
    path = setup.config_path
    if setup.config_error is not None:
        return Check(
            "config",
            Status.FAIL,
            f"{path} is not valid: {setup.config_error}",
            f"correct it (sudoedit {path}); the keys are in config.example.toml beside it",
        )
    if path is None:
        if pi_model(setup) is None:  # a laptop: the defaults simulate every device
            return Check("config", Status.OK,
                         "no configuration file: the defaults (every device simulated) are in "
                         "use; --config FILE or CRIB_CONFIG gives one")
        return Check("config", Status.WARN, "no configuration file given: defaults in use",
                     f"pass --config {DEFAULT_CONFIG} or set CRIB_CONFIG")
    return Check("config", Status.OK, f"{path} is valid", details={"path": str(path)})


def _dir_writable(path: Path, uid: int | None, euid: int) -> str | None:
    """None when `path` is a writable directory, else the reason it is not."""
    if not path.exists():
        return "does not exist"
    if not path.is_dir():
        return "is not a directory"
    st = path.stat()
    if euid == 0:
        # root writes anywhere, so judge by what the service user will be allowed.
        if uid is not None and st.st_uid != uid:
            return f"is owned by uid {st.st_uid}, not the service user (uid {uid})"
        if not st.st_mode & stat.S_IWUSR:
            return f"has no write permission for its owner (mode {stat.filemode(st.st_mode)})"
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    return None


def check_state_dir(setup: Setup) -> Check:
    path = setup.state_dir
    uid = setup.user_uid(setup.user)
    problem = _dir_writable(path, uid, setup.euid)
    if problem is None:
        return Check("state", Status.OK, f"{path} is writable", details={"path": str(path)})
    on_pi = pi_model(setup) is not None
    if problem == "does not exist":
        if not on_pi:
            return _state_dir_to_make(path, setup.euid)
        return Check("state", Status.WARN,
                     f"state directory {path} does not exist yet",
                     f"sudo systemctl start {SERVICE} creates it (StateDirectory=)")
    if not on_pi:  # the laptop's own user runs crib serve, not the service user
        return Check("state", Status.FAIL,
                     f"state directory {path} {problem}: games cannot be saved",
                     f"make it yours: chown -R \"$USER\" {path} && chmod u+rwx {path}",
                     {"path": str(path)})
    owner = setup.user
    return Check(
        "state",
        Status.FAIL,
        f"state directory {path} {problem}: games cannot be saved",
        f"sudo chown -R {owner}:{owner} {path} && sudo chmod u+rwx {path}",
        {"path": str(path)},
    )


def _state_dir_to_make(path: Path, euid: int) -> Check:
    """The state check off a Pi for a folder not there yet: `crib serve` makes it (with its
    parents) unless the nearest folder that is there cannot take it."""
    there = path.parent
    while not there.exists() and there != there.parent:
        there = there.parent
    problem = _dir_writable(there, None, euid)
    if problem is None:
        return Check("state", Status.OK, f"state directory {path} is made by the first crib "
                     "serve", details={"path": str(path)})
    fix = "set state_dir (or CRIB_STATE_DIR) to a folder this user may write"
    if problem != "is not a directory":
        fix += f", or make it: sudo mkdir -p {path} && sudo chown \"$USER\" {path}"
    return Check("state", Status.FAIL, f"state directory {path} cannot be made: {there} "
                 f"{problem}", fix, {"path": str(path), "blocked_at": str(there)})


_VERSION_KEY = re.compile(r"^\s*X-CribbageVersion\s*=\s*(\S+)\s*$", re.MULTILINE)


def check_unit_version(setup: Setup) -> Check:
    app = setup.version()
    try:
        text = setup.unit_path.read_text()
    except FileNotFoundError:
        if pi_model(setup) is None:
            return Check("unit", Status.SKIP, f"not a Raspberry Pi: no unit at "
                         f"{setup.unit_path}, none needed", details={"application": app})
        return Check("unit", Status.WARN, f"no unit at {setup.unit_path}: not installed as a "
                     "service", f"install it with {INSTALL_HINT}", {"application": app})
    except OSError as exc:
        return Check("unit", Status.FAIL, f"{setup.unit_path} cannot be read: {exc}", None)
    m = _VERSION_KEY.search(text)
    unit = m.group(1) if m else None
    details = {"unit": unit, "application": app}
    if unit is None:
        return Check("unit", Status.FAIL, f"{setup.unit_path} carries no X-CribbageVersion",
                     f"rerun {INSTALL_HINT}", details)
    if app is None:
        return Check("unit", Status.FAIL, "the cribbage-table application is not installed",
                     f"rerun {INSTALL_HINT}", details)
    if unit != app:
        return Check("unit", Status.FAIL,
                     f"the unit was installed for {unit} but the application is {app}",
                     f"rerun {INSTALL_HINT} (it keeps the configuration and the games)",
                     details)
    return Check("unit", Status.OK, f"unit and application are both {app}", details=details)


def _throttled_word(setup: Setup) -> int | None:
    path = setup.sys_root / "sys/devices/platform/soc/soc:firmware/get_throttled"
    try:
        return int(path.read_text().strip(), 16)
    except (OSError, ValueError):
        pass
    out = setup.vcgencmd()
    if out:
        m = re.search(r"throttled=(0x[0-9a-fA-F]+)", out)
        if m:
            return int(m.group(1), 16)
    return None


def check_power(setup: Setup) -> Check:
    if pi_model(setup) is None:
        return Check("power", Status.SKIP, "not a Pi, skipped")
    word = _throttled_word(setup)
    if word is None:
        return Check("power", Status.SKIP, "the firmware does not report throttling here")
    now = [text for bit, text in _THROTTLE_NOW.items() if word & (1 << bit)]
    before = [
        text
        for bit, text in _THROTTLE_NOW.items()
        if word & (1 << (bit + _THROTTLE_SINCE_BOOT_SHIFT))
    ]
    details = {"throttled": hex(word), "now": now, "since_boot": before}
    fix = ("use the official power supply (5.1 V 3 A; 5 A for a Pi 5) and a short cable; "
           "power the LEDs from their own supply")
    if now:
        return Check("power", Status.FAIL, f"{', '.join(now)} now (throttled={hex(word)})",
                     fix, details)
    if before:
        return Check("power", Status.WARN,
                     f"{', '.join(before)} since boot (throttled={hex(word)})", fix, details)
    return Check("power", Status.OK, "no under-voltage or throttling since boot",
                 details=details)


def check_disk(setup: Setup) -> Check:
    path = setup.state_dir
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        usage = setup.disk_usage(path)
    except OSError as exc:
        return Check("disk", Status.FAIL, f"cannot read free space of {path}: {exc}")
    free = int(usage.free)
    text = f"{free / 1e9:.1f} GB free on {path}" if free >= 1e9 else (
        f"{free / 1e6:.0f} MB free on {path}")
    details = {"path": str(path), "free_bytes": free}
    fix = "free space: sudo apt clean; sudo journalctl --vacuum-size=50M"
    if free < DISK_FAIL_BYTES:
        return Check("disk", Status.FAIL, f"only {text}: games may not be saved", fix, details)
    if free < DISK_WARN_BYTES:
        return Check("disk", Status.WARN, f"only {text}", fix, details)
    return Check("disk", Status.OK, text, details=details)
