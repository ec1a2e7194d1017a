"""Audit of the web API through real HTTP: whole flows a phone makes, with expectations taken
from the rules of cribbage and issue 4 (not from the code)."""

from __future__ import annotations

import csv
import io
import itertools
from typing import Any

import pytest

from tests.firmware_host.conftest import Client

_ops = itertools.count()


def act(client: Client, game: dict[str, Any], action: dict[str, Any],
        op_id: str | None = None) -> dict[str, Any]:
    """One accepted action; returns the new game."""
    r = client.act(game, action, op_id=op_id or f"audit-{next(_ops)}")
    assert r.status_code == 200, (action, r.text)
    new = r.json()["game"]
    assert new["version"] == game["version"] + 1
    return dict(new)


def fronts(game: dict[str, Any]) -> list[int]:
    return [s["front"] for s in game["sides"]]


def backs(game: dict[str, Any]) -> list[int]:
    return [s["back"] for s in game["sides"]]


def get(client: Client, game: dict[str, Any]) -> dict[str, Any]:
    r = client.req("GET", f"/api/games/{game['id']}", auth=False)
    assert r.status_code == 200, r.text
    return dict(r.json())


# -- three and four players -------------------------------------------------------------------


def test_three_player_keeper_hand(client: Client) -> None:
    g = client.new_game(variant="three-player", names=["Ann3", "Bob3", "Cat3"], dealer=0,
                        mode="keeper")
    assert g["dealer"] == 0 and g["crib_owner"] == 0 and g["phase"] == "play"
    assert [s["players"] for s in g["sides"]] == [[0], [1], [2]]
    # Show order: left of the dealer first, the dealer's hand, then the crib.
    assert [e["label"] for e in g["show_order"]] == [
        "Bob3's hand", "Cat3's hand", "Ann3's hand", "Ann3's crib"]
    assert g["next_count"]["label"] == "Bob3's hand"
    g = act(client, g, {"type": "peg", "side": 1, "points": 2})
    for points in (5, 8, 12):
        g = act(client, g, {"type": "count", "points": points})
    assert g["next_count"]["label"] == "Ann3's crib" and g["next_count"]["side"] == 0
    g = act(client, g, {"type": "count", "points": 4})
    assert fronts(g) == [16, 7, 8]
    assert backs(g) == [12, 2, 0]
    # The deal passes to the left: Bob deals and owns the crib.
    assert g["dealer"] == 1 and g["crib_owner"] == 1 and g["hand_number"] == 2
    assert g["phase"] == "play"
    assert [e["label"] for e in g["show_order"]] == [
        "Cat3's hand", "Ann3's hand", "Bob3's hand", "Bob3's crib"]
    assert not any(e["done"] for e in g["show_order"])
    assert get(client, g) == g


def test_four_player_partnership_hand(client: Client) -> None:
    names = ["P0", "P1", "P2", "P3"]
    g = client.new_game(variant="four-player", names=names, dealer=1)
    assert [s["players"] for s in g["sides"]] == [[0, 2], [1, 3]]
    assert [s["name"] for s in g["sides"]] == ["P0 & P2", "P1 & P3"]
    assert g["crib_owner"] == 1
    assert [(e["label"], e["side"]) for e in g["show_order"]] == [
        ("P2's hand", 0), ("P3's hand", 1), ("P0's hand", 0), ("P1's hand", 1),
        ("P1's crib", 1)]
    g = act(client, g, {"type": "peg", "side": 0, "points": 3})
    g = act(client, g, {"type": "peg", "side": 1, "points": 2})
    for points in (6, 4, 10, 8, 2):
        g = act(client, g, {"type": "count", "points": points})
    # Partners' points go on one track.
    assert fronts(g) == [3 + 6 + 10, 2 + 4 + 8 + 2]
    assert backs(g) == [9, 14]
    assert g["dealer"] == 2 and g["crib_owner"] == 2
    assert [e["label"] for e in g["show_order"]][:1] == ["P3's hand"]
    assert g["show_order"][-1]["label"] == "P2's crib"


# -- five-card, history, statistics, export, undo across the end, next game --------------------


