"""``survey recheck`` against figures counted here: what a re-check records of itself (method,
runtime, scope of the files re-read), the plain reading, and each runtime's counts on files written here."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from survey.evidence.recheck import recheck


def test_a_recheck_records_its_method_runtime_and_scope(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    jsonl(root / "proj" / "s1.jsonl", [{"type": "user", "sessionId": "s1"}])
    jsonl(root / "proj" / "s2.jsonl", [{"type": "user", "sessionId": "s2"}])
    snap = planted_snapshot(tmp_path, "claude_code", [{"id": "file_identity", "value": [2, 2, 0, 0, 0]}])
    r = recheck(snap, root)
    assert r["method"] == "independent: os.walk + stdlib json, plain Python counts"
    assert (r["runtime"], r["snapshot"], r["unreadable"]) == ("claude_code", str(snap), {})
    assert (r["sample"]["n"], r["sample"]["since"], "files" in r["sample"]) == (None, None, False)
    assert (r["matched_to_snapshot"], r["root_matches_snapshot"]) == (False, None)
    assert by_claim(r) == {"file_identity": ("agrees", [2, 2, 0, 0, 0], [2, 2, 0, 0, 0])}
    assert r["verdicts"][0]["scope"] == ("2 of 2 .jsonl files found under this root (not matched to the snapshot's "
                                         "files: no salt, or another root), re-read with the stdlib json module")
    assert r["verdicts"][0]["command"] == f'survey recheck {snap} --root "$ROOT"'
    stored = json.loads((snap.parent / f"{snap.name}.recheck.json").read_text())
    assert stored == json.loads(json.dumps(r)) and not list(snap.parent.glob(".*.tmp"))


# -- the plain reading, on files written here --------------------------------------------------------
def test_files_are_regular_files_by_suffix_in_walk_order(tmp_path: Path) -> None:
    from survey.evidence.recheck import _files

    for rel in ("b.jsonl", "a.jsonl", "n.txt", "sub/z/c.jsonl", "sub/a.jsonl.bak"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "a.jsonl")
    (tmp_path / "dir.jsonl").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "sub")  # a folder reached by a link is not entered
    os.mkfifo(tmp_path / "pipe.jsonl")  # not a regular file
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


# -- each runtime's re-check on files written here, its claims written by hand -----------------------
# No salt and no inventory: the files cannot be matched to a snapshot, every file found is re-read
# and, the snapshot being of the whole corpus, totals compare exactly.
def planted_snapshot(base: Path, runtime: str, claims: list[Any]) -> Path:
    snap = base / "snapshots" / "2026-01-01" / runtime
    snap.mkdir(parents=True)
    (snap / "manifest.json").write_text(json.dumps({"runtime": runtime, "sample": {"n": None}, "mode": "reviewed"}))
    (snap / "claims.json").write_text(json.dumps(claims))
    return snap


def jsonl(path: Path, recs: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def by_claim(r: dict) -> dict[str, tuple]:
    return {v["claim"]: (v["verdict"], v["snapshot_value"], v["recheck_value"]) for v in r["verdicts"]}


def test_cursor_counts_blocks_exact_key_sets_results_and_sidecars(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    jsonl(root / "p" / "agent-transcripts" / "s1" / "s1.jsonl", [
        {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "A", "input": {}},
                                                      {"type": "tool_use", "id": "x", "name": "B", "input": {}},
                                                      {"type": "text", "text": "t"}, "not a block"]}},
        {"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "x"}]}},  # a block and a key
        {"role": "user", "message": "plain"}, {"deep": [{"is_error": False}]}, [1]])
    jsonl(root / "p" / "other" / "o.jsonl", [{"message": {"content": [{"type": "tool_use", "name": "A", "input": {}}]}}])
    (root / "p" / "agent-tools").mkdir(parents=True)
    for n in ("a.txt", "b.txt", "c.json"):
        (root / "p" / "agent-tools" / n).write_text("x")
    (root / "p" / "t.txt").write_text("x")  # not a sidecar: not under agent-tools
    # blocks 2, exactly {input,name,type} 1; results: the tool_result block, its tool_use_id, the nested is_error
    good = [{"id": "no_tool_results", "value": False}, {"id": "tool_use_keyset", "value": [1, 2]},
            {"id": "agent_tools_count", "value": 2}]
    r = recheck(planted_snapshot(tmp_path / "a", "cursor", good), root)
    assert by_claim(r) == {"no_tool_results": ("agrees", False, 3), "tool_use_keyset": ("agrees", [1, 2], [1, 2]),
                           "agent_tools_count": ("agrees", 2, 2)}
    assert (r["matched_to_snapshot"], r["root_matches_snapshot"]) == (False, None)
    assert {v["scope"] for v in r["verdicts"][:2]} == {
        "1 of 1 transcripts found under this root (not matched to the snapshot's files: no salt, or another root), "
        "re-read with the stdlib json module"}
    assert r["verdicts"][2]["detail"] == "2 files"
    assert r["verdicts"][2]["comparison"] == (
        "exact: the files on disk now against the snapshot's count (a file added since disagrees)")
    bad = [{"id": "no_tool_results", "value": True}, {"id": "tool_use_keyset", "value": [2, 2]},
           {"id": "agent_tools_count", "value": 3}]
    r = recheck(planted_snapshot(tmp_path / "b", "cursor", bad), root)
    assert [v["verdict"] for v in r["verdicts"]] == ["disagrees"] * 3
    assert r["disagreements"] == ["no_tool_results", "tool_use_keyset", "agent_tools_count"]


def test_claude_code_counts_identity_usage_and_classes(tmp_path: Path) -> None:
    from tests.test_recheck import class_of

    root = tmp_path / "projects"
    p1: list[dict[str, Any]] = [
          {"type": "assistant", "sessionId": "p1", "message": {"id": "m1", "usage": {"output_tokens": 5}}},
          {"type": "assistant", "sessionId": "p1", "message": {"id": "m1", "usage": {"output_tokens": 7}}},
          {"type": "assistant", "sessionId": "p1", "message": {"id": "m2", "usage": {"output_tokens": True}}},
          {"type": "assistant", "sessionId": "p1", "message": {"id": "m2", "usage": {"output_tokens": "9"}}},
          {"type": "assistant", "sessionId": "p1", "message": {"id": 3, "usage": {"output_tokens": 100}}},
          {"type": "user", "sessionId": "p1", "message": {"content": "x"}},
          {"type": "user", "message": {"content": "y"}}]  # no sessionId: no id
    # a line that is no object first; a message id that p1 uses too, in another session
    p2: list[Any] = [[1], {"type": "user", "sessionId": "other"}, {"type": "user", "sessionId": "p2"},
                     {"type": "user", "sessionId": 4},
                     {"type": "assistant", "sessionId": "p2", "message": {"id": "m1", "usage": {"output_tokens": 4}}}]
    kid: list[dict[str, Any]] = [{"type": "assistant", "sessionId": "p1", "message": {"id": "m1", "usage": {"output_tokens": 3}}}]
    odd: list[Any] = [{"type": "system", "sessionId": "p1"}, "a string"]
    jsonl(root / "proj" / "p1.jsonl", p1)
    jsonl(root / "proj" / "p2.jsonl", p2)
    jsonl(root / "proj" / "p1" / "subagents" / "agent-a.jsonl", kid)
    jsonl(root / "proj" / "p1" / "subagents" / "other.jsonl", odd)  # neither a parent nor a child
    astray: list[dict[str, Any]] = [{"type": "user", "sessionId": "zz"}]
    jsonl(root / "proj" / "p1" / "notes" / "agent-b.jsonl", astray)  # an agent- file outside subagents/: no child
    classes: dict[str, int] = {}
    for rec in p1 + p2[1:] + kid + odd[:1] + astray:
        classes[class_of("claude_code", rec)] = classes.get(class_of("claude_code", rec), 0) + 1
    # parents: p1 carries p1 alone, p2 two ids (several); the child carries its folder's p1
    # usage: naive 5 + 7 + 3 + 4 (a bool, a string and a non-string message id are no figure); per (sessionId,
    # message.id): (p1, m1) 7, the child's m1 being p1's too, and (p2, m1) 4
    identity, usage = [1, 2, 1, 1, 1], {"naive_output_tokens": 19, "dedup_output_tokens": 11}
    claims = [{"id": "record_classes", "value": {"records": classes}}, {"id": "file_identity", "value": identity},
              {"id": "usage", "value": {**usage, "other": 1}}]
    r = recheck(planted_snapshot(tmp_path / "a", "claude_code", claims), root)
    assert by_claim(r) == {"record_classes": ("agrees", classes, dict(sorted(classes.items()))),
                           "file_identity": ("agrees", identity, identity), "usage": ("agrees", usage, usage)}
    wrong = [{"id": "record_classes", "value": {"records": {**classes, "user": classes["user"] + 1}}},
             {"id": "file_identity", "value": [2, 2, 1, 1, 0]},
             {"id": "usage", "value": {"naive_output_tokens": 19, "dedup_output_tokens": 7}}]
    r = recheck(planted_snapshot(tmp_path / "b", "claude_code", wrong), root)
    assert r["disagreements"] == ["record_classes", "file_identity", "usage"]


def test_codex_counts_identity_and_call_pairing(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    day = root / "2026" / "01" / "01"
    uuid = "0badc0de-0000-4000-8000-00000000000{}"
    jsonl(day / f"rollout-2026-01-01T00-00-00-{uuid.format(1)}.jsonl", [
        {"type": "session_meta", "payload": {"id": uuid.format(1)}},
        {"type": "session_meta", "payload": {"id": "a later one"}},
        {"type": "response_item", "payload": {"type": "function_call", "call_id": "a"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call", "call_id": "b"}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "a"}},
        {"type": "response_item", "payload": {"type": "tool_search_output", "call_id": "q"}},
        {"type": "response_item", "payload": {"type": "message"}},
        {"type": "event_msg", "payload": {"type": "function_call", "call_id": "e"}},
        {"type": "event_msg", "payload": {"type": "function_call_output", "call_id": "b"}},  # no response item: no output
        {"type": "response_item", "payload": {"type": "function_call_output", "id": "no call id"}},
        {"type": "response_item", "payload": "not an object"}])
    jsonl(day / f"rollout-2026-01-01T00-00-01-{uuid.format(2)}.jsonl", [
        [1], {"type": "session_meta", "payload": {"id": uuid.format(3)}},
        {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "c"}},
        {"type": "response_item", "payload": {"type": "tool_search_call", "call_id": "d"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "d"}},
        {"type": "response_item", "payload": {"type": "function_call", "id": "no call id"}}])
    jsonl(day / f"rollout-2026-01-01T00-00-02-{uuid.format(4)}.jsonl", [
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "a"}}])
    spaced = uuid.format(5).replace("-", " ", 1)  # not a uuid: no match, whatever the id says
    jsonl(day / f"rollout-2026-01-01T00-00-03-{spaced}.jsonl", [{"type": "session_meta", "payload": {"id": spaced}}])
    # the uuid is the one the name ends with
    jsonl(day / f"rollout-2026-01-01T00-00-04-{uuid.format(6)}.jsonl-{uuid.format(7)}.jsonl",
          [{"type": "session_meta", "payload": {"id": uuid.format(7)}}])
    jsonl(day / "history.jsonl", [{"type": "session_meta", "payload": {"id": "x"}}])  # not a rollout
    # identity: 4 files open with session_meta, 2 name their file's uuid; pairing per file:
    # paired a and d, calls without output b and c, outputs without call q and the third file's a
    pairing = {"paired": 2, "unpaired_calls": 2, "unpaired_outputs": 2}
    claims = [{"id": "file_identity", "value": [2, 4, "more"]}, {"id": "native_call_id", "value": {**pairing, "x": 0}}]
    r = recheck(planted_snapshot(tmp_path / "a", "codex", claims), root)
    assert by_claim(r) == {"file_identity": ("agrees", [2, 4], [2, 4]), "native_call_id": ("agrees", pairing, pairing)}
    assert r["verdicts"][0]["detail"] == "first session_meta id = filename uuid in 2/4"
    wrong = [{"id": "file_identity", "value": [3, 4]}, {"id": "native_call_id", "value": {**pairing, "paired": 3}}]
    r = recheck(planted_snapshot(tmp_path / "b", "codex", wrong), root)
    assert r["disagreements"] == ["file_identity", "native_call_id"]


# -- matched to a snapshot's files: an inventory and per-file rows written here ---------------------
# The snapshot side is planted: each file's inventory row (named by its pseudonym under a salt
# given here) and its records per class, counted by this file's own reading.
SALT = bytes(range(32))


def fid(rel: str) -> str:
    from survey.corpus.privacy import pseudonym

    return pseudonym(SALT, rel, "f")


def inventory(snap: Path, rows: list[dict]) -> None:
    """``rows``: file_id, size, mtime_ns, sampled (walked), kind; written as the crawl writes
    them, one parquet part per stratum."""
    import polars as pl

    for i, half in enumerate((rows[::2], rows[1::2])):
        if half:
            (snap / "inventory" / f"stratum=2026-0{i + 1}").mkdir(parents=True)
            pl.DataFrame(half, schema={"file_id": pl.String, "size": pl.Int64, "mtime_ns": pl.Int64,
                                       "sampled": pl.Boolean, "kind": pl.String}).write_parquet(
                snap / "inventory" / f"stratum=2026-0{i + 1}" / "00000000.parquet")


def row(root: Path, rel: str, walked: bool = True, kind: str = "jsonl", **kw: Any) -> dict:
    st = (root / rel).stat() if (root / rel).exists() else None
    out = {"file_id": fid(rel), "size": st.st_size if st else 9, "mtime_ns": st.st_mtime_ns if st else 9,
           "sampled": walked, "kind": kind}
    return {**out, **kw}


def frame_counts(snap: Path, per_file: dict[str, dict[str, int]], folder: bool = False) -> None:
    """The snapshot's ok records per class of each file (and a not-ok row that must not count)."""
    import polars as pl

    rows = [{"file_id": fid(rel), "frame_status": "ok", "rclass": c, "records": n}
            for rel, counts in per_file.items() for c, n in counts.items()]
    rows += [{"file_id": fid(rel), "frame_status": "malformed", "rclass": "user", "records": 5} for rel in per_file]
    df = pl.DataFrame(rows).with_columns(pl.col("file_id", "frame_status", "rclass").cast(pl.Categorical))
    p = snap / "walk" / "frame_counts.parquet"
    p.parent.mkdir(parents=True, exist_ok=True)
    if folder:  # the layout the census writes: a folder of parts
        p.mkdir()
        df.write_parquet(p / "part-000000.parquet")
    else:  # one file
        df.write_parquet(p)


