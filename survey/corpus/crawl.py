"""Crawl a root read-only into an inventory: one row per file, every file, by class.

The crawl only ``stat``s: it opens no file and follows no symlink, so it is cheap and safe on
a live store. Each file is classified by the first profile surface whose regex matches its
path relative to the root; anything else is ``other`` and keeps its extension as its class,
so no file is skipped silently. Symlinks, broken symlinks, directories that look like files
and unreadable directories are rows too, each with its own ``problem``.

The inventory holds pseudonyms, never paths: ``file_id`` and the session/parent ids are
salted HMACs. The real relative paths stay in memory (``Inventory.paths``) for the stages
that must open the files, and never reach a snapshot.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from survey.corpus.privacy import pseudonym
from survey.runtimes.base import Profile

STRATA = ("month", "day", "quarter", "year")


def stratum_of(ts: float, by: str = "month") -> str:
    d = datetime.fromtimestamp(ts, UTC)
    if by == "day":
        return d.strftime("%Y-%m-%d")
    if by == "quarter":
        return f"{d.year}-Q{(d.month - 1) // 3 + 1}"
    if by == "year":
        return f"{d.year}"
    return d.strftime("%Y-%m")


def ext_of(name: str) -> str:
    """A file's class among unknown files: its extension, or ``(none)``/``(dotfile)``."""
    if name.startswith(".") and name.count(".") == 1:
        return "(dotfile)"
    suffix = Path(name).suffix.lower()
    if not suffix or len(suffix) > 12 or not suffix[1:].replace("_", "").replace("-", "").isalnum():
        return "(none)"
    return suffix


@dataclass
class Inventory:
    """The crawl's result: a polars frame plus the local-only path of each file_id."""

    frame: pl.DataFrame
    paths: dict[str, str] = field(default_factory=dict)  # file_id -> relative path (local only)
    raw_ids: dict[str, str] = field(default_factory=dict)  # file_id -> session id (local only)


SCHEMA: dict[str, Any] = {
    "file_id": pl.String,
    "surface": pl.String,
    "kind": pl.String,
    "ext": pl.String,
    "session_id": pl.String,
    "parent_id": pl.String,
    "ids_agree": pl.Boolean,
    "size": pl.Int64,
    "mtime": pl.Datetime("us", "UTC"),
    "mtime_ns": pl.Int64,
    "ctime_ns": pl.Int64,
    "inode": pl.Int64,
    "stratum": pl.String,
    "problem": pl.String,
}


def crawl(root: Path, profile: Profile, salt: bytes, stratum: str = "month",
          progress=None) -> Inventory:
    """Walk ``root`` without following links; classify every entry by the profile."""
    regexes = [(s, s.regex()) for s in profile.surfaces]
    rows: list[dict] = []
    paths: dict[str, str] = {}
    raw_ids: dict[str, str] = {}

    def add(rel: str, surface: str, kind: str, st: os.stat_result | None, problem: str | None,
            groups: dict[str, str] | None = None) -> None:
        fid = pseudonym(salt, rel, "f")
        g = groups or {}
        sess, parent, stem = g.get("session"), g.get("parent"), g.get("stem")
        rows.append({
            "file_id": fid,
            "surface": surface,
            "kind": kind,
            "ext": ext_of(rel.rsplit("/", 1)[-1]),
            "session_id": pseudonym(salt, sess, "i") if sess else None,
            "parent_id": pseudonym(salt, parent, "i") if parent else None,
            "ids_agree": (sess == stem) if (sess and stem) else None,
            "size": st.st_size if st else 0,
            "mtime": datetime.fromtimestamp(st.st_mtime, UTC) if st else None,
            "mtime_ns": st.st_mtime_ns if st else 0,
            "ctime_ns": st.st_ctime_ns if st else 0,
            "inode": st.st_ino if st else 0,
            "stratum": stratum_of(st.st_mtime, stratum) if st else "unknown",
            "problem": problem,
        })
        paths[fid] = rel
        if sess:
            raw_ids[fid] = sess

    def classify(rel: str) -> tuple[str, str, dict[str, str] | None]:
        for s, rx in regexes:
            m = rx.match(rel)
            if m:
                return s.name, s.kind, {k: v for k, v in m.groupdict().items() if v}
        return "other", "blob", None

    stack = [""]
    while stack:
        reldir = stack.pop()
        full = root / reldir if reldir else root
        try:
            entries = sorted(os.scandir(full), key=lambda e: e.name)
        except OSError:
            add(reldir or ".", "other", "dir", None, "unreadable_dir")
            continue
        for e in entries:
            rel = f"{reldir}/{e.name}" if reldir else e.name
            try:
                if e.is_symlink():
                    problem: str | None
                    try:
                        st = os.stat(e.path)
                        problem = "symlink"
                    except OSError as exc:
                        st = None
                        problem = "symlink_loop" if exc.errno == errno.ELOOP else "broken_symlink"
                    add(rel, "other", "link", None, problem)
                    del st
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError:
                add(rel, "other", "blob", None, "unreadable")
                continue
            if stat.S_ISDIR(st.st_mode):
                surface, _kind, _g = classify(rel)
                if surface != "other":
                    add(rel, surface, "dir", st, "dir_named_like_file")
                stack.append(rel)
                continue
            if not stat.S_ISREG(st.st_mode):
                add(rel, "other", "special", st, "special_file")
                continue
            surface, kind, groups = classify(rel)
            problem = "empty" if st.st_size == 0 else None
            if not os.access(e.path, os.R_OK):
                problem = "unreadable"
            add(rel, surface, kind, st, problem, groups)
            if progress is not None:
                progress(1, st.st_size)
    frame = pl.DataFrame(rows, schema=SCHEMA)
    return Inventory(frame=frame, paths=paths, raw_ids=raw_ids)


def sample(inv: pl.DataFrame, n: int | None, seed: int) -> pl.DataFrame:
    """Mark a stratified-by-mtime sample of the walkable files (``sampled`` column).

    Proportional allocation per stratum (largest remainder), shuffled with ``seed`` inside
    each stratum. ``n=None`` samples everything.
    """
    walkable = pl.col("kind").is_in(["jsonl", "json", "sqlite"]) & pl.col("problem").is_null()
    if n is None:
        return inv.with_columns(sampled=walkable)
    w = inv.filter(walkable)
    total = w.height
    if n >= total:
        return inv.with_columns(sampled=walkable)
    counts = w.group_by("stratum").len().sort("stratum")
    quotas = counts.with_columns(q=pl.col("len") * n / total)
    quotas = quotas.with_columns(base=pl.col("q").floor().cast(pl.Int64), rem=pl.col("q") - pl.col("q").floor())
    short = n - int(quotas["base"].sum())
    quotas = quotas.sort(["rem", "stratum"], descending=[True, False]).with_columns(
        take=pl.col("base") + (pl.int_range(pl.len()) < short).cast(pl.Int64)
    )
    take = dict(zip(quotas["stratum"].to_list(), quotas["take"].to_list(), strict=True))
    chosen = (
        w.sort("file_id")
        .with_columns(r=pl.int_range(pl.len()).shuffle(seed=seed).over("stratum"))
        .filter(pl.col("r") < pl.col("stratum").replace_strict(take, default=0))
    )
    ids = set(chosen["file_id"].to_list())
    return inv.with_columns(sampled=pl.col("file_id").is_in(list(ids)))
