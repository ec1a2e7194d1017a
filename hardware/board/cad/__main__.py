"""`python -m hardware.board.cad DIR [--map FILE]`: the board's top and base as STEP and STL."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Write board-top and board-base (.step, .stl) into DIR; 2 for a bad map file."""
    p = argparse.ArgumentParser(prog="python -m hardware.board.cad")
    p.add_argument("out", help="folder to write into")
    p.add_argument("--map", default=None, help="an LED map file of crib board map")
    args = p.parse_args(argv)
    from build123d import export_step, export_stl

    from hardware.board.cad.body import base, top
    from hardware.board.layout import StripPlan, plan_of_map, read_map
    from hardware.errors import ConfigurationError

    try:
        plan = plan_of_map(read_map(args.map)) if args.map else StripPlan()
    except ConfigurationError as exc:
        print(f"board cad: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, part in (("board-top", top(plan)), ("board-base", base(plan))):
        export_step(part, str(out / f"{name}.step"))
        export_stl(part, str(out / f"{name}.stl"))
        print(f"wrote {out / name}.step and .stl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
