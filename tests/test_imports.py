"""No import circle in the house: among the Python modules, counting the imports made late
in a function and those only for the type checker, and among the page's ES modules."""

from __future__ import annotations

from pathlib import Path

from tests.imports import es_graph, import_circles, python_graph


def test_no_import_circle_in_the_house() -> None:
    graph = python_graph()
    assert len(graph) > 120  # every module of the three packages was read
    assert import_circles(graph) == []


def test_no_import_circle_among_the_pages_modules() -> None:
    graph = es_graph()
    assert "firmware_host/static/js/store.js" in graph["firmware_host/static/app.js"]
    assert import_circles(graph) == []


def test_the_graph_counts_top_late_and_type_only_imports() -> None:
    graph = python_graph()
    assert "cribbage.counts" in graph["cribbage.rules"]  # at the top
    assert "cribbage.game" in graph["firmware_host.components.games"]  # late, in a function
    assert "cribbage.game.events" in graph["firmware_host.bus"]  # only for the type checker


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_finder_sees_every_kind_of_circle(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        # a late import back, as the API's app and its settings router once had
        "pkg/a.py": "from pkg.b import x\n",
        "pkg/b.py": "def x():\n    from pkg.a import y\n",
        # a circle of types, as the bus and the games component had
        "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from pkg.d import z\n",
        "pkg/d.py": "from . import c\n",
        "pkg/e.py": "import pkg.a\n",  # into a circle, but not part of one
        "pkg/static/app.js": 'import { a } from "./js/net.js";\n',
        "pkg/static/js/net.js": 'import * as s from "../screens/s.js"; // net imports a screen\n',
        "pkg/static/screens/s.js": 'export { a } from "../js/act.js";\n',
        "pkg/static/js/act.js": 'const later = () => import("./net.js");\n',
        "pkg/static/js/lone.js": '// import "./net.js"\n/* import { b } from "./act.js" */\n',
    })
    assert import_circles(python_graph(tmp_path, ("pkg",))) == [
        ["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
    assert import_circles(es_graph(tmp_path, "pkg")) == [
        ["pkg/static/js/act.js", "pkg/static/js/net.js", "pkg/static/screens/s.js"]]
