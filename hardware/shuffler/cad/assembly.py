"""The whole shuffler: every printed part and the bought parts they hold, in place."""

from __future__ import annotations

from build123d import Part

from hardware.shuffler.cad import fasteners, handsfree_fasteners, handsfree_parts, parts
from hardware.shuffler.cad.handsfree_params import HANDSFREE, HandsFree
from hardware.shuffler.cad.params import DEFAULT, Geometry


def printed(g: Geometry = DEFAULT) -> dict[str, Part]:
    """Every printed part, by name. The width shims come only with a narrower deck."""
    out = {}
    for name, build in parts.PRINTED.items():
        if name == "width_shims" and g.shim_thickness <= 0:
            continue
        out[name] = build(g)
    return out


def bought(g: Geometry = DEFAULT, cards: int | None = None) -> dict[str, Part]:
    """The bought parts and a full deck, where they sit in the machine."""
    out = {name: build(g) for name, build in parts.BOUGHT.items()}
    out["deck"] = parts.deck(g, cards)
    return out


def assembly(g: Geometry = DEFAULT) -> dict[str, Part]:
    """Printed and bought parts and every fastener (the flap drawn in its left-pile position)."""
    return printed(g) | bought(g) | fasteners.assembly_solids(g)


def handsfree_assembly(h: HandsFree = HANDSFREE, doors: float = 0.0, press: float = 0.0
                       ) -> dict[str, Part]:
    """The hands-free machine: printed (the doors and the press at their angles), bought, and
    every fastener."""
    return (handsfree_parts.printed(h, doors, press) | handsfree_parts.bought(h, press=press)
            | handsfree_fasteners.assembly_solids(h, press))
