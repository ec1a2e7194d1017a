"""The README and docs say what the product does: its commands exist, `make run` installs only
the product, the Pi gets the code without a placeholder, and docs/shuffling.md's figures are
the code's."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import build_parser, parsers
from hardware.shuffler import math as smath
from hardware.shuffler.audit import expected_adjacent

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
INSTALL_PI = (ROOT / "docs" / "install-pi.md").read_text()
CLI = (ROOT / "docs" / "cli.md").read_text()
SHUFFLING = (ROOT / "docs" / "shuffling.md").read_text()


def _command_lines(text: str) -> list[str]:
    block = text.split("## The command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    return [line for line in lines if line]  # a line of its own that is a comment heads a group


@pytest.mark.parametrize("text", [README, CLI], ids=["README.md", "docs/cli.md"])
def test_every_command_the_readme_lists_exists(text: str) -> None:
    progs = {p.prog for p in parsers(build_parser())}
    for line in _command_lines(text):
        words = [w for w in line.split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        # the longest run of plain words that names a parser: `crib board test`, `crib token`
        names = [" ".join(words[:i]) for i in range(len(words), 0, -1)]
        assert any(name in progs for name in names if name != "crib") or line.startswith(
            "crib --version"), line


def test_every_command_the_parser_has_is_in_docs_cli() -> None:
    leaves = {p.prog for p in parsers(build_parser()) if not any(
        isinstance(a, argparse._SubParsersAction) for a in p._actions)}
    assert {"crib score", "crib board walk", "crib club status"} <= leaves  # the whole parser
    listed = _command_lines(CLI)
    missing = sorted(prog for prog in leaves
                     if not any(line == prog or line.startswith(prog + " ") for line in listed))
    assert missing == [], f"docs/cli.md lists none of {missing}"


def test_the_readme_says_where_crib_is() -> None:
    assert ".venv/bin/crib" in README and "source .venv/bin/activate" in README
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "crib"), "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("crib ")


def test_no_placeholders_for_getting_the_code() -> None:
    assert "<this repository>" not in README
    assert not re.search(r"git clone <[^>]*>", README)
    pi = INSTALL_PI.split("## On the Raspberry Pi", 1)[1]
    assert "scp" in pi and "tar xzf" in pi
    assert "docs/install-pi.md" in README


def test_no_pointer_to_a_missing_shuffle_math_file() -> None:
    skip = {".git", ".venv", "build", "artifacts", "__pycache__", ".pytest_cache", ".ruff_cache"}
    hits = [
        str(path.relative_to(ROOT)) for path in ROOT.rglob("*")
        if path.suffix in {".py", ".md", ".toml", ".sh", ".js", ".html"} and path.is_file()
        and not skip & set(path.relative_to(ROOT).parts) and path.name != "test_readme.py"
        and "shuffle-math" in path.read_text(errors="replace")
    ]
    assert hits == []
    assert "docs/shuffling.md" in README


def _make(target: str, tmp_path: Path) -> str:
    return subprocess.run(["make", "-n", target, f"VENV={tmp_path / 'v'}"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60, check=True).stdout


def test_make_run_installs_only_the_product(tmp_path: Path) -> None:
    run = _make("run", tmp_path)
    installs = [line for line in run.splitlines() if "pip install" in line]
    assert installs and all("[dev]" not in line for line in installs), run
    assert "crib serve --simulate" in run
    test = _make("test", tmp_path)
    assert any("pip install" in line and "'.[dev]'" in line for line in test.splitlines()), test


def test_the_adjacency_figures_in_the_docs_are_the_codes() -> None:
    shown = re.search(r"It gives 51 with no pass, ([\d.,\s]+) after 1 to 5 passes", SHUFFLING)
    assert shown is not None
    figures = [float(x) for x in shown.group(1).replace(",", " ").split()]
    assert figures == [round(float(expected_adjacent(52, k)), 2) for k in range(1, 6)]
    assert expected_adjacent(52, 0) == 51


@pytest.mark.parametrize(("n", "row"), [(52, "TV, 52 cards"), (104, "TV, 104 cards")])
def test_the_tv_table_in_the_docs_is_the_codes(n: int, row: str) -> None:
    cells = next(line.strip() for line in SHUFFLING.splitlines()
                 if line.strip().startswith(f"| {row}"))
    values = [float(c) for c in cells.strip("|").split("|")[1:]]
    assert values[1:] == [round(smath.tv(n, k), 3) for k in range(5, 14)]
    assert values[0] == round(smath.tv(n, 4), 3)


# pytest run as `make test` runs it, with the suite's Chromium pointed at a path that is missing.
_WITHOUT_CHROMIUM = """
import sys
from pathlib import Path

import pytest

import tests.conftest

