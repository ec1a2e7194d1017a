"""The press's link measured on its CAD: the lift servo's horn and the turn servo's slotted
lever swept with the press through the whole travel (lifted off an empty tray and off a full
one, turned out, and back the same way) against every part of the machine; slack on the deck
at every height; each servo's torque from the geometry under the SG90's stall across the
friction and the tungsten's ranges; the press falling by its own weight; the turn driven both
ways; the servos' angles and times; and how the press and the lower leaves may overlap in
time.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import handsfree
from hardware.shuffler.cad import handsfree_fasteners as hf
from hardware.shuffler.cad import handsfree_link_forces as lf
from hardware.shuffler.cad import handsfree_parts as hp
from hardware.shuffler.cad import handsfree_sweep
from hardware.shuffler.cad.handsfree_params import HANDSFREE
from hardware.shuffler.cad.measure import overlaps
from hardware.shuffler.handsfree import Bay

H = HANDSFREE
LIFT_STEP = 4.0  # degrees of the lift servo: the tip moves 1.3 mm
TURN_STEP = 1.5  # degrees of the press: its farthest point moves 1.9 mm
# What a moving part may touch: the hub and the sleeve turn and slide on the post and the
# follower runs in its groove (the shaft); each horn is on its servo's shaft; the foot rests
# on the deck (or the empty tray's tyre, in the tray) and leaves it straight up.
BEARS = {"press": {"shaft"}, "press_lift_horn": {"press_lift_sg90"},
         "press_turn_lever": {"press_turn_sg90"}}
RESTING = {"deck", "handsfree_tray", "o_rings"}
TUNGSTEN = hf.TUNGSTEN_RANGE_G_MM3


@pytest.fixture(scope="module")
def model():
    from hardware.shuffler.cad.assembly import handsfree_assembly

    return handsfree_assembly(H)


def _press(model: dict) -> object:
    out = None
    for p in handsfree_sweep.press_parts(model).values():
        out = p if out is None else out + p
    return out


def _poses(cards: int) -> list[tuple[float, float, float, float]]:
    """(lift servo deg, turn servo deg, foot z, press deg) through the whole travel out: the
    lift from rest to the top, then the turn (the way back is the same poses reversed)."""
    out = []
    n = math.ceil(hp.lift_travel(H) / LIFT_STEP)
    for i in range(n + 1):
        a = hp.lift_travel(H) * i / n
        out.append((a, 0.0, hp.lift_foot_z(H, a, cards), 0.0))
    k = math.ceil(H.press_swing / TURN_STEP)
    for i in range(1, k + 1):
        s = H.press_swing * i / k
        out.append((hp.lift_travel(H), hp.turn_servo_deg(H, s), H.press_swing_z, s))
    return out


def _step(a: tuple, b: tuple) -> dict[str, float]:
    """The farthest any point of the press, the horn and the lever moves between two
    poses."""
    tip = hp.LIFT_R + hp.LIFT_TIP_D / 2
    lever = hp.slot_span(H)[1] + 2.0 + hp.LEVER_W / 2
    return {"press_lift_horn": tip * math.radians(abs(b[0] - a[0])),
            "press_turn_lever": lever * math.radians(abs(b[1] - a[1])),
            "press": abs(b[2] - a[2]) + H.press_reach() * math.radians(abs(b[3] - a[3]))}


@pytest.mark.parametrize("cards", [0, 104])
def test_the_link_lifts_and_turns_the_press_clear_of_everything(model, cards):
    """At every pose of the travel the press (arm, foot, sleeve, pins, weight, screws), the
    lift's horn and the turn's lever meet no other part, nor each other beyond touching (the
    tip under the lug, the pin in the slot); and each stands clear of everything but what it
    runs on by more than half the farthest any of them moves to the next pose or from the
    last, so the motion between the poses is clear too (lifting, the foot leaves what it
    rests on straight up)."""
    from hardware.shuffler.cad.parts import deck

    press = _press(model)
    moving_names = set(handsfree_sweep.press_parts(model)) | set(hp.LINK_MOVING)
    static = {n: p for n, p in model.items() if n not in moving_names and n != "deck"}
    if cards:
        static["deck"] = deck(H.g, cards)
    far = handsfree_sweep.press_far(H, press)
    poses = _poses(cards)
    met, short, least = {}, {}, {}
    for i, (lift, turn, fz, swung) in enumerate(poses):
        moving = {"press": hp.press_move(H, press, fz, swung)} | hp.link_moving(H, lift, turn)
        for name, part in moving.items():
            found = handsfree_sweep.hits(part, static)
            if found:
                met[(round(lift, 1), round(swung, 1), name)] = found
        inner = {pair: v for pair, v in overlaps(moving).items() if v > 1e-3}
        if inner:
            met[(round(lift, 1), round(swung, 1), "each other")] = inner
        steps = [_step(poses[j], poses[j + 1]) for j in (i - 1, i) if 0 <= j < len(poses) - 1]
        wide = {"press": hp.press_move(H, far, fz, swung)} | hp.link_moving(H, lift, turn)
        # lifting, the press leaves what it rests on straight up: away from it
        resting = swung == 0.0
        for name, part in wide.items():
            need = max(st[name] for st in steps) / 2
            skip = BEARS[name] | (RESTING if name == "press" and resting else set())
            near = handsfree_sweep.clearances(part, {n: p for n, p in static.items()
                                                     if n not in skip}, 3.0)
            for other, d in near.items():
                least[(name, other)] = min(least.get((name, other), d), d)
                if d <= need:
                    short[(round(lift, 1), round(swung, 1), name, other)] = (round(d, 2),
                                                                            round(need, 2))
    assert met == {}
    print(f"\n{cards} cards, {len(poses)} poses: least clearances of the press and its link "
          "(mm):", {f"{a}/{b}": round(d, 2) for (a, b), d in sorted(least.items(),
                                                                     key=lambda kv: kv[1])})
    assert short == {}


@pytest.mark.parametrize("cards", [0, 52, 104])
def test_the_link_is_slack_with_the_press_on_the_deck(model, cards):
    """With the press resting on a deck of any height and both servos at rest, no part of the
    link touches any part of the press: the press's whole weight is on the deck. The lift's
    tip stands ``LIFT_SLACK`` or more under the lug (exactly that on an empty tray)."""
    press = _press(model)
    rest = hp.press_move(H, press, H.press_rest_z(cards), 0.0)
    gaps = {n: rest.distance_to(p) for n, p in hp.link_moving(H).items()}
    print(f"\n{cards} cards at rest: the link off the press (mm):",
          {n: round(d, 2) for n, d in gaps.items()})
    assert min(gaps.values()) > 0.1
    assert gaps["press_lift_horn"] >= hp.LIFT_SLACK - 1e-3
    if cards == 0:
        assert gaps["press_lift_horn"] == pytest.approx(hp.LIFT_SLACK, abs=1e-3)
    # and the lift, turning up, takes the press off the deck only once its tip meets the lug
    assert hp.lift_foot_z(H, 0.0, cards) == pytest.approx(H.press_rest_z(cards))
    assert hp.lift_foot_z(H, hp.lift_travel(H), cards) == pytest.approx(H.press_swing_z)


def test_the_press_falls_by_its_weight_and_the_lift_pushes_it_up_within_the_servo():
    """Hung from its bore (let down, the tip going down ahead of it) the press's weight beats
    the bore's friction across the friction's range and the tungsten's; the lift servo's
    torque, from the tip's lever arm and its sliding along the lug at every pose where it
    bears, stays at most 55 % of the SG90's stall (a margin of 1.8 or more); the 16 mm hub
    alone would jam."""
    worst_fall, worst_lift = 0.0, 0.0
    for mu in lf.MU_RANGE:
        for d in TUNGSTEN:
            worst_fall = max(worst_fall, lf.fall_ratio(H, mu, d))
            n = math.ceil(hp.lift_travel(H) / 2.0)
            for i in range(n + 1):
                a = hp.lift_travel(H) * i / n
                if hp.lift_foot_z(H, a, 0) > H.press_rest_z(0) - 1e-9:
                    worst_lift = max(worst_lift, lf.lift_torque_nm(H, mu, a, d))
    print(f"\nthe bore's friction, the press hanging: {worst_fall:.2f} of its weight at worst; "
          f"the lift's torque {worst_lift * 1000:.1f} N mm at worst, "
          f"{worst_lift / lf.SG90_STALL_NM:.0%} of the SG90's stall "
          f"(margin {lf.SG90_STALL_NM / worst_lift:.2f})")
    assert worst_fall < 0.6
    assert worst_lift <= 0.55 * lf.SG90_STALL_NM
    from dataclasses import replace

    short = replace(H, press_hub_up=0.0)
    assert lf.fall_ratio(short, lf.MU_RANGE[1]) > 1.0  # the bore as it was: the press jams


def test_the_turn_servo_drives_the_press_both_ways():
    """At every pose of the turn the pin is in the lever's slot, and the lever turned on by
    its play and 1 degree more either way meets the pin: it drives the press out and back
    in. The pin is in the slot 3 mm deep at the top of the lift, and below the lever once
    the press is 4.5 mm lower. The turn servo's torque stays under 40 % of stall."""
    for i in range(0, 106, 5):
        s = H.press_swing * i / 105
        pin = hp.press_dog(H, H.press_swing_z, s)
        a = hp.turn_servo_deg(H, s)
        rho = math.dist(hp.turn_axis(H), hp.dog_point(H, s))
        play_deg = math.degrees((hp.slot_w(H) - hp.DOG_D) / 2 / rho)
        assert handsfree_sweep.common(hp.press_turn_lever(H, a), pin) < 1e-3, s
        for sign in (-1, 1):
            pushed = hp.press_turn_lever(H, a + sign * (play_deg + 1.0))
            assert handsfree_sweep.common(pushed, pin) > 0.01, (s, sign)
    top = hp.press_dog(H, H.press_swing_z).bounding_box().max.Z
    z0, _z1 = hp.lever_z(H)
    assert top - z0 >= 3.0
    assert hp.press_dog(H, H.press_swing_z - 4.5).bounding_box().max.Z < z0
    worst = max(lf.turn_torque_nm(H, mu, s, d) for mu in lf.MU_RANGE for d in TUNGSTEN
                for s in range(0, 106, 3))
    print(f"\nthe turn's torque {worst * 1000:.1f} N mm at worst, "
          f"{worst / lf.SG90_STALL_NM:.0%} of the SG90's stall")
    assert worst < 0.4 * lf.SG90_STALL_NM


