"""Where each peg hole is on the LED strip, and what the board shows for a `BoardState`.

The host's face of `hardware.board.render`, which the board's firmware runs too: one source
for the geometry and the drawing. `BoardLayout` adds the host's checks (BoardError) and
`decode`, which reads pegs and the pairing code back from the LEDs the board reports.
The layout computes no skunk line: it draws the `lines` the state gives (the engine's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hardware.board.render import (
    BACK_PEG_DIVISOR,
    CODE_GROUP,
    CODE_RGB,
    PALETTES,
    SKUNK_RGB,
    WAITING_RGB,
    Geometry,
    render,
    scale,
)
from hardware.errors import BoardError
from hardware.interfaces import BoardState, TrackPegs

RGB = tuple[int, int, int]
PALETTE_IDS = ("classic", "colorblind")  # wire order
__all__ = [
    "BACK_PEG_DIVISOR", "CODE_GROUP", "CODE_RGB", "PALETTES", "PALETTE_IDS", "SKUNK_RGB",
    "WAITING_RGB", "BoardLayout", "scale",
]


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """The board's geometry and LED wiring.

    `led_map`, from configuration, gives per track the LED index of each hole 0..holes+1;
    None means the default serpentine strip (track 0 forwards, track 1 backwards, ...).
    `led_count` None means exactly the mapped LEDs.
    Raises ConfigurationError (a ValueError) for a geometry or map that cannot work.
    """

    tracks: int = 2
    holes: int = 120
    led_map: tuple[tuple[int, ...], ...] | None = None
    led_count: int | None = None
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        geometry = Geometry(self.tracks, self.holes, self.led_map, self.led_count)
        object.__setattr__(self, "geometry", geometry)
        object.__setattr__(self, "led_count", geometry.led_count)

    @property
    def _index(self) -> tuple[tuple[int, ...], ...]:
        return self.geometry.index

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
        return self.geometry.hole_for_score(score, target)

    def max_code_digits(self) -> int:
        """How many pairing-code digits fit on track 0 (one per ten holes)."""
        return self.geometry.max_code_digits()

    def check(self, state: BoardState) -> None:
        """Refuse a state this board cannot show. Raises BoardError naming the field."""
        reason = self.geometry.check(state)
        if reason:
            raise BoardError(reason)

    def render(self, state: BoardState, frame: bytearray | None = None) -> bytearray:
        """Draw `state` into an RGB frame buffer (3 bytes per LED) and return it.

        The firmware draws with the same function: skunk lines, back pegs, front pegs, the
        winner's game hole, then the pairing code over track 0.
        """
        result: bytearray = render(self.geometry, state, frame)
        return result

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
