"""The ACC-style tournament on the director: a qualifying rotation of N games in which
nobody meets the same opponent more than `limit` times, the cut to the top quarter, the
knockout bracket (each match a table's game), and their CSV exports.

The rules are the engine's (`cribbage.seating`, `cribbage.tournament`, `cribbage.knockout`);
this module keeps the tournament's settings beside the night in the director's database,
seats its rounds as the night's rounds (so the tables, the intake, the corrections and the
standings work as on a club night) and reads the bracket from the counted games. Every
change is committed before it is published or answered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from cribbage import knockout, seating
from cribbage import tournament as rules
from firmware_host.club.director.night import DirectorError, Night
from firmware_host.club.director.routes.deps import Director, NightDep
from firmware_host.club.director.routes.export import _csv
from firmware_host.club.director.store import Seat
from firmware_host.clubwire import Name

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    night TEXT PRIMARY KEY, games INTEGER NOT NULL, meet_limit INTEGER NOT NULL,
    cut INTEGER, started_at REAL NOT NULL, seeds TEXT, tied TEXT, cut_at REAL);
"""
TIEBREAKS = ("game_points", "won", "spread")  # the ACC's order for the qualifying field
STANDINGS_HEADER = ("place", "name", "game_points", "won", "lost", "skunks", "spread",
                    "played", "seed")
BRACKET_HEADER = ("round", "name", "match", "seed_a", "player_a", "seed_b", "player_b",
                  "winner", "score", "table")


class TournamentIn(BaseModel):
    """Start a tournament: `games` qualifying games each, `limit` meetings at most."""

    model_config = ConfigDict(extra="forbid")

    games: Annotated[int, Field(ge=1, le=40)] = 12
    limit: Annotated[int, Field(ge=1, le=10)] = 2
    cut: Annotated[int, Field(ge=2, le=512)] | None = None  # default: the top quarter


class NextIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    force: bool = False  # seat it even while the last round's games are not all in


class CutIn(BaseModel):
    """Make the cut; `seeds` (optional) is the director's own order of the qualifiers,
    to settle players level on the cut line."""

    model_config = ConfigDict(extra="forbid")

    seeds: Annotated[list[Name], Field(min_length=2, max_length=512)] | None = None


# -- the tournament's record --------------------------------------------------------------
def _settings(night: Night) -> dict[str, Any] | None:
    store = night.store
    with store.lock:
        store.db.executescript(SCHEMA)
        row = store.db.execute("SELECT * FROM tournaments WHERE night=?",
                               (night.night,)).fetchone()
    if row is None:
        return None
    return {"games": row["games"], "limit": row["meet_limit"], "cut": row["cut"],
            "started_at": row["started_at"], "cut_at": row["cut_at"],
            "seeds": json.loads(row["seeds"]) if row["seeds"] else None,
            "tied": json.loads(row["tied"]) if row["tied"] else []}


def _write(night: Night, sql: str, params: Sequence[object]) -> None:
    store = night.store
    with store.lock:
        store.db.executescript(SCHEMA)
        store.db.execute("BEGIN IMMEDIATE")
        try:
            store.db.execute(sql, params)
        except BaseException:
            store.db.execute("ROLLBACK")
            raise
        store.db.execute("COMMIT")


def running(night: Night) -> bool:
    """Whether a tournament runs tonight (its rounds are seated here, not by /api/rounds)."""
    return _settings(night) is not None


def _need(night: Night) -> dict[str, Any]:
    t = _settings(night)
    if t is None:
        raise DirectorError(409, "no_tournament",
                            "no tournament tonight: start one with POST /api/tournament")
    return t


def _tables(night: Night) -> list[str]:
    """The tables in the configured order (those online, by name, when none is listed)."""
    return list(night.config.tables) or night.seat_tables()


def _records(night: Night, first: int, last: int | None = None) -> list[rules.GameRecord]:
    return [g.record for g in night.games() if g.record is not None
            and g.record.round >= first and (last is None or g.record.round <= last)]


def _qualifying(night: Night, t: dict[str, Any]) -> list[rules.Standing]:
    rounds = [r for r in night.rounds() if r["round"] <= t["games"]]
    byes = [rules.Bye(r["round"], name) for r in rounds for name in r["byes"]]
    return rules.standings(night.players(), _records(night, 1, t["games"]), byes,
                           bye_points=night.config.bye_points, tiebreaks=TIEBREAKS)


def _bracket(night: Night, t: dict[str, Any]) -> knockout.Bracket | None:
    if not t["seeds"]:
        return None
    try:
        return knockout.bracket(t["seeds"], _records(night, t["games"] + 1))
    except ValueError as exc:  # a correction made a game no match: say so, keep the draw
        raise DirectorError(409, "bracket", f"the bracket: {exc}") from None


