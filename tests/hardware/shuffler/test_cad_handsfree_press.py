"""The press's force on the deck, measured on its solids: what the feed's model takes
(``design.DriveBuild.press_n``, 2.5 N) against what the press as drawn weighs (its tungsten
block at the least density the BOM's alloy class allows), and why it is tungsten: steel
filling the room over the nip would not weigh enough.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import handsfree_fasteners, handsfree_parts, handsfree_sweep
from hardware.shuffler.cad.handsfree_params import HANDSFREE

H = HANDSFREE
TARGET_N = design.HANDSFREE_DRIVE.press_n
HF = handsfree_fasteners


@pytest.mark.parametrize("cards", [0, 104])
def test_the_press_bears_on_the_deck_with_the_force_the_feed_takes(cards):
    """At the least density of the BOM's block (ASTM B777 Class 3, 17.75 g/cm3) the press
    as drawn bears at least the feed's force, on an empty tray's tyre and on a full deck."""
    force = HF.press_force_n(H, cards, HF.TUNGSTEN_CLASS3_MIN_G_MM3)
    lo, hi = (HF.press_force_n(H, cards, d) for d in HF.TUNGSTEN_RANGE_G_MM3)
    print(f"\n{cards} cards: the press bears {force:.3f} N "
          f"({HF.press_mass_g(H):.1f} g) at 17.75 g/cm3, {lo:.3f} N at 17.0, {hi:.3f} N at "
          f"18.5; the feed takes {TARGET_N} N")
    assert force >= TARGET_N
    assert lo < force < hi  # the block's density is what it weighs


def test_the_block_is_what_bears_and_it_sits_over_the_nip_under_the_leaves():
    """The tungsten block is most of the press's mass, it lies inside the foot's pocket over
    the nip (the tyre's top, x = 0), and its top is under the shut lower leaves' knuckles
    with the press at the top of its lift."""
    from hardware.shuffler.handsfree import Bay

    block = handsfree_parts.press_weight(H)
    grams = block.volume * HF.TUNGSTEN_CLASS3_MIN_G_MM3
    assert grams > 0.9 * HF.press_mass_g(H)
    b = block.bounding_box()
    assert b.min.X < 0.0 < b.max.X and b.min.Y < 0.0 < b.max.Y
    foot = handsfree_parts.press_foot(H)
    assert handsfree_sweep.common(block, foot) < 1e-3
    assert b.min.Z == pytest.approx(H.press_rest_z() + H.press_floor)
    lifted = handsfree_parts.press_weight(H, H.press_swing_z).bounding_box()
    knuckle = H.doors_z(Bay.LOWER) - H.leaf_t / 2 - H.hinge_d / 2
    assert lifted.max.Z <= knuckle - 1.5 + 1e-6


def test_a_deck_the_tray_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="105 cards"):
        HF.press_force_n(H, 105)


def test_even_solid_steel_over_the_nip_would_not_weigh_enough():
    """Over a full deck the press has only the space between the deck and the shut lower
    leaves (less its lift off the deck and its rise on the turning leg) to fill: over the
    foot's footprint across the whole inside of the shaft, even solid steel there falls
    short of the 2.5 N the feed takes. So the weight is tungsten."""
    from hardware.shuffler.cad.assembly import handsfree_assembly
    from hardware.shuffler.cad.parts import _box

    x0, x1 = H.g.press_x
    half = H.shaft_half_w
    deck = H.press_rest_z(104)
    probe = _box(x0, x1, -half, half, deck, deck + 60.0)
    leaves = handsfree_assembly(H)["door_leaves"] & probe
    under = min(s.bounding_box().min.Z for s in leaves.solids())
    room = under - deck - H.press_lift_clear - H.press_helix_rise
    steel_g = (x1 - x0) * 2 * half * room * HF.STEEL_G_MM3
    need_g = TARGET_N / HF.G_N_PER_G
    print(f"\nroom over the foot {x1 - x0:.1f} x {2 * half:.1f} x {room:.1f} mm: solid "
          f"steel {steel_g:.0f} g, the feed's press {need_g:.0f} g")
    assert room > H.press_foot_h  # the press as drawn fits it
    assert steel_g < 0.9 * need_g
    assert handsfree_sweep.common(probe, handsfree_parts.press_foot(H)) > 0  # the foot's there


def test_the_hub_slides_past_the_gate_blades_screw_clear_of_it():
    """The post stands as far forward as the hub's lift keeps it clear of the gate blade's
    -y screw (the Lotus build's M3 x 10, its washer and nut behind the tray's ear, which the
    hands-free build keeps): 0.5 mm, over the whole lift from an empty tray."""
    from hardware.shuffler.cad import fasteners

    row = next(f for f in fasteners.table(H.g) if f.row == "Gate screws")
    k = next(i for i, seat in enumerate(row.seats) if seat[1] < 0)
    screw = fasteners.solids(row)[k] + fasteners.nut_solids(row)[k]
    gaps = [handsfree_parts.press_arm(H, z).distance_to(screw)
            for z, _a in H.press_path(0, 4.0) if _a == 0]
    print(f"\nthe hub past the gate blade's -y screw: {min(gaps):.2f} mm at least")
    assert 0.5 <= min(gaps) < 1.0  # clear, and no further back than that needs
