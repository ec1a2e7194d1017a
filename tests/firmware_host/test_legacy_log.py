"""A database written before the log kept actions in their canonical form still loads.

`data/legacy_log.sqlite` was written by the daemon of that time (`data/make_legacy_log.py`):
cards spelled as phones send them (5h, 10♥, Td, " KD "), optional fields sent as null, keys in
any order, undos and redos, a finished game of a match and its result row. Today's daemon
replays it to the same games, and goes on from there.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cribbage.actions import parse_action
from firmware_host.components.games import GameService
from firmware_host.store import Store

DATA = Path(__file__).parent / "data"
# What a player sees of a game, which a replay must give back exactly.
SHOWN = ("variant", "mode", "target", "names", "sides", "dealer", "crib_owner", "hand_number",
         "game_number", "phase", "turn", "starter", "next_count", "play", "last_count",
         "result", "games_won", "match_points", "can_undo", "can_redo", "hands", "crib")


@pytest.fixture
def games(tmp_path: Path) -> Any:
    db = tmp_path / "cribbage.sqlite3"
    shutil.copy(DATA / "legacy_log.sqlite", db)
    store = Store(db)
    store.start()
    service = GameService(store)
    service.start()
    yield service
    service.stop()
    store.stop()


def expected() -> dict[str, Any]:
    return dict(json.loads((DATA / "legacy_log.json").read_text()))


def test_every_game_replays_to_what_the_older_daemon_showed(games: GameService) -> None:
    want = expected()
    assert sorted(games.store.game_ids()) == sorted(int(k) for k in want)
    for key, old in want.items():
        entry = games.fold(int(key))
        assert entry.version == old["version"]
        body = entry.body()
        assert {k: body.get(k) for k in SHOWN} == {k: old["view"].get(k) for k in SHOWN}


def test_the_old_spellings_are_in_the_log_and_the_result_row_is_kept(
        games: GameService) -> None:
    spelled = [row.action for row in games.store.actions(1)]
    cards = [c for a in spelled for c in ([a["card"]] if "card" in a else a.get("cards") or [])]
    # The fixture is what it says: spellings the canonical form would not write.
    assert any(c != c.strip() for c in cards) and any(c[-1] in "♥♦♣♠" for c in cards)
    assert any(c[:-1].islower() or c[-1].islower() for c in cards)
    assert any(a.get("cards", 0) is None for a in spelled)
    (row,) = games.store.results(1)
    assert row["result"]["winner"] == 0 and row["result"]["scores"] == [61, 48]


def test_the_replayed_game_goes_on_and_logs_the_canonical_form(games: GameService) -> None:
    entry = games.entry(2)  # the keeper game, in the play
    assert entry.body()["phase"] == "play"
    # Typed from the edge on; the log gets the canonical form.
    games.act(2, entry.version, "after-upgrade", parse_action({"type": "peg", "side": 0,
                                                               "points": 1}))
    again = games.fold(2)
    assert again.version == entry.version + 1
    assert [s["front"] for s in again.body()["sides"]] == [11, 21]
    last = games.store.actions(2)[-1]
    assert last.op_id == "after-upgrade"
    assert last.action == {"type": "peg", "side": 0, "points": 1}

