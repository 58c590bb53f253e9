"""Run the walk over an inventory (process pool) and collect the per-file results as tables.

Files are walked largest first so the pool stays busy to the end; results stream back in
completion order and are appended to column lists, so memory is per-file aggregates, never
the corpus. The output is a dict of polars frames, one per table of ``walk.COLUMNS`` plus
``files`` (per-file read outcome, hash, line count) — all keyed by the pseudonymous file_id.

Incremental re-surveys: per-file results are cached (already gated and pseudonymous, so no
more private than a snapshot) under ``$SURVEY_CACHE_DIR`` or ``~/.cache/survey``, keyed by
(file pseudonym, how it is walked, size, mtime_ns, inode, the children it is searched for)
and by a signature of everything that shapes a walk (tool version, walk code, profile
settings, vocabulary, mode). A changed or vanished file is never served from the cache;
files whose results depend on other files (existence checks) are always walked again.
A file rewritten in place with the same size and the same nanosecond mtime would be
served stale: ``--no-cache`` walks everything.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl

from survey.census import walk as W
from survey.corpus.crawl import Inventory
from survey.runtimes.base import Profile

# Walk tables grow with the corpus (per record, or per file and path): they are spilled to
# Parquet parts as the walk goes and handed on as lazy scans, so memory stays flat.
SPILLED = tuple(W.COLUMNS)
SPILL_ROWS = 200_000

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
    tasks = []
    sampled = set(df.filter(pl.col("sampled"))["file_id"].to_list()) if "sampled" in df.columns else None
    for row in todo.sort("size", descending=True).iter_rows(named=True):
        fid = row["file_id"]
        kind = row["kind"]
        if kind in ("jsonl", "json", "sqlite") and sampled is not None and fid not in sampled:
            kind = "blob"  # outside the sample: hashed and counted, not walked
        needles = kids.get(row["session_id"], []) if row["surface"] in {
            s.name for s in profile.surfaces if s.kind == "jsonl"} and row["parent_id"] is None else []
        tasks.append((str(root / inv.paths[fid]), fid, kind, row["size"], needles))
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
    for part in (__version__, mode, str(allow_mcp), str(max_line)):
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


def _task_key(t: tuple, stat: dict[str, tuple[int, int]]) -> str:
    _path, fid, kind, size, needles = t
    mtime_ns, inode = stat[fid]
    nsig = hashlib.sha1("|".join(sorted(n for n, _ in needles)).encode()).hexdigest()[:12]
    key = f"{kind}:{size}:{mtime_ns}:{inode}:{nsig}"
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
    all_tasks = _tasks(inv, root, profile)
    jobs = jobs or min(os.cpu_count() or 1, 8)
    stat = {fid: (m, i) for fid, m, i in inv.frame.select("file_id", "mtime_ns", "inode").iter_rows()}
    keys = {t[1]: _task_key(t, stat) for t in all_tasks}
    cached: dict[str, pl.DataFrame | pl.LazyFrame] = {}
    hits: set[str] = set()
    sig = walk_signature(profile, mode, allow_mcp, max_line)
    cache_error = None
    try:
        meta = pl.read_parquet(cache_dir / "meta.parquet") if cache_dir and (cache_dir / "meta.parquet").exists() else None
    except (OSError, pl.exceptions.PolarsError) as exc:  # an unreadable cache is no cache
        meta, cache_error = None, type(exc).__name__
    if cache_dir is not None and meta is not None and meta.height and meta["sig"][0] == sig:
        have = dict(zip(meta["file_id"].to_list(), meta["key"].to_list(), strict=True))
        volatile = set(meta.filter(pl.col("volatile"))["file_id"].to_list())
        hits = {fid for fid, k in keys.items() if have.get(fid) == k and fid not in volatile}
        if hits:
            ids = pl.DataFrame({"file_id": sorted(hits)}, schema={"file_id": pl.String})
            for name in [*W.COLUMNS, "files", "stores"]:
                f = cache_dir / f"{name}.parquet"
                if f.exists() and name in SPILLED:
                    cached[name] = pl.scan_parquet(f).join(ids.lazy(), on="file_id", how="semi")
                elif f.exists():
                    cached[name] = pl.read_parquet(f).join(ids, on="file_id", how="semi")
    tasks = [t for t in all_tasks if t[1] not in hits]
    if stats is not None:
        stats.update({"files": len(all_tasks), "cache_hits": len(hits), "walked": len(tasks),
                      "walker": W.ENGINE})
        if cache_error:
            stats["cache_error"] = cache_error
    cols: dict[str, list[tuple]] = {t: [] for t in W.COLUMNS}
    files: list[tuple] = []
    stores: list[dict] = []
    field_cols = list(profile.frame_fields)
    schemas = _schemas(field_cols)
    spill = Path(tempfile.mkdtemp(prefix="survey-walk-"))
    atexit.register(shutil.rmtree, spill, True)  # a safety net: callers remove it when done
    if stats is not None:
        stats["spill_dir"] = str(spill)
    parts = {name: 0 for name in SPILLED}

    def flush(name: str, force: bool = False) -> None:
        rows = cols[name]
        if not rows and not (force and parts[name] == 0):
            return
        (spill / name).mkdir(exist_ok=True)
        pl.DataFrame(rows, schema=schemas[name], orient="row").write_parquet(
            spill / name / f"part-{parts[name]:05d}.parquet")
        parts[name] += 1
        cols[name] = []

    def take(r: W.FileResult) -> None:
        fid = r.file_id
        files.append((fid, r.status, r.nbytes, r.lines, r.hash, r.truncations))
        cols["frames"].extend((fid, *t) for t in r.frames)
        cols["blocks"].extend((fid, *t) for t in r.blocks)
        cols["nodes"].extend((fid, *k, *v) for k, v in r.nodes.items())
        cols["values"].extend((fid, *k, n) for k, n in r.values.items())
        cols["links"].extend((fid, *t) for t in r.links)
        cols["markers"].extend((fid, *t) for t in r.markers)
        cols["headings"].extend((fid, *k, n) for k, n in r.headings.items())
        cols["needles"].extend((fid, *t) for t in r.needles)
        cols["numbers"].extend((fid, *t) for t in r.numbers)
        if r.store:
            stores.append({"file_id": fid, **{k: v for k, v in r.store.items() if k not in ("hash", "nbytes")}})
        for name in SPILLED:
            if len(cols[name]) >= SPILL_ROWS:
                flush(name)
        if progress:
            progress(1, r.nbytes)

    small = sum(t[3] for t in tasks) < (8 << 20) or jobs == 1
    if small:
        walker = W.make_walker(profile.name, mode, allow_mcp, salt, max_line)
        walker.root = str(root)
        for t in tasks:
            take(W.walk_file(walker, *t))
    else:
        with ProcessPoolExecutor(jobs, initializer=W._init_worker,
                                 initargs=(profile.name, mode, allow_mcp, salt, max_line, str(root))) as ex:
            for r in ex.map(W._work, tasks, chunksize=max(1, min(64, len(tasks) // (jobs * 8) or 1))):
                take(r)

    out: dict[str, pl.DataFrame | pl.LazyFrame] = {}
    for name in SPILLED:
        flush(name, force=True)
        out[name] = pl.scan_parquet(spill / name / "*.parquet")
    for name, schema in schemas.items():
        if name in SPILLED:
            continue
        try:
            out[name] = pl.DataFrame(cols[name], schema=schema, orient="row")
        except Exception as exc:  # pragma: no cover - a programming error, say which table
            raise RuntimeError(f"walk table {name}: {exc}") from exc
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
    if cache_dir is not None:
        try:
            _write_cache(cache_dir, out, keys, sig)
            # the cached rows now live in the new cache: scan them there, not in the old one
            for name in SPILLED:
                out[name] = pl.scan_parquet(cache_dir / f"{name}.parquet")
        except OSError as exc:  # the survey does not depend on its cache
            if stats is not None:
                stats["cache_error"] = type(exc).__name__
    return out  # type: ignore[return-value]


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


def _write_cache(cache_dir: Path, out: dict, keys: dict[str, str], sig: str) -> None:
    """Replace the cache in one step: write beside it, then swap folders."""
    tmp = cache_dir.with_name(cache_dir.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    markers = out["markers"].lazy()
    volatile = set(markers.filter(pl.col("name").str.ends_with(":present") | pl.col("name").str.ends_with(":missing"))
                   .select("file_id").collect()["file_id"].to_list())
    pl.DataFrame({"file_id": list(keys), "key": list(keys.values()), "sig": [sig] * len(keys),
                  "volatile": [f in volatile for f in keys]},
                 schema={"file_id": pl.String, "key": pl.String, "sig": pl.String, "volatile": pl.Boolean}
                 ).write_parquet(tmp / "meta.parquet")
    for name, df in out.items():
        if isinstance(df, pl.LazyFrame):
            df.sink_parquet(tmp / f"{name}.parquet")
        else:
            df.write_parquet(tmp / f"{name}.parquet")
    old = cache_dir.with_name(cache_dir.name + f".old-{os.getpid()}")
    if cache_dir.exists():
        cache_dir.rename(old)
    tmp.rename(cache_dir)
    shutil.rmtree(old, ignore_errors=True)
