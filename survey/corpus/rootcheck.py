"""Is this root the runtime's root? A check on the crawl's paths, before anything is walked.

A root one folder too high or too low crawls fine but puts no file on a surface the runtime
walks; ``check_root`` turns that into a counted, named outcome, says which move would find
them, and never names a folder that is the user's data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl

from survey.corpus.crawl import NOT_FILES, Inventory, classifier
from survey.runtimes.base import Profile

LIMIT = 20_000  # paths examined per move: enough to see a layout, bounded on a huge wrong root
UP_MAX = 3  # e.g. ``sessions/2026/06`` for Codex's ``sessions``
DOWN_MAX = 2  # e.g. ``~`` for ``~/.claude/projects``


@dataclass(frozen=True)
class RootCheck:
    """The outcome when no file under the root is on a surface the runtime walks."""

    runtime: str
    files: int  # regular files under the root (all of them off the walked surfaces)
    surfaces: tuple[str, ...]  # the surfaces the runtime walks
    move: str | None = None  # "down" (into a subfolder) or "up" (to a parent), where one helps
    levels: int = 0  # how many folders down or up
    folder: str | None = None  # the subfolder to go down into, where the profile names it
    would_walk: int = 0  # of the examined paths, how many the move puts on a walked surface
    examined: int = 0  # paths tried for the move (at most LIMIT)

    def message(self) -> str:
        walks = ", ".join(self.surfaces)
        if self.files == 0:
            return f"the root holds no files: {self.runtime} found nothing to walk ({walks})"
        head = f"none of the root's {self.files:,} files is on a surface {self.runtime} walks ({walks})"
        if self.move == "down":
            where = f"its subfolder `{self.folder}`" if self.folder else \
                ("one of its subfolders" if self.levels == 1 else f"a folder {self.levels} levels below it") + \
                " (not named: folder names are data)"
            fix = f"pass --root <root>/{self.folder}" if self.folder else "pass that folder as --root"
        elif self.move == "up":
            where = "its parent folder" if self.levels == 1 else f"the folder {self.levels} levels above it"
            fix = "pass that folder as --root"
        else:
            return f"{head}, nor would be with the root moved up to {UP_MAX} or down {DOWN_MAX} folders: " \
                   f"is it {self.runtime}'s root?"
        return f"{head}; with {where} as the root, {self.would_walk:,} of {self.examined:,} would be: {fix}"

    def to_json(self) -> dict:
        return {**asdict(self), "surfaces": list(self.surfaces), "message": self.message()}


def profile_folder_names(profile: Profile) -> frozenset[str]:
    """The folder names the profile's own roots end in: the only ones a message may name.
    Only their last ``DOWN_MAX`` parts: a root built from the environment (Windows'
    ``%APPDATA%``) begins with the user's own folders."""
    names: set[str] = set()
    for r in profile.default_roots:
        names.update(p for p in Path(r).parts[-DOWN_MAX:] if p not in ("~", "/") and not p.startswith("$"))
    for env in profile.env_roots:
        _, _, sub = env.partition("/")
        names.update(p for p in Path(sub).parts if sub)
    return frozenset(names)


def walked_surfaces(profile: Profile) -> tuple[str, ...]:
    return tuple(s.name for s in profile.surfaces if s.walk)


