"""Run the walk over an inventory (process pool) and collect the per-file results as tables.

Files are walked largest first so the pool stays busy to the end; results stream back in
completion order and are appended to column lists, so memory is per-file aggregates, never
the corpus. The output is a dict of polars frames, one per table of ``walk.COLUMNS`` plus
``files`` (per-file read outcome, hash, line count) — all keyed by the pseudonymous file_id.

Incremental re-surveys: per-file results are cached (already gated and pseudonymous, so no
more private than a snapshot) under ``$SURVEY_CACHE_DIR`` or ``~/.cache/survey``, keyed by
(file pseudonym, how it is walked, size, mtime_ns, ctime_ns, inode, the children it is
searched for) and by a signature of everything that shapes a walk (tool version, walk code,
profile settings, vocabulary, mode). A changed or vanished file is never served from the
cache; files whose results depend on other files (existence checks) are always walked
again. A rewrite that restores size and mtime still moves the ctime, which only the kernel
sets; ``--no-cache`` walks everything regardless.

The cache keeps the walk's Parquet parts as they were written, per run, and ``meta.parquet``
says which run holds each file's rows (see ``_write_cache``).
"""

from __future__ import annotations

import atexit
import hashlib
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import orjson
import polars as pl

from survey.census import walk as W
from survey.corpus.crawl import Inventory
from survey.runtimes.base import Profile
from survey.snapshot.store import link_or_copy

# Walk tables grow with the corpus (per record, or per file and path): they are spilled to
# Parquet parts as the walk goes and handed on as lazy scans, so memory stays flat.
SPILLED = tuple(W.COLUMNS)

CACHE_LAYOUT = "parts-3"

# Below this many bytes to walk, the walk runs in this process: starting the pool (a fork
# server that imports polars, then its workers) costs about what walking 20-30 MB does.
POOL_MIN_BYTES = 24 << 20  # how the cache folder is laid out: a change starts it afresh

FILE_COLS = {
    "file_id": pl.String, "read_status": pl.String, "nbytes": pl.Int64, "lines": pl.Int64,
    "hash": pl.String, "truncations": pl.Int64,
}


def _tasks(inv: Inventory, root: Path, profile: Profile) -> list[tuple]:
    df = inv.frame
    todo = df.filter(pl.col("kind").is_in(["jsonl", "json", "text", "blob", "sqlite"])
                     & (pl.col("problem").is_null() | (pl.col("problem") == "empty")))
    # children per parent session, for the lineage check (child id found in parent bytes)
    kids: dict[str, list[tuple[str, bytes]]] = {}
    sub = df.filter(pl.col("parent_id").is_not_null())
    for fid, pid in zip(sub["file_id"].to_list(), sub["parent_id"].to_list(), strict=True):
        raw = inv.raw_ids.get(fid)
        if raw:
            kids.setdefault(pid, []).append((fid, raw.encode()))
    sampled = set(df.filter(pl.col("sampled"))["file_id"].to_list()) if "sampled" in df.columns else None
    jsonl_surfaces = {s.name for s in profile.surfaces if s.kind == "jsonl"}
    base = str(root)
    paths = inv.paths
    tasks = []
    todo = todo.sort("size", descending=True)
    for fid, kind, size, surface, sess, parent in zip(
            *(todo[c].to_list() for c in ("file_id", "kind", "size", "surface", "session_id", "parent_id")),
            strict=True):
        if kind in ("jsonl", "json", "sqlite") and sampled is not None and fid not in sampled:
            kind = "blob"  # outside the sample: hashed and counted, not walked
        needles = kids.get(sess, []) if surface in jsonl_surfaces and parent is None else []
        tasks.append((os.path.join(base, paths[fid]), fid, kind, size, needles))
    return tasks


