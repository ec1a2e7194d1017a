"""The hands-free machine measured on its solids: nothing meets anything, closed or open;
a card swept up the riser into each bay; each pile swept down the shaft past the open
leaves to the tray, and the upper pile onto the lower doors when they are shut; the leaves
and the press arm turned through their travel; every fastener a solid from its table.

A card here is the thickest (0.32 mm) less 0.01 mm, centred on the path's centre line: the
channel's floor and the nips' tyres and idlers stand exactly a thickest card apart, so any
overlap at all is a collision, never the squeeze of a nip. Poses every 4 mm of the head's
travel (the card is 88.9 mm long: every point of the path is under 22 poses).

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import handsfree_fasteners, handsfree_parts, handsfree_sweep
from hardware.shuffler.cad.assembly import handsfree_assembly
from hardware.shuffler.cad.handsfree_params import BAYS, HANDSFREE
from hardware.shuffler.cad.measure import overlaps
from hardware.shuffler.handsfree import Bay

H = HANDSFREE
CARD_T = design.CARD_THICKNESS_MAX_MM - 0.01
STEP = 4.0
PILE = 64  # a bay's capacity: the tallest pile that ever drops


@pytest.fixture(scope="module")
def closed():
    return handsfree_assembly(H)


@pytest.fixture(scope="module")
def opened():
    """Every leaf hanging in its pocket, the press arm swung out."""
    return handsfree_assembly(H, doors=90.0, press=H.press_swing)


def test_no_two_parts_meet_with_the_doors_shut_or_open(closed, opened):
    for model in (closed, opened):
        found = {k: round(v, 3) for k, v in overlaps(model).items() if v > 1e-3}
        assert found == {}


@pytest.mark.slow
@pytest.mark.parametrize("bay", BAYS)
def test_a_card_rises_through_the_riser_into_each_bay_touching_nothing(closed, bay):
    model = {n: p for n, p in closed.items() if n not in handsfree_sweep.ABOVE}
    model["flap"] = handsfree_parts.flap(H, bay)  # set for this bay
    start = 20.0  # the head on the tray's land, past the gate (the Lotus sweep covers before)
    end = H.shaft.slot_mm(bay) + H.g.card_length - 4.0  # the tail through the slot
    head, met = start, {}
    for width in (design.POKER_WIDTH_MM,):
        head = start
        while head <= end:
            c = handsfree_sweep.card(H, bay, head, CARD_T, width)
            found = handsfree_sweep.hits(c, model)
            if found:
                met[round(head, 1)] = found
            head += STEP
    assert met == {}


def test_the_card_would_be_seen_hitting_a_wall():
    """The sweep's card, lifted 3 mm off its path at the curl, meets the riser's roof."""
    body = handsfree_parts.riser_body(H)
    for lift in (-0.2, 3.8):  # into the floor, into the roof
        c = handsfree_sweep.card(H, Bay.LOWER, 100.0, CARD_T, design.POKER_WIDTH_MM, lift=lift)
        assert handsfree_sweep.common(c, body) > 1.0, lift


def _pile_model(model):
    return {n: p for n, p in model.items() if n not in ("deck", "press_foot")}


@pytest.mark.parametrize("bay", BAYS)
def test_each_pile_falls_past_the_open_leaves_to_the_tray(opened, bay):
    model = _pile_model(opened)
    top = H.doors_z(bay)
    floor = H.g.nip[1]  # the pile lands on the tyre's top, as the deck does
    met, z = {}, top
    while z >= floor:
        found = handsfree_sweep.hits(handsfree_sweep.pile(H, z, PILE, design.POKER_WIDTH_MM),
                                     model)
        if found:
            met[round(z - H.zf, 1)] = found
        z -= 3.0
    assert met == {}
    # and it lies on the tyre, its front short of the gate blade
    landed = handsfree_sweep.pile(H, floor, PILE, design.POKER_WIDTH_MM)
    assert handsfree_sweep.hits(landed, model) == {}


def test_the_upper_pile_lands_on_the_shut_lower_doors(closed):
    """With the lower doors shut the upper pile (over the lower pile) falls only to them."""
    model = _pile_model(dict(closed))
    leaves = {bay: handsfree_parts.leaf(H, bay, s, 90.0 if bay is Bay.UPPER else 0.0)
              for bay in BAYS for s in (-1, 1)}
    model["door_leaves"] = leaves[Bay.LOWER] + leaves[Bay.UPPER]
    model["door_leaves"] = (handsfree_parts.leaf(H, Bay.LOWER, -1) +
                            handsfree_parts.leaf(H, Bay.LOWER, 1) +
                            handsfree_parts.leaf(H, Bay.UPPER, -1, 90.0) +
                            handsfree_parts.leaf(H, Bay.UPPER, 1, 90.0))
    rest = H.doors_z(Bay.LOWER)
    z = H.doors_z(Bay.UPPER)
    while z >= rest:
        pile = handsfree_sweep.pile(H, z, PILE, design.POKER_WIDTH_MM)
        assert handsfree_sweep.hits(pile, model) == {}, round(z - H.zf, 1)
        z -= 3.0
    below = handsfree_sweep.pile(H, rest - 1.0, PILE, design.POKER_WIDTH_MM)
    assert "door_leaves" in handsfree_sweep.hits(below, model)


ANGLES = [15.0, 30.0, 45.0, 60.0, 75.0]


SWING_STEP_DEG = 1.5
LIFT_STEP_MM = 1.5
SUPPORTS = ("deck", "o_rings", "handsfree_tray")  # what the foot rests on, and leaves upwards


def _travel(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The farthest any point of the press moves between two poses of its path."""
    return abs(b[0] - a[0]) + H.press_reach() * math.radians(abs(b[1] - a[1]))


