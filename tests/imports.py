"""The house's import graph and the one circle finder the structure tests use.

An edge is every import a reader follows: at a module's top, late inside a function, and
under `if TYPE_CHECKING:` (a circle through a type is still a circle to read through); and
between the page's ES modules, every `import ... from "./x.js"`, `export ... from` and
`import("./x.js")`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from pathlib import Path

HOUSE = Path(__file__).resolve().parents[1]
PACKAGES = ("cribbage", "hardware", "firmware_host")
# The page's and the director's ES modules (the firmware's Node runner is CommonJS, apart).
ES_ROOT = "firmware_host"

Graph = Mapping[str, Collection[str]]


def python_modules(root: Path = HOUSE, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of `packages` under `root`, by dotted name."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _targets(node: ast.AST, package: str) -> list[str]:
    """The dotted names an import statement names (a `from` import: the module and each
    name, which may be a submodule)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        up = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(up + ([base] if base else []))
    return [base] + [f"{base}.{a.name}" for a in node.names]


def python_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` (at `path`) imports, anywhere in it.

    Importing a.b.c runs a, a.b and a.b.c; the importer's own packages are already imported
    before it runs, so they are no edge."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        for target in _targets(node, package):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                dotted = ".".join(parts[:i])
                if dotted in modules and not (name == dotted or name.startswith(dotted + ".")):
                    found.add(dotted)
    return found


def python_graph(root: Path = HOUSE,
                 packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the modules it imports, for every module of `packages`."""
    modules = python_modules(root, packages)
    return {name: python_imports(name, path, modules) for name, path in modules.items()}


_COMMENT = re.compile(r"/\*.*?\*/|^\s*//[^\n]*", re.S | re.M)
_ES_IMPORT = re.compile(
    r"""\b(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']"""
    r"""|\bimport\(\s*["']([^"']+)["']\s*\)""")


def es_graph(root: Path = HOUSE, folder: str = ES_ROOT) -> dict[str, set[str]]:
    """ES module -> the modules it imports, for every .js file under `root/folder` (named by
    their paths from `root`); only relative specifiers name a file of ours."""
    files = {p for p in (root / folder).rglob("*.js") if "node_modules" not in p.parts}
    graph: dict[str, set[str]] = {}
    for path in sorted(files):
        text = _COMMENT.sub("", path.read_text())
        edges = set()
        for match in _ES_IMPORT.finditer(text):
            spec = match[1] or match[2]
            if spec.startswith("."):
                target = (path.parent / spec).resolve()
                if target in files:
                    edges.add(str(target.relative_to(root)))
        graph[str(path.relative_to(root))] = edges
    return graph


def import_circles(graph: Graph) -> list[list[str]]:
    """Every import circle of `graph`: its strongly connected components of more than one
    module, and each module that imports itself (Tarjan), each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1 or node in graph.get(node, ()):  # or a module importing itself
                circles.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(circles)
