"""Hostile input: nothing lost, nothing crashes, every bad input is a counted outcome.

One hostile Cursor-layout corpus (``survey.synth.hostile``, a 100 MiB single line included)
is generated and surveyed once per module with the real pipeline; each test then checks
one class's exact outcome in ``RunResult.problems``, the snapshot's ``census.json``, its
inventory and its walk tables (per file, by pseudonym). Separate small corpora cover files
that change while they are read and the CLI's messages and exit codes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import orjson
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from survey.census import walk as W
from survey.corpus.frames import DEFAULT_MAX_LINE, FLAGS
from survey.corpus.privacy import load_salt, pseudonym
from survey.pipeline import RunResult, run_survey
from survey.runtimes import NAMES, get
from survey.snapshot.store import load_json
from survey.synth import hostile

BIG_LINE_MB = 100
JSONL_CLASSES = ("malformed", "truncated", "big_line", "deep", "deep_payload", "invalid_utf8", "bom", "crlf",
                 "nul", "duplicate_ids", "million_keys", "utf16", "utf32", "binary", "out_of_range",
                 "nonstandard_number", "duplicate_key")


@dataclass
class Survey:
    root: Path
    planted: dict[str, Any]
    res: RunResult
    snap: Path

    def rows(self, name: str) -> list[dict]:
        q = load_json(self.snap, "census")[name]
        return [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]

    def table(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.snap / "walk" / f"{name}.parquet")

    def inventory(self) -> pl.DataFrame:
        return pl.read_parquet(self.snap / "inventory", hive_partitioning=True)

    def fids(self, cls: str, key: str = "paths") -> list[str]:
        salt = load_salt()
        return [pseudonym(salt, rel, "f") for rel in self.planted["classes"][cls][key]]


@pytest.fixture(scope="module")
def hostile_survey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    base = tmp_path_factory.mktemp("hostile")
    root = base / "projects"
    planted = hostile.generate(root, seed=7, big_line_mb=BIG_LINE_MB, max_line=DEFAULT_MAX_LINE)
    res = run_survey(get("cursor"), root, snapshots=base / "snapshots", reports=base / "reports")
    yield Survey(root, planted, res, Path(res.snapshot))
    shutil.rmtree(root, ignore_errors=True)  # 100 MiB: do not keep it for the whole session


def _expected_problems(planted: dict[str, Any]) -> dict[str, int]:
    want = {f"file:{k}": v for k, v in planted["file_problems"].items()}
    want |= {f"frame:{k}": v for k, v in planted["frames"].items() if k != "ok"}
    want |= {f"frame:{k}": v for k, v in planted["flags"].items()}
    return dict(sorted(want.items()))


def _tree(root: Path) -> dict[str, tuple[int, str, int]]:
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        body = os.readlink(p) if p.is_symlink() else (p.read_bytes().hex() if p.is_file() else "dir")
        out[p.relative_to(root).as_posix()] = (st.st_mode, body, st.st_mtime_ns)
    return out


def test_generator_is_deterministic(tmp_path: Path) -> None:
    classes = [c for c in hostile.CLASSES if c not in ("million_keys", "unreadable")]
    a = hostile.generate(tmp_path / "a", seed=3, big_line_mb=1, classes=classes)
    b = hostile.generate(tmp_path / "b", seed=3, big_line_mb=1, classes=classes)
    assert a == b
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert hostile.generate(tmp_path / "c", seed=4, big_line_mb=1, classes=classes)["canaries"] != a["canaries"]


# -- totals ----------------------------------------------------------------------------------
def test_every_planted_problem_is_counted_exactly(hostile_survey: Survey) -> None:
    s = hostile_survey
    assert s.res.problems == _expected_problems(s.planted)
    assert load_json(s.snap, "manifest")["problems"] == s.res.problems


def test_read_outcomes_census(hostile_survey: Survey) -> None:
    s = hostile_survey
    got = {r["problem"]: r["files"] for r in s.rows("read_outcomes")}
    assert got == s.planted["file_problems"]


def test_frame_status_census(hostile_survey: Survey) -> None:
    s = hostile_survey
    got = {r["frame_status"]: r["frames"] for r in s.rows("frame_status")}
    assert got == s.planted["frames"]
    assert s.res.frames == sum(s.planted["frames"].values())


def test_frame_flags_census(hostile_survey: Survey) -> None:
    (r,) = hostile_survey.rows("frame_flags")
    f = hostile_survey.planted["flags"]
    assert {k: r[f"{k}_frames"] for k in FLAGS} == {k: f.get(k, 0) for k in FLAGS}
    assert r["crlf_files"] == 1


def test_nothing_lost_every_entry_is_an_inventory_row(hostile_survey: Survey) -> None:
    """Every file, link and file-named directory under the root is a row; every regular
    file that could be opened was read to its last byte (nbytes == size, hashed)."""
    s = hostile_survey
    inv = s.inventory()
    entries = 0
    for dirpath, dirnames, filenames in os.walk(s.root):
        entries += len(filenames)
        entries += sum(1 for d in dirnames if os.path.islink(os.path.join(dirpath, d)))
    entries += len(s.planted["classes"]["dir_like_file"]["paths"])
    assert inv.height == entries
    regular = inv.filter(pl.col("kind").is_in(["jsonl", "blob", "text"]))
    files = s.table("files")
    joined = regular.join(files, on="file_id", how="left")
    unread = joined.filter(pl.col("read_status").is_null())
    assert unread["problem"].to_list() == (["unreadable"] if s.planted["reads_blocked"] else [])
    read = joined.filter(pl.col("read_status").is_not_null())
    assert read.filter(~pl.col("read_status").is_in(W.READ_WHOLE)).height == 0
    assert read.filter(pl.col("nbytes") != pl.col("size")).height == 0
    assert read.filter(pl.col("hash") == "").height == 0


# -- per class -------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", JSONL_CLASSES)
def test_class_frames_and_flags_per_file(hostile_survey: Survey, cls: str) -> None:
    s = hostile_survey
    planted = s.planted["classes"][cls]
    fr = s.table("frames").filter(pl.col("file_id").is_in(s.fids(cls)))
    assert dict(Counter(fr["frame_status"].to_list())) == planted["frames"]
    flags = {k: int((fr["flags"] & bit > 0).sum()) for k, bit in FLAGS.items()}
    assert {k: v for k, v in flags.items() if v} == planted["flags"]
    inv = s.inventory().filter(pl.col("file_id").is_in(s.fids(cls)))
    assert inv.height == len(planted["paths"])
    assert inv["problem"].null_count() == inv.height
    files = s.table("files").filter(pl.col("file_id").is_in(s.fids(cls)))
    assert files["read_status"].to_list() == [planted["read_status"]] * inv.height
    assert files["nbytes"].to_list() == [(s.root / p).stat().st_size for p in planted["paths"]]


def test_utf16_and_utf32_records_are_decoded_and_walked(hostile_survey: Survey) -> None:
    s = hostile_survey
    for cls, codec in (("utf16", "utf-16-le"), ("utf32", "utf-32-be")):
        raw = (s.root / s.planted["classes"][cls]["paths"][0]).read_bytes()
        lines = raw.decode(codec).lstrip("\ufeff").encode("utf-8").split(b"\n")[:-1]
        fr = s.table("frames").filter(pl.col("file_id") == s.fids(cls)[0]).sort("line_no")
        # each record as its UTF-8 would be: same size, and read as the record it is
        assert fr["nbytes"].to_list() == [len(x) for x in lines]
        assert fr["role"].to_list() == [orjson.loads(x)["role"] for x in lines]
        blocks = s.table("blocks").filter(pl.col("file_id") == s.fids(cls)[0])
        assert blocks.height == len(lines) and set(blocks["btype"]) == {"text"}


def test_binary_file_is_one_outcome_not_frames(hostile_survey: Survey) -> None:
    s = hostile_survey
    planted = s.planted["classes"]["binary"]
    (f,) = s.table("files").filter(pl.col("file_id") == s.fids("binary")[0]).iter_rows(named=True)
    assert (f["read_status"], f["lines"]) == ("binary", planted["lines"])
    assert s.table("frames").filter(pl.col("file_id") == s.fids("binary")[0]).height == 0
    assert s.res.problems["file:binary"] == 1


def test_duplicate_key_keeps_the_last_value(hostile_survey: Survey) -> None:
    s = hostile_survey
    planted = s.planted["classes"]["duplicate_key"]
    fid = s.fids("duplicate_key")[0]
    fr = s.table("frames").filter(pl.col("file_id") == fid).sort("line_no")
    assert fr["role"][0] == planted["kept_role"]
    assert (fr["flags"] & FLAGS["duplicate_key"] > 0).to_list() == [True, False, True]
    blocks = s.table("blocks").filter((pl.col("file_id") == fid) & (pl.col("line_no") == 2))
    assert blocks.height == planted["kept_blocks"]


def test_new_outcomes_reach_the_page(hostile_survey: Survey) -> None:
    s = hostile_survey
    assert s.res.page
    text = Path(s.res.page).read_text()
    f = s.planted["flags"]
    assert f"records with a key twice (the last value kept) {f['duplicate_key']}" in text
    assert f"records with a number out of range {f['out_of_range']}" in text
    assert f"records with NaN/Infinity {f['nonstandard_number']}" in text
    for status in ("utf16", "utf32", "binary", "dir_named_like_file"):
        assert f"| {status} | 1 |" in text


def test_big_line_is_oversized_and_the_next_line_survives(hostile_survey: Survey) -> None:
    s = hostile_survey
    big = s.planted["classes"]["big_line"]
    assert big["line_bytes"] > DEFAULT_MAX_LINE
    fr = s.table("frames").filter(pl.col("file_id") == s.fids("big_line")[0]).sort("line_no")
    assert fr.select("line_no", "frame_status", "nbytes").rows() == [
        (0, "oversized", big["line_bytes"]), (1, "ok", fr["nbytes"][1])]
    (f,) = s.table("files").filter(pl.col("file_id") == s.fids("big_line")[0]).iter_rows(named=True)
    assert (f["read_status"], f["nbytes"], f["lines"]) == ("ok", big["file_bytes"], 2)
    # both greps scanned it, and agree
    ev = load_json(s.snap, "evidence")
    assert ev["scopes"]["jsonl"]["bytes_duckdb"] >= big["file_bytes"]
    assert all(p["agree"] for p in ev["probes"])


def test_ten_thousand_levels_is_too_deep(hostile_survey: Survey) -> None:
    s = hostile_survey
    fr = s.table("frames").filter(pl.col("file_id") == s.fids("deep")[0]).sort("line_no")
    assert fr.select("line_no", "frame_status").rows() == [(0, "too_deep"), (1, "ok")]


def test_deep_payload_is_walked_and_its_length_counted_as_truncated(hostile_survey: Survey) -> None:
    s = hostile_survey
    fid = s.fids("deep_payload")[0]
    blk = s.table("blocks").filter(pl.col("file_id") == fid)
    assert blk.select("btype", "name", "input_type", "payload_len").rows() == [("tool_use", "Shell", "array", None)]
    (f,) = s.table("files").filter(pl.col("file_id") == fid).iter_rows(named=True)
    assert f["truncations"] == 2  # the walk's depth cap on the value, and the unmeasured payload
    (t,) = s.rows("truncations")
    assert t["truncated_values"] >= 2


def test_invalid_utf8_nul_bom_crlf_outcomes(hostile_survey: Survey) -> None:
    s = hostile_survey
    fr = s.table("frames")

    def of(cls: str) -> list[tuple]:
        return fr.filter(pl.col("file_id") == s.fids(cls)[0]).sort("line_no").select("frame_status", "flags").rows()

    assert of("invalid_utf8") == [("ok", 0), ("invalid_utf8", 0)]
    assert of("nul") == [("ok", 0), ("malformed", 4), ("malformed", 4)]
    assert of("bom") == [("ok", 1), ("ok", 0)]
    assert of("crlf") == [("ok", 2)] * 3
    assert of("truncated") == [("ok", 0), ("ok", 0), ("partial", 0)]
    assert of("malformed") == [("ok", 0), ("malformed", 0), ("ok", 0), ("malformed", 0), ("ok", 0)]


def test_empty_file(hostile_survey: Survey) -> None:
    s = hostile_survey
    (row,) = s.inventory().filter(pl.col("file_id") == s.fids("empty")[0]).iter_rows(named=True)
    assert (row["problem"], row["size"], row["sampled"]) == ("empty", 0, False)
    (f,) = s.table("files").filter(pl.col("file_id") == s.fids("empty")[0]).iter_rows(named=True)
    assert (f["read_status"], f["nbytes"], f["lines"]) == ("ok", 0, 0)


def test_unreadable_file(hostile_survey: Survey) -> None:
    s = hostile_survey
    if not s.planted["reads_blocked"]:
        pytest.skip("running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not stop reads here, so the "
                    "file is read normally; test_unreadable_file_as_an_unprivileged_user covers it")
    (row,) = s.inventory().filter(pl.col("file_id") == s.fids("unreadable")[0]).iter_rows(named=True)
    assert row["problem"] == "unreadable"
    assert s.res.problems["file:unreadable"] == 1


@pytest.mark.parametrize("cls,problem", [("broken_symlink", "broken_symlink"), ("symlink_loop", "symlink_loop")])
def test_symlinks_are_rows_never_followed(hostile_survey: Survey, cls: str, problem: str) -> None:
    s = hostile_survey
    fids = s.fids(cls)
    inv = s.inventory().filter(pl.col("file_id").is_in(fids))
    assert inv.select("surface", "kind", "problem").rows() == [("other", "link", problem)] * len(fids)
    assert s.table("files").filter(pl.col("file_id").is_in(fids)).height == 0  # never opened


def test_directory_named_like_a_file(hostile_survey: Survey) -> None:
    s = hostile_survey
    (row,) = s.inventory().filter(pl.col("file_id") == s.fids("dir_like_file")[0]).iter_rows(named=True)
    # a directory outcome: not a transcript, and none of the corpus's bytes
    assert (row["surface"], row["kind"], row["problem"], row["size"]) == ("other", "dir", "dir_named_like_file", 0)
    by_surface = {r["surface"]: r for r in s.rows("files_by_surface")}
    files = s.inventory().filter(pl.col("kind") != "dir")
    assert by_surface["transcript"]["files"] == files.filter(pl.col("surface") == "transcript").height
    assert sum(r["bytes"] or 0 for r in by_surface.values()) == sum(p.stat().st_size for p in s.root.rglob("*")
                                                                    if p.is_file() and not p.is_symlink())
    # the crawl still went inside: the file in it is a row and was read
    (inner,) = s.inventory().filter(pl.col("file_id") == s.fids("dir_like_file", "inner")[0]).iter_rows(named=True)
    assert (inner["surface"], inner["ext"], inner["problem"]) == ("other", ".bin", None)
    # the DuckDB glob **/*.jsonl and rg skip the directory: they count exactly the inventory's files
    sc = load_json(s.snap, "evidence")["scopes"]["jsonl"]
    assert sc["files_duckdb"] == sc["files_rg"] == sc["files_inventory"]
    assert sc["rg_errors"] == 0


def test_duplicate_session_ids_across_projects(hostile_survey: Survey) -> None:
    s = hostile_survey
    inv = s.inventory().filter(pl.col("file_id").is_in(s.fids("duplicate_ids")))
    assert inv.height == 2 and inv["file_id"].n_unique() == 2
    assert inv["session_id"].n_unique() == 1
    dup = (s.inventory().filter(pl.col("session_id").is_not_null()).group_by("session_id").len()
           .filter(pl.col("len") > 1))
    assert dup.rows() == [(inv["session_id"][0], 2)]


def test_unknown_files_by_extension(hostile_survey: Survey) -> None:
    s = hostile_survey
    got = {r["ext"]: r["files"] for r in s.rows("other_files")}
    assert got == s.planted["other_ext"]
    for ext, n in s.planted["classes"]["unknown_files"]["by_ext"].items():
        assert got[ext] >= n
    files = s.table("files").filter(pl.col("file_id").is_in(s.fids("unknown_files")))
    assert files["read_status"].to_list() == ["ok"] * len(s.planted["classes"]["unknown_files"]["paths"])


@given(st.lists(st.text(st.sampled_from("ab.-_/ÉZ9\udcff"), min_size=1, max_size=12), min_size=1, max_size=3))
def test_a_file_class_is_its_last_name_parts_suffix_as_pathlib_reads_it(parts: list[str]) -> None:
    from survey.corpus.crawl import ext_of

    rel = "/".join(parts)
    name = rel.rsplit("/", 1)[-1]
    if name in ("", ".", ".."):
        return  # never a directory entry's name
    suffix = PurePosixPath(name).suffix.lower()
    if name.startswith(".") and name.count(".") == 1:
        want = "(dotfile)"
    elif not suffix or len(suffix) > 12 or not suffix[1:].replace("_", "").replace("-", "").isalnum():
        want = "(none)"
    else:
        want = suffix
    assert ext_of(rel) == want
    assert ext_of(name) == want


def test_million_keys_is_a_counted_map(hostile_survey: Survey) -> None:
    s = hostile_survey
    fid = s.fids("million_keys")[0]
    nodes = s.table("nodes").filter((pl.col("file_id") == fid) & (pl.col("path") == "$"))
    maps = nodes.filter(pl.col("keyset") == "<map>")
    assert maps.select("jtype", "count", "max_len").rows() == [("object", 1, s.planted["classes"]["million_keys"]["keys"])]
    # values of a map are typed, never described key by key
    assert s.table("nodes").filter((pl.col("file_id") == fid) & pl.col("path").cast(pl.String).str.starts_with("$.k")).height == 0


# -- memory ----------------------------------------------------------------------------------
_MEM = textwrap.dedent("""
    import json, os, resource, sys
    from pathlib import Path
    import duckdb, polars  # imported before the baseline: their size is not the walk's
    from survey.census.walk import make_walker, walk_file
    from survey.pipeline import run_survey
    from survey.runtimes import get
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    what, path, out = sys.argv[1:4]
    if what == "walk":
        w = make_walker("cursor", "reviewed", False, b"salt")
        r = walk_file(w, path, "f-x", "jsonl", os.path.getsize(path))
        result = [r.status, [f[1] for f in r.frames]]
    else:
        res = run_survey(get("cursor"), Path(path), snapshots=Path(out), reports=None, jobs=1)
        result = [res.problems]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"growth_kb": peak - base, "result": result}))
