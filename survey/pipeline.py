"""A survey run, as its stages in order: crawl the root, walk every file into tables (the
census's walk), write the snapshot, run the census's queries and the evidence greps, state
the claims, and render the page from the committed snapshot alone. ``run_survey`` is what
``survey run`` calls for each runtime; what runs beside what is ``survey.schedule``'s, what
a run takes from the last one ``survey.reuse``'s."""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from survey import __version__
from survey.cachedir import cache_base, crash_point, hold
from survey.census.collect import READ_KINDS, PartSet, collect, start_walkers, walk_jobs
from survey.census.partials import store_of
from survey.census.pool import give_back_freed_memory
from survey.census.sql import inventory_reads, query_files, run_census
from survey.census.walk import READ_WHOLE
from survey.corpus.crawl import Inventory, crawl, load_classes, sample, save_classes
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import config_dir, load_salt, pseudonym
from survey.corpus.rootcheck import check_inventory
from survey.evidence.formats import EXPECTED as FORMATS_EXPECTED
from survey.evidence.grep.keyhits import key_hits
from survey.evidence.grep.scopes import KNOWN_SCHEMA, AnyListing, Known, rg_listings
from survey.evidence.grep.verdicts import ScopeGrep, grep_scopes, run_probes
from survey.evidence.kit import Kit, nested_keysets, text_markers, tool_input_keysets
from survey.evidence.links import drift_claims, link_claims
from survey.options import OptionError, check_options, run_folders
from survey.reuse import (
    census_inputs,
    claim_early,
    claim_late,
    keep_inventory_parts,
    load_inventory_parts,
    write_walk_tables,
)
from survey.runtimes.base import Profile, vocab_version
from survey.schedule import (
    GrepsBesideWalk,
    census_and_greps,
    mostly_served,
    overlap_stages,
    rerun_greps_beside,
    walk_leaves_core_idle,
)
from survey.snapshot.store import SCHEMA_VERSION, Claim, SnapshotWriter, fingerprint, load_json
from survey.synth.marker import is_synthetic

# progress(stage, units done, bytes done, total=None): called per batch, query or stage, never
# per record; a total (files, queries, ...) where the stage knows one, once as it starts
Progress = Callable[..., None]
Tick = Callable[[str], Callable[..., None] | None]


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


@dataclass
class Settings:
    """What a run was asked for (``run_survey``'s options, checked)."""

    snapshots: Path
    reports: Path | None
    date: str
    sample_n: int | None
    seed: int
    stratum: str
    mode: str
    allow_mcp: bool
    jobs: int | None
    on_exists: str
    min_files: int | None
    charts: bool = True  # False: the page's charts as their tables alone (nothing drawn)

    @property
    def min_key_files(self) -> int:
        """Files a key must be seen in to be named (``rarekeys.collapse``)."""
        return self.min_files if self.min_files is not None else (3 if self.mode == "discover" else 1)


@dataclass
class Run:
    """One run: its runtime and root, the salt, the walk's cache folder (None: ``--no-cache``),
    its settings, the stages' timings (from ``t0``) and their progress (``tick``)."""

    profile: Profile
    root: Path
    salt: bytes
    cache_dir: Path | None
    opts: Settings
    timings: dict[str, float]
    t0: float
    tick: Tick


@dataclass
class Walked:
    """What the walk hands on: its tables (``scans``: as the walk wrote them, before the rare-key
    collapse; ``parts``: the Parquet parts behind each), the keys collapsed, the walk's file
    rows, the crawl's frame joined with them (``full``), whether a file changed or vanished
    under it (``stale``), the paths it read cleanly (``readable``) and its figures."""

    tables: dict[str, pl.DataFrame]
    scans: dict[str, pl.DataFrame]
    parts: dict[str, PartSet]
    rare: int
    files: pl.DataFrame
    full: pl.DataFrame
    stale: bool
    readable: Callable[[], list[str]]
    stats: dict