def cc_files(root: Path) -> dict[str, list]:
    """Three parent files of a Claude Code store, their records of known classes."""
    files = {
        "proj/a.jsonl": [{"type": "user", "sessionId": "a"}, {"type": "user", "sessionId": "a"},
                         {"type": "assistant", "sessionId": "a"}],
        "proj/b.jsonl": [{"type": "assistant", "sessionId": "b"}, {"type": "system", "subtype": "compact_boundary"}],
        "proj/c.jsonl": [{"type": "user", "sessionId": "c"}],
    }
    for rel, recs in files.items():
        jsonl(root / rel, recs)
    return files


def counted(recs: list) -> dict[str, int]:
    from tests.test_recheck import class_of

    out: dict[str, int] = {}
    for r in recs:
        out[class_of("claude_code", r)] = out.get(class_of("claude_code", r), 0) + 1
    return out


def total(per_file: dict[str, dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for counts in per_file.values():
        for k, n in counts.items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items()))


def test_a_matched_sample_compares_the_per_file_rows_of_the_same_files(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    files = cc_files(root)
    per_file = {rel: counted(recs) for rel, recs in files.items()}
    claims = [{"id": "record_classes", "value": {"records": total(per_file)}}]
    for folder in (False, True):
        snap = planted_snapshot(tmp_path / f"ok{folder}", "claude_code", claims)
        inventory(snap, [row(root, rel) for rel in files])
        frame_counts(snap, per_file, folder)
        seen = set()
        for seed in range(1, 7):
            r = recheck(snap, root, sample=1, seed=seed, salt=SALT)
            (f,) = r["sample"]["files"]
            rel = next(x for x in files if fid(x) == f)
            seen.add(rel)
            v = r["verdicts"][0]
            assert (v["verdict"], v["recheck_value"]) == ("agrees", dict(sorted(per_file[rel].items()))), seed
            assert v["comparison"] == "exact: the snapshot's per-file rows of the same files"
            n = sum(per_file[rel].values())
            assert v["detail"] == f"{n} records in {len(per_file[rel])} classes"
        assert len(seen) > 1
    # one file's rows count a record more than the file holds, the claim the rows' total:
    # a sample holding that file disagrees, the rows being consistent with the claim
    wrong = {**per_file, "proj/a.jsonl": {**per_file["proj/a.jsonl"], "user": 3}}
    snap = planted_snapshot(tmp_path / "rows", "claude_code", [{"id": "record_classes", "value": {"records": total(wrong)}}])
    inventory(snap, [row(root, rel) for rel in files])
    frame_counts(snap, wrong)
    for seed in range(1, 7):
        r = recheck(snap, root, sample=1, seed=seed, salt=SALT)
        held = r["sample"]["files"] == [fid("proj/a.jsonl")]
        assert (r["disagreements"] == ["record_classes"]) == held, seed
        assert not r["verdicts"][0]["detail"].endswith("do not total the claim")
    # rows that do not total the claim: every sample disagrees, and says why
    snap = planted_snapshot(tmp_path / "total", "claude_code", [{"id": "record_classes", "value": {"records": total(wrong)}}])
    inventory(snap, [row(root, rel) for rel in files])
    frame_counts(snap, per_file)
    for seed in range(1, 4):
        v = recheck(snap, root, sample=2, seed=seed, salt=SALT)["verdicts"][0]
        assert v["verdict"] == "disagrees"
        assert v["detail"].endswith(" classes; the snapshot's per-file rows do not total the claim")


def choose(tmp_path: Path, rows: list[dict], candidates: list[str], root: Path, *, n: int | None = None,
           since: str | None = None, salt: bytes | None = SALT, sample: dict | None = None) -> Any:
    from survey.evidence.recheck import Context

    snap = planted_snapshot(tmp_path / f"s{len(list(tmp_path.glob('s*')))}", "claude_code", [])
    inventory(snap, rows)
    manifest = {"runtime": "claude_code", "mode": "reviewed", "sample": sample or {"n": None}}
    ctx = Context(snap, root, manifest, n, 1, since, salt)
    return ctx, ctx.choose([root / c for c in candidates], ".jsonl files")


def test_the_choice_leaves_out_and_counts_each_file_it_cannot_compare(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    names = ["a", "b", "c", "d", "e", "f"]
    for x in names:
        jsonl(root / "p" / f"{x}.jsonl", [{"type": "user"}] * (names.index(x) + 1))
    rel = {x: f"p/{x}.jsonl" for x in names}
    rows = [row(root, rel["a"]), row(root, rel["b"]), row(root, rel["c"], walked=False),
            row(root, rel["d"], size=1), row(root, "p/gone.jsonl"), row(root, "p/never.jsonl", walked=False)]
    # e is new since; "p/vanished.jsonl" is a candidate that is no longer there when chosen
    cands = ["p/vanished.jsonl", *(rel[x] for x in names)]
    ctx, scope = choose(tmp_path, rows, cands, root)
    assert ctx.mapped and ctx.gone == 1  # the walked file not on disk; the file never walked is no loss
    assert scope.files == [root / rel["a"], root / rel["b"]] and scope.ids == [fid(rel["a"]), fid(rel["b"])]
    assert scope.exact is False
    assert scope.text == ("2 of the 2 .jsonl files the snapshot walked (unchanged since), re-read with the stdlib "
                          "json module (left out: 1 changed since the snapshot, 1 gone while re-checked, "
                          "2 new since the snapshot, 1 not walked by the snapshot, 1 walked files gone since the snapshot)")
    # new and not-walked files alone leave the comparison exact; a file gone while re-checked does not
    rows = [row(root, rel[x]) for x in ("a", "b")] + [row(root, rel["c"], walked=False)]
    ctx, scope = choose(tmp_path, rows, [rel["a"], rel["b"], rel["c"], rel["d"]], root)
    assert (scope.exact, ctx.gone, len(scope.files)) == (True, 0, 2)
    assert scope.text.endswith("(left out: 1 new since the snapshot, 1 not walked by the snapshot)")
    ctx, scope = choose(tmp_path, rows, [rel["a"], "p/vanished.jsonl", rel["b"]], root)
    assert (scope.exact, [p.name for p in scope.files]) == (False, ["a.jsonl", "b.jsonl"])
    assert scope.text.endswith("(left out: 1 gone while re-checked)")


def test_a_size_or_mtime_the_inventory_lacks_reads_as_zero(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "p").mkdir(parents=True)
    (root / "p" / "empty.jsonl").write_bytes(b"")
    jsonl(root / "p" / "old.jsonl", [{"type": "user"}])
    os.utime(root / "p" / "old.jsonl", ns=(0, 0))
    jsonl(root / "p" / "x.jsonl", [{"type": "user"}])
    rows = [row(root, "p/empty.jsonl", size=None), row(root, "p/old.jsonl", mtime_ns=None),
            row(root, "p/x.jsonl", size=None, mtime_ns=None)]
    _ctx, scope = choose(tmp_path, rows, ["p/empty.jsonl", "p/old.jsonl", "p/x.jsonl"], root)
    assert [p.name for p in scope.files] == ["empty.jsonl", "old.jsonl"]
    assert scope.text.endswith("(left out: 1 changed since the snapshot)")


def test_since_keeps_files_modified_at_the_cut_or_later(tmp_path: Path) -> None:
    import datetime as dt

    root = tmp_path / "projects"
    cut = dt.datetime(2026, 3, 1, tzinfo=dt.UTC).timestamp()
    for name, t in (("before", cut - 1), ("at", cut), ("after", cut + 60)):
        jsonl(root / "p" / f"{name}.jsonl", [{"type": "user"}])
        os.utime(root / "p" / f"{name}.jsonl", (t, t))
    cands = ["p/before.jsonl", "p/at.jsonl", "p/after.jsonl"]
    for salt in (SALT, None):  # matched to the inventory, and not (no salt: no names)
        rows = [row(root, c) for c in cands]
        _ctx, scope = choose(tmp_path, rows, cands, root, since="2026-03-01", salt=salt)
        assert [p.name for p in scope.files] == ["at.jsonl", "after.jsonl"] and scope.exact is False
        assert scope.ids == ([fid("p/at.jsonl"), fid("p/after.jsonl")] if salt else None)
    # a sample larger than what is there reads it all, and all of it is the whole scope
    _ctx, scope = choose(tmp_path, [row(root, c) for c in cands], cands, root, n=10)
    assert len(scope.files) == 3 and scope.exact is True
    # files not matched to a sampled snapshot's are never the same files as its figures
    _ctx, scope = choose(tmp_path, [], cands, root, salt=None, sample={"n": 2, "seed": 1})
    assert len(scope.files) == 3 and scope.exact is False
    _ctx, scope = choose(tmp_path, [], cands, root, salt=None)
    assert scope.exact is True


def test_a_bound_counts_a_class_the_claim_lacks_as_none_of_it(tmp_path: Path) -> None:
    """Unmatched, sampled: records per class are a bound, and a class the claim does not name
    is bounded by zero: one record of it disagrees."""
    root = tmp_path / "projects"
    jsonl(root / "p" / "a.jsonl", [{"type": "user"}, {"type": "user"}, {"type": "assistant"}])
    jsonl(root / "p" / "b.jsonl", [{"type": "user"}, {"type": "assistant"}])
    good = {"user": 3, "assistant": 2}
    r = recheck(planted_snapshot(tmp_path / "a", "claude_code", [{"id": "record_classes", "value": {"records": good}}]),
                root, sample=1)
    assert not r["disagreements"] and r["verdicts"][0]["comparison"].startswith("bound")
    bad = planted_snapshot(tmp_path / "b", "claude_code", [{"id": "record_classes", "value": {"records": {"user": 3}}}])
    for seed in range(1, 4):  # each file holds one record of the class the claim lacks
        r = recheck(bad, root, sample=1, seed=seed)
        assert r["disagreements"] == ["record_classes"]
        n = sum(r["verdicts"][0]["recheck_value"].values())
        assert r["verdicts"][0]["detail"] == f"{n} records in 2 classes; classes the snapshot does not name: 1"


def test_a_record_class_is_named_through_the_snapshots_gate(tmp_path: Path) -> None:
    """Mode and MCP names as the snapshot's manifest says; a value the gate refuses, a number
    and a record with no class value are counted under their markers."""
    root = tmp_path / "projects"
    recs = [{"type": "user"}, {"type": "cnryUnreviewed"}, {"type": "mcp__srv__tool"}, {"type": 7},
            {"type": "system", "subtype": "cnrySub"}, {"sessionId": "x"}, {"type": None}]
    jsonl(root / "p" / "a.jsonl", recs)

    def classes(**manifest: Any) -> dict:
        snap = planted_snapshot(tmp_path / str(len(list(tmp_path.iterdir()))), "claude_code",
                                [{"id": "record_classes", "value": {"records": {}}}])
        (snap / "manifest.json").write_text(json.dumps({"runtime": "claude_code", **manifest}))
        return recheck(snap, root)["verdicts"][0]["recheck_value"]

    reviewed = {"<none>": 2, "<withheld>": 3, "system/<withheld>": 1, "user": 1}
    assert classes() == classes(mode="reviewed", sample={"n": None}) == reviewed  # manifest defaults
    assert classes(mode="discover") == {"<none>": 2, "<withheld>": 2, "cnryUnreviewed": 1, "system/cnrySub": 1, "user": 1}
    assert classes(mode="discover", allow_mcp_names=True) == {
        "<none>": 2, "<withheld>": 1, "cnryUnreviewed": 1, "mcp__srv__tool": 1, "system/cnrySub": 1, "user": 1}
    with pytest.raises(ValueError):
        classes(mode="strict")


def test_a_runtime_with_none_of_the_claims_has_no_verdicts(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    jsonl(root / "p" / "agent-transcripts" / "s" / "s.jsonl", [
        [1], {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "A", "input": {}}]}}])
    jsonl(root / "p" / "s.jsonl", [{"type": "user", "sessionId": "s"}])
    jsonl(root / "2026" / "rollout-x.jsonl", [{"type": "session_meta", "payload": {"id": "x"}}])
    for runtime in ("cursor", "claude_code", "codex"):
        r = recheck(planted_snapshot(tmp_path / runtime, runtime, [{"id": "other", "value": 1}]), root)
        assert (r["verdicts"], r["disagreements"]) == ([], []), runtime
    # a line that is no object before the blocks: the blocks after it are still counted
    r = recheck(planted_snapshot(tmp_path / "cu", "cursor", [{"id": "no_tool_results", "value": True},
                                                            {"id": "tool_use_keyset", "value": [1, 1]}]), root)
    assert by_claim(r) == {"no_tool_results": ("agrees", True, 0), "tool_use_keyset": ("agrees", [1, 1], [1, 1])}
    assert r["verdicts"][0]["comparison"] == "none must hold in any subset of the claim's files"


