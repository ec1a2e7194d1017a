"""The board's own buttons: debounce and the undo hold on the Pico (CPython and a real
MicroPython give the same events), and the host's words for them (the input panel's)."""

from __future__ import annotations

import ast

import pytest

from hardware.board.firmware.buttons import Buttons, hold_events
from hardware.board.link import BoardInputs, DeviceInput
from hardware.board.protocol import BUTTON_UNDO, EVENT_BUTTON, EVENT_HELD, EVENT_HOLDING

UNDO, TRACK0, TRACK1 = 0, 1, 2


def run(buttons: Buttons, samples: list[tuple[int, list[bool]]]) -> list[tuple[int, int, int]]:
    """(time, kind, arg) of every event, feeding (time, levels) samples in order."""
    return [(t, kind, arg) for t, levels in samples for kind, arg in buttons.update(levels, t)]


def bouncy_press(button: int, count: int, start: int, down_ms: int, step: int = 1):
    """A press that chatters for 6 ms at both edges (levels sampled every `step` ms)."""
    chatter = [True, False, True, True, False, True]
    samples = []
    for t in range(start, start + down_ms + 40, step):
        dt = t - start
        if dt < len(chatter):
            on = chatter[dt]
        elif dt < down_ms:
            on = True
        elif dt - down_ms < len(chatter):
            on = not chatter[dt - down_ms]
        else:
            on = False
        levels = [False] * count
        levels[button] = on
        samples.append((t, levels))
    return samples


def test_a_bouncy_press_of_a_track_button_is_one_press_when_it_settles():
    buttons = Buttons(3)
    events = run(buttons, bouncy_press(TRACK1, 3, 100, 200))
    # Raw edges at 100..105; the level is steady from 105, taken 20 ms later.
    assert events == [(125, EVENT_BUTTON, TRACK1)]
    assert buttons.level == [False, False, False]


def test_a_glitch_shorter_than_the_bounce_time_is_no_press():
    buttons = Buttons(3)
    samples = [(t, [False, t in range(50, 65), False]) for t in range(0, 200, 5)]
    assert run(buttons, samples) == []


def test_a_short_press_of_undo_is_an_undo_when_let_go():
    buttons = Buttons(2)
    events = run(buttons, bouncy_press(UNDO, 2, 0, 300))
    assert events == [(325, EVENT_BUTTON, BUTTON_UNDO)]  # at the release, not the press


def test_holding_undo_reports_the_time_held_while_down_then_at_release():
    buttons = Buttons(3)
    assert hold_events(buttons, UNDO, 3200) == [
        (EVENT_HOLDING, 5), (EVENT_HOLDING, 10), (EVENT_HOLDING, 15), (EVENT_HOLDING, 20),
        (EVENT_HOLDING, 25), (EVENT_HOLDING, 30), (EVENT_HELD, 32)]
    # The next press starts afresh.
    assert hold_events(buttons, UNDO, 200, start_ms=10_000) == [(EVENT_BUTTON, BUTTON_UNDO)]


def test_a_long_hold_stops_reporting_at_25_5_s_and_the_loop_may_lag():
    buttons = Buttons(1)
    events = hold_events(buttons, UNDO, 40_000, step_ms=700)  # a slow loop: 700 ms a turn
    held = [arg for kind, arg in events if kind == EVENT_HOLDING]
    assert held == sorted(held) and held[-1] <= 255 and len(held) <= 51
    assert events[-1] == (EVENT_HELD, 255)


def test_next_deadline_says_when_a_settling_edge_or_a_hold_report_is_due():
    buttons = Buttons(2)
    assert buttons.next_deadline(0) is None
    buttons.update([True, False], 1000)
    assert buttons.next_deadline(1000) == 1020  # the press settles
    buttons.update([True, False], 1020)
    assert buttons.next_deadline(1020) == 1500  # the first hold report


@pytest.mark.parametrize("bad", [{"count": 0}, {"count": 2, "bounce_ms": -1},
                                 {"count": 2, "hold_report_ms": 10}])
