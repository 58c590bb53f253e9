"""The walk of an inventory as tables: every file the walk's cache does not serve is walked in
batches, largest first, by a pool of workers that write their rows as Parquet parts, and the
result is one polars frame per table of ``walk.COLUMNS`` plus ``files`` (per-file read
outcome, hash, line count), keyed by the pseudonymous file_id. Per-file results are kept for
the next run (gated and pseudonymous: no more private than a snapshot) under
``$SURVEY_CACHE_DIR`` or ``~/.cache/survey``."""

from __future__ import annotations

import atexit
import gc
import hashlib
import io
import os
import shutil
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from survey.cachedir import crash_point
from survey.census import walk as W
from survey.census.pool import pool_context, walk_jobs
from survey.corpus.crawl import Inventory, join_ids
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import file_key
from survey.runtimes.base import Profile
from survey.snapshot.store import WRITE_OPTIONS, link_all

# Tables derived from another table's part as each part is written, not walked: the frames'
# per-file counts, so the census counts records and files without a distinct pass over every
# frame (at 5 GB of cursor_stream captures, 16 M frames -> 4.8 M rows; record classes 3.2 s ->
# 0.16 s). Their parts share the labels of the parts they come from, so the cache keeps them
# (and drops them) as it does those.
DERIVED = ("frame_counts",)
# Walk tables grow with the corpus (per record, or per file and path): they are spilled to
# Parquet parts as the walk goes and handed on as lazy scans, so memory stays flat.
SPILLED = (*W.COLUMNS, *DERIVED)
# Tables rolled up from each part of another, without file ids: a group's files are summed
# across parts, which is exact because a file's rows are in one part. The census's key-set
# counts read a few hundred rows a part instead of a row per file and path (15 M rows at 1
# GB of cursor_stream captures). Kept beside their source's parts under the same labels,
# linked where those are and rolled up again where those are rewritten (``_roll_up``);
# never filtered by file, so they are not SPILLED.
ROLLUPS = {"node_counts": "nodes"}

CACHE_LAYOUT = "parts-13"  # how the cache folder is laid out: a change starts it afresh
# A file's cache key, a column each (``_todo``): how it is walked, its stat, the children it
# is searched for and, for a SQLite store, its -wal. Kept and compared as columns: one
# string of them all, made for every file every run, kept and read back, cost 0.18 s at
# 567k files (0.11 s to make, 0.07 s to write and read) against 0.06 s.
KEY_COLS = ("kind", "size", "mtime_ns", "ctime_ns", "inode", "needles", "wal")
# where the volatile files' checked lines are (file_id, line_no, start, end), for their
# rechecks (``_recheck_volatile``); a cache without it has each of them read whole
SPANS_FILE = "spans.parquet"
SPANS_SCHEMA = {"file_id": pl.String, "line_no": pl.Int64, "start": pl.Int64, "end": pl.Int64}
# the volatile files' existence markers (``markers`` rows), kept beside them: a recheck
# compares with these instead of scanning every part of ``markers`` (0.08 s at 5 GB)
CHECKS_FILE = "checks.parquet"
CHECKS_SCHEMA = {"file_id": pl.String, "line_no": pl.Int64, "name": pl.String, "count": pl.Int64}

# Below this many bytes to walk, the walk runs in this process: starting the pool (a fork
# server that imports polars, then its workers) costs about what walking 20-30 MB does.
POOL_MIN_BYTES = 24 << 20

FILE_COLS = {
    "file_id": pl.String, "read_status": pl.String, "nbytes": pl.Int64, "lines": pl.Int64,
    "hash": pl.String, "truncations": pl.Int64,
}
# A file's row of the walk's file table, kept in the cache's meta.parquet beside its key and
# part: the one join of every file to the cache serves both (a table of its own cost a
# re-run at 567k files a join, a rewrite, and then a join of the crawl's frame to it).
FILE_VALUES = tuple(c for c in FILE_COLS if c != "file_id")


_NO_NEEDLES = hashlib.sha1(b"").hexdigest()[:12]
READ_KINDS = ["jsonl", "json", "text", "blob", "sqlite"]  # the kinds of file the walk reads
# the crawl's rows the walk reads (an empty file too: it has a row of the file table)
WALKS = pl.col("kind").is_in(READ_KINDS) & (pl.col("problem").is_null() | (pl.col("problem") == "empty"))


def _todo(inv: Inventory, root: Path, profile: Profile) -> tuple[pl.DataFrame, dict[str, list[str]]]:
    """The files to walk, in the crawl's order, as a frame (``path``, ``file_id``, ``_row``: its
    row of the crawl's frame, and the cache key's columns, ``KEY_COLS``, ``kind`` and ``size``
    among them), and the children each parent transcript is searched for (their file_ids, by
    the parent's; only parents that have any: ``_needles``). Per-file bookkeeping stays in
    frames, not Python objects: a corpus of many small files would otherwise cost a kilobyte
    or more per file."""
    df = inv.frame
    todo = df.with_row_index("_row").filter(WALKS)
    # children per parent session, for the lineage check (child id found in parent bytes),
    # in the inventory's order
    kids: dict[str, list[str]] = dict(
        df.filter(pl.col("parent_id").is_not_null() & pl.col("session_id").is_not_null())
        .group_by("parent_id", maintain_order=True).agg("file_id").iter_rows())
    if "sampled" in df.columns:  # outside the sample: hashed and counted, not walked
        todo = todo.with_columns(kind=pl.when(pl.col("kind").is_in(["jsonl", "json", "sqlite"]) & ~pl.col("sampled"))
                                 .then(pl.lit("blob")).otherwise(pl.col("kind")))
    jsonl_surfaces = [s.name for s in profile.surfaces if s.kind == "jsonl"]
    needles = {fid: kids[sess] for fid, sess in todo.filter(
        pl.col("surface").is_in(jsonl_surfaces) & pl.col("parent_id").is_null()
        & pl.col("session_id").is_in(list(kids))).select("file_id", "session_id").iter_rows()}
    todo = inv.with_names(todo)
    # the cache key: how the file is walked, its stat, the children it is searched for and,
    # for a SQLite store, its WAL (a live store changes its -wal, not its main file); ctime
    # too: a rewrite that keeps the size and puts the mtime back still moves it
    nsig = {fid: hashlib.sha1("|".join(sorted(nd)).encode()).hexdigest()[:12] for fid, nd in needles.items()}
    # paths as bytes (os.fsencode): a file name that is not UTF-8 comes from os.scandir with
    # lone surrogates, which a polars string cannot hold
    prefix = os.fsencode(os.path.join(str(root), ""))
    todo = todo.select((pl.lit(prefix, dtype=pl.Binary) + pl.col("path")).alias("path"), "file_id", "_row",
                       *KEY_COLS[:5], needles=_lookup("file_id", nsig, _NO_NEEDLES),
                       wal=_wal_keys(inv, todo, root))
    return todo, needles


def _grown(inv: Inventory, cache_dir: Path | None) -> int:
    """At least what a re-run will walk: the bytes of the files it walks beyond those of the
    files the cache holds (a new file counts whole, a changed one as much as it grew, though
    it is walked whole; a file gone takes its bytes off). 0 without a cache, whose first run
    has its own rule (``start_walkers``)."""
    meta = cache_dir / "meta.parquet" if cache_dir is not None else None
    if meta is None or not meta.exists():
        return 0
    try:
        was = pl.scan_parquet(meta).select(pl.col("size").sum()).collect().item()
    except (OSError, pl.exceptions.PolarsError):
        return 0  # (no cache to serve from: ``collect`` says so, and walks all)
    return int(inv.frame.filter(WALKS)["size"].sum() or 0) - int(was or 0)


def _wal_keys(inv: Inventory, todo: pl.DataFrame, root: Path) -> pl.Series | pl.Expr:
    """Per row of ``todo`` (relative ``path`` as bytes): a SQLite store's ``-wal`` as the crawl
    listed it (``:wal<size>.<mtime_ns>``, ``:wal-`` where it listed none), "" for any other
    kind. From the crawl's own rows, not a ``stat`` per store: the listing already holds every
    ``-wal`` (1 GB of chat stores, 116k stores: 0.39 s of a re-run's 1.1 s walk stage). A
    ``-wal`` listed as a symlink or a special file (the crawl does not follow it, the store's
    reader does) is ``stat``ed, as the reader would read it. A ``-wal`` that appears or goes
    after the crawl is the next crawl's, as any change is; one that is a folder is not a row,
    and keys as none (Known limits)."""
    if not (todo["kind"] == "sqlite").any():  # (no join over every file for none)
        return pl.lit("")
    wal = pl.lit(b"-wal", dtype=pl.Binary)
    listed = inv.with_names(inv.frame.select("file_id", "size", "mtime_ns", pl.col("kind").alias("wal_kind"))).select(
        "size", "mtime_ns", "wal_kind", wal_of=pl.col("path"))
    got = (todo.select("kind", wal_of=pl.col("path") + wal)
           .join(listed, on="wal_of", how="left", maintain_order="left", nulls_equal=False)
           .with_columns(key=pl.when(pl.col("kind") != "sqlite").then(pl.lit(""))
                         .when(pl.col("size").is_null()).then(pl.lit(":wal-"))
                         .otherwise(pl.format(":wal{}.{}", "size", "mtime_ns"))))
    odd = got.with_row_index("i").filter((pl.col("kind") == "sqlite") & pl.col("wal_kind").is_in(["link", "special"]))
    if not odd.height:
        return got["key"]
    keys = got["key"].to_list()
    base = os.fsencode(root)
    for i, rel in odd.select("i", "wal_of").iter_rows():  # (few: a -wal is a regular file)
        try:
            st = os.stat(os.path.join(base, rel))
            keys[i] = f":wal{st.st_size}.{st.st_mtime_ns}"
        except OSError:
            keys[i] = ":wal-"
    return pl.Series(keys, dtype=pl.String)


