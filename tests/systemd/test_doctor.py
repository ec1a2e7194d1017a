"""`crib doctor` against a healthy simulated Pi and against broken ones."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import serial

from firmware_host import doctor
from firmware_host.cli import main
from firmware_host.doctor import Setup, Status
from hardware.board.layout import BoardLayout
from hardware.board.protocol import PROTOCOL_VERSION
from hardware.board.simulator import BoardSimulator
from hardware.clock import SystemClock

VERSION = "0.1.0"
GB = 1024**3


@pytest.fixture
def board() -> Iterator[BoardSimulator]:
    sim = BoardSimulator(BoardLayout(), SystemClock())
    sim.open_pty()
    yield sim
    sim.close()


def fake_pi(root: Path, model: str = "Raspberry Pi 4 Model B Rev 1.4", throttled: str = "0x0"):
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\x00")
    fw = root / "sys/devices/platform/soc/soc:firmware"
    fw.mkdir(parents=True)
    (fw / "get_throttled").write_text(throttled + "\n")
    # dtparam=strict_gpiod: a released GPIO goes back to an input (the feed motor stops)
    params = root / "sys/module/pinctrl_bcm2835/parameters"
    params.mkdir(parents=True)
    (params / "persist_gpio_outputs").write_text("N\n")


def healthy(tmp_path: Path, port: str, **overrides: Any) -> Setup:
    """A Pi where everything is right; each test breaks one thing."""
    sys_root = tmp_path / "sysroot"
    if not sys_root.exists():
        fake_pi(sys_root)
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    by_id = tmp_path / "by-id"
    by_id.mkdir(exist_ok=True)
    link = by_id / "usb-cribbage-table_peg-board-if00"
    if not link.is_symlink():
        link.symlink_to(port)
    unit = tmp_path / "cribbage-table.service"
    unit.write_text(f"[Unit]\nX-CribbageVersion={VERSION}\n[Service]\nType=notify\n")
    values: dict[str, Any] = dict(
        config_path=tmp_path / "config.toml",
        state_dir=state,
        board_mode="auto",
        board_port=str(link),  # configured by its by-id link, as it should be
        gpio_mode="auto",
        unit_path=unit,
        sys_root=sys_root,
        by_id_dir=by_id,
        groups_of=lambda user: {"cribbage", "gpio", "dialout"} if user == "cribbage" else None,
        group_exists=lambda name: True,
        user_uid=lambda user: os.geteuid(),
        pin_factory=lambda: ("LGPIOFactory", []),
        version=lambda: VERSION,
        vcgencmd=lambda: None,
        disk_usage=lambda path: SimpleNamespace(total=32 * GB, used=4 * GB, free=28 * GB),
        environ={},
    )
    values.update(overrides)
    return Setup(**values)


def test_healthy_pi_passes_every_check(tmp_path: Path, board: BoardSimulator) -> None:
    report = doctor.run(healthy(tmp_path, board.pty_name))
    statuses = {c.name: c.status for c in report.checks}
    assert statuses == {
        "platform": Status.OK, "config": Status.OK, "groups": Status.OK, "gpio": Status.OK,
        "serial": Status.OK, "board": Status.OK, "spi": Status.SKIP, "motor": Status.OK,
        "state": Status.OK,
        "unit": Status.OK, "power": Status.OK, "disk": Status.OK,
    }, "\n".join(report.lines())
    assert report.ok
    assert "gpiozero will use LGPIOFactory" in report.by_name("gpio").line()
    # The real host driver did the hello with the simulated board.
    assert f"protocol {PROTOCOL_VERSION}," in report.by_name("board").message
    assert "usb-cribbage-table_peg-board-if00" in report.by_name("serial").message
    assert report.lines()[-1] == "doctor: all good"


def test_missing_group_fails_with_the_usermod_fix(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name, groups_of=lambda user: {"cribbage", "dialout"})
    report = doctor.run(setup)
    line = report.by_name("groups").line()
    assert line.startswith("FAIL  groups: cribbage is not in gpio")
    assert "fix: sudo usermod -aG gpio cribbage" in line
    assert not report.ok


def test_missing_user_fails(tmp_path: Path, board: BoardSimulator) -> None:
    report = doctor.run(healthy(tmp_path, board.pty_name, groups_of=lambda user: None))
    assert "the service user 'cribbage' does not exist" in report.by_name("groups").line()
    assert report.by_name("groups").status is Status.FAIL


def test_missing_port_fails_and_lists_by_id(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name)
    setup.board_port = "/dev/cribbage-board-nowhere"
    report = doctor.run(setup)
    serial_check = report.by_name("serial")
    assert serial_check.status is Status.FAIL
    assert "board port /dev/cribbage-board-nowhere does not exist" in serial_check.line()
    assert "usb-cribbage-table_peg-board-if00" in serial_check.line()  # what is plugged in
    assert report.by_name("board").status is Status.SKIP
    assert not report.ok


def test_unstable_port_name_is_a_warning_naming_the_by_id_link(
    tmp_path: Path, board: BoardSimulator
) -> None:
    # The pty path stands for /dev/ttyACM0: a name that is not stable across boots.
    setup = healthy(tmp_path, board.pty_name)
    setup.board_port = board.pty_name
    check = doctor.check_serial_port(setup)
    assert check.status is Status.WARN and "may change number" in check.message
    link = setup.by_id_dir / "usb-cribbage-table_peg-board-if00"
    assert check.fix == f'set [board] port = "{link}"'


def test_busy_port_is_a_warning_not_a_failure(tmp_path: Path, board: BoardSimulator) -> None:
    held = serial.serial_for_url(board.pty_name, exclusive=True)
    try:
        report = doctor.run(healthy(tmp_path, board.pty_name))
    finally:
        held.close()
    check = report.by_name("board")
    assert check.status is Status.WARN and "is in use" in check.message
    assert "sudo systemctl stop cribbage-table" in check.fix
    assert report.ok


def test_silent_board_fails(tmp_path: Path, board: BoardSimulator) -> None:
    board.stop_answering()
    setup = healthy(
        tmp_path, board.pty_name,
        board_probe=lambda port: doctor.probe_board(port, timeout=0.5),
    )
    check = doctor.run(setup).by_name("board")
    assert check.status is Status.FAIL
    assert "did not answer the hello" in check.message


def test_unwritable_state_dir_fails(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name)
    setup.state_dir.chmod(0o555)
    try:
        check = doctor.run(setup).by_name("state")
    finally:
        setup.state_dir.chmod(0o755)
    assert check.status is Status.FAIL
    assert "games cannot be saved" in check.line()
    assert f"fix: sudo chown -R cribbage:cribbage {setup.state_dir}" in check.line()


def test_state_dir_that_is_a_file_fails(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name)
    setup.state_dir = tmp_path / "a-file"
    setup.state_dir.write_text("")
    check = doctor.check_state_dir(setup)
    assert check.status is Status.FAIL and "is not a directory" in check.message


def test_state_dir_owned_by_someone_else_fails_for_root(tmp_path: Path) -> None:
    setup = healthy(tmp_path, "/dev/null", euid=0, user_uid=lambda user: 4242)
    check = doctor.check_state_dir(setup)
    assert check.status is Status.FAIL and "not the service user (uid 4242)" in check.message


def test_unit_for_another_version_fails(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name, version=lambda: "0.2.0")
    check = doctor.run(setup).by_name("unit")
    assert check.status is Status.FAIL
    assert "installed for 0.1.0 but the application is 0.2.0" in check.message
    assert "install.sh" in check.fix


def test_missing_unit_is_a_warning(tmp_path: Path, board: BoardSimulator) -> None:
    setup = healthy(tmp_path, board.pty_name)
    setup.unit_path = tmp_path / "none.service"
    assert doctor.run(setup).by_name("unit").status is Status.WARN


@pytest.mark.parametrize(
    ("word", "status", "text"),
    [
        ("0x50005", Status.FAIL, "under-voltage, throttled now"),
        ("0x50000", Status.WARN, "under-voltage, throttled since boot"),
        ("0x0", Status.OK, "no under-voltage or throttling since boot"),
    ],
)
def test_throttling_flags(tmp_path: Path, word: str, status: Status, text: str) -> None:
    fake_pi(tmp_path / "sysroot", throttled=word)
    check = doctor.check_power(healthy(tmp_path, "/dev/null"))
    assert check.status is status and text in check.message


def test_throttling_from_vcgencmd_when_sysfs_lacks_it(tmp_path: Path) -> None:
    fake_pi(tmp_path / "sysroot")
    (tmp_path / "sysroot/sys/devices/platform/soc/soc:firmware/get_throttled").unlink()
    setup = healthy(tmp_path, "/dev/null", vcgencmd=lambda: "throttled=0x1\n")
    assert doctor.check_power(setup).status is Status.FAIL


def test_off_a_pi_the_pi_checks_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "sysroot").mkdir()
    setup = healthy(
        tmp_path, "/dev/null",
        pin_factory=lambda: ("none", ["Falling back from lgpio: No module named 'lgpio'"]),
        group_exists=lambda name: name != "gpio",
        groups_of=lambda user: {"cribbage", "dialout"},
    )
    report = doctor.run(setup)
    assert report.by_name("power").line() == "SKIP  power: not a Pi, skipped"
    assert report.by_name("platform").message.startswith("not a Raspberry Pi")
    # auto devices are simulated off a Pi, so neither GPIO nor the port is needed.
    assert report.by_name("gpio").status is Status.SKIP
    assert report.by_name("serial").status is Status.SKIP
    assert report.by_name("groups").status is Status.SKIP
    assert report.ok


def test_real_gpio_off_a_pi_reports_mock_none(tmp_path: Path) -> None:
    (tmp_path / "sysroot").mkdir()
    setup = healthy(tmp_path, "/dev/null", gpio_mode="real", pin_factory=lambda: ("none", []))
    check = doctor.check_pin_factory(setup)
    assert check.status is Status.SKIP and check.message.startswith("mock/none")


def test_pi_without_a_pin_factory_fails(tmp_path: Path) -> None:
    setup = healthy(tmp_path, "/dev/null", pin_factory=lambda: ("none", ["no lgpio"]))
    check = doctor.check_pin_factory(setup)
    assert check.status is Status.FAIL and "python3-lgpio" in check.fix


def test_pi5_needs_lgpio(tmp_path: Path) -> None:
    fake_pi(tmp_path / "sysroot", model="Raspberry Pi 5 Model B Rev 1.0")
    setup = healthy(tmp_path, "/dev/null", pin_factory=lambda: ("RPiGPIOFactory", []))
    check = doctor.check_pin_factory(setup)
    assert check.status is Status.FAIL and "Pi 5" in check.message


def test_the_real_gpiozero_lookup_reports_mock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    name, _ = doctor.gpiozero_pin_factory()
    assert name == "MockFactory"
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY")
    name, reasons = doctor.gpiozero_pin_factory()
    if name == "none":  # this machine has no GPIO: say why each factory was passed over
        assert any("lgpio" in r for r in reasons)


def test_low_disk_fails(tmp_path: Path) -> None:
    setup = healthy(
        tmp_path, "/dev/null",
        disk_usage=lambda path: SimpleNamespace(total=GB, used=GB, free=50 * 1024**2),
    )
    check = doctor.check_disk(setup)
    assert check.status is Status.FAIL and "only 52 MB free" in check.message


def test_invalid_config_names_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("port = 99999\n")
    setup = Setup.from_config(bad)
    check = doctor.check_config(setup)
    assert check.status is Status.FAIL and "port" in check.message


def test_config_values_reach_the_checks(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        f'state_dir = "{tmp_path}/st"\nport = 80\n[board]\nmode = "real"\n'
        'port = "/dev/cribbage-board"\n[shuffler]\nmode = "absent"\n[inputs]\nmode = "simulated"\n'
    )
    setup = Setup.from_config(cfg)
    assert setup.config_error is None
    assert setup.state_dir == tmp_path / "st" and setup.http_port == 80
    assert (setup.board_mode, setup.board_port) == ("real", "/dev/cribbage-board")
    assert setup.gpio_mode == "simulated"


def test_cli_json_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text('[board]\nport = "COM3"\n')
    status = main(["doctor", "--json", "--config", str(bad), "--unit", str(tmp_path / "u")])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["ok"] is False
    config = next(c for c in out["checks"] if c["name"] == "config")
    assert config["status"] == "fail" and "board.port" in config["message"]
    assert [c["name"] for c in out["checks"]] == [
        "platform", "config", "groups", "gpio", "serial", "board", "spi", "motor", "state",
        "unit", "power", "disk",
    ]


def test_cli_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'state_dir = "{tmp_path}"\n')
    main(["doctor", "--config", str(cfg), "--user", "nobody-here-xyz"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"OK    config: {cfg} is valid"
    if doctor.pi_model(Setup()) is None:  # this machine: a laptop or CI, not a Pi
        assert lines[2].startswith("SKIP  groups: not a Raspberry Pi: the service user "
                                   "'nobody-here-xyz' is needed only by the installed service")
    else:
        assert lines[2].startswith("FAIL  groups: the service user 'nobody-here-xyz' does not")
    assert lines[-1].startswith("doctor: ")


# --- a Pico with MicroPython but not our firmware -------------------------------------------

BANNER = (b"MicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\n"
          b'Type "help()" for more information.\r\n>>> ')


@pytest.fixture
def bare_micropython() -> Iterator[str]:
    """A pty that answers like a Pico running only MicroPython: the banner on Ctrl-B."""
    import select
    import threading
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def repl() -> None:
        while not stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 1024)
                except OSError:
                    return
                if b"\x02" in data:
                    os.write(master, BANNER)
                elif b"\r" in data:
                    os.write(master, b"\r\n>>> ")

    thread = threading.Thread(target=repl, daemon=True)
    thread.start()
    yield os.ttyname(slave)
    stop.set()
    thread.join(timeout=5)
    os.close(master)
    os.close(slave)


def test_micropython_without_our_firmware_says_to_flash(
    tmp_path: Path, bare_micropython: str
) -> None:
    setup = healthy(tmp_path, bare_micropython,
                    board_probe=lambda port: doctor.probe_board(port, timeout=0.5))
    check = doctor.run(setup).by_name("board")
    assert check.status is Status.FAIL
    assert check.message == ("the board runs MicroPython (MicroPython v1.24.1 on 2024-11-29) "
                             "but not the cribbage board's firmware")
    assert check.fix == f"crib board flash --port {setup.board_port}"


def test_a_silent_port_is_not_called_micropython(tmp_path: Path, board: BoardSimulator) -> None:
    board.stop_answering()
    assert doctor.sniff_repl(board.pty_name, timeout=0.3) is None


def test_micropython_ports_are_found_by_usb_id(tmp_path: Path) -> None:
    by_id, sys_root = tmp_path / "by-id", tmp_path / "root"
    by_id.mkdir()
    for tty, ids in (("ttyACM0", ("2e8a", "0005")), ("ttyACM1", ("0403", "6001"))):
        usb = sys_root / "sys/bus/usb/devices" / tty
        (usb / "iface").mkdir(parents=True)
        (usb / "idVendor").write_text(ids[0] + "\n")
        (usb / "idProduct").write_text(ids[1] + "\n")
        (sys_root / "sys/class/tty" / tty).mkdir(parents=True)
        (sys_root / "sys/class/tty" / tty / "device").symlink_to(usb / "iface")
        (tmp_path / tty).write_text("")
    (by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00").symlink_to(
        tmp_path / "ttyACM0")
    (by_id / "usb-FTDI_FT232R_A50285BI-if00-port0").symlink_to(tmp_path / "ttyACM1")
    assert doctor.micropython_ports(by_id, sys_root) == [
        str(by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00")]


# --- the direct-SPI board ---------------------------------------------------------------------


def spi_pi(tmp_path: Path, boot: str = "dtparam=spi=on\ncore_freq=500\ncore_freq_min=500\n",
           **overrides: Any) -> Setup:
    setup = healthy(tmp_path, "/dev/null", board_mode="spi",
                    groups_of=lambda user: {"cribbage", "gpio", "dialout", "spi"}, **overrides)
    (setup.sys_root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (setup.sys_root / "boot/firmware/config.txt").write_text(boot)
    (setup.sys_root / "dev").mkdir(exist_ok=True)
    (setup.sys_root / "dev/spidev0.0").write_text("")
    return setup


def test_spi_board_ready(tmp_path: Path) -> None:
    report = doctor.run(spi_pi(tmp_path))
    check = report.by_name("spi")
    assert check.status is Status.OK, check.line()
    assert check.message == "/dev/spidev0.0 is ready (3048 bytes a frame, buffer 4096)"
    assert report.by_name("serial").status is Status.SKIP  # no serial port in this build
    assert report.ok


def test_spi_turned_off_in_the_boot_config_fails_with_raspi_config(tmp_path: Path) -> None:
    check = doctor.check_spi(spi_pi(tmp_path, boot="#dtparam=spi=on\ndtparam=audio=on\n"))
    assert check.status is Status.FAIL
    assert check.message == "SPI is off: no dtparam=spi=on in /boot/firmware/config.txt"
    assert check.fix.startswith("sudo raspi-config nonint do_spi 0")


def test_spi_on_in_the_older_boot_config_and_among_other_params(tmp_path: Path) -> None:
    setup = spi_pi(tmp_path)
    (setup.sys_root / "boot/firmware/config.txt").unlink()
    (setup.sys_root / "boot/config.txt").write_text("dtparam=i2c_arm=on,spi=on\ncore_freq=250\n")
    assert doctor.check_spi(setup).status is Status.OK


def test_spi_device_missing_fails(tmp_path: Path) -> None:
    setup = spi_pi(tmp_path)
    (setup.sys_root / "dev/spidev0.0").unlink()
    check = doctor.check_spi(setup)
    assert check.status is Status.FAIL and check.message == "/dev/spidev0.0 does not exist"


def test_service_user_outside_the_spi_group_fails(tmp_path: Path) -> None:
    setup = spi_pi(tmp_path)
    setup.groups_of = lambda user: {"cribbage", "gpio", "dialout"}
    check = doctor.check_spi(setup)
    assert check.status is Status.FAIL and "not in the spi group" in check.message
    assert check.fix == "sudo usermod -aG spi cribbage && sudo systemctl restart cribbage-table"


def test_a_frame_larger_than_the_spidev_buffer_fails(tmp_path: Path) -> None:
    setup = spi_pi(tmp_path, spi_frame_bytes=4512)
    assert doctor.check_spi(setup).fix.startswith("add spidev.bufsiz=65536")
    params = setup.sys_root / "sys/module/spidev/parameters"
    params.mkdir(parents=True)
    (params / "bufsiz").write_text("65536\n")
    assert doctor.check_spi(setup).status is Status.OK


def test_unpinned_core_clock_on_a_pi_4_warns(tmp_path: Path) -> None:
    check = doctor.check_spi(spi_pi(tmp_path, boot="dtparam=spi=on\n"))
    assert check.status is Status.WARN
    assert check.fix == "add core_freq=500 and core_freq_min=500 to /boot/firmware/config.txt " \
        "and reboot"


def test_spi_config_reaches_the_check(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "spi"\nspi_device = "/dev/spidev1.0"\ntracks = 3\n'
                   'colour_order = "GRBW"\n')
    setup = Setup.from_config(cfg)
    assert setup.config_error is None and setup.board_mode == "spi"
    assert (setup.spi_device, setup.spi_frame_bytes) == ("/dev/spidev1.0", 366 * 16 + 120)


# --- off a Pi: only what a laptop needs -------------------------------------------------------


def test_doctor_on_a_laptop_exits_0_as_a_user_runs_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    if doctor.pi_model(Setup()) is not None:
        pytest.skip("this machine is a Raspberry Pi")
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'state_dir = "{tmp_path}"\n')
    crib = Path(sys.executable).with_name("crib")
    done = subprocess.run([str(crib), "doctor", "--config", str(cfg), "--unit",
                           str(tmp_path / "none.service")],
                          capture_output=True, text=True, timeout=120, check=False)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[0].startswith("OK    platform: not a Raspberry Pi")
    assert any(line.startswith("SKIP  groups: not a Raspberry Pi") for line in lines)
    assert any(line.startswith("SKIP  unit: not a Raspberry Pi") for line in lines)
    assert not any(line.startswith("FAIL") for line in lines)


def test_doctor_on_a_laptop_still_fails_a_bad_config(tmp_path: Path) -> None:
    import subprocess
    import sys

    cfg = tmp_path / "config.toml"
    cfg.write_text('[board]\nmode = "pwm"\n')
    crib = Path(sys.executable).with_name("crib")
    done = subprocess.run([str(crib), "doctor", "--config", str(cfg)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and "FAIL  config:" in done.stdout and "board.mode" in done.stdout


def test_a_pi_without_the_spi_group_fails_as_the_unit_would(tmp_path: Path) -> None:
    # SupplementaryGroups=gpio dialout spi: a missing group stops the service from starting.
    setup = healthy(tmp_path, "/dev/null", group_exists=lambda name: name != "spi")
    check = doctor.check_user_groups(setup)
    assert check.status is Status.FAIL and check.message == "no spi group on this system"
    assert check.fix == "sudo groupadd --system spi (install.sh does it; the unit needs spi)"


# --- the feed motor when the daemon dies ------------------------------------------------------


def _persist(setup: Setup, value: str | None, driver: str = "pinctrl_bcm2835") -> None:
    for d in ("pinctrl_bcm2835", "pinctrl_rp1"):
        f = setup.sys_root / f"sys/module/{d}/parameters/persist_gpio_outputs"
        if f.exists():
            f.unlink()
    if value is not None:
        f = setup.sys_root / f"sys/module/{driver}/parameters/persist_gpio_outputs"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(value + "\n")


def test_a_pi_that_keeps_released_outputs_driving_warns_with_strict_gpiod(tmp_path: Path) -> None:
    # Raspberry Pi OS keeps a released output as it was: a daemon killed with the motor on
    # (SIGKILL, the watchdog's abort) would leave the feed motor running.
    setup = healthy(tmp_path, "/dev/null")
    assert doctor.check_motor_release(setup).status is Status.OK
    _persist(setup, "Y", "pinctrl_rp1")  # a Pi 5's RP1 has the same parameter
    check = doctor.check_motor_release(setup)
    assert check.status is Status.WARN, check.line()
    assert "the motor keeps running" in check.message
    assert check.fix == "add dtparam=strict_gpiod to /boot/firmware/config.txt and reboot"


@pytest.mark.parametrize(("boot", "status"), [
    ("dtparam=audio=on\ndtparam=strict_gpiod\n", Status.OK),
    ("dtparam=i2c_arm=on,strict_gpiod=on\n", Status.OK),
    ("#dtparam=strict_gpiod\n", Status.WARN),
    ("dtparam=strict_gpiodx\n", Status.WARN),
])
def test_without_the_kernel_parameter_the_boot_config_decides(tmp_path: Path, boot: str,
                                                               status: Status) -> None:
    setup = healthy(tmp_path, "/dev/null")
    _persist(setup, None)
    (setup.sys_root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (setup.sys_root / "boot/firmware/config.txt").write_text(boot)
    check = doctor.check_motor_release(setup)
    assert check.status is status, check.line()
    if status is Status.WARN:
        assert check.message.startswith("this Pi may keep a released GPIO output driving")


def test_motor_check_is_skipped_without_a_gpio_shuffler(tmp_path: Path) -> None:
    setup = healthy(tmp_path, "/dev/null", shuffler_mode="simulated")
    _persist(setup, "Y")
    assert doctor.check_motor_release(setup).status is Status.SKIP
    cfg = tmp_path / "config.toml"
    cfg.write_text('[shuffler]\nmode = "absent"\n')
    assert Setup.from_config(cfg).shuffler_mode == "absent"


# --- which GPIO library, and hints that fit the machine ---------------------------------------


@pytest.mark.parametrize(("asked", "package"), [("lgpio", "python3-lgpio"),
                                                ("rpigpio", "python3-rpi.gpio"),
                                                ("pigpio", "python3-pigpio pigpiod")])
def test_a_named_factory_that_does_not_load_says_what_to_install(
        tmp_path: Path, asked: str, package: str) -> None:
    setup = healthy(tmp_path, "/dev/null", environ={"GPIOZERO_PIN_FACTORY": asked},
                    pin_factory=lambda: ("none", [f"Unable to load {asked}: No module named x"]))
    check = doctor.check_pin_factory(setup)
    assert check.status is Status.FAIL
    assert f"GPIOZERO_PIN_FACTORY={asked} does not load" in check.message
    assert check.fix.startswith(f"sudo apt install {package} ({asked}: ")


def test_the_factory_in_use_is_named_with_why(tmp_path: Path) -> None:
    setup = healthy(tmp_path, "/dev/null", pin_factory=lambda: ("RPiGPIOFactory", []),
                    environ={"GPIOZERO_PIN_FACTORY": "rpigpio"})
    check = doctor.check_pin_factory(setup)
    assert (check.status, check.message) == (
        Status.OK, "gpiozero will use RPiGPIOFactory (rpigpio, asked for by GPIOZERO_PIN_FACTORY)")
    setup = healthy(tmp_path, "/dev/null")
    assert doctor.check_pin_factory(setup).message == (
        "gpiozero will use LGPIOFactory (lgpio, gpiozero's first choice that loads)")


def test_a_misspelt_factory_is_refused_by_name(tmp_path: Path) -> None:
    setup = healthy(tmp_path, "/dev/null", environ={"GPIOZERO_PIN_FACTORY": "rpi-gpio"})
    check = doctor.check_pin_factory(setup)
    assert check.status is Status.FAIL and "rpi-gpio" in check.message
    assert "lgpio" in check.fix and "rpigpio" in check.fix


def test_on_a_laptop_the_hints_are_the_laptops(tmp_path: Path) -> None:
    (tmp_path / "sysroot").mkdir()  # no device tree: not a Pi
    setup = healthy(tmp_path, "/dev/null", config_path=None, state_dir=tmp_path / "none")
    config, state = doctor.check_config(setup), doctor.check_state_dir(setup)
    assert config.status is Status.OK and "/etc/cribbage-table" not in (config.fix or "")
    assert state.status is Status.OK and "systemctl" not in (state.fix or "")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a directory")
    state = doctor.check_state_dir(healthy(tmp_path, "/dev/null", state_dir=blocked))
    assert state.status is Status.FAIL and "cribbage:cribbage" not in state.fix
    assert '"$USER"' in state.fix
