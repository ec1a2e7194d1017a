"""CSV of the night: the score cards (one row per player per game) and the standings, with
the table's guard against spreadsheet formulas."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence

from fastapi import APIRouter
from fastapi.responses import Response

from cribbage import tournament
from firmware_host.club.director.night import Night
from firmware_host.club.director.routes.deps import Director, NightDep
from firmware_host.export import cell, sheet

SCORECARD_HEADER = ("round", "table", "player", "opponent", "score", "opponent_score", "won",
                    "game_points", "spread", "kind", "result")
STANDINGS_HEADER = ("place", "name", "game_points", "won", "lost", "skunks", "spread",
                    "played")


def _csv(rows: Iterable[Sequence[object]], name: str) -> Response:
    out = io.StringIO()
    writer = sheet(out)  # every text cell quoted
    for row in rows:
        writer.writerow([cell(v) for v in row])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="{re.sub(r"[^A-Za-z0-9._-]", "_", name)}"'})


def scorecard_rows(night: Night) -> list[tuple[object, ...]]:
    """Two rows per counted game and one per bye (as the standings count it: a game won
    for `bye_points`, no spread, no table), in round then table order, byes last."""
    rows: list[tuple[object, ...]] = []
    counted = [g for g in night.games() if g.record is not None]
    order = {t: i for i, t in enumerate(night.table_order())}
    by_round: dict[int, list[tuple[object, ...]]] = {}
    for g in sorted(counted, key=lambda g: (g.record.round, order.get(g.record.table, 1 << 30),
                                            g.record.table)):  # type: ignore[union-attr]
        game = g.record
        assert game is not None
        margin = game.winner_score - game.loser_score
        for player, other, own, theirs, won in (
                (game.winner, game.loser, game.winner_score, game.loser_score, True),
                (game.loser, game.winner, game.loser_score, game.winner_score, False)):
            by_round.setdefault(game.round, []).append(
                (game.round, game.table, player, other, own, theirs, "yes" if won else "no",
                 tournament.game_points(game.kind, won), margin if won else -margin,
                 game.kind, g.stored.id))
    for bye in night.byes():
        by_round.setdefault(bye.round, []).append(
            (bye.round, "", bye.player, "(bye)", "", "", "yes", night.config.bye_points, 0,
             "bye", ""))
    for number in sorted(by_round):
        rows.extend(by_round[number])
    return rows


def scorecards(night: NightDep, who: Director) -> Response:
    return _csv([SCORECARD_HEADER, *scorecard_rows(night)],
                f"scorecards-{night.config.club}-{night.night}.csv")


def standings(night: NightDep, who: Director) -> Response:
    rows = [(r.place, r.name, r.game_points, r.won, r.lost, r.skunks, r.spread, r.played)
            for r in night.standings().rows]
    return _csv([STANDINGS_HEADER, *rows], f"standings-{night.config.club}-{night.night}.csv")


def router() -> APIRouter:
    r = APIRouter()
    r.add_api_route("/api/export/scorecards.csv", scorecards, methods=["GET"])
    r.add_api_route("/api/export/standings.csv", standings, methods=["GET"])
    return r