@dataclass
class Snap:
    """What the snapshot stage hands on: the manifest so far, the census's inputs (their
    digest, None where not kept; the linked parts' labels), the inventory partitions written,
    each scope's file count, the greps' stat per file where made, and problem examples."""

    manifest: dict
    label: str
    inputs: str | None
    labels: dict
    parts_written: dict
    scope_files: dict[str, int]
    known: Known | None
    examples: dict[str, list[str]]


def run_survey(profile: Profile, root: Path, *, snapshots: Path = Path("snapshots"),
               reports: Path | None = Path("reports"), date: str | None = None,
               sample_n: int | None = None, seed: int = 0, stratum: str = "month",
               mode: str = "reviewed", allow_mcp: bool = False, jobs: int | None = None,
               on_exists: str = "refuse", progress: Progress | None = None,
               cache: bool = True, min_files: int | None = None, charts: bool = True) -> RunResult:
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
    opts = Settings(snapshots, reports, date, sample_n, seed, stratum, mode, allow_mcp, jobs, on_exists, min_files,
                    charts)
    with contextlib.ExitStack() as held:
        if claimed is not None:  # (a claim not committed: let go)
            held.callback(claimed.release)
        if cache_dir is not None:  # runs of one root at once take turns with its cache
            waited = held.enter_context(hold(cache_dir))
            if waited:  # (not the crawl's time)
                timings["waited"] = waited
                t0 += waited
        return _run_held(Run(profile, root, salt, cache_dir, opts, timings, t0, tick), claimed)


def _run_held(run: Run, claimed: Claim | None) -> RunResult:
    """``run_survey`` with its snapshot's name claimed (or to be) and the cache's lock held."""
    # rg's listing of each scope (a process each) starts now and runs while this process
    # crawls, walks and writes: a re-run, with little left to walk, would otherwise wait for
    # it. If it went stale (the walk met a file that changed or vanished), the greps list the
    # tree again. DuckDB's grep lists nothing: it reads the crawl's files (grep_scopes).
    rg_lists = rg_listings(run.root, run.profile)
    beside = GrepsBesideWalk()
    try:
        # a first run's walkers import beside the crawl (a corpus too small for them leaves
        # an idle fork server: it costs a core a quarter of a second, beside the crawl)
        start_walkers(run.opts.jobs, run.cache_dir)
        inv, root_check = crawl_stage(run)
        return _survey(run, inv, root_check, claimed, rg_lists, beside)
    finally:
        beside.close()
        for rl in rg_lists.values():
            rl.close()


def _survey(run: Run, inv: Inventory, root_check: dict | None, claimed: Claim | None,
            rg_lists: dict[str, AnyListing], beside: GrepsBesideWalk) -> RunResult:
    """The stages after the crawl, in order: the walk, the snapshot, the census and the
    greps, the claims (the snapshot committed), the page."""
    t = time.perf_counter()
    known = start_greps_beside(run, inv, claimed, beside, rg_lists)
    walked = walk_stage(run, inv, t)
    if walked.stale:
        # files changed since the crawl: the early listings may name files that are gone, so
        # rg lists the tree again (a file made after its listing started is caught by
        # grep_scopes), and the DuckDB grep leaves out the files the walk found gone
        rg_lists = {}
    beside.walked(walked.readable)
    fp = fingerprint(walked.full.with_columns(pl.col("hash").fill_null("")))
    date = run.opts.date
    if claimed is None:  # (``reuse`` or ``auto`` where the date's name was taken)
        claimed, date = claim_late(run.opts.snapshots, date, run.profile.name, run.opts.on_exists, fp, run.opts.mode)
        if claimed is None:
            return _reused(run, date, walked)
    date = claimed.final.parent.name
    writer = SnapshotWriter(run.opts.snapshots, date, run.profile.name, claimed)
    try:
        snap = snapshot_stage(run, writer, inv, walked, known, date, fp, root_check)
        census, evidence = census_and_greps_stage(run, writer, snap, inv, walked, beside, rg_lists)
        final = claims_stage(run, writer, snap, census, evidence, fp)
    except BaseException:
        writer.abort()
        raise
    finally:
        _drop_spill(walked.stats)
    page = render_stage(run, final)
    run.timings["total"] = time.perf_counter() - run.t0
    m = snap.manifest
    return RunResult(run.profile.name, str(final), page, m["counts"]["files"], m["counts"]["bytes"],
                     m["counts"]["walked_files"], m["counts"]["frames"], m["problems"], m["disagreements"],
                     fixture=m["fixture"], timings={k: round(v, 3) for k, v in run.timings.items()},
                     cache=walked.stats, problem_files=snap.examples, root_check=root_check)


