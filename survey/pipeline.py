"""The stages in order: crawl -> walk -> snapshot -> census -> evidence -> claims -> page.

``run_survey`` is what ``survey run`` calls for each runtime. Every stage reads what the
previous one wrote; the page is rendered from the committed snapshot alone. The greps read
the corpus, not the snapshot, so where the walk leaves a core idle they run beside it
(``GrepsBesideWalk``) and only their key figures wait for the snapshot: on a first run whose
walk is one large file, and on a re-run (the walk serves most files from its cache, a chain
of small steps on one core). On a re-run that read little, the census and what is left of
the greps run side by side (``overlap_stages``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from survey import __version__
from survey.cachedir import cache_base, crash_point, hold
from survey.census.collect import (
    READ_KINDS,
    collect,
    start_walkers,
    walk_jobs,
)
from survey.census.partials import Labels, store_of
from survey.census.pool import give_back_freed_memory
from survey.census.sql import inventory_reads, query_files, run_census
from survey.census.walk import READ_WHOLE
from survey.corpus.crawl import Inventory, crawl, load_classes, sample, save_classes
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import config_dir, load_salt, pseudonym
from survey.corpus.rootcheck import check_inventory
from survey.evidence.grep.keyhits import key_hits
from survey.evidence.grep.scopes import KNOWN_SCHEMA, AnyListing, Known, rg_listings
from survey.evidence.grep.verdicts import grep_scopes, run_probes
from survey.evidence.kit import Kit
from survey.options import OptionError, check_options, run_folders
from survey.reuse import (
    _small_file_digest,
    census_inputs,
    claim_early,
    claim_late,
    keep_inventory_parts,
    load_inventory_parts,
)
from survey.runtimes.base import Profile
from survey.schedule import (
    GrepsBesideWalk,
    mostly_served,
    overlap_stages,
    rerun_greps_beside,
    walk_leaves_core_idle,
)
from survey.snapshot.store import (
    SCHEMA_VERSION,
    Claim,
    SnapshotWriter,
    fingerprint,
    load_json,
)
from survey.synth.marker import is_synthetic

# progress(stage, units done, bytes done, total=None): called per batch, query or stage, never
# per record; a total (files, queries, ...) where the stage knows one, once as it starts
Progress = Callable[..., None]

@dataclass
class RunResult:
    runtime: str
    snapshot: str
    page: str | None
    files: int
    bytes: int
    walked_files: int
    frames: int
    problems: dict[str, int]
    disagreements: list[str]
    reused: bool = False
    fixture: bool = False
    cache: dict = field(default_factory=dict)
    problem_files: dict[str, list[str]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    # set when no file under the root is on a surface the runtime walks (``rootcheck``)
    root_check: dict | None = None

    def to_json(self) -> dict:
        return asdict(self)


def _drop_spill(stats: dict) -> None:
    """Remove the walk's spilled Parquet parts once the snapshot (or a reuse) no longer needs them."""
    spill = stats.pop("spill_dir", None)
    if spill:
        shutil.rmtree(spill, ignore_errors=True)


def today() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")


@dataclass
class Problems:
    """Every counted problem class, by name (``counts``: file-level and frame-level; statuses
    the profile declares normal for its format are not problems), up to ``k`` pseudonymous
    file ids per class (``examples``: enough to act on, nothing private; ``survey`` maps a
    pseudonym back to its file only on this machine, same salt), and the frames counted
    (``frames``, ``frames_ok``)."""

    counts: dict[str, int]
    examples: dict[str, list[str]]
    frames: int
    frames_ok: int