def test_bad_settings_are_refused_by_name(bad):
    with pytest.raises(ValueError):
        Buttons(**bad)


# --- under a real MicroPython -------------------------------------------------------------


def test_micropython_debounces_and_times_holds_as_cpython_does():
    from hardware.board.wasm import new_session

    samples = (bouncy_press(TRACK0, 3, 0, 80) + bouncy_press(UNDO, 3, 200, 150)
               + [(t, [t < 4000, False, False]) for t in range(500, 4100, 10)])
    mine = run(Buttons(3), samples)
    code = ("from hardware.board.firmware.buttons import Buttons\n"
            "b = Buttons(3)\nout = []\n"
            f"for t, levels in {[(t, [int(x) for x in lv]) for t, lv in samples]!r}:\n"
            "    for kind, arg in b.update(levels, t):\n"
            "        out.append((t, kind, arg))\n"
            "print(out)")
    session = new_session()
    try:
        theirs = session.run(code).stdout.strip()
    finally:
        session.close()
    assert ast.literal_eval(theirs) == mine
    # A track press, a short undo, then undo held 3.5 s: reported at 0.5 s steps, then let go.
    assert mine[:2] == [(25, EVENT_BUTTON, TRACK0), (375, EVENT_BUTTON, BUTTON_UNDO)]
    assert [a for _, k, a in mine if k == EVENT_HOLDING] == [5, 10, 15, 20, 25, 30]
    assert mine[-1] == (4020, EVENT_HELD, 35)


# --- the host's words ---------------------------------------------------------------------


def ev(kind: str, arg: int, seq: int = 1) -> DeviceInput:
    return DeviceInput(seq, kind, arg)


def translate(inputs: BoardInputs, events: list[DeviceInput]) -> list[tuple[str, dict]]:
    return [out for e in events for out in inputs.translate(e)]


def test_board_buttons_speak_the_input_panels_words():
    inputs = BoardInputs(hold_s=3.0)
    assert translate(inputs, [ev("button", 0), ev("button", 1), ev("button", 3)]) == [
        ("undo", {}), ("button", {"track": 0}), ("button", {"track": 2})]


def test_a_hold_reaching_undo_hold_s_is_undo_held_once_while_still_down():
    inputs = BoardInputs(hold_s=3.0)
    holding = [ev("holding", tenths) for tenths in (5, 10, 15, 20, 25, 30, 35)]
    assert translate(inputs, holding) == [("undo_held", {"seconds": 3.0})]
    assert translate(inputs, [ev("held", 37)]) == []  # said already
    assert translate(inputs, [ev("holding", 5), ev("held", 8)]) == [("undo", {})]  # next press


def test_a_hold_shorter_than_undo_hold_s_is_an_undo_as_on_the_pis_button():
    # issue 11: with hold 5, a hold must still pair; with hold 2 s... a 2.5 s hold pairs.
    five = BoardInputs(hold_s=5.0)
    events = [ev("holding", t) for t in range(5, 50, 5)] + [ev("held", 48)]
    assert translate(five, events) == [("undo", {})]
    assert translate(five, [ev("holding", t) for t in range(5, 55, 5)]) == [
        ("undo_held", {"seconds": 5.0})]
    two = BoardInputs(hold_s=2.0)
    assert translate(two, [ev("holding", 5), ev("holding", 10), ev("held", 25)]) == [
        ("undo_held", {"seconds": 2.5})]


def test_a_board_restart_forgets_the_hold_it_was_timing():
    inputs = BoardInputs(hold_s=1.0)
    assert translate(inputs, [ev("holding", 10)]) == [("undo_held", {"seconds": 1.0})]
    inputs.reset()  # the release never comes: the board restarted
    assert translate(inputs, [ev("holding", 5), ev("held", 6)]) == [("undo", {})]
    with pytest.raises(ValueError, match="above 0"):
        BoardInputs(hold_s=0)
