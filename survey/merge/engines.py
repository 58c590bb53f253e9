"""The union of a fleet's tables, by one SQL text on DuckDB (default) or on Apache Spark.

Each machine's snapshot is staged as a hive-partitioned folder per table (hard links, no
bytes copied): ``<stage>/<table>/machine=<id>/part-*.parquet`` (the inventory keeps its
``stratum=`` level under it). Both engines read that folder as the view ``tbl`` and run
``queries/union.sql`` over it, the same text, writing the union as Parquet; ``merge``
reads it back with polars, in the tables' own types (Spark widens unsigned integers).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from survey.snapshot.store import WRITE_OPTIONS, link_all

UNION_SQL = Path(__file__).parent / "queries" / "union.sql"
ENGINES = ("duckdb", "spark")
# a file id made distinct across machines: the same expression in DuckDB and Spark SQL
FILE_ID = "'f-' || substr(md5(machine || ':' || file_id), 1, 16) AS file_id"
# columns written again from others after the union (``file_key``: the new file id's 64 bits)
DERIVED = frozenset({"file_key"})
_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
# words neither engine takes as a bare column name
_RESERVED = frozenset({"select", "from", "where", "group", "order", "by", "union", "all", "table", "as", "on",
                       "join", "limit", "and", "or", "not", "null", "case", "when", "then", "else", "end"})


# Spark in local mode on a fleet's small tables: its fixed costs (the JVM's start and its
# compiling, a job per table), not the data, set its time. The stage's folders are listed by
# the driver (not by a job of a task per folder once past 32); each query, a projection, runs
# interpreted rather than compiled to Java first; the union has no shuffle.
SPARK_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    "spark.sql.sources.parallelPartitionDiscovery.threshold": "1000000",
    "spark.sql.codegen.wholeStage": "false",
}
# the JVM's quick compiler only and one garbage collector thread: the JVM's own CPU at start
# and per query, halved on 2 cores (``bench/merge.py`` measures it)
SPARK_JAVA_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


class EngineMissing(RuntimeError):
    """The engine asked for is not installed here (pyspark, or Java for it)."""


def union_sql(columns: list[str]) -> str:
    """``queries/union.sql`` for a table of ``columns`` (in order; ``file_id`` as ``FILE_ID``,
    ``DERIVED`` ones left out). A column name either engine would read otherwise is refused."""
    out = []
    for c in columns:
        if c in DERIVED or c == "machine":
            continue
        if not _IDENT.match(c) or c in _RESERVED:
            raise ValueError(f"a walk table's column is not a plain SQL name: {c!r}")
        out.append(FILE_ID if c == "file_id" else c)
    return UNION_SQL.read_text().replace("{columns}", ", ".join(out))


def table_files(snap: Path, table: str) -> list[tuple[str, str]]:
    """A snapshot's Parquet files of ``table`` (a walk table's file or folder of parts, or the
    inventory's partitions), each with its path under the machine's folder in the stage."""
    if table == "inventory":
        d = snap / "inventory"
        return [(os.fspath(f), f"{f.parent.name}/{f.name}") for f in sorted(d.glob("*/*.parquet"))]
    p = snap / "walk" / f"{table}.parquet"
    if p.is_dir():
        return [(os.fspath(f), f"part-{i:06d}.parquet") for i, f in enumerate(sorted(p.glob("*.parquet")))]
    return [(os.fspath(p), "part-000000.parquet")] if p.is_file() else []


def stage(snaps: dict[str, Path], tables: list[str], where: Path) -> dict[str, Path]:
    """Every machine's files of each table, hard-linked (copied where a link cannot be made)
    into a hive-partitioned folder per table; the folders of the tables some machine has."""
    out = {}
    for t in tables:
        for machine, snap in snaps.items():
            files = table_files(snap, t)
            if not files:
                continue
            d = where / t / f"machine={machine}"
            for sub in {os.path.dirname(name) for _, name in files}:
                (d / sub).mkdir(parents=True, exist_ok=True)
            for src, name in files:
                link_all([(src, os.path.basename(name))], d / os.path.dirname(name))
            out[t] = where / t
    return out


def read_back(path: Path, schema: dict[str, pl.DataType]) -> pl.LazyFrame:
    """An engine's union (a file, or a folder of parts as Spark writes), in ``schema``'s types
    (``machine`` a string; a column the union lacks, null)."""
    scan = pl.scan_parquet(path / "*.parquet" if path.is_dir() else path)
    have = scan.collect_schema().names()
    cols = [(pl.col(c).cast(t) if c in have else pl.lit(None, dtype=t).alias(c))
            for c, t in schema.items() if c not in DERIVED]
    return scan.select(*cols, pl.col("machine").cast(pl.String))


def run_duckdb(staged: dict[str, Path], columns: dict[str, list[str]], out: Path) -> dict[str, Path]:
    """Each staged table's union by DuckDB, written to ``out/<table>.parquet``."""
    spill = tempfile.mkdtemp(prefix="survey-merge-")
    con = duckdb.connect()
    try:
        con.execute("SET temp_directory = ?", [spill])
        got = {}
        for t, d in staged.items():
            glob = os.fspath(d / ("*/*/*.parquet" if t == "inventory" else "*/*.parquet"))
            con.execute(f"CREATE OR REPLACE VIEW tbl AS SELECT * FROM read_parquet('{_quoted(Path(glob))}', "
                        "hive_partitioning = true, hive_types_autocast = false, union_by_name = true)")
            dst = out / f"{t}.parquet"
            con.execute(f"COPY ({union_sql(columns[t])}) TO '{_quoted(dst)}' (FORMAT parquet)")
            got[t] = dst
        return got
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def _quoted(p: Path) -> str:
    return os.fspath(p).replace("'", "''")


