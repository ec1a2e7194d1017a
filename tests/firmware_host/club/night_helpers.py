"""A whole club night for the tests: a real Mosquitto, tables that are real `crib serve
--simulate` daemons (each its own state directory, port and `[club]` section) and the
director as a real `crib club serve`, with games played through the tables' HTTP API.

The reference standings come from the tables' own game logs (GET /api/history) fed to
`cribbage.tournament`, the one place the rules live; nothing here scores a game.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from cribbage import tournament
from tests.firmware_host.club.broker_helpers import Broker
from tests.firmware_host.conftest import CRIB, Client, Daemon
from tests.processes import free_port

CLUB = "tuesday"
NIGHT = "2026-12-02"
MAX_PEG = 15  # one keeper peg action: the engine's limit for one card


def wait_for(what: str, check: Callable[[], Any], timeout: float = 30.0,
             every: float = 0.1) -> Any:
    """Poll `check` until it returns something true; AssertionError naming `what` (and the
    last value seen) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = check()
        except (httpx.HTTPError, OSError) as exc:  # a daemon restarting
            last = exc
        else:
            if last:
                return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:.0f} s (last: {last!r})")
        time.sleep(every)


def passwords_for(tables: Sequence[str]) -> dict[str, str]:
    """A password per table and one for the director (fixed: the broker is local)."""
    pw = {t: f"pw-{t}-{i}x" for i, t in enumerate(tables)}
    pw["director"] = "pw-director"
    return pw


