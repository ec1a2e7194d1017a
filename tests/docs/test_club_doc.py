"""docs/club.md documents every topic and payload the club speaks, field by field."""

from __future__ import annotations

import re
from pathlib import Path

from firmware_host import clubwire as schema

DOC = (Path(__file__).resolve().parents[2] / "docs" / "club.md").read_text()


def test_every_topic_leaf_and_payload_is_in_the_table() -> None:
    rows = [line for line in DOC.splitlines() if line.startswith("| `crib/v1/")]
    for leaf, model in schema.LEAVES.items():
        row = next((r for r in rows if f"/{leaf}`" in r), None)
        assert row is not None, f"no row for the {leaf} topic"
        assert f"`{model.__name__}`" in row
        for field in model.model_fields:
            if field != "v":
                assert re.search(rf"`{field}`", row), f"{leaf}: field {field} not documented"
    standings = next(r for r in rows if "/standings`" in r)
    for field in [*schema.Standings.model_fields, *schema.StandingRow.model_fields]:
        if field != "v":
            assert f"`{field}`" in standings, field


def test_the_readme_links_the_club_guide() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "docs/club.md" in readme
