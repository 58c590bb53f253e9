"""``python -m bench.merge``: the time and peak memory of ``survey merge`` from 10 to 1,000 machines.

A few machines' Cursor corpora are generated (``survey/synth``, one seed each) and surveyed
once; the fleet is those snapshots cloned (their tables hard-linked, each clone's manifest
given a root pseudonym of its own: a machine of its own), as many as each step asks. Each
merge runs in a child process of its own (its peak resident memory is the child's, or for
Spark the larger of the child and its JVM), on DuckDB and on Spark in local mode where
pyspark and Java are here. Results: a table on stdout and ``bench/results/<date>-merge.json``
(with the code, cores and engine versions that made them). ``make bench MERGE=1`` adds it to
the bench; ``python -m bench.merge --into docs/performance.md`` puts the newest results'
table between that page's merge-table markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = """examples:
  python -m bench.merge                                   # 10, 100, 1000 machines on both engines
  python -m bench.merge --machines 10,100 --engines duckdb
  python -m bench.merge --machines 10 --spark-machines 10 --seeds 2 --transcripts 2   # a smoke run
  python -m bench.merge --into docs/performance.md       # the newest results' table into the page
"""
RESULTS = REPO / "bench" / "results"
BEGIN, END = "<!-- merge-table: python -m bench.merge --into docs/performance.md -->", "<!-- /merge-table -->"
COLUMNS = ("engine", "machines", "files", "merge", "union", "threshold", "census", "peak memory", "CPU (load)")


def _counts(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not whole numbers: {text!r}") from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"each must be at least 1: {text!r}")
    return out


def base_snapshots(where: Path, seeds: int, transcripts: int) -> list[Path]:
    """``seeds`` machines' snapshots, each of its own generated corpus."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.synth.cursor import generate

    out = []
    for i in range(seeds):
        root = where / f"base{i}" / "projects"
        root.mkdir(parents=True)
        generate(root, seed=100 + i, sessions=transcripts)
        res = run_survey(get("cursor"), root, snapshots=where / f"base{i}" / "snapshots", reports=None,
                         date="2026-01-01", cache=False)
        out.append(Path(res.snapshot))
    return out


def clone(base: Path, dst: Path, n: int) -> None:
    """``base`` as the snapshot of machine ``n``: its files hard-linked, its manifest's root new."""
    for src in base.rglob("*"):
        rel = src.relative_to(base)
        if src.is_dir():
            (dst / rel).mkdir(parents=True, exist_ok=True)
        elif src.name != "manifest.json":
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            os.link(src, dst / rel)
    m = orjson.loads((base / "manifest.json").read_bytes())
    m["root"] = f"r-{n:016x}"
    (dst / "manifest.json").write_bytes(orjson.dumps(m))


def fleet(bases: list[Path], where: Path, machines: int) -> list[Path]:
    out = []
    for n in range(machines):
        d = where / f"machine={n:05d}" / "cursor"
        if not (d / "manifest.json").exists():
            clone(bases[n % len(bases)], d, n)
        out.append(d)
    return out


def child(snaps_file: Path, out: Path, engine: str) -> None:
    """One merge, in this (child) process; its figures as JSON on stdout."""
    from survey.merge.merge import merge

    snaps = [Path(p) for p in snaps_file.read_text().splitlines()]
    t = time.perf_counter()
    res = merge(snaps, out, min_machines=3, engine=engine)
    took = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # (Spark's JVM)
    me = resource.getrusage(resource.RUSAGE_SELF)
    cpu = me.ru_utime + me.ru_stime + sum(_cpu_of(pid) for pid in _children())
    sys.stdout.write(orjson.dumps({"seconds": round(took, 2), "cpu_seconds": round(cpu, 1),
                                   "peak_rss_mb": round(max(rss, kids) / 1024, 1),
                                   "files": res.files, "stages": res.timings}).decode() + "\n")