# -- a table --------------------------------------------------------------------------------
class Table:
    """One table: `crib serve --simulate` with a `[club]` section, its token and client."""

    def __init__(self, state: Path, name: str, broker: Broker) -> None:
        self.name = name
        extra = (f'\n[club]\nbroker = "127.0.0.1"\nport = {broker.port}\nclub = "{broker.club}"\n'
                 f'table = "{name}"\npassword = "{broker.passwords[name]}"\n')
        self.daemon = Daemon(state, extra=extra)
        self.client: Client = self.daemon.client
        self.rounds: dict[int, int] = {}  # game id -> the round its seating named

    def start(self) -> None:
        self.daemon.start()

    def kill(self) -> None:
        """SIGKILL, as a power cut does."""
        self.daemon.kill()

    def close(self) -> None:
        self.daemon.close()

    def club(self) -> dict[str, Any]:
        """GET /api/club (no token)."""
        r = self.client.req("GET", "/api/club", auth=False)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def wait_seated(self, round_: int, timeout: float = 30) -> dict[str, Any]:
        """The seating of `round_`, once the director's retained message reached the table."""
        def seated() -> dict[str, Any] | None:
            s = self.club().get("seating")
            return s if s and s.get("round") == round_ else None
        return dict(wait_for(f"table {self.name} seated for round {round_}", seated, timeout))

    def start_seated(self, round_: int) -> dict[str, Any]:
        """POST /api/club/start: the seated game; its dealer entered when the game asks."""
        seating = self.wait_seated(round_)
        r = self.client.req("POST", "/api/club/start", {})
        assert r.status_code == 201, r.text
        game = dict(r.json())
        assert game["names"] == seating["names"], (game["names"], seating)
        self.rounds[game["id"]] = round_
        if "dealer" in game["legal"]:
            game = self.act(game, {"type": "dealer", "player": 0})
        return game

    def act(self, game: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        r = self.client.act(game, action)
        assert r.status_code == 200, f"{self.name}: {action}: {r.text}"
        return dict(r.json()["game"])

    def game(self, game_id: int) -> dict[str, Any]:
        r = self.client.req("GET", f"/api/games/{game_id}", auth=False)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def history(self) -> list[dict[str, Any]]:
        """The table's own log of finished games (GET /api/history)."""
        r = self.client.req("GET", "/api/history", auth=False)
        assert r.status_code == 200, r.text
        return list(r.json()["games"])


@dataclass
class Plan:
    """How one game will end: the winning side and the loser's final score (which makes
    it a win, a skunk or a double skunk by the table's own lines)."""

    winner: int
    loser_score: int

    @staticmethod
    def draw(rng: random.Random) -> Plan:
        loser = rng.choice([rng.randint(91, 120), rng.randint(91, 120), rng.randint(61, 90),
                            rng.randint(20, 60)])
        return Plan(rng.randrange(2), loser)


def play(table: Table, game: dict[str, Any], plan: Plan, rng: random.Random,
         actions: int | None = None) -> dict[str, Any]:
    """Peg the game towards `plan` (both sides moving, the loser reaching its score before
    the winner's last peg); stop after `actions` actions, or at the end. The game as the
    table answered last."""
    done = 0
    target = game["target"]
    while game["result"] is None and (actions is None or done < actions):
        fronts = [s["front"] for s in game["sides"]]
        lose = 1 - plan.winner
        need = {plan.winner: target - 1 - fronts[plan.winner],
                lose: plan.loser_score - fronts[lose]}
        movable = [s for s in (0, 1) if need[s] > 0]
        if not movable:  # the loser is where it ends: the winner's last peg
            side, points = plan.winner, min(MAX_PEG, target - fronts[plan.winner])
        else:
            side = rng.choice(movable)
            points = min(need[side], rng.randint(4, MAX_PEG))
        game = table.act(game, {"type": "peg", "side": side, "points": points})
        done += 1
    return game


def finish(table: Table, game: dict[str, Any], plan: Plan, rng: random.Random
           ) -> dict[str, Any]:
    """Play the game (as the table has it now: after a restart too) to its end."""
    game = play(table, table.game(game["id"]), plan, rng)
    assert game["result"] is not None
    return game


# -- the director ---------------------------------------------------------------------------
class Director:
    """`crib club serve --config FILE` in a subprocess, and HTTP to it with its token."""

    def __init__(self, state: Path, broker: Broker, tables: Sequence[str]) -> None:
        self.state = state
        state.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.config = state / "club.toml"
        listed = ", ".join(f'"{t}"' for t in tables)
        self.config.write_text(
            f'club = "{broker.club}"\nbroker = "127.0.0.1"\nport = {broker.port}\n'
            f'password = "{broker.passwords["director"]}"\nhost = "127.0.0.1"\n'
            f'http_port = {self.port}\nstate_dir = "{state / "data"}"\nnight = "{NIGHT}"\n'
            f'tables = [{listed}]\n')
        self.log = state / "director.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = ""

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([CRIB, "club", "serve", "--config", str(self.config)],
                                         stdout=log, stderr=log)

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()
            return httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200
        wait_for("the director answering", up, 20, 0.05)
        self.token = (self.state / "data" / "director-token").read_text().strip()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def get(self, path: str) -> Any:
        r = httpx.get(self.base + path, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, path: str, body: Any) -> Any:
        r = httpx.post(self.base + path, json=body, timeout=10,
                       headers={"Authorization": f"Bearer {self.token}"})
        assert r.status_code in (200, 201), f"{path}: {r.status_code} {r.text}"
        return r.json()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


# -- the night ------------------------------------------------------------------------------
@dataclass
class Night:
    """A broker, the tables and the director, with the players registered in order."""

    root: Path
    broker: Broker
    tables: list[Table]
    director: Director
    players: list[str]
    rng: random.Random
    rounds_seated: list[dict[str, Any]] = field(default_factory=list)

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def seat_round(self) -> dict[str, Any]:
        """POST /api/rounds: the next round; the tables with two names in it."""
        wait_for("the director seeing the broker",
                 lambda: self.director.get("/api/health")["ok"], 30)
        r = self.director.post("/api/rounds", {})
        self.rounds_seated.append(r)
        return dict(r)

    def seated_tables(self, round_view: dict[str, Any]) -> list[Table]:
        return [self.table(t["table"]) for t in round_view["tables"] if len(t["names"]) == 2]

    def finished_games(self) -> list[tuple[Table, dict[str, Any]]]:
        """Every finished game in the tables' own logs, with its table."""
        return [(t, g) for t in self.tables for g in t.history() if g.get("result")]

    def reference(self) -> list[dict[str, Any]]:
        """The standings by `cribbage.tournament` from the tables' logs: each game's round
        from the seating the table started it from."""
        records = []
        for table, g in self.finished_games():
            names = [p["name"] for p in sorted(g["players"], key=lambda p: p["side"])]
            res = g["result"]
            w, lo = res["winner"], res["loser"]
            records.append(tournament.GameRecord(
                round=table.rounds[g["game_id"]], table=table.name, winner=names[w],
                loser=names[lo], winner_score=res["scores"][w], loser_score=res["scores"][lo],
                kind=res["kind"]))
        byes = [tournament.Bye(r["round"], name) for r in self.rounds_seated
                for name in r["byes"]]
        rows = tournament.standings(self.players, records, byes)
        return [{"place": s.place, "name": s.name, "game_points": s.game_points, "won": s.won,
                 "lost": s.lost, "skunks": s.skunks, "spread": s.spread, "played": s.played}
                for s in rows]

    def director_rows(self) -> list[dict[str, Any]]:
        return list(self.director.get("/api/standings")["rows"])

    def counted(self) -> list[dict[str, Any]]:
        return [r for r in self.director.get("/api/night")["results"]
                if r["status"] == "counted"]

    def wait_standings(self, timeout: float = 60) -> list[dict[str, Any]]:
        """Poll until the director's standings are the reference (and every finished game
        at the tables is counted there); AssertionError with both after `timeout`."""
        want = self.reference()
        games = len(self.finished_games())

        def same() -> bool:
            return len(self.counted()) == games and self.director_rows() == want
        try:
            wait_for("standings equal to the reference", same, timeout, 0.2)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\ndirector: {self.director_rows()}\nreference: {want}"
                                 f"\ncounted {len(self.counted())} of {games} games") from None
        return want

    def check_results_one_to_one(self) -> None:
        """The director's result ids are unique and match the tables' finished games one to
        one: "{table}.{instance}.{game_id}.{match_game}"."""
        results = self.director.get("/api/night")["results"]
        ids = [r["id"] for r in results]
        assert len(ids) == len(set(ids)), ids
        counted = sorted((r["table"], int(r["id"].split(".")[2]), int(r["id"].split(".")[3]))
                         for r in results if r["status"] == "counted")
        logged = sorted((t.name, g["game_id"], g["match_game"]) for t, g in self.finished_games())
        assert counted == logged, (counted, logged)
        for r in results:
            assert r["id"].split(".")[0] == r["table"], r

    def close(self) -> None:
        for t in self.tables:
            t.close()
        self.director.close()
        self.broker.__exit__()


