"""The token check's cache: a request is a stat, not a database read, and a revoke made
anywhere (the API, or `crib token` in another process) is honoured on the very next check."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from firmware_host.auth import Tokens
from firmware_host.errors import AuthRequiredError
from firmware_host.store import Store
from hardware.clock import FakeClock
from tests.firmware_host.conftest import CRIB


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "config.toml").write_text(f'state_dir = "{tmp_path}"\n')
    return tmp_path


def _tokens(state: Path, clock: FakeClock | None = None) -> Tokens:
    store = Store(state / "cribbage.sqlite3")
    store.start()
    return Tokens(store) if clock is None else Tokens(store, now=clock.monotonic)


def _crib_token(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CRIB, "token", *args, "--config", str(state / "config.toml")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done


def _reads(tokens: Tokens) -> list[str]:
    """Record each database read of a token from now on."""
    reads: list[str] = []
    real = tokens.store.token_name

    def counted(digest: str) -> str | None:
        reads.append(digest)
        return real(digest)

    tokens.store.token_name = counted  # type: ignore[method-assign]
    return reads


def test_a_known_token_is_checked_without_reading_the_database_again(state: Path) -> None:
    tokens = _tokens(state)
    token = tokens.create("phone")
    reads = _reads(tokens)
    assert [tokens.check(f"Bearer {token}") for _ in range(5)] == ["phone"] * 5
    assert len(reads) == 1
    with pytest.raises(AuthRequiredError):  # an unknown token is read, and refused, each time
        tokens.check("Bearer crib_nothing")
    with pytest.raises(AuthRequiredError):
        tokens.check("Bearer crib_nothing")
    assert len(reads) == 3


def test_crib_token_revoke_in_another_process_is_honoured_on_the_next_check(
        state: Path) -> None:
    tokens = _tokens(state)
    token = tokens.create("phone")
    assert tokens.check(f"Bearer {token}") == "phone"
    assert tokens.check(f"Bearer {token}") == "phone"  # now from the cache
    _crib_token(state, "revoke", "phone")
    with pytest.raises(AuthRequiredError, match="revoked"):
        tokens.check(f"Bearer {token}")


def test_crib_token_create_replace_in_another_process_refuses_the_old_token_at_once(
        state: Path) -> None:
    tokens = _tokens(state)
    old = tokens.create("phone")
    assert tokens.check(f"Bearer {old}") == "phone"
    new = _crib_token(state, "create", "phone", "--replace").stdout.strip()
    with pytest.raises(AuthRequiredError, match="revoked"):
        tokens.check(f"Bearer {old}")
    assert tokens.check(f"Bearer {new}") == "phone"


def test_a_revoke_through_the_same_store_is_honoured_on_the_next_check(state: Path) -> None:
    tokens = _tokens(state)
    token = tokens.create("phone")
    assert tokens.check(f"Bearer {token}") == "phone"
    tokens.revoke("phone")
    with pytest.raises(AuthRequiredError, match="revoked"):
        tokens.check(f"Bearer {token}")


def test_a_token_deleted_behind_the_stores_back_lapses_within_the_cache_age(
        state: Path) -> None:
    # No stamp is bumped by a hand-made DELETE (or a stamp that could not be written):
    # the cache's age limit still bounds how long the token keeps working.
    clock = FakeClock(100.0)
    tokens = _tokens(state, clock)
    token = tokens.create("phone")
    assert tokens.check(f"Bearer {token}") == "phone"
    with sqlite3.connect(state / "cribbage.sqlite3") as db:
        db.execute("DELETE FROM tokens WHERE name = 'phone'")
    clock.advance(Tokens.CACHE_S)
    with pytest.raises(AuthRequiredError, match="revoked"):
        tokens.check(f"Bearer {token}")
