"""Census queries split per Parquet part (``queries/parts/``) give their reference query's rows,
value for value and type for type: on a fresh survey, on a re-run that keeps most parts' rows
and reads the new ones, and run whole in DuckDB as a reviewer would."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb
import orjson
import pytest

from survey.census import collect, partials, sql
from survey.census.sql import SHARED, fetch, query_files, run_query
from survey.pipeline import RunResult, run_survey
from survey.runtimes import NAMES, get
from survey.runtimes.base import Profile
from survey.snapshot.store import load_json
from survey.synth.demo import generator


def splits(runtime: str) -> list[Path]:
    return [f for f in query_files(get(runtime)) if partials.split_of(f)]


@pytest.fixture(autouse=True)
def split_any_size(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """These corpora's walk tables are a few hundred kB: their census splits as a large
    corpus's does (``sql.SPLIT_MIN_BYTES``), but where a test asks for the real bound."""
    if "real_split_bound" not in request.keywords:
        monkeypatch.setattr(sql, "SPLIT_MIN_BYTES", 0)


@pytest.mark.real_split_bound
def test_a_census_splits_only_where_the_walk_tables_come_to_the_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below ``SPLIT_MIN_BYTES`` of walk tables every query runs whole and keeps no partial
    rows (a re-run runs them whole again); at the bound, the census splits and keeps them.
    The rows are the same either way."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "corpus"
    generator("cursor_stream")(root, seed=5, sessions=6)
    profile = get("cursor_stream")
    small = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    snap = Path(small.snapshot)
    size = sum(p.stat().st_size for p in (snap / "walk").glob("*.parquet/*.parquet"))
    assert 0 < size < sql.SPLIT_MIN_BYTES
    assert not any("split" in v for v in load_json(snap, "census").values())
    assert "census_parts_read" not in small.cache and small.cache["census_whole"] == "walk tables under 8 MB"
    assert not list((tmp_path / "cache").rglob("*.census/*-*.parquet")), "partial rows kept by a census run whole"
    # the same snapshot's census at a bound its tables reach: split, and kept
    monkeypatch.setattr(sql, "SPLIT_MIN_BYTES", size)
    assert sql.splits_pay(snap) and not sql.splits_pay(snap / "nothing-here")
    grow(root, "cursor_stream", seed=6)
    split = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert split.cache["census_parts_read"] > 0 and "census_whole" not in split.cache
    assert any("split" in v for v in load_json(Path(split.snapshot), "census").values())
    assert list((tmp_path / "cache").rglob("*.census/*-*.parquet"))
    monkeypatch.setattr(sql, "SPLIT_MIN_BYTES", 1 << 40)
    whole = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d3")
    assert "census_parts_read" not in whole.cache
    rows = {k: v["rows"] for k, v in load_json(Path(whole.snapshot), "census").items()}
    assert rows == {k: v["rows"] for k, v in load_json(Path(split.snapshot), "census").items()}


def test_every_split_has_its_reference_and_two_statements_over_named_parts() -> None:
    seen = set()
    for rt in NAMES:
        for f in splits(rt):
            split = partials.split_of(f)
            assert split is not None
            make, merge = partials.statements(split)
            assert re.search(r"\bfile_index\s+AS part\b", make) and "partials" in merge, split
            # every table it reads is read through its <table>_parts list, defaulting to all parts
            tables = set(partials._PARTS_VAR.findall(make))
            # (the inventory, one table for the whole snapshot, is read whole)
            assert tables and make.count("/walk/") == make.count("_parts'), [getvariable('snap') || '/walk/"), split
            for t in tables:
                assert f"coalesce(getvariable('{t}_parts'), [getvariable('snap') || '/walk/{t}.parquet'])" in make
            seen.add(split)
    orphans = {p for d in [SHARED, *(get(rt).queries_dir for rt in NAMES)]
               for p in (d / "parts").glob("*.sql")} - seen
    assert not orphans, f"splits with no reference query of that name: {sorted(map(str, orphans))}"
    assert seen, "no split queries at all"


