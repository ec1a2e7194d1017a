"""Make `legacy_log.sqlite` and `legacy_log.json`: a database as the daemon wrote it before the
log stored actions in their canonical form (each action as the phone spelled it).

Run once, with that older daemon: `python tests/firmware_host/data/make_legacy_log.py`.
The test (`test_legacy_log.py`) replays the database with today's daemon and compares each
game with what the older daemon showed (`legacy_log.json`).
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from cribbage.simulate import random_action  # noqa: E402
from firmware_host.components.games import GameService  # noqa: E402
from firmware_host.store import Store  # noqa: E402

SUITS = {"H": "♥", "D": "♦", "C": "♣", "S": "♠"}


def respell(card: str, rng: random.Random) -> str:
    """The same card as a phone might write it: lower case, a suit symbol, T for 10, spaces."""
    rank, suit = card[:-1], card[-1]
    way = rng.randrange(5)
    if way == 0:
        return (rank + suit).lower()
    if way == 1:
        return rank + SUITS[suit]
    if way == 2:
        return ("T" if rank == "10" else rank) + suit.lower()
    if way == 3:
        return f" {card} "
    return card


def respelled(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in action.items():
        if key == "card":
            value = respell(value, rng)
        elif key in ("cards", "crib"):
            value = [respell(c, rng) for c in value]
        elif key == "hands":
            value = [[respell(c, rng) for c in h] for h in value]
        out[key] = value
    if action["type"] == "count" and "cards" not in action and rng.random() < 0.5:
        out["cards"] = None  # an optional field sent as null
    if action["type"] == "muggins" and rng.random() < 0.5:
        out["points"] = None
    return dict(reversed(list(out.items()))) if rng.random() < 0.3 else out  # key order


def main() -> None:
    db = HERE / "legacy_log.sqlite"
    for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        p.unlink(missing_ok=True)
    store = Store(db)
    store.start()
    games = GameService(store, lambda entry: None)
    games.start()
    rng = random.Random(20)
    expected: dict[str, Any] = {}
    # A dealt game played past a result and into the next game, with undos and redos.
    entry = games.create({"variant": "six-card", "names": ["Ann", "Bob"], "target": 61,
                          "skunk": "skunk", "muggins": False, "mode": "dealt",
                          "dealer": None})
    done_after = None
    for n in range(2000):
        k = games.entry(entry.id)
        if rng.random() < 0.05 and k.version > 0:
            action: dict[str, Any] = {"type": "undo"}
        elif rng.random() < 0.03:
            action = {"type": "redo"}
        else:
            action = respelled(random_action(k.game, rng), rng)
        try:
            games.act(entry.id, k.version, f"op-{n}", action)
        except Exception:
            continue
        k = games.entry(entry.id)
        if k.game.game_number >= 2 and done_after is None:
            done_after = n
        if done_after is not None and n > done_after + 25:
            break
    # A keeper-mode game: pegs and counts entered by points.
    kept = games.create({"variant": "six-card", "names": ["Cy", "Di"], "target": 61,
                         "skunk": "none", "muggins": False, "mode": "keeper", "dealer": 1})
    steps: list[dict[str, Any]] = [{"type": "starter", "card": "jh"}]
    steps += [{"side": 0, "points": 2, "type": "peg"}, {"type": "peg", "side": 1, "points": 3},
              {"type": "count", "points": 8, "cards": None}, {"type": "count", "points": 12},
              {"type": "count", "points": 4}]
    for i, action in enumerate(steps):
        k = games.entry(kept.id)
        try:
            games.act(kept.id, k.version, f"k-{i}", action)
        except Exception as exc:
            print("keeper-mode step refused:", action, exc)
    for gid in store.game_ids():
        e = games.fold(gid)
        expected[str(gid)] = {"version": e.version, "view": e.view}
    games.stop()
    store.stop()
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.execute("PRAGMA journal_mode=DELETE")
        c.execute("VACUUM")
    (HERE / "legacy_log.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False)
                                          + "\n")
    rows = sqlite3.connect(db).execute("SELECT count(*) FROM actions").fetchone()[0]
    print(f"{db.name}: {len(expected)} games, {rows} actions")


if __name__ == "__main__":
    main()
