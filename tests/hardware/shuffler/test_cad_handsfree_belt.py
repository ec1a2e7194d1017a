"""The riser's drive measured on its CAD: the belt's loop round the four roller pulleys, the
motor's and the idler (which way each turns, the teeth in mesh, the loop's length against a
stock belt), the speed it gives the riser against the feed's, and the belt, pulleys, idler,
motor and bracket clear of everything.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import handsfree_belt, handsfree_parts, handsfree_sweep
from hardware.shuffler.cad.handsfree_params import HANDSFREE

H = HANDSFREE
WS = handsfree_belt.wheels(H)


def test_the_belt_turns_every_roller_the_same_way_with_teeth_in_mesh():
    """The toothed side wraps all four roller pulleys (so they turn alike, the card's way
    with the motor turning the loop clockwise seen from +y) and the motor's; only the idler
    takes the belt's back; the wraps of a simple loop add to one turn."""
    wraps = dict(zip([w.name for w in WS], handsfree_belt.wraps(WS), strict=True))
    assert sum(wraps.values()) == pytest.approx(360.0, abs=1e-6)
    assert [n for n, a in wraps.items() if a > 0] == ["T1", "T2U", "T3U", "T2L", "motor"]
    assert wraps["idler"] < 0
    teeth = handsfree_belt.teeth_in_mesh(WS)
    assert min(teeth[r.name] for r in handsfree_parts.rollers(H)) >= 2.5
    assert teeth["motor"] >= 10


def test_the_loop_is_a_stock_closed_belt():
    """The pitch line comes to 400 mm, a 200-tooth closed GT2 loop, to half a millimetre
    (the idler's position sets it; the belt's own stretch tensions it)."""
    assert handsfree_belt.length(WS) == pytest.approx(400.0, abs=0.5)


def test_the_idler_pin_crosses_the_riser_between_the_channels():
    """The idler's pin runs through both side plates and the space between the branches,
    clear of both channels' walls (a card never meets it)."""
    from hardware.shuffler.handsfree import Bay

    x, z = handsfree_belt.IDLER_AT
    near = min(math.dist((x, z), (p.x, p.z)) for b in (Bay.LOWER, Bay.UPPER)
               for p in H.path(b, 0.5))
    assert near - handsfree_belt.IDLER_PIN_D / 2 > H.gap / 2 + H.wall + 1.0


def test_the_riser_can_run_twice_the_feeds_surface_speed_at_its_slowest_motor():
    """Unloaded, on 5 V, the belt's 40 : 16 step-up turns the tyres faster than twice the
    hands-free feed roller's no-load surface speed, even with the slowest riser motor of
    the spread (-15 %): the driver's duty trims it down to the speed asked."""
    drive = design.HANDSFREE_DRIVE
    feed = drive.no_load_rpm * drive.supply_v / drive.rated_v / 60 * math.pi \
        * drive.roller_diameter_mm
    assert handsfree_belt.riser_surface_speed(H, drive.supply_v, 0.85) > 2.0 * feed
    print(f"\nriser unloaded {handsfree_belt.riser_surface_speed(H, drive.supply_v):.0f} mm/s, "
          f"feed {feed:.0f} mm/s")


def test_the_belt_and_the_motor_meet_nothing_and_the_belt_clears_all_but_its_wheels():
    """The belt's band (its shape does not change as it runs), the pulleys, the idler, the
    motor and its bracket share no volume with any part, and the belt stands clear of every
    part but the wheels it runs on."""
    from hardware.shuffler.cad.assembly import handsfree_assembly

    model = handsfree_assembly(H)
    belt = model.pop("belt")
    assert handsfree_sweep.hits(belt, model) == {}
    wheels = {"riser_shafts", "motor_pulley", "belt_idler"}
    near = handsfree_sweep.clearances(belt, {n: p for n, p in model.items()
                                             if n not in wheels}, 2.0)
    assert {n: round(d, 2) for n, d in near.items() if d < 1.0} == {}
    for name in ("riser_motor", "motor_pulley", "belt_idler", "riser_motor_bracket"):
        rest = {n: p for n, p in model.items() if n != name}
        assert handsfree_sweep.hits(model[name], rest) == {}, name
