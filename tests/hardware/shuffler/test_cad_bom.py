"""The parts list and the model agree, measured on the solids: the switch's cut-out, the
O-rings' stretch, the septum's edge, the tray sensor's retainer and window, the servo's way
into its mount, the press's weight, the Pi's vents and power lead, the end-wall pads.

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import parts
from hardware.shuffler.cad.assembly import assembly
from hardware.shuffler.cad.measure import material_runs, overlaps, ray_hits
from hardware.shuffler.cad.params import DEFAULT

ROOT = Path(__file__).resolve().parents[3]
DOWN, ACROSS, ALONG = (0, 0, -1), (0, 1, 0), (1, 0, 0)
BUILD = (ROOT / "docs" / "shuffler-build.md").read_text()
HARDWARE = (ROOT / "docs" / "hardware.md").read_text()


@pytest.fixture(scope="module")
def model():
    return assembly(DEFAULT)


def _opening(shape, origin, direction, at: float) -> float:
    runs = material_runs(shape, origin, direction)
    for a, b in zip(runs, runs[1:], strict=False):
        if a[1] <= at <= b[0]:
            return b[0] - a[1]
    raise AssertionError(f"no opening at {at} along {direction} from {origin}")


def test_the_main_switch_has_the_kcd1s_rectangular_cut_out_in_a_panel_it_clips_to(model):
    lid, g = model["lid"], DEFAULT
    sx, sy = g.switch_at
    z = g.base_top - g.switch_panel / 2
    length = _opening(lid, (sx - 150, sy, z), ALONG, 150)
    width = _opening(lid, (sx, sy - 150, z), ACROSS, 150)
    assert (length, width) == pytest.approx((19.2, 12.9), abs=0.01)  # KCD1-101 datasheet
    # The panel there is within the 0.8-2 mm its snap clips take.
    panel = [b - a for a, b in material_runs(lid, (sx + 10.5, sy, g.base_top + 10), DOWN)]
    assert 0.8 <= panel[0] <= 2.0
    assert "19.2 x 12.9 mm cut-out" in HARDWARE and "KCD1" in HARDWARE
    assert "6.2" not in HARDWARE.split("| Main switch | 1 |")[1].split("\n")[0]


def test_the_o_rings_are_stretched_5_to_10_percent_and_their_top_is_the_nip(model):
    g = DEFAULT
    assert 0.05 <= g.oring_stretch <= 0.10
    rings = model["o_rings"].bounding_box()
    assert rings.max.Z == pytest.approx(g.nip[1], abs=1e-6)
    hub = model["roller_hub"]
    ax, az = g.roller_axis
    # The groove's bottom, measured: down through the hub at an O-ring's centre plane.
    top = az + 30
    groove = top - ray_hits(hub, (ax, g.oring_pitch / 2, top), DOWN)[0]
    assert 2 * (groove - az) == pytest.approx(g.hub_groove_d, abs=1e-3)
    assert 2 * (groove - az) / g.tyre_oring_id - 1 == pytest.approx(g.oring_stretch, abs=1e-3)
    assert f"{g.tyre_oring_id:g} mm ID × 2.5 mm" in BUILD


def test_the_septum_ends_in_a_printable_flat_and_the_card_side_is_smooth(model):
    g, router = DEFAULT, model["router"]
    fx, fz = g.fork
    a = math.radians(g.upper_angle)
    ux, uz, nx, nz = math.cos(a), -math.sin(a), math.sin(a), math.cos(a)
    thinnest, steps = math.inf, 0
    for k in range(60):  # along the right branch's floor, from the fork to 30 mm past it
        s = k * 0.5
        px, pz = fx + ux * s, fz + uz * s
        origin = (px + nx * 3, 0.0, pz + nz * 3)  # inside the right branch, above its floor
        hits = [w for w in ray_hits(router, origin, (-nx, 0, -nz)) if w > 0]
        runs = material_runs(router, origin, (-nx, 0, -nz))
        if runs and runs[0][0] < 3 + 0.01:  # the septum: material right under the floor line
            thinnest = min(thinnest, runs[0][1] - runs[0][0])
            assert runs[0][0] == pytest.approx(3.0, abs=1e-3)  # flush with the floor line
            steps += 1
        elif hits:
            assert hits[0] > 3 + 0.01
    assert steps > 20
    # The first ray past the flat is within 0.5 mm of it (the wedge grows 0.16 mm in that).
    assert thinnest >= 0.45 and g.septum_flat <= thinnest <= g.septum_flat + 0.16


def test_the_tray_sensor_sits_in_its_rails_under_its_window(model):
    g, lid, module = DEFAULT, model["lid"], model["tcrt5000"]
    from hardware.shuffler import simulator

    assert g.tcrt_at[0] == simulator.TRAY_SENSOR_MM  # where the simulator's sensor looks
    tx, ty = g.tcrt_at
    # The tray floor's window is over the sensor: a ray up from it leaves the tray.
    top = module.bounding_box().max.Z
    assert [w for w in ray_hits(model["tray"], (tx, ty, top + 0.01), (0, 0, 1)) if w > 0] == []
    # Held: moved down, sideways or back it meets the rails or their stop; it slides out
    # only forwards (the way it went in).
    held = {"down": (0, 0, -0.5), "left": (0, -0.5, 0), "right": (0, 0.5, 0),
            "back": (-0.5, 0, 0)}
    for way, (dx, dy, dz) in held.items():
        moved = parts.Pos(dx, dy, dz) * module
        assert overlaps({"lid": lid, "m": moved})[("lid", "m")] > 1e-3, way
    # Forwards it slides along the rails, its sensor in the lid's slot, until its board is
    # clear of them (the lid is off the base then).
    board = g.tcrt_board[0]
    for dx in [k * (board + 2) / 8 for k in range(9)]:
        moved = parts.Pos(dx, 0, 0) * module
        assert overlaps({"lid": lid, "m": moved}).get(("lid", "m"), 0) < 1e-6, dx


def test_the_servo_goes_into_its_glued_mount_from_outside(model):
    """Build order: the mount's legs are glued to the router, then the servo goes in, shaft
    first through the mount's opening, its tabs on the mount's outer face."""
    g = DEFAULT
    fixed = {n: model[n] for n in ("router", "servo_mount", "vane")}
    servo = model["sg90_servo"]
    seated = overlaps(fixed | {"servo": servo})
    assert {k: v for k, v in seated.items() if "servo" in k and v > 1e-4} == {}
    travel = g.servo_h + g.servo_horn_gap
    for k in range(0, 31):
        moved = parts.Pos(0, travel * k / 30, 0) * servo
        hit = {p: v for p, v in overlaps(fixed | {"servo": moved}).items()
               if "servo" in p and v > 1e-4}
        assert hit == {}, (round(travel * k / 30, 1), hit)
    # ... and it is seated: pushed 0.5 mm further in, its tabs meet the mount.
    pushed = parts.Pos(0, -0.5, 0) * servo
    assert overlaps({"m": model["servo_mount"], "s": pushed})[("m", "s")] > 1e-3
    assert "from outside" in BUILD.split("## Assembly order")[1]


def test_the_press_weighs_what_the_drive_needs(model):
    g = DEFAULT
    grams = model["press"].volume * g.petg_density / 1000 + g.steel_mass_g
    assert grams * 9.81e-3 == pytest.approx(design.DEFAULT_DRIVE.press_n, rel=0.05)
    # It rests on the deck over the nip, clear of the blade, and drops to the land.
    x0, x1 = g.press_x
    assert x0 < 0 < x1 < g.gate_x
    empty = parts.press(g, 0)
    assert empty.bounding_box().min.Z == pytest.approx(g.land_z)
    assert overlaps({"tray": model["tray"], "p": empty,
                     "blade": model["gate_blade"]}).get(("tray", "p"), 0) < 1e-6
    assert "Press weight" in BUILD


def test_the_pi_has_vents_and_a_way_in_for_its_power_lead(model):
    g, base = DEFAULT, model["base"]
    px, py = parts.pi_origin(g)
    # A ray out of the Pi's USB-C socket, through the side wall beside it: open.
    usb = (px + parts.PI_USB_C, py + 5, g.floor + g.standoff_h + 1.6 + 1.6)
    assert material_runs(base, usb, (0, -1, 0)) == []
    # Vents in both side walls above the Pi.
    for side in (-1, 1):
        opened = 0
        for k in range(parts.VENTS):
            x = px + 20 + 6 * k + 1.25
            if not material_runs(base, (x, 0, 45), (0, side, 0)):
                opened += 1
        assert opened == parts.VENTS, side


def test_each_bay_has_its_felt_pad_and_room_for_it(model):
    g = DEFAULT
    assert g.end_pad == design.END_WALL_PAD_MM
    length, _w = g.bay_inner
    assert length == pytest.approx(g.card_length + 2 * g.bay_end_clearance + g.end_pad)
    pads = model["felt_pads"]
    assert len(pads.solids()) == 2
    for pile in ("left", "right"):
        x, z = g.end_wall(pile)
        ahead = [w for w in ray_hits(pads, (x - 1, 0, z + 5), ALONG) if w > 0]
        assert ahead[:2] == pytest.approx([1.0, 1.0 + g.end_pad])
    assert "End-wall pads" in BUILD
