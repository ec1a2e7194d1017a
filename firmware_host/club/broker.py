"""A Mosquitto configuration for one club: a user per table, the director, and an ACL that
keeps each table to its own topics (the broker refuses the rest).

Passwords are hashed by Mosquitto's own `mosquitto_passwd` (Debian's `mosquitto` package);
nothing here talks MQTT.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from firmware_host.club.schema import DIRECTOR_USER, PREFIX, check_slug

MAX_PACKET = 64 * 1024  # bytes: the broker drops a client that sends a bigger packet


class BrokerConfigError(ValueError):
    """A club's broker configuration that cannot be written: the sentence says why."""


def acl_text(club: str) -> str:
    """The ACL: a table (user name = table name) writes its own state, presence and results
    and reads its own seating and counted ids and the standings; the director reads and
    writes the club's topics. Anything else is refused by the broker."""
    check_slug("club", club)
    base = f"{PREFIX}/{club}"
    return "\n".join([
        "# Written by `crib club broker-config`: each table is a user named as the table.",
        "# Patterns first: they apply to every user (%u is the user name).",
        f"pattern write {base}/tables/%u/online",
        f"pattern write {base}/tables/%u/state",
        f"pattern write {base}/tables/%u/results",
        f"pattern read {base}/tables/%u/seating",
        f"pattern read {base}/tables/%u/counted",
        f"pattern read {base}/standings",
        "pattern write homeassistant/sensor/%u/+/config",
        "",
        f"user {DIRECTOR_USER}",
        f"topic readwrite {base}/#",
        "",
    ])


@dataclass(frozen=True)
class TLSFiles:
    """A listener's certificate and key (PEM), and the CA file that signed them."""

    cafile: Path
    certfile: Path
    keyfile: Path


def conf_text(directory: Path, *, port: int = 1883, host: str = "",
              tls: TLSFiles | None = None, tls_port: int = 8883, user: str | None = None
              ) -> str:
    """mosquitto.conf for the files in `directory`: no anonymous clients, the password file
    and ACL beside it, persistence (queued QoS 1 messages survive a restart). `user`: who
    a broker started as root runs as (Mosquitto's default is `mosquitto`, who must then be
    able to read the password file)."""
    lines = [
        "# Written by `crib club broker-config`; run: mosquitto -c THIS_FILE",
        *([f"user {user}"] if user else []),
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {directory / 'passwd'}",
        f"acl_file {directory / 'acl'}",
        "persistence true",
        f"persistence_location {directory / 'data'}/",
        "autosave_interval 30",
        f"max_packet_size {MAX_PACKET}",
        "max_queued_messages 1000",
        "log_dest stdout",
        "log_type error",
        "log_type warning",
        "log_type notice",
        f"listener {port}{(' ' + host) if host else ''}",
    ]
    if tls is not None:
        lines += [f"listener {tls_port}{(' ' + host) if host else ''}",
                  f"cafile {tls.cafile}", f"certfile {tls.certfile}", f"keyfile {tls.keyfile}"]
    return "\n".join(lines) + "\n"


def write_config(directory: Path, club: str, passwords: dict[str, str], *, port: int = 1883,
                 host: str = "", tls: TLSFiles | None = None, user: str | None = None
                 ) -> Path:
    """Write mosquitto.conf, acl and passwd (hashed) into `directory`; returns the conf's
    path. `passwords` maps each table name, and "director", to its password.

    Raises BrokerConfigError for a bad name, an empty password, no director, or no
    `mosquitto_passwd` on this machine.
    """
    try:
        check_slug("club", club)
        for name in passwords:
            if name != DIRECTOR_USER:
                check_slug("table", name)
    except ValueError as exc:
        raise BrokerConfigError(str(exc)) from None
    if DIRECTOR_USER not in passwords:
        raise BrokerConfigError("the director needs a password too (user 'director')")
    empty = [n for n, p in passwords.items() if not p]
    if empty:
        raise BrokerConfigError(f"no password for {', '.join(empty)}")
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise BrokerConfigError("mosquitto_passwd is missing: sudo apt install mosquitto")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "data").mkdir(exist_ok=True)
    passwd = directory / "passwd"
    passwd.write_text("")
    passwd.chmod(0o600)
    for name, password in passwords.items():
        # -b takes the password as an argument: this runs on the director's own machine.
        subprocess.run([tool, "-b", str(passwd), name, password], check=True,
                       capture_output=True)
    (directory / "acl").write_text(acl_text(club))
    conf = directory / "mosquitto.conf"
    conf.write_text(conf_text(directory, port=port, host=host, tls=tls, user=user))
    return conf
