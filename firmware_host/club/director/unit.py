"""The director's systemd unit (`cribbage-club.service`), rendered for this machine's
`crib` and installed by `crib club install`: Type=notify with a watchdog (the director pings
from its event loop), restarted on failure, hardened like the table's unit.

This text is the unit's one source: nothing else in the repository copies it.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

NAME = "cribbage-club.service"
WATCHDOG_S = 20

TEMPLATE = """\
# cribbage-club.service: the club night's director (`crib club serve`), hardened.
# Written by `crib club install` for {crib}; run it again after an upgrade. Override with
# `sudo systemctl edit cribbage-club`, never by editing this file. The guide: docs/club.md.
#
# What stays open, and why: the network (the broker, and the standings page on http_port,
# 8080 by default: no capability is needed above 1024); AF_UNIX for NOTIFY_SOCKET and the
# journal.

[Unit]
Description=Cribbage club night: the director (results, seating, standings page)
After=network-online.target mosquitto.service
Wants=network-online.target mosquitto.service
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=notify
NotifyAccess=main
ExecStart={crib} club serve --config {config}
Environment=PYTHONUNBUFFERED=1
# The director pings every WatchdogSec/2 from its event loop.
WatchdogSec={watchdog}s
TimeoutStartSec=60s
TimeoutStopSec=20s
Restart=on-failure
RestartSec=3s
LimitNOFILE=2048

User={user}
Group={user}
StateDirectory=cribbage-club
StateDirectoryMode=0750
UMask=0077

CapabilityBoundingSet=
AmbientCapabilities=
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
PrivateMounts=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
ProcSubset=pid
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
RemoveIPC=yes

[Install]
WantedBy=multi-user.target
"""


class UnitError(RuntimeError):
    """The unit cannot be installed: the sentence says why and what to run."""


def crib_executable() -> Path:
    """The `crib` of the Python running this (a venv's bin/crib)."""
    return Path(sys.executable).parent / "crib"


def render(config: Path, *, crib: Path | None = None, user: str = "cribbage") -> str:
    """The unit's text for `crib` (default: this venv's) reading `config`."""
    return TEMPLATE.format(crib=crib or crib_executable(), config=config, user=user,
                           watchdog=WATCHDOG_S)


def install(config: Path, unit_dir: Path, *, user: str = "cribbage", start: bool = True,
            crib: Path | None = None) -> Iterator[str]:
    """Write the unit into `unit_dir`, make `user` (a system user) if there is none, let it
    read `config`, then (`start`) enable and start the service; yields a line per step.
    Raises UnitError for a missing config, no root, or a systemctl that fails."""
    if not config.is_file():
        raise UnitError(f"config {config}: no such file (write it first, as docs/club.md "
                        "shows)")
    if start and os.geteuid() != 0:
        raise UnitError("installing a service needs root: sudo crib club install")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(user)
        except KeyError:
            _run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                  user])
            yield f"made the system user {user}"
        # The config holds the broker password: root's, readable by the service's group.
        os.chown(config, 0, grp.getgrnam(user).gr_gid)
        config.chmod(0o640)
        yield f"{config}: root:{user}, mode 0640"
    unit_dir.mkdir(parents=True, exist_ok=True)
    path = unit_dir / NAME
    path.write_text(render(config, crib=crib, user=user))
    path.chmod(0o644)
    yield f"wrote {path}"
    if start:
        _run(["systemctl", "daemon-reload"])
        _run(["systemctl", "enable", "--now", NAME])
        _run(["systemctl", "restart", NAME])
        yield f"started {NAME}: `systemctl status cribbage-club`, `journalctl -u cribbage-club`"


def _run(argv: list[str]) -> None:
    if shutil.which(argv[0]) is None:
        raise UnitError(f"{argv[0]} is missing on this machine")
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UnitError(f"{' '.join(argv)} failed: {done.stderr.strip() or done.stdout.strip()}")