def _seat(night: Night, number: int, pairs: Sequence[tuple[str, str]], at: Sequence[str],
          byes: Sequence[str], repeats: bool, force: bool) -> dict[str, Any]:
    """Store round `number` (pairs at the tables `at`; every other table empty) and
    publish each table's seating: as the night's own rounds are."""
    by_table = dict(zip(at, pairs, strict=True))
    seats = [Seat(number, i, table, tuple(by_table.get(table, ())))
             for i, table in enumerate(_tables(night))]
    return dict(night.add_round(seats, list(byes), repeats, force))


# -- the requests -------------------------------------------------------------------------
def post_tournament(body: TournamentIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Start the tournament and seat qualifying round 1."""
    with night.lock:
        if _settings(night) is not None:
            raise DirectorError(409, "tournament_started", "the tournament has started already")
        if night.rounds():
            raise DirectorError(409, "night_started",
                                "rounds were seated tonight already: a tournament starts "
                                "on a night of its own (set `night` in club.toml)")
        players = night.present()
        if len(players) < 2:
            raise DirectorError(409, "too_few_players",
                                f"{len(players)} player(s) registered: a tournament needs "
                                "two or more (POST /api/players first)")
        if body.cut is not None and body.cut > len(players):
            raise DirectorError(422, "invalid_request",
                                f"a cut of {body.cut} from a field of {len(players)}")
        _first_round(night, players)  # refuses a room short of tables before any write
        _write(night, "INSERT INTO tournaments (night, games, meet_limit, cut, started_at) "
               "VALUES (?,?,?,?,?)", (night.night, body.games, body.limit, body.cut,
                                      night.clock()))
        return _next(night, force=False)


def _first_round(night: Night, players: Sequence[str]) -> None:
    try:
        seating.seat_round(players, _tables(night))
    except ValueError as exc:
        raise DirectorError(409, "cannot_seat", f"round 1: {exc}") from None


def post_next(body: NextIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Seat the next round: qualifying, then (after the cut) the bracket's ready matches."""
    with night.lock:
        return _next(night, body.force)


def _next(night: Night, force: bool) -> dict[str, Any]:
    t = _need(night)
    night.check_round_done(force)
    number = night.current_round() + 1
    if number <= t["games"]:
        try:
            r = seating.seat_round(night.present(), _tables(night),
                                   night.earlier(), limit=t["limit"],
                                   rounds=t["games"])
        except ValueError as exc:
            raise DirectorError(409, "cannot_seat", f"round {number}: {exc}") from None
        view = _seat(night, number, r.pairs, [s.table for s in r.seats], r.byes,
                     bool(r.over_limit), force)
        return {**view, "stage": "qualifying", "over_limit": [list(p) for p in r.over_limit],
                "note": r.note()}
    b = _bracket(night, t)
    if b is None:
        raise DirectorError(409, "cut_first",
                            f"the {t['games']} qualifying rounds are seated: make the cut "
                            "(POST /api/tournament/cut) once their games are in")
    if b.champion is not None:
        raise DirectorError(409, "tournament_over", f"the tournament is over: {b.champion} "
                            "won the final")
    ready = b.ready()
    tables = _tables(night)
    if len(ready) > len(tables):
        raise DirectorError(409, "too_few_tables",
                            f"{len(ready)} matches need {len(ready)} tables: only {len(tables)}")
    pairs = [(m.players[0] or "", m.players[1] or "") for m in ready]
    view = _seat(night, number, pairs, tables[:len(pairs)], (), False, force)
    return {**view, "stage": "knockout", "name": b.round_names()[ready[0].round - 1]}


def post_cut(body: CutIn, night: NightDep, who: Director) -> dict[str, Any]:
    """Make the cut from the qualifying standings (every qualifying game in)."""
    with night.lock:
        t = _need(night)
        if t["seeds"]:
            raise DirectorError(409, "cut_made", "the cut is made already")
        if night.current_round() < t["games"] or night.playing():
            raise DirectorError(409, "qualifying_in_play",
                                f"qualifying is not over: round {night.current_round()} of "
                                f"{t['games']} is seated and "
                                f"{', '.join(night.playing()) or 'no table'} is playing")
        rows = _qualifying(night, t)
        try:
            c = knockout.cut(rows, t["cut"])
        except ValueError as exc:
            raise DirectorError(409, "cannot_cut", str(exc)) from None
        seeds = list(c.seeds)
        if body.seeds is not None:
            line = set(c.seeds) | set(c.tied)
            wrong = [n for n in body.seeds if n not in line]
            if len(body.seeds) != len(seeds) or wrong or len(set(body.seeds)) != len(seeds):
                raise DirectorError(422, "invalid_request",
                                    f"seeds: {len(seeds)} different names from the qualifiers "
                                    f"and those level on the line ({', '.join(sorted(line))})")
            seeds = list(body.seeds)
        _write(night, "UPDATE tournaments SET seeds=?, tied=?, cut_at=? WHERE night=?",
               (json.dumps(seeds), json.dumps(list(c.tied)), night.clock(), night.night))
        return get_tournament(night)


def get_tournament(night: NightDep) -> dict[str, Any]:
    """The tournament as the room sees it (no token): stage, qualifying standings, cut,
    bracket."""
    t = _settings(night)
    if t is None:
        return {"night": night.night, "stage": "none"}
    rows = _qualifying(night, t)
    seeds = t["seeds"] or []
    b = _bracket(night, t)
    current = night.current_round()
    stage = ("qualifying" if b is None else "done" if b.champion is not None
             else "knockout")
    tables = _seated_at(night)
    return {
        "night": night.night, "stage": stage, "games": t["games"], "limit": t["limit"],
        "round": current, "qualifying_round": min(current, t["games"]),
        "cut": {"size": len(seeds) or t["cut"] or knockout.cut_size(len(rows)),
                "seeds": seeds, "tied": t["tied"]},
        "standings": [{"place": r.place, "name": r.name, "game_points": r.game_points,
                       "won": r.won, "lost": r.lost, "skunks": r.skunks, "spread": r.spread,
                       "played": r.played,
                       "seed": seeds.index(r.name) + 1 if r.name in seeds else None}
                      for r in rows],
        "bracket": None if b is None else _bracket_view(b, tables),
    }


def _seated_at(night: Night) -> dict[frozenset[str], str]:
    """Each pair's table, the latest round it was seated in."""
    return {frozenset(s.names): s.table for r in night.rounds() for s in r["seats"]
            if len(s.names) == 2}


def _bracket_view(b: knockout.Bracket, tables: dict[frozenset[str], str]
                  ) -> dict[str, Any]:
    names = b.round_names()
    return {"size": b.size, "champion": b.champion, "rounds": [
        {"name": names[i], "matches": [_match_view(m, tables) for m in ms]}
        for i, ms in enumerate(b.rounds)]}


def _match_view(m: knockout.Match, tables: dict[frozenset[str], str]
                ) -> dict[str, Any]:
    g = m.game
    table = None if None in m.players else tables.get(frozenset(m.players))  # type: ignore[arg-type]
    return {"slot": m.slot, "seeds": list(m.seeds), "players": list(m.players),
            "winner": m.winner, "bye": m.bye, "table": table,
            "score": None if g is None else [g.winner_score, g.loser_score]}


def standings_csv(night: NightDep, who: Director) -> Response:
    t = _need(night)
    seeds = t["seeds"] or []
    rows = [(r.place, r.name, r.game_points, r.won, r.lost, r.skunks, r.spread, r.played,
             seeds.index(r.name) + 1 if r.name in seeds else "") for r in _qualifying(night, t)]
    return _csv([STANDINGS_HEADER, *rows],
                f"qualifying-{night.config.club}-{night.night}.csv")


def bracket_csv(night: NightDep, who: Director) -> Response:
    t = _need(night)
    b = _bracket(night, t)
    rows: list[tuple[object, ...]] = []
    if b is not None:
        tables = _seated_at(night)
        for name, ms in zip(b.round_names(), b.rounds, strict=True):
            for m in ms:
                v = _match_view(m, tables)
                a, b_ = (p or ("bye" if m.bye else "") for p in m.players)
                rows.append((m.round, name, m.slot + 1, m.seeds[0] or "", a, m.seeds[1] or "",
                             b_, m.winner or "",
                             "-".join(map(str, v["score"])) if v["score"] else "",
                             v["table"] or ""))
    return _csv([BRACKET_HEADER, *rows], f"bracket-{night.config.club}-{night.night}.csv")


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/tournament", get_tournament, methods=["GET"])
    r.add_api_route("/api/tournament", post_tournament, methods=["POST"], status_code=201)
    r.add_api_route("/api/tournament/rounds", post_next, methods=["POST"], status_code=201)
    r.add_api_route("/api/tournament/cut", post_cut, methods=["POST"])
    r.add_api_route("/api/tournament/standings.csv", standings_csv, methods=["GET"])
    r.add_api_route("/api/tournament/bracket.csv", bracket_csv, methods=["GET"])
    return r
