"""Schematics of the table's builds, drawn with schemdraw from the one pin table.

`python -m hardware.schematics DIR` (or `make schematics`) writes docs/schematic-pico.svg,
schematic-spi.svg and schematic-shuffler.svg. Every controller pin is a net label reading
`KEY = GPIOn (pin p)`: KEY is the configuration key (or the Pico's config.py name), n and p
come from `hardware.pins`, so a test can read the pin of every net back from the SVG.
schemdraw is in the `docs` and `dev` extras, not on the Pi; it is imported only here.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hardware import pins

# The protective parts, one place for the drawings and the docs' figures.
FUSE = "F3A"  # fast 3 A, 5 x 20 mm: above the 2.0 A cap, below the 5 A supply
PULL_DOWN = "10 kΩ"
DATA_RESISTOR = "330 Ω"
STRIP_CAP = "1000 µF"


def _schemdraw() -> tuple[Any, Any]:
    try:
        import schemdraw
        import schemdraw.elements as elm
    except ImportError:
        raise SystemExit("the schematics need schemdraw: pip install 'schemdraw==0.23' "
                         "(in the docs and dev extras)") from None
    schemdraw.use("svg")
    return schemdraw, elm


def net(key: str, gpio: int, pin: int, gp: str = "GPIO") -> str:
    """A controller pin's net label: the key, its GPIO (or GP) number and physical pin."""
    return f"{key} = {gp}{gpio} (pin {pin})"


def _to(d: Any, elm: Any, text: str, direction: str = "right") -> None:
    """A wire ending in an open terminal named `text` (a part drawn elsewhere, or off-board)."""
    d += getattr(elm.Line(), direction)().length(0.6)
    d += elm.Dot(open=True).label(text, loc="right" if direction != "left" else "left",
                                  fontsize=10)


def _strip_chain(d: Any, elm: Any, start: Any, data_from: str) -> None:
    """From `start` (the controller's data pin): the pull-down, the 74AHCT125, the data wire,
    the 330 Ω at the strip's end, the strip, and its supply through jack, switch and fuse."""
    d += (node := elm.Dot().at(start))
    d += elm.Resistor().down().at(node.center).label(f"{PULL_DOWN}\npull-down", loc="bottom")
    d += elm.Ground()
    d += elm.Line().right().at(node.center).length(1.5)
    shifter = elm.Ic(
        pins=[elm.IcPin(name="1A", pin="2", side="left", anchorname="IN"),
              elm.IcPin(name="1OE", pin="1", side="left", anchorname="OE"),
              elm.IcPin(name="GND", pin="7", side="bottom"),
              elm.IcPin(name="VCC", pin="14", side="top"),
              elm.IcPin(name="1Y", pin="3", side="right", anchorname="OUT")],
        edgepadW=2.0, edgepadH=0.6, pinspacing=1.4, label="74AHCT125", lblsize=11,
    ).anchor("IN")
    d += shifter
    d += elm.Line().left().at(shifter.OE).length(0.6)
    d += elm.Ground()
    d += elm.Ground().at(shifter.GND)
    d += elm.Line().up().at(shifter.VCC).length(0.5)
    _to(d, elm, "+5V (after fuse)")
    d += elm.Line().right().at(shifter.OUT).length(1.0)
    d += elm.Line().right().length(6).label(
        f"data wire from {data_from}, its ground wire beside it", loc="top", fontsize=10)
    d += elm.Resistor().right().label(f"{DATA_RESISTOR}\nat the strip's end", loc="top")
    strip = elm.Ic(
        pins=[elm.IcPin(name="DIN", side="left"),
              elm.IcPin(name="+5V", side="top", anchorname="VIN"),
              elm.IcPin(name="GND", side="bottom"),
              elm.IcPin(name="+5V", pin="far end", side="right", anchorname="VFAR"),
              elm.IcPin(name="GND", pin="far end", side="right", anchorname="GFAR")],
        edgepadW=3.5, edgepadH=0.8, pinspacing=1.2, label="WS2812B strip", lblsize=12,
    ).anchor("DIN")
    d += strip
    d += elm.Ground().at(strip.GND)
    d += elm.Line().up().at(strip.VIN).length(3.5)
    d += (rail := elm.Dot())
    # The supply: DC jack, main switch, fuse on the strip's feed, the capacitor at the feed.
    d += elm.Line().right().at(rail.center).length(2.0)
    d += elm.Capacitor(polar=True).down().length(2.0).label(f"{STRIP_CAP}\n6.3 V+",
                                                            loc="bottom")
    d += elm.Ground()
    d += elm.Line().left().at(rail.center).length(1.0)
    d += elm.Fuse().left().label(f"fuse {FUSE}\n(strip feed)", loc="top")
    d += elm.Line().left().length(0.5)
    d += elm.Switch().left().label("main switch", loc="top")
    _to(d, elm, "DC jack + (5 V 5 A supply; jack's sleeve: GND)", "left")
    d += elm.Line().right().at(strip.VFAR).length(1.0)
    _to(d, elm, "+5V (after fuse): injection at the far end")
    d += elm.Line().right().at(strip.GFAR).length(1.0)
    d += elm.Ground().right()


