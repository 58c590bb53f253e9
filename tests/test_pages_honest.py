"""What every page does to stay honest: reference notes are labelled (and checked where the
census can), generated corpora say so, the index keeps every runtime's latest snapshot, and
the summary says what changed since the previous snapshot of the same root."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
from typer.testing import CliRunner

from survey.cli import app
from survey.pipeline import run_survey
from survey.render.render import Page
from survey.runtimes import get
from survey.runtimes.base import Note
from survey.synth.demo import generator
from survey.synth.marker import is_synthetic, marker_path


def _small_cursor(root: Path, marked: bool) -> Path:
    root.mkdir(parents=True)
    if marked:
        generator("cursor")(root, seed=3, sessions=6)
    else:
        from survey.synth.cursor import generate

        generate(root, seed=3, sessions=6)
    return root


def test_reference_notes_are_labelled_and_checked_against_the_census(tmp_path: Path) -> None:
    root = _small_cursor(tmp_path / "projects", marked=False)
    statuses: dict[str, int] = {}

    def holds(kit):
        rows = kit.rows("turn_status")
        statuses.update({r["status"]: int(r["frames"]) for r in rows})
        return bool(rows), kit.ev("turn_status", f"{len(rows)} rows")

    def contradicted(kit):
        return False, kit.ev("turn_status", "0 rows")

    prof = dataclasses.replace(get("cursor"), notes=(
        Note("n_plain", "A client does X at run time.", "a-reference.txt, 2026-01-01"),
        Note("n_holds", "Turns end with a status.", "a-reference.txt, 2026-01-01", check=holds),
        Note("n_contra", "No turn ever ends.", "a-reference.txt, 2026-01-01", check=contradicted),
        Note("n_unknown", "Something undetermined.", "a-reference.txt", check=lambda k: (None, k.ev("turn_status", "?"))),
    ))
    res = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="2026-01-01")
    page = Page(Path(res.snapshot))
    assert page.claims["n_plain"].kind == "reference" and page.claims["n_plain"].provenance == "reference"
    assert page.say("n_plain").startswith("A client does X at run time. **[reference]** [E")
    assert "**[reference, holds: [E" in page.say("n_holds")
    assert "**[reference, CONTRADICTED: [E" in page.say("n_contra")
    assert "**[reference, not determined: [E" in page.say("n_unknown")
    assert statuses  # the check saw the census
    # an unchecked note cites its source, never a query
    ev = page.claims["n_plain"].evidence[0]
    assert ev.source == "reference: a-reference.txt, 2026-01-01"


def test_generated_corpus_is_labelled_and_a_real_one_is_not(tmp_path: Path) -> None:
    gen = _small_cursor(tmp_path / "gen" / "projects", marked=True)
    plain = _small_cursor(tmp_path / "plain" / "projects", marked=False)
    assert is_synthetic(gen) and not is_synthetic(plain)
    assert not marker_path(gen).is_relative_to(gen)  # beside the root, never inside it
    a = run_survey(get("cursor"), gen, snapshots=tmp_path / "s1", reports=tmp_path / "r1", date="2026-01-01")
    b = run_survey(get("cursor"), plain, snapshots=tmp_path / "s2", reports=tmp_path / "r2", date="2026-01-01")
    ma = orjson.loads((Path(a.snapshot) / "manifest.json").read_bytes())
    mb = orjson.loads((Path(b.snapshot) / "manifest.json").read_bytes())
    assert ma["synthetic"] is True and mb["synthetic"] is False
    assert "**Generated corpus.**" in Path(a.page).read_text()
    assert "**Generated corpus.**" not in Path(b.page).read_text()
    # the marker is no corpus file: both roots hold the same files, so the same counts
    assert ma["counts"]["files"] == mb["counts"]["files"]


def test_index_keeps_the_latest_snapshot_of_every_runtime(tmp_path: Path) -> None:
    runner = CliRunner()
    snaps, reps = tmp_path / "snapshots", tmp_path / "reports"
    for rt, date in (("cursor", "2026-01-01"), ("codex", "2026-01-02"), ("cursor", "2026-01-03")):
        root = tmp_path / f"{rt}-{date}"
        root.mkdir()
        generator(rt)(root, seed=5, sessions=4)
        r = runner.invoke(app, ["run", "-r", rt, "--root", str(root), "--snapshots", str(snaps),
                                "--reports", str(reps), "--date", date])
        assert r.exit_code == 0, r.output
    index = (reps / "index.md").read_text()
    # both runtimes have a column, each from its latest snapshot, after a run of one runtime
    assert "(codex.md)" in index and "(cursor.md)" in index
    assert str(snaps / "2026-01-03" / "cursor") in index and str(snaps / "2026-01-02" / "codex") in index
    assert str(snaps / "2026-01-01" / "cursor") not in index
    assert "**Generated corpora.**" in index


def test_summary_says_what_drifted_since_the_previous_snapshot_of_the_root(tmp_path: Path) -> None:
    root = _small_cursor(tmp_path / "projects", marked=False)
    snaps = tmp_path / "snapshots"
    first = run_survey(get("cursor"), root, snapshots=snaps, reports=tmp_path / "r1", date="2026-01-01")
    assert "Since the snapshot of" not in Path(first.page).read_text()
    again = run_survey(get("cursor"), root, snapshots=snaps, reports=tmp_path / "r2", date="2026-01-02")
    text = Path(again.page).read_text()
    assert "Since the snapshot of 2026-01-01 of the same root, no shape drifted: 0 key sets appeared" in text
    # a new key on every user frame: the next page says a shape drifted
    from tests.drift import rewrite_jsonl

    rewrite_jsonl(root, lambda rec, _p: {**rec, "timestamp": "t"})
    third = run_survey(get("cursor"), root, snapshots=snaps, reports=tmp_path / "r3", date="2026-01-03")
    text = Path(third.page).read_text()
    assert "Since the snapshot of 2026-01-02 of the same root, drifted:" in text
    assert "survey diff 2026-01-02 2026-01-03 -r cursor" in text


def test_summary_carries_the_validation_counts_once_validate_has_run(tmp_path: Path) -> None:
    from survey.corpus.privacy import load_salt
    from survey.export.validate import validate
    from survey.render.render import render_page

    root = _small_cursor(tmp_path / "projects", marked=False)
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01")
    assert "records validate against the derived schema" not in Path(res.page).read_text()
    got = validate(Path(res.snapshot), root, load_salt())
    text = render_page(Path(res.snapshot), tmp_path / "r2" / "cursor.md").read_text()
    summary = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert f"{got['valid']:,} of {got['records']:,} records validate against the derived schema" in summary
    assert got["records"] > 0
