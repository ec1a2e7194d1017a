"""Token names: a second `crib token create` or pairing with a taken name is refused (or
needs --replace); `crib token list` shows when each token was last used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_host.auth import Pairing, Tokens
from firmware_host.errors import AuthRequiredError, NameTakenError
from firmware_host.store import Store
from hardware.clock import FakeClock


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = Store(tmp_path / "db.sqlite3")
    s.start()
    yield s
    s.stop()


def test_create_twice_refuses_the_second_and_keeps_the_first(crib, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    first = crib("token", "create", "laptop")
    assert first.returncode == 0 and first.stdout.startswith("crib_")
    again = crib("token", "create", "laptop")
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.splitlines() == [
        "crib token create: a token named 'laptop' exists already: give another name, or add "
        "--replace to revoke it and make a new one"]
    store = Store(tmp_path / "home" / "state" / "cribbage.sqlite3")
    store.start()
    try:
        assert Tokens(store).check(f"Bearer {first.stdout.strip()}") == "laptop"  # still good
    finally:
        store.stop()
    replaced = crib("token", "create", "laptop", "--replace")
    assert replaced.returncode == 0 and replaced.stdout != first.stdout
    store.start()
    try:
        with pytest.raises(AuthRequiredError, match="revoked"):
            Tokens(store).check(f"Bearer {first.stdout.strip()}")
        assert Tokens(store).check(f"Bearer {replaced.stdout.strip()}") == "laptop"
    finally:
        store.stop()


def test_list_shows_the_last_use(crib, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    empty = crib("token", "list")
    assert empty.returncode == 0 and empty.stdout == ""
    assert empty.stderr == "no tokens yet: pair a phone, or `crib token create NAME`\n"
    token = crib("token", "create", "kitchen").stdout.strip()
    crib("token", "create", "hall")
    listed = crib("token", "list").stdout.splitlines()
    assert [line.split("\t")[0] for line in listed] == ["hall", "kitchen"]
    assert all(line.endswith("\tnever used") for line in listed)
    store = Store(tmp_path / "home" / "state" / "cribbage.sqlite3")
    store.start()
    try:
        Tokens(store).check(f"Bearer {token}")
    finally:
        store.stop()
    listed = dict(line.split("\t", 1) for line in crib("token", "list").stdout.splitlines())
    assert re.fullmatch(r"created \S+ \S+\tused \d{4}-\d\d-\d\d \d\d:\d\d", listed["kitchen"])
    assert listed["hall"].endswith("\tnever used")


def test_use_is_recorded_once_a_minute_not_on_every_request(store: Store) -> None:
    clock = FakeClock(1000.0)
    tokens = Tokens(store, now=clock.monotonic)
    token = tokens.create("phone")
    writes: list[str] = []
    touch = store.touch_token
    store.touch_token = lambda name: (writes.append(name), touch(name))  # type: ignore[method-assign]
    for _ in range(5):
        tokens.check(f"Bearer {token}")
    clock.advance(61)
    tokens.check(f"Bearer {token}")
    assert writes == ["phone", "phone"]
    assert store.tokens()[0]["last_used"] is not None


def test_pairing_with_a_taken_name_is_refused_before_the_code_is_spent(store: Store) -> None:
    tokens = Tokens(store)
    first = tokens.create("kitchen")
    shown: list[str | None] = []
    pairing = Pairing(tokens, shown.append, now=FakeClock(1000.0).monotonic)
    pairing.start("10.0.0.7")
    code = shown[-1]
    assert code is not None
    with pytest.raises(NameTakenError, match="'kitchen' is already paired"):
        pairing.pair("kitchen", code=code, request=None, client="10.0.0.7")
    assert tokens.check(f"Bearer {first}") == "kitchen"  # the first phone keeps its token
    second = pairing.pair("hall", code=code, request=None, client="10.0.0.7")
    assert tokens.check(f"Bearer {second}") == "hall"


def test_the_api_answers_409_for_a_taken_name() -> None:
    from firmware_host.errors import http_status

    assert http_status(NameTakenError("taken")) == 409
