"""A run's options, and the one check of them that the CLI and the library share.

Light on purpose (the standard library and ``cachedir``): the CLI checks a run's options before
it starts the walk's fork server or imports the pipeline, and ``run_survey`` checks them
again for callers of the library. An option no run could honour is a ``ValueError`` that
names it, never a run that quietly does something else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from survey.cachedir import cache_base


class OptionError(ValueError):
    """An option no run could honour; the message names it and what to do."""


STRATA = ("month", "day", "quarter", "year")  # mtime strata of the inventory's partitions
MODES = ("reviewed", "discover")
ON_EXISTS = ("refuse", "reuse", "suffix", "auto")
# a snapshot's name is one folder under --snapshots: never a path out of it, never hidden
SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


def blocked_folder(path: Path) -> bool:
    """Would making the folder ``path`` fail because it, or the nearest part of it that
    exists, is not a folder (a file where a folder should be)?"""
    p = path.expanduser()
    while not p.exists() and not p.is_symlink():
        if p.parent == p:
            return False
        p = p.parent
    return not p.is_dir()


def run_folders(snapshots: Path, reports: Path | None, cache: bool) -> dict[str, Path]:
    """The folders a run writes, by the option (or variable) that names each."""
    out = {"--snapshots": snapshots, **({"--reports": reports} if reports is not None else {})}
    if cache:
        out["the cache folder (SURVEY_CACHE_DIR, else XDG_CACHE_HOME/survey; or pass --no-cache)"] = cache_base()
    return out


def inside(path: Path, root: Path) -> bool:
    """Is ``path`` the folder ``root`` or under it, once both are resolved (links followed,
    as far as they exist)?"""
    p, r = path.expanduser().resolve(), root.expanduser().resolve()
    return p == r or r in p.parents


def check_options(*, sample_n: int | None = None, stratum: str = "month", mode: str = "reviewed",
                  jobs: int | None = None, on_exists: str = "refuse", min_files: int | None = None,
                  date: str | None = None, folders: Mapping[str, Path] | None = None,
                  root: Path | None = None) -> None:
    """An ``OptionError`` (a ``ValueError``) naming the first option that no run could honour: a sample, a count
    of workers or a key's file count below 1 (a sample of 0 walked nothing and said so only
    as "walked 0"), or a stratum, mode or ``on_exists`` that is none of the known ones (an
    unknown stratum was taken as a month, an unknown ``on_exists`` as refuse), or a snapshot
    name (``date``) that is not one plain folder name (``../x`` was written outside
    ``--snapshots``), or a folder the run writes (``folders``: its option's name -> the path)
    that a file stands in the way of, or that lies inside the corpus ``root`` (the survey
    never writes there; its output would also be crawled as corpus on the next run). The
    paths named are the user's own output folders, never the corpus's."""
    for name, n in (("--sample", sample_n), ("--jobs", jobs), ("--min-files", min_files)):
        if n is not None and n < 1:
            raise OptionError(f"{name} must be at least 1 (got {n})")
    for name, v, known in (("--stratum", stratum, STRATA), ("--mode", mode, MODES), ("--on-exists", on_exists, ON_EXISTS)):
        if v not in known:
            raise OptionError(f"{name} is one of {', '.join(known)} (got {v!r})")
    if date is not None and not SNAPSHOT_NAME.fullmatch(date):
        raise OptionError(f"--date names one snapshot folder: letters, digits, '.', '_' and '-', not first '.' "
                         f"or '-' (got {date!r})")
    for name, path in (folders or {}).items():
        if blocked_folder(path):
            raise OptionError(f"{name} is not a folder, or a file is where one of its folders should be ({path})")
        if root is not None and inside(path, root):
            raise OptionError(f"{name} is inside the corpus root, where the survey never writes: put it elsewhere")


__all__ = ["MODES", "ON_EXISTS", "SNAPSHOT_NAME", "STRATA", "OptionError", "blocked_folder", "check_options", "inside", "run_folders"]