@pytest.mark.parametrize("cards", [0, 104])
def test_the_press_swings_out_with_its_foot_clear_of_everything(closed, cards):
    """The press leaves the shaft before any door opens: lifted straight up its post off the
    deck (an empty tray's after a pass; a full one's at the start, when it comes back the same
    way), then turned out on the helical leg. At every pose of that path the arm, the foot,
    the follower, the weight and the foot's screws meet nothing; and what swings wide (all
    but the hub, which turns on its own axis) stands clear of every part by more than half
    the farthest any point of it moves to the next pose or from the last, so the path
    between the poses is clear too (at rest the foot touches only what it rests on, and
    leaves it straight up)."""
    from hardware.shuffler.cad.parts import deck

    rest = handsfree_sweep.press_parts(closed)
    # the link's horn and lever move with the press (test_cad_handsfree_link sweeps them)
    model = {n: p for n, p in closed.items()
             if n not in rest and n != "deck" and n not in handsfree_parts.LINK_MOVING}
    if cards:
        model["deck"] = deck(H.g, cards)
    press = None
    for p in rest.values():
        press = p if press is None else press + p
    far = handsfree_sweep.press_far(H, press)
    path = H.press_path(cards, LIFT_STEP_MM, SWING_STEP_DEG)
    assert path[0] == (pytest.approx(H.press_rest_z(cards)), 0.0)
    assert path[-1][1] == H.press_swing >= 90.0
    assert path[-1][0] - path[0][0] >= H.press_swing_z - H.press_rest_z(cards) > 0
    met, short, least = {}, {}, {}
    for i, (foot_z, swung) in enumerate(path):
        moving = handsfree_parts.press_move(H, press, foot_z, swung)
        found = handsfree_sweep.hits(moving, model)
        if found:
            met[(round(foot_z - H.zf, 1), swung)] = found
        need = max(_travel(path[j], path[j + 1]) for j in (i - 1, i)
                   if 0 <= j < len(path) - 1) / 2
        wide = handsfree_parts.press_move(H, far, foot_z, swung)
        for name, d in handsfree_sweep.clearances(wide, model, 3.0).items():
            if i == 0 and name in SUPPORTS:
                continue
            least[name] = min(least.get(name, d), d)
            if d < need:
                short[(round(foot_z - H.zf, 1), swung, name)] = (round(d, 2), round(need, 2))
    assert met == {}
    print(f"\n{cards} cards: least clearance of the swinging press (mm):",
          {k: round(v, 2) for k, v in sorted(least.items(), key=lambda kv: kv[1])})
    assert short == {}


def test_swung_out_the_press_stands_clear_of_the_shaft_inside_and_the_open_leaves(opened):
    """Turned out, no part of the press is over the tray or in the -y wall, where the piles
    fall and the open leaves hang."""
    press = None
    for p in handsfree_sweep.press_parts(opened).values():
        press = p if press is None else press + p
    y_wall = -(H.shaft_half_w + H.shaft_wall)
    assert press.bounding_box().max.Y < y_wall  # the hub, by the wall
    assert handsfree_sweep.press_far(H, press).bounding_box().max.Y < y_wall - 2.0
    # and turned back in, the foot rests on the deck over the nip
    rest = handsfree_parts.press_foot(H).bounding_box()
    assert rest.min.Z == pytest.approx(H.g.nip[1] + H.g.pile_height(H.g.capacity_cards))
    assert rest.min.X <= 0.0 <= rest.max.X


