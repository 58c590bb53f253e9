"""The figures of the real-sample pages (``make samples``), each recomputed in plain Python.

One data-driven test per real root: a plain pass over the files (``json``, ``re``, ``os``,
nothing of the survey's) yields the value each listed claim must hold, and the claim read
from the snapshot must equal it, whole. A figure already recomputed by another test
(``test_real_cursor``, ``test_claude_codex_figures``, ``test_cursor_store_pages``) is not
repeated here. The samples are read in place (``SURVEY_CORPORA``, else ``../shared/corpora``);
a root that is absent skips with the reason.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from survey.runtimes.base import HERE as RUNTIMES
from tests.conftest import corpora
from tests.drift import survey_once


def _lines(f: Path) -> list[bytes]:
    """A file's lines as the walk splits them: on LF, the empty piece after a final LF dropped."""
    data = f.read_bytes()
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()
    return parts


def _objects(root: Path, glob: str) -> Iterator[tuple[Path, dict[str, Any]]]:
    for f in sorted(root.rglob(glob)):
        if not f.is_file():
            continue
        for line in _lines(f):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                yield f, rec


def line_statuses(root: Path, glob: str = "*.jsonl") -> dict[str, int]:
    """Each line of every matching file by what it is: an object, blank, not JSON, JSON that is
    not an object, not UTF-8, or a last line cut short (no LF, not JSON)."""
    out: Counter[str] = Counter()
    for f in sorted(root.rglob(glob)):
        if not f.is_file():
            continue
        data = f.read_bytes()
        parts = _lines(f)
        for i, line in enumerate(parts):
            if not line.strip():
                out["blank"] += 1
                continue
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                out["invalid_utf8"] += 1
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                out["partial" if i == len(parts) - 1 and not data.endswith(b"\n") else "malformed"] += 1
                continue
            out["ok" if isinstance(rec, dict) else "not_object"] += 1
    return {f"basis_frames.{k}": out.get(k, 0) for k in ("ok", "blank", "malformed", "not_object", "invalid_utf8",
                                                         "partial")}


def _blocks(rec: dict[str, Any]) -> list[dict[str, Any]]:
    m = rec.get("message")
    c = m.get("content") if isinstance(m, dict) else None
    return [b for b in c if isinstance(b, dict)] if isinstance(c, list) else []


def _leaves(v: Any) -> int:
    """The figures a value holds (numbers, not flags)."""
    if isinstance(v, bool) or v is None:
        return 0
    if isinstance(v, (int, float)):
        return 1
    if isinstance(v, dict):
        return sum(_leaves(x) for x in v.values())
    if isinstance(v, list):
        return sum(_leaves(x) for x in v)
    return 0


