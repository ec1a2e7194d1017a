"""`crib shuffler shuffle` through a subprocess: one command shuffles the deck and prints the
progress (passes, phase, time left) and the prompts, on the simulated machine of each build
and against a running daemon."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.firmware_host.conftest import CRIB, Daemon


def crib(*args: str, stdin: str = "", env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CRIB, "shuffler", "shuffle", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(f'state_dir = "{tmp_path}"\n[shuffler]\nspeed = 100.0\n{text}')
    return str(path)


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def check_whole_hands_free_shuffle(got: list[dict[str, Any]]) -> None:
    """The plan at distance 0, every pass reported with its phase and the time left falling,
    and the deck ready at the end."""
    plan = got[0]
    assert plan["kind"] == "plan" and plan["hands_free"] is True
    assert plan["passes_total"] == 6 and plan["tv_distance"] == 0.0
    progress = [g for g in got if g["kind"] == "progress" and g["state"] == "busy"]
    # each pass is seen under way (a restack of about 1.3 s may fall between two reads)
    assert sorted({g["passes_done"] for g in progress if g["phase"] == "pass"}) == [
        0, 1, 2, 3, 4, 5]
    assert {g["phase"] for g in progress} <= {"pass", "restack"}
    left = [g["seconds_left"] for g in progress]
    assert 40 < left[0] < 65 and left[-1] < 15, left  # the build's pace: about 50 s
    assert all(b <= a + 2 for a, b in zip(left, left[1:], strict=False)), left
    end = [g for g in got if g["kind"] == "progress" and g["state"] == "idle"]
    assert [(g["passes_done"], g["passes_total"]) for g in end] == [(6, 6)]
    assert got[-1]["kind"] == "done" and got[-1]["ok"] is True
    assert got[-1]["tv_distance"] == 0.0


def test_one_command_shuffles_a_hands_free_deck_to_the_end(tmp_path: Path) -> None:
    r = crib("--simulate", "--json", "--config", config(tmp_path, ""))
    assert r.returncode == 0, r.stderr
    got = lines(r.stdout)
    check_whole_hands_free_shuffle(got)
    assert not [g for g in got if g["kind"] in ("prompt", "fault", "ask")]
    words = crib("--simulate", "--config", config(tmp_path, "")).stdout.splitlines()
    assert words[0] == ("plan: 6 passes of 52 cards, restacked by the machine, distance to a "
                        "random deck 0.000 (0 is perfect)")
    assert words[1].startswith("passes 0 of 6 done · passing · cards ") and " s left" in words[1]
    assert words[-1].startswith("Shuffle done (6 passes, restacked by the machine)")


def test_a_stalled_card_is_a_prompt_that_enter_answers(tmp_path: Path) -> None:
    path = config(tmp_path, "simulate_stall_at = 60\n")
    r = crib("--simulate", "--json", "--config", path, stdin="\n")
    assert r.returncode == 0, r.stderr
    got = lines(r.stdout)
    fault = [g for g in got if g["kind"] == "fault"]
    assert len(fault) == 1 and "did not reach its bay on pass 2" in fault[0]["words"]
    assert [g["answer"] for g in got if g["kind"] == "ask"] == ["Resume"]
    assert got[-1]["kind"] == "done" and got[-1]["ok"] is True
    # No answer (the end of the input): the shuffle is left waiting, and the command says so.
    r = crib("--simulate", "--config", path)
    assert r.returncode == 1
    assert "STOPPED: Card 8 of 52 did not reach its bay on pass 2" in r.stdout
    assert r.stdout.rstrip().endswith("answer it on the page or with a touch)")


def test_the_lotus_build_prompts_each_restack(tmp_path: Path) -> None:
    path = config(tmp_path, 'build = "lotus"\n')
    r = crib("--simulate", "--json", "--plan", "light", "--config", path, stdin="\n" * 3)
    assert r.returncode == 0, r.stderr
    got = lines(r.stdout)
    assert got[0]["hands_free"] is False and got[0]["passes_total"] == 3
    prompts = [g["words"] for g in got if g["kind"] == "prompt"]
    assert len(prompts) == 2 and all("put the LEFT pile on top of the RIGHT pile" in p
                                     for p in prompts)
    assert [g["answer"] for g in got if g["kind"] == "ask"] == ["Stacked, next pass"] * 2
    assert got[-1]["ok"] is True


def test_against_the_daemon_with_a_token(tmp_path: Path) -> None:
    daemon = Daemon(tmp_path / "state")
    text = daemon.config.read_text().replace("speed = 200.0", "speed = 100.0")
    daemon.config.write_text(text)
    daemon.start()
    try:
        r = crib("--json", "--url", daemon.client.base, "--token", daemon.token)
        assert r.returncode == 0, r.stderr
        check_whole_hands_free_shuffle(lines(r.stdout))
        status = daemon.client.req("GET", "/api/shuffler", auth=False).json()
        assert status["state"] == "idle" and status["passes_done"] == 6
        # the token from the environment; a wrong one is refused by name
        r = crib("--url", daemon.client.base, env={"CRIB_TOKEN": "nope"})
        assert r.returncode == 2 and "refused POST /api/shuffler/shuffle (401)" in r.stderr
    finally:
        daemon.close()


def test_without_a_token_or_a_daemon_it_says_what_to_do(tmp_path: Path) -> None:
    path = config(tmp_path, "")
    env = {"CRIB_TOKEN": ""}
    r = crib("--config", path, env=env)
    assert r.returncode == 2 and r.stdout == ""
    assert "--token or $CRIB_TOKEN" in r.stderr and "--simulate" in r.stderr
    r = crib("--config", path, "--url", "http://127.0.0.1:9", "--token", "t", env=env)
    assert r.returncode == 2 and "does not answer at http://127.0.0.1:9" in r.stderr
