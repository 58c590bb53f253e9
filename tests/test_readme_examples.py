"""The README's examples run, and its page excerpt is a real page.

Every ``survey ...`` line of the README's ``sh`` blocks runs, in order, in a fresh folder
with a seeded demo corpus (dates in a line are the day's snapshot name); a line that needs a
real store is skipped only where ``NEEDS_A_REAL_STORE`` says why. The page excerpt's lines
are each found in the Claude Code page that ``survey run --demo`` renders."""

from __future__ import annotations

import datetime as dt
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
EXCERPT = re.compile(r"^````markdown\n(.*?)^````", re.MULTILINE | re.DOTALL)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# a line that cannot run on a generated corpus -> why
NEEDS_A_REAL_STORE = {
    "survey locate": "maps a pseudonym made from a real store back to its file, on the machine that made it",
    "survey merge": "takes snapshots of several machines (one machine's are refused as the same machine twice); "
                    "tests/test_merge.py merges generated machines' snapshots through the same command",
}


def survey_lines() -> list[str]:
    return [ln.strip() for block in SH_BLOCK.findall(README) for ln in block.splitlines()
            if ln.strip().startswith("survey ")]


def test_the_readme_shows_examples() -> None:
    lines = survey_lines()
    assert len(lines) >= 12 and any(ln.startswith("survey run") for ln in lines)


def test_every_survey_line_of_the_readme_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    ran, skipped = [], []
    for line in survey_lines():
        why = next((w for prefix, w in NEEDS_A_REAL_STORE.items() if line.startswith(prefix)), None)
        if why:
            skipped.append(line)
            continue
        argv = shlex.split(DATE.sub(today, line), comments=True)[1:]
        argv = [str(tmp_path / a[len("/tmp/"):]) if a.startswith("/tmp/") else a for a in argv]
        r = CliRunner().invoke(app, argv, env={"COLUMNS": "200"})
        assert r.exit_code == 0, f"{line}\n{r.output}"
        ran.append(line)
    assert len(ran) >= len(survey_lines()) - len(NEEDS_A_REAL_STORE)
    assert (tmp_path / "reports" / "index.md").is_file()


def test_the_page_excerpt_is_from_a_real_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (excerpt,) = EXCERPT.findall(README)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    r = CliRunner().invoke(app, ["-q", "run", "--demo", "-r", "claude_code", "--date", "2026-12-07"])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "reports" / "claude_code.md").read_text().splitlines()
    lines = [ln for ln in excerpt.splitlines() if ln.strip()]
    assert 12 <= len(lines) + excerpt.count("\n\n") <= 22
    missing = [ln for ln in lines if ln not in page]
    assert not missing, "README excerpt lines not on the demo page:\n" + "\n".join(missing)
