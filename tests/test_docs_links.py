"""Every relative link in the README and the docs names a file that exists and, where it
names a heading, a heading that file has (as GitHub makes a heading's anchor). The pages
cite each other by anchor, run by run; a heading renamed or a section moved must not leave
a reader at the top of a 1,500-line page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", REPO / "bench" / "README.md", *(REPO / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings: lower case, punctuation but ``-`` and
    ``_`` dropped, each space a hyphen; a repeated one gets ``-1``, ``-2``..."""
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} (.+?)\s*$", FENCE.sub("", page.read_text()), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_the_anchors_are_githubs() -> None:
    page = REPO / "README.md"
    assert "performance-make-bench" in anchors(page)  # "## Performance (`make bench`)"
    assert {"known-limits", "design"} <= anchors(page)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for m in LINK.finditer(FENCE.sub("", page.read_text())):
        target, anchor = m.group(1), m.group(2)
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}#{anchor} (no such heading)")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)
