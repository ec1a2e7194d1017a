"""`crib doctor` on a laptop, as a user runs it after `make run`: it checks the configuration
`crib serve` reads (config.toml in the state directory), not a file of the installed service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host import doctor
from firmware_host.config import on_raspberry_pi

CRIB = Path(sys.executable).with_name("crib")

pytestmark = pytest.mark.skipif(
    on_raspberry_pi() or doctor.DEFAULT_CONFIG.exists(),
    reason="a Pi, or an installed configuration, is what doctor checks first",
)


def _doctor(home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")} | {"HOME": str(home)}
    return subprocess.run([str(CRIB), "doctor"], capture_output=True, text=True, env=env,
                          cwd=home, timeout=120)


def _state(home: Path) -> Path:
    state = home / ".local" / "state" / "cribbage-table"
    state.mkdir(parents=True)
    return state


def test_a_bad_value_in_the_file_crib_serve_reads_is_named_with_its_path(tmp_path: Path) -> None:
    config = _state(tmp_path) / "config.toml"
    config.write_text('[board]\nmode = "pwm"\n')
    done = _doctor(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAIL  config:"))
    assert line.startswith(f"FAIL  config: {config} is not valid: ") and "board.mode" in line
    assert "None" not in line


def test_a_good_file_crib_serve_reads_is_the_one_checked(tmp_path: Path) -> None:
    state = _state(tmp_path)
    (state / "config.toml").write_text('[board]\nmode = "simulated"\n')
    done = _doctor(tmp_path)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"OK    config: {state / 'config.toml'} is valid" in lines
    assert f"OK    state: {state} is writable" in lines


def test_without_any_file_the_defaults_are_not_a_failure(tmp_path: Path) -> None:
    # Off a Pi the defaults simulate every device: fine, and said so without a Pi's fix.
    done = _doctor(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith(("OK    config:",
                                                                     "WARN  config:")))
    assert line.startswith("OK    config: no configuration file: the defaults"), line
    assert "/etc/cribbage-table" not in line


def test_a_user_who_cannot_read_the_installed_configuration_is_told_to_use_sudo(
    tmp_path: Path,
) -> None:
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to stand for a user outside the cribbage group")
    folder = tmp_path / "cribbage-table"
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text(f'state_dir = "{tmp_path}"\n')
    for path, mode in ((folder, 0o750), (config, 0o640)):
        os.chown(path, 4242, 4242)
        path.chmod(mode)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    done = subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", str(CRIB), "doctor",
         "--config", str(config)],
        capture_output=True, text=True, env=env | {"HOME": str(tmp_path)}, timeout=120)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        f"crib doctor: config {config}: this user cannot read it (Permission denied): run "
        f"`sudo crib doctor --config {config}`"]


def test_an_installed_configuration_is_the_one_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware_host.cli import main

    folder = tmp_path / "etc" / "cribbage-table"
    folder.mkdir(parents=True)
    config = folder / "config.toml"
    config.write_text('[board]\nmode = "pwm"\n')
    monkeypatch.setattr(doctor, "DEFAULT_CONFIG", config)
    monkeypatch.delenv("CRIB_CONFIG", raising=False)
    assert main(["doctor"]) == 1
    assert f"FAIL  config: {config} is not valid: " in capsys.readouterr().out


def test_a_state_directory_crib_serve_cannot_make_fails(tmp_path: Path) -> None:
    # A file where a parent folder should be: `crib serve` cannot make the folder (root
    # neither), so doctor must not say OK for it.
    (tmp_path / "blocker").write_text("")
    state = tmp_path / "blocker" / "state"
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{state}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    env |= {"HOME": str(tmp_path)}
    serve = subprocess.run([str(CRIB), "serve", "--simulate", "--config", str(config)],
                           capture_output=True, text=True, env=env, timeout=60)
    assert serve.returncode == 2 and f"the state directory {state} can't be made" in serve.stderr
    done = subprocess.run([str(CRIB), "doctor", "--config", str(config)], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stdout
    line = next(x for x in done.stdout.splitlines() if x.startswith(("OK    state:",
                                                                     "FAIL  state:")))
    assert line == (f"FAIL  state: state directory {state} cannot be made: {tmp_path / 'blocker'}"
                    " is not a directory -> fix: set state_dir (or CRIB_STATE_DIR) to a folder "
                    "this user may write")


def test_a_state_directory_crib_serve_can_make_is_ok(tmp_path: Path) -> None:
    state = tmp_path / "not" / "yet" / "state"
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{state}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    done = subprocess.run([str(CRIB), "doctor", "--config", str(config)], capture_output=True,
                          text=True, env=env | {"HOME": str(tmp_path)}, timeout=120)
    assert done.returncode == 0, done.stdout
    assert f"OK    state: state directory {state} is made by the first crib serve" in (
        done.stdout.splitlines())
    assert not state.exists() and not (tmp_path / "not").exists()  # doctor made nothing