def test_the_servos_angles_and_times():
    """The lift servo turns ``lift_travel`` (under the SG90's 180 degrees), meeting the lug at
    an angle that depends on the deck; the turn servo turns ``turn_travel``; the moves' times
    at the slowest SG90 (0.12 s/60 degrees unloaded, slowed by its load, and its inertia) at
    every corner of the friction's and the tungsten's ranges are printed."""
    meets = {n: next(a for a in [x / 10 for x in range(0, 1800)]
                     if hp.lift_foot_z(H, a, n) > H.press_rest_z(n) + 1e-6)
             for n in (0, 52, 104)}
    assert 0 < meets[0] < meets[52] < meets[104] < hp.lift_travel(H) < 180.0
    assert 90.0 < hp.turn_travel(H) < 180.0
    times = {}
    for mu in lf.MU_RANGE:
        for d in TUNGSTEN:
            out = lf.lift_s(H, mu, True, d) + lf.turn_s(H, mu, True, d)
            back = lf.turn_s(H, mu, False, d) + lf.lift_s(H, mu, False, d)
            times[(mu, round(d * 1000, 1))] = (round(out, 3), round(back, 3))
    print(f"\nlift servo: {hp.lift_travel(H):.1f} degrees (the tip meets the lug at "
          f"{meets[0]:.1f}, {meets[52]:.1f}, {meets[104]:.1f} degrees with 0, 52, 104 cards); "
          f"turn servo: {hp.turn_travel(H):.1f} degrees; out / back (s) by (mu, g/cm3):",
          times)
    unloaded = (hp.lift_travel(H) + hp.turn_travel(H)) / 60.0 * lf.SG90_S_PER_60
    assert all(unloaded < t for pair in times.values() for t in pair)
    assert all(t < 2.0 for pair in times.values() for t in pair)


