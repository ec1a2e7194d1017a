"""`crib board map` and `crib board template`: the LED map and the drilling template, from one
plan of where the strip's LEDs lie under the board (`hardware.board.layout.StripPlan`).

The map is written once, to a file; the Pi's configuration (`[board] led_map_file`) and
`crib board flash --map` (which writes it into the Pico's config.py) both read that file.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from hardware.board.layout import plan_of_map, read_map
from hardware.errors import HardwareError

MAP_NAME = "led-map.json"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `map` and `template` under `crib board` (registered by the hardware module)."""
    board = sub.choices.get("board")
    if board is None:  # registered alone (the hardware module adds the others)
        board = sub.add_parser("board", help="LED peg board tools",
                               description="Tools for the LED peg board.")
        board.add_subparsers(dest="board_command", metavar="SUBCOMMAND").required = True
    bsub = next(a for a in board._actions if isinstance(a, argparse._SubParsersAction))
    m = bsub.add_parser(
        "map",
        help="write the LED map (which LED is under which hole) for a strip laid under the board",
        description="Work out which LED of the strip lies under each hole, from the strip's "
        "density and how it is laid (groups of holes, dark LEDs between groups, legs, track "
        "spacing), and write it to a file once. Set [board] led_map_file to that file on the "
        "Pi; crib board flash --map FILE writes it into the Pico's config.py; crib board "
        "template --map FILE draws the holes over the same LEDs. Exit status 0, 2 for bad "
        "options.",
    )
    _plan_options(m)
    m.add_argument("--out", default=None,
                   help=f"file to write (default: {MAP_NAME} beside the configuration: "
                   f"/etc/cribbage-table/{MAP_NAME} when installed)")
    m.add_argument("--config", default=None, help="configuration file whose folder gets the map")
    m.set_defaults(func=_map)

    t = bsub.add_parser(
        "template",
        help="write a 1:1 drilling template of the holes over the LEDs (SVG and PDF pieces)",
        description="Draw every hole over its LED at 1:1, with the start and game holes, the "
        "strip's pieces and which way their data runs, and the skunk lines of a variant (the "
        "rules engine's), as one SVG and as PDF pages of A4 and US Letter that overlap, with "
        "registration marks and a 100 mm bar to check the scale. The PDF needs fpdf2 (the "
        "docs extra). Exit status 0, 2 for bad options or a missing library.",
    )
    _plan_options(t)
    t.add_argument("--map", default=None,
                   help="take the plan from this file of crib board map (the other plan "
                   "options are then ignored)")
    t.add_argument("--variant", default="six-card", help="whose skunk lines to draw")
    t.add_argument("--skunk", default="skunk", help="skunk rule: skunk, lurch or none")
    t.add_argument("--drill", type=float, default=5.0, help="hole diameter in mm (default 5)")
    t.add_argument("--paper", choices=("a4", "letter", "both"), default="both")
    t.add_argument("--no-pdf", action="store_true", help="write the SVG only")
    t.add_argument("--out", default=".", help="folder to write into (default: here)")
    t.set_defaults(func=_template)


def _plan_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tracks", type=int, default=2, help="tracks (1 to 3; default 2)")
    p.add_argument("--holes", type=int, default=120, help="holes a track (60 or 120)")
    p.add_argument("--per-metre", type=int, default=144,
                   help="the strip's LEDs a metre: 144 (6.944 mm pitch), 100, 96 or 60")
    p.add_argument("--group", type=int, default=5, help="holes a group (default 5)")
    p.add_argument("--skip", type=int, default=1,
                   help="dark LEDs between two groups (default 1; 0: evenly spaced holes)")
    p.add_argument("--end-skip", type=int, default=1,
                   help="dark LEDs between the start hole and hole 1, and before the game hole")
    p.add_argument("--legs", type=int, default=2,
                   help="rows a track runs in: 1 straight, 2 out and back (default), 3 or 4")
    p.add_argument("--track-spacing", type=float, default=12.0,
                   help="mm between two tracks' rows (default 12)")
    p.add_argument("--leg-gap", type=float, default=24.0,
                   help="extra mm between one leg's rows and the next leg's (default 24)")
    p.add_argument("--margin", type=float, default=15.0, help="mm of board round the holes")


def plan_from(args: argparse.Namespace) -> Any:
    """The `StripPlan` of the options. Raises ConfigurationError for one that cannot work."""
    from hardware.board.layout import StripPlan

    return StripPlan(tracks=args.tracks, holes=args.holes, per_metre=args.per_metre,
                     group=args.group, skip=args.skip, end_skip=args.end_skip, legs=args.legs,
                     track_spacing=args.track_spacing, leg_gap=args.leg_gap, margin=args.margin)


def default_map_path(config: str | None) -> Path:
    """Where `crib board map` writes without --out: beside the configuration file."""
    from firmware_host.cli.daemon import installed_config
    from firmware_host.config import config_path

    if config is None and not os.environ.get("CRIB_CONFIG"):
        installed = installed_config()
        if installed is not None:
            return installed.parent / MAP_NAME
    return config_path(config)[0].parent / MAP_NAME


