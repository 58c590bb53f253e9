"""The floors the survey is held against, on the same files: a bare parse of every record,
one raw rg pass with every probe literal, and jq and genson on a seeded sample."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import random
import shutil
import subprocess
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

import orjson

from bench.common import GB, cpu_children, rg_binary


def _parse_sqlite(path: str) -> tuple[int, int, int]:
    """A store's floor, read as the survey must: in place (``immutable=1``) when no ``-wal`` is
    beside it, else copied aside with its ``-wal`` (``stores`` says why); every row of every
    table read, and orjson.loads of every value that looks like JSON. (A store of at most
    16 MB is read into memory by the survey: opening it in place costs about the same.)"""
    import sqlite3

    from survey.corpus.stores import sqlite_uri

    tmp = None
    try:
        db, nbytes = path, os.path.getsize(path)
        flags = "mode=ro&immutable=1"
        if os.path.lexists(path + "-wal"):
            tmp = tempfile.mkdtemp(prefix="bench-store-")
            db = os.path.join(tmp, os.path.basename(path))
            shutil.copyfile(path, db)
            shutil.copyfile(path + "-wal", db + "-wal")
            nbytes += os.path.getsize(db + "-wal")
            flags = "mode=ro"
        recs = bad = 0
        try:
            con = sqlite3.connect(f"{sqlite_uri(db)}?{flags}", uri=True)
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for t in tables:
                for row in con.execute(f'SELECT * FROM "{t}"'):
                    for v in row:
                        if isinstance(v, (bytes, str)) and v[:1] in (b"{", b"[", "{", "["):
                            recs += 1
                            try:
                                orjson.loads(v)
                            except orjson.JSONDecodeError:
                                bad += 1
            con.close()
        except sqlite3.DatabaseError:
            bad += 1
        return nbytes, recs, bad
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _parse_one(task: tuple[str, str]) -> tuple[int, int, int]:
    """(bytes, records, records that are not JSON) of one file, by kind."""
    kind, path = task
    if kind == "sqlite":
        return _parse_sqlite(path)
    with open(path, "rb") as fh:
        data = fh.read()
    if kind == "json":
        try:
            orjson.loads(data)
            return len(data), 1, 0
        except orjson.JSONDecodeError:
            return len(data), 1, 1
    lines = bad = 0
    loads = orjson.loads
    for line in data.split(b"\n"):
        if not line:
            continue
        lines += 1
        try:
            loads(line)
        except orjson.JSONDecodeError:
            bad += 1
    return len(data), lines, bad


PARSED_KINDS = ("jsonl", "json", "sqlite")


def bare_parse(files: list[tuple[str, int, str]], jobs: int, repeat: int = 2) -> dict:
    """orjson.loads of every JSONL line, every JSON file and every JSON value of every store,
    ``jobs`` processes, largest first (best of ``repeat``)."""
    todo = sorted((f for f in files if f[2] in PARSED_KINDS), key=lambda f: -f[1])
    if not todo:
        return {"skipped": "no jsonl, json or sqlite files"}
    order = [(k, p) for p, _, k in todo]
    chunk = max(1, min(64, len(order) // (jobs * 8) or 1))
    best: dict = {}
    for _ in range(repeat):
        c0 = cpu_children()
        t = time.perf_counter()
        nbytes = lines = bad = 0
        pool = get_context().Pool(jobs)
        for b, n, e in pool.imap_unordered(_parse_one, order, chunksize=chunk):
            nbytes, lines, bad = nbytes + b, lines + n, bad + e
        pool.close()
        pool.join()  # reaped, so their CPU time shows in RUSAGE_CHILDREN
        secs = time.perf_counter() - t
        if not best or secs < best["seconds"]:
            best = {"seconds": secs, "cpu_seconds": cpu_children() - c0, "bytes": nbytes,
                    "files": len(order), "records": lines, "records_not_json": bad, "processes": jobs,
                    "by_kind": {k: sum(1 for f in todo if f[2] == k) for k in PARSED_KINDS}}
    best["repeat"] = repeat
    return best


# -- the grep floor ---------------------------------------------------------------------


def raw_rg(root: Path, literals: list[str], repeat: int = 3) -> dict:
    rg = rg_binary()
    if not rg:
        return {"skipped": "rg not found"}
    argv = [rg, "-uuu", "-F", "-c"]
    for lit in literals:
        argv += ["-e", lit]
    argv.append(str(root))
    best = cpu = None
    code = 0
    for _ in range(repeat):
        c0 = cpu_children()
        t = time.perf_counter()
        code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
        secs = time.perf_counter() - t
        if best is None or secs < best:
            best, cpu = secs, cpu_children() - c0
    return {"seconds": best, "cpu_seconds": cpu, "literals": len(literals), "exit_code": code, "repeat": repeat,
            "command": "rg -uuu -F -c " + " ".join(f"-e '{lit}'" for lit in literals) + " ROOT > /dev/null"}


# -- jq and genson (one process, on a capped sample) ------------------------------------


def sample_files(paths: list[tuple[str, int]], cap_bytes: int, cap_files: int,
                 seed: int) -> list[tuple[str, int]]:
    """A seeded random sample of files, up to ``cap_bytes`` and ``cap_files``."""
    order = list(paths)
    random.Random(seed).shuffle(order)
    out: list[tuple[str, int]] = []
    total = 0
    for p, s in order:
        if total >= cap_bytes or len(out) >= cap_files:
            break
        out.append((p, s))
        total += s
    return out


def jq_census(sample: list[tuple[str, int]], all_bytes: int) -> dict:
    jq = shutil.which("jq")
    if not jq:
        return {"skipped": "jq not installed"}
    if not sample:
        return {"skipped": "no jsonl or json files (jq cannot read a SQLite store)"}
    failed = 0
    c0 = cpu_children()
    t = time.perf_counter()
    for p, _ in sample:
        rc = subprocess.run([jq, "-c", "[paths]", p], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, check=False).returncode
        failed += rc != 0
    secs = time.perf_counter() - t
    nbytes = sum(s for _, s in sample)
    per_gb = secs / (nbytes / GB) if nbytes else None
    return {"seconds": secs, "cpu_seconds": cpu_children() - c0, "bytes": nbytes, "files": len(sample),
            "files_jq_aborted": failed,
            "extrapolated": nbytes < all_bytes, "seconds_per_gb": per_gb,
            "seconds_full_estimate": per_gb * all_bytes / GB if per_gb else None,
            "command": "jq -c '[paths]' FILE > /dev/null (per file, 1 process)"}


def genson_census(sample: list[tuple[str, int]], all_bytes: int) -> dict:
    if importlib.util.find_spec("genson") is None:
        return {"skipped": "genson not installed (pip install genson to include it)"}
    if not sample:
        return {"skipped": "no jsonl or json files"}
    from genson import SchemaBuilder

    t = time.perf_counter()
    nbytes = 0
    for p, _ in sample:
        b = SchemaBuilder()
        with open(p, "rb") as fh:
            data = fh.read()
        nbytes += len(data)
        for line in ([data] if p.endswith(".json") else data.split(b"\n")):
            if line:
                with contextlib.suppress(orjson.JSONDecodeError):
                    b.add_object(orjson.loads(line))
        b.to_schema()
    secs = time.perf_counter() - t
    per_gb = secs / (nbytes / GB) if nbytes else None
    return {"seconds": secs, "bytes": nbytes, "files": len(sample), "extrapolated": nbytes < all_bytes,
            "seconds_per_gb": per_gb, "seconds_full_estimate": per_gb * all_bytes / GB if per_gb else None}


# -- one corpus -------------------------------------------------------------------------


def probe_literals(runtime: str) -> list[str]:
    from survey.runtimes import get

    return sorted({lit for p in get(runtime).probes for lit in p.literals})
