"""``survey recheck`` against figures counted here: what a re-check records of itself (method,
runtime, scope of the files re-read) on a generated corpus surveyed once (tests/kept_util.py)."""

from __future__ import annotations

import json
from pathlib import Path

from survey.corpus.privacy import load_salt
from survey.evidence.recheck import recheck
from tests.test_recheck import cc, copy_snapshot, jsonl_files

__all__ = ["cc"]  # the claude_code corpus's fixture


def test_a_recheck_records_its_method_runtime_and_scope(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cc
    copy = copy_snapshot(snap, tmp_path)
    r = recheck(copy, root, salt=load_salt())
    assert r["method"] == "independent: os.walk + stdlib json, plain Python counts"
    assert r["runtime"] == "claude_code"
    assert (r["sample"]["n"], r["sample"]["since"], "files" in r["sample"]) == (None, None, False)
    assert r["matched_to_snapshot"] is True and r["root_matches_snapshot"] is True
    n = len(jsonl_files("claude_code", root))
    scope = f"{n} of the {n} .jsonl files the snapshot walked (unchanged since), re-read with the stdlib json module"
    assert {v["scope"] for v in r["verdicts"]} == {scope}
    assert r["disagreements"] == [] and [v["verdict"] for v in r["verdicts"]] == ["agrees"] * len(r["verdicts"])
    stored = json.loads((copy.parent / f"{copy.name}.recheck.json").read_text())
    assert stored == json.loads(json.dumps(r))