def _map(args: argparse.Namespace) -> int:
    try:
        plan = plan_from(args)
    except (HardwareError, ValueError) as exc:
        print(f"crib board map: {exc}\nsee crib board map --help", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else default_map_path(args.config)
    doc = plan.map_document()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(out)
    except OSError as exc:
        print(f"crib board map: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 1
    width, depth = plan.size()
    print(f"wrote {out}: {plan.tracks} tracks of {plan.holes} holes on {plan.led_count()} LEDs "
          f"({plan.per_metre}/m, {plan.pitch:.3f} mm apart), board {width:.0f} x {depth:.0f} mm")
    print(f"next: crib board template --map {out}; on the Pi set [board] led_map_file = "
          f"\"{out}\"; for a Pico: crib board flash --map {out}")
    return 0


def _template(args: argparse.Namespace) -> int:
    from cribbage.errors import CribbageError
    from cribbage.rules import get_rules
    from hardware.board import template

    try:
        if args.map:
            plan = plan_of_map(read_map(args.map))  # ValueError naming the file
        else:
            plan = plan_from(args)
        rules = get_rules(args.variant, skunk=args.skunk)
        named = [(k, v) for k, v in rules.lines.to_json().items() if v is not None]
        lines = template.lines_at(plan, named, rules.target)
        if args.drill <= 0 or args.drill >= plan.pitch * 2:
            raise ValueError(f"--drill {args.drill} mm: a hole is more than 0 mm and less than "
                             "two LEDs' pitch")
    except (HardwareError, ValueError, CribbageError) as exc:
        print(f"crib board template: {exc}\nsee crib board template --help", file=sys.stderr)
        return 2
    out = Path(args.out)
    title = (f"crib board template: {plan.tracks} tracks x {plan.holes} holes, "
             f"{plan.per_metre} LEDs/m ({plan.pitch:.3f} mm), groups of {plan.group}, skip "
             f"{plan.skip}, {plan.legs} legs; {args.variant} {args.skunk} lines; "
             f"drill {args.drill:g} mm")
    written = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "board-template.svg"
        path.write_text(template.svg(plan, lines, args.drill, title))
        written.append(f"{path} (whole board, 1:1)")
        if not args.no_pdf:
            for paper in ("a4", "letter") if args.paper == "both" else (args.paper,):
                data = template.pdf(plan, lines, paper, args.drill, title)
                path = out / f"board-template-{paper}.pdf"
                path.write_bytes(data)
                width, depth = plan.size()
                n = len(template.tiles(width, depth, paper))
                written.append(f"{path} ({n} pages)")
    except HardwareError as exc:
        print(f"crib board template: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"crib board template: cannot write into {out}: {exc.strerror}", file=sys.stderr)
        return 1
    for line in written:
        print(f"wrote {line}")
    print("print at 100% (no 'fit to page') and measure the 100 mm bar before drilling")
    return 0


# --- the Pico's config.py with the map (for crib board flash) ---------------------------------


def firmware_config(source: str, doc: dict[str, Any]) -> str:
    """The board's config.py `source` with TRACKS, HOLES, LED_COUNT and LED_MAP of a map file.

    Each assignment is replaced where it stands (other settings and comments are kept).
    Raises ValueError when one of them is not in the file.
    """
    values = {"TRACKS": repr(doc["tracks"]), "HOLES": repr(doc["holes"]),
              "LED_COUNT": repr(doc["led_count"]),
              "LED_MAP": "(\n" + "".join(f"    {tuple(row)!r},\n" for row in doc["led_map"])
              + ")"}
    lines = source.splitlines(keepends=True)
    spans = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in values:
            spans[node.targets[0].id] = (node.lineno, node.end_lineno or node.lineno)
    missing = sorted(set(values) - set(spans))
    if missing:
        raise ValueError(f"the board's config.py has no {', '.join(missing)}")
    for name, (first, last) in sorted(spans.items(), key=lambda kv: -kv[1][0]):
        note = "  # from the LED map file (crib board map)\n"
        lines[first - 1:last] = [f"{name} = {values[name]}{note}"]
    return "".join(lines)


def with_led_map(files: list[tuple[Path, str]], map_file: str | None) -> list[tuple[Path, str]]:
    """The firmware's files with config.py swapped for one holding the map of `map_file`
    (the file is written into a new temporary folder, kept for a look after --dry-run).
    None: the map beside the configuration when `crib board map` wrote one there, else the
    files as they are. Raises ValueError naming a bad map file."""
    if map_file is None:
        found = default_map_path(None)
        if not found.is_file():
            return files
        print(f"LED map: {found} (written by crib board map; --map to choose another)",
              flush=True)
        map_file = str(found)
    doc = read_map(map_file)  # ValueError naming the file
    out = []
    for src, dest in files:
        if dest.endswith("firmware/config.py"):
            folder = Path(tempfile.mkdtemp(prefix="crib-led-map-"))
            src = folder / "config.py"
            src.write_text(firmware_config(_source(files, dest), doc))
        out.append((src, dest))
    return out


def _source(files: list[tuple[Path, str]], dest: str) -> str:
    return next(src for src, d in files if d == dest).read_text()
