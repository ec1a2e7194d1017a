"""`crib board map` writes the LED map once; the Pi's configuration, `crib board flash` and
`crib board template` all read that file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from firmware_host.cli import main
from firmware_host.config import load_settings
from firmware_host.errors import ConfigError
from hardware.board import spi
from hardware.board.layout import BoardLayout, StripPlan
from hardware.board.render import Geometry
from tests.hardware.board.fake_spidev import FakeSpiDev

ROOT = Path(__file__).resolve().parents[2]
CRIB = Path(sys.executable).with_name("crib")


def _map(tmp_path: Path, *options: str) -> tuple[Path, dict]:
    out = tmp_path / "led-map.json"
    assert main(["board", "map", "--out", str(out), *options]) == 0
    return out, json.loads(out.read_text())


def test_map_writes_the_plans_map(tmp_path, capsys):
    path, doc = _map(tmp_path, "--per-metre", "96", "--skip", "2", "--tracks", "3")
    out = capsys.readouterr().out
    plan = StripPlan(tracks=3, per_metre=96, skip=2)
    assert doc["led_map"] == [list(r) for r in plan.led_map()]
    assert doc["led_count"] == plan.led_count()
    assert f"wrote {path}: 3 tracks of 120 holes on {plan.led_count()} LEDs" in out
    assert "led_map_file" in out and f"crib board flash --map {path}" in out


def test_map_refuses_a_plan_that_cannot_be_laid(tmp_path, capsys):
    assert main(["board", "map", "--out", str(tmp_path / "m.json"), "--per-metre", "50"]) == 2
    err = capsys.readouterr().err
    assert "50 LEDs a metre" in err and "144" in err
    assert not (tmp_path / "m.json").exists()


def test_the_pis_config_takes_the_map_from_the_file(tmp_path):
    path, doc = _map(tmp_path, "--legs", "1")
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nled_map_file = "led-map.json"\n')  # beside the config
    s = load_settings(cfg)
    assert s.board.led_map == doc["led_map"]
    layout = BoardLayout(s.board.tracks, s.board.holes, s.board.led_map_tuple)
    assert layout.led_count == doc["led_count"]
    assert layout.index(1, 7) == doc["led_map"][1][7]


def test_a_bad_map_file_is_named_in_the_config_error(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nled_map_file = "missing.json"\n')
    with pytest.raises(ConfigError, match=r"board.*missing\.json: cannot be read"):
        load_settings(cfg)
    path, doc = _map(tmp_path, "--tracks", "3")
    cfg.write_text(f'[board]\nled_map_file = "{path}"\n')
    with pytest.raises(ConfigError, match="is for 3 tracks of 120 holes; \\[board\\] says 2"):
        load_settings(cfg)
    cfg.write_text(f'[board]\nled_map_file = "{path}"\ntracks = 3\nled_map = [[0]]\n')
    with pytest.raises(ConfigError, match="led_map and led_map_file both given"):
        load_settings(cfg)
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    cfg.write_text('[board]\nled_map_file = "x.json"\n')
    with pytest.raises(ConfigError, match="not a file of crib board map"):
        load_settings(cfg)


def test_walk_on_spi_lights_the_led_the_map_file_puts_under_each_hole(tmp_path, monkeypatch,
                                                                      capsys):
    strip = FakeSpiDev("GRB")
    monkeypatch.setattr(spi, "open_spidev", lambda: strip)
    path, doc = _map(tmp_path, "--tracks", "1", "--holes", "60", "--legs", "2")
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[board]\nmode = "spi"\ntracks = 1\nholes = 60\nled_map_file = "{path}"\n')
    capsys.readouterr()
    assert main(["board", "walk", "--spi", "--config", str(cfg), "--delay", "0"]) == 0
    lit = []
    for frame in strip.frames:
        on = [i for i, rgb in enumerate(frame) if rgb != (0, 0, 0)]
        if len(on) == 1 and (not lit or lit[-1] != on[0]):
            lit.append(on[0])
    assert lit == doc["led_map"][0]  # every hole, in order, on the LED under it
    assert len(strip.frames[-1]) == doc["led_count"]


def test_flash_writes_the_map_into_the_config_it_copies(tmp_path, capsys):
    path, doc = _map(tmp_path, "--per-metre", "100")
    port = tmp_path / "ttyACM0"
    port.touch()
    rc = main(["board", "flash", "--dry-run", "--port", str(port), "--map", str(path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    folder = re.search(r"(\S*crib-led-map-[^/\s]+)/", out)
    assert folder, out
    generated = (Path(folder.group(1)) / "config.py").read_text()
    assert "config.py" in out.split(folder.group(1))[1].split()[0]
    settings = SimpleNamespace()
    exec(compile(generated, "config.py", "exec"), vars(settings))  # noqa: S102
    assert settings.TRACKS == doc["tracks"] and settings.HOLES == doc["holes"]
    assert settings.LED_COUNT == doc["led_count"]
    assert [list(r) for r in settings.LED_MAP] == doc["led_map"]
    # The board's own geometry from it is the Pi's, LED for LED.
    board = Geometry(settings.TRACKS, settings.HOLES, settings.LED_MAP, settings.LED_COUNT)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[board]\nled_map_file = "{path}"\n')
    s = load_settings(cfg)
    pi = BoardLayout(s.board.tracks, s.board.holes, s.board.led_map_tuple)
    assert board.index == pi.geometry.index and board.led_count == pi.led_count
    # Every other setting of the board's config.py is the one in the repository.
    original = SimpleNamespace()
    exec(compile((ROOT / "hardware/board/firmware/config.py").read_text(), "c", "exec"),
         vars(original))  # noqa: S102
    for name in vars(original):
        if name.isupper() and name not in ("TRACKS", "HOLES", "LED_COUNT", "LED_MAP"):
            assert getattr(settings, name) == getattr(original, name), name


def test_flash_with_a_bad_map_file_says_which(tmp_path, capsys):
    port = tmp_path / "ttyACM0"
    port.touch()
    rc = main(["board", "flash", "--dry-run", "--port", str(port), "--map",
               str(tmp_path / "nope.json")])
    assert rc == 1
    assert "nope.json: cannot be read" in capsys.readouterr().err


def test_template_of_a_map_file_draws_its_holes(tmp_path, capsys):
    path, doc = _map(tmp_path, "--legs", "1", "--skip", "0")
    assert main(["board", "template", "--map", str(path), "--out", str(tmp_path),
                 "--no-pdf"]) == 0
    root = ET.parse(tmp_path / "board-template.svg").getroot()
    leds = {(int(el.get("data-track")), int(el.get("data-hole"))): int(el.get("data-led"))
            for el in root.iter() if el.get("data-hole") is not None}
    assert leds == {(t, h): doc["led_map"][t][h] for t in range(2) for h in range(122)}
    skunk = [el for el in root.iter() if el.get("class") == "skunk"]
    assert len(skunk) == 2  # six-card to 121: the skunk (91) and double skunk (61) lines


def test_template_writes_both_papers(tmp_path, capsys):
    pytest.importorskip("fpdf")
    assert main(["board", "template", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "board-template-a4.pdf (2 pages)" in out
    assert "board-template-letter.pdf (3 pages)" in out
    assert (tmp_path / "board-template-a4.pdf").read_bytes().startswith(b"%PDF")


def test_template_without_fpdf2_says_what_to_install(tmp_path):
    code = ("import sys; sys.modules['fpdf'] = None\n"
            "from firmware_host.cli import main\n"
            f"sys.exit(main(['board', 'template', '--out', {str(tmp_path)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "pip install 'fpdf2==2.8.9'" in done.stderr
    assert (tmp_path / "board-template.svg").exists()  # the SVG needs nothing


def test_template_refuses_an_unknown_variant(tmp_path, capsys):
    assert main(["board", "template", "--out", str(tmp_path), "--variant", "seven-card"]) == 2
    assert "seven-card" in capsys.readouterr().err


def test_flash_takes_the_map_beside_the_configuration_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CRIB_CONFIG", str(tmp_path / "config.toml"))
    assert main(["board", "map", "--tracks", "1"]) == 0  # beside the configuration
    written = tmp_path / "led-map.json"
    assert written.is_file()
    port = tmp_path / "ttyACM0"
    port.touch()
    capsys.readouterr()
    assert main(["board", "flash", "--dry-run", "--port", str(port)]) == 0
    out = capsys.readouterr().out
    assert f"LED map: {written}" in out
    folder = re.search(r"(\S*crib-led-map-[^/\s]+)/", out)
    assert folder and "TRACKS = 1  #" in (Path(folder.group(1)) / "config.py").read_text()
    written.unlink()  # none there: the repository's config.py as it is
    assert main(["board", "flash", "--dry-run", "--port", str(port)]) == 0
    out = capsys.readouterr().out
    assert "LED map" not in out and "crib-led-map-" not in out
