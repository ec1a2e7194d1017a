"""The tournament's cut through the director's API (a real `crib club serve` and a real
Mosquitto, results sent with each table's own credentials): players level on every break
at the cut line are named, and the director settles them by giving the seeds' order,
checked against the qualifiers and those level with the last of them."""

from __future__ import annotations

from pathlib import Path

from tests.firmware_host.club.director_helpers import Director, result, send, wait_for
from tests.firmware_host.club.screen_helpers import TABLES, counted, room, tables_of


def test_a_tie_on_the_cut_line_is_named_and_settled_by_the_director(tmp_path: Path) -> None:
    with room(tmp_path / "broker") as (broker, clients), \
            Director(tmp_path / "director", broker, tables=TABLES, night="cup") as d:
        names = [f"Cup {i}" for i in range(1, 9)]
        assert d.post("/api/players", {"names": names}).status_code == 200
        seated = d.post("/api/tournament", {"games": 1})
        assert seated.status_code == 201, seated.text
        pairs = tables_of(seated.json())
        for n, (t, pair) in enumerate(pairs.items()):  # three wins by 21, one by 11
            scores = (121, 100) if n < 3 else (121, 110)
            send(clients[t], result(t, n + 1, tuple(pair), scores, round_=1, night="cup"))  # type: ignore[arg-type]
        wait_for("four results counted", lambda: counted(d) == 4)
        level = sorted(pair[0] for t, pair in list(pairs.items())[:3])
        view = d.get("/api/tournament").json()
        assert [r["name"] for r in view["standings"][:3]] == level
        for wrong in ([level[0]], [level[0], "Cup 99"], [level[0], level[0]],
                      [level[0], next(n for n in names if n not in level)]):
            reply = d.post("/api/tournament/cut", {"seeds": wrong})
            assert reply.status_code == 422, (wrong, reply.text)
        reply = d.post("/api/tournament/cut", {"seeds": [level[2], level[0]]})
        assert reply.status_code == 200, reply.text
        cut = reply.json()["cut"]
        assert cut["seeds"] == [level[2], level[0]] and cut["tied"] == [level[2]]
        final = reply.json()["bracket"]["rounds"][0]["matches"][0]
        assert final["players"] == [level[2], level[0]] and final["seeds"] == [1, 2]
        again = d.post("/api/tournament/cut", {})
        assert again.status_code == 409 and "made already" in again.text