def test_a_splits_chunk_size_is_its_headers_or_the_default() -> None:
    """A split's header may size the runs its first statement reads (``-- Chunk: N MB``;
    the Splitter runs over that size: ``test_a_split_read_a_part_at_a_time...``), and every
    one that does names a size no smaller than the default."""
    assert partials.chunk_limit("-- Question: x\n-- Chunk: 32 MB (few groups)\nCREATE") == 32 << 20
    assert partials.chunk_limit("-- Question: x\nCREATE") == partials.CHUNK_BYTES
    assert partials.chunk_limit("-- Chunks: 32 MB\n") == partials.CHUNK_BYTES
    sized = 0
    for rt in NAMES:
        for f in splits(rt):
            split = partials.split_of(f)
            assert split is not None
            text = split.read_text()
            if "-- Chunk:" in text:
                sized += 1
                assert partials.chunk_limit(text) >= partials.CHUNK_BYTES, split
    assert sized, "no split sizes its runs: this test tests nothing"


def rows_as_json(census: dict, name: str) -> bytes:
    return orjson.dumps(census[name]["rows"])


def split_tables(f: Path) -> list[str]:
    """The walk tables a query's split reads part by part."""
    split = partials.split_of(f)
    return partials._PARTS_VAR.findall(split.read_text()) if split is not None else []


def reference_rows(snap: Path, f: Path) -> bytes:
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(snap)])
    try:
        return orjson.dumps(run_query(con, f)[1])
    finally:
        con.close()


def assert_splits_match(snap: Path, runtime: str, expect_split: bool) -> int:
    """Each split query's census rows are its reference's (and the split run whole, as the
    duckdb CLI would, gives them too). Returns how many were served split."""
    census = load_json(snap, "census")
    served = 0
    for f in splits(runtime):
        want = reference_rows(snap, f)
        assert rows_as_json(census, f.stem) == want, f.stem
        served += "split" in census[f.stem]
        con = duckdb.connect()
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        split = partials.split_of(f)
        assert split is not None
        assert orjson.dumps(fetch(con, split.read_text())[1]) == want, f"{split} run whole"
        con.close()
    if expect_split:  # every split whose tables the walk wrote in parts (no block carrier: no blocks part)
        servable = [f for f in splits(runtime) if all((snap / "walk" / f"{t}.parquet").is_dir() for t in split_tables(f))]
        assert served == len(servable), "a split query fell back to its reference"
    return served


def merge_into(src: Path, dst: Path) -> None:
    """Move ``src``'s entries into ``dst`` where new, into its folders where they exist (new
    sessions inside existing projects, as a live store grows)."""
    for e in sorted(src.iterdir()):
        d = dst / e.name
        if not d.exists():
            shutil.move(str(e), d)
        elif e.is_dir() and d.is_dir():
            merge_into(e, d)


