"""The game's state as frozen values: the phase, the options, the pegs, the score records,
the last count and the `Core` (everything but the undo history)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from cribbage.cards import Card
from cribbage.play import PlayState
from cribbage.rules import Result

MODES = ("keeper", "cards", "dealt")
"""How a game is kept: points entered, cards entered, or every card known (dealt)."""

ZERO_HAND = 19
"""A count of 19 is impossible, so tables say "nineteen" for a hand worth nothing."""

HAND_AND_CRIB = "hand_and_crib"
"""The kind of a count of the dealer's hand and crib entered as one total (keeper mode): a
total of the two (19 is a total there, not nothing), recorded as one count of both."""

MAX_PEG = 15
"""The most one card can peg: a double pair royal (12) that makes fifteen (2), played last (1)."""

HEELS = 2
JACK = 11


class Phase(enum.StrEnum):
    """What the game waits for (a str: `k.phase == "play"` holds)."""

    CUT = "cut"
    DEAL = "deal"  # dealt mode only
    DISCARD = "discard"  # dealt mode only
    PLAY = "play"  # the starter, his heels and the play
    SHOW = "show"
    OVER = "over"


MUGGINS_PHASES = (Phase.DEAL, Phase.PLAY, Phase.SHOW)
"""Muggins on the crib may be called after it, before the next deal."""


@dataclass(frozen=True, slots=True)
class Config:
    """The options a game was started with."""

    variant: str
    names: tuple[str, ...]
    target: int
    skunk: str
    muggins: bool
    mode: str
    dealer: int | None
    go_rule: str = "continue"
    double_skunk_games: int = 4

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "names": list(self.names),
            "target": self.target,
            "skunk": self.skunk,
            "muggins": self.muggins,
            "mode": self.mode,
            "dealer": self.dealer,
            "go_rule": self.go_rule,
            "double_skunk_games": self.double_skunk_games,
        }


@dataclass(frozen=True, slots=True)
class CountRecord:
    """The last count made: whose, what was pegged, and what muggins may still take."""

    kind: str  # "hand", "crib" or HAND_AND_CRIB
    player: int
    side: int
    label: str
    points: int  # what the count pegged
    claimed: int = 0  # taken by muggins since
    true_total: int | None = None  # cards and dealt modes: what the cards really make
    breakdown: str | None = None  # cards and dealt modes: HandScore.to_json(), as JSON text
    cards: tuple[Card, ...] = ()
    notes: tuple[str, ...] = ()
    open: bool = True  # muggins may be called now

    @property
    def missed(self) -> int | None:
        if self.true_total is None:
            return None
        return self.true_total - self.points - self.claimed


@dataclass(frozen=True, slots=True)
class Pegs:
    """The two pegs of one side on the board: the front peg is the score."""

    front: int
    back: int


SCORE_KINDS = ("start", "heels", "pegging", "late", "hand", "crib", HAND_AND_CRIB, "muggins")
"""What a `ScoreRecord` was pegged for ("start": the five-card three for the first pone;
"late": a peg correction entered during the show; HAND_AND_CRIB: the dealer's hand and crib
entered as one total)."""


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """Points pegged to a side (a hand or crib count is recorded even when it is 0).

    `points` is what moved the front peg: a count that passes the target is cut at the game
    hole. `player` is None for a side's peg entered without a player (partners, keeper mode).
    """

    game: int
    hand: int
    side: int
    player: int | None
    kind: str
    points: int


@dataclass(frozen=True, slots=True)
class HandTally:
    """One hand as a score sheet has it: who dealt, and each side's points by what they were
    pegged for (one number per side in each tuple)."""

    game: int
    hand: int
    dealer: int | None
    pegging: tuple[int, ...]  # the play, his heels, a late peg, the five-card start
    hand_counts: tuple[int, ...]
    crib: tuple[int, ...]
    hand_and_crib: tuple[int, ...]  # the dealer's hand and crib entered as one total
    muggins: tuple[int, ...]
    totals: tuple[int, ...]  # each side's score after the hand


@dataclass(frozen=True, slots=True)
class GameTally:
    """One game of the match: its first dealer, its result (None while it goes on), the pegs
    at its end (or now) and how many hands were dealt."""

    game: int
    first_dealer: int | None
    result: Result | None
    scores: tuple[int, ...]
    hands: int


TALLY_COLUMN = {"start": "pegging", "heels": "pegging", "pegging": "pegging",
                 "late": "pegging", "hand": "hand_counts", "crib": "crib",
                 HAND_AND_CRIB: "hand_and_crib", "muggins": "muggins"}


@dataclass(frozen=True, slots=True)
class PlayNote:
    """Points pegged by the play engine, with the words a table says."""

    player: int
    points: int
    say: str


@dataclass(frozen=True, slots=True)
class Core:
    """The game state proper (everything but the undo/redo history)."""

    phase: Phase
    dealer: int | None
    fronts: tuple[int, ...]
    backs: tuple[int, ...]
    hand_number: int = 1
    game_number: int = 1
    show_index: int = 0
    play_started: bool = False
    heels_done: bool = False
    starter: Card | None = None
    play: PlayState | None = None  # cards and dealt modes
    play_notes: tuple[PlayNote, ...] = ()
    shown: tuple[Card, ...] = ()  # cards counted in this show
    last_count: CountRecord | None = None
    result: Result | None = None
    games_won: tuple[int, ...] = ()
    match_points: tuple[int, ...] = ()
    cut: tuple[Card, ...] = ()
    records: tuple[ScoreRecord, ...] = ()  # every score of the match, in order
    # dealt mode: the cards of this hand
    hands: tuple[tuple[Card, ...], ...] = ()  # each player's cards (kept hand after discard)
    discarded: tuple[bool, ...] = ()
    crib: tuple[Card, ...] = ()
    stock: tuple[Card, ...] = ()  # the undealt cards


__all__ = [
    "HAND_AND_CRIB",
    "HEELS",
    "JACK",
    "MAX_PEG",
    "MODES",
    "MUGGINS_PHASES",
    "SCORE_KINDS",
    "TALLY_COLUMN",
    "ZERO_HAND",
    "Config",
    "Core",
    "CountRecord",
    "GameTally",
    "HandTally",
    "Pegs",
    "Phase",
    "PlayNote",
    "ScoreRecord",
]
