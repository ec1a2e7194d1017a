"""Bring-up commands for a maker wiring the table: `crib inputs watch`, `crib shuffler test`,
`crib shuffler jog`, `crib shuffler calibrate`. On a Pi they use the configured pins; with
`--simulate` the same code runs on gpiozero's MockFactory pins (a simulated machine behind the
shuffler's), on a laptop.
The feed motor is off when a command ends: normally, on Ctrl-C, on SIGTERM, or on an error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware_host.cli import until_stopped
from firmware_host.errors import ConfigError
from hardware.errors import HardwareError

if TYPE_CHECKING:  # imported where used: a command loads only what it needs
    from gpiozero import Factory
    from gpiozero.pins.mock import MockFactory

    from firmware_host.config import Settings
    from hardware.clock import FakeClock
    from hardware.interfaces import Clock
    from hardware.shuffler.controller import Timing
    from hardware.shuffler.gpio import GpioShuffler
    from hardware.shuffler.mockrig import MockRig
    from hardware.shuffler.plan import Pile


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `crib inputs` and `crib shuffler` to the `crib` parser."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=None, help="configuration file (for the pins; "
                        "default: $CRIB_CONFIG, else /etc/cribbage-table/config.toml "
                        "when installed)")
    common.add_argument("--simulate", action="store_true",
                        help="mock pins instead of the Pi's (works on a laptop)")
    common.add_argument("--json", action="store_true", help="one JSON object a line")

    inputs = sub.add_parser("inputs", help="bring-up: watch the buttons, encoders, touch "
                            "and sensors").add_subparsers(dest="inputs_command",
                                                          metavar="ACTION")
    inputs.required = True
    w = inputs.add_parser("watch", parents=[common],
                          help="print each button, encoder step, touch and sensor edge")
    w.add_argument("--seconds", type=float, default=None,
                   help="stop after this long (default: until Ctrl-C)")
    w.set_defaults(func=_inputs_watch)

    shuf = sub.add_parser("shuffler", help="the shuffler: shuffle a deck from the command "
                          "line; bring-up: test, jog and calibrate its parts"
                          ).add_subparsers(dest="shuffler_command", metavar="ACTION")
    shuf.required = True
    t = shuf.add_parser("test", parents=[common],
                        help="feed one card left and one right; report sensors and timings")
    t.set_defaults(func=_shuffler_test)
    j = shuf.add_parser("jog", parents=[common], help="move one part: the motor or the router")
    what = j.add_mutually_exclusive_group(required=True)
    what.add_argument("--motor", type=float, metavar="SECONDS",
                      help="run the feed motor this long (Ctrl-C stops it)")
    what.add_argument("--router", choices=("left", "right"), help="set the pile router")
    what.add_argument("--servo", choices=("lower_door", "upper_door", "press_lift",
                                          "press_turn"),
                      help="hands-free: drive one servo to --pulse-ms (to fit its horn, or "
                           "find the doors' shut and open pulses)")
    what.add_argument("--off", action="store_true",
                      help="drive the feed motor's pin off and exit (the service runs this "
                           "after the daemon stops, however it ended)")
    j.add_argument("--pulse-ms", type=float, default=None, metavar="MS",
                   help="with --servo: the pulse, 0.5 to 2.5 ms (an SG90 turns 90 degrees "
                        "a millisecond)")
    j.set_defaults(func=_shuffler_jog)
    c = shuf.add_parser("calibrate", parents=[common],
                        help="feed a full deck one card at a time to both piles, measure each "
                             "card's speed from the first to the last and write them to the "
                             "configuration")
    c.add_argument("--cards", type=int, default=None,
                   help="cards to feed, alternately left and right: the whole deck you will "
                        "shuffle (default: [shuffle] deck, 52; 4 to 104)")
    c.add_argument("--dry-run", action="store_true",
                   help="measure and print, but do not write the configuration")
    c.add_argument("--sim-speed", type=float, default=None, metavar="MM_S",
                   help="with --simulate: the simulated machine's card speed with an empty "
                        "tray (its motor made that fast; default: the default build's)")
    c.set_defaults(func=_shuffler_calibrate)
    s = shuf.add_parser("shuffle", parents=[common],
                        help="start a shuffle with one command and follow it to the end: "
                             "passes, phase, time left and the prompts (Enter answers one)")
    s.add_argument("--deck", type=int, choices=(52, 104), default=None,
                   help="cards in the deck (default: [shuffle] deck)")
    s.add_argument("--plan", choices=("random", "exact", "light"), default=None,
                   help="the plan (default: the build's own, [shuffle] plan)")
    s.add_argument("--url", default=None,
                   help="the daemon (default: http://127.0.0.1 at the configured port)")
    s.add_argument("--token", default=None,
                   help="an operator token (default: $CRIB_TOKEN; `crib token create`)")
    s.add_argument("--speed", type=float, default=None,
                   help="with --simulate: run the simulated machine this many times faster "
                        "than real time (default: [shuffler] speed)")
    s.set_defaults(func=_shuffler_shuffle)


def _shuffler_shuffle(args: argparse.Namespace) -> int:
    from firmware_host.cli.shuffle import run

    return run(args, _Out, _settings)


# --- shared ------------------------------------------------------------------------------


class _Out:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.t0 = time.monotonic()

        self.closed = False  # the reader went away (`crib inputs watch | head`)

    def line(self, text: str, **data: Any) -> None:
        if self.closed:
            return
        try:
            if self.as_json:
                print(json.dumps({"t": round(time.monotonic() - self.t0, 4), **data}),
                      flush=True)
            else:
                print(text, flush=True)
        except BrokenPipeError:
            # Python's advice: point stdout at /dev/null so the flush at exit cannot fail
            # again; the command then ends as if its time were up.
            self.closed = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def service_config(given: str | None, command: str) -> str | None:
    """The file a bring-up command reads: `given`, else $CRIB_CONFIG (None: the loader reads
    it), else on a Pi the installed service's file, so a pin moved there is the pin brought
    up. Raises ConfigError naming `sudo crib <command>` when this user may not read it."""
    from firmware_host.cli.daemon import installed_config, unreadable

    if given or os.environ.get("CRIB_CONFIG"):
        return given
    path = installed_config()
    if path is None:
        return None
    problem = unreadable(path, f"sudo crib {command}` or pass `--config FILE")
    if problem is not None:
        raise ConfigError(problem)
    return str(path)


def _command(args: argparse.Namespace) -> str:
    """The command's words after `crib`: "shuffler jog", "inputs watch"."""
    return " ".join(w for w in (getattr(args, "command", None),
                                getattr(args, "inputs_command", None),
                                getattr(args, "shuffler_command", None)) if w) or "..."