# -- Cursor agent transcripts ----------------------------------------------------------------------
def cursor_truth(root: Path) -> dict[str, Any]:
    vocab = json.loads((RUNTIMES / "cursor" / "vocab.json").read_text())
    reviewed_tools = set(vocab["values"].get("$.message.content[type=tool_use].name", []))
    files: Counter[str] = Counter()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = f.relative_to(root).parts
        if len(rel) >= 3 and rel[1] == "agent-transcripts" and f.suffix == ".jsonl":
            kind = "subagent" if "subagents" in rel else ("transcript_nested" if len(rel) == 4 else "transcript_flat")
        elif len(rel) == 3 and rel[1] == "agent-transcripts" and f.suffix == ".txt":
            kind = "legacy_txt"
        elif len(rel) == 3 and rel[1] == "agent-tools":
            kind = "agent_tools"
        else:
            kind = "other"
        files[kind] += 1
    basis = {k: files.get(k, 0) for k in ("agent_tools", "legacy_txt", "other", "subagent", "transcript_flat",
                                          "transcript_nested")}
    basis["transcript"] = basis["transcript_flat"] + basis["transcript_nested"]
    basis["total"] = sum(files.values())

    top: Counter[str] = Counter()
    content: Counter[str] = Counter()
    block_types: Counter[str] = Counter()
    names: Counter[str] = Counter()
    input_keys: dict[str, list[int]] = {}
    calls_per_tool: Counter[str] = Counter()
    key_calls: Counter[str] = Counter()
    user_frames: dict[Path, int] = {}
    nested_equal = nested = 0
    for f, rec in _objects(root, "*.jsonl"):
        user_frames.setdefault(f, 0)
        user_frames[f] += rec.get("role") == "user"
        top[",".join(sorted(rec))] += 1
        m = rec.get("message")
        if isinstance(m, dict) and "content" in m:
            c = m["content"]
            content["array" if isinstance(c, list) else "string" if isinstance(c, str) else type(c).__name__] += 1
        for b in _blocks(rec):
            block_types[f"{b.get('type')}:{','.join(sorted(b))}"] += 1
            if b.get("type") == "tool_use" and isinstance(b.get("name"), str):
                n = b["name"] if b["name"] in reviewed_tools else "<withheld>"
                names[n] += 1
                calls_per_tool[n] += 1
                for k in b.get("input") or {} if isinstance(b.get("input"), dict) else {}:
                    key_calls[f"{n}.{k}"] += 1
    for tk, c in key_calls.items():
        input_keys[tk] = [c, calls_per_tool[tk.split(".", 1)[0]]]
    for f in sorted(root.rglob("*.jsonl")):
        rel = f.relative_to(root).parts
        if len(rel) == 4 and rel[1] == "agent-transcripts" and "subagents" not in rel:
            nested += 1
            nested_equal += rel[2] == f.stem
    transcripts = [f for f in user_frames if "subagents" not in f.relative_to(root).parts]
    legacy: Counter[str] = Counter()
    reviewed_legacy = set(vocab["values"].get("legacy:tool_call", reviewed_tools))
    for f in sorted(root.rglob("*.txt")):
        rel = f.relative_to(root).parts
        if not (len(rel) == 3 and rel[1] == "agent-transcripts"):
            continue
        for line in f.read_text(errors="replace").split("\n"):
            mt = re.match(r"\[Tool call\] (\S+)", line)
            if mt:
                legacy[mt.group(1) if mt.group(1) in reviewed_legacy else "<withheld>"] += 1
    return {
        **line_statuses(root),
        "basis_files": basis,
        "top_keysets": dict(top),
        "content_types": dict(content),
        "block_types": dict(block_types),
        "tool_names": {k: v for k, v in names.items() if k != "<withheld>"},
        "input_keys": input_keys,
        "agent_tools_count": files.get("agent_tools", 0),
        "dir_equals_file": [nested_equal, nested],
        "one_user_frame": [sum(1 for f in transcripts if user_frames[f] == 1), len(user_frames)],
        "legacy_headings": dict(legacy),
    }


# -- Cursor stream-json captures ---------------------------------------------------------------------
def stream_truth(root: Path) -> dict[str, Any]:
    files = [f for f in sorted(root.rglob("*")) if f.is_file()]
    caps = [f for f in files if f.suffix == ".jsonl"]
    status: Counter[str] = Counter()
    fam: Counter[str] = Counter()
    fam_keys: Counter[str] = Counter()
    variants: Counter[str] = Counter()
    newline = with_id = 0
    endings: Counter[str] = Counter()
    init: Counter[str] = Counter()
    for f in caps:
        last = None
        for line in _lines(f):
            if not line.strip():
                status["blank"] += 1
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                status["malformed"] += 1
                continue
            status["ok"] += 1
            name = ev["type"] + ("/" + ev["subtype"] if isinstance(ev.get("subtype"), str) else "")
            last = name
            fam[name] += 1
            fam_keys[f"{name}|{','.join(sorted(ev))}"] += 1
            tc = ev.get("tool_call")
            if name == "tool_call/started" and isinstance(tc, dict):
                for k in tc:
                    variants[k] += 1
            if isinstance(ev.get("call_id"), str):
                with_id += 1
                newline += "\n" in ev["call_id"]
            for k in ("model", "apiKeySource", "permissionMode", "is_error"):
                if k in ev:
                    v = ev[k]
                    init[f"$.{k}:{str(v).lower() if isinstance(v, bool) else v}"] += 1
        endings[last or "<no JSON event>"] += 1
    return {
        "basis_files": {"total": len(files), "capture": len(caps), "other": len(files) - len(caps)},
        "basis_lines": dict(status),
        "families": dict(fam),
        "family_keysets": dict(fam_keys),
        "tool_call_variants": dict(variants),
        "call_id_newlines": [newline, with_id],
        "capture_endings": dict(endings),
        "init_values": dict(init),
    }


