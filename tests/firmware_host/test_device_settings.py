"""The daemon builds the devices with the settings a maker sets: one undo hold time for the
button and pairing, the debounce, the shuffler's filter, settle and timeouts."""

from __future__ import annotations

import pytest

from firmware_host.components.factories import _inputs_real, _inputs_sim, _shuffler_real
from firmware_host.config import load_settings
from hardware.clock import FakeClock


def test_inputs_and_shuffler_get_their_settings(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("undo_hold_s = 5.0\n[inputs]\nbounce_ms = 30\n[shuffler]\n"
                   "sensor_filter_ms = 8\nrouter_settle_ms = 200\ncard_timeout_s = 2.0\n"
                   "[shuffle]\nplan = \"exact\"\n")
    settings = load_settings(cfg)
    panel, _ = _inputs_real(settings, FakeClock())
    assert panel.hold_s == 5.0 and panel.bounce_s == 0.03  # type: ignore[attr-defined]
    sim, _ = _inputs_sim(settings, FakeClock())
    assert sim.hold_s == 5.0  # type: ignore[attr-defined]
    shuffler, _ = _shuffler_real(settings, FakeClock())
    timing = shuffler._timing  # type: ignore[attr-defined]
    assert (timing.router_move, timing.card_timeout) == (0.2, 2.0)
    # the card's flight from the nip to the flap hides part of the router's settle
    from hardware.shuffler import design, pace

    hidden = design.NIP_TO_FLAP_MM / pace.default_card_speed_mm_s()
    assert timing.router_settle == pytest.approx(0.2 - hidden, abs=1e-4)
    assert shuffler.mechanism.sensor_filter_s == 0.008  # type: ignore[attr-defined]
    assert shuffler._touch_plan == "exact"  # type: ignore[attr-defined]
