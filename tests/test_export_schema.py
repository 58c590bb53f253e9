"""``survey schema``: a JSON Schema derived from a snapshot alone, held against the corpus it
describes (read here with the standard library) and validated against every record."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.corpus.privacy import MASKS, load_salt
from survey.export.schema import derive, dumps
from survey.export.validate import validate

from .conftest import corpora
from .export_util import RUNTIMES, all_keys, jsonl_records, property_names, schema_nodes, survey


class Surveyed(dict):
    """Each runtime's corpus, generated with the demo's seed (7), surveyed once, on first use."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = factory

    def __missing__(self, rt: str) -> tuple[dict, Path, Path]:
        got = self[rt] = survey(rt, self.factory.mktemp(rt))
        return got


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory: pytest.TempPathFactory) -> Surveyed:
    return Surveyed(tmp_path_factory)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_derived_schema_validates_every_demo_record(runtime: str, surveyed: dict) -> None:
    _planted, root, snap = surveyed[runtime]
    schema = derive(snap)
    r = validate(snap, root, load_salt(), schema=schema, write=False)
    assert r["records"] > 0
    assert r["invalid"] == 0, r["failures"][:5]
    assert r["claim"] == f"{r['records']:,} of {r['records']:,} records validate against the derived schema"
    manifest = json.loads((snap / "manifest.json").read_text())
    assert r["records"] == manifest["counts"]["frames_ok"]  # the walk's records, every one
    if runtime in ("cursor", "codex", "cursor_stream"):  # every record is a JSONL line: counted by json
        assert r["records"] == len(jsonl_records(root))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_schema_shape_and_determinism(runtime: str, surveyed: dict, tmp_path: Path) -> None:
    _planted, _root, snap = surveyed[runtime]
    a = derive(snap)
    assert a["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert dumps(a) == dumps(derive(snap))  # deterministic
    nodes = schema_nodes(a)
    assert nodes and all("x-observed" in s for _p, s in nodes), [p for p, s in nodes if "x-observed" not in s][:3]
    for _p, s in nodes:
        o = s["x-observed"]
        assert o["files"] >= 1 and o["occurrences"] >= 1 and o["first_stratum"] <= o["last_stratum"]
    assert not (property_names(a) & MASKS)  # masked keys are never named
    # from a snapshot alone: the corpus gone, the same schema
    copy = tmp_path / "snap"
    shutil.copytree(snap, copy)
    assert derive(copy)["$defs"] == a["$defs"]


@pytest.mark.parametrize("runtime", ["cursor", "codex", "cursor_stream", "claude_code"])
def test_no_property_the_corpus_did_not_show(runtime: str, surveyed: dict) -> None:
    _planted, root, snap = surveyed[runtime]
    keys: set[str] = set()
    for _f, _i, obj in jsonl_records(root):
        all_keys(obj, keys)
    for p in root.rglob("*.json"):
        all_keys(json.loads(p.read_bytes()), keys)
    assert property_names(derive(snap)) <= keys


def test_cursor_required_types_enum_and_discriminator(surveyed: dict) -> None:
    _planted, root, snap = surveyed["cursor"]
    s = derive(snap)
    recs = [o for _f, _i, o in jsonl_records(root)]
    by_class: dict[str, list[dict]] = {}
    for o in recs:
        by_class.setdefault(o.get("type") or o.get("role"), []).append(o)
    for rc, objs in by_class.items():
        d = s["$defs"][rc]
        every = set.intersection(*(set(o) for o in objs))
        assert set(d.get("required", [])) == every, rc
        assert {k for k, v in d["properties"].items() if v is not False} == set().union(*(set(o) for o in objs)), rc
        assert d["x-observed"]["occurrences"] == len(objs)
        assert d["x-observed"]["files"] == len({f for f, _i, o in jsonl_records(root) if o.get("type", o.get("role")) == rc})
    assert s["$defs"]["user"]["properties"]["role"]["const"] == "user"
    assert s["$defs"]["user"]["properties"]["type"] is False  # a class-making key it never has: kept apart
    assert s["$defs"]["turn_ended"]["properties"]["type"]["const"] == "turn_ended"
    assert [r["$ref"] for r in s["oneOf"]] == [f"#/$defs/{rc}" for rc in sorted(by_class)]
    statuses = {o["status"] for o in by_class["turn_ended"]}
    assert set(s["$defs"]["turn_ended"]["properties"]["status"]["enum"]) == statuses
    # a call's input: an object for most tools, a string for ApplyPatch; never closed (its keys vary)
    items = s["$defs"]["assistant"]["properties"]["message"]["properties"]["content"]["items"]["oneOf"]
    tool_use = next(b for b in items if b["properties"]["type"].get("const") == "tool_use")
    types = Counter(type(b["input"]).__name__ for o in by_class["assistant"] for b in o["message"]["content"]
                    if b.get("type") == "tool_use")
    assert tool_use["properties"]["input"]["type"] == sorted({"dict": "object", "str": "string"}[t] for t in types)
    assert "additionalProperties" not in tool_use["properties"]["input"]
    assert tool_use["properties"]["input"]["x-observed"]["by_type"] == {
        "object": types["dict"], "string": types["str"]}


def test_schema_cli(surveyed: dict, tmp_path: Path) -> None:
    _planted, _root, snap = surveyed["codex"]
    r = CliRunner().invoke(app, ["schema", str(snap), "--reports", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["schema"] == str(tmp_path / "codex.schema.json")
    assert (tmp_path / "codex.schema.json").read_bytes() == dumps(derive(snap))
    # the newest snapshot of a runtime, found by -r alone
    r = CliRunner().invoke(app, ["schema", "-r", "codex", "--snapshots", str(snap.parents[1]), "--reports", str(tmp_path)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["schema", "--snapshots", str(tmp_path / "none")])
    assert r.exit_code == 2


@pytest.mark.real
def test_real_samples_validate(tmp_path: Path) -> None:
    """Every landed real sample: its derived schema takes every record it was derived from."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.samples import landed_roots

    roots = landed_roots(corpora())
    if not roots:
        pytest.skip("no real sample roots landed in ../shared/corpora")
    failing = {}
    for root, rt, label in roots:
        res = run_survey(get(rt), root, snapshots=tmp_path / label, reports=None, date="2026-01-01")
        v = validate(Path(res.snapshot), root, load_salt(), write=False)
        assert v["records"] > 0, label
        if v["invalid"]:
            failing[label] = v["failures"][:5]
    assert not failing, failing