def _settings(args: argparse.Namespace) -> Settings:
    from firmware_host.config import load_settings

    return load_settings(service_config(args.config, _command(args)))


def _pin_factory(args: argparse.Namespace, nothing: str, command: str) -> Factory | None:
    """MockFactory pins with --simulate; else None, once gpiozero has a factory for this
    machine's pins (chosen quietly: its fallback warnings name libraries, not the problem).

    Raises HardwareError, in one line naming `--simulate`, when this machine has no GPIO.
    """
    if args.simulate:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    import warnings

    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    from firmware_host.config import pi_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            Device.ensure_pin_factory()
        except BadPinFactory:
            why = ("this machine is not a Raspberry Pi" if pi_model() is None else
                   "no GPIO library loads here (crib doctor says which is missing)")
            raise HardwareError(f"{nothing} here ({why}): `crib {command} --simulate` runs "
                                "the simulated one") from None
    return None


def _fail(command: str, exc: Exception) -> int:
    print(f"crib {command}: {exc}", file=sys.stderr)
    return 2


def _shuffler(args: argparse.Namespace, clock: Clock, factory: Factory | None = None
              ) -> tuple[GpioShuffler, Factory | None, MockRig | None]:
    """A GpioShuffler on the configured pins: (shuffler, factory or None, mock rig or None)."""
    from hardware.shuffler.gpio import GpioShuffler

    s = _settings(args).shuffler
    pins = dict(s.pins)
    rig = None
    if factory is None:
        factory = _pin_factory(args, "there is no shuffler", _command(args))
    sh = GpioShuffler(pins, clock, pin_factory=factory, timing=s.timing(),
                      sensor_filter_ms=s.sensor_filter_ms)
    sh.open()
    if sh.state.value == "absent":
        raise HardwareError(sh.describe()["error"] or "the shuffler's pins cannot be claimed")
    if args.simulate and not getattr(args, "no_rig", False):
        from hardware.shuffler.mockrig import MockRig
        from hardware.shuffler.simulator import ShufflerTable

        table = ShufflerTable()
        table.load(list(range(52)))
        rig = MockRig(sh, table, factory, clock)
        rig.sync()
    return sh, factory, rig


# --- crib inputs watch -------------------------------------------------------------------


