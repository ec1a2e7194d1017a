"""Tokens hashed at rest, pairing by physical presence, rate limits, `crib token`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from firmware_host.auth import Pairing, Tokens, hash_token
from firmware_host.errors import AuthRequiredError, PairingBusyError, PairingError
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
    request = str(pairing.start("a")["request"])
    assert pairing.undo_held(2.9) is None
    with pytest.raises(PairingError, match="waiting"):
        pairing.pair("p", code=None, request=request, client="a")
    assert pairing.undo_held(3.0) == "approved"  # no other phone asked: the codes compared
    token = pairing.pair("p", code=None, request=request, client="a")
    assert tokens.check(f"Bearer {token}") == "p"


def test_a_hold_on_an_empty_board_lights_a_code_for_whoever_types_it(tokens: Tokens) -> None:
    shown: list[str | None] = []
    clock = FakeClock(1000.0)
    pairing = Pairing(tokens, shown.append, hold_s=3.0, ttl_s=60, now=clock.monotonic)
    assert pairing.undo_held(3.0) == "lit"
    code = shown[-1]
    assert code is not None and len(code) == Pairing.DIGITS and pairing.code == code
    # No phone may put its own request over it, and no request id claims it.
    with pytest.raises(PairingBusyError, match="type the code the board lights") as busy:
        pairing.start("eve")
    assert busy.value.extra["hold_s"] == 3.0
    with pytest.raises(PairingError, match="held undo"):
        pairing.pair("eve", code=None, request="x", client="eve")
    wrong = "0" * len(code) if code != "0" * len(code) else "1" * len(code)
    with pytest.raises(PairingError, match="wrong code"):
        pairing.pair("eve", code=wrong, request=None, client="eve")
    # Whoever reads the board types it, from any address.
    token = pairing.pair("owner", code=code, request=None, client="10.0.0.7")
    assert tokens.check(f"Bearer {token}") == "owner" and shown[-1] is None
    # It ran out unused: the board goes dark.
    pairing.undo_held(3.0)
    clock.advance(61)
    assert pairing.code is None and shown[-1] is None


def test_a_hold_on_a_contested_board_withdraws_the_request_instead_of_approving_it(
        tokens: Tokens) -> None:
    shown: list[str | None] = []
    clock = FakeClock(1000.0)
    pairing = Pairing(tokens, shown.append, hold_s=3.0, now=clock.monotonic)
    eve = str(pairing.start("eve", hold=True)["request"])  # on the board, compare mode
    with pytest.raises(PairingBusyError, match="someone else is pairing"):
        pairing.start("owner")  # the owner is turned away: the board is contested
    clock.advance(Pairing.CONTEST_S / 2)
    assert pairing.undo_held(3.0) == "lit"  # Eve's request is not approved
    with pytest.raises(PairingError, match="held undo"):
        pairing.pair("eve", code=None, request=eve, client="eve")
    assert pairing.pair("owner", code=shown[-1], request=None, client="owner")
    assert [t["name"] for t in tokens.list()] == ["owner"]
    # Eve alone asks again, and her new request is lit: the owner's turning away still
    # counts, so a second hold does not approve hers either.
    clock.advance(Pairing.CONTEST_S / 4)
    eve = str(pairing.start("eve", hold=True)["request"])
    assert pairing.undo_held(3.0) == "lit"
    with pytest.raises(PairingError, match="held undo"):
        pairing.pair("eve", code=None, request=eve, client="eve")
    pairing._pending = None
    # A phone turned away long ago does not count: the hold approves again.
    mine = str(pairing.start("ann", hold=True)["request"])
    with pytest.raises(PairingBusyError):
        pairing.start("bob")
    clock.advance(Pairing.CONTEST_S + 1)
    pairing._pending.expires_at = clock.monotonic() + 60  # type: ignore[union-attr]
    assert pairing.undo_held(3.0) == "approved"
    assert pairing.pair("ann", code=None, request=mine, client="ann")


def test_guesses_of_a_lit_code_are_spared_then_the_code_grows_once(tokens: Tokens) -> None:
    shown: list[str | None] = []
    clock = FakeClock(1000.0)
    pairing = Pairing(tokens, shown.append, hold_s=3.0, most_digits=12, now=clock.monotonic)
    pairing.undo_held(3.0)
    short = str(shown[-1])
    wrong = "0" * 6 if short != "0" * 6 else "1" * 6
    for n in range(Pairing.SPARE - 1):  # a new address each guess: no per-phone wait binds
        with pytest.raises(PairingError, match="^wrong code: type"):
            pairing.pair("eve", code=wrong, request=None, client=f"x{n}")
        assert shown[-1] == short
    with pytest.raises(PairingError, match="longer code"):
        pairing.pair("eve", code=wrong, request=None, client="x-last")
    long = str(shown[-1])
    assert len(long) == 12 and pairing.code == long
    # The short code is dead; the long one never changes again however many guesses.
    with pytest.raises(PairingError):
        pairing.pair("eve", code=short, request=None, client="y")
    for n in range(3 * Pairing.SPARE):
        with pytest.raises(PairingError, match="^wrong code: type"):
            pairing.pair("eve", code="0" * 12, request=None, client=f"z{n}")
    assert pairing.code == long
    assert pairing.pair("owner", code=long, request=None, client="owner")
    assert len(pairing._guesses) <= Pairing.CLIENTS


def test_where_the_board_shows_no_longer_code_many_guesses_withdraw_it(tokens: Tokens) -> None:
    shown: list[str | None] = []
    pairing = Pairing(tokens, shown.append, hold_s=3.0, most_digits=6,
                      now=FakeClock(1000.0).monotonic)
    pairing.undo_held(3.0)
    wrong = "0" * 6 if shown[-1] != "0" * 6 else "1" * 6
    for n in range(Pairing.SPARE - 1):
        with pytest.raises(PairingError, match="^wrong code: type"):
            pairing.pair("eve", code=wrong, request=None, client=f"x{n}")
    with pytest.raises(PairingError, match="withdrawn; hold"):
        pairing.pair("eve", code=wrong, request=None, client="x-last")
    assert pairing.code is None and shown[-1] is None


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
