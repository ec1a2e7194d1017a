"""The hands-free build's drop shaft: its dimensions along the card's path and over the tray,
and the parts the controller drives beyond the Lotus-style build's feed, router and beams.

One source for the CAD (hardware/shuffler/cad), the simulator and the controller; the design
and its reasons are in docs/hands-free.md ("The drop shaft, specified"). Pure data, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from hardware.shuffler import design
from hardware.shuffler.handsfree import Bay, PressPose


@dataclass(frozen=True, slots=True)
class ShaftGeometry:
    """Where things are, in mm: along the card's path from the feed roller's nip, and up from
    the tray floor's top (docs/hands-free.md, "The card path" and "The shaft and the bays").
    Raises ValueError when the path's stations are out of order.
    """

    gate_mm: float = design.GATE_MM  # the gate blade
    # the take-away pair, on the curl's start: holds each card before its tail leaves the nip
    # (its 16 mm hub clear of the floating tray's lip, which ends 22.8 mm from the nip)
    t1_mm: float = 33.0
    curl_radius_mm: float = 40.0  # on the card's centre line: the tightest bend
    flap_mm: float = design.NIP_TO_FLAP_MM  # the fork and the router's flap
    beam_mm: float = design.NIP_TO_BEAM_MM  # each bay's beam, on its branch
    t2_mm: float = 105.0  # T2L / T2U, one pair on each branch
    # The CAD's path (hardware/shuffler/cad/handsfree_params.py, measured on its centre
    # line): the lower branch curls a half turn at R 40 and runs back 15.5 mm into its bay;
    # the upper one bends back past the flap (so a septum parts the channels at its tip),
    # curls up, rises and curls over, 40 mm above the lower (as the doors).
    lower_slot_mm: float = 166.2  # the card enters the lower bay, over its fullest pile
    upper_slot_mm: float = 248.1
    # The upper branch is longer than two card lengths past T1, so a third pair (T3U, on the
    # same belt) holds the card over its top curl: every stretch between nips is under a card.
    t3_upper_mm: float = 180.0
    lower_doors_z_mm: float = 55.0
    # 40 mm over the lower doors: the lower leaves' gear segments (pitch radius 34.75 mm,
    # meshing on the centre line) reach 36.3 mm up from their hinge as they turn, under the
    # upper leaves' knuckles (the CAD's sweep of the doors checks it)
    upper_doors_z_mm: float = 95.0
    skew_beam_z_mm: float = 40.0
    # Each bay's door sensor: a 3 mm IR break-beam across the bay, its axis 4 mm over the
    # shut doors in a 3.1 mm bore (the CAD's door sensors): a pile is seen once it covers the
    # whole bore, 5.55 mm up (20 of the thinnest cards); a few cards flat on the doors pass
    # under it.
    door_beam_top_mm: float = 5.55
    inside_length_mm: float = 92.0  # the shaft inside, along the card
    inside_width_mm: float = 66.5

    def __post_init__(self) -> None:
        stations = (0.0, self.gate_mm, self.t1_mm, self.flap_mm, self.beam_mm, self.t2_mm,
                    self.lower_slot_mm)
        if any(b <= a for a, b in zip(stations, stations[1:], strict=False)):
            raise ValueError(f"the shaft's path stations must rise from the nip: {stations}")
        if self.upper_slot_mm <= self.lower_slot_mm:
            raise ValueError("the upper bay's slot must lie beyond the lower bay's")
        if self.t2_mm - self.t1_mm >= design.CARD_LENGTH_MM:
            raise ValueError("T1 to T2 must be shorter than a card, so a nip always holds it")
        if not self.t2_mm < self.t3_upper_mm < self.upper_slot_mm:
            raise ValueError("T3U must lie between T2U and the upper slot")
        if self.t3_upper_mm - self.t2_mm >= design.CARD_LENGTH_MM:
            raise ValueError("T2U to T3U must be shorter than a card, so a nip always holds it")

    def slot_mm(self, bay: Bay) -> float:
        """The path length from the nip to `bay`'s slot."""
        return self.upper_slot_mm if bay is Bay.UPPER else self.lower_slot_mm

    def doors_z_mm(self, bay: Bay) -> float:
        """The height of `bay`'s doors over the tray floor."""
        return self.upper_doors_z_mm if bay is Bay.UPPER else self.lower_doors_z_mm


DEFAULT_SHAFT = ShaftGeometry()


class Shaft(Protocol):
    """The hands-free build's parts beyond the feed, the router and the bay beams (which are
    the Lotus build's pile beams: the lower bay is `Pile.LEFT`, the upper `Pile.RIGHT`,
    `handsfree.ROUTER_PILE`). Implemented by the GPIO driver and the simulator alike.
    """

    def set_riser(self, on: bool) -> None:
        """Run or stop the riser's rollers (T1, T2L, T2U on one belt)."""
        ...

    def set_doors(self, bay: Bay, opened: bool) -> None:
        """Command `bay`'s door servo open or closed (the servo takes its time to get there)."""
        ...

    def set_press(self, pose: PressPose) -> None:
        """Command the press's two servos to `pose`: down on the deck, lifted over it, or
        lifted and turned out of the shaft (each servo takes its time; the caller moves it
        one pose at a time, each once the last has arrived)."""
        ...

    def doors_hold(self, bay: Bay) -> bool:
        """True when `bay`'s door sensor sees a card lying on its doors."""
        ...

    def tray_cards(self) -> float | None:
        """The tray's load cell as a count of cards (weight less tare over one card's
        weight), or None before a reading has settled."""
        ...

    def skewed(self) -> bool:
        """True when the skew beam is broken: something stands above a flat deck."""
        ...

    def lid_closed(self) -> bool:
        """True when the lid switch is closed (and the actuators have power)."""
        ...
