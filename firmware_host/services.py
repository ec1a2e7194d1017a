"""The daemon's components, built in one visible function (`build_services`) and run by a
container that starts and stops them.

Components talk through one dispatcher (`firmware_host.bus.EventBus`): each subscribes, when
it is built, to the events it needs; none calls up into the container. Who sends what:

- GameService: GameStarted, ActionCommitted (after the commit, with the step's events)
- the devices' threads: hardware DeviceEvent; Devices: DeviceChanged (a new state, once)
- BoardView: BoardShown; ShufflerService: ShufflerChanged; the store: StoreFaulted

Start order: store, games, devices (a first attempt each, never fatal), inputs, board,
shuffler, results, club, health. Stop order is the reverse: health first, then the devices (motor
off, board state kept), the store last. The event stream needs no start: the app's lifespan
binds it.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Protocol

from firmware_host.auth import Pairing, Tokens
from firmware_host.bus import EventBus, StoreFaulted
from firmware_host.components.board import BoardView
from firmware_host.components.club import ClubLink
from firmware_host.components.devices import Devices, ManagedDevice
from firmware_host.components.events import EventHub
from firmware_host.components.factories import device_factories, pin_factory_in_use
from firmware_host.components.games import GameService
from firmware_host.components.health import Health, Status
from firmware_host.components.inputs import TableInputs
from firmware_host.components.results import ResultsLog
from firmware_host.components.shuffler import ShufflerService
from firmware_host.config import Settings
from firmware_host.notify import Notifier
from firmware_host.store import Store
from hardware.board.render import CODE_GROUP
from hardware.interfaces import Clock

log = logging.getLogger("crib.daemon")


class Component(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


@dataclass
class Services:
    """Every component the API uses; `start()` and `stop()` run them in `order`."""

    settings: Settings
    bus: EventBus
    store: Store
    tokens: Tokens
    pairing: Pairing
    hub: EventHub
    games: GameService
    devices: Devices
    inputs: TableInputs
    board: BoardView
    shuffler: ShufflerService
    results: ResultsLog
    club: ClubLink
    status: Status
    health: Health
    notifier: Notifier

    def order(self) -> list[Component]:
        """Start order; stop is the reverse."""
        return [self.store, self.hub, self.games, self.devices, self.inputs, self.board,
                self.shuffler, self.results, self.club, self.health]

    def start(self) -> None:
        """Start every component in order."""
        for component in self.order():
            component.start()
        if self.settings.device_mode("shuffler") == "real" or \
                self.settings.device_mode("inputs") == "real":
            log.info("pin factory: %s", pin_factory_in_use())

    def stop(self) -> None:
        """Stop in reverse order (devices before the store); a failure is logged."""
        for component in reversed(self.order()):
            try:
                component.stop()
            except Exception as exc:
                log.warning("stopping %s failed: %s", type(component).__name__, exc)

    def snapshot(self) -> dict[str, Any]:
        """Everything a new event-stream subscriber sees first."""
        entry = self.games.current()
        return {
            "game": entry.body() if entry else None,
            "board": self.board.json(),
            "shuffler": self.shuffler.status(),
            "devices": self.devices.describe(),
        }


def build_services(settings: Settings, *, notifier: Notifier | None = None,
                   clock: Clock | None = None) -> Services:
    """Build every component and subscribe each to its events (nothing is started here).

    The stream subscribes first: a device's event reaches the phones before whoever acts on
    it (the supervisor, the shuffler, the table's inputs), as the order of building says.
    """
    from hardware.clock import SystemClock

    clock = clock or SystemClock()
    notifier = notifier or Notifier()
    bus = EventBus()
    hub = EventHub(bus)
    store = Store(settings.db_path)
    tokens = Tokens(store)
    games = GameService(store, bus)
    factories = device_factories(settings, clock)
    managed = {
        name: ManagedDevice(name, kind, factory, bus.send_event, clock)
        for name, (kind, factory) in factories.items()
    }
    devices = Devices(managed, bus)
    board = BoardView(settings, store, managed["board"], bus)
    shuffler = ShufflerService(settings, managed["shuffler"], bus)
    pairing = Pairing(tokens, board.show_code,
                      ttl_s=settings.pairing_code_ttl_s, hold_s=settings.undo_hold_s,
                      # as long a code as the board shows (one digit per ten holes), up to 6
                      digits=min(Pairing.DIGITS, settings.board.holes // CODE_GROUP),
                      most_digits=settings.board.holes // CODE_GROUP,
                      # the log says the code only where no real board lights it
                      log_code=factories["board"][0] not in ("real", "spi"))
    inputs = TableInputs(games, pairing, touch=shuffler.touch, bus=bus)
    results = ResultsLog(bus)
    club = ClubLink(settings.club, settings.state_dir, store, games, bus)
    status = Status(store, devices, games, club=club)
    health = Health(notifier, status.healthy, status.status_line, bus)
    # STATUS= says degraded, and why, at once.
    store.on_fault = lambda: bus.send_event(StoreFaulted())
    log.info("state directory %s (pid %d)", settings.state_dir, os.getpid())
    return Services(settings, bus, store, tokens, pairing, hub, games, devices, inputs, board,
                    shuffler, results, club, status, health, notifier)
