"""The mechanism's geometry, measured on the solids: fits, gate, beams, walls, bed, overlaps.

Needs build123d (the ``dev`` and ``cad`` extras). Without it this file fails with the
install command, unless CRIB_SKIP_CAD=1 says to skip it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from build123d import GeomType

from hardware.shuffler import design
from hardware.shuffler.cad import parts
from hardware.shuffler.cad.assembly import assembly
from hardware.shuffler.cad.measure import gaps, material_runs, overlaps, ray_hits
from hardware.shuffler.cad.params import DEFAULT, Geometry

pytestmark = pytest.mark.timeout(600)
ROOT = Path(__file__).resolve().parents[3]

DOWN, ACROSS, ALONG = (0, 0, -1), (0, 1, 0), (1, 0, 0)
BRIDGE = DEFAULT.with_(card_width=design.BRIDGE_WIDTH_MM)
BIG_ROLLER = DEFAULT.with_(roller_diameter=DEFAULT.roller_diameter + 6)


@pytest.fixture(scope="module")
def model():
    """The default machine (poker deck of 104, flap to the left pile), built once."""
    return assembly(DEFAULT)


@pytest.fixture(scope="module")
def bridge_tray():
    """The tray with its shims, and the gate blade that is its front wall."""
    return parts.tray(BRIDGE) + parts.width_shims(BRIDGE) + parts.gate_blade(BRIDGE)


def _gap_at(shape, origin, direction, point: float) -> float:
    """The empty span along a ray that contains the distance ``point`` from its origin."""
    runs = material_runs(shape, origin, direction)
    for a, b in zip(runs, runs[1:], strict=False):
        if a[1] <= point <= b[0]:
            return b[0] - a[1]
    raise AssertionError(f"no opening at {point} mm along the ray from {origin}")


def _beams(router) -> list[tuple[float, float]]:
    """(x, z) of each beam, from the router's 3.1 mm holes (circles in xz planes)."""
    found: dict[tuple[float, float], int] = {}
    for e in router.edges():
        if e.geom_type == GeomType.CIRCLE and e.radius == pytest.approx(
                DEFAULT.beam_hole_d / 2, abs=1e-6):
            c = e.arc_center
            found[(round(c.X, 3), round(c.Z, 3))] = found.get((round(c.X, 3), round(c.Z, 3)),
                                                              0) + 1
    return sorted(found)


def test_no_two_parts_of_the_assembly_intersect(model):
    shared = overlaps(model)
    assert len(shared) >= 15  # the pairs that touch or nearly do were all computed
    assert {pair: round(v, 4) for pair, v in shared.items() if v > 1e-3} == {}


def test_the_flap_in_its_other_position_hits_nothing(model):
    near = ("router", "servo_mount", "sg90_servo", "bays", "tray", "gate_blade")
    others = {n: model[n] for n in near}
    others["vane_right"] = parts.vane(DEFAULT, "right")
    shared = {k: v for k, v in overlaps(others).items() if "vane_right" in k}
    assert ("router", "vane_right") in shared
    assert {k: v for k, v in shared.items() if v > 1e-3} == {}


def test_both_decks_fit_the_tray_with_the_chosen_clearances(model, bridge_tray):
    tray = model["tray"] + model["gate_blade"]  # the blade is the front wall
    length, width = DEFAULT.tray_inner
    z = DEFAULT.tray_floor_z + 10
    across = _gap_at(tray, (-40, -100, z), ACROSS, 100)
    along = _gap_at(tray, (-200, 0, z), ALONG, 160)
    assert across == pytest.approx(width)
    assert across - design.POKER_WIDTH_MM == pytest.approx(2 * DEFAULT.side_clearance)
    assert along - design.CARD_LENGTH_MM >= 2 * DEFAULT.end_clearance - 1e-6
    # A bridge deck between the shims: the same clearance each side.
    narrow = _gap_at(bridge_tray, (-40, -100, z), ACROSS, 100)
    assert narrow - design.BRIDGE_WIDTH_MM == pytest.approx(2 * BRIDGE.side_clearance)
    assert narrow == pytest.approx(across - (design.POKER_WIDTH_MM - design.BRIDGE_WIDTH_MM))
    deck = parts.deck(BRIDGE)
    assert overlaps({"tray": bridge_tray, "deck": deck}).get(("tray", "deck"), 0) < 1e-3
    # A full deck stays under the walls' top.
    assert model["deck"].bounding_box().max.Z < model["tray"].bounding_box().max.Z


