"""The daemon's GPIO devices honour GPIOZERO_PIN_FACTORY, as the unit's Environment= sets it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import CRIB
from tests.processes import free_port


def _serve_log(tmp_path: Path, factory: str) -> list[str]:
    """`crib serve` with real inputs and the named factory: its log up to the ready line."""
    config = tmp_path / "config.toml"
    config.write_text('[inputs]\nmode = "real"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRIB_", "GPIOZERO_"))}
    env |= {"HOME": str(tmp_path), "CRIB_STATE_DIR": str(tmp_path / "state"),
            "GPIOZERO_PIN_FACTORY": factory}
    proc = subprocess.Popen(
        [str(CRIB), "serve", "--config", str(config), "--host", "127.0.0.1",
         "--port", str(free_port())],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip())
            if "ready on http://" in line:
                return lines
            assert time.monotonic() < deadline, "no ready line"
        raise AssertionError(f"crib serve ended ({proc.wait()}): {lines}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_inputs_open_on_the_factory_the_environment_names(tmp_path: Path) -> None:
    log = _serve_log(tmp_path, "mock")
    assert any(line.endswith("pin factory: MockFactory") for line in log), log
    assert any("inputs (real): idle" in line for line in log), log


@pytest.mark.parametrize(("factory", "module"), [("rpigpio", "RPi"), ("pigpio", "pigpio")])
def test_a_named_factory_is_the_one_tried(tmp_path: Path, factory: str, module: str) -> None:
    # Off a Pi neither library is installed: the failure proves the named one was used, and
    # the daemon keeps serving (the inputs are absent, and retried).
    log = _serve_log(tmp_path, factory)
    assert any(f"inputs (real): absent (ModuleNotFoundError: No module named '{module}')"
               in line for line in log), log
