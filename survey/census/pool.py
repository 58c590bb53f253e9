"""The walk's worker processes: where they come from, and starting them early.

Workers write Parquet with polars, whose thread pool does not survive ``fork`` from a parent
that has used it, so they come from a fork server: a clean process that imports polars and
the walk once (0.25-0.3 s of one core) and forks each worker ready to go. The server is
started before the survey has work for it, to hide that import: ``run_survey`` starts it
before the crawl, and the CLI before it imports the survey itself (the pipeline's imports,
polars and DuckDB, take as long on the other core). On 100 MB, started before the crawl
only, the workers' first batch waited 0.23 s for it.

This module imports nothing heavy: the CLI calls ``prestart`` first thing.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os


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


def prestart(jobs: int | None = None) -> None:
    """Start the fork server now if the walk will have workers (``jobs`` > 1)."""
    if walk_jobs(jobs) > 1:
        pool_context(start=True)