def grow(root: Path, runtime: str, seed: int) -> None:
    """Add a few sessions, append a line to one transcript, remove one file."""
    before = sorted(p for p in root.rglob("*") if p.is_file())
    extra = root.parent / f"extra-{seed}"
    generator(runtime)(extra, seed=seed, sessions=3)
    merge_into(extra, root)
    shutil.rmtree(extra)
    old = sorted(p for p in root.rglob("*.jsonl") if p.stat().st_size)
    if old:
        with open(old[0], "ab") as fh:
            fh.write(old[0].read_bytes().splitlines()[0] + b"\n")
        st = old[0].stat()
        os.utime(old[0], ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    before[len(before) // 2].unlink()


@pytest.mark.parametrize("runtime", [rt for rt in NAMES if splits(rt)])
def test_split_queries_give_the_reference_rows_fresh_and_on_a_rerun(
        tmp_path: Path, runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)  # a part per file: many parts, as a large corpus has
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=11, sessions=12)
    profile = get(runtime)
    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    assert first.cache["census_parts_kept"] == 0 and first.cache["census_parts_read"] > 0
    assert_splits_match(Path(first.snapshot), runtime, expect_split=True)

    grow(root, runtime, seed=12)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_kept"] > 0, "the re-run kept no part's rows"
    assert 0 < again.cache["census_parts_read"] < first.cache["census_parts_read"]
    assert_splits_match(Path(again.snapshot), runtime, expect_split=True)
    # and the whole census is a fresh survey's, without the cache
    fresh = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    got = load_json(Path(again.snapshot), "census")
    want = load_json(Path(fresh.snapshot), "census")
    assert {k: v["rows"] for k, v in got.items()} == {k: v["rows"] for k, v in want.items()}
    assert not any("split" in v for v in want.values()), "split without a cache to keep rows in"


@pytest.mark.parametrize("runtime", ["claude_code", "codex", "cursor_stream"])
def test_a_split_read_a_part_at_a_time_gives_the_reference_rows(
        tmp_path: Path, runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first statement of a split runs over a few MB of parts at a time: with one
    part a chunk, fresh and on a re-run, every split still gives its reference's rows (each
    chunk's part numbers name its own parts)."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 2)
    monkeypatch.setattr(partials, "chunk_limit", lambda text: 1)  # (a split's own size too)
    runs = []
    real = partials._chunks
    monkeypatch.setattr(partials, "_chunks",
                        lambda todo, where, limit: runs.append((len(todo), limit)) or real(todo, where, limit))
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=11, sessions=12)
    profile = get(runtime)
    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    assert max(n for n, _ in runs) > 1, "no split read more than one part: this test tests nothing"
    assert {limit for _, limit in runs} == {1}, "a split ran over runs of another size than its own"
    assert_splits_match(Path(first.snapshot), runtime, expect_split=True)
    grow(root, runtime, seed=12)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert_splits_match(Path(again.snapshot), runtime, expect_split=True)


def surveyed_then_grown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Profile, Path]:
    """A cursor_stream corpus surveyed once with kept partial rows, then grown: the next run
    is a re-run that reads kept rows and new parts."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 2)
    root = tmp_path / "corpus"
    generator("cursor_stream")(root, seed=5, sessions=6)
    profile = get("cursor_stream")
    run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    grow(root, "cursor_stream", seed=6)
    return profile, root


def test_a_split_out_of_memory_beside_the_others_runs_split_again_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A split query DuckDB cannot fit in memory beside the others runs again alone, split
    (its kept rows still serve), not as its reference; its rows are the reference's."""
    from contextlib import contextmanager

    profile, root = surveyed_then_grown(tmp_path, monkeypatch)
    real = partials.Splitter.partials
    seen: list[str] = []

    @contextmanager
    def flaky(self, cur, split):  # type: ignore[no-untyped-def]
        if split.stem == "frame_status" and not seen:
            seen.append(split.stem)
            raise duckdb.OutOfMemoryException("Out of Memory Error: planted")
        with real(self, cur, split) as merge:
            yield merge

    monkeypatch.setattr(partials.Splitter, "partials", flaky)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert seen == ["frame_status"]
    census = load_json(Path(again.snapshot), "census")
    assert census["frame_status"].get("split"), "run again as its reference, not split"
    assert again.cache["census_parts_kept"] > 0
    assert_splits_match(Path(again.snapshot), "cursor_stream", expect_split=True)


