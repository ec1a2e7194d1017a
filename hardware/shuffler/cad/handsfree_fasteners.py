"""Every screw of the hands-free build's new parts: one table, each as a solid where it sits.

The same kinds and standards as ``fasteners`` (the Lotus build's table); the hands-free
build's BOM (docs/shuffler-build.md, "Hands-free build: parts to add") lists each row, and the
tests check every screw against the parts it joins and against every moving part's path.
"""

from __future__ import annotations

from build123d import Part

from hardware.shuffler.cad import fasteners, handsfree_parts, parts
from hardware.shuffler.cad.fasteners import COUNTERSINK_DEPTH, Fastener
from hardware.shuffler.cad.handsfree_params import BAYS, HANDSFREE, HandsFree


def table(h: HandsFree = HANDSFREE) -> list[Fastener]:
    """Every fastener of the hands-free parts, from the parts' own screw positions."""
    hp = handsfree_parts
    g = h.g
    _yi, _yb, yc = hp.riser_halves(h)
    lz0, _lz1 = hp.load_cell_z(h)
    _sz0, sz1 = hp.saddle_z(h)
    sx0, sx1, sy0, sy1, sz0_, sz1_ = hp.switch_frame(h)
    return [
        Fastener("Riser cover screws", "pan", 3.0, 12,
                 tuple((x, yc, z) for x, z in hp.riser_screw_points(h)[2:]), (0, -1, 0),
                 ("riser_cover",), "riser_body"),
        Fastener("Riser motor bracket screws", "pan", 3.0, 35,
                 tuple(handsfree_parts.bracket_screw_seats(h)), (0, -1, 0),
                 ("riser_motor_bracket", "riser_cover"), "riser_body"),
        Fastener("Riser motor face screws", "pan", 3.0, 6,
                 tuple(handsfree_parts.face_screw_seats(h)), (0, 1, 0),
                 ("riser_motor_bracket",), "riser_motor"),
        Fastener("Router bracket screws", "countersunk", 3.0, 16,
                 tuple(hp.router_bracket_screw_seats(h)), (0, 1, 0),
                 ("router_bracket",), "riser_body"),
        Fastener("Router solenoid screws", "pan", 2.0, 6,
                 tuple(hp.router_solenoid_screw_seats(h)), (0, -1, 0),
                 ("router_bracket",), "router_solenoid"),
        Fastener("Door servo screws", "pan", 2.0, 8,
                 tuple(p for bay in BAYS for p in hp.servo_screw_points(h, bay)), (1, 0, 0),
                 ("door_sg90s",), "door_servo_mount"),
        Fastener("Servo mount screws", "pan", 3.0, 16, tuple(hp.servo_mount_screws(h)),
                 (1, 0, 0), ("door_servo_mount",), "shaft"),
        Fastener("Lid switch screws", "pan", 2.0, 12,
                 tuple((x, sy1, z) for x, z in hp.switch_screw_points(h)), (0, -1, 0),
                 ("microswitch",), "shaft"),
        Fastener("Tray screws (into the saddle)", "countersunk", 3.0, 12,
                 tuple((x, y, g.tray_floor_z - COUNTERSINK_DEPTH)
                       for x, y in parts.tray_screw_points(g)),
                 (0, 0, -1), ("handsfree_tray",), "tray_saddle"),
        Fastener("Load cell screws, loaded end", "pan", 4.0, 10,
                 tuple((x, 0.0, sz1 - hp.SADDLE_CBORE) for x in hp.load_cell_holes(h)[1]),
                 (0, 0, -1), ("tray_saddle",), "load_cell"),
        Fastener("Load cell screws, fixed end", "pan", 4.0, 16,
                 tuple((x, 0.0, lz0 - 10.0) for x in hp.load_cell_holes(h)[0]),
                 (0, 0, 1), ("load_cell_foot",), "load_cell"),
        Fastener("Press foot screws", "countersunk", 3.0, 12, tuple(hp.foot_screw_seats(h)),
                 (0, 0, -1), ("press_arm",), "press_foot"),
        Fastener("Press lift servo screws", "pan", 2.0, 8,
                 tuple(hp.lift_servo_screw_points(h)), (0, 1, 0), ("press_lift_sg90",),
                 "press_lift_mount"),
        Fastener("Press lift mount screws", "pan", 3.0, 12, tuple(hp.lift_mount_screws(h)),
                 (0, 1, 0), ("press_lift_mount",), "shaft"),
        Fastener("Press turn servo screws", "pan", 2.0, 8,
                 tuple(hp.turn_servo_screw_points(h)), (0, 0, -1), ("press_turn_sg90",),
                 "press_turn_mount"),
        Fastener("Press turn mount screws", "pan", 3.0, 12, tuple(hp.turn_mount_screws(h)),
                 (0, 1, 0), ("press_turn_mount",), "shaft"),
        Fastener("Door emitter clip screws", "pan", 2.0, hp.CLIP_SCREW_L,
                 tuple(hp.door_beam_screw_seats(h, -1)), (0, 1, 0), ("door_beam_clips",),
                 "shaft"),
        Fastener("Door receiver clip screws", "pan", 2.0, hp.CLIP_SCREW_L,
                 tuple(hp.door_beam_screw_seats(h, 1)), (0, -1, 0), ("door_beam_clips",),
                 "shaft"),
    ]


