"""The daemon's components, built and wired in one visible function: `build_services`.

Start order: store, event hub, games, devices (a first attempt each, never fatal), inputs,
board, health. Stop order is the reverse: health first, then the devices (motor off, board
state kept), the store last.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from firmware_host.auth import Pairing, Tokens
from firmware_host.components.board import BoardView
from firmware_host.components.devices import Devices, ManagedDevice
from firmware_host.components.events import EventHub
from firmware_host.components.factories import device_factories, pin_factory_in_use
from firmware_host.components.games import GameEntry, GameService
from firmware_host.components.health import Health
from firmware_host.components.inputs import BOARD_INPUT_KINDS, TableInputs
from firmware_host.config import Settings
from firmware_host.notify import Notifier
from firmware_host.store import Store
from hardware.board.render import CODE_GROUP
from hardware.interfaces import Clock, DeviceEvent, DeviceState, ShufflerStatus

log = logging.getLogger("crib.daemon")


class Component(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


@dataclass
class Services:
    """Every component the API uses; `start()` and `stop()` run them in `order`."""

    settings: Settings
    store: Store
    tokens: Tokens
    pairing: Pairing
    hub: EventHub
    games: GameService
    devices: Devices
    inputs: TableInputs
    board: BoardView
    health: Health
    notifier: Notifier
    started_at: float = field(default_factory=time.monotonic)

    def order(self) -> list[Component]:
        """Start order; stop is the reverse."""
        return [self.store, self.hub, self.games, self.devices, self.inputs, self.board,
                self.health]

    def start(self) -> None:
        """Start every component, then show the current game on the board."""
        for component in self.order():
            component.start()
        if self.settings.device_mode("shuffler") == "real" or \
                self.settings.device_mode("inputs") == "real":
            log.info("pin factory: %s", pin_factory_in_use())
        self.show_game()

    def stop(self) -> None:
        """Stop in reverse order (devices before the store); a failure is logged."""
        for component in reversed(self.order()):
            try:
                component.stop()
            except Exception as exc:
                log.warning("stopping %s failed: %s", type(component).__name__, exc)

    # -- reactions: the wires between components -------------------------------------------
    def show_game(self) -> None:
        entry = self.games.current()
        self.board.show(entry.keeper if entry is not None else None)

    def on_game_change(self, entry: GameEntry) -> None:
        """After every accepted action and new game: the stream, the board, systemd."""
        self.hub.publish({"type": "game", "game": entry.body()})
        if entry.id == self.games.current_id:
            self.board.show(entry.keeper)
        self.health.changed()

    def on_device_event(self, event: DeviceEvent) -> None:
        """From a device thread: to the stream, then to whoever acts on it."""
        self.hub.publish({"type": "device", "device": event.device, "kind": event.kind,
                          "data": event.data})
        if event.kind == "state":
            self.devices.state_event(event.device)
        if event.device == "shuffler" and self.devices["shuffler"].device is not None:
            self.hub.publish({"type": "shuffler", "shuffler": self.shuffler_json()})
        elif event.device == "inputs" or (event.device == "board"
                                           and event.kind in BOARD_INPUT_KINDS):
            # The board's own buttons speak the input panel's words: the same actions.
            self.inputs.handle(event)

    def touch_shuffler(self) -> None:
        """The touch sensor: start or continue the shuffle (a touch with no shuffler is logged)."""
        self.devices["shuffler"].require().touch()

    def on_device_state(self, name: str, described: dict[str, Any]) -> None:
        """A device's state changed: report it; a board that is back gets everything."""
        self.hub.publish({"type": "device", "device": name, "kind": "state",
                          "data": described})
        if name == "board" and described.get("state") == DeviceState.IDLE.value:
            self.board.show()
        self.health.changed()

    # -- reads --------------------------------------------------------------------------------
    def shuffler_json(self) -> dict[str, Any]:
        managed = self.devices["shuffler"]
        device = managed.device
        if device is None:
            return {"state": managed.state.value, "fault": managed.fault}
        return status_json(device.status())

    def devices_json(self) -> dict[str, Any]:
        return self.devices.describe()

    def snapshot(self) -> dict[str, Any]:
        """Everything a new event-stream subscriber sees first."""
        entry = self.games.current()
        return {
            "game": entry.body() if entry else None,
            "board": self.board.json(),
            "shuffler": self.shuffler_json(),
            "devices": self.devices_json(),
        }

    def healthy(self) -> bool:
        """Whether the store answers."""
        try:
            self.store.schema_version()
        except Exception:
            return False
        return True

    def problems(self) -> list[str]:
        """What makes the daemon degraded, in sentences (empty: nothing): the storage, and a
        board link that lost one direction (heartbeats arrive, its state does not)."""
        problem = self.store.problem()
        out = [problem] if problem else []
        board = self.devices["board"].describe()
        if board.get("degraded"):
            out.append(f"board: {board.get('fault') or 'the link is degraded'}")
        return out

    def status_line(self) -> str:
        """One line of device and game state for systemd's STATUS= (problems first)."""
        problems = self.problems()
        if problems:
            return f"degraded: {'; '.join(problems)}; {self._status_line()}"
        return self._status_line()

    def _status_line(self) -> str:
        entry = self.games.current()
        if entry is None:
            game = "no game"
        else:
            k = entry.keeper
            scores = " ".join(f"{k.side_name(i)} {p.front}" for i, p in enumerate(k.pegs))
            game = f"game {entry.id} {k.phase}: {scores}"
        return f"{self.devices.status_line()}; {game}"

    def uptime(self) -> float:
        return time.monotonic() - self.started_at


def status_json(status: ShufflerStatus) -> dict[str, Any]:
    """The shuffler's status as JSON."""
    data = dataclasses.asdict(status)
    data["state"] = DeviceState(status.state).value
    data["pile_counts"] = list(status.pile_counts)
    return data


def build_services(settings: Settings, *, notifier: Notifier | None = None,
                   clock: Clock | None = None) -> Services:
    """Build every component and wire them together (nothing is started here)."""
    from hardware.clock import SystemClock

    clock = clock or SystemClock()
    notifier = notifier or Notifier()
    s: Services  # the wires below call into it once it exists

    store = Store(settings.db_path)
    tokens = Tokens(store)
    hub = EventHub()
    games = GameService(store, lambda entry: s.on_game_change(entry))
    factories = device_factories(settings, clock)
    pairing = Pairing(tokens, lambda code: s.board.show_code(code),
                      ttl_s=settings.pairing_code_ttl_s, hold_s=settings.undo_hold_s,
                      # as long a code as the board shows (one digit per ten holes), up to 6
                      digits=min(Pairing.DIGITS, settings.board.holes // CODE_GROUP),
                      # the log says the code only where no real board lights it
                      log_code=factories["board"][0] not in ("real", "spi"))
    managed = {
        name: ManagedDevice(name, kind, factory, lambda e: s.on_device_event(e), clock)
        for name, (kind, factory) in factories.items()
    }
    devices = Devices(managed, lambda name, d: s.on_device_state(name, d))
    inputs = TableInputs(games, pairing, touch=lambda: s.touch_shuffler())
    board = BoardView(settings, store, managed["board"], hub.publish)
    health = Health(notifier, lambda: s.healthy(), lambda: s.status_line())
    s = Services(settings, store, tokens, pairing, hub, games, devices, inputs, board, health,
                 notifier)
    store.on_fault = lambda: s.health.changed()  # STATUS= says degraded, and why, at once
    log.info("state directory %s (pid %d)", settings.state_dir, os.getpid())
    return s