def answering(table: Table) -> bool:
    """Whether the table's own daemon answers its health check; AssertionError with its log
    when the daemon has ended (another answering on its port must not pass for it)."""
    proc = table.daemon.proc
    assert proc is not None and proc.poll() is None, (
        f"table {table.name}'s daemon ended: {table.daemon.log.read_text()[-2000:]}")
    return table.client.req("GET", "/api/health", auth=False).status_code == 200


def open_club(root: Path, tables: int, together: bool = False
              ) -> tuple[Broker, list[Table], Director]:
    """Start the broker, `tables` tables (one after another, or `together` and then waited
    for) and the director; all stopped again if any fails to start."""
    names = [f"t{i + 1}" for i in range(tables)]
    broker = Broker(root / "broker", CLUB, passwords_for(names))
    broker.start()
    opened: list[Table] = []
    director = Director(root / "director", broker, names)
    try:
        for name in names:
            t = Table(root / name, name, broker)
            opened.append(t)
            t.daemon.start(wait=not together)
        for t in opened if together else ():
            wait_for(f"table {t.name} answering", lambda t=t: answering(t), 90, 0.2)
        director.start()
    except BaseException:
        for t in opened:
            t.close()
        director.close()
        broker.__exit__()
        raise
    return broker, opened, director


def open_night(root: Path, tables: int, players: int, seed: int = 23) -> Night:
    """Start the broker, `tables` tables and the director; register `players` players."""
    broker, opened, director = open_club(root, tables)
    people = [f"Player {chr(ord('A') + i)}" for i in range(players)]
    night = Night(root, broker, opened, director, people, random.Random(seed))
    director.post("/api/players", {"names": people})
    return night


def wait_waiting(table: Table, results: int, offline: bool, timeout: float = 60
                 ) -> dict[str, Any]:
    """The table's GET /api/club once it says `results` results waiting (and offline, when
    `offline`); AssertionError with what it said otherwise."""
    def says() -> dict[str, Any] | None:
        c = table.club()
        if c["waiting"] != results or (offline and c["connected"]):
            return None
        return c
    c = dict(wait_for(f"table {table.name}: {results} result(s) waiting"
                      f"{' and offline' if offline else ''}", says, timeout, 0.2))
    if offline:
        assert c["line"].startswith("club: offline") and f"{results} result" in c["line"] \
            and "waiting" in c["line"], c
    return c


def pids_alive(*procs: subprocess.Popen[bytes] | None) -> bool:
    return all(p is not None and p.poll() is None for p in procs)


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