def assembly_solids(h: HandsFree = HANDSFREE, press: float = 0.0) -> dict[str, Part]:
    """Every fastener as a solid, keyed ``row #n``; the press's turned ``press`` degrees
    out with it."""
    out: dict[str, Part] = {}
    for f in table(h):
        for n, solid in enumerate(fasteners.solids(f)):
            if "press_arm" in f.clamps:
                solid = _press_moved(h, solid, press)
            out[f"{f.row} #{n + 1}"] = solid
    return out


def _press_moved(h: HandsFree, solid: Part, press: float) -> Part:
    """A fastener of the press moved with it to ``press`` degrees on its path."""
    return handsfree_parts.press_move(h, solid, handsfree_parts.press_pose(h, press), press)


# ----- the press's weight: its printed parts, its tungsten block and its steel -----

# Densities for the press's weight (g/mm3); g = 9.81 m/s2. PETG 1.27 g/cm3 (printed solid:
# an upper bound for a part printed with infill); steel 7.85 g/cm3 (the follower, the
# screws). The weight is a tungsten heavy-alloy block (W-Ni-Fe), ASTM B777-15 Table 1:
# Class 1 (90 % W) 16.85-17.30 g/cm3, Class 2 (92.5 %) 17.15-17.85, Class 3 (95 %)
# 17.75-18.35, Class 4 (97 %) 18.25-18.85; pure tungsten 19.25. The BOM names Class 3, so
# its least density is the honest figure; pinewood-derby alloy weights are sold at about
# 18.0 (maximum-velocity.com, "Sintering Tungsten").
PETG_G_MM3 = 1.27e-3
STEEL_G_MM3 = 7.85e-3
TUNGSTEN_CLASS3_MIN_G_MM3 = 17.75e-3  # the least the BOM's block may be
TUNGSTEN_NOMINAL_G_MM3 = 18.0e-3
TUNGSTEN_RANGE_G_MM3 = (17.0e-3, 18.5e-3)  # the W-Ni-Fe alloys sold as weights
G_N_PER_G = 9.81e-3


def press_bodies(h: HandsFree = HANDSFREE, tungsten_g_mm3: float = TUNGSTEN_CLASS3_MIN_G_MM3
                 ) -> list[tuple[Part, float]]:
    """The press's solids on a full deck, each with its density (g/mm3): the printed arm,
    foot and sleeve, the tungsten block at ``tungsten_g_mm3``, the follower, the turn pin and
    the foot's two screws."""
    hp = handsfree_parts
    out = [(hp.press_arm(h), PETG_G_MM3), (hp.press_foot(h), PETG_G_MM3),
           (hp.press_sleeve(h), PETG_G_MM3), (hp.press_weight(h), tungsten_g_mm3),
           (hp.press_follower(h), STEEL_G_MM3), (hp.press_dog(h), STEEL_G_MM3)]
    out += [(p, STEEL_G_MM3) for n, p in assembly_solids(h).items()
            if n.startswith("Press foot screws")]
    return out


def press_mass_g(h: HandsFree = HANDSFREE, tungsten_g_mm3: float = TUNGSTEN_CLASS3_MIN_G_MM3
                 ) -> float:
    """The press's mass (g) from its solids (``press_bodies``)."""
    return sum(p.volume * d for p, d in press_bodies(h, tungsten_g_mm3))


def press_com(h: HandsFree = HANDSFREE, tungsten_g_mm3: float = TUNGSTEN_CLASS3_MIN_G_MM3
              ) -> tuple[float, float, float]:
    """(x, y, z) of the press's centre of mass on a full deck, from its solids."""
    m, acc = 0.0, [0.0, 0.0, 0.0]
    for p, d in press_bodies(h, tungsten_g_mm3):
        c = p.center()
        w = p.volume * d
        m += w
        for i, v in enumerate((c.X, c.Y, c.Z)):
            acc[i] += w * v
    return acc[0] / m, acc[1] / m, acc[2] / m


def press_force_n(h: HandsFree = HANDSFREE, cards: int = 0,
                  tungsten_g_mm3: float = TUNGSTEN_CLASS3_MIN_G_MM3) -> float:
    """The press's force on a deck of ``cards`` (N): its weight, the hub sliding freely down
    the post's straight leg (the foot carries it all, whatever the deck's height).

    Raises ValueError for a deck the tray does not hold.
    """
    if not 0 <= cards <= h.g.capacity_cards:
        raise ValueError(f"a deck of {cards} cards: the tray holds 0 to {h.g.capacity_cards}")
    return press_mass_g(h, tungsten_g_mm3) * G_N_PER_G
