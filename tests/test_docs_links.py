"""Every relative link in the README and the docs names a file that exists and, where it
names a heading, a heading that file has (as GitHub makes a heading's anchor). The pages
cite each other by anchor, run by run; a heading renamed or a section moved must not leave
a reader at the top of a 1,500-line page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", REPO / "bench" / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md",
                 *(REPO / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)")
# a fenced block, closed by a fence of its own length (a ```` block may hold ``` blocks)
FENCE = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)


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
    page = REPO / "docs" / "known-limits.md"
    assert "a-sqlite-store-with-a-wal-is-copied-whole" in anchors(page)  # "## A SQLite store with a WAL ..."
    assert "read-more" in anchors(REPO / "README.md")


def test_a_fence_of_four_backticks_hides_the_fences_inside_it() -> None:
    text = "a\n````markdown\n[x](#nowhere)\n```sh\ny\n```\n[z](#e1)\n````\nb [c](#here)\n"
    assert [m.group(2) for m in LINK.finditer(FENCE.sub("", text))] == ["here"]


def test_the_docs_are_the_reference_set() -> None:
    """The docs folder is reference, one short file a subject, each linked from the README."""
    want = {"architecture.md", "privacy.md", "evidence.md", "adding-a-runtime.md", "performance.md",
            "known-limits.md", "cli.md", "fleet.md"}
    have = {p.name for p in (REPO / "docs").glob("*.md")}
    assert have == want
    readme = (REPO / "README.md").read_text()
    assert all(f"(docs/{name})" in readme for name in want)
    assert len(readme.splitlines()) <= 150


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
