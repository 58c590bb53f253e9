"""The latest ``make bench`` table for docs/performance.md: ``python -m bench.table``.

It reads the newest ``bench/results/<date>.json``, takes that day's last full run (a label
starting ``default``) and prints one row per 1 GB corpus: wall seconds, each stage against
the bare parse, rg against one raw rg pass, and peak memory. A test checks that the docs
show this table, so a new results file means regenerating it (``make docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

RESULTS = Path(__file__).parent / "results"
COLUMNS = ("corpus (1 GB)", "files", "survey", "walk / parse", "DuckDB grep / parse", "rg / raw rg",
           "total / parse", "CPU total / parse", "peak memory")


def latest() -> tuple[str, str, dict]:
    """(results file name, run label, run) of the newest full run."""
    for f in sorted(RESULTS.glob("*.json"), reverse=True):
        runs = orjson.loads(f.read_bytes()).get("runs", {})
        full = [k for k, v in runs.items() if k.startswith("default")
                and any(c.get("size_mb") == 1000 for c in v.get("corpora", []))]
        if full:
            return f.name, full[-1], runs[full[-1]]
    raise FileNotFoundError(f"no full run (a 'default' label with 1 GB corpora) under {RESULTS}")


def _x(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def markdown() -> str:
    name, label, run = latest()
    head = (f"Run `{label}` of `bench/results/{name}` (code `{run['machine']['versions']['git_head'][:7]}`, "
            f"{run['machine']['cores']} cores, DuckDB {run['machine']['versions']['duckdb']}):")
    rows = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for c in run["corpora"]:
        if c.get("size_mb") != 1000:
            continue
        r = c["ratios"]
        rows.append("| " + " | ".join([
            c["runtime"], f"{c['files']:,}", f"{c['survey']['timings']['total']:.1f} s",
            _x(r.get("walk_over_parse")), _x(r.get("duckdb_grep_over_parse")), _x(r.get("survey_rg_over_raw_rg")),
            _x(r.get("total_over_parse")), _x(r.get("cpu_total_over_parse")),
            f"{r['tree_peak_pss_mb']:.0f} MB" if r.get("tree_peak_pss_mb") else "–"]) + " |")
    return head + "\n\n" + "\n".join(rows) + "\n"


BEGIN, END = "<!-- bench-table: python -m bench.table --into docs/performance.md -->", "<!-- /bench-table -->"


def into(page: Path) -> None:
    """Put the table between the page's markers, in place."""
    text = page.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    page.write_text(f"{head}{BEGIN}\n{markdown()}{END}{tail}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--into"]:
        into(Path(sys.argv[2]))
    else:
        sys.stdout.write(markdown())
