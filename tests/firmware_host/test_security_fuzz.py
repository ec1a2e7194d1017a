"""A bounded schemathesis pass over every operation of the real daemon (a few examples each,
derandomized: the same cases every run), every check on: the schema is exact, so a
schema-valid body is accepted. And the contract details the fuzzing found: 405 with Allow,
CSV documented, bad bodies a 422 and never a 400."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.firmware_host.conftest import Client, ThreadServer
from tests.firmware_host.schema_helpers import BOUNDED, integral_floats, published_schema

EXAMPLES = 80
LONG_EXAMPLES = 400  # five times the default pass
# Where the engine judges what JSON Schema cannot say, a schema-valid body may get a 422 with
# a sentence (contracts.md 4): an action against the game's state now (the schema does say
# what no first action can be), the same card in two spellings ("5H", "5h", "5♥"), names
# that differ only in case or spaces. Every other schema-valid body must be accepted.
STATEFUL = {"POST /api/games/{game_id}/actions"}
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance, positive_data_acceptance]


def engine_judges(body: Any) -> bool:
    """Whether a schema-valid body repeats a card (in any spelling) or a name (in any case
    or spacing): the engine refuses it, JSON Schema cannot say it."""
    from cribbage.cards import Card

    if not isinstance(body, dict):
        return False
    names = body.get("names")
    if isinstance(names, list):
        folded = [n.strip().casefold() for n in names if isinstance(n, str)]
        if len(set(folded)) < len(folded):
            return True
    texts = [body["starter"]] if "starter" in body else []
    texts += [x for key in ("hand", "played", "known") for x in body.get(key) or ()]
    cards: list[Card] = []
    for text in texts:
        try:
            cards.append(Card.parse(text))
        except Exception:  # not a card: the schema's pattern refused it already
            return False
    if len(set(cards)) < len(cards):
        return True
    # The play's count is the total of the cards laid since the reset, at most 31.
    played = [Card.parse(x) for x in body.get("played") or ()] if "hand" in body else []
    total = sum(c.pips for c in played)
    return total > 31 or body.get("count") not in (None, total)


def fuzz(op: Any, checks: list[Any], token: str, counted: list[int],
         examples: int = EXAMPLES) -> Any:
    """The bounded hypothesis test of one operation (`counted`: 1 for a case whose positive
    acceptance was checked, 0 for one the engine judges)."""

    @given(case=op.as_strategy().filter(lambda case: not integral_floats(case.body)))
    @settings(BOUNDED, max_examples=examples)
    def run(case: Any) -> None:
        judged = op.label in STATEFUL or engine_judges(case.body)
        counted.append(0 if judged else 1)
        response = case.call(headers={"Authorization": f"Bearer {token}"})
        case.validate_response(response, checks=[
            c for c in checks if not (judged and c is positive_data_acceptance)])

    return run


def schemathesis_pass(server: ThreadServer, client: Client, examples: int) -> None:
    """Every operation of the published schema, `examples` cases each, every check."""
    schema = published_schema(server)
    problems: list[str] = []
    counted: list[int] = []
    t0 = time.monotonic()
    for result in schema.get_all_operations():
        op = result.ok()
        run = fuzz(op, CHECKS, client.token, counted, examples)
        try:
            run()
        except Exception as exc:
            problems.append(f"{op.label}: {exc}")
        # Pairing requests from the fuzzer must not block the next operations.
        server.services.pairing._pending = None
    cases, positive = len(counted), sum(counted)
    print(f"schemathesis: {cases} cases ({examples} an operation, {positive} checked for "
          f"acceptance) in {time.monotonic() - t0:.1f} s, {len(problems)} problems")
    assert cases >= examples // 2 * 10 and positive >= cases * 0.8, (cases, positive)
    assert not problems, "\n\n".join(problems)


def test_a_bounded_schemathesis_pass_finds_nothing(server: ThreadServer, client: Client) -> None:
    schemathesis_pass(server, client, EXAMPLES)


@pytest.mark.slow  # minutes: LONG_EXAMPLES cases an operation (run with -m slow)
@pytest.mark.timeout(1800)
def test_a_long_schemathesis_pass_finds_nothing(server: ThreadServer, client: Client) -> None:
    schemathesis_pass(server, client, LONG_EXAMPLES)


def _schema_accepts(spec: dict[str, Any], component: str, body: Any) -> bool:
    import jsonschema_rs

    root = {"components": spec["components"], "$ref": f"#/components/schemas/{component}"}
    return bool(jsonschema_rs.validator_for(root).is_valid(body))


def test_the_schema_refuses_what_the_api_refuses_and_accepts_what_it_accepts(
        client: Client) -> None:
    """The bodies the long pass found accepted by the schema and refused by the API."""
    spec = client.req("GET", "/openapi.json").json()
    refused = [  # (path, schema, body): the schema says no, and so does the API
        ("/api/games", "GameCreateIn", {"names": ["Ann", "Bob"], "dealer": 2}),
        ("/api/games", "GameCreateIn", {"names": ["Ann", "Bob"], "variant": "three-player"}),
        ("/api/games", "GameCreateIn", {"names": ["Ann", "Ann"]}),
        ("/api/count", "CountIn", {"hand": ["00", "5H", "5D", "5C"], "starter": "JS"}),
        ("/api/count", "CountIn", {"hand": ["5H", "5D", "5C"], "starter": "JS"}),
        ("/api/advise", "AdviseIn", {"hand": ["00", "5H", "5D", "5C", "6H", "7H"],
                                     "dealer": True}),
        ("/api/advise", "AdviseIn", {"hand": ["5H", "5D", "5C", "6H", "7H", "8H"],
                                     "dealer": True, "model": "guess"}),
        ("/api/advise/play", "AdvisePlayIn", {"hand": ["00"]}),
    ]
    for path, component, body in refused:
        assert not _schema_accepts(spec, component, body), (component, body)
        r = client.req("POST", path, body)
        assert r.status_code == 422, (body, r.status_code, r.text)
    assert not _schema_accepts(spec, "PairIn", {"name": "phone", "request": None})
    assert not _schema_accepts(spec, "ActionIn", {"version": 0, "op_id": "a",
                                                  "action": {"type": "next_game"}})
    accepted = [
        ("POST", "/api/games", "GameCreateIn", {"names": ["Ann", "Bob", "Cy"], "dealer": 2}),
        ("POST", "/api/count", "CountIn", {"hand": ["5H", "5D", "5C"], "starter": "JS",
                                           "variant": "five-card"}),
        ("PUT", "/api/settings", "SettingsIn", {"brightness": 15.0}),
    ]
    for method, path, component, body in accepted:
        assert _schema_accepts(spec, component, body), (component, body)
        r = client.req(method, path, body)
        assert r.status_code in (200, 201), (body, r.status_code, r.text)
    three = client.req("POST", "/api/games", {"names": ["Ann", "Bob", "Cy"]}).json()
    assert three["variant"] == "three-player"  # the variant for as many players as names
    assert client.req("GET", "/api/settings").json()["brightness"] == 15


def test_no_new_game_takes_an_action_the_schema_says_no_first_action_is(
        client: Client) -> None:
    from firmware_host.api.schemas import NEVER_FIRST

    for options in ({"dealer": 0}, {}, {"dealer": 1, "mode": "cards"},
                    {"variant": "five-card", "dealer": 0}):
        game = client.new_game(**options)
        for kind in NEVER_FIRST:
            action = {"type": kind, **_SAMPLE.get(kind, {})}
            r = client.act(game, action)
            assert r.status_code == 422, (options, action, r.text)
        assert client.req("GET", f"/api/games/{game['id']}").json()["version"] == 0


_SAMPLE: dict[str, dict[str, Any]] = {
    "muggins": {"side": 1, "points": 2}, "late_peg": {"side": 0, "points": 1},
    "deal": {"hands": [["5H"], ["6H"]]}, "discard": {"player": 0, "cards": ["5H", "6H"]},
    "play": {"player": 1, "card": "5H"}, "go": {"player": 1}}


def test_a_wrong_method_is_405_with_allow(client: Client) -> None:
    r = client.req("DELETE", "/api/games")
    assert r.status_code == 405 and r.headers["allow"] == "POST", r.headers
    assert r.json()["code"] == "http_405"


def test_the_csv_export_is_documented_as_csv(client: Client) -> None:
    spec = client.req("GET", "/openapi.json").json()
    content = spec["paths"]["/api/export"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"application/json", "text/csv"}
    r = client.req("GET", "/api/export", params={"format": "csv"})
    assert r.headers["content-type"].startswith("text/csv")
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method in ("post", "put"):
                assert {"413", "422", "503"} <= set(op["responses"]), (method, path)


def test_a_request_id_or_code_in_any_script_is_refused_not_a_500(client: Client) -> None:
    # Found by a 200-example pass: compare_digest raised TypeError on non-ASCII text.
    assert client.req("POST", "/api/pair/start", {}, auth=False).status_code == 200
    for body in ({"name": "phone", "request": "\u00f7\U000f7565 requête"},
                 {"name": "phone", "code": "１２３４５６"}):  # fullwidth digits
        r = client.req("POST", "/api/pair", body, auth=False)
        assert r.status_code in (403, 422), (body, r.status_code, r.text)
        assert r.json()["code"] != "internal"


def test_a_wrong_method_on_a_path_of_two_routes_allows_both(client: Client) -> None:
    # Found by schemathesis: OPTIONS /api/settings said "Allow: GET", without the PUT.
    r = client.req("OPTIONS", "/api/settings")
    assert r.status_code == 405 and r.headers["allow"] == "GET, PUT", r.headers