""")


def _peak_growth_mb(tmp_path: Path, what: str, path: Path) -> tuple[float, Any]:
    proc = subprocess.run([sys.executable, "-c", _MEM, what, str(path), str(tmp_path / "snaps")],
                          capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["growth_kb"] / 1024, out["result"]  # ru_maxrss is in KiB on Linux


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units differ off Linux")
def test_memory_stays_bounded_on_a_100_mib_line(hostile_survey: Survey, tmp_path: Path) -> None:
    s = hostile_survey
    big = s.root / s.planted["classes"]["big_line"]["paths"][0]
    assert big.stat().st_size > BIG_LINE_MB << 20
    # the walk alone: at most one capped frame buffered (64 MiB) plus a chunk
    growth, result = _peak_growth_mb(tmp_path, "walk", big)
    assert result == ["ok", ["oversized", "ok"]]
    assert growth < (DEFAULT_MAX_LINE >> 20) + 32, f"walk grew {growth:.0f} MiB"
    # the whole pipeline over that one file (walk, snapshot, census, both greps, in-process)
    one = tmp_path / "one" / "p" / "agent-transcripts" / "x"
    one.mkdir(parents=True)
    try:
        os.link(big, one / "x.jsonl")
    except OSError:
        shutil.copyfile(big, one / "x.jsonl")
    growth, (problems,) = _peak_growth_mb(tmp_path, "run", tmp_path / "one")
    assert problems == {"frame:oversized": 1}
    assert growth < 400, f"pipeline grew {growth:.0f} MiB"


# -- files that change while they are read -----------------------------------------------------
def _run_with_plan(root: Path, base: Path, plan: hostile.ChangePlan, monkeypatch: pytest.MonkeyPatch) -> RunResult:
    """The real pipeline, in-process (jobs=1), with the walk telling ``plan`` when it opens a
    file and when it has read a chunk of it."""
    current: list[str] = []
    orig_walk_file = W.walk_file

    def walk_file(walker: W.Walker, path: str, *args: Any, **kw: Any) -> W.FileResult:
        plan.before_open(path)
        current.append(path)
        try:
            return orig_walk_file(walker, path, *args, **kw)
        finally:
            current.pop()

    class Reader(W.HashingReader):
        def read(self, n: int = -1) -> bytes:
            b = super().read(n)
            if b and current:
                plan.after_read(current[-1])
            return b

    monkeypatch.setattr(W, "walk_file", walk_file)
    monkeypatch.setattr(W, "HashingReader", Reader)
    return run_survey(get("cursor"), root, snapshots=base / "snapshots", reports=base / "reports", jobs=1)


def test_files_that_change_while_read_are_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "projects"
    targets = hostile.plant_changing(root, seed=7)
    plan = hostile.ChangePlan({str(p): a for a, p in targets.items()})
    res = _run_with_plan(root, tmp_path, plan, monkeypatch)
    assert {a: plan.done[a] for a in hostile.ACTIONS} == dict.fromkeys(hostile.ACTIONS, 1)
    assert res.problems.get("file:changed_during_read") == 4  # grown or shrunk, before or during
    assert res.problems.get("file:vanished") == 1
    snap = Path(res.snapshot)
    rows = load_json(snap, "census")["read_outcomes"]
    assert dict(rows["rows"]) == {"changed_during_read": 4, "vanished": 1}
    # the greps ran over the changed files afterwards without an error, and agree
    ev = load_json(snap, "evidence")
    sc = ev["scopes"]["jsonl"]
    assert sc["files_duckdb"] == sc["files_rg"] == 4 and sc["rg_errors"] == 0
    assert all(p["agree"] for p in ev["probes"])


def test_changing_targets_left_alone_are_ok(tmp_path: Path) -> None:
    """Control: the same files, unchanged, are all read ``ok``."""
    root = tmp_path / "projects"
    hostile.plant_changing(root, seed=7)
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=None, jobs=1)
    assert res.problems == {}


# -- unreadable, for real -------------------------------------------------------------------
_UNPRIV = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from survey.pipeline import run_survey
    from survey.runtimes import get
    base = Path(sys.argv[1])
    res = run_survey(get("cursor"), base / "projects", snapshots=base / "snapshots", reports=None, jobs=1)
    ev = json.loads((Path(res.snapshot) / "evidence.json").read_text())
    print(json.dumps({"problems": res.problems, "fallback": ev["scopes"]["jsonl"]["duckdb_fallback"],
                      "agree": all(p["agree"] for p in ev["probes"])}))
""")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to drop to an unprivileged user")
def test_unreadable_file_as_an_unprivileged_user() -> None:
    base = Path(tempfile.mkdtemp(prefix="survey-unpriv-"))
    try:
        hostile.generate(base / "projects", seed=7, classes=["unreadable", "malformed"])
        (base / "config").mkdir()
        for dirpath, dirnames, filenames in os.walk(base):
            for name in [*dirnames, *filenames]:
                os.chown(os.path.join(dirpath, name), 65534, 65534, follow_symlinks=False)
        os.chown(base, 65534, 65534)
        env = {**os.environ, "SURVEY_CONFIG_DIR": str(base / "config"), "HOME": str(base),
               "SURVEY_CACHE_DIR": str(base / "config" / "cache")}
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               sys.executable, "-c", _UNPRIV, str(base)],
                              capture_output=True, text=True, cwd=base, env=env, check=False, timeout=120)
        assert proc.returncode == 0, proc.stderr[-1500:]
        assert str(base) not in proc.stderr  # no real path in any message
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got["problems"] == {"file:unreadable": 1, "frame:malformed": 2}
        # the DuckDB grep could not read the file (a small file is read by the grep itself and
        # handed to the query): it was re-run over the readable files, and said so
        assert got["fallback"]["error"] == "PermissionError" and got["fallback"]["files_searched"] >= 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