# -- Claude Code transcripts -------------------------------------------------------------------------
def claude_truth(root: Path) -> dict[str, Any]:
    vocab = json.loads((RUNTIMES / "claude_code" / "vocab.json").read_text())
    reviewed = set(vocab["values"]["$.message.content[type=tool_use].name"])
    recs = list(_objects(root, "*.jsonl"))
    per_class: dict[str, Counter[str]] = defaultdict(Counter)
    versions: Counter[str] = Counter()
    model: dict[str, list[int]] = {}
    blocks: Counter[str] = Counter()
    tur: Counter[str] = Counter()
    flag: Counter[str] = Counter()
    names: Counter[str] = Counter()
    side: dict[str, Counter[str]] = defaultdict(Counter)
    thinking: Counter[str] = Counter()
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    with_tur = 0
    for _f, r in recs:
        cls = r.get("type") if r.get("type") != "system" or not isinstance(r.get("subtype"), str) \
            else f"system/{r['subtype']}"
        per_class[str(cls)]["records"] += 1
        per_class[str(cls)]["with"] += "timestamp" in r
        if isinstance(r.get("version"), str):
            versions[r["version"]] += 1
        m = r.get("message")
        if isinstance(m, dict) and "model" in m:
            model.setdefault(str(cls), [0, 0])
        if "toolUseResult" in r:
            with_tur += 1
            v = r["toolUseResult"]
            tur["object" if isinstance(v, dict) else "array" if isinstance(v, list) else
                "string" if isinstance(v, str) else type(v).__name__] += 1
        side["parent"]["(absent)" if "isSidechain" not in r else str(r["isSidechain"]).lower()] += 1
        for b in _blocks(r):
            blocks[f"{b.get('type')}:{','.join(sorted(b))}"] += 1
            if b.get("type") == "tool_use":
                calls.append(b)
                n = b.get("name")
                names[n if n in reviewed else "<withheld>"] += 1
            elif b.get("type") == "tool_result":
                results.append(b)
                flag["absent" if "is_error" not in b else str(b["is_error"]).lower()] += 1
            elif b.get("type") == "thinking":
                thinking["with_text" if b.get("thinking") else "signature_only" if b.get("signature") else "blank"] += 1
    for _f, r in recs:
        m = r.get("message")
        cls = r.get("type")
        if str(cls) in model:
            model[str(cls)][1] += 1
            model[str(cls)][0] += isinstance(m, dict) and "model" in m
    call_ids = {b["id"] for b in calls if "id" in b}
    result_ids = {b["tool_use_id"] for b in results if "tool_use_id" in b}
    n = len(recs)
    return {
        "record_totals": {"jsonl": n, "meta_docs": 0, "ok": n, "read": n, "transcripts": n},
        "client_version": {"versions": dict(versions), "records_with_version": sum(versions.values()),
                           "files_mixing": 0},
        "timestamps": {"with": sum(c["with"] for c in per_class.values()), "records": n,
                       "without": sorted(k for k, c in per_class.items() if not c["with"]),
                       "partial": sorted(k for k, c in per_class.items() if 0 < c["with"] < c["records"])},
        "model": model,
        "block_types": dict(blocks),
        "tool_use_result_types": dict(tur),
        "results_recorded": {"blocks": len(results), "tool_use_result": with_tur},
        "failure_flag": dict(flag),
        "sidechain": {k: dict(v) for k, v in side.items()},
        "thinking": {"signature_only": thinking["signature_only"], "with_text": thinking["with_text"]},
        "native_call_id": {"calls": len(calls), "calls_with_id": sum(1 for b in calls if "id" in b), "results": len(results),
                           "results_with_id": sum(1 for b in results if "tool_use_id" in b),
                           "paired": sum(1 for b in results if b.get("tool_use_id") in call_ids),
                           "unpaired_calls": len(call_ids - result_ids),
                           "orphan_results": sum(1 for b in results if "tool_use_id" in b and b["tool_use_id"] not in call_ids)},
        "tool_names.names": dict(names),
        "model_call_id": sum(1 for b in calls if "id" in b),
        "model_result": {"blocks": len(results), "tool_use_result": with_tur},
        **line_statuses(root),
        **claude_usage(recs),
        "skill_evidence.skill_calls": sum(1 for b in calls if b.get("name") == "Skill"),
        "skill_evidence.files_with_skill_calls": len({f for f, r in recs
                                                      if any(b.get("type") == "tool_use" and b.get("name") == "Skill"
                                                             for b in _blocks(r))}),
        "skill_evidence.injected_records": sum(1 for _f, r in recs if "sourceToolUseID" in r),
        **uuid_dag(recs),
    }


