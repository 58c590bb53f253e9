"""The Cursor generator writes what it says it planted, deterministically, in native layout.

The figures are re-counted here with plain ``json`` over the written bytes (LF framing
only), independently of the generator's own accounting.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from survey.synth.cursor import SIDECAR_MIN, generate

TOKEN = re.compile(rb"cnry[0-9a-f]{12}z")
WINDOW = (1_777_593_600, 1_790_812_800)  # 2026-05-01 .. 2026-10-01 UTC


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _payload(block: dict[str, Any]) -> int:
    t = block["type"]
    if t == "text":
        return len(block["text"])
    if t == "thinking":
        return len(block["thinking"])
    if t == "tool_use":
        inp = block["input"]
        if isinstance(inp, str):
            return len(inp)
        return len(json.dumps(inp, ensure_ascii=False, separators=(",", ":")))
    return len(json.dumps(block.get("content"), ensure_ascii=False, separators=(",", ":")))


def _classify(rel: tuple[str, ...]) -> str:
    if len(rel) == 3 and rel[1] == "agent-tools" and rel[2].endswith(".txt"):
        return "agent_tools"
    if len(rel) >= 3 and rel[1] == "agent-transcripts":
        name = rel[-1]
        if len(rel) == 5 and rel[3] == "subagents" and name.endswith(".jsonl"):
            return "subagent"
        if len(rel) == 3 and name.endswith(".jsonl"):
            return "transcript_flat"
        if len(rel) == 3 and name.endswith(".txt"):
            return "legacy_txt"
        if len(rel) == 4 and name == f"{rel[2]}.jsonl":
            return "transcript_nested"
    return "other"


def _recount(root: Path) -> dict[str, Any]:
    """Independent count of the main planted figures from the bytes on disk."""
    files: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    top: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    status: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    headings: Counter[str] = Counter()
    pl_a: list[int] = []
    pl_u: list[int] = []
    out: dict[str, Any] = {"max_parallel": 0, "without_te": 0, "with_te": 0, "te_last": 0}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        kind = _classify(path.relative_to(root).parts)
        files[kind] += 1
        data = path.read_bytes()
        if kind == "legacy_txt":
            for m in re.finditer(rb"^\[Tool call\] (\S+)$", data, re.M):
                headings[m.group(1).decode()] += 1
        if kind not in ("transcript_flat", "transcript_nested", "subagent"):
            continue
        lines = data.split(b"\n")
        ends_lf = data.endswith(b"\n")
        if ends_lf:
            lines.pop()
        ok: list[dict[str, Any]] = []
        for i, line in enumerate(lines):
            if not line.strip():
                frames["blank"] += 1
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                last = i == len(lines) - 1 and not ends_lf
                frames["partial" if last else "malformed"] += 1
                continue
            frames["ok"] += 1
            ok.append(obj)
        has_te = False
        prev: list[tuple[str, int]] | None = None
        for obj in ok:
            top[",".join(sorted(obj))] += 1
            if obj.get("type") == "turn_ended":
                has_te = True
                status[obj["status"]] += 1
            if "role" not in obj:
                prev = None
                continue
            roles[obj["role"]] += 1
            blocks = obj["message"]["content"]
            n_tool = sum(1 for b in blocks if b["type"] == "tool_use")
            out["max_parallel"] = max(out["max_parallel"], n_tool)
            tools.update(b["name"] for b in blocks if b["type"] == "tool_use")
            sig = [(b["type"], _payload(b)) for b in blocks]
            (pl_a if obj["role"] == "assistant" else pl_u).extend(n for _, n in sig)
            if obj["role"] != "assistant":
                prev = None
                continue
            if prev is not None:
                if sig == prev:
                    pairs["duplicate"] += 1
                elif len(sig) > len(prev) and sig[: len(prev)] == prev:
                    pairs["prefix_extension"] += 1
                elif len(prev) > len(sig) and prev[: len(sig)] == sig:
                    pairs["reverse_prefix"] += 1
                else:
                    pairs["unrelated"] += 1
            prev = sig
        out["with_te" if has_te else "without_te"] += 1
        if ok and ok[-1].get("type") == "turn_ended":
            out["te_last"] += 1
    files["transcript"] = files["transcript_flat"] + files["transcript_nested"]
    out.update(
        files=files,
        frames=frames,
        top=top,
        roles=roles,
        status=status,
        tools=tools,
        pairs=pairs,
        headings=headings,
        pl_a=sorted(pl_a),
        pl_u=sorted(pl_u),
    )
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("cursor") / "projects"
    return root, generate(root)


def test_same_seed_gives_identical_bytes_and_mtimes(
    corpus: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    root, planted = corpus
    again = generate(tmp_path / "again")
    assert _snapshot(tmp_path / "again") == _snapshot(root)
    assert json.dumps(again, sort_keys=True) == json.dumps(planted, sort_keys=True)
    other = generate(tmp_path / "other", seed=8)
    assert _snapshot(tmp_path / "other") != _snapshot(root)
    assert other["bytes_total"] != planted["bytes_total"]


def test_nothing_is_written_outside_root(tmp_path: Path) -> None:
    generate(tmp_path / "root", sessions=12)
    assert [p.name for p in tmp_path.iterdir()] == ["root"]


def test_planted_record_is_json_serialisable_with_documented_keys(
    corpus: tuple[Path, dict[str, Any]],
) -> None:
    _, planted = corpus
    json.dumps(planted)
    for key in (
        "files",
        "frames",
        "top_keysets",
        "roles",
        "turn_status",
        "blocks",
        "block_keysets",
        "tool_names",
        "input_types",
        "max_parallel",
        "parallel_frames_over_3",
        "mcp_wrapper_keysets",
        "files_with_turn_ended",
        "files_without_turn_ended",
        "turn_ended_last",
        "subagent_pairs",
        "child_id_in_parent",
        "nested_dir_equals_file",
        "agent_tools_sizes",
        "readback_refs",
        "payload_lengths",
        "payload_lengths_user",
        "assistant_pairs",
        "text_markers",
        "legacy_tool_headings",
        "mtime_months",
        "canaries",
        "bytes_total",
        "edge_cases",
    ):
        assert key in planted, key
    assert planted["sessions"] == 60
    assert planted["canaries"] == []


def test_layout_is_native_cursor_projects(corpus: tuple[Path, dict[str, Any]]) -> None:
    root, planted = corpus
    f = planted["files"]
    assert f["transcript"] == f["transcript_nested"] + f["transcript_flat"]
    assert min(f["transcript_nested"], f["transcript_flat"], f["subagent"], f["legacy_txt"]) > 0
    assert f["other"] == sum(f["other_by_ext"].values()) and f["other_by_ext"][""] > 0
    assert {".json", ".txt"} <= set(f["other_by_ext"])
    flat = [p for p in root.glob("*/agent-transcripts/*.jsonl")]
    siblings = [p for p in flat if p.with_suffix(".txt").exists()]
    txt_only = [
        p for p in root.glob("*/agent-transcripts/*.txt") if not p.with_suffix(".jsonl").exists()
    ]
    assert siblings and txt_only and len(flat) > len(siblings)
    assert all(not p.read_bytes().endswith(b"\n") for p in flat)  # as the real samples
    for p in root.glob("*/agent-transcripts/*/subagents/*.jsonl"):
        assert re.fullmatch(r"[0-9a-f-]{36}", p.stem)
    assert planted["nested_dir_equals_file"] == f["transcript_nested"]
    sizes = sorted(p.stat().st_size for p in root.glob("*/agent-tools/*.txt"))
    assert sizes == planted["agent_tools_sizes"] and sizes[0] >= SIDECAR_MIN
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) == planted["bytes_total"]
    for p in root.rglob("*"):
        assert WINDOW[0] <= p.stat().st_mtime < WINDOW[1]
    assert sum(planted["mtime_months"].values()) == sum(
        f[k] for k in ("transcript", "subagent", "legacy_txt", "agent_tools", "other")
    )
    m = planted["mtime_months"]
    assert len(m) == 5 and m["2026-09"] == max(m.values()) and m["2026-05"] < m["2026-08"]


def test_independent_recount_matches_planted(corpus: tuple[Path, dict[str, Any]]) -> None:
    root, planted = corpus
    got = _recount(root)
    f = planted["files"]
    for k in (
        "transcript",
        "transcript_nested",
        "transcript_flat",
        "subagent",
        "legacy_txt",
        "agent_tools",
        "other",
    ):
        assert got["files"][k] == f[k], k
    assert dict(got["frames"]) == {k: v for k, v in planted["frames"].items() if v}
    assert dict(got["top"]) == planted["top_keysets"]
    assert dict(got["roles"]) == planted["roles"]
    assert dict(got["tools"]) == planted["tool_names"]
    assert dict(got["status"]) == {k: v for k, v in planted["turn_status"].items() if v}
    assert got["max_parallel"] == planted["max_parallel"] == 39
    assert got["without_te"] == planted["files_without_turn_ended"]
    assert got["with_te"] == planted["files_with_turn_ended"]
    assert got["te_last"] == planted["turn_ended_last"]
    assert dict(got["pairs"]) == {k: v for k, v in planted["assistant_pairs"].items() if v}
    assert got["pl_a"] == planted["payload_lengths"]
    assert got["pl_u"] == planted["payload_lengths_user"]
    assert dict(got["headings"]) == planted["legacy_tool_headings"]


def test_reference_shapes_are_all_present(corpus: tuple[Path, dict[str, Any]]) -> None:
    _, planted = corpus
    assert planted["frames"] == {
        "ok": planted["frames"]["ok"],
        "blank": 5,
        "malformed": 1,
        "partial": 1,
    }
    assert set(planted["top_keysets"]) == {
        "message,role",
        "status,type",
        "error,status,type",
        "error,type",
    }
    assert all(planted["turn_status"].values())
    assert planted["files_without_turn_ended"] > 0
    assert planted["files_with_turn_ended"] - planted["turn_ended_last"] == 1
    assert planted["block_keysets"]["tool_use"] == {
        "input,name,type": planted["blocks"]["tool_use"]
    }
    names = planted["tool_names"]
    for name in (
        "Shell",
        "ReadFile",
        "rg",
        "ApplyPatch",
        "Read",
        "StrReplace",
        "Grep",
        "Glob",
        "AwaitShell",
        "Subagent",
        "CallMcpTool",
        "TodoWrite",
        "Write",
        "Delete",
        "AskQuestion",
        "GetMcpTools",
        "CallDynamicTool",
        "GetDynamicTools",
        "WebFetch",
        "WebSearch",
        "Task",
        "ReadLints",
        "SwitchMode",
        "CreatePlan",
        "shell",
    ):
        assert names.get(name), name
    assert planted["input_types"]["ApplyPatch"] == {"object": 0, "string": names["ApplyPatch"]}
    assert all(v["string"] == 0 for k, v in planted["input_types"].items() if k != "ApplyPatch")
    for name, keysets in planted["mcp_wrapper_keysets"].items():
        assert keysets == {"arguments,namespace,server,toolName": names[name]}
    assert planted["parallel_frames_over_3"] > 3
    assert 0 < planted["child_id_in_parent"] < planted["subagent_pairs"]
    assert (
        planted["readback_refs"]["input.path"] > 0 and planted["readback_refs"]["input.command"] > 0
    )
    pairs = planted["assistant_pairs"]
    assert pairs["unrelated"] > 20 * pairs["duplicate"] and min(pairs.values()) > 0
    assert all(planted["text_markers"].values())
    assert (
        max(planted["payload_lengths"]) > 30_000 and max(planted["payload_lengths_user"]) > 60_000
    )
    assert planted["edge_counts"]["u2028"] > 0 and planted["edge_counts"]["u2029"] > 0


def test_edge_cases_sit_where_the_record_says(corpus: tuple[Path, dict[str, Any]]) -> None:
    root, planted = corpus
    e = planted["edge_cases"]
    bad = e["malformed_line"]
    lines = (root / bad["path"]).read_bytes().split(b"\n")
    with pytest.raises(ValueError):
        json.loads(lines[bad["line"] - 1])
    data = (root / e["partial_last_line"]).read_bytes()
    assert not data.endswith(b"\n")
    with pytest.raises(ValueError):
        json.loads(data.rsplit(b"\n", 1)[1])
    big = e["max_parallel_frame"]
    frame = json.loads((root / big["path"]).read_bytes().split(b"\n")[big["line"] - 1])
    assert sum(b["type"] == "tool_use" for b in frame["message"]["content"]) == 39
    raw = (root / e["u2028_u2029"]).read_bytes()
    assert "\u2028".encode() in raw and "\u2029".encode() in raw  # raw, not escaped
    blank = (root / e["blank_lines"]).read_bytes().split(b"\n")
    assert b"" in blank[:-1] and any(x and not x.strip() for x in blank)
    te = [json.loads(x) for x in (root / e["turn_ended_not_last"]).read_bytes().splitlines()]
    assert any(x.get("type") == "turn_ended" for x in te) and "role" in te[-1]
    nokey = [
        json.loads(x)
        for x in (root / e["turn_ended_error_without_error_key"]).read_bytes().split(b"\n")
        if x.strip()
    ]
    assert {"type": "turn_ended", "status": "error"} in nokey
    assert (root / e["orphan_subagent"]).exists()
    parent_dir = (root / e["orphan_subagent"]).parent.parent
    assert not (parent_dir / f"{parent_dir.name}.jsonl").exists()
    shapes = (root / e["handmade_shapes"]).read_text(encoding="utf-8")
    assert '"type":"thinking"' in shapes and '"tool_use_id"' in shapes
    assert b'"type":"error"' in (root / e["error_record"]).read_bytes()


def test_canaries_are_unique_and_all_written(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    planted = generate(root, sessions=30, canaries=True)
    tokens = planted["canaries"]
    assert tokens == sorted(set(tokens)) and len(tokens) > 500
    assert all(TOKEN.fullmatch(t.encode()) for t in tokens)
    found: set[bytes] = set()
    for p in root.rglob("*"):
        found.update(TOKEN.findall(p.relative_to(root).as_posix().encode()))
        if p.is_file():
            data = p.read_bytes()
            found.update(TOKEN.findall(data))
            assert TOKEN.search(data), p  # every file carries at least one token
    assert found == {t.encode() for t in tokens}
    for proj in root.iterdir():
        assert TOKEN.search(proj.name.encode())

    def strings(v: Any) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [s for x in v.values() for s in strings(x)]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return []

    for p in root.rglob("*.jsonl"):
        for line in p.read_bytes().split(b"\n"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            for b in obj.get("message", {}).get("content", []):
                if b["type"] == "tool_use":
                    assert all(TOKEN.search(s.encode()) for s in strings(b["input"])), b
                    if b["name"] in ("CallMcpTool", "CallDynamicTool"):
                        assert all(TOKEN.search(k.encode()) for k in b["input"]["arguments"])
                elif b["type"] in ("text", "thinking"):
                    assert TOKEN.search(b[b["type"]].encode())
            if "error" in obj:
                assert TOKEN.search(obj["error"].encode())


def test_target_bytes_keeps_generating_until_reached(tmp_path: Path) -> None:
    root = tmp_path / "big"
    planted = generate(root, target_bytes=6_000_000)
    on_disk = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert on_disk == planted["bytes_total"] >= 6_000_000
    assert planted["sessions"] > 60 and planted["max_parallel"] == 39
    assert max(planted["agent_tools_sizes"]) <= 1_400_000
    got = _recount(root)
    assert dict(got["pairs"]) == {k: v for k, v in planted["assistant_pairs"].items() if v}
    assert got["files"]["transcript"] == planted["files"]["transcript"]
    assert os.path.isdir(root)


def test_canary_mode_keeps_the_same_structure(tmp_path: Path) -> None:
    plain = generate(tmp_path / "plain", sessions=30)
    marked = generate(tmp_path / "marked", sessions=30, canaries=True)
    for key in (
        "files",
        "frames",
        "top_keysets",
        "roles",
        "turn_status",
        "blocks",
        "tool_names",
        "input_types",
        "max_parallel",
        "subagent_pairs",
        "legacy_tool_headings",
        "mtime_months",
    ):
        assert plain[key] == marked[key], key
    assert marked["bytes_total"] > plain["bytes_total"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recount_matches_planted_for_other_seeds(tmp_path: Path, seed: int) -> None:
    planted = generate(tmp_path / "r", seed=seed, sessions=30)
    got = _recount(tmp_path / "r")
    assert dict(got["frames"]) == {k: v for k, v in planted["frames"].items() if v}
    assert dict(got["top"]) == planted["top_keysets"]
    assert dict(got["tools"]) == planted["tool_names"]
    assert dict(got["pairs"]) == {k: v for k, v in planted["assistant_pairs"].items() if v}
    assert got["pl_a"] == planted["payload_lengths"]
    assert got["without_te"] == planted["files_without_turn_ended"]
    assert got["max_parallel"] == planted["max_parallel"] == 39
