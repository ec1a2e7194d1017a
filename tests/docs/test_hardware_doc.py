"""docs/hardware.md: its wiring table and systemd/config.example.toml agree, pin for pin."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from firmware_host.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "hardware.md"

# The Raspberry Pi 40-pin header: BCM number -> physical pin (the same on every 40-pin Pi).
HEADER = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29,
          6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22,
          8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}


def _rows() -> list[dict[str, str]]:
    text = DOC.read_text()
    section = text.split("## Wiring table", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True))
            for ln in lines[2:]]


def _configured() -> dict[str, int]:
    s = load_settings(ROOT / "systemd" / "config.example.toml")
    out = {f"shuffler.pins.{k}": v for k, v in s.shuffler.gpio.items()}
    out |= {f"inputs.{k}": v for k, v in s.inputs.pins.items()}
    return out


def test_wiring_table_and_example_config_agree():
    rows = _rows()
    assert [r for r in rows if set(r) != {"Function", "Config key", "Header", "BCM",
                                          "Direction", "Voltage", "Pull", "Wire colour"}] == []
    table = {r["Config key"]: int(r["BCM"]) for r in rows}
    assert len(table) == len(rows)  # one row per pin
    assert table == _configured()


def test_the_pin_table_is_the_configurations_defaults_and_the_docs():
    from firmware_host.config import Settings
    from hardware import pins

    assert pins.pi_pins() == _configured()  # the example file says the table's pins
    defaults = Settings(_env_file=None)
    assert {f"shuffler.pins.{k}": v for k, v in defaults.shuffler.gpio.items()} | {
        f"inputs.{k}": v for k, v in defaults.inputs.pins.items()} == pins.pi_pins()
    assert pins.PI_HEADER == HEADER
    for r in _rows():
        assert pins.PI_HEADER[pins.gpio(r["Config key"])] == int(r["Header"])


def _protection() -> dict[str, dict[str, str]]:
    section = DOC.read_text().split("### Power, protection and the strip's data line", 1)[1]
    section = section.split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True))
            for ln in lines[2:]]
    return {r["Part"]: r for r in rows}


def test_the_build_fails_safe_on_paper():
    from hardware import schematics
    from hardware.board import power

    rows = _protection()
    for part in ("DC jack", "Main switch", f"Fuse {schematics.FUSE}, in a holder",
                 "Pull-down 10 kΩ", "Data resistor 330 Ω", "Capacitor 1000 µF"):
        assert part in rows, part
    assert "strip's end" in rows["Data resistor 330 Ω"]["Where it goes"]
    assert "pin 2" in rows["Pull-down 10 kΩ"]["Where it goes"]
    assert "before" in rows[f"Fuse {schematics.FUSE}, in a holder"]["Where it goes"]
    # The fuse: carries the software cap at no more than 75 % of its rating, and opens
    # below the supply's rating.
    rating = float(re.search(r"(\d+(?:\.\d+)?) A", rows["Fuse F3A, in a holder"]["Rating"])[1])
    assert f"F{rating:g}A" == schematics.FUSE
    supply = float(re.search(r"5 V (\d+) A", DOC.read_text().split("| 5 V supply |")[1])[1])
    assert power.BUDGET_MA / 1000 <= 0.75 * rating < rating < supply
    text = DOC.read_text()
    protection = " ".join(text.split("### Power, protection")[1].split("\n## ")[0].split())
    assert "**Power-up order: ground first, the pixels' supply before the controller.**" in \
        protection
    for needed in ("core_freq=500", "core_freq_min=500", "crib doctor", "current limit",
                   "pull-down", "1.27 MHz"):
        assert needed in protection, needed
    # crib doctor does check the pinned core clock on the SPI build
    from firmware_host import doctor

    assert doctor._CORE_FREQ.search("core_freq=500\ncore_freq_min=500\n")


def test_the_doc_shows_every_schematic_and_how_to_drill():
    from hardware import schematics

    text = DOC.read_text()
    for name in schematics.DRAWINGS:
        assert f"]({name})" in text, name
    board = " ".join(text.split("## The LED board")[1].split("\n## ")[0].split())
    for needed in ("crib board map", "crib board template", "led_map_file",
                   "crib board flash --map", "100 mm bar", "backer board", "5.0 mm",
                   "diffuser", "channel", "adhesive", "Strain relief", "registration marks",
                   "A4", "US Letter", "skip"):
        assert needed in board, needed


def test_header_pins_are_the_bcm_numbers_on_the_40_pin_header():
    for r in _rows():
        assert int(r["Header"]) == HEADER[int(r["BCM"])], r["Function"]
        assert r["Direction"].split()[0] in ("in", "out") and r["Wire colour"]
        assert "3.3 V" in r["Voltage"]


def test_the_doc_has_what_a_maker_needs():
    text = DOC.read_text()
    assert "3.3 V only" in text
    for heading in ("## Bill of materials", "## Power budget", "## The shuffler's mechanism",
                    "## The LED board", "## Bring-up checklist"):
        assert heading in text
    for part in ("74AHCT125", "WS2812B", "1000 µF", "330 Ω", "DRV8833", "TB6612", "servo",
                 "solenoid", "break-beam", "TTP223", "encoder", "Pico", "2.0 A"):
        assert part in text, part
    steps = re.findall(r"^\d\. \*\*(\w+)", text.split("## Bring-up checklist")[1], re.M)
    assert steps == ["Power", "LEDs", "Buttons", "Sensors", "Motor", "Flap", "Calibrate", "A"]
    bring_up = text.split("## Bring-up checklist")[1]
    # calibrate runs before the first full pass, and the wrong polarity's real symptom is named
    assert bring_up.index("crib shuffler calibrate") < bring_up.index("**A full pass.**")
    assert "Nothing printed at all" in bring_up and "sensor_pull_up = false" in bring_up
    assert "hardware/board/firmware/README.md" in text.split("## The LED board")[1]
    assert "](shuffler-assembly-side.svg)" in text
    # Raspberry Pi OS keeps a released output driving: the doc must not promise that a killed
    # process stops the motor without the setting that makes the pin go back to an input.
    mechanism = text.split("## The shuffler's mechanism")[1].split("\n## ")[0]
    assert "dtparam=strict_gpiod" in mechanism and "pull-down" in mechanism
    assert "dtparam=strict_gpiod" in text.split("## Bring-up checklist")[1].split("2. ")[0]


def test_the_mechanism_section_is_the_cad_design():
    from hardware.shuffler.cad.params import Geometry

    g = Geometry()
    text = DOC.read_text()
    mechanism = " ".join(text.split("## The shuffler's mechanism")[1].split("\n## ")[0].split())
    for picture in ("shuffler-assembly-side.svg", "shuffler-assembly.svg"):
        assert f"]({picture})" in mechanism, picture
        root = ET.parse(ROOT / "docs" / picture).getroot()
        assert root.tag.endswith("svg")
    assert "](shuffler-build.md)" in mechanism
    # the design the CAD builds, not the old top roller and separator
    assert "separator" not in mechanism and "bottom feed" in mechanism
    assert f"{g.gate_gap_cards:g} card thicknesses ({g.gate_gap:.2f} mm)" in mechanism
    from hardware.shuffler import design

    assert f"break-beam** crosses its branch {g.beam_path:.1f} mm along the path" in mechanism
    assert f"{g.beam_path:.1f} mm" == f"{design.NIP_TO_BEAM_MM:.1f} mm"
    assert f"pulled no more than {design.NIP_CLEARANCE_MM:g} mm" in mechanism
    swing = g.lower_angle - g.upper_angle
    assert f"about {swing:.0f}°" in mechanism
    for needed in ("two O-ring tyres", "adjustable gate blade", "forks", "SG90", "TCRT5000"):
        assert needed in mechanism, needed


def _amps(row: str) -> list[float]:
    """The LED column's figures of the power table row starting with `row` (2, 3 tracks)."""
    section = DOC.read_text().split("## Power budget", 1)[1].split("\n## ", 1)[0]
    line = next(ln for ln in section.splitlines() if ln.startswith(f"| {row}"))
    leds = line.strip("|").split("|")[1]
    return [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) A", leds)[:2]]