def crawl_stage(run: Run) -> tuple[Inventory, dict | None]:
    """The inventory (a sample of it where asked), and the root check's finding, if any."""
    # the classes of the files the last crawl saw come from the cache (``crawl.classes``)
    inv = crawl(run.root, run.profile, run.salt, run.opts.stratum, progress=run.tick("crawl"),
                known=load_classes(run.cache_dir, run.profile))
    root_check = check_inventory(run.profile, run.root, inv)
    inv.frame = sample(inv.frame, run.opts.sample_n, run.opts.seed)
    give_back_freed_memory()  # (what the crawl's chunks held, before the walk's peak)
    run.timings["crawl"] = time.perf_counter() - run.t0
    return inv, root_check.to_json() if root_check else None


def start_greps_beside(run: Run, inv: Inventory, claimed: Claim | None, beside: GrepsBesideWalk,
                       rg_lists: dict[str, AnyListing]) -> Known | None:
    """Start the greps beside the walk where ``survey.schedule`` says so; the crawl's stat per
    file they were given (567k files: 51 MB, not held through the walk unless they run)."""
    workers = walk_jobs(run.opts.jobs)
    if not (walk_leaves_core_idle(inv.frame, workers)
            or rerun_greps_beside(inv.frame, run.cache_dir, run.profile, run.opts.mode, run.opts.allow_mcp)) \
            or claimed is None:  # (not when an existing snapshot may be reused)
        return None
    known = known_files(inv)
    beside.start(lambda readable: grep_scopes(run.root, run.profile, readable, cache_dir=run.cache_dir,
                                              salt=run.salt, known=known, rg_lists=rg_lists))
    return known


def walk_stage(run: Run, inv: Inventory, t: float) -> Walked:
    """Every file walked into tables (``collect``), rare keys collapsed, and the walk's file rows
    joined to the crawl's."""
    from survey.census.rarekeys import collapse

    walk_stats: dict = {}
    walk_tick = run.tick("walk")
    if walk_tick is not None:  # the files the walk may read (the cache's are counted at its end)
        walk_tick(0, 0, inv.frame.filter(pl.col("kind").is_in(READ_KINDS)).height)
    tables = collect(inv, run.root, run.profile, mode=run.opts.mode, allow_mcp=run.opts.allow_mcp, salt=run.salt,
                     jobs=run.opts.jobs, progress=walk_tick, cache_dir=run.cache_dir, stats=walk_stats)
    if run.cache_dir is not None:
        save_classes(run.cache_dir, inv.frame, run.profile, inv.classes_kept)
    parts = walk_stats.pop("parts", None) or {}
    scans = dict(tables)
    tables, rare = collapse(tables, run.opts.min_key_files)
    run.timings["walk"] = time.perf_counter() - t
    if run.profile.store_reader and "stores" not in tables:
        # No store was read (none sampled, all empty): an empty table with the reader's fact
        # columns keeps the runtime's store queries answerable (0 rows instead of an error).
        from survey.corpus.stores import empty_facts_table

        tables["stores"] = empty_facts_table(run.profile.store_reader)
    files = tables.pop("files")
    stale = files.filter(pl.col("read_status").is_in(["vanished", "changed_during_read"])).height > 0
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

    return Walked(tables, scans, parts, rare, files, full, stale, readable, walk_stats)


