"""``survey diff`` on two snapshots written by hand: each differs from the other in known
ways (a scope field, a key set, a vocabulary value, a claim), so every figure the diff reports
is known before it runs. diff reads only a snapshot's manifest, census and claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from survey.snapshot.diff import SCOPE_FIELDS, diff, to_markdown

MANIFEST: dict[str, Any] = {
    "runtime": "cursor", "sample": {"n": None, "seed": None}, "counts": {"walked_files": 4, "files": 4},
    "root": "root-a", "tool_version": "1.0", "snapshot_schema": 7, "vocab": "v1", "mode": "reviewed",
    "allow_mcp_names": False, "privacy": {"min_files": 2},
}
# every scope field, another value
OTHER: dict[str, Any] = {
    "sample": {"n": 2, "seed": 5}, "root": "root-b", "tool_version": "1.1", "snapshot_schema": 8, "vocab": "v2",
    "mode": "discover", "allow_mcp_names": True, "privacy": {"min_files": 3},
}
WHAT = {"sample": "what was walked", "root": "root pseudonym", "tool_version": "tool version",
        "snapshot_schema": "snapshot schema", "vocab": "vocabulary version", "mode": "gate mode",
        "allow_mcp_names": "MCP names let through", "min_files": "rare-key threshold (files)"}


def table(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows}


def write(base: Path, name: str, manifest: dict[str, Any] | None = None, census: dict[str, Any] | None = None,
          claims: list[dict[str, Any]] | None = None) -> Path:
    snap = base / name / "cursor"
    snap.mkdir(parents=True)
    (snap / "manifest.json").write_text(json.dumps(manifest if manifest is not None else MANIFEST))
    (snap / "census.json").write_text(json.dumps(census or {}))
    (snap / "claims.json").write_text(json.dumps(claims or []))
    return snap


def test_each_scope_field_that_differs_is_named_by_what_it_is(tmp_path: Path) -> None:
    old = write(tmp_path, "a")
    for field, value in OTHER.items():
        name = "min_files" if field == "privacy" else field
        new = write(tmp_path, f"b-{field}", {**MANIFEST, field: value})
        d = diff(old, new)
        assert [(s["field"], s["what"]) for s in d.scope_differences] == [(name, WHAT[name])], field
        lines = to_markdown(d).splitlines()
        assert "**The two snapshots differ in scope**; read what follows with that in mind:" in lines
        assert any(ln.startswith(f"- {WHAT[name]}: ") for ln in lines), field
    every = diff(old, write(tmp_path, "c", {**MANIFEST, **OTHER}))
    assert [(s["field"], s["what"]) for s in every.scope_differences] == [(f, w) for f, w in SCOPE_FIELDS]
    assert [s["field"] for s in every.scope_differences] == list(WHAT)
    same = diff(old, write(tmp_path, "d"))
    assert same.scope_differences == [] and not same.drifted
