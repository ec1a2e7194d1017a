"""Errors of the rules engine: one root, leaves that also subclass a builtin.

Every engine error carries two texts: `str(exc)` is the developer's detail (the input and the
game state), `exc.say` one sentence for a player at the table (the detail when none is given).
"""

from __future__ import annotations


class CribbageError(Exception):
    """Root of every error the rules engine raises."""

    say: str

    def __init__(self, message: str = "", *, say: str | None = None) -> None:
        super().__init__(message)
        self.say = say if say is not None else message


class InvalidCardError(CribbageError, ValueError):
    """Text that does not name a card, or a card that cannot be where it is."""


class DuplicateCardError(InvalidCardError):
    """A card given twice (in a hand, or a hand card that is also the starter)."""


class InvalidHandError(CribbageError, ValueError):
    """A hand of the wrong size for the variant."""


class InvalidActionError(CribbageError, ValueError):
    """A malformed action: not a mapping, an unknown type, a missing or mistyped field."""


class IllegalPlayError(CribbageError, ValueError):
    """A well-formed action that the rules do not allow in the current state (or out of turn)."""


class ImpossibleScoreError(IllegalPlayError):
    """A count that no hand can make, or points that cannot be pegged."""


class InvalidOptionError(CribbageError, ValueError):
    """A game option that is not known or has a value the rules do not allow."""


class UnknownVariantError(CribbageError, LookupError):
    """A variant name that is not in the registry."""


class UnknownModelError(CribbageError, LookupError):
    """A crib model name that the advisor does not know."""
