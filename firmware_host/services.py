"""The daemon's services, built and wired in one function: `build_services(settings)`.

Start order: store, tokens and pairing, event hub, games, devices (board, shuffler,
inputs; a first attempt each, never fatal). Stop order is the reverse: devices first
(motor off, board state kept), the store last.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from firmware_host.auth import Pairing, Tokens
from firmware_host.config import DeviceMode, Settings
from firmware_host.errors import (
    BadRequestError,
    DeviceUnavailableError,
    IllegalActionError,
    StaleVersionError,
)
from firmware_host.notify import Notifier
from firmware_host.store import CommitQueue, PendingAction, Store, StoreError
from hardware.interfaces import BoardState, DeviceEvent, DeviceState, TrackPegs

log = logging.getLogger("crib.daemon")
device_log = logging.getLogger("crib.device")
game_log = logging.getLogger("crib.game")

DEVICE_NAMES = ("board", "shuffler", "inputs")


# -- event stream
class EventHub:
    """Ordered events for `/api/events`: every message gets the next `seq`.

    `publish` may be called from any thread; delivery happens on the daemon's event loop,
    so a subscriber's snapshot and the deltas after it are never interleaved wrongly.
    """

    QUEUE_SIZE = 1000

    def __init__(self) -> None:
        self.seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: set[asyncio.Queue[dict[str, Any] | None]] = set()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def start(self) -> None:
        """Nothing to open; the loop is bound by the app's lifespan."""

    def stop(self) -> None:
        for q in list(self._queues):
            with _suppress():
                q.put_nowait(None)
        self._queues.clear()
        self._loop = None

    def publish(self, message: dict[str, Any]) -> None:
        """Queue a message for every subscriber (thread-safe)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._deliver(message)
        else:
            loop.call_soon_threadsafe(self._deliver, message)

    def _deliver(self, message: dict[str, Any]) -> None:
        self.seq += 1
        out = {**message, "seq": self.seq}
        for q in list(self._queues):
            try:
                q.put_nowait(out)
            except asyncio.QueueFull:
                # A client that does not read is dropped; it reconnects and gets a snapshot.
                self._queues.discard(q)
                q.get_nowait()
                q.put_nowait(None)

    def subscribe(
        self, snapshot: Callable[[], dict[str, Any]]
    ) -> tuple[dict[str, Any], asyncio.Queue[dict[str, Any] | None]]:
        """A snapshot stamped with the current seq and a queue of what follows it (on the loop)."""
        q: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(self.QUEUE_SIZE)
        snap = {"type": "snapshot", **snapshot(), "seq": self.seq}
        self._queues.add(q)
        return snap, q

    def unsubscribe(self, q: asyncio.Queue[dict[str, Any] | None]) -> None:
        self._queues.discard(q)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


# -- devices
DeviceFactory = Callable[[], tuple[Any, Callable[[], None]]]


class ManagedDevice:
    """One device under supervision: created, started, retried until it is there.

    A factory that fails (no module, no port, driver error) leaves the device ABSENT with
    the reason, and a background thread retries with capped backoff. A device that is
    there but LOST retries by itself; when it comes back the daemon sends it the state.
    """

    RETRY_MIN_S = 1.0
    RETRY_MAX_S = 30.0

    def __init__(
        self, name: str, kind: str, factory: DeviceFactory | None,
        on_event: Callable[[DeviceEvent], None],
    ) -> None:
        self.name = name
        self.kind = kind  # real, simulated or absent
        self.factory = factory
        self.on_event = on_event
        self.device: Any = None
        self.fault: str | None = None if factory else "configured absent"
        self._cleanup: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def state(self) -> DeviceState:
        device = self.device
        if device is None:
            return DeviceState.STOPPED if self._stop.is_set() else DeviceState.ABSENT
        try:
            return DeviceState(device.state)
        except Exception:  # a driver bug must not take the daemon down
            return DeviceState.FAULT

    def _attempt(self) -> bool:
        assert self.factory is not None
        try:
            device, cleanup = self.factory()
            device.subscribe(self.on_event)
            device.start()
        except Exception as exc:
            self.fault = f"{type(exc).__name__}: {exc}"
            return False
        with self._lock:
            if self._stop.is_set():
                device.stop()
                cleanup()
                return True
            self.device, self._cleanup, self.fault = device, cleanup, None
        return True

    def start(self) -> None:
        """The first attempt (synchronous); on failure, keep retrying in the background."""
        if self.factory is None or self.device is not None:
            return
        self._stop.clear()
        if not self._attempt():
            device_log.warning("%s not available (%s); retrying", self.name, self.fault)
            self._thread = threading.Thread(target=self._retry, name=f"retry-{self.name}",
                                            daemon=True)
            self._thread.start()

    def _retry(self) -> None:
        delay = self.RETRY_MIN_S
        while not self._stop.wait(delay):
            if self._attempt():
                device_log.info("%s is back", self.name)
                return
            delay = min(delay * 2, self.RETRY_MAX_S)

    def stop(self) -> None:
        """Stop the device (motor off, board state kept) and any retrying; idempotent."""
        self._stop.set()
        with self._lock:
            device, cleanup = self.device, self._cleanup
            self.device = self._cleanup = None
        if device is not None:
            try:
                device.stop()
            except Exception as exc:
                device_log.warning("%s did not stop cleanly: %s", self.name, exc)
        if cleanup is not None:
            try:
                cleanup()
            except Exception as exc:
                device_log.warning("%s cleanup failed: %s", self.name, exc)
        if self._thread is not None:
            self._thread.join(timeout=2)

    def describe(self) -> dict[str, Any]:
        device = self.device
        if device is not None:
            try:
                return {**device.describe(), "kind": self.kind, "state": self.state.value}
            except Exception as exc:
                return {"state": DeviceState.FAULT.value, "kind": self.kind, "fault": str(exc)}
        return {"state": self.state.value, "kind": self.kind, "fault": self.fault}

    def require(self) -> Any:
        """The device; raises DeviceUnavailableError when it is not there."""
        device = self.device
        if device is None:
            raise DeviceUnavailableError(
                f"the {self.name} is {self.state.value}" + (f": {self.fault}" if self.fault else "")
            )
        return device


def _layout(settings: Settings) -> Any:
    from hardware.board.layout import BoardLayout

    return BoardLayout(tracks=settings.board.tracks, holes=settings.board.holes)


def build_device_factories(
    settings: Settings, clock: Any
) -> dict[str, tuple[str, DeviceFactory | None]]:
    """How each device is made: (kind, factory) per name. The one place devices are built."""
    out: dict[str, tuple[str, DeviceFactory | None]] = {}

    def noop() -> None:
        return None

    def board_real() -> tuple[Any, Callable[[], None]]:
        from hardware.board.host import SerialPegBoard

        return SerialPegBoard(settings.board.port, _layout(settings), clock), noop

    def board_sim() -> tuple[Any, Callable[[], None]]:
        # The simulated microcontroller on a pty, driven by the real host driver.
        from hardware.board.host import SerialPegBoard
        from hardware.board.simulator import BoardSimulator

        layout = _layout(settings)
        sim = BoardSimulator(layout, clock)
        path = sim.open_pty()
        try:
            board = SerialPegBoard(path, layout, clock)
        except Exception:
            sim.close()
            raise
        board.simulator = sim  # the daemon's tests and logs look at the simulated LEDs
        return board, sim.close

    def shuffler_real() -> tuple[Any, Callable[[], None]]:
        from hardware.shuffler.gpio import GpioShuffler

        return GpioShuffler(settings.shuffler.pins, clock), noop

    def shuffler_sim() -> tuple[Any, Callable[[], None]]:
        from hardware.shuffler.simulator import SimulatedShuffler


        return SimulatedShuffler(clock, speed=settings.shuffler.speed,
                                 jam_at=settings.shuffler.simulate_jam_at), noop

    def inputs_real() -> tuple[Any, Callable[[], None]]:
        from hardware.inputs import GpioInputPanel

        return GpioInputPanel(settings.inputs.mapping(), clock), noop

    def inputs_sim() -> tuple[Any, Callable[[], None]]:
        from hardware.inputs import SimulatedInputPanel

        return SimulatedInputPanel(), noop

    table = {
        "board": (board_real, board_sim),
        "shuffler": (shuffler_real, shuffler_sim),
        "inputs": (inputs_real, inputs_sim),
    }
    for name in DEVICE_NAMES:
        mode = settings.device_mode(name)
        real, sim = table[name]
        if mode == DeviceMode.ABSENT:
            out[name] = ("absent", None)
        elif mode == DeviceMode.REAL:
            out[name] = ("real", real)
        else:
            out[name] = ("simulated", sim)
    return out


def describe_pin_factory(settings: Settings) -> str:
    """The gpiozero pin factory the real GPIO devices will use, in words."""
    if not any(settings.device_mode(n) == DeviceMode.REAL for n in ("shuffler", "inputs")):
        return "none (no real GPIO device configured)"
    try:
        from gpiozero import Device

        factory = Device.pin_factory or Device._default_pin_factory()
        Device.pin_factory = factory
        return type(factory).__name__
    except Exception as exc:
        return f"unavailable ({type(exc).__name__}: {exc})"


def json_text(value: Any) -> str:
    """Compact JSON, as the API's responses are encoded (starlette's JSONResponse)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":"))


