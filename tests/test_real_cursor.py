"""The real public Cursor samples: surveyed cleanly, checked by an independent plain count,
and used to calibrate the generator (every real shape must be one the generator makes)."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from survey.pipeline import run_survey
from survey.runtimes import get
from survey.snapshot.store import load_json
from survey.synth.cursor import generate

from .conftest import corpora

# (record class, path, key set) triples real data shows that the generator does not make,
# each with the reason it is acceptable. Empty today: the generator covers every real shape.
ALLOWED: dict[tuple[str, str, str], str] = {}


def rows(snap: Path, name: str) -> list[dict]:
    q = load_json(snap, "census")[name]
    return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]


def plain_count(root: Path) -> tuple[Counter, Counter, Counter]:
    """Files per class, records per class and top-level key sets: a few lines of plain
    Python that share nothing with the survey."""
    files: Counter = Counter()
    classes: Counter = Counter()
    keysets: Counter = Counter()
    for d, _dirs, names in os.walk(root):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root).split(os.sep)
            if len(rel) >= 3 and rel[1] == "agent-transcripts" and n.endswith(".jsonl"):
                kind = "subagent" if "subagents" in rel else ("transcript" if len(rel) == 4 else "transcript_flat")
            elif len(rel) == 3 and rel[1] == "agent-transcripts" and n.endswith(".txt"):
                kind = "legacy_txt"
            elif len(rel) == 3 and rel[1] == "agent-tools":
                kind = "agent_tools"
            else:
                kind = "other"
            files[kind] += 1
            if n.endswith(".jsonl"):
                with open(os.path.join(d, n), "rb") as fh:
                    for line in fh:
                        try:
                            rec = json.loads(line)
                        except ValueError:
                            continue
                        classes[rec.get("type") or rec.get("role")] += 1
                        keysets[",".join(sorted(rec))] += 1
    return files, classes, keysets


@pytest.mark.parametrize("sub", ["cursor/projects", "handmade/cursor/projects"])
def test_real_root_surveys_and_agrees_with_a_plain_count(sub: str, tmp_path: Path) -> None:
    root = corpora() / sub
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r")
    snap = Path(res.snapshot)
    files, classes, keysets = plain_count(root)
    assert {r["surface"]: r["files"] for r in rows(snap, "files_by_surface")} == dict(files)
    got_classes: Counter = Counter()
    got_keysets: Counter = Counter()
    for r in rows(snap, "record_classes"):
        got_classes[r["rclass"]] += r["records"]
        got_keysets[r["keyset"]] += r["records"]
    assert got_classes == classes
    assert got_keysets == keysets
    assert res.fixture == sub.startswith("handmade")
    page = Path(res.page).read_text()
    assert ("Fixture corpus" in page) == sub.startswith("handmade")


def _triples(snap: Path) -> set[tuple[str, str, str]]:
    nodes = pl.read_parquet(snap / "walk" / "nodes.parquet")
    objs = nodes.filter(pl.col("jtype") == "object")
    return {(a, b, c) for a, b, c in objs.select("rclass", "path", "keyset").unique().iter_rows()}


def test_generator_makes_every_shape_the_real_samples_show(tmp_path: Path) -> None:
    base = corpora()
    real: set[tuple[str, str, str]] = set()
    for sub in ("cursor/projects", "handmade/cursor/projects"):
        res = run_survey(get("cursor"), base / sub, snapshots=tmp_path / "s" / sub, reports=None)
        real |= _triples(Path(res.snapshot))
    gen_root = tmp_path / "gen"
    generate(gen_root, seed=7)
    res = run_survey(get("cursor"), gen_root, snapshots=tmp_path / "s" / "gen", reports=None)
    made = _triples(Path(res.snapshot))
    missing = sorted(t for t in real - made if t not in ALLOWED)
    assert not missing, "real shapes the generator never makes:\n" + "\n".join(map(str, missing))


def plain_blocks(root: Path) -> dict:
    """The Cursor page's call and lifecycle figures by a plain pass over every JSONL line."""
    f = {"tool_use": 0, "exact": 0, "with_id": 0, "types": set(), "turn_ended": 0, "te_with_status": 0,
         "files": 0, "files_with_te": 0, "ap_string": 0, "ap_calls": 0, "max_calls": 0}
    for p in sorted(root.rglob("*.jsonl")):
        if not p.is_file():
            continue
        f["files"] += 1
        te = 0
        for line in p.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            if rec.get("type") == "turn_ended":
                te += 1
                f["te_with_status"] += "status" in rec
            content = (rec.get("message") or {}).get("content") if isinstance(rec.get("message"), dict) else None
            calls = 0
            for b in content if isinstance(content, list) else []:
                if not isinstance(b, dict):
                    continue
                f["types"].add(b.get("type"))
                if b.get("type") == "tool_use":
                    calls += 1
                    f["tool_use"] += 1
                    f["exact"] += sorted(b) == ["input", "name", "type"]
                    f["with_id"] += any(k in ("id", "uuid") or k.endswith("_id") or k.endswith("Id") for k in b)
                    if b.get("name") == "ApplyPatch":
                        f["ap_calls"] += 1
                        f["ap_string"] += isinstance(b.get("input"), str)
            f["max_calls"] = max(f["max_calls"], calls)
        f["turn_ended"] += te
        f["files_with_te"] += te > 0
    return f


@pytest.mark.parametrize("sub", ["cursor/projects", "handmade/cursor/projects"])
def test_real_page_figures_equal_a_plain_count(sub: str, tmp_path: Path) -> None:
    """Each figure the page's call and lifecycle claims state, against a plain pass."""
    root = corpora() / sub
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r")
    c = {x["id"]: x for x in load_json(Path(res.snapshot), "claims")}
    f = plain_blocks(root)
    assert c["tool_use_keyset"]["value"] == [f["exact"], f["tool_use"], f["with_id"]]
    assert set(c["block_types"]["text"].split(": ", 1)[1].rstrip(".").split(", ")) - {"none"} == \
        {t for t in f["types"] if t}
    assert c["turn_outcome"]["value"] == [f["te_with_status"], f["turn_ended"]]
    assert c["turn_ended_last"]["value"][1] == f["files_with_te"]
    assert c["files_without_turn_ended"]["value"] == [f["files"] - f["files_with_te"], f["files"]]
    assert c["max_parallel"]["value"] == f["max_calls"]
    ap = c["applypatch_string"]["value"]
    assert ap[:2] == [f["ap_string"], f["ap_calls"]]
    page = Path(res.page).read_text()
    if f["with_id"] == 0 and f["tool_use"]:
        assert "no call id of any kind" in page
    else:
        assert "no call id of any kind" not in page
    # skeletons come from the records: a class the corpus lacks has none
    labels = {s["label"].split(" · ")[0] for s in c["skeletons"]["value"]}
    assert ("turn_ended" in labels) == (f["turn_ended"] > 0)
