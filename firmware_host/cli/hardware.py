"""`crib` subcommands for the hardware: the shuffler audit (and the peg board's commands)."""

from __future__ import annotations

import argparse
import json
import sys

from hardware.errors import HardwareError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add this area's subcommands to the `crib` parser."""
    _register_shuffler(sub)
    _register_board(sub)


# --- shuffler ---------------------------------------------------------------------------


def _register_shuffler(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`crib shuffle-audit`."""
    p = sub.add_parser(
        "shuffle-audit",
        help="simulate many decks through the shuffler model and check the mix",
        description=(
            "Simulate decks through the shuffler model and compare them with the exact "
            "Bayer-Diaconis figures: rising sequences, TV estimate and lower bounds, "
            "adjacency, split bias, clumping. Exit status 0 when every check passes, 1 when "
            "the machine is flagged, 2 for bad options."
        ),
    )
    p.add_argument("--deck", type=int, default=52, help="cards in the deck (2..104)")
    p.add_argument("--passes", type=int, default=None,
                   help="passes per deck (default: the plan's own count)")
    p.add_argument("--routing", choices=("coin", "radix", "light"), default="coin")
    p.add_argument("--decks", type=int, default=20_000, help="decks to simulate")
    p.add_argument("--p", type=float, default=0.5, help="share of cards sent left (bias)")
    p.add_argument("--q", type=float, default=0.5,
                   help="share of cards landing in the same pile as the card before (clumping)")
    p.add_argument("--misroute", type=float, default=0.0, help="misroute rate per card")
    p.add_argument("--double-feed", type=float, default=0.0, help="double-feed rate per card")
    p.add_argument("--seed", type=int, default=None, help="seed for a reproducible run")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_shuffle_audit)


def _shuffle_audit(args: argparse.Namespace) -> int:
    from hardware.shuffler.audit import AuditConfig, format_report, simulate
    from hardware.shuffler.physics import MachineModel

    try:
        model = MachineModel(p=args.p, q=args.q, misroute=args.misroute,
                             double_feed=args.double_feed)
        config = AuditConfig(deck=args.deck, passes=args.passes, routing=args.routing,
                             decks=args.decks, model=model, seed=args.seed)
        report = simulate(config)
    except (HardwareError, ValueError) as exc:
        print(f"crib shuffle-audit: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(format_report(report))
    return 0 if report.ok else 1


# --- peg board ----------------------------------------------------------------------------


def _register_board(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`crib board-sim` and `crib board test`."""
    p = sub.add_parser(
        "board-sim",
        help="run a simulated LED peg board on a pseudo-terminal",
        description="Start the simulated peg board on a pseudo-terminal, print the path to "
        "open (e.g. with `crib board test --port PATH`) and run until Ctrl-C.",
    )
    p.add_argument("--tracks", type=int, default=2, help="tracks on the board (1..3)")
    p.add_argument("--holes", type=int, default=120, help="holes per track (60 or 120)")
    p.set_defaults(func=_board_sim)

    board = sub.add_parser("board", help="LED peg board tools",
                           description="Tools for the LED peg board.")
    bsub = board.add_subparsers(dest="board_command", metavar="SUBCOMMAND")
    bsub.required = True
    t = bsub.add_parser(
        "test",
        help="say hello to a board, light a test pattern, report version, LEDs and timing",
        description="Open the board on PORT, do the hello, light every LED in a test colour, "
        "read the frame buffer back and time round trips. Exit status 0 when all is well, "
        "1 when the board does not answer or is refused.",
    )
    t.add_argument("--port", required=True,
                   help="serial port (/dev/serial/by-id/...), pty path or pyserial URL")
    t.add_argument("--json", action="store_true", help="print the report as JSON")
    t.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the hello")
    t.add_argument("--pings", type=int, default=20, help="round trips to time")
    t.set_defaults(func=_board_test)


def _board_sim(args: argparse.Namespace) -> int:
    import signal
    import threading

    from hardware.board.layout import BoardLayout
    from hardware.board.simulator import BoardSimulator
    from hardware.clock import SystemClock

    try:
        layout = BoardLayout(tracks=args.tracks, holes=args.holes)
    except HardwareError as exc:
        print(f"crib board-sim: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with BoardSimulator(layout, SystemClock()) as sim:
        path = sim.open_pty()
        print(path, flush=True)
        print(f"simulated board: {layout.tracks} tracks of {layout.holes} holes, "
              f"{layout.led_count} LEDs on {sim.pty_name}; Ctrl-C to stop",
              file=sys.stderr, flush=True)
        try:
            while not done.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
    return 0


def _board_test(args: argparse.Namespace) -> int:
    import statistics

    from hardware.board.host import SerialPegBoard
    from hardware.board.layout import BoardLayout
    from hardware.clock import SystemClock
    from hardware.interfaces import DeviceState

    board = SerialPegBoard(args.port, BoardLayout(), SystemClock())
    board.link.expect_leds = None  # a maker's board may be any size: report what it says
    report: dict[str, object] = {"port": args.port, "ok": False}
    board.start()
    try:
        if not board.wait_connected(args.timeout):
            d = board.describe()
            report["error"] = (d["fault"] if board.state is DeviceState.FAULT else
                               f"no hello from {args.port} within {args.timeout} s"
                               f" ({d['state']}: {d['fault']})")
        else:
            dev = board.link.device
            assert dev is not None
            report.update(protocol=dev.protocol, firmware_build=dev.build,
                          led_count=dev.led_count, tracks=dev.tracks, holes=dev.holes,
                          boot_id=dev.boot_id)
            colour = (32, 32, 32)
            lit = board.test_pattern(colour)
            rb = board.read_back(timeout=args.timeout) if lit else None
            shown = rb is not None and all(led == colour for led in rb.leds)
            report["test_pattern"] = {"rgb": list(colour), "acknowledged": lit,
                                      "read_back": shown}
            rtts = [r for r in (board.ping() for _ in range(max(1, args.pings))) if r is not None]
            if rtts:
                report["rtt_ms"] = {"p50": round(statistics.median(rtts) * 1000, 2),
                                    "max": round(max(rtts) * 1000, 2), "n": len(rtts)}
            report["ok"] = bool(lit and shown and rtts)
            if not report["ok"]:
                report["error"] = "the board answered the hello but not every test"
    finally:
        board.stop()
    if args.json:
        print(json.dumps(report, indent=2))
    elif report.get("protocol") is None:
        print(f"crib board test: {report['error']}", file=sys.stderr)
    else:
        rtt = report.get("rtt_ms") or {}
        tp = report.get("test_pattern") or {}
        print(f"board on {args.port}: protocol {report['protocol']}, firmware build "
              f"{report['firmware_build']}, {report['led_count']} LEDs ({report['tracks']} tracks "
              f"of {report['holes']} holes), boot id {report['boot_id']:#010x}")
        print(f"test pattern: {'lit and read back' if tp.get('read_back') else 'NOT confirmed'}")
        if rtt:
            print(f"round trip: p50 {rtt['p50']} ms, max {rtt['max']} ms over {rtt['n']} pings")
        if not report["ok"]:
            print(f"crib board test: {report['error']}", file=sys.stderr)
    return 0 if report["ok"] else 1
