"""``survey audit``: a hand-written schema held against the census. A deliberately wrong Cursor
frame schema (the ten properties an earlier hand-written one documented, none observed) has
each planted error listed, with evidence and a command that runs; the derived schema has none."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.export.audit import audit
from survey.export.schema import derive

from .export_util import jsonl_records, survey

# documented where a Cursor frame has none of them (planted), beside what it does have
WRONG = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "role": {"type": "string"},
        "type": {"type": "string"},
        "status": {"type": "string", "enum": ["success", "error", "aborted", "cancelled"]},
        "timestamp": {"type": "string"}, "createdAt": {"type": "number"},
        "model": {"type": "string"}, "usage": {"type": "object"},
        "message": {
            "type": "object",
            "properties": {
                "timestamp": {"type": "string"}, "createdAt": {"type": "string"},
                "model": {"type": "string"}, "usage": {"type": "object"},
                "content": {"type": ["array", "string"], "items": {"oneOf": [
                    {"$ref": "#/definitions/text"}, {"$ref": "#/definitions/tool_use"}]}},
            },
        },
    },
    "definitions": {
        "text": {"type": "object", "properties": {"type": {"const": "text"}, "text": {"type": "string"},
                                                   "id": {"type": "string"}}},
        "tool_use": {"type": "object", "properties": {
            "type": {"const": "tool_use"}, "id": {"type": "string"}, "name": {"type": "string"},
            "input": {"type": "object"}, "tool_use_id": {"type": "string"}, "content": {"type": "string"},
            "is_error": {"type": "boolean"}, "thinking": {"type": "string"}}},
    },
}
PLANTED = ["$.timestamp", "$.createdAt", "$.model", "$.usage", "$.message.timestamp", "$.message.createdAt",
           "$.message.model", "$.message.usage", "$.message.content[type=text].id", "$.message.content[type=tool_use].id",
           "$.message.content[type=tool_use].tool_use_id", "$.message.content[type=tool_use].content",
           "$.message.content[type=tool_use].is_error", "$.message.content[type=tool_use].thinking"]


@pytest.fixture(scope="module")
def cursor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    _p, root, snap = survey("cursor", tmp_path_factory.mktemp("audit"))
    return root, snap


def present(recs: list, path: str) -> bool:
    """Does any record hold ``path`` (read with plain dict access)?"""
    parts = path[2:].split(".")

    def walk(v, i):
        if i == len(parts):
            return True
        p = parts[i]
        if not isinstance(v, dict):
            return False
        if p.startswith("content[type="):
            want = p[len("content[type="):-1]
            c = v.get("content")
            return isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == want and walk(b, i + 1) for b in c)
        return p in v and walk(v[p], i + 1)

    return any(walk(r, 0) for r in recs)


def test_wrong_schema_has_each_planted_error_listed(cursor: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cursor
    recs = [o for _f, _i, o in jsonl_records(root)]
    schema_file = tmp_path / "cursor-frame.schema.json"
    schema_file.write_text(json.dumps(WRONG))
    r = CliRunner().invoke(app, ["audit", str(schema_file), str(snap), "--json"])
    assert r.exit_code == 3, r.output
    got = json.loads(r.output)
    never = {f["path"] for f in got["findings"] if f["kind"] == "never_observed"}
    assert never == {p for p in PLANTED if not present(recs, p)}
    assert len(never) >= 10
    # content as a bare string: the type never occurs
    contents = {type(o["message"]["content"]).__name__ for o in recs if "message" in o}
    assert contents == {"list"}
    assert {(f["path"], f["type"]) for f in got["findings"] if f["kind"] == "type_never_observed"} == \
        {("$.message.content", "string")}
    # status "cancelled": never among the statuses
    statuses = {o["status"] for o in recs if "status" in o}
    assert {f["value"] for f in got["findings"] if f["kind"] == "value_never_observed"} == \
        {"success", "error", "aborted", "cancelled"} - statuses
    # shapes it lacks: the error key, a string input, element types it does not name
    lacks = {(f["kind"], f["path"]) for f in got["findings"]}
    assert ("missing_key", "$.error") in lacks
    assert ("missing_type", "$.message.content[type=tool_use].input") in lacks
    blocks = {b.get("type") for o in recs if "message" in o for b in o["message"]["content"] if isinstance(b, dict)}
    assert {p for k, p in lacks if k == "missing_element"} == \
        {f"$.message.content[type={t}]" for t in blocks - {"text", "tool_use"}}
    for f in got["findings"]:
        assert f["command"].startswith("duckdb -c ") and f["schema_at"]


def test_audit_commands_run(cursor: tuple[Path, Path]) -> None:
    duckdb = shutil.which("duckdb") or str(Path(__import__("sys").executable).parent / "duckdb")
    if not Path(duckdb).exists():
        pytest.skip("no duckdb CLI")
    _root, snap = cursor
    got = audit(WRONG, snap)
    for kind in ("never_observed", "missing_type"):
        f = next(x for x in got["findings"] if x["kind"] == kind)
        out = subprocess.run(["bash", "-c", f["command"].replace("duckdb", f"{duckdb} -csv", 1)], capture_output=True,
                             text=True, timeout=60, check=True).stdout
        if kind == "never_observed":
            assert out.splitlines()[1] == "0,0"
        else:
            assert f"string,{f['evidence']['occurrences']},{f['evidence']['files']}" in out


def test_derived_schema_audits_clean(cursor: tuple[Path, Path], tmp_path: Path) -> None:
    _root, snap = cursor
    p = tmp_path / "derived.json"
    p.write_text(json.dumps(derive(snap)))
    r = CliRunner().invoke(app, ["audit", str(p), str(snap)])
    assert r.exit_code == 0, r.output
    assert "0 findings" in r.output
    r = CliRunner().invoke(app, ["audit", str(tmp_path / "missing.json"), str(snap)])
    assert r.exit_code == 2
