"""The hands-free router's solenoid, lever and link measured on their CAD: the flap, the lever,
its pin, the plunger's link, the plunger and the return spring swept together from the lower
bay's stop to the upper's against every part of the machine; the stops end the swing there
(the solenoid never bottoms); the solenoid's force and the spring turn the flap inside the
15 ms the controller allows, across the ranges of the force and the moving mass; the
router stands clear of the riser's belt drive, the bay beams and the floating tray.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import handsfree_parts as hp
from hardware.shuffler.cad import handsfree_sweep
from hardware.shuffler.cad.handsfree_params import HANDSFREE
from hardware.shuffler.cad.measure import overlaps

H = HANDSFREE
POSES = 12  # the swing in 12 steps: 1.5 degrees, at most 0.42 mm at the lever's end
MOVING = ("flap", *hp.ROUTER_MOVING)
# What a moving part may come near (it turns or slides in it, or rests on it): the flap's
# stubs in the side plates' holes, the lever's D-bore on the stub, its arm on the bracket's
# stops, the plunger in the solenoid's bore, the spring on the frame's face.
BEARS = {"riser_body", "riser_cover", "router_bracket", "flap", "router_solenoid"}


@pytest.fixture(scope="module")
def model():
    from hardware.shuffler.cad.assembly import handsfree_assembly

    return handsfree_assembly(H)


def _moving(a: float) -> dict:
    px, pz = hp.flap_pivot(H)
    out = {"flap": hp.Pos(px, 0, pz) * hp.Rot(0, a, 0) * hp.Pos(-px, 0, -pz) * hp.flap(H)}
    return out | hp.router_moving(H, a)


def test_the_router_turns_the_flap_stop_to_stop_clear_of_everything(model):
    """At every pose of the swing the flap, the lever, the pin, the link, the plunger and the
    spring meet no other part and none of each other; everything but what they turn in or
    rest on stands clear by more than the farthest any of them moves between two poses."""
    static = {n: p for n, p in model.items() if n not in MOVING}
    end = hp.flap_angle(H)
    met, least = {}, {}
    for k in range(POSES + 1):
        a = end * k / POSES
        moving = _moving(a)
        for name, part in moving.items():
            found = handsfree_sweep.hits(part, static)
            if found:
                met[(round(a, 2), name)] = found
        inner = {pair: v for pair, v in overlaps(moving).items() if v > 1e-3}
        if inner:
            met[(round(a, 2), "each other")] = inner
        for name, part in moving.items():
            near = handsfree_sweep.clearances(part, {n: p for n, p in static.items()
                                                     if n not in BEARS}, 3.0)
            for other, d in near.items():
                least[(name, other)] = min(least.get((name, other), d), d)
    assert met == {}
    step = (hp.LEVER_R + hp.LEVER_W / 2) * end / POSES * 3.14159 / 180
    shown = {f"{a}/{b}": round(d, 2) for (a, b), d in sorted(least.items(),
                                                             key=lambda kv: kv[1])}
    print(f"\nleast clearances of the router's moving parts (mm; a step moves {step:.2f}):",
          shown)
    assert {k: d for k, d in least.items() if d <= step} == {}


def test_the_stops_end_the_swing_and_the_solenoid_never_bottoms():
    """The lever rests on the lower stop at the lower bay's setting (the flap's top then
    0.05 mm under the floor: the flap tests) and on the upper stop at the flap's angle: half
    a degree past either it would be in the bracket. The plunger works in the strong end of
    its stroke and stops short of bottoming."""
    bracket = hp.router_bracket(H)
    end = hp.flap_angle(H)
    for a in (0.0, end):
        assert handsfree_sweep.common(hp.router_lever(H, a), bracket) == 0.0, a
        assert hp.router_lever(H, a).distance_to(bracket) <= hp.STOP_GAP + 1e-3, a
    for a in (-0.5, end + 0.5):
        assert handsfree_sweep.common(hp.router_lever(H, a), bracket) > 0.05, a
    rest, top = hp.sol_gap(H, 0.0), hp.sol_gap(H, end)
    print(f"\nplunger gap: {rest:.2f} mm at rest, {top:.2f} mm at the upper stop "
          f"({rest - top:.2f} mm of the {hp.SOL_STROKE:.0f} mm stroke)")
    assert 0 < top < rest < hp.SOL_STROKE
    assert top == pytest.approx(hp.SOL_GAP_END)


@pytest.mark.parametrize("force_scale", [0.8, 1.0, 2.0])
@pytest.mark.parametrize("mass_scale", [1.0, 1.5])
def test_the_solenoid_turns_the_flap_within_the_pull_in_time(force_scale, mass_scale):
    """Pulled in at full power the flap reaches the upper stop, and sprung back it reaches
    the lower, within ``design.SOLENOID_ROUTER.pull_in_s`` (15 ms): from the weakest
    solenoid (0.8 x the 2.5 N taken, itself half the 5 N quoted) to the rated force, with the
    moving mass as computed (its turning parts taken at their farthest point) and half as
    much again; the spring alone holds the flap against the stiffest card's push."""
    mass = hp.router_moving_mass_g(H) * mass_scale
    force = hp.SOL_FORCE_N * force_scale
    pull = hp.router_swing_s(H, force, True, mass)
    back = hp.router_swing_s(H, force, False, mass)
    limit = design.SOLENOID_ROUTER.pull_in_s
    print(f"\n{force:.1f} N, {mass:.1f} g: pulled over in {pull * 1000:.1f} ms, "
          f"sprung back in {back * 1000:.1f} ms (the model's {limit * 1000:.0f} ms)")
    assert pull <= limit and back <= limit
    card = hp.CARD_PUSH_N * H.g.vane_length / hp.LEVER_R
    assert hp.spring_n(H, 0.0) >= 1.5 * card


