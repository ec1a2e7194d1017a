"""Persistence in sqlite3: games as logs of accepted actions, results, tokens and settings.

WAL with synchronous=FULL: an action is on disk before the API answers. The schema is
versioned by `PRAGMA user_version`; MIGRATIONS[i] takes a database from version i to i+1,
so a database made by any older version opens.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_host.errors import DaemonError, NotFoundError, StorageError

log = logging.getLogger("crib.store")

MIGRATIONS: tuple[str, ...] = (
    # 0 -> 1: games, their action logs, operator tokens.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        params TEXT NOT NULL
    );
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        op_id TEXT NOT NULL,
        action TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE UNIQUE INDEX actions_op ON actions (game_id, op_id);
    CREATE TABLE tokens (
        name TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL
    );
    """,
    # 1 -> 2: the first answer of each action (older rows are answered by a fold),
    # results of finished games with per-player figures, settings, token use.
    """
    ALTER TABLE actions ADD COLUMN response TEXT;
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games(id),
        match_game INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        result TEXT NOT NULL,
        players TEXT NOT NULL,
        PRIMARY KEY (game_id, match_game)
    );
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    ALTER TABLE tokens ADD COLUMN last_used REAL;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(DaemonError, RuntimeError):
    """The database cannot be opened or is from a newer version."""

    code = "store_error"


class StorageFault(StoreError, StorageError):
    """A write the disk refused (full, read-only, failing): nothing was saved (503)."""

    code = "storage"


# sqlite's primary result codes for a disk that refuses writes, and what to tell a person.
_FAULTS = {
    13: "the Pi's storage is full: nothing was saved",  # SQLITE_FULL
    8: "the Pi's storage can't be written (it is read-only): nothing was saved",  # READONLY
    3: "the Pi's storage can't be written (permission denied): nothing was saved",  # PERM
    10: "the Pi's storage failed while writing (I/O error): nothing was saved",  # IOERR
    14: "the Pi's storage can't be written (the database can't be opened): nothing was saved",
}
LOW_SPACE = 1024 * 1024  # under this much free space the store is reported full


def storage_fault(exc: BaseException) -> StorageFault | None:
    """The fault for a sqlite error that means the disk refused a write, else None."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.Error) or code is None:
        return None
    sentence = _FAULTS.get(code & 0xFF)
    if sentence is None:
        return None
    return StorageFault(sentence, detail=str(exc))


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One accepted action of a game's log."""

    seq: int
    op_id: str
    action: dict[str, Any]
    created_at: float
    response: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class PendingAction:
    """An accepted action waiting for its commit (`action` in the engine's canonical JSON
    form; older logs hold the phone's own spelling, which the engine's parser reads too)."""

    game_id: int
    seq: int
    op_id: str
    action: dict[str, Any]
    response: dict[str, Any]
    result: tuple[int, dict[str, Any], list[dict[str, Any]]] | None = None
    drop_results_from: int | None = None
    # `response` already encoded (the API sends the same text): encoded once per action.
    response_text: str | None = None