def test_five_card_game_to_61_with_history_stats_export(client: Client) -> None:
    g = client.new_game(variant="five-card", names=["Fay", "Gus"], dealer=0, skunk="skunk")
    assert g["target"] == 61
    # Three for last to the non-dealer at the start of the game.
    assert fronts(g) == [0, 3]
    for _ in range(3):
        g = act(client, g, {"type": "peg", "side": 0, "points": 15})
    assert [e["label"] for e in g["show_order"]] == ["Gus's hand", "Fay's hand", "Fay's crib"]
    for points in (4, 6, 8):
        g = act(client, g, {"type": "count", "points": points})
    assert fronts(g) == [59, 7] and g["dealer"] == 1
    g = act(client, g, {"type": "peg", "side": 0, "points": 2})
    assert g["phase"] == "over"
    assert fronts(g) == [61, 7] and backs(g) == [59, 3]
    result = g["result"]
    # 61 has one skunk line, at 31: Gus at 7 is skunked, a double game.
    assert result["winner"] == 0 and result["loser"] == 1
    assert result["kind"] == "skunk" and result["game_points"] == 2
    assert result["scores"] == [61, 7]
    assert g["games_won"] == [1, 0] and g["match_points"] == [2, 0]

    mine = [h for h in client.req("GET", "/api/history", auth=False).json()["games"]
            if h["game_id"] == g["id"]]
    assert len(mine) == 1 and mine[0]["result"]["kind"] == "skunk"
    assert mine[0]["variant"] == "five-card"

    stats = client.req("GET", "/api/stats", auth=False).json()["players"]
    fay, gus = stats["Fay"], stats["Gus"]
    assert (fay["games"], fay["wins"], fay["skunks"], fay["skunked"]) == (1, 1, 1, 0)
    assert (gus["games"], gus["wins"], gus["skunks"], gus["skunked"]) == (1, 0, 0, 1)
    assert fay["average_hand"] == 6 and fay["average_crib"] == 8 and fay["best_hand"] == 6
    assert gus["average_hand"] == 4 and gus["average_crib"] is None
    assert fay["pegging_per_hand"] == pytest.approx((45 + 2) / 2)

    exported = client.req("GET", f"/api/export?format=json&game={g['id']}", auth=False)
    assert exported.status_code == 200
    games = exported.json()["games"]
    assert [x["id"] for x in games] == [g["id"]]
    assert [a["action"]["type"] for a in games[0]["actions"]] == (
        ["peg"] * 3 + ["count"] * 3 + ["peg"])
    assert games[0]["results"][0]["result"]["scores"] == [61, 7]
    text = client.req("GET", f"/api/export?format=csv&game={g['id']}", auth=False)
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text.text)))
    assert len(rows) == 1 and rows[0]["scores"] == "61 to 7" and rows[0]["result"] == "skunk"

    # Undo across the end: the game is on again and its result leaves the history.
    g = act(client, g, {"type": "undo"})
    assert g["phase"] == "play" and g["result"] is None and fronts(g) == [59, 7]
    assert g["games_won"] == [0, 0] and g["match_points"] == [0, 0]
    history = client.req("GET", "/api/history", auth=False).json()["games"]
    assert not [h for h in history if h["game_id"] == g["id"]]
    assert client.req("GET", "/api/stats", auth=False).json()["players"].get("Gus") is None
    g = act(client, g, {"type": "redo"})
    assert g["phase"] == "over" and fronts(g) == [61, 7] and g["result"]["kind"] == "skunk"
    history = client.req("GET", "/api/history", auth=False).json()["games"]
    assert len([h for h in history if h["game_id"] == g["id"]]) == 1

    # The next game: the loser (Gus) deals, so Fay, the non-dealer, pegs three for last.
    g = act(client, g, {"type": "next_game"})
    assert g["phase"] == "play" and g["game_number"] == 2
    assert g["dealer"] == 1 and g["crib_owner"] == 1
    assert fronts(g) == [3, 0] and g["result"] is None
    assert g["games_won"] == [1, 0] and g["match_points"] == [2, 0]
    assert get(client, g) == g
    # Undoing the next game brings back the finished one, without a second history row.
    g = act(client, g, {"type": "undo"})
    assert g["phase"] == "over" and g["game_number"] == 1 and fronts(g) == [61, 7]
    history = client.req("GET", "/api/history", auth=False).json()["games"]
    assert len([h for h in history if h["game_id"] == g["id"]]) == 1
    assert client.req("GET", "/api/stats", auth=False).json()["players"]["Fay"]["games"] == 1