def _inputs_watch(args: argparse.Namespace) -> int:
    from hardware.clock import FakeClock, SystemClock
    from hardware.inputs import GpioInputPanel

    out = _Out(args.json)
    try:
        settings = _settings(args)
        clock: Clock = FakeClock() if args.simulate else SystemClock()
        factory = _pin_factory(args, "there are no table inputs", _command(args))
        panel = GpioInputPanel(settings.inputs.mapping(), clock, pin_factory=factory,
                               hold_s=settings.undo_hold_s, bounce_ms=settings.inputs.bounce_ms)
        panel.subscribe(lambda e: e.kind != "state" and out.line(
            f"{e.kind} {json.dumps(e.data) if e.data else ''}".rstrip(), device="inputs",
            kind=e.kind, **e.data))
        panel.start()
        args.no_rig = True  # in simulation the person below plays the sensors
        shaft: _ShaftWatch | None = None
        if settings.shuffler.hands_free:
            sh, bus = _handsfree_shuffler(dict(settings.shuffler.pins), clock, factory,
                                          settings.shuffler.timing(), args.simulate,
                                          settings.shuffler.measured())
            sh.open()
            if sh.state.value == "absent":
                raise HardwareError(sh.describe()["error"]
                                    or "the shuffler's pins cannot be claimed")
            shaft = _ShaftWatch(sh.mechanism, clock, out)
        else:
            sh, _, _ = _shuffler(args, clock, factory)
    except (ConfigError, HardwareError, ValueError) as exc:
        return _fail("inputs watch", exc)
    sh.mechanism.on_sensor = lambda name, level, at: out.line(
        f"sensor {name} {'blocked' if level else 'clear'}", device="shuffler", kind="sensor",
        sensor=name, blocked=level)
    out.line(f"watching inputs ({panel.describe()['pin_factory']} pins); Ctrl-C ends",
             kind="ready")
    with until_stopped():
        try:
            if args.simulate:
                assert isinstance(clock, FakeClock) and factory is not None
                _simulated_person(settings, factory, clock, sh)
                if shaft is not None:
                    _simulated_shaft(settings, factory, clock, bus, shaft)
            else:
                end = None if args.seconds is None else time.monotonic() + args.seconds
                while (end is None or time.monotonic() < end) and not out.closed:
                    sh.mechanism.update(clock.monotonic())  # the sensors' filter
                    if shaft is not None:
                        shaft.poll()
                    time.sleep(0.005)
        except KeyboardInterrupt:
            return 130
        finally:
            panel.stop()
            sh.stop()
    return 0


def _simulated_person(settings: Settings, factory: MockFactory, clock: FakeClock,
                      sh: GpioShuffler) -> None:
    """In simulation, somebody presses everything once, so the output shows every kind."""
    inp = settings.inputs

    def press(pin: int, seconds: float = 0.1, active_low: bool = True) -> None:
        p = factory.pin(pin)
        (p.drive_low if active_low else p.drive_high)()
        clock.advance(seconds)
        (p.drive_high if active_low else p.drive_low)()
        clock.advance(0.1)

    for track in inp.tracks:
        a, b = factory.pin(track.a), factory.pin(track.b)
        for p in (a, b, a, b):  # one detent clockwise
            p.drive_low() if p.state else p.drive_high()
        press(track.button)
    press(inp.undo)
    press(inp.undo, seconds=settings.undo_hold_s + 0.5)
    if inp.touch is not None:
        press(inp.touch, active_low=not inp.touch_active_high)
    from hardware.shuffler.gpio import PIN_OPTIONS

    low_is_card = bool(settings.shuffler.pins.get("sensor_pull_up",
                                                  PIN_OPTIONS["sensor_pull_up"]))
    for name in ("left_sensor", "right_sensor"):
        p = factory.pin(settings.shuffler.pins[name])
        card, clear = (p.drive_low, p.drive_high) if low_is_card else (p.drive_high,
                                                                       p.drive_low)
        clear()  # the beam as it stands, then a card through it
        sh.mechanism.update(clock.monotonic())
        clock.advance(0.05)
        card()
        clock.advance(0.05)
        sh.mechanism.update(clock.monotonic())
        clear()
        clock.advance(0.05)
        sh.mechanism.update(clock.monotonic())