def pico(d: Any, elm: Any) -> None:
    """The Pico build: the Pico on the Pi's USB drives the strip; buttons on the Pico."""
    names = [("DATA_PIN", pins.PICO_DATA), ("UNDO_PIN", pins.PICO_UNDO)] + [
        (f"TRACK_BUTTON_PINS[{i}]", p) for i, p in enumerate(pins.PICO_TRACK_BUTTONS)]
    ic_pins = [elm.IcPin(name=f"GP{p.gpio}", pin=str(p.pico_pin()), side="right")
               for _n, p in names]  # listed from the bottom: the data pin lowest
    ic_pins.append(elm.IcPin(name="GND", pin=str(pins.PICO_GROUND[0]), side="bottom"))
    ic_pins.append(elm.IcPin(name="USB", side="left"))
    pico_ic = elm.Ic(pins=ic_pins, edgepadW=4.0, edgepadH=0.8, pinspacing=2.0,
                     label="Raspberry Pi Pico", lblsize=12)
    d += pico_ic
    d += elm.Ground().at(pico_ic.GND)
    d += elm.Line().left().at(pico_ic.USB).length(1.0)
    _to(d, elm, "USB to the Pi (power and link)", "left")
    for name, p in names:
        anchor = getattr(pico_ic, f"GP{p.gpio}")
        label = net(name, p.gpio, p.pico_pin(), "GP")
        if p is pins.PICO_DATA:
            d += elm.Line().right().at(anchor).length(12.0).label(label, loc="top", fontsize=10)
            _strip_chain(d, elm, d.here, "the Pico")
            continue
        d += elm.Line().right().at(anchor).length(6.0).label(label, loc="top", fontsize=10)
        d += elm.Button().right().label(p.what + " (internal pull-up)", loc="bottom",
                                        fontsize=10)
        d += elm.Ground().right()


def spi(d: Any, elm: Any) -> None:
    """The SPI build: the Pi's SPI0 MOSI drives the strip through the same parts."""
    p = pins.SPI_DATA
    pi = elm.Ic(pins=[elm.IcPin(name="GPIO10", pin=str(p.header()), side="right"),
                      elm.IcPin(name="GND", pin=str(pins.PI_GROUND[0]), side="bottom")],
                edgepadW=3.0, edgepadH=1.0, label="Raspberry Pi\n(SPI on)", lblsize=12)
    d += pi
    d += elm.Ground().at(pi.GND)
    d += elm.Line().right().at(pi.GPIO10).length(7.0).label(
        net("SPI0_MOSI", p.gpio, p.header()), loc="top", fontsize=10)
    _strip_chain(d, elm, d.here, "the Pi")


