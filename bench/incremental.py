"""The incremental figure: about 1 % new files added to a measured corpus and the survey run
again beside its cache, its time held against the full run's."""

from __future__ import annotations

import argparse
import functools
import os
import shutil
from pathlib import Path

import orjson

from bench.common import CORPORA, INCR_CONSTANT_S, MB, TARGETS, say, timed_step, wait_quiet
from bench.corpora import clean_increment, generate_aside, incr_manifest, list_files, warm
from bench.timing import restore_state, run_child, save_state, survey_cache, xdg_cache

# -- incremental ------------------------------------------------------------------------


def cache_line(c: dict | None) -> str:
    if not c:
        return "no cache figures from run_survey"
    return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in c.items())


def add_increment(stage: Path, root: Path) -> tuple[int, int, int]:
    """Merge ``stage`` into ``root`` without touching an existing file: new entries are moved
    in (new sessions inside existing project folders, as a live store grows); a file that
    exists already is skipped. What is added is listed beside the corpus first, so
    ``clean_increment`` can take it out again. Returns (files added, bytes added, skipped)."""
    plan: list[tuple[Path, Path, str]] = []
    skipped = 0

    def walk(src: Path, dst: Path, rel: str) -> None:
        nonlocal skipped
        for e in sorted(src.iterdir()):
            r = f"{rel}/{e.name}" if rel else e.name
            d = dst / e.name
            if not d.exists() and not d.is_symlink():
                plan.append((e, d, r))
            elif e.is_dir() and d.is_dir() and not d.is_symlink():
                walk(e, d, r)
            else:
                skipped += 1

    walk(stage, root, "")
    incr_manifest(root).write_bytes(orjson.dumps([r for _, _, r in plan]))
    files = nbytes = 0
    for src, dst, _ in plan:
        if src.is_dir():
            got = list_files(src)
            files, nbytes = files + len(got), nbytes + sum(sz for _, sz in got)
        else:
            files, nbytes = files + 1, nbytes + src.stat().st_size
        src.rename(dst)
    return files, nbytes, skipped


def incremental(rec: dict, args: argparse.Namespace) -> dict:
    """Add ~1 % new files (the generator with another seed) to the root, re-run into a new
    snapshot name in the same working dir (where a cache would be), compare with the full run."""
    root = Path(rec["root"])
    spec, cwd = rec["_last_survey"]
    stage = CORPORA / f".incr-{rec['label']}"
    spans: dict[str, dict | None] = {}  # what ``lost`` says of the re-run
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        generate_aside(rec["runtime"], stage, args.seed + 1000, max(1, rec["bytes"] // 100))
        added, add_bytes, skipped = add_increment(stage, root)
        warm(list_files(root))
        say(f"{rec['label']}: incremental: +{added} files, +{add_bytes / MB:.2f} MB "
            f"({skipped} generated entries skipped: the path exists); re-running")
        # the full run's cwd started empty and its snapshots/reports went elsewhere: whatever
        # is in it now (or in its $XDG_CACHE_HOME) is state a re-run could reuse
        left = sorted(os.listdir(cwd)) + [
            f"{name} ({sum(1 for _ in d.rglob('*') if _.is_file())} files, "
            f"{sum(f.stat().st_size for f in d.rglob('*') if f.is_file()) / MB:.1f} MB)"
            for name, d in (("$XDG_CACHE_HOME", xdg_cache(cwd)), ("$SURVEY_CACHE_DIR", survey_cache(cwd)))
            if d.exists()]
        # each re-run after the first starts from the state the full run left (hard-linked
        # copies: the survey replaces its cache files, never writes into one), and the
        # median is the figure: one re-run moved 20-35 % with the machine
        saved = save_state(cwd) if args.rerun_repeat > 1 else []
        # (the page's charts are timed once, by the full run: ``charts_seconds``)
        again = {**spec, "on_exists": "suffix", "time_charts": False}
        runs = []
        try:
            for i in range(max(1, args.rerun_repeat)):
                if i:
                    restore_state(saved)
                busy = wait_quiet(args.wait_quiet)
                runs.append(timed_step(functools.partial(run_child, again, cwd),
                                       spans, f"rerun{i}"))
            # then once more, with nothing new since the last re-run (information: a re-run
            # of a corpus that did not change takes its kept census and leaves its caches)
            wait_quiet(args.wait_quiet)
            still = timed_step(functools.partial(run_child, again, cwd), spans, "unchanged")
        finally:
            for _, copy in saved:
                shutil.rmtree(copy, ignore_errors=True)
    finally:
        clean_increment(root)
        shutil.rmtree(stage, ignore_errors=True)
    full = rec["survey"]["timings"]["total"]
    totals = [r["timings"]["total"] for r in runs]
    mid = sorted(range(len(runs)), key=totals.__getitem__)[len(runs) // 2]  # (the upper of two middles)
    res, rerun = runs[mid], totals[mid]
    return {
        "corpus": rec["label"], "added_files": added, "added_bytes": add_bytes, "skipped_entries": skipped,
        "added_share": add_bytes / rec["bytes"], "full_seconds": full, "rerun_seconds": rerun,
        "rerun_runs": totals, "rerun_cpu_runs": [r.get("cpu_seconds", {}).get("total") for r in runs],
        "rerun_over_full": rerun / full, "rerun_timings": res["timings"], "busy_before": busy,
        "lost_during": {"full": (rec.get("lost_during") or {}).get("survey0"), "rerun": spans.get(f"rerun{mid}")},
        "full_cache_stats": rec["survey"].get("cache"), "rerun_cache_stats": res.get("cache"),
        "full_cpu_seconds": rec["survey"].get("cpu_seconds", {}).get("total"),
        "rerun_cpu_seconds": res.get("cpu_seconds", {}).get("total"),
        "snapshot_name": res["snapshot_name"], "reused": res["reused"], "survey_src": res.get("survey_src"),
        "same_code_as_full_run": res.get("survey_src") == rec["survey"].get("survey_src"),
        "target_seconds": TARGETS["incremental_share"] * full + INCR_CONSTANT_S,
        "unchanged_seconds": still["timings"]["total"], "unchanged_timings": still["timings"],
        "unchanged_cache_stats": still.get("cache"),
        "state_left_by_full_run": left,
        "note": ((f"the full run left {', '.join(left)}; re-run walk cache: {cache_line(res.get('cache'))}"
                  + ("; the cache was written but nothing was served from it"
                     if (res.get("cache") or {}).get("cache_hits") == 0 else ""))
                 if left else "the full run left no cache (nothing in its cwd, $XDG_CACHE_HOME or "
                              "$SURVEY_CACHE_DIR): the re-run walks everything"),
    }
