"""The advisor over real HTTP: which two to throw (`POST /api/advise`) and which card to
play now (`POST /api/advise/play`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.firmware_host.conftest import Client

HAND = ["7C", "9H", "5H", "5C", "5D", "JS"]


def advise(client: Client, **body: Any) -> Any:
    return client.req("POST", "/api/advise", body, auth=False)


def play_hint(client: Client, **body: Any) -> Any:
    return client.req("POST", "/api/advise/play", body, auth=False)


@pytest.mark.parametrize(("dealer", "net"), [(True, 20.91), (False, 12.40)])
def test_advise_ranks_every_discard_best_first(client: Client, dealer: bool, net: float) -> None:
    r = advise(client, hand=HAND, dealer=dealer)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["dealer"] is dealer and body["model"] == "random" and body["unseen"] == 46
    options = body["options"]
    assert len(options) == 15  # every pair of six cards
    best = options[0]
    assert best["keep"] == ["5H", "5C", "5D", "JS"] and best["discard"] == ["7C", "9H"]
    assert round(best["net"], 2) == net
    sign = 1 if dealer else -1
    for o in options:
        assert o["net"] == pytest.approx(o["hand"] + sign * o["crib"], abs=2e-4)
        assert o["hand_min"] <= o["hand"] <= o["hand_max"]
    nets = [o["net"] for o in options]
    assert nets == sorted(nets, reverse=True)


def test_advise_refuses_bad_cards_by_name(client: Client) -> None:
    r = advise(client, hand=["7C", "9H", "5H", "5C", "5D", "ZZ"], dealer=True)
    assert r.status_code == 422 and "ZZ" in r.json()["error"]
    r = advise(client, hand=HAND, dealer=True, known=["5H"])
    assert r.status_code == 422 and "5H" in r.json()["error"]


def test_play_hint_takes_the_fifteen_and_says_why(client: Client) -> None:
    r = play_hint(client, hand=["5H", "KD", "4C", "AS"], played=["KH"], count=10)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["card"] == "5H" and body["count"] == 10
    assert body["reason"].startswith("play 5H: makes fifteen for 2")
    assert [o["card"] for o in body["options"]][0] == "5H"
    assert {o["card"] for o in body["options"]} == {"5H", "KD", "4C", "AS"}
    five = body["options"][0]
    assert five["count"] == 15 and five["now"] == 2
    assert five["net"] == pytest.approx(five["now"] - five["reply"], abs=2e-4)
    # 47 unseen: 52 less four in hand and one played.
    assert body["unseen"] == 47


def test_play_hint_leads_a_card_that_cannot_be_made_fifteen(client: Client) -> None:
    r = play_hint(client, hand=["4C", "10D", "5S", "KH"], played=[])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["card"] == "4C" and "cannot be made fifteen" in body["reason"]
    assert body["count"] == 0


def test_play_hint_counts_the_played_cards_when_the_count_is_left_out(client: Client) -> None:
    with_count = play_hint(client, hand=["5H", "KD"], played=["KH", "QS"], count=20).json()
    without = play_hint(client, hand=["5H", "KD"], played=["KH", "QS"]).json()
    assert with_count == without and without["count"] == 20


def test_play_hint_with_no_card_under_31_says_go(client: Client) -> None:
    r = play_hint(client, hand=["5H", "KD"], played=["KH", "QH", "JH"], count=30)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["card"] is None and body["options"] == []
    assert body["reason"].startswith("go")


def test_play_hint_known_cards_leave_the_unseen_set(client: Client) -> None:
    base = play_hint(client, hand=["5H"], played=["KH"]).json()
    known = play_hint(client, hand=["5H"], played=["KH"], known=["5S", "5D", "5C"]).json()
    assert known["unseen"] == base["unseen"] - 3
    # No five is left to pair the five: the reply is cheaper.
    assert known["options"][0]["reply"] < base["options"][0]["reply"]


@pytest.mark.parametrize(("body", "named"), [
    ({"hand": ["5H", "XX"], "played": []}, "XX"),
    ({"hand": ["5H"], "played": ["KH", "1Z"]}, "1Z"),
    ({"hand": ["5H"], "played": [], "known": ["QQ"]}, "QQ"),
    ({"hand": ["5H", "KD"], "played": ["5H"]}, "5H"),
    ({"hand": ["5H"], "played": ["KH"], "known": ["KH"]}, "KH"),
    ({"hand": ["5H", "5H"], "played": []}, "5H"),
    ({"hand": ["5H"], "played": ["KH"], "count": 9}, "9"),
])
def test_play_hint_refuses_bad_cards_by_name_never_500(
    client: Client, body: dict[str, Any], named: str
) -> None:
    r = play_hint(client, **body)
    assert r.status_code == 422, r.text
    err = r.json()
    assert err["code"] == "bad_request" and named in err["error"]


def test_play_hint_names_where_a_card_is_twice(client: Client) -> None:
    err = play_hint(client, hand=["5H", "KD"], played=["5H"]).json()["error"]
    assert "5H is in the hand and in the played cards" in err


@pytest.mark.parametrize("body", [
    {"hand": [], "played": []},
    {"played": ["KH"]},
    {"hand": ["5H"], "played": [], "count": 40},
    {"hand": ["5H"], "played": [], "extra": 1},
    {"hand": "5H", "played": []},
])
def test_play_hint_refuses_bad_bodies(client: Client, body: dict[str, Any]) -> None:
    r = play_hint(client, **body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_request"
