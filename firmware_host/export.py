"""The score sheets a player downloads: one CSV row per game, or one per hand.

Games are read from the engine's tallies of each match, folded from its log, so an undone
action leaves no trace; dates are the daemon's local time. The raw action log stays available
as JSON (`Store.export_json`).
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cribbage.actions import parse_action
from cribbage.game import Game, GameTally, HandTally
from cribbage.rules import TITLES
from firmware_host.components.games import new_game
from firmware_host.store import Store

GAME_COLUMNS = ("match", "game", "date", "players", "variant", "target", "winner", "scores",
                "result", "game points")
HAND_FIELDS = ("pegging", "hand", "crib", "hand and crib", "muggins", "total")
"""Each side's columns of a hand ("hand and crib": the dealer's two counted as one total)."""
RESULT_WORDS = {"win": "win", "skunk": "skunk", "double_skunk": "double skunk",
                "lurch": "lurch"}
UNFINISHED = "unfinished"


@dataclass(frozen=True, slots=True)
class Match:
    """One stored match: its id, the engine's state after its log, and when each game began."""

    id: int
    game: Game
    started: dict[int, float]


# A cell a spreadsheet would read as a formula starts with one of these (OWASP, "CSV
# Injection"); such text gets a leading apostrophe, which the spreadsheet shows as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A spreadsheet whose locale lists with ';' (or a tab) splits a line there, quotes or not
# (a quote counts only where a cell begins): text after one must not start a formula either.
INNER_FORMULA = re.compile(r"([,;\t])(?=[=+\-@\t\r])")


def cell(value: object) -> object:
    """A CSV cell that no spreadsheet runs, whatever separator it splits on: text starting
    like a formula, or holding a separator followed by one, gets `'` there; numbers (a
    negative score too) stay numbers."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS):
        value = "'" + value
    return INNER_FORMULA.sub(r"\1'", value)


def sheet(out: io.StringIO) -> Any:
    """A CSV writer that quotes every text cell (numbers stay bare, to stay numbers)."""
    return csv.writer(out, quoting=csv.QUOTE_NONNUMERIC)


def _write(writer: Any, row: Sequence[object]) -> None:
    writer.writerow([cell(v) for v in row])


def local_time(epoch: float) -> str:
    """An ISO date and time in the daemon's local time, to the minute: 2026-12-01 19:45."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def matches(store: Store, game_id: int | None = None) -> Iterator[Match]:
    """Every match (or one) folded from its log; raises NotFoundError for an unknown id."""
    created = {g["id"]: g["created_at"] for g in store.games()}
    for mid in [game_id] if game_id is not None else sorted(created):
        game = new_game(store.game_params(mid))  # raises NotFoundError
        started = {game.game_number: created[mid]}
        for row in store.actions(mid):
            before = game.game_number
            game = game.apply(parse_action(row.action))  # the log holds JSON
            if game.game_number > before:  # a next game (again, if it was undone)
                started[game.game_number] = row.created_at
        yield Match(mid, game, started)


def _sides(k: Game) -> list[str]:
    return [k.side_name(i) for i in range(len(k.sides))]


def _score_words(scores: Sequence[int]) -> str:
    """"121 to 113", "121 to 113 and 101": as the page and a player say them."""
    first, *rest = scores
    return f"{first} to " + " and ".join(map(str, rest)) if rest else str(first)


def game_row(m: Match, g: GameTally) -> list[object]:
    """One game as a player reads it: the winner's score first."""
    k, names = m.game, _sides(m.game)
    r = g.result
    if r is None:
        winner, scores, words, points = "", _score_words(g.scores), UNFINISHED, ""
    else:
        order = [r.winner] + [i for i in range(len(g.scores)) if i != r.winner]
        winner, points = names[r.winner], r.game_points
        scores = _score_words([g.scores[i] for i in order])
        words = RESULT_WORDS.get(r.kind.value, r.kind.value)
    variant = TITLES.get(k.config.variant, k.config.variant)
    began = m.started.get(g.game, m.started[min(m.started)])
    return [m.id, g.game, local_time(began), ", ".join(names), variant, k.target, winner,
            scores, words, points]


def hand_row(m: Match, h: HandTally, width: int) -> list[object]:
    """One hand: its dealer, then each side's points by kind and its score after the hand."""
    k, names = m.game, _sides(m.game)
    row: list[object] = [m.id, h.game, h.hand,
                         "" if h.dealer is None else k.names[h.dealer]]
    for i in range(width):
        if i < len(names):
            row += [names[i], h.pegging[i], h.hand_counts[i], h.crib[i], h.hand_and_crib[i],
                    h.muggins[i], h.totals[i]]
        else:
            row += [""] * (1 + len(HAND_FIELDS))
    return row


def games_csv(store: Store, game_id: int | None = None) -> str:
    """One row per game of every match (or of one); raises NotFoundError."""
    out = io.StringIO()
    writer = sheet(out)
    _write(writer, GAME_COLUMNS)
    for m in matches(store, game_id):
        for g in m.game.game_tallies():
            _write(writer, game_row(m, g))
    return out.getvalue()


def hands_csv(store: Store, game_id: int | None = None) -> str:
    """One row per hand of every match (or of one), with a column group per side (as many
    as the widest match has); raises NotFoundError."""
    found = list(matches(store, game_id))
    width = max((len(m.game.sides) for m in found), default=2)
    out = io.StringIO()
    writer = sheet(out)
    header = ["match", "game", "hand", "dealer"]
    for i in range(1, width + 1):
        header += [f"side {i}"] + [f"side {i} {f}" for f in HAND_FIELDS]
    _write(writer, header)
    for m in found:
        for h in m.game.hand_tallies():
            _write(writer, hand_row(m, h, width))
    return out.getvalue()
