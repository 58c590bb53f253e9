"""What runs beside what in a survey run: whether the greps start beside the walk (a core the
walk leaves idle, or a re-run served from the walk's cache), and whether the census and the
greps run side by side or one after the other. The stages themselves are the pipeline's."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

import polars as pl

from survey.census.collect import READ_KINDS, cache_serves
from survey.evidence.grep.verdicts import ScopeGrep
from survey.runtimes.base import Profile

# above this many files a re-run's census and greps run one after the other: the greps'
# per-file state grows with the files, DuckDB's census memory does not shrink, and side by
# side at 567k files they peaked at 1.38 GB (one after the other: the census's 1.2 GB)
OVERLAP_MAX_FILES = 200_000


def mostly_served(walk_stats: dict) -> bool:
    """A re-run: did the walk serve nearly every file from its cache? Then the census and
    the greps read little, and their memory stays small."""
    files = int(walk_stats.get("files", 0) or 0)
    return files > 0 and int(walk_stats.get("cache_hits", 0) or 0) >= 0.9 * files


def overlap_stages(walk_stats: dict) -> bool:
    """Run the census and the greps side by side? Only on a re-run (``mostly_served``) of at
    most ``OVERLAP_MAX_FILES`` files."""
    return mostly_served(walk_stats) and int(walk_stats.get("files", 0) or 0) <= OVERLAP_MAX_FILES


# below this many bytes the greps never start beside the walk: there is little to gain
BESIDE_MIN_BYTES = 64 << 20


def walk_leaves_core_idle(inv: pl.DataFrame, jobs: int) -> bool:
    """Would the walk leave a core idle for at least half its time? Its largest file is one
    worker's task from start to end (a store is one file), the rest spread over the other
    workers: where that file is most of the bytes (a desktop store, 1.5 GB of 1.54), cores
    wait, and the greps, started beside the walk (``GrepsBesideWalk``), use them."""
    sizes = inv.filter(pl.col("kind").is_in(READ_KINDS))["size"]
    total = int(sizes.sum() or 0)
    if jobs < 2 or total < BESIDE_MIN_BYTES:
        return False
    biggest = int(sizes.max() or 0)  # type: ignore[arg-type]  # Series.max: typed as any literal
    idle = (jobs - 1) * biggest - (total - biggest)  # bytes' worth of the others' waiting
    return idle >= biggest / 2


class GrepsBesideWalk:
    """The greps, run in a thread beside the walk where the walk leaves a core idle
    (``walk_leaves_core_idle``, or a re-run: ``rerun_greps_beside``). They need two things
    only the walk gives: the files it read cleanly (for a DuckDB retry, rarely: ``walked``
    hands them over, and the greps wait for them only then) and the snapshot (for the key
    figures, taken after, by ``run_probes``). If the walk met a file that changed or
    vanished, their counts are dropped and the greps run again after the walk, as they
    would have."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._greps: Future[list[ScopeGrep]] | None = None
        self._readable: Future[Callable[[], list[str]]] = Future()
        self.seconds = 0.0

    def start(self, greps: Callable[[Callable[[], list[str]]], list[ScopeGrep]]) -> None:
        def run() -> list[ScopeGrep]:
            t = time.perf_counter()
            try:
                return greps(lambda: self._readable.result()())
            finally:
                self.seconds = time.perf_counter() - t

        self._pool = ThreadPoolExecutor(1, thread_name_prefix="greps")
        self._greps = self._pool.submit(run)

    def walked(self, readable: Callable[[], list[str]]) -> None:
        if not self._readable.done():
            self._readable.set_result(readable)

    def result(self, stale: bool) -> list[ScopeGrep] | None:
        """The greps' counts; None if they did not start, or went ``stale`` (then dropped,
        after they finish: two greps of one tree at once would only slow each other)."""
        if self._greps is None:
            return None
        if stale:
            wait([self._greps])
            return None
        return self._greps.result()

    def close(self) -> None:
        if not self._readable.done():
            self._readable.set_exception(RuntimeError("the walk did not finish"))
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def rerun_greps_beside(inv: pl.DataFrame, cache_dir: Path | None, profile: Profile, mode: str,
                       allow_mcp: bool) -> bool:
    """Run a re-run's greps beside its walk? Where the walk's cache was made under this
    walk's signature (its walk is then mostly look-ups and rechecks in one process, and the
    new files), for at most ``OVERLAP_MAX_FILES`` files (the two stages' per-file state at
    once). After the walk, the census then has the cores to itself, or shares them with
    the greps' last files only."""
    return 0 < inv.height <= OVERLAP_MAX_FILES and cache_serves(cache_dir, profile, mode, allow_mcp)



def census_and_greps(overlap: bool, census: Callable[[], dict], greps: Callable[[dict[str, dict] | None], dict],
                     key_figures: Callable[[], dict[str, dict]]) -> tuple[dict, dict]:
    """The census and the evidence greps, scheduled: side by side where ``overlap`` (a re-run
    with little new to read: each is a chain of small waits), else one after the other, so
    their memory peaks never add up, with only the probes' key figures (one query that
    streams the snapshot's nodes past a few groups; 567k files: 0.09 s) beside the census
    and handed to the greps."""
    if overlap:
        with ThreadPoolExecutor(1, thread_name_prefix="evidence") as pool:
            later = pool.submit(greps, None)
            counted = census()
            return counted, later.result()
    with ThreadPoolExecutor(1, thread_name_prefix="key-figures") as pool:
        keyed = pool.submit(key_figures)
        counted = census()
        structural = keyed.result()
    return counted, greps(structural)
