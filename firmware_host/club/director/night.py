"""The night as the director keeps it: players, rounds, results from the tables, the
director's corrections, the tables' disputes and the standings, with what each change
publishes.

The rules (game points, spread, order, seating, byes, what a score makes of a game) are
the engine's (`cribbage.tournament`, `cribbage.rules`); this module only matches results to
the seat of the table that sent them and feeds them in. Every change is committed to the
store before anything is published or answered. The night is held in memory as well, so a
result costs one write and the standings of the games counted, never a read of the night;
the tables' live state is kept in memory and written in batches (it is shown, not counted).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cribbage import seating, tournament
from cribbage.rules import result_of
from firmware_host.club.director.config import DirectorConfig
from firmware_host.club.director.store import DirectorStore, Seat, StoredResult
from firmware_host.clubwire import (
    LEAVES,
    RESULT_KINDS,
    Counted,
    GameResult,
    Online,
    PayloadError,
    Seating,
    StandingRow,
    Standings,
    TableState,
    check_result,
    decode,
    encode,
    parse_table_topic,
    standings_topic,
    table_topic,
)

log = logging.getLogger("crib.club")

DIRECTOR_LEAVES = ("seating", "counted")  # only the director writes these
NIGHT_IDLE_S = 12 * 3600  # night = "": a restart within this of the last change keeps the night
FLUSH_S = 5.0  # the tables' presence and live state reach the file this often
COUNTED_KEPT = 400  # the "{id}@{rev}" a table's counted lists (its latest results)

Publish = Callable[[str, bytes], None]


class DirectorError(Exception):
    """A request the director refuses: HTTP `status`, a machine `code`, and a sentence."""

    def __init__(self, status: int, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.code = code
        self.sentence = sentence


@dataclass
class Game:
    """A result as it counts now: the table's payload with the director's fix over it;
    `problem` says why it is not counted (None: counted)."""

    stored: StoredResult
    names: list[str]
    scores: list[int]
    winner: int
    kind: str
    void: bool
    round: int | None
    problem: str | None = None
    record: tournament.GameRecord | None = None
    corrections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.void:
            return "void"
        return "counted" if self.record is not None else "unmatched"

    def fields(self) -> dict[str, Any]:
        return {"names": self.names, "scores": self.scores, "winner": self.winner,
                "kind": self.kind, "round": self.round, "void": self.void}

    def view(self) -> dict[str, Any]:
        s = self.stored
        return {"id": s.id, "table": s.table, "rev": s.rev, "status": self.status,
                "problem": self.problem, **self.fields(), "fixed": s.fix is not None,
                "received_at": s.received_at, "payload": s.payload,
                "corrections": self.corrections}


def natural(name: str) -> tuple[Any, ...]:
    """A sort key that puts t2 before t10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


