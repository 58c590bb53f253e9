"""What a run takes from the last (``survey.reuse``): the snapshot itself where the corpus
and mode are unchanged, the inventory's partitions, and the digest the census is kept under;
each figure here is worked out from the inputs the test makes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from survey.reuse import (
    census_inputs,
    claim_early,
    claim_late,
    keep_inventory_parts,
    load_inventory_parts,
)
from survey.snapshot.store import SnapshotExists, dumps


def _snapshot(snapshots: Path, date: str, fp: str, mode: str = "reviewed") -> Path:
    final = snapshots / date / "toy"
    final.mkdir(parents=True)
    (final / "manifest.json").write_bytes(dumps({"fingerprint": fp, "mode": mode}))
    return final


def test_the_census_digest_names_its_inputs_not_their_order() -> None:
    labels = {"frames": ["r1-0", "r1-1", None], "nodes": ["r1-0"]}
    inv = {"hashes": pl.Series([5, 3, 9], dtype=pl.UInt64)}
    one = census_inputs(labels, ["links", "blocks"], {"stores": "ab"}, inv)
    same = census_inputs(dict(reversed(labels.items())), ["blocks", "links"], {"stores": "ab"},
                         {"hashes": pl.Series([9, 5, 3], dtype=pl.UInt64)})
    assert one == same and len(one) == 64
    changed = [census_inputs({**labels, "nodes": ["r2-0"]}, ["links", "blocks"], {"stores": "ab"}, inv),
               census_inputs(labels, ["links"], {"stores": "ab"}, inv),
               census_inputs(labels, ["links", "blocks"], {"stores": "cd"}, inv),
               census_inputs(labels, ["links", "blocks"], {"stores": "ab"},
                             {"hashes": pl.Series([5, 3, 8], dtype=pl.UInt64)}),
               census_inputs(labels, ["links", "blocks"], {"stores": "ab"}, {})]
    assert len({one, *changed}) == 6


def test_inventory_parts_kept_are_read_back(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "root"
    cache.parent.mkdir()
    assert load_inventory_parts(None) is None and load_inventory_parts(cache) is None  # nothing kept yet
    part = tmp_path / "part.parquet"
    part.write_bytes(b"x" * 7)
    hashes = pl.Series([11, 2], dtype=pl.UInt64)
    keep_inventory_parts(cache, {"sig": "s1", "parts": {"2026-01": {"files": [str(part)], "digest": "d"}},
                                 "hashes": hashes})
    got = load_inventory_parts(cache)
    assert got is not None and got["sig"] == "s1" and got["hashes"].to_list() == [11, 2]
    (stat,) = got["parts"]["2026-01"]["stats"]
    assert stat is not None and stat[0] == 7  # the part's size, as it stands
    # the record beside the cache, never inside it, and an unreadable one is none
    assert sorted(p.name for p in cache.parent.iterdir()) == ["root.inventory.json", "root.inventory.parquet"]
    (cache.parent / "root.inventory.json").write_bytes(b"{not json")
    assert load_inventory_parts(cache) is None


def test_a_snapshot_of_the_same_corpus_and_mode_is_reused_not_written_again(tmp_path: Path) -> None:
    snaps = tmp_path / "s"
    fp = hashlib.sha256(b"corpus").hexdigest()
    _snapshot(snaps, "2026-01-02", fp)
    # ``refuse``: the name is taken before the corpus is read
    with pytest.raises(SnapshotExists):
        claim_early(snaps, "2026-01-02", "toy", "refuse")
    # ``reuse``/``auto``: decided once the fingerprint is known
    assert claim_early(snaps, "2026-01-02", "toy", "reuse") is None
    assert claim_late(snaps, "2026-01-02", "toy", "reuse", fp, "reviewed") == (None, "2026-01-02")
    assert claim_late(snaps, "2026-01-02", "toy", "auto", fp, "reviewed") == (None, "2026-01-02")
    # another corpus or mode: ``auto`` takes the next free name, ``reuse`` refuses
    got, name = claim_late(snaps, "2026-01-02", "toy", "auto", "other", "reviewed")
    assert got is not None and name == "2026-01-02.2" and got.final == snaps / name / "toy"
    got.release()
    with pytest.raises(SnapshotExists):
        claim_late(snaps, "2026-01-02", "toy", "reuse", fp, "discover")
    # a free date's name is held at once
    held = claim_early(snaps, "2026-01-03", "toy", "reuse")
    assert held is not None and held.final.is_dir() and not any(held.final.iterdir())
    held.release()
    assert not (snaps / "2026-01-03" / "toy").exists()
