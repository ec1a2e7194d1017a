"""``python -m hardware.shuffler.cad export DIR``: every part as STL and STEP, and the picture."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m hardware.shuffler.cad",
                                 description="Export the shuffler's printed parts.")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write STL and STEP of every part and assembly.svg")
    ex.add_argument("dir", type=Path)
    ex.add_argument("--pictures", type=Path, metavar="DOCS",
                    help="also write shuffler-assembly.svg, shuffler-assembly-side.svg and "
                         "shuffler-handsfree.svg here")
    args = ap.parse_args(argv)
    try:
        from hardware.shuffler.cad.export import SIDE, assembly_svg, export_all, handsfree_svg
    except ImportError as exc:  # build123d is in the optional 'cad' extra
        print(f"the CAD export needs build123d: pip install -e '.[cad]' ({exc})",
              file=sys.stderr)
        return 2
    start = time.monotonic()
    files = export_all(args.dir)
    if args.pictures:
        files.append(assembly_svg(args.pictures / "shuffler-assembly.svg"))
        files.append(assembly_svg(args.pictures / "shuffler-assembly-side.svg", hidden=True,
                                  view_from=SIDE))
        files.append(handsfree_svg(args.pictures / "shuffler-handsfree.svg"))
    for f in files:
        print(f"{f}  {f.stat().st_size} bytes")
    print(f"{len(files)} files in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
