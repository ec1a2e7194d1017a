"""A card swept along its whole path through the assembly, as a solid.

The card (88.9 x 63.5 mm poker and 88.9 x 57.2 mm bridge, 0.28-0.32 mm) starts as the bottom
card of the deck with its leading edge at the gate and moves, pose by pose, over the tyre and
the land, under the gate blade, down the chute, past the flap and the fork, down each branch
and into its bay to the end wall. It is flexible along its length: at each pose it lies on the
floor of every straight stretch it spans (``hardware.shuffler.cad.sweep``). At every pose it
shares no volume with any part, fastener or bought part; the guides (tray, tyre, router,
flap, bays, shims) it only touches. Steps: 2 mm while the leading edge meets something new
(the blade, the fork and the flap, the septum, each outlet, the end wall), 10 mm elsewhere,
and a pose at every corner of the path: the card is 88.9 mm long, so every point of the path
is covered by at least eight poses, each placed exactly on the floor (no chord error).

Needs build123d (the ``dev`` and ``cad`` extras).
"""

from __future__ import annotations

import pytest

from tests.hardware.shuffler.cad_support import require_build123d

require_build123d()  # before the imports below need it
# ruff: noqa: E402

from hardware.shuffler import design
from hardware.shuffler.cad import parts, sweep
from hardware.shuffler.cad.assembly import assembly
from hardware.shuffler.cad.params import DEFAULT, PILES

FINE, COARSE = 2.0, 10.0
THICK, THIN = design.CARD_THICKNESS_MAX_MM, design.CARD_THICKNESS_MIN_MM
POKER, BRIDGE_W = design.POKER_WIDTH_MM, design.BRIDGE_WIDTH_MM
LIFT = 0.005  # the card's underside this far above the floor it slides on
BRIDGE = DEFAULT.with_(card_width=BRIDGE_W)


@pytest.fixture(scope="module")
def machines():
    """The assembly with the flap set for each pile."""
    base = assembly(DEFAULT)
    out = {}
    for pile in PILES:
        m = dict(base)
        m["vane"] = parts.vane(DEFAULT, pile)
        out[pile] = {n: p for n, p in m.items() if n not in sweep.ABOVE}
    return out


def _start(g) -> float:
    """The bottom card's leading edge at rest: against the blade, less the end clearance."""
    return g.gate_x - g.end_clearance


def _near(g, pile) -> tuple[float, ...]:
    """Path lengths where the leading edge meets something new."""
    stretch = sweep.stretches(g, pile)
    fork = g.nip_to_flap
    return (_start(g), fork, fork + g.septum_start, stretch[-2].s1 - 8, stretch[-1].s1 - 8)


def _hits(model, card) -> dict[str, float]:
    out = {}
    for name, part in model.items():
        v = sweep.common_volume(card, part)
        if v > 1e-6:
            out[name] = round(v, 4)
    return out


@pytest.mark.parametrize("pile", PILES)
def test_a_card_swept_to_each_bay_meets_nothing_but_its_guides(machines, pile):
    model = machines[pile]
    g = DEFAULT
    heads = sweep.poses(g, pile, _start(g), FINE, COARSE, _near(g, pile))
    assert len(heads) > 30
    assert heads[-1] == pytest.approx(sweep.end_of_path(g, pile) - sweep.END_SHORT)
    met = {}
    for head in heads:
        card = sweep.card_at(g, pile, head, POKER, THICK, LIFT)
        hits = _hits(model, card)
        if hits:
            met[round(head, 1)] = hits
    assert met == {}, f"the card runs into parts at these head positions (mm from the nip): {met}"


