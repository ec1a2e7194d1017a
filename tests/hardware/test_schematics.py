"""The schematics in docs/ are drawn from the pin table and say the pins the config uses."""

from __future__ import annotations

import ast
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware_host.config import BoardSettings, load_settings

pytest.importorskip("schemdraw")
from hardware import schematics  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NET = re.compile(r"^(\S+) = (GPIO|GP)(\d+) \(pin (\d+)\)$")
# Facts of the boards, written out here independently of hardware/pins.py.
PI_HEADER = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29,
             6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22,
             8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10}


def _words(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [" ".join(" ".join(el.itertext()).split()) for el in root.iter()
            if el.tag.endswith("}text") or el.tag == "text"]  # a tspan a line


def _nets(svg: str) -> dict[str, tuple[int, int]]:
    nets: dict[str, tuple[int, int]] = {}
    for w in _words(svg):
        m = NET.match(w)
        if m:
            assert m.group(1) not in nets, f"net {m.group(1)} labelled twice"
            nets[m.group(1)] = (int(m.group(3)), int(m.group(4)))
    return nets


@pytest.mark.parametrize("name", sorted(schematics.DRAWINGS))
def test_the_committed_schematics_are_up_to_date(name):
    committed = (DOCS / name).read_text()
    assert schematics.render(name) == committed, f"docs/{name} is stale: run make schematics"


def test_every_pin_of_the_example_config_is_on_its_net():
    s = load_settings(ROOT / "systemd" / "config.example.toml")
    configured = {f"shuffler.pins.{k}": v for k, v in s.shuffler.gpio.items()}
    configured |= {f"inputs.{k}": v for k, v in s.inputs.pins.items()}
    nets = _nets((DOCS / "schematic-shuffler.svg").read_text())
    assert {k: gpio for k, (gpio, _) in nets.items()} == configured
    for key, (gpio, pin) in nets.items():
        assert pin == PI_HEADER[gpio], key


def test_the_spi_build_uses_spi0_mosi():
    assert BoardSettings().spi_device == "/dev/spidev0.0"  # SPI0: its MOSI is GPIO 10
    nets = _nets((DOCS / "schematic-spi.svg").read_text())
    assert nets == {"SPI0_MOSI": (10, PI_HEADER[10])}


def test_the_pico_build_uses_the_pins_of_the_boards_config():
    tree = ast.parse((ROOT / "hardware/board/firmware/config.py").read_text())
    values = {n.targets[0].id: ast.literal_eval(n.value) for n in tree.body
              if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    expect = {"DATA_PIN": values["DATA_PIN"], "UNDO_PIN": values["UNDO_PIN"]}
    expect |= {f"TRACK_BUTTON_PINS[{i}]": p for i, p in enumerate(values["TRACK_BUTTON_PINS"])}
    nets = _nets((DOCS / "schematic-pico.svg").read_text())
    assert {k: gp for k, (gp, _) in nets.items()} == expect
    for key, (gp, pin) in nets.items():
        assert pin == PICO_PIN[gp], key


@pytest.mark.parametrize("name", ["schematic-pico.svg", "schematic-spi.svg"])
def test_the_strip_builds_draw_the_parts_that_fail_safe(name):
    text = " ".join(_words((DOCS / name).read_text()))
    for part in ("74AHCT125", "10 kΩ pull-down", "330 Ω at the strip's end", "fuse F3A",
                 "main switch", "DC jack", "1000 µF", "WS2812B strip", "injection"):
        assert part in text, part


def test_the_generator_writes_every_drawing(tmp_path):
    written = schematics.write(tmp_path)
    assert sorted(p.name for p in written) == sorted(schematics.DRAWINGS)
    for p in written:
        assert ET.parse(p).getroot().tag.endswith("svg")
