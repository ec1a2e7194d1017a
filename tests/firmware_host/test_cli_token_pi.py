"""`crib token` on the Pi works on the installed service's tokens (its configuration names the
state directory), and a user who may not read that configuration is told, in one line, how to
run the command as the service's user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import daemon, main

CRIB = Path(sys.executable).with_name("crib")


def _installed(tmp_path: Path) -> tuple[Path, Path]:
    """An installed configuration (in its own folder, like /etc/cribbage-table) and its state."""
    folder = tmp_path / "etc" / "cribbage-table"
    folder.mkdir(parents=True)
    state = tmp_path / "var" / "lib" / "cribbage-table"
    config = folder / "config.toml"
    config.write_text(f'state_dir = "{state}"\n')
    return config, state


def test_a_token_made_on_the_pi_is_the_services(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, state = _installed(tmp_path)
    home = tmp_path / "home"
    monkeypatch.setattr(daemon, "INSTALLED_CONFIG", config)
    monkeypatch.setenv("HOME", str(home))
    for name in [n for n in os.environ if n.startswith("CRIB_")]:
        monkeypatch.delenv(name)
    assert main(["token", "create", "laptop"]) == 0
    assert capsys.readouterr().out.startswith("crib_")
    assert (state / "cribbage.sqlite3").exists() and not home.exists()
    assert main(["token", "list", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith("laptop\tcreated ")
    # CRIB_CONFIG and --config still come first
    other = tmp_path / "other.toml"
    other.write_text(f'state_dir = "{tmp_path / "other"}"\n')
    monkeypatch.setenv("CRIB_CONFIG", str(other))
    assert main(["token", "list"]) == 0
    assert capsys.readouterr().out == ""


def _without_root_powers() -> list[str]:
    """A prefix that runs a command as root without the power to read any file (root without
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), as an ordinary user meets the service's files."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to stand for a user outside the cribbage group")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def _unreadable(tmp_path: Path) -> Path:
    config, _ = _installed(tmp_path)
    os.chown(config.parent, 4242, 4242)
    os.chown(config, 4242, 4242)
    config.parent.chmod(0o750)
    config.chmod(0o640)
    return config


@pytest.mark.parametrize(("argv", "command"), [
    (["token", "create", "laptop"], "sudo -u cribbage crib token create laptop"),
    (["token", "list"], "sudo -u cribbage crib token list"),
])
def test_a_user_who_cannot_read_the_configuration_is_told_how_in_one_line(
    tmp_path: Path, argv: list[str], command: str
) -> None:
    prefix = _without_root_powers()
    config = _unreadable(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    done = subprocess.run([*prefix, str(CRIB), *argv, "--config", str(config)],
                          capture_output=True, text=True, timeout=60,
                          env=env | {"HOME": str(tmp_path / "home")})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"crib {' '.join(argv[:2])}: config {config}: this user cannot read it "
        "(Permission denied): run "
        f"`{command} --config {config}`"]
