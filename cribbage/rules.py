"""The variants of cribbage as data, their options, and the result of a finished game.

Choices where the rule texts differ (the default is the most common table practice; the other
reading is an option):

- Skunk lines ("skunk"): for a game to 121 a loser under 91 is skunked and one under 61 is
  double skunked (USPC, how-to-play). Other targets scale the same two lines: three quarters
  and one half of the target, rounded up (121 gives 91 and 61), but a short game (target under
  91, e.g. 61) has a single skunk line at half the target (under 31 in a game of 61: the
  USPC's half-way mark for 61, and the line short-game tables draw).
- "lurch": one line at half the target rounded up (61 for 121, 31 for 61); "none": no lines.
- Game points: a win is 1 game, a skunk 2 (double game), a lurch 2 (USPC), a double skunk 4
  (USPC's quadruple game); `double_skunk_games=3` gives the "tripled" stake of other tables.
- The go in three- and four-hand play: `GoRule.CONTINUE` (pagat, most tables): after a go, play
  goes on round the table with every player who can still play, until nobody can.
  `GoRule.USPC`: if the first player after a go cannot play either, the series ends there and
  the next player does not play.
- Three-player target: 121 (pagat, how-to-play); the USPC's "usually 61" is `target=61`.
- The cut for deal: the lowest card deals (six-card, three and four players); in five-card
  the higher card deals and the loser pegs three (USPC, "Five-Card Cribbage").
- Five-card play: one series only. After a go the other player plays on as usual; the play
  ends at 31 or when neither can play, and unplayed cards stay unplayed.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from cribbage.counts import possible_counts, possible_pair_counts
from cribbage.errors import InvalidOptionError, UnknownVariantError

MAX_COUNT = 31
"""The play's limit: the count never passes thirty-one."""


class PlayRounds(enum.Enum):
    """How long the play lasts: every card (`FULL`), or one series to 31 or a go (`SINGLE`)."""

    FULL = "full"
    SINGLE = "single"


class GoRule(enum.Enum):
    """What happens after a go with three or four players (see the module docstring)."""

    CONTINUE = "continue"
    USPC = "uspc"


class SkunkRule(enum.Enum):
    """Which skunk lines are drawn: two lines (`SKUNK`), one lurch line, or none."""

    SKUNK = "skunk"
    LURCH = "lurch"
    NONE = "none"


class CutRule(enum.Enum):
    """Which card wins the cut for deal: the lowest (`LOW`, the six-card game and most
    variants) or the higher (`HIGH`, five-card: the loser of the cut pegs three)."""

    LOW = "low"
    HIGH = "high"


class ResultKind(enum.Enum):
    """How a game was won."""

    WIN = "win"
    SKUNK = "skunk"
    DOUBLE_SKUNK = "double_skunk"
    LURCH = "lurch"