def test_the_card_path_and_the_bays_take_the_widest_card(model):
    router, bays = model["router"], model["bays"]
    g = DEFAULT
    for (sx, sz), (ex, ez) in zip(g.path("left")[1:], g.path("left")[2:], strict=False):
        mx, mz = (sx + ex) / 2, (sz + ez) / 2
        seg = math.hypot(ex - sx, ez - sz)
        nx, nz = -(ez - sz) / seg, (ex - sx) / seg  # up from the floor
        mid = (mx + nx * g.channel_gap / 2, mz + nz * g.channel_gap / 2)
        across = _gap_at(router, (mid[0], -100, mid[1]), ACROSS, 100)
        assert across - design.POKER_WIDTH_MM >= 2 * g.path_side_clearance - 1e-6
        square = _gap_at(router, (mx - nx * 20, 0, mz - nz * 20), (nx, 0, nz), 20 + 1)
        assert square >= g.channel_gap - 1e-6
    fx, fz = g.fork
    ox, oz = g.right_outlet
    mx, mz = (fx + ox) / 2, (fz + oz) / 2
    assert _gap_at(router, (mx, -100, mz + 2), ACROSS, 100) >= g.channel_width - 1e-6
    left, right, _ = g.bays_x
    for x0 in (left, right):
        z = g.bay_floor_top + 5
        assert _gap_at(bays, (x0 + 40, -100, z), ACROSS, 100) - design.POKER_WIDTH_MM >= 4
        along = _gap_at(bays, (x0 - 10, 0, z), ALONG, 50)
        assert along - design.CARD_LENGTH_MM >= 2 * g.bay_end_clearance - 1e-6


def test_the_gate_gap_measured_on_the_parts(model):
    tray, blade = model["tray"], model["gate_blade"]
    g = DEFAULT
    x = (g.gate_edge[0] + g.gate_edge[1]) / 2  # under the blade's flat, past its chamfer
    top = g.tray_floor_z + 50
    lo, hi = 1.2 * design.CARD_THICKNESS_MAX_MM, 2 * design.CARD_THICKNESS_MIN_MM
    # Over the roller's slot (the land's plate) and beside it (the land on the floor): the
    # blade's edge stands the gap above what the card rests on, the tyre's top's level.
    for y in (0.0, g.hub_width / 2 + g.roller_slot_clearance + 8):
        land = top - ray_hits(tray, (x, y, top), DOWN)[0]
        edge = top - ray_hits(blade, (x, y, top), DOWN)[-1]
        assert land == pytest.approx(model["o_rings"].bounding_box().max.Z)  # the tyre's top
        assert lo <= edge - land < hi, f"gate gap {edge - land:.3f} mm"
        assert edge - land == pytest.approx(g.card_gap_at_gate, abs=1e-6)
        assert edge - (land - g.roller_protrusion) > 2 * design.CARD_THICKNESS_MAX_MM
    # Nothing but the blade spans the card's way out: under the ears' inner face, at the
    # card's width, the land is open up to the blade's edge and beyond.
    y = design.POKER_WIDTH_MM / 2 - 1
    for x in (g.gate_setback + 0.1, g.gate_x - 0.1):
        hits = [top - w for w in ray_hits(tray, (x, y, top), DOWN)]
        assert hits[0] <= g.land_z + 1e-6, x  # the land (or its ramp), nothing above