def test_the_power_table_is_the_firmwares_current_model():
    from hardware.board import power
    from hardware.board.layout import BoardLayout

    counts = [BoardLayout(tracks=t).led_count for t in (2, 3)]

    def amps(rgb: tuple[int, int, int], n: int) -> float:
        return power.drawn_ma(bytearray(bytes(rgb) * n)) / 1000

    assert _amps("Idle") == [round(amps((0, 0, 0), n), 2) for n in counts]
    # crib board test's colour (32, 32, 32), before the cap; the cap's budget is 2.0 A
    assert _amps("Test pattern") == [round(amps((32, 32, 32), n), 1) for n in counts]
    assert "capped at 2.0 A" in DOC.read_text() and power.BUDGET_MA == 2000
    assert _amps("Everything at full white") == [round(amps((255, 255, 255), n))
                                                 for n in counts]


def _bom() -> tuple[list[dict[str, str]], str]:
    section = DOC.read_text().split("## Bill of materials", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True))
            for ln in lines[2:]]
    return rows, section


def test_every_bom_row_has_a_quantity_a_description_and_a_price_and_they_add_up():
    rows, section = _bom()
    assert len(rows) >= 30
    totals = {"Pico": 0.0, "SPI": 0.0}
    for r in rows:
        qty, each, line = float(r["Qty"]), float(r["Each (USD)"]), float(r["Line (USD)"])
        assert qty > 0 and each > 0 and r["Part number or exact description"], r["Part"]
        assert line == round(qty * each, 2), r["Part"]
        assert r["Build"] in ("both", "Pico", "SPI"), r["Part"]
        for build in totals:
            if r["Build"] in ("both", build):
                totals[build] += line
    stated = dict(re.findall(r"Total, Pi \+ (Pico|direct SPI) build: about \$(\d+\.\d\d)", section))
    assert float(stated["Pico"]) == round(totals["Pico"], 2)
    assert float(stated["direct SPI"]) == round(totals["SPI"], 2)


