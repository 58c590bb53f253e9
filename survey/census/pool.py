"""The walk's worker processes: where they come from, and starting them early.

Workers are forked by a fork server started before the survey has work for it
(``prestart``), and keep the memory they free (``keep_freed_memory``). This module imports
nothing heavy: the CLI calls ``prestart`` first thing."""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
from collections.abc import Iterable

from survey.cachedir import cache_base


def walk_jobs(jobs: int | None = None) -> int:
    """The walk's worker processes: ``jobs`` if given, else one per core, at most 8."""
    return jobs or min(os.cpu_count() or 1, 8)


def pool_context(start: bool = False) -> multiprocessing.context.BaseContext:
    """The fork server's context (started now with ``start``), or spawn where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        # "__main__" too: a worker that starts imports the parent's main module again (the
        # ``survey`` script: the CLI, typer and rich, ~36 ms and a core each before its
        # first batch) unless the server imported it, once, before forking the worker
        ctx.set_forkserver_preload(["__main__", "survey.census.collect"])
        if start:
            multiprocessing.forkserver.ensure_running()
        return ctx
    return multiprocessing.get_context("spawn")


def prestart(jobs: int | None = None, runtimes: Iterable[str] | None = None, cache: bool = True) -> None:
    """Start the fork server now if the walk will have workers (``jobs`` > 1), unless a run
    of these runtimes (any, for None) has left a walk cache: a re-run walks only what
    changed, mostly too little for workers (``collect`` starts the server if it is not), and
    the server's imports, a quarter of a second of a core, went beside the re-run's crawl and
    greps (1 GB of cursor_stream captures, re-run after adding 1 %: 1.66 s with it, 1.57 s
    without).

    Workers write Parquet with polars, whose thread pool does not survive ``fork`` from a parent
    that has used it, so they come from a fork server: a clean process that imports polars and
    the walk once (0.25-0.3 s of one core) and forks each worker ready to go. The server is
    started before the survey has work for it, to hide that import: ``run_survey`` starts it
    before the crawl, and the CLI before it imports the survey itself (the pipeline's imports,
    polars and DuckDB, take as long on the other core). On 100 MB, started before the crawl
    only, the workers' first batch waited 0.23 s for it.
    """
    if walk_jobs(jobs) > 1 and not (cache and left_cache(runtimes)):
        pool_context(start=True)


def left_cache(runtimes: Iterable[str] | None = None) -> bool:
    """Has a run of these runtimes (any, for None) left a walk cache (``collect``'s
    ``<cache>/<runtime>/<root>/meta.parquet``)?"""
    base = cache_base()
    patterns = [f"{r}/*/meta.parquet" for r in runtimes] if runtimes else ["*/*/meta.parquet"]
    return any(next(base.glob(p), None) is not None for p in patterns)


# glibc's mallopt parameters (malloc.h) and the values a walker sets. Each file's chunks and
# rows are allocated and freed again; by default glibc hands a large freed block back to the
# kernel (a block past its mmap threshold, and the heap's top past the trim threshold), and
# the next file's block faults its pages in again, zeroed (perf: 6 % of a walk in page
# faults). Kept instead, up to 64 MB past what is in use: 1 GB of Claude Code sessions, three
# alternating pairs, worker CPU 5.52-5.77 -> 5.00-5.18 s, the walk 3.20-3.42 -> 2.85-3.10 s
# (keeping 256 MB gained no more; 32 MB and no padding, half of it).
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
KEEP_FREED = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 64 << 20, _M_TOP_PAD: 16 << 20}


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def give_back_freed_memory() -> bool:
    """Hand the memory this process's C allocator holds free back to the kernel now
    (glibc's ``malloc_trim``; True where it ran). The crawl frees many small Python objects
    and buffers of a few hundred kB among longer-lived ones, and glibc keeps what they held:
    at 567k files 350 MB resident after the crawl, 286 MB after this (8 ms), and the walk,
    the census and the greps after it peaked that much higher."""
    libc = _libc()
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:  # not glibc (macOS, musl): its allocator as it is
        return False
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)
    return True


def keep_freed_memory() -> bool:
    """Have this process's C allocator keep freed memory for reuse (``KEEP_FREED``) instead
    of returning it to the kernel at once: True where it took (glibc), else nothing changes.

    Each worker also has glibc keep the memory it frees (``keep_freed_memory``): a walk frees
    and allocates a file's worth of chunks and rows per file, and handing them back to the
    kernel each time cost it page faults, 8-10 % of its CPU.
    """
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:  # not glibc (macOS, musl): its allocator as it is
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all([mallopt(k, v) == 1 for k, v in KEEP_FREED.items()])
