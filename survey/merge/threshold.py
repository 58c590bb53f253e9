"""The publication threshold: only what ``k`` machines saw is named; the rest is counted.

A key (in a key set or a path), a vocabulary value (of a value path, a record class, a
frame field, a block's type or name, a heading) or a shape (a key set whole) seen on fewer
than ``k`` machines is replaced everywhere it appears, as the privacy gate replaces a rare
key on one machine: a key by ``<rare-key>``, a value by ``<withheld>`` (its withheld id a
pseudonym under the merging machine's salt, so distinct values still count), a key set by
``<rare-key>``. Tables that hold one row per file and key are summed again after.

The steps are SQL (``queries/threshold/``), run by the engine that ran the union, over the
union's Parquet: machines per key (``keys.sql``); each key set's and path's rare keys masked
(``keysets.sql``, ``paths.sql``); machines per key set whole (``shapes.sql``), per value
(``values.sql``) and per value of a value path (``pairs.sql``); what is replaced, by what
(``masks.sql``); each table read through it and summed again (``apply.sql``, ``sum.sql``).
The texts are DuckDB's; on Spark they run as ``sqlglot`` transpiles them (``spark_sql``).

The withheld ids are the one step that is not SQL: HMAC-SHA256 under the merging
machine's salt is neither engine's function (DuckDB has none; Spark's would need the salt
in the query text, where an engine may log it). So the rare pairs (few: each is seen on
fewer than ``k`` machines) are read out, named in Python by ``privacy.pseudonyms`` once
each, and joined back as the small table ``withheld_ids``: the salt never enters an engine.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from survey.census.collect import FRAME_COUNT_KEYS
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import MASKS, RARE_KEY, WITHHELD, pseudonyms

QUERIES = Path(__file__).parent / "queries" / "threshold"
SEG = r"\.([^.\[\]]+)"  # a path's keys, as ``rarekeys.SEG`` cuts them (``keys.sql`` and ``paths.sql`` hold it)
# columns holding key sets (their keys thresholded, then the set whole) or paths (their keys)
KEYSET_COLS = ("keyset", "input_keyset", "rawset")
PATH_COLS = ("path",)
# columns holding vocabulary values, thresholded by (column, value); the walk tables' other
# string columns hold the tool's own words (statuses, JSON types, format and marker names)
VALUE_COLS: dict[str, tuple[str, ...] | None] = {"frames": None, "blocks": ("carrier", "btype", "name", "input_type"),
              "frame_counts": ("rclass",), "nodes": ("rclass",), "rawsets": ("rclass",),
              "formats": ("rclass",), "headings": ("name", "value")}
# frames: every string column but these (the runtime's frame fields, and rclass)
FRAME_OWN = frozenset({"file_id", "frame_status", "keyset", "machine"})
# per table: the columns a row is one of (summed again where masking made two rows one)
SUMS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "nodes": (("file_id", "rclass", "path", "jtype", "keyset"), {"count": "sum", "max_len": "max"}),
    "values": (("file_id", "path", "value", "withheld_id"), {"count": "sum"}),
    "frame_counts": (FRAME_COUNT_KEYS, {c: "sum" for c in ("records", "bytes", *FLAGS)}),
    "rawsets": (("file_id", "rclass", "path", "rawset"), {"count": "sum"}),
    "formats": (("file_id", "rclass", "path", "format"), {"count": "sum"}),
    "headings": (("file_id", "name", "value"), {"count": "sum"}),
}
# the queries take a name beginning with "<" for a mask or a placeholder, never a name
assert all(m.startswith("<") for m in MASKS) and RARE_KEY in MASKS and WITHHELD in MASKS


@dataclass
class Masked:
    """What the threshold withheld: how many keys, values and shapes (never which)."""

    keys: int = 0
    values: int = 0
    shapes: int = 0
    published_keys: dict[str, int] = field(default_factory=dict)  # key -> machines (>= k)

    def to_json(self) -> dict:
        return {"keys": self.keys, "values": self.values, "shapes": self.shapes}


def query(name: str, k: int | None = None, **parts: str) -> str:
    """``queries/threshold/<name>.sql`` with its ``{min_machines}`` and ``{parts}`` filled in."""
    text = (QUERIES / f"{name}.sql").read_text()
    if k is not None:
        text = text.replace("{min_machines}", str(int(k)))
    for key, v in parts.items():
        text = text.replace("{" + key + "}", v)
    return text


def sqlglot_missing() -> str | None:
    """Why the threshold cannot be transpiled for Spark here (no sqlglot), or None."""
    try:
        import sqlglot  # noqa: F401
    except ImportError:
        return "sqlglot is not installed (pip install 'survey[spark]')"
    return None


def spark_sql(text: str) -> str:
    """A DuckDB text as Spark SQL, transpiled by ``sqlglot`` (its comments dropped)."""
    import sqlglot

    return "\n".join(sqlglot.transpile(text, read="duckdb", write="spark", comments=False))


class DuckRun:
    """The threshold's statements on a DuckDB connection of its own (spilling to a temp folder)."""

    def __init__(self) -> None:
        self.spill = tempfile.mkdtemp(prefix="survey-merge-")
        self.con = duckdb.connect()
        self.con.execute("SET temp_directory = ?", [self.spill])

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.spill, ignore_errors=True)

    def read(self, name: str, path: Path) -> None:
        glob = path / "*.parquet" if path.is_dir() else path
        self.con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet('{_quoted(glob)}')")

    def view(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")

    def table(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

    def rows(self, sql: str) -> list[tuple]:
        return self.con.execute(sql).fetchall()

    def load(self, name: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} ({', '.join(c + ' VARCHAR' for c in columns)})")
        if rows:
            self.con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in columns)})", rows)

    def write(self, sql: str, dst: Path) -> None:
        self.con.execute(f"COPY ({sql}) TO '{_quoted(dst)}' (FORMAT parquet)")


