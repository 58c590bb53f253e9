"""The survey timed: ``run_survey`` in a fresh subprocess, its stages and the greps' parts
wrapped for wall and CPU time and peak memory, the process tree's memory watched from
outside; and a profile of the walk, and the one-giant-line run."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from bench.common import (
    CONFIG,
    GB,
    MB,
    MEM_LIMIT,
    REPO,
    RSS_SCALE,
    cpu_all,
    cpu_children,
    say,
    source_hash,
)
from bench.floors import probe_literals
from bench.report import fresh_label, machine, save

if TYPE_CHECKING:
    from pyinstrument.session import Session


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
    # the charts drawn after the survey in the same process are their own figure
    # (``charts_seconds``), not the survey process's
    res["process_wall"] = wall - float(res.get("charts_seconds") or 0.0)
    # the child and every descendant it reaped (walk workers, rg): CPU of the whole survey
    # (the walk's fork-server workers are not reaped by it: their CPU comes from the walk)
    res["process_cpu_seconds"] = (cpu_children() - c0 + float((res.get("cache") or {}).get("worker_cpu", 0.0))
                                  - float(res.get("charts_cpu_seconds") or 0.0))
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
    import survey.pipeline as P
    import survey.render.render as R
    from survey.evidence.grep import duck, keyhits, rg
    from survey.runtimes import get

    src = source_hash()
    ins = Instrument(spec["out"] + ".stage")
    # the evidence stage's parts (wall only; they run inside run_probes)
    for part, name in ((duck, "duckdb_grep"), (rg, "rg_grep"), (keyhits, "key_hits")):
        setattr(part, name, ins.wrap(getattr(part, name), name, cpu=False, mem=False))
    # stages: wall, CPU (survey process + reaped workers/rg) and peak RSS of the survey process
    for name in ("crawl", "collect", "run_census", "run_probes"):
        setattr(P, name, ins.wrap(getattr(P, name), name))
    render_page = R.render_page
    R.render_page = ins.wrap(R.render_page, "render_page")
    c0 = cpu_all()
    # the page without its charts: the survey's figures stay like-for-like with the history
    # recorded before the charts (drawn below, from the committed snapshot alone)
    res = P.run_survey(get(spec["runtime"]), Path(spec["root"]), snapshots=Path(spec["snapshots"]),
                       reports=Path(spec["reports"]), date=spec["date"], jobs=spec["jobs"],
                       on_exists=spec["on_exists"], charts=False)
    survey_cpu = cpu_all() - c0
    charts: dict[str, Any] = {}
    if spec.get("time_charts", True):
        # the page again with its charts, in this process: its whole cost, matplotlib's
        # import included (the survey above never imported it: ``charts_fresh_import``)
        fresh = "matplotlib" not in sys.modules
        c1, t1 = cpu_all(), time.perf_counter()
        render_page(Path(res.snapshot), Path(spec["reports"]) / f"{spec['runtime']}.md", charts=True)
        charts = {"charts_seconds": round(time.perf_counter() - t1, 3),
                  "charts_cpu_seconds": round(cpu_all() - c1, 3), "charts_fresh_import": fresh}
    stage = {"crawl": "crawl", "collect": "walk", "run_census": "census", "run_probes": "greps",
             "render_page": "render"}
    # the walk's workers come from a fork server, not from this process: their CPU is
    # reported by the walk itself
    worker_cpu = float((getattr(res, "cache", None) or {}).get("worker_cpu", 0.0))
    ins.cpu["collect"] = ins.cpu.get("collect", 0.0) + worker_cpu
    return {
        "timings": res.timings,
        "greps_split": {k: round(ins.wall.get(k, 0.0), 3) for k in ("duckdb_grep", "rg_grep", "key_hits")},
        "cpu_seconds": {"total": round(survey_cpu + worker_cpu, 3),
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
        **charts,
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
