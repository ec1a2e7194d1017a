"""install.sh and uninstall.sh in a throwaway root: what they write and what they would run."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.systemd.helpers import (
    INSTALL,
    REPO,
    SYSTEMD,
    UNINSTALL,
    UNIT_NAME,
    commands,
    install,
    project_version,
    run_script,
)


def paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "root", tmp_path / "opt" / "cribbage-table"


def test_first_install_writes_every_file(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    out = install(root, prefix).stdout
    unit = (root / "etc/systemd/system" / UNIT_NAME).read_text()
    config_path = "/etc/cribbage-table/config.toml"
    assert f"ExecStart={prefix}/venv/bin/crib serve --config {config_path}" in unit
    assert f"X-CribbageVersion={project_version()}" in unit
    config = root / "etc/cribbage-table/config.toml"
    assert config.read_text() == (SYSTEMD / "config.example.toml").read_text()
    assert (root / "etc/cribbage-table/config.example.toml").exists()
    rules = (root / "etc/udev/rules.d/99-cribbage-board.rules").read_text()
    assert 'SYMLINK+="cribbage-board"' in rules
    # MicroPython's own USB id (the flashed Pico) and the SPI device for the direct build.
    assert 'ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005", SYMLINK+="cribbage-board"' in rules
    assert 'SUBSYSTEM=="spidev", KERNEL=="spidev0.0", GROUP="spi", MODE="0660"' in rules
    avahi = (root / "etc/avahi/services/cribbage.service").read_text()
    assert "<port>80</port>" in avahi and "_http._tcp" in avahi
    assert (root / "etc/systemd/system" / (UNIT_NAME + ".d") / "README.conf").exists()
    assert (root / "usr/local/bin/crib").readlink() == prefix / "venv/bin/crib"
    assert "= write /etc/cribbage-table/config.toml (new)" in out
    # A dry run says so at the end: nothing installed, and where the phone would go after.
    assert out.splitlines()[-2] == "==> dry run: nothing was installed, started or renamed"
    assert "After a real run, open on the phone:  http://cribbage.local/" in out
    assert "installed\n" not in out and "Open on the phone:" not in out


def test_install_prints_but_does_not_run_the_system_commands(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    cmds = commands(install(root, prefix).stdout)
    apt = next(c for c in cmds if c.startswith("apt-get install"))
    for package in ("python3-venv", "python3-lgpio", "python3-spidev", "avahi-daemon"):
        assert package in apt.split()
    assert any("useradd --system" in c and c.endswith(" cribbage") for c in cmds)
    assert "usermod -a -G gpio,dialout,spi cribbage" in cmds
    # The unit's SupplementaryGroups= needs every group to exist, or the service won't start.
    assert "getent group spi >/dev/null || groupadd --system spi" in cmds
    assert f"python3 -m venv --system-site-packages --clear {prefix}/venv" in cmds
    # The `board` extra: mpremote, for `crib board flash`.
    # Not --quiet: pip's line per package shows the long step is moving.
    assert (f"{prefix}/venv/bin/pip install --progress-bar off --disable-pip-version-check "
            f"--upgrade {REPO}[board]") in cmds
    order = [c for c in cmds if c.startswith("systemctl")]
    assert order.index("systemctl daemon-reload") < order.index("systemctl enable cribbage-table")
    assert order[-1] == "systemctl restart cribbage-table"
    assert "udevadm control --reload-rules" in cmds


def test_second_run_upgrades_and_keeps_the_configuration(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    install(root, prefix)
    config = root / "etc/cribbage-table/config.toml"
    mine = config.read_text().replace("port = 80\n", "port = 8080\n") + "# my own edit\n"
    config.write_text(mine)
    unit = root / "etc/systemd/system" / UNIT_NAME
    unit.write_text(unit.read_text().replace(project_version(), "0.0.1"))  # an older install
    out = install(root, prefix).stdout
    assert config.read_text() == mine
    assert "= keep /etc/cribbage-table/config.toml" in out
    assert f"X-CribbageVersion={project_version()}" in unit.read_text()
    assert "= write /etc/systemd/system/cribbage-table.service (updated)" in out
    # The announcement and the printed address follow the port in force.
    assert "<port>8080</port>" in (root / "etc/avahi/services/cribbage.service").read_text()
    assert "http://cribbage.local:8080/" in out


def test_stock_hostname_is_renamed_to_cribbage(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    cmds = commands(install(root, prefix, hostname="raspberrypi").stdout)
    assert "hostnamectl set-hostname cribbage" in cmds
    assert any(c.startswith("sed -i") and c.endswith("/etc/hosts") for c in cmds)


def test_own_hostname_is_kept_and_allowed(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    out = install(root, prefix, hostname="kitchen").stdout
    assert not any("hostnamectl" in c for c in commands(out))
    assert "http://kitchen.local/" in out and "--hostname cribbage" in out
    with open(root / "etc/cribbage-table/config.toml", "rb") as fh:
        assert "kitchen.local" in tomllib.load(fh)["allowed_hosts"]


def test_explicit_hostname_renames_any_name(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    cmds = commands(install(root, prefix, "--hostname", "crib2", hostname="kitchen").stdout)
    assert "hostnamectl set-hostname crib2" in cmds


def test_root_without_dry_run_is_refused(tmp_path: Path) -> None:
    done = run_script(INSTALL, "--root", tmp_path)
    assert done.returncode != 0 and "--dry-run" in done.stderr
    assert not any(tmp_path.iterdir())


def test_bad_options_are_refused_by_name(tmp_path: Path) -> None:
    done = run_script(INSTALL, "--dry-run", "--root", tmp_path, "--prefix", "opt")
    assert done.returncode != 0 and "'opt'" in done.stderr
    done = run_script(INSTALL, "--dry-run", "--frobnicate")
    assert done.returncode != 0 and "--frobnicate" in done.stderr


def test_uninstall_keeps_configuration_and_games(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    install(root, prefix)
    (root / "var/lib/cribbage-table").mkdir(parents=True)
    (root / "var/lib/cribbage-table/cribbage.sqlite3").write_text("games")
    done = run_script(UNINSTALL, "--dry-run", "--root", root, "--prefix", prefix)
    assert done.returncode == 0, done.stderr
    assert not (root / "etc/systemd/system" / UNIT_NAME).exists()
    assert not (root / "etc/udev/rules.d/99-cribbage-board.rules").exists()
    assert not (root / "etc/avahi/services/cribbage.service").exists()
    assert not (root / "usr/local/bin/crib").exists()
    assert (root / "etc/cribbage-table/config.toml").exists()
    assert (root / "var/lib/cribbage-table/cribbage.sqlite3").read_text() == "games"
    assert "systemctl disable --now cribbage-table 2>/dev/null || true" in commands(done.stdout)
    assert not any("userdel" in c for c in commands(done.stdout))


def test_uninstall_purge_removes_everything(tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    install(root, prefix)
    (root / "var/lib/cribbage-table").mkdir(parents=True)
    done = run_script(UNINSTALL, "--dry-run", "--purge", "--root", root, "--prefix", prefix)
    assert done.returncode == 0, done.stderr
    assert not (root / "etc/cribbage-table").exists()
    assert not (root / "var/lib/cribbage-table").exists()
    assert any("userdel cribbage" in c for c in commands(done.stdout))


def fake_uname(tmp_path: Path, machine: str) -> dict[str, str]:
    """An environment whose `uname -m` says `machine`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    uname = bin_dir / "uname"
    uname.write_text(f'#!/bin/sh\n[ "$1" = -m ] && echo {machine} || exec /bin/uname "$@"\n')
    uname.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize("machine", ["armv6l"])
