"""The packages split into parts: each name of the greps (``survey.evidence.grep``) lives in
one part, which the other parts read as that part's attribute, so setting it on its part
reaches every reader; every name of a part of the bench (``bench.run``) is a name of the
whole, and setting one on the whole sets it in every part that uses it, as in one module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import orjson
import pytest

import bench.run as B
import survey.evidence.grep as G

GREP_DIR = Path(G.__file__).parent
ROOT = GREP_DIR.parents[2]


def _bound(part: object) -> set[str]:
    """The names a part of the greps defines at its top level (not the ones it imports)."""
    tree = ast.parse(Path(part.__file__).read_text())  # type: ignore[attr-defined]
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def test_every_name_of_a_part_of_the_bench_is_the_wholes() -> None:
    parts = B.PARTS
    assert len(parts) >= 6
    for part in parts:
        assert part.__doc__ and len(part.__doc__.strip().splitlines()) <= 8, part.__name__
        for name, value in vars(part).items():
            if not name.startswith("__") and not hasattr(value, "__path__"):
                assert name in vars(B), f"{part.__name__}.{name}"


def test_each_name_of_the_greps_lives_in_one_part_read_through_it() -> None:
    parts = G.PARTS
    assert {p.__name__.rsplit(".", 1)[1] for p in parts} == {
        f.stem for f in GREP_DIR.glob("*.py") if f.stem != "__init__"}
    owners: dict[str, list[str]] = {}
    for part in parts:
        assert part.__doc__ and len(part.__doc__.strip().splitlines()) <= 8, part.__name__
        for name in _bound(part):
            owners.setdefault(name, []).append(part.__name__)
        tree = ast.parse(Path(part.__file__).read_text())
        # a part reaches another as a module (``reads.PIECE_BYTES``), never takes its names
        taken = [f"{n.module}: {[a.name for a in n.names]}" for n in ast.walk(tree)
                 if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("survey.evidence.grep.")]
        assert taken == [], part.__name__
    assert {n: o for n, o in owners.items() if len(o) > 1} == {}
    assert len(owners) > 100  # the parts were read


def test_what_the_tests_and_bench_set_on_the_greps_is_set_on_its_owner() -> None:
    # (``reads`` holds the C core, ``NATIVE``, for the parts that read through it)
    owned = {p.__name__.rsplit(".", 1)[1]: _bound(p) | ({"NATIVE"} if p is G.reads else set()) for p in G.PARTS}
    setters = re.compile(r'setattr\((G(?:\.\w+)?|\w+), "(\w+)"|\bG\.(\w+)\.(\w+) = |\bG\.(\w+) = ')
    seen = []
    for f in [*sorted((ROOT / "tests").glob("*.py")), ROOT / "bench" / "timing.py"]:
        for m in setters.finditer(f.read_text()):
            if m.group(5) is not None or m.group(1) == "G":  # set on the package itself: reaches no part
                raise AssertionError(f"{f.name}: {m.group(0)}")
            part, name = (m.group(1).removeprefix("G."), m.group(2)) if m.group(2) else (m.group(3), m.group(4))
            if part in owned:
                assert name in owned[part], f"{f.name}: {part}.{name} is not {part}'s own"
                seen.append(name)
    assert {"PIECE_BYTES", "RG_WALK_MAX_FILES", "_rg_run", "duckdb_grep", "NATIVE"} <= set(seen)


def test_a_limit_set_on_its_part_reaches_the_part_that_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.evidence.grep import duck, reads

    monkeypatch.setattr(duck, "_cores", lambda: 4)
    monkeypatch.setattr(duck, "PARALLEL_MIN_BYTES", 0)
    files, sizes = ["a", "b"], {"a": 1000, "b": 10}
    monkeypatch.setattr(reads, "SPLIT_MIN_BYTES", 10**9)
    whole, _ = duck._parts(files, sizes, bounded=True)
    assert sorted(s for part in whole for s in part) == [("a", 0, -1), ("b", 0, -1)]
    monkeypatch.setattr(reads, "SPLIT_MIN_BYTES", 500)  # "a" is cut in one span per part run at once
    cut, n = duck._parts(files, sizes, bounded=True)
    spans = sorted(s for part in cut for s in part)
    assert n == 4 and [s for s in spans if s[0] == "a"] == [("a", 0, 250), ("a", 250, 500), ("a", 500, 750), ("a", 750, -1)]
    assert ("b", 0, -1) in spans


def test_a_function_replaced_on_its_part_is_the_one_its_callers_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.evidence.grep import duck, verdicts

    src = Path(verdicts.__file__).read_text()
    assert "duck.duckdb_grep(" in src and "rg.rg_grep(" in src and "keyhits.key_hits" in src
    monkeypatch.setattr(duck, "duckdb_grep", lambda *a, **k: "stand-in")
    assert verdicts.duck.duckdb_grep() == "stand-in"


def test_the_bench_results_folder_set_once_is_every_parts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bench.report as R

    monkeypatch.setattr(B, "RESULTS", tmp_path)
    assert R.RESULTS == tmp_path == B.RESULTS
    (tmp_path / "2026-01-01.json").write_bytes(orjson.dumps({"runs": {"default": {}}}))
    assert B.fresh_label("2026-01-01", "default") == "default (2nd)"  # read from the folder set here
