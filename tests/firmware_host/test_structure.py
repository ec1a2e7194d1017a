"""The daemon's structure: short functions, nothing built at import, one router per area, and
the engine's variants and skunk rules named, never listed again (no import circle in the
house: tests/test_imports.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import firmware_host
from cribbage.rules import RULES, SkunkRule

DAEMON = Path(firmware_host.__file__).resolve().parent
SOURCES = sorted(DAEMON.rglob("*.py"))
MAX_FUNCTION_LINES = 100
# What may be made at a module's top level: names, patterns, loggers, type aliases, constants.
BUILT_AT_IMPORT = {"FastAPI", "APIRouter", "Thread", "Lock", "RLock", "Event", "Condition",
                   "Services", "build_services", "create_app", "Store", "EventHub",
                   "load_settings", "Settings", "uvicorn", "Server", "Config"}


def _trees() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(), str(path))) for path in SOURCES]


def _called(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_no_function_in_the_daemon_is_over_100_lines() -> None:
    long = [f"{path.relative_to(DAEMON)}:{node.lineno} {node.name} "
            f"({node.end_lineno - node.lineno + 1} lines)"  # type: ignore[operator]
            for path, tree in _trees() for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]  # type: ignore[operator]
    assert long == []
    assert len(SOURCES) > 40  # the whole daemon was read


def test_nothing_is_built_at_import_time() -> None:
    built = []
    for path, tree in _trees():
        for node in tree.body:  # statements at the module's top level (not under if/def)
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr) and node.value:
                made = _called(node.value) & BUILT_AT_IMPORT
                if made:
                    built.append(f"{path.relative_to(DAEMON)}:{node.lineno} {sorted(made)}")
    assert built == []


def test_one_router_per_api_area_each_made_by_its_function() -> None:
    routes = DAEMON / "api" / "routes"
    areas = sorted(p.stem for p in routes.glob("*.py") if p.stem != "__init__")
    assert {"games", "advice", "board", "shuffler", "history", "pairing", "settings",
            "events", "rules"} <= set(areas)
    for area in areas:
        tree = ast.parse((routes / f"{area}.py").read_text())
        makers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "router"]
        assert len(makers) == 1, area
        assert sum(1 for n in ast.walk(makers[0]) if isinstance(n, ast.Call)
                   and "APIRouter" in _called(n)) >= 1, area


def _listed(values: set[str]) -> list[str]:
    """Places in the daemon's source that spell out two or more of `values` together."""
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else []
            named = [e.value for e in items if isinstance(e, ast.Constant) and e.value in values]
            if len(named) >= 2:
                found.append(f"{path.relative_to(DAEMON)}:{node.lineno} {named}")
    return found


def test_the_variants_and_skunk_rules_are_the_engines_never_listed_again() -> None:
    assert _listed(set(RULES)) == []
    assert _listed({rule.value for rule in SkunkRule}) == []


def test_the_api_and_the_configuration_take_exactly_the_engines_variants() -> None:
    from firmware_host.api.schemas import CountIn, GameCreateIn
    from firmware_host.config import ConfigError, GameDefaults, load_settings

    schema = GameCreateIn.model_json_schema()["properties"]
    assert schema["variant"]["anyOf"][0]["enum"] == list(RULES)
    assert schema["skunk"]["anyOf"][0]["enum"] == [rule.value for rule in SkunkRule]
    assert CountIn.model_json_schema()["properties"]["variant"]["enum"] == list(RULES)
    for name in RULES:
        assert GameDefaults(variant=name).variant == name
    try:
        load_settings(None, game={"variant": "seven-card"})
    except ConfigError as exc:
        assert all(name in str(exc) for name in RULES), exc
    else:
        raise AssertionError("seven-card was taken")