tests.conftest.CHROMIUM = Path(sys.argv[1])
sys.exit(pytest.main(["-p", "no:cacheprovider", *sys.argv[2:]]))
"""


@pytest.mark.parametrize(("skip", "status"), [("", 4), ("1", 0)])
def test_without_chromium_make_test_stops_with_the_install_command(
    tmp_path: Path, skip: str, status: int
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRIB_")}
    env |= {"CRIB_SKIP_BROWSER": skip, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_CHROMIUM, str(tmp_path / "no-chromium"),
         "tests/firmware_host/test_page.py",
         "tests/test_browser_policy.py::test_skipping_needs_the_explicit_opt_out"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    out = done.stdout + done.stderr
    assert done.returncode == status, out
    if skip:  # the explicit opt-out: the page tests are reported skipped, the rest run
        assert "CRIB_SKIP_BROWSER=1: the page is not tested" in out and " passed" in out
    else:  # not green, no test run, and the one line that fixes it
        assert " passed" not in out and "skipped" not in out
        line = next(x for x in out.splitlines() if "Chromium" in x)
        assert line == (f"ERROR: the browser tests need Debian's Chromium at "
                        f"{tmp_path / 'no-chromium'}: run `sudo apt-get install chromium` "
                        "(or set CRIB_SKIP_BROWSER=1 to leave them out)")


def test_the_pi_installer_brings_mpremote_for_crib_board_flash() -> None:
    # `crib board flash` runs the mpremote beside crib's own Python: the installer installs the
    # `board` extra, which pins it, and the README says so instead of asking for a manual step.
    import tomllib

    install = (ROOT / "systemd" / "install.sh").read_text()
    assert '"$SRC[board]"' in install
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert [d for d in extras["board"] if d.startswith("mpremote==")]
    assert "the Pi's installer puts in its venv" in INSTALL_PI
    assert "pip install mpremote" not in README + INSTALL_PI


def test_the_pi_commands_run_as_who_may_read_the_installed_configuration() -> None:
    # install.sh makes its configuration root's and the service group's (0640 in a 0750
    # folder): doctor runs with sudo, token as the service's user, and both read that file.
    from firmware_host import doctor
    from firmware_host.cli import daemon

    install = (ROOT / "systemd" / "install.sh").read_text()
    user = re.search(r"^USER_NAME=(\S+)$", install, re.MULTILINE)
    assert user is not None and user.group(1) == daemon.SERVICE_USER == doctor.SERVICE_USER
    assert "CONFIG_DIR=/etc/cribbage-table" in install
    assert 'CONFIG="$CONFIG_DIR/config.toml"' in install
    installed = Path("/etc/cribbage-table/config.toml")
    assert daemon.INSTALLED_CONFIG == doctor.DEFAULT_CONFIG == installed
    assert '"$CONFIG" 0640' in install
    pi = INSTALL_PI.split("## On the Raspberry Pi", 1)[1]
    assert "sudo crib doctor" in pi
    assert f"sudo -u {daemon.SERVICE_USER} crib token create laptop" in CLI


def test_the_readme_opens_like_the_projects_people_like() -> None:
    # What it is, the two commands, pictures, the cost, then links: the long parts live in docs.
    lines = README.splitlines()
    assert lines[0] == "# cribbage-table"
    first_block = README.index("```sh")
    assert README[first_block:].split("\n")[1].startswith("make run")
    assert README[first_block:].split("\n")[2].startswith("make test")
    assert "@" + "PICTURES@" not in README and "@" + "COSTS@" not in README
    assert re.search(r"!\[[^]]+\]\(docs/[^)]+\.(svg|png)\)", README)
    assert "## What it costs to build" in README and "$" in README.split(
        "## What it costs to build", 1)[1].split("##", 1)[0]
    # the costs are the bill of materials' totals, rounded
    bom = (ROOT / "docs" / "hardware.md").read_text()
    for build, row in (("Pico", "Pico driving the LED strip"), ("direct SPI", "over SPI")):
        money = r"\$([0-9]+(?:\.[0-9]+)?)"
        total = float(re.search(rf"Total, Pi \+ {build} build: about {money}", bom)[1])
        assert re.search(rf"{row} \| \${round(total)} \|", README), (build, total)
    assert len(lines) <= 120, len(lines)
    for link in re.findall(r"\]\(((?:docs/|LICENSE)[^)#]*)\)", README):
        assert (ROOT / link).exists(), link
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    import tomllib
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"


def test_one_copy_of_the_pi_install() -> None:
    # The Pi's install lives in docs/install-pi.md; README and systemd/README.md link to it.
    systemd_readme = (ROOT / "systemd" / "README.md").read_text()
    assert "docs/install-pi.md" in systemd_readme and "docs/install-pi.md" in README
    assert "3. **Install**" not in README + systemd_readme


def _apt_lines(text: str) -> list[list[str]]:
    return [line.split("apt-get install", 1)[1].split() for line in text.splitlines()
            if "apt-get install" in line]


def test_the_readme_names_each_system_package_once_and_ci_installs_the_same() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    listed = re.search(r"^TEST_PACKAGES=\(([^)]*)\)", ci, re.MULTILINE)
    assert listed is not None
    ci_packages = listed.group(1).split()
    readme = _apt_lines(README)
    assert len(readme) == 1, readme  # one place names them
    assert readme[0] == ci_packages and len(set(ci_packages)) == len(ci_packages)
    # what the tests start from the system comes from those packages
    for needed in ("chromium", "systemd", "nodejs", "npm", "mosquitto", "mosquitto-clients",
                   "python3-venv", "make"):
        assert needed in ci_packages, needed
    # and .ci/run installs them, each only when its part is missing
    assert '"${TEST_PACKAGES[@]}"' in ci and "present" in ci
