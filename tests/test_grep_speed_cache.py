"""The evidence greps: exact counts on tricky bytes (DuckDB, rg, the pasteable command and a
byte count agree), the structural figures from one query, and the per-file grep cache: a
re-run reads only new and changed files and reports exactly what a fresh run reports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import survey.evidence.grep as G
import survey.schedule as S
from survey.corpus.crawl import crawl
from survey.corpus.privacy import file_key, pseudonym
from survey.pipeline import known_files, run_survey
from survey.runtimes import get
from survey.runtimes.base import Probe, Profile, Scope
from survey.shared import rel as rel_path
from survey.snapshot.store import load_json
from survey.synth.cursor import generate

REPO = Path(__file__).resolve().parents[1]
SCOPE = Scope("t", ("**/*.txt",), ("*.txt",), ("*",))
# quotes, a backslash before a quote, a doubled backslash, a self-overlapping literal
LITERALS = sorted(['aa', '"tool_result"', "it's", 'a\\"b', "\\\\", "[...]", "never-there"])

FILES: dict[str, bytes] = {
    "plain.txt": b'{"type":"tool_result"} aaa aaaa "tool_result"\n',
    "overlap.txt": b"aaaaa\naa\n",  # 'aa' non-overlapping: 2 + 1
    "quotes.txt": b"it's it''s a\\\"b a\\\\\"b \\\\\\ [...] [..]\n",
    "crlf.txt": b'"tool_result"\r\n[...]\r\naa\r\n',
    "nul.txt": b"\x00aa\x00\"tool_result\"\x00",
    # not UTF-8: searched through DuckDB's escaping blob cast, with " ' \ put back
    "notutf8.txt": b"x\xff\xfe \"tool_result\" it's a\\\"b \\\\ \xc3 aa \x80aa",
    "escapes-only.txt": b"\xff\x22\x27\x5c\x5c",
    "empty.txt": b"",
    "sub/dir/deep.txt": b"[...][...] aa",
    "we[i]rd *name?.txt": b'"tool_result" aa',
    "-leading dash.txt": b"aa",
    "caf\u00e9 \u2028.txt": b"aa [...]",
    "ignored.json": b"aa aa aa",  # outside the scope
}


def plant(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def reference(root: Path, literals: list[str]) -> tuple[dict[str, dict], int, int]:
    """Non-overlapping occurrences, left to right, in the raw bytes (what rg -o counts)."""
    files = [p for p in root.rglob("*.txt") if p.is_file()]
    out = {}
    for lit in literals:
        counts = [p.read_bytes().count(lit.encode()) for p in files]
        out[lit] = {"files_matched": sum(1 for c in counts if c), "occurrences": sum(counts)}
    return out, len(files), sum(p.stat().st_size for p in files)


def test_duckdb_rg_and_bytes_agree_on_tricky_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "c"
    plant(root, FILES)
    want, n_files, n_bytes = reference(root, LITERALS)
    dd, from_cache = G.duck.duckdb_grep(root, SCOPE, LITERALS)
    # the same, read in three concurrent parts
    monkeypatch.setattr(G.duck, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(G.duck, "_cores", lambda: 3)
    parts, at_once = G.duck._parts(list(FILES), {f: 1 for f in FILES})
    assert len(parts) == 3 and at_once == 3
    assert G.duck.duckdb_grep(root, SCOPE, LITERALS) == (dd, 0)
    # and in parts of at most two files (a long list of names is cut: DuckDB slows with it)
    monkeypatch.setattr(G.duck, "PART_FILES", 2)
    parts, at_once = G.duck._parts(list(FILES), {f: 1 for f in FILES})
    assert len(parts) == -(-len(FILES) // 2) and max(map(len, parts)) == 2 and at_once == 3
    assert sorted(g for p in parts for g, _, _ in p) == sorted(FILES)
    assert G.duck.duckdb_grep(root, SCOPE, LITERALS) == (dd, 0)
    # files read by DuckDB's read_blob instead of handed over as blobs, all or some of them
    sizes = sorted({len(v) for v in FILES.values()})
    for cut in (-1, sizes[len(sizes) // 2]):
        monkeypatch.setattr(G.duck, "FEED_MAX_FILE", cut)
        assert G.duck.duckdb_grep(root, SCOPE, LITERALS) == (dd, 0)
    rg = G.rg.rg_grep(root, SCOPE, LITERALS)
    assert from_cache == 0 and rg["files_from_cache"] == 0
    for lit in LITERALS:
        got = {k: dd[lit][k] for k in ("files_matched", "occurrences")}
        assert got == want[lit], (lit, got, want[lit])
        assert rg["per_literal"][lit] == want[lit], (lit, rg["per_literal"][lit])
        assert (dd[lit]["files_scanned"], dd[lit]["bytes_scanned"], dd[lit]["files_not_utf8"]) == (n_files, n_bytes, 2)
    assert rg["files_scanned"] == n_files and rg["errors"] == 0 and rg["exit_code"] == 0


def test_rg_counts_raw_bytes_after_a_leading_utf16_bom(tmp_path: Path) -> None:
    root = tmp_path / "c"
    plant(root, {"bom.txt": b'\xff\xfe "tool_result" aa'})
    dd, _ = G.duck.duckdb_grep(root, SCOPE, LITERALS)
    rg = G.rg.rg_grep(root, SCOPE, LITERALS)
    assert dd['"tool_result"']["occurrences"] == 1
    assert rg["per_literal"]['"tool_result"']["occurrences"] == 1


# printable, no backslash: searched as pieces of the raw bytes (G.reads.raw_exact)
RAW_LITERALS = sorted(['aa', '"tool_result"', "it's", "[...]", "never-there", "CREATE TABLE t"])
RAW_FILES: dict[str, bytes] = {
    **{k: v for k, v in FILES.items() if k != "ignored.json"},
    # a SQLite-like page: NULs, high bytes, the schema text (a byte whose escape ends in C
    # right before "CREATE": the escaped text holds "\x0CCREATE", the match is the bytes')
    "store.txt": b"SQLite format 3\x00\xff\x0cCREATE TABLE t(x)\x00\x00" + b"\x80aa\x00" * 50,
    "long line.txt": b'{"a":"' + b"[...]aa" * 300 + b'"}',  # no NUL, no LF: cut where no literal has a byte
    "literal bytes only.txt": b"a" * 301,  # nowhere to cut: one piece
    "utf8 pieces.txt": "\u00e9aa\n\u2028[...]\n".encode() * 40,
}


def test_pieces_count_what_the_whole_files_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files handed over in pieces (cut where no literal can match, bytes that are not UTF-8
    blanked) count exactly what the whole files count through DuckDB's escaping cast, and
    what rg and the raw bytes count."""
    root = tmp_path / "c"
    plant(root, RAW_FILES)
    assert G.reads.raw_exact(RAW_LITERALS) and not G.reads.raw_exact(LITERALS)
    monkeypatch.setattr(G.reads, "raw_exact", lambda lits: False)
    whole, _ = G.duck.duckdb_grep(root, SCOPE, RAW_LITERALS)
    monkeypatch.undo()
    want, n_files, n_bytes = reference(root, ["aa", "[...]", '"tool_result"', "CREATE TABLE t"])
    cuts = []
    real_cut = G.reads._cut
    monkeypatch.setattr(G.reads, "_cut", lambda *a: cuts.append(real_cut(*a)) or cuts[-1])
    for piece, batch in ((G.reads.PIECE_BYTES, G.reads.FEED_BATCH_BYTES), (16, 64), (7, 1)):
        monkeypatch.setattr(G.reads, "PIECE_BYTES", piece)
        monkeypatch.setattr(G.reads, "FEED_BATCH_BYTES", batch)
        got, _ = G.duck.duckdb_grep(root, SCOPE, RAW_LITERALS)
        assert got == whole, piece
    assert len(cuts) > 100 and 0 in cuts  # pieces were cut, and one file had nowhere to cut
    # larger files cut in one span per core, searched side by side and added up
    spans: list[tuple[str, int, int]] = []
    real_of = G.reads.Pieces.of
    monkeypatch.setattr(G.reads.Pieces, "of", lambda self, path, size, start=0, end=-1: spans.append(
        (os.path.relpath(path, root), start, end)) or real_of(self, path, size, start, end))
    monkeypatch.setattr(G.duck, "PARALLEL_MIN_BYTES", 0)
    for cores, split, piece in ((3, 100, G.reads.PIECE_BYTES), (2, 50, 16), (5, 1, 7)):
        monkeypatch.setattr(G.duck, "_cores", lambda cores=cores: cores)
        monkeypatch.setattr(G.reads, "SPLIT_MIN_BYTES", split)
        monkeypatch.setattr(G.reads, "PIECE_BYTES", piece)
        spans.clear()
        got, _ = G.duck.duckdb_grep(root, SCOPE, RAW_LITERALS)
        assert got == whole, (cores, split, piece)
        # every large file in `cores` spans, among them the one with nowhere to cut
        split_files = {f for f, start, _ in spans if start > 0}
        assert "literal bytes only.txt" in split_files and "store.txt" in split_files
        assert all(sum(1 for g, _, _ in spans if g == f) == min(cores, len(RAW_FILES[f])) for f in split_files)
    for lit, w in want.items():
        assert {k: whole[lit][k] for k in w} == w, lit
    assert whole["aa"]["files_scanned"] == n_files and whole["aa"]["bytes_scanned"] == n_bytes
    assert whole["aa"]["files_not_utf8"] == 3  # notutf8, escapes-only, store
    rg = G.rg.rg_grep(root, SCOPE, RAW_LITERALS)
    assert all(rg["per_literal"][lit] == {k: whole[lit][k] for k in ("files_matched", "occurrences")}
               for lit in RAW_LITERALS)