def cache_base() -> Path:
    env = os.environ.get("SURVEY_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "survey"


def walk_signature(profile: Profile, mode: str, allow_mcp: bool, max_line: int) -> str:
    """Everything that shapes a per-file walk result; any change invalidates the cache."""
    from survey import __version__
    from survey.runtimes.base import HERE

    h = hashlib.sha256()
    for part in (__version__, CACHE_LAYOUT, mode, str(allow_mcp), str(max_line)):
        h.update(part.encode() + b"\0")
    for f in (Path(W.__file__), Path(W.__file__).with_name("_walkcore.c"),
              Path(W.__file__).parents[1] / "corpus" / "frames.py",
              Path(W.__file__).parents[1] / "corpus" / "privacy.py", HERE / profile.name / "vocab.json"):
        h.update(f.read_bytes() if f.exists() else b"-")
    settings = {k: v for k, v in vars(profile).items() if k not in ("claims", "probes", "scopes", "template", "title")}
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


_NO_NEEDLES = hashlib.sha1(b"").hexdigest()[:12]


def _task_key(t: tuple, stat: dict[str, tuple[int, int, int]]) -> str:
    # ctime too: a rewrite that keeps the size and puts the mtime back still moves it
    _path, fid, kind, size, needles = t
    mtime_ns, ctime_ns, inode = stat[fid]
    nsig = hashlib.sha1("|".join(sorted(n for n, _ in needles)).encode()).hexdigest()[:12] if needles else _NO_NEEDLES
    key = f"{kind}:{size}:{mtime_ns}:{ctime_ns}:{inode}:{nsig}"
    if kind == "sqlite":
        # a live store changes its -wal, not its main file: the WAL is part of the key
        try:
            w = os.stat(_path + "-wal")
            key += f":wal{w.st_size}.{w.st_mtime_ns}"
        except OSError:
            key += ":wal-"
    return key


def collect(inv: Inventory, root: Path, profile: Profile, *, mode: str, allow_mcp: bool,
            salt: bytes, jobs: int | None = None, max_line: int = W.DEFAULT_MAX_LINE,
            progress: Callable[[int, int], None] | None = None,
            cache_dir: Path | None = None, stats: dict | None = None) -> dict[str, pl.DataFrame]:
    jobs = jobs or min(os.cpu_count() or 1, 8)
    if jobs > 1 and int(inv.frame["size"].sum() or 0) >= POOL_MIN_BYTES and not (
            cache_dir is not None and (cache_dir / "meta.parquet").exists()):
        # a first run: the fork server imports while the tasks are prepared (a re-run waits
        # to see how much is left to walk)
        _pool_context(start=True)
    all_tasks = _tasks(inv, root, profile)
    stat = {fid: (m, c, i) for fid, m, c, i in
            inv.frame.select("file_id", "mtime_ns", "ctime_ns", "inode").iter_rows()}
    keys = {t[1]: _task_key(t, stat) for t in all_tasks}
    cached: dict[str, pl.DataFrame | pl.LazyFrame] = {}
    hits: set[str] = set()
    volatile: set[str] = set()
    sig = walk_signature(profile, mode, allow_mcp, max_line)
    cache_error = None
    try:
        meta = pl.read_parquet(cache_dir / "meta.parquet") if cache_dir and (cache_dir / "meta.parquet").exists() else None
    except (OSError, pl.exceptions.PolarsError) as exc:  # an unreadable cache is no cache
        meta, cache_error = None, type(exc).__name__
    runs: dict[str, str] = {}  # file_id -> the run whose parts hold its rows
    where: dict[str, str] = {}  # file_id -> the part (label: "<run>-<part>") that holds its rows
    if cache_dir is not None and meta is not None and meta.height and meta["sig"][0] == sig \
            and "run" in meta.columns:
        have = dict(zip(meta["file_id"].to_list(), meta["key"].to_list(), strict=True))
        volatile = set(meta.filter(pl.col("volatile"))["file_id"].to_list())
        hits = {fid for fid, k in keys.items() if have.get(fid) == k and fid not in volatile}
        runs = {f: r for f, r in zip(meta["file_id"].to_list(), meta["run"].to_list(), strict=True) if f in hits}
        where = {f: w for f, w in zip(meta["file_id"].to_list(), meta["part"].to_list(), strict=True) if f in hits}
        if hits:
            ids = pl.DataFrame({"file_id": sorted(hits)}, schema={"file_id": pl.String})
            for name in SPILLED:
                if _parts(cache_dir / name):
                    cached[name] = _scan_runs(cache_dir / name, runs)
            for name in ("files", "stores"):
                f = cache_dir / f"{name}.parquet"
                if f.exists():
                    cached[name] = pl.read_parquet(f).join(ids, on="file_id", how="semi")
    tasks = [t for t in all_tasks if t[1] not in hits]
    if stats is not None:
        stats.update({"files": len(all_tasks), "cache_hits": len(hits), "walked": len(tasks),
                      "walker": W.ENGINE})
        if cache_error:
            stats["cache_error"] = cache_error
    field_cols = list(profile.frame_fields)
    schemas = _schemas(field_cols)
    if cache_dir is not None:  # beside the cache, so its parts can move in by hard link
        cache_dir.parent.mkdir(parents=True, exist_ok=True)
    spill = Path(tempfile.mkdtemp(prefix="survey-walk-", dir=cache_dir.parent if cache_dir else None))
    atexit.register(shutil.rmtree, spill, True)  # a safety net: callers remove it when done
    if stats is not None:
        stats["spill_dir"] = str(spill)
    files: list[tuple] = []
    stores: list[dict] = []
    batch_of: dict[str, int] = {}  # file_id -> the batch (part) that walked it

    worker_cpu = 0.0

    def take(b: BatchOut) -> None:
        nonlocal worker_cpu
        worker_cpu += b.cpu
        files.extend(b.files)
        for f in b.files:
            batch_of[f[0]] = b.index
        stores.extend(b.stores)
        if progress:
            progress(len(b.files), b.nbytes)

    # files walked again on every run (their results depend on other files) in batches of
    # their own, so the parts of the files around them stay clean in the cache next time
    batches = _batches([t for t in tasks if t[1] not in volatile], jobs) + \
        _batches([t for t in tasks if t[1] in volatile], jobs)
    small = sum(t[3] for t in tasks) < POOL_MIN_BYTES or jobs == 1
    if small:
        walker = W.make_walker(profile.name, mode, allow_mcp, salt, max_line)
        walker.root = str(root)
        for i, batch in enumerate(batches):
            take(walk_batch(walker, batch, str(spill), i, field_cols))
    else:
        with ProcessPoolExecutor(jobs, mp_context=_pool_context(), initializer=W._init_worker,
                                 initargs=(profile.name, mode, allow_mcp, salt, max_line, str(root))) as ex:
            futs = [ex.submit(_work_batch, batch, str(spill), i, field_cols) for i, batch in enumerate(batches)]
            for fut in futs:
                take(fut.result())
    if stats is not None:
        stats["worker_cpu"] = round(worker_cpu, 3) if not small else 0.0

    out: dict[str, pl.DataFrame | pl.LazyFrame] = {}
    for name in SPILLED:
        d = spill / name
        if not d.exists() or not any(d.iterdir()):
            d.mkdir(exist_ok=True)
            pl.DataFrame(schema=schemas[name]).write_parquet(d / "part-empty.parquet")
        out[name] = pl.scan_parquet(d / "*.parquet")
    out["files"] = pl.DataFrame(files, schema=FILE_COLS, orient="row")
    if stores:
        # store facts are flat, gated by the reader (counts, table names, flags): one row per store
        out["stores"] = pl.DataFrame(stores, infer_schema_length=None)
    for name, df in cached.items():
        if name in out:
            mine = out[name]
            out[name] = pl.concat([df, mine], how="diagonal_relaxed")  # type: ignore[type-var]
        else:
            out[name] = df
    parts: dict[str, PartSet] | None = None
    if cache_dir is not None:
        try:
            where, totals = _write_cache(cache_dir, spill, out, keys, sig, runs, where, batch_of)
            runs = {f: _run_of_label(w) for f, w in where.items()}
            # the cached rows now live in the new cache: scan them there, not in the old one
            for name in SPILLED:
                out[name] = _scan_runs(cache_dir / name, runs)
            parts = {name: _part_set(cache_dir / name, where, totals) for name in SPILLED}
        except OSError as exc:  # the survey does not depend on its cache
            if stats is not None:
                stats["cache_error"] = type(exc).__name__
    else:  # every row of the spilled parts is this run's
        parts = {name: PartSet([p for p in _parts(spill / name) if p.name != "part-empty.parquet"], None)
                 for name in SPILLED}
    if stats is not None and parts is not None:
        stats["parts"] = parts  # for the snapshot writer (popped there: not a statistic)
    return out  # type: ignore[return-value]


@dataclass
class PartSet:
    """A walk table as Parquet files: ``files`` hold only live rows (they can be linked into a
    snapshot as they are); ``rest`` is the live rows of parts that also hold stale ones."""

    files: list[Path]
    rest: pl.LazyFrame | None


def _part_set(d: Path, where: dict[str, str], totals: dict[str, int]) -> PartSet:
    """Which of a table's cached parts are clean (every file they were written for is still
    served from them) and the live rows of the others."""
    live: dict[str, list[str]] = {}
    for f, w in where.items():
        live.setdefault(w, []).append(f)
    clean, dirty = [], []
    for p in _parts(d):
        label = p.name.removesuffix(".parquet")
        if label.endswith("-empty"):
            continue
        if len(live.get(label, ())) == totals.get(label, -1):
            clean.append(p)
        elif live.get(label):
            dirty.append((p, live[label]))
    rest = pl.concat([pl.scan_parquet(p).join(pl.LazyFrame({"file_id": ids}, schema={"file_id": pl.String}),
                                              on="file_id", how="semi") for p, ids in dirty]) if dirty else None
    return PartSet(clean, rest)


# -- the walk, in batches: each worker writes its own Parquet parts -----------------------
# Workers turn their results into columns and write them, so no row crosses a process
# boundary and the parent does no per-row work: it gets back per-file summaries only.
BATCH_FILES = 1024


@dataclass
class BatchOut:
    files: list[tuple]  # one row per file (FILE_COLS)
    stores: list[dict]  # one dict per SQLite store
    nbytes: int
    cpu: float  # CPU seconds the batch took in its worker (fork-server workers are not our children)
    index: int  # the batch's number: its parts are ``part-<index>.parquet``


def _pool_context(start: bool = False) -> multiprocessing.context.BaseContext:
    """Workers write Parquet with polars, whose thread pool does not survive ``fork`` from a
    parent that has used it: workers come from a clean fork server (preloaded with the walk
    and polars, so each starts in milliseconds), or are spawned where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["survey.census.collect"])
        if start:
            multiprocessing.forkserver.ensure_running()
        return ctx
    return multiprocessing.get_context("spawn")


def _batches(tasks: list[tuple], jobs: int) -> list[list[tuple]]:
    """Tasks (largest first) cut into batches of about total / (jobs * 8) bytes (at least
    4 MB: each batch writes one Parquet part per table, ~1 ms apiece), at most
    ``BATCH_FILES`` files each: big files alone, small ones together, the pool busy to the end."""
    total = sum(t[3] for t in tasks)
    target = max(total // (max(jobs, 1) * 8), 4 << 20)
    out: list[list[tuple]] = []
    cur: list[tuple] = []
    size = 0
    for t in tasks:
        cur.append(t)
        size += t[3]
        if size >= target or len(cur) >= BATCH_FILES:
            out.append(cur)
            cur, size = [], 0
    if cur:
        out.append(cur)
    return out


def _columns(rows: list[tuple], fid: str, width: int) -> list[list]:
    """Rows of one file as columns, with the file_id column first (transposed in C by zip)."""
    if not rows:
        return [[] for _ in range(width + 1)]
    return [[fid] * len(rows), *(list(c) for c in zip(*rows, strict=True))]


def walk_batch(walker: W.Walker, batch: list[tuple], spill: str, index: int,
               field_cols: list[str]) -> BatchOut:
    schemas = _schemas(field_cols)
    cols: dict[str, list[list]] = {name: [[] for _ in schemas[name]] for name in SPILLED}
    files: list[tuple] = []
    stores: list[dict] = []
    nbytes = 0
    cpu0 = time.process_time()
    for t in batch:
        r = W.walk_file(walker, *t)
        fid = r.file_id
        nbytes += r.nbytes
        files.append((fid, r.status, r.nbytes, r.lines, r.hash, r.truncations))
        if r.store:
            stores.append({"file_id": fid, **{k: v for k, v in r.store.items() if k not in ("hash", "nbytes")}})
        per = {
            "frames": r.frames, "blocks": r.blocks, "links": r.links, "markers": r.markers,
            "needles": r.needles, "numbers": r.numbers,
            "nodes": [(*k, *v) for k, v in r.nodes.items()],
            "values": [(*k, n) for k, n in r.values.items()],
            "headings": [(*k, n) for k, n in r.headings.items()],
        }
        for name, rows in per.items():
            if rows:
                for acc, col in zip(cols[name], _columns(rows, fid, len(schemas[name]) - 1), strict=True):
                    acc.extend(col)
    for name, columns in cols.items():
        if columns[0]:
            d = Path(spill) / name
            d.mkdir(exist_ok=True)
            # lz4: the parts are read once into the snapshot (and kept by the cache)
            pl.DataFrame(dict(zip(schemas[name], columns, strict=True)), schema=schemas[name]).write_parquet(
                d / f"part-{index:06d}.parquet", compression="lz4")
    return BatchOut(files, stores, nbytes, time.process_time() - cpu0, index)


def _work_batch(batch: list[tuple], spill: str, index: int, field_cols: list[str]) -> BatchOut:
    assert W._WORKER is not None
    return walk_batch(W._WORKER, batch, spill, index, field_cols)


def _schemas(field_cols: list[str]) -> dict[str, dict]:
    return {
        "frames": {"file_id": pl.String, "line_no": pl.Int64, "frame_status": pl.String, "nbytes": pl.Int64,
                   "flags": pl.Int64, "rclass": pl.String, "keyset": pl.String,
                   **{c: pl.String for c in field_cols}},
        "blocks": {"file_id": pl.String, "line_no": pl.Int64, "carrier": pl.String, "idx": pl.Int64,
                   "btype": pl.String, "keyset": pl.String, "name": pl.String,
                   "input_type": pl.String, "input_keyset": pl.String, "payload_len": pl.Int64},
        "nodes": {"file_id": pl.String, "rclass": pl.String, "path": pl.String, "jtype": pl.String,
                  "keyset": pl.String, "count": pl.Int64, "max_len": pl.Int64},
        "values": {"file_id": pl.String, "path": pl.String, "value": pl.String,
                   "withheld_id": pl.String, "count": pl.Int64},
        "links": {"file_id": pl.String, "line_no": pl.Int64, "kind": pl.String, "ref": pl.String},
        "markers": {"file_id": pl.String, "line_no": pl.Int64, "name": pl.String, "count": pl.Int64},
        "headings": {"file_id": pl.String, "name": pl.String, "value": pl.String, "count": pl.Int64},
        "needles": {"file_id": pl.String, "needle_file": pl.String, "found": pl.Boolean},
        "numbers": {"file_id": pl.String, "line_no": pl.Int64, "name": pl.String, "value": pl.Float64},
    }


def _parts(d: Path) -> list[Path]:
    return sorted(d.glob("*.parquet")) if d.is_dir() else []


def _run_of(part: Path) -> str:
    return part.name.split("-", 1)[0]


def _run_of_label(label: str) -> str:
    return label.split("-", 1)[0]


def _scan_runs(d: Path, runs: dict[str, str]) -> pl.LazyFrame:
    """The rows of each file from the run that last walked it (older rows of a file that
    has changed since are in the parts too, and are never read)."""
    want = pl.DataFrame({"file_id": list(runs), "_run": list(runs.values())},
                        schema={"file_id": pl.String, "_run": pl.String}).lazy()
    parts = _parts(d)
    return (pl.scan_parquet(parts, include_file_paths="_part")
            .with_columns(pl.col("_part").str.extract(r"([^/]+?)-[^/]*$", 1).alias("_run"))
            .join(want, on=["file_id", "_run"], how="semi")
            .drop("_part", "_run"))


COMPACT_AFTER_RUNS = 8


def _write_cache(cache_dir: Path, spill: Path, out: dict, keys: dict[str, str], sig: str,
                 runs: dict[str, str], where: dict[str, str],
                 batch_of: dict[str, int]) -> tuple[dict[str, str], dict[str, int]]:
    """Replace the cache in one step: build it beside the old one, then swap folders.
    Returns, per file, the part (``<run>-<part>``) that now holds its rows, and how many
    files each part holds.

    Walk tables are kept as Parquet parts named ``<run>-…``: this run's parts and the old
    cache's clean parts move in by hard link, never re-encoded. Every part in the cache is
    clean (all its rows are live), so the snapshot can link them too (``_part_set``):
    ``parts.json`` counts the files each part was written for, and an old part that no
    longer serves all of them (a file changed or vanished) is dropped, its live rows
    rewritten once into this run's ``rest`` part. ``meta.parquet`` names, per file, its run
    and part. After ``COMPACT_AFTER_RUNS`` runs, all live rows are rewritten into one part."""
    tmp = cache_dir.with_name(cache_dir.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    run = uuid.uuid4().hex[:10]
    old_runs = {_run_of(p) for name in SPILLED for p in _parts(cache_dir / name)} if runs else set()
    compact = len(old_runs) >= COMPACT_AFTER_RUNS
    try:
        old_totals = orjson.loads((cache_dir / "parts.json").read_bytes()) if runs and not compact else {}
    except (OSError, orjson.JSONDecodeError):
        old_totals = {}  # unknown totals: every old part is rewritten once, never linked
    live: dict[str, list[str]] = {}  # old part -> its files served from it now
    for f in runs:
        live.setdefault(where[f], []).append(f)
    dirty = {w for w, fs in live.items() if len(fs) != old_totals.get(w)}
    for name in SPILLED:
        d = tmp / name
        d.mkdir()
        if runs and compact:
            _scan_runs(cache_dir / name, runs).sink_parquet(d / f"{run}-compact.parquet")
        elif runs:
            rewrite = []
            for p in _parts(cache_dir / name):
                label = p.name.removesuffix(".parquet")
                if label in dirty:
                    rewrite.append(pl.scan_parquet(p).join(
                        pl.LazyFrame({"file_id": live[label]}, schema={"file_id": pl.String}), on="file_id", how="semi"))
                elif label in live:
                    link_or_copy(p, d / p.name)
                # else: no file is served from it any more (or it is an empty part): dropped
            if rewrite:
                pl.concat(rewrite).sink_parquet(d / f"{run}-rest.parquet", compression="lz4")
        for p in _parts(spill / name):
            if p.name != "part-empty.parquet":
                link_or_copy(p, d / f"{run}-{p.name}")
        if not _parts(d):
            pl.DataFrame(schema=out[name].collect_schema()).write_parquet(d / f"{run}-empty.parquet")
    new_where = {f: (f"{run}-part-{batch_of[f]:06d}" if f not in runs else
                     f"{run}-compact" if compact else f"{run}-rest" if where[f] in dirty else where[f])
                 for f in keys}
    new_runs = {f: _run_of_label(w) for f, w in new_where.items()}
    totals: dict[str, int] = {}
    for w in new_where.values():
        totals[w] = totals.get(w, 0) + 1
    (tmp / "parts.json").write_bytes(orjson.dumps(totals))
    markers = _scan_runs(tmp / "markers", new_runs)
    volatile = set(markers.filter(pl.col("name").str.ends_with(":present") | pl.col("name").str.ends_with(":missing"))
                   .select("file_id").collect()["file_id"].to_list())
    pl.DataFrame({"file_id": list(keys), "key": list(keys.values()), "sig": [sig] * len(keys),
                  "volatile": [f in volatile for f in keys], "run": [new_runs[f] for f in keys],
                  "part": [new_where[f] for f in keys]},
                 schema={"file_id": pl.String, "key": pl.String, "sig": pl.String, "volatile": pl.Boolean,
                         "run": pl.String, "part": pl.String}).write_parquet(tmp / "meta.parquet")
    for name in ("files", "stores"):
        if name in out:
            df = out[name]
            (df.collect() if isinstance(df, pl.LazyFrame) else df).write_parquet(tmp / f"{name}.parquet")
    old_dir = cache_dir.with_name(cache_dir.name + f".old-{os.getpid()}")
    if cache_dir.exists():
        cache_dir.rename(old_dir)
    tmp.rename(cache_dir)
    shutil.rmtree(old_dir, ignore_errors=True)
    return new_where, totals
