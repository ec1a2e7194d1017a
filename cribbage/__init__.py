"""The cribbage rules engine: pure Python, no I/O, randomness only through an injected Random.

The game machine is `Game` (`cribbage.game`): `new, events = game.step(action)` gives the next
state and the typed events of the action (`cribbage.game.events`); `game.why_not(action)`
says why an action would be refused; actions are `cribbage.actions`' frozen values, read from
JSON once by `parse_action` (the game takes them typed).

Names are loaded on first use (PEP 562), so `import cribbage` costs almost nothing: the
scoring tables are built only when a hand is first scored.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (it costs milliseconds)

# Every public name and the module that defines it.
_WHERE = {
    "Advice": "advisor", "DiscardOption": "advisor", "PlayHint": "pegadvice",
    "PlayOption": "pegadvice", "advise": "advisor", "advise_play": "pegadvice",
    "ACTION_TYPES": "actions", "Action": "actions", "Count": "actions", "Cut": "actions",
    "Deal": "actions", "Dealer": "actions", "Discard": "actions", "Go": "actions",
    "Heels": "actions", "LatePeg": "actions", "Muggins": "actions", "NextGame": "actions",
    "Peg": "actions", "Play": "actions", "Redo": "actions", "Starter": "actions", "Undo": "actions",
    "format_action": "actions", "parse_action": "actions",
    "ALL_CARDS": "cards", "Card": "cards", "Deck": "cards", "Rank": "cards", "Suit": "cards",
    "check_distinct": "cards", "parse_cards": "cards",
    "CribbageError": "errors", "DuplicateCardError": "errors", "IllegalPlayError": "errors",
    "ImpossibleScoreError": "errors", "InvalidActionError": "errors",
    "InvalidCardError": "errors", "InvalidHandError": "errors", "InvalidOptionError": "errors",
    "UnknownModelError": "errors", "UnknownVariantError": "errors",
    "EVENT_KINDS": "game", "Event": "game", "Game": "game", "Pegs": "game", "Phase": "game",
    "Refusal": "game", "ScoreRecord": "game", "Step": "game", "possible_counts": "counts",
    "PegScore": "pegscore", "score_pegging": "pegscore",
    "DeclaredGo": "play", "FalseGo": "play", "PegEvent": "play", "PlayState": "play",
    "RULES": "rules", "CutRule": "rules", "GoRule": "rules", "PlayRounds": "rules",
    "Result": "rules", "ResultKind": "rules", "Rules": "rules", "SkunkLines": "rules",
    "SkunkRule": "rules",
    "catalogue": "rules", "get_rules": "rules", "result_of": "rules",
    "Combination": "scoring", "HandScore": "scoring", "score_hand": "scoring",
    "Census": "stats", "census": "stats", "explain_29": "stats",
    "cut_action": "simulate", "deal_action": "simulate", "legal_moves": "simulate",
    "random_action": "simulate", "starter_action": "simulate",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'cribbage' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cribbage.{module}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from cribbage.actions import (  # noqa: F401
        ACTION_TYPES,
        Action,
        Count,
        Cut,
        Deal,
        Dealer,
        Discard,
        Go,
        Heels,
        LatePeg,
        Muggins,
        NextGame,
        Peg,
        Play,
        Redo,
        Starter,
        Undo,
        format_action,
        parse_action,
    )
    from cribbage.advisor import (  # noqa: F401
        Advice,
        DiscardOption,
        PlayHint,
        PlayOption,
        advise,
        advise_play,
    )
    from cribbage.cards import (  # noqa: F401
        ALL_CARDS,
        Card,
        Deck,
        Rank,
        Suit,
        check_distinct,
        parse_cards,
    )
    from cribbage.counts import possible_counts  # noqa: F401
    from cribbage.errors import (  # noqa: F401
        CribbageError,
        DuplicateCardError,
        IllegalPlayError,
        ImpossibleScoreError,
        InvalidActionError,
        InvalidCardError,
        InvalidHandError,
        InvalidOptionError,
        UnknownModelError,
        UnknownVariantError,
    )
    from cribbage.game import (  # noqa: F401
        EVENT_KINDS,
        Event,
        Game,
        Pegs,
        Phase,
        Refusal,
        ScoreRecord,
        Step,
    )
    from cribbage.pegscore import PegScore, score_pegging  # noqa: F401
    from cribbage.play import DeclaredGo, FalseGo, PegEvent, PlayState  # noqa: F401
    from cribbage.rules import (  # noqa: F401
        RULES,
        CutRule,
        GoRule,
        PlayRounds,
        Result,
        ResultKind,
        Rules,
        SkunkLines,
        SkunkRule,
        catalogue,
        get_rules,
        result_of,
    )
    from cribbage.scoring import Combination, HandScore, score_hand  # noqa: F401
    from cribbage.simulate import (  # noqa: F401
        cut_action,
        deal_action,
        legal_moves,
        random_action,
        starter_action,
    )
    from cribbage.stats import Census, census, explain_29  # noqa: F401
