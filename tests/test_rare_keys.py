"""``rarekeys.rare_keys``: the keys seen in fewer than N files, counted by file from node key sets,
node path segments and blocks' parsed input key sets. Held to a plain recount over the rows of
real walk tables (seeded corpora surveyed in reviewed mode, so nothing is collapsed yet) and of
hand-written tables with the edge cases."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from survey.census.rarekeys import rare_keys
from survey.corpus.privacy import MASKS
from survey.pipeline import run_survey
from survey.runtimes import get


def _recount(tables: dict[str, pl.DataFrame], min_files: int) -> set[str]:
    """Each (file, key) pair gathered row by row in Python, then the keys of too few files."""
    seg = re.compile(r"\.([^.\[\]]+)")
    skip = MASKS | {"<map>", "<opaque>"}
    files: dict[str, set[str]] = {}
    for fid, ks, path in tables["nodes"].select(pl.col("file_id", "keyset", "path").cast(pl.String)).iter_rows():
        for k in ks.split(",") if ks and ks not in skip else []:
            files.setdefault(k, set()).add(fid)
        for k in seg.findall(path):
            files.setdefault(k, set()).add(fid)
    if "blocks" in tables:
        for fid, ks in tables["blocks"].select(pl.col("file_id", "input_keyset").cast(pl.String)).iter_rows():
            for k in ks.split(",") if ks and ks not in skip else []:
                files.setdefault(k, set()).add(fid)
    return {k for k, fs in files.items() if len(fs) < min_files and k not in MASKS and not k.startswith("<")}


def _walk_tables(tmp_path: Path, runtime: str) -> dict[str, pl.DataFrame]:
    if runtime == "claude_code":
        from survey.synth.claude_code import generate as gen_cc

        root = tmp_path / "projects"
        gen_cc(root, seed=11, sessions=8)
    else:
        from survey.synth.cursor_desktop import generate as gen_desk

        root = tmp_path / "User"
        root.mkdir()
        gen_desk(root, seed=13, sessions=9)
    res = run_survey(get(runtime), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01",
                     cache=False, mode="reviewed")
    walk = Path(res.snapshot) / "walk"
    return {n: pl.read_parquet(walk / f"{n}.parquet") for n in ("nodes", "blocks")}


@pytest.mark.parametrize("runtime", ["claude_code", "cursor_desktop"])
def test_rare_keys_of_walk_tables_match_a_row_by_row_recount(tmp_path: Path, runtime: str) -> None:
    tables = _walk_tables(tmp_path, runtime)
    files = tables["nodes"]["file_id"].n_unique()
    seen = []
    for min_files in (2, 3, files, files + 1):
        want = _recount(tables, min_files)
        assert rare_keys(tables, min_files) == want
        as_text = {n: df.with_columns(pl.col(pl.Categorical).cast(pl.String)) for n, df in tables.items()}
        assert rare_keys(as_text, min_files) == want
        seen.append(len(want))
    assert seen[-1] > seen[0] >= 0 and seen[-1] > 0  # the thresholds bite: more keys are rare at the top one
    assert rare_keys(tables, 1) == set()


def test_rare_keys_edge_cases() -> None:
    """A key only in a block's parsed input; a block input key set equal to a node key set of the
    same file (that file counted once); masked, empty and undescribed key sets naming no key;
    path segments beside array steps."""
    nodes = pl.DataFrame({
        "file_id": ["f1", "f2", "f3", "f1", "f2", "f1", "f2", "f3"],
        "keyset": ["a,b", "a,b", "a", "<map>", "", "c", None, "a"],
        "path": ["$", "$", "$", "$.m", "$.p[].q", "$.p[].q", "$.p[].r", "$"],
    }).with_columns(pl.col("file_id", "keyset", "path").cast(pl.Categorical))
    blocks = pl.DataFrame({"file_id": ["f1", "f1", "f3", "f2"], "input_keyset": ["c", "x,y", "y", None]})
    tables = {"nodes": nodes, "blocks": blocks}
    # files: a 3, b 2, c 1 (node and block of f1), m 1, p 2, q 2, r 1, x 1, y 2
    assert rare_keys(tables, 2) == {"c", "m", "r", "x"} == _recount(tables, 2)
    assert rare_keys(tables, 3) == {"b", "c", "m", "p", "q", "r", "x", "y"} == _recount(tables, 3)
    assert rare_keys({"nodes": nodes}, 2) == {"c", "m", "r"}