def test_a_kept_file_gone_before_the_merge_reads_it_runs_the_reference(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The merge reads kept files in place: one deleted between the listing and the merge
    (another survey of the same root kept its own rows) is a counted store error and the
    reference query's rows, never a failed census."""
    profile, root = surveyed_then_grown(tmp_path, monkeypatch)
    real = partials.Splitter._kept_labels
    gone: list[str] = []

    def then_deleted(self, cur, kept, live):  # type: ignore[no-untyped-def]
        got = real(self, cur, kept, live)
        if kept and kept[0].name.startswith("frame_status-"):
            for f in kept:
                f.unlink()
                gone.append(f.name)
        return got

    monkeypatch.setattr(partials.Splitter, "_kept_labels", then_deleted)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert gone, "no kept file of frame_status was listed: this test tests nothing"
    census = load_json(Path(again.snapshot), "census")
    assert "split" not in census["frame_status"]
    assert orjson.dumps(census["frame_status"]["rows"]) == reference_rows(
        Path(again.snapshot), next(f for f in splits("cursor_stream") if f.stem == "frame_status"))
    assert again.cache["census_store_errors"] == {"IOException": 1}


def test_a_rerun_keeps_only_its_new_rows_and_the_store_stays_small(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-run writes the rows of the parts it read into a file of its own beside the kept
    ones (it does not write every kept row again), a file whose labels are all gone is
    deleted, and past ``KEPT_FILES`` files the live rows go into one; the rows are the
    reference's throughout."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    monkeypatch.setattr(partials, "KEPT_FILES", 2)
    root = tmp_path / "corpus"
    generator("claude_code")(root, seed=11, sessions=12)
    profile = get("claude_code")
    names = [f.stem for f in splits("claude_code")]

    def kept() -> dict[str, list[Path]]:
        got: dict[str, list[Path]] = {n: [] for n in names}
        for f in (tmp_path / "cache").rglob("*.census/*.parquet"):
            got[f.name.rsplit("-", 2)[0]].append(f)
        return got

    counts = []
    for i, date in enumerate(("d1", "d2", "d3")):
        if i:
            grow(root, "claude_code", seed=20 + i)
        before = {f: f.stat().st_mtime_ns for fs in kept().values() for f in fs}
        res = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date=date)
        assert_splits_match(Path(res.snapshot), "claude_code", expect_split=True)
        now = kept()
        counts.append({n: len(fs) for n, fs in now.items()})
        if i == 1:  # the first run's files are read in place, not written again
            assert all(before[f] == f.stat().st_mtime_ns for fs in now.values() for f in fs if f in before)
    assert set(counts[0].values()) == {1}
    assert set(counts[1].values()) == {2}, "the re-run did not keep its rows beside the first run's"
    assert set(counts[2].values()) == {1}, "past KEPT_FILES the rows were not written into one"


def surveyed_with_kept_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str, sessions: int,
                            batch_files: int) -> tuple[Profile, Path, RunResult, list[Path]]:
    """A generated corpus surveyed once with a cache (``batch_files`` files a part): its
    profile, root and run, and the files of partial rows the run kept."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", batch_files)
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=5, sessions=sessions)
    profile = get(runtime)
    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    return profile, root, first, sorted((tmp_path / "cache").rglob("*.census/*.parquet"))


def forget_census(tmp_path: Path) -> None:
    """Drop the census a run kept whole (``sql.RESULTS_FILE``): a re-run that changed
    nothing would take it and run no split, and these tests are of the splits."""
    (kept,) = (tmp_path / "cache").rglob(f"*.census/{sql.RESULTS_FILE}")
    kept.unlink()


def test_a_rerun_of_an_unchanged_corpus_reads_no_part_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every part a split read is kept: its rows, or its label alone where it gave none (most
    parts give a narrow split nothing). So a re-run with nothing changed reads no part."""
    profile, root, first, kept = surveyed_with_kept_rows(tmp_path, monkeypatch, "claude_code", 6, 1)
    [(bare,)] = duckdb.sql(f"SELECT count(*) FROM read_parquet({[str(f) for f in kept]}, union_by_name = true) "
                           "WHERE _only_label").fetchall()
    assert bare > 0, "no part kept as its label alone: the test tests nothing"
    forget_census(tmp_path)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_read"] == 0
    assert again.cache["census_parts_kept"] == first.cache["census_parts_read"]
    assert_splits_match(Path(again.snapshot), "claude_code", expect_split=True)


def test_a_damaged_store_is_read_again_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile, root, first, kept = surveyed_with_kept_rows(tmp_path, monkeypatch, "cursor_stream", 10, 4)
    assert kept, "no partial rows kept"
    for f in kept:
        f.write_bytes(b"PAR1 not really")
    forget_census(tmp_path)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_kept"] == 0
    assert sum(again.cache["census_store_errors"].values()) == len(kept), "each damaged file counted"
    assert again.cache["census_parts_read"] == first.cache["census_parts_read"]
    assert_splits_match(Path(again.snapshot), "cursor_stream", expect_split=True)


