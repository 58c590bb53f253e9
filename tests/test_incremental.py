"""Incremental re-surveys reuse unchanged files, never serve a changed or vanished one,
and give a census identical to a fresh full run."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from survey.pipeline import run_survey
from survey.runtimes import get
from survey.snapshot.store import load_json
from survey.synth.cursor import generate

CURSOR = get("cursor")


def census_without_commands(snap: str) -> dict:
    c = load_json(Path(snap), "census")
    return {k: v["rows"] for k, v in c.items()}


_IDS = st.one_of(st.integers(0, 40).map(lambda n: f"f-{n:016x}"), st.integers(0, 40).map(lambda n: f"f-{n:016X}"),
                 st.integers(0, 40).map(lambda n: f"i-{n:016x}"), st.sampled_from(["f-", "f-zz", "", "f-1", "bad"]),
                 st.none())


@settings(max_examples=300, deadline=None)
@given(left=st.lists(_IDS, max_size=12), right=st.lists(_IDS, max_size=12), odd=st.booleans())
def test_joining_file_ids_is_the_string_join(left: list, right: list, odd: bool) -> None:
    """``join_ids`` gives the string join's rows, in its order, for any ids (nulls, repeats,
    anything that is not a pseudonym); where both sides hold the same distinct ids in the
    same order it sets the columns side by side without a join, and with an id repeated
    it joins."""
    import polars as pl

    from survey.corpus import crawl as K

    lf = pl.DataFrame({"file_id": left, "a": range(len(left))}, schema={"file_id": pl.String, "a": pl.Int64})
    rf = pl.DataFrame({"file_id": right, "b": range(len(right))}, schema={"file_id": pl.String, "b": pl.Int64})
    same = pl.DataFrame({"file_id": left, "b": range(len(left))}, schema={"file_id": pl.String, "b": pl.Int64})
    for r in (rf, same):
        assert K.join_ids(lf, r).equals(lf.join(r, on="file_id", how="left", maintain_order="left"))
    if not odd:
        return
    canon = pl.DataFrame({"file_id": [f"f-{n:016x}" for n in range(20)]})
    joins: list[object] = []
    real = pl.DataFrame.join
    try:
        pl.DataFrame.join = lambda self, *a, **k: joins.append(k.get("on")) or real(self, *a, **k)  # type: ignore[method-assign]
        aligned = K.join_ids(canon, canon.with_columns(b=pl.lit(1)))
        assert joins == [] and aligned.columns == ["file_id", "b"] and aligned.height == 20
        repeated = pl.concat([canon.head(19), canon.head(1)])
        assert K.join_ids(repeated, repeated.with_columns(b=pl.lit(1))).height == 22  # (20 + the repeat's 2)
        assert joins == ["file_id"]
    finally:
        pl.DataFrame.join = real  # type: ignore[method-assign]


def test_ids_are_counted_as_their_numbers_and_never_called_distinct_when_they_are_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import polars as pl

    from survey.corpus.crawl import ids_distinct

    counted: list[pl.DataType] = []
    real = pl.Series.n_unique
    monkeypatch.setattr(pl.Series, "n_unique", lambda self: counted.append(self.dtype) or real(self))
    ids = [f"f-{n * 0x9E3779B97F4A7C15 % (1 << 64):016x}" for n in range(1000)]
    assert ids_distinct(pl.Series(ids)) and counted == [pl.UInt64]  # pseudonyms: as numbers
    assert not ids_distinct(pl.Series([*ids, ids[500]]))
    counted.clear()
    assert ids_distinct(pl.Series([*ids, "x"])) and counted == [pl.String]  # not all pseudonyms: as strings
    assert not ids_distinct(pl.Series([*ids, "x", "x"])) and not ids_distinct(pl.Series([*ids, None, None]))
    # one number, two strings: not called distinct (a join follows), never the other way round
    assert not ids_distinct(pl.Series(["f-00000000000000ff", "g-00000000000000FF"]))


def test_an_inventory_counts_its_ids_once_for_its_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Inventory.with_names`` counts the crawl's ids once (are they distinct?), for every
    frame in the crawl's order after it, and gives each row its own path either way."""
    import polars as pl

    from survey.corpus.crawl import crawl
    from survey.corpus.privacy import load_salt

    root = tmp_path / "projects"
    generate(root, seed=3, sessions=6)
    inv = crawl(root, CURSOR, load_salt())
    counted: list[int] = []
    real = pl.Series.n_unique
    monkeypatch.setattr(pl.Series, "n_unique", lambda self: counted.append(len(self)) or real(self))
    frame = inv.frame.select("file_id")
    first, second = inv.with_names(frame), inv.with_names(frame.with_columns(x=pl.lit(1)))
    assert counted == [inv.names.height] and inv.names_distinct is True
    assert first["path"].equals(second["path"]) and first["path"].null_count() == 0
    assert [p for p in inv.paths_of(frame["file_id"].reverse())] == [p for p in reversed(inv.paths_of(frame["file_id"]))]
    assert sorted(inv.paths_of(frame["file_id"])) == sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("runtime", ["cursor", "claude_code", "cursor_chats"])
def test_a_rerun_that_changed_nothing_takes_the_census_it_kept(tmp_path: Path, runtime: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-run whose snapshot holds what the last one held (the same walk parts, the same
    inventory rows) takes the census the last run kept, rows and all, not computed again;
    any change to a file (a touch is enough: its row changes), to the census's code or to
    the kept file, and the census runs, and gives a fresh run's rows."""
    import survey
    from survey.census import sql
    from survey.synth.demo import generator

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=5, sessions=6)
    prof = get(runtime)

    def survey_(date: str, **kw: object) -> tuple[dict, dict]:
        res = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date=date, **kw)  # type: ignore[arg-type]
        return res.cache or {}, load_json(Path(res.snapshot), "census")

    first_stats, first = survey_("d1")
    assert "census_reused" not in first_stats
    stats, again = survey_("d2")
    assert stats["census_reused"] == len(first) == len(sql.query_files(prof))
    assert again == {k: {**v, "command": v["command"].replace("/d1/", "/d2/")} for k, v in first.items()}
    assert again != first  # (each command names its own snapshot)
    _, fresh = survey_("fresh", cache=False)
    assert {k: v["rows"] for k, v in again.items()} == {k: v["rows"] for k, v in fresh.items()}

    def rows(census: dict) -> dict:
        return {k: v["rows"] for k, v in census.items()}

    # a touched file: its mtime (and the strata) may move, so nothing is taken
    victim = sorted(p for p in root.rglob("*") if p.is_file())[0]
    os.utime(victim, ns=(victim.stat().st_atime_ns, victim.stat().st_mtime_ns - 86_400 * 10**9 * 400))
    stats, touched = survey_("d3")
    assert "census_reused" not in stats and rows(touched) == rows(survey_("fresh2", cache=False)[1])
    assert rows(touched) != rows(first), "the touch changed no row of the census: nothing tested"
    assert survey_("d4")[0]["census_reused"] == len(first)  # (kept again, for the files as they are now)
    # the census's code: another version of the survey
    monkeypatch.setattr(survey, "__version__", survey.__version__ + "+edited")
    assert "census_reused" not in survey_("d5")[0]
    assert survey_("d6")[0]["census_reused"] == len(first)
    # a kept file that cannot be read: the census runs, and keeps a readable one
    (kept,) = (tmp_path / "cache").rglob(sql.RESULTS_FILE)
    kept.write_bytes(kept.read_bytes()[:-9])
    stats, mended = survey_("d7")
    assert "census_reused" not in stats and rows(mended) == rows(touched)
    assert survey_("d8")[0]["census_reused"] == len(first)


