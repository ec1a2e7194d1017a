"""A Mosquitto configuration for one club: a user per table, the director, and an ACL that
keeps each table to its own topics (the broker refuses the rest).

Two shapes: a whole configuration (`mosquitto -c FILE`), or an include for Debian's service,
dropped in /etc/mosquitto/conf.d/ beside Debian's main file, which already sets
`persistence_location`, `pid_file` and `log_dest` (Mosquitto refuses a second value).

Every client id is its user name (`use_username_as_clientid`): no password takes another
user's session (the director's queue above all), and a table has one connection at most.
Mosquitto has no per-client message rate; what bounds a table's flood at the broker is that
one connection, the packet size, and the director's queue (`max_queued_messages`) sized to
hold a flood and the real results behind it; the director bounds each table's lane itself.

Passwords are hashed by Mosquitto's own `mosquitto_passwd` (Debian's `mosquitto` package);
nothing here talks MQTT.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from firmware_host.clubwire import DIRECTOR_USER, PREFIX, check_slug

PASSWORDS_FILE = "passwords.txt"
MAX_QUEUED = 20000  # messages the broker holds for the director while it is away or busy
MAX_QUEUED_BYTES = 32 * 1024 * 1024  # and their size, per client
MAX_CONNECTIONS = 1024  # a club's tables, the director, and room for a broken client or two
LISTENER = ("use_username_as_clientid true", f"max_connections {MAX_CONNECTIONS}")
MAX_PACKET = 256 * 1024  # bytes: the biggest (the standings of 1,000 players) is under 128 KiB


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
              tls: TLSFiles | None = None, tls_port: int = 8883, user: str | None = None,
              include: bool = False) -> str:
    """mosquitto.conf for the files in `directory`: no anonymous clients, client ids tied to
    users, the password file and ACL beside it, persistence (queued QoS 1 messages survive a
    restart). `user`: who a broker started as root runs as. `include`: the part that goes in
    Debian's /etc/mosquitto/conf.d/ (its main file has the persistence location, the pid
    file and the log, and runs as `mosquitto`)."""
    head = "Debian's service includes it (/etc/mosquitto/conf.d/)" if include else \
        "run: mosquitto -c THIS_FILE"
    lines = [
        f"# Written by `crib club broker-config`; {head}",
        *([f"user {user}"] if user and not include else []),
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {directory / 'passwd'}",
        f"acl_file {directory / 'acl'}",
        *([] if include else ["persistence true",
                              f"persistence_location {directory / 'data'}/"]),
        "autosave_interval 30",
        f"max_packet_size {MAX_PACKET}",
        f"max_queued_messages {MAX_QUEUED}",
        f"max_queued_bytes {MAX_QUEUED_BYTES}",
        "max_keepalive 120",
        *([] if include else ["log_dest stdout"]),
        "log_type error",
        "log_type warning",
        "log_type notice",
        # A listener's own settings go after its `listener` line (before any, they would
        # open a default listener on 1883 as well).
        f"listener {port}{(' ' + host) if host else ''}",
        *LISTENER,
    ]
    if tls is not None:
        lines += [f"listener {tls_port}{(' ' + host) if host else ''}", *LISTENER,
                  f"cafile {tls.cafile}", f"certfile {tls.certfile}", f"keyfile {tls.keyfile}"]
    return "\n".join(lines) + "\n"


def read_passwords(directory: Path) -> dict[str, str]:
    """The users and passwords an earlier run wrote to `directory`/passwords.txt (none:
    {}); raises BrokerConfigError for a file it cannot read."""
    path = directory / PASSWORDS_FILE
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise BrokerConfigError(f"{path}: cannot read it ({exc.strerror})") from None
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            user, _, password = line.strip().partition(" ")
            if password:
                out[user] = password
    return out


def write_passwords(directory: Path, club: str, passwords: dict[str, str]) -> Path:
    """`directory`/passwords.txt, mode 0600: one "user password" line each."""
    listing = directory / PASSWORDS_FILE
    fd = os.open(listing, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(f"# club {club}: broker users and passwords (keep this file private)\n")
        for name, password in passwords.items():
            fh.write(f"{name} {password}\n")
    os.chmod(listing, 0o600)
    return listing


def hand_to(user: str, paths: list[Path]) -> None:
    """Make `paths` owned by `user` (the broker drops to that user after reading its
    configuration as root, then reads the password file and writes `data/` as it); raises
    BrokerConfigError for an unknown user, or when this process may not give files away."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise BrokerConfigError(f"--user {user}: no such user on this machine") from None
    if entry.pw_uid == os.getuid():
        return
    if os.geteuid() != 0:
        raise BrokerConfigError(f"--user {user}: the files must be {user}'s, and only root "
                                "may give them away: run it with sudo")
    for path in paths:
        os.chown(path, entry.pw_uid, entry.pw_gid)


def write_config(directory: Path, club: str, passwords: dict[str, str], *, port: int = 1883,
                 host: str = "", tls: TLSFiles | None = None, user: str | None = None,
                 include: bool = False) -> Path:
    """Write mosquitto.conf, acl and passwd (hashed) into `directory`; returns the conf's
    path. `passwords` maps each table name, and "director", to its password. `user`: the
    password file, the ACL and `data/` become that user's (the broker reads them as it).

    Raises BrokerConfigError for a bad or reserved name, an empty password, no director, no
    `mosquitto_passwd` on this machine, or files that cannot be given to `user`.
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
    (directory / "acl").chmod(0o600)
    conf = directory / "mosquitto.conf"
    conf.write_text(conf_text(directory, port=port, host=host, tls=tls, user=user,
                              include=include))
    if user:
        hand_to(user, [directory, passwd, directory / "acl", directory / "data"])
    return conf