# -- the CLI: messages a person can act on, no corpus byte ----------------------------------------
_BOX = re.compile(r"[\s\u2500-\u257f]+")


def _leaks(text: str, tokens: list[str]) -> list[str]:
    flat = _BOX.sub("", text)  # undo rich's wrapping inside table cells
    return [t for t in tokens if t in text or t in flat or t[:8] in flat]


def test_cli_prints_classes_and_pseudonyms_never_corpus_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from survey import cli

    # every class, a 1 MiB "big" line and no million-key line: the same content, three runs, fast
    root = tmp_path / "projects"
    classes = [c for c in hostile.CLASSES if c != "million_keys"]
    planted = hostile.generate(root, seed=11, big_line_mb=1, classes=classes)
    want = _expected_problems(planted)
    tokens = planted["canaries"]
    assert len(tokens) > 40 and all(t.startswith("hstl") for t in tokens)
    monkeypatch.setattr(cli.out, "width", 400)
    monkeypatch.setattr(cli.err, "width", 400)
    args = ["run", "-r", "cursor", "--root", str(root), "--snapshots", str(tmp_path / "snaps"),
            "--reports", str(tmp_path / "reports")]
    runner = CliRunner()
    plain = runner.invoke(cli.app, [*args, "--date", "plain"])
    strict = runner.invoke(cli.app, [*args, "--date", "strict", "--strict"])
    as_json = runner.invoke(cli.app, [*args, "--date", "json", "--json"])
    assert (plain.exit_code, strict.exit_code, as_json.exit_code) == (0, 3, 0), plain.output + strict.output
    for r in (plain, strict, as_json):
        assert r.exception is None or isinstance(r.exception, SystemExit)
        text = r.stdout + r.stderr
        assert _leaks(text, tokens) == []
        assert str(root) not in text  # not even the root's own path
    # every problem is named by class, with its count
    assert want
    for k, v in want.items():
        assert f"{k} {v}" in plain.stdout
    out = json.loads(as_json.stdout)
    assert out["results"][0]["problems"] == want
    # and nothing the run wrote holds a corpus byte either
    written = [p for p in (tmp_path / "snaps").rglob("*") if p.is_file()] + list((tmp_path / "reports").rglob("*.md"))
    for p in written:
        text = pl.read_parquet(p).write_csv() if p.suffix == ".parquet" else p.read_text(errors="replace")
        assert _leaks(text, tokens) == [], p.name


