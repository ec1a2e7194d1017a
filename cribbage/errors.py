"""Errors of the rules engine: one root, leaves that also subclass a builtin."""

from __future__ import annotations


class CribbageError(Exception):
    """Root of every error the rules engine raises."""


class InvalidCardError(CribbageError, ValueError):
    """Text that does not name a card, or a card that cannot be where it is."""


class DuplicateCardError(InvalidCardError):
    """A card given twice (in a hand, or a hand card that is also the starter)."""


class InvalidHandError(CribbageError, ValueError):
    """A hand of the wrong size for the variant."""


class IllegalPlayError(CribbageError, ValueError):
    """An action that the rules do not allow in the current state."""


class ImpossibleScoreError(IllegalPlayError):
    """A count that no hand can make, or points that cannot be pegged."""


class InvalidOptionError(CribbageError, ValueError):
    """A game option that is not known or has a value the rules do not allow."""


class UnknownVariantError(CribbageError, LookupError):
    """A variant name that is not in the registry."""


class UnknownModelError(CribbageError, LookupError):
    """A crib model name that the advisor does not know."""