def _needles(inv: Inventory, children: dict[str, list[str]], walk: pl.DataFrame,
             ) -> dict[str, list[tuple[str, bytes]]]:
    """The children each parent in ``walk`` is searched for (``_todo``'s ``children``), with
    their raw session ids, read from their paths now: only the parents walked need them."""
    children = {fid: children[fid] for fid in walk["file_id"].to_list() if fid in children}
    raw = inv.child_session_ids([c for cs in children.values() for c in cs])
    return {fid: nd for fid, cs in children.items() if (nd := [(c, raw[c]) for c in cs if c in raw])}


# the existence rechecks of a re-run, in runs of files on this many threads where there are at
# least RECHECK_THREAD_MIN files: 2.9k transcripts at 5 GB of Claude Code 0.45-0.46 -> 0.26-0.35 s
RECHECK_THREADS = 2
RECHECK_THREAD_MIN = 256


def _recheck_volatile(cands: pl.DataFrame, cache_dir: Path, profile: Profile, root: str,
                      max_line: int, spans: list[tuple] | None = None,
                      checks: list[tuple] | None = None) -> list[str]:
    """Of the volatile files unchanged since the last run (``cands``: ``path``, ``file_id``,
    ``kind``, ``_part``), those whose existence checks come out now as the kept rows say
    (``walk.recheck_exists``): served from the cache, not walked again. A volatile file's
    result depends on other files only through those checks, so equal checks mean the rows
    a walk would give are the kept ones; any difference, or a check that cannot be redone
    without a walk, and it is walked.

    Each file's checked lines are read where the cache's ``spans.parquet`` says they are
    (``walk.check_spans``), not found by reading the file; ``spans`` gets (file_id, *span)
    of the files served, for the next cache, and ``checks`` their markers (``CHECKS_FILE``,
    which holds the kept ones; a cache without it has them read from the parts)."""
    cands = cands.filter(pl.col("kind") == "jsonl")
    if not cands.height or not _part_names(cache_dir / "markers"):
        return []
    def by_file(rows: pl.DataFrame) -> dict[str, list[tuple]]:  # the candidates' rows, per file
        out: dict[str, list[tuple]] = {}
        for fid, *row in rows.join(cands.select("file_id"), on="file_id", how="semi").iter_rows():
            out.setdefault(fid, []).append(tuple(row))
        return out

    try:
        if (cache_dir / CHECKS_FILE).exists():
            kept = by_file(pl.read_parquet(cache_dir / CHECKS_FILE))
        else:
            name = pl.col("name").cast(pl.String)  # (Categorical in the parts, as file_id)
            kept = by_file(_scan_runs(cache_dir / "markers", cands.select("file_id", pl.col("_part").alias("part")))
                           .filter(pl.any_horizontal(name.str.ends_with(m) for m in W.EXISTS_MARKERS))
                           .select(pl.col("file_id").cast(pl.String), "line_no", name, "count").collect())
    except (OSError, pl.exceptions.PolarsError):
        return []  # an unreadable cache serves nothing
    try:
        where = by_file(pl.read_parquet(cache_dir / SPANS_FILE)) if (cache_dir / SPANS_FILE).exists() else {}
    except (OSError, pl.exceptions.PolarsError):
        where = {}  # (each file is read whole, as without spans)
    out = []
    tops: dict[tuple[str, str], bool] = {}

    def recheck(rows: list[tuple[bytes, str]]) -> list[tuple[str, Any, list[W.Span]]]:
        got = []
        for raw, fid in rows:
            path = os.fsdecode(raw)
            read: list[W.Span] = []
            got.append((fid, W.recheck_exists(profile, path, path, root, max_line, tops, where.get(fid), read), read))
        return got

    rows = cands.select("path", "file_id").rows()
    # in RECHECK_THREADS runs of files at once where there are many: a recheck is mostly an
    # open, a read and a stat or two, each waiting on the kernel with the GIL let go
    n = RECHECK_THREADS if len(rows) >= RECHECK_THREAD_MIN else 1
    runs = [rows[i * len(rows) // n:(i + 1) * len(rows) // n] for i in range(n)]
    if n > 1:
        with ThreadPoolExecutor(n, thread_name_prefix="recheck") as pool:
            done = [r for run in pool.map(recheck, runs) for r in run]
    else:
        done = recheck(rows)
    for fid, now, read in done:
        if now and sorted(now) == sorted(kept.get(fid, ())):  # (none found: walked)
            out.append(fid)
            if spans is not None:
                spans.extend((fid, *x) for x in read)
            if checks is not None:
                checks.extend((fid, *m) for m in now)
    return out


def _lookup(col: str, mapping: dict[str, str], default: str) -> pl.Expr:
    if not mapping:
        return pl.lit(default)
    return pl.col(col).replace_strict(mapping, default=default, return_dtype=pl.String)


def cache_serves(cache_dir: Path | None, profile: Profile, mode: str, allow_mcp: bool,
                 max_line: int = W.DEFAULT_MAX_LINE) -> bool:
    """Was the walk's cache in ``cache_dir`` made under this walk's signature (so a re-run
    will serve the files it has not seen change from it)? Its first row's alone is read."""
    if cache_dir is None:
        return False
    try:
        sig = pl.read_parquet(cache_dir / "meta.parquet", columns=["sig"], n_rows=1)["sig"]
    except (OSError, pl.exceptions.PolarsError):
        return False
    return sig.len() == 1 and sig[0] == walk_signature(profile, mode, allow_mcp, max_line)


def walk_signature(profile: Profile, mode: str, allow_mcp: bool, max_line: int) -> str:
    """Everything that shapes a per-file walk result; any change invalidates the cache."""
    from survey import __version__
    from survey.runtimes.base import HERE

    h = hashlib.sha256()
    for part in (__version__, CACHE_LAYOUT, mode, str(allow_mcp), str(max_line)):
        h.update(part.encode() + b"\0")
    corpus = Path(W.__file__).parents[1] / "corpus"
    # the store readers and this module too: a store's records and facts, and the per-file
    # counts and rollups a batch writes here, are walk results (both were left out, so a
    # change to them served the old results)
    for f in (Path(W.__file__), Path(W.__file__).with_name("_walkcore.c"), Path(__file__), corpus / "frames.py",
              corpus / "privacy.py", corpus / "stores.py", HERE / profile.name / "vocab.json"):
        h.update(f.read_bytes() if f.exists() else b"-")
    settings = {k: v for k, v in vars(profile).items()
                if k not in ("claims", "notes", "probes", "scopes", "template", "title")}  # notes hold check functions
    h.update(repr(sorted((k, _canonical(v)) for k, v in settings.items())).encode())
    return h.hexdigest()[:24]


def _canonical(v: object) -> str:
    """A repr that does not depend on the process's hash seed (sets are sorted)."""
    if isinstance(v, (set, frozenset)):
        return "{" + ",".join(sorted(_canonical(x) for x in v)) + "}"
    if isinstance(v, dict):
        return "{" + ",".join(f"{_canonical(k)}:{_canonical(x)}" for k, x in sorted(v.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_canonical(x) for x in v) + "]"
    return repr(v)


def collect(inv: Inventory, root: Path, profile: Profile, *, mode: str, allow_mcp: bool,
            salt: bytes, jobs: int | None = None, max_line: int = W.DEFAULT_MAX_LINE,
            progress: Callable[[int, int], None] | None = None,
            cache_dir: Path | None = None, stats: dict | None = None) -> dict[str, pl.DataFrame]:
    """The walk's tables of every file of ``inv``: the files the cache serves taken from it
    (``_serve``), the rest walked in batches (``_walk_batches``), the tables gathered
    (``_gather``) and kept for the next run (``_keep``)."""
    jobs = walk_jobs(jobs)
    if int(inv.frame["size"].sum() or 0) >= POOL_MIN_BYTES:
        start_walkers(jobs, cache_dir)  # (if ``run_survey`` has not already)
    # a re-run that will have workers whatever its cache serves: their fork server imports
    # beside the look-ups below, not after them (567k files: 0.2-0.3 s of them)
    early = jobs > 1 and _grown(inv, cache_dir) >= POOL_MIN_BYTES
    if early:
        pool_context(start=True)
    todo, children = _todo(inv, root, profile)
    sig = walk_signature(profile, mode, allow_mcp, max_line)
    todo, served = _serve(todo, cache_dir, sig, profile, root, max_line, jobs, early)
    hit = served.hit
    # per file, in the crawl's order: its key, whether it is served (``_hit``), and its old
    # part and file row, if any, as the join made them (copied here, masked to the files
    # served, they took a re-run's peak at 567k files 45 MB higher)
    kept = todo.select("file_id", "_row", *KEY_COLS, hit.alias("_hit"),
                       *(c if c in todo.columns else pl.lit(None, t).alias(c)
                         for c, t in {"_part": pl.String, **FILE_COLS}.items() if c != "file_id"))
    # the files to walk largest first (``_batches``); the rest stay in the crawl's order: a
    # frame sorted by size holds its ids in that order, scattered in memory, and each pass
    # over them read them at random (567k files: a re-run's four reads of every id in the
    # cache's joins 0.02 -> 0.1 s each)
    walk = todo.filter(~hit).select("path", "file_id", "kind", "size").sort("size", descending=True)
    del todo
    needles = _needles(inv, children, walk)
    if stats is not None:
        stats.update({"files": kept.height, "cache_hits": served.where.height, "walked": walk.height,
                      "walker": W.ENGINE})
        if served.error:
            stats["cache_error"] = served.error
    field_cols = list(profile.frame_fields)
    schemas = _schemas(field_cols)
    spill = _spill_folder(cache_dir, stats)
    taken = _Taken(served.spans, served.checks, progress)
    # files whose results depend on other files (walked again when a recheck differs) in
    # batches of their own, so the parts of the files around them stay clean in the cache
    split = cache_dir is not None  # volatile files' rows in parts of their own: for the cache
    is_volatile = pl.col("file_id").is_in(served.volatile)
    batches = _batches(walk.filter(~is_volatile), jobs) + _batches(walk.filter(is_volatile), jobs)
    small = int(walk["size"].sum() or 0) < POOL_MIN_BYTES or jobs == 1
    del walk
    _walk_batches(batches, small, taken, needles, spill, field_cols, split, jobs, profile, root,
                  mode=mode, allow_mcp=allow_mcp, salt=salt, max_line=max_line)
    if stats is not None:
        stats["worker_cpu"] = round(taken.worker_cpu, 3) if not small else 0.0
    out, kept = _gather(spill, schemas, taken, kept, served.cached)
    parts = _keep(cache_dir, spill, out, kept, sig, taken, served, stats)
    if stats is not None and parts is not None:
        stats["parts"] = parts  # for the snapshot writer (popped there: not a statistic)
    return out  # type: ignore[return-value]


@dataclass
class _Served:
    """What the walk's cache serves: each served file's tables (``cached``), which part holds
    its rows (``where``), the expression that picks the served files (``hit``), the files
    whose result depends on other files (``volatile``) and of those the ones served after a
    recheck (``rechecked``), with their checked lines and markers; why the cache was not
    read (``error``), if it could not be."""

    cached: dict[str, pl.DataFrame | pl.LazyFrame] = field(default_factory=dict)
    volatile: list[str] = field(default_factory=list)
    rechecked: list[str] = field(default_factory=list)
    spans: list[tuple] = field(default_factory=list)  # (file_id, line_no, start, end): where volatile files' checked lines are
    checks: list[tuple] = field(default_factory=list)  # (file_id, line_no, name, count): their existence markers
    # file_id -> the part (label "<run>-<part>") that holds its rows, for files served from the cache
    where: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema={"file_id": pl.String, "part": pl.String}))
    hit: pl.Expr = field(default_factory=lambda: pl.lit(False))
    error: str | None = None


def _serve(todo: pl.DataFrame, cache_dir: Path | None, sig: str, profile: Profile, root: Path, max_line: int,
           jobs: int, early: bool) -> tuple[pl.DataFrame, _Served]:
    """The files the cache in ``cache_dir`` serves: ``todo`` joined with each file's old key,
    part and file row where the cache was made under ``sig``, and what it serves. A file is
    served when its key is unchanged: (file pseudonym, how it is walked, size, mtime_ns,
    ctime_ns, inode, the children it is searched for, a store's ``-wal`` as the crawl listed
    it), under a signature of everything that shapes a walk (``walk_signature``). A changed or
    vanished file never is (a rewrite that restores size and mtime still moves the ctime,
    which only the kernel sets); files whose results depend on other files (existence
    checks) are served only where their checks come out as before (``_recheck_volatile``)."""
    s = _Served()
    try:
        meta = pl.read_parquet(cache_dir / "meta.parquet") if cache_dir and (cache_dir / "meta.parquet").exists() else None
    except (OSError, pl.exceptions.PolarsError) as exc:  # an unreadable cache is no cache
        meta, s.error = None, type(exc).__name__
    if cache_dir is None or meta is None or not meta.height or meta["sig"][0] != sig \
            or not {"part", *KEY_COLS, *FILE_VALUES} <= set(meta.columns):
        return todo, s
    s.volatile = volatile = meta.filter(pl.col("volatile"))["file_id"].to_list()
    # each file's old key, part and file row, in the crawl's order
    todo = join_ids(todo, meta.select("file_id", *(pl.col(c).alias(f"_old_{c}") for c in KEY_COLS),
                                      pl.col("part").alias("_part"), *FILE_VALUES))
    meta = None  # (joined: not held through the walk, 567k files' rows 90 MB)
    same = pl.all_horizontal(pl.col(c) == pl.col(f"_old_{c}") for c in KEY_COLS).fill_null(False)
    if not early and jobs > 1 and int(todo.filter(~same)["size"].sum() or 0) >= POOL_MIN_BYTES:
        # a re-run with workers to come (new and changed files alone pass the bound):
        # their fork server imports beside the existence rechecks, not after them
        pool_context(start=True)
    s.rechecked = rechecked = _recheck_volatile(todo.filter(same & pl.col("file_id").is_in(volatile)), cache_dir,
                                                profile, str(root), max_line, s.spans, s.checks)
    # served: a column once (each use of the expression made its columns again), the
    # old keys dropped
    todo = todo.with_columns(_hit=same & (~pl.col("file_id").is_in(volatile) | pl.col("file_id").is_in(rechecked))
                             ).drop(*(f"_old_{c}" for c in KEY_COLS))
    s.hit = hit = pl.col("_hit")
    s.where = where = todo.filter(hit).select("file_id", pl.col("_part").alias("part"))
    if where.height:
        for name in SPILLED:
            if _part_names(cache_dir / name):
                s.cached[name] = _scan_runs(cache_dir / name, where)
        f = cache_dir / "stores.parquet"
        if f.exists():
            s.cached["stores"] = pl.read_parquet(f).join(where.select("file_id"), on="file_id", how="semi")
    return todo, s


def _spill_folder(cache_dir: Path | None, stats: dict | None) -> Path:
    """A new folder for the walk's Parquet parts: beside the cache, so its parts can move in
    by hard link; named after it, whose lock's next holder removes one a killed run left
    (``cachedir.sweep``)."""
    if cache_dir is not None:
        cache_dir.parent.mkdir(parents=True, exist_ok=True)
    spill = Path(tempfile.mkdtemp(prefix=f"{cache_dir.name}.walk-" if cache_dir else "survey-walk-",
                                  dir=cache_dir.parent if cache_dir else None))
    atexit.register(shutil.rmtree, spill, True)  # a safety net: callers remove it when done
    if stats is not None:
        stats["spill_dir"] = str(spill)
    return spill


@dataclass
class _Taken:
    """What the walked batches sent back, taken as each ends (``__call__``): per batch its
    file rows (FILE_COLS and the batch, i.e. part, that walked each file), its stores' facts,
    its volatile files with their checked lines and markers, and the workers' CPU time."""

    spans: list[tuple]
    checks: list[tuple]
    progress: Callable[[int, int], None] | None
    files: list[pl.DataFrame] = field(default_factory=list)
    stores: list[pl.DataFrame] = field(default_factory=list)
    volatile: list[str] = field(default_factory=list)
    worker_cpu: float = 0.0

    def __call__(self, b: BatchOut) -> None:
        self.worker_cpu += b.cpu
        self.files.append(pl.DataFrame(b.files, schema=FILE_COLS, orient="row").with_columns(
            _batch=pl.lit(b.index, dtype=pl.Int64)))
        if b.stores:
            # store facts are flat, gated by the reader (counts, table names, flags): one row per store
            self.stores.append(pl.DataFrame(b.stores, infer_schema_length=None))
        self.volatile.extend(b.volatile)
        self.spans.extend(b.spans)
        self.checks.extend(b.checks)
        if self.progress:
            self.progress(len(b.files), b.nbytes)
        crash_point("walk")


def _walk_batches(batches: list[pl.DataFrame], small: bool, take: _Taken, needles: dict[str, list], spill: Path,
                  field_cols: list[str], split: bool, jobs: int, profile: Profile, root: Path, *, mode: str,
                  allow_mcp: bool, salt: bytes, max_line: int) -> None:
    """Each batch walked, in this process where the files to walk are few (``small``), else
    by the pool's workers, a few batches in flight; each handed to ``take`` as it ends."""
    if small:
        walker = W.make_walker(profile.name, mode, allow_mcp, salt, max_line)
        walker.root = str(root)
        for i, batch in enumerate(batches):
            take(walk_batch(walker, _batch_tasks(batch, needles), str(spill), i, field_cols, split))
    else:
        with ProcessPoolExecutor(jobs, mp_context=pool_context(), initializer=W._init_worker,
                                 initargs=(profile.name, mode, allow_mcp, salt, max_line, str(root),
                                           os.getpid())) as ex:
            # a few batches in flight, taken in order: their tasks exist only while they run
            pending: deque = deque()
            for i, batch in enumerate(batches):
                pending.append(ex.submit(_work_batch, _batch_tasks(batch, needles), str(spill), i, field_cols,
                                         split))
                if len(pending) >= jobs * IN_FLIGHT:
                    take(pending.popleft().result())
            while pending:
                take(pending.popleft().result())


def _gather(spill: Path, schemas: dict[str, dict], taken: _Taken, kept: pl.DataFrame,
            cached: dict[str, pl.DataFrame | pl.LazyFrame]) -> tuple[dict[str, pl.DataFrame | pl.LazyFrame], pl.DataFrame]:
    """The walk's tables: this run's spilled parts with the cache's rows, the file table in
    the crawl's order, the rollups; and ``kept`` with each file's row as served or walked."""
    out: dict[str, pl.DataFrame | pl.LazyFrame] = {}
    for name in SPILLED:
        d = spill / name
        if not d.exists() or not any(d.iterdir()):
            d.mkdir(exist_ok=True)
            written(pl.DataFrame(schema=schemas[name])).write_parquet(d / "part-empty.parquet")
        out[name] = pl.scan_parquet(d / "*.parquet")
    files = taken.files
    walked = pl.concat(files) if files else pl.DataFrame(schema={**FILE_COLS, "_batch": pl.Int64})
    # the files' rows in the crawl's order, served or walked now (those walked: a join to
    # the few of a re-run), with the batch that walked each (its part, for the cache)
    now = pl.col("_batch").is_not_null()
    kept = kept.join(walked, on="file_id", how="left", maintain_order="left", suffix="_now").with_columns(
        pl.when(now).then(pl.col(f"{c}_now")).when("_hit").then(pl.col(c)).alias(c) for c in FILE_VALUES
    ).drop(*(f"{c}_now" for c in FILE_VALUES))
    out["files"] = kept.select(*FILE_COLS, "_row")
    if taken.stores:
        out["stores"] = pl.concat(taken.stores, how="diagonal_relaxed")
    for name, df in cached.items():
        if name in out:
            mine = out[name]
            out[name] = pl.concat([df, mine], how="diagonal_relaxed")  # type: ignore[type-var]
        else:
            out[name] = df
    for name, source in ROLLUPS.items():  # rolled up afresh unless parts are at hand (``_keep``)
        out[name] = node_counts(out[source].lazy())
    return out, kept


def _keep(cache_dir: Path | None, spill: Path, out: dict[str, pl.DataFrame | pl.LazyFrame], kept: pl.DataFrame,
          sig: str, taken: _Taken, served: _Served, stats: dict | None) -> dict[str, PartSet] | None:
    """The walk's parts kept in the cache for the next run (and ``out``'s tables scanned
    there): the parts as they were written, per run, and ``meta.parquet`` saying which run
    holds each file's rows, with its row of the file table (``_write_cache``). Returns the
    Parquet parts behind each table, for the snapshot writer."""
    parts: dict[str, PartSet] | None = None
    if cache_dir is not None:
        try:
            where, totals = _write_cache(cache_dir, spill, out, kept, sig, {*taken.volatile, *served.rechecked},
                                         pl.DataFrame(taken.spans, schema=SPANS_SCHEMA, orient="row"),
                                         pl.DataFrame(taken.checks, schema=CHECKS_SCHEMA, orient="row"),
                                         was_volatile=set(served.volatile))
            # the cached rows now live in the new cache: scan them there, not in the old one
            # (the rollups too: made above from the old cache's parts, which are gone)
            for name in SPILLED:
                out[name] = _scan_runs(cache_dir / name, where)
            for name, source in ROLLUPS.items():
                out[name] = node_counts(out[source].lazy())
            parts = {name: _part_set(cache_dir / name, totals) for name in SPILLED}
            for name, source in ROLLUPS.items():
                parts[name] = _rollup_set(parts[source], cache_dir / name)
        except OSError as exc:  # the survey does not depend on its cache
            if stats is not None:
                stats["cache_error"] = type(exc).__name__
    else:  # every row of the spilled parts is this run's
        parts = {name: PartSet([p for p in _parts(spill / name) if p.name != "part-empty.parquet"], None)
                 for name in SPILLED}
        for name, source in ROLLUPS.items():
            parts[name] = _rollup_set(parts[source], spill / name)
    return parts


@dataclass
class PartSet:
    """A walk table as Parquet files: ``files`` hold only live rows (they can be linked into a
    snapshot as they are); ``rest`` is the live rows of parts that also hold stale ones."""

    files: list[Path]
    rest: pl.LazyFrame | None


def _part_set(d: Path, totals: dict[str, int]) -> PartSet:
    """A table's cached parts that serve files now (``totals``: the files each part of the
    new cache serves, as ``_write_cache`` counted them). Every one is clean: ``_write_cache``
    links or writes only parts whose rows are all live, so each is linked into the snapshot
    as it is."""
    return PartSet([p for p in _parts(d) if not p.name.endswith("-empty.parquet")
                    and p.name.removesuffix(".parquet") in totals], None)


def _rollup_set(source: PartSet, d: Path) -> PartSet:
    """A ROLLUPS table's parts (in ``d``) for its source's: the same labels' rollups, and the
    source's ``rest`` rolled up. Were one missing, all of it is rolled up from the source."""
    files = [d / p.name for p in source.files]
    if all(f.exists() for f in files):
        return PartSet(files, None if source.rest is None else node_counts(source.rest))
    scans = [pl.scan_parquet(source.files)] if source.files else []
    return PartSet([], node_counts(pl.concat([*scans, *([source.rest] if source.rest is not None else [])])))


def _files_of(where: pl.DataFrame, label: str) -> pl.LazyFrame:
    return where.lazy().filter(pl.col("part") == label).select(FILE_ID)


# ``file_id`` of a String frame (``where``) as the walk's parts hold it, to join on (``written``)
FILE_ID = pl.col("file_id").cast(pl.Categorical)


# -- the walk, in batches: each worker writes its own Parquet parts -----------------------
# Workers turn their results into columns and write them, so no row crosses a process
# boundary and the parent does no per-row work: it gets back per-file summaries only.
BATCH_FILES = 1024
IN_FLIGHT = 4  # batches per worker submitted ahead


@dataclass
class BatchOut:
    files: list[tuple]  # one row per file (FILE_COLS)
    stores: list[dict]  # one dict per SQLite store
    volatile: list[str]  # files whose result depends on other files (rechecked every run)
    nbytes: int
    cpu: float  # CPU seconds the batch took in its worker (fork-server workers are not our children)
    index: int  # the batch's number: its parts are ``part-<index>.parquet``
    spans: list[tuple] = field(default_factory=list)  # (file_id, *walk.Span) of its volatile files
    checks: list[tuple] = field(default_factory=list)  # their existence markers (file_id, *row)


def start_walkers(jobs: int | None, cache_dir: Path | None) -> None:
    """On a first run with workers to come, start the fork server now: it imports polars and
    the walk (0.25-0.3 s) while this process goes on (``run_survey`` calls this before the
    crawl, which hides it; the workers' first batch then starts that much earlier). A re-run
    waits to see how much is left to walk, which may be nothing: ``collect`` starts it as
    soon as the files' growth since the cache (``_grown``) or, after the cache's look-ups,
    what they leave passes ``POOL_MIN_BYTES``."""
    if walk_jobs(jobs) > 1 and not (cache_dir is not None and (cache_dir / "meta.parquet").exists()):
        pool_context(start=True)


# A batch's bytes, at least: each batch writes one Parquet part per table, and every census
# query pays for each part it reads (about 0.2 ms a part and scan in DuckDB, whatever its
# size). At 100 MB of Claude Code sessions, 16 MB instead of 4 MB made 13 parts a table
# instead of 32: the census run alone on the snapshot 0.77-1.06 -> 0.55-0.72 s. Whole surveys
# of it, alternating four times: first runs 3.63-4.44 -> 3.20-3.58 s (census 0.89-0.98 ->
# 0.62-0.82 s), re-runs after adding 1 % 1.82-1.88 -> 1.53-1.69 s. From 256 MB up (two
# workers) the share per worker, total / (jobs * 8), is the larger.
BATCH_MIN_BYTES = 16 << 20


def _batches(walk: pl.DataFrame, jobs: int) -> list[pl.DataFrame]:
    """Files to walk (largest first) cut into batches of about total / (jobs * 8) bytes (at
    least ``BATCH_MIN_BYTES``: each batch writes one Parquet part per table), at most
    ``BATCH_FILES`` files each: big files alone, small ones together, the pool busy to the
    end. Batches are slices of the frame (no copy); ``_batch_tasks`` makes their tasks."""
    total = int(walk["size"].sum() or 0)
    target = max(total // (max(jobs, 1) * 8), BATCH_MIN_BYTES)
    out: list[pl.DataFrame] = []
    start = n = size = 0
    for x in walk["size"]:
        n += 1
        size += x
        if size >= target or n >= BATCH_FILES:
            out.append(walk.slice(start, n))
            start, n, size = start + n, 0, 0
    if n:
        out.append(walk.slice(start, n))
    return out


def _batch_tasks(batch: pl.DataFrame, needles: dict[str, list]) -> list[tuple]:
    """A batch's tasks for ``walk_file``: (path, file_id, kind, size, needles)."""
    return [(os.fsdecode(path), fid, kind, size, needles.get(fid, [])) for path, fid, kind, size in
            batch.select("path", "file_id", "kind", "size").iter_rows()]


def _columns(rows: list[tuple], ids: tuple) -> list[list]:
    """Rows of one file as columns, after a column per id of the file (``file_id``, and
    ``file_key`` in a per-record table), transposed in C by zip."""
    return [*([i] * len(rows) for i in ids), *(list(c) for c in zip(*rows, strict=True))]


def walk_batch(walker: W.Walker, batch: list[tuple], spill: str, index: int,
               field_cols: list[str], split_volatile: bool = True) -> BatchOut:
    # The batch's rows pile up as millions of small tuples and strings in long-lived lists,
    # and Python's cycle collector would scan them all again and again as they grow (17 % of
    # the walk's CPU). Nothing the walk builds refers to itself (parsed JSON, tuples, lists of
    # rows), so reference counting frees all of it: the collector is off while a batch runs.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _walk_batch(walker, batch, spill, index, field_cols, split_volatile)
    finally:
        if paused:
            gc.enable()


# A batch's rows go into one table per spilled table, column by column: with the C core a
# ``_walkcore.Table`` (typed buffers handed to polars as Arrow arrays, no Python object per
# cell), else a ``_ListTable`` (lists, the same interface). The per-file aggregates (dicts: a
# key tuple -> its counts) repeat the same few hundred keys in every file: a batch numbers
# each distinct key once and keeps, per row, the key's number and the counts; the key
# strings are spread back in one vectorised gather when the part is written, instead of a
# str per cell (at 1 GB of cursor_stream captures, 15 M node rows).
AGGREGATES = {"nodes": 4, "values": 3, "headings": 2,  # table -> columns in its key tuple
              "rawsets": 3, "formats": 3}
# the aggregates whose counts the C core holds for a file and puts straight into the batch's
# tables when the file's counts are taken (``Core.take``), in its order of arguments: the raw
# key sets and formats there too, not through res's dicts, cost 100 MB of Claude Code
# transcripts a dict entry and an int per key and file
TAKEN = ("nodes", "values", "rawsets", "formats")
_KINDS = {pl.Int64: "i", pl.UInt64: "u", pl.Float64: "f", pl.Boolean: "b"}  # str columns: 'd' (``_kind``)


class _ListTable:
    """``_walkcore.Table``'s interface over Python lists: the build without the C core."""

    def __init__(self, names: tuple[str, ...], kinds: str) -> None:
        self.cols: list[list] = [[] for _ in names]
        self.rows = 0

    def add(self, rows: list[tuple], ids: tuple) -> None:
        for acc, col in zip(self.cols, _columns(rows, ids), strict=True):
            acc.extend(col)
        self.rows += len(rows)

    def add_counts(self, fid: str, counts: dict[tuple, Any], keys: dict[tuple, int]) -> None:
        if not counts:
            return
        self.cols[0].extend([fid] * len(counts))
        self.cols[1].extend([keys.setdefault(k, len(keys)) for k in counts])
        if len(self.cols) == 3:
            self.cols[2].extend(counts.values())
        else:
            for acc, col in zip(self.cols[2:], zip(*counts.values(), strict=True), strict=True):
                acc.extend(col)
        self.rows += len(counts)

    def __len__(self) -> int:
        return self.rows

    def columns(self) -> list[list]:
        cols, self.cols, self.rows = self.cols, [[] for _ in self.cols], 0
        return cols


def _table(schema: dict) -> Any:
    make = W.NATIVE.Table if W.NATIVE is not None else _ListTable
    return make(tuple(schema), "".join(_kind(name, t) for name, t in schema.items()))


def _kind(name: str, dtype: Any) -> str:
    """A column's kind in a batch Table: a str column numbered per distinct value ('d':
    written Categorical, ``written``), the others as they are."""
    return "d" if dtype == pl.String else _KINDS[dtype]


def _frame(table: Any, schema: dict) -> pl.DataFrame:
    """The table's rows as a frame of ``schema``, its 'd' columns Categorical (``_kind``);
    the table is empty afterwards."""
    cols = []
    for (name, dtype), col in zip(schema.items(), table.columns(), strict=True):
        if _kind(name, dtype) == "d":
            if isinstance(col, tuple):  # the C core's: each row's number, the values numbered
                numbers, values = col
                cols.append(pl.Series(name, values, dtype=pl.String).cast(pl.Categorical)
                            .gather(pl.Series(numbers)))
            else:
                cols.append(pl.Series(name, col, dtype=pl.String).cast(pl.Categorical))
        else:
            cols.append(pl.Series(name, col, dtype=dtype) if isinstance(col, list) else pl.Series(col))
    return pl.DataFrame(cols)


# A part is written by the C core from a native Table's columns (``_walkcore.write_parquet``:
# polars's frame and encoder were 14-17 % of a JSONL walk's CPU), with the key-value metadata
# polars writes for the same schema: its ``ARROW:schema`` has polars read the part's str
# columns as Categorical, as it reads the parts it writes (``written``). Without the C core,
# or where polars writes no such metadata, polars writes the part.
def _arrow_kv(schema: dict) -> tuple | None:
    """The key-value metadata polars writes for a part of ``schema`` (memoised), or None
    when it holds no ``ARROW:schema``."""
    key = tuple(schema.items())
    if key not in _ARROW_KV:
        buf = io.BytesIO()
        written(pl.DataFrame(schema=schema)).write_parquet(buf)
        buf.seek(0)
        md = pl.read_parquet_metadata(buf) if hasattr(pl, "read_parquet_metadata") else {}
        _ARROW_KV[key] = tuple(md.items()) if "ARROW:schema" in md else None
    return _ARROW_KV[key]


_ARROW_KV: dict[tuple, tuple | None] = {}


# A table whose rows a part holds grouped by a column's values (str order, nulls first, the
# rows of one value in the order they came), so that a census scan for one value reads a run
# of rows: the links, by kind (at 5 GB of Claude Code, the merges of uuid_dag and tool_pairs
# read 13.3M links for 3.4M and 0.7M; their statements 0.17-0.18 -> 0.11-0.12 s and 0.13-0.14 ->
# 0.07-0.08 s)
GROUPED = {"links": "kind"}


def _grouped(df: pl.DataFrame | pl.LazyFrame, col: str) -> Any:
    """``df``'s rows grouped as ``Table.group_rows`` groups them."""
    return df.sort(pl.col(col).cast(pl.String), nulls_last=False, maintain_order=True)


def _write_table(table: Any, schema: dict, d: Path, label: str, group: str | None = None) -> pl.DataFrame | dict:
    """The table's rows written as the part ``d/<label>.parquet``, and handed back for
    ``_frame_counts_of``: a native Table's columns (name -> Column, or (Column, values) for a
    'd' one), else the frame polars wrote. The table is empty afterwards. ``group``: the
    column its rows are grouped by (``GROUPED``)."""
    d.mkdir(exist_ok=True)
    if _c_writes(table, schema):
        if group is not None:
            table.group_rows(list(schema).index(group))
        rows = len(table)
        cols = dict(zip(schema, table.columns(), strict=True))
        _c_write(d / f"{label}.parquet", schema, rows,
                 [("d", *c) if isinstance(c, tuple) else (_KINDS[schema[n]], c, None) for n, c in cols.items()])
        return cols
    df = _frame(table, schema)
    if group is not None:
        df = _grouped(df, group)
    _write_part(df, d, label)
    return df


def _c_writes(table: Any, schema: dict) -> bool:
    """Does the C core write this table's part (a native Table, and polars's metadata to give)?"""
    return W.NATIVE is not None and isinstance(table, W.NATIVE.Table) and _arrow_kv(schema) is not None


def _c_write(path: Path, schema: dict, rows: int, specs: list) -> None:
    """``_walkcore.write_parquet`` of ``specs`` (kind, Column, values) as a part of ``schema``."""
    W.NATIVE.write_parquet(str(path), tuple(schema), specs, rows, PART_OPTIONS["row_group_size"], _arrow_kv(schema))


def _numbers(col: Any, name: str) -> pl.Series:
    """A 'd' column's numbers, each value's first (equal strings under two numbers, two str
    objects, are one value), for grouping; or a column's values."""
    if not isinstance(col, tuple):
        return pl.Series(col).alias(name)
    numbers, values = col
    first: dict[str, int] = {}
    canon = [first.setdefault(v, i) for i, v in enumerate(values)]
    s = pl.Series(numbers).alias(name)
    return s if len(first) == len(values) else pl.Series(name, canon, dtype=pl.Int64).gather(s)


def _frame_counts_of(cols: pl.DataFrame | dict) -> pl.DataFrame:
    """``frame_counts`` of a frames part from what ``_write_table`` handed back: with a
    native Table's columns, grouped on the 'd' columns' numbers and their strings gathered
    after (a Categorical, as the frame's)."""
    if isinstance(cols, pl.DataFrame):
        return frame_counts(cols)
    names = [*FRAME_COUNT_KEYS, "nbytes", "flags"]
    out = frame_counts(pl.DataFrame([_numbers(cols[n], n) for n in names]))
    return out.with_columns(
        pl.Series(n, cols[n][1], dtype=pl.String).cast(pl.Categorical).gather(out[n])
        for n in FRAME_COUNT_KEYS if isinstance(cols[n], tuple))


class _Aggregated:
    """One dict-shaped table's rows of a batch: file_ids, key numbers and counts as columns."""

    def __init__(self, schema: dict, width: int) -> None:
        names = list(schema)
        self.key_schema = {k: schema[k] for k in names[1:1 + width]}  # the key tuple's columns
        self.schema = schema
        self.rows_schema = {names[0]: schema[names[0]], "key_number": pl.Int64,
                            **{k: schema[k] for k in names[1 + width:]}}
        self.keys: dict[tuple, int] = {}  # a new key gets the next number as it is first seen
        self.table = _table(self.rows_schema)

    def add(self, fid: str, rows: dict[tuple, Any]) -> None:
        if rows:
            self.table.add_counts(fid, rows, self.keys)

    def frame(self) -> pl.DataFrame:
        """The rows with their key strings back, in the table's schema."""
        return self.frames(rolled=False)[0]

    def write(self, d: Path, label: str, rolled: bool) -> pl.DataFrame | None:
        """The rows written as the part ``d/<label>.parquet`` (in C from a native Table: each
        key column is the key numbers beside that part of every key); with ``rolled`` also
        nodes' rollup, as ``frames``. The table is empty afterwards."""
        d.mkdir(exist_ok=True)
        if not _c_writes(self.table, self.schema):
            df, out = self.frames(rolled)
            _write_part(df, d, label)
            return out
        rows = len(self.table)
        fid, number, *counts = self.table.columns()
        keys = list(self.keys)
        _c_write(d / f"{label}.parquet", self.schema, rows,
                 [("d", *fid), *(("d", number, [k[j] for k in keys]) for j in range(len(self.key_schema))),
                  *((_KINDS[t], c, None) for t, c in zip(list(self.rows_schema.values())[2:], counts, strict=True))])
        if not rolled:
            return None
        return self._rolled(pl.DataFrame([pl.Series(number), *(pl.Series(c) for c in counts)]))

    def _keys(self) -> pl.DataFrame:
        """The batch's keys in number order, a Categorical column per part of a key."""
        return pl.DataFrame(list(self.keys), schema=self.key_schema, orient="row").cast(pl.Categorical)

    def _rolled(self, rows: pl.DataFrame, keys: pl.DataFrame | None = None) -> pl.DataFrame:
        """nodes' rollup (``node_counts``) of rows of key numbers and counts (``keys``: the
        batch's, if made already)."""
        keys = self._keys() if keys is None else keys
        by_key = rows.group_by("key_number", maintain_order=True).agg(**_node_count_aggs())
        number = by_key["key_number"]
        return by_key.select(*[keys[k].gather(number) for k in NODE_COUNT_KEYS], "occurrences", "files", "max_len")

    def frames(self, rolled: bool) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        """``frame()``, and with ``rolled`` also nodes' rollup (``node_counts`` of that frame,
        row for row): grouped on the key's number before its strings come back, a quarter
        of the time of grouping on four strings."""
        # Categorical: the Parquet writer takes the dictionary it has (a batch's few hundred
        # keys) instead of hashing every row's strings again (``written``)
        keys = self._keys()
        rows = _frame(self.table, self.rows_schema)
        number = rows["key_number"]
        df = rows.select(*[keys[k].gather(number) if k in keys.columns else pl.col(k) for k in self.schema])
        return df, self._rolled(rows, keys) if rolled else None


# A batch's row tables are written out as they pass this many rows, mid-store, into held
# pieces that become the batch's one part at its end: a store's rows are otherwise in memory
# until it is done (the 1.5 GB desktop store, 543k records, 1.7M rows: 626 MB in its worker,
# 816 MB while written; a store three times as large would pass any bound)
FLUSH_ROWS = 1 << 18


class _BatchTables:
    """One part's worth of a batch's tables: the row tables and the per-file aggregates."""

    def __init__(self, schemas: dict[str, dict]) -> None:
        self.tables = {name: _table(schemas[name]) for name in W.COLUMNS if name not in AGGREGATES}
        self.aggs = {name: _Aggregated(schemas[name], width) for name, width in AGGREGATES.items()}
        # the aggregates ``Core.take`` fills, and its arguments for them (each Table and its
        # keys' dict: the same objects for the part's life), made once, not per file
        self.taken = [self.aggs[name] for name in TAKEN]
        self.take_args = tuple(x for agg in self.taken for x in (agg.table, agg.keys))
        # per table: the FileResult field, its batch table, whether rows carry file_key too
        self.plan = [(name, table, name in KEYED) for name, table in self.tables.items()]
        self.held: dict[str, list[Path]] = {}  # per table: its rows written out so far, in order

    def rows(self) -> int:
        """The rows the row tables hold now."""
        return sum(len(t) for t in self.tables.values())

    def flush(self, held_dir: Path, schemas: dict[str, dict], label: str) -> None:
        """Write the row tables' rows out as held pieces (``write`` joins them into the part)
        and empty them; the per-file aggregates stay (a file adds them at its end)."""
        for name, table in self.tables.items():
            if len(table):
                self._hold(name, table, held_dir, schemas[name], label)

    def _hold(self, name: str, table: Any, held_dir: Path, schema: dict, label: str) -> None:
        """The table's rows as its next held piece; the table is empty afterwards."""
        pieces = self.held.setdefault(name, [])
        stem = f"{label}-{name}-{len(pieces)}"
        _write_table(table, schema, held_dir, stem, GROUPED.get(name))
        pieces.append(held_dir / f"{stem}.parquet")

    def add(self, r: W.FileResult, rows_only: bool = False) -> None:
        """The file's rows, then its per-file counts; ``rows_only``: its per-record rows so far
        but its markers (the volatile check reads them at the file's end), mid-file."""
        fid = r.file_id
        ids = (fid,)
        keyed_ids = None
        for name, table, keyed in self.plan:
            if rows_only and name == "markers":
                continue
            rows = getattr(r, name)
            sunk = rows is table  # this part's row sink: the file's cells are in, not its ids
            if not (sunk or rows):
                continue
            if keyed and keyed_ids is None:
                keyed_ids = (fid, file_key(fid))
            if sunk:
                table.fill_ids(keyed_ids if keyed else ids)
            else:
                table.add(rows, keyed_ids if keyed else ids)
                # a file's rows go as soon as they are in the table: one large file (a 1.5
                # GB store, 543k records) would otherwise hold all of them twice at once
                rows.clear()
        if rows_only:
            return
        start = [len(agg.table) for agg in self.taken]
        for name, agg in self.aggs.items():
            agg.add(fid, getattr(r, name))
        if r.held is not None:
            # the counts the core holds after those it wrote to res (truncations, withheld
            # values, a table's worth flushed mid-file), summed into the file's rows where a
            # key is in both: the rows of release() and add_counts, in their order (for a
            # file walked in one piece)
            r.held.take(r, fid, *self.take_args, *start)
            r.held = None

    def take_sunk(self, r: W.FileResult, src: _BatchTables, starts: dict[str, int]) -> None:
        """A file's rows that went straight into ``src``'s tables (its row sinks) from rows
        ``starts`` on, moved to this part's (a volatile file's part)."""
        ids = (r.file_id, file_key(r.file_id))
        for name, start in starts.items():
            sunk = src.tables[name]
            if getattr(r, name) is sunk:
                sunk.fill_ids(ids)
                self.tables[name].move_rows(sunk, start)
                setattr(r, name, [])

    def write(self, out: Path, schemas: dict[str, dict], label: str) -> None:
        """One table at a time, each part written before the next is built; a table with
        held pieces (``flush``) gets its last rows as one more, then the pieces streamed,
        in order, into its part (memory bounded by a row group, not by the part)."""
        self.plan = []  # the tables go as they are written
        for name in list(self.tables):
            table = self.tables.pop(name)
            if name in self.held:
                if len(table):
                    self._hold(name, table, self.held[name][0].parent, schemas[name], label)
                pieces = self.held.pop(name)
                (out / name).mkdir(exist_ok=True)
                joined = pl.scan_parquet(pieces)
                if name in GROUPED:  # (the links: few, next to a store's frames and nodes)
                    joined = _grouped(joined, GROUPED[name])
                joined.sink_parquet(out / name / f"{label}.parquet", **PART_OPTIONS)
                for p in pieces:
                    p.unlink()
                if name == "frames":  # read back: the columns counted, not the part's others
                    cols = [*FRAME_COUNT_KEYS, "nbytes", "flags"]
                    _write_part(frame_counts(pl.read_parquet(out / name / f"{label}.parquet", columns=cols)),
                                out / "frame_counts", label)
            elif len(table):
                handed = _write_table(table, schemas[name], out / name, label, GROUPED.get(name))
                if name == "frames":  # counted from the columns in hand
                    _write_part(_frame_counts_of(handed), out / "frame_counts", label)
                del handed
        for name in list(self.aggs):
            agg = self.aggs.pop(name)
            if len(agg.table):
                rolled = agg.write(out / name, label, rolled=name == "nodes")
                if rolled is not None:
                    _write_part(rolled, out / "node_counts", label)


# A JSONL file's node and value counts go from the C core into the batch's tables without a
# dict per file (``Core.take``): walk and table work of 100 MB of cursor_stream captures,
# 1.32-1.37 -> 1.17-1.22 CPU s. False: through res.nodes and res.values (tests compare both).
HOLD_COUNTS = True
# A JSONL file's per-record rows (``SUNK``) go from the C core straight into the batch's
# Tables (``Walker.row_sinks``): no tuple per row kept until the file's end and transposed.
# False: through res.frames and res.blocks (tests compare both).
ROW_SINKS = True
# the tables sunk so: per-record rows read by nothing but the batch's tables (not markers,
# which the volatile check reads at the file's end), all keyed by file_id and file_key
SUNK = ("frames", "blocks", "links", "numbers")


def _walk_batch(walker: W.Walker, batch: list[tuple], spill: str, index: int,
                field_cols: list[str], split_volatile: bool = True) -> BatchOut:
    schemas = _schemas(field_cols)
    # A file whose result depends on another file's existence is walked again when a check
    # comes out otherwise (``_recheck_volatile``). Its rows go to a part of their own
    # (``part-000003v``), so a run that walks it again drops that part whole (or rewrites
    # the files it still serves), and the files around it keep a clean part, linked
    # as it is (a mixed part would be rewritten: 0.45 s of a 1.4 s re-run of 100 MB of
    # Claude Code sessions). Each file's rows go straight to its part's tables: filtering
    # the batch's frames afterwards cost 12 % of that walk; the second part's writes still
    # cost 4-10 %, so without a cache (``split_volatile`` False) there is one part.
    parts = [_BatchTables(schemas)]  # the batch's part, then its volatile files' part if any
    # a JSONL file's node and value counts go from the C core straight into its part's
    # tables (``Core.take``); reset afterwards: other callers of walk_file get res.nodes
    walker.hold_counts = HOLD_COUNTS and walker._core is not None and W.NATIVE is not None  # C tables too
    # and its per-record rows go from the C core straight into the part's Tables
    if ROW_SINKS and walker.hold_counts:
        walker.row_sinks = {name: parts[0].tables[name] for name in SUNK}
    try:
        return _walk_files(walker, batch, spill, index, schemas, parts, split_volatile)
    finally:
        walker.hold_counts = False
        walker.row_sinks = None


def _walk_files(walker: W.Walker, batch: list[tuple], spill: str, index: int, schemas: dict[str, dict],
                parts: list[_BatchTables], split_volatile: bool) -> BatchOut:
    files: list[tuple] = []
    stores: list[dict] = []
    volatile: list[str] = []
    spans: list[tuple] = []
    exists_rows: list[tuple] = []
    nbytes = 0
    cpu0 = time.process_time()
    spilled = False  # the file walking now has handed rows to the batch's part mid-file
    checks = bool(walker.exists_paths)  # only an existence check makes a file volatile

    def hand_over(res: W.FileResult) -> None:
        nonlocal spilled
        spilled = True
        parts[0].add(res, rows_only=True)
        if parts[0].rows() >= FLUSH_ROWS:
            parts[0].flush(Path(spill) / "held", schemas, part_label(index))

    sinks = walker.row_sinks
    for path, file_id, kind, size, needles in batch:  # ``_batch_tasks``
        spilled = False
        starts = {name: len(t) for name, t in sinks.items()} if sinks is not None and kind == "jsonl" else {}
        r = W.walk_file(walker, path, file_id, kind, size, needles, hand_over if kind == "sqlite" else None)
        fid = r.file_id
        nbytes += r.nbytes
        files.append((fid, r.status, r.nbytes, r.lines, r.hash, r.truncations))
        part = parts[0]
        exists = [m for m in r.markers if m[1].endswith(W.EXISTS_MARKERS)] if checks else []
        if exists:
            volatile.append(fid)
            # a file whose rows went to the batch's part mid-walk keeps the rest there too
            # (the part is then rewritten by the next run's cache, as a mixed part is)
            if split_volatile and not spilled:
                if len(parts) == 1:
                    parts.append(_BatchTables(schemas))
                part = parts[1]
            if split_volatile and kind == "jsonl":  # where its checked lines are, for the next run
                spans.extend((fid, *x) for x in W.check_spans(walker.p, path, walker.max_line) or ())
                exists_rows.extend((fid, *m) for m in exists)
        if r.store:
            stores.append({"file_id": fid, **{k: v for k, v in r.store.items() if k not in ("hash", "nbytes")}})
        if part is not parts[0]:
            part.take_sunk(r, parts[0], starts)
        part.add(r)
        del r
    out = Path(spill)
    for k, part in enumerate(parts):
        part.write(out, schemas, part_label(index, k == 1))
    return BatchOut(files, stores, volatile, nbytes, time.process_time() - cpu0, index, spans, exists_rows)


def part_label(index: int, volatile: bool = False) -> str:
    """The name of batch ``index``'s part (``part-000003``), or of its volatile files' part
    (``part-000003v``)."""
    return f"part-{index:06d}{'v' if volatile else ''}"


# How a part is written, whole or streamed from held pieces. lz4: the parts are read once
# into the snapshot (and kept by the cache); no column statistics: each part spans every
# status and line range, so min/max would prune nothing in the census, and computing them
# was half of the write; row groups of 64k rows: the writer holds a row group's encoded
# pages (the 543k frames of a 1.5 GB store took 290 MB more to write in the default 512k,
# 180 MB in 64k)
PART_OPTIONS: dict[str, Any] = {"compression": "lz4", "statistics": False, "row_group_size": 1 << 16}


def _write_part(df: pl.DataFrame, d: Path, label: str) -> None:
    d.mkdir(exist_ok=True)
    df.write_parquet(d / f"{label}.parquet", **PART_OPTIONS)


def _work_batch(batch: list[tuple], spill: str, index: int, field_cols: list[str],
                split_volatile: bool = True) -> BatchOut:
    assert W._WORKER is not None
    return walk_batch(W._WORKER, batch, spill, index, field_cols, split_volatile)


def _schemas(field_cols: list[str]) -> dict[str, dict]:
    return {
        "frames": {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "frame_status": pl.String, "nbytes": pl.Int64,
                   "flags": pl.Int64, "rclass": pl.String, "keyset": pl.String,
                   **{c: pl.String for c in field_cols}},
        "blocks": {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "carrier": pl.String, "idx": pl.Int64,
                   "btype": pl.String, "keyset": pl.String, "name": pl.String,
                   "input_type": pl.String, "input_keyset": pl.String, "payload_len": pl.Int64},
        "nodes": {"file_id": pl.String, "rclass": pl.String, "path": pl.String, "jtype": pl.String,
                  "keyset": pl.String, "count": pl.Int64, "max_len": pl.Int64},
        "values": {"file_id": pl.String, "path": pl.String, "value": pl.String,
                   "withheld_id": pl.String, "count": pl.Int64},
        "links": {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "kind": pl.String, "ref": pl.UInt64,
                  "rclass": pl.String},
        "markers": {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "name": pl.String, "count": pl.Int64},
        "headings": {"file_id": pl.String, "name": pl.String, "value": pl.String, "count": pl.Int64},
        "needles": {"file_id": pl.String, "needle_file": pl.String, "found": pl.Boolean},
        "numbers": {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "name": pl.String, "value": pl.Float64},
        "rawsets": {"file_id": pl.String, "rclass": pl.String, "path": pl.String, "rawset": pl.String, "count": pl.Int64},
        "formats": {"file_id": pl.String, "rclass": pl.String, "path": pl.String, "format": pl.String, "count": pl.Int64},
        "frame_counts": {"file_id": pl.String, "file_key": pl.UInt64, "frame_status": pl.String, "rclass": pl.String,
                         "keyset": pl.String, "records": pl.Int64, "bytes": pl.Int64, "bom": pl.Int64,
                         "crlf": pl.Int64, "nul": pl.Int64, "duplicate_key": pl.Int64, "out_of_range": pl.Int64,
                         "nonstandard_number": pl.Int64},
        "node_counts": {"rclass": pl.String, "path": pl.String, "jtype": pl.String, "keyset": pl.String,
                        "occurrences": pl.Int64, "files": pl.Int64, "max_len": pl.Int64},
    }


FRAME_COUNT_KEYS = ("file_id", "file_key", "frame_status", "rclass", "keyset")


def frame_counts(frames: pl.DataFrame) -> pl.DataFrame:
    """Frames counted per file and (status, class, key set): ``records``, their ``bytes``, and
    how many carry each flag (``frames.FLAGS``: a BOM, a CR end, a NUL, a key twice, a number
    out of range, a non-standard number). One row per file and key, so a group's rows are its
    files."""
    flags = pl.col("flags")
    return frames.group_by(FRAME_COUNT_KEYS, maintain_order=True).agg(
        records=pl.len().cast(pl.Int64), bytes=pl.col("nbytes").sum(),
        **{name: (flags & bit > 0).sum().cast(pl.Int64) for name, bit in FLAGS.items()})


NODE_COUNT_KEYS = ("rclass", "path", "jtype", "keyset")


def node_counts(nodes: pl.DataFrame | pl.LazyFrame) -> Any:
    """Nodes rolled up per (class, path, type, key set): ``occurrences`` (their counts
    summed), ``files`` (their rows: nodes hold one row per file and key) and ``max_len``.
    A frame for a frame, a lazy frame for a lazy one."""
    return nodes.group_by(NODE_COUNT_KEYS, maintain_order=True).agg(**_node_count_aggs())


def _node_count_aggs() -> dict[str, pl.Expr]:
    """A group of nodes rows rolled up (``node_counts``, and the worker's rollup by key number)."""
    return {"occurrences": pl.col("count").sum(), "files": pl.len().cast(pl.Int64), "max_len": pl.col("max_len").max()}


def _roll_up(source: Path, rollup: Path) -> None:
    """``rollup`` (a part of a ROLLUPS table) rolled up from the part ``source`` of its table."""
    # streamed: a compacted part is the whole table (15 M rows at 1 GB of cursor_stream
    # captures: 5.2 GB and 9 s read whole, 174 MB and 1 s streamed)
    _write_part(node_counts(pl.scan_parquet(source)).collect(engine="streaming"), rollup.parent,
                rollup.name.removesuffix(".parquet"))


# The per-record tables (keyed by file and line) also carry the file's id as a number,
# ``file_key``, for the census to join on (``privacy.file_key``).
KEYED = tuple(name for name, schema in _schemas([]).items() if "file_key" in schema)

# Every str column of the walk's tables is Categorical in every part written (Parquet: one
# dictionary per column chunk, as the writer would make of strings). Made so in the worker
# from the few distinct values a batch has: the aggregates' key columns from its few
# hundred keys, the other columns (a file's id, a record class, a key set) from the str
# objects the walk hands again and again (a Table's 'd' columns, ``_kind``); never by
# hashing every row's strings. At 100 MB of cursor_stream captures (1.5 M node rows) the
# aggregates alone took the walk's CPU in one process from 2.15-2.38 to 1.93-2.11 s.
# DuckDB reads them as VARCHAR; polars as Categorical, and it refuses to scan a table whose
# parts mix the two: parts rolled up or rewritten from parts keep the type they read, an
# empty part gets it from ``written``, a part the C core writes from the polars metadata
# of ``written`` (``_arrow_kv``), and the cache's joins on ``file_id`` cast the other side
# (``FILE_ID``).


def written(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` (a part of a walk table) as every part of one is written: its str columns
    Categorical (a batch Table's 'd' columns, ``_kind``)."""
    return df.cast({c: pl.Categorical for c, t in df.schema.items() if t == pl.String})


def _part_names(d: Path) -> list[str]:
    """The names of the Parquet files of a table's folder, in order (sorted as names, not as
    ``Path`` objects, which compare their parts in Python: a re-run at 567k files sorted
    560 parts a table, a dozen times)."""
    try:
        return sorted(e.name for e in os.scandir(d) if e.name.endswith(".parquet"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _parts(d: Path) -> list[Path]:
    return [d / n for n in _part_names(d)]


def _run_of(name: str) -> str:
    """The run of a part's file name (``<run>-part-000003.parquet``)."""
    return name.split("-", 1)[0]


def _scan_runs(d: Path, where: pl.DataFrame) -> pl.LazyFrame:
    """The rows of each file (``where``: file_id -> part) from the run that last walked it
    (older rows of a file that has changed since are in the parts too, and are never read)."""
    want = where.lazy().select(FILE_ID, _run=_run_expr(pl.col("part")))
    parts = _parts(d)
    return (pl.scan_parquet(parts, include_file_paths="_part")
            .with_columns(pl.col("_part").str.extract(r"([^/]+?)-[^/]*$", 1).alias("_run"))
            .join(want, on=["file_id", "_run"], how="semi")
            .drop("_part", "_run"))


def _run_expr(label: pl.Expr) -> pl.Expr:
    """The run of a part label ``<run>-<part>`` (as ``_run_of`` of its file)."""
    return label.str.extract(r"^([^-]*)", 1)


COMPACT_AFTER_RUNS = 8


def _as_it_was(cache_dir: Path, kept: pl.DataFrame, live: dict[str, int], old_totals: dict,
               volatile: set[str], was_volatile: set[str] | None, spans: pl.DataFrame | None,
               checks: pl.DataFrame | None) -> bool:
    """Would ``_write_cache`` write the cache it was given? So where every file was served
    (none walked), from parts each still serving all the files it was written for, and the
    volatile files are those it names, their spans and markers as it holds them: every row
    of every file of the new cache would be the old one's."""
    if was_volatile is None or volatile != was_volatile or not kept["_hit"].all() or live != old_totals:
        return False
    if not volatile:
        return True
    try:  # (a few rows a volatile file)
        def same(name: str, now: pl.DataFrame | None) -> bool:
            return now is not None and pl.read_parquet(cache_dir / name).sort(pl.all()).equals(now.sort(pl.all()))
        return same(SPANS_FILE, spans) and same(CHECKS_FILE, checks)
    except (OSError, pl.exceptions.PolarsError):
        return False


def _write_cache(cache_dir: Path, spill: Path, out: dict, kept: pl.DataFrame, sig: str,
                 volatile: set[str], spans: pl.DataFrame | None = None,
                 checks: pl.DataFrame | None = None,
                 was_volatile: set[str] | None = None) -> tuple[pl.DataFrame, dict[str, int]]:
    """Replace the cache in one step: build it beside the old one, then swap folders.
    ``kept``: every file's cache key (``KEY_COLS``), its row of the file table
    (``FILE_VALUES``), and either ``_batch``, the batch that walked it now, or (``_hit``)
    ``_part``, the part (``<run>-<part>``) of the old cache it is served from. Returns, per
    file, the part that now holds its rows, and how many files each part holds.

    Walk tables are kept as Parquet parts named ``<run>-…``: this run's parts and the old
    cache's clean parts move in by hard link, never re-encoded. Every part in the cache is
    clean (all its rows are live), so the snapshot can link them too (``_part_set``):
    ``parts.json`` counts the files each part was written for, and an old part that no
    longer serves all of them (a file changed or vanished) is dropped, its live rows
    rewritten once into this run's ``rest`` part. ``meta.parquet`` names, per file, its part
    (whose label begins with its run), its key and file row, and whether it is ``volatile``
    (``volatile``: the files whose result depends on other files, walked now or served after
    their checks were redone, ``_recheck_volatile``). After ``COMPACT_AFTER_RUNS`` runs, all
    live rows are rewritten into one part. ``spans``: where the volatile files' checked lines
    are (``SPANS_FILE``), of the files walked now and of those served after their checks;
    ``checks``: their existence markers (``CHECKS_FILE``), the same files'.

    Where the new cache would be the old one (``_as_it_was``; ``was_volatile``: the files
    the old one names volatile), the old one is left as it is (567k files, a re-run that
    changed nothing: 0.3-0.36 s of linking, rewriting and swapping the same cache)."""
    where = kept.filter("_hit").select("file_id", part="_part")
    reuse = where.height > 0
    old_runs = {_run_of(n) for name in SPILLED for n in _part_names(cache_dir / name)} if reuse else set()
    compact = len(old_runs) >= COMPACT_AFTER_RUNS
    try:
        old_totals = orjson.loads((cache_dir / "parts.json").read_bytes()) if reuse and not compact else {}
    except (OSError, orjson.JSONDecodeError):
        old_totals = {}  # unknown totals: every old part is rewritten once, never linked
    live = dict(where.group_by("part").len().iter_rows())  # old part -> how many files it serves now
    if reuse and not compact and _as_it_was(cache_dir, kept, live, old_totals, volatile, was_volatile, spans, checks):
        return where, live
    tmp = cache_dir.with_name(cache_dir.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    run = uuid.uuid4().hex[:10]
    dirty = [w for w, n in live.items() if n != old_totals.get(w)]
    old, is_volatile = pl.col("_part"), pl.col("file_id").is_in(list(volatile))
    # the labels ``part_label`` gave this run's parts (a volatile file's: its batch's "v" part)
    part = pl.when(pl.col("_batch").is_not_null()).then(
        pl.format("{}-part-{}{}", pl.lit(run), pl.col("_batch").cast(pl.String).str.zfill(6),
                  pl.when(is_volatile).then(pl.lit("v")).otherwise(pl.lit("")))
    ).when("_hit").then(pl.lit(f"{run}-compact") if compact else
                        pl.when(old.is_in(dirty)).then(pl.lit(f"{run}-rest")).otherwise(old))
    meta = kept.select("file_id", *KEY_COLS, *FILE_VALUES, sig=pl.lit(sig), volatile=is_volatile, part=part)
    # written on a thread while the parts are linked and rolled up here (a Python call or
    # two a part): 567k files' meta took 0.14 s to write, after them
    with ThreadPoolExecutor(1, thread_name_prefix="cache-meta") as writing:
        meta_written = writing.submit(meta.write_parquet, tmp / "meta.parquet", **WRITE_OPTIONS)
        try:
            _link_parts(cache_dir, tmp, spill, out, where, run, reuse, compact, live, dirty)
        finally:
            meta_written.result()
    new_where = meta.select("file_id", "part")
    totals = dict(new_where.group_by("part").len().iter_rows())
    (tmp / "parts.json").write_bytes(orjson.dumps(totals))
    if spans is not None and spans.height:
        spans.write_parquet(tmp / SPANS_FILE, **WRITE_OPTIONS)
    if checks is not None:  # (written when empty too: no file is volatile, none to read)
        checks.write_parquet(tmp / CHECKS_FILE, **WRITE_OPTIONS)
    if "stores" in out:
        df = out["stores"]
        (df.collect() if isinstance(df, pl.LazyFrame) else df).write_parquet(tmp / "stores.parquet", **WRITE_OPTIONS)
    # swapped in two renames (the run holds the cache's lock, ``cachedir.hold``): killed
    # between them, the next run finds no cache (and walks everything), never half of one
    crash_point("cache")
    old_dir = cache_dir.with_name(cache_dir.name + f".old-{os.getpid()}")
    if cache_dir.exists():
        cache_dir.rename(old_dir)
    crash_point("cache-swap")
    tmp.rename(cache_dir)
    shutil.rmtree(old_dir, ignore_errors=True)
    return new_where, totals


def _link_parts(cache_dir: Path, tmp: Path, spill: Path, out: dict, where: pl.DataFrame, run: str,
                reuse: bool, compact: bool, live: dict[str, int], dirty: list[str]) -> None:
    """``_write_cache``'s walk tables in ``tmp``: the old cache's clean parts and this run's
    linked, the live rows of its dirty ones rewritten (all of them, ``compact``), and each
    part's rollup."""
    for name in SPILLED:
        d = tmp / name
        d.mkdir()
        links: list[tuple[str, str]] = []  # (a part, its name here): linked together (``link_all``)
        if reuse and compact:
            _scan_runs(cache_dir / name, where).sink_parquet(d / f"{run}-compact.parquet", **WRITE_OPTIONS)
        elif reuse:
            rewrite = []
            old = os.fspath(cache_dir / name)
            for n in _part_names(cache_dir / name):
                label = n.removesuffix(".parquet")
                if label in dirty:
                    rewrite.append(pl.scan_parquet(os.path.join(old, n)).join(_files_of(where, label), on="file_id",
                                                                                how="semi"))
                elif label in live:
                    links.append((os.path.join(old, n), n))
                # else: no file is served from it any more (or it is an empty part): dropped
            if rewrite:
                pl.concat(rewrite).sink_parquet(d / f"{run}-rest.parquet", compression="lz4")
        new = os.fspath(spill / name)
        links += [(os.path.join(new, n), f"{run}-{n}") for n in _part_names(spill / name) if n != "part-empty.parquet"]
        link_all(links, d)
        if not _part_names(d):
            written(pl.DataFrame(schema=out[name].collect_schema())).write_parquet(d / f"{run}-empty.parquet")
    for name, source in ROLLUPS.items():
        d = tmp / name
        d.mkdir()
        # a part linked as it was has its rollup in the old cache, one of this run's in the
        # spill (written with it): those are linked (each name looked up in its folder's
        # listing, not by a stat a part), the others rolled up
        old, new = os.fspath(cache_dir / name), os.fspath(spill / name)
        had, made = set(_part_names(cache_dir / name)), set(_part_names(spill / name))
        links = []
        for n in _part_names(tmp / source):
            if n in had:
                links.append((os.path.join(old, n), n))
            elif n.removeprefix(f"{run}-") in made:
                links.append((os.path.join(new, n.removeprefix(f"{run}-")), n))
            else:
                _roll_up(tmp / source / n, d / n)
        link_all(links, d)