def test_a_match_the_escaped_text_makes_is_the_read_blob_querys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A literal that can begin inside a byte's escape (\\xHH) can match in the escaped text
    of a file that is not UTF-8 where the bytes do not; such a file is searched whole, as the
    pasteable query does, so the figures stay that query's."""
    lits = ["xFFA", "Afoo", "CREATE TABLE t"]
    assert G.reads.raw_exact(lits)
    hz = G.reads.escape_hazards(lits)
    assert hz[b"A"] == {0xFF} and 0x0A in hz[b"foo"] and 0x0C in hz[b"REATE TABLE t"]
    root = tmp_path / "c"
    plant(root, {"bad.txt": b"\xffA \nfoo \x0cREATE TABLE t aa\xfe",  # escaped: \xFFA, \x0Afoo, \x0CREATE
                 "good.txt": b"\nfoo \xc3\xa9A",  # UTF-8: no escapes, no match
                 "clean.txt": b"\xfe CREATE TABLE t"})  # not UTF-8, no hazard: in pieces
    monkeypatch.setattr(G.reads, "PIECE_BYTES", 4)
    monkeypatch.setattr(G.reads, "raw_exact", lambda lits: False)
    whole, _ = G.duck.duckdb_grep(root, SCOPE, lits)
    monkeypatch.undo()
    monkeypatch.setattr(G.reads, "PIECE_BYTES", 4)
    searched_whole: list[list[str]] = []
    real_parts = G.duck._fed_batches
    monkeypatch.setattr(G.duck, "_fed_batches", lambda root, files, *a: searched_whole.append(files) or real_parts(root, files, *a))
    got, _ = G.duck.duckdb_grep(root, SCOPE, lits)
    assert got == whole
    assert searched_whole == [["bad.txt"]]
    assert {lit: got[lit]["occurrences"] for lit in lits} == {"xFFA": 1, "Afoo": 1, "CREATE TABLE t": 2}
    # the same when the files are cut in spans searched side by side: the hazard found in
    # one span of bad.txt sends the whole file to the read_blob query
    searched_whole.clear()
    monkeypatch.setattr(G.duck, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(G.reads, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(G.duck, "_cores", lambda: 3)
    assert G.duck.duckdb_grep(root, SCOPE, lits)[0] == whole
    assert searched_whole == [["bad.txt"]]


def _cli(command: str, root: Path) -> list[dict[str, Any]]:
    duck = shutil.which("duckdb", path=str(Path(sys.executable).parent))
    if duck is None:
        pytest.skip("no .venv/bin/duckdb (make links it to survey-duckdb)")
    assert command.startswith("duckdb ")
    proc = subprocess.run(f"{duck} -json {command[len('duckdb '):]}", shell=True, cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "ROOT": str(root)}, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # the SETs print nothing: one JSON array, the query's rows


def test_pasteable_command_gives_the_pipeline_figures(tmp_path: Path) -> None:
    """The page's command (grep_literals.sql whole, in the duckdb CLI, over the whole scope)
    sums to the same figures the pipeline adds up from per_file, cached or not."""
    root = tmp_path / "c"
    plant(root, FILES)
    rows = {r["literal"]: r for r in _cli(G.commands.duckdb_command(SCOPE, LITERALS), root)}
    dd, _ = G.duck.duckdb_grep(root, SCOPE, LITERALS)
    assert set(rows) == set(LITERALS)
    for lit in LITERALS:
        assert {k: int(v) for k, v in rows[lit].items() if k != "literal"} == dd[lit], lit


def test_one_query_gives_every_probes_structural_figure(cursor_survey) -> None:
    _planted, _res, snap = cursor_survey
    profile = get("cursor")
    probes = [*profile.probes, Probe("x_type", ("x",), "jsonl", key="type"),
              Probe("x_none", ("x",), "jsonl", key="no-such-key", key_paths=("$",))]
    got = G.keyhits.key_hits(snap, probes, "SNAP")
    keyed = [p for p in probes if p.key]
    assert set(got) == {p.id for p in keyed}
    con = duckdb.connect()
    for p in keyed:
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        con.execute("SET VARIABLE key = ?", [p.key])
        con.execute("SET VARIABLE paths = ?::VARCHAR[]", [list(p.key_paths)])
        files, objects, paths = con.execute(G.commands.KEY_SQL.read_text()).fetchone()
        assert (got[p.id]["files_with_key"], got[p.id]["objects_with_key"]) == (files, objects), p.id
        assert got[p.id]["paths_seen"] == paths, p.id
        assert got[p.id]["command"].endswith(f'-c ".read {rel_path(G.commands.KEY_SQL)}"')
    assert got["x_type"]["files_with_key"] > 0 and got["x_none"]["files_with_key"] == 0
    assert "$" in got["x_type"]["paths_seen"] and got["x_none"]["paths_seen"] == []


# -- the per-file cache -------------------------------------------------------------------------


def _figures(ev: dict) -> dict:
    """Everything the evidence says, less the cache's own bookkeeping."""
    ev = json.loads(json.dumps(ev))
    # the corpus fingerprint stays: the walk's cache keys files by ctime too, so the
    # same-size rewrite below is walked again and the fingerprints must agree
    for s in ev["scopes"].values():
        s.pop("files_from_cache")
        s.pop("cache_error", None)
    for p in ev["probes"]:
        p.pop("files_from_cache")
        if p["structural"]:  # its command names the snapshot, and so the run's date
            p["structural"].pop("command")
    return ev


def _spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    seen: dict[str, list] = {"duckdb": [], "rg": [], "keys": []}
    per_file, rg_run, keys = G.duck._per_file_rows, G.rg._rg_run, G.cache._keys

    def keys_of(root, files, known, distinct=False):
        seen["keys"].append(1)
        files = list(files)
        assert not distinct or len(set(files)) == len(files), "a listing said to be distinct is not"
        return keys(root, files, known, distinct)

    def per_file_rows(con, root, parts, literals, sizes):
        seen["duckdb"] += [g for part in parts[0] for g, _, _ in part]
        return per_file(con, root, parts, literals, sizes)

    def rg(rg_bin, argv, paths):
        seen["rg"] += paths
        return rg_run(rg_bin, argv, paths)

    monkeypatch.setattr(G.duck, "_per_file_rows", per_file_rows)
    monkeypatch.setattr(G.rg, "_rg_run", rg)
    monkeypatch.setattr(G.cache, "_keys", keys_of)
    return seen


def test_cached_rerun_reports_exactly_what_a_fresh_run_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=11, sessions=24)
    cursor = get("cursor")

    def survey(date: str, cache: bool) -> dict:
        res = run_survey(cursor, root, snapshots=tmp_path / "snaps", reports=None, date=date, cache=cache, jobs=1)
        return load_json(Path(res.snapshot), "evidence")

    # a file to be rewritten in place later with the same size and its old mtime (only its
    # ctime will tell); valid JSON before and after, the literal inside a text value
    same_size = root / "proj-same" / "agent-transcripts" / "same" / "same.jsonl"
    same_size.parent.mkdir(parents=True)
    line = b'{"role":"user","message":{"content":[{"type":"text","text":"%s"}]}}\n'
    same_size.write_bytes(line % b"abcde")
    first = survey("2026-01-01", True)
    assert first["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": 0, "rg": 0}
    jsonl = sorted(p for p in root.rglob("*.jsonl") if p != same_size)
    n_before = len(jsonl) + 1

    # change the corpus: add two files (one full of probe literals), rewrite one in place,
    # append to one, delete one
    added = jsonl[0].parent.parent / "added-1" / "added-1.jsonl"
    added.parent.mkdir(parents=True)
    added.write_bytes(b'{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]},'
                      b'"model":"m","usage":{},"version":"1"} [...] [truncated] /agent-tools/\n')
    shutil.copyfile(jsonl[1], jsonl[1].parent / "copy-of-a-session.jsonl")
    st = same_size.stat()
    same_size.write_bytes(line % b"[...]")
    os.utime(same_size, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (same_size.stat().st_size, same_size.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    with open(jsonl[3], "ab") as fh:
        fh.write(b'{"role":"user","message":{"content":[{"type":"text","text":"\\"cancelled\\" [...]"}]}}\n')
    jsonl[4].unlink()

    seen = _spy(monkeypatch)
    joined: list[str] = []  # the engines whose ``served`` joined their keys to the cache's
    served, keyed = G.cache.GrepCache.served, G.cache.GrepCache._keyed

    def served_spy(self, engine, keys):
        self._engine = engine
        return served(self, engine, keys)

    def keyed_spy(self, keys, names=None, at=None):
        if names is None:
            joined.append(self._engine)
        return keyed(self, keys, names, at)

    monkeypatch.setattr(G.cache.GrepCache, "served", served_spy)
    monkeypatch.setattr(G.cache.GrepCache, "_keyed", keyed_spy)
    again = survey("2026-01-02", True)
    monkeypatch.setattr(G.cache.GrepCache, "served", served)
    monkeypatch.setattr(G.cache.GrepCache, "_keyed", keyed)
    fresh_seen = {k: list(v) for k, v in seen.items()}
    seen["duckdb"].clear()
    seen["rg"].clear()
    fresh = survey("2026-01-03", False)

    assert _figures(again) == _figures(fresh)
    assert fresh["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": 0, "rg": 0}
    unchanged = n_before - 3  # the same-size rewrite, the appended file, the deleted file
    assert again["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": unchanged, "rg": unchanged}
    assert all(p["files_from_cache"] == {"duckdb": unchanged, "rg": unchanged}
               for p in again["probes"] if p["scope"] == "jsonl")
    # only the new and changed files were read again, by both engines
    changed = {added, jsonl[1].parent / "copy-of-a-session.jsonl", same_size, jsonl[3]}
    rels = {str(p.relative_to(root)) for p in changed}
    assert {G.scopes._relative(root, os.fsdecode(p)) for p in fresh_seen["rg"]} == rels
    assert set(fresh_seen["duckdb"]) == {G.scopes._glob_escape(r) for r in rels}
    # the same-size rewrite was read again: its "[...]" is counted
    before = {p["id"]: p for p in first["probes"]}["marker_ellipsis"]["duckdb"]["per_literal"]["[...]"]
    after = {p["id"]: p for p in again["probes"]}["marker_ellipsis"]["duckdb"]["per_literal"]["[...]"]
    assert after["occurrences"] == before["occurrences"] + 1 + 1 + 1  # added, appended, rewritten
    assert all(p["agree"] for p in again["probes"])
    # DuckDB's listing came with its keys from the crawl's rows (``Known.listing``), and rg
    # listed each scope's files as DuckDB did and reused those keys: none joined by path
    assert fresh_seen["keys"] == []
    # both engines keep their rows in the keys' order, so rg reused DuckDB's join of them
    assert joined and set(joined) == {"duckdb"}


def test_a_rerun_that_read_nothing_leaves_the_grep_cache_as_it_was(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Where both engines keep every cached row and read no file, the scope's cache file is
    not written again (it would be the same rows); one new file, and it is."""
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=11, sessions=6)

    def survey(date: str) -> tuple[dict, os.stat_result]:
        res = run_survey(get("cursor"), root, snapshots=tmp_path / "snaps", reports=None, date=date, jobs=1)
        (kept,) = (tmp_path / "cache").rglob("*.grep/jsonl-*.parquet")
        return load_json(Path(res.snapshot), "evidence"), kept.stat()

    first, made = survey("d1")
    again, left = survey("d2")
    assert (left.st_ino, left.st_mtime_ns) == (made.st_ino, made.st_mtime_ns)
    assert _figures(again) == _figures(first)
    n = again["scopes"]["jsonl"]["files_from_cache"]["duckdb"]
    assert n > 0 and again["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": n, "rg": n}
    extra = next(root.rglob("*.jsonl"))
    shutil.copyfile(extra, extra.with_name("a-copy.jsonl"))
    third, written = survey("d3")
    assert written.st_ino != left.st_ino
    assert third["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": n, "rg": n}
    assert survey("d4")[0]["scopes"]["jsonl"]["files_from_cache"] == {"duckdb": n + 1, "rg": n + 1}


def test_rg_reuses_duckdbs_join_only_where_its_cached_keys_are_the_same(tmp_path: Path) -> None:
    """``GrepCache.served`` joins the keys to an engine's cached keys once: the other engine
    takes that join only for the same keys and the same cached keys in the same order, and
    is served exactly what its own join would serve either way."""
    names = [f"f{i}.txt" for i in range(6)]
    frame = pl.DataFrame({"file_id": [f"f-{i:016x}" for i in range(6)], "size": [10 * i for i in range(6)],
                          "mtime_ns": [7] * 6, "ctime_ns": [8] * 6, "inode": list(range(100, 106))},
                         schema={c: t for c, t in G.scopes.KNOWN_SCHEMA.items() if c != "path"})
    keys = G.cache.Keys(names, frame)
    k = len(LITERALS)

    def cache_with(rg_order: list[int], changed: int | None = None) -> G.cache.GrepCache:
        cache = G.cache.GrepCache(tmp_path / "g", SCOPE, LITERALS, b"s" * 32)
        per = G.cache.PerFile(k, names[:5], [1] * 5, [False] * 5, [i for i in range(5) for _ in range(k)])
        cache.put_many("duckdb", keys, per)
        cache.put_many("rg", keys, G.cache.PerFile(k, [names[i] for i in rg_order], [], [],
                                             [i for i in rg_order for _ in range(k)]))
        cache.old = {e: cache.new[e] for e in cache.ENGINES}
        if changed is not None:  # a file whose rg row was counted under another key
            cache.old["rg"] = cache.old["rg"].with_columns(
                size=pl.when(pl.col("file_key") == changed).then(-1).otherwise(pl.col("size")))
        return cache

    def own(cache: G.cache.GrepCache, engine: str) -> list[tuple[int, list[int]]]:
        cache._joined = None
        got = cache.served(engine, keys)
        return sorted(zip(got.at.to_list(), got.rows["occ"].to_list(), strict=True))

    # rg read its files in its own order: kept in the keys' order, as DuckDB's are
    same = cache_with([4, 0, 3, 1, 2])
    assert same.new["rg"].select(G.cache.KEY_COLUMNS).equals(same.new["duckdb"].select(G.cache.KEY_COLUMNS))
    assert same.served("duckdb", keys).count == 5 and same._joined is not None
    reused = same.served("rg", keys)
    assert same._joined is None  # taken, and let go
    assert sorted(zip(reused.at.to_list(), reused.rows["occ"].to_list(), strict=True)) == own(same, "rg")
    # other cached keys (one file's key differs): rg joins its own, and is served one less
    other = cache_with([4, 0, 3, 1, 2], changed=3)
    other.served("duckdb", keys)
    mine = other.served("rg", keys)
    assert mine.count == 4 and 3 not in mine.at.to_list()
    # other keys asked for: joined again
    other.served("duckdb", keys)
    assert other.served("rg", keys.pick(pl.Series([0, 1, 2], dtype=pl.UInt32))).count == 3


def test_cache_holds_no_path_and_can_be_turned_off(tmp_path: Path) -> None:
    root = tmp_path / "c"
    plant(root, FILES)
    salt = b"s" * 32
    folder = G.cache.grep_cache_folder(tmp_path / "cache" / "walk")
    cache = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    dd, _ = G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=cache)
    rg = G.rg.rg_grep(root, SCOPE, LITERALS, cache=cache)
    cache.save()
    (stored_file,) = folder.iterdir()
    assert stored_file == cache.path and stored_file.name == f"t-{cache.sig}.parquet"
    data = stored_file.read_bytes()
    for rel in FILES:
        assert Path(rel).name.encode() not in data and Path(rel).stem.encode() not in data
    rows = pl.read_parquet(stored_file)
    # its only text: the engine, and pseudonyms (read back, not searched for in encoded bytes)
    assert set(rows["engine"]) == {"duckdb", "rg"}
    assert [n for n, t in rows.schema.items() if t == pl.String] == ["engine"]
    stored = {e: set(rows.filter(pl.col("engine") == e)["file_key"]) for e in G.cache.GrepCache.ENGINES}
    assert stored["duckdb"] == stored["rg"] == {file_key(pseudonym(salt, r, "f")) for r in FILES if r.endswith(".txt")}
    # warm: everything from the cache, same figures
    warm = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    dd2, n = G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=warm)
    rg2 = G.rg.rg_grep(root, SCOPE, LITERALS, cache=warm)
    assert dd2 == dd and n == len(stored["duckdb"])
    assert rg2.pop("files_from_cache") == n and rg.pop("files_from_cache") == 0
    assert rg2 == rg
    # another literal set is another cache: nothing reused
    other = G.cache.GrepCache(folder, SCOPE, [*LITERALS, "zz"], salt)
    assert G.duck.duckdb_grep(root, SCOPE, [*LITERALS, "zz"], cache=other)[1] == 0
    # a damaged cache file is no cache
    cache.path.write_text("{not parquet")
    broken = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    assert broken.error and G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=broken) == (dd, 0)


def test_pipeline_without_cache_writes_no_grep_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "projects"
    generate(root, seed=3, sessions=4)
    run_survey(get("cursor"), root, snapshots=tmp_path / "snaps", reports=None, cache=False, jobs=1)
    assert not list((tmp_path / "cache").rglob("*.grep"))
    run_survey(get("cursor"), root, snapshots=tmp_path / "snaps", reports=None, date="2026-01-02", jobs=1)
    (grep_dir,) = list((tmp_path / "cache").rglob("*.grep"))
    (stored,) = grep_dir.glob("jsonl-*.parquet")
    assert str(root).encode() not in stored.read_bytes()


def test_files_rg_failed_on_are_read_again_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rg names no failed file in a form worth trusting: after an error nothing it read is
    kept, so the next run reads (and fails on) them again instead of reporting no error."""
    root = tmp_path / "c"
    plant(root, FILES)
    folder = tmp_path / "grep"
    rg_run = G.rg._rg_run

    def failing(rg_bin, argv, paths):
        out, _code, _errors = rg_run(rg_bin, argv, paths)
        return out, 2, 1

    monkeypatch.setattr(G.rg, "_rg_run", failing)
    cache = G.cache.GrepCache(folder, SCOPE, LITERALS, b"s" * 32)
    G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=cache)
    first = G.rg.rg_grep(root, SCOPE, LITERALS, cache=cache)
    cache.save()
    assert (first["exit_code"], first["errors"]) == (2, 1) and cache.new["rg"].height == 0
    monkeypatch.setattr(G.rg, "_rg_run", rg_run)
    again = G.cache.GrepCache(folder, SCOPE, LITERALS, b"s" * 32)
    stored = again.old["duckdb"].height
    assert G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=again)[1] == stored > 0
    second = G.rg.rg_grep(root, SCOPE, LITERALS, cache=again)
    assert second["files_from_cache"] == 0 and (second["exit_code"], second["errors"]) == (0, 0)
    assert second["per_literal"] == first["per_literal"]


def test_literals_that_overlap_each_other_count_as_one_rg_pass(tmp_path: Path) -> None:
    """One pass with every literal: at each position the first literal (in list order) that
    matches wins and the search goes on after it, in DuckDB as in rg, so overlapping
    literals never make the two engines disagree."""
    root = tmp_path / "c"
    plant(root, {"a.txt": b"abc abc bc", "b.txt": b"xbcx"})
    lits = ["ab", "bc"]
    dd, _ = G.duck.duckdb_grep(root, SCOPE, lits)
    rg = G.rg.rg_grep(root, SCOPE, lits)
    assert {lit: dd[lit]["occurrences"] for lit in lits} == {"ab": 2, "bc": 2}
    assert {lit: rg["per_literal"][lit]["occurrences"] for lit in lits} == {"ab": 2, "bc": 2}
    assert (dd["bc"]["files_matched"], rg["per_literal"]["bc"]["files_matched"]) == (2, 2)


def test_one_duckdb_walk_lists_each_scope_as_its_own_glob_would(tmp_path: Path) -> None:
    """The scopes' ``**/`` globs are matched against one DuckDB listing of the whole root
    (one tree walk instead of one per glob): on every runtime's corpus, and on the hostile
    one (symlinks, loops, dot names, folders named like files, odd bytes and newlines in names), each
    glob gives exactly DuckDB's own ``glob()`` listing, in its order; matched against the
    crawl's files instead (``crawled_files``: what the pipeline's greps use), the same files."""
    import importlib

    from survey.synth import hostile

    corpora = []
    for name in ("cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex"):
        root = tmp_path / name
        importlib.import_module(f"survey.synth.{name}").generate(root, seed=3, sessions=6)
        corpora.append((root, get(name).scopes, get(name)))
    root = tmp_path / "hostile"
    hostile.generate(root, big_line_mb=1)
    plant(root, {".dot/a.jsonl": b"{}\n", ".b.jsonl": b"{}\n", "sub/.c.json": b"{}", "sub/.d/e.db": b"x",
                 # a newline in a folder's name, and one ending a name: DuckDB lists the first
                 # file for **/*.jsonl and not the second (a regex's "." and "$" would say otherwise)
                 "a\nb/c.jsonl": b"{}\n", "x.jsonl\n": b"{}\n", "y\n.jsonl": b"{}\n"})
    corpora.append((root, get("cursor").scopes + get("claude_code").scopes, get("claude_code")))
    con = duckdb.connect()
    checked = picked = 0
    for root, scopes, profile in corpora:
        everything = G.scopes.duckdb_everything(root)
        known = known_files(crawl(root, profile, b"s" * 32))
        crawled = G.scopes.crawled_files(known)
        assert everything and crawled, root
        for sc in scopes:
            for g in sc.duckdb_globs:
                own = G.scopes.duckdb_listing(con, root, [g])
                assert G.scopes.duckdb_listing(con, root, [g], everything) == own, (root.name, g)
                assert sorted(G.scopes.duckdb_listing(con, root, [g], crawled)) == sorted(own), (root.name, g)
                checked += bool(own)
            # a scope listed from the crawl's rows: the same files, in the same order, with
            # the rows ``_keys`` joins to them
            got = known.listing(sc.duckdb_globs)
            if got is not None:
                listed = G.scopes.duckdb_listing(con, root, sc.duckdb_globs, crawled)
                assert got[0] == listed, (root.name, sc.name)
                assert got[1].equals(G.cache._keys(root, listed, known, distinct=True).frame), (root.name, sc.name)
                picked += bool(listed)
    assert checked >= 8 and picked >= 6


def test_the_crawl_classes_names_with_newlines_as_the_scopes_globs_list_them(tmp_path: Path) -> None:
    """A surface's regex takes a newline in a name as DuckDB's globs do, so the files the
    census walks are the files the greps search: a capture in a folder named with a newline
    is a capture, and a name with a newline after ".jsonl" is not one."""
    from survey.synth.cursor_stream import generate

    root = tmp_path / "c"
    generate(root, seed=3, sessions=4)
    plant(root, {"a\nb/c.jsonl": b"{}\n", "x.jsonl\n": b"{}\n", "y\n.jsonl": b"{}\n", "d\ne/f.ndjson": b"{}\n"})
    profile = get("cursor_stream")
    inv = crawl(root, profile, b"s" * 32)
    captures = inv.paths_of(inv.frame.filter(pl.col("surface") == "capture")["file_id"])
    (scope,) = profile.scopes
    listed = G.scopes.duckdb_listing(duckdb.connect(), root, scope.duckdb_globs)
    assert sorted(map(str, captures)) == sorted(listed)
    assert {"a\nb/c.jsonl", "y\n.jsonl", "d\ne/f.ndjson"} <= set(listed) and "x.jsonl\n" not in listed


def test_rg_counts_each_file_whatever_bytes_its_path_holds(tmp_path: Path) -> None:
    """rg reports a file's path once, then its matches (``--heading``): a path holding
    newlines, blank lines or text shaped like a literal still counts as one file, with its
    own matches, in the cache as in the figures."""
    root = tmp_path / "c"
    plant(root, {"a\n\nb.txt": b'"tool_result" x "tool_result"', "aa\n.txt": b"aa",
                 "plain.txt": b'"tool_result"\naa\n', "none.txt": b"nothing here"})
    want, n_files, _ = reference(root, LITERALS)
    cache = G.cache.GrepCache(tmp_path / "gc", SCOPE, LITERALS, b"s" * 32)
    rg = G.rg.rg_grep(root, SCOPE, LITERALS, cache=cache)
    assert rg["files_scanned"] == n_files == 4 and rg["errors"] == 0
    for lit in LITERALS:
        assert rg["per_literal"][lit] == want[lit], lit
    per_file = {file_key(cache.fid(f)): occ for f, occ in
                (("a\n\nb.txt", [0] * len(LITERALS)), ("aa\n.txt", [0] * len(LITERALS)))}
    per_file[file_key(cache.fid("a\n\nb.txt"))][LITERALS.index('"tool_result"')] = 2
    per_file[file_key(cache.fid("aa\n.txt"))][LITERALS.index("aa")] = 1
    stored = dict(cache.new["rg"].select("file_key", "occ").iter_rows())
    for fid, occ in per_file.items():
        assert stored[fid] == occ


def _leftmost_first(text: bytes, lits: list[bytes]) -> list[int]:
    """One alternation's counts by hand: at the leftmost position where any literal starts,
    the first literal in list order wins, and the search goes on after it."""
    counts, i = [0] * len(lits), 0
    while i < len(text):
        for j, lit in enumerate(lits):
            if text.startswith(lit, i):
                counts[j] += 1
                i += len(lit)
                break
        else:
            i += 1
    return counts


def test_one_alternation_per_first_byte_counts_as_one_alternation_for_all(tmp_path: Path) -> None:
    """grep_literals.sql splits the literals into one alternation per first byte (fast; past
    four first bytes the rest share the fourth), and keeps one for all when two literals of
    different first bytes could overlap. On random texts over a tiny alphabet (overlaps
    everywhere), random literal sets and crafted ones, both ways give, file by file, the
    counts of one leftmost-first alternation of every literal."""
    import random

    rnd = random.Random(11)
    alphabet = "ab\"[x"
    root = tmp_path / "r"
    texts = {f"f{i}.txt": "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 80))).encode()
             for i in range(12)}
    # overlaps of two bytes, one literal inside another; five first bytes that cannot overlap
    texts["crafted.txt"] = b'xabz abx "a"x [ab[ xab "q[r xy zz ab"q'

    plant(root, texts)
    con = duckdb.connect()
    con.execute("SET VARIABLE root = ?", [str(root)])
    con.execute("SET VARIABLE globs = ?::VARCHAR[]", [["*.txt"]])
    split = kept = 0
    crafted = [["abz", "xab"], ["abx", "x"], ["a\"x", "x"], ["[ab", "b["], ["ab", "xabz"],
               ['"', "[", "ab", "x"], ['"q', "[r", "ab", "xy", "zz"]]
    for lits in crafted + [sorted({"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 6)))
                                   for _ in range(rnd.randrange(1, 6))}) for _ in range(120)]:
        con.execute("SET VARIABLE literals = ?::VARCHAR[]", [lits])
        got = {Path(f).name: list(occ) for f, _, _, occ in con.execute(G.duck.per_file_sql()).fetchall()}
        want = {name: _leftmost_first(data, [lit.encode() for lit in lits]) for name, data in texts.items()}
        assert got == want, lits
        entangled = any(a[0] != b[0] and (b in a or any(a[-k:] == b[:k] for k in range(1, min(len(a), len(b)))))
                        for a in lits for b in lits)
        split += not entangled and len({lit[0] for lit in lits}) > 1
        kept += entangled
    assert split >= 5 and kept >= 5, (split, kept)


def test_a_file_made_between_the_early_listing_and_the_crawl_makes_the_greps_list_again(
        tmp_path: Path) -> None:
    """The greps' listings start before the crawl (they run while it does). A file the crawl
    finds and the DuckDB listing does not (made in between) makes them list again; on an
    unchanged corpus, and on the hostile one (odd names, symlinks, special files), never."""
    from survey.corpus.crawl import crawl
    from survey.pipeline import known_files
    from survey.synth import hostile

    def known(root: Path) -> G.scopes.Known:
        return known_files(crawl(root, get("cursor"), b"s" * 32))

    root = tmp_path / "c"
    generate(root, seed=3, sessions=6)
    early = G.scopes.duckdb_everything(root)
    assert not G.scopes.listed_too_early(early, known(root))
    new = root / "p" / "agent-transcripts" / "late.jsonl"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_bytes(b'{"role":"user"}\n')
    assert G.scopes.listed_too_early(early, known(root))
    assert not G.scopes.listed_too_early(G.scopes.duckdb_everything(root), known(root))
    odd = tmp_path / "h"
    hostile.generate(odd, seed=7, big_line_mb=1)
    assert not G.scopes.listed_too_early(G.scopes.duckdb_everything(odd), known(odd))


def test_the_greps_search_a_file_made_after_the_early_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole pipeline, with a transcript made after rg's early listing started and before
    the crawl, which the listing lacks: its ctime says so and the listing does not name it,
    so rg lists again, and both engines search every file. A file only changed since (its
    ctime as recent, but listed) leaves the listing in use, as older files do."""
    import survey.pipeline as P

    root = tmp_path / "c"
    generate(root, seed=3, sessions=6)
    late = root / "p" / "agent-transcripts" / "late.jsonl"
    real_lists = P.rg_listings
    reads: list[int] = []

    def lists_then_write(r: Path, profile: Profile) -> dict:
        out = real_lists(r, profile)
        for rl in out.values():  # the early listings lack the file made next
            def read(rl: G.scopes.RgListing = rl, real: Any = rl.read) -> bytes:
                reads.append(1)
                return b"\0".join(p for p in real().split(b"\0") if not p.endswith(b"late.jsonl"))
            rl.read = read  # type: ignore[method-assign]
        late.parent.mkdir(parents=True, exist_ok=True)
        late.write_bytes(b"{}\n")  # no literal in it: only a listing can count it
        return out

    monkeypatch.setattr(P, "rg_listings", lists_then_write)
    made: list[int] = []
    real_init = G.scopes.RgListing.__init__
    monkeypatch.setattr(G.scopes.RgListing, "__init__", lambda self, *a: made.append(1) or real_init(self, *a))
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=None)
    sc = load_json(Path(res.snapshot), "evidence")["scopes"]["jsonl"]
    assert sc["files_duckdb"] == sc["files_rg"] == sc["files_inventory"] > 0
    assert reads and len(made) == 2 * len(reads)  # each early listing read, found lacking, made again

    # a file changed after the listing started, not made: listed, so the listing stays
    late.unlink()
    changed = sorted(root.rglob("*.jsonl"))[0]

    def lists_then_change(r: Path, profile: Profile) -> dict:
        out = real_lists(r, profile)
        changed.write_bytes(changed.read_bytes() + b'{"role":"user"}\n')
        return out

    monkeypatch.setattr(P, "rg_listings", lists_then_change)
    made.clear()
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=None, date="d2")
    sc = load_json(Path(res.snapshot), "evidence")["scopes"]["jsonl"]
    assert sc["files_duckdb"] == sc["files_rg"] == sc["files_inventory"] > 0
    assert made and len(made) == len(real_lists(root, get("cursor")))  # the early listings only
    # which files a listing started at ``ns`` may lack: those whose ctime is later
    known = {f"f{i}": (f"f-{i}", (1, 1, time.time_ns() - 5_000_000_000, 1)) for i in range(3)}
    assert G.scopes.Known.of(known).since(time.time_ns()) == []
    assert G.scopes.Known.of({**known, "new": ("f-9", (1, 1, time.time_ns(), 1))}).since(time.time_ns()) == ["new"]


def test_scopes_share_one_rg_pass_and_count_what_their_own_passes_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several scopes searching the whole root take their matches from one rg pass with all
    their literals, each keeping only its own literals in its own files, and get exactly
    what their own passes give. rg counts leftmost matches, so where another scope's
    literal that can overlap one of ours matched (it may have taken our bytes), the file is
    searched again by our own pass."""
    root = tmp_path / "c"
    texts = Scope("texts", ("**/*.txt",), ("*.txt",), ("*",))
    logs = Scope("logs", ("**/*.log",), ("*.log",), ("*",))
    # "xab" in hidden.txt: the shared pass takes "xa" (a log literal below) and hides "ab"
    plant(root, {**FILES, "hidden.txt": b"xab xab ab", "a.log": b"zz aa [...] zz\nzz xab", "b/c.log": b"[...]",
                 "d.log": b""})
    runs: list[list[bytes]] = []
    real = G.rg._rg_run
    monkeypatch.setattr(G.rg, "_rg_run", lambda rg, argv, paths: runs.append(paths) or real(rg, argv, paths))
    whole = [os.fsencode(str(root))]

    def both(text_lits: list[str], log_lits: list[str], shared: bool) -> list[dict]:
        runs.clear()
        pairs = [(texts, text_lits), (logs, log_lits)]
        sh = G.rg.SharedRg(root, pairs) if shared else None
        return [G.rg.rg_grep(root, sc, lits, shared=sh) for sc, lits in pairs]

    for text_lits, log_lits, again in ((LITERALS, ["qq"], 0), (LITERALS, ["zz"], 0), (LITERALS, ["zz", "[...]"], 0),
                                       (LITERALS, ["zz", "a\\"], 3), (["ab", "zz"], ["xa"], 1)):
        own = both(text_lits, log_lits, False)
        assert runs == [whole, whole]
        got = both(text_lits, log_lits, True)
        assert runs[0] == whole and whole not in runs[1:], log_lits
        assert sum(len(r) for r in runs[1:]) == again, (log_lits, runs[1:])  # files searched again
        assert got == own, log_lits
    assert got[0]["per_literal"]["ab"] == {"files_matched": 1, "occurrences": 3}
    # a file of the shared pass that the listing lacks still counts, in its own scope only
    sh = G.rg.SharedRg(root, [(texts, LITERALS), (logs, ["zz"])])
    real_listing = G.scopes.RgListing.read
    monkeypatch.setattr(G.scopes.RgListing, "read", lambda self: real_listing(self).replace(b"a.log\0", b""))
    assert G.rg.rg_grep(root, logs, ["zz"], shared=sh)["per_literal"]["zz"] == {"files_matched": 1, "occurrences": 3}


def test_a_rerun_that_reads_one_file_again_counts_its_matches(tmp_path: Path) -> None:
    """rg names no file when it is given just one, unless told to: a re-run with a single
    changed file to read must still count that file's matches (it once counted none)."""
    root = tmp_path / "c"
    plant(root, FILES)
    folder = tmp_path / "grep"
    cache = G.cache.GrepCache(folder, SCOPE, LITERALS, b"s" * 32)
    G.rg.rg_grep(root, SCOPE, LITERALS, cache=cache)
    cache.save()
    changed = root / "plain.txt"
    changed.write_bytes(changed.read_bytes() + b' "tool_result" aa')
    again = G.cache.GrepCache(folder, SCOPE, LITERALS, b"s" * 32)
    second = G.rg.rg_grep(root, SCOPE, LITERALS, cache=again)
    assert second["files_from_cache"] == len(G.scopes.in_scope(SCOPE, list(FILES))) - 1
    assert second["per_literal"] == G.rg.rg_grep(root, SCOPE, LITERALS)["per_literal"]


def test_small_files_are_read_at_once_as_python_would_read_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C core reads runs of small files with the GIL let go: each file's bytes, in one
    read of its listed size plus a byte (a file that grew since is read again in pieces),
    or the errno Python's own read would have raised; larger files are left to ``Pieces``."""
    import errno

    from survey.native import NATIVE

    if NATIVE is None:
        pytest.skip("the C core is not built (make)")
    root = tmp_path / "c"
    plant(root, {"a.txt": b"hello", "empty.txt": b"", "grew.txt": b"x" * 100, "caf\u00e9.txt": b"\xff\xfe"})
    (root / "dir.txt").mkdir()
    names = ["a.txt", "empty.txt", "grew.txt", "caf\u00e9.txt", "missing.txt", "dir.txt"]
    got = NATIVE.read_files([str(root / n) for n in names], [5, 0, 10, 2, 3, 0])
    assert got == [b"hello", b"", b"x" * 11, b"\xff\xfe", errno.ENOENT, errno.EISDIR]
    monkeypatch.setattr(G.reads, "PIECE_BYTES", 4)
    assert G.reads._read_small([str(root / "a.txt"), str(root / "caf\u00e9.txt")], [5, 2]) == [None, b"\xff\xfe"]
    # a file that grew since it was listed is counted whole, as a file read by name is
    monkeypatch.undo()
    plant(root, {"grew.txt": b"aa " * 40})
    real_keys = G.cache._keys
    def shrunk(r: Path, files: list[str], known: G.scopes.Known | None, distinct: bool = False) -> G.cache.Keys:
        keys = real_keys(r, files, known, distinct)
        size = pl.when(pl.int_range(pl.len()) == keys.row.get("grew.txt", -1)).then(3).otherwise(pl.col("size"))
        return G.cache.Keys(keys.names, keys.frame.with_columns(size=size))

    monkeypatch.setattr(G.cache, "_keys", shrunk)
    dd, _ = G.duck.duckdb_grep(root, SCOPE, ["aa"], files=["grew.txt", "a.txt"])
    assert dd["aa"]["occurrences"] == 40
    # an errno from the C read is the error a Python read would have raised
    monkeypatch.setattr(G.reads, "_read_small", lambda paths, sizes: [errno.EACCES] * len(paths))
    with pytest.raises(G.reads.GrepReadError, match="PermissionError"):
        G.duck.duckdb_grep(root, SCOPE, ["aa"], files=["a.txt"])


def test_runs_of_small_files_are_bounded_in_files_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C core reads a run of files into memory at once: a run holds at most READ_RUN
    files and READ_RUN_BYTES of the files it reads (larger ones are read in pieces and not
    counted), every file once, in order."""
    monkeypatch.setattr(G.reads, "READ_RUN", 4)
    monkeypatch.setattr(G.reads, "READ_RUN_BYTES", 100)
    monkeypatch.setattr(G.reads, "PIECE_BYTES", 60)
    sizes = {f"f{i}": n for i, n in enumerate([10, 50, 50, 1000, 5, 5, 5, 5, 5, 99, 0])}
    files = list(sizes)
    runs = list(G.reads._runs(files, sizes))
    assert [f for _, run in runs for f in run] == files
    assert [s for s, _ in runs] == [sum(len(r) for _, r in runs[:k]) for k in range(len(runs))]
    for _, run in runs:
        assert len(run) <= 4
        assert sum(sizes[f] for f in run if sizes[f] <= 60) <= 100 or len(run) == 1
    assert [len(r) for _, r in runs] == [2, 4, 4, 1]


def grep_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of the thread each DuckDB grep runs in, appended as it starts."""
    import threading

    calls: list[str] = []
    real = G.duck.duckdb_grep

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(threading.current_thread().name)
        return real(*a, **k)

    monkeypatch.setattr(G.duck, "duckdb_grep", spy)
    return calls


def _evidence_text(res: Any) -> str:
    """A run's evidence, its snapshot's own folder name taken out of the pasteable commands."""
    snap = Path(res.snapshot)
    return json.dumps(load_json(snap, "evidence"), sort_keys=True).replace(str(snap), "SNAP")


def test_greps_beside_the_walk_give_the_evidence_greps_after_it_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the walk leaves a core idle, the greps run in their own thread beside it and
    the key figures after it: the evidence is the same, figure for
    figure, as when everything runs after the walk. If the walk met a file that changed,
    the counts made beside it are dropped and the greps run again after it."""

    import polars as pl

    import survey.pipeline as P
    from survey.synth import cursor_desktop

    root = tmp_path / "d"
    cursor_desktop.generate(root, seed=7, sessions=6)
    calls = grep_threads(monkeypatch)

    def run(label: str, beside: bool, **kw: Any) -> Any:
        calls.clear()
        monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / f"cache-{label}"))
        monkeypatch.setattr(S, "BESIDE_MIN_BYTES", 0 if beside else 1 << 60)
        return run_survey(get("cursor_desktop"), root, snapshots=tmp_path / label, reports=None, jobs=3, **kw)

    after = run("after", False)
    assert calls and all(name == "MainThread" for name in calls)
    assert "greps_beside_walk" not in after.timings
    beside = run("beside", True)
    assert calls and all(name.startswith("greps") for name in calls)
    assert beside.timings["greps_beside_walk"] > 0
    assert _evidence_text(beside) == _evidence_text(after)
    assert any(p["structural"] for p in load_json(Path(beside.snapshot), "evidence")["probes"])

    real_collect = P.collect

    def changed(*a: Any, **k: Any) -> Any:  # the walk saw the store change under it
        tables = real_collect(*a, **k)
        tables["files"] = tables["files"].with_columns(read_status=pl.lit("changed_during_read"))
        return tables

    monkeypatch.setattr(P, "collect", changed)
    again = run("again", True)
    assert calls and calls[0].startswith("greps") and calls[-1] == "MainThread"
    assert "greps_beside_walk" not in again.timings


def test_greps_beside_a_walk_that_fails_end_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The greps beside the walk wait for its list of readable files only to retry a scope
    DuckDB could not read; if the walk fails, they are told so and end, and the run raises
    the walk's error instead of waiting for ever."""
    import threading

    import survey.pipeline as P
    from survey.synth import cursor_desktop

    root = tmp_path / "d"
    cursor_desktop.generate(root, seed=7, sessions=3)
    started = threading.Event()

    def unreadable(*a: Any, **k: Any) -> Any:
        started.set()
        raise G.reads.GrepReadError("IOException")

    def walk_fails(*a: Any, **k: Any) -> Any:
        assert started.wait(30)  # the greps are waiting for the walk's readable files by now
        raise RuntimeError("the walk broke")

    monkeypatch.setattr(G.duck, "duckdb_grep", unreadable)
    monkeypatch.setattr(P, "collect", walk_fails)
    monkeypatch.setattr(S, "BESIDE_MIN_BYTES", 0)
    errors: list[BaseException] = []

    def go() -> None:
        try:
            run_survey(get("cursor_desktop"), root, snapshots=tmp_path / "s", reports=None, jobs=2)
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive()
    assert [str(e) for e in errors] == ["the walk broke"]

    # a walk that ends well hands its readable files over, and the retry searches them
    monkeypatch.undo()
    real = G.duck.duckdb_grep
    monkeypatch.setattr(S, "BESIDE_MIN_BYTES", 0)
    monkeypatch.setattr(G.duck, "duckdb_grep", lambda r, sc, lits, files=None, **k: (
        unreadable() if files is None else real(r, sc, lits, files, **k)))
    done: list[Any] = []
    t = threading.Thread(target=lambda: done.append(run_survey(get("cursor_desktop"), root, snapshots=tmp_path / "t",
                                                                reports=None, jobs=2)), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive() and done
    for name, sc in load_json(Path(done[0].snapshot), "evidence")["scopes"].items():
        assert sc["duckdb_fallback"]["files_searched"] == sc["files_duckdb"] == sc["files_inventory"] > 0, name


def test_a_scope_duckdb_cannot_read_is_retried_over_the_walks_readable_files(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``grep_scopes`` asks for the walk's readable files (a function, when the greps run
    beside the walk) only when DuckDB cannot read a scope, and searches those of the scope."""
    root = tmp_path / "c"
    generate(root, seed=3, sessions=4)
    every = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    asked: list[int] = []

    def readable() -> list[str]:
        asked.append(1)
        return every

    got = G.verdicts.grep_scopes(root, get("cursor"), readable)
    assert not asked and all(g.fallback is None for g in got)
    real = G.duck.duckdb_grep

    def whole_scope_fails(root_: Path, scope: Scope, literals: list[str], files: list[str] | None = None,
                          **k: Any) -> Any:
        if files is None:
            raise G.reads.GrepReadError("IOException")
        return real(root_, scope, literals, files, **k)

    monkeypatch.setattr(G.duck, "duckdb_grep", whole_scope_fails)
    retried = G.verdicts.grep_scopes(root, get("cursor"), readable)
    assert len(asked) == len(retried) > 0
    for g, before in zip(retried, got, strict=True):
        assert g.fallback == {"error": "IOException", "files_searched": len(G.scopes.in_scope(g.scope, every))}
        assert g.duckdb == before.duckdb  # the readable files are every file here


def test_a_cache_under_another_signature_is_never_read_and_goes_at_the_next_save(tmp_path: Path) -> None:
    """The signature is in the cache file's name: another literal set reads nothing, and its
    save removes the scope's other files (and the JSON of the cache's first layout), not
    another scope's."""
    root = tmp_path / "c"
    plant(root, FILES)
    folder, salt = tmp_path / "grep", b"s" * 32
    first = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=first)
    first.save()
    (folder / "t.json").write_text("{}")
    (folder / "tt.json").write_text("{}")
    other_scope = Scope("t-x", ("**/*.txt",), ("*.txt",), ("*",))
    kept = G.cache.GrepCache(folder, other_scope, LITERALS, salt)
    G.duck.duckdb_grep(root, other_scope, LITERALS, cache=kept)
    kept.save()
    second = G.cache.GrepCache(folder, SCOPE, [*LITERALS, "zz"], salt)
    assert second.old["duckdb"].height == 0 and second.error is None
    assert G.duck.duckdb_grep(root, SCOPE, [*LITERALS, "zz"], cache=second)[1] == 0
    second.save()
    assert sorted(p.name for p in folder.iterdir()) == sorted([second.path.name, kept.path.name, "tt.json"])
    assert G.cache.GrepCache(folder, SCOPE, [*LITERALS, "zz"], salt).old["duckdb"].height == second.new["duckdb"].height > 0


def test_a_file_listed_by_two_globs_counts_twice_when_served_from_the_cache(tmp_path: Path) -> None:
    """read_blob reads a file that two globs match twice, and the pasteable command counts
    it twice: a re-run that serves it from the cache counts it twice as well, and serves
    every file, with the figures of a run without a cache."""
    root = tmp_path / "c"
    plant(root, FILES)
    twice = Scope("t2", ("**/*.txt", "**/*a*.txt"), ("*.txt",), ("*",))
    folder, salt = tmp_path / "grep", b"s" * 32
    plain, _ = G.duck.duckdb_grep(root, twice, LITERALS)
    first = G.cache.GrepCache(folder, twice, LITERALS, salt)
    assert G.duck.duckdb_grep(root, twice, LITERALS, cache=first) == (plain, 0)
    first.save()
    txt = [f for f in FILES if f.endswith(".txt")]
    assert plain["aa"]["files_scanned"] == len(txt) + sum("a" in f.rsplit("/", 1)[-1] for f in txt)
    again = G.cache.GrepCache(folder, twice, LITERALS, salt)
    assert G.duck.duckdb_grep(root, twice, LITERALS, cache=again) == (plain, len(txt))


@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(["a", "/", "\n", " ", "\u00e9", "\udcff", "/r/oot/"]),
                                                min_size=1, max_size=6).map("".join)), max_size=6))
