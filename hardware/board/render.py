"""What the LEDs show for a board state: shared word for word by the host and the firmware.

Plain MicroPython (no `from __future__`, dataclasses or typing at run time): the host's
`BoardLayout` (hardware.board.layout) wraps a `Geometry`, and the firmware renders with the
same `render`, so both always agree on every byte of the frame buffer.

A track has `holes` holes (120, or 60 gone round twice for a 121 game) plus a start hole
(hole 0) and a game hole (hole `holes + 1`). A score maps to a hole: 0 is the start hole,
the target (or more) is the game hole, any other score s is hole ((s - 1) % holes) + 1.
"""

# ruff: noqa: UP031  (%-formatting: the firmware's MicroPython runs this module too)

from hardware.errors import ConfigurationError

# Peg colours per track. "colorblind" is from the Okabe-Ito set (orange, blue, yellow),
# told apart by people with any common colour-vision deficiency.
PALETTES = {
    "classic": ((220, 0, 0), (0, 60, 255), (0, 200, 0)),
    "colorblind": ((230, 159, 0), (0, 114, 178), (240, 228, 66)),
}
CODE_RGB = (255, 255, 255)  # pairing code digits and the winner's hole: white, no palette's
# Skunk line marker: dim amber, not dimmed with the brightness. Its channels differ, so it
# can never equal the code white at any brightness (a dim white marker once read back as a
# code digit at brightness 24), and no palette colour scales to it (tests check every one).
SKUNK_RGB = (24, 12, 0)
WAITING_RGB = (0, 0, 24)  # "waiting for the Pi": a dim blue start hole and a slow dot
BACK_PEG_DIVISOR = 4  # the back peg is drawn at a quarter of the front peg's light
CODE_GROUP = 10  # one code digit per ten holes: the lit hole's place in the group is the digit
MAX_LEDS = 0xFFFF
MAX_TARGET = 1000  # the game's largest target
MAX_SCORE = 0x7FFF  # the link's largest score (protocol.MAX_SCORE)


def scale(rgb, brightness, divisor=1):
    """A colour at a brightness 0..255 (and divided, for the back peg)."""
    return (
        rgb[0] * brightness // 255 // divisor,
        rgb[1] * brightness // 255 // divisor,
        rgb[2] * brightness // 255 // divisor,
    )


class Geometry:
    """Tracks, holes and the LED index of every hole. Raises ConfigurationError (ValueError).

    `led_map` gives per track the LED index of each hole 0..holes+1; None means the default
    serpentine strip (track 0 forwards, track 1 backwards, ...). `led_count` None means
    exactly the mapped LEDs.
    """

    def __init__(self, tracks=2, holes=120, led_map=None, led_count=None):
        if tracks not in (1, 2, 3):
            raise ConfigurationError("a board has 1 to 3 tracks, not %r" % (tracks,))
        if holes not in (60, 120):
            raise ConfigurationError(
                "a track has 60 holes (twice round) or 120 holes, not %r" % (holes,))
        per = holes + 2
        if led_map is None:
            index = []
            for t in range(tracks):
                if t % 2 == 0:
                    index.append(tuple(t * per + h for h in range(per)))
                else:
                    index.append(tuple(t * per + per - 1 - h for h in range(per)))
        else:
            index = [tuple(int(i) for i in row) for row in led_map]
            if len(index) != tracks or any(len(row) != per for row in index):
                raise ConfigurationError(
                    "led_map needs %d rows of %d LED indexes (start hole, %d holes, game hole)"
                    % (tracks, per, holes))
        flat = [i for row in index for i in row]
        count = led_count if led_count is not None else max(flat) + 1
        if len(set(flat)) != len(flat):
            raise ConfigurationError("led_map gives the same LED to two holes")
        if min(flat) < 0 or max(flat) >= count:
            raise ConfigurationError("led_map has an LED index outside 0..%d" % (count - 1))
        if count > MAX_LEDS:
            raise ConfigurationError("%d LEDs is more than the link can address" % count)
        self.tracks = tracks
        self.holes = holes
        self.led_count = count
        self.index = tuple(index)

    def hole_for_score(self, score, target=121):
        """The hole a peg at `score` stands in: 0 start, holes+1 the game hole."""
        if score <= 0:
            return 0
        if score >= target:
            return self.holes + 1
        return (score - 1) % self.holes + 1

    def max_code_digits(self):
        """How many pairing-code digits fit on track 0 (one per ten holes)."""
        return self.holes // CODE_GROUP

    def check(self, state, max_target=MAX_TARGET, max_score=MAX_SCORE):
        """A sentence naming why this board cannot show `state`, or None if it can."""
        if len(state.tracks) > self.tracks:
            return "the state has %d tracks; this board has %d" % (len(state.tracks), self.tracks)
        if not 1 <= state.target <= max_target:
            return "target %d is outside 1..%d" % (state.target, max_target)
        for t in range(len(state.tracks)):
            pegs = state.tracks[t]
            for name, score in (("front", pegs.front), ("back", pegs.back)):
                if not 0 <= score <= max_score:
                    return "track %d %s peg score %d is outside 0..%d" % (t, name, score,
                                                                         max_score)
        for line in state.lines:
            if not 1 <= line < state.target:
                return "skunk line %d is not a score between 1 and the target %d" % (
                    line, state.target)
        if not 0 <= state.brightness <= 255:
            return "brightness %d is outside 0..255" % state.brightness
        if state.palette not in PALETTES:
            return "palette %r is not one of %s" % (state.palette, sorted(PALETTES))
        if state.winner is not None and not 0 <= state.winner < max(len(state.tracks), 1):
            return "winner %r is not a track of this state" % (state.winner,)
        code = state.code
        if code is not None:
            for ch in code:
                if ch not in "0123456789":
                    return "pairing code %r must be digits" % (code,)
            if not 1 <= len(code) <= self.max_code_digits():
                return "pairing code %r has %d digits; this board shows 1 to %d" % (
                    code, len(code), self.max_code_digits())
        return None


