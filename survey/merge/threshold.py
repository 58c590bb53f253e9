"""The publication threshold: only what ``k`` machines saw is named; the rest is counted.

A key (in a key set or a path), a vocabulary value (of a value path, a record class, a
frame field, a block's type or name, a heading) or a shape (a key set whole) seen on fewer
than ``k`` machines is replaced everywhere it appears, as the privacy gate replaces a rare
key on one machine: a key by ``<rare-key>``, a value by ``<withheld>`` (its withheld id a
pseudonym under the merging machine's salt, so distinct values still count), a key set by
``<rare-key>``. Tables that hold one row per file and key are summed again after.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import polars as pl

from survey.census.collect import FRAME_COUNT_KEYS, node_counts
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import MASKS, RARE_KEY, WITHHELD, pseudonyms

SEG = r"\.([^.\[\]]+)"  # a path's keys (``rarekeys.SEG``)
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


@dataclass
class Masked:
    """What the threshold withheld: how many keys, values and shapes (never which)."""

    keys: int = 0
    values: int = 0
    shapes: int = 0
    published_keys: dict[str, int] = field(default_factory=dict)  # key -> machines (>= k)

    def to_json(self) -> dict:
        return {"keys": self.keys, "values": self.values, "shapes": self.shapes}


def _named(c: str) -> pl.Expr:
    """Not a mask nor a placeholder: a name the threshold applies to."""
    return pl.col(c).is_not_null() & ~pl.col(c).is_in(list(MASKS)) & ~pl.col(c).str.starts_with("<")


def key_machines(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per key (of the nodes' key sets and paths), the machines it was seen on."""
    n = tables["nodes"].lazy().select("machine", "keyset", "path").unique()
    from_sets = n.select("machine", k=pl.col("keyset").cast(pl.String).str.split(",")).explode("k")
    from_paths = n.select("machine", k=pl.col("path").cast(pl.String).str.extract_all(SEG)).explode("k") \
        .with_columns(pl.col("k").str.slice(1))
    keys = pl.concat([from_sets, from_paths]).filter(_named("k") & (pl.col("k") != "")).unique()
    return keys.group_by("k").agg(machines=pl.len()).collect()