def _beam_path_lengths(g: Geometry, router, nip) -> list[float]:
    """Each beam's way along the path from ``nip``, from the holes in ``router``.

    The beam's centre comes from its hole; a ray square to the branch through it finds the
    branch's floor and roof on the solid; the foot on the floor is then summed along the path.
    """
    out = []
    for (bx, bz), pile in zip(_beams(router), ("left", "right"), strict=True):
        (fx, fz), (ox, oz) = g.path(pile)[-2:]
        seg = math.hypot(ox - fx, oz - fz)
        ux, uz = (ox - fx) / seg, (oz - fz) / seg
        nx, nz = -uz, ux  # up out of the floor
        # At mid-width (where the hole is inside the channel), from well outside the part.
        far = 200.0
        start = (bx - nx * far, 0.0, bz - nz * far)
        runs = material_runs(router, start, (nx, 0, nz))
        floor, roof = next((a[1], b[0]) for a, b in zip(runs, runs[1:], strict=False)
                           if a[1] <= far <= b[0])
        assert roof - floor == pytest.approx(g.channel_gap, abs=1e-3)
        assert far - floor == pytest.approx(g.channel_gap / 2, abs=1e-3)  # at mid-gap
        foot = (start[0] + nx * floor, start[2] + nz * floor)
        # The foot lies on the branch's floor line, between the fork and the outlet.
        t = (foot[0] - fx) * ux + (foot[1] - fz) * uz
        assert 0 < t < seg
        pts = [nip, *g.path(pile)[1:3]]
        out.append(sum(math.dist(a, b) for a, b in zip(pts, pts[1:], strict=False)) + t)
    return out


def test_every_beam_is_a_card_and_6_mm_along_the_path_from_the_nip(model):
    hub, rings = model["roller_hub"], model["o_rings"]
    nip = (hub.bounding_box().center().X, rings.bounding_box().max.Z)
    assert nip == pytest.approx(DEFAULT.nip, abs=1e-3)
    beams = _beams(model["router"])
    assert len(beams) == 2
    for beam, pile in zip(beams, ("left", "right"), strict=True):
        assert beam == pytest.approx(DEFAULT.beam(pile), abs=1e-3)
        assert math.dist(nip, beam) > design.CARD_LENGTH_MM  # even a straight path is longer
    lengths = _beam_path_lengths(DEFAULT, model["router"], nip)
    for got in lengths:
        assert got == pytest.approx(design.NIP_TO_BEAM_MM, abs=1.0)
        assert got > design.CARD_LENGTH_MM
    assert lengths[0] == pytest.approx(lengths[1], abs=1.0)


def test_design_pys_nip_to_beam_moves_the_beams_in_the_router(monkeypatch, model):
    monkeypatch.setattr(design, "NIP_TO_BEAM_MM", design.NIP_TO_BEAM_MM + 10)
    g = Geometry()
    router = parts.router(g)
    moved = _beams(router)
    assert len(moved) == 2
    for a, b in zip(moved, _beams(model["router"]), strict=True):
        assert math.dist(a, b) == pytest.approx(10, abs=1e-3)
    for got in _beam_path_lengths(g, router, DEFAULT.nip):
        assert got == pytest.approx(design.NIP_TO_BEAM_MM, abs=1.0)


@pytest.mark.parametrize("cards", [52, 104])
def test_every_beam_is_above_a_full_pile(model, cards):
    bays, router = model["bays"], model["router"]
    left, right, _ = DEFAULT.bays_x
    for (bx, bz), x0 in zip(_beams(router), (left, right), strict=True):
        floor = 100 - ray_hits(bays, (x0 + 40, 0, 100), DOWN)[-1]
        pile_top = floor + cards * design.CARD_THICKNESS_MAX_MM
        assert bz - DEFAULT.beam_hole_d / 2 - pile_top >= DEFAULT.pile_clearance
        # ... and inside the channel, where every card crosses it.
        hits = gaps(router, (bx, 0, 200), DOWN)
        assert any(h >= DEFAULT.channel_gap - 1e-6 for h in hits)
        channel = [w for w in ray_hits(router, (bx, 0, 200), DOWN)]
        zs = sorted(200 - w for w in channel)
        assert any(a < bz < b and b - a >= DEFAULT.channel_gap - 1e-6
                   for a, b in zip(zs, zs[1:], strict=False))


