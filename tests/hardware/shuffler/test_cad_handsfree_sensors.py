"""The door sensors measured on their solids: each bay's break-beam crosses the shaft where
nothing but a pile on its doors stands (the leaves shut, open or turning, the press at
every pose of its path, the lid swung open), a pile of the least count claimed breaks it
wholly, and its LEDs, their clips and the clips' screws stay clear of everything that moves
near them: the leaves through their whole swing, the press along its path, the piles
falling past, the lid opening.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from build123d import Part, Pos, Rot

from hardware.shuffler import design, handsfree
from hardware.shuffler.cad import handsfree_fasteners, handsfree_parts, handsfree_sweep
from hardware.shuffler.cad.assembly import handsfree_assembly
from hardware.shuffler.cad.handsfree_params import BAYS, GAME_DECKS, HANDSFREE, HandsFree
from hardware.shuffler.cad.parts import _box
from hardware.shuffler.handsfree import Bay

H = HANDSFREE
HP = handsfree_parts
SENSOR = ("door_beams", "door_beam_clips", "Door emitter clip screws",
          "Door receiver clip screws")
WIDTHS = (design.POKER_WIDTH_MM, design.BRIDGE_WIDTH_MM)


@pytest.fixture(scope="module")
def closed() -> dict[str, Part]:
    return handsfree_assembly(H)


def _sensor(model: dict[str, Part]) -> dict[str, Part]:
    return {n: p for n, p in model.items() if n.startswith(SENSOR)}


def _rest(model: dict[str, Part]) -> dict[str, Part]:
    return {n: p for n, p in model.items() if not n.startswith(SENSOR)}


def _pile(h: HandsFree, bay: Bay, cards: int, thickness: float, width: float,
          off: float = 0.05) -> Part:
    """``cards`` of ``thickness`` lying on ``bay``'s shut doors, their back edges ``off`` the
    back wall (the bay's end wall, where every card stops)."""
    x0 = h.shaft_x[0] + off
    z = h.doors_z(bay)
    return _box(x0, x0 + h.g.card_length, -width / 2, width / 2, z, z + cards * thickness)


def _covered(beam: Part, block: Part) -> float:
    """The share of the beam's light that ``block`` stands in: the beam's section at
    mid-shaft that ``block`` covers there (a pile and a pad reach across the beam's middle
    alike, so a line of light it passes there it passes everywhere)."""
    mid = beam & _box(-1000, 1000, -0.05, 0.05, -1000, 1000)
    return handsfree_sweep.common(mid, block) / mid.volume


def test_the_least_pile_a_game_decks_plan_makes_breaks_each_beam():
    """The smallest pile any pass of a 52- or 104-card plan leaves in a bay (a fresh plan
    after a fault has the same counts) is 24 cards; 20 of the thinnest cards (0.28 mm) cover
    the whole beam, 19 do not: the beam's top edge is 5.5 mm over the doors. The pile lies
    against the back wall, where every card stops, and covers the beam still 1.95 mm off it;
    the felt pad in its pocket in the back wall shades none of the beam."""
    least = min(min(c.upper, c.lower) for n in GAME_DECKS
                for k in (handsfree.minimum_passes(n), handsfree.face_down_passes(n))
                for c in handsfree.bay_counts(n, k))
    assert least == H.least_pile() == 24
    n = H.door_beam_cards
    assert n <= least
    t_min, t_max = H.g.card_thickness_min, H.g.card_thickness_max
    for bay in BAYS:
        beam = HP.door_beam(H, bay)
        for width in WIDTHS:
            for off in (0.05, 1.95):
                for t in (t_min, t_max):
                    assert _covered(beam, _pile(H, bay, n, t, width, off)) == (
                        pytest.approx(1.0, abs=1e-6)), (bay, width, off, t)
            # one card fewer of the thinnest leaves the beam's top edge open
            assert _covered(beam, _pile(H, bay, n - 1, t_min, width)) < 1.0 - 1e-3
            assert _covered(beam, HP.end_pads(H)) == 0.0
    print(f"\nleast pile of a game deck's plan: {least} cards; the beam is broken wholly by "
          f"{n} cards of {t_min} mm ({n * t_min:.2f} mm), its axis {H.door_beam_h} mm and "
          f"its top edge {H.door_beam_h + HP.LED_D / 2:.1f} mm over the doors")


DOOR_ANGLES = [0.0, 15.0, 30.0, 45.0, 60.0, 75.0, 90.0]


def test_with_the_bays_empty_nothing_stands_in_either_beam(closed):
    """Each beam from lens to lens meets no part: the doors shut, turning and open, the
    press on a full deck and swung out; it passes behind every leaf's back end (the shut
    leaves' top is not under it at all) and through its bores without touching them."""
    rest = _rest(closed)
    model = {n: p for n, p in rest.items() if n != "door_leaves"}
    swung = handsfree_sweep.press_parts(handsfree_assembly(H, 90.0, H.press_swing))
    for bay in BAYS:
        beam = HP.door_beam(H, bay)
        assert beam.bounding_box().max.X < HP.leaf_x(H)[0] - 0.5 - 1.0  # the pockets' end
        assert handsfree_sweep.hits(beam, rest) == {}, bay
        for angle in DOOR_ANGLES:
            assert handsfree_sweep.hits(beam, {"leaves": HP.door_leaves(H, angle)}) == {}
        assert handsfree_sweep.hits(beam, swung | model) == {}, bay
        # and it is long enough to cross the whole shaft: its lenses are in the walls
        b = beam.bounding_box()
        assert b.min.Y < -H.shaft_half_w and b.max.Y > H.shaft_half_w


def test_the_beam_would_be_seen_blocked():
    """The test's beam is not beside the point: a leaf moved into its x meets it, and so
    does the upper pile falling past the lower beam."""
    beam = HP.door_beam(H, Bay.LOWER)
    leaf = HP.leaf(H, Bay.LOWER, -1)
    lx0 = HP.leaf_x(H)[0]
    assert handsfree_sweep.common(Pos(HP.skew_x(H) - lx0, 0, 4.0) * leaf, beam) > 1.0
    falling = handsfree_sweep.pile(H, H.doors_z(Bay.LOWER) + 2.0, 28, design.POKER_WIDTH_MM)
    assert handsfree_sweep.common(falling, beam) > 1.0


def _swept(moving: list[Part], sensor: dict[str, Part]) -> dict[int, dict[str, float]]:
    met = {}
    for i, part in enumerate(moving):
        found = handsfree_sweep.hits(part, sensor)
        if found:
            met[i] = found
    return met


def test_the_leaves_turn_clear_of_the_sensors(closed):
    """Every leaf through its whole swing, every 5 degrees, against the LEDs, the clips and
    their screws (least clearance printed)."""
    sensor = _sensor(closed)
    assert set(n.split(" #")[0] for n in sensor) == set(SENSOR)
    leaves = [HP.leaf(H, bay, side, a) for bay in BAYS for side in (-1, 1)
              for a in range(0, 95, 5)]
    assert _swept(leaves, sensor) == {}
    least = min(HP.door_beam_leds(H).distance_to(leaf) for leaf in
                (HP.leaf(H, bay, side, a) for bay in BAYS for side in (-1, 1)
                 for a in (0.0, 90.0)))
    print(f"\nleast clearance of the LEDs to a leaf, shut or open: {least:.2f} mm")
    assert least >= 1.0


@pytest.mark.parametrize("cards", [0, 104])
def test_the_press_moves_clear_of_the_sensors(closed, cards):
    """The press along its whole path (lifted in 1.5 mm steps off an empty tray's tyre or a
    full deck, then turned out in 1.5 degree steps) meets none of the sensors' parts, and
    stands farther from them than it moves between two poses."""
    sensor = _sensor(closed)
    press = None
    for p in handsfree_sweep.press_parts(closed).values():
        press = p if press is None else press + p
    path = H.press_path(cards, 1.5, 1.5)
    step = max(1.5, math.radians(1.5) * H.press_reach())  # the most a point moves per pose
    moved = [HP.press_move(H, press, z, a) for z, a in path]
    assert _swept(moved, sensor) == {}
    near = [d for p in moved for d in handsfree_sweep.clearances(p, sensor, step).values()]
    assert all(d >= step for d in near), min(near)
    print(f"\n{cards} cards: no sensor part within {step:.2f} mm of the press at any pose")


def test_the_piles_fall_past_the_sensors():
    """Each bay's fullest pile, in 3 mm steps from its doors to the tray's tyre, in every
    card width and at both ends of its slack along the shaft, meets no LED, clip or screw:
    nothing of them stands inside the shaft's walls."""
    sensor = {"door_beams": HP.door_beam_leds(H), "door_beam_clips": HP.door_beam_clips(H)}
    sensor |= {n: p for n, p in handsfree_fasteners.assembly_solids(H).items()
               if n.startswith(SENSOR)}
    for p in sensor.values():
        b = p.bounding_box()
        assert min(abs(b.min.Y), abs(b.max.Y)) > H.shaft_half_w + 0.5
    xb, xf = H.shaft_x
    for bay in BAYS:
        z = H.doors_z(bay)
        while z >= H.g.nip[1]:
            for width in WIDTHS:
                for x0 in (xb + 0.05, xf - 0.05 - H.g.card_length):
                    pile = _box(x0, x0 + H.g.card_length, -width / 2, width / 2, z,
                                z + handsfree.BAY_CAPACITY * H.g.card_thickness_max)
                    assert handsfree_sweep.hits(pile, sensor) == {}, (bay, z)
            z -= 3.0


def _lid_at(h: HandsFree, lid: Part, angle: float) -> Part:
    """The lid swung ``angle`` degrees open about its hinge pin (its foot outwards, +y)."""
    py = HP.lid_pin_y(h)
    pz = HP.lid_hinge_z(h)
    return Pos(0, py, pz) * Rot(angle, 0, 0) * Pos(0, -py, -pz) * lid


def test_the_lid_swings_clear_of_the_receivers(closed):
    """The lid turned about its pin from shut to folded right back over the shaft (every
    5 degrees to 180, past its stop: the lid's own sweep is test_cad_handsfree_lid's) never
    meets a receiver, its clip or its screw: they sit
    above the lid's knuckles, the receivers' leads bent up along their clips."""
    sensor = {n: p for n, p in _sensor(closed).items()
              if n.startswith(("door_beam_clips", "Door receiver clip screws"))}
    sensor["receivers"] = closed["door_beams"] & _box(-1000, 1000, 0.0, 1000, -1000, 1000)
    lid = closed["lid"]
    met = {a: f for a in range(0, 185, 5)
           if (f := handsfree_sweep.hits(_lid_at(H, lid, float(a)), sensor))}
    assert met == {}
    least = min(_lid_at(H, lid, float(a)).distance_to(sensor["door_beam_clips"])
                for a in range(0, 185, 15))
    print(f"\nthe lid's least clearance to the receivers' clips over its swing: {least:.2f} mm")


def test_each_clip_screw_threads_into_the_wall_and_stops_inside_it(closed):
    """Each clip's M2 reaches 4 mm (two diameters) into the 5 mm wall and stops 1 mm short
    of its inner face, where the piles slide."""
    for row in handsfree_fasteners.table(H):
        if not row.row.startswith(SENSOR):
            continue
        assert row.thread_in == "shaft" and row.clamps == ("door_beam_clips",)
        for seat in row.seats:
            tip = abs(seat[1]) - row.tip
            assert abs(seat[1]) - HP.CLIP_T - tip == pytest.approx(2 * row.d)
            assert tip >= H.shaft_half_w + 1.0 - 1e-9


def test_a_beam_too_low_for_the_knuckle_seats_is_refused():
    with pytest.raises(ValueError, match="knuckle seats"):
        HandsFree(door_beam_h=3.0)


def test_the_software_sees_the_beams_the_cad_draws():
    """The controller's least pile a beam sees and the simulator's beam are the drawn
    beam's: its axis over the doors and its bore's top."""
    from hardware.shuffler.shaft import DEFAULT_SHAFT

    assert H.door_beam_cards == handsfree.DOOR_BEAM_CARDS
    assert DEFAULT_SHAFT.door_beam_top_mm == pytest.approx(H.door_beam_h + H.beam_d / 2)