@pytest.mark.parametrize("runtime", ["claude_code", "cursor_stream"])
def test_discover_mode_runs_the_reference_where_the_collapse_rewrote_a_table(
        tmp_path: Path, runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discover mode collapses rare keys, rewriting frames, blocks, nodes, values and their
    counts whole (no part labels): a split over such a table runs its reference, and every
    row is the reference's. (In these corpora every split reads such a table, so none is
    served split: the count fails a split served without its labels.)"""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=3, sessions=10)
    profile = get(runtime)
    for date in ("d1", "d2"):
        res = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date=date, mode="discover")
        snap = Path(res.snapshot)
        linked = {p.name.removesuffix(".parquet") for p in (snap / "walk").iterdir() if p.is_dir()}
        servable = 0
        for f in splits(runtime):
            split = partials.split_of(f)
            assert split is not None
            servable += set(partials._PARTS_VAR.findall(partials.statements(split)[0])) <= linked
        assert "frames" not in linked, "the collapse rewrote nothing: this test tests nothing"
        assert assert_splits_match(snap, runtime, expect_split=False) == servable


def test_a_query_that_fails_mid_split_leaves_its_error_and_a_clean_cursor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The error of a merge that fails reaches the caller as it is, and the cursor keeps no
    table, view or variable of the split (the next query runs on the same cursor)."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("cursor_stream")(root, seed=5, sessions=4)
    seen: dict = {}
    real = partials.Splitter

    def spy(snap_dir, labels, store, spill):  # the labels the pipeline hands the census
        seen.update(snap=snap_dir, labels=labels)
        return real(snap_dir, labels, store, spill)

    monkeypatch.setattr("survey.census.sql.Splitter", spy)
    res = run_survey(get("cursor_stream"), root, snapshots=tmp_path / "s", reports=None, date="d1")
    snap = Path(res.snapshot)
    splitter = real(snap, seen["labels"], None, str(tmp_path))
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(snap)])
    split = partials.split_of(next(f for f in splits("cursor_stream") if f.stem == "families"))
    assert split is not None
    def narrow_fails(cur, table):  # after the split's own CREATE: partials is still its table
        raise RuntimeError("between the split's statements")

    for fail_at in ("merge", "after", "between"):
        want = {"merge": duckdb.BinderException, "after": KeyError, "between": RuntimeError}[fail_at]
        with pytest.MonkeyPatch.context() as mp:
            if fail_at == "between":
                mp.setattr(partials, "_narrow", narrow_fails)
            with pytest.raises(want), splitter.partials(con, split) as merge:
                assert merge is not None
                if fail_at == "merge":
                    con.execute(merge.replace("sum(events)", "sum(no_such_column)"))
                raise KeyError("the caller's own error")
        left = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary UNION ALL "
                           "SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal").fetchall()
        assert left == [], left
        assert con.execute("SELECT getvariable('frame_counts_parts')").fetchall() == [(None,)]
    # and the cursor still serves the split
    with splitter.partials(con, split) as merge:
        assert merge is not None
        assert orjson.dumps(fetch(con, merge)[1]) == reference_rows(snap, split.parent.parent / split.name)


def test_capture_endings_split_counts_the_captures_with_no_frame(tmp_path: Path) -> None:
    """The split keeps counts per part, not a row per capture: the captures the walk gave no
    frame (none in any part) are every capture listed less those counted, and fall in with
    those whose frames hold no JSON event, as the reference's join from the inventory has it."""
    import polars as pl

    snap = tmp_path / "snap"
    inv = snap / "inventory" / "stratum=2026-01"
    inv.mkdir(parents=True)
    ids = [f"f-{i:016x}" for i in range(1, 9)]
    pl.DataFrame({"file_id": ids, "surface": ["capture"] * 7 + ["other"], "sampled": [True] * 6 + [False, True]}
                 ).write_parquet(inv / "part.parquet")
    frames = snap / "walk" / "frames.parquet"
    frames.mkdir(parents=True)
    rows = [(1, 0, "system/init", "ok"), (1, 1, "result/success", "ok"), (2, 0, "result/success", "ok"),
            (3, 0, None, "partial"),            # cut off before any JSON event
            (4, 0, None, "non_json")]           # no JSON event, not cut off: with 5 and 6, which have no frame
    rows += [(8, 0, "result/success", "ok"), (7, 0, "result/success", "ok")]  # not a sampled capture
    for k, part in enumerate((rows[:3], rows[3:])):
        pl.DataFrame(part, schema={"file_key": pl.UInt64, "line_no": pl.Int64, "rclass": pl.String,
                                   "frame_status": pl.String}, orient="row").write_parquet(frames / f"part-{k:06d}.parquet")
    ref = next(f for f in splits("cursor_stream") if f.stem == "capture_endings")
    split = partials.split_of(ref)
    assert split is not None
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(snap)])
    want = run_query(con, ref)[1]
    assert want == [["<no JSON event>", False, 3], ["result/success", False, 2], ["<no JSON event>", True, 1]]
    assert fetch(con, split.read_text())[1] == want


