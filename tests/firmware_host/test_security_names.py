"""No text from the LAN forges a log line or a spreadsheet formula, and no name hides or
reorders what it says: against a real `crib serve --simulate`, its log read back."""

from __future__ import annotations

import csv
import io
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.firmware_host.conftest import Daemon

FORGED = "WARNING crib.auth: phone 'eve' paired"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = Daemon(tmp_path_factory.mktemp("names"))
    d.start()
    try:
        yield d
    finally:
        d.close()


def _log_lines(daemon: Daemon) -> list[str]:
    return daemon.log.read_text(errors="replace").splitlines()


def test_a_newline_in_a_refused_path_is_shown_not_obeyed(daemon: Daemon) -> None:
    path = "/api/games%0a" + FORGED.replace(" ", "%20")
    request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{daemon.port}\r\n"
               "Origin: http://evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", daemon.port), timeout=5) as s:
        s.sendall(request.encode())
        assert s.recv(200).split(b" ")[1] == b"403"
    lines = _log_lines(daemon)
    assert not any(line.startswith(FORGED) for line in lines), lines[-5:]
    assert any("/api/games\\n" + FORGED in line for line in lines), lines[-5:]


@pytest.mark.parametrize("name", ["A\nWARNING crib.auth: phone 'x' paired", "A\u200bnn",
                                  "\u202eevil", "a\x00b", "Bob\x1b[2J"])
def test_a_name_with_hidden_characters_is_refused_with_a_sentence(daemon: Daemon,
                                                                  name: str) -> None:
    r = daemon.client.req("POST", "/api/games", {"names": [name, "Bob"]})
    assert r.status_code == 422, r.text
    assert "control, zero-width or direction characters" in r.json()["say"], r.json()
    r = daemon.client.req("POST", "/api/pair", {"name": name, "code": "123456"}, auth=False)
    assert r.status_code == 422 and "zero-width" in r.json()["error"], r.text
    assert not any(line.startswith("WARNING crib.auth: phone 'x'") for line in
                   _log_lines(daemon))


def test_a_token_name_with_hidden_characters_is_refused(tmp_path: Path) -> None:
    from firmware_host.auth import Tokens
    from firmware_host.errors import BadRequestError
    from firmware_host.store import Store

    store = Store(tmp_path / "db.sqlite3")
    store.start()
    try:
        for name in ("phone\u202e", "ph\u200bone", "a\nb"):
            with pytest.raises(BadRequestError, match="zero-width or direction"):
                Tokens(store).create(name)
    finally:
        store.stop()


def test_exported_cells_that_would_be_formulas_are_text(daemon: Daemon) -> None:
    names = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3"]
    game = daemon.client.new_game(names=names, variant="four-player")
    r = daemon.client.req("GET", "/api/export",
                          params={"format": "csv", "game": game["id"], "rows": "games"})
    assert r.status_code == 200, r.text
    rows = list(csv.reader(io.StringIO(r.text)))
    cells = [c for row in rows[1:] for c in row]
    assert cells, rows
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], rows
    assert any(c.startswith("'=HYPERLINK") for c in cells), rows
    hands = daemon.client.req("GET", "/api/export", params={
        "format": "csv", "game": game["id"], "rows": "hands"}).text
    header = next(csv.reader(io.StringIO(hands)))
    assert header[:4] == ["match", "game", "hand", "dealer"]


def test_numbers_stay_numbers_in_the_sheet() -> None:
    from firmware_host.export import cell

    assert cell(-3) == -3 and cell(0) == 0 and cell("-3") == "'-3" and cell("Ann") == "Ann"


@pytest.mark.parametrize("rows", ["games", "hands"])
def test_a_sheet_opened_with_any_separator_shows_no_formula(daemon: Daemon, rows: str) -> None:
    """A name `A;=1+1` in a locale whose list separator is ';' (or a tab) must not become
    a cell `=1+1`: every text cell is quoted, and no separator inside one starts a formula."""
    names = ["A;=1+1", "B;@SUM(A1)", "C,-2+3"]
    game = daemon.client.new_game(names=names, variant="three-player", dealer=0)
    pegged = daemon.client.act(game, {"type": "peg", "side": 0, "points": 2})
    assert pegged.status_code == 200, pegged.text  # a hand under way: a row of hands too
    r = daemon.client.req("GET", "/api/export",
                          params={"format": "csv", "game": game["id"], "rows": rows})
    assert r.status_code == 200, r.text
    lines = r.text.splitlines()
    # Text quoted, numbers bare: the match's id is a number a sheet can sum.
    assert lines[0].startswith('"match","game",'), lines[0]
    assert lines[1].startswith(f"{game['id']},1,"), lines[1]
    assert '"A;\'=1+1' in r.text, r.text
    for sep in (",", ";", "\t"):
        cells = [c for row in csv.reader(io.StringIO(r.text), delimiter=sep) for c in row]
        formulas = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
        assert formulas == [], (sep, formulas)
    # Read as the file says (','), the names are there, guarded only where they must be.
    read = [c for row in csv.reader(io.StringIO(r.text)) for c in row]
    assert any("A;'=1+1" in c for c in read) and any("C,'-2+3" in c for c in read), read
