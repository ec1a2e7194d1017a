"""`crib board walk` (a hole at a time, by eye) and `crib board flash` (mpremote), as a maker
runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host import doctor
from firmware_host.cli import main
from hardware.board import spi
from hardware.board.layout import BoardLayout
from hardware.board.link import Msg
from hardware.board.protocol import Frame, FrameReader
from hardware.board.simulator import BoardSimulator
from hardware.board.transport import SerialTransport
from hardware.clock import SystemClock
from tests.hardware.board.fake_spidev import FakeSpiDev

CRIB = Path(sys.executable).with_name("crib")


# --- walk -------------------------------------------------------------------------------------


def test_walk_a_simulated_board_names_each_hole_its_led_and_colour():
    done = subprocess.run([str(CRIB), "board", "walk", "--simulate", "--holes", "60",
                           "--track", "2", "--delay", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    steps = [line for line in lines if line.startswith("track ")]
    assert len(steps) == 62  # the start hole, 60 holes, the game hole
    # Track 2 runs backwards on the default serpentine strip: hole 37 is LED 62 + 61 - 37.
    assert "track 2 hole 37 (LED 86): blue" in steps
    assert steps[0] == "track 2 hole 0 (LED 123): blue"
    assert steps[-1] == "track 2 hole 61 (LED 62): blue"
    assert lines[-1].startswith("every step: the board's controller holds the same")


def test_walk_on_spi_lights_exactly_one_led_per_step_in_its_colour(tmp_path, monkeypatch,
                                                                     capsys):
    strip = FakeSpiDev("GRB")
    monkeypatch.setattr(spi, "open_spidev", lambda: strip)
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\ntracks = 1\nholes = 60\n')
    rc = main(["board", "walk", "--spi", "--config", str(cfg), "--delay", "0"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "track 1 hole 5 (LED 5): red" in out.splitlines()
    # What the strip decoded from the bit stream: one lit LED a frame, in hole order, red.
    lit = []
    for frame in strip.frames:
        on = [i for i, rgb in enumerate(frame) if rgb != (0, 0, 0)]
        if len(on) == 1 and (not lit or lit[-1] != on[0]):
            assert frame[on[0]] == (110, 0, 0)  # classic red at brightness 128
            lit.append(on[0])
    assert lit == list(range(62))
    assert strip.closed


def test_walk_shows_a_wrong_colour_order_as_a_wrong_colour(tmp_path, monkeypatch, capsys):
    strip = FakeSpiDev("GRB")  # a WS2812B strip...
    monkeypatch.setattr(spi, "open_spidev", lambda: strip)
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\ntracks = 1\nholes = 60\ncolour_order = "RGB"\n')
    assert main(["board", "walk", "--spi", "--config", str(cfg), "--delay", "0"]) == 0
    assert "track 1 hole 5 (LED 5): red" in capsys.readouterr().out
    # ...configured as RGB: the walk says red and the maker sees green.
    assert any(frame[5] == (0, 110, 0) for frame in strip.frames)


def test_walk_bad_options_are_one_line(capsys):
    assert main(["board", "walk", "--simulate", "--holes", "60", "--track", "3",
                 "--delay", "0"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "crib board walk: --track 3 is not a track of this 2-track board",
        "see crib board walk --help",
    ]
    assert main(["board", "walk", "--port", "/dev/nonexistent", "--delay", "0"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "crib board walk: cannot open /dev/nonexistent: No such file or directory"]


def test_walk_spi_without_the_device_says_how_to_turn_spi_on(tmp_path, monkeypatch, capsys):
    def missing():
        return FakeSpiDev(fail_open=FileNotFoundError(2, "No such file or directory"))

    monkeypatch.setattr(spi, "open_spidev", missing)
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\n')
    assert main(["board", "walk", "--spi", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "dtparam=spi=on" in err[0]


# --- flash ------------------------------------------------------------------------------------


def fake_mpremote(bin_dir: Path, log: Path, fail_on: str | None = None,
                  exists: str | None = None, where: bool = False) -> Path:
    """An `mpremote` that logs its arguments; it fails on one containing `fail_on`, and
    answers "File exists" to a mkdir of `exists`, as mpremote 1.29 does. `where` logs the
    port's presence first ("port there" or "port gone")."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "mpremote"
    if where:
        exe.write_text(f'#!/bin/sh\nif [ -e "$2" ]; then echo "port there" >> "{log}"; '
                       f'else echo "port gone" >> "{log}"; fi\necho "CALL $*" >> "{log}"\n'
                       'exit 0\n')
        exe.chmod(0o755)
        return exe
    cases = ""
    if fail_on:
        cases += f'*{fail_on}*) echo "mpremote: failed to access {fail_on}" >&2; exit 1;;\n'
    if exists:
        cases += f'*"mkdir :{exists}") echo "mpremote: mkdir: {exists}: File exists." >&2; ' \
                 "exit 1;;\n"
    body = f'case "$*" in\n{cases}esac\n' if cases else ""
    exe.write_text(f'#!/bin/sh\necho "CALL $*" >> "{log}"\n{body}exit 0\n')
    exe.chmod(0o755)
    return exe