@pytest.mark.parametrize("runtime", NAMES)
def test_an_empty_root_gives_a_page_not_a_crash(runtime: str, tmp_path: Path) -> None:
    from survey.runtimes import get

    (tmp_path / "root").mkdir()
    res = run_survey(get(runtime), tmp_path / "root", snapshots=tmp_path / "s", reports=tmp_path / "r")
    assert res.files == 0 and res.problems == {}
    assert Path(res.page).read_text().startswith("#")


def test_a_surface_pattern_that_cannot_be_joined_still_classifies_folders(tmp_path: Path) -> None:
    """The crawl tests folders against all surfaces at once; a profile whose patterns cannot
    be joined into one regex (here a back reference) falls back to classifying each one."""
    import dataclasses

    from survey.corpus.crawl import crawl
    from survey.runtimes import get
    from survey.runtimes.base import Surface

    (tmp_path / "p" / "x.jsonl").mkdir(parents=True)
    (tmp_path / "p" / "x.jsonl" / "inner.bin").write_bytes(b"1")
    odd = Surface("odd", r"^(?P<d>[^/]+)/(?P=d)?x\.jsonl$", "jsonl")
    for profile in (get("cursor_stream"), dataclasses.replace(get("cursor_stream"), surfaces=(odd,))):
        inv = crawl(tmp_path, profile, b"salt").frame
        (row,) = inv.filter(pl.col("kind") == "dir").iter_rows(named=True)
        # a row at all says the folder's name matched a surface (a folder matching none has
        # none); the row is a directory outcome, of no surface, of no bytes
        assert (row["problem"], row["surface"], row["size"]) == ("dir_named_like_file", "other", 0)
        assert inv.height == 2