@pytest.mark.parametrize("runtime", ["cursor", "claude_code"])
def test_a_rerun_that_changed_nothing_leaves_the_walk_cache_as_it_was(tmp_path: Path, runtime: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Where every file is served from parts that each still serve all their files, and the
    volatile files' checks come out as kept, the walk's cache is left as it is, not written
    again; its snapshot's census (run, not taken from the kept one) is a fresh run's. A
    changed file, and the cache is written again."""
    import polars as pl

    from survey.census import sql
    from survey.synth.demo import generator

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "corpus"
    generator(runtime)(root, seed=5, sessions=6)
    prof = get(runtime)

    def survey_(date: str, **kw: object) -> tuple[dict, dict, os.stat_result | None]:
        for kept in (tmp_path / "cache").rglob(sql.RESULTS_FILE):
            kept.unlink()  # (the census runs over the snapshot the cache made)
        res = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date=date, **kw)  # type: ignore[arg-type]
        metas = list((tmp_path / "cache").rglob("meta.parquet"))
        return res.cache or {}, census_without_commands(res.snapshot), metas[0].stat() if metas else None

    _, first, made = survey_("d1")
    assert made is not None
    (meta,) = (tmp_path / "cache").rglob("meta.parquet")
    volatile = pl.read_parquet(meta)["volatile"].sum()
    assert (volatile > 0) == (runtime == "claude_code"), "the Claude Code corpus has files rechecked each run"
    stats, again, left = survey_("d2")
    assert stats["walked"] == 0 and stats["cache_hits"] == stats["files"]
    assert left is not None and (left.st_ino, left.st_mtime_ns) == (made.st_ino, made.st_mtime_ns)
    _, fresh, _ = survey_("fresh", cache=False)
    assert again == first == fresh
    victim = sorted(root.rglob("*.jsonl"))[0]
    with open(victim, "ab") as fh:
        fh.write(victim.read_bytes().splitlines(keepends=True)[0])
    stats, changed, written = survey_("d3")
    assert stats["walked"] == 1 and written is not None and written.st_ino != left.st_ino
    assert changed == survey_("fresh2", cache=False)[1] != first


def test_a_census_that_json_cannot_hold_exactly_is_not_kept(tmp_path: Path) -> None:
    import orjson

    from survey.census import sql

    sql._keep_results(tmp_path, "k", {"q": {"sql": "q.sql", "command": "c", "columns": ["a"], "rows": [[1.5, "x"]]}})
    assert orjson.loads((tmp_path / sql.RESULTS_FILE).read_bytes())["queries"] == {
        "q": {"sql": "q.sql", "columns": ["a"], "rows": [[1.5, "x"]]}}
    for odd in (float("nan"), (1, 2), {1, 2}):
        sql._keep_results(tmp_path, "k", {"q": {"sql": "q.sql", "command": "c", "columns": ["a"], "rows": [[odd]]}})
        assert not (tmp_path / sql.RESULTS_FILE).exists(), odd


def test_rerun_after_adding_files_reuses_the_rest_and_matches_a_full_run(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    generate(root, seed=2, sessions=40)
    first = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1")
    assert first.cache["cache_hits"] == 0
    extra = tmp_path / "extra"
    generate(extra, seed=99, sessions=1)
    new_proj = next(p for p in extra.iterdir() if p.is_dir())
    shutil.move(str(new_proj), str(root / "zz-new-project"))
    added = sum(1 for p in (root / "zz-new-project").rglob("*") if p.is_file())
    again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["walked"] == added and again.cache["cache_hits"] == again.cache["files"] - added
    fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    assert census_without_commands(again.snapshot) == census_without_commands(fresh.snapshot)
    assert_same_walk_tables(Path(again.snapshot), Path(fresh.snapshot))


def test_a_rerun_writes_a_table_no_part_fills_from_its_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk table that no cached part holds a row of (Cursor transcripts have no links or
    numbers) is written on a re-run as an empty table of its schema, not by a scan joining
    every file to its part (four such tables took 0.4 s at 567k files); the snapshot is a
    fresh run's, table for table."""
    import polars as pl

    from survey.snapshot.store import SnapshotWriter

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=4, sessions=12)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1")
    written: dict[str, str] = {}
    real = SnapshotWriter.write_table

    def spy(self, name, df):  # type: ignore[no-untyped-def]
        written[name] = type(df).__name__
        return real(self, name, df)

    monkeypatch.setattr(SnapshotWriter, "write_table", spy)
    again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2")
    empty = [n for n, kind in written.items() if n != "files"]
    assert empty and all(written[n] == "DataFrame" for n in empty), written
    assert all(pl.read_parquet(Path(again.snapshot) / "walk" / f"{n}.parquet").height == 0 for n in empty)
    monkeypatch.undo()
    fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    assert_same_walk_tables(Path(again.snapshot), Path(fresh.snapshot))


