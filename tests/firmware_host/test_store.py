"""The sqlite store: durability settings, migrations from older schemas, stats, export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cribbage.actions import parse_action
from firmware_host.components.games import GameService
from firmware_host.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError, migrate


def test_wal_and_full_sync(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.start()
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.schema_version() == SCHEMA_VERSION
    store.stop()


def test_database_from_schema_1_opens_and_answers_old_ops(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, target=1)
    params = {"variant": "six-card", "names": ["Ann", "Bob"], "dealer": 0}
    db.execute("INSERT INTO games (created_at, params) VALUES (1.0, ?)", (json.dumps(params),))
    for seq, points in ((1, 2), (2, 3)):
        db.execute(
            "INSERT INTO actions (game_id, seq, op_id, action, created_at) "
            "VALUES (1, ?, ?, ?, 1.0)",
            (seq, f"old-{seq}", json.dumps({"type": "peg", "side": 0, "points": points})),
        )
    db.execute("INSERT INTO tokens (name, hash, created_at) VALUES ('pi', 'abc', 1.0)")
    db.close()

    store = Store(path)
    store.start()
    assert store.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
    assert [t["name"] for t in store.tokens()] == ["pi"]
    games = GameService(store)
    games.start()
    entry = games.current()
    assert entry is not None and entry.version == 2 and entry.view["sides"][0]["front"] == 5
    # An op logged by schema 1 (no stored answer) is answered by folding the log up to it.
    first = games.act(1, 2, "old-1", parse_action({"type": "peg", "side": 0, "points": 2}))
    assert first["game"]["version"] == 1 and first["game"]["sides"][0]["front"] == 2
    new = games.act(1, 2, "new-1", parse_action({"type": "peg", "side": 1, "points": 1}))
    assert new["game"]["version"] == 3
    store.stop()


def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path).start()


def test_stats_count_hands_cribs_pegging_and_undo(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.start()
    games = GameService(store)
    entry = games.create({"variant": "six-card", "names": ["Ann", "Bob"], "dealer": 0,
                          "target": 61})

    def act(action: dict[str, object]) -> dict[str, object]:
        e = games.entry(entry.id)
        return games.act(entry.id, e.version, f"op-{e.version}-{action}",
                         parse_action(action))["game"]

    act({"type": "peg", "side": 1, "points": 2})
    act({"type": "count", "points": 12})  # Bob's hand
    act({"type": "count", "points": 19})  # Ann's hand: nothing
    act({"type": "count", "points": 4})  # Ann's crib
    act({"type": "count", "points": 29})
    act({"type": "undo"})  # 29 was a mistake
    act({"type": "count", "points": 8})  # Ann's hand (Bob deals now)
    act({"type": "count", "points": 2})  # Bob's hand
    game = act({"type": "count", "points": 19})  # Bob's crib
    while game["result"] is None:
        game = act({"type": "peg", "side": 1, "points": 3})
    stats = store.stats()
    assert stats["Bob"]["wins"] == 1 and stats["Ann"]["wins"] == 0
    assert stats["Ann"]["hands_counted"] == 2 and stats["Ann"]["average_hand"] == 4.0
    assert stats["Ann"]["best_hand"] == 8 and stats["Ann"]["average_crib"] == 4.0
    assert stats["Bob"]["best_hand"] == 12 and stats["Bob"]["average_crib"] == 0.0
    assert stats["Bob"]["pegging_per_hand"] is not None and stats["Bob"]["pegging_per_hand"] > 10
    assert len(store.results()) == 1
    # Undoing the winning peg takes the result back out of the history.
    act({"type": "undo"})
    assert store.results() == []
    store.stop()


def test_results_follow_the_game_over_event_through_undo_and_redo(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.start()
    games = GameService(store)
    entry = games.create({"variant": "six-card", "names": ["Ann", "Bob"], "dealer": 0,
                          "target": 61})

    def act(action: dict[str, object]) -> dict[str, object]:
        e = games.entry(entry.id)
        return games.act(entry.id, e.version, f"op-{e.version}", parse_action(action))

    for _ in range(4):
        act({"type": "peg", "side": 0, "points": 15})
    assert store.results(entry.id) == []
    won = act({"type": "peg", "side": 0, "points": 1})  # 61: Ann wins, Bob under 31
    assert [e["kind"] for e in won["events"]][-1] == "game_over"  # type: ignore[index]
    [row] = store.results(entry.id)
    assert row["result"]["winner"] == 0 and row["result"]["scores"] == [61, 0]
    act({"type": "undo"})  # the win taken back: so is its row
    assert store.results(entry.id) == []
    act({"type": "redo"})  # and won again
    assert [r["result"]["scores"] for r in store.results(entry.id)] == [[61, 0]]
    act({"type": "next_game"})  # the next game of the match keeps the first one's row
    assert len(store.results(entry.id)) == 1
    store.stop()
