"""What a run takes from the runs before it: the snapshot itself where the corpus and mode
are unchanged (``claim_late``), the last snapshot's inventory partitions, and a digest of
the census's inputs under which the census it kept is served again. Each is kept beside the
walk's cache; losing one only makes the next run do more."""

from __future__ import annotations

import array
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import polars as pl

from survey.cachedir import replace_file
from survey.census.collect import PartSet
from survey.census.partials import Labels
from survey.snapshot.store import (
    SCHEMA_VERSION,
    Claim,
    SnapshotWriter,
    claim,
    claim_free,
    complete,
    inventory_parts,
    load_json,
    refusal,
)

# Beside the walk's cache: where the last snapshot of this root has each partition of its
# inventory, and a digest of each one's rows (``SnapshotWriter.write_inventory``), with a
# hash of each of its rows in a Parquet file of the same name
INVENTORY_PARTS = ".inventory.json"


def _parts_file(cache_dir: Path, suffix: str = INVENTORY_PARTS) -> Path:
    return cache_dir.with_name(cache_dir.name + suffix)


def _hashes_file(cache_dir: Path) -> Path:
    return _parts_file(cache_dir, INVENTORY_PARTS.removesuffix(".json") + ".parquet")


def load_inventory_parts(cache_dir: Path | None) -> dict | None:
    """The last snapshot's inventory partitions (``inventory_parts``) and row hashes, or
    None: none kept, no cache, or an unreadable file (then every partition is written)."""
    if cache_dir is None:
        return None
    try:
        got = orjson.loads(_parts_file(cache_dir).read_bytes())
        hashes = pl.read_parquet(_hashes_file(cache_dir))["a"]
    except (OSError, orjson.JSONDecodeError, pl.exceptions.PolarsError):
        return None
    return {**got, "hashes": hashes} if isinstance(got, dict) and hashes.dtype == pl.UInt64 else None


# a walk table written whole is part of the census's inputs by its bytes up to this size (a
# store runtime's table of stores: 116k stores, 1 GB of chat stores, take 2.5 MB); a larger
# one (the rare-key collapse's) leaves the census to be run each time
DIGEST_MAX_BYTES = 16 << 20


def _small_file_digest(path: Path) -> str | None:
    try:
        if path.stat().st_size > DIGEST_MAX_BYTES:
            return None
        with path.open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def census_inputs(labels: Labels, empty: list[str], written: dict[str, str], inventory: dict) -> str:
    """A digest of what the census reads in a snapshot whose walk tables are each linked
    parts, empty or written whole and small (the caller says so): each table's part labels
    (a label names one walk batch's rows, whose bytes never change), the tables written
    empty, the bytes of those written whole, and the inventory's rows, by the 64-bit hash of
    each (``write_inventory``'s, sorted: every column, the walk's file row among them, so
    ``files.parquet`` too). Two snapshots with one digest hold the same rows for every query
    (``run_census`` keeps the census under it)."""
    h = hashlib.sha256(repr((sorted(labels.items()), sorted(empty), sorted(written.items()),
                             SCHEMA_VERSION)).encode())
    hashes = inventory.get("hashes")
    if isinstance(hashes, pl.Series) and hashes.len():
        h.update(array.array("Q", hashes.sort().to_list()).tobytes())
    return h.hexdigest()


def keep_inventory_parts(cache_dir: Path | None, written: dict) -> None:
    """Record a committed snapshot's inventory partitions for the next run (the survey does
    not depend on it: a failure leaves the next run to write every partition). The row
    hashes first: a record with another snapshot's hashes links nothing wrongly (a
    partition's digest is checked over the rows they pick), it only writes more."""
    if cache_dir is not None and written:
        buf = io.BytesIO()
        written["hashes"].to_frame("a").write_parquet(buf, compression="lz4")
        if replace_file(_hashes_file(cache_dir), buf.getvalue()):
            replace_file(_parts_file(cache_dir), orjson.dumps(inventory_parts(written)))



@dataclass
class Kept:
    """How the walk's tables went into a snapshot, for ``census_inputs``: each linked table's
    part labels (unique per walk, so only from its cache), the tables written empty (their
    schema alone), the sha256 of each table written whole, and whether a table holds rows no
    label names (the census is then not kept)."""

    labels: Labels = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)
    unlabelled: bool = False


def write_walk_tables(writer: SnapshotWriter, tables: dict[str, pl.DataFrame], parts: dict[str, PartSet],
                      scans: dict[str, pl.DataFrame], cache_dir: Path | None) -> Kept:
    """The walk's tables into the snapshot: its Parquet parts linked where a table is the
    walk's own scan of them, written empty where no part holds a row, else written whole."""
    kept = Kept(unlabelled=cache_dir is None)
    for name, df in tables.items():
        ps = parts.get(name)
        if ps is not None and df is scans.get(name) and (ps.files or ps.rest is not None):
            writer.link_table(name, ps.files, ps.rest)  # the walk's parts, not re-encoded
            if cache_dir is not None:
                kept.labels[name] = [p.name.removesuffix(".parquet") for p in ps.files] + [None] * (ps.rest is not None)
                kept.unlabelled |= ps.rest is not None
        elif ps is not None and df is scans.get(name):
            # no part holds a row (a table this runtime's walk never fills): written empty,
            # from its schema, not by a scan that joins every file to its part (a re-run
            # at 567k files: 0.08-0.17 s a table, four tables)
            writer.write_table(name, pl.DataFrame(schema=df.collect_schema()))
            kept.empty.append(name)
        else:
            writer.write_table(name, df)
            # its bytes, where few (a store runtime's table of stores); else not kept
            digest = _small_file_digest(writer.dir / "walk" / f"{name}.parquet")
            kept.unlabelled |= digest is None
            kept.written[name] = digest or ""
    return kept


def claim_early(snapshots: Path, date: str, runtime: str, on_exists: str) -> Claim | None:
    """The snapshot name a run will write, held from before it reads the corpus (``claim``),
    or None where that waits for the corpus's fingerprint. ``refuse``: the date's name, or
    ``SnapshotExists`` (a snapshot is there, or another run is writing it); ``suffix``: the
    first free of the date's names; ``reuse`` and ``auto``: the date's name where it is
    free, else None (``claim_late`` decides)."""
    final = snapshots / date / runtime
    if on_exists == "suffix":
        return claim_free(snapshots, date, runtime)[0]
    if on_exists != "refuse" and complete(final):
        return None
    got = claim(final)
    if got is None and on_exists == "refuse":
        raise refusal(final)
    return got


def claim_late(snapshots: Path, date: str, runtime: str, on_exists: str, fp: str,
               mode: str) -> tuple[Claim | None, str]:
    """For ``reuse`` and ``auto`` without an early claim, once the corpus's fingerprint is
    known: None and the date where its snapshot is of this corpus and mode (reused), else
    the name to write, held (``auto``: the first free, ``reuse``: the date's, or
    ``SnapshotExists``)."""
    final = snapshots / date / runtime
    if complete(final):
        old = load_json(final, "manifest") or {}
        if old.get("fingerprint") == fp and old.get("mode") == mode:
            return None, date
    if on_exists == "auto":
        got, name = claim_free(snapshots, date, runtime)
        return got, name
    mine = claim(final)
    if mine is None:
        raise refusal(final)
    return mine, date
