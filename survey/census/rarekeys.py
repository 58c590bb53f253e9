"""Collapse keys seen in fewer than ``min_files`` files to ``<rare-key>``, before any write.

A key that occurs in one or two files is as likely to be data as schema (a one-off argument
name, a path used as a key), so below the threshold it is replaced everywhere it could
appear — key sets of frames, blocks and nodes, and path segments — and only counted.
Runs on the walk's tables in memory, between the walk and the snapshot writer.
"""

from __future__ import annotations

import re

import polars as pl

from survey.census.collect import FRAME_COUNT_KEYS, ROLLUPS, node_counts
from survey.corpus.frames import FLAGS
from survey.corpus.privacy import MASKS, RARE_KEY

SEG = re.compile(r"\.([^.\[\]]+)")


# key sets that name no key: masked or undescribed (``_texts``)
NO_KEYS = sorted(MASKS | {"<map>", "<opaque>", ""})


def _texts(frame: pl.LazyFrame, col: str, kind: str) -> pl.LazyFrame:
    """Each (file, text) of a column: a key set (``kind`` "k"; one naming no key, ``NO_KEYS``,
    left out) or a path ("p")."""
    out = (frame.select("file_id", pl.col(col).alias("text")).unique()  # (on the columns as they are: cheaper)
           .select(pl.col("file_id").cast(pl.String), pl.col("text").cast(pl.String), pl.lit(kind).alias("kind"))
           .filter(pl.col("text").is_not_null()))
    return out.filter(~pl.col("text").is_in(NO_KEYS)) if kind == "k" else out


def _with_keys(frame: pl.LazyFrame) -> pl.LazyFrame:
    """A row per key of each row's text: a key set's keys (split at its commas), a path's
    ``.segment``s (``SEG``)."""
    segs = pl.col("text").str.extract_all(SEG.pattern).list.eval(pl.element().str.slice(1))
    return (frame.with_columns(pl.when(pl.col("kind") == "k").then(pl.col("text").str.split(","))
                               .otherwise(segs).alias("key"))
            .explode("key").filter(pl.col("key").is_not_null()))


def rare_keys(tables: dict[str, pl.DataFrame], min_files: int) -> set[str]:
    """The keys seen in fewer than ``min_files`` files: in a node's key set or path (each
    ``.segment``), or a block's parsed input key set (a named object's input parsed from a
    string: its keys are in no node).

    Counted by text, not by row: a key set or path seen in ``min_files`` files or more makes
    each of its keys common, so only the rows of rarer texts are split into keys and counted
    by file. At 1 GB of Claude Code sessions (2.3M node rows) a loop over the distinct rows in
    Python took 7.3-8.7 s of CPU."""
    if min_files <= 1:
        return set()
    nodes = tables["nodes"].lazy()
    parts = [_texts(nodes, "keyset", "k"), _texts(nodes, "path", "p")]
    if "blocks" in tables:
        parts.append(_texts(tables["blocks"].lazy(), "input_keyset", "k"))
    rows = pl.concat(parts).collect()
    # (a block's input key set may be a node's key set in the same file too: files counted once)
    texts = rows.lazy().group_by("text", "kind").agg(pl.col("file_id").n_unique().alias("files"))
    common = _with_keys(texts.filter(pl.col("files") >= min_files)).select("key").unique()
    rarer = rows.lazy().join(texts.filter(pl.col("files") < min_files), on=["text", "kind"], how="semi")
    per_key = (_with_keys(rarer).join(common, on="key", how="anti").select("file_id", "key").unique()
               .group_by("key").agg(pl.len().alias("files")).filter(pl.col("files") < min_files).collect())
    return {k for k in per_key["key"].to_list() if k not in MASKS and not k.startswith("<")}


def collapse(tables: dict[str, pl.DataFrame], min_files: int) -> tuple[dict[str, pl.DataFrame], int]:
    rare = rare_keys(tables, min_files)
    if not rare:
        return tables, 0

    def fix_keyset(ks: str | None) -> str | None:
        if ks is None:
            return None
        parts = ks.split(",")
        if not any(p in rare for p in parts):
            return ks
        return ",".join(sorted({RARE_KEY if p in rare else p for p in parts}))

    def fix_path(path: str) -> str:
        return SEG.sub(lambda m: "." + (RARE_KEY if m.group(1) in rare else m.group(1)), path)

    out = dict(tables)
    for name, cols in (("nodes", ("keyset",)), ("frames", ("keyset",)), ("frame_counts", ("keyset",)),
                       ("blocks", ("keyset", "input_keyset"))):
        if name not in out:
            continue
        df = out[name]
        for c in cols:  # frames and blocks may be lazy scans of spilled parts
            uniq = df.lazy().select(pl.col(c).unique()).collect()[c].to_list()
            mapping = {u: fix_keyset(u) for u in uniq if u is not None}
            df = df.with_columns(pl.col(c).replace(mapping))
        out[name] = df
    if "frame_counts" in out:  # key sets that collapsed together are summed again: one row per file and key
        out["frame_counts"] = out["frame_counts"].group_by(FRAME_COUNT_KEYS).agg(
            pl.col("records", "bytes", *FLAGS).sum())
    for name in ("nodes", "values"):
        df = out[name]
        mapping = {u: fix_path(u) for u in df.lazy().select(pl.col("path").unique()).collect()["path"].to_list()}
        df = df.with_columns(pl.col("path").replace(mapping))
        # paths that collapsed together are summed again: both tables keep one row per file
        # and key, which the census counts files by (keyset_census.sql, value_maps.sql)
        if name == "nodes":
            df = df.group_by(["file_id", "rclass", "path", "jtype", "keyset"]).agg(
                pl.col("count").sum(), pl.col("max_len").max())
        else:
            df = df.group_by(["file_id", "path", "value", "withheld_id"]).agg(pl.col("count").sum())
        out[name] = df
    for name in ROLLUPS:  # rolled up again from the collapsed nodes
        if name in out:
            out[name] = node_counts(out["nodes"])
    return out, len(rare)