class _ShaftWatch:
    """The hands-free build's other sensors, printed as they change: the door sensors and
    the skew beam (on the MCP23017), the lid switch, and the load cell's mean counts over
    its weighing time, with the cards they make over the configured tare (for bring-up's
    tare and a card's counts)."""

    def __init__(self, mech: Any, clock: Clock, out: _Out) -> None:
        self.mech, self.clock, self.out = mech, clock, out
        self.levels: dict[str, bool] = {}
        self.raw: float | None = None  # the last printed
        self.prev: float | None = None  # the last read

    def poll(self) -> None:
        """Read every sensor once; print what changed."""
        from hardware.shuffler.handsfree import Bay

        m = self.mech
        m.update(self.clock.monotonic())  # the load cell's new conversions
        levels = {"lower_door": m.doors_hold(Bay.LOWER), "upper_door": m.doors_hold(Bay.UPPER),
                  "skew": m.skewed()}
        for name, blocked in levels.items():
            if self.levels.get(name) != blocked:
                self.out.line(f"sensor {name} {'blocked' if blocked else 'clear'}",
                              device="shuffler", kind="sensor", sensor=name, blocked=blocked)
        lid = m.lid_closed()
        if self.levels.get("lid") != lid:
            self.out.line(f"lid {'closed' if lid else 'open'}", device="shuffler", kind="lid",
                          closed=lid)
        self.levels = levels | {"lid": lid}
        # a new weight once it is steady (its mean moving by under a twentieth of a card
        # from one reading to the next) and half a card or more from the last printed
        raw = m.load_cell_raw()
        prev, self.prev = self.prev, raw
        steady = raw is not None and prev is not None and \
            abs(raw - prev) < m.counts_per_card / 20
        if raw is not None and steady and (self.raw is None
                                           or abs(raw - self.raw) > m.counts_per_card / 2):
            self.raw = raw
            cards = (raw - m.tare_raw) / m.counts_per_card
            self.out.line(f"load cell {raw:.0f} counts: {cards:.1f} cards over the tare "
                          f"({m.tare_raw:.0f}, {m.counts_per_card:.0f} counts a card)",
                          device="shuffler", kind="load_cell", raw=round(raw),
                          cards=round(cards, 2))


def _simulated_shaft(settings: Settings, factory: MockFactory, clock: FakeClock, bus: Any,
                     shaft: _ShaftWatch) -> None:
    """In simulation, the hands-free build's sensors each change once: a pile on each bay's
    doors and off, a skewed deck, the lid opened and shut, a deck of 52 laid in the tray."""
    from hardware import pins as pin_table
    from hardware.shuffler.gpio import EXPANDER_PINS, WEIGH_S

    def hold(seconds: float) -> None:
        end = clock.monotonic() + seconds
        while clock.monotonic() < end:
            clock.advance(1 / 80)  # the load cell's 80 conversions a second
            bus.set_adc(raw)
            shaft.poll()

    m = shaft.mech
    raw = round(m.tare_raw)
    lid = factory.pin((pin_table.handsfree_defaults() | settings.shuffler.pins)["lid"])
    lid.drive_high()  # shut, as the watch starts
    shaft.poll()
    hold(WEIGH_S)
    for name in ("lower_door", "upper_door", "skew"):
        bus.pins[EXPANDER_PINS[name]] = False  # a blocked beam reads low
        hold(0.05)
        bus.pins[EXPANDER_PINS[name]] = True
        hold(0.05)
    lid.drive_low()
    hold(0.05)
    lid.drive_high()
    hold(0.05)
    raw = round(m.tare_raw + 52 * m.counts_per_card)
    hold(2 * WEIGH_S)


# --- crib shuffler test ------------------------------------------------------------------


def _shuffler_test(args: argparse.Namespace) -> int:
    from hardware.clock import FakeClock, SystemClock
    from hardware.shuffler.plan import Pile

    out = _Out(args.json)
    clock: Clock = FakeClock() if args.simulate else SystemClock()
    try:
        sh, _, rig = _shuffler(args, clock)
        timing = _settings(args).shuffler.timing()  # the one the shuffler was given
    except (ConfigError, HardwareError, ValueError) as exc:
        return _fail("shuffler test", exc)
    mech = sh.mechanism
    edges: list[tuple[str, bool, float]] = []
    mech.on_sensor = lambda name, level, at: edges.append((name, level, at))
    ok = True
    with until_stopped():
        try:
            if not _tray(mech, rig):
                out.line("FAIL tray sensor: no cards seen in the tray; load a few cards",
                         kind="result", ok=False, step="tray")
                return 1
            out.line("tray sensor: cards seen", kind="tray", loaded=True)
            for pile in (Pile.LEFT, Pile.RIGHT):
                ok &= _feed_one(pile, mech, rig, clock, timing, edges, out)
        except KeyboardInterrupt:
            return 130
        finally:
            sh.stop()  # motor off, pins released
    out.line("PASS: one card to each pile" if ok else "FAIL: see above", kind="result", ok=ok,
             glitches=mech.glitches)
    return 0 if ok else 1


