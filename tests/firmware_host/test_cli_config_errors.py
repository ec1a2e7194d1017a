"""A wrong setting is blamed on where it really came from: the option, the environment
variable or the file, never a configuration file that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest


def _one_line(done) -> str:  # type: ignore[no-untyped-def]
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    return lines[0]


def test_a_bad_option_names_the_option(crib) -> None:  # type: ignore[no-untyped-def]
    line = _one_line(crib("serve", "--simulate", "--port", "99999"))
    assert line.startswith("crib serve: option --port: port: ") and "99999" in line
    assert "config" not in line


@pytest.mark.parametrize(("name", "key"), [("CRIB_BOARD__MODE", "board.mode"),
                                           ("CRIB_PORT", "port"), ("crib_port", "port")])
def test_a_bad_environment_variable_names_the_variable(crib, name: str, key: str) -> None:  # type: ignore[no-untyped-def]
    line = _one_line(crib("serve", "--simulate", env={name: "magic"}))
    assert line.startswith(f"crib serve: environment {name}: {key}: ") and "'magic'" in line
    assert "config" not in line


def test_a_bad_file_names_the_file_and_the_variable_beats_it(crib, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "table.toml"
    config.write_text('port = 0\n[board]\nmode = "loud"\n')
    line = _one_line(crib("token", "list", "--config", str(config)))
    assert line.startswith(f"crib token list: config {config}: port: Input should be greater "
                           "than or equal to 1 (got 0); board.mode: Input should be 'auto', ")
    assert line.endswith(" (got 'loud')") and line.count("config") == 1
    # The environment overrides the file, so a bad value there is the variable's fault.
    config.write_text("port = 8080\n")
    line = _one_line(crib("token", "list", "--config", str(config), env={"CRIB_PORT": "-1"}))
    assert line.startswith("crib token list: environment CRIB_PORT: port: ")
    assert str(config) not in line


def test_a_missing_file_says_who_asked_for_it(crib, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "nope.toml"
    line = _one_line(crib("token", "list", env={"CRIB_CONFIG": str(missing)}))
    assert line == f"crib token list: config {missing} (from CRIB_CONFIG): no such file"
    line = _one_line(crib("serve", "--config", str(missing)))
    assert line == f"crib serve: config {missing}: no such file"