def _value_machines(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Per value column (by name, across tables), each value's machines."""
    per: dict[str, list[pl.LazyFrame]] = {}
    for t, cols in value_columns(tables).items():
        lf = tables[t].lazy()
        for c in cols:
            per.setdefault(c, []).append(lf.select("machine", v=pl.col(c).cast(pl.String)).unique())
    vals = tables["values"].lazy().filter(pl.col("withheld_id").is_null()).select(
        "machine", v=pl.col("path").cast(pl.String) + "\0" + pl.col("value").cast(pl.String)).unique()
    per.setdefault("\0values", []).append(vals)
    return {c: pl.concat(lfs).unique().filter(_named("v")).group_by("v").agg(machines=pl.len()).collect()
            for c, lfs in per.items()}


def value_columns(tables: dict[str, pl.DataFrame]) -> dict[str, tuple[str, ...]]:
    out = {}
    for t, named in VALUE_COLS.items():
        if t not in tables:
            continue
        schema = tables[t].collect_schema()
        cols = named if named is not None else tuple(
            c for c, d in schema.items() if c not in FRAME_OWN and d in (pl.String, pl.Categorical))
        out[t] = tuple(c for c in cols if c in schema)
    return out


def apply(tables: dict[str, pl.DataFrame], k: int, salt: bytes) -> tuple[dict[str, pl.DataFrame], Masked]:
    """``tables`` (the union, every one with its ``machine`` column) with what fewer than ``k``
    machines saw masked, and what was masked, counted."""
    km = key_machines(tables)
    rare = set(km.filter(pl.col("machines") < k)["k"].to_list())
    masked = Masked(keys=len(rare), published_keys=dict(km.filter(pl.col("machines") >= k).sort("k").iter_rows()))
    out = dict(tables)
    for t, df in out.items():
        schema = df.collect_schema()
        for c in (c for c in KEYSET_COLS if c in schema):
            df = df.with_columns(_replace(df, c, lambda ks: _fix_keyset(ks, rare)))
        for c in (c for c in PATH_COLS if c in schema):
            df = df.with_columns(_replace(df, c, lambda p: _fix_path(p, rare)))
        out[t] = df
    masked.shapes = _mask_shapes(out, k)
    masked.values = _mask_values(out, k, salt)
    for t, (keys, aggs) in SUMS.items():
        if t in out:
            df = out[t]
            have = df.collect_schema().names()
            keep = [c for c in (*keys, "machine") if c in have]
            out[t] = df.group_by(keep).agg(
                *[(pl.col(c).sum() if how == "sum" else pl.col(c).max()) for c, how in aggs.items() if c in have])
    if "nodes" in out:
        out["node_counts"] = node_counts(out["nodes"].drop("machine"))
    return out, masked


def _replace(df: pl.DataFrame, c: str, fix) -> pl.Expr:  # type: ignore[no-untyped-def]
    """Column ``c`` with each distinct value mapped by ``fix`` (a Python call per distinct
    value, not per row), in its own type."""
    dtype = df.collect_schema()[c]
    uniq = df.lazy().select(pl.col(c).cast(pl.String).unique()).collect()[c].to_list()
    mapping = {u: fix(u) for u in uniq if u is not None}
    changed = {a: b for a, b in mapping.items() if a != b}
    return pl.col(c).cast(pl.String).replace(changed).cast(dtype) if changed else pl.col(c)


def _fix_keyset(ks: str, rare: set[str]) -> str:
    parts = ks.split(",")
    if not any(p in rare for p in parts):
        return ks
    return ",".join(sorted({RARE_KEY if p in rare else p for p in parts}))


def _fix_path(path: str, rare: set[str]) -> str:
    return re.sub(SEG, lambda m: "." + (RARE_KEY if m.group(1) in rare else m.group(1)), path)


def _mask_shapes(out: dict[str, pl.DataFrame], k: int) -> int:
    """Key sets (whole) seen on fewer than ``k`` machines, over every table that holds one,
    made ``<rare-key>``; how many."""
    seen = [out[t].lazy().select("machine", s=pl.col(c).cast(pl.String)).unique()
            for t in out for c in KEYSET_COLS if c in out[t].collect_schema()]
    if not seen:
        return 0
    sm = pl.concat(seen).unique().filter(_named("s") & (pl.col("s") != "")).group_by("s").agg(m=pl.len()).collect()
    rare = set(sm.filter(pl.col("m") < k)["s"].to_list())
    if rare:
        for t, df in out.items():
            for c in (c for c in KEYSET_COLS if c in df.collect_schema()):
                df = df.with_columns(_replace(df, c, lambda s: RARE_KEY if s in rare else s))
            out[t] = df
    return len(rare)


def _mask_values(out: dict[str, pl.DataFrame], k: int, salt: bytes) -> int:
    """Vocabulary values seen on fewer than ``k`` machines withheld; how many."""
    vm = _value_machines(out)
    n = 0
    for t, cols in value_columns(out).items():
        df = out[t]
        for c in cols:
            rare = set(vm[c].filter(pl.col("machines") < k)["v"].to_list()) if c in vm else set()
            if rare:
                df = df.with_columns(_replace(df, c, lambda v, r=rare: WITHHELD if v in r else v))  # type: ignore[misc]
        out[t] = df
    n += sum(int((m["machines"] < k).sum()) for c, m in vm.items() if c != "\0values")
    rare_pairs = vm["\0values"].filter(pl.col("machines") < k)["v"].to_list()
    if rare_pairs:
        ids = dict(zip(rare_pairs, pseudonyms(salt, rare_pairs, "w"), strict=True))
        df = out["values"]
        dtype = df.collect_schema()["value"]
        pair = pl.col("path").cast(pl.String) + "\0" + pl.col("value").cast(pl.String)
        hit = pl.col("withheld_id").is_null() & pair.is_in(rare_pairs)
        out["values"] = df.with_columns(
            withheld_id=pl.when(hit).then(pair.replace_strict(ids, default=None)).otherwise(
                pl.col("withheld_id").cast(pl.String)).cast(df.collect_schema()["withheld_id"]),
            value=pl.when(hit).then(pl.lit(WITHHELD)).otherwise(pl.col("value").cast(pl.String)).cast(dtype))
        n += len(rare_pairs)
    return n
