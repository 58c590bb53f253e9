"""M machines' snapshots of one runtime, merged into one snapshot.

The snapshots are checked first (one runtime, one snapshot format, one reviewed vocabulary,
each from a reviewed survey, each machine once): any other is refused, naming what differs.
Their tables are unioned by SQL (``engines``: DuckDB, or Spark in local mode), each row's
file id made distinct per machine and each file tagged with its machine's pseudonymous id
(derived from the machine's root pseudonym: no host name, no path). The publication
threshold (``threshold``) masks what fewer than ``min_machines`` machines saw; the census's
own queries then run over the union (its percentiles are exact: the per-block lengths of
every machine are in it, nothing is estimated), the probes' grep figures are summed, their
structural figures counted again over the union, and the claims stated as a survey states
them. The result is a snapshot like any other, rendered by the same templates.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl

from survey import __version__
from survey.census.collect import node_counts
from survey.census.sql import command, connect, run_census, run_query
from survey.corpus.privacy import load_salt
from survey.evidence.grep.keyhits import key_hits
from survey.merge import engines, threshold
from survey.runtimes import get
from survey.shared import ref_numbers, rel
from survey.snapshot.store import SCHEMA_VERSION, SnapshotWriter, complete, load_json

DEFAULT_MIN_MACHINES = 3
QUERIES = Path(__file__).parent / "queries"
# the merge's own census queries, by the name a page asks for them: machines per key set,
# record class and value; per client version (where the frames record one)
MACHINES_SQL = QUERIES / "machines.sql"
VERSION_SQL = (QUERIES / "versions.sql", QUERIES / "version_keysets.sql")
# the walk tables a merge unions (``node_counts`` is rolled up again from the merged nodes)
ROLLED_UP = frozenset({"node_counts"})


class MergeRefused(ValueError):
    """Snapshots that cannot be merged (one line: what differs, and what to do)."""


@dataclass
class MergeResult:
    snapshot: str
    runtime: str
    engine: str
    machines: int
    min_machines: int
    files: int
    masked: dict[str, int]
    page: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def machine_id(manifest: dict) -> str:
    """A machine's pseudonymous id: 16 hex digits of sha256 over its root pseudonym (itself
    salted on that machine), ``m-`` before them."""
    return "m-" + hashlib.sha256(f"machine\0{manifest.get('root')}".encode()).hexdigest()[:16]


def check(snaps: list[Path]) -> dict[str, tuple[Path, dict]]:
    """The snapshots by machine id, with their manifests; ``MergeRefused`` where they cannot
    be merged."""
    if not snaps:
        raise MergeRefused("no snapshot to merge: name at least one snapshot folder")
    got: dict[str, tuple[Path, dict]] = {}
    first: dict | None = None
    for s in snaps:
        if not complete(s):
            raise MergeRefused(f"{s} is not a snapshot (no manifest.json)")
        m = load_json(s, "manifest")
        if not isinstance(m, dict) or not isinstance(m.get("counts"), dict):
            raise MergeRefused(f"{s}: its manifest.json is not a snapshot's manifest")
        if m.get("merged"):
            raise MergeRefused(f"{s} is itself a merge: merge the machines' own snapshots")
        if m.get("mode") != "reviewed":
            raise MergeRefused(f"{s} was surveyed in {m.get('mode')} mode: only reviewed snapshots leave a machine")
        if m.get("snapshot_schema") != SCHEMA_VERSION:
            raise MergeRefused(f"{s} has snapshot format {m.get('snapshot_schema')}, this survey reads format "
                               f"{SCHEMA_VERSION}: survey that machine again with survey {__version__}")
        if not m.get("vocab"):
            raise MergeRefused(f"{s} records no vocabulary version (surveyed before survey recorded one): "
                               "survey that machine again")
        first = first or m
        for what, key in (("runtime", "runtime"), ("vocabulary version", "vocab")):
            if m.get(key) != first.get(key):
                raise MergeRefused(f"{s} has {what} {m.get(key)}, the first snapshot {first.get(key)}: "
                                   f"merge snapshots of one {what}")
        mid = machine_id(m)
        if mid in got:
            raise MergeRefused(f"{s} and {got[mid][0]} are snapshots of one machine and root: merge one of them")
        got[mid] = (s, m)
    return got


def find_snapshots(sources: list[Path], runtime: str | None = None) -> tuple[list[Path], str]:
    """The snapshots named (a snapshot folder each, or a folder holding them anywhere below,
    as a fleet's collected snapshots are laid out: ``machine=<id>/date=<d>/<runtime>``),
    of ``runtime`` where given, and their runtime; ``MergeRefused`` where none is found or
    they are of several runtimes and none was named."""
    found: list[Path] = []
    for src in sources:
        if complete(src):
            found.append(src)
        elif src.is_dir():
            found += sorted(m.parent for m in src.rglob("manifest.json")
                            if not any(part.startswith(".") for part in m.relative_to(src).parts))
        else:
            raise MergeRefused(f"{src} is not a folder")
    runtimes: dict[Path, str] = {}
    for s in found:
        m = load_json(s, "manifest")
        runtimes[s] = str(m.get("runtime")) if isinstance(m, dict) else "?"
    if runtime:
        found = [s for s in found if runtimes[s] == runtime]
    kinds = sorted({runtimes[s] for s in found})
    if not found:
        raise MergeRefused("no snapshot found under " + ", ".join(map(str, sources))
                           + (f" of {runtime}" if runtime else ""))
    if len(kinds) > 1:
        raise MergeRefused(f"the snapshots are of several runtimes ({', '.join(kinds)}): say which with --runtime")
    return found, kinds[0]


def tables_of(snaps: dict[str, Path]) -> list[str]:
    """The walk tables some snapshot has (and the inventory), in name order."""
    names = {p.name.removesuffix(".parquet") for s in snaps.values() for p in (s / "walk").glob("*.parquet")}
    return ["inventory", *sorted(names - ROLLED_UP)]


def schema_of(snaps: dict[str, Path], table: str) -> dict[str, pl.DataType]:
    """A table's columns and types, as the first snapshot holding it wrote them."""
    for s in snaps.values():
        files = engines.table_files(s, table)
        if files:
            schema = dict(pl.read_parquet_schema(files[0][0]))
            if table == "inventory":
                schema["stratum"] = pl.String()
            return schema
    raise AssertionError(table)


def merge(snaps: list[Path], out: Path, *, min_machines: int = DEFAULT_MIN_MACHINES, engine: str = "duckdb",
          date: str | None = None, reports: Path | None = None, charts: bool = True,
          spark: Any = None) -> MergeResult:
    """Merge ``snaps`` (one per machine) into the snapshot ``out`` (written as a survey
    writes one: claimed, written beside it, renamed into place); its page into ``reports``
    where given. ``spark``: a Spark session to run on (``engine="spark"``), else one is
    started in local mode and stopped after."""
    if engine not in engines.ENGINES:
        raise MergeRefused(f"unknown engine {engine!r}: one of {', '.join(engines.ENGINES)}")
    if min_machines < 1:
        raise MergeRefused(f"--min-machines must be 1 or more (got {min_machines})")
    if engine == "spark" and (why := threshold.sqlglot_missing()):  # said before any work
        raise engines.EngineMissing(why)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    by_machine = check(snaps)
    paths = {mid: p for mid, (p, _) in by_machine.items()}
    manifests = {mid: m for mid, (_, m) in by_machine.items()}
    runtime = next(iter(manifests.values()))["runtime"]
    profile = get(runtime)
    writer = SnapshotWriter(out.parent.parent, out.parent.name, out.name)
    try:
        stage = writer.dir / ".stage"
        with _session(engine, spark) as session:
            got, schemas, cols = union(paths, writer.dir / ".union", stage, engine, session)
            timings["union"] = time.perf_counter() - t0
            t = time.perf_counter()
            with threshold.runner(engine, session) as run:
                done, masked = threshold.apply(run, got, schemas, cols, min_machines, load_salt(),
                                               writer.dir / ".threshold")
            tables = read_back(done, schemas)
        _write(writer, tables)
        for d in (stage, writer.dir / ".union", writer.dir / ".threshold"):
            shutil.rmtree(d, ignore_errors=True)
        timings["threshold"] = time.perf_counter() - t
        t = time.perf_counter()
        label = str(out)
        census = run_census(writer.dir, profile, label)
        census.update(machine_queries(writer.dir, label))
        timings["census"] = time.perf_counter() - t
        evidence = merged_evidence(profile, [load_json(p, "evidence") or {} for p in paths.values()],
                                   writer.dir, label, masked, min_machines)
        manifest = merged_manifest(manifests, tables, masked, min_machines, engine, date or out.parent.name)
        from survey.pipeline import state_claims

        writer.write_json("census", census)
        writer.write_json("evidence", evidence)
        writer.write_json("claims", state_claims(profile, census, evidence, manifest))
        timings["total"] = time.perf_counter() - t0
        manifest["timings"] = {k: round(v, 3) for k, v in timings.items()}
        writer.write_json("manifest", manifest)
        final = writer.commit()
    except BaseException:
        writer.abort()
        raise
    page = None
    if reports is not None:
        from survey.render.render import render_page

        page = str(render_page(final, reports / f"{runtime}-merged.md", charts=charts))
    return MergeResult(str(final), runtime, engine, len(paths), min_machines,
                       int(tables["inventory"].height), masked.to_json(), page,
                       {k: round(v, 3) for k, v in timings.items()})


def machine_queries(snap_dir: Path, label: str) -> dict[str, dict]:
    """The merge's own queries over the merged snapshot ``snap_dir`` (``queries/``), recorded
    as the census records its own (file, pasteable command, columns, rows), under
    ``merge_<stem>``: ``machines.sql`` always, the version queries where the frames record a
    client version (``version`` or ``cli_version``)."""
    import tempfile

    files = [MACHINES_SQL]
    spill = tempfile.mkdtemp(prefix="survey-duckdb-")
    con = connect(spill)
    try:
        con.execute("SET VARIABLE snap = ?", [str(snap_dir)])
        frames = snap_dir / "walk" / "frames.parquet"
        if frames.exists():
            cols = {r[0] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(getvariable('snap') || "
                                              "'/walk/frames.parquet')").fetchall()}
            if cols & {"version", "cli_version"}:
                files += VERSION_SQL
        out = {}
        for f in files:
            names, rows = run_query(con, f)
            out[f"merge_{f.stem}"] = {"sql": rel(f), "command": command(f, label), "columns": names, "rows": rows}
        return out
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


@contextmanager
def _session(engine: str, spark: Any = None) -> Iterator[Any]:
    """The Spark session the union and the threshold run on (``spark``, else one started in
    local mode and stopped after); None on DuckDB."""
    if engine != "spark" or spark is not None:
        yield spark
        return
    with engines.spark_session() as s:
        yield s


def union(paths: dict[str, Path], work: Path, stage: Path, engine: str, spark: Any = None
          ) -> tuple[dict[str, Path], dict[str, dict[str, pl.DataType]], dict[str, list[str]]]:
    """Every table of the machines' snapshots, unioned by ``engine`` (written under
    ``work``: each with its ``machine``, its file ids distinct per machine); the tables'
    types, as the machines wrote them, and the columns the union holds (``DERIVED`` ones
    left out)."""
    names = tables_of(paths)
    schemas = {t: schema_of(paths, t) for t in names if any(engines.table_files(p, t) for p in paths.values())}
    staged = engines.stage(paths, list(schemas), stage)
    work.mkdir(parents=True, exist_ok=True)
    cols = {t: list(s) for t, s in schemas.items()}
    run = engines.run_duckdb if engine == "duckdb" else engines.run_spark
    got = run(staged, cols, work) if spark is None else engines.run_spark(staged, cols, work, spark)
    return got, {t: schemas[t] for t in got}, {t: [c for c in cols[t] if c not in engines.DERIVED] for t in got}


def read_back(got: dict[str, Path], schemas: dict[str, dict[str, pl.DataType]]) -> dict[str, pl.DataFrame]:
    """The thresholded tables read back in their own types, ``file_key`` the new file ids'
    64 bits again and ``node_counts`` rolled up again from the nodes."""
    out = {}
    for t, p in got.items():
        df = engines.read_back(p, schemas[t]).collect()
        if "file_key" in schemas[t]:
            df = df.with_columns(file_key=ref_numbers(df["file_id"].cast(pl.String)))
            df = df.select(*[c for c in schemas[t] if c in df.columns], "machine")
        out[t] = df
    if "nodes" in out:
        out["node_counts"] = node_counts(out["nodes"].drop("machine"))
    return out


def _write(writer: SnapshotWriter, tables: dict[str, pl.DataFrame]) -> None:
    """The merged tables into the snapshot: the inventory by stratum (``machine`` beside each
    file), the walk tables without ``machine`` (but ``files``: their file ids say it)."""
    for t, df in tables.items():
        if t == "inventory":
            writer.write_inventory(df)
        else:
            writer.write_table(t, df if t == "files" or "machine" not in df.columns else df.drop("machine"))


def merged_manifest(manifests: dict[str, dict], tables: dict[str, pl.DataFrame], masked: threshold.Masked,
                    k: int, engine: str, date: str) -> dict:
    """The merge's manifest: the machines' counts and problems summed, where they came from
    (their pseudonymous ids, their snapshots' fingerprints), the threshold and what it masked."""
    ms = list(manifests.values())
    first = ms[0]
    counts: Counter[str] = Counter()
    surfaces: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    for m in ms:
        counts.update({c: int(v) for c, v in m["counts"].items() if isinstance(v, int)})
        surfaces.update(m["counts"].get("by_surface") or {})
        problems.update(m.get("problems") or {})
    fp = hashlib.sha256("".join(sorted(str(m.get("fingerprint")) for m in ms)).encode()).hexdigest()
    samples = {orjson.dumps(m.get("sample"), option=orjson.OPT_SORT_KEYS) for m in ms}
    sample = first.get("sample") if len(samples) == 1 else {
        "n": None, "seed": None, "stratum": None, "method": "as each machine surveyed (the machines differ)"}
    blocks = tables["blocks"].height if "blocks" in tables else counts.get("blocks", 0)
    return {
        **{key: first.get(key) for key in ("tool", "runtime", "title", "mode", "allow_mcp_names", "vocab")},
        "tool_version": __version__,
        "snapshot_schema": SCHEMA_VERSION,
        "date": date,
        "root": None,
        "fixture": any(m.get("fixture") for m in ms),
        "synthetic": all(m.get("synthetic") for m in ms),
        "fingerprint": fp,
        "sample": sample,
        "counts": {**dict(counts), "blocks": int(blocks), "by_surface": dict(sorted(surfaces.items()))},
        "problems": dict(sorted(problems.items())),
        "root_check": None,
        "privacy": {"rare_keys_collapsed": sum(int((m.get("privacy") or {}).get("rare_keys_collapsed") or 0)
                                               for m in ms) + masked.keys,
                    "min_files": max(int((m.get("privacy") or {}).get("min_files") or 1) for m in ms),
                    "min_machines": k},
        "merged": {"machines": len(ms), "min_machines": k, "engine": engine,
                   "machine_ids": sorted(manifests), "masked": masked.to_json(),
                   "key_machines": masked.published_keys,
                   "snapshots": {mid: {"date": m.get("date"), "fingerprint": m.get("fingerprint"),
                                       "files": m["counts"].get("files"), "tool_version": m.get("tool_version")}
                                 for mid, m in sorted(manifests.items())}},
        "disagreements": sorted({d for m in ms for d in (m.get("disagreements") or [])}),
    }


_SUMMED = ("files_inventory", "files_duckdb", "bytes_duckdb", "files_not_utf8", "files_rg")


def merged_evidence(profile: Any, evidences: list[dict], snap_dir: Path, label: str, masked: threshold.Masked,
                    k: int) -> dict:
    """The machines' probes as one: their grep figures summed (files, hits, bytes), with how
    many machines matched; each probe's structural figure counted again over the union (its
    paths are the merged walk's, thresholded); its verdict as a survey gives it."""
    structural = key_hits(snap_dir, list(profile.probes), label)
    scopes: dict[str, dict] = {}
    for ev in evidences:
        for name, sc in (ev.get("scopes") or {}).items():
            acc = scopes.setdefault(name, {**{c: sc.get(c) for c in ("globs", "rg_globs", "literals",
                                                                         "duckdb_command")},
                                           **dict.fromkeys(_SUMMED, 0), "machines": 0, "rg_errors": 0,
                                           "rg_exit_code": 0, "duckdb_fallback": None,
                                           "files_from_cache": {"duckdb": 0, "rg": 0}})
            for c in _SUMMED:
                acc[c] += int(sc.get(c) or 0)
            acc["rg_errors"] += len(sc.get("rg_errors") or []) if isinstance(sc.get("rg_errors"), list) \
                else int(sc.get("rg_errors") or 0)
            acc["machines"] += 1
            acc["rg_exit_code"] = max(acc["rg_exit_code"], int(sc.get("rg_exit_code") or 0))
            fb = sc.get("duckdb_fallback")
            if isinstance(fb, dict):  # a machine's DuckDB grep read the walk's files alone: counted, not quoted
                was = acc["duckdb_fallback"] or {"machines": 0, "files_searched": 0}
                acc["duckdb_fallback"] = {"machines": was["machines"] + 1,
                                          "files_searched": was["files_searched"] + int(fb.get("files_searched") or 0)}
                acc["duckdb_fallback"]["error"] = f"on {acc['duckdb_fallback']['machines']} machine(s)"
    probes: dict[str, dict] = {}
    for ev in evidences:
        for p in ev.get("probes") or []:
            got = probes.get(p["id"])
            if got is None:
                got = probes[p["id"]] = {
                    **{c: p.get(c) for c in ("id", "about", "expect", "scope", "literals", "duckdb_command",
                                             "rg_command")},
                    "files_scanned": 0, "bytes_scanned": 0, "machines": 0, "machines_matched": 0,
                    "agree": True, "duckdb": _hits(), "rg": _hits()}
            acc = got
            acc["files_scanned"] += int(p.get("files_scanned") or 0)
            acc["bytes_scanned"] += int(p.get("bytes_scanned") or 0)
            acc["machines"] += 1
            acc["machines_matched"] += int((p.get("duckdb") or {}).get("files_matched") or 0) > 0
            acc["agree"] = acc["agree"] and bool(p.get("agree"))
            for eng in ("duckdb", "rg"):
                _add_hits(acc[eng], p.get(eng) or {})
    for acc in probes.values():
        s = structural.get(acc["id"])
        acc["structural"] = s
        hit = acc["duckdb"]["files_matched"] > 0
        holds = (not hit) if acc["expect"] == "absent" else (hit if acc["expect"] == "present" else True)
        if s and acc["expect"] == "absent":
            holds = s["files_with_key"] == 0
        acc["verdict"] = ("disagreement" if not acc["agree"] else
                          ("counted" if acc["expect"] == "count" else ("holds" if holds else "fails")))
        acc["files_from_cache"] = {"duckdb": 0, "rg": 0}
    return {"scopes": scopes, "probes": list(probes.values()), "duckdb_version": duckdb.__version__,
            "merged": {"machines": len(evidences), "min_machines": k, "masked": masked.to_json()}}


def _hits() -> dict:
    return {"files_matched": 0, "occurrences": 0, "per_literal": {}}


def _add_hits(acc: dict, got: dict) -> None:
    acc["files_matched"] += int(got.get("files_matched") or 0)
    acc["occurrences"] += int(got.get("occurrences") or 0)
    for lit, fig in (got.get("per_literal") or {}).items():
        mine = acc["per_literal"].setdefault(lit, {})
        for c, v in fig.items():
            if isinstance(v, int) and not isinstance(v, bool):
                mine[c] = mine.get(c, 0) + v