def _reused(run: Run, date: str, walked: Walked) -> RunResult:
    """The date's snapshot is of this corpus and mode: its page again, nothing written."""
    from survey.render.render import render_page

    final = run.opts.snapshots / date / run.profile.name
    old = load_json(final, "manifest") or {}
    _drop_spill(walked.stats)
    reports = run.opts.reports
    page = str(render_page(final, reports / f"{run.profile.name}.md", charts=run.opts.charts)) if reports else None
    fixture = run.profile.handmade_marker in run.root.resolve().parts
    return RunResult(run.profile.name, str(final), page, walked.full.height, int(walked.full["size"].sum()),
                     int(old["counts"]["walked_files"]), int(old["counts"]["frames"]),
                     old.get("problems", {}), old.get("disagreements", []), reused=True,
                     fixture=fixture, timings=run.timings, root_check=old.get("root_check"))


def snapshot_stage(run: Run, writer: SnapshotWriter, inv: Inventory, walked: Walked, known: Known | None,
                   date: str, fp: str, root_check: dict | None) -> Snap:
    """The inventory and the walk's tables into the snapshot, the problems counted, the
    manifest made (written last, by ``claims_stage``)."""
    t = time.perf_counter()
    parts_written = writer.write_inventory(walked.full, load_inventory_parts(run.cache_dir), inventory_reads(run.profile))
    kept = write_walk_tables(writer, walked.tables, walked.parts, walked.scans, run.cache_dir)
    writer.write_table("files", walked.files)  # (its columns are the inventory's: ``full``)
    inputs = None if kept.unlabelled else census_inputs(kept.labels, kept.empty, kept.written, parts_written)
    # per-record tables are read back lazily from the snapshot: never all in memory; the
    # frames are counted from their counts per file (at 5 GB, 4.8 M rows, not 16 M)
    counts = pl.scan_parquet(writer.dir / "walk" / "frame_counts.parquet")
    found = problems_of(inv.frame, walked.files, counts, expected=run.profile.expected_statuses)
    n_blocks = pl.scan_parquet(writer.dir / "walk" / "blocks.parquet").select(pl.len()).collect().item()
    if known is None and not walked.stale and mostly_served(walked.stats):
        # a re-run's census is small: the greps' stat per file (567k files: 51 MB) is
        # made now, from the crawl's frame, whose ids are its paths' in order (0.03 s),
        # not after the census from the inventory read back and joined (0.13 s)
        known = known_files(inv)
    # the crawl's frame and the walk's file table live on in ``full``: let them go
    # before the census (567k files: about 100 MB held through it and the greps)
    inv.frame = inv.frame.clear()
    walked.scans.clear()
    del walked.files
    full = walked.full
    del walked.full  # (the rest reads the snapshot's inventory where it needs the files)
    manifest = make_manifest(run, date, fp, full, found, int(n_blocks), root_check, walked.rare)
    run.timings["write"] = time.perf_counter() - t
    crash_point("snapshot")
    return Snap(manifest, str(run.opts.snapshots / date / run.profile.name), inputs, kept.labels, parts_written,
                scope_counts(run.profile, full), known, found.examples)


def census_and_greps_stage(run: Run, writer: SnapshotWriter, snap: Snap, inv: Inventory, walked: Walked,
                           beside: GrepsBesideWalk, rg_lists: dict[str, AnyListing]) -> tuple[dict, dict]:
    """The census's queries over the snapshot and the evidence greps over the corpus, as
    ``survey.schedule.census_and_greps`` runs them."""
    overlap = overlap_stages(walked.stats)
    # the greps' counts, if they ran beside the walk: waited for now, before the census,
    # or, where the census and the greps run side by side, in the greps' stage
    greps = None if overlap else beside.result(walked.stale)

    def evidence(structural: dict[str, dict] | None) -> dict:
        got = beside.result(walked.stale) if overlap else greps
        return greps_stage(run, writer, snap, inv, walked, beside, rg_lists, got, structural)

    return census_and_greps(overlap, lambda: census_stage(run, writer, snap, walked.stats), evidence,
                            lambda: key_hits(writer.dir, list(run.profile.probes), snap.label))


