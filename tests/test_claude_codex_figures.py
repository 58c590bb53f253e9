"""Derived figures of the Claude Code and Codex pages, each on a corpus built to show it, the
truth counted independently in plain Python over the files: files holding several versions
(counted once each), key sets after masking, keys found at any path, withheld tool names by
why, one record total. Then the same figures on the real public samples, where present."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from survey.runtimes.base import HERE as RUNTIMES
from survey.synth import claude_code as cc_synth
from survey.synth import codex as cx_synth
from tests.conftest import corpora
from tests.drift import Surveyed, generated, records, rewrite, survey_once

CC_VOCAB = json.loads((RUNTIMES / "claude_code" / "vocab.json").read_text())
CX_VOCAB = json.loads((RUNTIMES / "codex" / "vocab.json").read_text())
MASK = "<unreviewed-key>"


@pytest.fixture(scope="module")
def cc_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated(tmp_path_factory, "ccf", "projects", cc_synth.generate, seed=11, sessions=8)


@pytest.fixture(scope="module")
def cx_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated(tmp_path_factory, "cxf", "sessions", cx_synth.generate, seed=11, sessions=10)


def _copy(src: Path, tmp: Path) -> Path:
    dst = tmp / "corpus" / src.name
    shutil.copytree(src, dst)
    return dst


def _all_records(root: Path) -> list[tuple[Path, dict]]:
    """Every parsed record the walk reads: JSONL object lines, and each .meta.json document."""
    out = records(root)
    for f in sorted(root.rglob("*.meta.json")):
        try:
            doc = json.loads(f.read_bytes())
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append((f, doc))
    return out


def _objects(v: Any, path: str = "$") -> Iterator[tuple[str, dict]]:
    """Every object inside a JSON value with its path (``$.a.b``, ``[]`` for array items)."""
    if isinstance(v, dict):
        yield path, v
        for k, x in v.items():
            yield from _objects(x, f"{path}.{k}")
    elif isinstance(v, list):
        for x in v:
            yield from _objects(x, f"{path}[]")


def _page(s: Surveyed) -> str:
    return s.page.replace("&lt;", "<").replace("&gt;", ">")


# -- Claude Code ------------------------------------------------------------------------------------

def test_files_holding_several_versions_are_counted_once_each(cc_base: Path, tmp_path: Path) -> None:
    root = _copy(cc_base, tmp_path)
    parents = sorted(f for f in root.glob("*/*.jsonl"))[:3]
    for i, f in enumerate(parents):
        lines = f.read_text().split("\n")
        out = []
        for n, line in enumerate(lines):
            try:
                r = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            if "version" in r and n > len(lines) // 2:
                r["version"] = f"9.9.{i}" if (i or n % 2) else "9.8.0"
            out.append(json.dumps(r))
        f.write_text("\n".join(out))
    per_file: dict[Path, set[str]] = {}
    by_version: dict[str, int] = {}
    for f, r in _all_records(root):
        if isinstance(r.get("version"), str):
            per_file.setdefault(f, set()).add(r["version"])
            by_version[r["version"]] = by_version.get(r["version"], 0) + 1
    mixing = sum(1 for v in per_file.values() if len(v) > 1)
    assert mixing == 3
    s = survey_once("claude_code", root, tmp_path, "2026-01-01")
    cv = s.claims["client_version"]["value"]
    assert cv["files_mixing"] == mixing
    assert cv["versions"] == by_version
    assert cv["records_with_version"] == sum(by_version.values())
    # the old figure, the largest per-version count, differs here: the page must not print it
    rows = json.loads((s.snap / "census.json").read_text())["versions"]
    per_version = [dict(zip(rows["columns"], r, strict=True))["files_mixing_versions"] for r in rows["rows"]]
    assert max(per_version) != mixing
    assert f"{mixing} files hold records of more than one version (each file counted once)" in s.page


def test_key_sets_are_counted_after_masking_and_say_so(cc_base: Path, tmp_path: Path) -> None:
    root = _copy(cc_base, tmp_path)
    n = iter(range(10**9))

    def plant(r: dict) -> dict:
        if r.get("type") == "progress":
            r["zzPlantedA" if next(n) % 2 else "zzPlantedB"] = 1
        return r
    rewrite(root, plant)
    keys = set(CC_VOCAB["keys"])
    raw: set[tuple[str, frozenset]] = set()
    masked: set[tuple[str, frozenset]] = set()
    for _f, r in records(root):
        cls = r.get("type") if "subtype" not in r else f"{r.get('type')}/{r.get('subtype')}"
        raw.add((str(cls), frozenset(r)))
        masked.add((str(cls), frozenset(k if k in keys else MASK for k in r)))
    assert len(masked) < len(raw)  # masking merged the two planted sets
    s = survey_once("claude_code", root, tmp_path, "2026-01-01")
    rc = s.claims["record_classes"]
    assert rc["value"]["keysets"] == len(masked)
    assert rc["value"]["masked_keysets"] == sum(1 for _c, ks in masked if MASK in ks)
    assert "key sets after masking unreviewed keys" in rc["text"] and "masking may have merged" in rc["text"]
    # the count before masking: distinct raw key sets, from salted pseudonyms of the sorted keys
    assert rc["value"]["keysets_raw"] == len(raw)
    assert f"{len(masked)} distinct top-level key sets after masking unreviewed keys" in rc["text"]
    assert f"{len(raw)} distinct before masking" in rc["text"]
    # the page-wide figure (every record class, the .meta.json documents too) says masking merged sets
    km = s.claims["keysets_masking"]["value"]
    assert km["raw"] - km["masked"] == len(raw) - len(masked) and km["merged_pairs"] >= 1
    walk = s.snap / "walk"
    stored = b"".join(p.read_bytes() for p in sorted(walk.rglob("*.parquet")) if p.is_file()
                      and p.relative_to(walk).parts[0].startswith(("rawsets", "formats")))
    assert stored and b"zzPlanted" not in stored and "zzPlanted" not in s.page


def test_an_exit_code_under_a_nested_object_is_found_and_its_path_named(cc_base: Path, tmp_path: Path) -> None:
    root = _copy(cc_base, tmp_path)
    n = iter(range(10**9))

    def plant(r: dict) -> dict:
        t = r.get("toolUseResult")
        if isinstance(t, dict) and next(n) % 3 == 0:
            t["result"] = {"exitCode": 2}
        return r
    rewrite(root, plant)
    files: set[Path] = set()
    paths: set[str] = set()
    for f, r in _all_records(root):
        for path, obj in _objects(r):
            if "exitCode" in obj:
                files.add(f)
                paths.add(path)
    assert "$.toolUseResult.result" in paths
    s = survey_once("claude_code", root, tmp_path, "2026-01-01")
    c = s.claims["exit_codes"]
    assert c["value"] is False
    assert c["extra"]["seen"]["exitCode"]["files"] == len(files)
    assert set(c["extra"]["seen"]["exitCode"]["paths"]) == paths
    probe = next(p for p in json.loads((s.snap / "evidence.json").read_text())["probes"] if p["id"] == "no_exit_code")
    assert probe["verdict"] == "fails"
    assert "An exit code (exitCode / exit_code): not observed" not in s.page
    assert "`$.toolUseResult.result`" in s.claims["model_outcome"]["text"]


def test_withheld_tool_names_are_labelled_by_why(cc_base: Path, tmp_path: Path) -> None:
    root = _copy(cc_base, tmp_path)
    n = iter(range(10**9))

    def plant(r: dict) -> dict:
        m = r.get("message")
        for b in (m.get("content") if isinstance(m, dict) and isinstance(m.get("content"), list) else []):
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash" and next(n) % 4 == 0:
                b["name"] = "NewBuiltinTool"
        return r
    rewrite(root, plant)
    reviewed = set(CC_VOCAB["values"]["$.message.content[type=tool_use].name"])
    mcp = unreviewed = 0
    for _f, r in records(root):
        m = r.get("message")
        for b in (m.get("content") if isinstance(m, dict) and isinstance(m.get("content"), list) else []):
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("name"), str):
                if b["name"].startswith("mcp__"):
                    mcp += 1
                elif b["name"] not in reviewed:
                    unreviewed += 1
    assert mcp and unreviewed
    s = survey_once("claude_code", root, tmp_path, "2026-01-01")
    v = s.claims["tool_names"]["value"]
    assert (v["withheld_mcp"], v["withheld_unreviewed"]) == (mcp, unreviewed)
    text = _page(s)
    assert f"{mcp:,} calls an MCP name (mcp__<server>__<tool>, withheld by policy)" in text
    assert f"{unreviewed:,} calls a name outside the reviewed vocabulary (withheld as unreviewed)" in text
    assert "(MCP) names" not in text


def test_one_record_total_each_figure_saying_what_it_counts(cc_base: Path, tmp_path: Path) -> None:
    s = survey_once("claude_code", cc_base, tmp_path, "2026-01-01")
    jsonl = len(records(cc_base))
    metas = len(list(cc_base.rglob("*.meta.json")))
    rt = s.claims["record_totals"]["value"]
    assert (rt["ok"], rt["jsonl"], rt["meta_docs"]) == (jsonl + metas, jsonl, metas)
    assert f"| Records read / parsed | {rt['read']:,} / {jsonl + metas:,} ({jsonl:,} JSONL lines, {metas:,}" in s.page
    assert f"over {jsonl:,} JSONL records" in s.claims["record_classes"]["text"]
    assert f"of {jsonl:,} JSONL records" in s.claims["timestamps"]["text"]
    assert f"{jsonl + metas:,} parsed records" in s.claims["client_version"]["text"]


# -- Codex ----------------------------------------------------------------------------------------------

def test_codex_rollouts_whose_headers_carry_several_versions(cx_base: Path, tmp_path: Path) -> None:
    root = _copy(cx_base, tmp_path)
    for f in sorted(root.rglob("*.jsonl"))[:2]:
        first = next((r for _g, r in records(f.parent, f.name) if r.get("type") == "session_meta"), None)
        assert first is not None
        again = json.loads(json.dumps(first))
        again["payload"]["cli_version"] = "0.999.0"
        f.write_text(f.read_text().rstrip("\n") + "\n" + json.dumps(again) + "\n")
    per_file: dict[Path, set[str]] = {}
    headers = with_v = 0
    for f, r in records(root):
        if r.get("type") == "session_meta":
            headers += 1
            v = r["payload"].get("cli_version")
            if isinstance(v, str):
                with_v += 1
                per_file.setdefault(f, set()).add(v)
    s = survey_once("codex", root, tmp_path, "2026-01-01")
    cv = s.claims["client_version"]["value"]
    assert cv["files_mixing"] == sum(1 for v in per_file.values() if len(v) > 1) == 2
    assert cv["headers_with_version"] == with_v
    assert f"`cli_version` is on {with_v:,} of {headers:,} session_meta headers" in s.page


def test_codex_withheld_tool_names_are_labelled_by_why(cx_base: Path, tmp_path: Path) -> None:
    root = _copy(cx_base, tmp_path)
    n = iter(range(10**9))

    def plant(r: dict) -> dict:
        p = r.get("payload")
        if isinstance(p, dict) and p.get("type") == "function_call" and "namespace" not in p and next(n) % 5 == 0:
            p["name"] = "new_builtin_tool"
        return r
    rewrite(root, plant)
    reviewed = set(CX_VOCAB["values"]["$.payload.name"])
    mcp = plain = 0
    for _f, r in records(root):
        p = r.get("payload")
        if r.get("type") == "response_item" and isinstance(p, dict) and p.get("type") in (
                "function_call", "custom_tool_call", "local_shell_call") and p.get("name") not in reviewed:
            if p.get("namespace") is not None:
                mcp += 1
            else:
                plain += 1
    assert mcp and plain
    s = survey_once("codex", root, tmp_path, "2026-01-01")
    v = s.claims["tool_names"]["value"]
    assert (v["withheld_mcp"], v["withheld_unreviewed"]) == (mcp, plain)
    assert f"{plain:,} calls with a name outside the reviewed vocabulary (withheld as unreviewed)" in s.page


def test_codex_record_total_is_one_figure(cx_base: Path, tmp_path: Path) -> None:
    s = survey_once("codex", cx_base, tmp_path, "2026-01-01")
    n = len(records(cx_base))
    assert s.claims["record_totals"]["value"]["ok"] == n
    assert f"over {n:,} records" in s.claims["record_classes"]["text"]
    assert f"of {n:,} records" in s.claims["timestamps"]["text"]


# -- the real public samples ---------------------------------------------------------------------------

def test_real_claude_code_figures_equal_a_plain_pass(tmp_path: Path) -> None:
    root = corpora() / "claude" / "projects"
    recs = _all_records(root)
    per_file: dict[Path, set[str]] = {}
    with_v = 0
    exit_files: set[Path] = set()
    exit_paths: set[str] = set()
    for f, r in recs:
        if isinstance(r.get("version"), str):
            with_v += 1
            per_file.setdefault(f, set()).add(r["version"])
        for path, obj in _objects(r):
            if "exitCode" in obj or "exit_code" in obj:
                exit_files.add(f)
                exit_paths.add(path)
    reviewed = set(CC_VOCAB["values"]["$.message.content[type=tool_use].name"])
    names = [b.get("name") for _f, r in recs if isinstance(r.get("message"), dict)
             and isinstance(r["message"].get("content"), list)
             for b in r["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    mcp = sum(1 for x in names if isinstance(x, str) and x.startswith("mcp__"))
    unreviewed = sum(1 for x in names if isinstance(x, str) and not x.startswith("mcp__") and x not in reviewed)
    s = survey_once("claude_code", root, tmp_path, "2026-01-01")
    c = s.claims
    assert c["client_version"]["value"]["files_mixing"] == sum(1 for v in per_file.values() if len(v) > 1)
    assert c["client_version"]["value"]["records_with_version"] == with_v
    assert c["record_totals"]["value"]["ok"] == len(recs)
    seen = c["exit_codes"]["extra"]["seen"]
    assert (c["exit_codes"]["value"] is True) == (not exit_files)
    assert set().union(*(v["paths"] for v in seen.values())) == exit_paths if seen else not exit_paths
    v = c["tool_names"]["value"]
    assert (v["withheld_mcp"], v["withheld_unreviewed"]) == (mcp, unreviewed)
    # agentId by file kind: at a record's top level, and in nested objects (by path, never the value)
    kind = {f: ("subagent" if "subagents" in f.parts else "parent") for f, _r in recs if f.suffix == ".jsonl"}
    top = {f for f, r in recs if f in kind and "agentId" in r}
    nested = {f for f, r in recs if f in kind and any("agentId" in o for p, o in _objects(r) if p != "$")}
    a = c["link_agent_id"]["value"]
    parents = [f for f, k in kind.items() if k == "parent"]
    assert (a["parent_files"], a["subagent_files"]) == (len(parents), len(kind) - len(parents))
    assert a["parent_top_level"] == sum(1 for f in parents if f in top)
    assert a["parent_nested"] == sum(1 for f in parents if f in nested)
    assert a["subagent_top_level"] == sum(1 for f in top if kind[f] == "subagent")
    # a subagent file against its parent: the samples hold none, and the page says the comparison is not made
    ss = c["link_subagent_schema"]
    assert ss["value"]["subagent_files"] == len(kind) - len(parents)
    if len(kind) == len(parents):  # no child: every figure of the comparison is 0, no path is a child's alone
        assert ss["provenance"] == "not determined" and "No subagent file was walked" in s.page
        assert ss["value"]["paths_in_no_transcript"] == [] and not any(
            v for k, v in ss["value"].items() if k != "paths_in_no_transcript")


def test_real_codex_figures_equal_a_plain_pass(tmp_path: Path) -> None:
    root = corpora() / "codex" / "sessions"
    recs = records(root)
    headers = [r for _f, r in recs if r.get("type") == "session_meta"]
    per_file: dict[Path, set[str]] = {}
    for f, r in recs:
        if r.get("type") == "session_meta" and isinstance(r["payload"].get("cli_version"), str):
            per_file.setdefault(f, set()).add(r["payload"]["cli_version"])
    calls = [r["payload"] for _f, r in recs if r.get("type") == "response_item" and isinstance(r.get("payload"), dict)
             and r["payload"].get("type") in ("function_call", "custom_tool_call", "tool_search_call",
                                              "local_shell_call")]
    is_error_files = {f for f, r in recs if any("is_error" in o for _p, o in _objects(r))}
    s = survey_once("codex", root, tmp_path, "2026-01-01")
    c = s.claims
    cv = c["client_version"]["value"]
    assert cv["headers_with_version"] == sum(1 for h in headers if isinstance(h["payload"].get("cli_version"), str))
    assert cv["files_mixing"] == sum(1 for v in per_file.values() if len(v) > 1)
    nc = c["native_call_id"]["value"]
    assert (nc["calls"], nc["calls_with_id"]) == (len(calls), sum(1 for p in calls if "call_id" in p))
    assert c["record_totals"]["value"]["ok"] == len(recs)
    assert (c["no_is_error"]["value"] is True) == (not is_error_files)
    # child rollouts (first header's session_id other than its id) against their parents
    firsts: dict[Path, dict] = {}
    for f, r in recs:
        if r.get("type") == "session_meta" and f not in firsts:
            firsts[f] = r["payload"]
    kids = [f for f, p in firsts.items() if p.get("session_id", p.get("id")) != p.get("id")]
    ss = c["link_subagent_schema"]
    assert ss["value"]["subagent_files"] == len(kids)
    if not kids:  # no child: every figure of the comparison is 0, no path is a child's alone
        assert ss["provenance"] == "not determined" and "No subagent file was walked" in s.page
        assert ss["value"]["paths_in_no_transcript"] == [] and not any(
            v for k, v in ss["value"].items() if k != "paths_in_no_transcript")