def test_the_bom_has_every_part_a_build_needs():
    rows, _ = _bom()
    text = " ".join(f"{r['Part']} {r['Part number or exact description']}" for r in rows).lower()
    for part in ("fuse holder", "5 a", "10 kω", "330 ω", "dc jack", "rocker switch",
                 "jst-xh", "screws", "filament", "o-ring", "break-beam", "sg90", "n20",
                 "drv8833", "74ahct125", "ws2812b", "pico", "1000 µf", "ttp223", "ec11",
                 "opal", "hardwood", "over-current", "5 x 20 mm", "fast"):
        assert part in text, part
    # the names the wiring and power sections give to BOM rows are the BOM's rows
    names = {r["Part"] for r in rows}
    for name in ("DC jack", "Main switch", "Fuse and holder", "Pull-down resistor",
                 "Data resistor", "Level shifter", "Strip capacitor", "Diffuser", "Board top",
                 "Board base", "5 V supply"):
        assert name in names, name
    assert {r["BOM row"] for r in _protection().values()} <= names
    fuse = next(r for r in rows if r["Part"] == "Fuse and holder")
    from hardware import schematics

    assert schematics.FUSE in fuse["Part number or exact description"]
    # the motor the pace is figured for, and the sensor the default polarity is for
    from hardware.shuffler.design import DEFAULT_DRIVE

    assert "50:1 micro metal gearmotor hp 6v" in text and DEFAULT_DRIVE.no_load_rpm == 625.0
    assert "open-collector" in text


def _shuffler_hardware() -> list[dict[str, str]]:
    text = (ROOT / "docs" / "shuffler-build.md").read_text()
    section = text.split("## Hardware", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")), strict=True))
            for ln in lines[2:]]


def test_the_bom_carries_the_shufflers_hardware_list_once():
    rows, _ = _bom()
    items = _shuffler_hardware()
    assert len(items) >= 10
    subtotal = round(sum(float(i["Approx. USD"]) for i in items), 2)
    row = next(r for r in rows if r["Part"] == "Shuffler hardware")
    assert "docs/shuffler-build.md" in row["Part number or exact description"]
    assert float(row["Qty"]) == 1 and float(row["Line (USD)"]) == subtotal
    # no other BOM row buys one of the list's parts a second time
    others = " ".join(f"{r['Part']} {r['Part number or exact description']}" for r in rows
                      if r is not row).lower()
    for key in ("n20", "o-ring", "sg90", "break-beam", "tcrt5000", "ttp223", "feeler",
                "m2.5", "cyanoacrylate"):
        assert key in " ".join(f"{i['Item']} {i['Exact description']}" for i in items).lower(), key
        assert key not in others, key


