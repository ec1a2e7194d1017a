"""The configuration install.sh writes is one the daemon accepts, with the install's choices."""

from __future__ import annotations

import re

from firmware_host.config import load_settings
from tests.systemd.helpers import SYSTEMD


def test_example_config_loads_through_the_daemons_settings() -> None:
    # A key renamed in firmware_host/config.py fails here before it fails on a Pi.
    settings = load_settings(SYSTEMD / "config.example.toml")
    assert settings.port == 80  # the unit grants CAP_NET_BIND_SERVICE for exactly this
    assert str(settings.state_dir) == "/var/lib/cribbage-table"  # StateDirectory=cribbage-table
    assert settings.board.port == "/dev/cribbage-board"  # the udev rule's SYMLINK
    assert "cribbage.local" in settings.allowed_hosts


def test_udev_rule_names_the_configured_port() -> None:
    rules = (SYSTEMD / "99-cribbage-board.rules").read_text()
    links = set(re.findall(r'SYMLINK\+="([^"]+)"', rules))
    settings = load_settings(SYSTEMD / "config.example.toml")
    assert {f"/dev/{link}" for link in links} == {settings.board.port}
    # Serial ports go to dialout, the group the service user is in.
    assert all('GROUP="dialout"' in line for line in rules.splitlines() if "SYMLINK" in line)
