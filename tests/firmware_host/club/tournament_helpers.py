"""A whole tournament day for the tests: a real Mosquitto, tables that are real `crib serve
--simulate` daemons, the director a real `crib club serve`; the qualifying rounds, the cut
and the bracket driven through the director's HTTP API and every game played through a
table's HTTP API from the seating it received. The reference is computed from the tables'
own game logs by tests/cribbage/tournament_reference.py."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cribbage.tournament import GameRecord
from tests.cribbage.tournament_reference import independent_bracket, independent_standings
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.club.night_helpers import (
    Director,
    Plan,
    Table,
    finish,
    open_club,
    wait_for,
)

PLAYERS_AT_ONCE = 6  # tables played in parallel from the test (the machine has 2 cores)


@dataclass
class Day:
    """The broker, the tables, the director and the field."""

    broker: Broker
    tables: list[Table]
    director: Director
    players: list[str]
    rng: random.Random
    rounds: list[dict[str, Any]] = field(default_factory=list)

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def play_round(self, seated: dict[str, Any]) -> None:
        """Play every seated game of the round at its table to its end; wait until the
        director has counted them all."""
        self.rounds.append(seated)
        number = seated["round"]
        jobs = [(self.table(t["table"]), Plan.draw(self.rng)) for t in seated["tables"]
                if len(t["names"]) == 2]

        def one(job: tuple[Table, Plan]) -> None:
            table, plan = job
            rng = random.Random(f"{table.name}-{number}")
            finish(table, table.start_seated(number), plan, rng)

        with ThreadPoolExecutor(PLAYERS_AT_ONCE) as pool:
            list(pool.map(one, jobs))

        def counted() -> bool:
            results = self.director.get("/api/night")["results"]
            return sum(r["status"] == "counted" and r["round"] == number
                       for r in results) == len(jobs)
        wait_for(f"round {number}'s {len(jobs)} games counted", counted, 60, 0.3)

    def games(self) -> list[GameRecord]:
        """Every finished game in the tables' own logs, with the round it was seated in."""
        records = []
        for table in self.tables:
            for g in table.history():
                if not g.get("result"):
                    continue
                names = [p["name"] for p in sorted(g["players"], key=lambda p: p["side"])]
                res = g["result"]
                w, lo = res["winner"], res["loser"]
                records.append(GameRecord(
                    round=table.rounds[g["game_id"]], table=table.name, winner=names[w],
                    loser=names[lo], winner_score=res["scores"][w],
                    loser_score=res["scores"][lo], kind=res["kind"]))
        return records

    def close(self) -> None:
        for t in self.tables:
            t.close()
        self.director.close()
        self.broker.__exit__()


def open_day(root: Path, tables: int, players: int, seed: int = 29, first: str = "") -> Day:
    """Start the broker, `tables` tables (started together, then waited for) and the
    director; register `players` players (the first named `first` when given)."""
    broker, opened, director = open_club(root, tables, together=True)
    field_ = [f"Player {i + 1:02}" for i in range(players)]
    field_[0] = first or field_[0]
    director.post("/api/players", {"names": field_})
    return Day(broker, opened, director, field_, random.Random(seed))


def run_day(day: Day, games: int) -> dict[str, Any]:
    """Qualifying (`games` rounds), the cut and the bracket through the director; the
    director's GET /api/tournament at the end."""
    seated = day.director.post("/api/tournament", {"games": games, "limit": 2})
    assert seated["stage"] == "qualifying" and seated["round"] == 1, seated
    day.play_round(seated)
    for number in range(2, games + 1):
        seated = day.director.post("/api/tournament/rounds", {})
        assert seated["round"] == number and not seated["over_limit"], seated
        day.play_round(seated)
    cut = day.director.post("/api/tournament/cut", {})
    assert cut["stage"] == "knockout", cut
    while True:
        view = day.director.get("/api/tournament")
        if view["stage"] == "done":
            return dict(view)
        seated = day.director.post("/api/tournament/rounds", {})
        assert seated["stage"] == "knockout", seated
        day.play_round(seated)


def check_day(day: Day, view: dict[str, Any], games: int) -> None:
    """The director's standings, cut and bracket equal the independent computation from
    the tables' own logs; nobody met anyone more than twice in qualifying."""
    records = day.games()
    qualifying = [g for g in records if g.round <= games]
    met = Counter(frozenset((g.winner, g.loser)) for g in qualifying)
    assert max(met.values()) <= 2, met.most_common(3)
    byes = [b for r in day.rounds if r["round"] <= games for b in r["byes"]]
    want = independent_standings(day.players, qualifying, byes)
    got = [(r["name"], r["game_points"], r["won"], r["spread"]) for r in view["standings"]]
    assert got == want
    size = len(day.players) // 4 if len(day.players) >= 8 else 2
    seeds = [r[0] for r in want[:size]]
    assert view["cut"]["seeds"] == seeds
    knock = [g for g in records if g.round > games]
    assert len(knock) == size - 1
    rounds = independent_bracket(seeds, knock)
    assert [[m["winner"] for m in r["matches"]] for r in view["bracket"]["rounds"]] == rounds
    assert view["bracket"]["champion"] == rounds[-1][0]
