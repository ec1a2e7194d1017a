"""The engine's structure: one game machine (named for none of its modes), one copy of each
rule, the one private API it uses isolated behind one function, and no function or module too
long to read (no import circle in the house: tests/test_imports.py)."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import cribbage
from cribbage.pegscore import PegScore
from cribbage.rules import RULES, get_rules
from cribbage.scoring import SHOW_SIZES, HandScore, score_hand
from cribbage.tuples import field
from tests.imports import import_circles, python_imports, python_modules

ENGINE = Path(cribbage.__file__).resolve().parent
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 520


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
    assert "Keeper" not in names and not (ENGINE / "keeper.py").exists()


def test_the_machine_is_named_for_none_of_its_modes_and_tests_no_mode_by_name() -> None:
    from cribbage.game import MODE_OF, MODES, Game

    assert Game.__name__.lower() not in MODES and set(MODE_OF) == set(MODES)
    for path in sorted((ENGINE / "game").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(
                    isinstance(x, ast.Constant) and x.value in MODES for x in node.comparators):
                raise AssertionError(f"{path.name}:{node.lineno} tests a mode by its name")


def test_the_phase_modules_know_the_table_never_the_game() -> None:
    """Counting every import (type-only and inside functions too), the game package has no
    circle, and only its machine (and the package's front) knows `Game`: a handler is
    `(table, state, action)`."""
    modules = {n: p for n, p in python_modules().items() if n.startswith("cribbage.game")}
    graph = {name: python_imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) >= 12 and "cribbage.game.table" in graph["cribbage.game.setup"]
    assert import_circles(graph) == []
    knows_game = {n for n, deps in graph.items() if "cribbage.game.machine" in deps}
    assert knows_game <= {"cribbage.game"}, knows_game
    for name, path in modules.items():
        if name not in ("cribbage.game", "cribbage.game.machine"):
            tree = ast.parse(path.read_text())
            named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
                a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
            assert "Game" not in named, name


def test_no_function_or_module_of_the_engine_is_too_long_to_read() -> None:
    functions, modules = [], []
    for path in sorted(ENGINE.rglob("*.py")):
        text = path.read_text()
        modules.append((len(text.splitlines()), path.name))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((size, f"{path.name}:{node.name}"))
    assert max(functions)[0] <= MAX_FUNCTION_LINES, max(functions)
    assert max(modules)[0] <= MAX_MODULE_LINES, max(modules)


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