def check_root(profile: Profile, root: Path, rels: Sequence[str], files: int) -> RootCheck | None:
    """None where the runtime walks no surface; else the outcome for a root whose ``files``
    regular files (``rels``: their paths relative to it, in any order) are all off its
    walked surfaces. The caller calls this only then (the crawl has counted it).

    A root one folder too high (``~/.claude`` for ``~/.claude/projects``) or too low (one
    project's folder) crawls fine, but none of its files lands on a surface the runtime walks:
    the run would render a page of zeros with "problems: none". ``check_root`` turns that into a
    counted, named outcome. Where moving the root down into a subfolder, or up one to three
    folders, would put files on those surfaces, it says which move, from the same regexes the
    crawl classifies by (``crawl.classifier``), over at most ``LIMIT`` of the root's paths
    (every k-th one, so that a folder late in the crawl's order is seen).

    Privacy: a folder is named only when its name is one the profile itself uses in its default
    or environment roots (``projects``, ``sessions``); any other folder name is the user's data,
    so the message says "one of its subfolders" or "its parent" instead. No path is ever part
    of a message.
    """
    walked = walked_surfaces(profile)
    if not walked:
        return None
    out = RootCheck(profile.name, files, walked)
    if files == 0:
        return out
    classify = classifier(profile)
    on = set(walked)
    paths = [r.split("/") for r in rels[:LIMIT]]
    # the move that puts most files on a walked surface; on a tie the shorter, then down
    best: tuple[tuple[int, int, bool], str, str | None] | None = None  # (rank, move, prefix)

    def consider(n: int, levels: int, move: str, prefix: str | None) -> None:
        nonlocal best
        rank = (n, -levels, move == "down")
        if n and (best is None or rank > best[0]):
            best = (rank, move, prefix)

    for levels in range(1, DOWN_MAX + 1):
        hits: Counter[str] = Counter()
        for parts in paths:
            if len(parts) > levels and classify("/".join(parts[levels:]))[0] in on:
                hits["/".join(parts[:levels])] += 1
        if hits:
            top, n = max(hits.items(), key=lambda kv: (kv[1], kv[0]))
            consider(n, levels, "down", top)
    above = root.expanduser().resolve().parts[1:]  # (no drive or "/")
    for levels in range(1, min(UP_MAX, len(above)) + 1):
        lead = "/".join(above[-levels:]) + "/"
        consider(sum(classify(lead + "/".join(parts))[0] in on for parts in paths), levels, "up", None)
    if best is None:
        return out
    (n, neg_levels, _), move, prefix = best
    known = profile_folder_names(profile)
    folder = prefix if move == "down" and prefix and all(p in known for p in prefix.split("/")) else None
    return RootCheck(profile.name, files, walked, move, -neg_levels, folder, n, len(paths))


def check_inventory(profile: Profile, root: Path, inv: Inventory) -> RootCheck | None:
    """``check_root`` over a crawl: None, at the cost of one expression over two columns
    (every run pays it: 2 ms at 113k files), while any regular file is on a walked surface."""
    walked = list(walked_surfaces(profile))
    regular_file = ~pl.col("kind").is_in(NOT_FILES)
    if not walked or inv.frame.select((pl.col("surface").is_in(walked) & regular_file).any()).item():
        return None
    regular = inv.frame.filter(regular_file)
    # every k-th file, not the first LIMIT: those may all be one folder's (a home's caches
    # before its ``projects``), in the crawl's order
    ids = regular["file_id"].gather_every(max(1, -(-regular.height // LIMIT)))
    rels = [r for r in inv.paths_of(ids) if r is not None]
    return check_root(profile, root, rels, regular.height)




def detect_runtimes(root: Path, profiles: Sequence[Profile], limit: int = LIMIT) -> dict[str, int]:
    """Which runtimes' walked surfaces the files under ``root`` lie on: runtime name -> how
    many of the first ``limit`` regular files (links not followed) each puts on one, for
    those with any; best first. The crawl's own regexes (``classifier``), so ``survey run
    --root DIR`` without ``-r`` picks the runtime a crawl would walk files of. Reads names
    only, never a file."""
    import os

    rels: list[str] = []
    base = root.expanduser()
    for d, dirs, files in os.walk(base):
        dirs.sort()
        rel_d = os.path.relpath(d, base)
        for f in sorted(files):
            if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f)):
                rels.append(f if rel_d == "." else f"{rel_d}/{f}".replace(os.sep, "/"))
        if len(rels) >= limit:
            break
    hits: dict[str, int] = {}
    for p in profiles:
        on = set(walked_surfaces(p))
        classify = classifier(p)
        n = sum(classify(r)[0] in on for r in rels[:limit])
        if n:
            hits[p.name] = n
    return dict(sorted(hits.items(), key=lambda kv: -kv[1]))

__all__ = ["LIMIT", "RootCheck", "check_inventory", "check_root", "detect_runtimes", "profile_folder_names",
           "walked_surfaces"]