def _leaves(opened: float) -> object:
    return hp.leaf(H, Bay.LOWER, -1, opened) + hp.leaf(H, Bay.LOWER, 1, opened)


def test_how_far_the_lower_leaves_may_be_open_as_the_press_turns(model):
    """Measured at the full deck's height (the press at the top of its lift), every 5
    degrees of the press and of the leaves: the lower leaves may still be this far open when
    the press starts turning back in (its whole way in clears them at that opening and any
    less), and the press must be turned out this far before they start to open (from there
    on it clears them at every opening)."""
    press = _press(model)
    poses = [hp.press_move(H, press, H.press_swing_z, float(s)) for s in range(0, 106, 5)]
    swept = poses[0]
    for p in poses[1:]:
        swept = swept + p
    may_be_open = 0.0
    for opened in range(0, 91, 5):
        if handsfree_sweep.common(swept, _leaves(float(opened))) > 1e-3:
            break
        may_be_open = float(opened)
    leaves = _leaves(0.0)
    for opened in range(5, 91, 5):
        leaves = leaves + _leaves(float(opened))
    clear = [handsfree_sweep.common(p, leaves) <= 1e-3 for p in poses]
    out_first = 105.0
    for i in range(len(poses) - 1, -1, -1):
        if not clear[i]:
            break
        out_first = 5.0 * i
    print(f"\nthe lower leaves may be up to {may_be_open:.0f} degrees open as the press starts "
          f"back in; the press must be {out_first:.0f} degrees out before they start to open")
    assert 0.0 <= may_be_open < 90.0
    assert 0.0 < out_first <= H.press_swing
    # the controller and the simulator take these as they are measured here
    assert handsfree.LEAVES_CLEAR_DEG <= may_be_open
    assert handsfree.PRESS_TURN_CLEAR_DEG >= hp.turn_servo_deg(H, out_first) - 0.1
    assert clear[-1]