def test_changed_and_vanished_files_are_never_served_stale(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    generate(root, seed=4, sessions=12)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1")
    transcripts = sorted(root.rglob("*.jsonl"))
    changed, gone = transcripts[0], transcripts[1]
    with open(changed, "ab") as fh:
        fh.write(b'{"type":"turn_ended","status":"success"}\n')
    st = changed.stat()
    os.utime(changed, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    gone.unlink()
    again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["walked"] == 1
    fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    assert census_without_commands(again.snapshot) == census_without_commands(fresh.snapshot)
    assert_same_walk_tables(Path(again.snapshot), Path(fresh.snapshot))


def _inventory_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> tuple[Path, Callable[[str], Path]]:
    """A Cursor root of 30 sessions, a cache of its own, and a survey of it under a date; every
    partition of its inventory takes its new rows as a file of their own (they are small)."""
    from survey.snapshot import store

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(store, "DELTA_ROWS_PER_READ", 0)
    root = tmp_path / "projects"
    generate(root, seed=seed, sessions=30)

    def run(date: str) -> Path:
        return Path(run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date=date).snapshot)

    return root, run


def _inventory_files(snap: Path) -> dict[str, list[Path]]:
    """A snapshot's inventory files, per partition folder, by name."""
    out: dict[str, list[Path]] = {}
    for p in sorted((snap / "inventory").glob("*/*.parquet")):
        out.setdefault(p.parent.name, []).append(p)
    return out


def test_a_rerun_links_the_inventory_partitions_whose_rows_are_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-run links every file of each partition of the inventory (a stratum of months)
    all of whose rows are still the last snapshot's, and writes the partition's new rows as
    one more file (where the partition is large enough: ``DELTA_ROWS_PER_READ``); a
    partition with a row changed or gone, or with ``INVENTORY_FILES`` files already, or too
    small, is written again as one file. A file changed since that snapshot, or gone, is
    never linked. Row for row, the inventory is a fresh run's."""
    import polars as pl

    from survey.snapshot import store

    root, run = _inventory_runs(tmp_path, monkeypatch, seed=2)
    parts = _inventory_files

    def stratum(f: Path) -> str:
        return "stratum=" + dt.datetime.fromtimestamp(f.stat().st_mtime, dt.UTC).strftime("%Y-%m")

    def ino(p: Path) -> int:
        return p.stat().st_ino

    def copy_into_its_month(src: Path, name: str) -> Path:
        """A new file in an old stratum: a copy of ``src`` with its mtime."""
        dst = src.with_name(name)
        shutil.copyfile(src, dst)
        os.utime(dst, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns))
        return dst

    first = run("d1")
    old = parts(first)
    assert len(old) >= 3 and all(len(fs) == 1 for fs in old.values())
    files = sorted(root.rglob("*.jsonl"))
    by_month: dict[str, list[Path]] = {}
    for f in files:
        by_month.setdefault(stratum(f), []).append(f)
    grown, changed_month = sorted(m for m in by_month if m in old)[:2]
    copy_into_its_month(by_month[grown][0], "copied-1.jsonl")
    changed = by_month[changed_month][0]  # moves to this month's stratum: its old one lost a row
    with open(changed, "ab") as fh:
        fh.write(b'{"type":"turn_ended","status":"success"}\n')
    second = run("d2")
    new = parts(second)
    assert [ino(p) for p in new[grown][:1]] == [ino(old[grown][0])] and len(new[grown]) == 2
    assert pl.read_parquet(new[grown][1]).height == 1
    assert len(new[changed_month]) == 1 and ino(new[changed_month][0]) != ino(old[changed_month][0])
    untouched = set(old) - {grown, changed_month, stratum(changed)}
    assert untouched and all([ino(p) for p in new[m]] == [ino(old[m][0])] for m in untouched)
    fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    assert_same_walk_tables(second, Path(fresh.snapshot))
    # a partition file changed since it was written (snapshots are immutable, but a file
    # may be touched), and one gone, are written again, not linked
    touched, gone = sorted(untouched)[:2] if len(untouched) > 1 else (sorted(untouched)[0], None)
    pl.read_parquet(new[touched][0]).write_parquet(new[touched][0], compression="zstd")
    if gone is not None:
        new[gone][0].unlink()
    third = parts(run("d4"))
    assert len(third[touched]) == 1 and ino(third[touched][0]) != ino(new[touched][0])
    assert pl.read_parquet(third[touched][0]).equals(pl.read_parquet(new[touched][0]))
    if gone is not None:
        assert pl.read_parquet(third[gone][0]).equals(pl.read_parquet(old[gone][0]))
    assert [ino(p) for p in third[grown]] == [ino(p) for p in new[grown]]
    # a partition of INVENTORY_FILES files that grows again is written as one
    monkeypatch.setattr(store, "INVENTORY_FILES", 2)
    copy_into_its_month(by_month[grown][0], "copied-2.jsonl")
    fourth = parts(run("d5"))
    assert len(fourth[grown]) == 1 and pl.read_parquet(fourth[grown][0]).height == \
        sum(pl.read_parquet(p).height for p in new[grown]) + 1
    fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d6", cache=False)
    assert_same_walk_tables(tmp_path / "s" / "d5" / "cursor", Path(fresh.snapshot))
    # a partition too small for a file of its own new rows (each read of the inventory
    # would pay more for it than writing the partition again costs) is written whole
    monkeypatch.setattr(store, "INVENTORY_FILES", 8)
    copy_into_its_month(by_month[grown][0], "copied-3.jsonl")
    assert len(parts(run("d7"))[grown]) == 2
    rows = pl.read_parquet(fourth[grown][0]).height + 2  # (copied-3 and copied-4)
    monkeypatch.setattr(store, "DELTA_ROWS_PER_READ", rows)  # (the census reads the inventory more than once)
    copy_into_its_month(by_month[grown][0], "copied-4.jsonl")
    seventh, eighth = parts(tmp_path / "s" / "d7" / "cursor"), parts(run("d8"))
    assert len(eighth[grown]) == 1 and ino(eighth[grown][0]) not in {ino(p) for p in seventh[grown]}
    assert pl.read_parquet(eighth[grown][0]).height == rows
    assert all([ino(p) for p in eighth[m]] == [ino(p) for p in seventh[m]] for m in seventh if m != grown)


def test_an_inventory_record_not_as_written_links_nothing_wrongly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record of the last snapshot's inventory partitions is checked, not trusted: a
    record left from an older snapshot than the row hashes beside it (a run that ended
    between writing the two) links no partition whose rows changed since, though as many of
    its rows are found; hashes of another type, or a record of another shape, link nothing.
    Each run's inventory is a fresh run's, row for row."""
    import polars as pl

    root, run = _inventory_runs(tmp_path, monkeypatch, seed=4)

    def inodes(snap: Path) -> dict[str, set[int]]:
        return {m: {p.stat().st_ino for p in fs} for m, fs in _inventory_files(snap).items()}

    def fresh_is(snap: Path, date: str) -> None:
        fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date=date, cache=False)
        assert_same_walk_tables(snap, Path(fresh.snapshot))

    first = run("d1")
    (hashes,) = (tmp_path / "cache").rglob("*.inventory.parquet")
    (record,) = (tmp_path / "cache").rglob("*.inventory.json")
    older = record.read_bytes()
    # a file changed in place, its mtime (so its month) as it was: its row changes, its
    # partition's row count does not
    changed = sorted(root.rglob("*.jsonl"))[3]
    st = changed.stat()
    with open(changed, "ab") as fh:
        fh.write(b'{"type":"turn_ended","status":"success"}\n')
    os.utime(changed, ns=(st.st_atime_ns, st.st_mtime_ns))
    run("d2")
    record.write_bytes(older)  # the hashes are the d2 snapshot's, the record d1's
    third = run("d3")
    month = "stratum=" + dt.datetime.fromtimestamp(st.st_mtime, dt.UTC).strftime("%Y-%m")
    before, now = inodes(first), inodes(third)
    assert not before[month] & now[month]  # its partition: written again, not d1's linked
    assert any(before[m] == now[m] for m in now if m != month)  # the others: d1's, linked
    fresh_is(third, "d4")
    # hashes of another type, a record of another shape: nothing linked, nothing wrong
    pl.read_parquet(hashes).select(pl.col("a").reinterpret(signed=True)).write_parquet(hashes)
    fifth = run("d5")
    assert not any(inodes(third)[m] & inodes(fifth)[m] for m in inodes(fifth))
    record.write_bytes(b'{"sig": "x", "parts": [1, 2]}')
    sixth = run("d6")
    assert not any(inodes(fifth)[m] & inodes(sixth)[m] for m in inodes(sixth))
    fresh_is(sixth, "d7")


def assert_same_walk_tables(a: Path, b: Path) -> None:
    """Row for row (in any order), the inventory as well, and the big tables of ``a`` are folders of parts linked
    from the walk, not re-encoded copies. A rollup (a row per part and group) is compared
    rolled up over all its parts."""
    import polars as pl

    from survey.census.collect import NODE_COUNT_KEYS, ROLLUPS

    def read(snap: Path, name: str) -> pl.DataFrame:
        df = pl.read_parquet(snap / "walk" / name)
        if name.removesuffix(".parquet") in ROLLUPS:
            df = df.group_by(NODE_COUNT_KEYS).agg(pl.col("occurrences", "files").sum(), pl.col("max_len").max())
        return df

    # the inventory too: the crawl's rows with the walk's file rows (joined on the crawl's
    # row of each file, ``_row``, not on its id)
    inv_a, inv_b = (pl.read_parquet(s / "inventory") for s in (a, b))
    assert inv_a.height == inv_b.height and inv_a["read_status"].null_count() < inv_a.height
    assert inv_a.sort("file_id").equals(inv_b.sort("file_id"))
    from survey.census.collect import FILE_COLS
    walked = pl.read_parquet(a / "walk" / "files.parquet").select(*FILE_COLS)
    assert walked.height > 0 and inv_a.select(*FILE_COLS).join(walked, on=[*FILE_COLS], how="semi",
                                                                nulls_equal=True).height == walked.height
    names = sorted(p.name for p in (b / "walk").iterdir())
    assert names == sorted(p.name for p in (a / "walk").iterdir())
    for name in names:
        x, y = read(a, name), read(b, name)
        assert x.sort(x.columns, nulls_last=True).equals(y.sort(y.columns, nulls_last=True)), name
    for name in ("frames.parquet", "nodes.parquet", "node_counts.parquet"):
        assert (a / "walk" / name).is_dir(), name
        assert any(p.stat().st_nlink > 1 for p in (a / "walk" / name).iterdir()), name


@pytest.mark.parametrize("source", ["walk.py", "_walkcore.c", "collect.py", "frames.py", "privacy.py", "stores.py",
                                    "vocab.json"])
def test_walk_signature_covers_every_source_of_a_walk_result(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change to any file a per-file walk result comes from (the walker, its C core, the
    batch tables, the frame splitter, the pseudonyms, the store readers, the vocabulary)
    starts the cache afresh."""
    from survey.census import collect as C

    before = C.walk_signature(get("cursor_desktop"), "reviewed", False, 1 << 26)
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real(self) + (b" " if self.name == source else b""))
    assert C.walk_signature(get("cursor_desktop"), "reviewed", False, 1 << 26) != before