@dataclass(frozen=True, slots=True)
class SkunkLines:
    """The lines a loser must reach; a loser whose score is below a line is caught by it."""

    skunk: int | None = None
    double_skunk: int | None = None
    lurch: int | None = None

    @classmethod
    def for_target(cls, target: int, skunk: SkunkRule | str = SkunkRule.SKUNK) -> SkunkLines:
        """The lines for a game to `target`; raises InvalidOptionError for a bad rule."""
        rule = _skunk_rule(skunk)
        half = math.ceil(target / 2)
        if rule is SkunkRule.NONE:
            return cls()
        if rule is SkunkRule.LURCH:
            return cls(lurch=half)
        if target < 91:
            return cls(skunk=half)
        return cls(skunk=math.ceil(target * 3 / 4), double_skunk=half)

    def to_json(self) -> dict[str, int | None]:
        return {"skunk": self.skunk, "double_skunk": self.double_skunk, "lurch": self.lurch}

    def scores(self) -> tuple[int, ...]:
        """The lines in the order the rules name them: skunk, double skunk, then lurch."""
        return tuple(x for x in (self.skunk, self.double_skunk, self.lurch) if x is not None)


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game: the winning side, the lowest side, how it was won and the game points."""

    winner: int
    loser: int
    kind: ResultKind
    game_points: int
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "loser": self.loser,
            "kind": self.kind.value,
            "game_points": self.game_points,
            "scores": list(self.scores),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            winner=int(data["winner"]),
            loser=int(data["loser"]),
            kind=ResultKind(data["kind"]),
            game_points=int(data["game_points"]),
            scores=tuple(int(s) for s in data["scores"]),
        )


def result_of(
    scores: Sequence[int],
    target: int,
    skunk: SkunkRule | str = SkunkRule.SKUNK,
    *,
    double_skunk_games: int = 4,
) -> Result | None:
    """The result once a side has reached `target` (None before); the loser is the lowest side.

    Raises InvalidOptionError for a bad skunk rule or two sides at the target.
    """
    return _result(scores, target, SkunkLines.for_target(target, skunk), double_skunk_games)


def _result(scores: Sequence[int], target: int, lines: SkunkLines,
            double_skunk_games: int) -> Result | None:
    scores = tuple(int(s) for s in scores)
    winners = [i for i, s in enumerate(scores) if s >= target]
    if not winners:
        return None
    if len(winners) > 1:
        raise InvalidOptionError(f"two sides cannot both reach {target}: scores {scores}")
    winner = winners[0]
    others = [i for i in range(len(scores)) if i != winner]
    loser = min(others, key=lambda i: (scores[i], i))
    low = scores[loser]
    if lines.double_skunk is not None and low < lines.double_skunk:
        kind, points = ResultKind.DOUBLE_SKUNK, double_skunk_games
    elif lines.skunk is not None and low < lines.skunk:
        kind, points = ResultKind.SKUNK, 2
    elif lines.lurch is not None and low < lines.lurch:
        kind, points = ResultKind.LURCH, 2
    else:
        kind, points = ResultKind.WIN, 1
    return Result(winner, loser, kind, points, scores)


@dataclass(frozen=True, slots=True)
class Rules:
    """One variant with its options. Players sit in index order; player i+1 is left of i."""

    name: str
    players: int
    sides: tuple[tuple[int, ...], ...]
    deal: int  # cards dealt to each player
    discard: int  # cards each player lays away to the crib
    crib_from_deck: int  # cards dealt straight to the crib
    hand_size: int  # cards kept in the hand
    target: int
    non_dealer_start: int  # points to the first non-dealer when a game starts (five-card: 3)
    play_rounds: PlayRounds
    hand_flush: int  # hand cards of one suit for a hand flush (the crib needs all five)
    go_rule: GoRule = GoRule.CONTINUE
    skunk: SkunkRule = SkunkRule.SKUNK
    muggins: bool = False
    double_skunk_games: int = 4
    cut: CutRule = CutRule.LOW  # which card wins the cut for deal

    @property
    def crib_size(self) -> int:
        return self.players * self.discard + self.crib_from_deck

    @property
    def lines(self) -> SkunkLines:
        return SkunkLines.for_target(self.target, self.skunk)

    @property
    def skunk_lines(self) -> tuple[int, ...]:
        """The scores of the lines of a game with these rules, in order (see SkunkLines)."""
        return self.lines.scores()

    def side_of(self, player: int) -> int:
        """The side (index into `sides`) a player belongs to; raises InvalidOptionError."""
        for i, members in enumerate(self.sides):
            if player in members:
                return i
        raise InvalidOptionError(f"no player {player!r} in {self.name} ({self.players} players)")

    def left_of(self, player: int) -> int:
        return (player + 1) % self.players

    def result(self, scores: Sequence[int]) -> Result | None:
        """The result for these side scores, or None if no side has reached the target.

        Judged by `lines`, the lines the board and the page draw. Raises InvalidOptionError
        for two sides at the target.
        """
        return _result(scores, self.target, self.lines, self.double_skunk_games)

    def with_options(self, **options: Any) -> Rules:
        """A copy with options changed (target, skunk, muggins, go_rule, double_skunk_games).

        Raises InvalidOptionError naming an unknown option or a bad value.
        """
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if value is None:
                continue
            if key == "target":
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise InvalidOptionError(
                        f"target must be a positive whole number, not {value!r}")
                changes[key] = value
            elif key == "skunk":
                changes[key] = _skunk_rule(value)
            elif key == "muggins":
                if not isinstance(value, bool):
                    raise InvalidOptionError(f"muggins must be true or false, not {value!r}")
                changes[key] = value
            elif key == "go_rule":
                try:
                    changes[key] = GoRule(value)
                except ValueError:
                    raise InvalidOptionError(
                        f"go_rule must be one of {[g.value for g in GoRule]}, not {value!r}"
                    ) from None
            elif key == "double_skunk_games":
                if value not in (3, 4) or isinstance(value, bool):
                    raise InvalidOptionError(f"double_skunk_games must be 3 or 4, not {value!r}")
                changes[key] = value
            else:
                raise InvalidOptionError(
                    f"unknown option {key!r} for {self.name}; options are target, skunk, "
                    "muggins, go_rule, double_skunk_games")
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "players": self.players,
            "sides": [list(s) for s in self.sides],
            "deal": self.deal,
            "discard": self.discard,
            "crib_from_deck": self.crib_from_deck,
            "hand_size": self.hand_size,
            "target": self.target,
            "non_dealer_start": self.non_dealer_start,
            "play_rounds": self.play_rounds.value,
            "hand_flush": self.hand_flush,
            "go_rule": self.go_rule.value,
            "skunk": self.skunk.value,
            "muggins": self.muggins,
            "double_skunk_games": self.double_skunk_games,
            "cut": self.cut.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rules:
        """Rebuild rules from `to_json`; raises InvalidOptionError for a malformed value."""
        try:
            return cls(
                name=str(data["name"]),
                players=int(data["players"]),
                sides=tuple(tuple(int(p) for p in s) for s in data["sides"]),
                deal=int(data["deal"]),
                discard=int(data["discard"]),
                crib_from_deck=int(data["crib_from_deck"]),
                hand_size=int(data["hand_size"]),
                target=int(data["target"]),
                non_dealer_start=int(data["non_dealer_start"]),
                play_rounds=PlayRounds(data["play_rounds"]),
                hand_flush=int(data["hand_flush"]),
                go_rule=GoRule(data["go_rule"]),
                skunk=SkunkRule(data["skunk"]),
                muggins=bool(data["muggins"]),
                double_skunk_games=int(data["double_skunk_games"]),
                cut=CutRule(data.get("cut", CutRule.LOW.value)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidOptionError(f"not a rules record: {exc}") from None


def _skunk_rule(value: SkunkRule | str) -> SkunkRule:
    try:
        return SkunkRule(value)
    except ValueError:
        raise InvalidOptionError(
            f"skunk must be one of {[s.value for s in SkunkRule]}, not {value!r}"
        ) from None


RULES: Mapping[str, Rules] = MappingProxyType({
    "six-card": Rules(
        name="six-card", players=2, sides=((0,), (1,)), deal=6, discard=2, crib_from_deck=0,
        hand_size=4, target=121, non_dealer_start=0, play_rounds=PlayRounds.FULL, hand_flush=4,
    ),
    "five-card": Rules(
        name="five-card", players=2, sides=((0,), (1,)), deal=5, discard=2, crib_from_deck=0,
        hand_size=3, target=61, non_dealer_start=3, play_rounds=PlayRounds.SINGLE, hand_flush=3,
        cut=CutRule.HIGH,
    ),
    "three-player": Rules(
        name="three-player", players=3, sides=((0,), (1,), (2,)), deal=5, discard=1,
        crib_from_deck=1, hand_size=4, target=121, non_dealer_start=0,
        play_rounds=PlayRounds.FULL, hand_flush=4,
    ),
    "four-player": Rules(
        name="four-player", players=4, sides=((0, 2), (1, 3)), deal=5, discard=1,
        crib_from_deck=0, hand_size=4, target=121, non_dealer_start=0,
        play_rounds=PlayRounds.FULL, hand_flush=4,
    ),
})
"""The variants by name."""


def get_rules(name: str, **options: Any) -> Rules:
    """The rules of variant `name` with options applied (see `Rules.with_options`).

    Raises UnknownVariantError naming the variant, InvalidOptionError for a bad option.
    """
    rules = RULES.get(name) if isinstance(name, str) else None
    if rules is None:
        raise UnknownVariantError(
            f"unknown variant {name!r}; the variants are {', '.join(RULES)}")
    return rules.with_options(**options)


TARGETS: Mapping[str, tuple[int, ...]] = MappingProxyType({
    "six-card": (121, 61),
    "five-card": (61, 121),
    "three-player": (121, 61),  # the USPC's "usually 61" for three
    "four-player": (121, 61),
})
"""The usual targets to offer for each variant, its own first (any target may be played)."""


TITLES: Mapping[str, str] = MappingProxyType({
    "six-card": "Two players, six cards",
    "five-card": "Two players, five cards",
    "three-player": "Three players",
    "four-player": "Four players, partners",
})
"""What a person calls each variant."""


def catalogue() -> dict[str, Any]:
    """Every variant with its defaults, the targets to offer, hand sizes, crib discards, the
    play's limit, skunk lines and the totals a hand and a crib can count (JSON-ready; served
    as it is at GET /api/rules)."""
    variants = []
    for name, rules in RULES.items():
        counts = {
            "hand": sorted(possible_counts(rules.hand_size, False)),
            "crib": sorted(possible_counts(rules.crib_size, True)),
            "hand_and_crib": sorted(possible_pair_counts(rules.hand_size, rules.crib_size)),
        }
        variants.append({
            "name": name,
            "title": TITLES.get(name, name),
            "players": rules.players,
            "sides": [list(s) for s in rules.sides],
            "partners": any(len(s) > 1 for s in rules.sides),
            "deal": rules.deal,
            "discard": rules.discard,
            "hand_size": rules.hand_size,
            "crib_from_deck": rules.crib_from_deck,
            "crib_size": rules.crib_size,
            "non_dealer_start": rules.non_dealer_start,
            "play_rounds": rules.play_rounds.value,
            "play_limit": MAX_COUNT,
            "cut": rules.cut.value,
            "targets": list(TARGETS[name]),
            "lines_by_target": {
                str(t): {r.value: list(rules.with_options(target=t, skunk=r.value).skunk_lines)
                         for r in SkunkRule}
                for t in TARGETS[name]},
            "defaults": {
                "target": rules.target,
                "skunk": rules.skunk.value,
                "muggins": rules.muggins,
                "go_rule": rules.go_rule.value,
                "double_skunk_games": rules.double_skunk_games,
            },
            "skunk_lines": list(rules.skunk_lines),
            "lines_by_rule": {s.value: list(rules.with_options(skunk=s.value).skunk_lines)
                              for s in SkunkRule},
            "counts": counts,
        })
    six = next(v for v in variants if v["name"] == "six-card")
    return {
        "variants": variants,
        "skunk_rules": [s.value for s in SkunkRule],
        "go_rules": [g.value for g in GoRule],
        "counts": six["counts"],
        "zero_hand": 19,
    }