def test_a_claim_without_a_figure_bounds_the_sample_by_zero(tmp_path: Path) -> None:
    """Usage and call pairing on a sample are bounds; a figure the claim leaves empty holds
    none: one token or one call found disagrees."""
    root = tmp_path / "projects"
    jsonl(root / "stray.jsonl", [{"type": "assistant", "sessionId": "s", "message": {"id": "m", "usage": {"output_tokens": 9}}}])
    jsonl(root / "proj" / "s.jsonl", [{"type": "assistant", "sessionId": "s", "message": {"id": "m", "usage": {"output_tokens": 1}}}])
    jsonl(root / "proj" / "t.jsonl", [{"type": "user", "sessionId": "t"}])
    # the stray file at the root is neither a parent nor a child, and is read first: the files
    # after it are still counted
    rels = ["stray.jsonl", "proj/s.jsonl", "proj/t.jsonl"]
    none = {"naive_output_tokens": None, "dedup_output_tokens": None}
    one = {"naive_output_tokens": 1, "dedup_output_tokens": 1}
    snaps = {}
    for said in ("none", "one"):
        snaps[said] = planted_snapshot(tmp_path / said, "claude_code", [{"id": "usage", "value": {"none": none, "one": one}[said]}])
        inventory(snaps[said], [row(root, rel) for rel in rels])
    held = set()
    for seed in range(1, 9):
        r = recheck(snaps["none"], root, sample=2, seed=seed, salt=SALT)
        chosen = tuple(rel for rel in rels if fid(rel) in r["sample"]["files"])
        held.add(chosen)
        n = int("proj/s.jsonl" in chosen)
        v = r["verdicts"][0]
        assert v["comparison"].startswith("bound") and v["recheck_value"] == {k: n for k in none}, seed
        assert v["verdict"] == ("disagrees" if n else "agrees"), seed
        assert not recheck(snaps["one"], root, sample=2, seed=seed, salt=SALT)["disagreements"], seed
    assert ("stray.jsonl", "proj/s.jsonl") in held and ("stray.jsonl", "proj/t.jsonl") in held
    sessions = tmp_path / "sessions"
    jsonl(sessions / "rollout-a.jsonl", [{"type": "response_item", "payload": {"type": "function_call", "call_id": "c"}}])
    jsonl(sessions / "rollout-b.jsonl", [{"type": "response_item", "payload": {"type": "function_call", "call_id": "d"}}])
    said2 = {"paired": None, "unpaired_calls": None, "unpaired_outputs": None}
    r = recheck(planted_snapshot(tmp_path / "cx", "codex", [{"id": "native_call_id", "value": said2}]), sessions, sample=1)
    assert by_claim(r)["native_call_id"] == ("disagrees", said2, {"paired": 0, "unpaired_calls": 1, "unpaired_outputs": 0})
    r = recheck(planted_snapshot(tmp_path / "cx2", "codex", [{"id": "native_call_id", "value": {**said2, "unpaired_calls": 1}}]),
                sessions, sample=1)
    assert not r["disagreements"] and r["verdicts"][0]["comparison"].startswith("bound")


