"""The hands-free riser's path, measured on its own centre line: the stations shaft.py gives
the simulator and the controller, the tightest bend a card meets, where the branches part.

Pure Python (no CAD kernel): the path is sampled, not read back from the numbers it was
built from.
"""

from __future__ import annotations

import math

import pytest

from hardware.shuffler import design
from hardware.shuffler.cad.handsfree_params import BAYS, HANDSFREE, HandsFree, card_strain
from hardware.shuffler.handsfree import Bay
from hardware.shuffler.shaft import DEFAULT_SHAFT, ShaftGeometry

TOL_MM = 0.5  # shaft.py's stations are given to 0.1 mm; the path is sampled every 0.1 mm


@pytest.mark.parametrize("bay", BAYS)
def test_the_path_to_each_slot_is_the_length_shaft_py_gives_the_simulator(bay):
    assert HANDSFREE.slot_length(bay) == pytest.approx(DEFAULT_SHAFT.slot_mm(bay), abs=TOL_MM)


@pytest.mark.parametrize("bay", BAYS)
def test_the_slot_is_over_a_full_pile_and_the_path_ends_moving_back_over_the_tray(bay):
    h = HANDSFREE
    end = h.path(bay)[-1]
    assert end.heading == pytest.approx(math.pi, abs=1e-6)  # the card turned over
    assert end.x == pytest.approx(h.shaft_x[1])
    underside = end.z - h.g.card_thickness_max / 2
    assert underside - h.pile_top(bay) >= h.slot_clearance
    # the slot is under the bay's roof: the upper doors for the lower bay
    if bay is Bay.LOWER:
        assert end.z + h.gap < h.doors_z(Bay.UPPER) - h.leaf_t


def test_the_tightest_bend_is_found_on_the_path_and_its_strain_is_the_docs():
    r = HANDSFREE.tightest_bend()
    assert r == pytest.approx(DEFAULT_SHAFT.curl_radius_mm, rel=1e-3)
    thick = card_strain(r, design.CARD_THICKNESS_MAX_MM)
    thin = card_strain(r, 0.30)
    assert (round(thin * 100, 3), round(thick * 100, 2)) == (0.375, 0.4)


def test_another_curl_is_measured_as_the_tightest_bend_and_lengthens_the_path():
    h = HandsFree(shaft=ShaftGeometry(curl_radius_mm=45.0, upper_doors_z_mm=105.0,
                                      lower_slot_mm=200, upper_slot_mm=280, t3_upper_mm=190))
    assert h.tightest_bend() == pytest.approx(45.0, rel=1e-3)
    assert h.slot_length(Bay.LOWER) > HANDSFREE.slot_length(Bay.LOWER) + 10


def test_every_stretch_between_nips_is_shorter_than_a_card():
    s = DEFAULT_SHAFT
    card = design.CARD_LENGTH_MM
    for bay, nips in ((Bay.LOWER, (0.0, s.t1_mm, s.t2_mm)),
                      (Bay.UPPER, (0.0, s.t1_mm, s.t2_mm, s.t3_upper_mm))):
        assert all(b - a < card for a, b in zip(nips, nips[1:], strict=False)), bay
        # the last nip holds the card until its head is in the bay
        assert nips[-1] + card > s.slot_mm(bay), bay


def test_the_branches_part_past_the_flaps_tip_with_room_for_the_septum():
    h = HANDSFREE
    assert h.septum_apex > h.g.vane_length + h.g.vane_clearance
    assert h.septum_start - h.septum_apex < 3.0
    # before the fork the two paths are one
    for s in (0.0, 30.0, h.shaft.flap_mm):
        a, b = h.at(Bay.LOWER, s), h.at(Bay.UPPER, s)
        assert math.dist((a.x, a.z), (b.x, b.z)) < 1e-3


def test_a_fork_with_no_room_for_a_septum_is_refused():
    with pytest.raises(ValueError, match="septum"):
        HandsFree(fork_reverse=4.0)


@pytest.mark.parametrize("cards", [0, 52, 104])
def test_the_press_lifts_straight_off_any_deck_before_it_turns_out(cards):
    """From the deck it rests on, the press only rises until its foot clears a full tray's
    deck; then it only turns (rising on the helix), out past square."""
    h = HANDSFREE
    path = h.press_path(cards)
    assert path[0] == (pytest.approx(h.press_rest_z(cards)), 0.0)
    turned = [(z, a) for z, a in path if a > 0]
    assert all(a == 0 for z, a in path if z < h.press_swing_z - 1e-9)
    assert turned[0][0] >= h.press_rest_z(h.g.capacity_cards) + h.press_lift_clear
    angles = [a for _z, a in path]
    assert angles == sorted(angles) and angles[-1] == h.press_swing > 90
    heights = [z for z, _a in path]
    assert heights == sorted(heights)


def test_a_press_that_would_meet_the_lower_leaves_or_the_skew_beam_is_refused():
    with pytest.raises(ValueError, match="knuckles"):
        HandsFree(press_helix_rise=3.0)
    with pytest.raises(ValueError, match="skew beam"):
        HandsFree(press_window_margin=5.0)
    with pytest.raises(ValueError, match="knuckles"):
        HandsFree(press_foot_h=14.3)  # a taller foot (more weight) has no room
    with pytest.raises(ValueError, match="skew beam"):
        HandsFree(press_foot_w=44.0)  # nor a longer one
    with pytest.raises(ValueError, match="tray's ear"):
        HandsFree(press_pivot_x=0.0)  # nor a post further forward
