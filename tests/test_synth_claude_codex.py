"""Tests of the Claude Code and Codex generators (``survey.synth.claude_code``/``codex``).

What is checked:

- determinism: the same seed gives byte-identical files and identical mtimes (and planted),
  another seed does not;
- layout: every file sits where the native client puts it;
- an independent recount, in plain Python with the stdlib ``json`` module and the test's own
  path rules, of files per surface, records and top-level key sets per class, line statuses,
  versions, bytes, mtime months and every runtime-specific figure of ``planted``;
- canaries: every listed token is in the corpus, every token in the corpus is listed, and
  free texts, tool-input strings, data-keyed map keys, the encoded-cwd folder and every
  sidecar carry one;
- calibration against the real samples under ``$SURVEY_CORPORA`` (default ``../shared/corpora``) (skipped, with the
  reason, when that folder is absent): every (record class, top-level key set), every
  Claude ``message.content[]`` block key set, and every (class, path, key set or JSON type)
  below the records outside data-keyed maps that the real files show is produced by the
  default corpus; the curated fixtures' rare record classes are produced too.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from survey.synth import claude_code, codex
from tests.conftest import CORPORA

REAL = {"claude": CORPORA / "claude" / "projects", "codex": CORPORA / "codex" / "sessions"}
HANDMADE = {"claude": CORPORA / "handmade" / "claude" / "projects",
            "codex": CORPORA / "handmade" / "codex" / "sessions"}
GEN = {"claude": claude_code, "codex": codex}
CANARY = re.compile(rb"cnry[0-9a-f]{12}z")

# Paths under which objects are keyed by data: counted, never described (key sets not compared).
MAP_SUFFIXES = (".trackedFileBackups", "].input", ".headers", ".arguments", ".changes",
                ".properties", ".structuredContent", ".env")
# (class, path, shape) triples of the real samples the generators cannot produce, with why.
CALIBRATION_ALLOW: dict[tuple[str, str, str], str] = {}

SEG = r"[^/]+"
CLAUDE_SURFACES = (
    ("parent", rf"^{SEG}/{SEG}\.jsonl$"),
    ("subagent", rf"^{SEG}/{SEG}/subagents/agent-{SEG}\.jsonl$"),
    ("subagent_meta", rf"^{SEG}/{SEG}/subagents/agent-{SEG}\.meta\.json$"),
    ("workflow_agent", rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/agent-{SEG}\.jsonl$"),
    ("workflow_meta", rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/agent-{SEG}\.meta\.json$"),
    ("journal", rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/journal\.jsonl$"),
    ("tool_result_txt", rf"^{SEG}/{SEG}/tool-results/{SEG}\.txt$"),
)
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ROLLOUT = re.compile(
    rf"^(\d{{4}})/(\d{{2}})/(\d{{2}})/rollout-(\d{{4}})-(\d{{2}})-(\d{{2}})T\d{{2}}-\d{{2}}-\d{{2}}-({UUID})\.jsonl$")


# -- independent readers ----------------------------------------------------------------------
def files_of(root: Path) -> list[tuple[str, Path]]:
    return sorted((p.relative_to(root).as_posix(), p) for p in root.rglob("*") if p.is_file())


def claude_surface(rel: str) -> str:
    for name, pat in CLAUDE_SURFACES:
        if re.match(pat, rel):
            return name
    return "other"


def codex_surface(rel: str) -> str:
    return "rollout" if ROLLOUT.match(rel) else "other"


def frames(data: bytes) -> Iterator[tuple[str, Any]]:
    """LF-only framing: ``(status, obj)`` per line (ok, blank, malformed, partial)."""
    pieces = data.split(b"\n")
    last = pieces.pop()  # b"" when the file ends with LF
    for raw in pieces:
        yield status_of(raw, terminated=True)
    if last:
        yield status_of(last, terminated=False)


def status_of(raw: bytes, *, terminated: bool) -> tuple[str, Any]:
    if not raw.strip():
        return "blank", None
    try:
        obj = json.loads(raw)
    except ValueError:
        return ("malformed" if terminated else "partial"), None
    return ("ok", obj) if isinstance(obj, dict) else ("malformed", None)


def records(path: Path) -> list[dict[str, Any]]:
    return [o for st, o in frames(path.read_bytes()) if st == "ok"]


def claude_class(o: dict[str, Any]) -> str:
    return f"{o['type']}/{o['subtype']}" if "subtype" in o else str(o.get("type"))


def codex_class(o: dict[str, Any]) -> str:
    p = o.get("payload")
    pt = p.get("type") if isinstance(p, dict) else None
    return f"{o.get('type')}/{pt}" if isinstance(pt, str) else str(o.get("type"))


CLASS_OF = {"claude": claude_class, "codex": codex_class}


def jtype(v: Any) -> str:
    for t, name in ((dict, "object"), (list, "array"), (str, "string"), (bool, "boolean")):
        if isinstance(v, t):
            return name
    return "null" if v is None else "number"


def shapes(obj: Any, cls: str, out: set[tuple[str, str, str]], path: str = "$") -> None:
    """(class, path, shape) for every node; list items of a typed object get ``[type]``."""
    if isinstance(obj, dict):
        if path != "$" and path.endswith(MAP_SUFFIXES):
            out.add((cls, path, "<map>"))
            return
        out.add((cls, path, "{" + ",".join(sorted(obj)) + "}"))
        for k, v in obj.items():
            shapes(v, cls, out, f"{path}.{k}")
    elif isinstance(obj, list):
        out.add((cls, path, "<array>"))
        for v in obj:
            if isinstance(v, dict) and isinstance(v.get("type"), str):
                shapes(v, cls, out, f"{path}[{v['type']}]")
            else:
                shapes(v, cls, out, f"{path}[]")
    else:
        out.add((cls, path, f"<{jtype(obj)}>"))


def corpus_shapes(root: Path, runtime: str) -> tuple[set[tuple[str, str]], set[tuple[str, str, str]]]:
    tops: set[tuple[str, str]] = set()
    deep: set[tuple[str, str, str]] = set()
    for _rel, p in files_of(root):
        if p.suffix != ".jsonl":
            continue
        for o in records(p):
            cls = CLASS_OF[runtime](o)
            tops.add((cls, ",".join(sorted(o))))
            shapes(o, cls, deep)
    return tops, deep


def recount_common(root: Path, runtime: str) -> dict[str, Any]:
    surface_of = claude_surface if runtime == "claude" else codex_surface
    files: Counter[str] = Counter()
    recs: Counter[str] = Counter()
    keysets: defaultdict[str, Counter[str]] = defaultdict(Counter)
    lines: Counter[str] = Counter()
    months: Counter[str] = Counter()
    nbytes = 0
    for rel, p in files_of(root):
        files[surface_of(rel)] += 1
        data = p.read_bytes()
        nbytes += len(data)
        months[_month(p.stat().st_mtime)] += 1
        if p.suffix == ".jsonl":
            for st, o in frames(data):
                lines[st] += 1
                if st == "ok":
                    cls = CLASS_OF[runtime](o)
                    recs[cls] += 1
                    keysets[cls][",".join(sorted(o))] += 1
    return {"files": files, "records": recs, "keysets": keysets, "lines": lines,
            "mtime_months": months, "bytes_total": nbytes}


def _month(ts: float) -> str:
    import time
    return time.strftime("%Y-%m", time.gmtime(ts))


def nonzero(d: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in d.items() if v}


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    out = {}
    for rt, mod in GEN.items():
        root = tmp_path_factory.mktemp(f"{rt}-default") / "root"
        out[rt] = (root, mod.generate(root))
    return out


@pytest.fixture(scope="module")
def canary_corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    out = {}
    for rt, mod in GEN.items():
        root = tmp_path_factory.mktemp(f"{rt}-canary") / "root"
        out[rt] = (root, mod.generate(root, seed=11, sessions=12, canaries=True))
    return out


# -- contract ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rt", sorted(GEN))
def test_module_contract(rt: str) -> None:
    mod = GEN[rt]
    src = Path(mod.__file__ or "").read_text()
    tree = ast.parse(src)
    assert ast.get_docstring(tree) and len(ast.get_docstring(tree) or "") > 500
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for n in names:
            assert not n.startswith(("survey.census", "survey.corpus", "survey.evidence")), n
            assert "census" not in n and "evidence" not in n, n


@pytest.mark.parametrize("rt", sorted(GEN))
def test_deterministic_and_contained(rt: str, tmp_path: Path) -> None:
    mod = GEN[rt]
    roots = [tmp_path / "a" / "root", tmp_path / "b" / "root", tmp_path / "c" / "root"]
    p1 = mod.generate(roots[0], seed=3, sessions=9)
    p2 = mod.generate(roots[1], seed=3, sessions=9)
    p3 = mod.generate(roots[2], seed=4, sessions=9)
    assert p1 == p2 != p3
    assert json.loads(json.dumps(p1)) == p1  # JSON-serialisable, keys already strings
    f1, f2 = files_of(roots[0]), files_of(roots[1])
    assert [r for r, _ in f1] == [r for r, _ in f2]
    for (_r, a), (_s, b) in zip(f1, f2, strict=True):
        assert a.read_bytes() == b.read_bytes()
        assert a.stat().st_mtime == b.stat().st_mtime
    assert [r for r, _ in files_of(roots[2])] != [r for r, _ in f1]
    for r in roots:  # nothing written beside the root
        assert [x.name for x in r.parent.iterdir()] == ["root"]


# -- layout -----------------------------------------------------------------------------------------
def test_claude_layout(corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, _planted = corpora["claude"]
    rels = [r for r, _ in files_of(root)]
    for rel in rels:
        s = claude_surface(rel)
        if s == "parent":
            assert re.match(rf"^-[A-Za-z0-9-]+/{UUID}\.jsonl$", rel), rel
        elif s in ("subagent", "workflow_agent"):
            assert (root / rel.replace(".jsonl", ".meta.json")).is_file(), rel
        elif s == "other":
            assert re.match(rf"^{SEG}/memory/{SEG}\.md$|^{SEG}/{UUID}/images/{SEG}\.png$", rel), rel
        if s != "parent":
            enc, sid = rel.split("/")[:2]
            if s != "other" or "/images/" in rel:
                assert (root / enc / f"{sid}.jsonl").is_file(), rel
    assert any((root / r).read_bytes().startswith(b"\x89PNG") for r in rels if r.endswith(".png"))


def test_codex_layout(corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, planted = corpora["codex"]
    for rel, p in files_of(root):
        m = ROLLOUT.match(rel)
        assert m, rel
        assert m.group(1, 2, 3) == m.group(4, 5, 6), rel  # folder date = filename date
        first = records(p)[0]
        assert first["type"] == "session_meta"
    assert planted["filename_uuid_matches"] == planted["files_with_meta"] == planted["files"]["rollout"]


# -- recount ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rt", sorted(GEN))
def test_recount_common(rt: str, corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, planted = corpora[rt]
    got = recount_common(root, rt)
    assert nonzero(planted["files"]) == dict(got["files"])
    assert set(planted["files"]) == set(claude_code.SURFACES if rt == "claude" else codex.SURFACES)
    assert planted["records"] == dict(got["records"])
    assert planted["keysets"] == {c: dict(k) for c, k in got["keysets"].items()}
    assert nonzero(planted["lines"]) == dict(got["lines"])
    assert planted["lines"]["blank"] >= 1 and planted["lines"]["malformed"] >= 1
    assert planted["lines"]["partial"] >= 1
    assert planted["bytes_total"] == got["bytes_total"]
    assert planted["mtime_months"] == dict(got["mtime_months"])
    assert len(planted["mtime_months"]) >= 5  # spread over months
    assert len(planted["versions"]) >= 6
    assert planted["canaries"] == []


def test_recount_claude(corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, planted = corpora["claude"]
    versions: Counter[str] = Counter()
    dups, dangling = [], []
    pairs: Counter[str] = Counter()
    is_error: Counter[str] = Counter()
    tur: Counter[str] = Counter()
    thinking: Counter[str] = Counter()
    side: dict[str, Counter[str]] = defaultdict(Counter)
    naive = 0
    last: dict[tuple[str, str], int] = {}
    persisted: Counter[str] = Counter()
    parent_tool_ids: dict[str, set[str]] = {}
    msg_ids: Counter[tuple[str, str]] = Counter()
    agent_id_parents: set[str] = set()
    for rel, p in files_of(root):
        surface = claude_surface(rel)
        if surface not in ("parent", "subagent", "workflow_agent"):
            continue
        recs = records(p)
        assert len({o["sessionId"] for o in recs if "sessionId" in o}) == 1, rel
        versions.update({o["version"] for o in recs if "version" in o})
        seen: set[str] = set()
        uses: set[str] = set()
        results: list[str] = []
        for o in recs:
            if "isSidechain" in o:
                side[surface][str(o["isSidechain"]).lower()] += 1
            if surface == "parent" and "agentId" in o:  # the planted violation: a parent record carrying one
                agent_id_parents.add(rel)
            else:
                assert ("agentId" in o) == (surface != "parent") or "isSidechain" not in o, rel
            u = o.get("uuid")
            if u in seen:
                dups.append({"file": rel, "uuid": u})
            if u:
                seen.add(u)
            m: Any = o.get("message")
            if o["type"] == "assistant":
                for b in m["content"]:
                    if b["type"] == "tool_use" and "id" in b:
                        assert b["id"].startswith("toolu_")
                        uses.add(b["id"])
                    if b["type"] == "thinking":
                        thinking["with_text" if b["thinking"] else "signature_only"] += 1
                if "id" in m:
                    naive += m["usage"]["output_tokens"]
                    last[(o["sessionId"], m["id"])] = m["usage"]["output_tokens"]
                    msg_ids[(o["sessionId"], m["id"])] += 1
            elif o["type"] == "user":
                if isinstance(m["content"], list):
                    for b in m["content"]:
                        if b.get("type") == "tool_result":
                            results.append(b["tool_use_id"])
                            is_error[str(b["is_error"]).lower() if "is_error" in b else "absent"] += 1
                            c = b["content"]
                            if isinstance(c, str) and "<persisted-output>" in c:
                                target = o["toolUseResult"]["persistedOutputPath"].split("/projects/", 1)[1]
                                persisted["present" if (root / target).is_file() else "missing"] += 1
                if "toolUseResult" in o:
                    tur[jtype(o["toolUseResult"])] += 1
        dangling += [{"file": rel, "uuid": o["parentUuid"]} for o in recs
                     if isinstance(o.get("parentUuid"), str) and o["parentUuid"] not in seen]
        pairs["paired"] += sum(1 for r in results if r in uses)
        pairs["orphan_results"] += sum(1 for r in results if r not in uses)
        pairs["unpaired_calls"] += len(uses - set(results))
        if surface == "parent":
            parent_tool_ids[rel[: -len(".jsonl")]] = uses
    joined = total = 0
    for rel, p in files_of(root):
        if claude_surface(rel) == "subagent_meta":
            total += 1
            enc, sid = rel.split("/")[:2]
            joined += json.loads(p.read_bytes()).get("toolUseId") in parent_tool_ids[f"{enc}/{sid}"]
    assert planted["versions"] == {v: n for v, n in planted["versions"].items() if v in versions}
    assert set(planted["versions"]) == set(versions)
    assert planted["duplicate_uuids"] == dups and len(dups) == 1
    assert planted["dangling_parents"] == dangling and len(dangling) == 1
    assert dups[0]["file"] == dangling[0]["file"]
    assert planted["tool_pairs"] == dict(pairs)
    assert pairs["orphan_results"] == 1 and 1 <= pairs["unpaired_calls"] <= 12
    assert planted["is_error"] == dict(is_error) and all(is_error.values())
    assert planted["tool_use_result_types"] == dict(tur) and set(tur) == {"object", "string", "array"}
    assert planted["thinking"] == dict(thinking)
    assert thinking["signature_only"] > thinking["with_text"] > 0
    assert planted["usage"] == {"naive_output_tokens": naive, "dedup_output_tokens": sum(last.values())}
    assert max(msg_ids.values()) > 1  # one record per block: message ids repeat
    assert planted["sidechain_by_surface"] == {
        s: {"true": side[s]["true"], "false": side[s]["false"]} for s in ("parent", "subagent", "workflow_agent")}
    assert side["parent"]["true"] == 0 and side["subagent"]["false"] == 0
    assert planted["persisted"] == dict(persisted) and persisted["present"] and persisted["missing"]
    assert (planted["meta_tooluse_joined"], planted["meta_total"]) == (joined, total)
    assert 0 < joined < total
    assert planted["agent_id_by_surface"]["parent"]["top_level"] == len(agent_id_parents) == 2


def test_recount_codex(corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, planted = corpora["codex"]
    versions: Counter[str] = Counter()
    per_file: Counter[str] = Counter()
    joins: Counter[str] = Counter()
    exit_codes: Counter[str] = Counter()
    caps: Counter[str] = Counter()
    children = matches = resets = 0
    for rel, p in files_of(root):
        recs = records(p)
        metas = [o["payload"] for o in recs if o["type"] == "session_meta"]
        per_file[str(len(metas))] += 1
        versions[metas[0]["cli_version"]] += 1
        matches += metas[0]["id"] == ROLLOUT.match(rel).group(7)  # type: ignore[union-attr]
        calls: set[str] = set()
        outs: list[str] = []
        capped = False
        prev_total, compacted_since = -1, False
        for o in recs:
            pl, cls = o["payload"], codex_class(o)
            if cls in ("response_item/function_call", "response_item/custom_tool_call",
                       "response_item/tool_search_call"):
                calls.add(pl["call_id"])
            if cls in ("response_item/function_call_output", "response_item/custom_tool_call_output",
                       "response_item/tool_search_output"):
                outs.append(pl["call_id"])
                out = pl.get("output")
                if isinstance(out, str):
                    capped |= len(out.encode("utf-8")) == codex.CAP
                    if re.search(r"^Process exited with code \d+$", out[:300], re.M) or out.startswith("Exit code:"):
                        exit_codes["response_item/function_call_output(text)"] += 1
            if cls == "response_item/custom_tool_call":
                assert pl["status"] == "completed"
            if cls == "event_msg/exec_command_end" and "exit_code" in pl:
                exit_codes[cls] += 1
            if cls == "event_msg/item_completed" and "exit_code" in pl["item"]:
                exit_codes[cls] += 1
            if o["type"] == "compacted":
                compacted_since = True
            if cls == "event_msg/token_count" and pl["info"]:
                total = pl["info"]["total_token_usage"]["total_tokens"]
                if total < prev_total:
                    assert compacted_since, rel  # the counter only drops at compaction
                    resets += 1
                prev_total, compacted_since = total, False
        joins["paired"] += sum(1 for c in outs if c in calls)
        joins["unpaired_outputs"] += sum(1 for c in outs if c not in calls)
        joins["unpaired_calls"] += len(calls - set(outs))
        caps[str(codex.CAP)] += capped
        if "subagent_history_start_ordinal" in metas[0]:
            children += 1
            start = metas[0]["subagent_history_start_ordinal"]
            assert metas[1]["id"] != metas[0]["id"] == ROLLOUT.match(rel).group(7)  # type: ignore[union-attr]
            assert metas[0]["session_id"] == metas[1]["id"]
            body = [o for o in recs if o["type"] != "session_meta"]
            assert [o["ordinal"] for o in body] == list(range(len(body)))
            mine = {o["payload"].get("turn_id") for o in body if o["ordinal"] >= start} - {None}
            inherited = {o["payload"].get("turn_id") for o in body if o["ordinal"] < start} - {None}
            assert mine and inherited and not (mine & inherited)
    assert planted["versions"] == dict(versions)
    assert planted["session_meta_per_file"] == dict(per_file) and len(per_file) >= 2
    assert planted["filename_uuid_matches"] == matches
    assert planted["subagent_files"] == children > 0
    assert planted["call_joins"] == dict(joins)
    assert 0 < joins["unpaired_calls"] <= 25 and 0 < joins["unpaired_outputs"] <= 5
    assert planted["exit_codes"] == dict(exit_codes) and len(exit_codes) == 3
    assert planted["caps"] == dict(caps) and caps[str(codex.CAP)] >= 3
    assert planted["token_resets"] == resets > 0


# -- canaries ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rt", sorted(GEN))
def test_canaries(rt: str, canary_corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, planted = canary_corpora[rt]
    listed = planted["canaries"]
    assert len(listed) == len(set(listed)) > 100
    assert all(CANARY.fullmatch(t.encode()) for t in listed)
    found: set[bytes] = set()
    for rel, p in files_of(root):
        data = p.read_bytes()
        hits = set(CANARY.findall(data)) | set(CANARY.findall(rel.encode()))
        assert CANARY.search(data), f"{rel}: no canary in the body"
        found |= hits
    assert found == {t.encode() for t in listed}


def _has(s: Any) -> bool:
    return isinstance(s, str) and CANARY.search(s.encode()) is not None


def _strings(v: Any) -> Iterator[str]:
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _strings(x)


def test_canaries_claude_fields(canary_corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, _ = canary_corpora["claude"]
    encs = {rel.split("/")[0] for rel, _ in files_of(root)}
    assert all(_has(e) for e in encs)
    checked: Counter[str] = Counter()
    for rel, p in files_of(root):
        if not rel.endswith(".jsonl") or claude_surface(rel) == "journal":
            continue
        for o in records(p):
            m = o.get("message")
            if isinstance(m, dict):
                content = m["content"]
                if isinstance(content, str) and not content.startswith("[Request interrupted"):
                    assert _has(content), rel
                    checked["string content"] += 1
                for b in content if isinstance(content, list) else ():
                    if b["type"] == "text" or (b["type"] == "thinking" and b["thinking"]):
                        assert _has(b.get("text") or b.get("thinking")), rel
                        checked[b["type"]] += 1
                    elif b["type"] == "tool_use":
                        assert all(_has(s) for s in _strings(b["input"])), b["input"]
                        if b["name"].startswith("mcp__"):
                            assert all(_has(k) for k in b["input"]), b["input"]
                        checked["tool input"] += 1
                    elif b["type"] == "tool_result":
                        assert all(_has(s) for s in _strings(b["content"]) if s not in ("text",))
                        checked["tool result"] += 1
            if o["type"] == "file-history-snapshot":
                keys = list(o["snapshot"]["trackedFileBackups"])
                assert all(_has(k) for k in keys)
                checked["backup key"] += len(keys)
            if o.get("subtype") == "api_error":
                assert all(_has(k) for k in o["error"]["headers"])
                checked["header key"] += 1
            if o["type"] in ("summary", "queue-operation", "last-prompt") and (
                    o.get("summary") or o.get("content") or o.get("lastPrompt")):
                assert _has(o.get("summary") or o.get("content") or o.get("lastPrompt"))
                checked[o["type"]] += 1
    assert all(checked[k] for k in ("string content", "text", "thinking", "tool input", "tool result",
                                    "backup key", "header key", "summary", "queue-operation"))


def test_canaries_codex_fields(canary_corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    root, _ = canary_corpora["codex"]
    checked: Counter[str] = Counter()
    for _rel, p in files_of(root):
        for o in records(p):
            pl, cls = o["payload"], codex_class(o)
            if cls == "response_item/message":
                assert all(_has(c["text"]) for c in pl["content"])
                checked["message"] += 1
            elif cls in ("event_msg/user_message", "event_msg/agent_message"):
                assert _has(pl["message"])
                checked[cls] += 1
            elif cls == "response_item/function_call":
                args = json.loads(pl["arguments"])
                assert all(_has(s) for s in _strings(args)), args
                if "namespace" in pl:
                    assert all(_has(k) for k in args)
                checked["arguments"] += 1
            elif cls in ("response_item/function_call_output", "response_item/custom_tool_call_output"):
                assert _has(pl["output"])
                checked["output"] += 1
            elif cls == "response_item/custom_tool_call":
                assert _has(pl["input"])
            elif cls == "event_msg/patch_apply_end":
                assert pl["changes"] and all(_has(k) for k in pl["changes"])
                checked["changes"] += 1
            elif cls == "event_msg/mcp_tool_call_end":
                assert all(_has(k) for k in pl["invocation"]["arguments"])
                checked["mcp arguments"] += 1
            elif o["type"] == "session_meta":
                assert _has(pl["base_instructions"]["text"]) and _has(pl["cwd"])
            elif o["type"] == "turn_context":
                assert _has(pl["cwd"]) and _has(pl["collaboration_mode"]["settings"]["developer_instructions"])
    assert len(checked) == 7


# -- calibration against the real samples ----------------------------------------------------------------
def _real(rt: str) -> Path:
    path = REAL[rt]
    if not path.is_dir():
        pytest.skip(f"real samples not available: {path} is absent (set SURVEY_CORPORA)")
    return path


@pytest.mark.parametrize("rt", sorted(GEN))
def test_calibration_top_level(rt: str, corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    real_tops, _ = corpus_shapes(_real(rt), rt)
    gen_tops, _ = corpus_shapes(corpora[rt][0], rt)
    missing = sorted(real_tops - gen_tops)
    assert not missing, missing
    assert {c for c, _ in real_tops} <= set(corpora[rt][1]["records"])


def test_calibration_claude_blocks(corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    def blocks(root: Path) -> set[tuple[str, str, str]]:
        out = set()
        for _rel, p in files_of(root):
            if p.suffix == ".jsonl":
                for o in records(p):
                    c = o.get("message", {}).get("content") if isinstance(o.get("message"), dict) else None
                    for b in c if isinstance(c, list) else ():
                        out.add((claude_class(o), b.get("type"), ",".join(sorted(b))))
        return out
    missing = sorted(blocks(_real("claude")) - blocks(corpora["claude"][0]))
    assert not missing, missing


@pytest.mark.parametrize("rt", sorted(GEN))
def test_calibration_nested(rt: str, corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    _, real_deep = corpus_shapes(_real(rt), rt)
    _, gen_deep = corpus_shapes(corpora[rt][0], rt)
    missing = sorted(t for t in real_deep - gen_deep if t not in CALIBRATION_ALLOW)
    assert not missing, missing[:40]


@pytest.mark.parametrize("rt", sorted(GEN))
def test_calibration_handmade_classes(rt: str, corpora: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    path = HANDMADE[rt]
    if not path.is_dir():
        pytest.skip(f"curated fixtures not available: {path} is absent")
    tops, _ = corpus_shapes(path, rt)
    missing = sorted({c for c, _ in tops} - set(corpora[rt][1]["records"]))
    assert not missing, missing


# -- scale --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rt", sorted(GEN))
def test_target_bytes(rt: str, tmp_path: Path) -> None:
    target = 6_000_000
    planted = GEN[rt].generate(tmp_path / "root", seed=5, target_bytes=target)
    got = recount_common(tmp_path / "root", rt)
    assert target <= planted["bytes_total"] == got["bytes_total"] < target * 2
    assert planted["records"] == dict(got["records"])
