"""Every relative link in the README and docs/ leads somewhere: to a file of the repository
and, with a #part, to a heading of it (as GitHub names headings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# [text](target) and ![alt](target), the target up to a space (a title may follow) or ")"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def links(text: str) -> list[str]:
    """The relative targets of the Markdown links in `text`, outside code blocks and spans."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def anchors(page: Path) -> set[str]:
    """The #parts GitHub gives the headings of `page` (a repeated heading gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m[1].lower().replace("`", "")).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    out |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", page.read_text()))
    return out


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of `page` that lead nowhere, each with why (paths from `root`)."""
    bad = []
    for target in links(page.read_text()):
        path, _, part = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        shown = dest.relative_to(root) if dest.is_relative_to(root) else dest
        if not dest.exists():
            bad.append(f"{target}: no {shown}")
        elif part and dest.suffix == ".md" and part not in anchors(dest):
            bad.append(f"{target}: no heading #{part} in {shown}")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    assert broken(page) == []


def test_the_checker_sees_a_broken_link_and_a_missing_heading(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Title\n## The `crib` line\n")
    page = tmp_path / "docs" / "b.md"
    page.write_text("[ok](a.md#the-crib-line) [top](#b) [web](https://example.org/x)\n"
                    "[from docs/](docs/a.md) [part](a.md#nowhere) `[code](gone.md)`\n"
                    "```\n[fenced](gone.md)\n```\n# B\n")
    # docs/a.md from inside docs/ is the mistake docs/cli.md made with docs/shuffling.md
    assert broken(page, tmp_path) == ["docs/a.md: no docs/docs/a.md",
                                      "a.md#nowhere: no heading #nowhere in docs/a.md"]
