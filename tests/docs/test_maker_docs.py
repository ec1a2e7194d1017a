"""The maker's documents say only what the code does: every `crib` command and option they
name exists, every `[section] key` is a setting, every repository path is a file, and the
Pico's settings table is firmware/config.py, value for value."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from firmware_host.cli import build_parser
from firmware_host.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "hardware" / "board" / "firmware"
MAKER_DOCS = ("README.md", "docs/hardware.md", "hardware/board/firmware/README.md",
              "systemd/README.md", "docs/install-pi.md", "docs/cli.md",
              "systemd/config.example.toml")


def _text(name: str) -> str:
    return (ROOT / name).read_text()


def _code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def _crib_commands() -> list[tuple[str, str]]:
    """(doc, command line) for every `crib ...` code span of the maker's documents."""
    found = []
    for name in MAKER_DOCS:
        for span in _code_spans(_text(name)):
            for m in re.finditer(r"(?:^|sudo |\s)crib ([a-z][^|;&]*)", span):
                found.append((name, m.group(1).strip()))
    return found


def _parser_for(words: list[str]) -> tuple[object, list[str]]:
    """The innermost subcommand parser `words` name, and the words left after it."""
    import argparse

    parser: argparse.ArgumentParser = build_parser()
    rest = list(words)
    while rest:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
        if sub is None or rest[0] not in sub.choices:
            break
        parser = sub.choices[rest.pop(0)]
    return parser, rest


def test_the_docs_name_crib_commands():
    assert len(_crib_commands()) > 20  # the scan below looks at something


@pytest.mark.parametrize(("doc", "line"), _crib_commands())
def test_every_crib_command_and_option_the_docs_name_exists(doc: str, line: str):
    words = [w for w in line.split() if w not in ("...", "…")]
    parser, rest = _parser_for(words)
    assert parser.prog != "crib", f"{doc}: `crib {line}` names no command"
    options = {s for a in parser._actions for s in a.option_strings}
    for word in rest:
        if word.startswith("--"):
            assert word.split("=")[0] in options, f"{doc}: `crib {line}`: no {word}"


def _section_keys() -> list[tuple[str, str, str]]:
    """(doc, section, key) for every `[section] key` the documents name."""
    found = []
    for name in MAKER_DOCS[:-1]:
        for section, key in re.findall(r"`\[(\w+)\] (\w+)", _text(name)):
            found.append((name, section, key))
    return found


def test_every_section_key_the_docs_name_is_a_setting():
    settings = load_settings(ROOT / "systemd" / "config.example.toml")
    keys = _section_keys()
    assert len(keys) > 5
    for doc, section, key in keys:
        model = getattr(settings, section, None)
        assert model is not None, f"{doc}: no section [{section}]"
        assert key in type(model).model_fields, f"{doc}: [{section}] has no key {key}"


def test_every_repository_path_the_docs_name_exists():
    pattern = re.compile(r"(?:\.\./)?((?:hardware|firmware_host|systemd|docs|tests|cribbage)"
                         r"/[\w/.-]*\w)")
    named = set()
    for name in MAKER_DOCS:
        for span in _code_spans(_text(name)) + re.findall(r"\]\(([^)]+)\)", _text(name)):
            m = pattern.fullmatch(span.strip())
            if m and "{" not in span:
                named.add((name, m.group(1)))
    assert len(named) > 10
    missing = [(doc, p) for doc, p in named if not (ROOT / p).exists()
               and not (ROOT / Path(doc).parent / p).exists()]
    assert missing == []


def _firmware_config() -> dict[str, object]:
    tree = ast.parse((FIRMWARE / "config.py").read_text())
    return {t.id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}


def test_the_firmware_readme_settings_table_is_config_py():
    text = _text("hardware/board/firmware/README.md").split("## Settings", 1)[1]
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", text, re.M))
    config = _firmware_config()
    assert set(rows) == set(config)
    assert {k: ast.literal_eval(v) for k, v in rows.items()} == config


