"""How each device is made: the one place devices are built (real, simulated or absent)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from firmware_host.config import DeviceMode, Settings
from hardware.interfaces import Clock, Device, InputPanel, PegBoard, Shuffler

if TYPE_CHECKING:
    from hardware.board.layout import BoardLayout

DEVICE_NAMES = ("board", "shuffler", "inputs")

Made = tuple[Device, Callable[[], None]]


def _noop() -> None:
    return None


def _layout(settings: Settings) -> BoardLayout:
    from hardware.board.layout import BoardLayout

    # led_map draws the SPI strip, and decodes a Pico's read-back (its LED_MAP must match)
    return BoardLayout(tracks=settings.board.tracks, holes=settings.board.holes,
                       led_map=settings.board.led_map_tuple)


def _board_real(settings: Settings, clock: Clock) -> tuple[PegBoard, Callable[[], None]]:
    from hardware.board.host import SerialPegBoard

    # the board's undo button is judged with the same undo_hold_s as the Pi's
    return SerialPegBoard(settings.board.port, _layout(settings), clock,
                          hold_s=settings.undo_hold_s), _noop


def _board_sim(settings: Settings, clock: Clock) -> tuple[PegBoard, Callable[[], None]]:
    # The simulated microcontroller on a pty, driven by the real host driver.
    from hardware.board.host import SerialPegBoard
    from hardware.board.simulator import BoardSimulator

    layout = _layout(settings)
    sim = BoardSimulator(layout, clock)
    path = sim.open_pty()
    try:
        board = SerialPegBoard(path, layout, clock, hold_s=settings.undo_hold_s)
    except Exception:
        sim.close()
        raise
    board.simulator = sim  # type: ignore[attr-defined]  # tests and logs read the LEDs
    return board, sim.close


def _board_spi(settings: Settings, clock: Clock) -> tuple[PegBoard, Callable[[], None]]:
    # No microcontroller: the strip on this Pi's SPI0 MOSI (board.mode = "spi").
    from hardware.board.spi import SpiPegBoard

    s = settings.board
    return SpiPegBoard(_layout(settings), clock, device=s.spi_device,
                       colour_order=s.colour_order, budget_a=s.power_budget_a), _noop


def _shuffler_real(settings: Settings, clock: Clock) -> tuple[Shuffler, Callable[[], None]]:
    s = settings.shuffler
    pins = dict(s.pins)
    if s.hands_free:  # the drop shaft's riser, lid, doors and load cell besides the feed
        from hardware import pins as pin_table
        from hardware.shuffler.gpio import HandsFreeGpioShuffler

        pins = pin_table.handsfree_defaults() | pins  # the riser's and lid's unless named
        return HandsFreeGpioShuffler(pins, clock, timing=s.timing(),
                                     sensor_filter_ms=s.sensor_filter_ms,
                                     touch_deck=settings.shuffle.deck,
                                     touch_plan=settings.shuffle.plan,
                                     **s.measured()
                                     | ({} if s.riser_duty is None
                                        else {"riser_duty": s.riser_duty})), _noop
    from hardware.shuffler.gpio import GpioShuffler
    return GpioShuffler(pins, clock, timing=s.timing(), sensor_filter_ms=s.sensor_filter_ms,
                        touch_deck=settings.shuffle.deck, touch_plan=settings.shuffle.plan), _noop


def _shuffler_sim(settings: Settings, clock: Clock) -> tuple[Shuffler, Callable[[], None]]:
    from hardware.clock import PacedClock

    s = settings.shuffler
    # The simulated machine keeps its own time, paced to run `speed` times faster than real
    # time: the daemon's thread delays then never become machine time (a false fault).
    paced = PacedClock(s.speed)
    if s.hands_free:
        from hardware.shuffler.handsfree_machine import SimulatedHandsFreeShuffler

        stall = ({} if s.simulate_stall_at is None else
                 {"stall_at": s.simulate_stall_at, "stall_frees": False})
        return SimulatedHandsFreeShuffler(paced, jam_at=s.simulate_jam_at,
                                          touch_deck=settings.shuffle.deck,
                                          touch_plan=settings.shuffle.plan, **stall), _noop
    from hardware.shuffler.simulator import SimulatedShuffler

    return SimulatedShuffler(paced, jam_at=s.simulate_jam_at), _noop


def _inputs_real(settings: Settings, clock: Clock) -> tuple[InputPanel, Callable[[], None]]:
    from hardware.inputs import GpioInputPanel

    # one undo_hold_s for the button and for pairing
    return GpioInputPanel(settings.inputs.mapping(), clock, hold_s=settings.undo_hold_s,
                          bounce_ms=settings.inputs.bounce_ms), _noop


def _inputs_sim(settings: Settings, clock: Clock) -> tuple[InputPanel, Callable[[], None]]:
    from hardware.inputs import SimulatedInputPanel

    return SimulatedInputPanel(hold_s=settings.undo_hold_s), _noop


_MAKERS: dict[str, tuple[Callable[[Settings, Clock], Made], Callable[[Settings, Clock], Made]]] = {
    "board": (_board_real, _board_sim),
    "shuffler": (_shuffler_real, _shuffler_sim),
    "inputs": (_inputs_real, _inputs_sim),
}


def device_factories(
    settings: Settings, clock: Clock
) -> dict[str, tuple[str, Callable[[], Made] | None]]:
    """(kind, factory) per device name; kind is real, simulated, spi (the board) or absent."""
    out: dict[str, tuple[str, Callable[[], Made] | None]] = {}
    for name in DEVICE_NAMES:
        mode = settings.device_mode(name)
        real, sim = _MAKERS[name]
        if mode == DeviceMode.ABSENT:
            out[name] = ("absent", None)
        elif mode == DeviceMode.REAL:
            out[name] = ("real", lambda make=real: make(settings, clock))
        elif name == "board" and mode == "spi":
            out[name] = ("spi", lambda: _board_spi(settings, clock))
        else:
            out[name] = ("simulated", lambda make=sim: make(settings, clock))
    return out


def pin_factory_in_use() -> str:
    """The gpiozero pin factory the real GPIO devices chose, in words (public API only).

    gpiozero picks its factory when the first pin is made; until then there is none to
    name, and choosing one here would change the global that every device then shares.
    """
    gpiozero = sys.modules.get("gpiozero")
    if gpiozero is None:
        return "none (no GPIO device opened)"
    factory = gpiozero.Device.pin_factory
    return type(factory).__name__ if factory is not None else "not chosen yet"