def test_a_file_name_that_is_not_utf8_is_surveyed_and_never_printed(tmp_path: Path) -> None:
    """os.scandir gives such a name with lone surrogates, which neither a polars string nor
    a DuckDB string can hold: the walk keeps paths as bytes, the grep hands DuckDB numbers
    instead of names, and DuckDB's own listing, which fails on the name, is re-run over the
    files the walk read (said on the page). Both engines agree; the name is never written."""
    from survey.pipeline import run_survey
    from survey.runtimes import get

    root = tmp_path / "projects"
    d = root / "p" / "agent-transcripts" / "s1"
    d.mkdir(parents=True)
    (d / "s1.jsonl").write_bytes(b'{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}\n')
    with open(os.fsencode(d) + b"/\xffsecretname.jsonl", "wb") as fh:
        fh.write(b'{"role":"assistant","model":"m"}\n')
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "snaps", reports=tmp_path / "reports",
                     cache=False, jobs=1)
    assert (res.files, res.walked_files, res.disagreements) == (2, 2, [])
    scope = json.loads((Path(res.snapshot) / "evidence.json").read_text())["scopes"]["jsonl"]
    assert scope["files_duckdb"] == scope["files_rg"] == 2
    assert scope["duckdb_fallback"]["files_searched"] == 2 and "retry_error" not in scope["duckdb_fallback"]
    written = [p for base in (tmp_path / "snaps", tmp_path / "reports") for p in base.rglob("*") if p.is_file()]
    assert written and not any(b"secretname" in p.read_bytes() for p in written)