def test_the_picos_pins_in_the_docs_are_config_py():
    config = _firmware_config()
    buttons = [config["UNDO_PIN"], *config["TRACK_BUTTON_PINS"]]  # type: ignore[misc]
    # "undo on GP2, one peg button per track on GP3, GP4, GP5"
    for doc in ("docs/hardware.md", "hardware/board/firmware/README.md"):
        text = _text(doc)
        assert f"GP{config['DATA_PIN']}" in text, doc
        undo = re.search(r"[Uu]ndo (?:on |\()GP(\d+)", text)
        tracks = re.search(r"GP(\d+)(?: \(pin \d+\))?, GP(\d+)(?: \(pin \d+\))?,? "
                           r"(?:and )?GP(\d+)", text)
        assert undo and tracks, doc
        assert [int(undo.group(1)), *map(int, tracks.groups())] == buttons, doc


# The Pico's 40 pins: GP number -> physical pin (pin 1 is GP0, the USB end, left row).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}


def test_the_picos_physical_pins_in_the_docs_match_its_gp_numbers():
    pairs = []
    for doc in ("docs/hardware.md", "hardware/board/firmware/README.md"):
        pairs += [(doc, int(gp), int(pin)) for gp, pin in
                  re.findall(r"GP(\d+) \(pin (\d+)\)", _text(doc))]
    assert len(pairs) >= 4
    assert [(d, gp, pin) for d, gp, pin in pairs if PICO_PIN[gp] != pin] == []


def test_spi_mosi_is_gpio10_on_header_pin_19_everywhere():
    from firmware_host.config import BoardSettings

    assert BoardSettings().spi_device == "/dev/spidev0.0"  # SPI0: MOSI is BCM 10, pin 19
    for doc in ("docs/hardware.md", "docs/install-pi.md"):
        text = _text(doc)
        assert re.search(r"GPIO ?10", text), doc
        for m in re.finditer(r"GPIO ?10\b[^.]{0,40}?pin (\d+)", text):
            assert m.group(1) == "19", doc


def test_bring_up_commands_on_the_pi_read_the_services_config(tmp_path, monkeypatch):
    """The bring-up checklist runs `crib inputs watch` etc. with no --config: on a Pi they must
    use the pins of the installed file, as the service does, not the built-in defaults."""
    import argparse

    from firmware_host.cli import bringup, daemon

    etc = tmp_path / "etc" / "cribbage-table"
    etc.mkdir(parents=True)
    (etc / "config.toml").write_text("[inputs]\nundo = 4\n")
    mine = tmp_path / "mine.toml"
    mine.write_text("[inputs]\nundo = 22\n")
    monkeypatch.delenv("CRIB_CONFIG", raising=False)
    monkeypatch.setattr(daemon, "INSTALLED_CONFIG", etc / "config.toml")
    assert bringup._settings(argparse.Namespace(config=None)).inputs.undo == 4
    assert bringup._settings(argparse.Namespace(config=str(mine))).inputs.undo == 22
    monkeypatch.setenv("CRIB_CONFIG", str(mine))
    assert bringup._settings(argparse.Namespace(config=None)).inputs.undo == 22
    monkeypatch.setattr(daemon, "INSTALLED_CONFIG", tmp_path / "none" / "config.toml")
    monkeypatch.delenv("CRIB_CONFIG")
    monkeypatch.setenv("CRIB_STATE_DIR", str(tmp_path / "state"))
    assert bringup._settings(argparse.Namespace(config=None)).inputs.undo == 5  # off a Pi


def test_a_bring_up_command_that_may_not_read_the_services_config_says_sudo(tmp_path,
                                                                           monkeypatch):
    """install.sh leaves /etc/cribbage-table 0750 root:cribbage: a maker without sudo must
    be told to use it, not shown a traceback (opening the file fails as it does there)."""
    import argparse
    from pathlib import Path as _Path

    from firmware_host.cli import bringup, daemon
    from firmware_host.errors import ConfigError

    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "config.toml").write_text("[inputs]\nundo = 4\n")
    real_open = _Path.open

    def denied(self, *a, **kw):
        if self == etc / "config.toml":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *a, **kw)

    monkeypatch.setattr(_Path, "open", denied)
    monkeypatch.delenv("CRIB_CONFIG", raising=False)
    monkeypatch.setattr(daemon, "INSTALLED_CONFIG", etc / "config.toml")
    args = argparse.Namespace(config=None, command="inputs", inputs_command="watch")
    with pytest.raises(ConfigError, match=r"cannot read it .*sudo crib inputs watch"):
        bringup._settings(args)


