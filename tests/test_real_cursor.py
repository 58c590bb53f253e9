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
