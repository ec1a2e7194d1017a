"""The engine's structure (issue 14): one game machine, one copy of each rule, and the one
private API it uses isolated behind one function."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import cribbage
from cribbage.pegscore import PegScore
from cribbage.rules import RULES, get_rules
from cribbage.scoring import SHOW_SIZES, HandScore, score_hand
from cribbage.tuples import field

ENGINE = Path(cribbage.__file__).resolve().parent


def _classes() -> list[tuple[str, str]]:
    out = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                out.append((path.name, node.name))
    return out


def test_there_is_one_game_machine_and_one_count_record() -> None:
    names = [name for _, name in _classes()]
    assert "GameState" not in names and not (ENGINE / "game.py").exists()
    assert names.count("Game") == 1 and names.count("CountRecord") == 1


def test_the_show_sizes_are_the_rules_own() -> None:
    assert set(SHOW_SIZES) == set(RULES)
    for name, rules in RULES.items():
        assert SHOW_SIZES[name] == (rules.hand_size, rules.crib_size)
    five = score_hand(["5H", "5C", "JD"], "5S", variant="five-card")
    assert five.total == 14  # four fifteens (8) and a pair royal (6); no nobs (JD, 5S)
    assert get_rules("five-card").hand_size == len(five.hand) == 3


def test_the_tuple_accessor_is_cpythons_and_isolated_behind_one_function() -> None:
    # An upgrade that drops collections._tuplegetter makes `field` a property: slower, and
    # this test says so at once instead of the benchmarks drifting.
    getter = type(collections.namedtuple("P", "x").x)  # noqa: PYI024
    assert type(field(0, "x")) is getter
    assert type(HandScore.total) is getter and type(PegScore.total) is getter
    assert HandScore.total.__doc__ == "All the points."
    users = [p.name for p in ENGINE.rglob("*.py") if "_tuplegetter" in p.read_text()]
    assert users == ["tuples.py"]


def test_the_result_is_judged_by_the_lines_the_rules_publish() -> None:
    rules = get_rules("six-card")
    low = rules.lines.double_skunk
    assert low is not None and rules.skunk_lines == (91, 61)
    assert rules.result((121, low - 1)).kind.value == "double_skunk"  # type: ignore[union-attr]
    assert rules.result((121, low)).kind.value == "skunk"  # type: ignore[union-attr]
