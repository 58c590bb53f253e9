"""Cursor figures that were easy to misstate, each on a corpus built to show it."""

from __future__ import annotations

from pathlib import Path

import orjson

from survey.pipeline import run_survey
from survey.runtimes import get


def _write(root: Path, rel: str, lines: list) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"\n".join(x if isinstance(x, bytes) else orjson.dumps(x) for x in lines) + b"\n")


def _claims(res) -> dict:
    return {c["id"]: c for c in orjson.loads((Path(res.snapshot) / "claims.json").read_bytes())}


def test_withheld_legacy_heading_names_are_not_counted_as_one_name(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    names = ["ReadFile", "ReadFile", "Shell", "zzPrivateToolA", "zzPrivateToolB", "zzPrivateToolC"]
    (root / "p" / "agent-transcripts").mkdir(parents=True)
    (root / "p" / "agent-transcripts" / "a.txt").write_text(
        "".join(f"user: x\n[Tool call] {n}\n  args\n" for n in names))
    _write(root, "p/agent-transcripts/b/b.jsonl", [{"role": "user", "message": {"content": [{"type": "text", "text": "t"}]}}])
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01")
    text = _claims(res)["legacy_headings"]["text"]
    assert text.startswith("Legacy plain-text transcripts name 2 reviewed tool names in 3 [Tool call] headings; "
                           "3 headings name tools outside the reviewed vocabulary, withheld")
    page = Path(res.page).read_text()
    assert "zzPrivateTool" not in page


def test_client_version_in_one_file_of_two_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    frame = {"role": "user", "message": {"content": [{"type": "text", "text": "t"}]}}
    _write(root, "p/agent-transcripts/a/a.jsonl", [{**frame, "version": "2.1.0"}])
    _write(root, "p/agent-transcripts/b/b.jsonl", [frame])
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01")
    c = _claims(res)["stratify_basis"]
    assert c["value"]["client version"] == 1
    assert "client version in 1 of 2 walked files" in c["text"]
    assert "No client version" not in Path(res.page).read_text()


def test_marker_probes_and_skill_reads_equal_what_was_planted(cursor_survey) -> None:
    planted, _res, snap = cursor_survey
    c = {x["id"]: x for x in orjson.loads((snap / "claims.json").read_bytes())}
    ev = {p["id"]: p for p in orjson.loads((snap / "evidence.json").read_bytes())["probes"]}
    ui = planted["user_info_marker"]
    assert ui["files"] > 0
    assert (ev["marker_user_info"]["duckdb"]["files_matched"], ev["marker_user_info"]["duckdb"]["occurrences"]) == \
        (ui["files"], ui["hits"])
    assert f"observed in {ui['files']} of" in c["marker_user_info"]["text"]
    sk = planted["skill_md_reads"]
    assert sk["calls"] > 0
    assert c["skill_evidence"]["value"] == [sk["calls"], sk["files"]]
    assert c["skill_evidence"]["provenance"] == "inferred"


def test_where_model_sits_and_the_error_type_are_found_by_path(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    call = {"type": "tool_use", "name": "Subagent", "input": {"model": "m", "prompt": "p"}}
    _write(root, "p/agent-transcripts/a/a.jsonl", [
        {"role": "assistant", "message": {"content": [call, {**call, "name": "Task"}]}},
        {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "Shell",
                                                       "input": {"command": "x", "run_in_background": True}}]}},
        {"type": "turn_ended", "status": "error", "error": "boom"},
        {"type": "turn_ended", "status": "aborted", "error": {"code": 1}},
    ])
    res = run_survey(get("cursor"), root, snapshots=tmp_path / "s", reports=tmp_path / "r", date="2026-01-01")
    c = _claims(res)
    assert c["model_where"]["value"] == {"paths": ["$.message.content[type=tool_use].input.model"],
                                         "tools": {"Subagent": 1, "Task": 1}}
    assert c["background_shell"]["value"] == {"Shell": [1, 1]}
    assert c["error_type"]["value"] == {"turn_ended:string": 1, "turn_ended:object": 1}
    assert "The error key is object / string in the 2 records" in c["error_type"]["text"]
