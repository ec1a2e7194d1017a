"""The games component: games as folds of their logs, every accepted action committed first.

One path for every action (`act`, `act_async`): idempotency, the version check, the engine,
the results, the commit and the log line are each a step of their own. The action arrives
typed (parsed once, at the HTTP edge or by the table's inputs) and is logged in its
canonical form; once it is on disk the step's events go to the dispatcher, once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware_host.bus import ActionCommitted, Answer, EventBus, GameEntry, GameStarted
from firmware_host.components.results import ResultChange, result_change
from firmware_host.errors import (
    BadRequestError,
    IllegalActionError,
    InvalidActionError,
    StaleVersionError,
)
from firmware_host.store import CommitQueue, PendingAction, Store, StoreError

if TYPE_CHECKING:
    from cribbage.actions import Action
    from cribbage.game import Game
    from cribbage.game.events import Event

log = logging.getLogger("crib.daemon")
game_log = logging.getLogger("crib.game")

# One encoder for every answer (json.dumps with options makes a new one per call).
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=None,
                           separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """Compact JSON, as the API's responses are encoded (starlette's JSONResponse)."""
    return _ENCODE(value)


def events_json(events: tuple[Event, ...]) -> list[dict[str, Any]]:
    """The step's events as the answer and the stream carry them (`kind`, `say`, ...)."""
    return [e.to_json() for e in events]


def race_point(version: int, game: Game, kind: str | None) -> dict[str, Any]:
    """One point of a game's score race: each side's score after an action."""
    return {"version": version, "game_number": game.game_number, "type": kind,
            "scores": [p.front for p in game.pegs]}


def new_game(params: dict[str, Any]) -> Game:
    """A fresh engine game for stored parameters; raises the engine's CribbageError."""
    from cribbage.game import Game  # imported late: the daemon binds its port first

    args = dict(params)
    if "names" in args:
        args["names"] = tuple(args["names"])
    return Game.new(**{k: v for k, v in args.items() if v is not None or k == "dealer"})


@dataclass(frozen=True, slots=True)
class Accepted:
    """An action checked and applied, its commit on the way (or a repeat's first answer)."""

    answer: Answer
    commit: Future[None] | None = None
    committed: ActionCommitted | None = None  # what to announce once on disk (None: repeat)
    text: str | None = None  # the answer as committed JSON text (None for a repeat)


def engine_refusal(exc: Exception, action: Action | None, game: dict[str, Any]) -> Exception:
    """The daemon error for an engine refusal; any other exception is returned unchanged.

    InvalidActionError (malformed) and IllegalPlayError (against the rules) keep the
    engine's sentence for the table in `say` and its detail as the message. Anything else
    (AttributeError, TypeError, ...) is an engine bug and stays what it is: a 500.
    """
    from cribbage.errors import CribbageError, IllegalPlayError
    from cribbage.errors import InvalidActionError as EngineInvalidAction

    if isinstance(exc, IllegalPlayError):
        cls: type[Exception] = IllegalActionError
    elif isinstance(exc, EngineInvalidAction | CribbageError):
        cls = InvalidActionError
    else:
        return exc
    detail = str(exc) or f"{getattr(action, 'type', 'that')!r} is not allowed now"
    return cls(detail, say=getattr(exc, "say", detail), game=game)