def test_walk_signature_is_the_same_in_every_process() -> None:
    import subprocess
    import sys

    code = ("from survey.census.collect import walk_signature; from survey.runtimes import get; "
            "print(walk_signature(get('claude_code'), 'reviewed', False, 1 << 26))")
    sigs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip() for seed in (1, 2, 3)}
    assert len(sigs) == 1, sigs


def test_the_cache_holds_only_live_rows_and_compacts_its_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run adds its own Parquet parts (never re-encoding the old ones that stay clean);
    a file changed in every run leaves no stale row behind (the part that held it is
    rewritten once, or dropped), so the cache's parts always hold exactly the live rows; as
    new files keep coming, runs pile up, and after ``COMPACT_AFTER_RUNS`` they are compacted."""
    import uuid

    import polars as pl

    from survey.census import collect as C

    monkeypatch.setattr(C, "COMPACT_AFTER_RUNS", 3)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=5, sessions=10)
    target, donor = sorted(root.rglob("*.jsonl"))[:2]
    seen_runs = []
    for i in range(5):
        with open(target, "ab") as fh:
            fh.write(b'{"type":"turn_ended","status":"success"}\n')
        st = target.stat()
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1000 + i))
        shutil.copy(donor, donor.with_name(f"{uuid.UUID(int=i + 1)}.jsonl"))  # a new session
        again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date=f"r{i}")
        if i:
            assert again.cache["walked"] == 2
        (cache,) = [p for p in (tmp_path / "cache" / "cursor").iterdir() if (p / "meta.parquet").exists()]
        seen_runs.append(len({p.name.split("-", 1)[0] for p in (cache / "frames").glob("*.parquet")}))
        fresh = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date=f"f{i}", cache=False)
        assert census_without_commands(again.snapshot) == census_without_commands(fresh.snapshot)
        assert_same_walk_tables(Path(again.snapshot), Path(fresh.snapshot))
        for name in ("frames", "nodes"):  # no stale row anywhere in the cache
            cached = pl.read_parquet(sorted((cache / name).glob("*.parquet")))
            live = pl.read_parquet(Path(fresh.snapshot) / "walk" / f"{name}.parquet")
            assert cached.height == live.height, (i, name)
        # a rollup beside every part of nodes, under its label (linked, or rolled up again)
        assert sorted(p.name for p in (cache / "node_counts").glob("*.parquet")) == sorted(
            p.name for p in (cache / "nodes").glob("*.parquet"))
    assert max(seen_runs) == 3 and 1 in seen_runs[2:], seen_runs  # grew, then was compacted


@pytest.mark.parametrize("runtime", ["cursor", "claude_code", "cursor_chats"])
def test_the_worker_pool_writes_the_tables_of_the_in_process_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str) -> None:
    """Big walks run in batches on a pool of workers that write their own Parquet parts;
    small ones (and re-runs with little left to walk) run in this process. Both ways give
    the same snapshot tables, row for row."""
    import importlib

    import polars as pl

    from survey.census import collect as C

    gen = importlib.import_module(f"survey.synth.{runtime}").generate
    root = tmp_path / "root"
    gen(root, seed=8, sessions=24)
    monkeypatch.setattr(C, "BATCH_FILES", 7)  # several batches per worker
    snaps = {}
    for jobs, pool_min in ((1, 1 << 40), (2, 0)):
        monkeypatch.setattr(C, "POOL_MIN_BYTES", pool_min)
        res = run_survey(get(runtime), root, snapshots=tmp_path / "s", reports=None, date=f"j{jobs}",
                         cache=False, jobs=jobs)
        assert res.cache["worker_cpu"] > 0 if jobs == 2 else res.cache["worker_cpu"] == 0
        snaps[jobs] = Path(res.snapshot)
    for table in sorted(p.name for p in (snaps[1] / "walk").glob("*.parquet")):
        a, b = (pl.read_parquet(snaps[j] / "walk" / table) for j in (1, 2))
        assert a.height > 0 or table not in {"frames.parquet", "nodes.parquet", "files.parquet"}, table
        assert a.sort(a.columns, nulls_last=True).equals(b.sort(b.columns, nulls_last=True)), table


POOL_SCRIPT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from survey.census import pool as P, walk as W
if __name__ == "__main__":
    ex = ProcessPoolExecutor(2, mp_context=P.pool_context(), initializer=W._init_worker,
                             initargs=("cursor", "reviewed", False, b"salt", W.DEFAULT_MAX_LINE, "",
                                       os.getpid()))
    futures = [ex.submit(time.sleep, 120) for _ in range(4)]  # a walk's batches, queued
    while len(ex._processes) < 2:
        time.sleep(0.05)
    time.sleep(1)  # the workers' initializer has run
    print(" ".join(map(str, ex._processes)), flush=True)
    time.sleep(120)
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie has ended
    except OSError:
        return False


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd_open here (Linux 5.3+, Python 3.9+)")
def test_a_killed_survey_leaves_no_walk_worker_running(tmp_path: Path) -> None:
    """The walk's workers end with the survey: killed (SIGKILL, no clean-up) while its
    workers hold queued batches, it used to leave them walking those to the end."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-c", POOL_SCRIPT], stdout=subprocess.PIPE, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    try:
        assert proc.stdout is not None
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert len(workers) == 2 and all(map(_running, workers))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if _running(p)]
    for p in left:  # not left behind by a failing run either
        os.kill(p, signal.SIGKILL)
    assert not left, "walk workers outlived the survey"


def _keys(runtime: str, root: Path) -> dict[str, tuple]:
    from survey.census.collect import KEY_COLS, _todo
    from survey.corpus.crawl import crawl
    from survey.corpus.privacy import load_salt

    prof = get(runtime)
    inv = crawl(root, prof, load_salt())
    todo, _needles = _todo(inv, root, prof)
    return dict(zip(map(str, inv.paths_of(todo["file_id"])), todo.select(KEY_COLS).rows(), strict=True))


def test_a_files_cache_key_moves_with_its_wal_its_children_and_its_ctime(tmp_path: Path) -> None:
    """What the key must see besides size and mtime: a SQLite store's -wal (a live store
    writes there, not to its main file), the children a parent transcript is searched for,
    and a rewrite that puts size and mtime back (only the ctime moves)."""
    from survey.synth import claude_code, cursor_chats

    chats = tmp_path / "chats"
    cursor_chats.generate(chats, seed=3, sessions=4)
    before = _keys("cursor_chats", chats)
    store = sorted(p for p in before if p.endswith("store.db") and p + "-wal" not in before)[0]  # no -wal yet
    (chats / (store + "-wal")).write_bytes(b"\0" * 32)
    after = _keys("cursor_chats", chats)
    assert after[store] != before[store]
    assert {p: k for p, k in after.items() if p != store and p in before} == \
        {p: k for p, k in before.items() if p != store}
    # the key takes the -wal from the crawl's listing: a -wal that grows moves it again, and
    # one checkpointed away gives back the key of a store without one
    with open(chats / (store + "-wal"), "ab") as f:
        f.write(b"\0" * 32)
    grown = _keys("cursor_chats", chats)
    assert grown[store] not in (before[store], after[store])
    (chats / (store + "-wal")).unlink()
    assert _keys("cursor_chats", chats)[store] == before[store]
    # a -wal that is a symlink is read through by the store's reader: keyed by what it
    # points at, so the key moves when that grows, though the link itself does not change
    target = tmp_path / "elsewhere-wal"
    target.write_bytes(b"\0" * 32)
    (chats / (store + "-wal")).symlink_to(target)
    linked = _keys("cursor_chats", chats)[store]
    assert linked not in (before[store], grown[store])
    with open(target, "ab") as f:
        f.write(b"\0" * 32)
    assert _keys("cursor_chats", chats)[store] not in (before[store], linked)

    cc = tmp_path / "claude"
    claude_code.generate(cc, seed=5, sessions=6)
    before = _keys("claude_code", cc)
    child = sorted(p for p in before if "/subagents/" in p and p.endswith(".jsonl"))[0]
    parent = child.split("/subagents/")[0] + ".jsonl"
    assert parent in before
    (cc / child).unlink()
    after = _keys("claude_code", cc)
    assert after[parent] != before[parent]

    f = cc / sorted(p for p in after if p.endswith(".jsonl") and p != parent)[0]
    st = f.stat()
    data = f.read_bytes()
    f.write_bytes(data[::-1])  # same size, other bytes
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    rel = str(f.relative_to(cc))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    assert _keys("claude_code", cc)[rel] != after[rel]