def _tray(mech: Any, rig: MockRig | None) -> bool:
    if rig is not None:
        rig.sync()
    return bool(mech.tray_loaded())


def _feed_one(pile: Pile, mech: Any, rig: MockRig | None, clock: Clock, timing: Timing,
              edges: list[tuple[str, bool, float]], out: _Out) -> bool:
    """Route to `pile`, settle, feed one card; report what the sensors saw and when."""
    def step(until: Callable[[], bool], limit: float) -> float | None:
        start = clock.monotonic()
        while clock.monotonic() - start < limit:
            if rig is not None:
                rig.sync()
            mech.update(clock.monotonic())
            if until():
                return clock.monotonic() - start
            clock.sleep(0.001)
        return None

    mech.take_arrivals()
    mech.set_router(pile)
    clock.sleep(timing.router_settle)
    edges.clear()
    fed_at = clock.monotonic()
    mech.set_motor(True)
    got: list[Any] = []
    arrived = step(lambda: bool(got.extend(mech.take_arrivals()) or got), timing.card_timeout)
    mech.set_motor(False)
    name = pile.value
    if arrived is None:
        out.line(f"FAIL {name}: no card sensed within {timing.card_timeout} s (motor stopped)",
                 kind="feed", pile=name, ok=False)
        return False
    cleared = step(lambda: mech.blocked_since(got[0]) is None, timing.blocked_limit)
    block = mech.take_block(got[0])
    seen = ", ".join(f"{n} {'blocked' if lv else 'clear'} +{(at - fed_at) * 1000:.0f} ms"
                     for n, lv, at in edges if n != "tray")
    good = got == [pile] and cleared is not None
    out.line(f"{'ok' if good else 'FAIL'} {name}: card sensed at {got[0].value} after "
             f"{arrived * 1000:.0f} ms, blocked {block * 1000 if block else 0:.0f} ms "
             f"(settle {timing.router_settle * 1000:.0f} ms) [{seen}]",
             kind="feed", pile=name, sensed=[p.value for p in got], ok=good,
             arrive_ms=round(arrived * 1000, 1),
             blocked_ms=None if block is None else round(block * 1000, 1))
    return good


# --- crib shuffler jog -------------------------------------------------------------------


def _shuffler_on_gpio(args: argparse.Namespace) -> bool:
    """True when the configured shuffler resolves to real pins (on a Pi, mode auto or real).
    A configuration that cannot be read counts as on GPIO: `--off` then tries the pins."""
    from firmware_host.config import pi_model, resolve_auto

    try:
        mode = _settings(args).shuffler.mode
    except (ConfigError, ValueError):
        return True
    return str(resolve_auto(mode, pi_model() is not None)) == "real"


def _shuffler_jog(args: argparse.Namespace) -> int:
    from hardware.clock import SystemClock
    from hardware.shuffler.plan import Pile

    out = _Out(args.json)
    if args.off and not args.simulate and not _shuffler_on_gpio(args):
        out.line("the shuffler is not on this Pi's GPIO: no motor to stop", kind="motor",
                 on=False, gpio=False)
        return 0
    if args.motor is not None and not 0 < args.motor <= 60:
        return _fail("shuffler jog", ValueError(f"--motor {args.motor}: give 0 to 60 seconds"))
    if args.servo is not None:
        return _servo_jog(args, out)
    if args.pulse_ms is not None:
        return _fail("shuffler jog", ValueError("--pulse-ms goes with --servo"))
    try:
        sh, factory, _ = _shuffler(args, SystemClock())
    except (ConfigError, HardwareError, ValueError) as exc:
        return _fail("shuffler jog", exc)
    mech = sh.mechanism
    motor_pin = factory.pin(sh.mechanism.pins["motor"]) if factory is not None else None
    code = 0
    with until_stopped():
        try:
            if args.off:
                mech.set_motor(False)  # claiming the pin drove it low already; say it again
            elif args.router:
                mech.set_router(Pile(args.router))
                time.sleep(max(sh._timing.router_settle, 0.2))
                out.line(f"router set {args.router}", kind="router", pile=args.router)
            else:
                mech.set_motor(True)
                out.line(f"motor on for {args.motor} s", kind="motor", on=True)
                time.sleep(args.motor)
        except KeyboardInterrupt:
            code = 130
        finally:
            sh.stop()  # the motor off first, whatever ended the jog
            out.line("motor off", kind="motor", on=False)
            if motor_pin is not None:  # simulation: show what the pin did
                history = [bool(s.state) for s in motor_pin.states]
                out.line(f"motor pin: {json.dumps(history)}", kind="motor_pin", states=history)
    return code