@pytest.mark.parametrize("pile", PILES)
def test_the_swept_card_rests_on_its_guides_all_the_way(machines, pile):
    """Lowered by 0.05 mm into its floor the card cuts the guide it slides on, and only a
    guide: the sweep's card really lies on the path's floor, not beside it."""
    model, g = machines[pile], DEFAULT
    stretch = sweep.stretches(g, pile)
    want = {"land": {"tray"}, "chute": {"router"}, "branch": {"router", "vane"},
            "drop": {"bays"}}
    heads = {"land": 40.0, "chute": stretch[2].s1, "branch": stretch[3].s1,
             "drop": stretch[4].s1}
    for where, head in heads.items():
        card = sweep.card_at(g, pile, head, POKER, THICK, -0.05)
        hit = set(_hits(model, card))
        assert hit and hit <= sweep.GUIDES, (where, hit)
        assert hit & want[where] or where == "drop", (where, hit)


@pytest.mark.parametrize("thickness", [THIN, THICK])
def test_the_gate_passes_the_swept_bottom_card_and_stops_a_second(machines, thickness):
    model, g = machines["left"], DEFAULT
    blade = {"gate_blade": model["gate_blade"]}
    x0, x1, _edge = g.gate_edge
    for head in (x0 + 0.2, (x0 + x1) / 2, x1 + 1, x1 + 20):
        bottom = sweep.card_at(g, "left", head, POKER, thickness, LIFT)
        assert _hits(blade, bottom) == {}, head
        second = sweep.card_at(g, "left", head, POKER, thickness, LIFT + thickness)
        assert _hits(blade, second).get("gate_blade", 0) > 0, head  # it butts the blade
    # The second card's leading edge meets the blade's face or its lead-in, above the edge.
    before = sweep.card_at(g, "left", g.gate_x - 0.05, POKER, thickness, LIFT + thickness)
    assert _hits(blade, before) == {}


def test_a_bridge_card_between_the_shims_passes_the_tray_and_the_gate():
    g = BRIDGE
    tray = {"tray": parts.tray(g), "width_shims": parts.width_shims(g),
            "gate_blade": parts.gate_blade(g), "o_rings": parts.o_rings(g)}
    heads = sweep.poses(g, "left", _start(g), FINE, COARSE, (_start(g),))
    heads = [h for h in heads if h <= g.router_x0 + g.card_length]
    for head in heads:
        card = sweep.card_at(g, "left", head, BRIDGE_W, THICK, LIFT)
        assert _hits(tray, card) == {}, head
    # Centred and narrower than poker, its way through the router lies inside the poker
    # card's, which the sweep above clears.
    assert BRIDGE_W < POKER


@pytest.mark.parametrize("pile", PILES)
@pytest.mark.parametrize("cards", [0, 104])
def test_the_card_comes_to_rest_in_its_bay_against_the_end_wall(machines, pile, cards):
    model = machines[pile]
    card = sweep.card_on_pile(DEFAULT, pile, POKER, THICK, cards)
    assert _hits(model, [card]) == {}
    # Pushed 0.1 mm further it meets the felt pad on the end wall: that stops it.
    moved = parts.Pos(0.1, 0, 0) * card
    assert set(_hits(model, [moved])) == {"felt_pads"}  # on the pad on the end wall


def test_the_sweep_finds_a_pan_head_on_the_land_and_a_gate_set_from_the_floor():
    """What the old tray had: a pan-head screw standing on the floor in the card's way, and a
    blade set 0.45 mm above the tray floor instead of above the land: the sweep fails both."""
    from hardware.shuffler.cad import fasteners

    g = DEFAULT
    x, y = parts.clamp_screw_points(g)[1]
    pan = fasteners.Fastener("pan on the land", "pan", 3.0, 12, ((x, y, g.land_z),),
                             (0, 0, -1), ("tray",), "motor_clamp")
    card = sweep.card_at(g, "left", x + 30, POKER, THIN, LIFT)
    assert _hits({"screw": fasteners.solids(pan)[0]}, card).get("screw", 0) > 0
    blade = parts.Pos(0, 0, g.tray_floor_z + 0.45 - g.gate_edge[2]) * parts.gate_blade(g)
    bottom = sweep.card_at(g, "left", g.gate_edge[1] + 1, POKER, THIN, LIFT)
    assert _hits({"blade": blade}, bottom).get("blade", 0) > 0  # the bottom card is stopped