def test_the_leaves_turn_clear_of_everything_once_the_press_is_out(opened):
    """A restack: the tray empty, the press out; every leaf turns through its travel."""
    model = {n: p for n, p in opened.items() if n not in ("door_leaves", "deck")}
    for angle in ANGLES:
        assert handsfree_sweep.hits(handsfree_parts.door_leaves(H, angle), model) == {}, angle


def test_the_shut_doors_carry_a_pile_and_the_open_ones_clear_the_shafts_inside():
    for bay in BAYS:
        shut = handsfree_parts.door_leaves(H, 0.0)
        on = handsfree_sweep.pile(H, H.doors_z(bay) - 0.5, 8, design.POKER_WIDTH_MM)
        assert handsfree_sweep.common(on, shut) > 1.0
    open_ = handsfree_parts.door_leaves(H, 90.0).bounding_box()
    assert open_.max.Y - open_.min.Y > 2 * H.shaft_half_w  # in the walls' pockets ...
    # ... clear of the widest card and its side clearance (the knuckles stand 1 mm proud of
    # the walls, beyond it)
    half = design.POKER_WIDTH_MM / 2 + H.g.side_clearance / 2
    inside = handsfree_parts._box(H.shaft_x[0], H.shaft_x[1], -half, half, H.zf, H.zf + 140)
    assert handsfree_sweep.common(inside, handsfree_parts.door_leaves(H, 90.0)) == 0.0


def test_each_bay_lands_its_cards_on_a_felt_pad_flush_with_the_back_wall(closed):
    """The cards reach the back wall faster than they would stand up against bare plastic
    (the simulator lands them by the padded wall's speed): each bay's pad lies where the
    card's leading edge strikes, from the doors to past its slot, its face flush with the
    wall's, so a card lying against it has the shaft's whole length and pushed 0.1 mm
    further meets the pad; 2 mm of wall or more stands behind the pocket."""
    from hardware.shuffler import physics

    riser = design.RISER_CARD_SPEED_MM_S
    assert physics.stand_up_speed_mm_s(padded=False) < riser < physics.stand_up_speed_mm_s(
        padded=True)
    shaft, pads = closed["shaft"], closed["end_pads"]
    xb, xf = H.shaft_x
    xo = handsfree_parts.shaft_outer(H)[0]
    for bay in BAYS:
        x0, x1, y0, y1, z0, z1 = handsfree_parts.end_pad_box(H, bay)
        assert x1 == pytest.approx(xb) and x1 - x0 == pytest.approx(design.END_WALL_PAD_MM)
        assert z0 <= H.doors_z(bay) + 1.0 and z1 >= H.slot_z(bay) + H.gap
        assert -y0 == y1 and y1 - y0 >= 60.0
        # a card lying at the wall, at every height the pad spans, has room to the front wall
        for z in (z0 + 1.0, (z0 + z1) / 2, z1 - 1.0):
            card = handsfree_sweep.pile(H, z, 1, design.POKER_WIDTH_MM)
            assert handsfree_sweep.hits(card, {"shaft": shaft, "end_pads": pads}) == {}
            assert xf - (xb + 0.05 + H.g.card_length) > 3.0
            pushed = handsfree_parts._box(xb - 0.1, xb + H.g.card_length, -20.0, 20.0, z,
                                          z + CARD_T)
            assert set(handsfree_sweep.hits(pushed, {"shaft": shaft, "end_pads": pads})) == {
                "end_pads"}
        zc, back = (z0 + z1) / 2, x0 - 0.2
        behind = handsfree_parts._box(xo + 0.01, back - 0.01, -0.5, 0.5, zc - 0.5, zc + 0.5)
        assert handsfree_sweep.common(behind, shaft) == pytest.approx(behind.volume, rel=1e-6)
        assert back - xo >= 2.0


METAL_THREADS = ("load_cell", "riser_motor", "router_solenoid")


def test_every_fastener_is_a_solid_from_its_table_and_threads_deep_enough(closed):
    """Each screw reaches into the part it threads into by two diameters in printed plastic
    (the bought load cell's M4 threads, the riser motor's tapped M3 holes and the router
    solenoid's tapped M2 holes, metal: a diameter), and stops before leaving it (a screw
    past a tapped hole's bottom would meet the part: the first test)."""
    from hardware.shuffler.cad.fasteners import MIN_ENGAGEMENT
    from hardware.shuffler.cad.measure import material_runs

    rows = handsfree_fasteners.table(H)
    solids = handsfree_fasteners.assembly_solids(H)
    assert len(solids) == sum(len(f.seats) for f in rows)
    for f in rows:
        need = (1.0 if f.thread_in in METAL_THREADS else MIN_ENGAGEMENT) * f.d
        for n, seat in enumerate(f.seats):
            assert f"{f.row} #{n + 1}" in solids
            # a ray beside the axis, in the thread the screw forms (not its pilot hole)
            off = [0.0, 0.0, 0.0]
            off[[i for i in range(3) if f.axis[i] == 0][0]] = f.d / 2 * 0.95
            start = [seat[i] + off[i] - f.axis[i] * 30.0 for i in range(3)]
            runs = material_runs(closed[f.thread_in], tuple(start), f.axis)
            grip = sum(max(0.0, min(b, 30.0 + f.tip) - max(a, 30.0)) for a, b in runs)
            assert grip >= need - 1e-6, (f.row, n, round(grip, 2))


