"""The board component: what the LED board shows (pegs, lines, pairing code, settings)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from firmware_host.bus import ActionCommitted, BoardShown, DeviceChanged, EventBus, GameStarted
from firmware_host.components.devices import ManagedDevice
from firmware_host.config import Settings
from firmware_host.store import Store
from hardware.interfaces import BoardState, DeviceState, PegBoard, TrackPegs

if TYPE_CHECKING:
    from cribbage.game import Game

log = logging.getLogger("crib.device")

def board_json(state: BoardState) -> dict[str, Any]:
    """What the board is told to show, for the event stream and `GET /api/board`.

    The pairing code is left out on purpose, and so is whether one is lit: pairing proves
    physical presence, so the code is seen only on the board itself (and in the daemon's log
    on the Pi), and phones that did not ask are not told when one is up.
    """
    return {
        "tracks": [{"front": t.front, "back": t.back} for t in state.tracks],
        "target": state.target, "lines": list(state.lines), "brightness": state.brightness,
        "palette": state.palette, "winner": state.winner,
    }


class BoardView:
    """Keeps the board showing the current game: subscribes to new games, committed actions
    of the current game, and the board coming back; sends BoardShown when what a phone sees
    changes."""

    def __init__(self, settings: Settings, store: Store, board: ManagedDevice[PegBoard],
                 bus: EventBus) -> None:
        self.settings = settings
        self.store = store
        self.board = board
        self.bus = bus
        self.state = BoardState()
        self._game: Game | None = None
        self._code: str | None = None
        self._saved: dict[str, Any] | None = None
        self._published: dict[str, Any] | None = None

        bus.register_event_handler(GameStarted, lambda e: self.show(e.entry.game))
        bus.register_event_handler(ActionCommitted, self._committed)
        bus.register_event_handler(DeviceChanged, self._device)

    def _committed(self, event: ActionCommitted) -> None:
        if event.current:
            self.show(event.entry.game)

    def _device(self, event: DeviceChanged) -> None:
        # A board that is back (or found) gets everything at once.
        if event.name == self.board.name and \
                event.described.get("state") == DeviceState.IDLE.value:
            self.show()

    def start(self) -> None:
        """Show the game resumed at start (or an empty board) once the devices are up."""
        self.show()

    def stop(self) -> None:
        """Nothing to close: the board keeps what it shows."""

    def show(self, game: Game | None = None) -> None:
        """Send the game's pegs and lines (and any pairing code) to the board and the stream."""
        if game is not None:
            self._game = game
        k = self._game
        tracks_n = self.settings.board.tracks
        tracks: list[TrackPegs] = []
        target, winner, lines = 121, None, ()
        if k is not None:
            tracks = [TrackPegs(p.front, p.back) for p in k.pegs]
            target, lines = k.target, tuple(k.skunk_lines)
            winner = k.result.winner if k.result is not None else None
        tracks = (tracks + [TrackPegs()] * tracks_n)[:tracks_n]
        saved = self.settings_now()
        state = BoardState(
            tracks=tuple(tracks), target=target, brightness=int(saved["brightness"]),
            palette=str(saved["palette"]), code=self._code, winner=winner, lines=lines,
        )
        self.state = state
        device = self.board.device
        if device is not None:
            try:
                device.show(state)
            except Exception as exc:
                log.warning("board refused the state: %s", exc)
        # The phone that reads the counts aloud goes with the board, so every phone knows.
        shown = {**board_json(state), "speaker": str(saved.get("speaker", ""))}
        if shown != self._published:  # a code lit or put out changes nothing a phone sees
            self._published = shown
            self.bus.send_event(BoardShown(state, shown))

    def show_code(self, code: str | None) -> None:
        """Light a pairing code (None: put it out)."""
        self._code = code
        self.show()

    def settings_now(self) -> dict[str, Any]:
        """Brightness and palette: saved by the page, else from the configuration."""
        if self._saved is None:
            s = self.settings.board
            saved = self.store.get_setting("board", {})
            self._saved = {"brightness": s.brightness, "palette": s.palette, **saved}
        return self._saved

    def save_settings(self, brightness: int | None, palette: str | None,
                      speaker: str | None = None) -> dict[str, Any]:
        """Save brightness, palette and the phone that speaks, and show them."""
        current = dict(self.settings_now())
        if speaker is not None:
            current["speaker"] = speaker
        if brightness is not None:
            current["brightness"] = brightness
        if palette is not None:
            current["palette"] = palette
        self.store.set_setting("board", current)
        self._saved = current
        self.show()
        return current

    def json(self) -> dict[str, Any]:
        return {**board_json(self.state), "speaker": str(self.settings_now().get("speaker", ""))}