def _servo_jog(args: argparse.Namespace, out: _Out) -> int:
    """Drive one of the hands-free build's servos to a pulse, let it get there, and let it
    go (an SG90's gears hold it where it stopped while its horn is fitted)."""
    from hardware.clock import FakeClock, SystemClock
    from hardware.shuffler.gpio import SERVO_CHANNELS

    if args.pulse_ms is None or not 0.5 <= args.pulse_ms <= 2.5:
        return _fail("shuffler jog", ValueError(
            f"--servo {args.servo} needs --pulse-ms from 0.5 to 2.5 ms, got {args.pulse_ms}"))
    try:
        settings = _settings(args)
        if not settings.shuffler.hands_free:
            raise ConfigError("--servo: the configured shuffler is the Lotus-style build "
                              "([shuffler] build), which has no servos on I2C")
        clock: Clock = FakeClock() if args.simulate else SystemClock()
        factory = _pin_factory(args, "there is no shuffler", _command(args))
        sh, _ = _handsfree_shuffler(dict(settings.shuffler.pins), clock, factory,
                                    settings.shuffler.timing(), args.simulate,
                                    settings.shuffler.measured())
        sh.open()
        if sh.state.value == "absent":
            raise HardwareError(sh.describe()["error"] or "the shuffler cannot be opened")
    except (ConfigError, HardwareError, ValueError) as exc:
        return _fail("shuffler jog", exc)
    channel = SERVO_CHANNELS[args.servo]
    servos = sh.mechanism.servos
    try:
        servos.set_pulse_ms(channel, args.pulse_ms)
        held = servos.pulse_ms(channel)
        clock.sleep(1.0)  # an SG90 crosses its whole range in well under a second
        out.line(f"servo {args.servo} (PCA9685 channel {channel}) at {held:.3f} ms",
                 kind="servo", servo=args.servo, channel=channel, pulse_ms=held)
    finally:
        sh.stop()
    return 0


# --- crib shuffler calibrate -------------------------------------------------------------


def _shuffler_calibrate(args: argparse.Namespace) -> int:
    from firmware_host.config import config_path
    from hardware.clock import FakeClock, SystemClock
    from hardware.shuffler.calibrate import (
        CALIBRATE_FILTER_MS,
        CALIBRATE_WAIT_S,
        CalibrationError,
        measure_cards,
    )
    from hardware.shuffler.controller import Timing
    from hardware.shuffler.gpio import GpioShuffler, router_settle_s

    out = _Out(args.json)
    if args.cards is not None and not 4 <= args.cards <= 104:
        return _fail("shuffler calibrate", ValueError(f"--cards {args.cards}: give 4 to 104"))
    if args.sim_speed is not None and not (args.simulate and 50 <= args.sim_speed <= 5000):
        return _fail("shuffler calibrate", ValueError(
            "--sim-speed needs --simulate and a speed of 50 to 5000 mm/s"))
    clock: Clock = FakeClock() if args.simulate else SystemClock()
    try:
        given = service_config(args.config, "shuffler calibrate")
        path = config_path(given)[0]
        settings = _settings(args)
        cards = args.cards if args.cards is not None else settings.shuffle.deck
        pins = dict(settings.shuffler.pins)
        settle = (router_settle_s(pins, settings.shuffler.hands_free)
                  if settings.shuffler.router_settle_ms is None
                  else settings.shuffler.router_settle_ms / 1000)
        # nothing is known of the machine yet: budgets wide enough for the slowest card
        # speed the configuration takes (50 mm/s), a filter short enough for the fastest
        wide = Timing(card_timeout=CALIBRATE_WAIT_S, blocked_limit=CALIBRATE_WAIT_S,
                      router_settle=settle, router_move=settle, feed_speed_mm_s=50.0,
                      sensor_filter=CALIBRATE_FILTER_MS / 1000, double_block=CALIBRATE_WAIT_S / 2)
        rig: Any = None
        factory = _pin_factory(args, "there is no shuffler", _command(args))
        hands_free = settings.shuffler.hands_free
        if hands_free:
            sh, bus = _handsfree_shuffler(pins, clock, factory, wide, args.simulate)
        else:
            sh = GpioShuffler(pins, clock, pin_factory=factory, timing=wide)
        sh.open()
        if sh.state.value == "absent":
            raise HardwareError(sh.describe()["error"] or "the shuffler's pins cannot be claimed")
        if args.simulate:
            rig = (_handsfree_rig(sh, bus, factory, clock, args.sim_speed, cards, settle)
                   if hands_free else _lotus_rig(sh, factory, clock, args.sim_speed, cards))
            rig.sync()
    except (ConfigError, HardwareError, ValueError) as exc:
        return _fail("shuffler calibrate", exc)
    with until_stopped():
        try:
            if not _tray(sh.mechanism, rig):
                out.line(f"FAIL tray sensor: no cards seen in the tray; load {cards} cards",
                         kind="result", ok=False, step="tray")
                return 1
            if hands_free:
                # the riser carries each card from T1 to its bay's beam: it runs throughout,
                # at full duty (its duty is then set from what the cards measure)
                sh.mechanism.riser_duty = 1.0
                sh.mechanism.set_riser(True)
            times = measure_cards(sh.mechanism, clock, cards, router_move_s=settle,
                                  sync=None if rig is None else rig.sync,
                                  report=lambda c, i: _card_line(out, c, i))
        except CalibrationError as exc:
            out.line(f"FAIL {exc}", kind="result", ok=False)
            return 1
        except KeyboardInterrupt:
            return 130
        finally:
            sh.stop()
    return _write_calibration(times, path, settings, args.dry_run, out)


