"""``make bench`` keeps every run of a day: a second run of the same command is saved beside
the first under a label of its own, never over it; and its repeated incremental re-runs
each start from the state the full run left."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bench import run as B


def test_ordinals() -> None:
    assert [B.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th"]


def test_a_second_run_of_the_day_is_kept_beside_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "RESULTS", tmp_path)
    assert B.fresh_label("2026-12-05", "default") == "default"  # no results yet
    B.save("2026-12-05", "default", {"label": "default", "n": 1})
    second = B.fresh_label("2026-12-05", "default")
    assert second == "default (2nd)"
    B.save("2026-12-05", second, {"label": second, "n": 2})
    B.save("2026-12-05", second, {"label": second, "n": 2, "done": True})  # the run's own saves replace its partial one
    assert B.fresh_label("2026-12-05", "default") == "default (3rd)"
    assert B.fresh_label("2026-12-05", "quick") == "quick" and B.fresh_label("2026-12-06", "default") == "default"
    runs = orjson.loads((tmp_path / "2026-12-05.json").read_bytes())["runs"]
    assert runs == {"default": {"label": "default", "n": 1},
                    "default (2nd)": {"label": "default (2nd)", "n": 2, "done": True}}
    (tmp_path / "2026-12-07.json").write_bytes(b"{not json")  # a damaged file: the label as it is
    assert B.fresh_label("2026-12-07", "default") == "default"


def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_each_repeated_rerun_starts_from_the_state_the_full_run_left(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's re-runs after the first start from hard-linked copies of the caches the full
    run left: a survey replaces its cache files (never writes into one), so a re-run leaves
    the copies as they were, and each re-run serves and walks what the first did."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.synth.demo import generator

    cwd = tmp_path / "work"
    cwd.mkdir()
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(B.survey_cache(cwd)))
    root = tmp_path / "corpus"
    generator("codex")(root, seed=3, sessions=4)
    run_survey(get("codex"), root, snapshots=tmp_path / "s", reports=None, date="d0")
    generator("codex")(tmp_path / "more", seed=4, sessions=1)
    for f in (tmp_path / "more").rglob("*.jsonl"):  # the increment
        dest = root / f.relative_to(tmp_path / "more")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            f.rename(dest)
    left = _tree(B.survey_cache(cwd))
    saved = B.save_state(cwd)
    assert [d for d, _ in saved] == [B.survey_cache(cwd)]
    stats = []
    for i, date in enumerate(("d1", "d2")):
        if i:
            assert _tree(B.survey_cache(cwd)) != left, "the re-run left the cache as it was: nothing tested"
            B.restore_state(saved)
            assert _tree(B.survey_cache(cwd)) == left
        stats.append(run_survey(get("codex"), root, snapshots=tmp_path / "s", reports=None, date=date).cache)
        assert _tree(saved[0][1]) == left, "a re-run wrote into the saved copy"
    assert stats[0]["walked"] > 0 and stats[0]["cache_hits"] > 0
    assert {k: stats[1][k] for k in ("files", "cache_hits", "walked")} == \
        {k: stats[0][k] for k in ("files", "cache_hits", "walked")}


def test_genson_builds_a_schema_of_every_json_line_of_its_sample(tmp_path: Path) -> None:
    """genson is one of the bench's baselines (a dev dependency, so it is measured, not
    skipped): it reads every JSON line of its sample, a malformed one passed over, and its
    rate is the sample's bytes over its time."""
    pytest.importorskip("genson")
    from survey.synth.codex import generate

    generate(tmp_path / "c", seed=3, sessions=4)
    files = sorted((str(p), p.stat().st_size) for p in (tmp_path / "c").rglob("*.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"a": 1}\n{not json\n\n{"b": [1, "x"]}\n')
    files.append((str(bad), bad.stat().st_size))
    sample = B.sample_files(files, 1 << 40, len(files), seed=7)
    got = B.genson_census(sample, sum(s for _, s in files) * 2)
    assert "skipped" not in got
    assert got["files"] == len(files) and got["bytes"] == sum(s for _, s in files)
    assert got["seconds"] > 0 and got["extrapolated"] is True  # (the sample is half of all_bytes)
    assert got["seconds_per_gb"] == pytest.approx(got["seconds"] / (got["bytes"] / B.GB))


def test_genson_absent_is_a_skip_that_says_how_to_add_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "genson" else real(name, *a))
    assert B.genson_census([("x.jsonl", 1)], 1) == {"skipped": "genson not installed (pip install genson to include it)"}


def test_performance_md_shows_the_latest_full_run(tmp_path: Path) -> None:
    """docs/performance.md's table is bench.table's rendering of the newest results file's
    last full run (``make docs`` writes it again): a new results file makes this fail until
    the page shows it."""
    from bench import table

    page = (Path(__file__).resolve().parents[1] / "docs" / "performance.md").read_text()
    assert f"{table.BEGIN}\n{table.markdown()}{table.END}" in page
    # the table follows the results: a newer day's full run replaces it
    name, label, run = table.latest()
    assert label.startswith("default") and any(c["size_mb"] == 1000 for c in run["corpora"])
    copy = tmp_path / "results"
    copy.mkdir()
    src = table.RESULTS / name
    newer = orjson.loads(src.read_bytes())
    newer["runs"] = {"default": run}
    run["corpora"][1]["survey"]["timings"]["total"] = 123.4
    (copy / "2999-01-01.json").write_bytes(orjson.dumps(newer))
    old, table.RESULTS = table.RESULTS, copy
    try:
        assert "123.4 s" in table.markdown() and "`bench/results/2999-01-01.json`" in table.markdown()
    finally:
        table.RESULTS = old
