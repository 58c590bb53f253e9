"""The rules that keep data flowing one way, checked on the import graph (every import, at
module level or inside a function, followed transitively):

- the pages (``survey.render``) import nothing from ``survey.corpus``: no corpus byte reaches
  a page except through a snapshot;
- the greps and the claims (``survey.evidence``) import nothing from ``survey.census``: the
  checks do not depend on what they check;
- the re-check (``survey.evidence.recheck``) shares no code with ``survey.census``: neither
  imports the other, and what both reach is only ``SHARED_WITH_RECHECK`` (the gate's
  pseudonyms, so a re-check names files as the snapshot does, and the profiles, which are data);
- the generators (``survey.synth``) import nothing from ``survey.census``: a generator must
  not know how it is measured.

``survey.native`` (the C core every stage may call, built from ``census/_walkcore.c``) and
``survey.shared`` are shared by design; the walk through them stops at ``survey.native``.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "survey"
SHARED_CORE = "survey.native"


def module_file(name: str) -> Path | None:
    parts = name.split(".")
    base = PKG.parent.joinpath(*parts)
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


@cache
def direct_imports(name: str) -> frozenset[str]:
    f = module_file(name)
    if f is None:
        return frozenset()
    out: set[str] = set()
    pkg = name if f.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(f.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # ``from pkg import module``
    return frozenset(m for m in out if m.startswith("survey") and module_file(m) is not None)


def reach(name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        if m == SHARED_CORE:
            continue
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]
        todo += direct_imports(m)
    seen.discard(name)
    return seen


def modules(prefix: str) -> list[str]:
    root = PKG.parent / prefix.replace(".", "/")
    files = [root.with_suffix(".py")] if root.with_suffix(".py").is_file() else sorted(root.rglob("*.py"))
    out = []
    for f in files:
        rel = f.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


RULES = [
    ("survey.render", "survey.corpus"),
    ("survey.evidence", "survey.census"),
    ("survey.evidence.recheck", "survey.census"),
    ("survey.census", "survey.evidence.recheck"),
    ("survey.synth", "survey.census"),
]
SHARED_WITH_RECHECK = {"survey", "survey.corpus", "survey.corpus.privacy", "survey.native", "survey.runtimes",
                       "survey.runtimes.base"}


@pytest.mark.parametrize(("src", "banned"), RULES)
def test_layer_does_not_import(src: str, banned: str) -> None:
    bad = {m: sorted(x for x in reach(m) if x == banned or x.startswith(banned + "."))
           for m in modules(src)}
    bad = {m: v for m, v in bad.items() if v}
    assert not bad, f"{src} must not import {banned}: {bad}"


def test_the_recheck_and_the_census_reach_no_module_in_common_but_the_shared_ones() -> None:
    census: set[str] = set()
    for m in modules("survey.census"):
        census |= reach(m) | {m}
    common = (reach("survey.evidence.recheck") | {"survey.evidence.recheck"}) & census
    assert common <= SHARED_WITH_RECHECK, f"shared beyond the gate and the profiles: {sorted(common - SHARED_WITH_RECHECK)}"


def test_every_package_of_the_rules_has_modules() -> None:
    """A rule over a package that was renamed or moved would hold of nothing."""
    for src, banned in RULES:
        assert modules(src) and module_file(banned) is not None, (src, banned)


def test_the_checker_sees_a_violation() -> None:
    """The graph is real: the pipeline reaches every stage."""
    r = reach("survey.pipeline")
    assert {"survey.census.sql", "survey.corpus.crawl", "survey.evidence.grep", "survey.evidence.grep.duck",
            "survey.evidence.grep.rg", "survey.render.render", "survey.schedule", "survey.reuse"} <= r
