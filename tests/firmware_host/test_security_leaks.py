"""Issue 12 item 2: the pairing code proves presence at the board, so it leaves the board
only where no real board lights it: in simulation the log says it (the person has no board
to read); with a real board no log line carries it (the journal has more readers than the
table has people standing at it)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from firmware_host.config import load_settings
from firmware_host.services import build_services
from tests.firmware_host.conftest import write_config
from tests.processes import free_port


def logged_start(tmp_path: Path, caplog: pytest.LogCaptureFixture, board: str
                 ) -> tuple[str, str]:
    """Start a pairing on services built for a `board` mode; (the code, the log's text)."""
    config = write_config(tmp_path / board, free_port(), f'\n[board]\nmode = "{board}"\n')
    services = build_services(load_settings(config, simulate=board == "simulated"))
    services.store.start()
    try:
        with caplog.at_level(logging.DEBUG):
            services.pairing.start("127.0.0.2")
        code = services.pairing.code
        assert code is not None
        return code, caplog.text
    finally:
        services.store.stop()


def test_with_a_real_board_no_log_line_carries_the_code(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    code, text = logged_start(tmp_path, caplog, "real")
    assert code not in text
    assert re.search(r"a pairing code is on the board \(valid \d+ s\)", text), text


def test_in_simulation_the_log_says_the_code(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    code, text = logged_start(tmp_path, caplog, "simulated")
    assert f"pairing code {code} is on the board" in text