@pytest.mark.parametrize("threads", [1, 3])
def test_volatile_files_leave_the_parts_around_them_clean(threads: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose result depends on another file's existence (a Claude Code record naming
    a persisted output) is served from the cache while its existence checks come out as
    they did (``collect._recheck_volatile``), and walked again once one does not. Its rows
    go to a part of their own from the first run on, so a run that walks it again drops that
    part and links every other one from the cache as it is: nothing is rewritten, and the
    census is a fresh run's. The same with the rechecks on one thread and on three."""
    import polars as pl

    from survey.census import collect as C
    from survey.synth import claude_code

    monkeypatch.setattr(C, "RECHECK_THREADS", threads)
    monkeypatch.setattr(C, "RECHECK_THREAD_MIN", 1)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(C, "BATCH_FILES", 9)  # several parts, volatile files among others
    root = tmp_path / "claude"
    claude_code.generate(root, seed=6, sessions=12)
    prof = get("claude_code")
    first = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d1")

    def cache_parts() -> dict[str, int]:
        (cache,) = [p for p in (tmp_path / "cache" / "claude_code").iterdir() if (p / "meta.parquet").exists()]
        return {p.name: p.stat().st_ino for p in (cache / "nodes").glob("*.parquet")}

    def volatile() -> int:
        return pl.read_parquet(sorted((tmp_path / "cache").rglob("meta.parquet"))[0]).filter("volatile").height

    before = cache_parts()
    vol_parts = {n for n in before if n.endswith("v.parquet")}
    assert vol_parts, "the corpus must have volatile files for this test to mean anything"
    n_volatile = volatile()
    # nothing changed: every file is served, the volatile ones after their checks are redone
    same = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert same.cache["walked"] == 0 and same.cache["cache_hits"] == first.cache["files"]
    assert volatile() == n_volatile, "a served volatile file is still volatile"
    assert cache_parts() == before
    # a persisted output that was missing appears (under the root, where a path written on
    # another machine is looked for): the transcripts naming it are walked again, and the
    # new file; every other file is served
    import orjson

    named = [rec["toolUseResult"]["persistedOutputPath"] for f in sorted(root.rglob("*.jsonl"))
             for line in f.read_bytes().splitlines() if b"persistedOutputPath" in line
             for rec in [orjson.loads(line)]]
    missing = [root / p.split("/.claude/projects/", 1)[1] for p in named
               if not (root / p.split("/.claude/projects/", 1)[1]).exists()]
    assert missing, "the corpus must name a missing output for this test to mean anything"
    missing[0].parent.mkdir(parents=True, exist_ok=True)
    missing[0].write_text("output\n")
    again = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d3")
    walked_again = again.cache["walked"]
    assert 1 < walked_again <= 1 + sum(1 for p in named if p.endswith(missing[0].name))
    after = cache_parts()
    kept = {n: i for n, i in before.items() if n not in vol_parts}
    assert kept and all(after.get(n) == i for n, i in kept.items()), "a clean part was rewritten"
    fresh = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d4", cache=False)
    assert census_without_commands(again.snapshot) == census_without_commands(fresh.snapshot)
    assert census_without_commands(same.snapshot) != census_without_commands(again.snapshot), \
        "the missing output shows in the census"
    assert_same_walk_tables(Path(again.snapshot), Path(fresh.snapshot))
    assert volatile() == n_volatile