def problems_of(inv: pl.DataFrame, files: pl.DataFrame, frame_counts: pl.LazyFrame, k: int = 3,
                expected: frozenset[str] = frozenset()) -> Problems:
    """``Problems`` of a walk: ``frame_counts`` (the walk's records and flags per file,
    status, class and key set) read by two queries run together, which share its scan (four
    scans of 560 parts at 567k files took 0.22 s, these 0.13-0.18)."""
    counts: dict[str, int] = {}
    examples: dict[str, list[str]] = {}
    for p, n in inv.filter(pl.col("problem").is_not_null()).group_by("problem").len().iter_rows():
        counts[f"file:{p}"] = int(n)
    for s, n in files.filter(pl.col("read_status") != "ok").group_by("read_status").len().iter_rows():
        counts[f"file:{s}"] = int(n)
    for col, df in (("problem", inv), ("read_status", files)):
        bad = (df.lazy().filter(pl.col(col).is_not_null() & (pl.col(col) != "ok") & ~pl.col(col).is_in(sorted(expected)))
               .group_by(col).agg(pl.col("file_id").cast(pl.String).unique().sort().head(k)).collect())
        for name, ids in bad.iter_rows():
            examples[f"file:{name}"] = list(ids)
    status = pl.col("frame_status")
    totals, bad = pl.collect_all([
        frame_counts.select(pl.col("records").sum().alias("frames"),
                            pl.col("records").filter(status == "ok").sum().alias("frames_ok"),
                            pl.col(*FLAGS).sum()),
        frame_counts.filter(status.is_not_null() & (status != "ok") & ~status.is_in(sorted(expected)))
        .group_by("frame_status").agg(pl.col("records").sum(), pl.col("file_id").cast(pl.String).unique().sort().head(k)),
    ])
    for name, n, ids in bad.iter_rows():
        counts[f"frame:{name}"] = int(n)
        examples[f"frame:{name}"] = list(ids)
    flags = totals.row(0, named=True)
    for f in FLAGS:
        if flags[f]:
            counts[f"frame:{f}"] = int(flags[f])
    return Problems(dict(sorted(counts.items())), dict(sorted(examples.items())),
                    int(flags["frames"] or 0), int(flags["frames_ok"] or 0))


def scope_counts(profile: Profile, inv: pl.DataFrame) -> dict[str, int]:
    out = {}
    regular = inv.filter(pl.col("kind").is_in(READ_KINDS))
    for sc in profile.scopes:
        if "*" in sc.surfaces:
            out[sc.name] = regular.height
        else:
            out[sc.name] = regular.filter(pl.col("surface").is_in(list(sc.surfaces))).height
    return out


def run_survey(profile: Profile, root: Path, *, snapshots: Path = Path("snapshots"),
               reports: Path | None = Path("reports"), date: str | None = None,
               sample_n: int | None = None, seed: int = 0, stratum: str = "month",
               mode: str = "reviewed", allow_mcp: bool = False, jobs: int | None = None,
               on_exists: str = "refuse", progress: Progress | None = None,
               cache: bool = True, min_files: int | None = None) -> RunResult:
    t0 = time.perf_counter()
    # (the config folder too: the salt is made there on a machine's first run)
    check_options(sample_n=sample_n, stratum=stratum, mode=mode, jobs=jobs, on_exists=on_exists, min_files=min_files,
                  date=date, root=root, folders={**run_folders(snapshots, reports, cache),
                                                 "the config folder (SURVEY_CONFIG_DIR, else XDG_CONFIG_HOME/survey)":
                                                 config_dir()})
    timings: dict[str, float] = {}
    date = date or today()
    root = root.expanduser()
    if not root.is_dir():
        raise OptionError(f"{profile.name}: root is not a folder (pass --root)")
    salt = load_salt()
    # the snapshot's name, claimed before the corpus is read: a run that would be refused
    # is refused now, not after its walk (``claim_early``)
    claimed = claim_early(snapshots, date, profile.name, on_exists)

    def tick(stage: str) -> Callable[..., None] | None:
        if progress is None:
            return None
        return lambda n, b, total=None: progress(stage, n, b, total)

    cache_dir = cache_base() / profile.name / pseudonym(salt, str(root.resolve()), "r") if cache else None
    with contextlib.ExitStack() as held:
        if claimed is not None:  # (a claim not committed: let go)
            held.callback(claimed.release)
        if cache_dir is not None:  # runs of one root at once take turns with its cache
            waited = held.enter_context(hold(cache_dir))
            if waited:  # (not the crawl's time)
                timings["waited"] = waited
                t0 += waited
        return _run_held(profile, root, salt, cache_dir, claimed, timings, t0, tick, snapshots=snapshots,
                         reports=reports, date=date, sample_n=sample_n, seed=seed, stratum=stratum, mode=mode,
                         allow_mcp=allow_mcp, jobs=jobs, on_exists=on_exists, min_files=min_files)


