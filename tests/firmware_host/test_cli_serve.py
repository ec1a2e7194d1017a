"""`crib serve --simulate` off a Pi listens on 127.0.0.1 unless told otherwise; on the Pi, the
configured address."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from firmware_host.cli.daemon import listen_address
from firmware_host.config import load_settings, on_raspberry_pi
from tests.conftest import CRIB
from tests.processes import free_port, running

pytestmark = pytest.mark.skipif(on_raspberry_pi(), reason="checks the laptop default")


def _listening(port: int) -> set[str]:
    """The local addresses listening on TCP `port`, from the kernel's own table."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, hexport = local.rsplit(":", 1)
            if state == "0A" and int(hexport, 16) == port:  # 0A: LISTEN
                found.add(addr)
    return found


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
           simulate: bool = True) -> tuple[str, set[str]]:
    """Start `crib serve` (with --simulate unless told not to), wait for it to be ready,
    return its ready line and the addresses it listens on; stopped afterwards."""
    port = free_port()
    home = tmp_path / "home"
    base = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    base |= {"HOME": str(home), "CRIB_STATE_DIR": str(home / "state"),
             "CRIB_SHUFFLER__SPEED": "1000"}
    flag = ["--simulate"] if simulate else []
    with running([str(CRIB), "serve", *flag, "--port", str(port), *args],
                 env=base | (env or {}), stdout=subprocess.DEVNULL) as proc:
        deadline = time.monotonic() + 30
        assert proc.stderr is not None
        for line in proc.stderr:
            if "ready on http://" in line:
                found = line.split("ready on ")[1].split()[0], _listening(port)
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=15)
                return found
            assert time.monotonic() < deadline, "no ready line"
        raise AssertionError(f"crib serve ended: {proc.wait()}")


def test_make_run_on_a_laptop_listens_on_loopback_only(tmp_path: Path) -> None:
    url, addresses = _serve(tmp_path)
    assert url.startswith("http://127.0.0.1:")
    assert addresses == {"0100007F"}  # 127.0.0.1, and nothing else


def test_an_address_given_is_used(tmp_path: Path) -> None:
    url, addresses = _serve(tmp_path, "--host", "0.0.0.0")
    assert url.startswith("http://0.0.0.0:") and addresses == {"00000000"}


@pytest.mark.parametrize("how", ["env", "file"])
def test_an_address_from_the_environment_or_file_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('host = "0.0.0.0"\n' if how == "file" else "")
    if how == "env":
        monkeypatch.setenv("CRIB_HOST", "0.0.0.0")
    assert listen_address(load_settings(config, simulate=True), on_pi=False).host == "0.0.0.0"


def test_on_a_pi_the_configured_address(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    s = load_settings(config, simulate=True)
    assert listen_address(s, on_pi=True).host == "0.0.0.0"  # the product default
    assert listen_address(s, on_pi=False).host == "127.0.0.1"
    auto = load_settings(config)  # every device "auto": simulated off a Pi, real on it
    assert listen_address(auto, on_pi=False).host == "127.0.0.1"
    assert listen_address(auto, on_pi=True).host == "0.0.0.0"


@pytest.mark.parametrize(("device", "mode"), [("board", "real"), ("board", "spi"),
                                              ("shuffler", "real"), ("inputs", "real")])
def test_off_a_pi_a_real_device_is_a_deployment_at_the_configured_address(
    tmp_path: Path, device: str, mode: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[{device}]\nmode = "{mode}"\n')
    assert listen_address(load_settings(config), on_pi=False).host == "0.0.0.0"
    # --simulate replaces the real device, so the laptop default holds again
    assert listen_address(load_settings(config, simulate=True), on_pi=False).host == "127.0.0.1"


def test_a_bare_crib_serve_on_a_laptop_listens_on_loopback_only(tmp_path: Path) -> None:
    # Off a Pi every "auto" device is simulated: the same laptop as `make run`.
    url, addresses = _serve(tmp_path, simulate=False)
    assert url.startswith("http://127.0.0.1:")
    assert addresses == {"0100007F"}


def test_ctrl_c_stops_the_daemon_started_as_a_background_job(tmp_path: Path) -> None:
    # `crib serve &` from a script inherits SIGINT ignored: Ctrl-C must still stop it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    env |= {"HOME": str(tmp_path), "CRIB_STATE_DIR": str(tmp_path / "state")}
    with running([str(CRIB), "serve", "--simulate", "--port", str(free_port())], env=env,
                 stdout=subprocess.DEVNULL) as proc:
        assert proc.stderr is not None
        assert any("ready on http://" in line for line in proc.stderr)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