def test_a_rerun_classifies_only_the_names_it_has_not_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The crawl takes the class of each file the last crawl of the root saw from the cache
    (its surface, kind, extension and id pseudonyms follow from its path, and its file_id is
    the path's HMAC): the profile's regexes run only on new names. Children's raw session ids
    are kept nowhere: they are read from their paths when asked for. The inventory is a
    fresh crawl's, and the cache holds nothing the snapshot's inventory does not."""
    import polars as pl

    from survey.corpus import crawl as C
    from survey.corpus.privacy import load_salt
    from survey.synth import claude_code

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "claude"
    claude_code.generate(root, seed=5, sessions=10)
    prof = get("claude_code")
    first = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d1")
    (kept_file,) = (tmp_path / "cache").rglob(C.CLASSES_FILE)
    kept = pl.read_parquet(kept_file)
    inventory = pl.read_parquet(Path(first.snapshot) / "inventory")
    # pseudonyms and classes only: every kept row is a row of the snapshot's inventory
    assert kept.drop("sig").join(inventory.select(kept.drop("sig").columns), on=kept.drop("sig").columns,
                                 how="anti", nulls_equal=True).height == 0
    regular = inventory.filter(~pl.col("kind").is_in(C.NOT_FILES) & pl.col("mtime").is_not_null())
    assert kept.height == regular.height and kept.filter(pl.col("parent_id").is_not_null()).height > 0

    # new files, one renamed and one gone since
    extra = tmp_path / "extra"
    claude_code.generate(extra, seed=77, sessions=1)
    project = next(p for p in extra.iterdir() if p.is_dir())
    shutil.move(str(project), str(root / "zz-new-project"))
    parents = sorted(root.glob("*/*.jsonl"))
    parents[0].rename(parents[0].with_name("renamed-" + parents[0].name))
    parents[1].unlink()
    salt = load_salt()
    fresh = C.crawl(root, prof, salt)
    seen = set(kept["file_id"].to_list())
    regular = fresh.frame.filter(~pl.col("kind").is_in(C.NOT_FILES) & pl.col("mtime").is_not_null())
    to_classify = regular.filter(~pl.col("file_id").is_in(list(seen))).height
    assert 0 < to_classify < regular.height

    calls = []
    ext_of = C.ext_of
    monkeypatch.setattr(C, "ext_of", lambda name: calls.append(name) or ext_of(name))
    again = C.crawl(root, prof, salt, known=C.load_classes(kept_file.parent, prof))
    assert len(calls) == to_classify + (fresh.frame.height - regular.height)
    assert again.frame.equals(fresh.frame) and again.names.equals(fresh.names)
    # (a child with a session id of its own: a subagent's transcript, not its sidecar)
    children = fresh.frame.filter(pl.col("parent_id").is_not_null() & pl.col("session_id").is_not_null())[
        "file_id"].to_list()
    raw = again.child_session_ids(children)
    assert raw == fresh.child_session_ids(children) and len(raw) == len(children) > 0
    assert all(raw[fid] in os.fsencode(p) for fid, p in zip(children, again.paths_of(children), strict=True))


def test_kept_classes_from_another_crawl_code_or_profile_are_not_used(tmp_path: Path) -> None:
    import polars as pl

    from survey.corpus import crawl as C
    from survey.runtimes.base import Surface

    root = tmp_path / "projects"
    generate(root, seed=3, sessions=4)
    inv = C.crawl(root, CURSOR, b"s" * 32)
    C.save_classes(tmp_path / "c", inv.frame, CURSOR)
    assert C.load_classes(tmp_path / "c", CURSOR) is not None
    other = dataclasses.replace(CURSOR, surfaces=[*CURSOR.surfaces, Surface("extra", r"^x\.jsonl$", kind="jsonl")])
    assert C.classes_signature(other) != C.classes_signature(CURSOR)
    assert C.load_classes(tmp_path / "c", other) is None
    (tmp_path / "c" / C.CLASSES_FILE).write_bytes(b"not parquet")
    assert C.load_classes(tmp_path / "c", CURSOR) is None
    # a kept class is trusted under its signature: the crawl takes it without a regex
    wrong = C.classes(inv.frame).with_columns(surface=pl.lit("planted"))
    assert set(C.crawl(root, CURSOR, b"s" * 32, known=wrong).frame.filter(
        pl.col("file_id").is_in(wrong["file_id"].to_list()))["surface"].to_list()) == {"planted"}


def test_classes_all_taken_from_the_kept_file_leave_it_as_it_is(tmp_path: Path) -> None:
    """A crawl that took every class from the kept file says so (``classes_kept``), and the
    file, still there, is not written again; a new name, and it is, with that name's class."""
    import polars as pl

    from survey.corpus import crawl as C

    root, cache, salt = tmp_path / "projects", tmp_path / "c", b"s" * 32
    generate(root, seed=3, sessions=4)
    first = C.crawl(root, CURSOR, salt)
    assert not first.classes_kept  # (nothing kept: every name classified)
    C.save_classes(cache, first.frame, CURSOR, first.classes_kept)
    made = (cache / C.CLASSES_FILE).stat()
    again = C.crawl(root, CURSOR, salt, known=C.load_classes(cache, CURSOR))
    assert again.classes_kept and again.frame.equals(first.frame)
    C.save_classes(cache, again.frame, CURSOR, again.classes_kept)
    left = (cache / C.CLASSES_FILE).stat()
    assert (left.st_ino, left.st_mtime_ns) == (made.st_ino, made.st_mtime_ns)
    (cache / C.CLASSES_FILE).unlink()  # (a cache folder made afresh: written whatever it took)
    C.save_classes(cache, again.frame, CURSOR, again.classes_kept)
    assert C.load_classes(cache, CURSOR) is not None
    new = next(root.rglob("*.jsonl"))
    shutil.copyfile(new, new.with_name("a-new-name.jsonl"))
    third = C.crawl(root, CURSOR, salt, known=C.load_classes(cache, CURSOR))
    assert not third.classes_kept
    C.save_classes(cache, third.frame, CURSOR, third.classes_kept)
    kept = C.load_classes(cache, CURSOR)
    assert kept is not None and kept.height == C.classes(third.frame).height == C.classes(first.frame).height + 1
    assert kept.sort("file_id").equals(C.classes(third.frame).sort("file_id"))
    assert pl.Series(kept["file_id"]).is_unique().all()


@pytest.mark.parametrize("runtime", ["cursor", "cursor_stream", "claude_code", "codex", "cursor_chats"])
def test_a_rerun_of_a_corpus_that_gave_a_table_no_rows_reads_the_new_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str) -> None:
    """A file served from the cache and no rows for a table at all (a text note only): the
    table's parts in the cache are empty stand-ins, replaced by this run's. The rollups of
    such a table were made from the old cache's stand-in, deleted when the new cache took its
    place, and the snapshot writer then failed on the missing file."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "root"
    root.mkdir()
    (root / "notes.txt").write_text("not a transcript\n")
    profile = get(runtime)
    first = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d1")
    again = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["cache_hits"] == again.cache["files"] == first.cache["files"] == 1
    fresh = run_survey(profile, root, snapshots=tmp_path / "s", reports=None, date="d3", cache=False)
    assert census_without_commands(again.snapshot) == census_without_commands(fresh.snapshot)


def test_an_existence_recheck_gives_the_walks_markers(tmp_path: Path) -> None:
    """``recheck_exists`` finds, without a walk, the existence markers a walk records, on
    every Claude Code transcript of the synthetic corpus (so volatile files can be served);
    where it cannot see what the walk sees (a key written with escapes), its rows differ and
    the file is walked: it never claims a check the walk would not make."""
    from survey.census import walk as W
    from survey.synth import claude_code

    root = tmp_path / "claude"
    claude_code.generate(root, seed=6, sessions=12)
    prof = get("claude_code")
    walker = W.make_walker("claude_code", "reviewed", False, b"s" * 32)
    walker.root = str(root)

    def walked(p: Path) -> list[tuple]:
        r = W.walk_file(walker, str(p), "f", "jsonl", p.stat().st_size)
        return sorted(m for m in r.markers if m[1].endswith((":present", ":missing")))

    checked = 0
    for p in sorted(root.rglob("*.jsonl")):
        want = walked(p)
        assert sorted(W.recheck_exists(prof, str(p), str(p), str(root)) or []) == want, p.name
        checked += bool(want)
    assert checked >= 2
    odd = tmp_path / "odd.jsonl"
    odd.write_bytes(b'\xef\xbb\xbf{"toolUseResult": {"persistedOutputPath": "/nowhere/a/b.txt"}}\r\n'
                    b'{"toolUseResult": {"persistedOutputP\\u0061th": "/nowhere/c/d.txt"}}\n'
                    b'{"toolUseResult": [{"persistedOutputPath": "/nowhere/e.txt"}]}\n')
    got = sorted(W.recheck_exists(prof, str(odd), str(odd), str(root)) or [])
    assert got == [(0, "persisted:missing", 1)]  # the escaped key is not seen: rows differ, a walk follows
    assert walked(odd) == [(0, "persisted:missing", 1), (1, "persisted:missing", 1)]  # so this file is walked


@pytest.mark.parametrize("engine", ["native", "python"])
def test_the_recheck_finds_the_lines_a_framing_of_every_line_finds(engine: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``_lines_holding`` searches a small file whole for its needles (the C core's
    ``lines_holding``, or Python's): on random files (blank lines, CRs, a BOM, a needle
    twice on a line, on the last line without LF, on a line past the cap, an empty file) it
    gives exactly the lines, numbered alike, that framing every line gives, and a file past
    the cap is framed line by line."""
    import random

    from survey.census import walk as W
    from survey.corpus.frames import split_frames

    if engine == "python":
        monkeypatch.setattr(W, "NATIVE", None)
    elif W.NATIVE is None:
        pytest.skip("the C core is not built (make builds it)")

    rng = random.Random(7)
    needles = [b'"needle"', b'"other"']
    pieces = [b"", b"{}", b'{"needle": 1}', b'{"a": "needle"}', b'{"other": "x", "needle": 2}',
              b"\r", b'"needle""needle"', b"x" * 40, b'{"k": "' + b"y" * 30 + b'", "needle": 3}']
    for trial in range(300):
        lines = [rng.choice(pieces) for _ in range(rng.randint(0, 12))]
        body = (W.BOM if trial % 7 == 0 else b"") + b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
        f = tmp_path / f"t{trial}.jsonl"
        f.write_bytes(body)
        cap = rng.choice([20, 45, 1 << 20])
        with open(f, "rb") as fh:
            want = [(i, line) for i, (line, _, _) in enumerate(split_frames(fh, cap))
                    if any(n in line for n in needles)]
        fd = os.open(f, os.O_RDONLY)
        try:
            assert list(W._lines_holding(fd, needles, cap)) == want, (body, cap)
        finally:
            os.close(fd)


_RSS = "def rss(): return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE')\n"