# -- games
PEGGING_TYPES = frozenset({"peg", "play", "go", "heels"})


def _keeper_class() -> Any:
    from cribbage import Keeper

    return Keeper


@dataclass
class GameEntry:
    """A game in memory: its Keeper (the fold of its log) and what the statistics need."""

    id: int
    params: dict[str, Any]
    keeper: Any
    version: int = 0
    effective: list[dict[str, Any]] = field(default_factory=list)
    redo: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    # Answers of actions whose commit is under way, by op id (removed once on disk).
    ops: dict[str, tuple[dict[str, Any], Future[None]]] = field(default_factory=dict)
    # Op ids of the actions on disk: only a repeated one needs a look in the store.
    logged: set[str] = field(default_factory=set)

    def body(self) -> dict[str, Any]:
        return {**self.view, "id": self.id, "version": self.version}

    def match_game(self) -> int:
        return sum(1 for r in self.effective if r["type"] == "next_game")


def _fronts(view: dict[str, Any]) -> list[int]:
    return [int(s["front"]) for s in view["sides"]]


def track_effect(entry: GameEntry, before: dict[str, Any], after: dict[str, Any],
                 action: dict[str, Any]) -> None:
    """Keep the stack of effective actions (undo pops it, redo pushes back) for statistics."""
    kind = action.get("type")
    if kind == "undo":
        if entry.effective:
            entry.redo.append(entry.effective.pop())
        return
    if kind == "redo":
        if entry.redo:
            entry.effective.append(entry.redo.pop())
        return
    entry.redo.clear()
    deltas = [a - b for a, b in zip(_fronts(after), _fronts(before), strict=False)]
    entry.effective.append({
        "type": kind,
        "match": entry.match_game() + (1 if kind == "next_game" else 0),
        "deltas": deltas,
        "count": before.get("next_count") if kind == "count" else None,
        "hand_number": after.get("hand_number", 0),
    })


