"""The daemon's one dispatcher: components send typed events, others subscribe by type.

Moonraker's `register_event_handler`/`send_event`, typed: a handler is registered for an
event class (a subclass's events reach it too) and is called with the event, in the order
of registration, on the thread that sent it. A handler that raises is logged with its
traceback; the others still run, and the sender never sees it (the action it reports is
already committed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from cribbage.game import Game
    from cribbage.game.events import Event
    from hardware.interfaces import BoardState

log = logging.getLogger("crib.daemon")

E = TypeVar("E")
Handler = Callable[[Any], None]


class EventBus:
    """Typed publish and subscribe inside the daemon (nothing crosses a thread by itself)."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Handler]] = {}
        self._routes: dict[type, tuple[Handler, ...]] = {}  # by concrete class, built lazily

    def register_event_handler(self, kind: type[E], handler: Callable[[E], None]) -> None:
        """Call `handler(event)` for every event of class `kind` (or a subclass)."""
        self._handlers.setdefault(kind, []).append(handler)
        self._routes.clear()

    def send_event(self, event: object) -> None:
        """Hand `event` to every handler of its class, in order; a failing one is logged."""
        cls = type(event)
        route = self._routes.get(cls)
        if route is None:
            route = self._routes[cls] = tuple(
                h for base in cls.__mro__ for h in self._handlers.get(base, ()))
        for handler in route:
            try:
                handler(event)
            except Exception:
                log.exception("%s failed on %s", getattr(handler, "__qualname__", handler),
                              cls.__name__)

    def handlers(self, kind: type) -> tuple[Handler, ...]:
        """The handlers an event of class `kind` reaches (for the map of the house)."""
        return tuple(h for base in kind.__mro__ for h in self._handlers.get(base, ()))


# -- the daemon's own events -----------------------------------------------------------------
Answer = dict[str, Any]
"""An action's answer: {"game", "op_id", "events"}."""


@dataclass
class GameEntry:
    """A game in memory, as the games component keeps it and its events carry it: its
    engine state (the fold of its log) and its JSON view."""

    id: int
    params: dict[str, Any]
    game: Game
    version: int = 0
    view: dict[str, Any] = field(default_factory=dict)  # game.view(), for JSON only
    # Answers of actions whose commit is under way, by op id (removed once on disk).
    ops: dict[str, tuple[Answer, Future[None]]] = field(default_factory=dict)
    # Op ids of the actions on disk: only a repeated one needs a look in the store.
    logged: set[str] = field(default_factory=set)
    # Each side's score after every accepted action (the race), built step by step.
    race: list[dict[str, Any]] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {**self.view, "id": self.id, "version": self.version}


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A new game was started, or the latest resumed at start: it is the current one."""

    entry: GameEntry
    resumed: bool = False


@dataclass(frozen=True, slots=True)
class ActionCommitted:
    """An accepted action is on disk: the game after it and the engine's events of the step.

    `game_text` and `events_text` are the game and the events as JSON text (each event with
    `kind` and `say`), as they were committed and answered (encoded once). `current`: the
    game is the current one.
    """

    entry: GameEntry
    events: tuple[Event, ...]
    game_text: str
    events_text: str
    current: bool

    def of(self, kind: type[E]) -> list[E]:
        """The step's engine events of one class."""
        return [e for e in self.events if isinstance(e, kind)]


@dataclass(frozen=True, slots=True)
class DeviceChanged:
    """A device's state changed (noticed once by the supervisor), with its description."""

    name: str
    described: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BoardShown:
    """The board was told to show a new state (pegs, lines, pairing code, settings), with
    what the phones may see of it (`board_json`: never the pairing code)."""

    state: BoardState
    json: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ShufflerChanged:
    """The shuffler's status changed (a command, a pass, a fault), as JSON."""

    status: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoreFaulted:
    """The store's disk refused a write, or came back (health says so at once)."""