def _freed_mb(code: str, hows: tuple[str, str], missing: str) -> dict[str, int]:
    """MB a fresh process handed back to the kernel, as ``code`` prints it, run once per
    way in ``hows`` (its argv[1]); skipped where the code exits 3 (``missing``)."""
    got = {}
    for how in hows:
        out = subprocess.run([sys.executable, "-c", "import os, sys\n" + _RSS + code, how], capture_output=True,
                             text=True, cwd=str(Path(__file__).parents[1]))
        if out.returncode == 3:
            pytest.skip(missing)
        assert out.returncode == 0, out.stderr
        got[how] = int(out.stdout)
    return got


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads its memory from /proc (Linux)")
def test_a_walker_keeps_freed_memory_for_the_next_file() -> None:
    """``keep_freed_memory`` (each walk worker calls it): a freed 20 MB block stays with the
    process for the next file's, where by default glibc hands it back to the kernel at once
    (and the next file's pages fault in again)."""
    got = _freed_mb(
        "from survey.census.pool import keep_freed_memory\n"
        "if sys.argv[1] == 'keep' and not keep_freed_memory(): sys.exit(3)\n"
        "b = bytearray(20 << 20)\n"
        "b[::4096] = bytes(len(range(0, 20 << 20, 4096)))  # every page touched\n"
        "b[::4096] = b'\\x01' * len(range(0, 20 << 20, 4096))\n"
        "before = rss(); del b\n"
        "print((before - rss()) >> 20)\n",
        ("default", "keep"), "no glibc mallopt here: the allocator is left as it is")
    assert got["default"] >= 15, f"glibc returned only {got['default']} MB: this test tests nothing"
    assert got["keep"] <= 1, f"{got['keep']} MB went back to the kernel"


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads its memory from /proc (Linux)")
def test_freed_memory_goes_back_to_the_kernel_after_the_crawl() -> None:
    """``give_back_freed_memory`` (the survey calls it after the crawl): memory freed among
    blocks still in use, which glibc keeps, goes back to the kernel."""
    got = _freed_mb(
        "from survey.census.pool import give_back_freed_memory\n"
        "keep, drop = [], []\n"
        "for i in range(40000):  # 1 kB objects freed between ones that stay: no top to trim\n"
        "    (keep if i % 50 == 0 else drop).append(bytes(range(256)) * 4)\n"
        "del drop\n"
        "before = rss()\n"
        "if sys.argv[1] == 'trim' and not give_back_freed_memory(): sys.exit(3)\n"
        "print((before - rss()) >> 20)\n",
        ("keep", "trim"), "no glibc malloc_trim here: the allocator is left as it is")
    assert got["keep"] <= 1, f"{got['keep']} MB went back without a trim: this test tests nothing"
    assert got["trim"] >= 20, f"only {got['trim']} MB went back"


def test_the_survey_writes_its_own_tables_lz4(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Parquet file a run and a re-run leave, in the snapshots and in the cache (the
    walk's parts, the inventory, the cache's per-file tables, the kept classes, the greps'
    counts), is written lz4 (``snapshot.store.WRITE_OPTIONS``): polars' default, zstd, took
    twice as long to write and to read."""
    import duckdb

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=4, sessions=12)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1")
    (next(root.rglob("*.jsonl"))).write_bytes(b'{"role":"user"}\n')  # a re-run rewrites the cache's tables
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2")
    codecs: dict[str, set[str]] = {}
    for where in ("s", "cache"):
        for f in (tmp_path / where).rglob("*.parquet"):
            if f.is_file():
                rel = duckdb.sql("SELECT DISTINCT compression FROM parquet_metadata(?)", params=[str(f)])
                assert rel is not None
                for (codec,) in rel.fetchall():  # (none: a file of no rows)
                    codecs.setdefault(codec, set()).add(f.relative_to(tmp_path).as_posix())
    assert set(codecs) == {"LZ4_RAW"}, {k: sorted(v)[:5] for k, v in codecs.items() if k != "LZ4_RAW"}
    names = {Path(p).name for p in codecs["LZ4_RAW"]}
    assert {"meta.parquet", "files.parquet", "00000000.parquet"} <= names


def test_the_fork_server_is_not_started_first_thing_for_a_rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``survey run`` starts the walk's fork server before its own imports, but not where a
    run of the same runtime left a walk cache: a re-run walks little, and the server's
    imports took a core beside its crawl and greps. ``collect`` starts it when it is needed."""
    import survey.census.pool as pool

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path))
    started: list[bool] = []
    monkeypatch.setattr(pool, "pool_context", lambda start=False: started.append(start))
    pool.prestart(2, ["cursor"])
    assert started == [True] and not pool.left_cache(None)
    (tmp_path / "cursor" / "r-0123").mkdir(parents=True)
    (tmp_path / "cursor" / "r-0123" / "meta.parquet").write_bytes(b"")
    assert pool.left_cache(["cursor"]) and pool.left_cache(None) and not pool.left_cache(["codex"])
    started.clear()
    pool.prestart(2, ["cursor"])
    pool.prestart(2, None)
    pool.prestart(1, ["codex"])  # one job: no workers at all
    assert started == []
    pool.prestart(2, ["codex"])
    pool.prestart(2, ["cursor"], cache=False)  # --no-cache walks everything again
    assert started == [True, True]