def player_figures(entry: GameEntry, view: dict[str, Any], match: int) -> list[dict[str, Any]]:
    """Per-player figures of one game of the match, from the effective actions."""
    result = view.get("result") or {}
    records = [r for r in entry.effective if r["match"] == match]
    hands_played = max((int(r["hand_number"] or 0) for r in records), default=0)
    out = []
    for side_index, side in enumerate(view["sides"]):
        pegging = sum(r["deltas"][side_index] for r in records
                      if r["type"] in PEGGING_TYPES and side_index < len(r["deltas"]))
        for player in side.get("players", [side_index]):
            counts = [(r["count"], r["deltas"][r["count"]["side"]]) for r in records
                      if r["type"] == "count" and r["count"] and r["count"].get("player") == player]
            out.append({
                "name": view["names"][player],
                "player": player,
                "side": side_index,
                "won": result.get("winner") == side_index,
                "skunk": result.get("kind") in ("skunk", "double_skunk", "lurch"),
                "score": side["front"],
                "hands": [p for c, p in counts if c.get("kind") == "hand"],
                "cribs": [p for c, p in counts if c.get("kind") == "crib"],
                "pegging": pegging,
                "hands_played": hands_played,
            })
    return out


class GameService:
    """Games as folds of their logs; every accepted action is committed before it is answered.

    `on_change(entry)` is called after every accepted action and new game.
    """

    CACHE = 32

    def __init__(self, store: Store, on_change: Callable[[GameEntry], None]) -> None:
        self.store = store
        self.on_change = on_change
        self._games: dict[int, GameEntry] = {}
        self._lock = threading.RLock()
        self.current_id: int | None = None
        self.commits = CommitQueue(store)

    def start(self) -> None:
        """Resume the latest game from its log."""
        self.commits.start()
        self.current_id = self.store.latest_game_id()
        if self.current_id is not None:
            entry = self.entry(self.current_id)
            log.info("resumed game %d at version %d", entry.id, entry.version)

    def stop(self) -> None:
        self.commits.stop()
        self._games.clear()

    def _fold(self, game_id: int, upto: int | None = None) -> GameEntry:
        params = self.store.game_params(game_id)
        keeper = _keeper_class().new(**_keeper_args(params))
        entry = GameEntry(game_id, params, keeper, view=keeper.view())
        for row in self.store.actions(game_id, upto):
            entry.logged.add(row.op_id)
            before = entry.view
            entry.keeper = entry.keeper.apply(row.action)
            entry.view = entry.keeper.view()
            entry.version = row.seq
            track_effect(entry, before, entry.view, row.action)
        return entry

    def entry(self, game_id: int) -> GameEntry:
        """A game in memory (folded from its log when not cached); raises NotFoundError."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is None:
                entry = self._fold(game_id)
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

    def create(self, params: dict[str, Any]) -> GameEntry:
        """Start a new game (it becomes current); raises BadRequestError for bad parameters."""
        try:
            keeper = _keeper_class().new(**_keeper_args(params))
        except (ValueError, TypeError, LookupError) as exc:
            raise BadRequestError(f"cannot start that game: {exc}") from None
        with self._lock:
            game_id = self.store.create_game(params)
            entry = GameEntry(game_id, params, keeper, view=keeper.view())
            self._games[game_id] = entry
            self.current_id = game_id
        game_log.info("game %d started: %s, %s", game_id, params.get("variant"),
                      " v ".join(params.get("names", [])))
        self.on_change(entry)
        return entry

    def act(self, game_id: int, version: int, op_id: str, action: dict[str, Any]
            ) -> dict[str, Any]:
        """Apply one action and wait for its commit; returns {"game", "op_id"}.

        Raises NotFoundError, StaleVersionError (409, with the game), IllegalActionError
        (422, with the game), StoreError if it could not be saved; a repeated op_id gets
        the first answer and changes nothing.
        """
        response, future, after, _ = self._accept(game_id, version, op_id, action)
        if future is not None:
            try:
                future.result()
            except Exception as exc:
                self._failed(game_id, exc)
        if after is not None:
            self._accepted(after)
        return response

    async def act_async(self, game_id: int, version: int, op_id: str,
                        action: dict[str, Any]) -> dict[str, Any]:
        """`act` for the event loop: other requests run while the commit is on its way."""
        return (await self._act_async(game_id, version, op_id, action))[0]

    async def act_json(self, game_id: int, version: int, op_id: str,
                       action: dict[str, Any]) -> bytes:
        """`act_async`, answered as its JSON body (the text that was committed with it)."""
        response, text = await self._act_async(game_id, version, op_id, action)
        return (text if text is not None else json_text(response)).encode("utf-8")

    async def _act_async(self, game_id: int, version: int, op_id: str, action: dict[str, Any]
                         ) -> tuple[dict[str, Any], str | None]:
        response, future, after, text = self._accept(game_id, version, op_id, action)
        if future is not None:
            try:
                await asyncio.wrap_future(future)
            except Exception as exc:
                self._failed(game_id, exc)
        if after is not None:
            self._accepted(after)
        return response, text

    def _failed(self, game_id: int, exc: Exception) -> None:
        with self._lock:
            self._games.pop(game_id, None)  # refold from what is really on disk
        log.error("game %d: an action could not be saved: %s", game_id, exc)
        if isinstance(exc, StoreError):
            raise exc
        raise StoreError(f"the action could not be saved: {exc}") from exc

    def _accept(self, game_id: int, version: int, op_id: str, action: dict[str, Any]
                ) -> tuple[dict[str, Any], Future[None] | None, GameEntry | None, str | None]:
        """Check and apply under the lock, queue the commit.

        Returns (answer, commit, new entry, answer as JSON text for a new action).
        """
        with self._lock:
            entry = self.entry(game_id)
            pending = entry.ops.get(op_id)
            if pending is not None:
                return pending[0], pending[1], None, None
            # A committed op id is in `logged` before it leaves `ops` (see _committed).
            prior = self.store.find_op(game_id, op_id) if op_id in entry.logged else None
            if prior is not None:
                if prior.response is not None:
                    return prior.response, None, None, None
                # Logged by an older schema without answers: rebuild it by a fold.
                return ({"game": self._fold(game_id, prior.seq).body(), "op_id": op_id},
                        None, None, None)
            if version != entry.version:
                raise StaleVersionError(
                    f"the game is at version {entry.version}, not {version}: "
                    "someone else changed it first",
                    game=entry.body(),
                )
            try:
                keeper = entry.keeper.apply(action)
            except (ValueError, TypeError, LookupError, AttributeError) as exc:
                # IllegalPlayError is a ValueError; malformed fields also land here.
                raise IllegalActionError(str(exc) or f"{action.get('type')!r} is not allowed now",
                                         game=entry.body()) from None
            before = entry.view
            view = keeper.view()
            trial = GameEntry(entry.id, entry.params, keeper, entry.version + 1,
                              list(entry.effective), list(entry.redo), view, entry.ops,
                              entry.logged)
            track_effect(trial, before, view, action)
            result_row = None
            drop_from = None
            match = trial.match_game()
            if view.get("result") and view.get("result") != before.get("result"):
                result_row = (match, view["result"], player_figures(trial, view, match))
            elif before.get("result") and not view.get("result"):
                drop_from = match if action.get("type") != "next_game" else None
            response = {"game": trial.body(), "op_id": op_id}
            text = json_text(response)
            future = self.commits.submit(PendingAction(
                game_id, trial.version, op_id, action, response, result_row, drop_from, text))
            trial.ops[op_id] = (response, future)
            future.add_done_callback(
                lambda f, t=trial: _committed(f, op_id, t.ops, t.logged))
            self._games[game_id] = trial
        if result_row is not None:
            r = result_row[1]
            names = [s["name"] for s in view["sides"]]
            game_log.info(
                "game %d result: %s beats %s (%s) %s", game_id,
                names[r.get("winner", 0)], names[r.get("loser", 1)] if len(names) > 1 else "-",
                r.get("kind"), "-".join(str(s) for s in r.get("scores", [])),
            )
        return response, future, trial, text

    def _accepted(self, entry: GameEntry) -> None:
        self.on_change(entry)


def _committed(future: Future[None], op_id: str,
               ops: dict[str, tuple[dict[str, Any], Future[None]]], logged: set[str]) -> None:
    """From the writer thread: an op on disk joins `logged` before it leaves `ops`, so a
    repeat seen in neither is new."""
    if future.exception() is None:
        logged.add(op_id)
    ops.pop(op_id, None)


def _keeper_args(params: dict[str, Any]) -> dict[str, Any]:
    args = dict(params)
    if "names" in args:
        args["names"] = tuple(args["names"])
    return {k: v for k, v in args.items() if v is not None or k == "dealer"}


# -- the whole daemon
@dataclass
class Services:
    """Everything the API uses, started and stopped in one visible order."""

    settings: Settings
    store: Store
    tokens: Tokens
    pairing: Pairing
    hub: EventHub
    games: GameService
    devices: dict[str, ManagedDevice]
    notifier: Notifier
    started_at: float = field(default_factory=time.monotonic)
    board_state: BoardState = field(default_factory=BoardState)
    _code: str | None = None
    _device_states: dict[str, str] = field(default_factory=dict)
    _pending_pegs: dict[int, int] = field(default_factory=dict)
    _running: bool = False
    _board_settings: dict[str, Any] | None = None

    def order(self) -> list[Any]:
        """Start order; stop is the reverse."""
        return [self.store, self.hub, self.games, *self.devices.values()]

    def start(self) -> None:
        """Start everything: store, hub, games, then a first attempt at each device."""
        for service in self.order():
            service.start()
        self._running = True
        for name, managed in self.devices.items():
            self._device_states[name] = managed.state.value
            device_log.info("%s (%s): %s%s", name, managed.kind, managed.state.value,
                            f" ({managed.fault})" if managed.fault else "")
        self.show_board()

    def stop(self) -> None:
        """Stop in reverse order: devices first (motor off, board keeps its state)."""
        self._running = False
        for service in reversed(self.order()):
            try:
                service.stop()
            except Exception as exc:
                log.warning("stopping %s failed: %s", type(service).__name__, exc)

    # board ---------------------------------------------------------------------------------
    def show_board(self) -> None:
        """Send the current game's pegs (and any pairing code) to the board."""
        entry = self.games.current()
        s = self.settings.board
        tracks: list[TrackPegs] = []
        target, winner = 121, None
        if entry is not None:
            view = entry.view
            tracks = [TrackPegs(int(d["front"]), int(d["back"])) for d in view["sides"]]
            target = int(view.get("target") or 121)
            result = view.get("result")
            winner = result.get("winner") if result else None
        tracks = (tracks + [TrackPegs()] * s.tracks)[: s.tracks]
        stored = self.board_settings()
        state = BoardState(
            tracks=tuple(tracks), target=target,
            brightness=int(stored.get("brightness", s.brightness)),
            palette=str(stored.get("palette", s.palette)),
            code=self._code, winner=winner,
        )
        self.board_state = state
        board = self.devices["board"].device
        if board is not None:
            try:
                board.show(state)
            except Exception as exc:
                device_log.warning("board refused the state: %s", exc)
        self.hub.publish({"type": "board", "board": board_json(state)})

    def board_settings(self) -> dict[str, Any]:
        """Brightness and palette: saved by the page, else from the configuration."""
        if self._board_settings is None:
            s = self.settings.board
            saved = self.store.get_setting("board", {})
            self._board_settings = {"brightness": s.brightness, "palette": s.palette, **saved}
        return self._board_settings

    def set_board_settings(self, brightness: int | None, palette: str | None) -> dict[str, Any]:
        """Save brightness and palette and show them."""
        current = dict(self.board_settings())
        if brightness is not None:
            current["brightness"] = brightness
        if palette is not None:
            current["palette"] = palette
        self.store.set_setting("board", current)
        self._board_settings = current
        self.show_board()
        return current

    def show_code(self, code: str | None) -> None:
        self._code = code
        self.show_board()

    # events ---------------------------------------------------------------------------------
    def on_game_change(self, entry: GameEntry) -> None:
        self.hub.publish({"type": "game", "game": entry.body()})
        if entry.id == self.games.current_id:
            self.show_board()

    def on_device_event(self, event: DeviceEvent) -> None:
        """From a device thread: forward to the stream, and act on the physical inputs."""
        self.hub.publish({"type": "device", "device": event.device, "kind": event.kind,
                          "data": event.data})
        if event.device == "shuffler":
            managed = self.devices["shuffler"]
            if managed.device is not None:
                self.hub.publish({"type": "shuffler", "shuffler": self.shuffler_json()})
        if event.device == "inputs":
            try:
                self._on_input(event)
            except Exception as exc:  # a refused button press is logged, never fatal
                log.info("input %s ignored: %s", event.kind, exc)

    def _on_input(self, event: DeviceEvent) -> None:
        if event.kind == "undo_held":
            self.pairing.undo_held(float(event.data.get("seconds", 0)))
            return
        entry = self.games.current()
        if entry is None:
            return
        if event.kind == "undo":
            self.games.act(entry.id, entry.version, f"button-{uuid.uuid4()}", {"type": "undo"})
        elif event.kind == "encoder":
            track = int(event.data.get("track", 0))
            self._pending_pegs[track] = max(
                0, self._pending_pegs.get(track, 0) + int(event.data.get("steps", 0))
            )
        elif event.kind == "button":
            track = int(event.data.get("track", 0))
            points = self._pending_pegs.pop(track, 0)
            if points:
                self.games.act(entry.id, entry.version, f"button-{uuid.uuid4()}",
                               {"type": "peg", "side": track, "points": points})

    def shuffler_json(self) -> dict[str, Any]:
        device = self.devices["shuffler"].device
        if device is None:
            return {"state": self.devices["shuffler"].state.value,
                    "fault": self.devices["shuffler"].fault}
        return status_json(device.status())

    def devices_json(self) -> dict[str, Any]:
        return {name: m.describe() for name, m in self.devices.items()}

    def snapshot(self) -> dict[str, Any]:
        entry = self.games.current()
        return {
            "game": entry.body() if entry else None,
            "board": board_json(self.board_state),
            "shuffler": self.shuffler_json(),
            "devices": self.devices_json(),
        }

    # health ---------------------------------------------------------------------------------
    def tick(self) -> bool:
        """Called from the event loop: log device changes, re-show a returned board.

        Returns whether the daemon is healthy (the store answers).
        """
        for name, managed in self.devices.items():
            state = managed.state.value
            old = self._device_states.get(name)
            if state != old:
                self._device_states[name] = state
                level = logging.WARNING if state in ("lost", "fault", "absent") else logging.INFO
                device_log.log(level, "%s: %s -> %s%s", name, old, state,
                               f" ({managed.fault})" if managed.fault else "")
                self.hub.publish({"type": "device", "device": name, "kind": "state",
                                  "data": managed.describe()})
                if name == "board" and state == DeviceState.IDLE.value:
                    self.show_board()  # back after a loss or a reboot: send it everything
        try:
            self.store.schema_version()
        except Exception:
            return False
        return True

    def status_line(self) -> str:
        """One line of device and game state for systemd's STATUS=."""
        devices = ", ".join(f"{n} {m.state.value}" for n, m in self.devices.items())
        entry = self.games.current()
        if entry is None:
            game = "no game"
        else:
            v = entry.view
            scores = " ".join(f"{s['name']} {s['front']}" for s in v["sides"])
            game = f"game {entry.id} {v.get('phase')}: {scores}"
        return f"{devices}; {game}"

    def uptime(self) -> float:
        return time.monotonic() - self.started_at


