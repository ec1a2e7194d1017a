"""Issue 12 item 5: a full or read-only disk answers 503 with a sentence on every write
path, /api/health and systemd's STATUS= say degraded and why, and the CLI prints one line.

The disk is made "full" with sqlite's `PRAGMA max_page_count` on the daemon's own
connection, and read-only with `PRAGMA query_only` (both work as root, which chmod does not);
a state directory under a regular file cannot be made at all."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_host.store import StorageFault, Store, StoreError
from tests.firmware_host.conftest import CRIB, Client, ThreadServer

FULL = "the Pi's storage is full: nothing was saved"
READ_ONLY = "the Pi's storage can't be written (it is read-only): nothing was saved"


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[ThreadServer, Client, socket.socket]]:
    with ThreadServer(tmp_path / "state") as srv:
        # systemd's notify socket, as the daemon's Notifier sees it.
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(tmp_path / "notify"))
        notify.settimeout(2)
        srv.services.notifier.path = str(tmp_path / "notify")
        c = Client(f"http://127.0.0.1:{srv.port}", srv.services.tokens.create("tester"))
        yield srv, c, notify
        notify.close()


def statuses(notify: socket.socket) -> list[str]:
    out = []
    notify.settimeout(0.5)
    while True:
        try:
            out += [line for line in notify.recv(4096).decode().splitlines()
                    if line.startswith("STATUS=")]
        except TimeoutError:
            return out


def fill(store: Store) -> None:
    """No page more for the database, and every page full: every write is SQLITE_FULL."""
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StorageFault):
        for i in range(10_000):
            store.set_setting(f"filler {i}", "x" * (i % 50))


class DiskFull:
    """The store's connection on a full disk: every COMMIT fails with SQLITE_FULL (as a
    WAL append does when the file system has no block left); the rest is the real one."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT":
            exc = sqlite3.OperationalError("database or disk is full")
            exc.sqlite_errorcode = 13  # type: ignore[attr-defined]
            raise exc
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)


def test_a_full_disk_answers_503_everywhere_and_health_says_why(daemon) -> None:
    server, client, notify = daemon
    store = server.services.store
    game = client.new_game(dealer=0)
    real = store.db
    store._db = DiskFull(real)  # type: ignore[assignment]
    refusals = {
        "new game": client.req("POST", "/api/games", {"names": ["Ann", "Bob"]}),
        "settings": client.req("PUT", "/api/settings", {"brightness": 10}),
    }
    refusals["action"] = client.act(game, {"type": "peg", "side": 0, "points": 1})
    for what, r in refusals.items():
        assert r.status_code == 503, (what, r.status_code, r.text)
        assert r.json()["error"] == FULL and r.json()["code"] == "storage", what
    # The refused action was not applied: the game is as the last acknowledged answer.
    assert client.req("GET", f"/api/games/{game['id']}").json()["version"] == game["version"]
    health = client.req("GET", "/api/health").json()
    assert health["status"] == "degraded" and health["problems"] == [FULL]
    assert any(s.startswith(f"STATUS=degraded: {FULL}") for s in statuses(notify))
    # Space again: the next write succeeds, and health is ok.
    store._db = real
    assert client.req("POST", "/api/games", {"names": ["Ann", "Bob"]}).status_code == 201
    after = client.req("GET", "/api/health").json()
    assert (after["status"], after["problems"]) == ("ok", [])
    assert not any("degraded" in s for s in statuses(notify)[-1:])


