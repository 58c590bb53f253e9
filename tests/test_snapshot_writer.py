"""The snapshot writer (``survey/snapshot/store.py``) on its own, without a survey: names
claimed and refused, a snapshot that exists only once its manifest is there, the inventory's
partitions linked from the last snapshot only where every row is still there, the corpus
fingerprint against its documented lines, and snapshot references resolved or refused."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import polars as pl
import pytest

from survey.snapshot import store
from survey.snapshot.store import (
    DELTA_ROWS_PER_READ,
    PARTITION_FILE,
    SnapshotExists,
    SnapshotWriter,
    claim,
    claim_free,
    find,
    fingerprint,
    inventory_parts,
    link_all,
    load_json,
    refusal,
)


def _inventory(rows: int, strata: tuple[str | None, ...] = ("2026-01", "2026-02"), seed: int = 3) -> pl.DataFrame:
    rng = random.Random(seed)
    ids = sorted({f"f-{rng.getrandbits(64):016x}" for _ in range(rows)})
    return pl.DataFrame({"file_id": ids, "size": [rng.randint(1, 10_000) for _ in ids],
                         "hash": [f"{rng.getrandbits(64):016x}" for _ in ids],
                         "stratum": [strata[i % len(strata)] for i in range(len(ids))]})


def _files(snap: Path) -> dict[str, list[str]]:
    inv = snap / "inventory"
    return {d.name: sorted(f.name for f in d.iterdir()) for d in sorted(inv.iterdir())}


def _snapshot(base: Path, date: str, inv: pl.DataFrame, kept: dict | None = None, reads: int = 0) -> tuple[Path, dict]:
    w = SnapshotWriter(base, date, "rt")
    rec = w.write_inventory(inv, kept, reads)
    w.write_json("manifest", {"n": inv.height})
    return w.commit(), rec


def _kept(rec: dict) -> dict:
    return {**inventory_parts(rec), "hashes": rec["hashes"]}


def _read_inv(snap: Path) -> pl.DataFrame:
    return pl.read_parquet(snap / "inventory" / "*" / "*.parquet", hive_partitioning=True)


# -- names: claimed, held, refused ---------------------------------------------------------


def test_a_claim_makes_the_folder_empty_and_holds_it(tmp_path: Path) -> None:
    final = tmp_path / "d" / "rt"
    c = claim(final)
    assert c is not None and final.is_dir() and not os.listdir(final)
    assert claim(final) is None  # held by this run: no second claim
    assert "being written by another run now" in str(refusal(final))
    c.release()
    assert not final.exists()
    c.release()  # a second release is a no-op
    again = claim(final)
    assert again is not None
    again.release(remove=False)
    assert final.is_dir()
    taken = claim(final)  # an empty folder no run holds (a killed run's) is taken over
    assert taken is not None
    taken.release()


def test_a_folder_with_files_or_a_snapshot_or_a_file_is_never_claimed(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_bytes(b"")
    assert claim(busy) is None
    assert (busy / "x").exists()
    assert "is in the way and is not a snapshot" in str(refusal(busy))
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "manifest.json").write_bytes(b"{}")
    assert claim(snap) is None
    assert "already exists; snapshots are immutable" in str(refusal(snap))
    afile = tmp_path / "afile"
    afile.write_bytes(b"")
    assert claim(afile) is None
    assert "is in the way" in str(refusal(afile))


def test_a_refused_claim_leaves_no_descriptor_open(tmp_path: Path) -> None:
    def fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    held = claim(tmp_path / "held")
    assert held is not None
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_bytes(b"")
    before = fds()
    for _ in range(3):
        assert claim(tmp_path / "held") is None  # the lock is taken
        assert claim(busy) is None  # not empty
    assert fds() == before
    held.release()
    assert fds() == before - 1


def test_claim_free_takes_the_first_name_no_run_holds(tmp_path: Path) -> None:
    first, n1 = claim_free(tmp_path, "2026-01-01", "rt")
    second, n2 = claim_free(tmp_path, "2026-01-01", "rt")
    (tmp_path / "2026-01-01.3" / "rt").mkdir(parents=True)
    (tmp_path / "2026-01-01.3" / "rt" / "manifest.json").write_bytes(b"{}")
    third, n3 = claim_free(tmp_path, "2026-01-01", "rt")
    assert (n1, n2, n3) == ("2026-01-01", "2026-01-01.2", "2026-01-01.4")
    assert third.final == tmp_path / "2026-01-01.4" / "rt"
    for c in (first, second, third):
        c.release()


# -- the writer ----------------------------------------------------------------------------


def test_a_snapshot_is_renamed_into_place_only_with_its_manifest(tmp_path: Path) -> None:
    stale = tmp_path / "d" / ".rt.tmp"
    stale.mkdir(parents=True)
    (stale / "left").write_bytes(b"x")
    w = SnapshotWriter(tmp_path, "d", "rt")
    assert w.dir == stale and (stale / "walk").is_dir() and not (stale / "left").exists()
    w.write_json("census", {"b": 1, "a": {2: "x"}})
    with pytest.raises(RuntimeError, match=r"^a snapshot is committed after its manifest is written$"):
        w.commit()
    assert not stale.exists() and not (tmp_path / "d" / "rt").exists()  # aborted: the claim let go
    w = SnapshotWriter(tmp_path, "d", "rt")
    w.write_table("t", pl.DataFrame({"a": [1, 2]}))
    w.write_table("lazy", pl.LazyFrame({"a": [3]}))
    w.write_json("manifest", {"ok": True})
    snap = w.commit()
    assert snap == tmp_path / "d" / "rt" and not stale.exists()
    assert store.complete(snap)
    assert pl.read_parquet(snap / "walk" / "t.parquet")["a"].to_list() == [1, 2]
    assert pl.read_parquet(snap / "walk" / "lazy.parquet")["a"].to_list() == [3]
    assert load_json(snap, "manifest") == {"ok": True} and load_json(snap, "absent") is None
    with pytest.raises(SnapshotExists, match="already exists"):
        SnapshotWriter(tmp_path, "d", "rt")


def test_a_writer_that_cannot_make_its_folder_lets_the_name_go(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".rt.tmp").write_bytes(b"a file where the folder goes")
    with pytest.raises(OSError):
        SnapshotWriter(tmp_path, "d", "rt")
    assert not (tmp_path / "d" / "rt").exists()  # the claim let go, its empty folder gone
    c = claim(tmp_path / "d" / "rt")
    assert c is not None
    c.release()


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_commit_keeps_no_descriptor_and_a_refused_one_leaves_nothing(tmp_path: Path) -> None:
    before = _fds()
    w = SnapshotWriter(tmp_path, "d", "rt")
    w.write_json("manifest", {})
    w.commit()
    assert _fds() == before
    w = SnapshotWriter(tmp_path, "e", "rt")
    w.write_json("manifest", {})
    (tmp_path / "e" / "rt" / "x").write_bytes(b"")  # the claimed folder is no longer empty
    with pytest.raises(SnapshotExists, match="is in the way"):
        w.commit()
    assert not w.dir.exists() and _fds() == before
    w.abort()  # a second abort is harmless
    assert (tmp_path / "e" / "rt" / "x").exists()


def test_a_run_killed_at_commit_leaves_no_snapshot(tmp_path: Path) -> None:
    """``SURVEY_TEST_CRASH_AT=commit`` kills the process just before the rename: the manifest
    is written, but only in the temporary folder; the claimed name holds nothing."""
    import signal
    import subprocess
    import sys

    from survey.cachedir import CRASH_VARIABLE

    code = ("import sys; from pathlib import Path; from survey.snapshot.store import SnapshotWriter; "
            "w = SnapshotWriter(Path(sys.argv[1]), 'd', 'rt'); w.write_json('manifest', {}); w.commit()")
    env = {**os.environ, CRASH_VARIABLE: "commit"}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, check=False)
    assert out.returncode == -signal.SIGKILL
    assert (tmp_path / "d" / ".rt.tmp" / "manifest.json").is_file()
    assert not store.complete(tmp_path / "d" / "rt")
    c = claim(tmp_path / "d" / "rt")  # the next run takes the name over
    assert c is not None
    c.release()


def test_json_is_indented_with_sorted_keys(tmp_path: Path) -> None:
    obj = {"b": [1, {"z": 1, "y": 2}], "a": {2: "x"}}
    assert store.dumps(obj) == json.dumps({"a": {"2": "x"}, "b": [1, {"y": 2, "z": 1}]}, indent=2).encode()


def test_link_table_links_the_parts_and_writes_the_rest_as_one_more(tmp_path: Path) -> None:
    src = tmp_path / "parts"
    src.mkdir()
    for i in range(2):
        pl.DataFrame({"a": [i]}).write_parquet(src / f"p{i}.parquet")
    w = SnapshotWriter(tmp_path, "d", "rt")
    w.link_table("t", [src / "p0.parquet", src / "p1.parquet"], pl.LazyFrame({"a": [9]}))
    d = w.dir / "walk" / "t.parquet"
    assert sorted(os.listdir(d)) == ["part-000000.parquet", "part-000001.parquet", "part-000002.parquet"]
    assert os.stat(d / "part-000001.parquet").st_ino == os.stat(src / "p1.parquet").st_ino
    assert sorted(pl.read_parquet(d / "*.parquet")["a"].to_list()) == [0, 1, 9]
    w.link_table("u", [src / "p0.parquet"])
    assert os.listdir(w.dir / "walk" / "u.parquet") == ["part-000000.parquet"]
    w.abort()
    assert not w.dir.exists() and not (tmp_path / "d" / "rt").exists()


def test_link_all_copies_where_it_cannot_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"one")
    (tmp_path / "a" / "y").write_bytes(b"two")
    before = _fds()
    link_all([(str(tmp_path / "a" / "x"), "n0"), (str(tmp_path / "a" / "y"), "n1")], tmp_path / "b")
    assert _fds() == before
    assert os.stat(tmp_path / "b" / "n0").st_ino == os.stat(tmp_path / "a" / "x").st_ino
    assert (tmp_path / "b" / "n1").read_bytes() == b"two"

    def refuse(*_a: object, **_k: object) -> None:
        raise OSError("no hard links")

    monkeypatch.setattr(os, "link", refuse)
    link_all([(str(tmp_path / "a" / "y"), "c")], tmp_path / "b")
    assert (tmp_path / "b" / "c").read_bytes() == b"two"
    assert os.stat(tmp_path / "b" / "c").st_ino != os.stat(tmp_path / "a" / "y").st_ino


# -- the inventory: partitions, linked only where every row is still there ------------------


def test_an_empty_inventory_is_one_readable_partition(tmp_path: Path) -> None:
    snap, rec = _snapshot(tmp_path, "d", _inventory(0))
    assert rec == {}
    assert _files(snap) == {"stratum=none": [PARTITION_FILE]}
    assert pl.read_parquet(snap / "inventory" / "stratum=none" / PARTITION_FILE).columns == ["file_id", "size", "hash"]


def test_the_inventory_is_a_partition_per_stratum_with_its_record(tmp_path: Path) -> None:
    inv = _inventory(40, ("2026-01", "2026-02", None))
    snap, rec = _snapshot(tmp_path, "d", inv)
    assert _files(snap) == {"stratum=2026-01": [PARTITION_FILE], "stratum=2026-02": [PARTITION_FILE],
                            "stratum=__HIVE_DEFAULT_PARTITION__": [PARTITION_FILE]}  # as polars names no stratum
    assert _read_inv(snap).height == 40
    assert set(rec["parts"]) == {"2026-01", "2026-02"}  # a row without a stratum is in no partition
    for st, p in rec["parts"].items():
        assert p["rows"] == inv.filter(pl.col("stratum") == st).height
        assert p["files"] == [str(snap / "inventory" / f"stratum={st}" / PARTITION_FILE)]
        digest = 0
        for h in inv.filter(pl.col("stratum") == st).hash_rows(seed=1).to_list():
            digest ^= h
        assert p["digest"] == digest
    assert rec["hashes"].to_list() == inv.hash_rows(seed=1).to_list()
    parts = inventory_parts(rec)
    assert parts["sig"] == rec["sig"] and "hashes" not in parts
    f = rec["parts"]["2026-01"]["files"][0]
    st = os.stat(f)
    assert parts["parts"]["2026-01"]["stats"] == [[st.st_size, st.st_mtime_ns, st.st_ino]]
    os.unlink(f)
    assert inventory_parts(rec)["parts"]["2026-01"]["stats"] == [None]


def test_unchanged_partitions_are_linked_and_a_changed_one_written_whole(tmp_path: Path) -> None:
    inv = _inventory(30)
    one, rec = _snapshot(tmp_path, "d1", inv)
    changed = inv.with_columns(pl.when(pl.col("file_id") == inv.filter(pl.col("stratum") == "2026-02")["file_id"][0])
                               .then(pl.col("size") + 1).otherwise(pl.col("size")).alias("size"))
    two, rec2 = _snapshot(tmp_path, "d2", changed, _kept(rec))
    ino = {st: os.stat(one / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino for st in ("2026-01", "2026-02")}
    assert os.stat(two / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino == ino["2026-01"]
    assert os.stat(two / "inventory" / "stratum=2026-02" / PARTITION_FILE).st_ino != ino["2026-02"]
    assert _read_inv(two).sort("file_id").equals(changed.sort("file_id").select(_read_inv(two).columns))
    assert rec2["parts"]["2026-01"]["files"] == [str(two / "inventory" / "stratum=2026-01" / PARTITION_FILE)]


def test_a_partition_that_lost_a_row_or_whose_file_changed_is_written_whole(tmp_path: Path) -> None:
    inv = _inventory(30)
    one, rec = _snapshot(tmp_path, "d1", inv)
    fewer = inv.filter(pl.col("file_id") != inv.filter(pl.col("stratum") == "2026-01")["file_id"][0])
    two, _ = _snapshot(tmp_path, "d2", fewer, _kept(rec))
    a = one / "inventory" / "stratum=2026-01" / PARTITION_FILE
    assert os.stat(two / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino != os.stat(a).st_ino
    assert os.stat(two / "inventory" / "stratum=2026-02" / PARTITION_FILE).st_ino == \
        os.stat(one / "inventory" / "stratum=2026-02" / PARTITION_FILE).st_ino
    kept = _kept(rec)
    os.utime(a, ns=(1, 1))  # the file is not as it was written
    three, _ = _snapshot(tmp_path, "d3", inv, kept)
    assert os.stat(three / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino != os.stat(a).st_ino
    assert _read_inv(three).height == 30
    other = {**_kept(rec), "sig": "another"}  # written another way: nothing linked
    four, _ = _snapshot(tmp_path, "d4", inv, other)
    for st in ("2026-01", "2026-02"):
        assert os.stat(four / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino != \
            os.stat(one / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino


def test_new_rows_take_a_file_of_their_own_only_in_a_large_partition(tmp_path: Path) -> None:
    big = _inventory(DELTA_ROWS_PER_READ, ("2026-01",), seed=5)  # just at the threshold, with one read
    old, new = big.head(DELTA_ROWS_PER_READ - 10), big.tail(10)
    one, rec = _snapshot(tmp_path, "d1", old)
    two, rec2 = _snapshot(tmp_path, "d2", big, _kept(rec), reads=1)
    assert _files(two) == {"stratum=2026-01": [PARTITION_FILE, "00000001.parquet"]}
    assert os.stat(two / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino == \
        os.stat(one / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino
    added = pl.read_parquet(two / "inventory" / "stratum=2026-01" / "00000001.parquet")
    assert sorted(added["file_id"].to_list()) == sorted(new["file_id"].to_list())
    assert rec2["parts"]["2026-01"]["rows"] == big.height
    assert rec2["parts"]["2026-01"]["files"] == [str(two / "inventory" / "stratum=2026-01" / n)
                                                 for n in (PARTITION_FILE, "00000001.parquet")]
    # a stratum the last snapshot did not have, however large: written whole beside a linked one
    fresh = pl.concat([old, _inventory(DELTA_ROWS_PER_READ, ("2026-03",), seed=6)])
    four, rec4 = _snapshot(tmp_path, "d4", fresh, _kept(rec))
    assert _files(four) == {"stratum=2026-01": [PARTITION_FILE], "stratum=2026-03": [PARTITION_FILE]}
    assert os.stat(four / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino == \
        os.stat(one / "inventory" / "stratum=2026-01" / PARTITION_FILE).st_ino
    assert rec4["parts"]["2026-03"]["rows"] == DELTA_ROWS_PER_READ
    # the same growth with more reads of the inventory to come: written again whole
    three, _ = _snapshot(tmp_path, "d3", big, _kept(rec), reads=2)
    assert _files(three) == {"stratum=2026-01": [PARTITION_FILE]}
    assert _read_inv(three).height == big.height
    # a small partition that grew: written whole; one that did not grow: linked
    small = _inventory(20)
    s1, srec = _snapshot(tmp_path, "s1", small.head(15))
    s2, _ = _snapshot(tmp_path, "s2", small, _kept(srec))
    assert _files(s2) == {"stratum=2026-01": [PARTITION_FILE], "stratum=2026-02": [PARTITION_FILE]}
    assert _read_inv(s2).height == 20
    for st in ("2026-01", "2026-02"):
        assert os.stat(s2 / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino != \
            os.stat(s1 / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino


def test_rows_without_a_stratum_are_written_beside_linked_partitions(tmp_path: Path) -> None:
    inv = _inventory(30, ("2026-01", "2026-02", None))
    one, rec = _snapshot(tmp_path, "d1", inv)
    two, _ = _snapshot(tmp_path, "d2", inv, _kept(rec))
    for st in ("2026-01", "2026-02"):
        assert os.stat(two / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino == \
            os.stat(one / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino
    back = _read_inv(two)
    assert back.height == 30 and back["stratum"].null_count() == inv["stratum"].null_count() > 0


def test_a_record_of_no_files_or_of_another_stratum_s_files_is_written_whole(tmp_path: Path) -> None:
    inv = _inventory(30)
    _one, rec = _snapshot(tmp_path, "d1", inv)
    kept = _kept(rec)
    kept["parts"]["2026-01"]["files"], kept["parts"]["2026-01"]["stats"] = [], []
    two, _ = _snapshot(tmp_path, "d2", inv, kept)
    assert _files(two)["stratum=2026-01"] == [PARTITION_FILE]
    kept = _kept(rec)
    a, b = kept["parts"]["2026-01"], kept["parts"]["2026-02"]
    a["files"], a["stats"], b["files"], b["stats"] = b["files"], b["stats"], a["files"], a["stats"]
    three, _ = _snapshot(tmp_path, "d3", inv, kept)
    for snap in (two, three):
        back = _read_inv(snap)
        assert back.sort("file_id").equals(inv.sort("file_id").select(back.columns))


def test_a_link_that_fails_midway_leaves_the_last_snapshot_as_it_was(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    big = _inventory(DELTA_ROWS_PER_READ, ("2026-01",), seed=5)
    _one, rec = _snapshot(tmp_path, "d1", big.head(DELTA_ROWS_PER_READ - 10))
    two, rec2 = _snapshot(tmp_path, "d2", big, _kept(rec), reads=1)
    assert len(rec2["parts"]["2026-01"]["files"]) == 2
    real, calls = os.link, []

    def second_fails(src: object, dst: object, *a: object, **k: object) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("gone since its stat")
        real(src, dst, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", second_fails)
    three, _ = _snapshot(tmp_path, "d3", big, _kept(rec2), reads=1)
    monkeypatch.undo()
    assert len(calls) == 2
    assert _files(three) == {"stratum=2026-01": [PARTITION_FILE]}
    for snap in (two, three):
        back = _read_inv(snap)
        assert back.sort("file_id").equals(big.sort("file_id").select(back.columns))


def test_a_partition_of_too_many_files_or_a_bad_record_is_written_whole(tmp_path: Path) -> None:
    inv = _inventory(30)
    one, rec = _snapshot(tmp_path, "d1", inv)
    kept = _kept(rec)
    p = kept["parts"]["2026-01"]
    p["files"], p["stats"] = p["files"] * store.INVENTORY_FILES, p["stats"] * store.INVENTORY_FILES
    kept["parts"]["2026-02"]["stats"] = "not a list"
    kept["parts"]["2026-02"]["rows"] = None
    two, _ = _snapshot(tmp_path, "d2", inv, kept)
    for st in ("2026-01", "2026-02"):
        assert os.stat(two / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino != \
            os.stat(one / "inventory" / f"stratum={st}" / PARTITION_FILE).st_ino
    assert _read_inv(two).height == 30


# -- the fingerprint and references ---------------------------------------------------------


def test_the_fingerprint_is_sha256_of_sorted_lines_without_nulls() -> None:
    inv = _inventory(50, seed=9).sample(fraction=1.0, shuffle=True, seed=1)
    inv = pl.concat([inv, pl.DataFrame({"file_id": ["f-0000000000000001"], "size": [None], "hash": ["x"],
                                        "stratum": ["2026-01"]}, schema=inv.schema)])
    rows = sorted((f, s, h) for f, s, h in zip(inv["file_id"], inv["size"], inv["hash"], strict=True)
                  if None not in (f, s, h))
    text = "".join(f"{f}\t{s}\t{h}\n" for f, s, h in rows)
    assert fingerprint(inv) == hashlib.sha256(text.encode()).hexdigest()
    odd = pl.DataFrame({"file_id": ["b-x", "a-y"], "size": [1, 2], "hash": ["h", "i"]})  # not pseudonyms
    assert fingerprint(odd) == hashlib.sha256(b"a-y\t2\ti\nb-x\t1\th\n").hexdigest()


def test_find_resolves_a_reference_or_says_what_the_date_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rt in ("a", "b"):
        (tmp_path / "d2" / rt).mkdir(parents=True)
        (tmp_path / "d2" / rt / "manifest.json").write_bytes(b"{}")
    (tmp_path / "d1" / "a").mkdir(parents=True)
    (tmp_path / "d1" / "a" / "manifest.json").write_bytes(b"{}")
    (tmp_path / "d1" / ".b.tmp").mkdir()  # what a run killed at commit leaves: not a snapshot
    (tmp_path / "d1" / ".b.tmp" / "manifest.json").write_bytes(b"{}")
    (tmp_path / "d1" / "c").mkdir()  # a claim, not a snapshot
    assert find(tmp_path, str(tmp_path / "d2" / "b")) == tmp_path / "d2" / "b"
    assert find(tmp_path, "d2/a") == tmp_path / "d2" / "a"
    assert find(tmp_path, "d2", "b") == tmp_path / "d2" / "b"
    assert find(tmp_path, "d1") == tmp_path / "d1" / "a"
    with pytest.raises(FileNotFoundError, match="'d2' holds snapshots of a, b: say which with --runtime"):
        find(tmp_path, "d2")
    with pytest.raises(FileNotFoundError, match=r"'d2' holds no snapshot of z \(it holds a, b; looked in "):
        find(tmp_path, "d2", "z")
    with pytest.raises(FileNotFoundError, match="no snapshot at 'd9'"):
        find(tmp_path, "d9")
    with pytest.raises(FileNotFoundError, match="no snapshot at 'd9'"):
        find(tmp_path, "d9", "a")
    monkeypatch.chdir(tmp_path)  # a folder named relative to where the command runs, not to the base
    assert find(tmp_path / "elsewhere", "d2/a") == Path("d2/a")
