"""Errors of the hardware layer: one root, leaves that also subclass a builtin.

Callers may catch the root (`HardwareError`), a leaf, or the builtin it extends
(`ValueError`, `OSError`), whichever fits.

The board's firmware imports this module under MicroPython, where a class cannot have two
builtin exception bases: there the root is a plain mixin and the firmware catches the builtin
(`ValueError`) instead. No `from __future__` for the same reason.
"""

import sys

# MicroPython: a mixin root, so each leaf has a single builtin exception base.
_ROOT = object if sys.implementation.name == "micropython" else Exception


class HardwareError(_ROOT):  # type: ignore[valid-type,misc]
    """Root of every error the hardware layer raises."""


class ConfigurationError(HardwareError, ValueError):
    """A device configuration (pins, layout, port) that cannot work."""


class ShufflerError(HardwareError, ValueError):
    """A shuffle request the shuffler cannot carry out (deck size, plan, state)."""


class DeckSizeError(ShufflerError):
    """A deck size outside the range the shuffler handles (2..104 cards)."""


class PlanError(ShufflerError):
    """An unknown plan or routing mode, or a plan that does not fit the deck."""


class ShufflerBusyError(ShufflerError):
    """A shuffle asked for while one is running, waiting or in a fault (abort it first)."""


class ShufflerNotReadyError(ShufflerError):
    """A command given before the shuffler was started, or after it was stopped."""


class BoardError(HardwareError, ValueError):
    """A peg board request that cannot be shown (bad track, hole or layout)."""


class SerialLinkError(HardwareError, OSError):
    """The serial link to a device failed (open, read, write, unplugged)."""


class ProtocolError(HardwareError, ValueError):
    """Bytes or a message that break the serial protocol (CRC, framing, version)."""


class InputError(HardwareError, ValueError):
    """An input panel request or configuration that cannot work."""
