"""The mechanism's arithmetic (no CAD kernel): the gate, the beams, what follows a parameter."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.shuffler import design
from hardware.shuffler.cad.params import DEFAULT, Geometry

ROOT = Path(__file__).resolve().parents[3]


def test_the_gate_passes_one_card_of_any_thickness_and_stops_two_of_the_thinnest():
    g = DEFAULT
    assert design.CARD_THICKNESS_MAX_MM < g.gate_gap <= 1.5 * design.CARD_THICKNESS_MIN_MM
    assert g.gate_gap == pytest.approx(0.405)
    assert g.card_gap_at_gate == pytest.approx(g.gate_gap)


@pytest.mark.parametrize("cards", [1.0, 1.6, 2.0])
def test_a_gate_gap_outside_the_range_is_refused_with_its_numbers(cards):
    with pytest.raises(ValueError, match="gate gap"):
        Geometry(gate_gap_cards=cards)


@pytest.mark.parametrize("pile", ["left", "right"])
def test_each_beam_is_where_the_controllers_timing_expects_it(pile):
    g = DEFAULT
    assert g.required_nip_to_beam == design.NIP_TO_BEAM_MM
    assert g.nip_to_beam(pile) == pytest.approx(design.NIP_TO_BEAM_MM, abs=1e-6)
    assert g.nip_to_beam(pile) > design.CARD_LENGTH_MM  # the card has left the roller
    # The straight line is the shortest path any card can take: it is past a card as well.
    assert math.dist(g.nip, g.beam(pile)) > design.CARD_LENGTH_MM
    # In its own branch, past where the branches part, and short of the outlet.
    assert g.septum_apex + g.beam_boss_d / 2 < g.beam_past_fork(pile)
    assert g.nip_to_beam(pile) + g.beam_boss_d / 2 < g.path_length(pile)


def test_the_fork_and_the_flap_are_design_pys():
    g = DEFAULT
    nip, corner, fork = g.path("left")[:3]
    assert math.dist(nip, corner) + math.dist(corner, fork) == pytest.approx(
        design.NIP_TO_FLAP_MM)
    assert g.vane_length == design.FLAP_LENGTH_MM
    assert g.path("right")[:3] == g.path("left")[:3]


def test_design_pys_path_lengths_move_the_fork_and_the_beams(monkeypatch):
    before = {p: DEFAULT.beam(p) for p in ("left", "right")}
    monkeypatch.setattr(design, "NIP_TO_BEAM_MM", design.NIP_TO_BEAM_MM + 10)
    g = Geometry()
    for pile in ("left", "right"):
        assert g.nip_to_beam(pile) == pytest.approx(design.NIP_TO_BEAM_MM)
        assert math.dist(g.beam(pile), before[pile]) == pytest.approx(10)  # along its branch
    monkeypatch.setattr(design, "NIP_TO_FLAP_MM", design.NIP_TO_FLAP_MM - 3)
    monkeypatch.setattr(design, "FLAP_LENGTH_MM", 10.0)
    g = Geometry()
    assert g.fork[0] < DEFAULT.fork[0] and g.vane_length == 10.0
    assert g.nip_to_beam("right") == pytest.approx(design.NIP_TO_BEAM_MM)


def test_a_steeper_chute_moves_the_beams_but_not_their_path_length():
    steep = DEFAULT.with_(chute_angle=30.0, tray_floor_z=DEFAULT.tray_floor_z + 20)
    for pile in ("left", "right"):
        assert math.dist(steep.beam(pile), DEFAULT.beam(pile)) > 1
        assert steep.nip_to_beam(pile) == pytest.approx(design.NIP_TO_BEAM_MM)


def test_a_beam_before_the_branches_part_is_refused():
    with pytest.raises(ValueError, match="left beam is .* past the fork, before the branches"):
        Geometry(beam_path=DEFAULT.nip_to_flap + 8)


@pytest.mark.parametrize("pile", ["left", "right"])
@pytest.mark.parametrize("cards", [52, 104])
def test_each_beam_is_above_a_full_pile_with_clearance(pile, cards):
    g = DEFAULT
    pile_top = g.bay_floor_top + cards * design.CARD_THICKNESS_MAX_MM
    assert g.beam(pile)[1] - g.beam_hole_d / 2 - pile_top >= g.pile_clearance
    assert g.beam_above_pile(pile, cards) >= g.pile_clearance


def test_a_longer_card_that_the_path_cannot_clear_is_refused():
    with pytest.raises(ValueError, match="beam is .* mm along the path"):
        Geometry(card_length=130.0)


def test_a_bigger_roller_moves_the_shaft_and_lengthens_the_floor_slot():
    small, big = DEFAULT, DEFAULT.with_(roller_diameter=DEFAULT.roller_diameter + 6)
    assert big.roller_axis[1] == pytest.approx(small.roller_axis[1] - 3)
    assert big.floor_opening > small.floor_opening
    assert big.nip == small.nip  # the tyre still stands the same above the floor
    assert big.hub_groove_d > small.hub_groove_d + 4  # a bigger O-ring, stretched as much
    assert big.tyre_oring_id > small.tyre_oring_id
    for g in (small, big):
        assert 0.05 <= g.oring_stretch <= 0.10
        assert g.hub_groove_d + 2 * g.oring_section_fitted == pytest.approx(g.roller_diameter)
    # ... so the path from the nip, and the beams on it, stay where the timing expects them.
    for pile in ("left", "right"):
        assert big.beam(pile) == pytest.approx(small.beam(pile))
        assert big.nip_to_beam(pile) == pytest.approx(design.NIP_TO_BEAM_MM)


def test_a_bridge_deck_narrows_the_guides_by_its_width():
    bridge = DEFAULT.with_(card_width=design.BRIDGE_WIDTH_MM)
    assert DEFAULT.shim_thickness == 0
    assert bridge.shim_thickness == pytest.approx((63.5 - 57.2) / 2)
    assert bridge.guide_gap == pytest.approx(design.BRIDGE_WIDTH_MM + 2 * bridge.side_clearance)
    assert bridge.shim_thickness >= bridge.min_wall
    with pytest.raises(ValueError, match="wider than the tray"):
        DEFAULT.with_(card_width=70.0)


def test_the_roller_comes_from_the_drive_build(monkeypatch):
    assert DEFAULT.roller_diameter == design.DEFAULT_DRIVE.roller_diameter_mm
    monkeypatch.setattr(design, "DEFAULT_DRIVE", design.DriveBuild(roller_diameter_mm=36.0))
    assert Geometry().roller_diameter == 36.0


def test_the_flap_clears_the_septum_and_both_branches_run_downhill():
    g = DEFAULT
    assert g.vane_length + g.vane_clearance < g.septum_apex
    assert 3 < g.upper_angle < g.lower_angle
    assert g.vane_angle("left") > g.vane_angle("right")


def test_the_params_need_no_cad_kernel_and_nothing_outside_cad_imports_one():
    code = ("import sys, hardware.shuffler.cad.params, hardware.shuffler.cad; "
            "bad = [m for m in ('build123d', 'OCP') if m in sys.modules]; "
            "print(*bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for py in [*ROOT.glob("hardware/**/*.py"), *ROOT.glob("firmware_host/**/*.py"),
               *ROOT.glob("cribbage/**/*.py")]:
        if "cad" in py.relative_to(ROOT).parts[:-1]:  # a CAD package (the shuffler's, the board's)
            continue
        text = py.read_text()
        assert "import build123d" not in text and "from build123d" not in text, py
        assert "from OCP" not in text, py


def test_the_build_docs_key_dimensions_are_the_params():
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    section = text.split("## Key dimensions", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in section.splitlines()
            if ln.startswith("| ") and "`" in ln]
    assert len(rows) >= 12
    for label, value, name in rows:
        expr = name.strip("`")
        assert expr.replace("_", "").replace(".", "").replace("(", "").replace(")", "").replace(
            "'", "").replace(",", "").replace(" ", "").isalnum(), expr
        got = eval("g." + expr, {}, {"g": DEFAULT})  # a name or a call from the table
        shown = [float(v) for v in value.replace("mm", "").replace("×", "-").split("-")]
        want = [v for v in (got if isinstance(got, tuple) else (got,))]
        assert len(shown) == len(want), label
        for s, w in zip(shown, want, strict=True):
            decimals = len(str(s).split(".")[1]) if "." in str(s) else 0
            assert s == pytest.approx(w, abs=0.51 * 10 ** -max(decimals, 1)), (label, s, w)


@pytest.mark.parametrize("thickness", [design.CARD_THICKNESS_MIN_MM, design.CARD_THICKNESS_MAX_MM])
def test_the_gap_the_card_meets_is_one_and_a_half_cards_above_what_it_rests_on(thickness):
    g = DEFAULT
    x0, x1, edge = g.gate_edge
    # Under the blade's flat the card rests on the land, level with the tyre's top.
    for k in range(11):
        assert g.support_z(x0 + (x1 - x0) * k / 10) == pytest.approx(g.nip[1])
    assert g.card_gap_at_gate == pytest.approx(edge - g.nip[1])
    assert 1.25 <= g.card_gap_at_gate / thickness <= 1.5
    # One card passes; a second is not drawn under with it (over 1.5 thicknesses it is).
    assert thickness < g.card_gap_at_gate <= 1.5 * design.CARD_THICKNESS_MIN_MM


def test_the_gap_is_not_measured_from_the_tray_floor():
    g = DEFAULT
    x0, x1, edge = g.gate_edge
    assert edge - g.tray_floor_z == pytest.approx(g.card_gap_at_gate + g.roller_protrusion)
    # A tyre standing prouder raises the land with it: the card's gap stays.
    proud = g.with_(roller_protrusion=1.2)
    assert proud.card_gap_at_gate == pytest.approx(g.card_gap_at_gate)
    assert proud.gate_edge[2] == pytest.approx(edge + 0.4)


def test_a_gate_over_the_bare_tyre_is_refused():
    # Pulled back towards the nip the blade would stand over the tyre's falling flank,
    # where the land has not reached the tyre's height.
    with pytest.raises(ValueError, match="land reaches the tyre's height"):
        DEFAULT.with_(gate_setback=4.0)


@pytest.mark.parametrize("pile", ["left", "right"])
def test_the_card_path_runs_from_the_nip_to_the_bays_end_wall(pile):
    g = DEFAULT
    path = g.card_path(pile)
    assert path.names == ("land", "chute", f"{pile} branch", f"drop into the {pile} bay")
    land, chute, branch, drop = path.segments
    # Level over the land from the nip to the chute, as the card leaves the tyre.
    assert land.slope_deg == pytest.approx(0) and land.surface == "petg"
    assert land.length_mm == pytest.approx(g.router_x0)
    assert chute.slope_deg == pytest.approx(g.chute_angle)
    want = {"left": g.lower_angle, "right": g.upper_angle}[pile]
    assert branch.slope_deg == pytest.approx(want) and branch.surface == "petg"
    assert land.length_mm + chute.length_mm == pytest.approx(design.NIP_TO_FLAP_MM)
    assert sum(s.length_mm for s in path.segments[:3]) == pytest.approx(g.path_length(pile))
    # The beam is in the branch, where the controller's timing expects it.
    assert path.beam_mm == pytest.approx(design.NIP_TO_BEAM_MM)
    assert path.segment_at(path.beam_mm) == branch
    # The drop runs from the outlet down to the foot of the bay's far wall.
    wall_x, floor_z = g.end_wall(pile)
    ox, oz = g.path(pile)[-1]
    assert drop.surface == "pile" and drop.slope_deg > 0
    assert drop.length_mm == pytest.approx(math.hypot(wall_x - ox, oz - floor_z))
    assert wall_x - ox == pytest.approx(g.bay_inner[0] - g.end_pad)  # across the bay to its pad
    assert path.length_mm == pytest.approx(g.path_length(pile) + drop.length_mm)
    # A pile in the bay shortens the drop and flattens it.
    full = g.card_path(pile, cards=104)
    assert full.segments[3].slope_deg < drop.slope_deg
    assert full.segments[:3] == path.segments[:3]
    with pytest.raises(ValueError, match="past the"):
        path.segment_at(path.length_mm + 1)


def test_the_card_path_follows_the_parameters():
    steep = DEFAULT.with_(chute_angle=30.0, tray_floor_z=DEFAULT.tray_floor_z + 20)
    for pile in ("left", "right"):
        assert steep.card_path(pile).segments[1].slope_deg == pytest.approx(30.0)
        assert steep.card_path(pile).beam_mm == pytest.approx(design.NIP_TO_BEAM_MM)
    # A steeper chute drops the fork lower: the long right branch runs flatter.
    same = DEFAULT.with_(tray_floor_z=DEFAULT.tray_floor_z + 20)
    assert steep.card_path("right").segments[2].slope_deg < same.upper_angle
    with pytest.raises(ValueError, match="pile must be left or right"):
        DEFAULT.card_path("middle")


@pytest.mark.parametrize("name", ["chute_angle", "tray_floor_z"])
def test_a_stretch_under_the_minimum_slope_is_refused(name):
    # A card coasts down every stretch only if it falls more steeply than friction holds it.
    g = DEFAULT
    for slope in (g.chute_angle, g.lower_angle, g.upper_angle):
        assert math.tan(math.radians(slope)) > 0.4  # card on PETG at its worst
    low = {"chute_angle": 22.0, "tray_floor_z": g.tray_floor_z - 15}[name]
    with pytest.raises(ValueError, match="under 25.0 deg: a card could stop"):
        g.with_(**{name: low})


def test_the_build_doc_sets_the_gap_on_what_the_card_meets():
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    section = " ".join(text.split("## Setting the gate", 1)[1].split("\n## ", 1)[0].split())
    feeler = float(section.split("Lay a ", 1)[1].split(" mm feeler", 1)[0])
    assert feeler == pytest.approx(DEFAULT.card_gap_at_gate, abs=0.01)
    assert "on the land under the blade" in section and "flat on the floor" not in section
    assert "never from the tray floor" in section
