"""The hands-free lid measured on its CAD: turned about its pins from shut to its stop it
meets no other part; at the stop it lies on the fixed knuckles' stops and would be in them
half a degree on; open, a deck slides in through the window touching nothing but what it
rests on; shut, its tab holds the lid switch's lever past operating, and a few degrees open
it lets go.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler.cad import handsfree_parts as hp
from hardware.shuffler.cad import handsfree_sweep
from hardware.shuffler.cad.handsfree_params import HANDSFREE
from hardware.shuffler.cad.parts import _box

H = HANDSFREE
STEP = 2.0  # degrees a pose: the lid's farthest point (51 mm from the pin) moves 1.8 mm
BACK = 1.0  # the deck slid in this far behind where it rests against the gate


def _far(lid) -> float:
    """The farthest any point of the lid lies from its pins' axis (its box's corners)."""
    b = lid.bounding_box()
    y, z = hp.lid_pin_y(H), hp.lid_hinge_z(H)
    return max(math.hypot(py - y, pz - z) for py in (b.min.Y, b.max.Y)
               for pz in (b.min.Z, b.max.Z))


def _pin():
    """The lid's pin (2 mm steel, 100 mm in the build's list) through both hinges' knuckles."""
    xs = hp.lid_hinge_xs(H)
    return hp._x_cylinder(xs[0] - 10.0, xs[-1] + 10.0, hp.lid_pin_y(H), hp.lid_hinge_z(H),
                          H.pin_d)


@pytest.fixture(scope="module")
def model():
    """The machine without its lid, the press swung out (as when a deck is loaded)."""
    from hardware.shuffler.cad.assembly import handsfree_assembly

    out = handsfree_assembly(H, press=H.press_swing)
    del out["lid"]
    return out


def test_the_lid_turns_from_shut_to_its_stop_clear_of_everything(model):
    """At every pose from shut to ``LID_OPEN`` the lid shares no volume with any other part
    (the shaft it hangs on and the pin it turns on included: its knuckles and their stops
    touch only at the stop, the pin runs in bores 0.3 mm over it). Everything but those
    stands farther off than the lid moves between two poses; what
    stands nearer at a pose (the tray under its bottom edge, the deck it guides) is checked
    again round that pose in steps ten times finer, clear by more than such a step."""
    lid = hp.lid(H)
    step = _far(lid) * math.radians(STEP)
    others = {n: p for n, p in model.items() if n != "shaft"}
    pin = _pin()
    assert handsfree_sweep.hits(pin, model) == {}  # in the shaft's knuckles' bores
    world = model | {"lid pin": pin}
    n = math.ceil(hp.LID_OPEN / STEP)
    met, least, near = {}, {}, {}
    for k in range(n + 1):
        a = min(k * STEP, hp.LID_OPEN)
        turned = hp.lid_turn(H, lid, a)
        found = handsfree_sweep.hits(turned, world)
        if found:
            met[a] = found
        for name, d in handsfree_sweep.clearances(turned, others, 5.0).items():
            least[name] = min(least.get(name, d), d)
            if d <= step:
                near.setdefault(name, set()).add(k)
    fine = {}
    for name, ks in near.items():
        angles = {min(hp.LID_OPEN, max(0.0, (k + j / 10) * STEP)) for k in ks
                  for j in range(-10, 11)}
        fine[name] = min(hp.lid_turn(H, lid, a).distance_to(model[name]) for a in angles)
    print(f"\nlid swept 0-{hp.LID_OPEN:.0f} degrees in {STEP} degree steps (its farthest "
          f"point moves {step:.2f} mm a step); least clearances (mm):",
          {k: round(v, 2) for k, v in sorted(least.items(), key=lambda kv: kv[1])},
          "; in the finer steps:", {k: round(v, 2) for k, v in fine.items()})
    assert met == {}
    assert {k: d for k, d in fine.items() if d <= step / 10} == {}


def test_the_fixed_knuckles_stop_the_lid_at_its_opening():
    """At ``LID_OPEN`` the lid's outer face lies on the stops (touching, no volume); half a
    degree further it would be in them: the stops, not the hand, end the swing."""
    shaft = hp.shaft(H)
    at = hp.lid(H, hp.LID_OPEN)
    assert handsfree_sweep.common(at, shaft) == 0.0
    assert at.distance_to(shaft) < 1e-3
    assert handsfree_sweep.common(hp.lid(H, hp.LID_OPEN + 0.5), shaft) > 1.0
    assert hp.LID_OPEN >= 100.0


def test_a_deck_slides_in_through_the_open_window(model):
    """With the lid at its stop, a full deck as the model draws it (104 cards, 33.3 mm
    high on the feed's tyres) slid in along y from outside the machine, 1 mm behind where it
    comes to rest (the tray's ears stand round the gate; it then slides that 1 mm on to the
    gate), sweeps through nothing: not the open lid, its knuckles and stops, the shaft or the
    tray. Shut, the lid is in its way."""
    d = model["deck"].bounding_box()
    y_out = hp.lid_pin_y(H) + _far(hp.lid(H)) + 10.0  # past the open lid's far edge
    swept = _box(d.min.X - BACK, d.max.X - BACK, d.min.Y, y_out, d.min.Z + 0.01, d.max.Z)
    world = {n: p for n, p in model.items() if n != "deck"}
    met = handsfree_sweep.hits(swept, world | {"lid": hp.lid(H, hp.LID_OPEN)})
    over = hp.lid(H, hp.LID_OPEN).bounding_box().min.Z - d.max.Z
    print(f"\ndeck {d.size.X:.1f} x {d.size.Y:.1f} x {d.size.Z:.2f} mm; the open lid's lowest "
          f"point stands {over:.2f} mm over its top")
    assert met == {}
    assert set(handsfree_sweep.hits(swept, world | {"lid": hp.lid(H)})) == {"lid"}


def test_shut_the_tab_holds_the_switch_lever_and_a_few_degrees_open_lets_go():
    """Shut, the lid's tab reaches into the lever's travel past its operating point (the
    switch closed) and short of its overtravel (the lever never bottoms); opening, the tab
    only falls away from the lever: the switch opens within 10 degrees, and the lever is
    free by 30 degrees (the angles printed)."""
    x0, x1, y0, y1, z0, _z1 = hp.switch_frame(H)
    operated = _box(x0, x1, y0, y1, z0 - hp.LEVER_OP, z0)
    bottomed = _box(x0, x1, y0, y1, z0 - (hp.LEVER_OP - 0.6), z0)
    lid = hp.lid(H)
    assert handsfree_sweep.common(lid, operated) > 0.1
    assert handsfree_sweep.common(lid, hp.lever_travel(H)) > 0.1
    opens = free = None
    for k in range(0, 61):
        a = k * 0.5
        turned = hp.lid_turn(H, lid, a)
        assert handsfree_sweep.common(turned, bottomed) == 0.0, a
        if opens is None and handsfree_sweep.common(turned, operated) == 0.0:
            opens = a
        if free is None and handsfree_sweep.common(turned, hp.lever_travel(H)) == 0.0:
            free = a
    print(f"\nthe lid switch opens {opens} degrees open, its lever free at {free} degrees")
    assert opens is not None and opens <= 10.0
    assert free is not None and free <= 30.0
