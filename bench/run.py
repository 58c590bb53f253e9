"""``python -m bench.run``: the survey side by side with its floors, on the same warm files.

``make bench`` runs it per corpus (generated per runtime and size, or a real ``--root``),
then the incremental figure and a profile of the walk. This module holds the options,
``measure`` (one corpus) and ``main``; the results go to a table on stdout and to
``bench/results/<date>.json``."""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import importlib
import importlib.util
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import orjson

import bench.common as bench_common
import bench.corpora as bench_corpora
import bench.floors as bench_floors
import bench.incremental as bench_incremental
import bench.report as bench_report
import bench.timing as bench_timing
from bench.common import (
    BIG_SIZE,
    CONFIG,
    DEFAULT_SIZES,
    GB,
    MB,
    MEM_LIMIT,
    PROFILE_RUNTIME,
    PROFILE_SIZE,
    QUICK_SIZE,
    REPO,
    RESULTS,
    TARGETS,
    loadavg,
    say,
    timed_step,
    wait_quiet,
)
from bench.corpora import classify, ensure_corpus, list_files, warm
from bench.floors import (
    PARSED_KINDS,
    bare_parse,
    genson_census,
    jq_census,
    probe_literals,
    raw_rg,
    sample_files,
)
from bench.incremental import incremental
from bench.report import (
    _argv_without_root,
    fresh_label,
    machine,
    machine_memory,
    print_tables,
    ratios,
    rescale,
    save,
    scaling,
)
from bench.timing import ChildFailed, child_main, giant_line, run_child

# The bench's parts, and every name of theirs a name of this module too (``bench.run.X``);
# setting one here sets it in every part bound to the same object, so a caller that moves the
# results folder or the config folder (the tests) moves it for every part that uses it.
PARTS = (bench_common, bench_corpora, bench_floors, bench_timing, bench_incremental, bench_report)
for _part in PARTS:
    for _name, _value in vars(_part).items():
        if not _name.startswith("__"):
            globals().setdefault(_name, _value)