def java_missing() -> str | None:
    """Why Spark cannot start here (no pyspark, no Java), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'survey[spark]')"
    java_home = os.environ.get("JAVA_HOME")
    if not (java_home and (Path(java_home) / "bin" / "java").exists()) and shutil.which("java") is None:
        return "Java is not installed (Spark needs a JDK 17 or later: JAVA_HOME or java on PATH)"
    return None


@contextmanager
def spark_session() -> Iterator[Any]:
    """A Spark session in local mode whose files (spill, warehouse, derby) live in a temp
    folder, never the working directory; stopped after."""
    why = java_missing()
    if why:
        raise EngineMissing(why)
    from pyspark.sql import SparkSession

    tmp = tempfile.mkdtemp(prefix="survey-spark-")
    builder = SparkSession.builder.master("local[2]").appName("survey-merge")
    for key, value in SPARK_CONF.items():
        builder = builder.config(key, value)
    spark = (builder.config("spark.local.dir", tmp)
             .config("spark.sql.warehouse.dir", os.path.join(tmp, "warehouse"))
             .config("spark.driver.extraJavaOptions", " ".join([*SPARK_JAVA_OPTIONS, f"-Dderby.system.home={tmp}"]))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def run_spark(staged: dict[str, Path], columns: dict[str, list[str]], out: Path, spark: Any = None) -> dict[str, Path]:
    """Each staged table's union by Spark SQL (local mode; ``spark``: a session to use, else
    one started and stopped here), written to ``out/<table>.parquet`` as a folder of parts."""
    if spark is None:
        with spark_session() as s:
            return run_spark(staged, columns, out, s)
    got = {}
    for t, d in staged.items():
        schema = spark_schema(d, t, columns[t])
        reader = spark.read if schema is None else spark.read.schema(schema)
        reader.parquet(os.fspath(d)).createOrReplaceTempView("tbl")
        dst = out / f"{t}.parquet"
        spark.sql(union_sql(columns[t])).write.mode("overwrite").parquet(os.fspath(dst))
        got[t] = dst
    return got


def spark_schema(staged: Path, table: str, columns: list[str]) -> Any:
    """The Spark schema of a staged table, as Spark would infer it from its first file (with
    the folder levels ``machine``, and the inventory's ``stratum``, strings), given so that Spark runs no job
    per table to read a footer; None (Spark infers it) where that file lacks one of
    ``columns`` or holds a type this does not map."""
    from pyspark.sql import types as T

    first = min(staged.glob("*/*/*.parquet" if table == "inventory" else "*/*.parquet"), default=None)
    if first is None:
        return None
    types = _spark_types()
    fields = []
    for c, dtype in pl.read_parquet_schema(first).items():
        got = types.get(type(dtype))
        if isinstance(dtype, pl.Datetime):
            got = (T.TimestampType if dtype.time_zone else T.TimestampNTZType) if dtype.time_unit != "ns" else None
        if got is None:
            return None
        fields.append(T.StructField(c, got()))
    names = {f.name for f in fields}
    if any(c not in names for c in columns if c not in DERIVED and c not in ("machine", "stratum")):
        return None
    for part in ("machine", "stratum") if table == "inventory" else ("machine",):
        if part not in names:  # (a file's column of the folder level's name is that level's)
            fields.append(T.StructField(part, T.StringType()))
    return T.StructType(fields)


def _spark_types() -> dict[type, Any]:
    """Polars' Parquet types as Spark reads them (unsigned integers widened, as Spark does)."""
    from pyspark.sql import types as T

    return {pl.String: T.StringType, pl.Categorical: T.StringType, pl.Boolean: T.BooleanType,
            pl.Int8: T.ByteType, pl.Int16: T.ShortType, pl.Int32: T.IntegerType, pl.Int64: T.LongType,
            pl.UInt8: T.ShortType, pl.UInt16: T.IntegerType, pl.UInt32: T.LongType,
            pl.UInt64: lambda: T.DecimalType(20, 0), pl.Float32: T.FloatType, pl.Float64: T.DoubleType,
            pl.Date: T.DateType}


def write(df: pl.DataFrame, path: Path) -> None:
    df.write_parquet(path, **WRITE_OPTIONS)
