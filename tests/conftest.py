"""Options for the whole suite: `pytest -m hardware --port /dev/serial/by-id/...` on a Pi."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--port",
        default=None,
        help="serial port of a real LED peg board, for `-m hardware` (or CRIB_BOARD_PORT)",
    )
