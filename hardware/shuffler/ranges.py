"""The shuffler's physical parameters and the ranges the default build must work across:
the one place they are written, each with its source.

A `Params` is one machine and one deck: the frictions, the motor's spread from its
datasheet, the supply, the cards. `NOMINAL` is the middle of every range; `corners()` lists
every corner of the ranges (each parameter at its low or high end), for the tests and the
benchmark. Pure data, standard library only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace

# Each range: (low, high). Sources beside each.
RANGES: dict[str, tuple[float, float]] = {
    # card on card, sliding: 0.3-0.5 (docs/shuffler-mechanics.md "Friction ranges": linen
    # paper and plastic cards, new and worn)
    "mu_card_card": (0.3, 0.5),
    # card on printed PETG or PLA: 0.2-0.4 (same source; plastic cards slide more easily)
    "mu_card_petg": (0.2, 0.4),
    # NBR or silicone tyre on a card: 0.8-1.2 (same source; a dusty tyre is the low end)
    "mu_tyre_card": (0.8, 1.2),
    # motor constants, no-load speed and stall torque each +-15 % of the datasheet's:
    # estimate of the part-to-part spread of small brushed gearmotors (Pololu states its
    # figures as typical, from sampled units)
    "motor_speed": (0.85, 1.15),
    "motor_torque": (0.85, 1.15),
    # the supply at the driver: a 5 V USB-C supply within USB's 4.75-5.25 V
    "supply_v": (4.75, 5.25),
    # card thickness, mm: 0.28-0.32 (docs/shuffler-mechanics.md "Cards")
    "card_thickness_mm": (0.28, 0.32),
}
DECKS = (52, 104)  # one deck, or two shuffled together

# A poker card weighs about 1.8 g at 0.30 mm (docs/shuffler-mechanics.md "The load on a
# bottom-feed roller"); estimate: its mass is in proportion to its thickness.
CARD_MASS_G_PER_MM = 1.8 / 0.30
# Each card's own speed on the roller differs by this much (sd, share): a worn patch of
# tyre, a curled card. Estimate from the calibrate runs' spread, as the simulator had it.
CARD_SPREAD = 0.03


@dataclass(frozen=True, slots=True)
class Params:
    """One machine and deck within the ranges (defaults: the middle of each range).

    Raises ValueError for a value outside its range (a deck of 1 to 104 cards).
    """

    mu_card_card: float = 0.4
    mu_card_petg: float = 0.3
    mu_tyre_card: float = 1.0
    motor_speed: float = 1.0
    motor_torque: float = 1.0
    supply_v: float = 5.0
    card_thickness_mm: float = 0.30
    cards: int = 52
    spread: float = CARD_SPREAD

    def __post_init__(self) -> None:
        for name, (lo, hi) in RANGES.items():
            value = getattr(self, name)
            if not lo - 1e-9 <= value <= hi + 1e-9:
                raise ValueError(f"{name} = {value} is outside its range {lo}-{hi}")
        if not 1 <= self.cards <= 104:
            raise ValueError(f"a deck of {self.cards} cards: give 1 to 104")
        if not 0 <= self.spread < 0.3:
            raise ValueError(f"card speed spread {self.spread}: give 0 to 0.3")

    @property
    def card_mass_kg(self) -> float:
        return CARD_MASS_G_PER_MM * self.card_thickness_mm / 1000.0

    def with_(self, **changes: float) -> Params:
        """A copy with some values changed (checked)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def label(self) -> str:
        """A short name of the corner: each ranged value as lo/hi/mid, and the deck."""
        parts = []
        for name, (lo, hi) in RANGES.items():
            value = getattr(self, name)
            tag = "lo" if abs(value - lo) < 1e-9 else "hi" if abs(value - hi) < 1e-9 else "mid"
            parts.append(f"{_SHORT[name]}={tag}")
        return " ".join(parts) + f" n={self.cards}"


_SHORT = {"mu_card_card": "cc", "mu_card_petg": "petg", "mu_tyre_card": "tyre",
          "motor_speed": "n0", "motor_torque": "Ts", "supply_v": "V",
          "card_thickness_mm": "t"}
NOMINAL = Params()
RANGED = tuple(f.name for f in fields(Params) if f.name in RANGES)


def corners(decks: tuple[int, ...] = DECKS) -> list[Params]:
    """Every corner of the ranges (each ranged parameter at its low or high end), for each
    deck size: 2^7 machines x the decks."""
    out = []
    for deck in decks:
        for ends in itertools.product((0, 1), repeat=len(RANGED)):
            values = {name: RANGES[name][end] for name, end in zip(RANGED, ends, strict=True)}
            out.append(Params(cards=deck, **values))  # type: ignore[arg-type]
    return out