@pytest.fixture
def bare_pico():
    """A Pico with bare MicroPython on a pty: a REPL prompt, no firmware."""
    with BoardSimulator(BoardLayout(), SystemClock(), repl=True) as sim:
        yield sim, sim.open_pty()


def frames_sent(sim: BoardSimulator) -> list[int]:
    """The message types of the frames the board's REPL was sent."""
    return [f.type for f in FrameReader().feed(bytes(sim.repl_received)) if isinstance(f, Frame)]


@pytest.fixture
def firmware(tmp_path, monkeypatch):
    """Three firmware files in one package, given as the firmware's manifest gives them."""
    src = tmp_path / "fw"
    src.mkdir()
    files = [(src / "main.py", "main.py"), (src / "__init__.py", "pkg/__init__.py"),
             (src / "core.py", "pkg/core.py")]
    for path, _ in files:
        path.write_text("# firmware\n")
    from hardware.board.firmware import manifest

    monkeypatch.setattr(manifest, "files", lambda: files)
    monkeypatch.setattr(manifest, "DIRECTORIES", ("pkg",))
    return files


def calls(log: Path) -> list[str]:
    """Each mpremote run's arguments (the exec code's lines joined by spaces)."""
    return [" ".join(c.split()) for c in log.read_text().split("CALL ")[1:]]


def copies(call: str) -> list[tuple[str, str]]:
    """The (local, board) pairs of the `fs cp` commands chained in one mpremote run."""
    return re.findall(r"\+ fs cp (\S+) :(\S+)", call)


def test_flash_is_one_mpremote_session_of_precompiled_modules(tmp_path, monkeypatch, capsys,
                                                              firmware, bare_pico):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    sim, port = bare_pico
    assert main(["board", "flash", "--port", str(port)]) == 0
    # Bare MicroPython does not answer the hello: it gets no MAINTENANCE.
    assert Msg.HELLO in frames_sent(sim) and Msg.MAINTENANCE not in frames_sent(sim)
    assert sim.maintenance_requests == 0
    (main_py, _), (init_py, _), _ = firmware
    [call] = calls(log)  # one session: a restart halfway cannot leave half a flash
    assert call.startswith(f"connect {port} exec import os for d in [\"pkg\"]:")
    assert '"pkg/core.py"' in call.split(" + ")[0]  # a stale source copy would shadow the .mpy
    assert call.endswith(" + reset")
    pairs = copies(call)
    assert pairs[:2] == [(str(main_py), "main.py"), (str(init_py), "pkg/__init__.py")]
    assert pairs[2][1] == "pkg/core.mpy" and pairs[2][0].endswith("/pkg/core.mpy")
    out = capsys.readouterr().out
    assert f"flashed 3 files (1 precompiled) to {port} in one mpremote session" in out


def test_flash_finds_the_one_micropython_board(tmp_path, monkeypatch, firmware, bare_pico):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    _, link = bare_pico  # as /dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_...-if00
    monkeypatch.setattr(doctor, "micropython_ports", lambda by_id, root: [link])
    assert main(["board", "flash"]) == 0
    [call] = calls(log)
    assert call.startswith(f"connect {link} exec ") and call.endswith(" + reset")


