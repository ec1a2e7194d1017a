"""Where each peg hole is on the LED strip, and what the board shows for a `BoardState`.

The host's face of `hardware.board.render`, which the board's firmware runs too: one source
for the geometry and the drawing. `BoardLayout` adds the host's checks (BoardError) and
`decode`, which reads pegs and the pairing code back from the LEDs the board reports.
The layout computes no skunk line: it draws the `lines` the state gives (the engine's).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from hardware.errors import BoardError, ConfigurationError
from hardware.interfaces import BoardState, TrackPegs

RGB = tuple[int, int, int]
PALETTE_IDS = ("classic", "colorblind")  # wire order
__all__ = [
    "BACK_PEG_DIVISOR", "CODE_GROUP", "CODE_RGB", "PALETTES", "PALETTE_IDS", "SKUNK_RGB",
    "WAITING_RGB", "BoardLayout", "DENSITIES", "Hole", "Segment", "StripPlan", "scale",
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


# --- where the holes are: the strip laid under the board ------------------------------------

# Strip densities on sale (LEDs a metre); the pitch is 1000 mm / density.
DENSITIES = (144, 100, 96, 60)
MIN_TRACK_SPACING = 10.0  # the narrowest strips are 10 mm wide (many 144/m are 12 mm)


@dataclass(frozen=True, slots=True)
class Segment:
    """One straight piece of strip under one row of holes.

    `first` is the LED index of its first LED (the end the data enters), `count` its LEDs,
    (`x`, `y`) the centre of that first LED in mm, `step` +1 when the data runs towards +x.
    """

    row: int
    track: int
    leg: int
    first: int
    count: int
    x: float
    y: float
    step: int


@dataclass(frozen=True, slots=True)
class Hole:
    """A hole to drill: track (from 0), hole (0 start, 1..holes, holes+1 game), LED, centre mm."""

    track: int
    hole: int
    led: int
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class StripPlan:
    """Where the LEDs of a strip lie under the board, and so where the holes go.

    Each track runs in `legs` straight rows (1: one long row; 2: out and back, the usual
    board). Along a row the LEDs are `pitch` apart (1000 mm / `per_metre`); the holes take
    groups of `group` LEDs with `skip` dark LEDs between groups (0: evenly spaced holes), and
    `end_skip` dark LEDs between the start hole and hole 1 (and the last hole and the game
    hole). Rows are `track_spacing` apart, a leg's block of rows `leg_gap` from the next. The
    strip is cut into one piece a row, wired row after row (a serpentine: every second row
    runs back), so the dark LEDs stay on the strip and keep their indexes.
    Raises ConfigurationError (a ValueError) for a plan that cannot be laid out.
    """

    tracks: int = 2
    holes: int = 120
    per_metre: int = 144
    group: int = 5
    skip: int = 1
    end_skip: int = 1
    legs: int = 2
    track_spacing: float = 12.0
    leg_gap: float = 24.0
    margin: float = 15.0

    def __post_init__(self) -> None:
        Geometry(self.tracks, self.holes)  # tracks and holes as the board takes them
        if self.per_metre not in DENSITIES:
            raise ConfigurationError(
                f"a strip of {self.per_metre} LEDs a metre: choose one of "
                f"{', '.join(map(str, DENSITIES))}")
        if self.legs not in (1, 2, 3, 4) or self.holes % self.legs:
            raise ConfigurationError(f"{self.holes} holes do not split into {self.legs} legs")
        per_leg = self.holes // self.legs
        if not 1 <= self.group <= per_leg or per_leg % self.group:
            raise ConfigurationError(
                f"groups of {self.group} holes do not fill a leg of {per_leg} holes")
        if not 0 <= self.skip <= 10 or not 0 <= self.end_skip <= 10:
            raise ConfigurationError("skip and end_skip are 0 to 10 dark LEDs")
        if self.track_spacing < MIN_TRACK_SPACING or self.leg_gap < 0 or self.margin < 0:
            raise ConfigurationError(
                f"track spacing {self.track_spacing} mm is under {MIN_TRACK_SPACING} mm (two "
                "strips side by side), or a gap or margin is negative")

    @property
    def pitch(self) -> float:
        """The distance between two LEDs' centres along the strip, in mm."""
        return 1000.0 / self.per_metre

    def _slots(self) -> list[int]:
        """The LED positions (from the row's left end) of a leg's holes, left to right."""
        per_leg = self.holes // self.legs
        first = 1 + self.end_skip
        return [first + j + (j // self.group) * self.skip for j in range(per_leg)]

    def _rows(self) -> list[tuple[int, int, dict[int, int]]]:
        """Per row (track, leg, {position from the left: hole})."""
        slots = self._slots()
        per_leg = len(slots)
        rows = []
        for leg in range(self.legs):
            forward = leg % 2 == 0  # the pegs run left to right on even legs
            for t in range(self.tracks):
                at: dict[int, int] = {}
                for j in range(per_leg):
                    pos = slots[j] if forward else slots[per_leg - 1 - j]
                    at[pos] = leg * per_leg + j + 1
                if leg == 0:
                    at[0] = 0  # the start hole, at the left end of the first leg
                if leg == self.legs - 1:
                    at[slots[-1] + 1 + self.end_skip if forward else 0] = self.holes + 1
                rows.append((t, leg, at))
        return rows

    def _row_y(self, row: int, leg: int) -> float:
        return self.margin + row * self.track_spacing + leg * self.leg_gap

    def segments(self) -> tuple[Segment, ...]:
        """The strip's pieces in data order, one a row."""
        out = []
        first = 0
        for r, (t, leg, at) in enumerate(self._rows()):
            lo, hi = min(at), max(at)
            step = 1 if r % 2 == 0 else -1
            start = lo if step == 1 else hi
            out.append(Segment(row=r, track=t, leg=leg, first=first, count=hi - lo + 1,
                               x=self.margin + start * self.pitch, y=self._row_y(r, leg),
                               step=step))
            first += hi - lo + 1
        return tuple(out)

    def holes_mm(self) -> tuple[Hole, ...]:
        """Every hole with its LED and centre, by track then hole."""
        out = []
        for seg, (t, _leg, at) in zip(self.segments(), self._rows(), strict=True):
            start = round((seg.x - self.margin) / self.pitch)
            for pos, hole in at.items():
                led = seg.first + (pos - start) * seg.step
                out.append(Hole(t, hole, led, self.margin + pos * self.pitch, seg.y))
        return tuple(sorted(out, key=lambda h: (h.track, h.hole)))

    def led_count(self) -> int:
        """LEDs on the strip, the dark ones between groups included."""
        return sum(s.count for s in self.segments())

    def led_map(self) -> tuple[tuple[int, ...], ...]:
        """Per track the LED of each hole 0..holes+1, as `BoardLayout(led_map=...)` takes it."""
        per = self.holes + 2
        rows = [[-1] * per for _ in range(self.tracks)]
        for h in self.holes_mm():
            rows[h.track][h.hole] = h.led
        return tuple(tuple(r) for r in rows)

    def layout(self) -> BoardLayout:
        """The board's `BoardLayout` with this plan's LED map."""
        return BoardLayout(self.tracks, self.holes, self.led_map(), self.led_count())

    def size(self) -> tuple[float, float]:
        """The board's width and depth in mm (the rows and the margin round them)."""
        segs = self.segments()
        xs = [s.x + (s.count - 1) * self.pitch * s.step for s in segs] + [s.x for s in segs]
        ys = [s.y for s in segs]
        return max(xs) + self.margin, max(ys) + self.margin

    def hole_at(self, track: int, hole: int) -> Hole:
        """The hole `hole` of `track`. Raises BoardError for one off the board."""
        for h in self.holes_mm():
            if (h.track, h.hole) == (track, hole):
                return h
        raise BoardError(f"track {track} hole {hole} is not on this board")

    def to_json(self) -> dict[str, object]:
        """The plan's settings, as `crib board map` writes them beside the map."""
        return {"tracks": self.tracks, "holes": self.holes, "per_metre": self.per_metre,
                "group": self.group, "skip": self.skip, "end_skip": self.end_skip,
                "legs": self.legs, "track_spacing_mm": self.track_spacing,
                "leg_gap_mm": self.leg_gap, "margin_mm": self.margin}

    def map_document(self) -> dict[str, Any]:
        """The LED map file (`crib board map`): the plan, the map, the LED count, the pieces."""
        return {
            "format": MAP_FORMAT, "version": MAP_VERSION, "plan": self.to_json(),
            "tracks": self.tracks, "holes": self.holes, "led_count": self.led_count(),
            "pitch_mm": round(self.pitch, 4), "board_mm": [round(v, 2) for v in self.size()],
            "led_map": [list(row) for row in self.led_map()],
            "segments": [{"track": s.track, "leg": s.leg, "first": s.first, "count": s.count,
                          "x_mm": round(s.x, 4), "y_mm": round(s.y, 4), "step": s.step}
                         for s in self.segments()],
        }


MAP_FORMAT = "cribbage-table led map"
MAP_VERSION = 1


def read_map(path: str | os.PathLike[str]) -> dict[str, Any]:
    """An LED map file of `crib board map`, checked against the board's geometry.

    Raises ConfigurationError (a ValueError) naming the file and what is wrong with it.
    """
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ConfigurationError(f"LED map {path}: cannot be read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"LED map {path}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != MAP_FORMAT:
        raise ConfigurationError(f"LED map {path}: not a file of crib board map")
    if doc.get("version") != MAP_VERSION:
        raise ConfigurationError(
            f"LED map {path}: version {doc.get('version')!r}; this version reads "
            f"{MAP_VERSION}: write it again with crib board map")
    try:
        geometry = Geometry(doc["tracks"], doc["holes"], doc["led_map"], doc["led_count"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigurationError(f"LED map {path}: {exc}") from None
    if geometry.led_count != 1 + max(i for row in geometry.index for i in row):
        raise ConfigurationError(f"LED map {path}: led_count {geometry.led_count} is not one "
                                 "more than its last LED (the strip ends in a hole)")
    return doc


def plan_of_map(doc: dict[str, Any]) -> StripPlan:
    """The `StripPlan` an LED map file (`read_map`) was made from. Raises ConfigurationError."""
    try:
        p = doc["plan"]
        return StripPlan(tracks=p["tracks"], holes=p["holes"], per_metre=p["per_metre"],
                         group=p["group"], skip=p["skip"], end_skip=p["end_skip"],
                         legs=p["legs"], track_spacing=p["track_spacing_mm"],
                         leg_gap=p["leg_gap_mm"], margin=p["margin_mm"])
    except (KeyError, TypeError) as exc:
        raise ConfigurationError(f"the LED map's plan has no {exc}") from None