def _handsfree_pace_line(deck: int, speed: float, duty: float) -> tuple[str, Any]:
    """What a hands-free shuffle of `deck` takes with cards measured past the beams at
    `speed` on the riser at PWM `duty`: (line, pace)."""
    import random

    from hardware.shuffler import handsfree

    p = handsfree.measured_pace(deck, speed, duty)
    plan = handsfree.plan_random(deck, rng=random.Random(deck))
    whole = handsfree.shuffle_s(plan, p)
    return (f"exact, hands-free: {len(plan.passes)} passes of {deck} cards and the machine's "
            f"own restacks, about {whole:.0f} s in all (cards at {speed / 1000:.2f} m/s)", p)


def _lotus_rig(sh: Any, factory: Any, clock: Clock, speed: float | None, cards: int) -> Any:
    """The Lotus build's simulated machine behind the driver's mock pins."""
    import random

    from hardware.shuffler.mockrig import MockRig
    from hardware.shuffler.simulator import ShufflerTable

    # the default build's physics: each card's speed falls with the deck over it
    table = ShufflerTable(feed_speed_mm_s=speed, rng=random.Random(cards))
    table.load(list(range(cards)))
    return MockRig(sh, table, factory, clock)


def _handsfree_shuffler(pins: dict[str, Any], clock: Clock, factory: Any, timing: Any,
                        simulate: bool, measured: dict[str, Any] | None = None
                        ) -> tuple[Any, Any]:
    """The hands-free driver on the configured pins (the riser's and lid's unless named),
    its I2C chips emulated when simulated: (shuffler, emulated bus or None)."""
    from hardware import pins as pin_table
    from hardware.shuffler import i2c
    from hardware.shuffler.gpio import HandsFreeGpioShuffler

    chips: dict[str, Any] = {}
    bus = None
    if simulate:
        bus = i2c.EmulatedBus()
        chips = {"servos": i2c.PCA9685(bus, sleep=lambda s: None),
                 "inputs": i2c.MCP23017(bus), "adc": i2c.NAU7802(bus, sleep=lambda s: None)}
    sh = HandsFreeGpioShuffler(pin_table.handsfree_defaults() | pins, clock,
                               pin_factory=factory, timing=timing, **chips,
                               **(measured or {}))
    return sh, bus


def _handsfree_rig(sh: Any, bus: Any, factory: Any, clock: Clock, speed: float | None,
                   cards: int, settle: float) -> Any:
    """The hands-free build's simulated machine (feed, riser, bays) behind the driver."""
    import random

    from hardware.shuffler import design
    from hardware.shuffler.handsfree_sim import HandsFreeTable, HandsFreeTableMechanism
    from hardware.shuffler.mockrig import HandsFreeMockRig

    table = HandsFreeTable(feed_speed_mm_s=speed, rng=random.Random(cards),
                           router_settle_s=settle, drive=design.HANDSFREE_DRIVE)
    table.load(list(range(cards)))
    return HandsFreeMockRig(sh, HandsFreeTableMechanism(table, clock), factory, clock, bus)


def _card_line(out: _Out, card: Any, i: int) -> None:
    out.line(f"card {i} {card.pile.value} ({card.in_tray} in the tray): blocked "
             f"{card.block_s * 1000:.1f} ms, flight {card.flight_s * 1000:.1f} ms",
             kind="card", card=i, pile=card.pile.value, in_tray=card.in_tray,
             blocked_ms=round(card.block_s * 1000, 2), flight_ms=round(card.flight_s * 1000, 2))