def _rays(g: Geometry) -> dict[str, list[tuple[tuple, tuple]]]:
    """Rays through each part's walls, floors and webs (square to them)."""
    zf = g.tray_floor_z
    x0, x1 = g.tray_x
    bx0, bx1 = g.base_x
    left, right, far = g.bays_x
    mid_chute = ((g.router_x0 + g.fork[0]) / 2, 0.0)
    ang = math.radians(g.chute_angle)
    nx, nz = math.sin(ang), math.cos(ang)
    cz = zf - (mid_chute[0] - g.router_x0) * math.tan(ang)
    sx, sz = g.vane_pivot
    ax, az = g.roller_axis
    return {
        "tray": [((-40, -100, zf + 20), ACROSS), ((-200, 20, zf + 20), ALONG),
                 ((-40, 0, zf + 100), DOWN), ((-60, 20, zf + 100), DOWN)],
        "base": [((-40, 0, 200), DOWN), ((-60, -100, 40), ACROSS), ((-200, 0, 40), ALONG)],
        "lid": [((-70, 0, 200), DOWN), ((-60, 44, 200), DOWN)],
        "gate_blade": [((x0 - 50, 0, zf + 10), ALONG)],
        "roller_hub": [((ax, -50, az + 13.5), ACROSS), ((ax, 0, az + 50), DOWN)],
        "motor_clamp": [((ax, -16.5, az + 50), DOWN), ((ax - 50, -16.5, az), ALONG)],
        "router": [((mid_chute[0] - nx * 30, 0, cz - nz * 30), (nx, 0, nz)),
                   ((mid_chute[0], -100, cz + 2), ACROSS)],
        "vane": [((sx + 6 - 30 * math.sin(math.radians(g.lower_angle)), 0,
                   sz - 6 * math.tan(math.radians(g.lower_angle)) - 30 * math.cos(
                       math.radians(g.lower_angle))),
                  (math.sin(math.radians(g.lower_angle)), 0,
                   math.cos(math.radians(g.lower_angle))))],
        "servo_mount": [((sum(parts.servo_frame(g)[:2]) / 2, 0, parts.servo_frame(g)[2] - 2),
                         ACROSS)],
        "bays": [((left + 40, -100, 20), ACROSS), ((left - 50, 0, 20), ALONG),
                 ((left + 40, 0, 100), DOWN)],
        "width_shims": [((-40, -100, zf + 20), ACROSS)],
        "press": [((sum(g.press_x) / 2, -100, parts.press_z(g) + 20), ACROSS),
                  ((sum(g.press_x) / 2, 0, 400), DOWN),
                  ((g.press_x[0] - 10, 0, parts.press_z(g) + 20), ALONG)],
    }


def test_every_wall_is_at_least_the_minimum(model, bridge_tray):
    solids = dict(model) | {"width_shims": parts.width_shims(BRIDGE)}
    thinnest = {}
    rays = _rays(DEFAULT)
    assert set(rays) == set(parts.PRINTED)
    for name, part_rays in rays.items():
        spans = [b - a for o, d in part_rays for a, b in material_runs(solids[name], o, d)]
        assert spans, name
        thinnest[name] = min(spans)
    assert {n: round(t, 3) for n, t in thinnest.items() if t < DEFAULT.min_wall - 1e-6} == {}
    # Cross-check: what the rays found is what the dimensions say.
    assert thinnest["tray"] == pytest.approx(DEFAULT.wall)
    assert thinnest["lid"] == pytest.approx(DEFAULT.touch_skin)  # over the touch pad
    assert thinnest["router"] == pytest.approx(DEFAULT.wall, abs=1e-3)
    assert thinnest["width_shims"] == pytest.approx(BRIDGE.shim_thickness)
    assert thinnest["vane"] == pytest.approx(DEFAULT.vane_thickness, abs=1e-3)
    assert thinnest["servo_mount"] == pytest.approx(DEFAULT.wall)