class _Module(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name, _Module)
        for part in PARTS:
            if name in vars(part) and vars(part)[name] is old:
                setattr(part, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Module


def measure(runtime: str, label: str, size_mb: int | None, root: Path, args: argparse.Namespace,
            tmp: Path, date: str, jq_cache: dict[str, dict]) -> dict:
    files = classify(root, runtime, list_files(root))
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for p, size, kind in files:
        by_kind.setdefault(kind, []).append((p, size))
    all_bytes = sum(f[1] for f in files)
    parsed_bytes = sum(f[1] for f in files if f[2] in PARSED_KINDS)
    jsonish = by_kind.get("jsonl", []) + by_kind.get("json", [])
    json_bytes = sum(sz for _, sz in jsonish)
    kinds = ", ".join(f"{len(v)} {k}" for k, v in sorted(by_kind.items()))
    say(f"{label}: {len(files)} files ({kinds}), {all_bytes / MB:.1f} MB; warming")
    rec: dict[str, Any] = {"runtime": runtime, "label": label, "size_mb": size_mb, "root": str(root),
                           "files": len(files), "bytes": all_bytes, "parsed_bytes": parsed_bytes,
                           "json_bytes": json_bytes,
                           "files_by_kind": {k: len(v) for k, v in sorted(by_kind.items())},
                           "bytes_by_kind": {k: sum(sz for _, sz in v) for k, v in sorted(by_kind.items())},
                           "warm_read_seconds": round(warm([(p, sz) for p, sz, _ in files]), 3),
                           "busy_before": {}, "lost_during": {}}
    busy = rec["busy_before"]  # share of the CPU others used just before each timed step
    during = rec["lost_during"]  # the host's steal and the disk waits during each timed step

    say(f"{label}: raw rg")
    busy["rg"] = wait_quiet(args.wait_quiet)
    rec["rg"] = timed_step(lambda: raw_rg(root, probe_literals(runtime), repeat=1 if args.quick else 3),
                           during, "rg")
    say(f"{label}: bare parse ({args.jobs} processes)")
    busy["parse"] = wait_quiet(args.wait_quiet)
    rec["parse"] = timed_step(lambda: bare_parse(files, args.jobs, repeat=1 if args.quick else 2), during, "parse")

    runs = []
    work = tmp / f"{label}-survey"
    for i in range(args.repeat):
        say(f"{label}: survey run {i + 1}/{args.repeat} (jobs={args.jobs})")
        busy[f"survey{i}"] = wait_quiet(args.wait_quiet)
        cwd = work / f"cwd{i}"
        spec = {"kind": "survey", "runtime": runtime, "root": str(root), "jobs": args.jobs,
                "snapshots": str(work / f"snapshots{i}"), "reports": str(work / f"reports{i}"),
                "date": date, "on_exists": "refuse"}
        try:
            runs.append((timed_step(functools.partial(run_child, spec, cwd), during, f"survey{i}"), spec, cwd))
        except ChildFailed as exc:
            say(f"{label}: survey failed: {exc}")
            rec["survey"] = {"failed": str(exc), **exc.seen}
            break
    if runs and "survey" not in rec:
        best, spec, cwd = min(runs, key=lambda r: r[0]["timings"]["total"])
        best["repeat"] = args.repeat
        rec["survey"] = best
        rec["_last_survey"] = (spec, cwd)  # for the incremental re-run (dropped before saving)

    if not args.quick and "survey" in rec and "failed" not in rec["survey"]:
        # the floors once more, right after the survey: this machine's speed drifts by 20-40 %
        # within minutes (the same DuckDB grep took 17.6 and 23.1 s half an hour apart), and a
        # ratio is only as good as the floor's time standing for the survey's (``floor_drift``)
        say(f"{label}: raw rg and bare parse again (the floors' drift over the survey)")
        rec["rg_after"] = timed_step(lambda: raw_rg(root, probe_literals(runtime), repeat=1), during, "rg_after")
        rec["parse_after"] = timed_step(lambda: bare_parse(files, args.jobs, repeat=1), during, "parse_after")

    # jq (and genson) once per runtime, on at most --jq-mb of its first corpus: their cost
    # is per byte and per file, so the rate carries over to the other sizes (said so)
    if runtime in jq_cache:
        base = jq_cache[runtime]
        rec["jq"] = rescale(base["jq"], json_bytes, base["label"])
        rec["genson"] = rescale(base["genson"], json_bytes, base["label"])
    elif json_bytes < 0.5 * all_bytes:
        why = (f"JSON text is {100 * json_bytes / max(1, all_bytes):.0f}% of the bytes (the rest is SQLite, "
               "text or blobs, out of jq's and genson's reach): not run, no comparison")
        rec["jq"], rec["genson"] = {"skipped": why}, {"skipped": why}
        jq_cache[runtime] = {"label": label, "jq": rec["jq"], "genson": rec["genson"]}
    else:
        sample = sample_files(jsonish, args.jq_mb * MB, args.jq_files, args.seed)
        say(f"{label}: jq [paths] on {sum(sz for _, sz in sample) / MB:.0f} MB, 1 process")
        busy["jq"] = wait_quiet(args.wait_quiet)
        rec["jq"] = jq_census(sample, json_bytes)
        rec["genson"] = genson_census(sample, json_bytes)
        jq_cache[runtime] = {"label": label, "jq": rec["jq"], "genson": rec["genson"]}
    rec["ratios"] = ratios(rec)
    return rec


# -- main -------------------------------------------------------------------------------


def _count(text: str) -> int:
    """An argument that counts something: a whole number, at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return n


def _sizes(text: str) -> list[int]:
    """``--sizes``: MB, comma-separated, each at least 1."""
    return [_count(s.strip()) for s in text.split(",")]


def _amount(text: str) -> float:
    """Seconds or gigabytes: a number, not below 0."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not x >= 0:  # (NaN too)
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return x


EXAMPLES = """examples:
  make bench                                       # 100 MB + 1 GB of every runtime: about 19 min, 8 more to generate
  make bench ROOT=~/.claude/projects               # a runtime's own store: its runtime is known
  make bench ROOT=~/captures RUNTIME=cursor_stream # any other folder: say which runtime reads it
  python -m bench.run --quick                      # 20 MB of each runtime: a smoke run, about 30 s
  python -m bench.run --big --runtime claude_code  # adds 5 GB (5.1 GB more disk)
  python -m bench.run --sizes 1000 --no-incremental --no-profile   # the 1 GB ratios alone

bench/README.md says how each figure is measured and what each bound means.
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    ap.add_argument("--root", type=Path, help="measure an existing (real) corpus instead of generating")
    ap.add_argument("--runtime", help="only these runtimes, comma-separated (with --root: one, unless the "
                    "root is a runtime's own store)")
    ap.add_argument("--sizes", type=_sizes, help="corpus sizes in MB, comma-separated (default 100,1000)")
    ap.add_argument("--big", action="store_true", help=f"add the {BIG_SIZE // 1000} GB corpus")
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_SIZE} MB only (a smoke run, < 1 min)")
    ap.add_argument("--jobs", type=_count, help="processes for the survey and the bare parse (default: cores, max 8)")
    ap.add_argument("--seed", type=int, default=7, help="generator seed (the increment uses seed + 1000)")
    ap.add_argument("--repeat", type=_count, help="survey runs per corpus, the best kept (default 2, as the "
                    "bare parse's; --quick 1)")
    ap.add_argument("--jq-mb", type=_count, help="jq/genson sample cap per runtime, MB (default 100; --quick 5)")
    ap.add_argument("--jq-files", type=_count, help="jq/genson sample cap per runtime, files "
                    "(default 1000; --quick 50): jq is one process per file")
    ap.add_argument("--wait-quiet", type=_amount, default=0.0, metavar="S",
                    help="before each timed step, wait up to S seconds for other work to stop")
    ap.add_argument("--no-incremental", action="store_true", help="skip the incremental figure")
    ap.add_argument("--rerun-repeat", type=_count, default=3, metavar="N",
                    help="incremental re-runs, each from the state the full run left; the median is "
                         "reported (default 3)")
    ap.add_argument("--incremental-mb", type=_count, default=PROFILE_SIZE, metavar="MB",
                    help=f"the corpus size the incremental figure is taken on, the nearest measured "
                         f"(default {PROFILE_SIZE})")
    ap.add_argument("--no-profile", action="store_true", help="skip the walk profile")
    ap.add_argument("--mem-limit-gb", type=_amount, help="end a survey run whose process tree passes "
                    "this resident size (default: half the machine's memory)")
    ap.add_argument("--giant-line", type=_count, metavar="MB",
                    help="instead: the peak memory of a survey of a Claude Code corpus holding one "
                         "single-line record of MB MiB (600 for the figure of record); not run by default")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.runtimes = [r for r in (a.runtime or "").split(",") if r]
    a.jobs = a.jobs or min(os.cpu_count() or 1, 8)
    # the survey is timed as its floor is, best of two (the parse's ``repeat``): a single run
    # against the floor's best set the noise of one side against the other's best
    a.repeat = a.repeat or (1 if a.quick else 2)
    a.jq_mb = a.jq_mb if a.jq_mb is not None else (5 if a.quick else 100)
    a.jq_files = a.jq_files if a.jq_files is not None else (50 if a.quick else 1000)
    return a


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        child_main(orjson.loads(args.child))
        return 0
    if args.giant_line:
        return giant_line(args.giant_line, args.seed)
    import compileall

    import survey
    from survey.runtimes import NAMES, get
    from survey.synth.demo import generator

    unknown = [r for r in args.runtimes if r not in NAMES]
    if unknown:
        print(f"--runtime: unknown {', '.join(unknown)}; known: {', '.join(NAMES)}", file=sys.stderr)
        return 2
    if args.root and not args.root.expanduser().is_dir():
        print(f"--root: {args.root} is not a folder", file=sys.stderr)
        return 2
    if args.root and not args.runtimes:  # a runtime's own store (``~/.claude/projects``): its runtime
        owners = [n for n in NAMES if get(n).owns_root(args.root)]
        if len(owners) == 1:
            say(f"--root is {owners[0]}'s store: measured as {owners[0]} (--runtime to say otherwise)")
        args.runtimes = owners if len(owners) == 1 else list(NAMES) if len(NAMES) == 1 else []
    if args.root and len(args.runtimes) != 1:
        print(f"--root needs --runtime, one of {', '.join(NAMES)}: the profile that reads the files "
              f"under the root (from make: make bench ROOT=DIR RUNTIME=NAME; a runtime's own store, "
              f"such as ~/.claude/projects, needs none)", file=sys.stderr)
        return 2
    # the survey's byte code, as an installed package has it: where PYTHONDONTWRITEBYTECODE
    # is set, each child and its walk's fork server would compile the modules from source
    # (0.1 s of a run at 100 MB), as ``make``'s COMPILED step also spares them
    compileall.compile_dir(Path(survey.__file__).parent, quiet=1)
    os.environ["SURVEY_CONFIG_DIR"] = str(CONFIG)
    ram = machine_memory() or 16 * GB
    MEM_LIMIT[0] = int(args.mem_limit_gb * GB) if args.mem_limit_gb else ram // 2
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    notes: list[str] = []
    if args.root:
        runtime = args.runtimes[0]
        label = f"root:{runtime}"
        plan: list[tuple[str, int | None, Path]] = [(runtime, None, args.root.expanduser().resolve())]
        # the root as the results would name it: resolved, and as given where that is absolute
        # too (a relative one, ``sessions``, is hidden in the command line alone: as a piece of
        # any string it could be a key's name)
        hide = [str(p) for p in (args.root.expanduser(), plan[0][2]) if p.is_absolute()]
        gens: list[str] = []
    else:
        hide = []
        sizes = [QUICK_SIZE] if args.quick else (
            list(args.sizes) if args.sizes else list(DEFAULT_SIZES))
        if args.big and BIG_SIZE not in sizes:
            sizes.append(BIG_SIZE)
        label = "quick" if args.quick else ("sizes:" + ",".join(map(str, sizes)) if args.sizes else "default")
        if args.big:
            label += "+big"
        if args.runtime:
            label += f":{args.runtime}"
        gens = []
        for rt in (args.runtimes or list(NAMES)):
            try:
                generator(rt)
                gens.append(rt)
            except (KeyError, ImportError, AttributeError) as exc:
                msg = f"{rt}: skipped, no generator ({exc})"
                say(msg)
                notes.append(msg)
        plan = []
        for rt in gens:
            for size in sorted(sizes):
                try:
                    root, info = ensure_corpus(rt, size, args.seed)
                except Exception as exc:
                    msg = f"{rt}-{size}MB: generation failed: {type(exc).__name__}: {exc}"
                    say(msg)
                    notes.append(msg)
                    continue
                plan.append((rt, size, root))
                if not info["reused"]:
                    notes.append(f"{rt}-{size}MB generated in {info['gen_seconds']:.1f} s")
    if not plan:
        say("nothing to measure")
        return 1
    label = fresh_label(date, label)  # a second run today is kept beside the first

    recs: list[dict] = []
    load_start = loadavg()
    with tempfile.TemporaryDirectory(prefix="survey-bench-") as td:
        tmp = Path(td)
        jq_cache: dict[str, dict] = {}
        for rt, size_mb, root in plan:
            rlabel = f"{rt}-{size_mb}MB" if size_mb else f"{rt}-root"
            try:
                recs.append(measure(rt, rlabel, size_mb, root, args, tmp, date, jq_cache))
            except Exception as exc:  # one runtime's failure must not lose the others' figures
                msg = f"{rlabel}: measurement failed: {type(exc).__name__}: {exc}"
                say(msg)
                notes.append(msg)
            # a long run keeps what it has so far (replaced by the full record at the end)
            save(date, label, {"label": label, "partial": True, "notes": notes,
                               "corpora": [{k: v for k, v in r.items() if k != "_last_survey"} for r in recs]},
                 hide)
        if not recs:
            say("every measurement failed")
            return 1

        out: dict[str, Any] = {"label": label, "argv": _argv_without_root(sys.argv[1:] if argv is None else argv),
                               "date": date, "machine": machine(),
                               "loadavg_start": load_start, "loadavg_end": loadavg(),
                               "jobs": args.jobs, "seed": args.seed, "targets": TARGETS, "notes": notes}
        # incremental, per runtime: its generated corpus of --incremental-mb (else the nearest size)
        out["incremental"] = {}
        runtimes = list(dict.fromkeys(r["runtime"] for r in recs))
        if args.quick and len(runtimes) > 1:
            notes.append(f"--quick: the incremental figure for {runtimes[0]} only")
            runtimes = runtimes[:1]
        for rt in runtimes:
            cands = [r for r in recs if r["runtime"] == rt and r["size_mb"] and rt in gens and "_last_survey" in r]
            if args.no_incremental or not cands:
                out["incremental"][rt] = {"skipped": "--no-incremental" if args.no_incremental else
                                          ("real corpus: the bench never writes into a real root"
                                           if rt not in gens else "no completed survey run")}
                continue
            r = min(cands, key=lambda r: (abs(r["size_mb"] - args.incremental_mb), r["size_mb"]))
            try:
                out["incremental"][rt] = incremental(r, args)
            except Exception as exc:
                out["incremental"][rt] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
        # profile: the 100 MB cursor corpus only
        prof = [r for r in recs if r["runtime"] == PROFILE_RUNTIME and r["size_mb"] == PROFILE_SIZE]
        if args.no_profile:
            out["profile"] = {"skipped": "--no-profile"}
        elif not prof:
            out["profile"] = {"skipped": f"no {PROFILE_RUNTIME}-{PROFILE_SIZE}MB corpus in this run"}
        elif importlib.util.find_spec("pyinstrument") is None:
            out["profile"] = {"skipped": "pyinstrument not installed"}
        else:
            say(f"profiling the walk on {prof[0]['label']} (jobs=1, twice: plain and profiled)")
            RESULTS.mkdir(parents=True, exist_ok=True)
            try:
                out["profile"] = run_child({"kind": "profile", "runtime": PROFILE_RUNTIME, "root": prof[0]["root"],
                                            "label": prof[0]["label"],
                                            "profile_out": str(RESULTS / f"{date}-profile.txt")}, tmp / "profile")
            except ChildFailed as exc:
                out["profile"] = {"skipped": f"failed: {exc}"}
        # the survey's code is being worked on: say so when it changed during the run
        srcs = {x.get("survey_src") for x in [*(r["survey"] for r in recs), *out["incremental"].values(),
                                              out["profile"]] if x.get("survey_src")}
        srcs |= {x.get("survey_src_after") for r in recs for x in [r["survey"]] if x.get("survey_src_after")}
        out["survey_sources"] = sorted(srcs)
        if len(srcs) > 1:
            notes.append(f"the survey's sources changed during this run ({len(srcs)} versions: "
                         f"{', '.join(sorted(srcs))}; each measurement records its own): figures "
                         "taken before and after a change compare different code")

    for r in recs:
        r.pop("_last_survey", None)
    out["corpora"] = recs
    out["scaling"] = scaling(recs)
    print_tables(recs, out)
    path = save(date, label, out, hide)
    say(f"results: {path.relative_to(REPO) if path.is_relative_to(REPO) else path} (run '{label}')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