# -- cards mode and muggins ----------------------------------------------------------------------


def test_cards_mode_hand_with_go_and_muggins(client: Client) -> None:
    g = client.new_game(variant="six-card", names=["Deb", "Eve"], dealer=0, mode="cards",
                        muggins=True)
    assert "starter" in g["legal"] and "peg" not in g["legal"]
    g = act(client, g, {"type": "starter", "card": "7S"})
    assert g["starter"] == "7S" and fronts(g) == [0, 0]
    # Eve (the pone) leads; Deb deals.
    plays = [(1, "TH"), (0, "5H")]
    for player, card in plays:
        g = act(client, g, {"type": "play", "player": player, "card": card})
    assert g["play"]["count"] == 15 and fronts(g) == [2, 0]  # fifteen two
    g = act(client, g, {"type": "play", "player": 1, "card": "6D"})
    g = act(client, g, {"type": "play", "player": 0, "card": "9C"})
    assert g["play"]["count"] == 30
    g = act(client, g, {"type": "go", "player": 1})
    if g["play"]["count"] == 30:  # Deb holds KS and 2D: neither fits, so she says go too
        g = act(client, g, {"type": "go", "player": 0})
    assert fronts(g) == [3, 0]  # one for the go to Deb, who played last
    assert g["play"]["count"] == 0 and g["play"]["next_player"] == 1
    for player, card in [(1, "4S"), (0, "KS"), (1, "8C"), (0, "2D")]:
        g = act(client, g, {"type": "play", "player": player, "card": card})
    assert fronts(g) == [4, 0]  # one for last card
    assert g["play"]["done"] and g["phase"] == "play"
    assert g["next_count"]["label"] == "Eve's hand"
    # Eve's hand TH 4S 6D 8C with 7S makes 5 (fifteen two, run of three); she claims 3.
    g = act(client, g, {"type": "count", "cards": ["TH", "4S", "6D", "8C"], "points": 3})
    assert fronts(g) == [4, 3]
    assert g["last_count"]["missed"] == 2 and "muggins" in g["legal"]
    bad = client.act(g, {"type": "muggins", "side": 0, "points": 3})
    assert bad.status_code == 422, bad.text
    g = act(client, g, {"type": "muggins", "side": 0, "points": 2})
    assert fronts(g) == [6, 3] and g["last_count"]["claimed"] == 2
    # Deb's hand (all seen in the play): 5H KS 9C 2D with 7S is fifteen two.
    g = act(client, g, {"type": "count"})
    assert fronts(g) == [8, 3] and g["last_count"]["breakdown"]["total"] == 2
    # Deb's crib 5C 5S JD QH with 7S: four fifteens and a pair, no nobs (jack not a spade).
    g = act(client, g, {"type": "count", "cards": ["5C", "5S", "JD", "QH"]})
    assert fronts(g) == [18, 3]
    assert g["dealer"] == 1 and g["starter"] is None and g["hand_number"] == 2


# -- errors --------------------------------------------------------------------------------------


def test_unknown_game_is_404_naming_it(client: Client) -> None:
    r = client.req("GET", "/api/games/987654", auth=False)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json")
    assert "987654" in r.json()["error"] and r.json()["code"]
    r = client.req("POST", "/api/games/987654/actions",
                   {"version": 0, "op_id": "x-404", "action": {"type": "undo"}})
    assert r.status_code == 404 and "987654" in r.json()["error"]


def test_huge_game_id_is_404_not_500(client: Client) -> None:
    huge = "9" * 25
    for method, path, body in [
        ("GET", f"/api/games/{huge}", None),
        ("POST", f"/api/games/{huge}/actions",
         {"version": 0, "op_id": "x-huge", "action": {"type": "undo"}}),
        ("GET", f"/api/export?game={huge}", None),
    ]:
        r = client.req(method, path, body)
        assert r.status_code == 404, (path, r.text)
        assert huge in r.json()["error"]