def uuid_dag(recs: list[tuple[Path, dict[str, Any]]]) -> dict[str, int]:
    """Records with a uuid, records naming a parent, parents named that no record carries, and
    uuids carried more than once (each repeat counted)."""
    uuids = [r["uuid"] for _f, r in recs if isinstance(r.get("uuid"), str)]
    refs = [r["parentUuid"] for _f, r in recs if isinstance(r.get("parentUuid"), str)]
    known = set(uuids)
    return {"uuid_dag.uuids": len(uuids), "uuid_dag.parent_refs": len(refs),
            "uuid_dag.dangling_parents": sum(1 for x in refs if x not in known),
            "uuid_dag.duplicate_uuids": sum(c - 1 for c in Counter(uuids).values() if c > 1)}


def claude_usage(recs: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """output_tokens summed over every record, and once per (sessionId, message.id) with the
    largest value a message's records carry (usage grows while a message streams)."""
    per: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for _f, r in recs:
        m = r.get("message")
        u = m.get("usage") if isinstance(m, dict) else None
        if isinstance(u, dict) and isinstance(u.get("output_tokens"), int) and "id" in m:
            per[(r.get("sessionId"), m["id"])].append(u["output_tokens"])
    naive = sum(sum(v) for v in per.values())
    dedup = sum(max(v) for v in per.values())
    return {"usage": {"records": sum(len(v) for v in per.values()),
                      "messages_repeated": sum(1 for v in per.values() if len(v) > 1),
                      "naive_output_tokens": naive, "dedup_output_tokens": dedup,
                      "factor": round(naive / dedup, 3) if dedup else None},
            "message_spans_records": sum(1 for v in per.values() if len(v) > 1)}


# -- Codex rollouts --------------------------------------------------------------------------------
CALLS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")


def codex_truth(root: Path) -> dict[str, Any]:
    recs = list(_objects(root, "*.jsonl"))

    def cls(r: dict[str, Any]) -> str:
        p = r.get("payload")
        return f"{r.get('type')}/{p['type']}" if isinstance(p, dict) and isinstance(p.get("type"), str) else str(r.get("type"))

    envelope = sum(1 for _f, r in recs if sorted(r) == ["payload", "timestamp", "type"])
    other = {",".join(sorted(r)) for _f, r in recs if sorted(r) != ["payload", "timestamp", "type"]}
    first: dict[Path, str] = {}
    model: dict[str, list[int]] = {}
    ts: dict[str, list[int]] = {}
    for f, r in recs:
        p = r.get("payload") if isinstance(r.get("payload"), dict) else {}
        if r.get("type") == "session_meta" and f not in first and isinstance(p.get("cli_version"), str):
            first[f] = p["cli_version"]
        c = cls(r)
        t = ts.setdefault(c, [0, 0])
        t[0] += "timestamp" in r
        t[1] += 1
        if "model" in p:
            model.setdefault(c, [0, 0])
    for _f, r in recs:
        c = cls(r)
        if c in model:
            model[c][1] += 1
            model[c][0] += "model" in (r.get("payload") or {})
    calls: dict[Path, set[str]] = defaultdict(set)
    outs: list[tuple[Path, dict[str, Any]]] = []
    n_calls = 0
    for f, r in recs:
        p = r.get("payload")
        if r.get("type") != "response_item" or not isinstance(p, dict):
            continue
        if p.get("type") in CALLS:
            n_calls += 1
            if isinstance(p.get("call_id"), str):
                calls[f].add(p["call_id"])
        elif isinstance(p.get("type"), str) and p["type"].endswith("_output"):
            outs.append((f, p))
    answered: dict[Path, set[str]] = defaultdict(set)
    for f, p in outs:
        if p.get("call_id") in calls[f]:
            answered[f].add(p["call_id"])
    events: dict[str, list[int]] = {}
    for f, r in recs:
        p = r.get("payload")
        if r.get("type") == "event_msg" and isinstance(p, dict) and isinstance(p.get("call_id"), str):
            e = events.setdefault(cls(r), [0, 0])
            e[0] += p["call_id"] in calls[f]
            e[1] += 1
    # an exit code stated as text inside an output (the two phrasings a rollout's outputs use)
    exit_text = sum(1 for _f, r in recs if isinstance(r.get("payload"), dict)
                    and isinstance(r["payload"].get("output"), str)
                    and ("Process exited with code " in r["payload"]["output"] or "Exit code: " in r["payload"]["output"]))
    return {
        "envelope": {"envelope": envelope, "records": len(recs), "other_keysets": len(other)},
        "client_version.versions": dict(Counter(first.values())),
        "model": model,
        "timestamps": {"with": sum(t[0] for t in ts.values()), "records": len(recs),
                       "without": sorted(c for c, t in ts.items() if t[0] < t[1])},
        "native_call_id.outputs": len(outs),
        "native_call_id.outputs_with_id": sum(1 for _f, p in outs if isinstance(p.get("call_id"), str)),
        "native_call_id.paired": sum(1 for f, p in outs if p.get("call_id") in calls[f]),
        "native_call_id.unpaired_calls": sum(len(calls[f] - answered[f]) for f in calls),
        "native_call_id.unpaired_outputs": sum(1 for f, p in outs if isinstance(p.get("call_id"), str)
                                               and p["call_id"] not in calls[f]),
        "results_recorded": len(outs),
        "event_joins": events,
        "model_call_id": sum(len(v) for v in calls.values()),
        "model_result": len(outs),
        "record_totals": {"ok": len(recs), "read": len(recs)},
        "exit_codes.text": exit_text,
        "model_outcome.exit": {"text": exit_text},
        "headers.per_file": dict(Counter(str(n) for n in Counter(f for f, r in recs
                                                                 if r.get("type") == "session_meta").values())),
        **line_statuses(root),
    }


# -- Cursor desktop state.vscdb ------------------------------------------------------------------------
def desktop_truth(root: Path) -> dict[str, Any]:
    import sqlite3

    db = root / "globalStorage" / "state.vscdb"
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    item_rows = con.execute("SELECT count(*) FROM ItemTable").fetchone()[0] if "ItemTable" in tables else 0
    cells = con.execute("SELECT key, value FROM cursorDiskKV").fetchall()
    con.close()
    kinds: Counter[str] = Counter()
    versions: dict[str, Counter[str]] = defaultdict(Counter)
    cap: Counter[str] = Counter()
    thinking: Counter[str] = Counter()
    tokens = [0, 0, 0]
    names: Counter[str] = Counter()
    numbers: Counter[str] = Counter()
    models: Counter[str] = Counter()
    keysets: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for key, value in cells:
        kind = key.split(":", 1)[0]
        kinds[kind] += 1
        try:
            obj = json.loads(value)
        except (TypeError, ValueError):
            continue
        if not isinstance(obj, dict):
            continue
        if "_v" in obj:
            versions[kind][str(obj["_v"])] += 1
        keysets[kind].append(tuple(sorted(obj)))
        for outer in ("modelConfig", "modelInfo"):
            if isinstance(obj.get(outer), dict) and isinstance(obj[outer].get("modelName"), str):
                models[f"$.{outer}.modelName:{obj[outer]['modelName']}"] += 1
        if kind != "bubbleId":
            continue
        cap[str(obj["capabilityType"]) if "capabilityType" in obj else "absent"] += 1
        th = obj.get("thinking")
        if isinstance(th, dict):
            thinking["with_text" if th.get("text") else "signature_only" if th.get("signature") else "blank"] += 1
        tc = obj.get("tokenCount")
        if isinstance(tc, dict):
            tokens[0] += all(v == 0 for v in tc.values())
            tokens[1] += 1
        tokens[2] += 1
        tf = obj.get("toolFormerData")
        if isinstance(tf, dict) and isinstance(tf.get("name"), str):
            names[tf["name"]] += 1
            numbers[f"{tf.get('tool')}:{tf['name']}"] += 1
    return {
        "basis_files.total": sum(1 for p in root.rglob("*") if p.is_file()),
        "basis_files.state": 1,
        "wal_rows.rows_seen": len(cells) + item_rows,
        "key_kinds": dict(kinds),
        "versions": {k: dict(v) for k, v in versions.items()},
        "capability_types": dict(cap),
        "thinking": {"blank": thinking["blank"], "signature_only": thinking["signature_only"],
                     "with_text": thinking["with_text"]},
        "token_counts": tokens,
        "tool_names.names": dict(names),
        "tool_numbers": dict(numbers),
        "models": dict(models),
        "ordering": desktop_ordering(db),
        "kind_keysets": {k: {"records": len(v), "keysets": len(set(v)),
                             "always": len(set.intersection(*(set(x) for x in v))),
                             "sometimes": ", ".join(f"{key} {n}" for key, n in sorted(
                                 Counter(key for x in v for key in x if not all(key in y for y in v)).items(),
                                 key=lambda kv: (-kv[1], kv[0])))}
                         for k, v in keysets.items()},
    }


def desktop_ordering(db: Path) -> dict[str, int]:
    """Per composerData document: whether it lists its bubbles (fullConversationHeadersOnly) or
    only rowid orders them; where it lists them, whether the listed set differs from the
    bubbleId cells of the composer, and whether rowid order disagrees with the list."""
    import sqlite3

    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    rows = con.execute("SELECT key, value FROM cursorDiskKV ORDER BY rowid").fetchall()
    con.close()
    comps: dict[str, Any] = {}
    bubbles: dict[str, list[str]] = defaultdict(list)
    for key, value in rows:
        parts = key.split(":")
        if parts[0] == "composerData" and len(parts) == 2:
            comps[parts[1]] = json.loads(value)
        elif parts[0] == "bubbleId" and len(parts) == 3:
            bubbles[parts[1]].append(parts[2])
    out = dict.fromkeys(("composers", "ordered_by_header_list", "ordered_by_rowid", "header_set_differs",
                         "rowid_order_differs"), 0)
    out["composers"] = len(comps)
    for cid, doc in comps.items():
        listed = doc.get("fullConversationHeadersOnly") if isinstance(doc, dict) else None
        if not isinstance(listed, list):
            out["ordered_by_rowid"] += 1
            continue
        out["ordered_by_header_list"] += 1
        ids = [h.get("bubbleId") for h in listed if isinstance(h, dict)]
        have = bubbles.get(cid, [])
        out["header_set_differs"] += set(ids) != set(have)
        out["rowid_order_differs"] += [x for x in have if x in set(ids)] != [x for x in ids if x in set(have)]
    return out


REAL: dict[str, tuple[str, str, Callable[[Path], dict[str, Any]]]] = {
    "cursor": ("cursor/projects", "cursor", cursor_truth),
    "cursor_stream": ("cursor-stream-json", "cursor_stream", stream_truth),
    "claude_code": ("claude/projects", "claude_code", claude_truth),
    "codex": ("codex/sessions", "codex", codex_truth),
    "cursor_desktop": ("cursor-desktop/User", "cursor_desktop", desktop_truth),
}


def got(claims: dict[str, dict], key: str) -> Any:
    """A claim's value, or one entry of it: ``<claim>.<entry>`` names the entry of a map (the
    part a recount here states; the rest is recounted elsewhere)."""
    cid, _, entry = key.partition(".")
    return claims[cid]["value"][entry] if entry else claims[cid]["value"]


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_page_figures_equal_a_plain_recount(name: str, tmp_path: Path) -> None:
    sub, runtime, truth = REAL[name]
    root = corpora() / sub
    if not root.is_dir():
        pytest.skip(f"real sample {sub} absent under {corpora()}")
    want = truth(root)
    s = survey_once(runtime, root, tmp_path, "2026-01-01")
    wrong = {cid: (got(s.claims, cid), v) for cid, v in want.items() if got(s.claims, cid) != v}
    assert not wrong, "claims whose figures differ from the plain recount (claim, recount):\n" + "\n".join(
        f"{cid}: {a!r} != {b!r}" for cid, (a, b) in wrong.items())
    assert sum(_leaves(v) for v in want.values()) > 0


# -- skeletons: each one's files and records, recounted from its top-level keys ------------------------
def top_keys(skeleton: str) -> list[str]:
    """The keys at the top level of a skeleton's text (values elided as ``…``, ``{<map>}``; not
    JSON), read with a depth counter."""
    keys, depth, i, n = [], 0, 0, len(skeleton)
    while i < n:
        ch = skeleton[i]
        if ch == '"':
            j = i + 1
            while skeleton[j] != '"':
                j += 2 if skeleton[j] == "\\" else 1
            if depth == 1 and skeleton[j + 1:j + 2] == ":":
                keys.append(json.loads(skeleton[i:j + 1]))
            i = j + 1
            continue
        depth += (ch in "{[" and 1) or (-1 if ch in "}]" else 0)
        i += 1
    return sorted(keys)


def _cls_claude(r: dict[str, Any]) -> str:
    return f"system/{r['subtype']}" if r.get("type") == "system" and isinstance(r.get("subtype"), str) else str(r.get("type"))


def _cls_codex(r: dict[str, Any]) -> str:
    p = r.get("payload")
    return f"{r.get('type')}/{p['type']}" if isinstance(p, dict) and isinstance(p.get("type"), str) else str(r.get("type"))


def _cls_stream(r: dict[str, Any]) -> str:
    return str(r.get("type")) + ("/" + r["subtype"] if isinstance(r.get("subtype"), str) else "")


def _desktop_records(root: Path) -> Iterator[tuple[Path, str, dict[str, Any]]]:
    import sqlite3

    db = root / "globalStorage" / "state.vscdb"
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    cells = con.execute("SELECT key, value FROM cursorDiskKV").fetchall()
    con.close()
    for key, value in cells:
        try:
            obj = json.loads(value)
        except (TypeError, ValueError):
            continue
        if isinstance(obj, dict):
            yield db, key.split(":", 1)[0], obj


def _jsonl_records(cls: Callable[[dict[str, Any]], str]) -> Callable[[Path], Iterator[tuple[Path, str, dict[str, Any]]]]:
    return lambda root: ((f, cls(r), r) for f, r in _objects(root, "*.jsonl"))


SKELETONS: dict[str, tuple[str, str, Callable[[Path], Iterator[tuple[Path, str, dict[str, Any]]]]]] = {
    "cursor": ("cursor/projects", "cursor", _jsonl_records(lambda r: str(r.get("type") or r.get("role")))),
    "claude_code": ("claude/projects", "claude_code", _jsonl_records(_cls_claude)),
    "codex": ("codex/sessions", "codex", _jsonl_records(_cls_codex)),
    "cursor_stream": ("cursor-stream-json", "cursor_stream", _jsonl_records(_cls_stream)),
    "cursor_desktop": ("cursor-desktop/User", "cursor_desktop", _desktop_records),
}


@pytest.mark.parametrize("name", sorted(SKELETONS))
def test_real_skeleton_figures_equal_a_plain_recount(name: str, tmp_path: Path) -> None:
    """Each skeleton's record and file counts: the records of its class (or the blocks of its
    type inside them) whose top-level keys are the skeleton's, and the files holding one."""
    sub, runtime, recs = SKELETONS[name]
    root = corpora() / sub
    if not root.is_dir():
        pytest.skip(f"real sample {sub} absent under {corpora()}")
    s = survey_once(runtime, root, tmp_path, "2026-01-01")
    skeletons = s.claims["skeletons"]["value"]
    assert skeletons
    want: list[tuple[str, int, int]] = []
    all_recs = list(recs(root))
    for sk in skeletons:
        keys = top_keys(sk["json"])
        cls, _, where = sk["label"].partition(" · ")
        files: set[Path] = set()
        n = 0
        for f, c, r in all_recs:
            if c != cls:
                continue
            if not where:
                hit = int(sorted(r) == keys)
            else:
                path, _, btype = where.partition("[type=")
                v: Any = r
                for part in path.split("."):
                    v = v.get(part) if isinstance(v, dict) else None
                hit = sum(1 for b in v if isinstance(b, dict) and b.get("type") == btype.rstrip("]")
                          and sorted(b) == keys) if isinstance(v, list) else 0
            n += hit
            if hit:
                files.add(f)
        want.append((sk["label"], len(files), n))
    assert [(sk["label"], sk["files"], sk["records"]) for sk in skeletons] == want
