"""install.sh on a Debian Bookworm arm64 userland booted under real systemd, as an owner runs it.

The root is built by mmdebstrap from Debian's archive (cached between runs), booted by
systemd-nspawn, its arm64 binaries run by qemu-user-static through binfmt_misc. The checkout
is copied in, and `sudo ./systemd/install.sh` runs there with no flags. Then: the unit is
active (Type=notify: READY came), /api/health answers on port 80, `crib doctor` passes, a
second run changes nothing, and uninstall.sh removes what it says.

Needs root, mmdebstrap, systemd-container and qemu-user-static (`.ci/run` installs them);
marked `arm` and left out of the default run: `pytest -m arm tests/systemd/test_install_arm.py`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.systemd.helpers import REPO

pytestmark = [pytest.mark.arm, pytest.mark.timeout(3600)]

ARCH = "arm64"
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
# What a fresh Raspberry Pi OS Lite has that a minbase root lacks; the installer adds the rest
# (python3-venv, python3-pip, avahi-daemon) itself.
PACKAGES = ["systemd", "systemd-sysv", "dbus", "udev", "python3", "ca-certificates", "sudo",
            "iproute2", "procps", "git"]
CACHE = Path(os.environ.get("CRIB_ARM_CACHE", "/var/cache/cribbage-table-ci"))
QEMU = {"arm64": "aarch64", "armhf": "arm"}


def _say(message: str) -> None:
    print(f"[arm {time.strftime('%H:%M:%S')}] {message}", flush=True)


def _need_tools() -> None:
    if os.geteuid() != 0:
        pytest.fail("the ARM installer test needs root (systemd-nspawn, mmdebstrap)")
    missing = [tool for tool, package in (("mmdebstrap", "mmdebstrap"),
                                          ("systemd-nspawn", "systemd-container"),
                                          (f"qemu-{QEMU[ARCH]}-static", "qemu-user-static"))
               if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: apt-get install mmdebstrap "
                    "systemd-container qemu-user-static binfmt-support (.ci/run does)")
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    if not (binfmt / "status").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], check=True)
    if not (binfmt / f"qemu-{QEMU[ARCH]}").exists():
        subprocess.run(["update-binfmts", "--enable", f"qemu-{QEMU[ARCH]}"], check=True)
    flags = (binfmt / f"qemu-{QEMU[ARCH]}").read_text()
    assert "enabled" in flags, flags
    # F: the kernel holds the interpreter open, so it runs inside the container's own root.
    assert "flags: " in flags and "F" in flags.split("flags: ")[1].split()[0], flags


def _root_tarball() -> Path:
    """A Bookworm arm64 root as a tarball, built once per package list and reused."""
    key = hashlib.sha256(" ".join([ARCH, SUITE, MIRROR, *PACKAGES]).encode()).hexdigest()[:12]
    tarball = CACHE / f"{SUITE}-{ARCH}-{key}.tar"
    if tarball.is_file():
        _say(f"root from the cache: {tarball}")
        return tarball
    if tarball.is_dir():  # an older run's mmdebstrap wrote a directory under this name
        shutil.rmtree(tarball)
    CACHE.mkdir(parents=True, exist_ok=True)
    # mmdebstrap picks its output by the name's ending unless told: it is told.
    partial = tarball.with_name(tarball.name + ".partial")
    partial.unlink(missing_ok=True)
    t0 = time.monotonic()
    _say(f"building a {SUITE} {ARCH} root with mmdebstrap (minutes under emulation)")
    subprocess.run(["mmdebstrap", f"--arch={ARCH}", "--variant=minbase", "--format=tar",
                    f"--include={','.join(PACKAGES)}", SUITE, str(partial), MIRROR],
                   check=True, stdout=subprocess.DEVNULL)
    partial.rename(tarball)
    _say(f"root built in {time.monotonic() - t0:.0f} s")
    return tarball


@dataclass
class Machine:
    """A booted container: run commands in it as root, through its own namespaces."""

    root: Path
    leader: int

    def run(self, script: str, *, timeout: float = 1800,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run `bash -c script` inside; its output is returned, and echoed for the CI log."""
        exports = " ".join(f"{k}={v}" for k, v in (env or {}).items())
        command = ["nsenter", f"--target={self.leader}", "--mount", "--uts", "--ipc", "--net",
                   "--pid", "--", "/usr/bin/env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:"
                   "/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8",
                   *exports.split(), "/bin/bash", "-c", script]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
        for line in (done.stdout + done.stderr).splitlines()[-60:]:
            print(f"    | {line}")
        return done


def _leader(nspawn: subprocess.Popen[bytes], deadline: float) -> int:
    """The container's PID 1 (systemd), a child of systemd-nspawn."""
    while time.monotonic() < deadline:
        assert nspawn.poll() is None, "systemd-nspawn ended before the container booted"
        for child in Path(f"/proc/{nspawn.pid}/task/{nspawn.pid}/children").read_text().split():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{child}/comm").read_text().strip() == "systemd":
                    return int(child)
        time.sleep(0.5)
    raise AssertionError("the container's systemd did not start")