def test_both_side_plates_carry_every_driven_hubs_bearings():
    """Each hub's shaft runs in a bearing in each side plate: a full ring of plate, 2 mm
    wide round the bearing's seat, at every roller pair (the hubs run outside the
    curl, beyond the floor's outer face, where the plate would otherwise end)."""
    from hardware.shuffler.cad.parts import _y_cylinder

    yi, yb, yc = handsfree_parts.riser_halves(H)
    body, cover = handsfree_parts.riser_body(H), handsfree_parts.riser_cover(H)
    seat = H.bearing_od + 0.1
    for r in handsfree_parts.rollers(H):
        x, z = r.hub_axis(H)
        for plate, y0, y1 in ((body, yb, -yi), (cover, yi, yc)):
            ring = _y_cylinder(x, z, seat + 4.0, y0, y1) - _y_cylinder(x, z, seat, y0 - 1, y1 + 1)
            # (the hub's window takes 0.01 mm off the plate's inner face)
            assert handsfree_sweep.common(ring, plate) == pytest.approx(ring.volume, rel=1e-2), \
                r.name


@pytest.mark.parametrize("bay", BAYS)
def test_the_flap_set_for_each_bay_turns_clear_and_leads_the_card_into_its_branch(closed, bay):
    """The flap turns from the lower bay's setting to the upper's (17.75 degrees out) clear
    of everything; set for ``bay``, a card whose head runs from the fork to 40 mm past it
    (every 2 mm) meets neither the flap nor the riser: the flap's top stays under the floor
    of the branch the card takes, where the floors of the two curve apart."""
    # the lever, its pin, the link, the plunger and the spring turn with the flap (keyed on
    # its stub): test_cad_handsfree_router sweeps them together
    model = {n: p for n, p in closed.items()
             if n not in ("flap", "deck", "press_foot", *handsfree_parts.ROUTER_MOVING)}
    end = handsfree_parts.flap_angle(H)
    assert 10.0 < end < 25.0
    px, pz = handsfree_parts.flap_pivot(H)
    flap = handsfree_parts.flap(H, Bay.LOWER)
    for k in range(7):
        a = end * k / 6
        turned = handsfree_parts.Pos(px, 0, pz) * handsfree_parts.Rot(0, a, 0) * \
            handsfree_parts.Pos(-px, 0, -pz) * flap
        assert handsfree_sweep.hits(turned, model) == {}, round(a, 1)
    set_ = {"flap": handsfree_parts.flap(H, bay), "riser_body": closed["riser_body"]}
    fork = H.shaft.flap_mm
    met = {}
    for head in range(int(fork) - 2, int(fork) + 40, 2):
        c = handsfree_sweep.card(H, bay, float(head), CARD_T, design.POKER_WIDTH_MM)
        found = handsfree_sweep.hits(c, set_)
        if found:
            met[head] = found
    assert met == {}
    # and the other setting routes it away: set for the lower bay the flap stands across the
    # upper branch's path; set for the upper, it leaves the lower branch's floor open under
    # the card (which, bent, presses outwards and follows the upper floor)
    c = handsfree_sweep.card(H, bay, fork + H.g.vane_length, CARD_T, design.POKER_WIDTH_MM)
    if bay is Bay.UPPER:
        assert handsfree_sweep.common(c, handsfree_parts.flap(H, Bay.LOWER)) > 1.0
    else:  # the turned flap's tip stands well off the lower floor's line
        tip = handsfree_parts.flap(H, Bay.UPPER)
        line = handsfree_parts._offset_line(H, Bay.LOWER, fork + H.g.vane_length - 1.0,
                                            fork + H.g.vane_length, handsfree_parts.floor_off(H))
        probe = handsfree_parts._xz_prism(line + [(x, z - 0.01) for x, z in line[::-1]],
                                          -20.0, 20.0)
        assert probe.distance_to(tip) > 2.0