def test_rg_listing_splits_as_the_plain_form_does(names: list[tuple[bool, str]]) -> None:
    """``_listed``'s one split gives what stripping the root from each NUL-ended name
    gives, whether or not every name starts with the root (a name may hold the root's text)."""
    pre = "/r/oot/"
    text = "".join((pre + n if under else n) + "\0" for under, n in names)
    assert G.rg._listed(text, pre) == [p[len(pre):] if p.startswith(pre) else p for p in text.split("\0") if p]


def test_a_duckdb_retry_after_a_failed_read_is_still_served_from_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope DuckDB fails to read is searched again over the files the walk read: the
    cache's rows are still there for that retry (they are let go only once a grep is done)."""
    root = tmp_path / "c"
    plant(root, FILES)
    folder, salt = tmp_path / "grep", b"s" * 32
    first = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    plain, _ = G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=first)
    first.save()
    again = G.cache.GrepCache(folder, SCOPE, LITERALS, salt)
    stored = again.old["duckdb"].height
    real, calls = G.duck._per_file_rows, []

    def fails_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise G.reads.GrepReadError("IOException")
        return real(*args, **kwargs)

    monkeypatch.setattr(G.duck, "_per_file_rows", fails_once)
    with pytest.raises(G.reads.GrepReadError):
        G.duck.duckdb_grep(root, SCOPE, LITERALS, cache=again)
    files = G.scopes.in_scope(SCOPE, list(FILES))
    assert G.duck.duckdb_grep(root, SCOPE, LITERALS, files, cache=again) == (plain, stored) and stored == len(files)
    assert again.old["duckdb"].height == 0  # let go once the grep is done


