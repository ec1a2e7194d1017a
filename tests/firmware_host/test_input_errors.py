"""A table input that the game refuses is logged as ignored; a bug behind it is logged with
its traceback (issue 14 item 6: an engine bug is never disguised as a refusal)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from cribbage.actions import Undo
from firmware_host.components.inputs import TableInputs
from firmware_host.errors import IllegalActionError
from hardware.errors import ShufflerBusyError
from hardware.interfaces import DeviceEvent


class _Entry:
    id, version = 1, 0


class _Games:
    def __init__(self, error: Exception) -> None:
        self.error = error
        self.acted: list[Any] = []

    def current(self) -> _Entry:
        return _Entry()

    def act(self, game_id: int, version: int, op_id: str, action: Any) -> None:
        self.acted.append(action)
        raise self.error


def _undo(error: Exception, caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    games = _Games(error)
    inputs = TableInputs(games, pairing=None)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="crib.daemon"):
        inputs.handle(DeviceEvent("inputs", "undo", {}))
    assert games.acted == [Undo()]  # typed: parsed nowhere after the edge
    return [r for r in caplog.records if r.name == "crib.daemon"]


def test_a_refused_press_is_ignored_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    [record] = _undo(IllegalActionError("nothing to undo"), caplog)
    assert record.levelno == logging.INFO and record.exc_info is None
    assert record.getMessage() == "input undo ignored: nothing to undo"


def test_a_bug_behind_a_press_is_logged_with_its_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    [record] = _undo(AttributeError("'Game' object has no attribute 'x'"), caplog)
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert record.exc_info[0] is AttributeError


def test_a_busy_shuffler_touched_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    def touch() -> None:
        raise ShufflerBusyError("the shuffler is busy")

    inputs = TableInputs(_Games(AssertionError()), pairing=None,  # type: ignore[arg-type]
                         touch=touch)
    with caplog.at_level(logging.INFO, logger="crib.daemon"):
        inputs.handle(DeviceEvent("inputs", "touch", {}))
    [record] = [r for r in caplog.records if r.name == "crib.daemon"]
    assert record.levelno == logging.INFO and record.exc_info is None
