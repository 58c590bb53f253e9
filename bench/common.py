"""What every part of the bench shares: its folders, units and bounds, a line to the
terminal, and the CPU and load figures a measurement is taken and checked by."""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def source_hash() -> str:
    """A hash of the survey package's sources now: a run whose code changed midway says so."""
    import survey

    h = hashlib.sha256()
    base = Path(survey.__file__).parent
    for f in sorted(base.rglob("*")):
        if f.is_file() and f.suffix in (".py", ".sql", ".json", ".j2"):
            h.update(str(f.relative_to(base)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


MEM_LIMIT = [0]  # bytes; set from --mem-limit-gb


def cpu_all() -> float:
    """CPU seconds of this process (all threads) and its reaped children."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
