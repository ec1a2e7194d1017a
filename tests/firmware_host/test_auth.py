"""Tokens hashed at rest, pairing by physical presence, rate limits, `crib token`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from firmware_host.auth import Pairing, Tokens, hash_token
from firmware_host.errors import AuthRequiredError, PairingError
from firmware_host.store import Store
from hardware.clock import FakeClock
from tests.firmware_host.conftest import CRIB


@pytest.fixture
def tokens(tmp_path: Path) -> Tokens:
    store = Store(tmp_path / "db.sqlite3")
    store.start()
    return Tokens(store)


def test_tokens_are_hashed_at_rest(tokens: Tokens) -> None:
    token = tokens.create("phone")
    rows = tokens.store.db.execute("SELECT hash FROM tokens").fetchall()
    assert rows == [(hash_token(token),)] and token not in rows[0][0]
    assert tokens.check(f"Bearer {token}") == "phone"
    with pytest.raises(AuthRequiredError):
        tokens.check(token)  # no scheme
    tokens.revoke("phone")
    with pytest.raises(AuthRequiredError, match="revoked"):
        tokens.check(f"Bearer {token}")


def test_pairing_code_shown_then_cleared_and_expires(tokens: Tokens) -> None:
    shown: list[str | None] = []
    clock = FakeClock(1000.0)
    pairing = Pairing(tokens, shown.append, ttl_s=60, now=clock.monotonic)
    pairing.start("a")
    code = shown[-1]
    assert code is not None and len(code) == Pairing.DIGITS and code.isdigit()
    clock.advance(61)
    with pytest.raises(PairingError, match="no pairing"):
        pairing.pair("p", code=code, request=None, client="a")
    assert shown[-1] is None


def test_wrong_codes_withdraw_the_code_and_attempts_are_limited(tokens: Tokens) -> None:
    shown: list[str | None] = []
    clock = FakeClock(1000.0)
    pairing = Pairing(tokens, shown.append, now=clock.monotonic)
    pairing.start("a")
    code = shown[-1]
    assert code is not None
    wrong = "0" * len(code) if code != "0" * len(code) else "1" * len(code)
    for _ in range(Pairing.MAX_FAILURES - 1):
        with pytest.raises(PairingError, match="wrong code"):
            pairing.pair("p", code=wrong, request=None, client="a")
        clock.advance(10)  # past the growing wait after a wrong guess (test_security_pairing)
    with pytest.raises(PairingError, match="withdrawn"):
        pairing.pair("p", code=wrong, request=None, client="a")
    assert shown[-1] is None
    clock.advance(600)
    pairing.start("a")
    assert pairing.pair("p", code=shown[-1], request=None, client="a").startswith("crib_")


def test_undo_hold_approves_only_when_long_enough(tokens: Tokens) -> None:
    pairing = Pairing(tokens, lambda code: None, hold_s=3.0, now=FakeClock(1000.0).monotonic)
    assert not pairing.undo_held(3.0)  # nothing pending
    request = str(pairing.start("a")["request"])
    assert not pairing.undo_held(2.9)
    with pytest.raises(PairingError, match="waiting"):
        pairing.pair("p", code=None, request=request, client="a")
    assert pairing.undo_held(3.0)
    token = pairing.pair("p", code=None, request=request, client="a")
    assert tokens.check(f"Bearer {token}") == "p"


def test_crib_token_create_list_revoke(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path}"\n')

    def crib(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CRIB, "token", *args, "--config", str(config)],
                              capture_output=True, text=True, timeout=30)

    made = crib("create", "kitchen")
    assert made.returncode == 0 and made.stdout.strip().startswith("crib_")
    listed = crib("list")
    assert "kitchen" in listed.stdout and made.stdout.strip() not in listed.stdout
    assert crib("revoke", "kitchen").returncode == 0
    assert "kitchen" not in crib("list").stdout
    gone = crib("revoke", "kitchen")
    assert gone.returncode == 1 and "no token named" in gone.stderr
