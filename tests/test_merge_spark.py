"""The merge's SQL on Spark (local mode) gives exactly DuckDB's merge.

Three machines' Cursor corpora (``survey/synth``, seeds 31..33, in ``tmp_path``) are
surveyed and merged twice, once per engine: every table of the two merged snapshots holds
the same rows in the same types, and the census over them the same rows. Both engines ran
one SQL text (``union_sql``): the test holds it to the file it comes from. The threshold's
steps ran on Spark as ``sqlglot`` transpiled them from their files; a key and a value planted
on one machine (of three, at ``--min-machines 2``) reach no byte of the Spark merge. Spark is started
in local mode here; without Java (or pyspark) the test is skipped and says which is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from survey.merge import engines, threshold
from survey.merge.merge import merge
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.cursor import generate
from tests.test_merge import KEY, VALUE, plant, strings_of

WHY = engines.java_missing() or threshold.sqlglot_missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"Spark cannot start here: {WHY}")


def table(snap: Path, name: str) -> pl.DataFrame:
    p = snap / "inventory" if name == "inventory" else snap / "walk" / f"{name}.parquet"
    df = pl.read_parquet(p / "**" / "*.parquet" if p.is_dir() else p)
    return df.sort(df.columns)


def plain(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(pl.col(pl.Categorical).cast(pl.String))


def test_spark_and_duckdb_merge_alike(tmp_path: Path) -> None:
    snaps = []
    for i in range(3):
        root = tmp_path / f"m{i}" / "projects"
        root.mkdir(parents=True)
        generate(root, seed=31 + i, sessions=3)
        if i == 0:
            plant(root)
        snaps.append(Path(run_survey(get("cursor"), root, snapshots=tmp_path / f"m{i}" / "snapshots",
                                     reports=None, date="2026-06-01", cache=False).snapshot))
    seen: list[str] = []
    real = engines.union_sql

    def spy(columns: list[str]) -> str:
        seen.append(real(columns))
        return seen[-1]

    ran: list[str] = []
    real_spark = threshold.spark_sql

    def spy_spark(text: str) -> str:
        ran.append(real_spark(text))
        return ran[-1]

    engines.union_sql = spy  # type: ignore[assignment]
    threshold.spark_sql = spy_spark  # type: ignore[assignment]
    try:
        d = merge(snaps, tmp_path / "out" / "2026-06-02" / "duck", min_machines=2, engine="duckdb")
        n = len(seen)
        s = merge(snaps, tmp_path / "out" / "2026-06-02" / "spark", min_machines=2, engine="spark")
    finally:
        engines.union_sql = real  # type: ignore[assignment]
        threshold.spark_sql = real_spark  # type: ignore[assignment]
    assert seen[:n] == seen[n:] and n > 0  # one SQL text, table by table, on both engines
    sql = engines.UNION_SQL.read_text().split("{columns}")
    assert all(t.startswith(sql[0]) and t.endswith(sql[1]) for t in seen)
    a, b = Path(d.snapshot), Path(s.snapshot)
    names = ["inventory", *sorted(p.name.removesuffix(".parquet") for p in (a / "walk").iterdir())]
    assert names == ["inventory", *sorted(p.name.removesuffix(".parquet") for p in (b / "walk").iterdir())]
    for name in names:
        x, y = table(a, name), table(b, name)
        assert x.schema == y.schema, name
        assert plain(x).equals(plain(y)), name
    assert d.masked == s.masked and d.files == s.files
    ca, cb = (json.loads((p / "census.json").read_text()) for p in (a, b))
    assert {k: v["rows"] for k, v in ca.items()} == {k: v["rows"] for k, v in cb.items()}
    # the threshold's steps ran on Spark as transpiled from their files
    for name in ("keys", "shapes", "values", "pairs"):
        assert real_spark(threshold.query(name)) in ran, name
    for name in ("keysets", "paths", "masks"):
        assert real_spark(threshold.query(name, 2)) in ran, name
    # the canary, on both engines: planted on one machine of three, at k = 2 never named
    assert KEY in strings_of(snaps[0]) and VALUE in strings_of(snaps[0])
    assert d.masked["keys"] >= 1 and d.masked["values"] >= 1
    for snap in (a, b):
        text = strings_of(snap)
        assert KEY not in text and VALUE not in text


def test_the_schema_given_to_spark_is_the_one_it_infers(tmp_path: Path) -> None:
    """Spark reads each staged table in the schema ``spark_schema`` gives (no job to read a
    footer): for every table of two generated machines it is the schema Spark infers itself.
    Where the first file holds a type it does not map, or lacks a column, it gives none."""
    snaps = {}
    for i in range(2):
        root = tmp_path / f"m{i}" / "projects"
        root.mkdir(parents=True)
        generate(root, seed=41 + i, sessions=2)
        snaps[f"m{i}"] = Path(run_survey(get("cursor"), root, snapshots=tmp_path / f"m{i}" / "snapshots",
                                         reports=None, date="2026-06-01", cache=False).snapshot)
    from survey.merge.merge import schema_of, tables_of

    schemas = {t: schema_of(snaps, t) for t in tables_of(snaps)}
    staged = engines.stage(snaps, list(schemas), tmp_path / "stage")
    assert len(staged) == len(schemas) > 5
    given = {t: engines.spark_schema(d, t, list(schemas[t])) for t, d in staged.items()}
    assert all(s is not None for s in given.values())
    with engines.spark_session() as spark:
        for t, d in staged.items():
            assert given[t] == spark.read.parquet(str(d)).schema, t
    # a list column, then a column the first file lacks: Spark is left to infer
    odd = tmp_path / "odd" / "machine=a"
    odd.mkdir(parents=True)
    pl.DataFrame({"file_id": ["x"], "keys": [["k"]]}).write_parquet(odd / "part-000000.parquet")
    assert engines.spark_schema(odd.parent, "odd", ["file_id", "keys"]) is None
    pl.DataFrame({"file_id": ["x"]}).write_parquet(odd / "part-000000.parquet")
    assert engines.spark_schema(odd.parent, "odd", ["file_id"]) is not None
    assert engines.spark_schema(odd.parent, "odd", ["file_id", "depth"]) is None