@pytest.mark.parametrize("body", [
    {"names": ["A", "B"], "dealer": "0"},
    {"names": ["A", "B"], "dealer": True},
    {"names": ["A", "B"], "target": "121"},
    {"names": ["A", "B"], "target": 121.5},
    {"names": ["A", "B"], "muggins": "yes"},
    {"names": ["A", "B"], "muggins": 1},
    {"names": ["A", 5]},
    {"names": "Ann Bob"},
    {"names": ["A", "B"], "variant": 6},
    {"names": ["A", "B"], "mode": True},
])
def test_new_game_with_wrong_types_is_422(client: Client, body: dict[str, Any]) -> None:
    current = client.req("GET", "/api/games/current", auth=False).json().get("id")
    r = client.req("POST", "/api/games", body)
    assert r.status_code == 422, (body, r.text)
    assert r.json()["error"] and r.json()["code"]
    assert client.req("GET", "/api/games/current", auth=False).json().get("id") == current


BAD_ACTIONS: list[Any] = [
    {"version": "one", "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": None, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": -1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": 1.5, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": [1], "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    # Right value, wrong type: refused, not coerced.
    {"version": "V", "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": True, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"version": 1.0, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "op_id": 7, "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "op_id": None, "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "op_id": "", "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "op_id": ["b"], "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "action": {"type": "peg", "side": 0, "points": 2}},
    {"V": 1, "op_id": "b"},
    {"V": 1, "op_id": "b", "action": None},
    {"V": 1, "op_id": "b", "action": "peg"},
    {"V": 1, "op_id": "b", "action": ["peg"]},
    {"V": 1, "op_id": "b", "action": {}},
    {"V": 1, "op_id": "b", "action": {"type": None}},
    {"V": 1, "op_id": "b", "action": {"type": 3}},
    {"V": 1, "op_id": "b", "action": {"type": "fly"}},
    {"V": 1, "op_id": "b", "action": {"type": ["peg"]}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": "0", "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": True, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0.0, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": None, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": [0], "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": {"a": 1}, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 5, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": -1, "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": "2"}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2.0}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2.5}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": True}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": None}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": [2]}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": -2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 10**30}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 16}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "points": 2}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2, "x": 1}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "points": "5"}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "points": 19.0}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "points": {"n": 5}}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "cards": "5H 5D 5C 5S"}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "cards": [5, 6, 7, 8]}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "cards": {"a": "5H"}}},
    {"V": 1, "op_id": "b", "action": {"type": "count", "cards": [["5H"]]}},
    {"V": 1, "op_id": "b", "action": {"type": "starter", "card": 5}},
    {"V": 1, "op_id": "b", "action": {"type": "starter", "card": None}},
    {"V": 1, "op_id": "b", "action": {"type": "starter", "card": ["5H"]}},
    {"V": 1, "op_id": "b", "action": {"type": "starter", "card": {"rank": 5}}},
    {"V": 1, "op_id": "b", "action": {"type": "starter", "card": "ZZ"}},
    {"V": 1, "op_id": "b", "action": {"type": "muggins", "side": "1", "points": 1}},
    {"V": 1, "op_id": "b", "action": {"type": "muggins", "side": 1, "points": 1.5}},
    {"V": 1, "op_id": "b", "action": {"type": "go", "player": "0"}},
    {"V": 1, "op_id": "b", "action": {"type": "play", "player": 0, "card": 10}},
    {"V": 1, "op_id": "b", "action": {"type": "cut", "cards": "AH"}},
    {"V": 1, "op_id": "b", "action": {"type": "dealer", "player": 0.5}},
    {"V": 1, "op_id": "b", "action": {"type": "undo", "extra": {"nested": [1]}}},
    {"V": 1, "op_id": "b", "action": {"type": "peg", "side": 0, "points": 2}, "x": 1},
    [],
    "peg",
    None,
    42,
]