def test_the_pace_table_is_the_design_arithmetic():
    from hardware.shuffler.pace import default_card_speed_mm_s, pace, plan_passes

    text = DOC.read_text().split("### The pace: what a pass takes", 1)[1].split("\n## ", 1)[0]
    p = pace()
    assert f"{default_card_speed_mm_s():.0f} mm/s" in text
    assert f"{p.transit_s * 1000:.1f} ms" in text and f"{p.card_s * 1000:.1f} ms" in text
    assert f"**{p.pass_s(52):.1f} s / {p.pass_s(104):.1f} s**" in text
    for cards in (52, 104):
        for plan, passes in plan_passes(cards).items():
            row = next(ln for ln in text.splitlines() if ln.startswith(f"| `{plan}`"))
            cell = row.split("|")[2 if cards == 52 else 3]
            assert f"{passes} passes: **{p.shuffle_s(cards, passes):.0f} s**" in cell, (plan, cards)
    # the router's rows: the default build's servo settle, and the wait it sets
    assert p.other_wait_s > p.same_wait_s  # a servo's settle shows in the gap at the flap
    from hardware.shuffler.design import DEFAULT_ROUTER

    assert f"| {DEFAULT_ROUTER.settle_s * 1000:.1f} ms |" in text
    assert f"| {p.other_wait_s * 1000:.1f} ms |" in text and f"| {p.gap_s * 1000:.1f} ms |" in text


def _solenoid_line(text: str) -> str:
    """The docs' one sentence of a solenoid router's figures, whitespace folded."""
    flat = " ".join(text.split())
    start = flat.index("solenoid router")
    return flat[start:flat.index("light", start) + 20]


def test_both_docs_quote_the_default_servo_and_the_solenoid_option_from_the_design():
    from hardware.shuffler.design import SERVO_ROUTER, SOLENOID_ROUTER
    from hardware.shuffler.pace import pace, plan_passes

    servo, solenoid = pace(router=SERVO_ROUTER), pace(router=SOLENOID_ROUTER)
    hardware = DOC.read_text()
    router = " ".join(hardware.split("**The router.**", 1)[1].split("\n\n", 1)[0].split())
    assert "default build's router is the **SG90 servo**" in router
    assert f"a pass of 52 takes **{servo.pass_s(52):.1f} s**" in router
    assert f"a pass of 52 takes {solenoid.pass_s(52):.1f} s" in router
    saved = servo.pass_s(52) - solenoid.pass_s(52)
    assert f"{saved:.1f} s less" in router and "mount" in router
    pace_text = hardware.split("### The pace: what a pass takes", 1)[1].split("\n## ", 1)[0]
    shuffling = (ROOT / "docs" / "shuffling.md").read_text()
    times = shuffling.split("**Time per plan on the default build**", 1)[1].split("\n\n**", 1)[0]
    assert "SG90 servo" in " ".join(times.split())
    row = next(ln for ln in times.splitlines() if ln.startswith("| a pass"))
    assert row == f"| a pass | {servo.pass_s(52):.1f} s | {servo.pass_s(104):.1f} s |"
    for cards in (52, 104):
        for plan, passes in plan_passes(cards).items():
            row = next(ln for ln in times.splitlines() if ln.startswith(f"| `{plan}`"))
            cell = row.split("|")[2 if cards == 52 else 3]
            assert f"{passes} passes: {servo.shuffle_s(cards, passes):.0f} s" in cell, (plan,
                                                                                     cards)
    # the solenoid's figures, in both docs, are the design's too
    for text in (pace_text, times):
        line = _solenoid_line(text)
        assert f"{solenoid.pass_s(52):.1f} s / {solenoid.pass_s(104):.1f} s" in line
        for plan in ("exact", "random", "light"):
            figures = " / ".join(f"{solenoid.shuffle_s(c, plan_passes(c)[plan]):.0f} s"
                                 for c in (52, 104))
            assert f"`{plan}` {figures}" in line, (plan, line)