def _booted(box: Machine, deadline: float) -> str:
    """Wait until the container's systemd has finished booting; its state (degraded is fine:
    a container has units that cannot start, such as the hardware clock's)."""
    while time.monotonic() < deadline:
        state = box.run("systemctl is-system-running --wait 2>/dev/null", timeout=600).stdout
        if state.strip() in {"running", "degraded"}:
            return state.strip()
        time.sleep(2)  # D-Bus not up yet: "Failed to connect to bus"
    raise AssertionError("the container's systemd did not finish booting")


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    _need_tools()
    tarball = _root_tarball()
    root = tmp_path_factory.mktemp("arm") / "root"
    root.mkdir()
    subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-xpf", str(tarball)],
                   check=True)
    (root / "etc/hostname").write_text("raspberrypi\n")  # a stock Pi's name: renamed
    # The checkout, as an owner clones it (tracked files, no venv).
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], cwd=REPO, capture_output=True, check=True)
    src = root / "root/cribbage-table"
    for name in filter(None, files.stdout.decode().split("\0")):
        if (REPO / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, src / name)
    # This sandbox reaches the internet through an inspecting proxy: its CA goes in too.
    bundle = Path(os.environ.get("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt"))
    if bundle.is_file():
        shutil.copy2(bundle, root / "etc/ssl/certs/host-bundle.crt")
    log = open(root.parent / "console.log", "wb")  # noqa: SIM115 (closed at teardown)
    # No systemd runs this test (CI's machine has none as PID 1): no machined registration and
    # no scope unit, so nspawn needs no system bus.
    nspawn = subprocess.Popen(
        ["systemd-nspawn", "--quiet", "--boot", f"--directory={root}", "--machine=crib-arm",
         "--register=no", "--keep-unit", "--console=pipe", "--resolv-conf=copy-host"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    try:
        box = Machine(root, _leader(nspawn, time.monotonic() + 300))
        state = _booted(box, time.monotonic() + 600)
        _say(f"booted in {time.monotonic() - t0:.0f} s ({state})")
        yield box
    finally:
        nspawn.terminate()  # nspawn asks the container's systemd to power off
        try:
            nspawn.wait(timeout=120)
        except subprocess.TimeoutExpired:
            nspawn.kill()
            nspawn.wait()
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def _pip_env() -> dict[str, str]:
    return {"PIP_CERT": "/etc/ssl/certs/host-bundle.crt",
            "REQUESTS_CA_BUNDLE": "/etc/ssl/certs/host-bundle.crt"}


def _health(box: Machine) -> str:
    return box.run(
        "python3 -c 'import urllib.request as u; "
        "print(u.urlopen(\"http://127.0.0.1:80/api/health\", timeout=10).read().decode())'",
        timeout=120).stdout


def test_install_serves_the_table_and_a_second_run_changes_nothing(machine: Machine) -> None:
    t0 = time.monotonic()
    first = machine.run("cd /root/cribbage-table && ./systemd/install.sh", env=_pip_env())
    took = time.monotonic() - t0
    _say(f"install.sh took {took:.0f} s (exit {first.returncode})")
    assert first.returncode == 0, first.stdout + first.stderr
    out = first.stdout
    assert "Collecting fastapi" in out  # a line per package while pip works
    assert "==> cribbage-table" in out and "installed" in out
    assert machine.run("systemctl is-active cribbage-table").stdout.strip() == "active"
    status = machine.run("systemctl show -p StatusText --value cribbage-table").stdout
    _say(f"unit status: {status.strip()}")
    health = _health(machine)
    assert '"status"' in health, health
    doctor = machine.run("crib doctor --config /etc/cribbage-table/config.toml")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert doctor.stdout.splitlines()[-1].startswith("doctor: 0 failed") or \
        doctor.stdout.splitlines()[-1] == "doctor: all good"

    t0 = time.monotonic()
    second = machine.run("cd /root/cribbage-table && ./systemd/install.sh", env=_pip_env())
    _say(f"second install.sh took {time.monotonic() - t0:.0f} s (exit {second.returncode})")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "= keep /etc/cribbage-table/config.toml" in second.stdout
    for path in ("/etc/systemd/system/cribbage-table.service", "/etc/udev/rules.d/"
                 "99-cribbage-board.rules", "/etc/avahi/services/cribbage.service"):
        assert f"= write {path} (unchanged)" in second.stdout
    assert machine.run("systemctl is-active cribbage-table").stdout.strip() == "active"
    assert '"status"' in _health(machine)


def test_uninstall_removes_what_it_says(machine: Machine) -> None:
    done = machine.run("cd /root/cribbage-table && ./systemd/uninstall.sh")
    assert done.returncode == 0, done.stdout + done.stderr
    removed = [line.removeprefix("= remove ") for line in done.stdout.splitlines()
               if line.startswith("= remove ")]
    assert "/etc/systemd/system/cribbage-table.service" in removed
    assert "/opt/cribbage-table/venv" in removed and "/usr/local/bin/crib" in removed
    for path in removed:
        assert not (machine.root / path.lstrip("/")).exists(), path
    state = machine.run("systemctl is-active cribbage-table").stdout.strip()
    assert state in {"inactive", "unknown"}, state
    assert (machine.root / "etc/cribbage-table/config.toml").exists()  # kept, as it says
    assert "kept: user cribbage; --purge removes it" in done.stdout