def _part(d: Any, elm: Any, p: pins.Pin) -> None:
    """The part on a Pi input or output, drawn rightwards from the end of its wire."""
    name = p.name
    if name == "motor":
        drv = elm.Ic(pins=[elm.IcPin(name="IN1", side="left"), elm.IcPin(name="IN2", side="left"),
                           elm.IcPin(name="OUT1", side="right"),
                           elm.IcPin(name="OUT2", side="right")],
                     edgepadW=1.0, pinspacing=1.0, label="DRV8833", lblsize=10).anchor("IN1")
        d += drv
        # IN2 on its own pin: both inputs high brake the motor, both low let it coast
        d += elm.Line().left().at(drv.IN2).length(0.5)
        d += elm.Dot(open=True).label("from shuffler.pins.brake", loc="left", fontsize=10)
        d += elm.Motor().down().at(drv.OUT1).to(drv.OUT2).label("feed\nmotor", loc="bottom")
    elif name == "brake":
        _to(d, elm, "DRV8833 IN2 (high with IN1: brake)")
    elif name == "router":
        _to(d, elm, "servo signal (servo on 5 V)")
    elif name in ("left_sensor", "right_sensor", "tray_sensor"):
        _to(d, elm, f"{p.what} output (sensor on 3.3 V)")
    elif name == "led":
        d += elm.Resistor().right().label(DATA_RESISTOR, loc="top")
        d += elm.LED().right().label("status", loc="bottom")
        d += elm.Ground().right()
    elif name == "touch":
        _to(d, elm, "TTP223 I/O (module on 3.3 V)")
    elif name in ("a", "b"):
        _to(d, elm, f"{p.what} (common C to GND)")
    else:  # a push button to ground, the internal pull-up holds it high
        d += elm.Button().right().label(p.what, loc="bottom", fontsize=10)
        d += elm.Ground().right()


def _header(d: Any, elm: Any, table: tuple[pins.Pin, ...], supplies: str,
            part: Callable[[Any, Any, pins.Pin], None], pinspacing: float = 2.0) -> None:
    """The Pi's header with `table`'s pins, each wired to its net label and its part."""
    ic_pins = [elm.IcPin(name=f"GPIO{p.gpio}", pin=str(p.header()), side="right")
               for p in reversed(table)]
    ic_pins += [elm.IcPin(name="3V3", pin=str(pins.PI_3V3[0]), side="top"),
                elm.IcPin(name="GND", pin=str(pins.PI_GROUND[0]), side="bottom")]
    pi = elm.Ic(pins=ic_pins, edgepadW=3.5, edgepadH=0.8, pinspacing=pinspacing,
                label="Raspberry Pi\n40-pin header", lblsize=12)
    d += pi
    d += elm.Ground().at(pi.GND)
    d += elm.Line().up().at(getattr(pi, "3V3")).length(0.5)
    _to(d, elm, supplies)
    for p in table:
        d += elm.Line().right().at(getattr(pi, f"GPIO{p.gpio}")).length(8.0).label(
            net(p.key, p.gpio, p.header()), loc="top", fontsize=10)
        part(d, elm, p)


def shuffler(d: Any, elm: Any) -> None:
    """The shuffler and the inputs on the Pi's header."""
    _header(d, elm, pins.SHUFFLER + pins.INPUTS, "3.3 V to the sensors and the touch module",
            _part)


DRAWINGS: dict[str, Callable[[Any, Any], None]] = {
    "schematic-pico.svg": pico, "schematic-spi.svg": spi, "schematic-shuffler.svg": shuffler,
}


# The 5 V supply's split (drawn by the shuffler's CAD side; kept apart from the pin drawings).
SHUFFLER_FUSE = "F2A"  # fast 2 A: the motor and the servo running (<= 1.2 A) at 60 %


def power(d: Any, elm: Any) -> None:
    """Where the 5 V goes after the jack and the main switch: the strip through the F3A fuse,
    the motor driver's VM and the servo's + through their own F2A fuse (never through the
    strip's fuse, whose 2.0 A cap leaves no room for them)."""
    d += (jack := elm.Dot(open=True).label("DC jack + (5 V 5 A supply)", loc="left",
                                           fontsize=10))
    d += elm.Switch().right().at(jack.center).label("main switch", loc="top")
    d += (split := elm.Dot())
    d += elm.Line().right().at(split.center).length(1.0)
    d += elm.Fuse().right().label(f"fuse {FUSE}\n(strip feed)", loc="top")
    d += (strip := elm.Dot())
    d += elm.Capacitor(polar=True).down().at(strip.center).length(2.0).label(
        f"{STRIP_CAP}", loc="bottom")
    d += elm.Ground()
    d += elm.Line().right().at(strip.center).length(1.0)
    _to(d, elm, "WS2812B strip 5 V (both ends), 74AHCT125 VCC")
    d += elm.Line().down().at(split.center).length(4.0)
    d += elm.Line().right().length(1.0)
    d += elm.Fuse().right().label(f"fuse {SHUFFLER_FUSE}\n(shuffler)", loc="top")
    d += (shuf := elm.Dot())
    d += elm.Capacitor(polar=True).down().at(shuf.center).length(2.0).label(
        "470 µF", loc="bottom")
    d += elm.Ground()
    d += elm.Line().right().at(shuf.center).length(1.0)
    d += (node := elm.Dot())
    _to(d, elm, "DRV8833 VM (feed motor)")
    d += elm.Line().up().at(node.center).length(1.2)
    _to(d, elm, "SG90 servo + (red)")


