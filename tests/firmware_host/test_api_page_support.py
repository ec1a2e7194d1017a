"""What the phone page needs beyond the core API: shuffle plans, a game's score race, and
the simulated shuffler's test-only jam."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.components.factories import device_factories
from firmware_host.config import load_settings
from firmware_host.errors import ConfigError
from hardware.clock import SystemClock
from tests.firmware_host.conftest import Client, write_config


def test_plans_on_the_hands_free_build_are_its_own_exact_plan_timed_with_its_restacks(
        client: Client) -> None:
    """The default build restacks itself: the exact plan is the drop shaft's (6 passes of
    52 cards, 7 of 104, which go in face up) at distance 0, and it is what a touch or the
    button starts."""
    import random

    from hardware.shuffler import handsfree

    r = client.req("GET", "/api/shuffler/plans?deck=52", auth=False)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["deck"] == 52 and body["default"] == "exact"
    assert body["build"] == "handsfree" and body["hands_free"] is True
    plans = {p["plan"]: p for p in body["plans"]}
    assert set(plans) == {"random", "exact", "light"}
    exact = plans["exact"]
    assert exact["passes"] == 6 and exact["tv_distance"] == 0 and exact["random"]
    assert "checked by the machine" in exact["quality"]
    assert plans["random"]["passes"] == 9 and plans["random"]["tv_distance"] == pytest.approx(
        0.0854, abs=1e-4)
    # timed on the hands-free build's pace, every restack the machine's
    p = handsfree.handsfree_pace(52)  # uncalibrated: the build's own
    whole = handsfree.shuffle_s(handsfree.plan_random(52, rng=random.Random(52)), p)
    assert exact["shuffle_s"] == round(whole, 1)
    assert plans["light"]["shuffle_s"] == round(
        3 * (p.pass_s(52) + handsfree.DEFAULT_RESTACK.restack_s), 1)
    assert "restack by the machine" in exact["time"]
    two = {p["plan"]: p for p in client.req("GET", "/api/shuffler/plans?deck=104",
                                             auth=False).json()["plans"]}
    assert two["exact"]["passes"] == 7 and two["exact"]["tv_distance"] == 0
    # every pass turns the cards over: 104 go in face up to come back face down
    assert two["exact"]["load_face_up"] and not exact["load_face_up"]
    # Without a deck: the configured one.
    assert client.req("GET", "/api/shuffler/plans", auth=False).json()["deck"] == 52


def test_plans_on_the_lotus_build_give_passes_distance_and_a_sentence_for_each_deck(
        tmp_path: Path) -> None:
    from types import SimpleNamespace

    from firmware_host.api.routes.shuffler import plans as plans_of
    from firmware_host.api.schemas import PlansOut

    settings = load_settings(_lotus(tmp_path))
    services = SimpleNamespace(settings=settings)
    body = PlansOut(**plans_of(services, 52)).model_dump()  # type: ignore[arg-type]
    assert body["deck"] == 52 and body["default"] == "random"
    assert body["build"] == "lotus" and body["hands_free"] is False
    plans = {p["plan"]: p for p in body["plans"]}
    assert set(plans) == {"random", "exact", "light"}
    assert plans["random"]["passes"] == 9 and plans["random"]["tv_distance"] == pytest.approx(
        0.0854, abs=1e-4)
    assert "well-mixed" in plans["random"]["quality"] and plans["random"]["random"]
    assert plans["exact"]["passes"] == 6 and plans["exact"]["tv_distance"] == 0
    assert plans["light"]["passes"] == 3 and not plans["light"]["random"]
    assert "NOT random" in plans["light"]["quality"]
    two = {p["plan"]: p for p in plans_of(services, 104)["plans"]}  # type: ignore[arg-type]
    assert two["random"]["passes"] == 11 and two["exact"]["passes"] == 7
    # what a pass and the whole shuffle take on the machine as configured, as one line
    from hardware.shuffler import pace

    pace = pace.pace()
    assert plans["exact"]["pass_s"] == round(pace.pass_s(52), 1)
    assert plans["exact"]["shuffle_s"] == round(pace.shuffle_s(52, 6), 1)
    assert plans["random"]["time"].startswith(
        f"random: 9 passes of 52 cards, about {pace.pass_s(52):.0f} s a pass")
    assert two["exact"]["pass_s"] == round(pace.pass_s(104), 1)


def _lotus(tmp_path: Path) -> Path:
    path = write_config(tmp_path, 8080)
    path.write_text(path.read_text() + 'build = "lotus"\n')
    return path


@pytest.mark.parametrize("deck", ["1", "105", "many"])
def test_plans_for_an_impossible_deck_are_refused_by_name(client: Client, deck: str) -> None:
    r = client.req("GET", f"/api/shuffler/plans?deck={deck}", auth=False)
    assert r.status_code == 422
    assert "deck" in r.json()["error"]


def test_race_gives_the_scores_after_every_accepted_action(client: Client) -> None:
    game = client.new_game(names=["Ann", "Bob"], dealer=0)
    for action in ({"type": "heels"},
                   {"type": "peg", "side": 1, "points": 2},
                   {"type": "count", "points": 8},
                   {"type": "undo"}):
        r = client.act(game, action)
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    race = client.req("GET", f"/api/games/{game['id']}/race", auth=False).json()
    assert race["names"] == ["Ann", "Bob"] and race["target"] == 121
    assert [p["scores"] for p in race["race"]] == [[0, 0], [2, 0], [2, 2], [2, 10], [2, 2]]
    assert [p["type"] for p in race["race"]] == [None, "heels", "peg", "count", "undo"]
    assert [p["version"] for p in race["race"]] == [0, 1, 2, 3, 4]
    assert race["race"][-1]["scores"] == [s["front"] for s in game["sides"]]


def test_race_of_an_unknown_game_is_404(client: Client) -> None:
    r = client.req("GET", "/api/games/9999/race", auth=False)
    assert r.status_code == 404 and "9999" in r.json()["error"]


def test_the_simulated_shuffler_jams_where_the_configuration_says(tmp_path: Path) -> None:
    config = write_config(tmp_path, 8123)
    with config.open("a") as f:
        f.write("simulate_jam_at = 60\n")
    settings = load_settings(config, simulate=True)
    kind, factory = device_factories(settings, SystemClock())["shuffler"]
    assert kind == "simulated" and factory is not None
    shuffler, cleanup = factory()
    try:
        assert shuffler.table.jam_at == 60
    finally:
        cleanup()


def test_a_jam_card_below_one_stops_the_start_naming_the_key(tmp_path: Path) -> None:
    config = write_config(tmp_path, 8124)
    with config.open("a") as f:
        f.write("simulate_jam_at = 0\n")
    with pytest.raises(ConfigError, match="simulate_jam_at"):
        load_settings(config, simulate=True)


@pytest.mark.parametrize(("build", "kind", "plan"), [
    ("handsfree", "SimulatedHandsFreeShuffler", "exact"),
    ("lotus", "SimulatedShuffler", "random"),
])
def test_the_build_decides_the_simulated_machine_and_the_plan_a_touch_starts(
        tmp_path: Path, build: str, kind: str, plan: str) -> None:
    config = write_config(tmp_path, 8125)
    with config.open("a") as f:
        f.write(f'build = "{build}"\nsimulate_stall_at = 9\n')
    settings = load_settings(config, simulate=True)
    assert settings.shuffle.plan == plan  # [shuffle] plan left out: the build's own
    _kind, factory = device_factories(settings, SystemClock())["shuffler"]
    assert factory is not None
    shuffler, cleanup = factory()
    try:
        assert type(shuffler).__name__ == kind
        status = shuffler.status()
        assert status.hands_free is (build == "handsfree")
        if build == "handsfree":
            assert shuffler.table.stall_at == 9 and not shuffler.table.stall_frees
            assert shuffler._touch_plan == "exact"
    finally:
        cleanup()


def test_a_plan_set_in_the_configuration_is_kept_on_the_hands_free_build(
        tmp_path: Path) -> None:
    config = write_config(tmp_path, 8126, '[shuffle]\nplan = "random"\n')
    assert load_settings(config, simulate=True).shuffle.plan == "random"


def test_an_unknown_build_stops_the_start_naming_the_key_and_the_value(tmp_path: Path) -> None:
    config = write_config(tmp_path, 8127)
    with config.open("a") as f:
        f.write('build = "drum"\n')
    with pytest.raises(ConfigError, match=r"shuffler\.build.*'drum'.*'handsfree', 'lotus'"):
        load_settings(config, simulate=True)


def test_the_status_and_its_schema_carry_the_hands_free_fields(client: Client) -> None:
    status = client.req("GET", "/api/shuffler", auth=False).json()
    assert status["state"] == "idle" and status["hands_free"] is True
    assert status["phase"] is None and status["restacks_done"] == 0
    assert "seconds_left" in status
    spec = client.req("GET", "/openapi.json", auth=False).json()
    out = spec["paths"]["/api/shuffler"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    props = spec["components"]["schemas"][out]["properties"]
    assert {"hands_free", "phase", "restacks_done", "seconds_left", "passes_done",
            "passes_total", "cards_this_pass", "prompt", "fault", "tv_distance"} <= set(props)
    phase = next(s for s in props["phase"]["anyOf"] if "enum" in s)
    assert phase["enum"] == ["pass", "restack", "paused"]
    for path in ("/api/shuffler/shuffle", "/api/shuffler/continue", "/api/shuffler/abort"):
        ref = spec["paths"][path]["post"]["responses"]["200"]["content"]["application/json"][
            "schema"]["$ref"]
        assert ref.endswith("/" + out)
