"""The ``survey`` command: a thin layer over the library.

Each command calls one library function and prints its typed result, as a rich summary by
default or as JSON with ``--json`` (exactly what the function returned). Messages name files
by pseudonym and problems by class; no corpus byte is ever printed. Exit codes: 0 when the
tool did its job (counted problems included), 1 when the tool itself failed, 2 for usage
errors, 3 when ``--strict`` or ``--fail-on-drift`` found something.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from survey import __version__

if TYPE_CHECKING:
    from survey.runtimes.base import Profile

app = typer.Typer(
    name="survey",
    help="Evidence-backed, structure-only schema documentation for AI-coding-agent session stores.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    add_completion=False,
    pretty_exceptions_show_locals=False,  # (a failure's locals may hold corpus bytes: never printed)
    context_settings={"help_option_names": ["-h", "--help"]},
)
err = Console(stderr=True)
out = Console()
# -q / -v (the app's callback sets it per invocation): -1 quiet, 0 normal, 1 verbose
VERBOSITY = [0]


class Stratum(StrEnum):
    """The inventory's mtime strata (``options.STRATA``)."""

    month = "month"
    day = "day"
    quarter = "quarter"
    year = "year"


class Mode(StrEnum):
    """``options.MODES``."""

    reviewed = "reviewed"
    discover = "discover"


class OnExists(StrEnum):
    """``options.ON_EXISTS``."""

    refuse = "refuse"
    reuse = "reuse"
    suffix = "suffix"
    auto = "auto"


def note(msg: str) -> None:
    """A line for the person at the terminal (stderr), left out with -q."""
    if VERBOSITY[0] >= 0:
        err.print(msg)


def _print_version(value: bool) -> None:
    if value:
        out.print(__version__)
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars and no notes on stderr "
                                                               "(errors still).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also say which walker runs and each "
                                                                   "runtime's stage times as it ends.")] = False,
) -> None:
    """Evidence-backed, structure-only schema documentation for AI-coding-agent session stores."""
    VERBOSITY[0] = -1 if quiet else (1 if verbose else 0)

