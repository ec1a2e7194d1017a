"""Export every printed part as STL and STEP, lying as it prints, and the assembly picture."""

from __future__ import annotations

import math
from pathlib import Path

from build123d import Compound, ExportSVG, LineType, export_step, export_stl

from hardware.shuffler.cad import parts
from hardware.shuffler.cad.assembly import assembly
from hardware.shuffler.cad.params import DEFAULT, Geometry

# The picture: from the feeding end, the servo side and above (tray, router and bays show).
VIEW_FROM = (-1.0, 1.6, 1.1)
SIDE = (0.0, -1.0, 0.0)  # the side elevation, feed to the right; hidden lines show the path


def export_parts(out: Path, g: Geometry = DEFAULT,
                 names: tuple[str, ...] | None = None) -> list[Path]:
    """Write ``NAME.stl`` and ``NAME.step`` for each printed part (all, or ``names``).

    The width shims are always exported (for a bridge deck, whatever ``g``'s deck is).
    Raises KeyError for a name that is not a printed part.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = []
    wanted = tuple(parts.PRINTED) if names is None else names
    for name in wanted:
        flat = parts.printable(name, g)
        stl, step = out / f"{name}.stl", out / f"{name}.step"
        export_stl(flat, str(stl))
        export_step(flat, str(step))
        written += [stl, step]
    return written


def assembly_svg(path: Path, g: Geometry = DEFAULT, hidden: bool = False,
                 view_from: tuple[float, float, float] = VIEW_FROM) -> Path:
    """Draw the assembly (printed and bought parts) as an SVG projection, visible lines.

    ``hidden`` adds the hidden lines, dotted (for the side view, where the path is inside).
    """
    model = Compound(children=list(assembly(g).values()))
    return _draw(model, path, hidden, view_from)


def handsfree_svg(path: Path, view_from: tuple[float, float, float] = VIEW_FROM) -> Path:
    """Draw the hands-free machine (printed and bought parts, a deck in the tray, every
    screw) as an SVG projection, visible lines, as ``assembly_svg`` draws the Lotus build."""
    from hardware.shuffler.cad.assembly import handsfree_assembly

    model = Compound(children=list(handsfree_assembly().values()))
    return _draw(model, path, False, view_from)


def _draw(model: Compound, path: Path, hidden: bool,
          view_from: tuple[float, float, float]) -> Path:
    centre = model.bounding_box().center()
    norm = math.sqrt(sum(c * c for c in view_from))
    origin = tuple(tuple(centre)[i] + 1000 * view_from[i] / norm for i in range(3))
    visible, concealed = model.project_to_viewport(origin, viewport_up=(0, 0, 1),
                                                   look_at=tuple(centre))
    size = max(*tuple(model.bounding_box().size))
    svg = ExportSVG(scale=170 / size, margin=4, line_weight=0.18)
    svg.add_layer("visible", line_weight=0.18)
    svg.add_shape(visible, layer="visible")
    if hidden:
        svg.add_layer("hidden", line_color=(160, 160, 160), line_type=LineType.ISO_DOT)
        svg.add_shape(concealed, layer="hidden")
    path.parent.mkdir(parents=True, exist_ok=True)
    svg.write(str(path))
    return path


def export_all(out: Path, g: Geometry = DEFAULT) -> list[Path]:
    """Every part's STL and STEP, the assembly as STEP, and ``assembly.svg``."""
    files = export_parts(out, g)
    whole = Compound(children=list(assembly(g).values()))
    export_step(whole, str(out / "assembly.step"))
    files.append(out / "assembly.step")
    files.append(assembly_svg(out / "assembly.svg", g))
    files.append(assembly_svg(out / "assembly-side.svg", g, hidden=True, view_from=SIDE))
    return files
