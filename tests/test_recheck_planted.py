"""``survey recheck`` against figures counted here: what a re-check records of itself (method,
runtime, scope of the files re-read), the plain reading, and each runtime's counts on files written here."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

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
          {"type": "assistant", "sessionId": "p1", "message": {"id": 3, "usage": {"output_tokens": 100}}},
          {"type": "user", "sessionId": "p1", "message": {"content": "x"}}]
    p2: list[dict[str, Any]] = [{"type": "user", "sessionId": "other"}, {"type": "user", "sessionId": "p2"}, {"type": "user", "sessionId": 4}]
    kid: list[dict[str, Any]] = [{"type": "assistant", "sessionId": "p1", "message": {"id": "m1", "usage": {"output_tokens": 3}}}]
    odd: list[Any] = [{"type": "system", "sessionId": "p1"}, "a string"]
    jsonl(root / "proj" / "p1.jsonl", p1)
    jsonl(root / "proj" / "p2.jsonl", p2)
    jsonl(root / "proj" / "p1" / "subagents" / "agent-a.jsonl", kid)
    jsonl(root / "proj" / "p1" / "subagents" / "other.jsonl", odd)  # neither a parent nor a child
    classes: dict[str, int] = {}
    for rec in p1 + p2 + kid + odd[:1]:
        classes[class_of("claude_code", rec)] = classes.get(class_of("claude_code", rec), 0) + 1
    # parents: p1 carries p1 alone, p2 two ids (several); the child carries its folder's p1
    # usage: naive 5 + 7 + 3 (a bool and a non-string message id are no figure); per (sessionId, message.id) 7
    identity, usage = [1, 2, 1, 1, 1], {"naive_output_tokens": 15, "dedup_output_tokens": 7}
    claims = [{"id": "record_classes", "value": {"records": classes}}, {"id": "file_identity", "value": identity},
              {"id": "usage", "value": {**usage, "other": 1}}]
    r = recheck(planted_snapshot(tmp_path / "a", "claude_code", claims), root)
    assert by_claim(r) == {"record_classes": ("agrees", classes, dict(sorted(classes.items()))),
                           "file_identity": ("agrees", identity, identity), "usage": ("agrees", usage, usage)}
    wrong = [{"id": "record_classes", "value": {"records": {**classes, "user": classes["user"] + 1}}},
             {"id": "file_identity", "value": [2, 2, 1, 1, 0]},
             {"id": "usage", "value": {"naive_output_tokens": 15, "dedup_output_tokens": 15}}]
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
        {"type": "response_item", "payload": "not an object"}])
    jsonl(day / f"rollout-2026-01-01T00-00-01-{uuid.format(2)}.jsonl", [
        {"type": "session_meta", "payload": {"id": uuid.format(3)}},
        {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "c"}},
        {"type": "response_item", "payload": {"type": "tool_search_call", "call_id": "d"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "d"}},
        {"type": "response_item", "payload": {"type": "function_call", "id": "no call id"}}])
    jsonl(day / f"rollout-2026-01-01T00-00-02-{uuid.format(4)}.jsonl", [
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "a"}}])
    jsonl(day / "history.jsonl", [{"type": "session_meta", "payload": {"id": "x"}}])  # not a rollout
    # identity: 2 files open with session_meta, 1 names its file's uuid; pairing per file:
    # paired a and d, calls without output b and c, outputs without call q and the third file's a
    pairing = {"paired": 2, "unpaired_calls": 2, "unpaired_outputs": 2}
    claims = [{"id": "file_identity", "value": [1, 2, "more"]}, {"id": "native_call_id", "value": {**pairing, "x": 0}}]
    r = recheck(planted_snapshot(tmp_path / "a", "codex", claims), root)
    assert by_claim(r) == {"file_identity": ("agrees", [1, 2], [1, 2]), "native_call_id": ("agrees", pairing, pairing)}
    assert r["verdicts"][0]["detail"] == "first session_meta id = filename uuid in 1/2"
    wrong = [{"id": "file_identity", "value": [2, 2]}, {"id": "native_call_id", "value": {**pairing, "paired": 3}}]
    r = recheck(planted_snapshot(tmp_path / "b", "codex", wrong), root)
    assert r["disagreements"] == ["file_identity", "native_call_id"]
