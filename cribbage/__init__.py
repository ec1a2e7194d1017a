"""The cribbage rules engine: pure Python, no I/O, randomness only through an injected Random."""

from cribbage.advisor import (
    Advice,
    DiscardOption,
    PlayHint,
    PlayOption,
    UnknownModelError,
    advise,
    advise_play,
)
from cribbage.cards import ALL_CARDS, Card, Deck, Rank, Suit, check_distinct, parse_cards
from cribbage.errors import (
    CribbageError,
    DuplicateCardError,
    IllegalPlayError,
    ImpossibleScoreError,
    InvalidCardError,
    InvalidHandError,
    UnknownVariantError,
)
from cribbage.game import GameState, Phase, apply, deal_action, legal_actions, legal_moves
from cribbage.keeper import Keeper
from cribbage.pegscore import PegScore, score_pegging
from cribbage.play import DeclaredGo, FalseGo, PegEvent, PlayState
from cribbage.rules import (
    RULES,
    GoRule,
    InvalidOptionError,
    PlayRounds,
    Result,
    ResultKind,
    Rules,
    SkunkLines,
    SkunkRule,
    get_rules,
    result_of,
)
from cribbage.scoring import Combination, HandScore, score_hand
from cribbage.stats import Census, census, explain_29

__all__ = [
    "Census",
    "census",
    "explain_29",
    "Advice",
    "DiscardOption",
    "PlayHint",
    "PlayOption",
    "UnknownModelError",
    "advise",
    "advise_play",
    "Combination",
    "HandScore",
    "PegScore",
    "score_hand",
    "score_pegging",
    "DeclaredGo",
    "FalseGo",
    "GameState",
    "PegEvent",
    "Phase",
    "PlayState",
    "apply",
    "deal_action",
    "legal_actions",
    "legal_moves",
    "Keeper",
    "RULES",
    "GoRule",
    "InvalidOptionError",
    "PlayRounds",
    "Result",
    "ResultKind",
    "Rules",
    "SkunkLines",
    "SkunkRule",
    "get_rules",
    "result_of",
    "ALL_CARDS",
    "Card",
    "CribbageError",
    "Deck",
    "DuplicateCardError",
    "IllegalPlayError",
    "ImpossibleScoreError",
    "InvalidCardError",
    "InvalidHandError",
    "Rank",
    "Suit",
    "UnknownVariantError",
    "check_distinct",
    "parse_cards",
]
