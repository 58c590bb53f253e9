"""A run's options, and the one check of them that the CLI and the library share.

Light on purpose (nothing but the standard library): the CLI checks a run's options before
it starts the walk's fork server or imports the pipeline, and ``run_survey`` checks them
again for callers of the library. An option no run could honour is a ``ValueError`` that
names it, never a run that quietly does something else.
"""

from __future__ import annotations

STRATA = ("month", "day", "quarter", "year")  # mtime strata of the inventory's partitions
MODES = ("reviewed", "discover")
ON_EXISTS = ("refuse", "reuse", "suffix", "auto")


def check_options(*, sample_n: int | None = None, stratum: str = "month", mode: str = "reviewed",
                  jobs: int | None = None, on_exists: str = "refuse", min_files: int | None = None) -> None:
    """A ``ValueError`` naming the first option that no run could honour: a sample, a count
    of workers or a key's file count below 1 (a sample of 0 walked nothing and said so only
    as "walked 0"), or a stratum, mode or ``on_exists`` that is none of the known ones (an
    unknown stratum was taken as a month, an unknown ``on_exists`` as refuse)."""
    for name, n in (("--sample", sample_n), ("--jobs", jobs), ("--min-files", min_files)):
        if n is not None and n < 1:
            raise ValueError(f"{name} must be at least 1 (got {n})")
    for name, v, known in (("--stratum", stratum, STRATA), ("--mode", mode, MODES), ("--on-exists", on_exists, ON_EXISTS)):
        if v not in known:
            raise ValueError(f"{name} is one of {', '.join(known)} (got {v!r})")


__all__ = ["MODES", "ON_EXISTS", "STRATA", "check_options"]