def write_shuffler_settings(path: Any, values: dict[str, float]) -> None:
    """Set `values` under [shuffler] in the TOML file at `path`, keeping every other line,
    comment and key as it was; atomically (a new file renamed over the old, its mode kept),
    and only if the daemon's settings load from the result.

    Raises ConfigError (naming the file) when the result would not load, OSError when the file
    cannot be written.
    """
    import tempfile
    from pathlib import Path

    import tomlkit

    from firmware_host.config import load_settings

    path = Path(path)
    doc = tomlkit.parse(path.read_text()) if path.exists() else tomlkit.document()
    table = doc.get("shuffler")
    if table is None:
        table = tomlkit.table()
        doc["shuffler"] = table
    for key, value in values.items():
        table[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".calibrate-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(tomlkit.dumps(doc))
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        load_settings(tmp)  # raises ConfigError: the old file stays as it was
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_calibration(times: list[Any], path: Any, settings: Settings, dry_run: bool,
                       out: _Out) -> int:
    from hardware.shuffler import pace
    from hardware.shuffler.calibrate import CalibrationError, calibration
    from hardware.shuffler.plan import make_plan

    try:
        cal = calibration(times)
    except CalibrationError as exc:
        out.line(f"FAIL {exc}", kind="result", ok=False)
        return 1
    if settings.shuffler.hands_free:
        from hardware.shuffler import design
        from hardware.shuffler.calibrate import riser_duty

        full = max(cal["values"].get("card_speeds_mm_s") or [cal["values"]["feed_speed_mm_s"]])
        cal["values"] = riser_duty(cal["values"])
        duty = cal["values"]["riser_duty"]
        out.line(f"riser: cards at {full / 1000:.2f} m/s at full duty; PWM duty {duty:.3f} "
                 f"holds them at {min(full, design.RISER_CARD_SPEED_MM_S) / 1000:.2f} m/s "
                 f"(a card faster than {design.RISER_CARD_SPEED_MM_S / 1000:.2f} m/s may stand "
                 "up against a bay's end wall)", kind="riser", riser_duty=duty,
                 full_duty_mm_s=round(full, 1))
    b, f = cal["blocks"], cal["flights"]
    out.line(f"blocked: min {b['min_ms']} ms, median {b['median_ms']} ms, max {b['max_ms']} ms,"
             f" spread (CV) {b['cv'] * 100:.1f} %", kind="blocks", **b)
    out.line(f"flight (motor on to the beam): min {f['min_ms']} ms, median {f['median_ms']} "
             f"ms, max {f['max_ms']} ms, CV {f['cv'] * 100:.1f} %", kind="flights", **f)
    ends, sp, n = cal["first_last_block_ms"], cal["speeds"], cal["cards"]
    blocks = "; ".join(f"{pile} blocked {a} ms -> {b} ms" for pile, (a, b) in ends.items())
    out.line(f"from the first card ({n} in the tray) to the last: {blocks}; card speed left "
             f"{sp['left'][1]:.0f} -> {sp['left'][0]:.0f} mm/s, right {sp['right'][1]:.0f} -> "
             f"{sp['right'][0]:.0f} mm/s (each card is judged against its own)", kind="spread",
             first_last_block_ms=ends, speeds=sp, cards=n, worst_ratio=cal["worst_ratio"])
    speed = cal["values"]["feed_speed_mm_s"]
    if settings.shuffler.hands_free:
        line, p = _handsfree_pace_line(settings.shuffle.deck, speed,
                                       cal["values"]["riser_duty"])
    else:
        p = pace.pace(feed_speed_mm_s=speed)
        passes = make_plan(settings.shuffle.deck, settings.shuffle.plan).passes
        line = pace.pace_line(settings.shuffle.deck, settings.shuffle.plan, passes, p)
    out.line(f"slowest card {speed / 1000:.2f} m/s: " + line,
             kind="speed", feed_speed_mm_s=speed, pass_s=round(p.pass_s(52), 2),
             build=settings.shuffler.build)
    shown = ", ".join(f"{k} = {v}" for k, v in cal["values"].items())
    if dry_run:
        out.line(f"dry run: would write [shuffler] {shown} to {path}", kind="result", ok=True,
                 written=False, path=str(path), values=cal["values"])
        return 0
    try:
        write_shuffler_settings(path, cal["values"])
    except (ConfigError, OSError) as exc:
        out.line(f"FAIL writing {path}: {exc}", kind="result", ok=False)
        return 1
    out.line(f"wrote [shuffler] {shown} to {path}; restart the service to use it",
             kind="result", ok=True, written=True, path=str(path), values=cal["values"])
    return 0
