"""Golden test: the drift report between two snapshots of the seed-7 demo corpus, the newer
with a planted transcript (a tool_use block with a call id, a ``cancelled`` status).

A change to the generator, the census, the claims or the report that alters it shows up
here as a readable diff. When the change is intended, run with ``SURVEY_UPDATE_GOLDEN=1``:
the golden file is written, the diff printed, and the test still fails in that run (a
golden is accepted by reading its diff, never silently); the next run passes.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path

import pytest

from survey.pipeline import run_survey
from survey.runtimes import get
from survey.snapshot.diff import diff, to_markdown
from survey.synth.demo import DEMO_SEED, generator

GOLDEN = Path(__file__).parent / "golden" / "diff-cursor.md"


def check_golden(golden: Path, text: str) -> None:
    """``text`` must equal ``golden``; with ``SURVEY_UPDATE_GOLDEN`` set, write it, show the
    diff and fail all the same."""
    want = golden.read_text() if golden.exists() else ""
    change = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True), "golden", "now", n=1))
    if os.environ.get("SURVEY_UPDATE_GOLDEN"):
        golden.write_text(text)
        pytest.fail(f"{golden.name} written (SURVEY_UPDATE_GOLDEN): review its diff, then run again without it:\n"
                    + (change or "(no change)")[:6000])
    if text != want:
        pytest.fail(f"{golden.name} changed (SURVEY_UPDATE_GOLDEN=1 to accept):\n" + change[:6000])


def test_diff_report_matches_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = Path("corpus")
    generator("cursor")(root, seed=DEMO_SEED)
    kw = {"snapshots": Path("snapshots"), "reports": None, "cache": False}
    old = run_survey(get("cursor"), root, date="2026-01-01", **kw)  # type: ignore[arg-type]
    d = root / "proj-drift" / "agent-transcripts" / "drift-1"
    d.mkdir(parents=True)
    recs = [{"role": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "call-1", "name": "Shell", "input": {"command": "x"}}]}},
        {"type": "turn_ended", "status": "cancelled", "error": "x"}]
    (d / "drift-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    new = run_survey(get("cursor"), root, date="2026-02-01", **kw)  # type: ignore[arg-type]
    report = to_markdown(diff(Path(old.snapshot), Path(new.snapshot)))
    # the root's pseudonym is salted by this machine's (here: this test run's) salt
    check_golden(GOLDEN, re.sub(r"`r-[0-9a-f]{16}`", "`r-<root>`", report))
