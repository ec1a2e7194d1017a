"""The configuration install.sh writes is one the daemon accepts, with the install's choices."""

from __future__ import annotations

import re

from firmware_host.config import load_settings
from tests.systemd.helpers import SYSTEMD


def test_example_config_loads_through_the_daemons_settings() -> None:
    # A key renamed in firmware_host/config.py fails here before it fails on a Pi.
    settings = load_settings(SYSTEMD / "config.example.toml")
    assert settings.port == 80  # the unit grants CAP_NET_BIND_SERVICE for exactly this
    assert str(settings.state_dir) == "/var/lib/cribbage-table"  # StateDirectory=cribbage-table
    assert settings.board.port == "/dev/cribbage-board"  # the udev rule's SYMLINK
    assert "cribbage.local" in settings.allowed_hosts


def test_udev_rule_names_the_configured_port() -> None:
    rules = (SYSTEMD / "99-cribbage-board.rules").read_text()
    links = set(re.findall(r'SYMLINK\+="([^"]+)"', rules))
    settings = load_settings(SYSTEMD / "config.example.toml")
    assert {f"/dev/{link}" for link in links} == {settings.board.port}
    # Serial ports go to dialout, the group the service user is in.
    assert all('GROUP="dialout"' in line for line in rules.splitlines() if "SYMLINK" in line)


def _load(tmp_path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings(path)


def test_example_sets_the_inputs_and_shuffler_settings_a_maker_needs() -> None:
    from hardware.shuffler import design, pace
    from hardware.shuffler.controller import Timing

    settings = load_settings(SYSTEMD / "config.example.toml")
    assert settings.inputs.touch == 6 and settings.inputs.touch_active_high is True
    assert settings.inputs.bounce_ms == 20
    assert settings.inputs.mapping()["touch_active_high"] is True
    # every budget is the derivation from the card speed, not a guess
    assert settings.shuffler.feed_speed_mm_s is None and settings.shuffler.sensor_filter_ms is None
    timing = settings.shuffler.timing()
    speed = pace.default_card_speed_mm_s()
    assert timing == Timing.for_speed(speed, design.DEFAULT_ROUTER.settle_s)
    # the example's router is the default build's SG90, and its comments say so
    from hardware.shuffler.gpio import router_settle_s

    assert design.DEFAULT_ROUTER is design.SERVO_ROUTER
    assert router_settle_s(settings.shuffler.pins) == design.SERVO_ROUTER.settle_s
    text = (SYSTEMD / "config.example.toml").read_text()
    assert re.search(r'^#\s+router_kind = "servo"', text, re.M)
    shown = re.search(r"^#\s+router_settle_ms = (\d+)", text, re.M)
    assert shown and int(shown[1]) == round(design.SERVO_ROUTER.settle_s * 1000)
    assert timing.sensor_filter == design.sensor_filter_s(speed)
    assert timing.pass_budget(52) > 1.5 * pace.pace().pass_s(52)  # room for the pace


def test_touch_has_one_place_and_its_polarity_is_a_setting(tmp_path) -> None:
    import pytest

    from firmware_host.errors import ConfigError

    with pytest.raises(ConfigError, match=r"shuffler.pins: the touch sensor is configured once, "
                                          r"as \[inputs\] touch"):
        _load(tmp_path, "[shuffler]\npins = { motor = 17, router = 18, left_sensor = 23, "
                        "right_sensor = 24, tray_sensor = 25, touch = 7 }\n")
    s = _load(tmp_path, "[inputs]\ntouch = 7\ntouch_active_high = false\n")
    assert s.inputs.mapping()["touch"] == 7 and s.inputs.mapping()["touch_active_high"] is False


def test_led_map_is_accepted_and_checked(tmp_path) -> None:
    import pytest

    from firmware_host.errors import ConfigError
    from hardware.board.layout import BoardLayout

    row0 = list(range(62))
    row1 = list(range(123, 61, -1))
    s = _load(tmp_path, f"[board]\nholes = 60\nled_map = [{row0}, {row1}]\n")
    assert s.board.led_map_tuple is not None
    layout = BoardLayout(tracks=2, holes=60, led_map=s.board.led_map_tuple)
    assert layout.led_count == 124
    with pytest.raises(ConfigError, match="board: led_map: .*2 rows of 62"):
        _load(tmp_path, f"[board]\nholes = 60\nled_map = [{row0}]\n")
    with pytest.raises(ConfigError, match="same LED to two holes"):
        _load(tmp_path, f"[board]\nholes = 60\nled_map = [{row0}, {row0}]\n")


def test_the_daemons_board_is_drawn_with_the_configured_led_map(tmp_path) -> None:
    # The bug: [board] led_map was checked, then dropped: the daemon's board (the SPI strip,
    # the simulator, a Pico's read-back) drew the default serpentine strip.
    from firmware_host.components import factories
    from hardware.board.layout import BoardLayout
    from hardware.clock import FakeClock
    from hardware.interfaces import BoardState, TrackPegs

    row0 = [0] + list(range(61, 0, -1))  # track 1's holes laid backwards
    row1 = list(range(62, 124))
    s = _load(tmp_path, f"[board]\nholes = 60\nmode = \"spi\"\nled_map = [{row0}, {row1}]\n")
    board, _close = factories._board_spi(s, FakeClock())
    assert board.layout.led_map == s.board.led_map_tuple
    frame = board.layout.render(BoardState(tracks=(TrackPegs(1, 0), TrackPegs(0, 0)),
                                           target=121, brightness=255))
    lit = {i // 3 for i, c in enumerate(frame) if c}
    assert 61 in lit and 1 not in lit  # hole 1 of track 1 is LED 61 on this board
    assert BoardLayout(tracks=2, holes=60).index(0, 1) == 1  # and not by default
    sim, close = factories._board_sim(s, FakeClock())
    try:
        assert sim.layout.led_map == s.board.led_map_tuple
    finally:
        close()


def test_bad_timings_are_refused_naming_the_key(tmp_path) -> None:
    import pytest

    from firmware_host.errors import ConfigError

    with pytest.raises(ConfigError, match="shuffler.router_settle_ms"):
        _load(tmp_path, "[shuffler]\nrouter_settle_ms = -5\n")
    with pytest.raises(ConfigError, match="inputs.bounce_ms"):
        _load(tmp_path, "[inputs]\nbounce_ms = 900\n")