def test_the_stored_verdicts_seed_date_and_a_failed_write(tmp_path: Path) -> None:
    import datetime as dt

    root = tmp_path / "projects"
    cc_files(root)
    snap = planted_snapshot(tmp_path / "a", "claude_code", [{"id": "file_identity", "value": [3, 3, 0, 0, 0]}])
    r = recheck(snap, root, sample=2)
    assert r["sample"]["seed"] == 1  # no seed in the manifest: 0 + 1
    assert r["date"] == dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    out = snap.parent / f"{snap.name}.recheck.json"
    assert out.read_text() == json.dumps(r, indent=2, sort_keys=True)
    m = json.loads((snap / "manifest.json").read_text())
    (snap / "manifest.json").write_text(json.dumps({**m, "sample": {"n": None, "seed": 41}}))
    assert recheck(snap, root, sample=2)["sample"]["seed"] == 42  # the snapshot's seed + 1: another draw
    assert recheck(snap, root, sample=2, seed=0)["sample"]["seed"] == 0
    # a verdicts file that cannot be replaced (a folder in its place): the error, and no temp file left
    out.unlink()
    out.mkdir()
    with pytest.raises(OSError):
        recheck(snap, root)
    assert sorted(p.name for p in snap.parent.iterdir()) == sorted([out.name, snap.name])