def test_both_install_guides_name_the_groups_and_packages_install_sh_gives():
    script = _text("systemd/install.sh")
    groups = re.search(r"usermod -a -G ([\w,]+)", script).group(1).split(",")  # type: ignore[union-attr]
    packages = sorted(set(re.findall(r"python3-\w+|avahi-daemon", script))
                      - {"python3-pip"})  # pip comes with the venv; not worth a word
    for doc in ("docs/install-pi.md",):
        text = _text(doc).split("## On the Raspberry Pi", 1)[1]
        step = text.split("3. **Install**", 1)[1].split("4. **Check**", 1)[0]
        said = re.search(r"in the (.+?) groups", step.replace("\n   ", " "))
        assert said, doc
        assert sorted(re.findall(r"`(\w+)`", said.group(1))) == sorted(groups), doc
        assert [p for p in packages if f"`{p}`" not in step] == [], doc
        assert "sudo crib doctor" in text, doc  # the config it reads is root's and the service's


def test_the_optional_pin_settings_the_example_shows_are_the_shufflers_defaults():
    """The example config's commented pin settings are what the shuffler does without them."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.clock import FakeClock
    from hardware.shuffler.gpio import GpioShuffler
    from hardware.shuffler.plan import Pile

    text = _text("systemd/config.example.toml")
    names = ("router_kind", "left_angle", "right_angle", "sensor_pull_up", "min_pulse_ms",
             "max_pulse_ms", "solenoid_hold", "solenoid_pull_in_ms")
    shown = dict(re.findall(rf"^#\s+({'|'.join(names)}) = (\S+)", text, re.M))
    assert set(shown) == set(names)
    pins = load_settings(ROOT / "systemd" / "config.example.toml").shuffler.pins
    assert "router_kind" not in pins  # the example's shuffler is the default build's
    factory = MockFactory(pin_class=MockPWMPin)
    sh = GpioShuffler(dict(pins), FakeClock(), pin_factory=factory)
    sh.open()
    try:
        mech = sh.mechanism
        # the default router is the SG90 servo the printed router mounts
        assert shown["router_kind"] == '"servo"'
        assert type(mech.router).__name__ == "AngularServo"
        # sensor_pull_up = true: a pull-up, and low means a card
        assert shown["sensor_pull_up"] == "true"
        assert mech.tray.pull_up is True and mech.tray.is_active is False
        factory.pin(pins["tray_sensor"]).drive_low()
        assert mech.tray.is_active is True
        mech.set_router(Pile.RIGHT)
        assert mech.router.angle == pytest.approx(float(shown["right_angle"]))
        lo, hi = float(shown["min_pulse_ms"]), float(shown["max_pulse_ms"])
        pulse_ms = factory.pin(pins["router"]).state * 20  # 50 Hz frames
        angle = float(shown["right_angle"])
        assert pulse_ms == pytest.approx(lo + (angle + 90) / 180 * (hi - lo))
        mech.set_router(Pile.LEFT)
        assert mech.router.angle == pytest.approx(float(shown["left_angle"]))
        # the angles turn the printed flap from one branch to the other, no further
        from hardware.shuffler.cad.params import Geometry

        g = Geometry()
        swing = float(shown["right_angle"]) - float(shown["left_angle"])
        assert swing == pytest.approx(g.lower_angle - g.upper_angle, abs=0.1)
    finally:
        sh.stop()
    solenoid = {**pins, "router_kind": "solenoid"}
    factory = MockFactory(pin_class=MockPWMPin)
    clock = FakeClock()
    sh = GpioShuffler(solenoid, clock, pin_factory=factory)
    sh.open()
    try:
        mech = sh.mechanism
        assert type(mech.router).__name__ == "PWMOutputDevice"
        mech.set_router(Pile.RIGHT)
        assert mech.router.value == 1.0  # pulled in at full power
        clock.advance(float(shown["solenoid_pull_in_ms"]) / 1000)
        mech.update(clock.monotonic())
        assert mech.router.value == float(shown["solenoid_hold"])
    finally:
        sh.stop()
