"""The page's ES modules as a graph, read from the files the daemon serves: no import circle,
the network layer publishes to the store and imports no screen or action, each screen shows
only `mount` and `render`, and index.html preloads the whole graph (one round trip deep).

The circles are found by the house's one finder (tests/imports.py), which also checks the
page's graph beside the Python modules' in tests/test_imports.py.
"""

from __future__ import annotations

import re
from pathlib import Path

from firmware_host.api.routes.page import _IMPORT, ENTRY, STATIC_DIR, module_graph
from tests.firmware_host.conftest import Client
from tests.imports import import_circles

# The pairing screen is another piece of work's (pairing by presence); its helpers are still
# exported, and it is held to the rest of the rules here.
NOT_YET_MOUNT_AND_RENDER_ONLY = {"screens/pairing.js"}


def imports() -> dict[str, list[str]]:
    """Each module of the page (relative to static/) and the modules it imports."""
    graph: dict[str, list[str]] = {}
    for path in sorted(STATIC_DIR.rglob("*.js")):
        name = path.relative_to(STATIC_DIR).as_posix()
        graph[name] = [((path.parent / spec).resolve().relative_to(STATIC_DIR.resolve())
                        .as_posix()) for spec in _IMPORT.findall(path.read_text())
                       if spec.startswith(".")]
    return graph


def test_the_finder_finds_a_circle_and_a_self_import() -> None:
    assert import_circles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert import_circles({"a": ["a"]}) == [["a"]]
    assert import_circles({"a": ["b"], "b": []}) == []


def test_the_page_has_no_import_circle() -> None:
    assert import_circles(imports()) == []


def test_the_network_imports_no_screen_and_no_action() -> None:
    assert [m for m in imports()["js/net.js"]
            if m.startswith("screens/") or m == "js/actions.js"] == []


def test_no_shared_module_imports_a_screen_and_screens_import_no_other_screen() -> None:
    graph = imports()
    for name, deps in graph.items():
        screens = [m for m in deps if m.startswith("screens/")]
        if name.startswith("js/"):
            assert screens == [], name
        elif name.startswith("screens/"):
            # The Score screen draws the cards' box with the play module's render.
            assert screens == (["screens/play.js"] if name == "screens/score.js" else []), name


def test_each_screen_exports_mount_and_render_only() -> None:
    export = re.compile(r"^export\s+(?:async\s+)?(?:function|const|let|class)\s+(\w+)|"
                        r"^export\s*\{([^}]*)\}", re.M)
    for path in sorted((STATIC_DIR / "screens").glob("*.js")):
        name = path.relative_to(STATIC_DIR).as_posix()
        names = set()
        for one, many in export.findall(path.read_text()):
            names |= {one} if one else {p.split(" as ")[-1].strip() for p in many.split(",")}
        if name in NOT_YET_MOUNT_AND_RENDER_ONLY:
            assert {"mount", "render"} <= names, name
        else:
            assert names == {"mount", "render"}, (name, names)


def test_every_module_is_reached_from_the_entry() -> None:
    assert sorted(module_graph(STATIC_DIR)) == sorted(imports())
    assert module_graph(STATIC_DIR)[0] == ENTRY


def test_the_page_preloads_its_whole_module_graph(client: Client) -> None:
    r = client.req("GET", "/", auth=False)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', r.text)
    assert sorted(preloaded) == sorted(imports())
    # Each one is served, as a script.
    for name in preloaded:
        got = client.req("GET", f"/static/{name}", auth=False)
        assert got.status_code == 200, name
        assert "javascript" in got.headers["content-type"], name


def test_a_missing_module_is_named(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text('import { x } from "./js/gone.js";\n')
    try:
        module_graph(tmp_path)
    except FileNotFoundError as err:
        assert "app.js imports ./js/gone.js" in str(err)
    else:
        raise AssertionError("a missing module was not named")
