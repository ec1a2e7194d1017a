"""The default shuffler build's drive and card numbers: one source for the CAD, the timing
model, the simulator and the docs' arithmetic.

Pure data and arithmetic (no CAD library, no I/O), so the Pi imports it freely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Playing cards: every size the tray and the path take.
CARD_LENGTH_MM = 88.9
POKER_WIDTH_MM = 63.5
BRIDGE_WIDTH_MM = 57.2
CARD_THICKNESS_MIN_MM = 0.28
CARD_THICKNESS_MAX_MM = 0.32


@dataclass(frozen=True, slots=True)
class DriveBuild:
    """The feed drive as built: motor speed under load and the roller's outside diameter.

    Raises ValueError for a speed or diameter that is not above 0.
    """

    motor_rpm_loaded: float = 850.0  # N20 6 V 1000 rpm gearmotor, about 85 % of no-load speed
    roller_diameter_mm: float = 30.0  # printed hub with its rubber tyre, outside diameter

    def __post_init__(self) -> None:
        if not (self.motor_rpm_loaded > 0 and self.roller_diameter_mm > 0):
            raise ValueError(
                f"motor speed and roller diameter must be above 0, got "
                f"{self.motor_rpm_loaded} rpm and {self.roller_diameter_mm} mm"
            )

    @property
    def surface_speed_mm_s(self) -> float:
        """The roller's surface speed, which is the card's feed speed (no slip)."""
        return math.pi * self.roller_diameter_mm * self.motor_rpm_loaded / 60.0


DEFAULT_DRIVE = DriveBuild()
