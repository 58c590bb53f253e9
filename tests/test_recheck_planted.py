"""``survey recheck`` against figures counted here: what a re-check records of itself (method,
runtime, scope of the files re-read) on a generated corpus surveyed once (tests/kept_util.py)."""

from __future__ import annotations

import json
from pathlib import Path

from survey.corpus.privacy import load_salt
from survey.evidence.recheck import recheck
from tests.test_recheck import cc, copy_snapshot, jsonl_files

__all__ = ["cc"]  # the claude_code corpus's fixture


def test_a_recheck_records_its_method_runtime_and_scope(cc: tuple[Path, Path], tmp_path: Path) -> None:
    root, snap = cc
    copy = copy_snapshot(snap, tmp_path)
    r = recheck(copy, root, salt=load_salt())
    assert r["method"] == "independent: os.walk + stdlib json, plain Python counts"
    assert r["runtime"] == "claude_code"
    assert (r["sample"]["n"], r["sample"]["since"], "files" in r["sample"]) == (None, None, False)
    assert r["matched_to_snapshot"] is True and r["root_matches_snapshot"] is True
    n = len(jsonl_files("claude_code", root))
    scope = f"{n} of the {n} .jsonl files the snapshot walked (unchanged since), re-read with the stdlib json module"
    assert {v["scope"] for v in r["verdicts"]} == {scope}
    assert r["disagreements"] == [] and [v["verdict"] for v in r["verdicts"]] == ["agrees"] * len(r["verdicts"])
    stored = json.loads((copy.parent / f"{copy.name}.recheck.json").read_text())
    assert stored == json.loads(json.dumps(r))


# -- the plain reading, on files written here --------------------------------------------------------
def test_files_are_regular_files_by_suffix_in_walk_order(tmp_path: Path) -> None:
    from survey.evidence.recheck import _files

    for rel in ("b.jsonl", "a.jsonl", "n.txt", "sub/z/c.jsonl", "sub/a.jsonl.bak"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "a.jsonl")
    (tmp_path / "dir.jsonl").mkdir()
    got = [p.relative_to(tmp_path).as_posix() for p in _files(tmp_path, ".jsonl")]
    assert got == ["a.jsonl", "b.jsonl", "sub/z/c.jsonl"]
    assert [p.relative_to(tmp_path).as_posix() for p in _files(tmp_path)] == [
        "a.jsonl", "b.jsonl", "n.txt", "sub/a.jsonl.bak", "sub/z/c.jsonl"]


def test_records_skip_what_is_not_json_and_count_what_cannot_be_read(tmp_path: Path) -> None:
    from survey.evidence.recheck import _mtime, _records

    p = tmp_path / "f.jsonl"
    p.write_bytes(b'{"a": 1}\nnot json\n[1, 2]\n' + b"[" * 100000 + b"\n\xff\xfe\n7\n{\"b\": \"\xe2\x80\xa8\"}")
    assert list(_records(p)) == [{"a": 1}, [1, 2], 7, {"b": "\u2028"}]
    unreadable: dict[Path, str] = {}
    assert list(_records(tmp_path / "gone.jsonl", unreadable)) == []
    assert list(_records(tmp_path, unreadable)) == []
    assert unreadable == {tmp_path / "gone.jsonl": "FileNotFoundError", tmp_path: "IsADirectoryError"}
    assert list(_records(tmp_path / "gone.jsonl")) == []  # without a counter: nothing, no error
    assert _mtime(tmp_path / "gone.jsonl") == float("-inf") and _mtime(p) == p.stat().st_mtime


def test_a_value_is_found_at_its_path_of_objects() -> None:
    from survey.evidence.recheck import _at, _has_key

    rec = {"a": {"b": {"c": 3}}, "l": [{"k": 1}]}
    assert _at(rec, "$.a.b.c") == 3 and _at(rec, "$.a.b") == {"c": 3} and _at(rec, "$") is rec
    assert _at(rec, "$.a.x") is None and _at(rec, "$.a.b.c.d") is None and _at(rec, "$.l.k") is None
    assert _has_key(rec, "k") and _has_key(rec, "c") and not _has_key(rec, "z") and not _has_key([1, "k"], "k")


def test_a_verdict_agrees_exactly_or_within_its_bounds() -> None:
    from survey.evidence.recheck import Scope, _bound, _exact

    s = Scope([], None, True, "the scope")
    e = _exact("c", [1, 2], [1, 2], s, "d")
    assert e == {"claim": "c", "verdict": "agrees", "snapshot_value": [1, 2], "recheck_value": [1, 2],
                 "comparison": "exact: the same files as the snapshot's figure", "scope": "the scope", "detail": "d"}
    assert _exact("c", [1, 2], [1, 3], s, "d")["verdict"] == "disagrees"
    assert _bound("c", 5, 3, [(3, 5), (2, 2)], s, "d")["verdict"] == "agrees"
    assert _bound("c", 5, 6, [(3, 5), (3, 2)], s, "d")["verdict"] == "disagrees"
    assert _bound("c", 5, 6, [], s, "d")["comparison"] == (
        "bound: a subset of the claim's files holds no more of each count than the claim")


def test_the_command_reproduces_the_options_and_never_the_root() -> None:
    from survey.evidence.recheck import command

    assert command(Path("/s/x y"), None, 3, None) == "survey recheck '/s/x y' --root \"$ROOT\""
    assert command(Path("/s/a"), 5, 2, "2026-01-01") == (
        "survey recheck /s/a --root \"$ROOT\" --sample 5 --seed 2 --since 2026-01-01")
    assert command(Path("/s/a"), 0, 9, "") == "survey recheck /s/a --root \"$ROOT\" --sample 0 --seed 9"