class GameService:
    """Games as folds of their logs; every accepted action is committed before it is answered.

    Sends GameStarted for a new game (and the game resumed at start) and ActionCommitted
    after every accepted action, once it is on disk.
    """

    CACHE = 32

    def __init__(self, store: Store, bus: EventBus | None = None) -> None:
        self.store = store
        self.bus = bus or EventBus()
        self._games: dict[int, GameEntry] = {}
        self._lock = threading.RLock()
        self.current_id: int | None = None
        self.commits = CommitQueue(store)

    def start(self) -> None:
        """Start the writer and resume the latest game from its log."""
        self.commits.start()
        self.current_id = self.store.latest_game_id()
        if self.current_id is not None:
            entry = self.entry(self.current_id)
            log.info("resumed game %d at version %d", entry.id, entry.version)
            self.bus.send_event(GameStarted(entry, resumed=True))

    def stop(self) -> None:
        """Commit what is queued, then forget the games in memory."""
        self.commits.stop()
        self._games.clear()

    # -- reading ----------------------------------------------------------------------------
    def fold(self, game_id: int, upto: int | None = None) -> GameEntry:
        """A game rebuilt from its log (up to action `upto`); raises NotFoundError."""
        from cribbage.actions import parse_action

        params = self.store.game_params(game_id)
        game = new_game(params)
        entry = GameEntry(game_id, params, game, race=[race_point(0, game, None)])
        for row in self.store.actions(game_id, upto):
            # Read as the edge reads a phone's action: older logs kept the phone's spelling.
            action = parse_action(row.action)
            entry.logged.add(row.op_id)
            entry.game = entry.game.apply(action)
            entry.version = row.seq
            entry.race.append(race_point(row.seq, entry.game, action.type))
        entry.view = entry.game.view()
        return entry

    def entry(self, game_id: int) -> GameEntry:
        """A game in memory (folded from its log when not cached); raises NotFoundError."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is None:
                entry = self.fold(game_id)
                if len(self._games) >= self.CACHE:
                    # Never drop a game whose actions are still being committed.
                    idle = [k for k, e in self._games.items() if k != self.current_id and not e.ops]
                    if idle:
                        del self._games[min(idle)]
                self._games[game_id] = entry
            return entry

    def current(self) -> GameEntry | None:
        with self._lock:
            return None if self.current_id is None else self.entry(self.current_id)

    def forget(self, game_id: int) -> None:
        """Drop a game from memory: the next read folds it from what is on disk."""
        with self._lock:
            self._games.pop(game_id, None)

    # -- writing ----------------------------------------------------------------------------
    def create(self, params: dict[str, Any]) -> GameEntry:
        """Start a new game (it becomes current); raises BadRequestError for bad parameters."""
        from cribbage.errors import CribbageError

        try:
            game = new_game(params)
        except CribbageError as exc:
            raise BadRequestError(f"cannot start that game: {exc}",
                                  say=getattr(exc, "say", str(exc))) from None
        with self._lock:
            game_id = self.store.create_game(params)
            entry = GameEntry(game_id, params, game, view=game.view(),
                              race=[race_point(0, game, None)])
            self._games[game_id] = entry
            self.current_id = game_id
        game_log.info("game %d started: %s, %s", game_id, params.get("variant"),
                      " v ".join(params.get("names", [])))
        self.bus.send_event(GameStarted(entry))
        return entry

    def refusal(self, game_id: int, exc: Exception) -> Exception:
        """The daemon error for an action the engine's parser refused, naming the input and
        the game's state as the engine's own refusals do (with the game); raises
        NotFoundError for no such game."""
        from cribbage.errors import CribbageError

        entry = self.entry(game_id)
        if isinstance(exc, CribbageError):
            exc = type(exc)(f"{exc} ({entry.game.describe()})", say=exc.say)
        return engine_refusal(exc, None, entry.body())

    def act(self, game_id: int, version: int, op_id: str, action: Action) -> Answer:
        """Apply one action and wait for its commit; returns {"game", "op_id", "events"}.

        Raises NotFoundError, StaleVersionError (409, with the game), InvalidActionError or
        IllegalActionError (422, with the game and `say`), StoreError if it could not be
        saved; a repeated op_id gets the first answer and changes nothing.
        """
        accepted = self._accept(game_id, version, op_id, action)
        if accepted.commit is not None:
            try:
                accepted.commit.result()
            except Exception as exc:
                self._failed(game_id, exc)
        self._announce(accepted)
        return accepted.answer

    async def act_async(self, game_id: int, version: int, op_id: str,
                        action: Action) -> bytes:
        """`act` for the event loop, answered as JSON bytes (the text that was committed).

        Other requests run while the commit is on its way. Raises as `act`.
        """
        accepted = self._accept(game_id, version, op_id, action)
        if accepted.commit is not None:
            try:
                await asyncio.wrap_future(accepted.commit)
            except Exception as exc:
                self._failed(game_id, exc)
        self._announce(accepted)
        text = accepted.text if accepted.text is not None else json_text(accepted.answer)
        return text.encode("utf-8")

    def _announce(self, accepted: Accepted) -> None:
        if accepted.committed is not None:
            self.bus.send_event(accepted.committed)

    def _failed(self, game_id: int, exc: Exception) -> None:
        self.forget(game_id)  # refold from what is really on disk
        log.error("game %d: an action could not be saved: %s", game_id, exc)
        if isinstance(exc, StoreError):
            raise exc
        raise StoreError(f"the action could not be saved: {exc}") from exc

    def _accept(self, game_id: int, version: int, op_id: str, action: Action) -> Accepted:
        """Check and apply under the lock, and queue the commit."""
        with self._lock:
            entry = self.entry(game_id)
            repeat = self._repeat(entry, op_id)
            if repeat is not None:
                return repeat
            self._check_version(entry, version)
            game, events = self._apply(entry, action)
            version = entry.version + 1
            entry.race.append(race_point(version, game, action.type))
            after = GameEntry(entry.id, entry.params, game, version, game.view(),
                              entry.ops, entry.logged, entry.race)
            change = result_change(game, events)
            accepted = self._commit(after, op_id, action, events, change)
            self._games[game_id] = after
        return accepted

    def _repeat(self, entry: GameEntry, op_id: str) -> Accepted | None:
        """The first answer of an op id seen before, or None for a new one (idempotency)."""
        pending = entry.ops.get(op_id)
        if pending is not None:
            return Accepted(pending[0], pending[1])
        # A committed op id is in `logged` before it leaves `ops` (see _committed).
        prior = self.store.find_op(entry.id, op_id) if op_id in entry.logged else None
        if prior is None:
            return None
        if prior.response is not None:
            return Accepted(prior.response)
        # Logged by an older schema without answers: rebuild it by a fold.
        return Accepted({"game": self.fold(entry.id, prior.seq).body(), "op_id": op_id})

    @staticmethod
    def _check_version(entry: GameEntry, version: int) -> None:
        if version != entry.version:
            raise StaleVersionError(
                f"the game is at version {entry.version}, not {version}: "
                "someone else changed it first",
                game=entry.body(),
            )

    @staticmethod
    def _apply(entry: GameEntry, action: Action) -> tuple[Game, tuple[Event, ...]]:
        """The engine's next state and its events; raises InvalidActionError or
        IllegalActionError."""
        try:
            return entry.game.step(action)
        except Exception as exc:
            refusal = engine_refusal(exc, action, entry.body())
            if refusal is exc:
                raise  # an engine bug: the API answers 500 and logs the traceback
            raise refusal from None

    def _commit(self, after: GameEntry, op_id: str, action: Action, events: tuple[Event, ...],
                change: ResultChange) -> Accepted:
        """Queue the action (canonical), its answer and its results for the writer thread.

        The game's JSON is encoded once: the answer's text and the stream's message are
        built around it.
        """
        body = after.body()
        said = events_json(events)
        game_text, events_text = json_text(body), json_text(said)
        answer = {"game": body, "op_id": op_id, "events": said}
        text = f'{{"game":{game_text},"op_id":{json_text(op_id)},"events":{events_text}}}'
        future = self.commits.submit(PendingAction(
            after.id, after.version, op_id, action.to_json(), answer, change.row,
            change.drop_from, text))
        after.ops[op_id] = (answer, future)
        ops, logged = after.ops, after.logged
        future.add_done_callback(lambda f: _committed(f, op_id, ops, logged))
        committed = ActionCommitted(after, events, game_text, events_text,
                                    after.id == self.current_id)
        return Accepted(answer, future, committed, text)


def _committed(future: Future[None], op_id: str,
               ops: dict[str, tuple[Answer, Future[None]]], logged: set[str]) -> None:
    """From the writer thread: an op on disk joins `logged` before it leaves `ops`, so a
    repeat seen in neither is new."""
    if future.exception() is None:
        logged.add(op_id)
    ops.pop(op_id, None)