DRAWINGS["schematic-power.svg"] = power


def _handsfree_part(d: Any, elm: Any, p: pins.Pin) -> None:
    """The hands-free build's part on a Pi pin, drawn rightwards from the end of its wire."""
    if p.name == "riser":
        # the DRV8874 carrier in PH/EN mode (PMODE low): EN takes the riser's PWM, PH fixes
        # the one direction the riser turns
        drv = elm.Ic(pins=[elm.IcPin(name="EN", side="left"),
                           elm.IcPin(name="PH", side="left"),
                           elm.IcPin(name="OUT1", side="right"),
                           elm.IcPin(name="OUT2", side="right")],
                     edgepadW=1.0, pinspacing=1.0, label="DRV8874 #2",
                     lblsize=10).anchor("EN")
        d += drv
        d += elm.Line().left().at(drv.PH).length(0.5)
        d += elm.Ground()
        d += elm.Motor().down().at(drv.OUT1).to(drv.OUT2).label("riser\nmotor", loc="bottom")
    elif p.name == "lid":
        d += (node := elm.Dot())
        d += elm.Resistor().right().label("10 kΩ", loc="top")
        _to(d, elm, "5 V after the lid switch (actuators' supply)")
        d += elm.Resistor().down().at(node.center).label("20 kΩ", loc="bottom")
        d += elm.Ground()
    else:
        chips = ", ".join(f"{c.part} 0x{c.address:02X}" for c in pins.I2C_DEVICES)
        _to(d, elm, f"{p.what} to {chips} (chips' pull-ups on 3.3 V)")


def handsfree(d: Any, elm: Any) -> None:
    """The hands-free build's additions on the Pi's header (docs/hands-free.md): the riser's
    driver, the lid switch's sense line and the I2C bus to its three chips."""
    _header(d, elm, pins.HANDSFREE + pins.I2C_BUS,
            "3.3 V to the I2C chips' VCC and the door sensors", _handsfree_part, 2.5)
    for i, c in enumerate(pins.I2C_DEVICES):
        d += elm.Label().at((0.0, -9.0 - 0.8 * i)).label(
            f"{c.key} = {c.part} at 0x{c.address:02X}: {c.what}", fontsize=10, loc="right")


DRAWINGS["schematic-handsfree.svg"] = handsfree


def render(name: str) -> str:
    """The SVG text of the drawing `name` (a key of DRAWINGS). Raises KeyError."""
    schemdraw, elm = _schemdraw()
    # svgpathtools (which build123d imports) maps the SVG namespace to an "svg:" prefix for
    # the whole process; schemdraw writes through ElementTree, so map it back to the default.
    ET.register_namespace("", "http://www.w3.org/2000/svg")
    draw = DRAWINGS[name]
    d = schemdraw.Drawing(show=False)
    d.config(fontsize=11, unit=2.5)
    draw(d, elm)
    data = d.get_imagedata("svg")
    return data.decode() if isinstance(data, bytes) else str(data)


def write(folder: Path) -> list[Path]:
    """Write every drawing into `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in DRAWINGS:
        path = folder / name
        path.write_text(render(name))
        out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    """`python -m hardware.schematics [DIR]`: write the SVGs (default: docs/)."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else Path(__file__).resolve().parents[1] / "docs"
    for path in write(folder):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
