"""`crib advise` (which cards to lay away), `crib advise-play` (which card to play) and
`crib advise-table` (measure the crib table the `table` model ships with)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from cribbage.advisor import (
    DEALS,
    MODELS,
    TABLE_FILE,
    Advice,
    PlayHint,
    advise,
    advise_play,
    measure_crib_table,
)
from cribbage.cards import parse_cards
from cribbage.errors import CribbageError
from firmware_host.cli import fail


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add this area's subcommands to the `crib` parser."""
    p = sub.add_parser(
        "advise",
        help="rank every discard of a dealt hand by expected points",
        description="Rank every discard of a dealt hand: expected hand (over every starter), "
        "expected crib (model random: exact over every crib completion and starter; model "
        "table: measured per thrown ranks), and the net (plus the crib for the dealer, minus "
        "for the pone).",
    )
    p.add_argument("cards", nargs="+", metavar="CARD", help="the dealt hand, like 7C 9H 5H")
    side = p.add_mutually_exclusive_group(required=True)
    side.add_argument("--dealer", dest="dealer", action="store_true", help="the crib is yours")
    side.add_argument("--pone", dest="dealer", action="store_false", help="the crib is not")
    p.add_argument("--model", choices=MODELS, default="random", help="crib model")
    p.add_argument("--variant", choices=list(DEALS), default="six-card")
    p.add_argument("--known", nargs="+", action="extend", default=[], metavar="CARD",
                   help="cards known to be out of play (not in the crib, not the starter)")
    p.add_argument("--top", type=int, default=0, metavar="N", help="show only the best N")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=_advise)

    p = sub.add_parser(
        "advise-play",
        help="which card to play now in the play (pegging)",
        description="The card to play now: the points it pegs minus the expected points of "
        "the reply by an unseen card.",
    )
    p.add_argument("cards", nargs="+", metavar="CARD", help="the cards still in your hand")
    p.add_argument("--played", nargs="+", action="extend", default=[], metavar="CARD",
                   help="cards laid since the count was last reset, in order")
    p.add_argument("--known", nargs="+", action="extend", default=[], metavar="CARD",
                   help="other cards out of play (earlier series, your crib cards)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_advise_play)

    p = sub.add_parser(
        "advise-table",
        help="measure the crib table of the advisor's table model (slow)",
        description="Simulate deals in which the other players lay away as the advisor "
        "(random model) does, and record the expected crib per thrown rank pair for the dealer "
        "and the pone. Writes (merges one variant into) the table file.",
    )
    p.add_argument("--variant", choices=list(DEALS), action="append", default=None,
                   help="variant(s) to measure (default: all)")
    p.add_argument("--samples", type=int, default=200, help="deals per rank pair and side")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--out", type=Path, default=None, help=f"default: {TABLE_FILE}")
    p.set_defaults(func=_advise_table)


def _advise(args: argparse.Namespace) -> int:
    try:
        advice = advise(
            list(args.cards),
            dealer=args.dealer,
            variant=args.variant,
            model=args.model,
            known=list(args.known),
        )
    except (CribbageError, FileNotFoundError) as exc:
        return fail(args, exc)
    if args.json:
        data = advice.to_json()
        if args.top > 0:
            data["options"] = data["options"][: args.top]  # type: ignore[index]
        print(json.dumps(data, indent=2))
    else:
        print(format_advice(advice, top=args.top))
    return 0


def format_advice(advice: Advice, *, top: int = 0) -> str:
    """The advice as a ranked table for a terminal."""
    seat = "dealer (your crib)" if advice.dealer else "pone (their crib)"
    known = f", {len(advice.known)} known" if advice.known else ""
    lines = [
        f"{' '.join(map(str, advice.hand))}: {seat}, {advice.variant}, "
        f"crib model {advice.model}, {advice.unseen} unseen{known}",
        f"{'#':>2}  {'keep':<14} {'throw':<7} {'hand':>6} {'crib':>6} {'net':>7}"
        f" {'min':>4} {'max':>4}",
    ]
    options = advice.options[:top] if top > 0 else advice.options
    sign = "+" if advice.dealer else "-"
    for i, o in enumerate(options, 1):
        crib = f"{sign}{float(o.crib):.2f}"
        lines.append(
            f"{i:>2}  {' '.join(map(str, o.keep)):<14} {' '.join(map(str, o.discard)):<7} "
            f"{float(o.hand):>6.2f} {crib:>6} {float(o.net):>7.2f}"
            f" {o.hand_min:>4} {o.hand_max:>4}"
        )
    return "\n".join(lines)


def _advise_play(args: argparse.Namespace) -> int:
    try:
        # Lists, not joined text: an empty word is refused by the parser, never dropped.
        played = parse_cards(list(args.played))
        hint = advise_play(
            list(args.cards), played, sum(c.pips for c in played), known=list(args.known)
        )
    except CribbageError as exc:
        return fail(args, exc)
    if args.json:
        print(json.dumps(hint.to_json(), indent=2))
    else:
        print(format_hint(hint))
    return 0


def format_hint(hint: PlayHint) -> str:
    """The pegging hint and every option, for a terminal."""
    lines = [f"count {hint.count}: {hint.reason}"]
    for o in hint.options:
        lines.append(
            f"  {str(o.card):<4} to {o.count:>2}: now {o.now}, reply {float(o.reply):.2f}, "
            f"net {float(o.net):+.2f} ({o.reason})"
        )
    return "\n".join(lines)


def _advise_table(args: argparse.Namespace) -> int:
    out: Path = args.out or Path(str(TABLE_FILE))
    if args.samples < 1:
        return fail(args, f"--samples must be at least 1, not {args.samples}")
    try:
        data = json.loads(out.read_text("utf-8")) if out.exists() else {}
    except (OSError, ValueError) as exc:
        return fail(args, f"cannot read {out}: {exc}")
    tables = data.get("tables", {})
    runs = data.get("runs", {})
    for variant in args.variant or list(DEALS):
        start = time.monotonic()
        # A seed per variant, so that one variant can be measured again alone.
        rng = random.Random(f"{args.seed}-{variant}")
        tables[variant] = measure_crib_table(variant, rng, samples=args.samples)
        runs[variant] = {"samples": args.samples, "seed": args.seed}
        print(f"{variant}: {len(tables[variant]['dealer'])} keys per side "
              f"in {time.monotonic() - start:.0f} s", file=sys.stderr)
    data = {
        "about": "Expected crib points per thrown ranks (low first), for the dealer and the "
        "pone, measured by `crib advise-table`: for each key and side, `samples` simulated "
        "deals (random.Random(f'{seed}-{variant}')) in which the thrown cards get random suits, "
        "every other player lays away the advisor's best discard (random model) for his seat, "
        "and the crib is scored exactly over every starter left in the pack.",
        "runs": runs,
        "tables": tables,
    }
    try:
        out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")
    except OSError as exc:
        return fail(args, f"cannot write {out}: {exc}")
    print(f"wrote {out}", file=sys.stderr)
    return 0
