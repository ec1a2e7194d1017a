"""The engine's structure: one game machine (named for none of its modes), one copy of each
rule, the one private API it uses isolated behind one function, no import circle in the house,
and no function or module too long to read."""

from __future__ import annotations

import ast
import collections
from collections.abc import Iterator
from pathlib import Path

import cribbage
from cribbage.pegscore import PegScore
from cribbage.rules import RULES, get_rules
from cribbage.scoring import SHOW_SIZES, HandScore, score_hand
from cribbage.tuples import field

ENGINE = Path(cribbage.__file__).resolve().parent
HOUSE = ENGINE.parent
PACKAGES = ("cribbage", "hardware", "firmware_host")
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


def _modules() -> dict[str, Path]:
    """Every module of the house's packages by dotted name."""
    out = {}
    for package in PACKAGES:
        for path in sorted((HOUSE / package).rglob("*.py")):
            parts = list(path.relative_to(HOUSE).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: not those in functions or classes,
    nor under `if TYPE_CHECKING:` (a type checker's view only)."""
    for node in body:
        if _is_type_checking(node):
            yield from _module_level(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.If):
            yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_level(part)
        elif isinstance(node, ast.With):
            yield from _module_level(node.body)
        else:
            yield node


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
        or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _run_anywhere(tree: ast.AST) -> Iterator[ast.AST]:
    """Every statement that may run, in functions too (not under `if TYPE_CHECKING:`)."""
    for node in ast.iter_child_nodes(tree):
        if _is_type_checking(node):
            yield from (x for n in node.orelse for x in (n, *_run_anywhere(n)))
            continue
        yield node
        yield from _run_anywhere(node)


def _imports(name: str, path: Path, modules: dict[str, Path], *,
             lazy: bool = False) -> set[str]:
    """The house's modules `name` imports when it is imported (a package import also runs
    the package's __init__; the importer's own packages are already imported)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    for node in _run_anywhere(tree) if lazy else _module_level(tree.body):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # importing a.b.c runs a, a.b and a.b.c
                dotted = ".".join(parts[:i])
                # The importer's own packages are imported before it runs: no new edge.
                if dotted in modules and not (name == dotted or name.startswith(dotted + ".")):
                    found.add(dotted)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph, or None (depth-first, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_module_of_the_house_imports_itself_back() -> None:
    modules = _modules()
    assert {"cribbage.game.machine", "cribbage.rules", "firmware_host", "hardware"} <= set(modules)
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert "cribbage.counts" in graph["cribbage.rules"]  # the walk sees module-level imports
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
    # Nor in the engine counting the imports made inside functions (loaded late for speed).
    engine = {n: p for n, p in modules.items() if n.split(".")[0] == "cribbage"}
    lazy = {n: _imports(n, p, engine, lazy=True) for n, p in engine.items()}
    assert "cribbage.scoring" in lazy["cribbage.game.show"]
    assert _cycle(lazy) is None, " -> ".join(_cycle(lazy) or [])
    # The walk finds a circle when there is one.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_phase_modules_know_the_table_never_the_game() -> None:
    """Counting every import (type-only and inside functions too), the game package has no
    circle, and only its machine (and the package's front) knows `Game`: a handler is
    `(table, state, action)`."""
    modules = {n: p for n, p in _modules().items() if n.startswith("cribbage.game")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {m for m in (node.module, *(f"{node.module}.{a.name}"
                                                     for a in node.names)) if m in modules}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
        graph[name] = found - {name, "cribbage.game"}
    assert len(graph) >= 12 and "cribbage.game.table" in graph["cribbage.game.setup"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
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