def test_a_weak_solenoid_would_be_seen():
    """A solenoid weaker than the spring at the upper stop never arrives: the model says so
    rather than timing it."""
    with pytest.raises(ValueError):
        hp.router_swing_s(H, hp.spring_n(H, 0.0) * 0.9)


ROUTER = ("router_bracket", "router_solenoid", *hp.ROUTER_MOVING, "Router bracket screws #1",
          "Router bracket screws #2", "Router solenoid screws #1", "Router solenoid screws #2")
DRIVE = ("belt", "motor_pulley", "riser_motor", "riser_motor_bracket", "belt_idler",
         "riser_shafts", "Riser motor bracket screws #1", "Riser motor bracket screws #2",
         "Riser motor face screws #1", "Riser motor face screws #2")


def test_the_router_stands_clear_of_the_belt_drive_the_beams_the_tray_and_the_lid(model):
    """The router's parts (at rest; the sweep covers the swing) stand off the riser's drive
    (on the other side plate), the bay beams' emitters and receivers in the body's side plate
    (each taken as a 5 mm body 10 mm out of its bore), the tray that floats on its load cell
    and the lid, by 1.5 mm at least: the least of each is printed."""
    router = None
    for n in ROUTER:
        router = model[n] if router is None else router + model[n]
    yb = hp.riser_halves(H)[1]
    beams = {f"beam {bay.value}": hp._y_cylinder(*hp.beam_point(H, bay), 5.0, yb - 10.0, yb)
             for bay in hp.BAYS}
    others = {n: model[n] for n in (*DRIVE, "handsfree_tray", "lid", "gate_blade", "shaft")}
    gaps = {n: router.distance_to(p) for n, p in (others | beams).items()}
    print("\nthe router's least clearances (mm):",
          {n: round(d, 2) for n, d in sorted(gaps.items(), key=lambda kv: kv[1])})
    assert {n: d for n, d in gaps.items() if d < 1.5} == {}
    for n in ROUTER:
        assert handsfree_sweep.hits(model[n], {k: p for k, p in model.items() if k != n}) == {}, n