def test_armv6l_is_refused_first_naming_the_boards_that_work(tmp_path: Path, machine: str) -> None:
    root, prefix = paths(tmp_path)
    done = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--root", str(root), "--prefix", str(prefix)],
        capture_output=True, text=True, timeout=60, env=fake_uname(tmp_path, machine),
        check=False)
    assert done.returncode == 1
    assert done.stdout == ""  # refused before any step, not half-way through
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "Pi Zero W" in line and "armv6l" in line
    for board in ("Pi Zero 2 W", "3", "4", "5"):
        assert board in line
    assert not (root / "etc/systemd").exists()


@pytest.mark.parametrize("machine", ["aarch64", "armv7l", "x86_64"])
def test_the_boards_that_work_are_not_refused(tmp_path: Path, machine: str) -> None:
    root, prefix = paths(tmp_path)
    done = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--root", str(root), "--prefix", str(prefix)],
        capture_output=True, text=True, timeout=60, env=fake_uname(tmp_path, machine),
        check=False)
    assert done.returncode == 0, done.stderr


def test_uninstall_says_what_it_leaves_and_purge_removes_what_install_added(
        tmp_path: Path) -> None:
    root, prefix = paths(tmp_path)
    install(root, prefix)
    record = root / "etc/cribbage-table/installed-by-crib.txt"
    record.write_text("enabled avahi-daemon\ngroup spi\npackage avahi-daemon\n"
                      "package python3-spidev\n")
    kept = run_script(UNINSTALL, "--dry-run", "--root", root, "--prefix", prefix).stdout
    assert "kept: groups spi (install.sh made them); --purge removes them" in kept
    assert "kept: avahi-daemon enabled" in kept
    assert "kept: packages avahi-daemon python3-spidev" in kept
    assert "host name" in kept
    assert kept.splitlines()[-1] == "==> dry run: nothing was removed"
    install(root, prefix)
    record.write_text("enabled avahi-daemon\ngroup spi\npackage avahi-daemon\n")
    purge = commands(run_script(UNINSTALL, "--dry-run", "--purge", "--root", root,
                                "--prefix", prefix).stdout)
    assert "getent group spi >/dev/null && groupdel spi || true" in purge
    assert not any("groupdel gpio" in c for c in purge)  # install.sh did not make it here
    assert "systemctl disable --now avahi-daemon 2>/dev/null || true" in purge
    assert "DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq avahi-daemon" in purge