RuntimeOpt = Annotated[list[str] | None, typer.Option("--runtime", "-r", help="Runtime profile(s); default: all.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
SnapDirOpt = Annotated[Path, typer.Option("--snapshots", help="Folder of dated snapshots.")]
NoChartsOpt = Annotated[bool, typer.Option("--no-charts", help="Draw no chart images: each chart's table of figures "
                                                                  "alone (matplotlib is not imported).")]


def emit_json(obj: object) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n")


def fail(msg: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _salt() -> bytes:
    """This machine's salt, or a one-line usage error saying why it cannot be had."""
    from survey.corpus.privacy import SaltError, load_salt

    try:
        return load_salt()
    except SaltError as exc:
        fail(str(exc), 2)
        raise


def _check(**options: Any) -> None:
    """``options.check_options``, its ``OptionError`` a one-line usage error before any work."""
    from survey.options import OptionError, check_options

    try:
        check_options(**options)
    except OptionError as exc:
        fail(str(exc), 2)


def _default_root(p: Profile) -> Path | None:
    """The runtime's root on this machine; a usage error where the environment names one
    that is not a folder (a typo there would otherwise read as "no root")."""
    where, env = p.default_root(), p.env_root_name()
    if where is not None and env and not where.is_dir():
        fail(f"{p.name}: ${env} names a root that is not a folder: set it to the store's folder, or pass --root", 2)
    return where


def _profiles(names: list[str] | None):
    from survey.runtimes import NAMES, get

    try:
        return [get(n) for n in (names or NAMES)]
    except KeyError as exc:
        fail(str(exc.args[0]), 2)
        raise


def _detect(root: Path, profiles: list[Profile]) -> Profile:
    """The one runtime whose walked surfaces the files under ``root`` lie on
    (``rootcheck.detect_runtimes``), said on stderr; a usage error where none or several fit.
    A runtime with no default root (its surfaces match any capture, as ``cursor_stream``'s)
    is taken only where no runtime with one fits."""
    from survey.corpus.rootcheck import detect_runtimes

    if not root.expanduser().is_dir():
        fail(f"--root is not a folder ({root})", 2)
    hits = detect_runtimes(root, profiles)
    by_name = {p.name: p for p in profiles}
    specific = {n: k for n, k in hits.items() if by_name[n].default_roots}
    fits = specific or hits
    if not fits:
        fail("no runtime's files under this root: pass -r (see `survey runtimes`)", 2)
    if len(fits) > 1:
        fail("this root holds files of " + " and ".join(f"{n} ({k:,})" for n, k in fits.items())
             + ": pass -r to say which", 2)
    (name,) = fits
    note(f"runtime: {name} (its files are under this root; pass -r to choose another)")
    return by_name[name]


# stages a run reports, in order; each one's unit for the counts
UNITS = {"crawl": "files", "walk": "files", "census": "queries", "greps": "scopes", "render": "pages", "synth": "MB"}
REDRAW = 0.5  # seconds between a stage's updates at most: progress costs nothing measurable


def _progress() -> tuple[Progress | None, Callable[[str], Callable[..., None]] | None]:
    """A rich progress display on stderr (none when stderr is not a terminal, or with -q),
    and for each runtime a callback ``cb(stage, n, nbytes, total=None)``: ``n`` more units
    of ``stage`` done (a total, where one is known, gives the percent and the time left).
    Stages report per batch, never per record; the bar is updated at most every ``REDRAW``
    seconds a stage, its counts held in between, and a stage shows all it counted once the
    next one starts; an earlier runtime's bars are hidden. Redrawing costs about 4 ms of CPU,
    twice a second."""
    if not err.is_terminal or VERBOSITY[0] < 0:
        return None, None
    prog = Progress(TextColumn("{task.description:<24}"), BarColumn(), TaskProgressColumn(),
                    TextColumn("{task.completed:,.0f}{task.fields[of]} {task.fields[unit]}"),
                    TextColumn("{task.fields[mb]}"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    console=err, transient=True, refresh_per_second=2)
    tasks: dict[str, TaskID] = {}
    held: dict[str, list[float]] = {}  # task -> [units, bytes, last update, bytes shown]

    def show(key: str, now: float, final: bool = False) -> None:
        h, t = held[key], tasks[key]
        h[3] += h[1]
        task = prog.tasks[t]
        done = task.total if final and task.total is not None else task.completed + h[0]
        prog.update(t, completed=done, mb=f"{h[3] / 1e6:,.0f} MB" if h[3] else "")
        held[key] = [0, 0, now, h[3]]

    def for_runtime(runtime: str) -> Callable[..., None]:
        def cb(stage: str, n: int, b: int, total: int | None = None) -> None:
            now = time.monotonic()
            key = f"{runtime} {stage}"
            if key not in tasks:
                for other in tasks:  # a new stage: the ones before it show all they counted
                    if other != key and held[other][2] >= 0:
                        show(other, now, final=True)
                        held[other][2] = -1.0
                    if not other.startswith(f"{runtime} "):  # (an earlier runtime's bars: done, hidden)
                        prog.update(tasks[other], visible=False)
                tasks[key] = prog.add_task(key, total=None, mb="", of="", unit=UNITS.get(stage, ""))
                held[key] = [0, 0, 0.0, 0]
            if total is not None:
                prog.update(tasks[key], total=total, of=f"/{total:,}")
            h = held[key]
            h[0] += n
            h[1] += b
            if now - h[2] >= REDRAW or total is not None:
                show(key, now)
        return cb

    return prog, for_runtime


def time_line(timings: dict[str, float]) -> str:
    """A run's stage times on one line; greps that ran beside the walk say so (that part of
    their time is inside the walk's, not after it)."""
    beside = timings.get("greps_beside_walk")
    return " · ".join(f"{k} {v:.2f}s" + (f" ({beside:.2f}s of it beside the walk)" if k == "greps" and beside else "")
                      for k, v in timings.items() if k != "greps_beside_walk")


@app.command(epilog="""
**Examples**

    survey run                                  # every runtime whose default root exists
    survey run --demo                           # the bundled demo corpus (generated, seeded)
    survey run -r cursor --root ~/.cursor/projects --sample 350 --seed 1
    survey run --root ~/.codex/sessions          # -r found from the root's files
    survey -q run -r cursor --root ../shared/corpora/cursor/projects --reports samples --json
""")
def run(
    runtime: RuntimeOpt = None,
    root: Annotated[Path | None, typer.Option(help="Corpus root (one runtime only).")] = None,
    demo: Annotated[bool, typer.Option(help="Survey the generated demo corpus (.demo/).")] = False,
    or_demo: Annotated[bool, typer.Option("--or-demo", help="Use the demo corpus for runtimes with no root here.")] = False,
    sample: Annotated[int | None, typer.Option(help="Walk a stratified-by-mtime sample of N files (greps still cover all).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    stratum: Annotated[Stratum, typer.Option(help="Stratum of the sample and the inventory: files' mtime month, day, quarter or year.")] = Stratum.month,
    date: Annotated[str | None, typer.Option(help="Snapshot name (default: today, UTC).")] = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    reports: Annotated[Path, typer.Option(help="Where pages are written.")] = Path("reports"),
    mode: Annotated[Mode, typer.Option(help="reviewed: only reviewed vocabulary reaches the page; discover: a local-only, UNREVIEWED report under discover/.")] = Mode.reviewed,
    allow_mcp_names: Annotated[bool, typer.Option(help="Let MCP server and tool names through the gate.")] = False,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: cores).")] = None,
    on_exists: Annotated[OnExists, typer.Option(help="If the snapshot exists: refuse; reuse it (same corpus fingerprint); suffix (a new name, `<date>.2`); auto (reuse, else suffix).")] = OnExists.refuse,
    strict: Annotated[bool, typer.Option(help="Exit 3 if any problem was counted, the two grep engines disagreed or "
                                                "no file was on a surface the runtime walks (for CI).")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Read every file again and run every census query: no walk or grep cache, no kept census.")] = False,
    min_files: Annotated[int | None, typer.Option(help="Keys seen in fewer files become `<rare-key>` (default 1 reviewed, 3 discover).")] = None,
    no_charts: NoChartsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Crawl, walk, census, grep and render: one dated snapshot per runtime, one page each.

    With `--root` and no `-r`, the runtime is the one whose files the root holds (said on
    stderr); a root that fits two asks for `-r`.
    """
    from survey.census.pool import prestart
    from survey.options import OptionError, run_folders

    stratum_, mode_, on_exists_ = stratum.value, mode.value, on_exists.value
    # the most relevant error first: an unknown runtime before anything about folders
    profiles = _profiles(runtime)
    if root is not None and len(profiles) != 1:
        if runtime:
            fail("--root needs exactly one --runtime", 2)
        profiles = [_detect(root, profiles)]
    # before a worker starts or anything is crawled (run_survey checks them again)
    _check(sample_n=sample, stratum=stratum_, mode=mode_, jobs=jobs, on_exists=on_exists_, min_files=min_files,
           date=date, folders=run_folders(snapshots, reports, not no_cache), root=root)
    prestart(jobs, [p.name for p in profiles], not no_cache)  # the walk's fork server imports beside the survey's own (pool.py)
    from survey.pipeline import run_survey
    from survey.render.index import render_index
    from survey.synth.demo import demo_root, ensure_demo

    if mode_ == "discover":
        # Discover mode never writes where committed, shared output lives.
        snapshots, reports = Path("discover/snapshots"), Path("discover/reports")
    from survey.native import ENGINE

    if VERBOSITY[0] > 0 or ENGINE != "native":  # (the fallback is said once a run: slower, same tables)
        note(f"walker: {ENGINE}")
    results = []
    prog, cb = _progress()
    if prog:
        prog.start()
    try:
        for p in profiles:
            where = root
            if where is None and demo:
                where = ensure_demo(p.name)
            if where is None:
                where = _default_root(p)
            if where is None and or_demo:
                where = ensure_demo(p.name)
                note(f"{p.name}: no root on this machine; using the demo corpus ({demo_root(p.name)})")
            if where is None:
                if runtime:
                    fail(f"{p.name}: no root found ({', '.join(p.default_roots)}); pass --root or --demo", 2)
                continue
            try:
                res = run_survey(p, where, snapshots=snapshots, reports=reports, date=date, sample_n=sample,
                                 seed=seed, stratum=stratum_, mode=mode_, allow_mcp=allow_mcp_names,
                                 jobs=jobs, on_exists=on_exists_, progress=cb(p.name) if cb else None,
                                 cache=not no_cache, min_files=min_files, charts=not no_charts)
            except Exception as exc:  # (any other is the tool's own failure: exit 1, never 2)
                from survey.corpus.privacy import SaltError
                from survey.snapshot.store import SnapshotExists

                if isinstance(exc, SnapshotExists):
                    fail(str(exc), 1)
                if isinstance(exc, (SaltError, OptionError)):
                    fail(str(exc), 2)
                raise
            if VERBOSITY[0] > 0 and res.timings:
                note(f"{p.name}: {time_line(res.timings)}")
            results.append(res)
    finally:
        if prog:
            prog.stop()
    if not results:
        fail("no runtime root found on this machine; pass --root, or --demo / --or-demo", 2)
    from survey.render.index import latest_snapshots

    index = (render_index(latest_snapshots(snapshots, [Path(r.snapshot) for r in results]), reports / "index.md")
             if len(results) > 1 or mode_ == "reviewed" else None)
    if json:
        emit_json({"results": [r.to_json() for r in results], "index": str(index) if index else None})
    else:
        for r in results:
            t = Table(title=f"{r.runtime}{' (fixture corpus)' if r.fixture else ''}{' (reused snapshot)' if r.reused else ''}",
                      show_header=False, title_justify="left")
            t.add_row("snapshot", r.snapshot)
            t.add_row("page", r.page or "-")
            t.add_row("files", f"{r.files:,} ({r.bytes / 1e6:,.1f} MB), walked {r.walked_files:,}, frames {r.frames:,}")
            if r.cache:
                t.add_row("cache", f"{r.cache.get('cache_hits', 0):,} files reused, {r.cache.get('walked', 0):,} read")
                if "census_reused" in r.cache:
                    t.add_row("census", f"taken from the cache: {r.cache['census_reused']:,} queries, nothing "
                                        "they read changed since the last run")
                elif "census_parts_read" in r.cache:
                    errors = sum(r.cache.get("census_store_errors", {}).values())
                    t.add_row("census parts", f"{r.cache['census_parts_kept']:,} served from the cache, "
                              f"{r.cache['census_parts_read']:,} read (over the split queries)"
                              + (f"; {errors} cache file(s) unreadable or unwritable, read again" if errors else ""))
                elif "census_whole" in r.cache:
                    t.add_row("census parts", f"none kept: every query run whole ({r.cache['census_whole']})")
                t.add_row("walker", str(r.cache.get("walker", "")))
            if r.root_check:
                t.add_row("[yellow]root[/yellow]", r.root_check["message"])
            t.add_row("problems", ", ".join(f"{k} {v}" for k, v in r.problems.items()) or "none")
            for cls, ids in r.problem_files.items():
                t.add_row(f"  {cls}", "e.g. " + ", ".join(ids))
            if r.disagreements:
                t.add_row("[red]DISAGREEMENTS[/red]", ", ".join(r.disagreements))
            if r.timings:
                t.add_row("time", time_line(r.timings))
            out.print(t)
        if index:
            out.print(f"index: {index}")
    if strict and any(r.problems or r.disagreements or r.root_check for r in results):
        raise typer.Exit(3)


@app.command(epilog="""
**Examples**

    survey crawl -r cursor --root ~/.cursor/projects
    survey crawl -r claude_code --root ~/.claude/projects --out /tmp/inventory --json
""")
def crawl(
    runtime: Annotated[str, typer.Option("--runtime", "-r", help="Runtime profile.")] = "cursor",
    root: Annotated[Path | None, typer.Option(help="Corpus root (default: the runtime's).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Write the inventory Parquet here (hive by stratum).")] = None,
    stratum: Annotated[Stratum, typer.Option(help="Partition the inventory by files' mtime month, day, quarter or year.")] = Stratum.month,
    json: JsonOpt = False,
) -> None:
    """Inventory every file of a root (stat only, read-only): counts by surface and problem."""
    import polars as pl

    from survey.corpus.crawl import crawl as do_crawl
    from survey.corpus.rootcheck import check_inventory

    (p,) = _profiles([runtime])
    _check(stratum=stratum.value)
    r = root or _default_root(p)
    if r is None or not r.is_dir():
        fail(f"{p.name}: no root (pass --root)", 2)
        return
    inv = do_crawl(r, p, _salt(), stratum.value)
    check = check_inventory(p, r, inv)
    if out_dir:
        inv.frame.write_parquet(out_dir, partition_by="stratum")
    by_surface = dict(inv.frame.group_by("surface").agg(pl.len()).sort("surface").iter_rows())
    problems = dict(inv.frame.filter(pl.col("problem").is_not_null()).group_by("problem").len().iter_rows())
    strata = dict(inv.frame.group_by("stratum").len().sort("stratum").iter_rows())
    result = {"runtime": p.name, "files": inv.frame.height, "bytes": int(inv.frame["size"].sum() or 0),
              "by_surface": by_surface, "problems": problems, "strata": strata,
              "root_check": check.to_json() if check else None, "out": str(out_dir) if out_dir else None}
    if json:
        emit_json(result)
        return
    t = Table("surface", "files", title=f"{p.name}: {result['files']:,} files, {result['bytes'] / 1e6:,.1f} MB")
    for k, v in by_surface.items():
        t.add_row(k, f"{v:,}")
    out.print(t)
    out.print("problems: " + (", ".join(f"{k} {v}" for k, v in problems.items()) or "none"))
    out.print("strata: " + ", ".join(f"{k} {v}" for k, v in strata.items()))
    if check:
        out.print(f"[yellow]root:[/yellow] {check.message()}")


@app.command(epilog="""
**Examples**

    survey render snapshots/2026-12-02/cursor
    survey render 2026-12-02 -r cursor --reports /tmp/pages
""")
def render(
    snapshot: Annotated[str, typer.Argument(help="Snapshot folder, or `<date>[/<runtime>]`.")],
    runtime: Annotated[str | None, typer.Option("--runtime", "-r", help="Runtime, when SNAPSHOT is a date.")] = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    reports: Annotated[Path, typer.Option(help="Where the page is written.")] = Path("reports"),
    no_charts: NoChartsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Render a runtime's page from a snapshot alone (no corpus is opened)."""
    from survey.render.render import render_page
    from survey.snapshot.store import find, load_json

    if runtime:
        _profiles([runtime])  # (an unknown runtime is said first)

    _check(folders={"--reports": reports})
    try:
        snap = find(snapshots, snapshot, runtime)
    except FileNotFoundError as exc:
        fail(str(exc), 2)
        return
    m = load_json(snap, "manifest")
    page = render_page(snap, reports / f"{m['runtime']}.md", charts=not no_charts)
    if json:
        emit_json({"snapshot": str(snap), "page": str(page)})
    else:
        out.print(f"page: {page}")


@app.command(epilog="""
**Examples**

    survey recheck 2026-12-02 -r cursor --root ~/.cursor/projects      # every file the snapshot walked
    survey recheck snapshots/2026-12-02/cursor --root ~/.cursor/projects --sample 60 --seed 11
    survey recheck 2026-12-02 -r cursor --root ~/.cursor/projects --since 2026-09-01 --json
""")
def recheck(
    snapshot: Annotated[str, typer.Argument(help="Snapshot folder, or `<date>[/<runtime>]`.")],
    root: Annotated[Path, typer.Option(help="The corpus root the snapshot was taken from.")],
    runtime: Annotated[str | None, typer.Option("--runtime", "-r", help="Runtime, when SNAPSHOT is a date.")] = None,
    sample: Annotated[int | None, typer.Option(min=1, help="Re-read a random sample of N of the files the snapshot walked "
                                                     "(default: all of them; a sample checks totals as bounds).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the fresh sample (default: snapshot seed + 1).")] = None,
    since: Annotated[str | None, typer.Option(help="Only files modified since this date (YYYY-MM-DD).")] = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    reports: Annotated[Path, typer.Option(help="Re-render the page here with the verdicts.")] = Path("reports"),
    no_charts: NoChartsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Re-verify headline claims by an independent code path, on the files the snapshot walked; store verdicts beside it."""
    from survey.evidence.recheck import NoRecheck, NotComparable
    from survey.evidence.recheck import recheck as do_recheck
    from survey.render.render import render_page
    from survey.snapshot.store import find

    if runtime:
        _profiles([runtime])  # (an unknown runtime is said first)

    try:
        snap = find(snapshots, snapshot, runtime)
    except FileNotFoundError as exc:
        fail(str(exc), 2)
        return
    if not root.is_dir():
        fail("--root is not a folder", 2)
    if since is not None:
        import datetime as dt

        try:
            dt.date.fromisoformat(since)
        except ValueError:
            fail(f"--since is a date, YYYY-MM-DD (got {since!r})", 2)
    # before the verdicts are kept beside the snapshot
    _check(folders={"--reports": reports, "the snapshot": snap}, root=root)
    from survey.evidence.recheck import RECHECKS
    from survey.snapshot.store import load_json

    of = (load_json(snap, "manifest") or {}).get("runtime")
    if of not in RECHECKS:  # (a usage error: one line, not a failure inside)
        fail(f"{of}: no independent re-check for this runtime (there is one for {', '.join(sorted(RECHECKS))})", 2)
    try:
        result = do_recheck(snap, root, sample=sample, seed=seed, since=since, salt=_salt())
    except (NotComparable, NoRecheck) as exc:
        fail(str(exc), 2)
        return
    page = render_page(snap, reports / f"{result['runtime']}.md", charts=not no_charts)
    if json:
        emit_json({**result, "page": str(page)})
    else:
        if result["root_matches_snapshot"] is False:
            err.print("[yellow]warning:[/yellow] this root is not the one the snapshot was taken from (pseudonyms differ)")
        for v in result["verdicts"]:
            colour = "green" if v["verdict"] == "agrees" else "red"
            out.print(f"[{colour}]{v['verdict']:>9}[/{colour}] {v['claim']}: {v['detail']} ({v['scope']}; {v['comparison']})",
                      markup=True, highlight=False)
        out.print(f"page: {page}", highlight=False)
        if result["disagreements"]:
            out.print(f"reproduce: {result['command']}", markup=False, highlight=False, soft_wrap=True)
    if result["disagreements"]:
        raise typer.Exit(3)


@app.command(epilog="""
**Examples**

    survey diff 2026-09-18 2026-12-02 -r cursor
    survey diff snapshots/2026-09-18/cursor snapshots/2026-12-02/cursor --out drift.md
    survey diff 2026-09-18 2026-12-02 -r cursor --fail-on-drift --json
""")
def diff(
    old: Annotated[str, typer.Argument(help="Older snapshot (folder or `<date>`).")],
    new: Annotated[str, typer.Argument(help="Newer snapshot (folder or `<date>`).")],
    runtime: Annotated[str | None, typer.Option("--runtime", "-r", help="Runtime, when given dates.")] = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    out_file: Annotated[Path | None, typer.Option("--out", help="Also write the Markdown report here.")] = None,
    fail_on_drift: Annotated[bool, typer.Option(help="Exit 3 when a shape or value appeared or vanished, an absence flipped or a statement changed; names what (for CI).")] = False,
    json: JsonOpt = False,
) -> None:
    """Compare two snapshots of one runtime: scope first, then flipped absences, key sets and values that came or went, shifts."""
    from survey.snapshot.diff import RuntimeMismatch, to_markdown
    from survey.snapshot.diff import diff as do_diff
    from survey.snapshot.store import find

    if runtime:
        _profiles([runtime])  # (an unknown runtime is said first)

    if out_file is not None:
        if out_file.is_dir():
            fail(f"--out names a folder, not a file ({out_file})", 2)
        _check(folders={"--out's folder": out_file.parent})
    try:
        a, b = find(snapshots, old, runtime), find(snapshots, new, runtime)
    except FileNotFoundError as exc:  # (no such snapshot: a usage error; a failure inside it is not)
        fail(str(exc), 2)
        return
    try:
        d = do_diff(a, b)
    except RuntimeMismatch as exc:  # two runtimes' snapshots
        fail(str(exc), 2)
        return
    md = to_markdown(d)
    if out_file:
        from survey.cachedir import write_atomic

        write_atomic(out_file, md.encode())
    if json:
        emit_json(d.to_json())
    else:
        from rich.markdown import Markdown

        out.print(Markdown(md))
    if d.scope_differences and not json:
        err.print("[yellow]note:[/yellow] the two snapshots differ in scope: "
                  + ", ".join(s["what"] for s in d.scope_differences))
    if fail_on_drift and d.drifted:
        if not json:  # (--json: the summary is in the JSON)
            err.print(d.summary(), markup=False, highlight=False)
        raise typer.Exit(3)


class Engine(StrEnum):
    """``merge.engines.ENGINES``."""

    duckdb = "duckdb"
    spark = "spark"


@app.command(epilog="""
**Examples**

    survey merge fleet/*/2026-12-01/cursor                      # -> snapshots/<today>/cursor-merged
    survey merge fleet/ --out snapshots/2026-12-01/cursor-merged  # every snapshot under fleet/
    survey merge a/cursor b/cursor c/cursor --min-machines 2 --reports pages
    survey merge fleet/ -r codex --engine spark --json          # Spark in local mode (pip install 'survey[spark]', Java 17)
""")
def merge(
    sources: Annotated[list[Path], typer.Argument(help="Snapshot folders, one per machine, or folders holding them (searched below).")],
    runtime: Annotated[str | None, typer.Option("--runtime", "-r", help="Only the snapshots of this runtime, where a folder holds several.")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="The merged snapshot's folder (default: `<snapshots>/<date>/<runtime>-merged`).")] = None,
    min_machines: Annotated[int, typer.Option("--min-machines", help="Name a key, value or shape only when this many machines saw it; below, it is counted.")] = 3,
    engine: Annotated[Engine, typer.Option("--engine", help="What runs the merge's SQL: DuckDB, or Spark in local mode.")] = Engine.duckdb,
    snapshots: SnapDirOpt = Path("snapshots"),
    date: Annotated[str | None, typer.Option(help="The merged snapshot's date (default: today, UTC).")] = None,
    reports: Annotated[Path | None, typer.Option(help="Where the merged page `<runtime>-merged.md` is written.")] = Path("reports"),
    no_page: Annotated[bool, typer.Option("--no-page", help="Write the merged snapshot, no page.")] = False,
    no_charts: NoChartsOpt = False,
    json: JsonOpt = False,
) -> None:
    """Merge the snapshots of one runtime from many machines into one snapshot and page: counts summed, what fewer than `--min-machines` machines saw counted, never named."""
    from survey.merge.engines import EngineMissing
    from survey.merge.merge import MergeRefused, find_snapshots
    from survey.merge.merge import merge as do_merge
    from survey.snapshot.store import SnapshotExists

    if runtime:
        _profiles([runtime])
    if min_machines < 1:
        fail(f"--min-machines must be 1 or more (got {min_machines})", 2)
    try:
        snaps, rt = find_snapshots(sources, runtime)
    except MergeRefused as exc:
        fail(str(exc), 2)
        return
    from survey.pipeline import today

    when = date or today()
    target = out_dir if out_dir is not None else snapshots / when / f"{rt}-merged"
    _check(date=when, folders={"--out's folder": target.parent,
                               **({"--reports": reports} if reports is not None and not no_page else {})})
    try:
        res = do_merge(snaps, target, min_machines=min_machines, engine=engine.value, date=when,
                       reports=None if no_page else reports, charts=not no_charts)
    except (MergeRefused, EngineMissing) as exc:
        fail(str(exc), 2)
        return
    except SnapshotExists as exc:
        fail(str(exc), 1)
        return
    if json:
        emit_json(res.to_json())
        return
    m = res.masked
    out.print(f"{res.runtime}: {res.machines} machines, {res.files:,} files merged on {res.engine} -> {res.snapshot}",
              markup=False, highlight=False)
    out.print(f"seen on fewer than {res.min_machines} machines, counted not named: {m['keys']} keys, "
              f"{m['values']} values, {m['shapes']} key sets", markup=False, highlight=False)
    if res.page:
        out.print(f"page: {res.page}", markup=False, highlight=False)


def _demo_history(p: Profile, snapshots: Path) -> list[str]:
    """The demo's dated snapshots of ``p`` (its planted history's epochs), each taken of the
    demo corpus as it stood at the epoch's end, where missing; the demo is then whole again.
    The snapshots' names."""
    import shutil

    from survey.pipeline import run_survey
    from survey.snapshot.store import complete
    from survey.synth.demo import demo_epochs, demo_root, ensure_demo, write_demo

    epochs = demo_epochs(p.name)
    if not epochs or all(complete(snapshots / e["snapshot"] / p.name) for e in epochs):
        return []
    root, made = demo_root(p.name), []
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for i, e in enumerate(epochs):
        write_demo(root, p.name, upto=i)
        if not complete(snapshots / e["snapshot"] / p.name):
            run_survey(p, root, snapshots=snapshots, reports=None, date=e["snapshot"], on_exists="auto")
            made.append(e["snapshot"])
    ensure_demo(p.name, fresh=True)
    return made


@app.command(epilog="""
**Examples**

    survey history -r codex                     # reports/codex-history.md and codex-history.svg
    survey history                              # every runtime with more than one snapshot
    survey history --or-demo                    # first the demo's dated snapshots, where a runtime has no root here
    survey history -r codex --snapshots /data/snapshots --reports /tmp/pages --json
""")
def history(
    runtime: RuntimeOpt = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    reports: Annotated[Path, typer.Option(help="Where `<runtime>-history.md` and its chart are written.")] = Path("reports"),
    or_demo: Annotated[bool, typer.Option("--or-demo", help="For runtimes with no root here, first take the demo "
                                                             "corpus's dated snapshots (as it stood at each planted "
                                                             "date) where missing.")] = False,
    json: JsonOpt = False,
) -> None:
    """A runtime's format across its dated snapshots: when each key set, value, record class, version and verdict first and last appeared.

    Without `-r`, every runtime with more than one snapshot. Snapshots of another scope are
    marked; one of another root is listed, never in the timeline.
    """
    from survey.render.history import NoSnapshots, render_history, snapshots_of

    profiles = _profiles(runtime)
    _check(folders={"--reports": reports})
    made: dict[str, list[str]] = {}
    if or_demo:
        for p in profiles:
            if p.default_root() is None:
                got = _demo_history(p, snapshots)
                if got:
                    made[p.name] = got
                    note(f"{p.name}: took the demo corpus's snapshots of {', '.join(got)}")
    results, skipped = [], {}
    for p in profiles:
        n = len(snapshots_of(snapshots, p.name))
        if not runtime and n < 2:
            skipped[p.name] = f"{n} snapshot(s): a history needs more than one"
            continue
        try:
            results.append(render_history(snapshots, p.name, reports))
        except NoSnapshots as exc:
            fail(str(exc), 2)
    if json:
        emit_json({"histories": results, "skipped": skipped, "demo_snapshots": made})
        return
    for r in results:
        out.print(f"{r['runtime']}: {len(r['timeline'])} snapshots in the timeline "
                  f"({r['timeline'][0]} to {r['timeline'][-1]}"
                  + (f"; {len(r['marked'])} of another scope, marked" if r["marked"] else "")
                  + (f"; {len(r['snapshots']) - len(r['timeline'])} of another root, listed apart"
                     if len(r["snapshots"]) > len(r["timeline"]) else "")
                  + (f"; {len(r['unreadable'])} unreadable, left out" if r["unreadable"] else "") + ")",
                  highlight=False, soft_wrap=True)
        out.print(f"page: {r['page']}\nchart: {r['chart']}", highlight=False, soft_wrap=True, markup=False)
    if not results:
        out.print("no runtime has more than one snapshot under "
                  f"{snapshots}: nothing to show (" + "; ".join(f"{k}: {v}" for k, v in skipped.items()) + ")",
                  highlight=False)


@contextlib.contextmanager
def _synth_progress(runtime: str, root: Path, total: int | None):
    """A bar of the bytes written so far (a percent and time left with ``--target-mb``),
    from a thread that sums the folder's file sizes once a second, outside the generator. A
    sum that takes more than a tenth of a second (a very large tree) stops the counting: the
    bar then shows the time only."""
    import threading

    prog, for_runtime = _progress()
    if prog is None or for_runtime is None:
        yield
        return
    cb, stop = for_runtime(runtime), threading.Event()

    def poll() -> None:  # (counted in whole MB)
        cb("synth", 0, 0, None if total is None else max(1, round(total / 1e6)))
        seen = 0
        while not stop.wait(1.0):
            t0 = time.monotonic()
            now = round(_folder_bytes(root) / 1e6)
            cb("synth", now - seen, 0)
            seen = now
            if time.monotonic() - t0 > 0.1:
                return

    prog.start()
    th = threading.Thread(target=poll, name="survey-synth-progress", daemon=True)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join()
        prog.stop()


@app.command(epilog="""
**Examples**

    survey synth cursor /tmp/corpus --seed 7
    survey synth claude_code /tmp/cc --target-mb 100
    survey synth cursor /tmp/canary --canaries --json
    survey synth codex /tmp/history --timeline --seed 3
""")
def synth(
    runtime: Annotated[str, typer.Argument(help="Runtime to generate (see `survey runtimes`).")],
    root: Annotated[Path, typer.Argument(help="Empty folder to write the corpus into.")],
    seed: Annotated[int, typer.Option(help="Seed: same seed, same bytes.")] = 7,
    sessions: Annotated[int | None, typer.Option(min=1, help="Number of sessions (default: small).")] = None,
    target_mb: Annotated[float | None, typer.Option(help="Keep generating until this many MB.")] = None,
    canaries: Annotated[bool, typer.Option(help="Plant canary tokens everywhere private data could be.")] = False,
    timeline: Annotated[bool, typer.Option(help="Write the store as a client writes it over time: a seeded sequence "
                                                 "of client versions, each drifting the format (codex).")] = False,
    json: JsonOpt = False,
) -> None:
    """Generate a seeded synthetic corpus in a runtime's native layout; print what was planted."""
    from survey.synth.demo import generator

    try:
        gen = generator(runtime)
    except KeyError as exc:  # an unknown runtime, or one without a generator
        fail(str(exc.args[0]), 2)
        raise
    if timeline:
        from survey.synth.demo import TIMELINES
        from survey.synth.marker import mark
        from survey.synth.timeline import generate as timeline_gen

        if runtime not in TIMELINES:
            fail(f"--timeline writes {', '.join(sorted(TIMELINES))} only (got {runtime})", 2)

        def gen(root: Path, *, seed: int = 7, **kw: Any) -> dict:
            planted = timeline_gen(root, seed=seed, **kw)
            mark(root, runtime, seed)
            return planted
    if target_mb is not None and not target_mb > 0:
        fail(f"--target-mb must be more than 0 (got {target_mb})", 2)
    if root.exists() and not root.is_dir():
        fail(f"{root} is not a folder: generate into an empty folder", 2)
    if root.exists() and any(root.iterdir()):
        fail(f"{root} is not empty: generate into an empty folder", 2)
    with _synth_progress(runtime, root, int(target_mb * 1e6) if target_mb else None):
        planted = gen(root, seed=seed, sessions=sessions,
                      target_bytes=int(target_mb * 1e6) if target_mb else None, canaries=canaries)
    if json:
        emit_json(planted)
    else:
        out.print(synth_summary(runtime, root, planted))


def synth_summary(runtime: str, root: Path, planted: dict) -> str:
    """``synth``'s two lines: the bytes written, and the files (a count per kind, or one
    count: a store runtime's generators count their files as one number)."""
    files = planted.get("files")
    if isinstance(files, dict):
        kinds = ", ".join(f"{k} {v:,}" for k, v in files.items() if isinstance(v, int))
    elif isinstance(files, int):
        kinds = f"{files:,}"
    else:
        kinds = "-"
    return f"{runtime}: wrote {planted.get('bytes_total', 0) / 1e6:,.1f} MB under {root}\nfiles: {kinds}"


@app.command(epilog="""
**Examples**

    survey demo                 # (re)generate .demo/ for every runtime
    survey demo -r cursor --json
""")
def demo(runtime: RuntimeOpt = None, json: JsonOpt = False) -> None:
    """Generate the bundled demo corpus (seeded, deterministic) under .demo/."""
    from survey.synth.demo import ensure_demo

    roots = {p.name: str(ensure_demo(p.name, fresh=True)) for p in _profiles(runtime)}
    if json:
        emit_json(roots)
    else:
        for k, v in roots.items():
            out.print(f"{k}: {v}")


@app.command(epilog="""
**Examples**

    survey run -r cursor --mode discover          # writes discover/candidates-cursor.json
    survey vocab discover/candidates-cursor.json  # show the proposed additions
    survey vocab discover/candidates-cursor.json --min-files 3 --accept
""")
def vocab(
    candidates_file: Annotated[Path, typer.Argument(help="A discover-mode candidates file.")],
    min_files: Annotated[int, typer.Option(help="Propose only what occurs in at least N files.")] = 1,
    accept: Annotated[bool, typer.Option(help="Write the proposal into the runtime's shipped vocab.json.")] = False,
    json: JsonOpt = False,
) -> None:
    """Turn a discover-mode report into a proposed reviewed-vocabulary change."""
    from survey.snapshot.vocab import propose, vocab_path

    try:
        cands = orjson.loads(candidates_file.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        fail(f"cannot read candidates file: {type(exc).__name__}", 2)
        return
    try:
        proposed, added = propose(cands, min_files)
    except ValueError as exc:
        fail(str(exc), 2)
        return
    target = vocab_path(cands["runtime"])
    if accept:
        target.write_bytes(orjson.dumps(proposed, option=orjson.OPT_INDENT_2) + b"\n")
    if json:
        emit_json({"runtime": cands["runtime"], "added": added, "accepted": accept, "vocab": str(target)})
        return
    out.print(f"[bold]{cands['runtime']}[/bold]: {len(added['keys'])} keys, "
              f"{sum(len(v) for v in added['values'].values())} values proposed (min files {min_files})")
    for k in added["keys"]:
        out.print(f"  + key   {k}")
    for p, vs in added["values"].items():
        for v in vs:
            out.print(f"  + value {p} = {v}")
    out.print(f"written to {target}" if accept else "review, then re-run with --accept to write it")


@app.command(epilog="""
**Examples**

    survey runtimes
    survey runtimes --json
""")
def runtimes(json: JsonOpt = False) -> None:
    """List the runtime profiles: default roots, surfaces, probes."""
    result = []
    for p in _profiles(None):
        result.append({"name": p.name, "title": p.title, "default_roots": list(p.default_roots),
                       "env": list(p.env_roots), "surfaces": [s.name for s in p.surfaces],
                       "probes": [pr.id for pr in p.probes], "root_here": str(p.default_root() or "")})
    if json:
        emit_json(result)
        return
    t = Table("runtime", "default roots", "surfaces", "probes", "root here")
    for r in result:
        t.add_row(r["name"], ", ".join(r["default_roots"]), ", ".join(r["surfaces"]), str(len(r["probes"])),
                  r["root_here"] or "-")
    out.print(t)


@app.command(epilog="""
**Examples**

    survey locate f-c8028d240ac02ec5 -r cursor --root ~/.cursor/projects
    survey locate f-c8028d240ac02ec5 f-8438ceb258f22746 --root ~/.cursor/projects --json
""")
def locate(
    pseudonyms: Annotated[list[str], typer.Argument(help="File pseudonyms (f-…) from a page, snapshot or run summary.")],
    root: Annotated[Path, typer.Option(help="The corpus root they came from.")],
    runtime: Annotated[str, typer.Option("--runtime", "-r", help="Runtime profile.")] = "cursor",
    json: JsonOpt = False,
) -> None:
    """Map pseudonyms back to files, on this machine only (the salt never leaves it).

    This is the one command that prints corpus paths, because you ask it to: its output is for
    your terminal, never for a page, snapshot or shared log.
    """
    from survey.corpus.crawl import crawl as do_crawl
    from survey.corpus.privacy import SaltError, load_salt

    (p,) = _profiles([runtime])
    if not root.is_dir():
        fail("--root is not a folder", 2)
    try:
        salt = load_salt(create=False)
    except FileNotFoundError:
        fail("no survey salt on this machine: pseudonyms made elsewhere cannot be mapped back here", 2)
        return
    except SaltError as exc:
        fail(str(exc), 2)
        return
    inv = do_crawl(root, p, salt, "month")
    found = dict(zip(pseudonyms, inv.paths_of(pseudonyms), strict=True))
    if json:
        try:
            emit_json(found)
        except TypeError:  # a name that is not UTF-8 (lone surrogates): JSON's \udcXX escapes
            import json as json_module

            sys.stdout.write(json_module.dumps(found, indent=2) + "\n")
        return
    # plain write, the name's own bytes: no wrapping, no markup read into a path
    sys.stdout.flush()
    for f, rel in found.items():
        sys.stdout.buffer.write(f.encode() + b"  " + (os.fsencode(rel) if rel else
                                b"(not found under this root with this machine salt)") + b"\n")
    sys.stdout.buffer.flush()


@app.command(epilog="""
**Examples**

    survey version
    survey version --json     # with the engines a bug report needs
""")
def version(json: JsonOpt = False) -> None:
    """Print the tool version (with --json: also Python's, DuckDB's, polars', rg's and the walker's)."""
    if not json:
        out.print(__version__)
        return
    import platform
    import subprocess

    import duckdb
    import polars as pl

    from survey.evidence.grep.commands import rg_binary
    from survey.native import ENGINE

    try:
        rg = subprocess.run([rg_binary(), "--version"], capture_output=True, text=True, timeout=10).stdout.split("\n")[0]
    except (OSError, RuntimeError, subprocess.SubprocessError):  # (RuntimeError: no rg at all)
        rg = None
    emit_json({"survey": __version__, "python": platform.python_version(), "duckdb": duckdb.__version__,
               "polars": pl.__version__, "rg": rg, "walker": ENGINE})


# -- exports for parser authors: schema, validate, fixtures, audit --------------------------

def _export_snapshot(date: str | None, runtime: str | None, snapshots: Path) -> Path:
    """The snapshot a command reads: ``date`` (a folder, ``<date>`` or ``<date>/<runtime>``), or the
    newest one of ``runtime``; a usage error where there is none."""
    from survey.export.schema import latest
    from survey.snapshot.store import find

    try:
        if date is None:
            if runtime is None:
                fail("say which runtime (-r) or which snapshot (DATE)", 2)
            return latest(snapshots, runtime or "")
        return find(snapshots, date, runtime)
    except FileNotFoundError as exc:
        fail(str(exc), 2)
        raise


RootReq = Annotated[Path, typer.Option(help="The corpus root (read only; nothing is written there).")]
DateArg = Annotated[str | None, typer.Argument(help="Snapshot folder, or `<date>[/<runtime>]` (default: the newest).")]
RuntimeOne = Annotated[str | None, typer.Option("--runtime", "-r", help="Runtime profile.")]


@app.command(epilog="""
**Examples**

    survey schema -r cursor                     # newest cursor snapshot -> reports/cursor.schema.json
    survey schema 2026-12-02 -r codex --reports /tmp/schemas
    survey schema snapshots/2026-12-02/claude_code --json
""")
def schema(
    date: DateArg = None,
    runtime: RuntimeOne = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    reports: Annotated[Path, typer.Option(help="Where `<runtime>.schema.json` is written.")] = Path("reports"),
    json: JsonOpt = False,
) -> None:
    """Write a JSON Schema (2020-12) of a runtime's records, derived from a snapshot alone."""
    from survey.export.schema import write_schema

    _check(folders={"--reports": reports})
    snap = _export_snapshot(date, runtime, snapshots)
    result = write_schema(snap, reports)
    if json:
        emit_json(result)
        return
    out.print(f"{result['runtime']}: {len(result['classes'])} record classes, {result['properties']:,} properties"
              f"{'' if result['discriminated'] else ' (some classes not told apart by a field: anyOf)'}")
    out.print(f"schema: {result['schema']}")


@app.command(epilog="""
**Examples**

    survey validate -r cursor --root ~/.cursor/projects
    survey validate 2026-12-02 -r codex --root ~/.codex/sessions --json
    survey validate 2026-12-02 -r claude_code --root ~/.claude/projects --strict
""")
def validate(
    root: RootReq,
    date: DateArg = None,
    runtime: RuntimeOne = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    strict: Annotated[bool, typer.Option(help="Exit 3 if any record does not validate.")] = False,
    json: JsonOpt = False,
) -> None:
    """Validate every record under --root against the schema derived from its snapshot; keep the counts beside it."""
    from survey.export.validate import validate as do_validate

    if not root.is_dir():
        fail("--root is not a folder", 2)
    snap = _export_snapshot(date, runtime, snapshots)
    _check(folders={"the snapshot": snap}, root=root)
    result = do_validate(snap, root, _salt())
    if json:
        emit_json(result)
    else:
        if result["root_matches_snapshot"] is False:
            err.print("[yellow]warning:[/yellow] this root is not the one the snapshot was taken from (pseudonyms differ)")
        colour = "green" if not result["invalid"] else "red"
        out.print(f"[{colour}]{result['claim']}[/{colour}] ({result['files']:,} files, {result['seconds']:.2f}s)")
        for f in result["failures"][:20]:
            out.print(f"  {f['records']:>7,} records, {f['files']:,} files: {f['class']} {f['keyword']} at {f['at']} "
                      f"({f['schema_path']})")
        out.print(f"written: {result.get('written')}")
    if strict and result["invalid"]:
        raise typer.Exit(3)


@app.command(epilog="""
**Examples**

    survey fixtures -r cursor --root ~/.cursor/projects --out fixtures
    survey fixtures -r codex --root ~/.codex/sessions --out fixtures --json
""")
def fixtures(
    runtime: Annotated[str, typer.Option("--runtime", "-r", help="Runtime profile.")],
    root: RootReq,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder the fixtures and MANIFEST.json go into.")] = Path("fixtures"),
    json: JsonOpt = False,
) -> None:
    """Write one scrubbed real record or file per fixture predicate the runtime declares."""
    from survey.export.fixtures import make_fixtures

    (p,) = _profiles([runtime])
    if not root.is_dir():
        fail("--root is not a folder", 2)
    _check(folders={"--out": out_dir}, root=root)
    result = make_fixtures(p, root, _salt(), out_dir)
    if json:
        emit_json(result)
        return
    t = Table("predicate", "matches", "fixture", title=f"{p.name}: {result['records']:,} records in {result['files']:,} files")
    for e in result["predicates"]:
        t.add_row(e["predicate"], f"{e['matches']:,}", e.get("fixture") or "[yellow]not observed[/yellow]")
    out.print(t)
    out.print(f"manifest: {result['manifest']}")


@app.command(epilog="""
**Examples**

    survey audit schemas/cursor-frame.schema.json -r cursor
    survey audit my.schema.json -r codex 2026-12-02 --json
""")
def audit(
    schema_file: Annotated[Path, typer.Argument(help="A hand-written JSON Schema.")],
    date: DateArg = None,
    runtime: RuntimeOne = None,
    snapshots: SnapDirOpt = Path("snapshots"),
    json: JsonOpt = False,
) -> None:
    """Hold a hand-written schema against the census; exit 3 when anything is off."""
    from survey.export.audit import audit as do_audit
    from survey.export.audit import iter_lines

    try:
        doc = orjson.loads(schema_file.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        fail(f"cannot read {schema_file} as JSON: {type(exc).__name__}", 2)
        return
    snap = _export_snapshot(date, runtime, snapshots)
    result = do_audit(doc, snap)
    if json:
        emit_json(result)
    else:
        for line in iter_lines(result):
            out.print(line, markup=False, highlight=False, soft_wrap=True)
        for f in result["findings"][:1]:
            out.print(f"e.g.: {f['command']}", markup=False, highlight=False, soft_wrap=True)
        out.print(f"{len(result['findings'])} findings over {result['documented_paths']} documented paths"
                  + (", ".join(f" {k} {v}" for k, v in result["counts"].items()) and
                     " (" + ", ".join(f"{k} {v}" for k, v in result["counts"].items()) + ")"))
    if result["findings"]:
        raise typer.Exit(3)


cache_app = typer.Typer(help="The survey's cache folder: what it holds, and emptying it.", no_args_is_help=True,
                        rich_markup_mode="markdown", context_settings={"help_option_names": ["-h", "--help"]})
app.add_typer(cache_app, name="cache")


def _folder_bytes(p: Path) -> int:
    total = 0
    for d, _, files in os.walk(p):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(d, f)).st_size
    return total


def _cache_entries(names: list[str] | None) -> list[Path]:
    """The cache folder's entries the survey made: one folder per runtime (its roots'
    walk, grep and census caches, by root pseudonym) and the compiled templates; with
    ``names``, those runtimes' folders only. Anything else there is not the survey's."""
    from survey.cachedir import cache_base
    from survey.runtimes import NAMES

    base = cache_base()
    keep = set(names) if names else {*NAMES, "templates"}
    return sorted(p for p in base.iterdir() if p.name in keep) if base.is_dir() else []


@cache_app.command("info", epilog="""
**Examples**

    survey cache info
    survey cache info --json
""")
def cache_info(json: JsonOpt = False) -> None:
    """Where the cache and the config (the salt) are, and how much each runtime's cache holds."""
    from survey.cachedir import cache_base
    from survey.corpus.privacy import config_dir

    entries: dict[str, dict[str, Any]] = {p.name: {"roots": sum(1 for c in p.iterdir() if c.is_dir() and "." not in c.name)
                        if p.name != "templates" else None,
                        "bytes": _folder_bytes(p)} for p in _cache_entries(None)}
    total = sum(e["bytes"] for e in entries.values())
    result = {"cache": str(cache_base()), "bytes": total,
              "entries": entries, "config": str(config_dir()), "salt": (config_dir() / "salt").is_file()}
    if json:
        emit_json(result)
        return
    out.print(f"cache:  {result['cache']} ({total / 1e6:,.1f} MB; SURVEY_CACHE_DIR moves it)")
    for name, e in entries.items():
        roots = f", {e['roots']} root(s)" if e["roots"] is not None else ""
        out.print(f"  {name}: {e['bytes'] / 1e6:,.1f} MB{roots}")
    out.print(f"config: {result['config']} (salt {'present' if result['salt'] else 'not made yet'}; "
              "SURVEY_CONFIG_DIR moves it)")


@cache_app.command("clean", epilog="""
**Examples**

    survey cache clean              # every runtime's cache and the compiled templates
    survey cache clean -r codex --json
""")
def cache_clean(runtime: RuntimeOpt = None, json: JsonOpt = False) -> None:
    """Empty the cache (the next run reads every file again). Never the salt, a snapshot or a page."""
    import shutil

    names = [p.name for p in _profiles(runtime)] if runtime else None
    gone = {}
    for p in _cache_entries(names):
        gone[p.name] = _folder_bytes(p)
        shutil.rmtree(p, ignore_errors=True)
    if json:
        emit_json({"removed": gone, "bytes": sum(gone.values())})
    else:
        out.print(f"removed {', '.join(gone) or 'nothing'} ({sum(gone.values()) / 1e6:,.1f} MB)")


def main() -> None:  # pragma: no cover
    app()