def test_flash_dry_run_prints_the_plan_without_a_board_or_mpremote(tmp_path, monkeypatch,
                                                                   capsys):
    from hardware.board.firmware import manifest

    monkeypatch.setattr(doctor, "BY_ID_DIR", tmp_path / "no-by-id")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["board", "flash", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    compiled = [d for _, d in manifest.files() if manifest.compiled_name(d) != d]
    assert [ln for ln in lines if ln.startswith("+ mpy-cross")] and len(
        [ln for ln in lines if ln.startswith("+ mpy-cross")]) == len(compiled)
    session = [ln for ln in lines if ln.startswith("+ mpremote connect")]
    assert len(session) == 1  # one session
    assert session[0].startswith("+ mpremote connect /dev/serial/by-id/usb-MicroPython")
    tail = lines[-1]
    assert tail.endswith(" + reset") and ":main.py" in tail
    assert all(f":{manifest.compiled_name(d)}" in tail for _, d in manifest.files())


def test_flash_without_a_board_or_mpremote_says_so_in_one_line(tmp_path, monkeypatch, capsys,
                                                                firmware):
    monkeypatch.setattr(doctor, "BY_ID_DIR", tmp_path / "no-by-id")
    assert main(["board", "flash"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("crib board flash: no MicroPython board (USB id "
                                               "2e8a:0005)") and "BOOTSEL" in err[0]
    assert main(["board", "flash", "--port", "/dev/nonexistent"]) == 1
    assert capsys.readouterr().err == "crib board flash: /dev/nonexistent does not exist\n"
    port = tmp_path / "ttyACM0"
    port.write_text("")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CRIB_MPREMOTE", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    assert main(["board", "flash", "--port", str(port)]) == 1
    assert capsys.readouterr().err.startswith("crib board flash: mpremote is not installed: "
                                              "pip install mpremote==1.29.0")


def test_flash_reports_the_failing_mpremote_session(tmp_path, monkeypatch, capsys, firmware,
                                                    bare_pico):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log, fail_on=":pkg/core.mpy")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    _, port = bare_pico
    assert main(["board", "flash", "--port", str(port)]) == 1
    assert len(calls(log)) == 1
    assert capsys.readouterr().err == ("crib board flash: mpremote failed (1): "
                                       "mpremote: failed to access :pkg/core.mpy\n")


def test_flash_as_a_user_runs_it_with_the_real_firmware_list(tmp_path, bare_pico):
    from hardware.board.firmware import manifest

    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log)
    _, port = bare_pico
    done = subprocess.run([str(CRIB), "board", "flash", "--port", str(port)],
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    [call] = calls(log)
    pairs = copies(call)
    assert [b for _, b in pairs] == [manifest.compiled_name(d) for _, d in manifest.files()]
    assert (f"{manifest.ROOT}/hardware/board/firmware/main.py", "main.py") in pairs
    assert any(b == "hardware/board/firmware/core.mpy" for _, b in pairs)
    assert all(not b.endswith(".py") or b in manifest.SOURCE_ON_BOARD
               or b.endswith("__init__.py") for _, b in pairs)


def test_reflashing_a_board_that_runs_the_firmware_restarts_it_into_its_repl_first(
        tmp_path, monkeypatch, capsys, firmware):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log, where=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    with BoardSimulator(BoardLayout(), SystemClock()) as sim:  # our firmware, Ctrl-C off
        port = sim.open_pty()
        assert main(["board", "flash", "--port", port]) == 0
        # Acknowledged, off USB a moment, back as the REPL, whose prompt was seen.
        assert sim.maintenance_requests == 1 and sim.repl and sim.boots == 2
        assert b"\r" in sim.repl_received
    out = capsys.readouterr().out
    assert f"the board on {port} ran the firmware: restarted it into its MicroPython REPL" in out
    # mpremote ran only once the board was back on USB, and did the whole job.
    assert log.read_text().splitlines()[0] == "port there"
    [call] = calls(log)
    assert [b for _, b in copies(call)] == ["main.py", "pkg/__init__.py", "pkg/core.mpy"]


def test_an_old_firmware_that_ignores_maintenance_is_named_and_not_flashed(
        tmp_path, monkeypatch, capsys, firmware):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    with BoardSimulator(BoardLayout(), SystemClock(), build=3) as sim:
        handle = sim.firmware._handle
        sim.firmware._handle = lambda mtype, *a: None if mtype == Msg.MAINTENANCE else handle(
            mtype, *a)  # build 3 had no MAINTENANCE
        assert main(["board", "flash", "--port", sim.open_pty()]) == 1
    err = capsys.readouterr().err
    assert err.startswith("crib board flash: the board on ") and "(build 3)" in err
    assert "BOOTSEL" in err and not log.exists()


def test_flashing_a_board_the_daemon_holds_says_to_stop_it(tmp_path, monkeypatch, capsys,
                                                           firmware, bare_pico):
    log = tmp_path / "mpremote.log"
    fake_mpremote(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    _, port = bare_pico
    daemon = SerialTransport(port)  # crib serve has it open (exclusively)
    daemon.open()
    try:
        assert main(["board", "flash", "--port", port]) == 1
    finally:
        daemon.close()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"crib board flash: cannot open {port}")
    assert err[0].endswith("stop it first (sudo systemctl stop cribbage-table)")
    assert not log.exists()