def census_stage(run: Run, writer: SnapshotWriter, snap: Snap, walk_stats: dict) -> dict:
    """The census: the runtime's and every runtime's queries over the snapshot."""
    t = time.perf_counter()
    crash_point("census")
    census_tick = run.tick("census")
    if census_tick is not None:
        census_tick(0, 0, len(query_files(run.profile)))
    try:
        return run_census(writer.dir, run.profile, snap.label, snap.labels,
                          store_of(run.cache_dir) if run.cache_dir is not None else None, walk_stats, snap.inputs,
                          progress=census_tick)
    finally:
        run.timings["census"] = time.perf_counter() - t


def greps_stage(run: Run, writer: SnapshotWriter, snap: Snap, inv: Inventory, walked: Walked,
                beside: GrepsBesideWalk, rg_lists: dict[str, AnyListing], got: list[ScopeGrep] | None,
                structural: dict[str, dict] | None) -> dict:
    """The evidence: every probe by both engines (their counts ``got`` beside the walk, if
    they ran there), with its structural figure."""
    t = time.perf_counter()
    grep_tick = run.tick("greps")
    if grep_tick is not None:
        grep_tick(0, 0, len(run.profile.scopes))
    try:
        return run_probes(run.root, run.profile, writer.dir, snap.label, snap.scope_files, walked.readable,
                          cache_dir=run.cache_dir, salt=run.salt, known=grep_known(writer, snap, inv, walked.stale),
                          rg_lists=rg_lists, greps=got, structural=structural)
    finally:
        run.timings["greps"] = time.perf_counter() - t
        if grep_tick is not None:
            grep_tick(len(run.profile.scopes), 0)
        if got is not None:  # their time beside the walk, and the part left after it
            run.timings["greps"] += beside.seconds
            run.timings["greps_beside_walk"] = beside.seconds


def grep_known(writer: SnapshotWriter, snap: Snap, inv: Inventory, stale: bool) -> Known:
    """The crawl's stat per file for the greps: made when they start, not before the census
    (at 567k files it is 51 MB, which the census's peak need not carry)."""
    known = snap.known
    if known is not None and not stale:
        return known
    written = pl.read_parquet(writer.dir / "inventory", columns=[*KNOWN_SCHEMA.names()[1:], "kind", "read_status"])
    k = known if known is not None else known_files(inv, written)
    if stale:  # the DuckDB grep reads the crawl's files: not one the walk found gone
        gone = written.filter(pl.col("read_status") == "vanished")["file_id"]
        k = Known(k.rows.filter(~pl.col("file_id").is_in(gone.implode())))
    return k


def claims_stage(run: Run, writer: SnapshotWriter, snap: Snap, census: dict, evidence: dict, fp: str) -> Path:
    """The census, the evidence and the claims written, the manifest last, the snapshot
    committed; the inventory's partitions kept for the next run."""
    writer.write_json("census", census)
    evidence["fingerprint"] = fp
    evidence["duckdb_version"] = duckdb.__version__  # (the pages print it beside the commands)
    writer.write_json("evidence", evidence)
    manifest = snap.manifest
    writer.write_json("claims", state_claims(run.profile, census, evidence, manifest))
    manifest["disagreements"] = [p["id"] for p in evidence["probes"] if not p["agree"]]
    manifest["timings"] = {k: round(v, 3) for k, v in run.timings.items()}
    writer.write_json("manifest", manifest)  # last: a folder without it is no snapshot
    final = writer.commit()
    keep_inventory_parts(run.cache_dir, snap.parts_written)
    return final