class SparkRun:
    """The same statements on a Spark session, each transpiled (``spark_sql``); the small
    tables they make cached, as DuckDB's temp tables are held."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.cached: list[Any] = []
        self.ran: list[str] = []  # every text run, as Spark read it

    def close(self) -> None:
        for df in self.cached:
            df.unpersist()

    def sql(self, text: str) -> Any:
        self.ran.append(spark_sql(text))
        return self.spark.sql(self.ran[-1])

    def read(self, name: str, path: Path) -> None:
        self.spark.read.parquet(os.fspath(path)).createOrReplaceTempView(name)

    def view(self, name: str, sql: str) -> None:
        self.sql(sql).createOrReplaceTempView(name)

    def table(self, name: str, sql: str) -> None:
        df = self.sql(sql).cache()
        self.cached.append(df)
        df.createOrReplaceTempView(name)

    def rows(self, sql: str) -> list[tuple]:
        return [tuple(r) for r in self.sql(sql).collect()]

    def load(self, name: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
        schema = ", ".join(f"{c} string" for c in columns)
        self.spark.createDataFrame(rows, schema=schema).createOrReplaceTempView(name)

    def write(self, sql: str, dst: Path) -> None:
        self.sql(sql).write.mode("overwrite").parquet(os.fspath(dst))


@contextmanager
def runner(engine: str, spark: Any = None) -> Iterator[DuckRun | SparkRun]:
    """Where the threshold runs: DuckDB, or the Spark session ``spark`` (``engine="spark"``)."""
    run: DuckRun | SparkRun = DuckRun() if engine == "duckdb" else SparkRun(spark)
    try:
        yield run
    finally:
        run.close()


def _quoted(p: Path) -> str:
    return os.fspath(p).replace("'", "''")


def value_columns(schemas: dict[str, dict[str, pl.DataType]]) -> dict[str, tuple[str, ...]]:
    """Per table, its columns holding vocabulary values (``VALUE_COLS``; frames: every string
    column but ``FRAME_OWN``)."""
    out = {}
    for t, named in VALUE_COLS.items():
        if t not in schemas:
            continue
        schema = schemas[t]
        cols = named if named is not None else tuple(
            c for c, d in schema.items() if c not in FRAME_OWN and d in (pl.String, pl.Categorical))
        out[t] = tuple(c for c in cols if c in schema)
    return out


def _union(selects: list[str], columns: tuple[str, ...]) -> str:
    """``selects`` as one UNION ALL; none: no row, of ``columns`` (strings)."""
    if selects:
        return "\nUNION ALL\n".join(selects)
    nulls = ", ".join(f"CAST(NULL AS VARCHAR) AS {c}" for c in columns)
    return f"SELECT * FROM (SELECT {nulls}) AS e WHERE {columns[0]} IS NOT NULL"


def apply(run: DuckRun | SparkRun, inputs: dict[str, Path], schemas: dict[str, dict[str, pl.DataType]],
          columns: dict[str, list[str]], k: int, salt: bytes, out: Path) -> tuple[dict[str, Path], Masked]:
    """Every table of the union (``inputs``: its Parquet, of ``columns`` and ``machine``) with
    what fewer than ``k`` machines saw masked, written by ``run``'s engine to
    ``out/<table>.parquet``; what was masked, counted."""
    for t, p in inputs.items():
        run.read(f"u_{t}", p)
    have = {t: [c for c in columns[t] if c != "machine"] for t in inputs}
    run.view("keysets", _union([f"SELECT DISTINCT machine, CAST({c} AS VARCHAR) AS s FROM u_{t}"
                                for t in inputs for c in KEYSET_COLS if c in have[t]], ("machine", "s")))
    run.view("paths", _union([f"SELECT DISTINCT CAST({c} AS VARCHAR) AS p FROM u_{t}"
                              for t in inputs for c in PATH_COLS if c in have[t]], ("p",)))
    vcols = value_columns({t: schemas[t] for t in inputs})
    run.view("vocab", _union([f"SELECT DISTINCT '{c}' AS col, machine, CAST({c} AS VARCHAR) AS v FROM u_{t}"
                              for t, cs in vcols.items() for c in cs if c in have[t]], ("col", "machine", "v")))
    if "nodes" not in inputs:
        run.view("u_nodes", _union([], ("machine", "keyset", "path")))
    if "values" not in inputs:
        run.view("u_values", _union([], ("machine", "path", "value", "withheld_id")))
    run.table("key_machines", query("keys"))
    run.table("keyset_keys", query("keysets", k))
    run.table("shape_machines", query("shapes"))
    run.table("path_keys", query("paths", k))
    run.table("value_machines", query("values"))
    run.table("pair_machines", query("pairs"))
    run.table("masks", query("masks", k))
    keys = run.rows("SELECT k, machines FROM key_machines")
    masked = Masked(keys=sum(m < k for _, m in keys), published_keys=dict(sorted((n, m) for n, m in keys if m >= k)))
    masked.shapes = run.rows(f"SELECT count(*) FROM shape_machines WHERE machines < {k}")[0][0]
    rare = run.rows(f"SELECT path, value FROM pair_machines WHERE machines < {k}")
    masked.values = run.rows(f"SELECT count(*) FROM value_machines WHERE machines < {k}")[0][0] + len(rare)
    ids = pseudonyms(salt, [f"{p}\0{v}" for p, v in rare], "w")
    run.load("withheld_ids", ("path", "value", "withheld_id"),
             [(p, v, i) for (p, v), i in zip(rare, ids, strict=True)])
    kinds = {r[0] for r in run.rows("SELECT DISTINCT col FROM masks")} | ({":withheld"} if rare else set())
    out.mkdir(parents=True, exist_ok=True)
    got = {}
    for t in inputs:
        sql = table_sql(t, [*have[t], "machine"], vcols.get(t, ()), kinds)
        got[t] = inputs[t] if sql is None else out / f"{t}.parquet"
        if sql is not None:
            run.write(sql, got[t])
    return got, masked


def table_sql(t: str, columns: list[str], values: tuple[str, ...], kinds: set[str]) -> str | None:
    """The union's table ``t`` (its ``columns``) through the masks (``apply.sql``) of the
    ``kinds`` that mask something (``masks.col``; ``:withheld``: a pair is withheld), summed
    again where it is one of ``SUMS`` (``sum.sql``); None where no mask reaches it (the
    union's table is the table)."""
    cols, joins = [], []

    def through(c: str, kind: str) -> str:
        if kind not in kinds:
            return f"t.{c}"
        joins.append(f"LEFT JOIN masks AS m_{c} ON m_{c}.col = '{kind}' AND m_{c}.old = t.{c}")
        return f"coalesce(m_{c}.new, t.{c}) AS {c}"

    withheld = t == "values" and ":withheld" in kinds
    for c in columns:
        if c in KEYSET_COLS:
            cols.append(through(c, ":keyset"))
        elif c in PATH_COLS:
            cols.append(through(c, ":path"))
        elif c in values:
            cols.append(through(c, c))
        elif withheld and c in ("value", "withheld_id"):
            cols.append(f"CASE WHEN w.withheld_id IS NULL THEN t.value ELSE '{WITHHELD}' END AS value" if c == "value"
                        else "coalesce(w.withheld_id, t.withheld_id) AS withheld_id")
        else:
            cols.append(f"t.{c}")
    if withheld:
        path = "coalesce(m_path.new, t.path)" if any(j.startswith("LEFT JOIN masks AS m_path ") for j in joins) \
            else "t.path"
        joins.append(f"LEFT JOIN withheld_ids AS w ON t.withheld_id IS NULL AND w.path = {path} AND w.value = t.value")
    if not joins:
        return None
    masked = query("apply", columns=",\n       ".join(cols), table=f"u_{t}", joins="\n".join(joins))
    if t not in SUMS:
        return masked
    keys, aggs = SUMS[t]
    kept = [c for c in (*keys, "machine") if c in columns]
    agg = [f"coalesce(CAST(sum({c}) AS BIGINT), 0) AS {c}" if how == "sum" else f"max({c}) AS {c}"
           for c, how in aggs.items() if c in columns]
    return query("sum", keys=", ".join(kept), aggregates=", ".join(agg), masked=masked)

