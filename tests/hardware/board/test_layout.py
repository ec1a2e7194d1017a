"""The board layout: holes for scores, the LED map, rendering and reading it back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.board.layout import (
    BACK_PEG_DIVISOR,
    CODE_RGB,
    PALETTES,
    SKUNK_RGB,
    BoardLayout,
    scale,
)
from hardware.errors import BoardError, ConfigurationError
from hardware.interfaces import BoardState, TrackPegs


def leds_of(frame: bytearray) -> list[tuple[int, int, int]]:
    return [tuple(frame[i : i + 3]) for i in range(0, len(frame), 3)]


@pytest.mark.parametrize(
    ("holes", "target", "score", "hole"),
    [
        (120, 121, 0, 0), (120, 121, 1, 1), (120, 121, 120, 120), (120, 121, 121, 121),
        (60, 121, 60, 60), (60, 121, 61, 1), (60, 121, 120, 60), (60, 121, 121, 61),
        (60, 61, 60, 60), (60, 61, 61, 61), (120, 61, 61, 121),
    ],
)
def test_score_maps_to_hole(holes, target, score, hole):
    assert BoardLayout(holes=holes).hole_for_score(score, target) == hole


def test_default_map_is_a_serpentine_strip():
    layout = BoardLayout(tracks=3, holes=60)
    assert layout.led_count == 3 * 62
    assert layout.index(0, 0) == 0 and layout.index(0, 61) == 61
    assert layout.index(1, 0) == 123 and layout.index(1, 61) == 62  # runs back
    assert layout.index(2, 0) == 124


def test_led_map_from_configuration_is_used_and_checked():
    rows = (tuple(range(61, -1, -1)), tuple(range(62, 124)))
    layout = BoardLayout(holes=60, led_map=rows, led_count=130)
    assert layout.index(0, 0) == 61 and layout.led_count == 130
    with pytest.raises(ConfigurationError, match="same LED"):
        BoardLayout(holes=60, led_map=(tuple(range(62)), tuple(range(62))))
    with pytest.raises(ConfigurationError, match="rows of 62"):
        BoardLayout(holes=60, led_map=(tuple(range(62)),))
    with pytest.raises(ConfigurationError, match="60 holes"):
        BoardLayout(holes=100)


def test_front_and_back_peg_are_drawn_differently_in_the_players_colour():
    layout = BoardLayout()
    state = BoardState(tracks=(TrackPegs(30, 22), TrackPegs(5, 0)), brightness=255)
    leds = leds_of(layout.render(state))
    red = PALETTES["classic"][0]
    assert leds[layout.index(0, 30)] == red
    assert leds[layout.index(0, 22)] == scale(red, 255, BACK_PEG_DIVISOR)
    assert leds[layout.index(0, 22)] != leds[layout.index(0, 30)]
    assert leds[layout.index(1, 5)] == PALETTES["classic"][1]


def test_colourblind_palette_changes_the_peg_colours():
    layout = BoardLayout()
    a = BoardState(tracks=(TrackPegs(3, 1),), brightness=255)
    b = BoardState(tracks=(TrackPegs(3, 1),), brightness=255, palette="colorblind")
    assert leds_of(layout.render(b))[layout.index(0, 3)] == PALETTES["colorblind"][0]
    assert layout.render(a) != layout.render(b)


def test_skunk_lines_are_drawn_as_the_state_gives_them_and_pegs_draw_over_them():
    layout = BoardLayout()
    leds = leds_of(layout.render(BoardState(tracks=(TrackPegs(91, 61),), lines=(91, 61))))
    marked = {h for h in range(122) if leds[layout.index(1, h)] != (0, 0, 0)}
    assert marked == {61, 91}
    assert leds[layout.index(1, 61)] == SKUNK_RGB
    assert leds[layout.index(0, 91)] == scale(PALETTES["classic"][0], 128)


@pytest.mark.parametrize(("target", "lines", "holes"), [
    (121, (), set()), (121, (61,), {61}), (61, (31,), {31}), (1000, (751, 501), {31, 21}),
])
def test_the_layout_computes_no_line_itself(target, lines, holes):
    layout = BoardLayout()
    leds = leds_of(layout.render(BoardState(tracks=(TrackPegs(),), target=target,
                                            lines=lines)))
    marked = {h for h in range(1, 121) if leds[layout.index(1, h)] != (0, 0, 0)}
    assert marked == holes


def test_the_skunk_marker_is_never_a_peg_or_the_code_white_at_any_brightness():
    # A dim white marker once read back as a pairing-code digit at brightness 24.
    for b in range(256):
        for divisor in (1, BACK_PEG_DIVISOR):
            assert scale(CODE_RGB, b, divisor) != SKUNK_RGB, b
            for palette in PALETTES.values():
                for colour in palette:
                    assert scale(colour, b, divisor) != SKUNK_RGB, (colour, b, divisor)


def test_pairing_code_lights_one_hole_per_group_of_ten():
    layout = BoardLayout()
    leds = leds_of(layout.render(BoardState(tracks=(TrackPegs(5, 0),), code="907")))
    lit = [h for h in range(122) if leds[layout.index(0, h)] != (0, 0, 0)]
    assert lit == [10, 11, 28]  # 9 in holes 1-10, 0 in 11-20, 7 in 21-30


def test_check_refuses_what_the_board_cannot_show():
    layout = BoardLayout(holes=60)
    with pytest.raises(BoardError, match="3 tracks; this board has 2"):
        layout.check(BoardState(tracks=(TrackPegs(),) * 3))
    with pytest.raises(BoardError, match="shows 1 to 6"):
        layout.check(BoardState(code="1234567"))
    with pytest.raises(BoardError, match="palette"):
        layout.check(BoardState(palette="neon"))


@given(
    st.lists(st.tuples(st.integers(0, 121), st.integers(0, 29)), min_size=1, max_size=3),
    st.sampled_from([60, 120]),
    st.integers(1, 255),
    st.none() | st.text("0123456789", min_size=1, max_size=6),
    st.sampled_from([(), (61,), (91, 61)]),
)
def test_decode_reads_back_what_render_drew(pegs, holes, brightness, code, lines):
    layout = BoardLayout(tracks=3, holes=holes)
    tracks = tuple(TrackPegs(front=f, back=max(0, f - d)) for f, d in pegs)
    state = BoardState(tracks=tracks, brightness=brightness, code=code, lines=lines)
    hint = BoardState(tracks=tracks, brightness=brightness, code=code, lines=lines)
    got_tracks, got_code = layout.decode(leds_of(layout.render(state)), hint)
    assert got_code == code
    assert got_tracks == tracks


def test_decode_with_skunk_lines_at_low_brightness_reads_no_code():
    # The case hypothesis found: one peg at 0, 60 holes, brightness 24, no code.
    layout = BoardLayout(tracks=3, holes=60)
    state = BoardState(tracks=(TrackPegs(0, 0),), brightness=24, lines=(91, 61))
    assert layout.decode(leds_of(layout.render(state)), state) == (state.tracks, None)


def test_decode_reports_what_the_leds_show_not_what_the_board_claims():
    layout = BoardLayout()
    shown = BoardState(tracks=(TrackPegs(40, 30), TrackPegs(9, 2)), brightness=255)
    claimed = BoardState(tracks=(TrackPegs(44, 40), TrackPegs(9, 2)), brightness=255)
    tracks, _ = layout.decode(leds_of(layout.render(shown)), claimed)
    assert tracks[0] == TrackPegs(40, 30)