def _on_bed(model) -> dict[str, object]:
    built = dict(model) | {"width_shims": parts.width_shims(BRIDGE)}
    return {name: parts.printable(name, DEFAULT, built.get(name)).bounding_box()
            for name in parts.PRINTED}


def test_every_printed_part_fits_a_220_mm_bed_as_it_prints(model):
    for name, box in _on_bed(model).items():
        assert box.min.Z == pytest.approx(0, abs=1e-6)
        assert max(box.size.X, box.size.Y) <= DEFAULT.bed, (name, tuple(box.size))
        assert box.size.Z <= 200, name


def test_a_bigger_roller_moves_the_shaft_the_clamp_and_the_floor_slot(model):
    small_hub, small_tray = model["roller_hub"], model["tray"]
    big_hub, big_tray = parts.roller_hub(BIG_ROLLER), parts.tray(BIG_ROLLER)
    assert big_hub.bounding_box().center().Z == pytest.approx(
        small_hub.bounding_box().center().Z - 3, abs=1e-6)
    assert big_hub.bounding_box().max.Z == pytest.approx(small_hub.bounding_box().max.Z)
    assert (parts.motor_clamp(BIG_ROLLER).bounding_box().min.Z
            == pytest.approx(model["motor_clamp"].bounding_box().min.Z - 3))
    z = DEFAULT.tray_floor_z - DEFAULT.floor / 2

    def slot(tray):
        return _gap_at(tray, (-200, 0, z), ALONG, 200)

    assert slot(big_tray) > slot(small_tray)
    assert slot(big_tray) == pytest.approx(BIG_ROLLER.floor_opening)
    # The bigger tyre still clears the base, the tray and its clamp.
    bigger = {"base": model["base"], "tray": big_tray, "hub": big_hub,
              "rings": parts.o_rings(BIG_ROLLER), "clamp": parts.motor_clamp(BIG_ROLLER),
              "motor": parts.n20_motor(BIG_ROLLER)}
    assert {k: v for k, v in overlaps(bigger).items() if v > 1e-3} == {}


def test_a_bridge_deck_narrows_the_guides_and_a_longer_card_lengthens_the_tray(bridge_tray):
    z = DEFAULT.tray_floor_z + 20
    assert _gap_at(bridge_tray, (-40, -100, z), ACROSS, 100) == pytest.approx(
        DEFAULT.tray_inner[1] - 2 * BRIDGE.shim_thickness)
    longer = DEFAULT.with_(card_length=DEFAULT.card_length + 4)
    tray = parts.tray(longer) + parts.gate_blade(longer)
    assert _gap_at(tray, (-200, 20, z), ALONG, 160) == pytest.approx(
        DEFAULT.tray_inner[0] + 4)


def test_the_build_docs_printed_parts_table_is_the_model(model):
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    section = text.split("## Printed parts", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in section.splitlines()
            if ln.startswith("| `")]
    table = {r[0].strip("`"): r for r in rows}
    assert set(table) == set(parts.PRINTED)
    for name, box in _on_bed(model).items():
        sizes = [float(v) for v in table[name][-1].split("×")]
        got = sorted([box.size.X, box.size.Y])
        assert sorted(sizes[:2]) == pytest.approx(got, abs=0.06), name
        assert sizes[2] == pytest.approx(box.size.Z, abs=0.06), name
    mass = sum(p.volume for n, p in model.items() if n in parts.PRINTED) * 1.27e-3  # g
    mass += parts.width_shims(BRIDGE).volume * 1.27e-3
    assert mass / 1000 == pytest.approx(0.8, rel=0.15)  # "about 0.8 kg" in the doc
    assert "about 0.8 kg" in section