_JOINS_ON_PART = [re.compile(p) for p in (r"[\w.]*\bfile_index\s*=", r"=\s*[\w.]*\bfile_index\b",
                                          r"USING\s*\([^)]*\bpart\b", r"\b\w+\.part\s*=\s*\w+\.\w+")]


def test_no_split_joins_two_tables_on_their_part_number() -> None:
    """A part's number (``file_index``) is its place in its table's list. The survey aligns
    the lists by label, but run whole in the CLI each table lists its own parts, and a batch
    that gave a table no rows left it no part: joined on the number, rows of two tables
    would then miss each other. A file's rows are all in one part, so joins are on the
    file (``file_key``) and the part is taken from one side."""
    for rt in NAMES:
        for f in splits(rt):
            split = partials.split_of(f)
            assert split is not None
            make = re.sub(r"--[^\n]*", "", partials.statements(split)[0])
            bad = [rx.pattern for rx in _JOINS_ON_PART if rx.search(make)]
            assert not bad, f"{split}: joins on a part number ({bad})"


def test_codex_splits_run_whole_where_a_table_has_no_part_for_a_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rollout with no call (no number or marker rows) leaves those tables no part for its
    batch: the splits, run whole as a reviewer would, still give the reference's rows."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("codex")(root, seed=11, sessions=6)
    src = sorted(root.rglob("rollout-*.jsonl"))[0]
    lines = src.read_bytes().splitlines(keepends=True)
    talk = [ln for ln in lines if b'"type":"message"' in ln and b"call_id" not in ln]
    # the largest file, so the first batch: every later part of those tables moves up a place
    (src.parent / (src.name[:-10] + "ffffff.jsonl")).write_bytes(lines[0] + b"".join(talk) * 200)
    res = run_survey(get("codex"), root, snapshots=tmp_path / "s", reports=None, date="d1")
    walk = Path(res.snapshot) / "walk"
    parts = {t: len(list((walk / f"{t}.parquet").glob("*.parquet"))) for t in ("frames", "numbers", "markers")}
    assert parts["numbers"] < parts["frames"] and parts["markers"] < parts["frames"], parts
    assert_splits_match(Path(res.snapshot), "codex", expect_split=True)