def test_a_listing_is_keyed_by_the_crawl_where_it_saw_the_file_else_by_a_fresh_stat(tmp_path: Path) -> None:
    """``_keys`` joins the listing on the crawl's paths (as bytes: a name that is not UTF-8
    joins too): a file the crawl saw keeps its file_id and the stat it had then (not a new
    one), a file made since is stat'ed now and has no file_id yet, a file gone since it was
    listed is left out, and a name listed twice is keyed once, in the listing's order."""
    root = tmp_path / "c"
    odd = os.fsdecode(b"odd-\xff.jsonl")
    plant(root, {"a.jsonl": b"{}\n", "b.jsonl": b"{}\n{}\n"})
    with open(os.fsencode(str(root)) + b"/" + os.fsencode(odd), "wb") as fh:
        fh.write(b"{}\n")
    known = known_files(crawl(root, get("cursor_stream"), b"s" * 32))
    assert sorted(known.paths()) == sorted(["a.jsonl", "b.jsonl", odd])
    crawled = {p: row for p, row in zip(known.paths(), known.rows.drop("path").iter_rows(), strict=True)}
    plant(root, {"a.jsonl": b"{}\n{}\n{}\n", "new.jsonl": b"{}\n"})  # a grew after the crawl
    keys = G.cache._keys(root, ["b.jsonl", "a.jsonl", odd, "new.jsonl", "gone.jsonl", "a.jsonl"], known)
    assert list(keys.row) == ["b.jsonl", "a.jsonl", odd, "new.jsonl"]
    assert list(keys.row.values()) == [0, 1, 2, 3]
    rows = keys.frame.rows()
    for name in ("b.jsonl", "a.jsonl", odd):
        assert rows[keys.row[name]] == crawled[name]  # the crawl's stat, not a fresh one
    assert rows[keys.row["a.jsonl"]][1] == 3  # its size when crawled
    st = os.stat(root / "new.jsonl")
    assert rows[3] == (None, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    # without the crawl, every file is stat'ed now
    fresh = G.cache._keys(root, ["a.jsonl", odd], None)
    assert fresh.frame["file_id"].null_count() == 2 and fresh.size() == [9, 3]


def test_the_inventory_gives_each_file_its_own_path_back(tmp_path: Path) -> None:
    """The crawl's paths are bytes in a frame of their own (never a column of the written
    inventory); ``paths_of`` gives back the name os.scandir gave, a name that is not
    UTF-8 included, in the order asked, and None for a file_id it never made."""
    root = tmp_path / "c"
    plant(root, {"s/a.jsonl": b"{}\n", "s/b.jsonl": b"{}\n"})
    with open(os.fsencode(str(root / "s")) + b"/\xfe.jsonl", "wb") as fh:
        fh.write(b"{}\n")
    inv = crawl(root, get("cursor_stream"), b"s" * 32)
    assert "path" not in inv.frame.columns and inv.names.schema == {"file_id": pl.String, "path": pl.Binary}
    ids = inv.frame["file_id"].to_list()
    got = inv.paths_of([*reversed(ids), "f-0000000000000000"])
    assert got[-1] is None
    assert sorted(got[:-1]) == sorted(f"s/{e.name}" for e in os.scandir(root / "s"))  # type: ignore[type-var]
    assert got[:-1] == inv.paths_of(pl.Series(ids[::-1]))


@given(st.integers(1, 4).flatmap(lambda k: st.tuples(st.just(k), st.lists(st.tuples(
    st.integers(0, 10**12), st.booleans(), st.lists(st.integers(0, 5), min_size=k, max_size=k), st.integers(1, 3)),
    max_size=12))))
def test_per_file_counts_sum_as_their_rows_do(case: tuple[int, list[tuple[int, bool, list[int], int]]]) -> None:
    """DuckDB's counts are held as columns (``PerFile``, the occurrences one flat list);
    their sums, each file counted once or as many times as it was listed, are the sums
    over the rows."""
    k, rows = case
    per = G.cache.PerFile.empty(k)
    for i, (size, bad, occ, _) in enumerate(rows):
        per.add(f"f{i}", size, bad, occ if any(occ) or i % 2 else None)  # None: no piece, no match
    for weights in (None, [w for *_, w in rows]):
        w = weights or [1] * len(rows)
        want = (sum(w), sum(x * s for x, (s, *_) in zip(w, rows, strict=True)),
                sum(x for x, (_, b, *_) in zip(w, rows, strict=True) if b),
                [sum(x for x, (*_, o, _) in zip(w, rows, strict=True) if o[j]) for j in range(k)],
                [sum(x * o[j] for x, (*_, o, _) in zip(w, rows, strict=True)) for j in range(k)])
        assert per.sums(weights) == want
    # rg's counts: occurrences alone (no sizes, nothing known of UTF-8), summed the same way
    rg = G.cache.PerFile.occurrences(k, {f"f{i}": occ for i, (_, _, occ, _) in enumerate(rows)})
    assert rg.sums() == (len(rows), 0, 0, *per.sums()[3:])


def test_a_scope_of_many_files_is_searched_by_name_in_batches_with_the_same_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where more than ``RG_WALK_MAX_FILES`` files are listed in one folder, rg searches its
    own listing named in argv batches instead of walking the tree (its walk queues a
    folder's every entry at once); as many files spread over folders are walked. The counts,
    exit code and files scanned are the walk's, shared pass or not; a file gone since it
    was listed is no error (a walk would not have met it), any other failure is."""
    root = tmp_path / "c"
    plant(root, {**FILES, **{f"flat/n{i:03d}.txt": b"aa [...]" * (i % 3) for i in range(40)}})
    logs = Scope("logs", ("**/*.log",), ("*.log",), ("*",))
    plant(root, {"x.log": b"zz aa"})
    runs: list[list[bytes]] = []
    real = G.rg._rg_run
    monkeypatch.setattr(G.rg, "_rg_run", lambda rg, argv, paths: runs.append(paths) or real(rg, argv, paths))
    walked = G.rg.rg_grep(root, SCOPE, LITERALS)
    shared_walk = G.rg.rg_grep(root, SCOPE, LITERALS, shared=G.rg.SharedRg(root, [(SCOPE, LITERALS), (logs, ["zz"])]))
    assert runs == [[os.fsencode(str(root))]] * 2 and shared_walk == walked
    monkeypatch.setattr(G.rg, "RG_ARGV_BYTES", 600)  # a few files per batch
    monkeypatch.setattr(G.rg, "RG_WALK_MAX_FILES", 40)  # the widest folder (flat/) holds 40
    runs.clear()
    assert G.rg.rg_grep(root, SCOPE, LITERALS) == walked and runs == [[os.fsencode(str(root))]]
    monkeypatch.setattr(G.rg, "RG_WALK_MAX_FILES", 39)
    runs.clear()
    named = G.rg.rg_grep(root, SCOPE, LITERALS)
    assert len(runs) > 3 and all(os.fsencode(str(root)) not in r for r in runs)
    assert sorted(p for r in runs for p in r) == sorted(
        os.fsencode(str(root / f)) for f in G.scopes.in_scope(SCOPE, [*FILES, *(f"flat/n{i:03d}.txt" for i in range(40))]))
    assert named == walked and named["per_literal"]["aa"]["files_matched"] > 20
    runs.clear()
    assert G.rg.rg_grep(root, SCOPE, LITERALS, shared=G.rg.SharedRg(root, [(SCOPE, LITERALS), (logs, ["zz"])])) == walked
    assert len(runs) > 3
    # listed, then gone before its batch ran: no error, no count
    listing = G.scopes.RgListing(root, SCOPE)
    listing.read()
    (root / "flat/n001.txt").unlink()
    gone = G.rg.rg_grep(root, SCOPE, LITERALS, listing=listing)
    listing.close()
    assert (gone["errors"], gone["exit_code"]) == (0, 0)
    assert gone["per_literal"]["aa"]["occurrences"] == walked["per_literal"]["aa"]["occurrences"] - 1
    # any other failure is counted (here a name too long to open)
    argv, ok = G.commands.rg_args(SCOPE, LITERALS), os.fsencode(str(root / "plain.txt"))
    assert G.rg._rg_run(G.commands.rg_binary(), argv, [ok, os.fsencode(str(root / "flat/n001.txt"))])[1:] == (2, 0)
    assert G.rg._rg_run(G.commands.rg_binary(), argv, [ok, os.fsencode(str(root / ("n" * 300)))])[1:] == (2, 1)


def test_no_shared_walk_queues_a_sharing_scopes_wide_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared pass walks every sharing scope's files: where one scope has a folder
    wider than ``RG_WALK_MAX_FILES``, a narrow scope walks its own files instead (asking
    first or last), the wide one is named, and the counts are those of unshared passes;
    where the sharing scopes' widest folders add up to the limit, they share one walk."""
    root = tmp_path / "c"
    plant(root, {**FILES, **{f"flat/n{i:03d}.log": b"zz aa" * (i % 2) for i in range(30)}, "x/y.log": b"zz"})
    logs = Scope("logs", ("**/*.log",), ("*.log",), ("*",))
    runs: list[list[bytes]] = []
    real = G.rg._rg_run
    monkeypatch.setattr(G.rg, "_rg_run", lambda rg, argv, paths: runs.append(paths) or real(rg, argv, paths))
    whole = [os.fsencode(str(root))]
    pairs = [(SCOPE, LITERALS), (logs, ["zz", "aa"])]
    alone = [G.rg.rg_grep(root, sc, lits) for sc, lits in pairs]
    n_txt = len(G.scopes.in_scope(SCOPE, list(FILES)))
    monkeypatch.setattr(G.rg, "RG_WALK_MAX_FILES", 31 + n_txt)  # the two listings (31 and n_txt), summed
    runs.clear()
    sh = G.rg.SharedRg(root, pairs)
    assert [G.rg.rg_grep(root, sc, lits, shared=sh) for sc, lits in pairs] == alone
    assert runs == [whole] and sh.shared  # one shared walk
    monkeypatch.setattr(G.rg, "RG_WALK_MAX_FILES", 29)  # flat/ is wide: logs is named, txt walks alone
    for order in (pairs, pairs[::-1]):
        runs.clear()
        listings = {sc.name: G.scopes.RgListing(root, sc) for sc, _ in pairs}
        sh = G.rg.SharedRg(root, order, listings)
        got = {sc.name: G.rg.rg_grep(root, sc, lits, shared=sh, listing=listings[sc.name]) for sc, lits in order}
        for lst in listings.values():
            lst.close()
        assert [got[sc.name] for sc, _ in pairs] == alone
        assert runs.count(whole) == 1 and not sh.shared  # the txt scope's own walk, no shared one
        assert sorted(p for r in runs if r != whole for p in r) == sorted(
            os.fsencode(str(root / f)) for f in [*(f"flat/n{i:03d}.log" for i in range(30)), "x/y.log"])


def test_rgs_listing_reuses_duckdbs_keys_only_for_exactly_the_same_files() -> None:
    """rg's grep takes DuckDB's keys of its listing only when rg listed those very files,
    each once, in any order; a name listed twice in place of another is not the same."""
    keys = G.cache.Keys(["a", "b"], G.scopes.KNOWN_SCHEMA.to_frame())
    assert G.cache._same_files(keys, ["b", "a"])
    assert not G.cache._same_files(keys, ["a", "a"])
    assert not G.cache._same_files(keys, ["a"]) and not G.cache._same_files(keys, ["a", "c"])
    assert not G.cache._same_files(None, ["a", "b"])


def test_rgs_raw_listing_is_told_the_same_files_from_its_bytes() -> None:
    """The C core tells from rg's raw listing (``--files --null``) whether it names exactly
    the keys' files, each once, as ``_same_files`` tells from the names; where it cannot
    tell (a name with no UTF-8, a path without the root), it says so, and the names decide."""
    from survey.native import NATIVE

    if NATIVE is None:
        pytest.skip("the C core is not built (make)")
    pre = b"/r/"
    names = ["a/x.jsonl", "b.jsonl", "caf\u00e9/\U0001f600.jsonl", "d" * 40]

    def raw(*paths: str) -> bytes:
        return b"".join(pre + p.encode() + b"\0" for p in paths)

    for listed, same in [(names[::-1], True), (names[:3], False), ([*names, "e"], False),
                         ([*names[:3], names[0]], False), ([*names[:3], "d" * 39], False), ([], False)]:
        keys = G.cache.Keys(list(names), G.scopes.KNOWN_SCHEMA.to_frame())
        assert NATIVE.same_names(raw(*listed), pre, keys.names) is same
        assert G.cache._same_raw(keys, raw(*listed), pre) is same is G.cache._same_files(keys, listed)
    assert NATIVE.same_names(b"", pre, []) is True
    assert NATIVE.same_names(raw("a") + b"/elsewhere/b\0", pre, ["a", "b"]) is None  # not under the root
    assert NATIVE.same_names(raw("a")[:-1], pre, ["a"]) is None  # no NUL after the last path
    odd = os.fsdecode(b"not-utf8-\xff")
    assert NATIVE.same_names(pre + b"not-utf8-\xff\0", pre, [odd]) is None
    assert NATIVE.same_names(raw("a", "a"), pre, ["a", "a"]) is None  # (names are distinct files)
    assert G.cache._same_raw(G.cache.Keys([odd], G.scopes.KNOWN_SCHEMA.to_frame()), pre + b"not-utf8-\xff\0", pre) is False


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos on this system")
@pytest.mark.parametrize("native", [True, False])
def test_a_file_that_became_a_fifo_since_the_crawl_is_read_without_waiting(tmp_path: Path, native: bool) -> None:
    """The crawl saw a regular file; by the greps it is a fifo with no writer. Opening it
    must not wait for one (the survey would hang): it reads as empty, in the C reader and
    in Python's. Run in a child process, so a regression fails here instead of hanging."""
    root = tmp_path / "c"
    plant(root, {"a.txt": b'"tool_result" aa', "b.txt": b"aa aa"})
    crawled = {f: (f"f-{i:016x}", G.scopes._file_key(root / f)) for i, f in enumerate(("a.txt", "b.txt"))}
    (root / "b.txt").unlink()
    os.mkfifo(root / "b.txt")
    code = f"""
import sys
import time
from pathlib import Path
import survey.evidence.grep as G
from survey.runtimes.base import Scope
if not {native}:
    G.reads.NATIVE = None
known = G.scopes.Known.of({crawled!r})
dd, _ = G.duck.duckdb_grep(Path({str(root)!r}), Scope("t", ("**/*.txt",), ("*.txt",), ("*",)), ["aa"], known=known,
                      everything=["a.txt", "b.txt"])
print(dd["aa"]["files_scanned"], dd["aa"]["occurrences"])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["2", "1"]


def test_a_survey_whose_rg_names_its_files_gives_the_evidence_of_one_that_walks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole pipeline, rg's listing started before the crawl: where rg names a wide
    folder's files (here any folder past one file) the evidence is the walk's, probe for
    probe, on captures whose names hold newlines and bytes that are not UTF-8."""
    from survey.synth.cursor_stream import generate

    root = tmp_path / "c"
    generate(root, seed=5, sessions=6)
    plant(root, {"a\nb/c.jsonl": b'{"usage":1}\n', "y\n.jsonl": b'{"timestamp":2}\n'})
    (root / os.fsdecode(b"not-utf8-\xff.jsonl")).write_bytes(b'{"version":"x"}\n')

    def evidence(date: str) -> dict:
        res = run_survey(get("cursor_stream"), root, snapshots=tmp_path / "s", reports=None, date=date, cache=False)
        return {p["id"]: (p["rg"], p["duckdb"], p["agree"]) for p in load_json(Path(res.snapshot), "evidence")["probes"]}

    walked = evidence("walk")
    named: list[int] = []
    real = G.rg._rg_over
    monkeypatch.setattr(G.rg, "_rg_over", lambda rg, argv, r, names: named.append(1) or real(rg, argv, r, names))
    monkeypatch.setattr(G.rg, "RG_WALK_MAX_FILES", 1)
    monkeypatch.setattr(G.rg, "RG_ARGV_BYTES", 2000)
    assert evidence("named") == walked and named
    assert all(agree for _, _, agree in walked.values())


@settings(max_examples=300, deadline=None)
@given(path=st.lists(st.text(alphabet="ab./\n*j-", max_size=6), min_size=1, max_size=4).map("/".join),
       glob=st.sampled_from(["**/*.jsonl", "**/*.j", "**/*b", "**/*.a.b", "**/*", "**/state.vscdb", "**/a/*.jsonl",
                             "*.jsonl", "**/*.j*"]))
def test_a_glob_matcher_is_its_regex(path: str, glob: str) -> None:
    """``**/*<suffix>`` globs are matched by ``str.endswith``: the same answer as the glob's
    regex for any relative path, newlines, dots and stars in names included."""
    want = bool(G.scopes.glob_regex(glob).match(path))
    assert bool(G.scopes.glob_matcher(glob)(path)) == want
    assert G.scopes.glob_filter(glob, [path]) == ([path] if want else [])


@settings(max_examples=300, deadline=None)
@given(paths=st.lists(st.lists(st.text(alphabet="ab./\n*j-", max_size=6), min_size=1, max_size=3).map("/".join),
                      max_size=8, unique=True),
       globs=st.lists(st.sampled_from(["**/*.jsonl", "**/*.j", "**/*b", "**/*.a.b", "**/*.b", "**/*", "**/a/*.j",
                                       "**/*.j*", "**"]), min_size=1, max_size=3))
def test_a_listing_said_to_be_distinct_names_each_file_once(paths: list[str], globs: list[str]) -> None:
    """``distinct_listing`` says a scope's listing names no file twice (its keys are then not
    made distinct again): never wrong about any set of names, and it says so for every
    runtime's scopes (their globs are one, or suffixes none of which ends another)."""
    listed = G.scopes.duckdb_listing(duckdb.connect(), Path("/r"), globs, paths)
    if G.scopes.distinct_listing(globs):
        assert len(set(listed)) == len(listed)
    if len(set(globs)) < len(globs) and listed:
        assert not G.scopes.distinct_listing(globs)
    for name in ("cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex"):
        assert all(G.scopes.distinct_listing(sc.duckdb_globs) for sc in get(name).scopes), name


def test_a_reruns_greps_run_beside_its_walk_and_give_a_fresh_runs_evidence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-run whose walk cache was made under the same signature starts its greps beside
    the walk (the walk is mostly look-ups on one core): the evidence is a run without any
    cache's, figure for figure. A first run, a cache made under another walk (discover
    mode), or more than ``OVERLAP_MAX_FILES`` files, and they wait for the walk."""

    import survey.pipeline as P
    from survey.synth import claude_code

    root = tmp_path / "c"
    claude_code.generate(root, seed=8, sessions=6)
    calls = grep_threads(monkeypatch)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))

    def run(label: str, **kw: Any) -> Any:
        calls.clear()
        return run_survey(get("claude_code"), root, snapshots=tmp_path / label, reports=None, jobs=2, **kw)

    first = run("first")
    assert calls and "greps_beside_walk" not in first.timings
    extra = tmp_path / "extra"
    claude_code.generate(extra, seed=9, sessions=1)
    for p in extra.iterdir():
        shutil.move(str(p), str(root / f"new-{p.name}"))
    again = run("again")
    assert again.cache["cache_hits"] > 0 and again.timings["greps_beside_walk"] > 0
    assert calls and all(name.startswith("greps") for name in calls)
    fresh = run("fresh", cache=False)

    def counts(res: Any) -> str:  # the evidence but how many files' counts came from the cache
        return re.sub(r'"files_from_cache": \{[^}]*\}', "", _evidence_text(res))

    assert counts(again) == counts(fresh) and '"files_from_cache"' in _evidence_text(again)
    other = run("discover", mode="discover")  # the cache was made by a reviewed walk
    assert "greps_beside_walk" not in other.timings
    monkeypatch.setattr(S, "OVERLAP_MAX_FILES", 3)
    many = run("many")
    assert "greps_beside_walk" not in many.timings
    # a re-run of more files: its greps after the census, their files made from the crawl's
    # frame before it (not from the inventory read back)
    made: list[bool] = []
    real = P.known_files
    monkeypatch.setattr(P, "known_files", lambda inv, frame=None: made.append(frame is None) or real(inv, frame))
    again_many = run("again-many")
    assert again_many.cache["cache_hits"] == again_many.cache["files"] and "greps_beside_walk" not in again_many.timings
    assert made == [True] and counts(again_many) == counts(fresh)


def test_scopes_named_by_name_ends_share_one_rg_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two scopes whose globs name files by their ends alone (the chat stores' ``db`` and
    ``json``) share one ``rg --files``: each takes the names with its own ends, and gets
    exactly the names its own listing has, odd names included (a name that is only the
    end, an end inside a name, a folder named like a scope's file, another case)."""
    root = tmp_path / "c"
    plant(root, {n: b"x" for n in (
        "a/store.db", "a/store.db-wal", "a/store.db-shm", "a/meta.json", "a/.json", "b/x.json.db",
        "b/x.db.json", "b/x.DB", "x.db/inside.txt", "x.db/inside.json", "top.json", "c\nd/e.db", "f/g.dbx")})
    (root / os.fsdecode(b"h\xff.json")).write_bytes(b"x")
    db = Scope("db", ("**/*.db", "**/*.db-wal"), ("*.db", "*.db-wal"), ("*",))
    js = Scope("json", ("**/*.json",), ("*.json",), ("*",))
    probes = (Probe("p", ("a",), "db"), Probe("q", ("b",), "json"))
    profile = get("cursor_chats")
    started: list[tuple[str, ...]] = []
    real = G.scopes.RgListing.__init__

    def counted(self: G.scopes.RgListing, root_: Path, scope: Scope) -> None:
        started.append(scope.rg_globs)
        real(self, root_, scope)

    monkeypatch.setattr(G.scopes.RgListing, "__init__", counted)
    shared = G.scopes.rg_listings(root, Profile(**{**vars(profile), "scopes": (db, js), "probes": probes}))
    assert started == [("*.db", "*.db-wal", "*.json")]
    for sc in (db, js):
        own = G.scopes.RgListing(root, sc)
        try:
            assert sorted(shared[sc.name].read().split(b"\0")) == sorted(own.read().split(b"\0"))
        finally:
            own.close()
    assert len(shared["db"].read().split(b"\0")) - 1 == 4 and len(shared["json"].read().split(b"\0")) - 1 == 6
    for lst in shared.values():
        lst.close()
    # a glob naming a folder, or any but a name's end, keeps a listing per scope
    started.clear()
    sub = Scope("sub", ("a/**/*.json",), ("a/**/*.json",), ("*",))
    for other in (sub, Scope("q", ("**/m?ta.json",), ("m?ta.json",), ("*",))):
        lists = G.scopes.rg_listings(root, Profile(**{**vars(profile), "scopes": (db, other),
                                               "probes": (probes[0], Probe("q", ("b",), other.name))}))
        assert all(isinstance(x, G.scopes.RgListing) for x in lists.values()) and len(lists) == 2
        for lst in lists.values():
            lst.close()
    assert started == [db.rg_globs, sub.rg_globs, db.rg_globs, ("m?ta.json",)]
