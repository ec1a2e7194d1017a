"""The phone page: index.html and its static files, served by the daemon itself.

index.html is served with a `modulepreload` link for every ES module the page imports, found
by following the imports from its entry module: the browser asks for the whole module graph
at once, one round trip after the page, instead of finding each module only when its
importer has arrived.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"
ENTRY = "app.js"
# A static import or re-export: `import x from "./a.js"`, `import "./a.js"`, `export {x} from`.
_IMPORT = re.compile(r"""^\s*(?:import|export)\s+(?:[^"';]*?\s+from\s+)?["']([^"']+)["']""",
                     re.M)


def module_graph(static: Path, entry: str = ENTRY) -> list[str]:
    """Every module reachable from `entry` by static imports, as paths under `static`, in the
    order first met (breadth first); raises FileNotFoundError for an import of a missing file."""
    root = static.resolve()
    seen = [entry]
    for name in seen:
        text = (root / name).read_text(encoding="utf-8")
        for spec in _IMPORT.findall(text):
            if not spec.startswith("."):
                continue  # a bare or absolute specifier is not one of the page's files
            target = ((root / name).parent / spec).resolve()
            rel = target.relative_to(root).as_posix()
            if not target.is_file():
                raise FileNotFoundError(f"{name} imports {spec}, which is not in {root}")
            if rel not in seen:
                seen.append(rel)
    return seen


def with_preloads(html: str, modules: list[str]) -> str:
    """index.html with a modulepreload link per module, just before the entry's script tag."""
    links = "".join(f'<link rel="modulepreload" href="/static/{m}">\n' for m in modules)
    tag = '<script type="module"'
    at = html.find(tag)
    return html if at < 0 else html[:at] + links + html[at:]


_cache: dict[str, tuple[tuple[float, ...], str]] = {}


def _page_html(page: Path) -> str:
    """index.html with its preloads, rebuilt when any file of the page changes."""
    stamps = tuple(p.stat().st_mtime for p in sorted(STATIC_DIR.rglob("*.js"))) + (
        page.stat().st_mtime,)
    hit = _cache.get("index")
    if hit is not None and hit[0] == stamps:
        return hit[1]
    html = with_preloads(page.read_text(encoding="utf-8"), module_graph(STATIC_DIR))
    _cache["index"] = (stamps, html)
    return html


def index() -> Response:
    page = STATIC_DIR / "index.html"
    if page.is_file():
        return HTMLResponse(_page_html(page))
    return PlainTextResponse("the page is not installed; the API is described at /openapi.json")


def router() -> APIRouter:
    r = APIRouter(include_in_schema=False)
    r.add_api_route("/", index, methods=["GET"])
    return r