def test_no_inventory_means_not_matched(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    cc_files(root)
    snap = planted_snapshot(tmp_path / "a", "claude_code", [{"id": "file_identity", "value": [3, 3, 0, 0, 0]}])
    r = recheck(snap, root, salt=SALT)
    assert (r["matched_to_snapshot"], r["root_matches_snapshot"], r["disagreements"]) == (False, False, [])
    assert "not matched to the snapshot's files" in r["verdicts"][0]["scope"]


def test_what_cannot_be_rechecked_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    from survey.corpus.privacy import pseudonym
    from survey.evidence.recheck import NoRecheck, NotComparable

    root = tmp_path / "projects"
    files = cc_files(root)
    snap = planted_snapshot(tmp_path / "chats", "cursor_chats", [])
    with pytest.raises(NoRecheck, match="no independent re-check for runtime 'cursor_chats' "
                                        r"\(there is one for cursor, claude_code, codex\)"):
        recheck(snap, root)
    # a sampled snapshot: comparable only through its inventory, never by what is found here
    snap = planted_snapshot(tmp_path / "sampled", "claude_code", [{"id": "file_identity", "value": [1, 1, 0, 0, 0]}])
    m = {"runtime": "claude_code", "mode": "reviewed", "sample": {"n": 1, "seed": 3},
         "root": pseudonym(SALT, str(root.resolve()), "r")}
    (snap / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(NotComparable, match="cannot be matched"):
        recheck(snap, root)
    with pytest.raises(NotComparable):
        recheck(snap, root, salt=SALT)  # no inventory: nothing to match
    assert [p.name for p in snap.parent.iterdir()] == ["claude_code"]
    inventory(snap, [row(root, "proj/a.jsonl"), *(row(root, rel, walked=False) for rel in files if rel != "proj/a.jsonl")])
    r = recheck(snap, root, salt=SALT)
    assert (r["matched_to_snapshot"], r["root_matches_snapshot"], r["disagreements"]) == (True, True, [])
    assert r["sample"] == {"n": None, "seed": 4, "since": None}
    assert r["verdicts"][0]["scope"].startswith("1 of the 1 .jsonl files the snapshot walked (unchanged since)")
    assert r["verdicts"][0]["comparison"] == "exact: the same files as the snapshot's figure"


@pytest.mark.parametrize("claim,agrees", [
    ([2, 4, 1, 4, 1], True),
    ([0, 4, 1, 4, 1], False),  # fewer matching parents than the subset holds
    ([2, 2, 1, 4, 1], False),  # fewer mismatching parents (2 - 2) than the subset's one
    ([2, 4, 0, 4, 1], False),  # fewer matching children
    ([2, 4, 2, 2, 1], False),  # fewer mismatching children (2 - 2)
    ([2, 4, 1, 4, 0], False),  # fewer files with several ids
])
def test_identity_on_a_subset_is_bounded_count_by_count(tmp_path: Path, claim: list[int], agrees: bool) -> None:
    """``--since`` reads a subset: each count, and each count of mismatches, is a bound. The
    files hold parents 1 of 2 matching (the other with two ids), children 1 of 2 matching."""
    root = tmp_path / "projects"
    jsonl(root / "proj" / "a.jsonl", [{"type": "user", "sessionId": "a"}])
    jsonl(root / "proj" / "b.jsonl", [{"type": "user", "sessionId": "x"}, {"type": "user", "sessionId": "y"}])
    jsonl(root / "proj" / "a" / "subagents" / "agent-1.jsonl", [{"type": "user", "sessionId": "a"}])
    jsonl(root / "proj" / "a" / "subagents" / "agent-2.jsonl", [{"type": "user", "sessionId": "z"}])
    r = recheck(planted_snapshot(tmp_path / "cc", "claude_code", [{"id": "file_identity", "value": claim}]), root,
                since="2000-01-01")
    assert r["verdicts"][0]["recheck_value"] == [1, 2, 1, 2, 1]
    assert r["verdicts"][0]["comparison"].startswith("bound") and (not r["disagreements"]) == agrees


@pytest.mark.parametrize("claim,agrees", [([2, 3], True), ([0, 3], False), ([2, 2], False)])
def test_rollout_identity_on_a_subset_is_bounded_count_by_count(tmp_path: Path, claim: list[int], agrees: bool) -> None:
    root = tmp_path / "sessions"
    uuid = "0badc0de-0000-4000-8000-00000000000{}"
    jsonl(root / f"rollout-a-{uuid.format(1)}.jsonl", [{"type": "session_meta", "payload": {"id": uuid.format(1)}}])
    jsonl(root / f"rollout-b-{uuid.format(2)}.jsonl", [{"type": "session_meta", "payload": {"id": uuid.format(3)}}])
    r = recheck(planted_snapshot(tmp_path / "cx", "codex", [{"id": "file_identity", "value": claim}]), root,
                since="2000-01-01")
    assert r["verdicts"][0]["recheck_value"] == [1, 2]
    assert r["verdicts"][0]["comparison"].startswith("bound") and (not r["disagreements"]) == agrees


@pytest.mark.parametrize("claim,agrees", [([2, 3], True), ([0, 3], False), ([2, 2], False)])
def test_tool_use_key_sets_on_a_subset_are_bounded_count_by_count(tmp_path: Path, claim: list[int], agrees: bool) -> None:
    root = tmp_path / "projects"
    jsonl(root / "p" / "agent-transcripts" / "s" / "s.jsonl", [{"message": {"content": [
        {"type": "tool_use", "name": "A", "input": {}}, {"type": "tool_use", "name": "A", "input": {}, "id": "x"}]}}])
    r = recheck(planted_snapshot(tmp_path / "cu", "cursor", [{"id": "tool_use_keyset", "value": claim}]), root,
                since="2000-01-01")
    assert r["verdicts"][0]["recheck_value"] == [1, 2]
    assert r["verdicts"][0]["comparison"].startswith("bound") and (not r["disagreements"]) == agrees


def test_an_inventory_named_under_another_salt_matches_nothing(tmp_path: Path) -> None:
    """Another machine's salt names the same files otherwise: none is found in the inventory,
    so the files are not matched (and the whole snapshot's totals still compare)."""
    root = tmp_path / "projects"
    files = cc_files(root)
    snap = planted_snapshot(tmp_path / "a", "claude_code", [{"id": "file_identity", "value": [3, 3, 0, 0, 0]}])
    inventory(snap, [row(root, rel) for rel in files])
    assert recheck(snap, root, salt=SALT)["matched_to_snapshot"] is True
    r = recheck(snap, root, salt=bytes(reversed(range(32))))
    assert (r["matched_to_snapshot"], r["disagreements"]) == (False, [])
    assert r["verdicts"][0]["scope"].startswith("3 of 3 .jsonl files found under this root (not matched")