def put(geom, frame, track, hole, rgb):
    i = 3 * geom.index[track][hole]
    frame[i] = rgb[0]
    frame[i + 1] = rgb[1]
    frame[i + 2] = rgb[2]


def clear(frame):
    for i in range(len(frame)):
        frame[i] = 0


def render(geom, state, frame=None):
    """Draw `state` into an RGB frame buffer (3 bytes per LED) and return it.

    Order matters: skunk lines (as the state gives them: the board computes none), back
    pegs, front pegs, the winner's game hole, then the pairing code over track 0.
    """
    if frame is None:
        frame = bytearray(3 * geom.led_count)
    else:
        clear(frame)
    b = state.brightness
    colours = PALETTES.get(state.palette, PALETTES["classic"])
    target = state.target
    for t in range(geom.tracks):
        for line in state.lines:
            put(geom, frame, t, geom.hole_for_score(line, target), SKUNK_RGB)
    for t in range(len(state.tracks)):
        pegs = state.tracks[t]
        colour = colours[t % len(colours)]
        put(geom, frame, t, geom.hole_for_score(pegs.back, target),
            scale(colour, b, BACK_PEG_DIVISOR))
        put(geom, frame, t, geom.hole_for_score(pegs.front, target), scale(colour, b))
    if state.winner is not None:
        put(geom, frame, state.winner, geom.holes + 1, scale(CODE_RGB, b))
    if state.code:
        white = scale(CODE_RGB, b)
        for hole in range(geom.holes + 1):  # the game hole keeps a winner
            put(geom, frame, 0, hole, (0, 0, 0))
        for i in range(len(state.code)):
            put(geom, frame, 0, i * CODE_GROUP + int(state.code[i]) + 1, white)
    return frame


def render_waiting(geom, frame, step):
    """The "waiting for the Pi" pattern: every start hole dim blue and one dim dot per track
    at hole `step` (the firmware moves it once a second), instead of a stale game."""
    clear(frame)
    dot = step % geom.holes + 1
    for t in range(geom.tracks):
        put(geom, frame, t, 0, WAITING_RGB)
        put(geom, frame, t, dot, WAITING_RGB)
    return frame


def strip_bytes(frame, order, out=None):
    """The frame buffer (RGB) in the strip's colour order ("RGB", "GRB" or "GRBW", W dark)."""
    n = len(frame) // 3
    if order == "RGB":
        if out is None:
            return bytearray(frame)
        out[:] = frame
        return out
    bpp = 4 if order == "GRBW" else 3
    if out is None:
        out = bytearray(bpp * n)
    j = 0
    for i in range(0, 3 * n, 3):
        out[j] = frame[i + 1]
        out[j + 1] = frame[i]
        out[j + 2] = frame[i + 2]
        j += bpp
    return out