def test_a_subagent_named_in_bytes_that_are_not_utf8_is_searched_for_as_those_bytes(tmp_path: Path) -> None:
    """A Claude Code subagent transcript whose name is not UTF-8: its session id (from the
    name, lone surrogates) is searched for in its parent's bytes as the name's bytes on
    disk; the survey neither fails (it did, encoding the id) nor writes the name."""
    from survey.synth import claude_code

    root = tmp_path / "claude"
    claude_code.generate(root, seed=3, sessions=2)
    parent = sorted(root.glob("*/*.jsonl"))[0]
    with open(parent, "ab") as fh:  # the child's id in the parent's bytes (not a JSON line: counted, not parsed)
        fh.write(b'{"type":"user","agent":"\xff\xfesecretid"}\n')
    sub = parent.with_suffix("") / "subagents"
    sub.mkdir(parents=True, exist_ok=True)
    with open(os.fsencode(sub) + b"/agent-\xff\xfesecretid.jsonl", "wb") as fh:
        fh.write(b'{"type":"user","sessionId":"x"}\n')
    res = run_survey(get("claude_code"), root, snapshots=tmp_path / "snaps", reports=tmp_path / "reports",
                     cache=False, jobs=1)
    needles = pl.read_parquet(Path(res.snapshot) / "walk" / "needles.parquet")
    child = pseudonym(load_salt(), os.fsdecode(os.fsencode(sub.relative_to(root)) + b"/agent-\xff\xfesecretid.jsonl"), "f")
    assert needles.filter(pl.col("needle_file") == child)["found"].to_list() == [True]
    written = [p for base in (tmp_path / "snaps", tmp_path / "reports") for p in base.rglob("*") if p.is_file()]
    assert written and not any(b"secretid" in p.read_bytes() for p in written)