def test_the_software_takes_the_links_angles_and_times_as_drawn():
    """The controller's and the simulator's press (hardware.shuffler.handsfree) is this
    link's: its servos' travels, where the horn holds the foot at each angle, and each
    move's time no shorter than the slowest the ranges of friction and tungsten give (and
    within 10 ms of it)."""
    assert handsfree.PRESS_LIFT_DEG == pytest.approx(hp.lift_travel(H), abs=0.1)
    assert handsfree.PRESS_TURN_DEG == pytest.approx(hp.turn_travel(H), abs=0.1)
    assert handsfree.PRESS_TURN_CLEAR_DEG == pytest.approx(hp.turn_servo_deg(H, 95.0), abs=0.1)
    nip = H.g.nip[1]
    for a, held in handsfree.PRESS_HOLDS_MM:
        top = hp.lift_tip(H, a)[1] + hp.LIFT_TIP_D / 2
        lifted = top - (H.press_foot_h + H.press_hub_up - hp.LUG_T)
        assert held == pytest.approx(min(lifted, H.press_swing_z) - nip, abs=0.01), a
    # between the table's points the straight line stays within 0.3 mm of the horn's arc
    for tenth in range(0, 1500, 25):
        a = tenth / 10
        deck = hp.lift_foot_z(H, a, 0) - nip  # the foot held by the horn over an empty tray
        if deck > 0:
            assert handsfree.press_holds_mm(a) == pytest.approx(deck, abs=0.3), a
    worst = {name: 0.0 for name in ("lift", "lower", "turn")}
    for mu in lf.MU_RANGE:
        for d in TUNGSTEN:
            worst["lift"] = max(worst["lift"], lf.lift_s(H, mu, True, d))
            worst["lower"] = max(worst["lower"], lf.lift_s(H, mu, False, d))
            worst["turn"] = max(worst["turn"], lf.turn_s(H, mu, True, d),
                                lf.turn_s(H, mu, False, d))
    for name, taken in (("lift", handsfree.PRESS_LIFT_S), ("lower", handsfree.PRESS_LOWER_S),
                        ("turn", handsfree.PRESS_TURN_S)):
        assert worst[name] <= taken < worst[name] + 0.01, name


def test_the_press_turning_out_passes_the_shaft_no_later_than_the_doors_reckon():
    """The lower doors are commanded open `doors_after_turn_s` after the press is commanded
    out, reckoning the slowest turn at an even speed through its move: at every corner of the
    friction's and the tungsten's ranges the loaded turn of the CAD passes
    PRESS_TURN_CLEAR_DEG no later than that reckoning (it is slowest at the start, under its
    load and inertia)."""
    clear = handsfree.PRESS_TURN_CLEAR_DEG
    frame = handsfree.SERVO_FRAME_S
    reckoned = frame + clear / handsfree.PRESS_TURN_DEG * (handsfree.PRESS_TURN_S - frame)
    worst = max(lf.turn_s(H, mu, True, d, upto_deg=clear)
                for mu in lf.MU_RANGE for d in TUNGSTEN)
    whole = max(lf.turn_s(H, mu, True, d) for mu in lf.MU_RANGE for d in TUNGSTEN)
    print(f"\nthe press passes {clear:.0f} degrees of its turn out in {worst:.3f} s at the "
          f"worst corner (reckoned {reckoned:.3f} s; the whole turn {whole:.3f} s)")
    assert 0.0 < worst <= reckoned < whole
