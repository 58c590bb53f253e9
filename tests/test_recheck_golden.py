"""Golden test: the Cursor page of the seed-7 demo corpus annotated by ``survey recheck``.

After the snapshot, one ``agent-tools`` sidecar is added to the corpus: the re-check of the
whole scope marks that count RE-CHECK DISAGREES and every other re-checked claim verified.
Updating follows the other goldens' rule (``SURVEY_UPDATE_GOLDEN=1`` writes the file, prints
the diff and still fails in that run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from survey.corpus.privacy import load_salt
from survey.evidence.recheck import recheck
from survey.pipeline import run_survey
from survey.render.render import render_page
from survey.runtimes import get
from survey.synth.demo import DEMO_SEED, generator

from .test_diff_golden import check_golden

GOLDEN = Path(__file__).parent / "golden" / "recheck-cursor.md"


def test_recheck_annotated_page_matches_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = Path("corpus")
    generator("cursor")(root, seed=DEMO_SEED)
    res = run_survey(get("cursor"), root, snapshots=Path("snapshots"), reports=None, date="2026-01-01", cache=False)
    proj = sorted(p for p in root.iterdir() if (p / "agent-tools").is_dir())[0]
    (proj / "agent-tools" / "added-later.txt").write_text("x" * 20000)
    snap = Path(res.snapshot)
    r = recheck(snap, root, salt=load_salt())
    assert r["disagreements"] == ["agent_tools_count"]
    page = render_page(snap, Path("reports") / "cursor.md").read_text()
    assert "**[RE-CHECK DISAGREES]**" in page and "**[verified]**" in page
    check_golden(GOLDEN, page)