def test_uuid_dag_split_finds_dangling_parents_in_parts_old_and_new(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``uuid_dag``'s split keeps each file's figures per part, but whether a dangling parent
    is a uuid of another file is asked at the merge, of every part: a resumed session whose
    parent is in a file surveyed before (an old part), and one whose parent appears only in a
    file added since (its own part kept, the uuid in a new one), both count as found."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("claude_code")(root, seed=11, sessions=3)
    parent = sorted(p for p in root.glob("*/*.jsonl"))[0]
    known_uuid = orjson.loads(parent.read_bytes().splitlines()[-1])["uuid"]

    def session(name: str, parent_uuid: str, uuid: str) -> None:
        rec = {"parentUuid": parent_uuid, "isSidechain": False, "sessionId": name, "type": "user",
               "message": {"role": "user", "content": "resumed"}, "uuid": uuid, "timestamp": "2025-09-03T17:12:39.649Z"}
        (parent.parent / f"{name}.jsonl").write_bytes(orjson.dumps(rec) + b"\n")

    session("11111111-1111-4111-8111-111111111111", known_uuid, "c-1")       # found: an old file's uuid
    session("22222222-2222-4222-8222-222222222222", "not-yet-a-uuid", "c-2")  # not found, for now
    profile = get("claude_code")
    ref = next(f for f in splits("claude_code") if f.stem == "uuid_dag")

    def found(snap: Path) -> int:
        rows = load_json(snap, "census")["uuid_dag"]["rows"]
        assert orjson.dumps(rows) == reference_rows(snap, ref)
        return sum(r[-1] for r in rows)

    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    assert "split" in load_json(Path(first.snapshot), "census")["uuid_dag"]
    assert found(Path(first.snapshot)) == 1
    session("33333333-3333-4333-8333-333333333333", "c-1", "not-yet-a-uuid")  # a new file holds the uuid
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_kept"] > 0
    assert found(Path(again.snapshot)) == 3  # the old part's dangling parent resolves now


def test_tool_pairs_split_finds_orphan_results_called_in_parts_old_and_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tool_pairs``' split keeps each file's pairs per part, but whether an orphan result's
    id is a call in another file is asked at the merge, of every part: a result whose call is
    in a file surveyed before (an old part), and one whose call appears only in a file added
    since (its own part kept, the call in a new one), both count."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("claude_code")(root, seed=11, sessions=3)
    parent = sorted(p for p in root.glob("*/*.jsonl"))[0]
    called = next(c["id"] for line in parent.read_bytes().splitlines() if line.strip()
                  for c in (orjson.loads(line).get("message") or {}).get("content") or []
                  if isinstance(c, dict) and c.get("type") == "tool_use")

    def session(name: str, content: dict, role: str) -> None:
        rec = {"parentUuid": None, "isSidechain": False, "sessionId": name, "type": role, "uuid": f"u-{name}",
               "message": {"role": role, "content": [content]}, "timestamp": "2025-09-03T17:12:39.649Z"}
        (parent.parent / f"{name}.jsonl").write_bytes(orjson.dumps(rec) + b"\n")

    def result(tool_id: str) -> dict:
        return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}

    session("11111111-1111-4111-8111-111111111111", result(called), "user")          # called in an old file
    session("22222222-2222-4222-8222-222222222222", result("toolu_later"), "user")   # not called, for now
    profile = get("claude_code")
    ref = next(f for f in splits("claude_code") if f.stem == "tool_pairs")

    def elsewhere(snap: Path) -> int:
        got = load_json(snap, "census")["tool_pairs"]
        assert "split" in got and orjson.dumps(got["rows"]) == reference_rows(snap, ref)
        return sum(r[6] for r in got["rows"])

    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    assert elsewhere(Path(first.snapshot)) == 1
    session("33333333-3333-4333-8333-333333333333",
            {"type": "tool_use", "id": "toolu_later", "name": "Read", "input": {}}, "assistant")
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_kept"] > 0
    assert elsewhere(Path(again.snapshot)) == 2  # the old part's orphan finds its call now


