"""One Pi detection and one "auto" decision, used by the daemon and by `crib doctor`; the
doctor's pin-factory look-up through gpiozero's public API only."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware_host import config, doctor
from firmware_host.config import DeviceMode, load_settings, pi_model, resolve_auto


def fake_pi(root: Path, model: str, where: str = "proc/device-tree/model") -> Path:
    (root / where).parent.mkdir(parents=True)
    (root / where).write_bytes(model.encode() + b"\x00")
    return root


def test_the_model_is_read_from_either_device_tree_path(tmp_path: Path) -> None:
    assert pi_model(tmp_path) is None
    a = fake_pi(tmp_path / "a", "Raspberry Pi Zero 2 W Rev 1.0")
    assert pi_model(a) == "Raspberry Pi Zero 2 W Rev 1.0"
    b = fake_pi(tmp_path / "b", "Raspberry Pi 4 Model B Rev 1.4",
                "sys/firmware/devicetree/base/model")
    assert pi_model(b) == "Raspberry Pi 4 Model B Rev 1.4"
    other = fake_pi(tmp_path / "c", "Pine64 RockPro64")
    assert pi_model(other) is None and not config.on_raspberry_pi(other)


def test_auto_is_real_on_a_pi_and_simulated_elsewhere() -> None:
    assert resolve_auto("auto", True) is DeviceMode.REAL
    assert resolve_auto("auto", False) is DeviceMode.SIMULATED
    assert resolve_auto("absent", True) == "absent"
    assert resolve_auto("spi", False) == "spi"
    with pytest.raises(ValueError):
        resolve_auto("sometimes", True)


@pytest.mark.parametrize("model", ["Raspberry Pi Zero 2 W Rev 1.0", None])
def test_the_daemon_and_doctor_decide_auto_alike(tmp_path: Path, model: str | None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    root.mkdir()
    if model is not None:
        fake_pi(root, model)
    monkeypatch.setattr(config, "on_raspberry_pi", lambda: config.pi_model(root) is not None)
    path = tmp_path / "config.toml"
    path.write_text(f'state_dir = "{tmp_path / "state"}"\n')
    settings = load_settings(path)
    setup = doctor.Setup(sys_root=root)
    assert doctor.pi_model(setup) == model
    for device in ("board", "shuffler", "inputs"):
        mode = str(getattr(settings, device).mode)
        assert mode == "auto"
        assert doctor._resolve(mode, setup) == str(settings.device_mode(device))
    assert str(settings.device_mode("board")) == ("real" if model else "simulated")


def test_the_pin_factory_look_up_leaves_gpiozero_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    before = Device.pin_factory
    assert doctor.gpiozero_pin_factory()[0] == "MockFactory"
    assert Device.pin_factory is before  # the global is not replaced
    mine = MockFactory()
    Device.pin_factory = mine
    try:
        monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
        name, reasons = doctor.gpiozero_pin_factory()  # a fresh choice, not the one in use
        assert name == "none" and any("no-such-factory" in r for r in reasons)
        assert Device.pin_factory is mine
    finally:
        Device.pin_factory = before
        mine.close()