def test_a_rerun_with_workers_to_come_starts_them_before_its_rechecks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-run whose new and changed files pass ``POOL_MIN_BYTES`` starts the walk's fork
    server as soon as it knows (before the existence rechecks, which take a core for a
    while at 5 GB), not at its first batch; one with less to walk never starts it."""
    import survey.census.collect as C

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    real = C.pool_context
    early: list[int] = []

    def spy(start: bool = False):  # type: ignore[no-untyped-def]
        if start:
            early.append(1)
            return None
        return real()

    monkeypatch.setattr(C, "pool_context", spy)
    root = tmp_path / "projects"
    generate(root, seed=5, sessions=10)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1", jobs=2)
    first = len(early)  # (a first run's: its own rule, start_walkers)
    (next(root.rglob("*.jsonl"))).write_bytes(b'{"role":"user"}\n' * 50)  # 800 bytes to walk
    monkeypatch.setattr(C, "POOL_MIN_BYTES", 1 << 20)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2", jobs=2)
    assert len(early) == first
    monkeypatch.setattr(C, "POOL_MIN_BYTES", 100)
    (next(root.rglob("*.jsonl"))).write_bytes(b'{"role":"user"}\n' * 60)
    again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d3", jobs=2)
    assert len(early) == first + 1 and again.cache["walked"] == 1 and again.cache["worker_cpu"] > 0


def test_a_reruns_grown_bytes_are_at_most_what_it_walks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_grown``, which starts a re-run's fork server before the cache's look-ups, never
    claims more than the re-run walks: a new file counts whole, a grown one as much as it
    grew (it is walked whole), a shrunk or vanished one takes bytes off. With no cache, 0."""
    import survey.census.collect as C

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=8, sessions=12)
    run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d1", jobs=1)
    files = sorted(root.rglob("*.jsonl"), key=lambda f: f.stat().st_size)
    grown, shrunk, gone = files[-1], files[-2], files[-3]
    old = {f: f.stat().st_size for f in (grown, shrunk, gone)}
    with grown.open("ab") as fh:
        fh.write(b'{"role":"user"}\n' * 40)
    shrunk.write_bytes(shrunk.read_bytes()[: old[shrunk] // 2])
    gone.unlink()
    shutil.copy(files[0], files[0].with_name("added.jsonl"))
    said: list[int] = []
    walked: list[int] = []
    real_grown, real_batches = C._grown, C._batches
    monkeypatch.setattr(C, "_grown", lambda *a: said.append(real_grown(*a)) or said[-1])
    monkeypatch.setattr(C, "_batches", lambda walk, jobs: walked.append(int(walk["size"].sum() or 0))
                        or real_batches(walk, jobs))
    again = run_survey(CURSOR, root, snapshots=tmp_path / "s", reports=None, date="d2", jobs=2)
    expected = 40 * 16 + (old[shrunk] // 2 - old[shrunk]) - old[gone] + files[0].stat().st_size
    assert said == [expected]
    # (the three are walked whole, and any file whose key moved with them: a parent of one)
    assert again.cache["walked"] >= 3
    assert said[0] <= grown.stat().st_size + shrunk.stat().st_size + files[0].stat().st_size <= sum(walked)
    assert C._grown(None, None) == 0  # type: ignore[arg-type]  # (no cache: the inventory is not read)


def _claude_surveyed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int):  # type: ignore[no-untyped-def]
    """A synthetic Claude Code corpus (with persisted tool outputs: volatile transcripts)
    surveyed once into a cache of its own: (profile, root, that root's walk cache folder)."""
    from survey.synth import claude_code

    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "claude"
    claude_code.generate(root, seed=seed, sessions=12)
    prof = get("claude_code")
    run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d1")
    [meta] = list((tmp_path / "cache").rglob("meta.parquet"))
    return prof, root, meta.parent


def test_a_recheck_reads_the_checked_lines_where_the_cache_says_they_are(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk keeps, for each volatile transcript, where its checked lines are
    (``spans.parquet``); a re-run's recheck reads those lines only, not the whole file, and
    finds what a whole read finds. Spans that do not hold a checked line (a bug, or a cache
    from elsewhere) are not trusted: the file is read whole."""
    import polars as pl

    import survey.census.collect as C
    from survey.census import walk as W

    prof, root, cache = _claude_surveyed_once(tmp_path, monkeypatch, seed=6)
    spans_file = cache / C.SPANS_FILE
    kept = pl.read_parquet(spans_file)
    volatile = set(pl.read_parquet(spans_file.with_name("meta.parquet")).filter("volatile")["file_id"])
    assert kept.height and set(kept["file_id"]) <= volatile and len(set(kept["file_id"])) >= 2
    by_file: dict[str, list[tuple[int, int, int]]] = {}
    for fid, *span in kept.iter_rows():
        by_file.setdefault(fid, []).append(tuple(span))  # type: ignore[arg-type]
    # each file's spans against a whole read: the same lines and markers
    for p in sorted(root.rglob("*.jsonl")):
        read: list = []
        whole = W.recheck_exists(prof, str(p), str(p), str(root), spans_out=read)
        if not read:
            continue
        fid = next((f for f, sp in by_file.items() if sorted(sp) == sorted(read)), None)
        assert fid is not None, p.name  # the walk kept the spans a whole read finds
        assert W.recheck_exists(prof, str(p), str(p), str(root), spans=by_file[fid]) == whole
        wrong = [(n, s + 1, e) for n, s, e in by_file[fid]]  # off by one byte: not a checked line
        assert W.recheck_exists(prof, str(p), str(p), str(root), spans=wrong) == whole
    whole_reads: list[int] = []
    real = W._lines_holding

    def counting(*a, **k):  # type: ignore[no-untyped-def]
        whole_reads.append(1)
        return real(*a, **k)

    monkeypatch.setattr(W, "_lines_holding", counting)
    again = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["walked"] == 0 and again.cache["cache_hits"] == again.cache["files"]
    assert whole_reads == []  # every volatile file's checks read from its spans
    assert pl.read_parquet(spans_file).sort(pl.all()).equals(kept.sort(pl.all()))  # carried to the new cache


def test_the_kept_existence_markers_are_the_parts_and_serve_a_recheck(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache keeps the volatile files' existence markers beside them (``checks.parquet``),
    row for row what the walk's ``markers`` parts hold for those files; a re-run compares its
    rechecks with them, not with a scan of every part, and a cache without the file (an
    older one) has them read from the parts, serving the same files."""
    import polars as pl

    import survey.census.collect as C

    prof, root, cache = _claude_surveyed_once(tmp_path, monkeypatch, seed=8)
    kept = cache / C.CHECKS_FILE
    rows = pl.read_parquet(kept)
    name = pl.col("name").cast(pl.String)
    parts = (pl.scan_parquet(cache / "markers" / "*.parquet").select("file_id", "line_no", name, "count")
             .filter(pl.any_horizontal(name.str.ends_with(m) for m in (":present", ":missing"))).collect())
    assert rows.height >= 2 and rows.sort(pl.all()).equals(parts.sort(pl.all()))
    scans: list[bool] = []  # the recheck's scans of the markers parts
    rechecking = [False]
    real_scan, real_recheck = C._scan_runs, C._recheck_volatile

    def recheck(*a, **k):  # type: ignore[no-untyped-def]
        rechecking[0] = True
        try:
            return real_recheck(*a, **k)
        finally:
            rechecking[0] = False

    monkeypatch.setattr(C, "_recheck_volatile", recheck)
    monkeypatch.setattr(C, "_scan_runs", lambda d, w: (scans.append(rechecking[0] and d.name == "markers"),
                                                       real_scan(d, w))[1])
    again = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d2")
    assert again.cache["walked"] == 0 and not any(scans)
    assert pl.read_parquet(kept).sort(pl.all()).equals(rows.sort(pl.all()))
    kept.unlink()  # an older cache: the kept markers come from the parts
    scans.clear()
    third = run_survey(prof, root, snapshots=tmp_path / "s", reports=None, date="d3")
    assert third.cache["walked"] == 0 and any(scans)


def test_check_spans_are_the_lines_a_whole_read_finds_and_none_past_the_cap(tmp_path: Path) -> None:
    """``check_spans`` gives the places of the lines a recheck reads (its ``spans_out`` on a
    whole read), and none for a file past ``max_line``, which is framed line by line."""
    from survey.census import walk as W

    prof = get("claude_code")
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'{"a": 1}\n{"toolUseResult": {"persistedOutputPath": "/x/y.txt"}}\n\n'
                  b'{"toolUseResult": {"persistedOutputPath": "/x/z.txt"}}')
    read: list = []
    W.recheck_exists(prof, str(f), str(f), str(tmp_path), spans_out=read)
    spans = W.check_spans(prof, str(f))
    assert spans == read and [n for n, _, _ in spans] == [1, 3]
    assert all(f.read_bytes()[s:e].startswith(b'{"toolUseResult"') for _, s, e in spans)
    assert W.check_spans(prof, str(f), max_line=20) is None
    assert W.check_spans(prof, str(tmp_path / "gone.jsonl")) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(
    st.one_of(st.integers(0, 2**64 - 1).map(lambda n: f"f-{n:016x}"),  # a pseudonym, as the crawl names files
              st.integers(0, 2**64 - 1).map(lambda n: f"f-{n:016X}"),  # its digits in capitals: no longer in order
              st.text(max_size=8)),
    st.one_of(st.none(), st.integers(0, 2**40)), st.text(max_size=6)), unique_by=lambda r: r[0], max_size=40))
def test_the_corpus_fingerprint_is_the_sha256_of_its_sorted_lines(rows: list[tuple[str, int | None, str]]) -> None:
    """The fingerprint, however it is made (sorted by the pseudonyms' numbers, written by the
    CSV writer), is its definition: sha256 over one "<file_id>\\t<size>\\t<hash>\\n" line per
    file with no null, sorted by file_id as a string."""
    import hashlib

    import polars as pl

    from survey.snapshot.store import fingerprint

    frame = pl.DataFrame(rows, schema={"file_id": pl.String, "size": pl.Int64, "hash": pl.String}, orient="row")
    lines = sorted((f, s, h) for f, s, h in rows if s is not None)
    want = hashlib.sha256("".join(f"{f}\t{s}\t{h}\n" for f, s, h in lines).encode()).hexdigest()
    assert fingerprint(frame) == want
