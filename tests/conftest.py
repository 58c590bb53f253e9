"""Shared fixtures: a private salt dir per session, generated corpora, the real samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# the real public samples: $SURVEY_CORPORA, else ../shared/corpora beside the clone (a relative
# value is taken from the clone's folder), so a clone anywhere can run the tests that read them
REPO = Path(__file__).resolve().parents[1]
CORPORA = (REPO / os.path.expanduser(os.environ.get("SURVEY_CORPORA") or "../shared/corpora")).resolve()


@pytest.fixture(autouse=True, scope="session")
def _salt_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    # Never touch the user's real config: every test run gets its own salt.
    os.environ["SURVEY_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    os.environ["SURVEY_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"real public samples not present at {CORPORA} (set SURVEY_CORPORA to their folder)")
    return CORPORA


@pytest.fixture(scope="session")
def cursor_survey(tmp_path_factory: pytest.TempPathFactory):
    """A generated Cursor corpus (seed 7) surveyed once: (planted, run result, snapshot dir)."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.synth.cursor import generate

    base = tmp_path_factory.mktemp("cursor")
    root = base / "projects"
    root.mkdir()
    planted = generate(root, seed=7)
    res = run_survey(get("cursor"), root, snapshots=base / "snapshots", reports=base / "reports")
    return planted, res, Path(res.snapshot)