def test_meta_join_split_joins_metas_and_calls_of_parts_old_and_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``meta_join``'s split keeps each part's meta ids and call ids, and joins them at the
    merge, over every part: a meta file added since, naming a call of a parent surveyed before
    (the call in an old part), and a meta surveyed before whose call its parent appends since
    (the meta's part kept, the call in a new one), both join, as the reference has it."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("claude_code")(root, seed=11, sessions=3)
    parent = next(p for p in sorted(root.glob("*/*.jsonl")) if (p.parent / p.stem / "subagents").is_dir())
    subagents = parent.parent / parent.stem / "subagents"
    records = []
    for line in parent.read_bytes().splitlines():  # (the generator plants damaged lines too)
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            continue
    called = [c["id"] for r in records if isinstance(r, dict)
              for c in (r.get("message") or {}).get("content") or []
              if isinstance(c, dict) and c.get("type") == "tool_use"]

    def meta(name: str, tool_use_id: str) -> None:
        (subagents / f"agent-{name}.meta.json").write_bytes(orjson.dumps(
            {"agentType": "general-purpose", "description": "d", "toolUseId": tool_use_id}))

    meta("later01", "toolu_later")  # no call yet
    profile = get("claude_code")
    ref = next(f for f in splits("claude_code") if f.stem == "meta_join")

    def joined(snap: Path) -> tuple[int, int]:
        got = load_json(snap, "census")["meta_join"]
        assert "split" in got and orjson.dumps(got["rows"]) == reference_rows(snap, ref)
        row = next(r for r in got["rows"] if r[0] == "subagent_meta")
        return row[3], row[4]

    first = joined(Path(run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1").snapshot))
    meta("newer01", called[-1])  # a new meta, its call in an old part
    last = next(r for r in reversed(records) if isinstance(r, dict) and r.get("uuid"))
    call = {**last, "type": "assistant", "uuid": "u-later", "parentUuid": last["uuid"],
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_later", "name": "Task", "input": {}}]}}
    with parent.open("ab") as f:  # the old meta's call, appended: its parent walked again
        f.write(b"\n" + orjson.dumps(call) + b"\n")  # (on a line of its own: the file may end mid-line)
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["census_parts_kept"] > 0
    assert joined(Path(again.snapshot)) == (first[0] + 2, first[1] + 2)


def test_usage_dedup_split_groups_a_message_found_in_two_parts(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``usage_dedup``'s merge groups again only the messages found in more than one part: a
    resumed session that copies an assistant record (its usage, message and session ids)
    into a file of its own, surveyed with the first (two parts) and added after it (an old
    part kept, the copy in a new one), is counted once either way, as the reference has it."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(collect, "BATCH_FILES", 1)
    root = tmp_path / "corpus"
    generator("claude_code")(root, seed=11, sessions=3)
    parent = sorted(p for p in root.glob("*/*.jsonl"))[0]
    record = next(line for line in parent.read_bytes().splitlines() if line.strip()
                  and ((orjson.loads(line).get("message") or {}).get("usage") or {}).get("output_tokens"))
    profile = get("claude_code")
    ref = next(f for f in splits("claude_code") if f.stem == "usage_dedup")

    def rows(snap: Path) -> dict:
        got = load_json(snap, "census")["usage_dedup"]
        assert "split" in got and orjson.dumps(got["rows"]) == reference_rows(snap, ref)
        return {r[0]: r for r in got["rows"]}

    first = rows(Path(run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1").snapshot))
    (parent.parent / "copy-1.jsonl").write_bytes(record + b"\n")  # in a new part, beside an old one
    again = rows(Path(run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2").snapshot))
    out = again["output_tokens"]
    assert out[1] == first["output_tokens"][1] + 1, "the copy's record is not counted"
    assert out[2] == first["output_tokens"][2], "the copied message counted as a new one"
    assert out[3] >= 1 and out[6] == first["output_tokens"][6]  # repeated, and deduplicated


def test_usage_dedup_split_reads_one_message_and_session_id_a_line(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``usage_dedup``'s split takes a line's message and session ids from one grouping of its
    links, which gives the reference's joins only where a line has at most one of each: so
    do the walk's links at those paths (no array step), a key given twice in a line
    included, and the split's rows are the reference's for lines with and without a
    session id, and with a key given twice."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    profile = get("claude_code")
    for kind in ("message", "session"):
        assert "[" not in profile.links[kind], f"{kind}'s path has an array step: the split's grouping is not its joins"
    root = tmp_path / "corpus" / "proj"
    root.mkdir(parents=True)
    usage = '"usage":{"input_tokens":%d,"output_tokens":7}'
    (root / "11111111-1111-4111-8111-111111111111.jsonl").write_text("\n".join([
        '{"type":"assistant","uuid":"u1","sessionId":"s1","sessionId":"s2","message":{"id":"m1","id":"m2",'
        '"role":"assistant",%s}}' % (usage % 5),
        '{"type":"assistant","uuid":"u2","sessionId":"s1","message":{"id":"m3","role":"assistant",%s}}' % (usage % 1),
        '{"type":"assistant","uuid":"u3","message":{"id":"m4","role":"assistant",%s}}' % (usage % 2),
        '{"type":"assistant","uuid":"u4","sessionId":"s1","message":{"role":"assistant",%s}}' % (usage % 3),
        '{"type":"assistant","uuid":"u5","sessionId":"s1","message":{"id":"m3","role":"assistant",%s}}' % (usage % 4),
    ]) + "\n")
    snap = Path(run_survey(profile, root.parent, snapshots=tmp_path / "s", reports=None, date="d1").snapshot)
    con = duckdb.connect()
    most = con.execute("SELECT max(n) FROM (SELECT count(*) AS n FROM read_parquet(?) WHERE kind IN ('message', 'session') "
                       "GROUP BY file_key, line_no, kind)", [str(snap / "walk" / "links.parquet" / "*.parquet")]).fetchone()
    con.close()
    assert most == (1,)
    got = load_json(snap, "census")["usage_dedup"]
    ref = next(f for f in splits("claude_code") if f.stem == "usage_dedup")
    assert "split" in got and orjson.dumps(got["rows"]) == reference_rows(snap, ref)
    assert {r[0]: r[1] for r in got["rows"]}["input_tokens"] == 4  # the line without a message id is no message's
