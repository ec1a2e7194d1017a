"""The director's SQLite file (`director.sqlite3` in its state directory): the players of
each night in order, the rounds and their seating, every result with the payload that
counts and the highest revision the table was told of, the corrections log, the disputes
(a table's revision of a result the director had counted and will not change by itself),
and the tables seen.

Every method commits before it returns (WAL, synchronous=FULL): the director publishes or
answers only after that. The tables' live state is the exception: it is written in batches
(`tables_seen_many`), because it is shown, never counted. One connection, shared by the
broker's thread and the web server's, behind one lock.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    night TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL, added_at REAL NOT NULL,
    PRIMARY KEY (night, pos), UNIQUE (night, name));
CREATE TABLE IF NOT EXISTS absent (
    night TEXT NOT NULL, name TEXT NOT NULL, since REAL NOT NULL, PRIMARY KEY (night, name));
CREATE TABLE IF NOT EXISTS rounds (
    night TEXT NOT NULL, round INTEGER NOT NULL, seated_at REAL NOT NULL,
    byes TEXT NOT NULL, repeats INTEGER NOT NULL, forced INTEGER NOT NULL,
    PRIMARY KEY (night, round));
CREATE TABLE IF NOT EXISTS seats (
    night TEXT NOT NULL, round INTEGER NOT NULL, seat INTEGER NOT NULL, tbl TEXT NOT NULL,
    names TEXT NOT NULL, PRIMARY KEY (night, round, tbl));
CREATE TABLE IF NOT EXISTS results (
    id TEXT PRIMARY KEY, tbl TEXT NOT NULL, night TEXT NOT NULL, rev INTEGER NOT NULL,
    void INTEGER NOT NULL, payload TEXT NOT NULL, received_at REAL NOT NULL,
    arrived_round INTEGER NOT NULL, fix TEXT);
CREATE INDEX IF NOT EXISTS results_night ON results (night, tbl);
CREATE TABLE IF NOT EXISTS corrections (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, result_id TEXT NOT NULL, night TEXT NOT NULL,
    at REAL NOT NULL, who TEXT NOT NULL, reason TEXT NOT NULL, old TEXT NOT NULL,
    new TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS disputes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, result_id TEXT NOT NULL, night TEXT NOT NULL,
    tbl TEXT NOT NULL, rev INTEGER NOT NULL, payload TEXT NOT NULL, why TEXT NOT NULL,
    at REAL NOT NULL, resolved TEXT, resolved_by TEXT, resolved_at REAL);
CREATE TABLE IF NOT EXISTS tables_seen (
    name TEXT PRIMARY KEY, online INTEGER NOT NULL, state TEXT, seen_at REAL NOT NULL);
"""


class StoreError(RuntimeError):
    """The state directory or its database cannot be used: the sentence says which."""


@dataclass(frozen=True)
class StoredResult:
    """A result as kept: its highest revision's payload, and the director's fix, if any."""

    id: str
    table: str
    night: str
    rev: int
    void: bool
    payload: dict[str, Any]
    received_at: float
    arrived_round: int
    fix: dict[str, Any] | None


@dataclass(frozen=True)
class Seat:
    """One table's seating in a round: `names` empty when nobody plays there."""

    round: int
    seat: int
    table: str
    names: tuple[str, ...]