def state_claims(profile: Profile, census: dict, evidence: dict, manifest: dict) -> list[dict]:
    """Every sentence of the page, from the census, the evidence and the manifest (a survey's
    and a merge's alike)."""
    kit = Kit(census, evidence, manifest)
    if profile.claims:
        profile.claims(kit)
    kit.skeletons(profile.record_class)
    kit.keysets_masking()
    kit.value_formats(FORMATS_EXPECTED.get(profile.name, ()))
    kit.key_gate()
    nested_keysets(kit, profile.nested_keysets)
    tool_input_keysets(kit)
    text_markers(kit, profile.markers, profile.probes)
    link_claims(kit, profile.declared_links)
    drift_claims(kit)
    kit.notes(profile.notes)
    return [c.to_json() for c in kit.claims]


def render_stage(run: Run, final: Path) -> str | None:
    """The page, from the committed snapshot alone (and discover mode's proposals)."""
    from survey.render.render import render_page

    t = time.perf_counter()
    reports = run.opts.reports
    render_tick = run.tick("render")
    if render_tick is not None and reports:
        render_tick(0, 0, 1)
    page = str(render_page(final, reports / f"{run.profile.name}.md", charts=run.opts.charts)) if reports else None
    if render_tick is not None and reports:
        render_tick(1, 0)
    run.timings["render"] = time.perf_counter() - t
    if run.opts.mode == "discover":
        from survey.snapshot.vocab import write_candidates

        # beside the reports, or without them beside the snapshots (discover/ from the CLI);
        # never the working directory
        write_candidates(final, run.profile.name, reports.parent if reports else run.opts.snapshots.parent)
    return page


def make_manifest(run: Run, date: str, fp: str, full: pl.DataFrame, found: Problems, n_blocks: int,
                  root_check: dict | None, rare: int) -> dict:
    """The snapshot's manifest, but for what the stages after it add."""
    walked = full.filter(pl.col("sampled")).select(pl.len(), pl.col("size").sum()).row(0)
    o = run.opts
    return {
        "tool": "survey",
        "tool_version": __version__,
        "snapshot_schema": SCHEMA_VERSION,
        "runtime": run.profile.name,
        "title": run.profile.title,
        "date": date,
        "mode": o.mode,
        "allow_mcp_names": o.allow_mcp,
        "root": pseudonym(run.salt, str(run.root.resolve()), "r"),
        "fixture": run.profile.handmade_marker in run.root.resolve().parts,
        "synthetic": is_synthetic(run.root),
        "fingerprint": fp,
        "sample": {"n": o.sample_n, "seed": o.seed, "stratum": o.stratum,
                   "method": "stratified by mtime, proportional" if o.sample_n else "whole corpus"},
        "counts": {
            "files": full.height,
            "bytes": int(full["size"].sum() or 0),
            "walked_files": walked[0],
            "walked_bytes": int(walked[1] or 0),
            "frames": int(found.frames),
            "frames_ok": int(found.frames_ok),
            "blocks": int(n_blocks),
            "by_surface": dict(full.group_by("surface").len().sort("surface").iter_rows()),
        },
        "problems": found.counts,
        "root_check": root_check,
        "privacy": {"rare_keys_collapsed": rare, "min_files": o.min_key_files},
        "vocab": vocab_version(run.profile.name),
    }


def known_files(inv: Inventory, frame: pl.DataFrame | None = None) -> Known:
    """The crawl's regular files: relative path (bytes), file_id and (size, mtime_ns,
    ctime_ns, inode), the stat the greps' cache keys files by (``grep.Known``); from
    ``frame`` (the inventory with more columns) if given, else the crawl's own."""
    rows = (inv.frame if frame is None else frame).filter(pl.col("kind").is_in(READ_KINDS)).select("file_id", "size", "mtime_ns", "ctime_ns", "inode")
    return Known(inv.with_names(rows).filter(pl.col("path").is_not_null()).select(KNOWN_SCHEMA.names()))


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


