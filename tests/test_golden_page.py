"""Golden pages: every runtime's page of its seeded demo corpus, and the index over them, byte for byte.

What is pinned: ``tests/golden/<runtime>.md`` for each runtime in ``survey.runtimes.NAMES`` and
``tests/golden/index.md``. A change to a generator, the walk, the census, the claims or a
template that alters a page shows up here as a unified diff.

How the pages are made, so they are the same on every machine and every run:

- each runtime's generator (``survey/synth``) writes its corpus with the demo seed
  (``DEMO_SEED``, 7) and its default size into a temporary folder;
- the survey runs from that folder with relative ``snapshots/`` and ``reports/`` paths (the
  pages cite ``snapshots/2026-01-01/<runtime>``), the fixed date ``2026-01-01``, no cache, and a
  fixed salt (a private ``SURVEY_CONFIG_DIR`` holding ``SALT``), so any pseudonym a page shows
  is the same everywhere;
- the index is rendered over the six snapshots, in ``NAMES`` order.

Each runtime's page is built once per test session, and only when a test asks for it
(``-k cursor`` builds Cursor's alone); the index builds all six.

Updating, after an intended change::

    SURVEY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_golden_page.py

writes each page that changed, prints its unified diff, and FAILS with "golden updated: review
and commit", so an update never passes unseen. Read the diff (``git diff tests/golden``),
commit it, and run again without the variable: a normal run only compares.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from survey.pipeline import run_survey
from survey.render.index import render_index
from survey.runtimes import NAMES, get
from survey.synth.demo import DEMO_SEED, generator

GOLDEN = Path(__file__).parent / "golden"
DATE = "2026-01-01"
SALT = "5a17" * 16  # the fixed salt's 64 hex digits
UPDATE = bool(os.environ.get("SURVEY_UPDATE_GOLDEN"))
MESSAGE_LIMIT = 20_000


@pytest.fixture(scope="session")
def build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[str, Path]]:
    """``build(runtime)``: (its page's text, its snapshot folder), surveyed once per session."""
    base = tmp_path_factory.mktemp("golden")
    config = base / "config"
    config.mkdir()
    (config / "salt").write_text(SALT)
    (config / "salt").chmod(0o600)
    done: dict[str, tuple[str, Path]] = {}

    def one(runtime: str) -> tuple[str, Path]:
        if runtime not in done:
            with pytest.MonkeyPatch.context() as mp:
                mp.chdir(base)
                mp.setenv("SURVEY_CONFIG_DIR", str(config))
                root = Path("corpora") / runtime
                root.mkdir(parents=True)
                generator(runtime)(root, seed=DEMO_SEED)
                res = run_survey(get(runtime), root, snapshots=Path("snapshots"), reports=Path("reports"),
                                 date=DATE, cache=False)
                done[runtime] = (Path(res.page).read_text(), base / res.snapshot)
        return done[runtime]

    one.base = base  # type: ignore[attr-defined]
    return one


def compare(name: str, text: str) -> None:
    """Fail on a page that differs from its golden; with SURVEY_UPDATE_GOLDEN, write it and fail."""
    path = GOLDEN / name
    old = path.read_text() if path.exists() else ""
    if text == old:
        return
    diff = "".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                        f"a/tests/golden/{name}", f"b/tests/golden/{name}", n=2))
    if len(diff) > MESSAGE_LIMIT:
        diff = diff[:MESSAGE_LIMIT] + f"\n... ({len(diff) - MESSAGE_LIMIT:,} more characters: git diff tests/golden)\n"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(diff)
        pytest.fail(f"golden updated: review and commit tests/golden/{name}\n{diff}")
    if not old:
        pytest.fail(f"no golden page tests/golden/{name}: make it with SURVEY_UPDATE_GOLDEN=1, review and commit")
    pytest.fail(f"the rendered page differs from tests/golden/{name} "
                f"(if intended: SURVEY_UPDATE_GOLDEN=1, review the diff, commit):\n{diff}")


@pytest.mark.parametrize("runtime", NAMES)
def test_page_matches_golden(runtime: str, build: Callable[[str], tuple[str, Path]]) -> None:
    page, _snap = build(runtime)
    compare(f"{runtime}.md", page)


def test_index_matches_golden(build: Callable[[str], tuple[str, Path]]) -> None:
    snaps = [build(r)[1] for r in NAMES]
    base: Path = build.base  # type: ignore[attr-defined]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(base)
        out = render_index([s.relative_to(base) for s in snaps], Path("reports") / "index.md")
        text = out.read_text()
    compare("index.md", text)


def test_golden_folder_holds_one_page_per_runtime_and_the_index() -> None:
    """Every runtime's page and the index; the drift report and the re-checked page have
    their own goldens (tests/test_diff_golden.py, tests/test_recheck_golden.py), the charts theirs
    (tests/test_charts_golden.py)."""
    pages = sorted(p.name for p in GOLDEN.glob("*.md") if not p.name.startswith(("diff-", "recheck-")))
    assert pages == sorted([*(f"{r}.md" for r in NAMES), "index.md"])


def test_an_update_writes_shows_and_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The update path itself: a changed page is written, its diff shown, and the test fails."""
    monkeypatch.setattr(f"{__name__}.GOLDEN", tmp_path)
    monkeypatch.setattr(f"{__name__}.UPDATE", False)
    (tmp_path / "x.md").write_text("a\nb\n")
    compare("x.md", "a\nb\n")  # the same: passes
    with pytest.raises(pytest.fail.Exception, match=r"differs from tests/golden/x\.md"):
        compare("x.md", "a\nc\n")
    assert (tmp_path / "x.md").read_text() == "a\nb\n"  # a normal run never writes
    monkeypatch.setattr(f"{__name__}.UPDATE", True)
    with pytest.raises(pytest.fail.Exception, match="golden updated: review and commit") as exc:
        compare("x.md", "a\nc\n")
    assert "-b\n+c\n" in str(exc.value)
    assert (tmp_path / "x.md").read_text() == "a\nc\n"
    with pytest.raises(pytest.fail.Exception, match="golden updated"):
        compare("new.md", "z\n")  # a page with no golden yet is written too
    assert (tmp_path / "new.md").read_text() == "z\n"
    monkeypatch.setattr(f"{__name__}.UPDATE", False)
    with pytest.raises(pytest.fail.Exception, match="no golden page"):
        compare("missing.md", "z\n")
