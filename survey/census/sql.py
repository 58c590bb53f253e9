"""Run the census ``.sql`` files over a snapshot's Parquet, exactly as a reviewer would.

Each file answers one question and runs unchanged in the ``duckdb`` CLI with one variable,
``snap``; the runner keeps per query its file, pasteable command, columns and rows, the
evidence behind every table on a page (``run_census``)."""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import hashlib
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import orjson

from survey.cachedir import replace_file
from survey.census.partials import Labels, Splitter, split_of
from survey.runtimes.base import Profile
from survey.shared import PKG_ROOT, rel  # noqa: F401  (rel: the census modules take it from here)

SHARED = Path(__file__).parent / "queries"


def query_files(profile: Profile) -> list[Path]:
    own = sorted(profile.queries_dir.glob("*.sql")) if profile.queries_dir.exists() else []
    return sorted(SHARED.glob("*.sql")) + own


def inventory_reads(profile: Profile) -> int:
    """How many times a re-run's census reads the snapshot's inventory: each mention of it in
    the statements a re-run runs (a split's where the query has one). Each file more in the
    inventory costs each read about 2 ms (``SnapshotWriter.write_inventory``)."""
    return sum((split_of(f) or f).read_text().count("/inventory/") for f in query_files(profile))


def command(sql_file: Path, snap: str) -> str:
    return f"duckdb -c \"SET VARIABLE snap = '{snap}'\" -c \".read {rel(sql_file)}\""


def _plain(v: object) -> object:
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def run_query(con: duckdb.DuckDBPyConnection, sql_file: Path) -> tuple[list[str], list[list]]:
    return fetch(con, sql_file.read_text())


def fetch(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[list]]:
    """A query's columns and rows, as plain JSON values."""
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description or []]
    rows = [[_plain(v) for v in r] for r in cur.fetchall()]
    return cols, rows


# DuckDB's own memory (sorts, joins, windows spill past it); the queries avoid state it does
# not count (a quantile holds every value: payload_lengths.sql reads them off a histogram).
# At 5 GB of Cursor transcripts the census peaks at ~450 MB with this, no query needing more.
MEMORY_LIMIT = "384MB"
# Queries run side by side on this many cursors of one DuckDB instance (same threads, same
# memory limit): most census queries are small, and alone they leave a core idle.
PARALLEL = max(1, min(4, os.cpu_count() or 1))


# Below this many bytes of walk tables the census runs every query whole (its reference) and
# keeps no partial rows: a split's twenty-odd statements a query, and its kept rows'
# bookkeeping, cost more than reading so little again. At 100 MB of Claude Code sessions
# (5.2 MB of tables) the census took 0.50-0.56 s split, 0.32-0.36 s whole, and a re-run's
# split census, served from kept rows, 0.45-0.55 s; the other runtimes at 100 MB (1-9 MB of
# tables) 0.16-0.37 s split, 0.10-0.26 s whole. At 1 GB of Claude Code (45 MB) the whole
# census takes 1.5-1.6 s and a re-run's split one 0.53-0.64 s; 9 MB of cursor_stream's
# tables (100 MB) is where the two meet on a re-run (0.18 s split, 0.16-0.19 s whole).
SPLIT_MIN_BYTES = 8 << 20


def splits_pay(snap_dir: Path) -> bool:
    """Do the snapshot's walk tables come to ``SPLIT_MIN_BYTES`` (the census's split queries
    then pay for themselves)? Counted until they do."""
    total = 0
    for p in (snap_dir / "walk").glob("*.parquet/*.parquet"):
        with contextlib.suppress(OSError):  # (a part gone is the census's error to give)
            total += p.stat().st_size
        if total >= SPLIT_MIN_BYTES:
            return True
    return False