class Night:
    """The director's night: fed by the broker (`on_message`, `on_connect`) and the web API.
    A component: `start()` loads the night into memory, `stop()` writes the live state."""

    def __init__(self, config: DirectorConfig, store: DirectorStore,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.lock = threading.RLock()
        self._send: Publish = lambda topic, data: None
        self._held: list[tuple[str, bytes]] | None = None  # a batch's messages
        self.night = config.night or self._night_today()
        self._loaded = False
        self._players: list[str] = []
        self._absent: set[str] = set()
        self._rounds: list[dict[str, Any]] = []
        self._results: dict[str, StoredResult] = {}  # tonight's, in the order received
        self._corrections: dict[str, list[dict[str, Any]]] = {}
        self._disputes: list[dict[str, Any]] = []
        self._games: dict[str, Game] = {}
        self._taken: dict[tuple[int, str], str] = {}  # (round, table) -> the result counted
        self._standings: Standings | None = None
        self._standings_due = False
        self._encoded: tuple[Standings, bytes] | None = None
        self._acked: dict[str, dict[str, tuple[float, int]]] = {}  # table -> id -> (at, rev)
        self._live: dict[str, dict[str, Any]] = {}  # table -> online, state, seen_at
        self._dirty: set[str] = set()
        self._live_lock = threading.Lock()
        self._flusher: threading.Timer | None = None

    def _night_today(self) -> str:
        """Today's date, or the night still going on (changed within NIGHT_IDLE_S): a
        director restarted after midnight keeps its night."""
        with self.store.lock:
            row = self.store.db.execute(
                "SELECT night, MAX(at) AS at FROM ("
                " SELECT night, received_at AS at FROM results UNION ALL"
                " SELECT night, seated_at FROM rounds UNION ALL"
                " SELECT night, added_at FROM players UNION ALL"
                " SELECT night, at FROM corrections) GROUP BY night ORDER BY at DESC LIMIT 1"
            ).fetchone()
        if row is not None and self.clock() - row["at"] < NIGHT_IDLE_S:
            return str(row["night"])
        return self.config.night_name()

    # -- publishing -------------------------------------------------------------------------
    @property
    def publish(self) -> Publish:
        """Send a message to the broker (inside `batch`: after the batch is committed)."""
        return self._publish

    @publish.setter
    def publish(self, send: Publish) -> None:
        self._send = send

    def _publish(self, topic: str, data: bytes) -> None:
        if self._held is not None:
            self._held.append((topic, data))
        else:
            self._send(topic, data)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Take many messages as one: their writes are committed together (one sync of the
        disk), and only then is anything published (a table's `counted`, the standings):
        nothing is told before it is on disk."""
        with self.lock:
            self._held = []
            try:
                with self.store.batch():
                    yield
            except BaseException:
                # Not on disk: the memory goes back to what the file holds, nothing is told.
                self._held = None
                self._loaded = False
                self._acked = {}
                self._load()
                raise
            held, self._held = self._held, None
            for topic, data in held:
                self._send(topic, data)

    # -- the component --------------------------------------------------------------------
    def start(self) -> None:
        """Load the night into memory and start writing the live state every FLUSH_S."""
        self._load()
        self._arm_flush()

    def stop(self) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
            self._flusher = None
        self.flush()

    def _load(self) -> None:
        if self._loaded:  # (read without the lock: set once, after the loading)
            return
        with self.lock:
            if self._loaded:
                return
            self._players = self.store.players(self.night)
            self._absent = set(self.store.absent(self.night))
            self._rounds = self.store.rounds(self.night)
            self._results = {r.id: r for r in self.store.results(self.night)}
            self._corrections = {}
            for c in self.store.corrections(self.night):
                self._corrections.setdefault(c["result"], []).append(c)
            self._disputes = self.store.disputes(self.night)
            for t in self.store.tables():
                self._live[t["name"]] = {"online": t["online"], "state": t["state"],
                                         "seen_at": t["seen_at"]}
            self._recompute()
            self._loaded = True

    def _arm_flush(self) -> None:
        def tick() -> None:
            try:
                self.flush()
            except Exception as exc:  # a full disk: said, and tried again
                log.error("the tables' live state was not written: %s", exc)
            self._arm_flush()

        self._flusher = threading.Timer(FLUSH_S, tick)
        self._flusher.daemon = True
        self._flusher.start()

    def flush(self) -> None:
        """Write the tables whose presence or live state changed since the last flush."""
        with self._live_lock:
            dirty, self._dirty = self._dirty, set()
            rows = [(t, bool(self._live[t]["online"]), self._live[t]["state"],
                     self._live[t]["seen_at"]) for t in sorted(dirty)]
        if rows and self.store._db is not None:
            self.store.tables_seen_many(rows)

    # -- reading --------------------------------------------------------------------------
    def players(self) -> list[str]:
        self._load()
        return list(self._players)

    def rounds(self) -> list[dict[str, Any]]:
        self._load()
        return list(self._rounds)

    def current_round(self) -> int:
        rounds = self.rounds()
        return rounds[-1]["round"] if rounds else 0

    def standings(self) -> Standings:
        with self.lock:
            self._load()
            if self._standings is None:
                self._standings = self._make_standings()
            return self._standings

    def games(self) -> list[Game]:
        with self.lock:
            self._load()
            return list(self._games.values())

    def disputes(self, open_only: bool = False) -> list[dict[str, Any]]:
        with self.lock:
            self._load()
            return [d for d in self._disputes if not open_only or d["resolved"] is None]

    def byes(self) -> list[tournament.Bye]:
        return [tournament.Bye(r["round"], name) for r in self.rounds() for name in r["byes"]]

    def _make_standings(self) -> Standings:
        rounds = self._rounds
        rows = tournament.standings(
            self._players, [g.record for g in self._games.values() if g.record is not None],
            self.byes(), bye_points=self.config.bye_points, tiebreaks=self.config.tiebreaks)
        # Built without validation: every value is the engine's, every name a registered
        # player's (checked when registered); a night of 1,000 players costs 1 ms, not 15.
        return Standings.model_construct(
            v=1, night=self.night, round=rounds[-1]["round"] if rounds else 0, at=self.clock(),
            rows=[StandingRow.model_construct(
                place=r.place, name=r.name, game_points=r.game_points, won=r.won, lost=r.lost,
                skunks=r.skunks, spread=r.spread, played=r.played) for r in rows])

    def _recompute(self) -> None:
        """Every result of the night matched again (after a seating, a registration, a
        correction or a revision); the standings are made when next asked."""
        self._taken = {}
        self._games = {}
        for stored in self._results.values():
            self._add_game(stored)
        self._standings = None

    def _add_game(self, stored: StoredResult) -> Game:
        game = self._effective(stored)
        game.corrections = self._corrections.get(stored.id, [])
        self._games[stored.id] = game
        return game

    def _effective(self, stored: StoredResult) -> Game:
        """The result as it counts: matched to the pairing seated at the table that sent it,
        in its round; the first result for a seat counts, a second is shown, not counted."""
        p = stored.payload
        fix = stored.fix or {}
        sides = p.get("sides", [])
        names = fix.get("names") or [" & ".join(s["names"]) for s in sides]
        scores = fix.get("scores") or [s["score"] for s in sides]
        game = Game(stored, list(names), list(scores), fix.get("winner", p["winner"]),
                    fix.get("kind", p["kind"]), fix.get("void", stored.void), None)
        if "round" in fix:
            game.round = fix["round"]
        elif p.get("round") is not None and p.get("night") == self.night:
            game.round = p["round"]
        elif p.get("night") not in (None, self.night):
            game.problem = f"seated on night {p['night']!r}, not {self.night!r}"
            return game
        else:
            game.round = stored.arrived_round or None
        if game.void:
            return game
        if "names" not in fix and (len(sides) != 2 or any(len(s["names"]) != 1 for s in sides)):
            game.problem = "not a game between two players"
            return game
        if p.get("target") != self.config.target or p.get("skunk", "skunk") != self.config.skunk:
            game.problem = (f"played to {p.get('target')} with {p.get('skunk', 'skunk')} "
                            f"lines; tonight's games are to {self.config.target} with "
                            f"{self.config.skunk} lines")
            return game
        missing = [n for n in names if n not in self._players]
        if missing:
            game.problem = f"{' and '.join(missing)} not registered tonight"
            return game
        if game.round is None:
            game.problem = "no round was seated when it was played"
            return game
        seats = next((r["seats"] for r in self._rounds if r["round"] == game.round), None)
        seat = next((s for s in seats or () if s.table == stored.table), None)
        if seat is None or len(seat.names) != 2:
            game.problem = f"nobody was seated at {stored.table} in round {game.round}"
            return game
        if sorted(names) != sorted(seat.names):
            game.problem = (f"{names[0]} and {names[1]} were not seated at {stored.table} in "
                            f"round {game.round} ({' and '.join(seat.names)} were)")
            return game
        first = self._taken.get((game.round, stored.table))
        if first is not None and first != stored.id:
            game.problem = (f"a second result for {stored.table} in round {game.round} "
                            f"(the first is {first})")
            return game
        self._taken[(game.round, stored.table)] = stored.id
        w = game.winner
        game.record = tournament.GameRecord(
            round=game.round, table=stored.table, winner=names[w], loser=names[1 - w],
            winner_score=scores[w], loser_score=scores[1 - w], kind=game.kind)
        return game

    def unmatched(self) -> list[dict[str, Any]]:
        return [g.view() for g in self.games() if g.status == "unmatched"]

    def table_order(self) -> list[str]:
        """The tables: the configured ones in their order, then any other seen or seated
        (t2 before t10)."""
        self._load()
        named = list(self.config.tables)
        with self._live_lock:
            seen = set(self._live)
        others = seen | {s.table for r in self._rounds for s in r["seats"]}
        return named + sorted(others - set(named), key=natural)

    def tables(self) -> list[dict[str, Any]]:
        """The tables: configured or seen, with presence, live game and this round's seat
        (read without waiting for a commit: live state is shown, never counted)."""
        rounds = self.rounds()
        seats = {s.table: list(s.names) for s in rounds[-1]["seats"]} if rounds else {}
        with self._live_lock:
            live = dict(self._live)
        out = []
        for name in self.table_order():
            t = live.get(name, {})
            state = t.get("state") or {}
            game = state.get("game")
            out.append({"table": name, "online": bool(t.get("online")),
                        "seen_at": t.get("seen_at"), "seated": seats.get(name),
                        "game": None if game is None else {
                            "names": [" & ".join(s["names"]) for s in game["sides"]],
                            "scores": [s["score"] for s in game["sides"]],
                            "target": game["target"], "dealer": game.get("dealer"),
                            "hand": game["hand"], "winner": game.get("winner")},
                        "round": state.get("round"), "state_at": state.get("at")})
        return out

    def view(self) -> dict[str, Any]:
        """All of the night: GET /api/night."""
        rounds = self.rounds()
        return {
            "club": self.config.club, "night": self.night,
            "round": rounds[-1]["round"] if rounds else 0, "players": self.players(),
            "rounds": [_round_view(r) for r in rounds],
            "results": [g.view() for g in self.games()],
            "corrections": [c for cs in self._corrections.values() for c in cs],
            "disputes": self.disputes(), "tables": self.tables(),
        }

    # -- the broker -----------------------------------------------------------------------
    def on_connect(self) -> None:
        """(Re)connected: publish again what the tables read (the broker may have lost its
        retained messages): each table's seating and counted ids, and the standings."""
        with self.lock:
            rounds = self.rounds()
            if rounds:
                for seat in rounds[-1]["seats"]:
                    self._publish_seating(rounds[-1]["round"], seat.table, seat.names)
            for table in sorted({r.table for r in self._results.values()}):
                self._publish_counted(table)
            self.publish(standings_topic(self.config.club), encode(self.standings()))

    def on_message(self, topic: str, payload: bytes, retained: bool = False, *,
                   publish: bool = True) -> None:
        """Take one message from the broker; anything but a table's own valid message is
        refused with one log line. `publish`: the standings now, after a result (the
        intake publishes them once for a batch instead). Never raises."""
        try:
            self._on_message(topic, payload, retained)
            if publish:
                self.publish_standings()
        except Exception as exc:  # a bug must not stop the intake: one line, go on
            log.error("refused %s: %s: %s", topic, type(exc).__name__, exc)

    def publish_standings(self) -> None:
        """Publish the standings if a result came since they were last published (made
        again only when a counted game changed them)."""
        with self.lock:
            if not self._standings_due:
                return
            self._standings_due = False
            standings = self.standings()
            if self._encoded is None or self._encoded[0] is not standings:
                self._encoded = (standings, encode(standings))
            data = self._encoded[1]
        self.publish(standings_topic(self.config.club), data)

    def _on_message(self, topic: str, payload: bytes, retained: bool) -> None:
        where = parse_table_topic(self.config.club, topic)
        if where is None:
            log.warning("refused %s: not a table topic of club %s", topic, self.config.club)
            return
        table, leaf = where
        if leaf in DIRECTOR_LEAVES:
            if not retained:
                log.warning("refused %s: only the director writes a table's %s", topic, leaf)
            return  # retained: the director's own, from before a restart
        kind = LEAVES.get(leaf)
        if kind is None:
            log.warning("refused %s: no such topic (%r) in version 1", topic, leaf)
            return
        try:
            message = decode(kind, payload)
        except PayloadError as exc:
            log.warning("refused %s: %s", topic, exc)
            return
        if isinstance(message, Online):
            self._seen(table, online=message.online)
        elif isinstance(message, TableState):
            if message.table != table:
                log.warning("refused %s: its table field says %r", topic, message.table)
                return
            self._seen(table, online=True, state=message.model_dump(mode="json"))
        elif isinstance(message, GameResult):
            self.take_result(table, message)

    def _seen(self, table: str, *, online: bool, state: dict[str, Any] | None = None) -> None:
        self._load()
        with self._live_lock:  # not the night's lock: a commit never holds up live state
            old = self._live.get(table) or {"state": None}
            self._live[table] = {"online": online,
                                 "state": state if state is not None else old["state"],
                                 "seen_at": self.clock()}
            self._dirty.add(table)

    def take_result(self, table: str, result: GameResult) -> None:
        """Take a table's result (decoded, so consistent in itself) from its own topic:
        a new id at revision 0, a known one only one revision up; a revision of a result
        the director corrected, or of an earlier round's counted game, is kept as a dispute
        for the director, not applied. Tells the table what is taken (`counted`); the
        caller publishes the standings."""
        topic = table_topic(self.config.club, table, "results")
        if result.table != table:
            log.warning("refused %s: result %s says table %r", topic, result.id, result.table)
            return
        with self.lock:
            self._load()
            kept = self._results.get(result.id) or self.store.result(result.id)
            if kept is not None and kept.table != table:
                log.warning("refused %s: result id %s belongs to table %s", topic, result.id,
                            kept.table)
                return
            if kept is None and result.rev != 0:
                log.warning("refused %s: result %s starts at revision %d; a result's first "
                            "revision is 0", topic, result.id, result.rev)
                return
            if kept is not None and result.rev > kept.rev + 1:
                log.warning("refused %s: result %s jumps from revision %d to %d; revisions go "
                            "up by one", topic, result.id, kept.rev, result.rev)
                return
            if kept is None:
                self._new_result(table, result)
            elif result.rev == kept.rev + 1:
                self._revision(kept, result)
            # Even for a copy: the table sent it again, so it has not seen `counted` yet.
            self._publish_counted(table)
            self._standings_due = True

    def _new_result(self, table: str, result: GameResult) -> None:
        arrived = self.current_round()
        payload = result.model_dump(mode="json")
        self.store.put_result(self.night, result.id, table, result.rev, result.void, payload,
                              arrived)
        stored = StoredResult(result.id, table, self.night, result.rev, result.void, payload,
                              self.clock(), arrived, None)
        self._results[result.id] = stored
        self._acked_for(table)[result.id] = (stored.received_at, result.rev)
        game = self._add_game(stored)  # a new result changes no other's match: its own only
        if game.record is not None:  # counted: the standings change
            self._standings = None
        log.info("result %s@%d from %s%s", result.id, result.rev, table,
                 " (void)" if result.void else "")

    def _revision(self, kept: StoredResult, result: GameResult) -> None:
        table = kept.table
        game = self._games.get(kept.id)
        current = self.current_round()
        why = None
        if kept.fix is not None:
            why = "the director corrected this result; the table's revision differs"
        elif game is not None and game.record is not None and (game.round or 0) < current:
            why = (f"a round-{game.round} game counted already, changed at the table "
                   f"during round {current}")
        payload = result.model_dump(mode="json")
        if kept.night != self.night:
            why = why or f"a result of night {kept.night}"
        if why is not None:
            self.store.add_dispute(self.night, kept.id, table, result.rev, payload, why)
            self.store.flush_batch()
            self._disputes = self.store.disputes(self.night)
            if kept.id in self._results:
                self._results[kept.id] = _replace(kept, rev=result.rev)
                self._games[kept.id].stored = self._results[kept.id]
            self._acked_for(table)[kept.id] = (kept.received_at, result.rev)
            log.warning("dispute: %s@%d from %s: %s (shown to the director, not applied)",
                        kept.id, result.rev, table, why)
            return
        self.store.put_result(kept.night, kept.id, table, result.rev, result.void, payload,
                              kept.arrived_round)
        self._results[kept.id] = _replace(kept, rev=result.rev, void=result.void,
                                          payload=payload)
        self._acked_for(table)[kept.id] = (kept.received_at, result.rev)
        self._recompute()
        log.info("result %s@%d from %s%s", result.id, result.rev, table,
                 " (void)" if result.void else "")

    def _acked_for(self, table: str) -> dict[str, tuple[float, int]]:
        acked = self._acked.get(table)
        if acked is None:
            acked = {}
            with self.store.lock:
                rows = self.store.db.execute(
                    "SELECT id, rev, received_at FROM results WHERE tbl=? "
                    "ORDER BY received_at DESC LIMIT ?", (table, COUNTED_KEPT)).fetchall()
            for r in rows:
                acked[r["id"]] = (r["received_at"], r["rev"])
            self._acked[table] = acked
        return acked

    def _publish_counted(self, table: str) -> None:
        acked = self._acked_for(table)
        if len(acked) > COUNTED_KEPT:
            for rid in sorted(acked, key=lambda k: acked[k][0])[:len(acked) - COUNTED_KEPT]:
                del acked[rid]
        self.publish(table_topic(self.config.club, table, "counted"),
                     encode(Counted(night=self.night,
                                    ids=sorted(f"{rid}@{rev}" for rid, (_, rev)
                                               in acked.items()))))

    def _publish_seating(self, round_: int, table: str, names: Sequence[str]) -> None:
        self.publish(table_topic(self.config.club, table, "seating"),
                     encode(Seating(night=self.night, round=round_, table=table,
                                    names=list(names), target=self.config.target,
                                    skunk=self.config.skunk)))

    # -- the director's requests ----------------------------------------------------------
    def register(self, names: Sequence[str]) -> list[str]:
        """Add players, in order; raises DirectorError (409) for a name already in."""
        with self.lock:
            have = self.players()
            clean = [" ".join(n.split()) for n in names]
            twice = sorted({n for n in clean if n in have or clean.count(n) > 1})
            if twice:
                raise DirectorError(409, "name_taken",
                                    f"{', '.join(twice)} is registered already: nothing was "
                                    "added; give each player a name of their own")
            self.store.add_players(self.night, clean)
            self._players = self.store.players(self.night)
            self._recompute()
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            return self.players()

    def seat_tables(self) -> list[str]:
        """The tables to seat, in order: the configured ones as listed, else those online
        (t2 before t10)."""
        if self.config.tables:
            return list(self.config.tables)
        self._load()
        with self._live_lock:
            return sorted((t for t, v in self._live.items() if v["online"]), key=natural)

    def playing(self) -> list[str]:
        """The tables of the last round whose game is not in yet (counted or void)."""
        rounds = self.rounds()
        if not rounds:
            return []
        number = rounds[-1]["round"]
        done = {g.stored.table for g in self.games()
                if g.record is not None and g.round == number}
        return [s.table for s in rounds[-1]["seats"] if len(s.names) == 2 and s.table not in done]

    def present(self) -> list[str]:
        """The registered players who have not left, in registration order."""
        with self.lock:
            self._load()
            return [p for p in self._players if p not in self._absent]

    def leave(self, names: Sequence[str], back: bool = False) -> list[str]:
        """Players who leave (`back`: who come back) before the next round is seated; their
        games stay counted. Returns the players present; raises DirectorError (404) for a
        name not registered tonight."""
        with self.lock:
            players = self.players()
            unknown = [n for n in names if n not in players]
            if unknown:
                raise DirectorError(404, "not_registered",
                                    f"{', '.join(unknown)} is not registered tonight")
            self.store.set_absent(self.night, names, not back)
            self._absent = set(self.store.absent(self.night))
            log.info("%s %s", ", ".join(names), "back" if back else "left")
            return self.present()

    def check_round_done(self, force: bool) -> None:
        """Raises DirectorError (409) while the last round's games are not all in, unless
        `force`."""
        still = self.playing()
        if still and not force:
            raise DirectorError(409, "round_in_play",
                                f"round {self.current_round()} is still being played at "
                                f"{', '.join(still)}: wait for their results, correct "
                                "them, or seat anyway with \"force\": true")

    def earlier(self) -> list[seating.Seating]:
        """The night's rounds as the seating rules read them (stays first at each table)."""
        return [seating.Seating(round=r["round"], byes=tuple(r["byes"]), seats=tuple(
            seating.Seat(s.table, s.names[0], s.names[1])
            for s in r["seats"] if len(s.names) == 2)) for r in self.rounds()]

    def seat_round(self, force: bool = False) -> dict[str, Any]:
        """Seat the next round of the players present over the tables in their configured
        order (the engine's seating: no pairing played already while any seating avoids it,
        short moves, fair byes), publish each table's seating (retained) and return the
        round; raises DirectorError (409) while the last round is being played (unless
        `force`), with fewer than two players, or short of tables."""
        with self.lock:
            players = self.present()
            if len(players) < 2:
                raise DirectorError(409, "too_few_players",
                                    f"{len(players)} player(s) present: a round needs two "
                                    "or more (register them first)")
            self.check_round_done(force)
            tables = self.seat_tables()
            if not tables:
                raise DirectorError(409, "no_tables",
                                    "no table is online and none is configured: start the "
                                    "tables (their [club] section) or list them in tables =")
            try:
                # Uncapped: a night short of tables is refused and said, never turned into
                # byes that nobody chose.
                seated = seating.seat_round(players, tables, self.earlier(),
                                            rounds=self.config.rounds)
            except ValueError as exc:  # the rules' own refusal (too few tables, ...)
                raise DirectorError(409, "cannot_seat",
                                    f"round {self.current_round() + 1}: {exc}") from None
            at = {s.table: s.names for s in seated.seats}
            view = self.add_round([Seat(seated.round, i, t, tuple(at.get(t, ())))
                                   for i, t in enumerate(tables)],
                                  seated.byes, seated.repeats, force)
            log.info("%s%s", seated.note(),
                     f"; byes: {', '.join(seated.byes)}" if seated.byes else "")
            return view

    def add_round(self, seats: Sequence[Seat], byes: Sequence[str], repeats: bool,
                  force: bool) -> dict[str, Any]:
        """Store a seated round (its `seats` over the tables, in order), publish each
        table's seating and the standings, return the round's view. Tables seated in an
        earlier round and not in this one are told that nobody plays there."""
        with self.lock:
            number = self.current_round() + 1
            seats = [Seat(number, i, s.table, tuple(s.names)) for i, s in enumerate(seats)]
            listed = {s.table for s in seats}
            earlier = {s.table for r in self._rounds for s in r["seats"]} - listed
            seats += [Seat(number, len(seats) + i, t, ())
                      for i, t in enumerate(sorted(earlier, key=natural))]
            self.store.add_round(self.night, number, seats, byes, repeats, force)
            self._rounds = self.store.rounds(self.night)
            self._recompute()
            for seat in seats:
                self._publish_seating(number, seat.table, seat.names)
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            log.info("round %d seated over %d tables%s", number, len(listed),
                     f", byes: {', '.join(byes)}" if byes else "")
            return _round_view(self._rounds[-1])

    def correct(self, result_id: str, changes: dict[str, Any], reason: str,
                who: str) -> dict[str, Any]:
        """Apply the director's correction to a result, log it with the old and new values,
        and return the result as it counts now. New scores without a winner or kind take the
        ones the engine gives them; any winner or kind given must agree with the scores, the
        game's target and its lines. Raises DirectorError (404, 422)."""
        with self.lock:
            game = self._games.get(result_id)
            if game is None:
                raise DirectorError(404, "not_found",
                                    f"there is no result {result_id} tonight")
            old = game.fields()
            given = {k: v for k, v in changes.items() if v is not None}
            new = {**old, **given}
            if len(new["names"]) != 2 or len(new["scores"]) != 2:
                raise DirectorError(422, "invalid_request",
                                    "a corrected game has two names and two scores")
            if new["kind"] not in RESULT_KINDS:
                raise DirectorError(422, "invalid_request",
                                    f"kind is one of {', '.join(RESULT_KINDS)}")
            target = int(game.stored.payload.get("target", self.config.target))
            skunk = str(game.stored.payload.get("skunk", "skunk"))
            if not new["void"]:
                if "scores" in given:
                    made = _engine_result(new["scores"], target, skunk)
                    if made is not None:
                        if "winner" not in given:
                            new["winner"] = made[0]
                        if "kind" not in given:
                            new["kind"] = made[1]
                try:
                    check_result(new["scores"], target, skunk, new["winner"], new["kind"])
                except ValueError as exc:
                    raise DirectorError(422, "invalid_request",
                                        f"result {result_id} (a game to {target}): {exc}"
                                        ) from None
            self.store.correct(self.night, result_id, who, reason, old, new)
            self._results[result_id] = self.store.result(result_id) or game.stored
            self._corrections = {}
            for c in self.store.corrections(self.night):
                self._corrections.setdefault(c["result"], []).append(c)
            self._recompute()
            log.info("result %s corrected by %s: %s", result_id, who, reason)
            self._publish_counted(game.stored.table)
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            return self._games[result_id].view()

    def resolve(self, seq: int, accept: bool, reason: str, who: str) -> dict[str, Any]:
        """Settle a table's dispute: `accept` counts the table's revision (the director's
        fix of that result is dropped, and logged as a correction), otherwise the result
        stays as it counts. Raises DirectorError (404, 409)."""
        with self.lock:
            dispute = next((d for d in self.disputes() if d["seq"] == seq), None)
            if dispute is None:
                raise DirectorError(404, "not_found", f"there is no dispute {seq} tonight")
            if dispute["resolved"] is not None:
                raise DirectorError(409, "resolved",
                                    f"dispute {seq} was settled already ({dispute['resolved']})")
            rid = dispute["result"]
            game = self._games.get(rid)
            if accept:
                if game is None:
                    raise DirectorError(409, "not_tonight",
                                        f"result {rid} is not one of tonight's")
                newest = max(d["rev"] for d in self._disputes if d["result"] == rid)
                if dispute["rev"] != newest:
                    raise DirectorError(409, "superseded",
                                        f"the table sent a newer revision of {rid} "
                                        f"({newest}): settle that one")
                old = game.fields()
                p = dispute["payload"]
                self.store.replace_payload(rid, dispute["rev"], bool(p.get("void")), p)
                self._results[rid] = self.store.result(rid) or game.stored
                self._recompute()
                self.store.correct(self.night, rid, who, f"the table's revision "
                                   f"{dispute['rev']} accepted: {reason}", old,
                                   self._games[rid].fields(), fix=False)
                self._corrections = {}
                for c in self.store.corrections(self.night):
                    self._corrections.setdefault(c["result"], []).append(c)
                self._recompute()
            self.store.resolve_dispute(seq, "accepted" if accept else "kept", who)
            self._disputes = self.store.disputes(self.night)
            log.info("dispute %d (%s) %s by %s: %s", seq, rid,
                     "accepted" if accept else "kept as counted", who, reason)
            if game is not None:
                self.publish(standings_topic(self.config.club), encode(self.standings()))
            return next(d for d in self._disputes if d["seq"] == seq)


def _engine_result(scores: Sequence[int], target: int, skunk: str) -> tuple[int, str] | None:
    """(winner, kind) the engine gives `scores`, or None when they are no finished game."""
    try:
        made = result_of(list(scores), target, skunk)
    except ValueError:
        return None
    return None if made is None else (made.winner, made.kind.value)


def _replace(stored: StoredResult, **changes: Any) -> StoredResult:
    from dataclasses import replace

    return replace(stored, **changes)


def _round_view(r: dict[str, Any]) -> dict[str, Any]:
    return {"round": r["round"], "byes": r["byes"], "repeats": r["repeats"],
            "forced": r["forced"], "seated_at": r["seated_at"],
            "tables": [{"table": s.table, "names": list(s.names)} for s in r["seats"]]}