def board_json(state: BoardState) -> dict[str, Any]:
    """What the board is told to show, for the event stream.

    The pairing code is left out on purpose: pairing proves physical presence, so the code
    is seen only on the board itself (and in the daemon's log on the Pi).
    """
    return {
        "tracks": [{"front": t.front, "back": t.back} for t in state.tracks],
        "target": state.target, "brightness": state.brightness, "palette": state.palette,
        "pairing": state.code is not None, "winner": state.winner,
    }


def status_json(status: Any) -> dict[str, Any]:
    data = dataclasses.asdict(status)
    data["state"] = DeviceState(status.state).value
    data["pile_counts"] = list(status.pile_counts)
    return data


def build_services(settings: Settings, *, notifier: Notifier | None = None,
                   clock: Any = None) -> Services:
    """Build every service and wire them together (nothing is started here)."""
    from hardware.clock import SystemClock

    clock = clock or SystemClock()
    store = Store(settings.db_path)
    tokens = Tokens(store)
    hub = EventHub()
    holder: dict[str, Services] = {}

    def on_change(entry: GameEntry) -> None:
        holder["s"].on_game_change(entry)

    def on_event(event: DeviceEvent) -> None:
        holder["s"].on_device_event(event)

    def show_code(code: str | None) -> None:
        holder["s"].show_code(code)

    games = GameService(store, on_change)
    pairing = Pairing(tokens, show_code, ttl_s=settings.pairing_code_ttl_s,
                      hold_s=settings.undo_hold_s)
    devices = {
        name: ManagedDevice(name, kind, factory, on_event)
        for name, (kind, factory) in build_device_factories(settings, clock).items()
    }
    services = Services(settings, store, tokens, pairing, hub, games, devices,
                        notifier or Notifier())
    holder["s"] = services
    log.info("pin factory: %s", describe_pin_factory(settings))
    log.info("state directory %s (pid %d)", settings.state_dir, os.getpid())
    return services