def census_threads() -> int:
    """DuckDB threads while ``PARALLEL`` queries run side by side: the cores shared out. On two
    cores, two one-thread queries at a time took 5-15 % less time and CPU than two two-thread
    ones (100 MB and 1 GB of Claude Code, Codex and Cursor captures): most queries are too
    small to gain from a second thread, and each paid to coordinate one."""
    return max(1, (os.cpu_count() or 1) // PARALLEL)


def connect(spill_dir: str, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with bounded memory: large sorts and windows spill to a private
    temp dir (DuckDB's default would be ``.tmp`` in the working dir, which may be a corpus).
    ``threads``: DuckDB's worker threads (default: one per core)."""
    con = duckdb.connect()
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute("SET temp_directory = ?", [spill_dir])
    # every query reads the same few Parquet files: parse their footers once
    con.execute("SET parquet_metadata_cache = true")
    return con


def run_census(snap_dir: Path, profile: Profile, snap_label: str, labels: Labels | None = None,
               store: Path | None = None, stats: dict | None = None, inputs: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> dict[str, dict]:
    """Run every query; ``snap_label`` is the path a reviewer would type (relative).
    ``labels``: the walk's label of each part of the snapshot's tables, for queries split per
    part (``partials``), whose partial rows are kept in ``store`` for the next run; ``stats``
    gets how many parts were read and how many served from ``store``.

    ``inputs``: a digest of everything the queries read in this snapshot (the pipeline's
    ``census_inputs``), or None where it cannot say. With it, the census's rows are kept in
    ``store`` under it and the code that made them (``census_key``), and a census whose key
    is the one kept (a re-run that changed nothing) takes them from there: the same rows,
    not computed again (``stats["census_reused"]``).

    A query that adds up over files may be computed by its split (``queries/parts/``, see
    ``partials``): the same rows, from per-part rows a re-run keeps. Its record still names the
    reference query and command, which a test holds to the same rows, and the split it ran.
    """
    import shutil
    import tempfile

    key = census_key(profile, inputs) if store is not None and inputs else None
    if key is not None and store is not None:
        got = _kept_results(store, key, query_files(profile), snap_label)
        if got is not None:
            if stats is not None:
                stats["census_reused"] = len(got)
            return got
    spill = tempfile.mkdtemp(prefix="survey-duckdb-")
    try:
        census = _run_census(snap_dir, profile, snap_label, spill, labels, store, stats, progress)
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    if key is not None and store is not None:
        _keep_results(store, key, census)
    return census


# The last census of a root, beside its partial rows: {"key": census_key, "queries": {stem:
# its record without the command}} (the command names the snapshot, which is new each run)
RESULTS_FILE = "results.json"


def census_key(profile: Profile, inputs: str) -> str:
    """``inputs`` (what the census reads) and everything that turns them into its rows: the
    survey's and DuckDB's versions, this module and ``partials``, and each query's file and
    split, named and read."""
    from survey import __version__
    from survey.census import partials

    h = hashlib.sha256()
    for part in (inputs, __version__, duckdb.__version__, profile.name):
        h.update(part.encode() + b"\0")
    for f in (Path(__file__), Path(partials.__file__)):
        h.update(f.read_bytes() + b"\0")
    for f in query_files(profile):
        split = split_of(f)
        h.update(rel(f).encode() + b"\0" + f.read_bytes() + b"\0" + (split.read_bytes() if split else b"") + b"\0")
    return h.hexdigest()


def _kept_results(store: Path, key: str, files: list[Path], snap_label: str) -> dict[str, dict] | None:
    """The census kept under ``key``, its records made again for this snapshot; None where
    none is kept under it (or the file cannot be read: the census is then run)."""
    try:
        got = orjson.loads((store / RESULTS_FILE).read_bytes())
        if not isinstance(got, dict) or got.get("key") != key or not isinstance(got.get("queries"), dict):
            return None
        out = {}
        for f in files:
            r = got["queries"].get(f.stem)
            if r is None:  # (a query the census gave no record: none now either)
                continue
            out[f.stem] = {"sql": r["sql"], "command": command(f, snap_label), "columns": r["columns"],
                           "rows": r["rows"], **({"split": r["split"]} if "split" in r else {})}
        return out
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def _keep_results(store: Path, key: str, census: dict[str, dict]) -> None:
    """Keep ``census`` under ``key``, where JSON holds its rows exactly (a NaN, a tuple or a
    value JSON has no type for would come back otherwise: then nothing is kept, and the old
    file goes, as it is not this census's)."""
    queries = {stem: {k: v for k, v in r.items() if k != "command"} for stem, r in census.items()}
    try:
        raw = orjson.dumps({"key": key, "queries": queries})
        exact = orjson.loads(raw)["queries"] == queries
    except (TypeError, orjson.JSONEncodeError):
        exact = False
    if exact:
        replace_file(store / RESULTS_FILE, raw)
    else:
        with contextlib.suppress(OSError):
            (store / RESULTS_FILE).unlink()


def _run_census(snap_dir: Path, profile: Profile, snap_label: str, spill: str, labels: Labels | None,
                store: Path | None, stats: dict | None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, dict]:
    con = connect(spill, census_threads())
    files = query_files(profile)
    local = threading.local()
    cursors: list[duckdb.DuckDBPyConnection] = []
    lock = threading.Lock()
    splitter = Splitter(snap_dir, labels, store, spill) if labels and splits_pay(snap_dir) else None

    def cursor() -> duckdb.DuckDBPyConnection:
        cur = getattr(local, "cur", None)
        if cur is None:  # SET VARIABLE is per cursor (session)
            cur = local.cur = con.cursor()
            cur.execute("SET VARIABLE snap = ?", [str(snap_dir)])
            with lock:
                cursors.append(cur)
        return cur

    took: dict[str, float] = {}

    def one(f: Path) -> dict | None:
        t0 = time.perf_counter()
        try:
            return _one(f)
        finally:
            took[f.stem] = round(time.perf_counter() - t0, 4)
            if progress is not None:  # (a query done: one call a query, not a row)
                progress(1, 0)

    def _one(f: Path) -> dict | None:
        try:
            return _record(f, snap_label, *_rows(cursor(), f, splitter))
        except duckdb.OutOfMemoryException:
            return None  # run again below, alone and with more memory

    # the longest queries of the last run first: the census ends with the last query to end,
    # and a long one started last kept one core busy alone (a Claude Code re-run's
    # ``usage_dedup``, 0.6 s, among cheap split queries). With no times yet (a first run),
    # the queries reading the most walk bytes first: in file order, a 1 GB Claude Code
    # survey's ``usage_dedup`` (0.9 s) started a second into the census, and ended it
    last = _last_seconds(store) or _input_bytes(files, snap_dir)
    order = sorted(range(len(files)), key=lambda i: -last.get(files[i].stem, 0.0))
    try:
        with ThreadPoolExecutor(max_workers=PARALLEL, thread_name_prefix="census") as pool:
            done = list(pool.map(one, [files[i] for i in order]))
    finally:
        for cur in cursors:
            cur.close()
        con.close()
    results: list[dict | None] = [None] * len(files)
    for i, r in zip(order, done, strict=True):
        results[i] = r
    for i, f in enumerate(files):
        if results[i] is None:
            t0 = time.perf_counter()
            results[i] = _record(f, snap_label, *_run_alone(f, snap_dir, spill, splitter))
            took[f.stem] = round(took.get(f.stem, 0.0) + time.perf_counter() - t0, 4)  # (first, next time)
    _keep_seconds(store, took)
    if stats is not None and labels and splitter is None:  # (small: nothing worth keeping)
        stats["census_whole"] = f"walk tables under {SPLIT_MIN_BYTES >> 20} MB"
    if stats is not None and splitter is not None:
        stats.update(census_parts_read=splitter.read, census_parts_kept=splitter.kept)
        if splitter.store_errors:
            stats["census_store_errors"] = splitter.store_errors
    return {f.stem: r for f, r in zip(files, results, strict=True) if r is not None}


def _rows(con: duckdb.DuckDBPyConnection, f: Path,
          splitter: Splitter | None) -> tuple[list[str], list[list], Path | None]:
    """A query's columns and rows, and the split they were merged by: by its split where
    this snapshot serves one (the same rows, from per-part rows: test_partials), else by
    the query itself. A kept file gone since it was listed (another survey of this root
    kept its own) is a counted store error, and the query itself runs."""
    split = split_of(f) if splitter is not None else None
    if splitter is not None and split is not None:
        try:
            with splitter.partials(con, split) as merge:
                got = fetch(con, merge) if merge is not None else None
        except duckdb.IOException as exc:
            splitter.count(exc)
            got = None
        if got is not None:
            return (*got, split)
    return (*run_query(con, f), None)


def _record(f: Path, snap_label: str, cols: list[str], rows: list[list], split: Path | None) -> dict:
    """A query's census record: its file, the pasteable command, its rows, and the split
    they were merged by, if any."""
    return {"sql": rel(f), "command": command(f, snap_label), "columns": cols, "rows": rows,
            **({"split": rel(split)} if split is not None else {})}


SECONDS_FILE = "seconds.json"
_WALK_TABLE = re.compile(r"/walk/(\w+)\.parquet")


def _input_bytes(files: list[Path], snap_dir: Path) -> dict[str, float]:
    """Per query, the bytes of the walk tables it reads (its split's too) in this snapshot:
    a stand-in for its time where none is known."""
    size: dict[str, int] = {}

    def table(name: str) -> int:
        if name not in size:
            p = snap_dir / "walk" / f"{name}.parquet"
            try:
                size[name] = sum(f.stat().st_size for f in p.iterdir()) if p.is_dir() else p.stat().st_size
            except OSError:
                size[name] = 0
        return size[name]

    out = {}
    for f in files:
        split = split_of(f)
        text = f.read_text() + (split.read_text() if split is not None else "")
        out[f.stem] = float(sum(table(t) for t in set(_WALK_TABLE.findall(text))))
    return out


def _last_seconds(store: Path | None) -> dict[str, float]:
    """Each query's time in the last census of this root (kept beside its partial rows),
    or nothing: only the order queries start in depends on it."""
    if store is None:
        return {}
    try:
        got = orjson.loads((store / SECONDS_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return {k: float(v) for k, v in got.items() if isinstance(k, str) and isinstance(v, (int, float))} \
        if isinstance(got, dict) else {}


def _keep_seconds(store: Path | None, took: dict[str, float]) -> None:
    if store is not None:  # (the census does not depend on its store)
        replace_file(store / SECONDS_FILE, orjson.dumps(took))


def _run_alone(f: Path, snap_dir: Path, spill: str,
               splitter: Splitter | None = None) -> tuple[list[str], list[list], Path | None]:
    """A query that ran out of memory beside the others: alone, with a larger limit each try
    (up to half the machine's memory), so a big corpus costs memory, never the census. A
    split query runs split again (its kept rows still serve: at 5 GB of Claude Code a
    re-run's ``usage_dedup`` took 3 s as its reference, alone)."""
    limits = [1 << 31, 1 << 32]
    try:
        half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
        limits = [x for x in limits if x < half] + [half]
    except (ValueError, OSError, AttributeError):
        pass
    for i, limit in enumerate(limits):
        con = connect(spill)
        try:
            con.execute(f"SET memory_limit = '{limit // (1 << 20)}MB'")
            con.execute("SET VARIABLE snap = ?", [str(snap_dir)])
            return _rows(con, f, splitter)
        except duckdb.OutOfMemoryException:
            if i == len(limits) - 1:
                raise RuntimeError(f"census query {rel(f)} needs more than {limit >> 20} MB of memory: "
                                   "survey a sample (--sample N) or a part of the corpus") from None
        finally:
            con.close()
    raise AssertionError("unreachable")