def _children() -> list[int]:
    """This process's live children (Spark's JVM stays up until its Python exits)."""
    out = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                out.append(int(d.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _cpu_of(pid: int) -> float:
    """A process's CPU seconds (user and system, its waited-for children's too); 0 where gone."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def one(snaps: list[Path], engine: str, work: Path) -> dict:
    listing = work / f"snaps-{engine}-{len(snaps)}.txt"
    listing.write_text("\n".join(map(str, snaps)))
    out = work / "merged" / f"{engine}-{len(snaps)}" / "cursor-merged"
    shutil.rmtree(out.parent, ignore_errors=True)
    p = subprocess.run([sys.executable, "-m", "bench.merge", "--child", str(listing), str(out), engine],
                       capture_output=True, text=True, cwd=REPO, check=False)
    shutil.rmtree(out.parent, ignore_errors=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return orjson.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def versions() -> dict:
    """What made the figures: the code's commit, the cores, the engines' versions."""
    import duckdb

    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO, check=False)
    try:
        import pyspark

        spark: str | None = pyspark.__version__
    except ImportError:
        spark = None
    return {"git_head": head.stdout.strip() or None, "cores": os.cpu_count(), "duckdb": duckdb.__version__,
            "pyspark": spark}


def latest() -> tuple[str, dict]:
    """(file name, results) of the newest ``bench/results/<date>-merge.json``."""
    for f in sorted(RESULTS.glob("*-merge.json"), reverse=True):
        return f.name, orjson.loads(f.read_bytes())
    raise FileNotFoundError(f"no merge results under {RESULTS}")


def _s(stages: dict, name: str) -> str:
    return f"{stages[name]:.1f} s" if isinstance(stages.get(name), (int, float)) else "–"


def _cpu(r: dict) -> str:
    """A merge's CPU seconds (the JVM's with it) and the load average around it: on a shared
    machine the wall time is mostly the wait for a core, the CPU time is the merge's own."""
    if not isinstance(r.get("cpu_seconds"), (int, float)):
        return "–"
    load = r.get("load") or []
    return f"{r['cpu_seconds']:.1f} s" + (f" ({max(load):.0f})" if load else "")


def markdown() -> str:
    """The newest merge results as a Markdown table: per engine and fleet size, the files
    merged, the merge's wall seconds (in its own process), its stages, peak memory, CPU
    seconds and the load average around it."""
    name, got = latest()
    m = got.get("machine") or {}
    head = (f"`bench/results/{name}` (code `{str(m.get('git_head') or '?')[:7]}`, {m.get('cores', '?')} cores, "
            f"DuckDB {m.get('duckdb', '?')}, Spark {m.get('pyspark') or '–'} local; fleets cloned from "
            f"{got['seeds']} generated Cursor machines of {got['transcripts']} transcripts each, "
            f"`--min-machines 3`):")
    rows = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in sorted(got["rows"], key=lambda r: (r["engine"], r["machines"])):
        if "seconds" not in r:
            rows.append(f"| {r['engine']} | {r['machines']:,} | " + " | ".join(
                ["–"] * (len(COLUMNS) - 4) + [str(r.get("skipped") or r.get("error") or "–")[:80], "–"]) + " |")
            continue
        st = r.get("stages") or {}
        rows.append("| " + " | ".join([r["engine"], f"{r['machines']:,}", f"{r['files']:,}", f"{r['seconds']:.1f} s",
                                       _s(st, "union"), _s(st, "threshold"), _s(st, "census"),
                                       f"{r['peak_rss_mb']:.0f} MB", _cpu(r)]) + " |")
    code = str(m.get("git_head") or "")
    other = [f"{r['engine']} at {r['machines']:,} (`{r['git_head'][:7]}`)" for r in got["rows"]
             if r.get("git_head") and r["git_head"] != code]
    return head + "\n\n" + "\n".join(rows) + "\n" + (
        "\nMeasured by earlier code: " + ", ".join(other) + ".\n" if other else "")


def into(page: Path) -> None:
    """Put the table between the page's merge-table markers, in place."""
    text = page.read_text()
    if BEGIN not in text:
        raise SystemExit(f"{page} has no merge-table markers ({BEGIN} ... {END})")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    page.write_text(f"{head}{BEGIN}\n{markdown()}{END}{tail}")


def merged(old: dict, got: dict) -> dict:
    """This run's results over the day's earlier ones (of the same fleet's make): a step run
    again replaces its row in ``rows`` and the row it replaced moves to ``earlier``; every row
    keeps the code that measured it. Results of another fleet's make are not mixed in."""
    if not old.get("rows") or (old.get("seeds"), old.get("transcripts")) != (got["seeds"], got["transcripts"]):
        return got
    head = (old.get("machine") or {}).get("git_head")
    rows = [r if "git_head" in r else {**r, "git_head": head} for r in old["rows"]]
    mine = {(r["engine"], r["machines"]) for r in got["rows"]}
    return {**got, "rows": [r for r in rows if (r["engine"], r["machines"]) not in mine] + got["rows"],
            "earlier": [*old.get("earlier", []), *(r for r in rows if (r["engine"], r["machines"]) in mine)]}


def save(out: Path, got: dict, old: dict | None = None) -> None:
    """The results so far, written whole after each step (a run stopped part way keeps its
    finished steps), over ``old`` (the day's results before this run)."""
    got = merged(old or {}, got)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(orjson.dumps(got, option=orjson.OPT_INDENT_2))
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.merge", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES)
    ap.add_argument("--machines", type=_counts, default=[10, 100, 1000], help="fleet sizes (default 10,100,1000)")
    ap.add_argument("--spark-machines", type=_counts, help="fleet sizes for Spark (default: --machines)")
    ap.add_argument("--engines", default="duckdb,spark", help="comma-separated (default duckdb,spark)")
    ap.add_argument("--seeds", type=int, default=5, help="distinct generated machines the fleet is cloned from")
    ap.add_argument("--transcripts", type=int, default=4, help="transcripts per generated machine")
    ap.add_argument("--into", type=Path, metavar="PAGE", help="put the newest results' table into PAGE, run nothing")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.into:
        into(args.into)
        return 0
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), args.child[2])
        return 0
    from survey.merge.engines import java_missing

    engines = [e for e in args.engines.split(",") if e]
    rows: list[dict] = []
    out = RESULTS / f"{dt.datetime.now(dt.UTC):%Y-%m-%d}-merge.json"
    old = orjson.loads(out.read_bytes()) if out.exists() else {}
    made = versions()  # (the code at the start: a commit made while it runs is not what measured)
    head = made["git_head"]
    with tempfile.TemporaryDirectory(prefix="survey-bench-merge-") as tmp:
        os.environ.setdefault("SURVEY_CONFIG_DIR", os.path.join(tmp, "config"))
        os.environ.setdefault("SURVEY_CACHE_DIR", os.path.join(tmp, "cache"))
        work = Path(tmp)
        bases = base_snapshots(work / "bases", args.seeds, args.transcripts)
        for engine in engines:
            sizes = (args.spark_machines or args.machines) if engine == "spark" else args.machines
            why = java_missing() if engine == "spark" else None
            for n in sizes:
                load = os.getloadavg()[0]
                got = {"skipped": why} if why else one(fleet(bases, work / "fleet", n), engine, work)
                rows.append({"engine": engine, "machines": n, **got, "git_head": head,
                             "load": [round(load, 1), round(os.getloadavg()[0], 1)]})
                save(out, {"seeds": args.seeds, "transcripts": args.transcripts, "machine": made,
                           "argv": sys.argv[1:] if argv is None else argv, "rows": rows}, old)
                print(f"{engine:7} {n:6,} machines  " + (
                    f"{got['seconds']:8.2f} s  {got.get('cpu_seconds', 0):8.1f} s CPU  "
                    f"{got['peak_rss_mb']:8.1f} MB peak RSS  {got['files']:,} files"
                    if "seconds" in got else str(got)), flush=True)
    print(f"written to {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
