"""The club tests' shared fixtures: a real Mosquitto with the club's users and ACL, and the
director as a real `crib club serve` against it (tables t1 and t2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.firmware_host.club.broker_helpers import PASSWORDS, Broker
from tests.firmware_host.club.director_helpers import Director


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker for club "club" with users director, t1, t2 and t3 (PASSWORDS)."""
    with Broker(tmp_path / "broker", "club", PASSWORDS) as b:
        yield b


@pytest.fixture
def director(tmp_path: Path, broker: Broker) -> Iterator[Director]:
    """`crib club serve` for tables t1 and t2, up and connected to `broker`."""
    with Director(tmp_path / "director", broker, tables=["t1", "t2"]) as d:
        yield d