class CommitQueue:
    """One writer thread committing queued actions in batches: one fsync for many actions.

    `submit` returns a Future that is done once the action is on disk (or failed).
    The WAL is copied back into the database by a checkpointer thread on its own
    connection, not by the commit that crosses sqlite's threshold: that commit would
    otherwise wait for a checkpoint (tens of ms) before its actions could be answered.
    """

    CHECKPOINT_EVERY = 200  # commits between checkpoints (about 1000 WAL pages at most)

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: queue.SimpleQueue[tuple[PendingAction, Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._checkpointer: threading.Thread | None = None
        self._checkpoint_due = threading.Event()
        self._stopping = False

    def start(self) -> None:
        if self._thread is None:
            self._stopping = False
            if self.store.move_checkpoints():
                self._checkpointer = threading.Thread(target=self._checkpoints,
                                                      name="checkpoint", daemon=True)
                self._checkpointer.start()
            self._thread = threading.Thread(target=self._run, name="commit", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Commit what is queued, then end the writer; idempotent."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(10)
            self._thread = None
        if self._checkpointer is not None:
            self._stopping = True
            self._checkpoint_due.set()
            self._checkpointer.join(10)
            self._checkpointer = None

    def _checkpoints(self) -> None:
        while True:
            self._checkpoint_due.wait()
            self._checkpoint_due.clear()
            if self._stopping:
                return
            try:
                self.store.checkpoint()
            except Exception:  # a failed checkpoint is retried by the next one
                pass

    def submit(self, write: PendingAction) -> Future[None]:
        future: Future[None] = Future()
        if self._thread is None:
            self.start()
        self._queue.put((write, future))
        return future

    def _run(self) -> None:
        commits = 0
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            try:
                outcomes = self.store.append_batch([w for w, _ in batch])
            except Exception as exc:
                for _, future in batch:
                    future.set_exception(exc)
            else:
                for (_, future), problem in zip(batch, outcomes, strict=True):
                    if problem is None:
                        future.set_result(None)
                    else:
                        future.set_exception(problem)
            commits += 1
            if commits % self.CHECKPOINT_EVERY == 0:
                self._checkpoint_due.set()
            if stop:
                return


class Store:
    """The sqlite database; thread-safe (one connection behind a lock)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._reader: sqlite3.Connection | None = None
        self._rlock = threading.RLock()
        self._token_epoch = 0  # token changes made through this Store (see tokens_stamp)
        self.fault: str | None = None  # why the last write failed, until one succeeds
        self.on_fault: Callable[[], None] = lambda: None  # the fault came or went

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Open (creating or migrating) the database; raises StoreError."""
        if self._db is not None:
            return
        if str(self.path) != ":memory:":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"the state directory {self.path.parent} can't be made: "
                                 f"{exc.strerror or exc}") from None
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=5000")
            migrate(db)
        except sqlite3.Error as exc:
            # sqlite says "unable to open database file" for a read-only or full disk too.
            disk = self.problem() if str(self.path) != ":memory:" else None
            why = disk.removesuffix(": nothing was saved") if disk else str(exc)
            raise StoreError(f"database {self.path} cannot be opened: {why}") from exc
        self._db = db

    def stop(self) -> None:
        """Close the database; idempotent."""
        with self._lock, self._rlock:
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads only: in WAL mode it never waits for a commit."""
        with self._rlock:
            if self._reader is None:
                self.db  # noqa: B018 - opens and migrates first
                self._reader = sqlite3.connect(self.path, check_same_thread=False,
                                               isolation_level=None)
                self._reader.execute("PRAGMA busy_timeout=5000")
            yield self._reader

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self.start()
        assert self._db is not None
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction (BEGIN IMMEDIATE ... COMMIT) under the lock.

        Raises StorageFault when the disk refuses the write (full, read-only, failing):
        then nothing of it was saved.
        """
        with self._lock:
            db = self.db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                fault = storage_fault(exc)
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                if fault is None:
                    raise
                self._set_fault(fault.message)
                raise fault from exc
            self._set_fault(None)

    def _set_fault(self, fault: str | None) -> None:
        if fault != self.fault:
            self.fault = fault
            self.on_fault()

    def problem(self) -> str | None:
        """Why writes fail now, if they do: the last write's fault, a read-only or nearly
        full file system (checked without writing)."""
        if self.fault is not None:
            return self.fault
        if str(self.path) == ":memory:":
            return None
        try:
            st = os.statvfs(self.path.parent)
        except OSError:
            return _FAULTS[14]
        if st.f_flag & os.ST_RDONLY:
            return _FAULTS[8]
        if st.f_bavail * st.f_frsize < LOW_SPACE:
            return _FAULTS[13]
        return None

    def move_checkpoints(self) -> bool:
        """Stop the writer's own WAL checkpoints (the caller runs `checkpoint` instead);
        False, changing nothing, for a database that cannot have a second connection."""
        if str(self.path) == ":memory:":
            return False
        with self._lock:
            self.db.execute("PRAGMA wal_autocheckpoint=0")
        return True

    def checkpoint(self) -> None:
        """Copy the WAL into the database from a connection of its own (PASSIVE: it never
        waits for the writer, and the writer never waits for it)."""
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            db.close()

    def schema_version(self) -> int:
        with self.reading() as db:
            return int(db.execute("PRAGMA user_version").fetchone()[0])

    # -- games -------------------------------------------------------------------------------
    def create_game(self, params: dict[str, Any]) -> int:
        """Record a new game; returns its id."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO games (created_at, params) VALUES (?, ?)",
                (time.time(), json.dumps(params)),
            )
            return int(cur.lastrowid or 0)

    def game_params(self, game_id: int) -> dict[str, Any]:
        """The parameters a game was created with; raises NotFoundError."""
        row = None
        # An id beyond SQLite's 64-bit integers names no game (sqlite3 would raise OverflowError).
        if -(2**63) <= game_id < 2**63:
            with self.reading() as db:
                row = db.execute("SELECT params FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"there is no game {game_id}", game_id=game_id)
        return dict(json.loads(row[0]))

    def latest_game_id(self) -> int | None:
        with self.reading() as db:
            row = db.execute("SELECT max(id) FROM games").fetchone()
        return None if row[0] is None else int(row[0])

    def game_ids(self) -> list[int]:
        with self.reading() as db:
            return [int(r[0]) for r in db.execute("SELECT id FROM games ORDER BY id")]

    def games(self) -> list[dict[str, Any]]:
        """Every game: id, created_at, params, number of actions."""
        with self.reading() as db:
            rows = db.execute(
                "SELECT g.id, g.created_at, g.params, "
                "(SELECT count(*) FROM actions a WHERE a.game_id = g.id) "
                "FROM games g ORDER BY g.id"
            ).fetchall()
        return [
            {"id": r[0], "created_at": r[1], "params": json.loads(r[2]), "actions": r[3]}
            for r in rows
        ]

    def actions(self, game_id: int, upto: int | None = None) -> list[ActionRow]:
        """A game's log in order (seq 1..), optionally only up to seq `upto`."""
        sql = "SELECT seq, op_id, action, created_at, response FROM actions WHERE game_id = ?"
        args: tuple[Any, ...] = (game_id,)
        if upto is not None:
            sql += " AND seq <= ?"
            args = (game_id, upto)
        with self.reading() as db:
            rows = db.execute(sql + " ORDER BY seq", args).fetchall()
        return [
            ActionRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]) if r[4] else None)
            for r in rows
        ]

    def find_op(self, game_id: int, op_id: str) -> ActionRow | None:
        """The accepted action with this operation id, if any."""
        with self.reading() as db:
            r = db.execute(
                "SELECT seq, op_id, action, created_at, response FROM actions "
                "WHERE game_id = ? AND op_id = ?",
                (game_id, op_id),
            ).fetchone()
        if r is None:
            return None
        return ActionRow(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]) if r[4] else None)

    def append_batch(self, writes: list[PendingAction]) -> list[Exception | None]:
        """Append several actions in one transaction (one fsync: group commit).

        Returns, per write, None or the error that kept it out (a seq that does not follow
        its log, a repeated op id); the others are committed. Raises sqlite3.Error when the
        commit itself fails (then none is).
        """
        now = time.time()
        outcomes: list[Exception | None] = []
        with self.transaction() as db:
            for w in writes:
                last = db.execute(
                    "SELECT coalesce(max(seq), 0) FROM actions WHERE game_id = ?", (w.game_id,)
                ).fetchone()[0]
                if last != w.seq - 1:
                    outcomes.append(StoreError(
                        f"game {w.game_id}: action {w.seq} does not follow the log (at {last})"
                    ))
                    continue
                if w.result is None and w.drop_results_from is None:
                    # One statement: sqlite undoes a failed statement by itself, and the
                    # transaction goes on, so no savepoint is needed (the common case).
                    try:
                        self._insert(db, w, now)
                    except sqlite3.IntegrityError as exc:
                        outcomes.append(StoreError(f"game {w.game_id}: {exc}"))
                    else:
                        outcomes.append(None)
                    continue
                db.execute("SAVEPOINT one")
                try:
                    self._insert(db, w, now)
                except sqlite3.IntegrityError as exc:
                    db.execute("ROLLBACK TO one")
                    outcomes.append(StoreError(f"game {w.game_id}: {exc}"))
                else:
                    outcomes.append(None)
                db.execute("RELEASE one")
        return outcomes

    @staticmethod
    def _insert(db: sqlite3.Connection, w: PendingAction, now: float) -> None:
        db.execute(
            "INSERT INTO actions (game_id, seq, op_id, action, created_at, response) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (w.game_id, w.seq, w.op_id, json.dumps(w.action), now,
             w.response_text if w.response_text is not None else json.dumps(w.response)),
        )
        if w.drop_results_from is not None:
            db.execute(
                "DELETE FROM results WHERE game_id = ? AND match_game >= ?",
                (w.game_id, w.drop_results_from),
            )
        if w.result is not None:
            match_game, outcome, players = w.result
            db.execute(
                "INSERT OR REPLACE INTO results "
                "(game_id, match_game, finished_at, result, players) VALUES (?, ?, ?, ?, ?)",
                (w.game_id, match_game, now, json.dumps(outcome), json.dumps(players)),
            )

    # -- results and statistics ---------------------------------------------------------------
    def results(self, game_id: int | None = None) -> list[dict[str, Any]]:
        """Finished games (newest first): game id, game of the match, result, players."""
        sql = (
            "SELECT r.game_id, r.match_game, r.finished_at, r.result, r.players, g.params "
            "FROM results r JOIN games g ON g.id = r.game_id"
        )
        args: tuple[Any, ...] = ()
        if game_id is not None:
            sql += " WHERE r.game_id = ?"
            args = (game_id,)
        with self.reading() as db:
            rows = db.execute(sql + " ORDER BY r.finished_at DESC", args).fetchall()
        return [
            {
                "game_id": r[0],
                "match_game": r[1],
                "finished_at": r[2],
                "result": json.loads(r[3]),
                "players": json.loads(r[4]),
                "variant": json.loads(r[5]).get("variant"),
            }
            for r in rows
        ]

    def stats(self) -> dict[str, dict[str, Any]]:
        """Per-player statistics over every finished game, keyed by name."""
        acc: dict[str, dict[str, Any]] = {}
        for row in self.results():
            for p in row["players"]:
                s = acc.setdefault(
                    p["name"],
                    {"games": 0, "wins": 0, "skunks": 0, "skunked": 0, "hands": [],
                     "cribs": [], "pegging": 0, "hands_played": 0},
                )
                s["games"] += 1
                s["wins"] += int(p["won"])
                s["skunks"] += int(p["won"] and p["skunk"])
                s["skunked"] += int((not p["won"]) and p["skunk"])
                s["hands"] += p["hands"]
                s["cribs"] += p["cribs"]
                s["pegging"] += p["pegging"]
                s["hands_played"] += p["hands_played"]
        out: dict[str, dict[str, Any]] = {}
        for name, s in sorted(acc.items()):
            hands, cribs, played = s["hands"], s["cribs"], s["hands_played"]
            out[name] = {
                "games": s["games"],
                "wins": s["wins"],
                "skunks": s["skunks"],
                "skunked": s["skunked"],
                "hands_counted": len(hands),
                "average_hand": round(sum(hands) / len(hands), 2) if hands else None,
                "cribs_counted": len(cribs),
                "average_crib": round(sum(cribs) / len(cribs), 2) if cribs else None,
                "pegging_per_hand": round(s["pegging"] / played, 2) if played else None,
                "best_hand": max(hands) if hands else None,
            }
        return out

    # -- export --------------------------------------------------------------------------------
    def export_json(self, game_id: int | None = None) -> dict[str, Any]:
        """One game or all, with their logs and results; raises NotFoundError."""
        ids = [game_id] if game_id is not None else self.game_ids()
        games = []
        for gid in ids:
            params = self.game_params(gid)
            games.append(
                {
                    "id": gid,
                    "params": params,
                    "actions": [
                        {"seq": a.seq, "op_id": a.op_id, "at": a.created_at, "action": a.action}
                        for a in self.actions(gid)
                    ],
                    "results": self.results(gid),
                }
            )
        return {"schema_version": self.schema_version(), "games": games}

    # -- tokens ----------------------------------------------------------------------------------
    def add_token(self, name: str, digest: str, *, replace: bool = True) -> bool:
        """Store a token's hash under a name, replacing an older token of that name only when
        `replace`; returns whether it was stored (in one statement, so two at once cannot both
        take a name)."""
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        with self.transaction() as db:
            stored = db.execute(
                f"{verb} INTO tokens (name, hash, created_at) VALUES (?, ?, ?)",
                (name, digest, time.time()),
            ).rowcount > 0
        if stored:
            self._tokens_changed()
        return stored

    def tokens_stamp(self) -> tuple[int, ...]:
        """What changes whenever a token is added, replaced or revoked, by this process or
        another (`crib token revoke` beside the daemon): a cache of token checks is good
        only while this stays the same. Read it before the tokens it guards. Never raises."""
        if str(self.path) == ":memory:":
            return (self._token_epoch,)
        try:
            st = os.stat(self._stamp_path)
        except OSError:
            return (self._token_epoch, -1)
        return (self._token_epoch, st.st_ino, st.st_size, st.st_mtime_ns)

    @property
    def _stamp_path(self) -> str:
        return f"{self.path}-tokens"

    def _tokens_changed(self) -> None:
        """After a committed token change: bump the stamp (one byte appended, so its size
        changes even within one tick of the file system's clock)."""
        self._token_epoch += 1
        if str(self.path) == ":memory:":
            return
        try:
            fd = os.open(self._stamp_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if os.fstat(fd).st_size >= 4096:
                    os.ftruncate(fd, 0)  # bounded; the new mtime still differs
                os.write(fd, b".")
            finally:
                os.close(fd)
        except OSError as exc:
            # The running daemon's cache then lapses within Tokens.CACHE_S instead.
            log.warning("could not mark the token change in %s: %s", self._stamp_path, exc)

    def token_name(self, digest: str) -> str | None:
        """The name of the token with this hash, if it exists."""
        with self.reading() as db:
            row = db.execute("SELECT name FROM tokens WHERE hash = ?", (digest,)).fetchone()
        return None if row is None else str(row[0])

    def touch_token(self, name: str) -> None:
        """Record that the token of `name` was used now."""
        with self.transaction() as db:
            db.execute("UPDATE tokens SET last_used = ? WHERE name = ?", (time.time(), name))

    def tokens(self) -> list[dict[str, Any]]:
        with self.reading() as db:
            rows = db.execute(
                "SELECT name, created_at, last_used FROM tokens ORDER BY name"
            ).fetchall()
        return [{"name": r[0], "created_at": r[1], "last_used": r[2]} for r in rows]

    def revoke_token(self, name: str) -> bool:
        """Delete a token; returns whether it existed."""
        with self.transaction() as db:
            revoked = db.execute("DELETE FROM tokens WHERE name = ?", (name,)).rowcount > 0
        if revoked:
            self._tokens_changed()
        return revoked

    # -- settings ----------------------------------------------------------------------------------
    def get_setting(self, key: str, default: Any = None) -> Any:
        with self.reading() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_setting(self, key: str, value: Any) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                (key, json.dumps(value)),
            )


def migrate(db: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring a database up to `target`; returns the version it had. Raises StoreError."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database schema {version} is newer than this daemon's ({SCHEMA_VERSION}); "
            "upgrade the daemon"
        )
    start = version
    for step in range(version, target):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[step].split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {step + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return start