def test_a_read_only_store_answers_503_and_pairing_saves_nothing(daemon) -> None:
    server, client, _ = daemon
    store = server.services.store
    store.db.execute("PRAGMA query_only = ON")
    try:
        r = client.req("POST", "/api/games", {"names": ["Ann", "Bob"]})
        assert r.status_code == 503 and r.json()["error"] == READ_ONLY, r.text
        start = client.req("POST", "/api/pair/start", {"hold": True}, auth=False).json()
        server.services.pairing.undo_held(5.0)
        r = client.req("POST", "/api/pair", {"name": "phone", "request": start["request"]},
                       auth=False)
        assert r.status_code == 503 and r.json()["error"] == READ_ONLY, r.text
        assert client.req("GET", "/api/health").json()["problems"] == [READ_ONLY]
    finally:
        store.db.execute("PRAGMA query_only = OFF")
    # Writable again: the approval was not spent on the write that failed.
    r = client.req("POST", "/api/pair", {"name": "phone", "request": start["request"]},
                   auth=False)
    assert r.status_code == 200, r.text
    assert server.services.tokens.check(f"Bearer {r.json()['token']}") == "phone"


def test_a_fault_is_a_storage_fault_at_the_store_boundary(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.start()
    fill(store)
    with pytest.raises(StorageFault, match="full: nothing was saved"):
        store.set_setting("one more", "x" * 500)
    assert store.problem() == FULL
    store.stop()


def unusable_state(tmp_path: Path) -> Path:
    """A configuration whose state directory can't be made: its parent is a regular file."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{blocker / "state"}"\nhost = "127.0.0.1"\nport = 1\n')
    return config


@pytest.mark.parametrize("args", [["token", "create", "kitchen"], ["token", "list"],
                                  ["serve", "--simulate"]])
def test_the_cli_says_one_line_not_a_traceback(tmp_path: Path, args: list[str]) -> None:
    config = unusable_state(tmp_path)
    t0 = time.monotonic()
    done = subprocess.run([CRIB, *args, "--config", str(config)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines()
             if line.startswith(f"crib {' '.join(args[:2 if args[0] == 'token' else 1])}: ")]
    assert len(lines) == 1 and "can't be made" in lines[0], done.stderr
    assert time.monotonic() - t0 < 30


class _ReadOnlyFs:
    """os.statvfs's answer for a file system mounted read-only (as root, chmod is no test)."""

    def __init__(self, real: os.statvfs_result) -> None:
        self.real = real
        self.f_flag = real.f_flag | os.ST_RDONLY

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


def test_a_store_on_a_read_only_disk_says_so_when_it_cannot_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sqlite says only "unable to open database file"; the person needs to hear why.
    state = tmp_path / "state"
    (state / "db.sqlite3").mkdir(parents=True)  # sqlite can't open it, as on a read-only disk
    real = os.statvfs(state)
    monkeypatch.setattr(os, "statvfs", lambda path: _ReadOnlyFs(real))
    with pytest.raises(StoreError) as refused:
        Store(state / "db.sqlite3").start()
    assert str(refused.value) == (f"database {state / 'db.sqlite3'} cannot be opened: the Pi's "
                                  "storage can't be written (it is read-only)")


def test_a_one_way_board_link_makes_health_and_status_say_degraded_and_why(daemon) -> None:
    # Issue 12 item 6: the board lost every byte sent to it while its heartbeats arrived;
    # the board's entry said so, but /api/health said ok and STATUS= nothing.
    server, client, notify = daemon
    server.wait_board_idle()
    game = client.new_game(dealer=0)
    sim = server.services.devices["board"].require().simulator
    sim.drop_next(10**9, "to_board")
    try:
        client.act(game, {"type": "peg", "side": 0, "points": 2})
        deadline = time.monotonic() + 10
        while not (health := client.req("GET", "/api/health").json())["problems"]:
            assert time.monotonic() < deadline, health
            time.sleep(0.05)
        assert health["status"] == "degraded"
        assert health["problems"][0].startswith("board: ") and (
            "bytes to the board are being lost" in health["problems"][0]), health
        assert any(s.startswith("STATUS=degraded: board: ") for s in statuses(notify))
    finally:
        sim.heal()
    deadline = time.monotonic() + 5
    while (health := client.req("GET", "/api/health").json())["status"] != "ok":
        assert time.monotonic() < deadline, health
        time.sleep(0.05)
    assert health["problems"] == []