def test_wrong_types_in_every_field_are_422_and_change_nothing(client: Client) -> None:
    g = client.new_game(names=["Tia", "Uli"], dealer=0)
    g = act(client, g, {"type": "peg", "side": 1, "points": 2})
    before = get(client, g)
    for i, body in enumerate(BAD_ACTIONS):
        if isinstance(body, dict) and "V" in body:
            body = {"version": g["version"], **{k: v for k, v in body.items() if k != "V"}}
        if isinstance(body, dict) and body.get("version") == "V":
            body = {**body, "version": str(g["version"])}
        if isinstance(body, dict) and body.get("op_id") == "b":
            body["op_id"] = f"bad-{i}"
        r = client.req("POST", f"/api/games/{g['id']}/actions", body)
        assert r.status_code == 422, (body, r.status_code, r.text)
        err = r.json()
        assert isinstance(err.get("error"), str) and err["error"], (body, err)
        assert err.get("code"), (body, err)
        assert get(client, g) == before, body
    raw = client.req("POST", f"/api/games/{g['id']}/actions",
                     headers={"content-type": "application/json"}, content=b'{"version": 1,')
    assert raw.status_code == 422, raw.text
    assert get(client, g) == before
    # The game still works, at the same version.
    g = act(client, before, {"type": "peg", "side": 0, "points": 1})
    assert fronts(g) == [1, 2]


def test_illegal_action_is_422_with_the_game(client: Client) -> None:
    g = client.new_game(names=["Vic", "Wes"], dealer=0)
    r = client.act(g, {"type": "count", "points": 19.5})
    assert r.status_code == 422
    r = client.act(g, {"type": "count", "points": 25})  # no hand makes 25
    assert r.status_code == 422 and "25" in r.json()["error"]
    assert r.json()["game"] == get(client, g)
    r = client.act(g, {"type": "next_game"})
    assert r.status_code == 422 and r.json()["game"]["version"] == g["version"]


def test_stale_version_is_409_with_the_current_game(client: Client) -> None:
    g = client.new_game(names=["Xan", "Yul"], dealer=1)
    g1 = act(client, g, {"type": "peg", "side": 0, "points": 2})
    r = client.act(g, {"type": "peg", "side": 1, "points": 3})  # based on version 0
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["error"] and body["game"] == g1 == get(client, g)
    r = client.act({**g, "version": g1["version"] + 5}, {"type": "peg", "side": 1, "points": 3})
    assert r.status_code == 409 and r.json()["game"]["version"] == g1["version"]


def test_repeated_op_id_with_another_body_gets_the_first_answer(client: Client) -> None:
    g = client.new_game(names=["Zed", "Amy"], dealer=0)
    first = client.act(g, {"type": "peg", "side": 0, "points": 2}, op_id="audit-dup")
    assert first.status_code == 200
    # Same op id, another action, even another (now stale) version: the first answer.
    again = client.act(g, {"type": "peg", "side": 1, "points": 5}, op_id="audit-dup")
    assert again.status_code == 200 and again.json() == first.json()
    later = client.act(first.json()["game"], {"type": "count", "points": 12},
                       op_id="audit-dup")
    assert later.status_code == 200 and later.json() == first.json()
    now = get(client, g)
    assert fronts(now) == [2, 0] and now["version"] == 1
    # The same op id on another game is that game's own.
    other = client.new_game(names=["Bea", "Cal"], dealer=0)
    r = client.act(other, {"type": "peg", "side": 1, "points": 1}, op_id="audit-dup")
    assert r.status_code == 200 and fronts(r.json()["game"]) == [0, 1]


@pytest.mark.parametrize(("loser", "kind", "game_points"), [(30, "skunk", 2), (31, "win", 1)])
def test_five_card_skunk_line_is_31(client: Client, loser: int, kind: str,
                                    game_points: int) -> None:
    g = client.new_game(variant="five-card", names=["Ida", "Jon"], dealer=0)
    g = act(client, g, {"type": "peg", "side": 1, "points": 15})
    g = act(client, g, {"type": "peg", "side": 1, "points": loser - 3 - 15})
    for points in (15, 15, 15, 15, 1):
        g = act(client, g, {"type": "peg", "side": 0, "points": points})
    assert g["phase"] == "over" and fronts(g) == [61, loser]
    assert g["result"]["kind"] == kind and g["result"]["game_points"] == game_points
    # Nothing more is taken once the game is over.
    r = client.act(g, {"type": "peg", "side": 1, "points": 2})
    assert r.status_code == 422 and r.json()["game"] == get(client, g)