class DirectorStore:
    """The night's record in SQLite; every write is committed when the method returns."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self.lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._pending: list[tuple[str, Sequence[object]]] | None = None  # a batch's writes

    def start(self) -> None:
        """Open (and create) the database; raises StoreError naming the file."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=5000")
            db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"state {self.path}: cannot use it ({exc})") from None
        db.row_factory = sqlite3.Row
        self._db = db

    def stop(self) -> None:
        with self.lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None, "the store is not started"
        return self._db

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Inside: the writes of this thread wait, and are committed together (one sync)
        when it ends, before anything after it is told; an error rolls all of them back."""
        with self.lock:
            outer = self._pending is None
            if outer:
                self._pending = []
            try:
                yield
            finally:
                if outer:
                    pending, self._pending = self._pending, None
                    if pending:
                        self._commit(pending)

    def flush_batch(self) -> None:
        """Commit what the batch holds so far (for a read that must see it)."""
        with self.lock:
            if self._pending:
                pending, self._pending = self._pending, []
                self._commit(pending)

    def _write(self, statements: Sequence[tuple[str, Sequence[object]]]) -> None:
        with self.lock:
            if self._pending is not None:
                self._pending.extend(statements)
                return
            self._commit(statements)

    def _commit(self, statements: Sequence[tuple[str, Sequence[object]]]) -> None:
        with self.lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    db.execute(sql, params)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # -- players ----------------------------------------------------------------------------
    def players(self, night: str) -> list[str]:
        with self.lock:
            rows = self.db.execute("SELECT name FROM players WHERE night=? ORDER BY pos",
                                   (night,)).fetchall()
        return [r["name"] for r in rows]

    def add_players(self, night: str, names: Sequence[str]) -> None:
        with self.lock:
            start = len(self.players(night))
            now = self.clock()
            self._write([("INSERT INTO players (night, pos, name, added_at) VALUES (?,?,?,?)",
                          (night, start + i, name, now)) for i, name in enumerate(names)])

    def set_absent(self, night: str, names: Sequence[str], absent: bool) -> None:
        """Mark players as gone (`absent`) or back, in one transaction."""
        if absent:
            self._write([("INSERT OR IGNORE INTO absent (night, name, since) VALUES (?,?,?)",
                          (night, n, self.clock())) for n in names])
        else:
            self._write([("DELETE FROM absent WHERE night=? AND name=?", (night, n))
                         for n in names])

    def absent(self, night: str) -> list[str]:
        with self.lock:
            rows = self.db.execute("SELECT name FROM absent WHERE night=?", (night,)).fetchall()
        return [r["name"] for r in rows]

    # -- rounds -----------------------------------------------------------------------------
    def add_round(self, night: str, round_: int, seats: Sequence[Seat], byes: Sequence[str],
                  repeats: bool, forced: bool) -> None:
        statements: list[tuple[str, Sequence[object]]] = [
            ("INSERT INTO rounds (night, round, seated_at, byes, repeats, forced) "
             "VALUES (?,?,?,?,?,?)",
             (night, round_, self.clock(), json.dumps(list(byes)), int(repeats), int(forced)))]
        statements += [("INSERT INTO seats (night, round, seat, tbl, names) VALUES (?,?,?,?,?)",
                        (night, round_, s.seat, s.table, json.dumps(list(s.names))))
                       for s in seats]
        self._write(statements)

    def rounds(self, night: str) -> list[dict[str, Any]]:
        """Every round of the night in order, with its seats and byes."""
        with self.lock:
            rounds = self.db.execute("SELECT * FROM rounds WHERE night=? ORDER BY round",
                                     (night,)).fetchall()
            seats = self.db.execute("SELECT * FROM seats WHERE night=? ORDER BY round, seat",
                                    (night,)).fetchall()
        out = []
        for r in rounds:
            out.append({
                "round": r["round"], "seated_at": r["seated_at"], "byes": json.loads(r["byes"]),
                "repeats": bool(r["repeats"]), "forced": bool(r["forced"]),
                "seats": [Seat(s["round"], s["seat"], s["tbl"], tuple(json.loads(s["names"])))
                          for s in seats if s["round"] == r["round"]],
            })
        return out

    # -- results ----------------------------------------------------------------------------
    def result(self, result_id: str) -> StoredResult | None:
        with self.lock:
            row = self.db.execute("SELECT * FROM results WHERE id=?", (result_id,)).fetchone()
        return None if row is None else _result(row)

    def results(self, night: str) -> list[StoredResult]:
        with self.lock:
            rows = self.db.execute("SELECT * FROM results WHERE night=? ORDER BY received_at, id",
                                   (night,)).fetchall()
        return [_result(r) for r in rows]

    def put_result(self, night: str, result_id: str, table: str, rev: int, void: bool,
                   payload: dict[str, Any], arrived_round: int) -> None:
        """Keep this revision (the caller checked it is newer than the one kept)."""
        self._write([(
            "INSERT INTO results (id, tbl, night, rev, void, payload, received_at, "
            "arrived_round) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE SET "
            "rev=excluded.rev, void=excluded.void, payload=excluded.payload, "
            "received_at=excluded.received_at",
            (result_id, table, night, rev, int(void), json.dumps(payload), self.clock(),
             arrived_round))])

    def acknowledge(self, result_id: str, rev: int) -> None:
        """The table's revision `rev` is taken (as a dispute): it stops sending it."""
        self._write([("UPDATE results SET rev=? WHERE id=?", (rev, result_id))])

    def replace_payload(self, result_id: str, rev: int, void: bool,
                        payload: dict[str, Any]) -> None:
        """Count the table's revision after all (a dispute accepted): its payload, no fix."""
        self._write([("UPDATE results SET rev=?, void=?, payload=?, fix=NULL WHERE id=?",
                      (rev, int(void), json.dumps(payload), result_id))])

    def counted_ids(self, table: str) -> list[str]:
        """"{id}@{rev}" of the results this table sent, the latest 400: tonight's, and an
        earlier night's that it may still be sending (it never saw them counted)."""
        with self.lock:
            rows = self.db.execute("SELECT id, rev FROM results WHERE tbl=? "
                                   "ORDER BY received_at DESC LIMIT 400", (table,)).fetchall()
        return sorted(f"{r['id']}@{r['rev']}" for r in rows)

    def result_tables(self, night: str) -> list[str]:
        with self.lock:
            rows = self.db.execute("SELECT DISTINCT tbl FROM results WHERE night=? ORDER BY tbl",
                                   (night,)).fetchall()
        return [r["tbl"] for r in rows]

    # -- corrections ------------------------------------------------------------------------
    def correct(self, night: str, result_id: str, who: str, reason: str,
                old: dict[str, Any], new: dict[str, Any], *, fix: bool = True) -> None:
        """Log the correction and (`fix`) keep `new` as the result's fix, in one
        transaction."""
        statements: list[tuple[str, Sequence[object]]] = [
            ("INSERT INTO corrections (result_id, night, at, who, reason, old, new) "
             "VALUES (?,?,?,?,?,?,?)",
             (result_id, night, self.clock(), who, reason, json.dumps(old), json.dumps(new)))]
        if fix:
            statements.append(("UPDATE results SET fix=? WHERE id=?",
                               (json.dumps(new), result_id)))
        self._write(statements)

    def corrections(self, night: str) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute("SELECT * FROM corrections WHERE night=? ORDER BY seq",
                                   (night,)).fetchall()
        return [{"seq": r["seq"], "result": r["result_id"], "at": r["at"], "who": r["who"],
                 "reason": r["reason"], "old": json.loads(r["old"]), "new": json.loads(r["new"])}
                for r in rows]

    # -- disputes ---------------------------------------------------------------------------
    def add_dispute(self, night: str, result_id: str, table: str, rev: int,
                    payload: dict[str, Any], why: str) -> None:
        """Keep a table's revision that disagrees with a counted result, and acknowledge it,
        in one transaction."""
        self._write([
            ("INSERT INTO disputes (result_id, night, tbl, rev, payload, why, at) "
             "VALUES (?,?,?,?,?,?,?)",
             (result_id, night, table, rev, json.dumps(payload), why, self.clock())),
            ("UPDATE results SET rev=? WHERE id=?", (rev, result_id)),
        ])

    def disputes(self, night: str) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute("SELECT * FROM disputes WHERE night=? ORDER BY seq",
                                   (night,)).fetchall()
        return [{"seq": r["seq"], "result": r["result_id"], "table": r["tbl"], "rev": r["rev"],
                 "payload": json.loads(r["payload"]), "why": r["why"], "at": r["at"],
                 "resolved": r["resolved"], "resolved_by": r["resolved_by"],
                 "resolved_at": r["resolved_at"]} for r in rows]

    def resolve_dispute(self, seq: int, how: str, who: str) -> None:
        self._write([("UPDATE disputes SET resolved=?, resolved_by=?, resolved_at=? "
                      "WHERE seq=?", (how, who, self.clock(), seq))])

    # -- tables -----------------------------------------------------------------------------
    def tables_seen_many(self, rows: Sequence[tuple[str, bool, dict[str, Any] | None, float]]
                         ) -> None:
        """Record many tables' presence and live state in one transaction: (name, online,
        state or None to keep the last, seen_at)."""
        self._write([(
            "INSERT INTO tables_seen (name, online, state, seen_at) VALUES (?,?,?,?) "
            "ON CONFLICT (name) DO UPDATE SET online=excluded.online, "
            "state=COALESCE(excluded.state, state), seen_at=excluded.seen_at",
            (name, int(online), None if state is None else json.dumps(state), at))
            for name, online, state, at in rows])

    def table_seen(self, name: str, *, online: bool | None = None,
                   state: dict[str, Any] | None = None) -> None:
        """Record a table's presence or live state (whichever is given)."""
        now = self.clock()
        data = json.dumps(state) if state is not None else None
        self._write([(
            "INSERT INTO tables_seen (name, online, state, seen_at) VALUES (?,?,?,?) "
            "ON CONFLICT (name) DO UPDATE SET "
            "online=COALESCE(?, online), state=COALESCE(?, state), seen_at=excluded.seen_at",
            (name, int(online if online is not None else True), data, now,
             None if online is None else int(online), data))])

    def tables(self) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute("SELECT * FROM tables_seen ORDER BY name").fetchall()
        return [{"name": r["name"], "online": bool(r["online"]), "seen_at": r["seen_at"],
                 "state": json.loads(r["state"]) if r["state"] else None} for r in rows]


def _result(row: sqlite3.Row) -> StoredResult:
    return StoredResult(row["id"], row["tbl"], row["night"], row["rev"], bool(row["void"]),
                        json.loads(row["payload"]), row["received_at"], row["arrived_round"],
                        json.loads(row["fix"]) if row["fix"] else None)
