"""The night as the director keeps it: players, rounds, results from the tables, the
director's corrections and the standings, with what each change publishes.

The rules (game points, spread, order, seating, byes) are `cribbage.tournament`'s; this
module only matches results to the round's pairings and feeds them in. Every change is
committed to the store before anything is published or answered.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cribbage import tournament
from firmware_host.club.director.config import DirectorConfig
from firmware_host.club.director.store import DirectorStore, Seat, StoredResult
from firmware_host.club.schema import (
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
    decode,
    encode,
    parse_table_topic,
    standings_topic,
    table_topic,
)

log = logging.getLogger("crib.club")

DIRECTOR_LEAVES = ("seating", "counted")  # only the director writes these
NIGHT_IDLE_S = 12 * 3600  # night = "": a restart within this of the last change keeps the night

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
    """A result as it counts now: the table's last revision with the director's fix over it;
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


class Night:
    """The director's night: fed by the broker (`on_message`, `on_connect`) and the web API."""

    def __init__(self, config: DirectorConfig, store: DirectorStore,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.lock = threading.RLock()
        self.publish: Publish = lambda topic, data: None
        self.night = config.night or self._night_today()
        self._standings: Standings | None = None
        self._games: list[Game] = []

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

    # -- reading --------------------------------------------------------------------------
    def players(self) -> list[str]:
        return self.store.players(self.night)

    def rounds(self) -> list[dict[str, Any]]:
        return self.store.rounds(self.night)

    def current_round(self) -> int:
        rounds = self.rounds()
        return rounds[-1]["round"] if rounds else 0

    def standings(self) -> Standings:
        with self.lock:
            if self._standings is None:
                self._recompute()
            assert self._standings is not None
            return self._standings

    def games(self) -> list[Game]:
        with self.lock:
            if self._standings is None:
                self._recompute()
            return list(self._games)

    def _recompute(self) -> None:
        players = self.players()
        rounds = self.rounds()
        corrections: dict[str, list[dict[str, Any]]] = {}
        for c in self.store.corrections(self.night):
            corrections.setdefault(c["result"], []).append(c)
        games = []
        taken: dict[tuple[int, frozenset[str]], str] = {}
        for stored in self.store.results(self.night):
            game = self._effective(stored, players, rounds, taken)
            game.corrections = corrections.get(stored.id, [])
            games.append(game)
        byes = [tournament.Bye(r["round"], name) for r in rounds for name in r["byes"]]
        rows = tournament.standings(players, [g.record for g in games if g.record is not None],
                                    byes, bye_points=self.config.bye_points)
        self._games = games
        self._standings = Standings(
            night=self.night, round=rounds[-1]["round"] if rounds else 0, at=self.clock(),
            rows=[StandingRow(place=r.place, name=r.name, game_points=r.game_points, won=r.won,
                              lost=r.lost, skunks=r.skunks, spread=r.spread, played=r.played)
                  for r in rows])

    def _effective(self, stored: StoredResult, players: Sequence[str],
                   rounds: Sequence[dict[str, Any]],
                   taken: dict[tuple[int, frozenset[str]], str]) -> Game:
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
        missing = [n for n in names if n not in players]
        if missing:
            game.problem = f"{' and '.join(missing)} not registered tonight"
            return game
        if game.round is None:
            game.problem = "no round was seated when it was played"
            return game
        seats = next((r["seats"] for r in rounds if r["round"] == game.round), None)
        pair = frozenset(names)
        seat = next((s for s in seats or () if frozenset(s.names) == pair and len(pair) == 2),
                    None)
        if seat is None:
            game.problem = f"{names[0]} and {names[1]} were not paired in round {game.round}"
            return game
        first = taken.get((game.round, pair))
        if first is not None:
            game.problem = f"a second result for this pairing in round {game.round} " \
                           f"(the first is {first})"
            return game
        taken[(game.round, pair)] = stored.id
        w = game.winner
        game.record = tournament.GameRecord(
            round=game.round, table=stored.table, winner=names[w], loser=names[1 - w],
            winner_score=scores[w], loser_score=scores[1 - w], kind=game.kind)
        return game

    def unmatched(self) -> list[dict[str, Any]]:
        return [g.view() for g in self.games() if g.status == "unmatched"]

    def tables(self) -> list[dict[str, Any]]:
        """The tables: configured or seen, with presence, live game and this round's seat."""
        seen = {t["name"]: t for t in self.store.tables()}
        rounds = self.rounds()
        seats = {s.table: list(s.names) for s in rounds[-1]["seats"]} if rounds else {}
        names = sorted(set(self.config.tables) | set(seen) | set(seats))
        out = []
        for name in names:
            t = seen.get(name, {})
            state = t.get("state") or {}
            game = state.get("game")
            out.append({"table": name, "online": bool(t.get("online")),
                        "seen_at": t.get("seen_at"), "seated": seats.get(name),
                        "game": None if game is None else {
                            "names": [" & ".join(s["names"]) for s in game["sides"]],
                            "scores": [s["score"] for s in game["sides"]],
                            "target": game["target"], "dealer": game.get("dealer"),
                            "hand": game["hand"], "winner": game.get("winner")},
                        "state_at": state.get("at")})
        return out

    def view(self) -> dict[str, Any]:
        """All of the night: GET /api/night."""
        rounds = self.rounds()
        return {
            "club": self.config.club, "night": self.night,
            "round": rounds[-1]["round"] if rounds else 0, "players": self.players(),
            "rounds": [_round_view(r) for r in rounds],
            "results": [g.view() for g in self.games()],
            "corrections": self.store.corrections(self.night), "tables": self.tables(),
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
            for table in self.store.result_tables(self.night):
                self._publish_counted(table)
            self.publish(standings_topic(self.config.club), encode(self.standings()))

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """Take one message from the broker; anything but a table's own valid message is
        refused with one log line. Never raises."""
        try:
            self._on_message(topic, payload, retained)
        except Exception as exc:  # a bug must not stop the intake: one line, go on
            log.error("refused %s: %s: %s", topic, type(exc).__name__, exc)

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
            self.store.table_seen(table, online=message.online)
        elif isinstance(message, TableState):
            if message.table != table:
                log.warning("refused %s: its table field says %r", topic, message.table)
                return
            self.store.table_seen(table, online=True, state=message.model_dump(mode="json"))
        elif isinstance(message, GameResult):
            self._take_result(topic, table, message)

    def _take_result(self, topic: str, table: str, result: GameResult) -> None:
        if result.table != table:
            log.warning("refused %s: result %s says table %r", topic, result.id, result.table)
            return
        with self.lock:
            kept = self.store.result(result.id)
            if kept is not None and kept.table != table:
                log.warning("refused %s: result id %s belongs to table %s", topic, result.id,
                            kept.table)
                return
            if kept is None or result.rev > kept.rev:
                self.store.put_result(self.night if kept is None else kept.night, result.id,
                                      table, result.rev, result.void,
                                      result.model_dump(mode="json"),
                                      kept.arrived_round if kept else self.current_round())
                self._standings = None
                log.info("result %s@%d from %s%s", result.id, result.rev, table,
                         " (void)" if result.void else "")
            # Even for a copy: the table sent it again, so it has not seen `counted` yet.
            self._publish_counted(table)
            self.publish(standings_topic(self.config.club), encode(self.standings()))

    def _publish_counted(self, table: str) -> None:
        self.publish(table_topic(self.config.club, table, "counted"),
                     encode(Counted(night=self.night,
                                    ids=self.store.counted_ids(table))))

    def _publish_seating(self, round_: int, table: str, names: Sequence[str]) -> None:
        self.publish(table_topic(self.config.club, table, "seating"),
                     encode(Seating(night=self.night, round=round_, table=table,
                                    names=list(names), target=self.config.target)))

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
            self._standings = None
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            return self.players()

    def seat_tables(self) -> list[str]:
        """The tables to seat, in name order: the configured ones, else those online."""
        if self.config.tables:
            return sorted(self.config.tables)
        return sorted(t["name"] for t in self.store.tables() if t["online"])

    def playing(self) -> list[str]:
        """The tables of the last round whose game is not in yet (counted or void)."""
        rounds = self.rounds()
        if not rounds:
            return []
        done = {frozenset(g.names) for g in self.games()
                if g.record is not None and g.round == rounds[-1]["round"]}
        return [s.table for s in rounds[-1]["seats"]
                if len(s.names) == 2 and frozenset(s.names) not in done]

    def seat_round(self, force: bool = False) -> dict[str, Any]:
        """Seat the next round over the tables, publish each table's seating (retained) and
        return the round; raises DirectorError (409) while the last round is being played
        (unless `force`), with fewer than two players, or without tables."""
        with self.lock:
            players = self.players()
            if len(players) < 2:
                raise DirectorError(409, "too_few_players",
                                    f"{len(players)} player(s) registered: a round needs two "
                                    "or more (POST /api/players first)")
            still = self.playing()
            if still and not force:
                raise DirectorError(409, "round_in_play",
                                    f"round {self.current_round()} is still being played at "
                                    f"{', '.join(still)}: wait for their results, correct "
                                    "them, or seat anyway with \"force\": true")
            tables = self.seat_tables()
            if not tables:
                raise DirectorError(409, "no_tables",
                                    "no table is online and none is configured: start the "
                                    "tables (their [club] section) or list them in tables =")
            number = self.current_round() + 1
            try:
                # Uncapped: a night short of tables is refused and said, never turned into
                # byes that nobody chose.
                seated = tournament.seating(players, number)
            except ValueError as exc:  # the rules' own refusal (too few players, ...)
                raise DirectorError(409, "cannot_seat", f"round {number}: {exc}") from None
            if len(seated.pairs) > len(tables):
                raise DirectorError(409, "too_few_tables",
                                    f"{len(seated.pairs)} pairs need {len(seated.pairs)} "
                                    f"tables: only {len(tables)} ({', '.join(tables)})")
            seats = [Seat(number, i, t, tuple(seated.pairs[i]) if i < len(seated.pairs) else ())
                     for i, t in enumerate(tables)]
            earlier = {s.table for r in self.rounds() for s in r["seats"]} - set(tables)
            seats += [Seat(number, len(seats) + i, t, ()) for i, t in enumerate(sorted(earlier))]
            self.store.add_round(self.night, number, seats, seated.byes, seated.repeats, force)
            self._standings = None
            for seat in seats:
                self._publish_seating(number, seat.table, seat.names)
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            log.info("round %d seated over %d tables%s", number, len(tables),
                     f", byes: {', '.join(seated.byes)}" if seated.byes else "")
            return _round_view(self.rounds()[-1])

    def correct(self, result_id: str, changes: dict[str, Any], reason: str,
                who: str) -> dict[str, Any]:
        """Apply the director's correction to a result, log it with the old and new values,
        and return the result as it counts now; raises DirectorError (404, 422)."""
        with self.lock:
            game = next((g for g in self.games() if g.stored.id == result_id), None)
            if game is None:
                raise DirectorError(404, "not_found",
                                    f"there is no result {result_id} tonight")
            old = game.fields()
            new = {**old, **{k: v for k, v in changes.items() if v is not None}}
            if len(new["names"]) != 2 or len(new["scores"]) != 2:
                raise DirectorError(422, "invalid_request",
                                    "a corrected game has two names and two scores")
            if new["winner"] not in (0, 1):
                raise DirectorError(422, "invalid_request", "winner is 0 or 1")
            if new["kind"] not in RESULT_KINDS:
                raise DirectorError(422, "invalid_request",
                                    f"kind is one of {', '.join(RESULT_KINDS)}")
            if not new["void"] and new["scores"][new["winner"]] <= new["scores"][1 - new["winner"]]:
                raise DirectorError(422, "invalid_request",
                                    "the winner's score must be higher than the loser's")
            self.store.correct(self.night, result_id, who, reason, old, new)
            self._standings = None
            log.info("result %s corrected by %s: %s", result_id, who, reason)
            self._publish_counted(game.stored.table)
            self.publish(standings_topic(self.config.club), encode(self.standings()))
            return next(g.view() for g in self.games() if g.stored.id == result_id)


def _round_view(r: dict[str, Any]) -> dict[str, Any]:
    return {"round": r["round"], "byes": r["byes"], "repeats": r["repeats"],
            "forced": r["forced"], "seated_at": r["seated_at"],
            "tables": [{"table": s.table, "names": list(s.names)} for s in r["seats"]]}
