"""``survey merge``: many machines' snapshots of one runtime as one, named only past k machines.

Four machines' Cursor corpora are generated with different seeds (``survey/synth``, in
``tmp_path``), each surveyed into its own snapshot under its own root (its own machine id).
Two of them also hold a planted transcript whose tool call has a name (``FetchRules``) and
an input key (``excludePattern``) that the reviewed vocabulary holds and the generator never
writes: seen on 2 machines, they are counted and never named at ``--min-machines 3``, and
named at 2. Expected figures are computed from the machines' own tables, not by the merge.
"""

from __future__ import annotations

import hmac
import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.corpus.privacy import load_salt
from survey.merge.merge import MergeRefused, check, machine_id, merge
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor import generate

KEY, VALUE = "excludePattern", "FetchRules"
MACHINES, PLANTED = 4, 2


def plant(root: Path) -> None:
    d = root / "proj-fleet" / "agent-transcripts" / "fleet-1"
    d.mkdir(parents=True)
    recs = [{"role": "user", "message": {"content": [{"type": "text", "text": "x"}]}},
            {"role": "assistant", "message": {"content": [
                {"type": "tool_use", "name": VALUE, "input": {KEY: "*.tmp"}}]}}]
    (d / "fleet-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four machines' snapshots (seeds 21..24); the first two hold the planted transcript."""
    snaps = []
    for i in range(MACHINES):
        base = tmp_path_factory.mktemp(f"machine{i}")
        root = base / "projects"
        root.mkdir()
        generate(root, seed=21 + i, sessions=4)
        if i < PLANTED:
            plant(root)
        res = run_survey(get("cursor"), root, snapshots=base / "snapshots", reports=None, date="2026-05-01",
                         cache=False)
        snaps.append(Path(res.snapshot))
    return snaps


def strings_of(folder: Path) -> str:
    """Every byte a reader gets from the folder: its text files as they are, its Parquet
    tables' column names and every value as text (their pages are compressed)."""
    out = []
    for f in sorted(folder.rglob("*")):
        if f.is_dir():
            continue
        if f.suffix == ".parquet":
            df = pl.read_parquet(f)
            out.append(" ".join(df.columns))
            out += [" ".join(map(str, df[c].cast(pl.String).drop_nulls().to_list())) for c in df.columns]
        else:
            out.append(f.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def test_canary_planted_below_k_never_reaches_an_output_byte(fleet: list[Path], tmp_path: Path) -> None:
    # the canary can fail: the planted machines' own snapshots hold both, the others neither
    for i, s in enumerate(fleet):
        assert (KEY in strings_of(s)) == (i < PLANTED) and (VALUE in strings_of(s)) == (i < PLANTED)
    res = merge(fleet, tmp_path / "snaps" / "2026-05-02" / "cursor-merged", min_machines=PLANTED + 1,
                reports=tmp_path / "reports")
    text = strings_of(Path(res.snapshot)) + strings_of(tmp_path / "reports")
    assert KEY not in text and VALUE not in text
    assert res.masked["keys"] >= 1 and res.masked["values"] >= 1
    # at k = 2 the same merge names both
    named = merge(fleet, tmp_path / "snaps" / "2026-05-03" / "cursor-merged", min_machines=PLANTED)
    assert KEY in strings_of(Path(named.snapshot)) and VALUE in strings_of(Path(named.snapshot))


def machine_keys(snap: Path) -> set[str]:
    """The keys of one machine's nodes (of their key sets and paths), from its own table."""
    p = snap / "walk" / "nodes.parquet"
    nodes = pl.read_parquet(p / "*.parquet" if p.is_dir() else p)
    keys = {k for ks in nodes["keyset"].cast(pl.String).drop_nulls().to_list() for k in ks.split(",")}
    keys |= {m for p in nodes["path"].cast(pl.String).drop_nulls().to_list() for m in re.findall(r"\.([^.\[\]]+)", p)}
    return {k for k in keys if k and not k.startswith("<")}


@pytest.mark.parametrize("k", [2, PLANTED + 1, MACHINES + 1])
def test_threshold_counts_keys_by_their_machines(fleet: list[Path], tmp_path: Path, k: int) -> None:
    # independently: each key's machines from the machines' own nodes tables
    seen: Counter[str] = Counter()
    for s in fleet:
        seen.update(machine_keys(s))
    res = merge(fleet, tmp_path / "snaps" / "2026-05-02" / "cursor-merged", min_machines=k)
    man = json.loads((Path(res.snapshot) / "manifest.json").read_text())
    assert res.masked["keys"] == sum(n < k for n in seen.values()) > 0
    assert man["merged"]["key_machines"] == {key: n for key, n in sorted(seen.items()) if n >= k}
    nodes = pl.read_parquet(Path(res.snapshot) / "walk" / "nodes.parquet")
    assert machine_keys(Path(res.snapshot)) == {key for key, n in seen.items() if n >= k}
    # every row of the machines' nodes is counted once: masking merges rows, never drops them
    assert nodes["count"].sum() == sum(pl.read_parquet(s / "walk" / "nodes.parquet" / "*.parquet")["count"].sum()
                                       for s in fleet)


def test_withheld_value_named_by_its_pseudonym(fleet: list[Path], tmp_path: Path) -> None:
    # the planted tool name's value path, from a planted machine's own values table
    vals = pl.read_parquet(fleet[0] / "walk" / "values.parquet").with_columns(pl.col(pl.Categorical).cast(pl.String))
    paths = set(vals.filter(pl.col("value") == VALUE)["path"].to_list())
    assert len(paths) == 1
    path = paths.pop()
    res = merge(fleet, tmp_path / "snaps" / "2026-05-02" / "cursor-merged", min_machines=PLANTED + 1)
    got = pl.read_parquet(Path(res.snapshot) / "walk" / "values.parquet").with_columns(pl.col(pl.Categorical).cast(pl.String))
    salt = load_salt()
    want = "w-" + hmac.digest(salt, f"w\0{path}\0{VALUE}".encode(), "sha256").hex()[:16]
    rows = got.filter(pl.col("withheld_id") == want)
    assert rows.height > 0 and set(rows["value"]) == {"<withheld>"} and set(rows["path"]) == {path}
    # its count: the planted calls of both machines, summed
    assert rows["count"].sum() == sum(
        pl.read_parquet(s / "walk" / "values.parquet").filter(pl.col("value").cast(pl.String) == VALUE)["count"].sum()
        for s in fleet[:PLANTED])


def test_counts_summed_and_file_ids_distinct(fleet: list[Path], tmp_path: Path) -> None:
    res = merge(fleet, tmp_path / "2026-05-02" / "cursor-merged", min_machines=1)
    snap = Path(res.snapshot)
    man = json.loads((snap / "manifest.json").read_text())
    mans = [json.loads((s / "manifest.json").read_text()) for s in fleet]
    for c in ("files", "bytes", "walked_files", "frames"):
        assert man["counts"][c] == sum(m["counts"][c] for m in mans)
    assert man["merged"]["machines"] == MACHINES and man["merged"]["min_machines"] == 1
    assert man["merged"]["machine_ids"] == sorted(machine_id(m) for m in mans)
    inv = pl.read_parquet(snap / "inventory" / "*" / "*.parquet")
    assert inv.height == sum(m["counts"]["files"] for m in mans) == inv["file_id"].n_unique()
    assert dict(inv.group_by("machine").len().iter_rows()) == {machine_id(m): m["counts"]["files"] for m in mans}
    # frame statuses: the machines' census rows summed
    census = json.loads((snap / "census.json").read_text())["frame_status"]
    got = {r[0]: r[1] for r in census["rows"]}
    want: dict[str, int] = {}
    for s in fleet:
        q = json.loads((s / "census.json").read_text())["frame_status"]
        for r in q["rows"]:
            want[r[0]] = want.get(r[0], 0) + r[1]
    assert got == want


def nearest_rank(xs: list[int], q: float) -> int:
    return sorted(xs)[max(1, math.ceil(len(xs) * q)) - 1]


def test_percentiles_exact_over_the_union(fleet: list[Path], tmp_path: Path) -> None:
    res = merge(fleet, tmp_path / "2026-05-02" / "cursor-merged", min_machines=1)
    lens: list[int] = []
    for s in fleet:  # each machine's assistant payload lengths, from its own tables
        blocks = pl.read_parquet(s / "walk" / "blocks.parquet" / "*.parquet")
        frames = pl.read_parquet(s / "walk" / "frames.parquet" / "*.parquet")
        fa = frames.filter(pl.col("role").cast(pl.String) == "assistant").select("file_key", "line_no").unique()
        lens += blocks.join(fa, on=["file_key", "line_no"]).drop_nulls("payload_len")["payload_len"].to_list()
    q = json.loads((Path(res.snapshot) / "census.json").read_text())["payload_lengths"]
    row = dict(zip(q["columns"], q["rows"][0], strict=True))
    assert row["assistant_payloads"] == len(lens) > 0
    assert (row["p50"], row["p90"], row["p99"], row["max"]) == (
        nearest_rank(lens, 0.5), nearest_rank(lens, 0.9), nearest_rank(lens, 0.99), max(lens))


def altered(snap: Path, where: Path, change) -> Path:  # type: ignore[no-untyped-def]
    dst = where / "snapshots" / "2026-05-01" / "cursor"
    shutil.copytree(snap, dst)
    p = dst / "manifest.json"
    p.write_text(json.dumps(change(json.loads(p.read_text()))))
    return dst


@pytest.mark.parametrize(("change", "said"), [
    (lambda m: {**m, "runtime": "codex"}, "runtime codex"),
    (lambda m: {**m, "snapshot_schema": 1}, "snapshot format 1"),
    (lambda m: {**m, "vocab": "0000000000000000"}, "vocabulary version 0000000000000000"),
    (lambda m: {**m, "mode": "discover"}, "discover mode"),
    (lambda m: {**m, "merged": {"machines": 2}}, "is itself a merge"),
    (lambda m: {k: v for k, v in m.items() if k != "vocab"}, "no vocabulary version"),
])
def test_incompatible_snapshots_refused(fleet: list[Path], tmp_path: Path, change, said: str) -> None:  # type: ignore[no-untyped-def]
    bad = altered(fleet[1], tmp_path / "other", lambda m: {**change(m), "root": "r-0000000000000001"})
    with pytest.raises(MergeRefused, match=said):
        check([fleet[0], bad])
    r = CliRunner().invoke(app, ["merge", str(fleet[0]), str(bad), "--out", str(tmp_path / "d" / "m"), "--no-page"])
    cli_said = "several runtimes (codex, cursor)" if said == "runtime codex" else said  # (found before checked)
    assert r.exit_code == 2 and cli_said in " ".join(r.output.split())
    assert not (tmp_path / "d" / "m").exists()


def test_one_machine_twice_refused(fleet: list[Path]) -> None:
    with pytest.raises(MergeRefused, match="one machine"):
        check([fleet[0], fleet[0]])


def test_cli_json_is_the_result(fleet: list[Path], tmp_path: Path) -> None:
    where = tmp_path / "collected"
    for i, s in enumerate(fleet):  # a fleet's layout: machine=<n>/date=<d>/<runtime>
        shutil.copytree(s, where / f"machine={i}" / "date=2026-05-01" / "cursor")
    out = tmp_path / "snapshots" / "2026-05-02" / "cursor-merged"
    r = CliRunner().invoke(app, ["merge", str(where), "--out", str(out), "--reports", str(tmp_path / "rep"),
                                 "--no-charts", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    man = json.loads((out / "manifest.json").read_text())
    assert got["snapshot"] == str(out) and got["machines"] == MACHINES == man["merged"]["machines"]
    assert got["masked"] == man["merged"]["masked"] and got["min_machines"] == 3
    page = Path(got["page"]).read_text()
    assert f"{MACHINES} machines" in page


def md_rows(page: str, header: str) -> list[dict[str, str]]:
    """The rows of the page's first table whose header line is ``header``, by column."""
    lines = page.splitlines()
    at = lines.index(header)
    cols = [c.strip() for c in header.strip("|").split("|")]
    out = []
    for line in lines[at + 2:]:
        if not line.startswith("|"):
            break
        out.append(dict(zip(cols, [c.strip() for c in line.strip("|").split("|")], strict=True)))
    return out


def test_machines_column_counts_each_name_on_its_machines(fleet: list[Path], tmp_path: Path) -> None:
    res = merge(fleet, tmp_path / "snaps" / "2026-05-02" / "cursor-merged", min_machines=PLANTED,
                reports=tmp_path / "reports", charts=False)
    assert res.page is not None
    page = Path(res.page).read_text()
    # independently, from each machine's own snapshot: the tool names its census counted, the
    # key sets its nodes hold (at any path)
    names: Counter[str] = Counter()
    keysets: Counter[str] = Counter()
    for s in fleet:
        q = json.loads((s / "census.json").read_text())["tool_names"]
        names.update({r[q["columns"].index("name")] for r in q["rows"]})
        nodes = pl.read_parquet(s / "walk" / "nodes.parquet" / "*.parquet")
        keysets.update(set(nodes["keyset"].cast(pl.String).drop_nulls().to_list()))
    assert names[VALUE] == PLANTED and min(names.values()) < MACHINES == max(names.values())
    tools = md_rows(page, "| name | calls | files | machines |")
    got = {r["name"]: r["machines"] for r in tools if not r["name"].startswith("&lt;")}
    assert got == {n: f"{c} of {MACHINES}" for n, c in names.items() if c >= PLANTED}
    blocks = md_rows(page, "| btype | keyset | blocks | files | machines |")
    named = [r for r in blocks if "&lt;" not in r["keyset"]]
    assert named and all(r["machines"] == f"{keysets[r['keyset']]} of {MACHINES}" for r in named)
    # the column cites the merge's query, whose command the page carries
    assert "survey/merge/queries/machines.sql" in page
    # no client version in these frames: no version tables
    census = json.loads((Path(res.snapshot) / "census.json").read_text())
    assert "merge_versions" not in census and "Drift by client version" not in page


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three machines' Claude Code snapshots (seeds 41..43, 1..3 transcripts: their client
    versions differ, some seen on every machine, some on one)."""
    from survey.synth.claude_code import generate as generate_cc

    snaps = []
    for i in range(3):
        base = tmp_path_factory.mktemp(f"cc{i}")
        root = base / "projects"
        root.mkdir()
        generate_cc(root, seed=41 + i, sessions=i + 1)
        res = run_survey(get("claude_code"), root, snapshots=base / "snapshots", reports=None, date="2026-05-01",
                         cache=False)
        snaps.append(Path(res.snapshot))
    return snaps


def test_drift_by_version_across_machines(versioned: list[Path], tmp_path: Path) -> None:
    from survey.render.history import NO_VERSION, by_version

    res = merge(versioned, tmp_path / "snaps" / "2026-05-02" / "claude_code-merged", min_machines=1,
                reports=tmp_path / "reports", charts=False)
    # independently: each machine's own key sets per version (its own snapshot's by-version rows)
    machines: dict[str, set[str]] = {}
    under: dict[tuple, set[str]] = {}
    for s in versioned:
        mid = machine_id(json.loads((s / "manifest.json").read_text()))
        for r in by_version(s) or []:
            machines.setdefault(r["version"], set()).add(mid)
            if r["version"] != NO_VERSION and r["keyset"]:
                under.setdefault((r["rclass"], r["path"], r["keyset"]), set()).add(r["version"])
    recorded = {v for v in machines if v != NO_VERSION}
    assert len({len(m) for m in machines.values()}) > 1  # the machines per version differ
    census = json.loads((Path(res.snapshot) / "census.json").read_text())
    q = census["merge_versions"]
    got = {r[0]: r[q["columns"].index("machines")] for r in q["rows"]}
    assert got == {v: len(m) for v, m in machines.items()}
    some = {k for k, vs in under.items() if len(vs) < len(recorded)}
    assert some and {tuple(r[:3]) for r in census["merge_version_keysets"]["rows"]} == some
    per = {r[0]: r[q["columns"].index("keysets_not_under_every_version")] for r in q["rows"]}
    assert per == {v: (0 if v == NO_VERSION else sum(v in under[k] for k in some)) for v in machines}
    assert res.page is not None
    page = Path(res.page).read_text()
    rows = md_rows(page, "| version | machines | files | keysets | keysets_not_under_every_version |")
    assert {r["version"]: r["machines"] for r in rows} == {v: str(len(m)) for v, m in machines.items()}


def test_version_on_fewer_than_k_machines_never_named(versioned: list[Path], tmp_path: Path) -> None:
    machines: dict[str, int] = Counter()
    for s in versioned:
        machines.update({r["version"] for r in by_version_rows(s)})
    rare = [v for v, n in machines.items() if n < 2]
    assert rare and all(v in strings_of(s) for s in versioned for v in rare if v in versions_of(s))
    res = merge(versioned, tmp_path / "snaps" / "2026-05-02" / "claude_code-merged", min_machines=2,
                reports=tmp_path / "reports", charts=False)
    text = strings_of(Path(res.snapshot)) + strings_of(tmp_path / "reports")
    assert not [v for v in rare if v in text]
    kept = [v for v, n in machines.items() if n >= 2 and v != "(none)"]
    assert kept and all(v in text for v in kept)


def by_version_rows(snap: Path) -> list[dict]:
    from survey.render.history import by_version

    return by_version(snap) or []


def versions_of(snap: Path) -> set[str]:
    return {r["version"] for r in by_version_rows(snap)}


def test_merge_bench_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench.merge``'s table: a row per engine and fleet size from the newest results file,
    a skipped or failed step said as such; the performance page shows the newest one."""
    from bench import merge as BM

    text = (Path(__file__).parents[1] / "docs" / "performance.md").read_text()
    assert f"{BM.BEGIN}\n{BM.markdown()}{BM.END}" in text
    monkeypatch.setattr(BM, "RESULTS", tmp_path)
    rows = [{"engine": "duckdb", "machines": 1000, "seconds": 12.34, "peak_rss_mb": 456.7, "files": 4000,
             "stages": {"union": 1.25, "threshold": 2.5, "census": 3.75, "total": 12.0}},
            {"engine": "spark", "machines": 10, "skipped": "Java is not installed"}]
    (tmp_path / "2026-01-01-merge.json").write_bytes(b"{}")
    (tmp_path / "2026-01-02-merge.json").write_text(json.dumps(
        {"seeds": 2, "transcripts": 3, "machine": {"git_head": "abcdef0123", "cores": 2}, "rows": rows}))
    md = BM.markdown()
    assert "`bench/results/2026-01-02-merge.json` (code `abcdef0`, 2 cores" in md
    assert "| duckdb | 1,000 | 4,000 | 12.3 s | 1.2 s | 2.5 s | 3.8 s | 457 MB |" in md
    assert "| spark | 10 | – | – | – | – | – | Java is not installed |" in md
    page = tmp_path / "p.md"
    page.write_text(f"a\n{BM.BEGIN}\nold\n{BM.END}\nb\n")
    BM.into(page)
    assert page.read_text() == f"a\n{BM.BEGIN}\n{md}{BM.END}\nb\n"


def test_spark_without_sqlglot_said_before_any_work(fleet: list[Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sqlglot", None)  # as where it is not installed
    out = tmp_path / "d" / "m"
    r = CliRunner().invoke(app, ["merge", *map(str, fleet), "--out", str(out), "--engine", "spark", "--no-page"])
    assert r.exit_code == 2 and "sqlglot is not installed" in r.output and len(r.output.strip().splitlines()) == 1
    assert not out.exists() and not out.parent.exists()


def test_paths_keys_masked_as_the_walk_cuts_them() -> None:
    """``paths.sql`` masks a path's rare keys exactly where ``rarekeys.SEG`` finds keys (the
    rest of the path, brackets, dots and any character, as it was); ``keys.sql`` cuts keys
    by the same expression."""
    from survey.census.rarekeys import SEG
    from survey.merge import threshold

    assert SEG.pattern == threshold.SEG and threshold.SEG in threshold.query("keys")
    paths = ["$", "$.a", "$.a.b", "$.ab.a", "$.a[type=x.a].a", "$.message.content[].a.b[0].c", "$..a.", "$.a\nb.a",
             "$.é.a[].b", "$.b[a.b]x.a", "$.a[]"]
    rare = {"a", "é"}
    run = threshold.DuckRun()
    try:
        run.load("paths", ("p",), [(p,) for p in paths])
        run.table("key_machines", "SELECT * FROM (VALUES ('a', 1), ('é', 1), ('b', 2), ('c', 5)) AS v(k, machines)")
        got = dict(run.rows(threshold.query("paths", 2)))
    finally:
        run.close()
    want = {p: SEG.sub(lambda m: "." + ("<rare-key>" if m.group(1) in rare else m.group(1)), p) for p in paths}
    assert got == {p: w for p, w in want.items() if w != p} and len(got) == 10
