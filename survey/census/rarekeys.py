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


def _keys_of_keyset(ks: str | None) -> list[str]:
    if not ks or ks in MASKS | {"<map>", "<opaque>"}:
        return []
    return ks.split(",")


def rare_keys(tables: dict[str, pl.DataFrame], min_files: int) -> set[str]:
    if min_files <= 1:
        return set()
    nodes = tables["nodes"].lazy().select("file_id", "keyset", "path").unique().collect()
    per_key: dict[str, set[str]] = {}
    for fid, ks, path in nodes.iter_rows():
        for k in _keys_of_keyset(ks):
            per_key.setdefault(k, set()).add(fid)
        for k in SEG.findall(path):
            per_key.setdefault(k, set()).add(fid)
    if "blocks" in tables:  # a named object's input parsed from a string: its keys are in no node
        inputs = (tables["blocks"].lazy().select("file_id", "input_keyset")
                  .filter(pl.col("input_keyset").is_not_null()).unique().collect())
        for fid, ks in inputs.iter_rows():
            for k in _keys_of_keyset(ks):
                per_key.setdefault(k, set()).add(fid)
    return {k for k, fs in per_key.items() if len(fs) < min_files and k not in MASKS and not k.startswith("<")}


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