_RG_UNDER_LIMIT = """
import os, sys, json, resource
from pathlib import Path
import survey.evidence.grep as G
from survey.runtimes.base import Scope

root, limit = Path(sys.argv[1]), int(sys.argv[2])
real = G.commands.rg_binary()
wrap = root.parent / "rg-limited"
wrap.write_text(f"#!{sys.executable}\\nimport os, sys, resource\\n"
                f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\\n"
                f"os.execv({real!r}, [{real!r}, *sys.argv[1:]])\\n")
wrap.chmod(0o755)
G.commands.rg_binary = lambda: str(wrap)
scope = Scope("t", ("**/*.jsonl",), ("*.jsonl",), ("*",))
print(json.dumps(G.rg.rg_grep(root, scope, json.loads(sys.argv[3]))))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is Linux's address-space limit")
def test_rg_counts_a_giant_line_in_bounded_memory(tmp_path: Path) -> None:
    """rg holds a line whole (``-o``: about twice it): a single-line record of 128 MiB under an
    address space of 3 x RG_WHOLE_MAX + 64 MiB (160 MiB, set by setrlimit in the process that
    runs rg) is still counted, exactly: rg reads it in pieces (``RG_WHOLE_MAX``), and counts
    what the bytes hold, as the pasteable command reading the file whole would."""
    from survey.evidence import grep as G

    root = tmp_path / "root"
    root.mkdir()
    lits = ['"tool_use"', '"role"', "never-there"]
    block = b"abcdefgh " * 100 + b'"tool_use" '
    reps = (128 << 20) // len(block)
    with open(root / "giant.jsonl", "wb") as fh:
        fh.write(b'{"role":"user","text":"')
        for _ in range(reps // 1024):
            fh.write(block * 1024)
        fh.write(b'"}\n{"role":"assistant"}\n')
    (root / "small.jsonl").write_bytes(b'{"role":"user","x":"tool_use"}\n')
    # the truth, counted here from what was written (no literal overlaps another or itself)
    want = {'"tool_use"': {"files_matched": 2, "occurrences": (reps // 1024) * 1024 + 1},
            '"role"': {"files_matched": 2, "occurrences": 3}, "never-there": {"files_matched": 0, "occurrences": 0}}
    assert (root / "giant.jsonl").stat().st_size > 3 * G.rg.RG_WHOLE_MAX
    limit = 3 * G.rg.RG_WHOLE_MAX + (64 << 20)
    out = subprocess.run([sys.executable, "-c", _RG_UNDER_LIMIT, str(root), str(limit), json.dumps(lits)],
                         capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["errors"] == 0 and got["exit_code"] == 0
    assert got["per_literal"] == want
    # the same limit, the file read whole (the cap lifted): rg cannot hold the line
    out = subprocess.run([sys.executable, "-c", "import survey.evidence.grep as G; G.rg.RG_WHOLE_MAX = 1 << 40\n"
                          + _RG_UNDER_LIMIT, str(root), str(limit), json.dumps(lits)],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["errors"] > 0
