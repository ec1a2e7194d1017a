"""Issue 12 item 8: a bounded schemathesis pass over every operation of the real daemon
(a few examples each, derandomized: the same cases every run), and the contract details
the fuzzing found: 405 with Allow, CSV documented, bad bodies a 422 and never a 400."""

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

EXAMPLES = 10
LONG_EXAMPLES = 100  # ten times the default pass
# Where the engine judges what JSON Schema cannot say (a card given twice, an action against
# the rules, a pairing with no code pending, as many names as the variant has players), a
# schema-valid body may get a 422 with a sentence: that is the contract (contracts.md 4).
ENGINE_JUDGES = {"POST /api/games", "POST /api/count", "POST /api/advise", "POST /api/advise/play",
                 "POST /api/games/{game_id}/actions", "POST /api/pair"}
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance, positive_data_acceptance]


def fuzz(op: Any, checks: list[Any], token: str, counted: list[int],
         examples: int = EXAMPLES) -> Any:
    """The bounded hypothesis test of one operation."""

    @given(case=op.as_strategy().filter(lambda case: not integral_floats(case.body)))
    @settings(BOUNDED, max_examples=examples)
    def run(case: Any) -> None:
        counted.append(1)
        response = case.call(headers={"Authorization": f"Bearer {token}"})
        case.validate_response(response, checks=checks)

    return run


def schemathesis_pass(server: ThreadServer, client: Client, examples: int) -> None:
    """Every operation of the published schema, `examples` cases each, every check."""
    schema = published_schema(server)
    problems: list[str] = []
    counted: list[int] = []
    t0 = time.monotonic()
    for result in schema.get_all_operations():
        op = result.ok()
        checks = [c for c in CHECKS
                  if not (c is positive_data_acceptance and op.label in ENGINE_JUDGES)]

        run = fuzz(op, checks, client.token, counted, examples)
        try:
            run()
        except Exception as exc:
            problems.append(f"{op.label}: {exc}")
        # Pairing requests from the fuzzer must not block the next operations.
        server.services.pairing._pending = None
    cases = len(counted)
    print(f"schemathesis: {cases} cases ({examples} an operation) in "
          f"{time.monotonic() - t0:.1f} s, {len(problems)} problems")
    assert cases >= examples // 2 * len(ENGINE_JUDGES)
    assert not problems, "\n\n".join(problems)


def test_a_bounded_schemathesis_pass_finds_nothing(server: ThreadServer, client: Client) -> None:
    schemathesis_pass(server, client, EXAMPLES)


@pytest.mark.slow  # minutes: LONG_EXAMPLES cases an operation (run with -m slow)
@pytest.mark.timeout(1800)
def test_a_long_schemathesis_pass_finds_nothing(server: ThreadServer, client: Client) -> None:
    schemathesis_pass(server, client, LONG_EXAMPLES)


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