def _run_held(profile: Profile, root: Path, salt: bytes, cache_dir: Path | None, claimed: Claim | None,
              timings: dict[str, float], t0: float, tick: Callable[[str], Callable[[int, int], None] | None], *,
              snapshots: Path, reports: Path | None, date: str, sample_n: int | None, seed: int, stratum: str,
              mode: str, allow_mcp: bool, jobs: int | None, on_exists: str,
              min_files: int | None) -> RunResult:
    """``run_survey`` with its snapshot's name claimed (or to be) and the cache's lock held."""
    # rg's listing of each scope (a process each) starts now and runs while this process
    # crawls, walks and writes: a re-run, with little left to walk, would otherwise wait for
    # it. If it went stale (the walk met a file that changed or vanished), the greps list the
    # tree again. DuckDB's grep lists nothing: it reads the crawl's files (grep_scopes).
    rg_lists = rg_listings(root, profile)
    beside = GrepsBesideWalk()
    try:
        # a first run's walkers import beside the crawl (a corpus too small for them leaves
        # an idle fork server: it costs a core a quarter of a second, beside the crawl)
        start_walkers(jobs, cache_dir)
        # the classes of the files the last crawl saw come from the cache (``crawl.classes``)
        inv = crawl(root, profile, salt, stratum, progress=tick("crawl"),
                    known=load_classes(cache_dir, profile))
        root_check = check_inventory(profile, root, inv)
        inv.frame = sample(inv.frame, sample_n, seed)
        give_back_freed_memory()  # (what the crawl's chunks held, before the walk's peak)
        timings["crawl"] = time.perf_counter() - t0
        return _survey(profile, root, inv, salt, timings, t0, rg_lists, beside, cache_dir, claimed,
                       snapshots=snapshots,
                       reports=reports, date=date, sample_n=sample_n, seed=seed, stratum=stratum, mode=mode,
                       allow_mcp=allow_mcp, jobs=jobs, on_exists=on_exists, tick=tick,
                       min_files=min_files, root_check=root_check.to_json() if root_check else None)
    finally:
        beside.close()
        for rl in rg_lists.values():
            rl.close()


def known_files(inv: Inventory, frame: pl.DataFrame | None = None) -> Known:
    """The crawl's regular files: relative path (bytes), file_id and (size, mtime_ns,
    ctime_ns, inode), the stat the greps' cache keys files by (``grep.Known``); from
    ``frame`` (the inventory with more columns) if given, else the crawl's own."""
    rows = (inv.frame if frame is None else frame).filter(pl.col("kind").is_in(READ_KINDS)).select("file_id", "size", "mtime_ns", "ctime_ns", "inode")
    return Known(inv.with_names(rows).filter(pl.col("path").is_not_null()).select(KNOWN_SCHEMA.names()))


