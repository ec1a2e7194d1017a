"""Measuring a shuffler: feed a deck one card at a time to both piles and time each card's
flight and block at its beam, then fit what the controller needs to expect every card's
time (`crib shuffler calibrate`, and a simulated machine's own timing).

Works on any controller Mechanism (the GPIO driver, the simulated table) and a Clock; no
I/O of its own: `report` receives one line per card.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.shuffler import design
from hardware.shuffler.plan import Pile

# While measuring, nothing is known of the machine yet: budgets wide enough for the slowest
# card speed the configuration takes (50 mm/s), a filter short enough for the fastest.
CALIBRATE_WAIT_S = 5.0
CALIBRATE_FILTER_MS = 2.0


@dataclass(frozen=True, slots=True)
class CardTime:
    """One card measured: its pile, the cards in the tray when it was fed (itself
    included), its flight (motor on to the beam) and its block at the beam (seconds)."""

    pile: Pile
    in_tray: int
    flight_s: float
    block_s: float


class CalibrationError(Exception):
    """A card that could not be measured: the words say which and why."""


def measure_cards(mech: Any, clock: Any, cards: int, *, router_move_s: float,
                  sync: Callable[[], None] | None = None,
                  report: Callable[[CardTime, int], None] | None = None,
                  wait_s: float = CALIBRATE_WAIT_S) -> list[CardTime]:
    """Feed `cards` cards alternately left and right, one at a time, each once the last has
    cleared its beam; returns each card's times. The motor stops (brakes) at each arrival.

    Raises CalibrationError naming the card that did not come, stayed on its beam, or went
    to the other pile.
    """
    out: list[CardTime] = []

    def wait(until: Callable[[], bool]) -> bool:
        start = clock.monotonic()
        while clock.monotonic() - start < wait_s:
            if sync is not None:
                sync()
            nxt = mech.update(clock.monotonic())
            if until():
                return True
            step = 0.0005
            if nxt is not None and sync is None:
                step = min(max(nxt - clock.monotonic(), 1e-5), 0.005)
            clock.sleep(step)
        return False

    for i in range(cards):
        pile = Pile.LEFT if i % 2 == 0 else Pile.RIGHT
        mech.take_arrivals()
        mech.set_router(pile)
        clock.sleep(router_move_s)
        fed_at = clock.monotonic()
        mech.set_motor(True)
        got: list[Pile] = []
        arrived = wait(lambda got=got: bool(got.extend(mech.take_arrivals()) or got))
        mech.set_motor(False)
        if not arrived:
            raise CalibrationError(f"card {i + 1} ({pile.value}): no card at a beam within "
                                   f"{wait_s:g} s (motor stopped)")
        since = mech.blocked_since(got[0])
        if not wait(lambda first=got[0]: mech.blocked_since(first) is None):
            raise CalibrationError(f"card {i + 1}: the {got[0].value} beam stayed blocked")
        block = mech.take_block(got[0])
        got.extend(mech.take_arrivals())
        if got != [pile] or block is None or since is None:
            raise CalibrationError(f"card {i + 1}: sent {pile.value}, sensed "
                                   f"{[p.value for p in got]}: check the flap and the beams")
        card = CardTime(pile, cards - i, since - fed_at, block)
        out.append(card)
        if report is not None:
            report(card, i + 1)
    return out


def _line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a + b x."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def fit_speeds(times: list[CardTime], full_cards: int) -> tuple[float, float, float, float]:
    """Each pile's card speed past its beam (card length over block) with one card in the
    tray and with `full_cards`, from a straight line through the measured cards (the motor's
    speed falls in proportion to the load of the cards over the one fed).

    Raises CalibrationError with fewer than two cards measured.
    """
    if len(times) < 2:
        raise CalibrationError("measure at least two cards")
    out: list[float] = []
    for pile in Pile:
        points = [(c.in_tray, design.CARD_LENGTH_MM / c.block_s) for c in times
                  if c.pile is pile] or [(c.in_tray, design.CARD_LENGTH_MM / c.block_s)
                                         for c in times]
        a, b = _line(points)
        lowest = min(v for _, v in points)
        for n in (1, full_cards):
            out.append(max(a + b * n, 0.5 * lowest))
    return out[0], out[1], out[2], out[3]


def spread(values: list[float]) -> dict[str, float]:
    """min, median, max (ms) and the coefficient of variation of some times (s)."""
    mean = statistics.fmean(values)
    cv = statistics.pstdev(values) / mean if mean else 0.0
    return {"min_ms": round(min(values) * 1000, 2),
            "median_ms": round(statistics.median(values) * 1000, 2),
            "max_ms": round(max(values) * 1000, 2), "cv": round(cv, 4)}


def calibration(times: list[CardTime]) -> dict[str, Any]:
    """What the measurements say: each pile's card speed at one card and at a full tray
    (the deck measured), the slowest card speed (the budgets' speed), the spread from the
    first card to the last, and the settings to write.

    Raises CalibrationError when a pile's blocks stray from its line so far that a single
    card would pass for two.
    """
    from hardware.shuffler.controller import DOUBLE_BLOCK_TRANSITS

    full = max(c.in_tray for c in times)
    speeds = fit_speeds(times, full)
    by_pile = {Pile.LEFT: speeds[:2], Pile.RIGHT: speeds[2:]}
    worst = 0.0
    for c in times:
        one, at_full = by_pile[c.pile]
        v = one + (at_full - one) * (c.in_tray - 1) / max(full - 1, 1)
        worst = max(worst, c.block_s / (design.CARD_LENGTH_MM / v))
    if worst > DOUBLE_BLOCK_TRANSITS * 0.95:
        raise CalibrationError(
            f"one card blocked its beam {worst:.2f} times what its neighbours say: too "
            "uneven to tell one card from two; clean the tyre, check the cards lie flat, "
            "and calibrate again")
    slowest = min(speeds)
    values: dict[str, Any] = {"feed_speed_mm_s": round(slowest, 1),
                              "card_speeds_mm_s": [round(v, 1) for v in speeds],
                              "calibrated_cards": full}
    flights = [c.flight_s for c in times]
    if max(flights) > 1.5 * design.flight_s(slowest):
        # the path or the motor's start is slower than the build's: time the jam from it
        values["card_timeout_s"] = round(3 * max(flights), 3)
    ends = {}
    for pile in Pile:
        mine = [c for c in times if c.pile is pile]
        if mine:  # each pile's first card (the fullest tray) and its last
            ends[pile.value] = [round(mine[0].block_s * 1000, 2), round(mine[-1].block_s * 1000, 2)]
    return {
        "values": values,
        "blocks": spread([c.block_s for c in times]),
        "flights": spread(flights),
        "first_last_block_ms": ends,
        "speeds": {"left": [round(v, 1) for v in speeds[:2]],
                   "right": [round(v, 1) for v in speeds[2:]]},
        "worst_ratio": round(worst, 3),
        "cards": len(times),
    }


def riser_duty(values: dict[str, Any], measured_duty: float = 1.0,
               card_speed_mm_s: float = design.RISER_CARD_SPEED_MM_S) -> dict[str, Any]:
    """The hands-free build's riser: the PWM duty that brings its fastest measured card
    (measured at `measured_duty`) down to `card_speed_mm_s` (1 when it is slower), and the
    calibration's values as the riser will then run them: its card speeds scaled by the duty
    (a DC motor's speed follows its mean voltage; the card's drag in the curl makes the scaled
    speed a little high, never low: the card goes a little slower than said).
    Raises CalibrationError for a duty out of (0, 1].
    """
    if not 0 < measured_duty <= 1:
        raise CalibrationError(f"the riser was measured at a PWM duty of {measured_duty}, "
                               "not within (0, 1]")
    speeds = values.get("card_speeds_mm_s") or [values["feed_speed_mm_s"]]
    full = max(speeds) / measured_duty
    duty = min(1.0, card_speed_mm_s / full) if full > 0 else 1.0
    scale = duty / measured_duty
    out = dict(values)
    out["feed_speed_mm_s"] = round(values["feed_speed_mm_s"] * scale, 1)
    if values.get("card_speeds_mm_s"):
        out["card_speeds_mm_s"] = [round(v * scale, 1) for v in values["card_speeds_mm_s"]]
    if "card_timeout_s" in values:
        out["card_timeout_s"] = round(values["card_timeout_s"] / scale, 3)
    out["riser_duty"] = round(duty, 3)
    return out
