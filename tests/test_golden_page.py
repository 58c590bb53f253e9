"""Golden test: the Cursor page of the seed-7 demo corpus, byte for byte.

A change to the generator, the census, the claims or the template that alters the page
shows up here as a readable diff. When the change is intended, regenerate with
``SURVEY_UPDATE_GOLDEN=1 make test`` and review the golden file's diff in the commit.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor import generate

GOLDEN = Path(__file__).parent / "golden" / "cursor.md"


def test_cursor_page_matches_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = Path("corpus")
    generate(root, seed=7)
    res = run_survey(get("cursor"), root, snapshots=Path("snapshots"), reports=Path("reports"),
                     date="2026-01-01", cache=False)
    page = Path(res.page).read_text()
    if os.environ.get("SURVEY_UPDATE_GOLDEN"):
        GOLDEN.write_text(page)
    want = GOLDEN.read_text()
    if page != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), page.splitlines(True), "golden", "now", n=1))
        pytest.fail("the rendered page changed (SURVEY_UPDATE_GOLDEN=1 to accept):\n" + diff[:6000])