def _survey(profile: Profile, root: Path, inv: Inventory, salt: bytes, timings: dict[str, float], t0: float,
            rg_lists: dict[str, AnyListing], beside: GrepsBesideWalk, cache_dir: Path | None,
            claimed: Claim | None, *,
            snapshots: Path,
            reports: Path | None, date: str,
            sample_n: int | None, seed: int, stratum: str, mode: str, allow_mcp: bool, jobs: int | None,
            on_exists: str, tick: Callable[[str], Callable[..., None] | None],
            min_files: int | None, root_check: dict | None = None) -> RunResult:
    from survey.render.render import render_page

    t = time.perf_counter()
    final = snapshots / date / profile.name
    workers = walk_jobs(jobs)
    # the crawl's stat per file, for the greps: made when they start (567k files: 51 MB,
    # not held through the walk unless the greps run beside it)
    known: Known | None = None
    if (walk_leaves_core_idle(inv.frame, workers) or rerun_greps_beside(inv.frame, cache_dir, profile, mode, allow_mcp)) \
            and claimed is not None:  # (not when an existing snapshot may be reused)
        known = known_files(inv)
        beside.start(lambda readable: grep_scopes(root, profile, readable, cache_dir=cache_dir, salt=salt,
                                                  known=known, rg_lists=rg_lists))
    walk_stats: dict = {}
    walk_tick = tick("walk")
    if walk_tick is not None:  # the files the walk may read (the cache's are counted at its end)
        walk_tick(0, 0, inv.frame.filter(pl.col("kind").is_in(READ_KINDS)).height)
    tables = collect(inv, root, profile, mode=mode, allow_mcp=allow_mcp, salt=salt, jobs=jobs,
                     progress=walk_tick, cache_dir=cache_dir, stats=walk_stats)
    from survey.census.rarekeys import collapse

    if cache_dir is not None:
        save_classes(cache_dir, inv.frame, profile, inv.classes_kept)
    parts = walk_stats.pop("parts", None) or {}
    scans = dict(tables)
    tables, rare = collapse(tables, min_files if min_files is not None else (3 if mode == "discover" else 1))
    timings["walk"] = time.perf_counter() - t
    if profile.store_reader and "stores" not in tables:
        # No store was read (none sampled, all empty): an empty table with the reader's fact
        # columns keeps the runtime's store queries answerable (0 rows instead of an error).
        from survey.corpus.stores import empty_facts_table

        tables["stores"] = empty_facts_table(profile.store_reader)
    files = tables.pop("files")
    stale = files.filter(pl.col("read_status").is_in(["vanished", "changed_during_read"])).height > 0
    if stale:
        # files changed since the crawl: the early listings may name files that are gone, so
        # rg lists the tree again (a file made after its listing started is caught by
        # grep_scopes), and the DuckDB grep leaves out the files the walk found gone
        rg_lists = {}
    # the crawl's frame and the walk's file rows, joined on the crawl's row of each file
    # (``collect``'s ``_row``): 567k files 0.12-0.15 s as a join of their ids, 0.003 s
    full = inv.frame.with_row_index("_row").join(files.drop("file_id"), on="_row", how="left",
                                                 maintain_order="left").drop("_row")
    files = files.drop("_row")
    ok_ids = full.filter(pl.col("kind").is_in(READ_KINDS) & pl.col("read_status").is_in(READ_WHOLE))["file_id"]

    def readable() -> list[str]:
        # asked for only by a DuckDB retry (rarely): 567k paths held from here through the
        # census and the greps were about 50 MB
        return [p for p in inv.paths_of(ok_ids) if p is not None]

    beside.walked(readable)
    fp = fingerprint(full.with_columns(pl.col("hash").fill_null("")))
    fixture = profile.handmade_marker in root.resolve().parts
    synthetic = is_synthetic(root)

    if claimed is None:  # (``reuse`` or ``auto`` where the date's name was taken)
        claimed, date = claim_late(snapshots, date, profile.name, on_exists, fp, mode)
        if claimed is None:
            final = snapshots / date / profile.name
            old = load_json(final, "manifest") or {}
            _drop_spill(walk_stats)
            page = str(render_page(final, reports / f"{profile.name}.md")) if reports else None
            return RunResult(profile.name, str(final), page, full.height, int(full["size"].sum()),
                             int(old["counts"]["walked_files"]), int(old["counts"]["frames"]),
                             old.get("problems", {}), old.get("disagreements", []), reused=True,
                             fixture=fixture, timings=timings, root_check=old.get("root_check"))
    date = claimed.final.parent.name
    writer = SnapshotWriter(snapshots, date, profile.name, claimed)
    snap_label = str(snapshots / date / profile.name)
    try:
        t = time.perf_counter()
        parts_written = writer.write_inventory(full, load_inventory_parts(cache_dir), inventory_reads(profile))
        labels: Labels = {}  # each linked table's part labels (unique per walk, so only from its cache)
        empty: list[str] = []  # the tables written empty (their schema alone)
        written: dict[str, str] = {}  # the tables written whole: the sha256 of each's file
        unlabelled = cache_dir is None  # a table whose rows no label names (the census is then not kept)
        for name, df in tables.items():
            ps = parts.get(name)
            if ps is not None and df is scans.get(name) and (ps.files or ps.rest is not None):
                writer.link_table(name, ps.files, ps.rest)  # the walk's parts, not re-encoded
                if cache_dir is not None:
                    labels[name] = [p.name.removesuffix(".parquet") for p in ps.files] + [None] * (ps.rest is not None)
                    unlabelled |= ps.rest is not None
            elif ps is not None and df is scans.get(name):
                # no part holds a row (a table this runtime's walk never fills): written empty,
                # from its schema, not by a scan that joins every file to its part (a re-run
                # at 567k files: 0.08-0.17 s a table, four tables)
                writer.write_table(name, pl.DataFrame(schema=df.collect_schema()))
                empty.append(name)
            else:
                writer.write_table(name, df)
                # its bytes, where few (a store runtime's table of stores); else not kept
                digest = _small_file_digest(writer.dir / "walk" / f"{name}.parquet")
                unlabelled |= digest is None
                written[name] = digest or ""
        writer.write_table("files", files)  # (its columns are the inventory's: ``full``)
        inputs = None if unlabelled else census_inputs(labels, empty, written, parts_written)
        # per-record tables are read back lazily from the snapshot: never all in memory; the
        # frames are counted from their counts per file (at 5 GB, 4.8 M rows, not 16 M)
        counts = pl.scan_parquet(writer.dir / "walk" / "frame_counts.parquet")
        found = problems_of(inv.frame, files, counts, expected=profile.expected_statuses)
        problems, examples, n_frames, n_ok = found.counts, found.examples, found.frames, found.frames_ok
        n_blocks = pl.scan_parquet(writer.dir / "walk" / "blocks.parquet").select(pl.len()).collect().item()
        if known is None and not stale and mostly_served(walk_stats):
            # a re-run's census is small: the greps' stat per file (567k files: 51 MB) is
            # made now, from the crawl's frame, whose ids are its paths' in order (0.03 s),
            # not after the census from the inventory read back and joined (0.13 s)
            known = known_files(inv)
        # the crawl's frame and the walk's file table live on in ``full``: let them go
        # before the census (567k files: about 100 MB held through it and the greps)
        inv.frame = inv.frame.clear()
        scans.clear()
        del files
        walked = full.filter(pl.col("sampled")).select(pl.len(), pl.col("size").sum()).row(0)
        n_files, n_bytes = full.height, int(full["size"].sum() or 0)
        manifest = {
            "tool": "survey",
            "tool_version": __version__,
            "snapshot_schema": SCHEMA_VERSION,
            "runtime": profile.name,
            "title": profile.title,
            "date": date,
            "mode": mode,
            "allow_mcp_names": allow_mcp,
            "root": pseudonym(salt, str(root.resolve()), "r"),
            "fixture": fixture,
            "synthetic": synthetic,
            "fingerprint": fp,
            "sample": {"n": sample_n, "seed": seed, "stratum": stratum,
                       "method": "stratified by mtime, proportional" if sample_n else "whole corpus"},
            "counts": {
                "files": n_files,
                "bytes": n_bytes,
                "walked_files": walked[0],
                "walked_bytes": int(walked[1] or 0),
                "frames": int(n_frames),
                "frames_ok": int(n_ok),
                "blocks": int(n_blocks),
                "by_surface": dict(full.group_by("surface").len().sort("surface").iter_rows()),
            },
            "problems": problems,
            "root_check": root_check,
            "privacy": {"rare_keys_collapsed": rare,
                        "min_files": min_files if min_files is not None else (3 if mode == "discover" else 1)},
        }
        timings["write"] = time.perf_counter() - t
        crash_point("snapshot")
        scope_files = scope_counts(profile, full)
        # the rest reads the snapshot's inventory where it needs the files (567k files: 86
        # MB not held through the census and the greps)
        del full

        overlap = overlap_stages(walk_stats)
        # the greps' counts, if they ran beside the walk: waited for now, before the census,
        # or, where the census and the greps run side by side, in the greps' stage
        greps = None if overlap else beside.result(stale)

        def grep_known() -> Known:
            # made when the greps start, not before the census: at 567k files it is 51 MB,
            # which the census's peak need not carry
            if known is not None and not stale:
                return known
            written = pl.read_parquet(writer.dir / "inventory", columns=[*KNOWN_SCHEMA.names()[1:], "kind", "read_status"])
            k = known if known is not None else known_files(inv, written)
            if stale:  # the DuckDB grep reads the crawl's files: not one the walk found gone
                gone = written.filter(pl.col("read_status") == "vanished")["file_id"]
                k = Known(k.rows.filter(~pl.col("file_id").is_in(gone.implode())))
            return k

        def census_stage() -> dict:
            t = time.perf_counter()
            crash_point("census")
            census_tick = tick("census")
            if census_tick is not None:
                census_tick(0, 0, len(query_files(profile)))
            try:
                return run_census(writer.dir, profile, snap_label, labels,
                                  store_of(cache_dir) if cache_dir is not None else None, walk_stats, inputs,
                                  progress=census_tick)
            finally:
                timings["census"] = time.perf_counter() - t

        def evidence_stage(structural: dict[str, dict] | None = None) -> dict:
            got = beside.result(stale) if overlap else greps
            t = time.perf_counter()
            grep_tick = tick("greps")
            if grep_tick is not None:
                grep_tick(0, 0, len(profile.scopes))
            try:
                return run_probes(root, profile, writer.dir, snap_label, scope_files, readable,
                                  cache_dir=cache_dir, salt=salt, known=grep_known(), rg_lists=rg_lists,
                                  greps=got, structural=structural)
            finally:
                timings["greps"] = time.perf_counter() - t
                if grep_tick is not None:
                    grep_tick(len(profile.scopes), 0)
                if got is not None:  # their time beside the walk, and the part left after it
                    timings["greps"] += beside.seconds
                    timings["greps_beside_walk"] = beside.seconds

        if overlap:
            # a re-run with little new to read: the census and the greps (mostly served from
            # their cache) are each a chain of small waits, so they run side by side
            with ThreadPoolExecutor(1, thread_name_prefix="evidence") as pool:
                later = pool.submit(evidence_stage)
                census = census_stage()
                evidence = later.result()
        else:  # a first run: one after the other, so their memory peaks never add up
            # (but for the probes' key figures: one query that streams the snapshot's nodes
            # past a few groups, beside the census; 567k files: 0.09 s)
            with ThreadPoolExecutor(1, thread_name_prefix="key-figures") as pool:
                keyed = pool.submit(key_hits, writer.dir, list(profile.probes), snap_label)
                census = census_stage()
                structural = keyed.result()
            evidence = evidence_stage(structural)
        writer.write_json("census", census)
        evidence["fingerprint"] = fp
        evidence["duckdb_version"] = duckdb.__version__  # (the pages print it beside the commands)
        writer.write_json("evidence", evidence)

        kit = Kit(census, evidence, manifest)
        if profile.claims:
            profile.claims(kit)
        kit.skeletons(profile.record_class)
        kit.notes(profile.notes)
        writer.write_json("claims", [c.to_json() for c in kit.claims])
        disagreements = [p["id"] for p in evidence["probes"] if not p["agree"]]
        manifest["disagreements"] = disagreements
        manifest["timings"] = {k: round(v, 3) for k, v in timings.items()}
        writer.write_json("manifest", manifest)  # last: a folder without it is no snapshot
        final = writer.commit()
        keep_inventory_parts(cache_dir, parts_written)
    except BaseException:
        writer.abort()
        raise
    finally:
        _drop_spill(walk_stats)
    t = time.perf_counter()
    render_tick = tick("render")
    if render_tick is not None and reports:
        render_tick(0, 0, 1)
    page = str(render_page(final, reports / f"{profile.name}.md")) if reports else None
    if render_tick is not None and reports:
        render_tick(1, 0)
    timings["render"] = time.perf_counter() - t
    if mode == "discover":
        from survey.snapshot.vocab import write_candidates

        # beside the reports, or without them beside the snapshots (discover/ from the CLI);
        # never the working directory
        write_candidates(final, profile.name, reports.parent if reports else snapshots.parent)
    timings["total"] = time.perf_counter() - t0
    return RunResult(profile.name, str(final), page, n_files, n_bytes,
                     walked[0], int(n_frames), problems, disagreements, fixture=fixture,
                     timings={k: round(v, 3) for k, v in timings.items()}, cache=walk_stats,
                     problem_files=examples, root_check=root_check)
