"""Where each peg hole is on the LED strip, and what the board shows for a `BoardState`.

A track has `holes` holes (120, or 60 gone round twice for a 121 game) plus a start hole
(hole 0) and a game hole (hole `holes + 1`). A score maps to a hole: 0 is the start hole,
the target (or more) is the game hole, any other score s is hole ((s - 1) % holes) + 1.
`render` is pure and uses only loops and integer arithmetic, so the board's firmware can
follow it line by line; the host uses `decode` to read pegs and the pairing code back from
the LEDs the board reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hardware.errors import BoardError, ConfigurationError
from hardware.interfaces import BoardState, TrackPegs

RGB = tuple[int, int, int]

# Peg colours per track. "colorblind" is from the Okabe-Ito set (orange, blue, yellow),
# told apart by people with any common colour-vision deficiency.
PALETTES: dict[str, tuple[RGB, ...]] = {
    "classic": ((220, 0, 0), (0, 60, 255), (0, 200, 0)),
    "colorblind": ((230, 159, 0), (0, 114, 178), (240, 228, 66)),
}
PALETTE_IDS = ("classic", "colorblind")  # wire order
CODE_RGB: RGB = (255, 255, 255)  # pairing code digits: full white, no palette uses it
SKUNK_RGB: RGB = (24, 24, 24)  # skunk line marker: dim white
BACK_PEG_DIVISOR = 4  # the back peg is drawn at a quarter of the front peg's light
CODE_GROUP = 10  # one code digit per ten holes: the lit hole's place in the group is the digit


def scale(rgb: RGB, brightness: int, divisor: int = 1) -> RGB:
    """A colour at a brightness 0..255 (and divided, for the back peg)."""
    return (
        rgb[0] * brightness // 255 // divisor,
        rgb[1] * brightness // 255 // divisor,
        rgb[2] * brightness // 255 // divisor,
    )


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """The board's geometry and LED wiring.

    `led_map`, from configuration, gives per track the LED index of each hole 0..holes+1;
    None means the default serpentine strip (track 0 forwards, track 1 backwards, ...).
    `led_count` None means exactly the mapped LEDs. `skunk_lines` are scores whose holes
    get a dim marker (None: 91 and 61 for a 121 game, 31 for a 61 game).
    Raises ConfigurationError (a ValueError) for a geometry or map that cannot work.
    """

    tracks: int = 2
    holes: int = 120
    led_map: tuple[tuple[int, ...], ...] | None = None
    led_count: int | None = None
    skunk_lines: tuple[int, ...] | None = None
    _index: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.tracks not in (1, 2, 3):
            raise ConfigurationError(f"a board has 1 to 3 tracks, not {self.tracks}")
        if self.holes not in (60, 120):
            raise ConfigurationError(
                f"a track has 60 holes (twice round) or 120 holes, not {self.holes}"
            )
        per = self.holes + 2
        if self.led_map is None:
            index = tuple(
                tuple(t * per + (h if t % 2 == 0 else per - 1 - h) for h in range(per))
                for t in range(self.tracks)
            )
        else:
            index = tuple(tuple(int(i) for i in row) for row in self.led_map)
            if len(index) != self.tracks or any(len(row) != per for row in index):
                raise ConfigurationError(
                    f"led_map needs {self.tracks} rows of {per} LED indexes "
                    f"(start hole, {self.holes} holes, game hole)"
                )
        flat = [i for row in index for i in row]
        count = self.led_count if self.led_count is not None else max(flat) + 1
        if len(set(flat)) != len(flat):
            raise ConfigurationError("led_map gives the same LED to two holes")
        if min(flat) < 0 or max(flat) >= count:
            raise ConfigurationError(f"led_map has an LED index outside 0..{count - 1}")
        if count > 0xFFFF:
            raise ConfigurationError(f"{count} LEDs is more than the link can address")
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "led_count", count)

    def index(self, track: int, hole: int) -> int:
        """The LED index of a hole. Raises BoardError for a track or hole off the board."""
        if not 0 <= track < self.tracks or not 0 <= hole <= self.holes + 1:
            raise BoardError(
                f"track {track} hole {hole} is not on a {self.tracks}-track board of "
                f"{self.holes} holes"
            )
        return self._index[track][hole]

    def hole_for_score(self, score: int, target: int = 121) -> int:
        """The hole a peg at `score` stands in: 0 start, holes+1 the game hole."""
        if score <= 0:
            return 0
        if score >= target:
            return self.holes + 1
        return (score - 1) % self.holes + 1

    def skunk_scores(self, target: int) -> tuple[int, ...]:
        """The skunk-line scores marked for a game to `target`."""
        if self.skunk_lines is not None:
            return self.skunk_lines
        if target == 121:
            return (91, 61)
        if target == 61:
            return (31,)
        return ()

    def max_code_digits(self) -> int:
        """How many pairing-code digits fit on track 0 (one per ten holes)."""
        return self.holes // CODE_GROUP

    def check(self, state: BoardState) -> None:
        """Refuse a state this board cannot show. Raises BoardError naming the field."""
        if len(state.tracks) > self.tracks:
            raise BoardError(
                f"the state has {len(state.tracks)} tracks; this board has {self.tracks}"
            )
        if not 1 <= state.target <= 255:
            raise BoardError(f"target {state.target} is outside 1..255")
        for t, pegs in enumerate(state.tracks):
            for name, score in (("front", pegs.front), ("back", pegs.back)):
                if not 0 <= score <= 255:
                    raise BoardError(f"track {t} {name} peg score {score} is outside 0..255")
        if not 0 <= state.brightness <= 255:
            raise BoardError(f"brightness {state.brightness} is outside 0..255")
        if state.palette not in PALETTES:
            raise BoardError(f"palette {state.palette!r} is not one of {sorted(PALETTES)}")
        if state.winner is not None and not 0 <= state.winner < max(len(state.tracks), 1):
            raise BoardError(f"winner {state.winner} is not a track of this state")
        if state.code is not None:
            code = state.code
            if not code.isdigit() or not code.isascii():
                raise BoardError(f"pairing code {code!r} must be digits")
            if not 1 <= len(code) <= self.max_code_digits():
                raise BoardError(
                    f"pairing code {code!r} has {len(code)} digits; this board shows 1 to "
                    f"{self.max_code_digits()}"
                )

    def render(self, state: BoardState, frame: bytearray | None = None) -> bytearray:
        """Draw `state` into an RGB frame buffer (3 bytes per LED) and return it.

        Order matters and the firmware keeps it: skunk markers, back pegs, front pegs,
        the winner's game hole, then the pairing code over track 0.
        """
        if frame is None:
            frame = bytearray(3 * self.led_count)
        else:
            frame[:] = bytes(3 * self.led_count)
        b = state.brightness
        colours = PALETTES.get(state.palette, PALETTES["classic"])
        marker = scale(SKUNK_RGB, 255)  # markers do not dim: they are already faint
        for t in range(self.tracks):
            for line in self.skunk_scores(state.target):
                self._put(frame, t, self.hole_for_score(line, state.target), marker)
        for t, pegs in enumerate(state.tracks):
            colour = colours[t % len(colours)]
            self._put(
                frame, t, self.hole_for_score(pegs.back, state.target),
                scale(colour, b, BACK_PEG_DIVISOR),
            )
            self._put(frame, t, self.hole_for_score(pegs.front, state.target), scale(colour, b))
        if state.winner is not None:
            self._put(frame, state.winner, self.holes + 1, scale(CODE_RGB, b))
        if state.code:
            white = scale(CODE_RGB, b)
            for hole in range(1, self.holes + 1):
                self._put(frame, 0, hole, (0, 0, 0))
            self._put(frame, 0, 0, (0, 0, 0))
            for i, ch in enumerate(state.code):
                self._put(frame, 0, i * CODE_GROUP + int(ch) + 1, white)
        return frame

    def _put(self, frame: bytearray, track: int, hole: int, rgb: RGB) -> None:
        i = 3 * self._index[track][hole]
        frame[i], frame[i + 1], frame[i + 2] = rgb

    def decode(
        self, leds: Sequence[RGB], hint: BoardState
    ) -> tuple[tuple[TrackPegs, ...], str | None]:
        """Read pegs and the pairing code from the LEDs, with the state the board reports.

        The hint gives palette, brightness and target (to know the colours), and the lap of
        each peg on a twice-round board; a peg the LEDs do not show (brightness 0, or track 0
        under a code) is reported as the board holds it.
        """
        if len(leds) != self.led_count:  # another board's frame: only its word is left
            return hint.tracks, hint.code
        b = hint.brightness
        white = scale(CODE_RGB, b)
        code = ""
        if white != (0, 0, 0):
            for group in range(self.max_code_digits()):
                lit = [
                    d for d in range(CODE_GROUP)
                    if tuple(leds[self._index[0][group * CODE_GROUP + d + 1]]) == white
                ]
                if len(lit) != 1:
                    break
                code += str(lit[0])
        colours = PALETTES.get(hint.palette, PALETTES["classic"])
        tracks = []
        for t, pegs in enumerate(hint.tracks):
            if t == 0 and code:
                tracks.append(pegs)
                continue
            colour = colours[t % len(colours)]
            row = [tuple(leds[self._index[t][h]]) for h in range(self.holes + 2)]
            fronts = [h for h, c in enumerate(row) if c == scale(colour, b)]
            backs = [h for h, c in enumerate(row) if c == scale(colour, b, BACK_PEG_DIVISOR)]
            if len(fronts) != 1 or len(backs) > 1 or scale(colour, b) == (0, 0, 0):
                tracks.append(pegs)  # not readable from the LEDs: trust the board's word
                continue
            front = self._score_at(fronts[0], pegs.front, hint.target)
            back = self._score_at(backs[0], pegs.back, hint.target) if backs else front
            tracks.append(TrackPegs(front=front, back=back))
        return tuple(tracks), (code or None)

    def _score_at(self, hole: int, near: int, target: int) -> int:
        """The score in `hole` closest to `near` (the lap on a twice-round board)."""
        if hole == 0:
            return 0
        if hole == self.holes + 1:
            return max(near, target) if near >= target else target
        candidates = range(hole, target, self.holes)
        return min(candidates, key=lambda s: abs(s - near), default=hole)
