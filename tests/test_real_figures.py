"""The figures of the real-sample pages (``make samples``), each recomputed in plain Python.

One data-driven test per real root: a plain pass over the files (``json``, ``re``, ``os``,
``sqlite3`` and ``tests.real_recount``, nothing of the survey's) yields the value each listed
claim must hold, and the claim read from the snapshot must equal it, whole. Quantiles are
DuckDB's ``quantile_disc`` (the census queries' function), reproduced and checked against DuckDB.

An audit walks every figure (number) of every claim of each real page: each is recounted here,
recounted by a test named in ``ELSEWHERE``, or listed in ``NOT_RECOUNTED`` with the reason; a
claim that appears with a figure none of these account for fails the audit. A figure already
recomputed by another test (``test_real_cursor``, ``test_claude_codex_figures``,
``test_cursor_store_pages``) is not repeated here. The samples are read in place
(``SURVEY_CORPORA``, else ``../shared/corpora``); a root that is absent skips with the reason."""

from __future__ import annotations

import contextlib
import functools
import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from survey.runtimes.base import HERE as RUNTIMES
from tests import real_recount as RC
from tests.conftest import corpora
from tests.drift import Surveyed, survey_once


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
    # the plain pass sets no size or depth limit: a line the walk refuses as oversized or too deep
    # is one of the six above here, and its figure would differ
    return {f"basis_frames.{k}": out.get(k, 0) for k in ("ok", "blank", "malformed", "not_object", "invalid_utf8",
                                                         "partial", "oversized", "too_deep")}


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


def values_at_listed_paths(recs: list[dict[str, Any]]) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    """``value_formats`` lists the paths where a value has a recognised format (the formats are
    words, not figures): each listed path's value count, recounted over the records."""
    return lambda rows: [{**row, "values": RC.values_at(recs, row["path"])} for row in rows]


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
        **cursor_more(root),
    }


def _cursor_records(root: Path) -> list[tuple[Path, str, dict[str, Any]]]:
    return [(f, str(r.get("type") or r.get("role")), r) for f, r in _objects(root, "*.jsonl")]


def cursor_more(root: Path) -> dict[str, Any]:
    """The Cursor figures recounted with ``tests.real_recount``: payload quantiles, sidecar sizes,
    key sets per class, nested objects, text markers, sidecar read-backs and adjacent frames."""
    vocab = json.loads((RUNTIMES / "cursor" / "vocab.json").read_text())
    reviewed = set(vocab["values"].get("$.message.content[type=tool_use].name", []))
    recs = _cursor_records(root)
    assistant = [n for _f, _c, r in recs if r.get("role") == "assistant" for b in _blocks(r)
                 if (n := RC.block_payload(b)) is not None]
    every = [n for _f, _c, r in recs for b in _blocks(r) if (n := RC.block_payload(b)) is not None]
    sizes = [p.stat().st_size for p in sorted(root.glob("*/agent-tools/*.txt")) if p.is_file()]
    markers: dict[str, Counter[str]] = {m: Counter() for m in ("<user_query>", "<user_info>")}
    marker_files: dict[str, set[Path]] = {m: set() for m in markers}
    readback = 0
    sidecar = {"no_write_call": 0, "only_write_calls": 0, "records_naming_sidecars": 0, "sidecar_refs": 0,
               "write_beside_other_calls": 0}
    tool_inputs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f, _c, r in recs:
        for m in markers:
            hits = sum(t.count(m) for t in RC.at_path(r, "$.message.content[type=text].text") if isinstance(t, str))
            if hits:
                markers[m]["records"] += 1
                marker_files[m].add(f)
        refs = writes = calls = 0
        for b in _blocks(r):
            if b.get("type") != "tool_use":
                continue
            calls += 1
            writes += b.get("name") in ("Write", "ApplyPatch")
            inp = b.get("input")
            if isinstance(inp, dict):
                name = b["name"] if b.get("name") in reviewed else "<withheld>"
                tool_inputs[name].append(inp)
                for k in ("path", "command"):
                    if isinstance(inp.get(k), str):
                        refs += inp[k].count("/agent-tools/")
                        readback += inp[k].count("/agent-tools/") if k == "path" else 0
            elif isinstance(inp, str):
                refs += inp.count("/agent-tools/")
        if refs:
            sidecar["records_naming_sidecars"] += 1
            sidecar["sidecar_refs"] += refs
            key = "no_write_call" if not writes else "only_write_calls" if writes == calls else "write_beside_other_calls"
            sidecar[key] += 1
    pairs = Counter[str]()
    per_file: dict[Path, list[dict[str, Any]]] = defaultdict(list)
    for f, _c, r in recs:
        per_file[f].append(r)
    for rs in per_file.values():
        for prev, cur in pairwise(rs):
            if prev.get("role") == cur.get("role") == "assistant":
                sig_p = [(b.get("type"), RC.block_payload(b)) for b in _blocks(prev)]
                sig_c = [(b.get("type"), RC.block_payload(b)) for b in _blocks(cur)]
                pairs["pairs"] += 1
                pairs["duplicate" if sig_c == sig_p else "prefix_extension" if sig_c[:len(sig_p)] == sig_p
                      else "reverse_prefix" if sig_p[:len(sig_c)] == sig_c else "unrelated"] += 1
    files_of = {f: [r for g, _c, r in recs if g == f] for f in sorted({f for f, _c, _r in recs})}
    uses = [b for _f, _c, r in recs for b in _blocks(r) if b.get("type") == "tool_use"]
    ap = [b for b in uses if b.get("name") == "ApplyPatch"]
    others = [b for b in uses if b.get("name") != "ApplyPatch"]
    subagents = sum(1 for p in root.glob("*/agent-transcripts/*/subagents/*.jsonl") if p.is_file())
    tool_result_keys = sorted({k for _f, _c, r in recs for b in _blocks(r) if b.get("type") == "tool_result" for k in b})
    skill = [b["input"]["path"].count("SKILL.md") for b in uses
             if isinstance(b.get("input"), dict) and isinstance(b["input"].get("path"), str)]
    skill_files = {f for f, _c, r in recs for b in _blocks(r) if b.get("type") == "tool_use"
                   and isinstance(b.get("input"), dict) and "SKILL.md" in str(b["input"].get("path", ""))}
    return {
        "per_call_outcome": [sum(1 for rs in files_of.values() if any("is_error" in RC.keys_anywhere(r) for r in rs)),
                             tool_result_keys],
        "stratify_basis": {
            "client version": sum(1 for rs in files_of.values() if any("version" in RC.keys_anywhere(r) for r in rs)),
            "timestamp": sum(1 for rs in files_of.values() if any("timestamp" in RC.keys_anywhere(r) for r in rs)),
            "model field": sum(1 for rs in files_of.values()
                               if any("model" in r or "model" in (r.get("message") if isinstance(r.get("message"), dict)
                                                                   else {}) for r in rs))},
        "applypatch_string": [sum(1 for b in ap if isinstance(b.get("input"), str)), len(ap),
                              sum(1 for b in others if isinstance(b.get("input"), str)), len(others)],
        "turn_ended_last": [sum(1 for rs in files_of.values() if rs and rs[-1].get("type") == "turn_ended"),
                            sum(1 for rs in files_of.values() if any(r.get("type") == "turn_ended" for r in rs))],
        "skill_evidence": [sum(skill), len(skill_files)],
        # a parent/child figure is recounted where no subagent file exists (all zero); a corpus
        # with subagents fails here until the pairing is recounted too
        "child_in_parent": [0, 0] if not subagents else None,
        "link_subagent_schema": {**dict.fromkeys(("child_shapes_not_in_parent", "pairs", "pairs_all_shapes_in_parent",
                                                  "subagent_files", "subagent_shapes_in_no_transcript",
                                                  "subagents_all_shapes_in_transcripts", "pairs_all_paths_in_parent",
                                                  "child_paths_not_in_parent", "subagents_all_paths_in_transcripts"), 0),
                                 "paths_in_no_transcript": []} if not subagents else None,
        "payload_percentiles": {"assistant_payloads": len(assistant), "payloads": len(every),
                                "max": max(assistant, default=None), "max_including_user": max(every, default=None),
                                **{f"p{round(q * 100)}": RC.quantile_disc(assistant, q) for q in (0.5, 0.9, 0.99)}},
        "agent_tools_sizes": [min(sizes), RC.quantile_disc(sizes, 0.5), max(sizes)] if sizes else None,
        "spill_threshold": min(sizes) if sizes else None,
        "keysets_masking": RC.keysets_masking((c, r) for _f, c, r in recs),
        "nested_message": RC.nested(((c, r) for _f, c, r in recs), "$.message"),
        "nested_tool_input": {n: {"calls": len(v), "keysets": len({tuple(sorted(o)) for o in v}),
                                  "keys": dict(Counter(k for o in v for k in o))} for n, v in tool_inputs.items()},
        "text_marker_user_query": {"records": markers["<user_query>"]["records"], "files": len(marker_files["<user_query>"])},
        "text_marker_user_info": {"records": markers["<user_info>"]["records"], "files": len(marker_files["<user_info>"])},
        "readback_refs.agent_tools_path": readback,
        "link_sidecar_writes": sidecar,
        "assistant_pairs": {k: pairs[k] for k in ("duplicate", "pairs", "prefix_extension", "reverse_prefix", "unrelated")},
        "value_formats": values_at_listed_paths([r for _f, _c, r in recs]),
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
        **stream_more(root),
    }


def stream_more(root: Path) -> dict[str, Any]:
    """The stream-json figures recounted with ``tests.real_recount``: key sets per family, nested
    objects, value counts, and the links (call pairing, one session id, failed turns, chunks)."""
    caps: dict[Path, list[tuple[str, dict[str, Any]]]] = {}
    for f in sorted(root.rglob("*.jsonl")):
        caps[f] = [(_cls_stream(r), r) for _f, r in _objects_of(f)]
    recs = [x for rs in caps.values() for x in rs]
    pairing: list[tuple[str, int]] = []
    unnamed = 0
    failed = {"captures_with_failed_calls": 0, "ending_result_success": 0, "failed_calls": 0, "rejected_calls": 0,
              "with_is_error_true": 0, "without_result_event": 0}
    chunk_ks: Counter[str] = Counter()
    final_ks: Counter[str] = Counter()
    chunks_per: dict[Path, tuple[int, str | None]] = {}
    for f, rs in caps.items():
        started = Counter(r["call_id"] for c, r in rs if c == "tool_call/started" and isinstance(r.get("call_id"), str))
        done = [r["call_id"] for c, r in rs if c == "tool_call/completed" and isinstance(r.get("call_id"), str)]
        pairing += [(x, started[x]) for x in done]
        unnamed += len(set(started) - set(done))
        bad = rej = 0
        for c, r in rs:
            if c != "tool_call/completed":
                continue
            for v in (r.get("tool_call") or {}).values() if isinstance(r.get("tool_call"), dict) else []:
                res = v.get("result") if isinstance(v, dict) else None
                if isinstance(res, dict):
                    bad += "failure" in res
                    rej += "rejected" in res
        if bad + rej:
            failed["captures_with_failed_calls"] += 1
            failed["failed_calls"] += bad
            failed["rejected_calls"] += rej
            failed["ending_result_success"] += any(c == "result/success" for c, _r in rs)
            failed["without_result_event"] += not any(c.split("/")[0] == "result" for c, _r in rs)
            failed["with_is_error_true"] += any(r.get("is_error") is True for _c, r in rs)
        asst = [",".join(sorted(r)) for c, r in rs if c == "assistant"]
        for ks in asst[:-1]:
            chunk_ks[ks] += 1
        if asst:
            final_ks[asst[-1]] += 1
        chunks_per[f] = (len(asst) - 1 if asst else 0, asst[-1] if asst else None)
    return {
        "keysets_masking": RC.keysets_masking(recs),
        "nested_message": RC.nested(recs, "$.message"),
        "nested_tool_args": {k: v for k, v in RC.nested(recs, "$.tool_call.shellToolCall.args", {"tool_call/started"}).items()},
        "nested_tool_result": RC.nested(recs, "$.tool_call.shellToolCall.result", {"tool_call/completed"}),
        "link_tool_call_pairing": {**RC.link_rate(pairing), "targets_unnamed": unnamed},
        "link_session_id_constant": {**RC.link_rate((f, len({r["session_id"] for _c, r in rs
                                                               if isinstance(r.get("session_id"), str)}))
                                                    for f, rs in caps.items()), "targets_unnamed": None},
        "link_failed_turns_result": failed,
        "link_assistant_chunks": {"captures_with_chunks": sum(1 for n, _k in chunks_per.values() if n),
                                  "chunk_keysets": dict(chunk_ks), "final_keysets": dict(final_ks),
                                  "followed_by_final": sum(1 for n, k in chunks_per.values() if n and k not in chunk_ks)},
        "value_formats": values_at_listed_paths([r for _c, r in recs]),
    }


def _objects_of(f: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for line in _lines(f):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            yield f, rec


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
        "model_outcome.is_error": dict(flag),
        **claude_more(root),
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


def claude_layout(root: Path) -> Counter[str]:
    """Files by the path pattern each matches (the client's layout under a projects folder)."""
    return claude_layout_of([f.relative_to(root) for f in sorted(p for p in root.rglob("*") if p.is_file())])


def claude_layout_of(paths: list[Path]) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in paths:
        rel = f.parts
        n = f.name
        if len(rel) == 2 and n.endswith(".jsonl"):
            kind = "parent"
        elif len(rel) == 4 and rel[2] == "subagents" and n.startswith("agent-"):
            kind = "subagent" if n.endswith(".jsonl") else "subagent_meta" if n.endswith(".meta.json") else "other"
        elif len(rel) == 6 and rel[2:4] == ("subagents", "workflows") and rel[4].startswith("wf_"):
            kind = ("journal" if n == "journal.jsonl" else "workflow_agent" if n.startswith("agent-") and n.endswith(".jsonl")
                    else "workflow_meta" if n.startswith("agent-") and n.endswith(".meta.json") else "other")
        elif len(rel) == 4 and rel[2] == "tool-results" and n.endswith(".txt"):
            kind = "tool_result_txt"
        else:
            kind = "other"
        out[kind] += 1
    return out


def claude_more(root: Path) -> dict[str, Any]:
    """The Claude Code figures recounted with ``tests.real_recount``: files by layout, classes and
    key sets, session ids, the three links, result lengths per tool, skills, persisted output."""
    vocab = json.loads((RUNTIMES / "claude_code" / "vocab.json").read_text())
    reviewed = set(vocab["values"]["$.message.content[type=tool_use].name"])
    layout = claude_layout(root)
    surfaces = ("journal", "other", "parent", "subagent", "subagent_meta", "tool_result_txt", "workflow_agent",
                "workflow_meta")
    recs = [(f, _cls_claude(r), r) for f, r in _objects(root, "*.jsonl")]
    by_file: dict[Path, list[dict[str, Any]]] = defaultdict(list)
    for f, _c, r in recs:
        by_file[f].append(r)
    per_class = RC.keysets_masking((c, r) for _f, c, r in recs)
    sids = {f: {r["sessionId"] for r in rs if isinstance(r.get("sessionId"), str)} for f, rs in by_file.items()}
    # links within a file: result -> call, parentUuid -> uuid; sessionId one value a file
    pairing, parents = [], []
    named_calls = named_uuids = 0
    lengths: dict[str, list[int]] = defaultdict(list)
    for rs in by_file.values():
        calls: Counter[str] = Counter()
        call_name: dict[str, str] = {}
        uuids: Counter[str] = Counter()
        for r in rs:
            use = [b for b in _blocks(r) if b.get("type") == "tool_use"]
            for b in use:
                if isinstance(b.get("id"), str):
                    calls[b["id"]] += 1
                    if len(use) == 1:
                        call_name[b["id"]] = b["name"] if b.get("name") in reviewed else "<withheld>"
                    else:
                        call_name.setdefault(b["id"], "(several calls on one record)")
            if isinstance(r.get("uuid"), str):
                uuids[r["uuid"]] += 1
        results = [(r, [b for b in _blocks(r) if b.get("type") == "tool_result"]) for r in rs]
        used_calls: set[str] = set()
        for _r, res in results:
            for b in res:
                ref = b.get("tool_use_id")
                if isinstance(ref, str):
                    pairing.append((ref, calls[ref]))
                    used_calls.add(ref)
                n = RC.block_payload(b)
                if n is None:
                    continue
                tool = ("(several results on one record)" if len(res) != 1 or not isinstance(ref, str)
                        else "(no call in this file)" if ref not in calls else call_name[ref])
                lengths[tool].append(n)
                lengths["(all tools)"].append(n)
        named_calls += len(set(calls) - used_calls)
        used_uuids: set[str] = set()
        for r in rs:
            p = r.get("parentUuid")
            if isinstance(p, str):
                parents.append((p, uuids[p]))
                used_uuids.add(p)
        named_uuids += len(set(uuids) - used_uuids)
    n_calls = sum(1 for _f, _c, r in recs for b in _blocks(r) if b.get("type") == "tool_use" and isinstance(b.get("id"), str))
    persisted = [v for _f, _c, r in recs for v in RC.at_path(r, "$.toolUseResult.persistedOutputPath") if isinstance(v, str)]
    txt = {p.name for p in root.glob("*/*/tool-results/*.txt")}
    marker = sum(c.count("<persisted-output>") for _f, _c, r in recs for b in _blocks(r) if b.get("type") == "tool_result"
                 for c in [b.get("content")] if isinstance(c, str))
    return {
        "basis_files": {**{s: layout.get(s, 0) for s in surfaces}, "total": sum(layout.values())},
        "layout": {s: n for s, n in layout.items() if n},
        "subagent_files": {"sessions": len({f.parent.parent for f in root.glob("*/*/subagents/**/*") if f.is_file()}),
                           **{s: layout.get(s, 0) for s in ("subagent", "subagent_meta", "workflow_agent", "workflow_meta")}},
        "child_in_parent": [0, layout.get("subagent", 0), 0, layout.get("workflow_agent", 0)],
        "meta_join": [0, layout.get("subagent_meta", 0)],
        "record_classes": {"keysets": per_class["masked"], "keysets_raw": per_class["raw"], "masked_keysets": 0,
                           "records": dict(Counter(c for _f, c, _r in recs)), "whole_corpus": True},
        "keysets_masking": per_class,
        "file_identity": [sum(1 for f, s in sids.items() if s == {f.stem}), layout.get("parent", 0), 0,
                          layout.get("subagent", 0) + layout.get("workflow_agent", 0),
                          sum(1 for s in sids.values() if len(s) > 1)],
        "link_tool_result_pairing": {**RC.link_rate(pairing), "targets_unnamed": named_calls},
        "link_parent_uuid_in_file": {**RC.link_rate(parents), "targets_unnamed": named_uuids},
        "link_session_id_constant": {**RC.link_rate((f, len(s)) for f, s in sids.items()), "targets_unnamed": None},
        "link_meta_names_parent_call": {**RC.link_rate([]), "targets_unnamed": n_calls},
        "result_lengths": {t: [RC.quantile_disc(v, 0.5), RC.quantile_disc(v, 0.99), max(v)] for t, v in lengths.items()},
        "census:result_lengths": [{"tool": t, "results": len(v), **RC.quantiles(v)} for t, v in lengths.items()],
        "skill_evidence.skill_attachments": sum(1 for _f, _c, r in recs for v in RC.at_path(r, "$.attachment.type")
                                                if v in ("invoked_skills", "skill_listing", "dynamic_skill")),
        "oversized_output": {"files": len(txt), "marker": marker,
                             "present": sum(1 for v in persisted if v.rsplit("/", 1)[-1] in txt),
                             "missing": sum(1 for v in persisted if v.rsplit("/", 1)[-1] not in txt)},
        "value_formats": values_at_listed_paths([r for _f, _c, r in recs]),
    }


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
        **codex_more(root),
    }


UUID_TAIL = re.compile(r"-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def codex_layout(root: Path) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = f.relative_to(root).as_posix()
        dated = re.match(r"^\d{4}/\d{2}/\d{2}/rollout-[^/]*\.jsonl$", rel)
        flat = re.match(r"^rollout-[^/]*\.jsonl$", rel)
        out["other" if not (dated or flat) else "rollout_unnamed" if not UUID_TAIL.search(rel)
            else "rollout" if dated else "archived_rollout"] += 1
    return out


def codex_more(root: Path) -> dict[str, Any]:
    """The Codex figures recounted with ``tests.real_recount``: files by layout, classes and key
    sets, headers, item ids, tool names and arguments, flags, the token counter, output sizes per
    tool and the four links."""
    vocab = json.loads((RUNTIMES / "codex" / "vocab.json").read_text())
    reviewed = set(vocab["values"]["$.payload.name"])
    layout = codex_layout(root)
    recs = [(f, _cls_codex(r), r) for f, r in _objects(root, "*.jsonl")]
    by_file: dict[Path, list[tuple[str, dict[str, Any], int]]] = defaultdict(list)
    for f in sorted({f for f, _c, _r in recs}):
        for line in _lines(f):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict):
                by_file[f].append((_cls_codex(r), r, len(line)))
    per_class = RC.keysets_masking((c, r) for _f, c, r in recs)
    headers = {f: [r["payload"] for c, r, _n in rs if c == "session_meta" and isinstance(r.get("payload"), dict)]
               for f, rs in by_file.items()}
    first = {f: h[0] for f, h in headers.items() if h}
    kids = [f for f, p in first.items() if isinstance(p.get("session_id"), str) and p["session_id"] != p.get("id")]
    pay = [r["payload"] for _f, _c, r in recs if isinstance(r.get("payload"), dict)]
    item_ids = {r["payload"]["id"] for _f, c, r in recs  # response items' ids (a header's id is the rollout's)
                if c.split("/")[0] == "response_item" and isinstance(r.get("payload"), dict)
                and isinstance(r["payload"].get("id"), str)}
    call_ids = {p["call_id"] for p in pay if isinstance(p.get("call_id"), str)}
    names: Counter[str] = Counter()
    args = [0, 0, 0]
    flags: Counter[str] = Counter()
    sizes: dict[str, list[int]] = defaultdict(list)
    links: dict[str, list[tuple[str, int]]] = {"function": [], "custom": []}
    unnamed = {"function": 0, "custom": 0}
    usage = Counter[str]()
    for rs in by_file.values():
        tool_of: dict[str, str] = {}
        ids: dict[str, Counter[str]] = {"function": Counter(), "custom": Counter()}
        for c, r, _n in rs:
            p = r.get("payload")
            if not isinstance(p, dict):
                continue
            if c in ("response_item/function_call", "response_item/custom_tool_call", "response_item/tool_search_call"):
                nm = p.get("name")
                shown = nm if nm in reviewed else "<withheld>" if isinstance(nm, str) else None
                if shown is not None:
                    names[f"{c}:{shown}"] += 1
                if isinstance(p.get("call_id"), str):
                    tool_of.setdefault(p["call_id"], f"(MCP) {shown or '?'}" if p.get("namespace") is not None
                                       else shown or p["type"])
                    if c != "response_item/tool_search_call":
                        ids[c.split("/")[1].split("_")[0]][p["call_id"]] += 1
            if c == "response_item/function_call":
                a = p.get("arguments")
                if isinstance(a, str):
                    args[0] += 1
                    with contextlib.suppress(ValueError):
                        args[1] += isinstance(json.loads(a), dict)
                elif "arguments" in p:
                    args[2] += 1
            for path in ("$.payload.success", "$.payload.result.Ok.isError"):
                for v in RC.at_path(r, path):
                    if isinstance(v, bool):
                        flags[f"{path}={str(v).lower()}"] += 1
        answered: dict[str, set[str]] = {"function": set(), "custom": set()}
        tokens: list[tuple[int, float]] = []
        compactions = [i for i, (c, _r, _n) in enumerate(rs) if c == "compacted"]
        for i, (c, r, n) in enumerate(rs):
            p = r.get("payload") if isinstance(r.get("payload"), dict) else {}
            if c in ("response_item/function_call_output", "response_item/custom_tool_call_output",
                     "response_item/tool_search_output") and isinstance(p.get("call_id"), str):
                tool = tool_of.get(p["call_id"], "(no call in this file)")
                sizes[tool].append(n)
                sizes["(all tools)"].append(n)
                kind = c.split("/")[1].split("_")[0]
                if kind in links:
                    links[kind].append((p["call_id"], ids[kind][p["call_id"]]))
                    answered[kind].add(p["call_id"])
            for v in RC.at_path(r, "$.payload.info.total_token_usage.total_tokens"):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    tokens.append((i, v))
        for kind in links:
            unnamed[kind] += len(set(ids[kind]) - answered[kind])
        if tokens:
            usage["files"] += 1
            usage["token_counts"] += len(tokens)
        dropped = False
        for (i0, a), (i1, b) in pairwise(tokens):
            usage["repeats"] += a == b
            if b < a:
                usage["drops"] += 1
                usage["drops_at_compaction"] += any(i0 <= k <= i1 for k in compactions)
                dropped = True
        usage["files_with_drops"] += dropped
    header_count = sum(len(h) for h in headers.values())
    return {
        "basis_files": {**{s: layout.get(s, 0) for s in ("archived_rollout", "other", "rollout", "rollout_unnamed")},
                        "total": sum(layout.values())},
        "layout": {s: n for s, n in layout.items() if n},
        "record_classes": {"keysets": per_class["masked"], "keysets_raw": per_class["raw"], "masked_keysets": 0,
                           "records": dict(Counter(c for _f, c, _r in recs)), "whole_corpus": True},
        "keysets_masking": per_class,
        "file_identity": [sum(1 for f, p in first.items() if (m := UUID_TAIL.search(f.name)) and p.get("id") == m.group(1)),
                          len(first), sum(1 for rs in by_file.values() if rs and rs[0][0] == "session_meta"), len(by_file)],
        "subagent_files": len(kids),
        "child_in_parent": [0, 0, 0] if not kids else None,
        "inherited_history": dict.fromkeys(("child_files", "inherited_records", "inherited_turn_ids", "own_records",
                                            "own_turn_ids", "shared_turn_ids"), 0) if not kids else None,
        "item_ids": {"items": len(item_ids), "equal": len(item_ids & call_ids)},
        "tool_names.names": dict(names),
        "arguments": args,
        "failure_flag.flags": dict(flags),
        "usage": {k: usage[k] for k in ("drops", "drops_at_compaction", "files", "files_with_drops", "repeats",
                                        "token_counts")},
        "output_sizes": {t: [RC.quantile_disc(v, 0.5), RC.quantile_disc(v, 0.99), max(v)] for t, v in sizes.items()},
        "census:output_sizes": [{"tool": t, "outputs": len(v), **RC.quantiles(v)} for t, v in sizes.items()],
        "link_function_output_pairing": {**RC.link_rate(links["function"]), "targets_unnamed": unnamed["function"]},
        "link_custom_output_pairing": {**RC.link_rate(links["custom"]), "targets_unnamed": unnamed["custom"]},
        "link_child_names_parent": {**RC.link_rate((f, 0) for f in kids), "targets_unnamed": header_count},
        "link_spawn_names_child": {**RC.link_rate([]), "targets_unnamed": header_count},
        "value_formats": values_at_listed_paths([r for _f, _c, r in recs]),
    }


ISO = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")


def desktop_more(root: Path) -> dict[str, Any]:
    """The desktop store's figures recounted with ``tests.real_recount``: files by layout, what the
    stores hold, key sets per key kind, nested objects, data-keyed maps and value counts."""
    import sqlite3

    files = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file()]
    surface: Counter[str] = Counter()
    for rel in files:
        surface["state" if rel == "globalStorage/state.vscdb"
                else "state_backup" if rel == "globalStorage/state.vscdb.backup"
                else "state_sidecar" if re.fullmatch(r"globalStorage/state\.vscdb-(wal|shm|journal)", rel)
                else "workspace_json" if re.fullmatch(r"workspaceStorage/[^/]+/workspace\.json", rel)
                else "workspace_state" if re.fullmatch(r"workspaceStorage/[^/]+/state\.vscdb", rel) else "other"] += 1
    stores = [root / "globalStorage" / "state.vscdb"] if surface["state"] else []
    opened = with_other = headers_present = header_rows = 0
    for db in stores:
        con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        opened += 1
        with_other += bool(tables - {"ItemTable", "cursorDiskKV", "composerHeaders"})
        if "composerHeaders" in tables:
            headers_present += 1
            header_rows += con.execute("SELECT count(*) FROM composerHeaders").fetchone()[0]
        con.close()
    recs = [(kind, obj) for _db, kind, obj in _desktop_records(root)]
    objs = [o for _k, o in recs]
    created = [v for k, o in recs if k == "bubbleId" for v in RC.at_path(o, "$.createdAt")]
    iso = sum(1 for v in created if isinstance(v, str) and ISO.match(v))
    return {
        **{f"basis_files.{s}": surface.get(s, 0) for s in ("other", "state_backup", "state_sidecar", "workspace_json",
                                                           "workspace_state")},
        "layout": lambda rows: [{**row, "files": surface.get(row["surface"], 0)} for row in rows],
        "store_outcomes.ok": opened,
        "store_outcomes.stores": len(stores),
        "store_outcomes.stores_with_other_tables": with_other,
        "composer_headers": {"present": headers_present, "rows": header_rows, "stores": len(stores)},
        "wal_rows.with_wal": sum(1 for db in stores if Path(f"{db}-wal").exists()),
        # rows only a -wal holds: none where no store has one (a store with one fails here until
        # its rows are recounted with and without it)
        "wal_rows.rows_wal_only": 0 if not any(Path(f"{db}-wal").exists() for db in stores) else None,
        "agent_kv": sum(1 for k, _o in recs if k == "agentKv"),
        "keysets_masking": RC.keysets_masking(recs),
        "fmt_bubble_created_at": {"expected": iso, "other": {} if iso == len(created) else {"?": len(created) - iso},
                                  "path": "$.createdAt", "total": len(created)},
        "nested_conversation_headers": RC.nested(recs, "$.fullConversationHeadersOnly[]", {"composerData"}),
        "nested_tool_former": RC.nested(recs, "$.toolFormerData", {"bubbleId"}),
        "nested_model_config": RC.nested(recs, "$.modelConfig", {"composerData"}),
        # the paths the page lists as keyed by data (which ones is the profile's word): each one's
        # objects recounted per key kind
        "data_keyed_maps": lambda listed: {
            kp: sum(1 for k, o in recs if k == kp.split(":", 1)[0] for v in RC.at_path(o, kp.split(":", 1)[1])
                    if isinstance(v, dict)) for kp in listed},
        "value_formats": values_at_listed_paths(objs),
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
    params_out: dict[str, Counter[str]] = {}
    params_keys: dict[str, list[tuple[str, ...]]] = {}
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
        if isinstance(tf, dict):  # params: a JSON object carried in a string, parsed here with json
            name = tf["name"] if isinstance(tf.get("name"), str) else "<none>"
            out = params_out.setdefault(name, Counter({"calls": 0, "object_params": 0, "no_params": 0,
                                                      "not_json": 0, "other_type": 0}))
            out["calls"] += 1
            if tf.get("params") is None:  # absent or null
                out["no_params"] += 1
                continue
            p = tf["params"]
            if isinstance(p, str):
                try:
                    p = json.loads(p)
                except ValueError:
                    out["not_json"] += 1
                    continue
            out["object_params" if isinstance(p, dict) else "other_type"] += 1
            if isinstance(p, dict):
                params_keys.setdefault(name, []).append(tuple(sorted(p)))
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
        "tool_params": {n: dict(c) for n, c in params_out.items()},
        "nested_tool_input": {n: {"calls": len(v), "keysets": len(set(v)), "keys": dict(Counter(k for o in v for k in o))}
                              for n, v in params_keys.items()},
        "models": dict(models),
        "ordering": desktop_ordering(db),
        "kind_keysets": {k: {"records": len(v), "keysets": len(set(v)),
                             "always": len(set.intersection(*(set(x) for x in v))),
                             "sometimes": ", ".join(f"{key} {n}" for key, n in sorted(
                                 Counter(key for x in v for key in x if not all(key in y for y in v)).items(),
                                 key=lambda kv: (-kv[1], kv[0])))}
                         for k, v in keysets.items()},
        **desktop_more(root),
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


_SURVEYED: dict[str, Surveyed] = {}
_TRUTH: dict[str, dict[str, Any]] = {}


def _root(name: str) -> Path:
    sub = REAL[name][0]
    root = corpora() / sub
    if not root.is_dir():
        pytest.skip(f"real sample {sub} absent under {corpora()}")
    return root


def surveyed(name: str, tmp_path_factory: pytest.TempPathFactory) -> Surveyed:
    """The real root surveyed once for every test of this module that reads its page."""
    if name not in _SURVEYED:
        _SURVEYED[name] = survey_once(REAL[name][1], _root(name), tmp_path_factory.mktemp(name), "2026-01-01")
    return _SURVEYED[name]


def truth_of(name: str) -> dict[str, Any]:
    if name not in _TRUTH:
        root = _root(name)
        recs = list(SKELETONS[name][2](root))
        _TRUTH[name] = {**REAL[name][2](root), "strata_drift": strata_drift(root),
                        "unreviewed_keys": unreviewed_paths(name, recs),
                        "census:record_classes": RC.class_rows(recs), **census_more(name, recs, root)}
    return _TRUTH[name]


def claude_census(recs: list[tuple[Path, str, dict[str, Any]]], root: Path) -> dict[str, Any]:
    """The Claude Code tables of files, results, thinking and ids, per surface where they are."""
    by_file: dict[Path, list[dict[str, Any]]] = defaultdict(list)
    for f, _c, r in recs:
        by_file[f].append(r)
    surface = {f: surface_of("claude_code", f.relative_to(root)) for f in by_file}
    version = {f: next((r["version"] for r in rs if isinstance(r.get("version"), str)), "(none)") for f, rs in by_file.items()}
    err: dict[str, Counter[str]] = defaultdict(Counter)
    err_files: dict[str, set[Path]] = defaultdict(set)
    tur: Counter[str] = Counter()
    tur_files: dict[str, set[Path]] = defaultdict(set)
    side: Counter[tuple[str, str]] = Counter()
    side_files: dict[tuple[str, str], set[Path]] = defaultdict(set)
    th = Counter[str]()
    th_files: set[Path] = set()
    for f, _c, r in recs:
        for b in _blocks(r):
            if b.get("type") == "tool_result":
                e = err[version[f]]
                e["results"] += 1
                v = b.get("is_error", "<absent>")
                e["is_error_true" if v is True else "is_error_false" if v is False else
                  "is_error_absent" if v == "<absent>" else "is_error_other"] += 1
                err_files[version[f]].add(f)
            elif b.get("type") in ("thinking", "redacted_thinking"):
                th_files.add(f)
                if b["type"] == "redacted_thinking":
                    th["redacted"] += 1
                    continue
                th["thinking_blocks"] += 1
                th["with_text" if b.get("thinking") else "signature_only" if b.get("signature") else "blank"] += 1
        if "toolUseResult" in r:
            v = r["toolUseResult"]
            t = ("object" if isinstance(v, dict) else "array" if isinstance(v, list) else "string" if isinstance(v, str)
                 else "boolean" if isinstance(v, bool) else "null" if v is None else "number")
            tur[t] += 1
            tur_files[t].add(f)
        k = (surface[f], "(absent)" if "isSidechain" not in r else json.dumps(r["isSidechain"]))
        side[k] += 1
        side_files[k].add(f)
    return {
        "census:is_error": [{"version": v, **{c: e[c] for c in ("results", "is_error_true", "is_error_false",
                                                                  "is_error_other", "is_error_absent")},
                             "files": len(err_files[v])} for v, e in err.items()],
        "census:tool_use_result_types": [{"jtype": t, "records": n, "files": len(tur_files[t])} for t, n in tur.items()],
        "census:thinking": [{"thinking_blocks": th["thinking_blocks"], "signature_only": th["signature_only"],
                             "with_text": th["with_text"], "redacted": th["redacted"], "files": len(th_files)}],
        "census:sidechain": [{"surface": sf, "is_sidechain": v, "records": n, "files": len(side_files[(sf, v)])}
                             for (sf, v), n in side.items()],
        "census:version_files": [
            {"surface": sf, "files": len(fs),
             "files_with_version": sum(1 for f in fs if version[f] != "(none)"),
             "files_mixing_versions": sum(1 for f in fs if len({r["version"] for r in by_file[f]
                                                                if isinstance(r.get("version"), str)}) > 1),
             "records": sum(len(by_file[f]) for f in fs),
             "records_with_version": sum(1 for f in fs for r in by_file[f] if isinstance(r.get("version"), str))}
            for sf in sorted(set(surface.values())) for fs in [[f for f in by_file if surface[f] == sf]]],
    }


def keyset_tables(recs: list[tuple[Path, str, dict[str, Any]]], carrier: str | None, types: set[str],
                  reviewed: set[str], table: str, json_paths: frozenset[str], s: Surveyed) -> list[dict[str, Any]]:
    """The per-path key-set tables (every node; per path the distinct key sets; per key its objects).
    Which objects are keyed by data is the runtime's own declaration, read here from the table's
    ``<map>`` rows (the class and path only): every figure of every row is then recounted."""
    ks = json.loads((s.snap / "census.json").read_text())["keyset_census"]
    maps = {(r[0], r[1]) for r in ks["rows"] if r[ks["columns"].index("keyset")] == "<map>"}
    nodes = RC.node_rows(recs, carrier, types, maps, reviewed, json_paths)
    if table == "keyset_census":
        return nodes
    objs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in nodes:
        if row["jtype"] == "object":
            objs[(row["rclass"], row["path"])].append(row)
    if table == "raw_keysets":
        by_path: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for (_c, p), rows in objs.items():
            by_path[p] += rows
        return [{"rclass": c, "path": p, "keysets_masked": n, "keysets_raw": n, "objects": o}
                for c, p, n, o in [(c, p, len(rows), sum(r["occurrences"] for r in rows)) for (c, p), rows in objs.items()]
                + [(None, p, len({r["keyset"] for r in rows}), sum(r["occurrences"] for r in rows))
                   for p, rows in by_path.items()]]
    return [{"rclass": c, "path": p, "key": k, "objects": sum(r["occurrences"] for r in rows), "keysets": len(rows),
             "objects_with_key": sum(r["occurrences"] for r in rows if k in r["keyset"].split(","))}
            for (c, p), rows in objs.items() for k in sorted({k for r in rows for k in r["keyset"].split(",") if k})]


def surface_of(name: str, rel: Path) -> str:
    """The path pattern a file matches, per runtime (as the layout figures above classify files)."""
    parts, n = rel.parts, rel.name
    if name == "cursor":
        if len(parts) >= 3 and parts[1] == "agent-transcripts" and n.endswith(".jsonl"):
            return "subagent" if "subagents" in parts else ("transcript" if len(parts) == 4 else "transcript_flat")
        if len(parts) == 3 and parts[1] == "agent-transcripts" and n.endswith(".txt"):
            return "legacy_txt"
        return "agent_tools" if len(parts) == 3 and parts[1] == "agent-tools" else "other"
    if name == "claude_code":
        return next(iter(claude_layout_of([rel])))
    if name == "codex":
        rel_s = rel.as_posix()
        dated = re.match(r"^\d{4}/\d{2}/\d{2}/rollout-[^/]*\.jsonl$", rel_s)
        flat = re.match(r"^rollout-[^/]*\.jsonl$", rel_s)
        return ("other" if not (dated or flat) else "rollout_unnamed" if not UUID_TAIL.search(rel_s)
                else "rollout" if dated else "archived_rollout")
    if name == "cursor_stream":
        return "capture" if n.endswith(".jsonl") else "other"
    return "state" if rel.as_posix() == "globalStorage/state.vscdb" else "other"


def census_more(name: str, recs: list[tuple[Path, str, dict[str, Any]]], root: Path) -> dict[str, Any]:
    """More census tables the pages print: parsed lines per file, tool calls per name, client
    versions (records, files, files holding another version too), timestamps per class, input
    keys per tool, legacy headings per name."""
    out: dict[str, Any] = {}
    if name in ("claude_code", "codex"):
        ts = Counter(c for _f, c, r in recs if "timestamp" in r)
        out["census:timestamps"] = [{"rclass": c, "records": n, "with_timestamp": ts[c]}
                                    for c, n in Counter(c for _f, c, _r in recs).items()]
    if name == "claude_code":
        out["census:jsonl_classes"] = RC.class_rows(recs)
        out.update(claude_census(recs, root))
    if name == "cursor":
        vocab = json.loads((RUNTIMES / "cursor" / "vocab.json").read_text())
        reviewed = set(vocab["values"].get("$.message.content[type=tool_use].name", []))
        legacy_names = set(vocab["values"].get("legacy:tool_call", reviewed))
        heads: Counter[str] = Counter()
        head_files: dict[str, set[Path]] = defaultdict(set)
        for f in sorted(root.glob("*/agent-transcripts/*.txt")):
            for line in f.read_text(errors="replace").split("\n"):
                mt = re.match(r"\[Tool call\] (\S+)", line)
                if mt:
                    n = mt.group(1) if mt.group(1) in legacy_names else "<withheld>"
                    heads[n] += 1
                    head_files[n].add(f)
        out["census:legacy_headings"] = [{"name": n, "headings": c, "files": len(head_files[n])} for n, c in heads.items()]
        inputs: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for _f, _c, r in recs:
            for b in _blocks(r):
                if b.get("type") == "tool_use" and isinstance(b.get("input"), dict) and isinstance(b.get("name"), str):
                    inputs[b["name"] if b["name"] in reviewed else "<withheld>"].append(b["input"])
        out["census:input_keys_by_tool"] = [{"name": n, "key": k, "calls_with_key": c, "calls": len(v)}
                                            for n, v in inputs.items() for k, c in Counter(k for o in v for k in o).items()]
    # files and bytes per surface (the path pattern a file matches) and per mtime month
    surf: Counter[str] = Counter()
    surf_bytes: Counter[str] = Counter()
    months: Counter[str] = Counter()
    month_bytes: Counter[str] = Counter()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        st = f.stat()
        sf = surface_of(name, f.relative_to(root))
        surf[sf] += 1
        surf_bytes[sf] += st.st_size
        m = time.strftime("%Y-%m", time.gmtime(st.st_mtime))
        months[m] += 1
        month_bytes[m] += st.st_size
    out["census:files_by_surface"] = [{"surface": k, "files": n, "bytes": surf_bytes[k]} for k, n in surf.items()
                                      if k != "other"]
    out["census:strata"] = [{"stratum": m, "files": n, "bytes": month_bytes[m]} for m, n in months.items()]
    # parsed records (JSONL lines; the desktop store's cells) and the files holding them
    out["census:frame_status"] = [{"frame_status": "ok", "frames": len(recs), "files": len({f for f, _c, _r in recs})}]
    if name == "cursor_stream":
        ts = Counter(c for _f, c, r in recs if "timestamp_ms" in r)
        out["census:timestamps"] = [{"family": c, "present": ts[c], "absent": n - ts[c]}
                                    for c, n in Counter(c for _f, c, _r in recs).items()]
    if name == "codex":
        reviewed = set(json.loads((RUNTIMES / "codex" / "vocab.json").read_text())["values"]["$.payload.name"])
        named: Counter[tuple[str, str, str]] = Counter()
        named_files: dict[tuple[str, str, str], set[Path]] = defaultdict(set)
        for f, c, r in recs:
            p = r.get("payload")
            if c in ("response_item/function_call", "response_item/custom_tool_call") and isinstance(p, dict) \
                    and isinstance(p.get("name"), str):
                k = (c, "MCP (namespace withheld)" if p.get("namespace") is not None else "",
                     p["name"] if p["name"] in reviewed else "<withheld>")
                named[k] += 1
                named_files[k].add(f)
        out["census:tool_names"] = [{"rclass": c, "kind": kd, "name": nm, "calls": n, "files": len(named_files[(c, kd, nm)])}
                                    for (c, kd, nm), n in named.items()]
    carrier = {"cursor": "message.content", "claude_code": "message.content", "codex": "payload.content",
               "cursor_stream": "message.content"}.get(name)
    if carrier:
        types = set(json.loads((RUNTIMES / name / "vocab.json").read_text())["values"].get(f"$.{carrier}[].type", []))
        buckets: Counter[tuple[str, int]] = Counter()
        longest: dict[tuple[str, int], int] = {}
        for _f, _c, r in recs:
            for b in RC.at_path(r, f"$.{carrier}[]"):
                n = RC.block_payload(b) if isinstance(b, dict) else None
                if n is None:
                    continue
                t = b.get("type")
                k = (t if t in types else "<withheld>" if t is not None else "<none>", 1 << (n.bit_length() - 1) if n else 0)
                buckets[k] += 1
                longest[k] = max(longest.get(k, 0), n)
        out["census:payload_buckets"] = [{"carrier": f"$.{carrier}", "btype": t, "bucket": bk, "payloads": c,
                                          "longest": longest[(t, bk)]} for (t, bk), c in buckets.items()]
    if name in ("cursor", "claude_code"):
        vocab = json.loads((RUNTIMES / name / "vocab.json").read_text())
        reviewed = set(vocab["values"]["$.message.content[type=tool_use].name"])
        calls: Counter[str] = Counter()
        files: dict[str, set[Path]] = defaultdict(set)
        for f, _c, r in recs:
            for b in _blocks(r):
                if b.get("type") == "tool_use" and isinstance(b.get("name"), str):
                    n = b["name"] if b["name"] in reviewed else "<withheld>"
                    calls[n] += 1
                    files[n].add(f)
        out["census:tool_names"] = [{"name": n, "calls": c, "files": len(files[n])} for n, c in calls.items()]
    if name in ("claude_code", "codex"):
        out["census:class_versions"] = class_versions(recs, name)
    if name in ("cursor", "cursor_stream", "cursor_desktop", "claude_code", "codex"):
        vocab = json.loads((RUNTIMES / name / "vocab.json").read_text())
        carrier = {"cursor_desktop": None, "codex": "$.payload.content"}.get(name, "$.message.content")
        types = set(vocab["values"].get(f"{carrier}[].type", []))
        # (the per-path summaries of roots with data-keyed maps treat the maps in ways not recounted yet)
        for table in ("keyset_census", "raw_keysets", "nested_keysets")[:1 if name in ("cursor_desktop", "claude_code",
                                                                                       "codex") else 3]:
            out[f"census:{table}"] = functools.partial(keyset_tables, recs, carrier, types, set(vocab["keys"]), table,
                                                       frozenset({"$.payload.arguments"} if name == "codex" else ()))
    if name == "cursor_stream":
        fam = Counter(c for _f, c, _r in recs)
        out["census:families"] = [{"family": c, "events": n, "captures": len({f for f, g, _r in recs if g == c})}
                                  for c, n in fam.items()]
    if name == "cursor_desktop":
        kinds = Counter(c for _f, c, _r in recs)
        out["census:key_kinds"] = [{"kind": c, "status": "ok", "cells": n} for c, n in kinds.items()]
    if name == "claude_code":
        per_file: dict[Path, set[str]] = defaultdict(set)
        by_v: Counter[str] = Counter()
        for f, _c, r in recs:
            if isinstance(r.get("version"), str):
                per_file[f].add(r["version"])
                by_v[r["version"]] += 1
        out["census:versions"] = [{"version": v, "records": n, "files": sum(1 for s in per_file.values() if v in s),
                                   "files_mixing_versions": sum(1 for s in per_file.values() if v in s and len(s) > 1)}
                                  for v, n in by_v.items()]
    return out


def class_versions(recs: list[tuple[Path, str, dict[str, Any]]], name: str) -> list[dict[str, Any]]:
    """Per record class, the client versions of the files it occurs in (a file's version: the
    first it records; Codex: its first header's cli_version), first and last in numeric order."""
    first: dict[Path, str | None] = {}
    for f, c, r in recs:
        v = r.get("version") if name == "claude_code" else (
            r["payload"].get("cli_version") if c == "session_meta" and isinstance(r.get("payload"), dict) else None)
        if name == "codex" and c == "session_meta" and f not in first:
            first[f] = v if isinstance(v, str) else None
        elif name == "claude_code" and isinstance(v, str):
            first.setdefault(f, v)
    per: dict[str, Counter[Path]] = defaultdict(Counter)
    for f, c, _r in recs:
        per[c][f] += 1
    rows = []
    for c, files in per.items():
        vs = {first.get(f) or "(none)" for f in files}
        keyed = sorted((tuple(int(x) for x in v.split(".")), v) for v in vs if v != "(none)")
        rows.append({"rclass": c, "first_version": keyed[0][1] if keyed else None,
                     "last_version": keyed[-1][1] if keyed else None, "versions": len(vs),
                     "records": sum(files.values()), "files": len(files)})
    return rows


class FromSnapshot:
    """A recount that needs the snapshot (a declaration the census records, read from it)."""

    def __init__(self, fn: Callable[[Surveyed], Any]) -> None:
        self.fn = fn


def unreviewed_paths(name: str, recs: list[tuple[Path, str, dict[str, Any]]]) -> FromSnapshot:
    """Key paths holding a key outside the reviewed vocabulary (identifier-shaped, not reviewed),
    over every node of every record with the maps keyed by data counted as maps."""
    vocab = json.loads((RUNTIMES / name / "vocab.json").read_text())
    carrier = {"cursor_desktop": None, "codex": "$.payload.content"}.get(name, "$.message.content")
    types = set(vocab["values"].get(f"{carrier}[].type", []))

    def count(s: Surveyed) -> int:
        rows = keyset_tables(recs, carrier, types, set(vocab["keys"]), "keyset_census",
                             frozenset({"$.payload.arguments"} if name == "codex" else ()), s)
        return len({r["path"] for r in rows if "<unreviewed-key>" in r["keyset"].split(",")})
    return FromSnapshot(count)


def strata_drift(root: Path) -> dict[str, int] | None:
    """Key sets compared between file-mtime months: with every file in one month (the samples
    carry their checkout's mtimes) nothing is compared and every figure is 0; files in several
    months fail here until the comparison is recounted too."""
    months = {time.strftime("%Y-%m", time.gmtime(p.stat().st_mtime)) for p in root.rglob("*") if p.is_file()}
    return dict.fromkeys(("came", "classes", "comparisons", "drifted", "went"), 0) if len(months) <= 1 else None


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_page_figures_equal_a_plain_recount(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    want = {k: v for k, v in truth_of(name).items() if not k.startswith("census:")}
    s = surveyed(name, tmp_path_factory)
    want = {cid: v.fn(s) if isinstance(v, FromSnapshot) else v(got(s.claims, cid)) if callable(v) else v
            for cid, v in want.items()}
    wrong = {cid: (got(s.claims, cid), v) for cid, v in want.items() if got(s.claims, cid) != v}
    assert not wrong, "claims whose figures differ from the plain recount (claim, recount):\n" + "\n".join(
        f"{cid}: {a!r} != {b!r}" for cid, (a, b) in wrong.items())
    assert sum(_leaves(v) for v in want.values()) > 0


def census_rows(snap: Path, name: str, columns: list[str]) -> list[dict[str, Any]]:
    """A census table's rows (as the page's tables print them), on the given columns, in a fixed order."""
    q = json.loads((snap / "census.json").read_text())[name]
    rows = [dict(zip(q["columns"], r, strict=True)) for r in q["rows"]]
    return sorted(({c: r[c] for c in columns} for r in rows), key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_census_tables_equal_a_plain_recount(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The census tables a page prints whole (records and files per class and key set; payload
    quantiles per tool), row for row."""
    s = surveyed(name, tmp_path_factory)
    tables = {k.removeprefix("census:"): v for k, v in truth_of(name).items() if k.startswith("census:")}
    assert tables
    for table, rows in tables.items():
        rows = rows(s) if callable(rows) else rows
        want = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))
        assert census_rows(s.snap, table, list(rows[0]) if rows else []) == want, table


# -- the audit: every figure of a real page is recounted, here or by a named test, or listed with why not
SKELETON_TEST = "test_real_figures.py::test_real_skeleton_figures_equal_a_plain_recount"
CURSOR_TEST = "test_real_cursor.py::test_real_page_figures_equal_a_plain_count"
CC_TEST = "test_claude_codex_figures.py::test_real_claude_code_figures_equal_a_plain_pass"
CX_TEST = "test_claude_codex_figures.py::test_real_codex_figures_equal_a_plain_pass"
DESKTOP_TEST = "test_cursor_store_pages.py::test_real_desktop_page_figures_match_a_plain_recount"
STREAM_TEST = "test_cursor_store_pages.py::test_real_stream_page_figures_match_a_plain_recount"
DESKTOP_LINKS = "test_cursor_formats_links.py::test_real_desktop_sample_against_a_plain_recount"
STREAM_FORMATS = "test_cursor_formats_links.py::test_real_stream_captures_against_a_plain_recount"

# claim (or claim.entry) -> the test that recounts its figures on the same real root
ELSEWHERE: dict[str, dict[str, str]] = {
    "cursor": {"skeletons": SKELETON_TEST, "tool_use_keyset": CURSOR_TEST, "turn_outcome": CURSOR_TEST,
               "files_without_turn_ended": CURSOR_TEST, "max_parallel": CURSOR_TEST},
    "claude_code": {"skeletons": SKELETON_TEST, "tool_names.withheld_mcp": CC_TEST,
                    "tool_names.withheld_unreviewed": CC_TEST, "link_agent_id": CC_TEST, "link_subagent_schema": CC_TEST},
    "codex": {"skeletons": SKELETON_TEST, "client_version.headers_with_version": CX_TEST,
              "client_version.files_mixing": CX_TEST, "native_call_id.calls": CX_TEST,
              "native_call_id.calls_with_id": CX_TEST, "tool_names.withheld_mcp": CX_TEST,
              "tool_names.withheld_unreviewed": CX_TEST, "link_subagent_schema": CX_TEST},
    "cursor_desktop": {"skeletons": SKELETON_TEST, "bubble_types": DESKTOP_TEST, "capability_keys": DESKTOP_TEST,
                       "tool_names.statuses": DESKTOP_TEST, "tool_payload_types": DESKTOP_TEST,
                       "tool_call_id_newline": DESKTOP_TEST, "store_outcomes.other_tables": DESKTOP_TEST,
                       "fmt_composer_id": DESKTOP_LINKS, "link_composer_bubbles": DESKTOP_LINKS,
                       "link_tool_result_status": DESKTOP_LINKS},
    "cursor_stream": {"skeletons": SKELETON_TEST, "timestamps": STREAM_TEST, "tool_call_single_key": STREAM_TEST,
                      "result_outcomes": STREAM_TEST, "fmt_timestamp_ms": STREAM_FORMATS,
                      "fmt_duration_ms": STREAM_FORMATS},
}

# claim (or claim.entry) -> why its figures are not recounted (none today: every claim figure of the
# five real pages is recounted here or by a test named in ELSEWHERE)
NOT_RECOUNTED: dict[str, dict[str, str]] = {name: {} for name in ("cursor", "claude_code", "codex", "cursor_desktop",
                                                                  "cursor_stream")}


# census tables (census.json) with figures, by why they are not recounted row for row (on every root: a
# table recounted on some roots, e.g. keyset_census where no object is keyed by data, is listed for the rest)
_PER_PATH = ("per-path census of keys, nested key sets and values: the per-class top-level rows are recounted "
             "(record_classes) and so are the per-path figures the claims state (keysets_masking, nested_*, "
             "value_formats, data_keyed_maps); the whole per-path table is not")
_WALK = ("walk-side flags (oversized or too-deep lines, truncated payloads, probable caps): their thresholds are "
         "the walker's settings; the plain line recount above states the lines they would take from")
_VIA_CLAIM = ("its figures reach the page through this page's claims, which the claim audit accounts for; the "
              "table's own columns are not recounted row for row")
CENSUS_NOT_RECOUNTED: dict[str, str] = {
    **dict.fromkeys(("keyset_census", "nested_keysets", "raw_keysets", "value_formats", "value_maps", "key_gate",
                     "constant_fields", "class_constants", "kind_keysets", "kind_keyset_summary", "surface_classes",
                     "classes_by_version", "data_keyed_maps", "family_keysets", "block_keysets", "tool_former_keysets"),
                    _PER_PATH),
    **dict.fromkeys(("frame_flags", "truncations", "silent_caps"), _WALK),
    **dict.fromkeys(("agent_tools", "assistant_pairs", "arguments", "bubble_types", "call_id_newlines", "call_ids",
                    "call_joins", "capability_keys", "composer_bubbles", "tool_result_status", "capability_types", "capture_endings", "content_types",
                    "event_joins", "exit_codes", "failure_flags", "file_identity", "frame_taxonomy",
                    "header_versions", "inherited_history", "init_values", "input_type_by_tool", "item_ids",
                    "lineage", "links", "links_agent_id", "links_assistant_segments", "links_failed_turns", "links_sidecar_writes",
                    "links_subagent_schema", "model_key", "models", "ordering", "parallel_calls", "payload_lengths",
                    "persisted", "readback_refs", "result_outcomes", "session_ids", "session_meta_headers",
                    "skill_evidence", "skill_reads", "store_outcomes", "store_tables", "subagents", "text_markers",
                    "thinking", "token_counter", "token_counts", "tool_call_ids", "tool_call_variants",
                    "tool_former", "tool_input_keys", "tool_name_reasons", "tool_params", "tool_numbers", "tool_pairs",
                    "tool_use_result_by_tool", "turn_ended", "usage_dedup", "user_frames_per_file", "uuid_dag",
                    "versions", "wal_rows"), _VIA_CLAIM),
}


def census_figures(snap: Path) -> dict[str, int]:
    """The census tables of a snapshot that hold figures, with how many numbers each holds."""
    out = {}
    for name, q in json.loads((snap / "census.json").read_text()).items():
        if isinstance(q, dict) and "rows" in q:
            n = sum(1 for r in q["rows"] for v in r if isinstance(v, (int, float)) and not isinstance(v, bool))
            if n:
                out[name] = n
    return out


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_census_table_of_a_real_root_is_recounted_or_listed(name: str,
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """A census table that holds figures is recounted row for row (``census:<table>`` above) or
    listed with its reason; a new one fails here until it is one or the other."""
    recounted = {k.removeprefix("census:") for k in truth_of(name) if k.startswith("census:")}
    tables = census_figures(surveyed(name, tmp_path_factory).snap)
    missing = sorted(t for t in tables if t not in recounted and t not in CENSUS_NOT_RECOUNTED)
    assert not missing, f"census tables of the {name} root that no test recounts and no table lists: {missing}"
    assert recounted & set(tables)


def figure_paths(v: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Where a claim's value holds a figure (a number, not a flag): one path per figure."""
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, (int, float)):
        return [path]
    if isinstance(v, dict):
        return [p for k, x in v.items() for p in figure_paths(x, (*path, str(k)))]
    if isinstance(v, list):
        return [p for i, x in enumerate(v) for p in figure_paths(x, (*path, str(i)))]
    return []


def coverage(claims: dict[str, dict], recounted: set[str], name: str) -> dict[str, list[str]]:
    """Each figure of the page by where it is accounted for: ``here``, ``elsewhere``, ``listed``
    (not recounted, with a reason) or ``missing``; each entry is ``claim`` or ``claim.entry``."""
    out: dict[str, list[str]] = {"here": [], "elsewhere": [], "listed": [], "missing": []}
    for cid, c in claims.items():
        for p in figure_paths(c["value"]):
            keys = [cid] + ([f"{cid}.{p[0]}"] if p else [])
            where = ("here" if any(k in recounted for k in keys) else
                     "elsewhere" if any(k in ELSEWHERE[name] for k in keys) else
                     "listed" if any(k in NOT_RECOUNTED[name] for k in keys) else "missing")
            out[where].append(keys[-1])
    return out


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_figure_of_a_real_page_is_recounted_or_listed(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A claim that appears with a figure nobody recounts fails here until a recount is written
    (or it is listed above with its reason); the tables may name no claim the page lacks, and no
    figure may be both recounted here and listed."""
    recounted = {k for k in truth_of(name) if not k.startswith("census:")}
    claims = surveyed(name, tmp_path_factory).claims
    cov = coverage(claims, recounted, name)
    assert not cov["missing"], f"figures of the {name} page that no test recounts and no table lists: " + \
        ", ".join(sorted(set(cov["missing"])))
    listed = set(ELSEWHERE[name]) | set(NOT_RECOUNTED[name])
    assert not {k for k in listed | recounted if k.partition(".")[0] not in claims}, "entries naming no claim"
    assert not listed & recounted, "recounted here and listed as well"
    assert cov["here"]
    for test in set(ELSEWHERE[name].values()):
        file, _, func = test.partition("::")
        assert f"def {func}(" in (Path(__file__).parent / file).read_text(), f"{test} names no test"


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
def test_real_skeleton_figures_equal_a_plain_recount(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each skeleton's record and file counts: the records of its class (or the blocks of its
    type inside them) whose top-level keys are the skeleton's, and the files holding one."""
    _sub, _runtime, recs = SKELETONS[name]
    root = _root(name)
    s = surveyed(name, tmp_path_factory)
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


def test_the_audit_names_a_figure_nobody_recounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim the tables do not know, and an entry of a known claim that no recount states,
    come out as missing; a recounted, a listed and a figure-free claim do not."""
    monkeypatch.setitem(NOT_RECOUNTED["cursor"], "unreviewed_keys", "a reason")
    claims = {"new_claim": {"value": {"a": 1, "b": [2, 3]}}, "unreviewed_keys": {"value": 0},
              "skeletons": {"value": [{"files": 1, "records": 2}]}, "verdict": {"value": True},
              "partly": {"value": {"x": 1, "y": 2}}}
    cov = coverage(claims, {"partly.x"}, "cursor")
    assert cov == {"here": ["partly.x"], "elsewhere": ["skeletons.0", "skeletons.0"], "listed": ["unreviewed_keys"],
                   "missing": ["new_claim.a", "new_claim.b", "new_claim.b", "partly.y"]}


@pytest.mark.parametrize("seed", range(6))
def test_quantile_disc_reproduces_duckdb(seed: int) -> None:
    """The recount's quantile is DuckDB's quantile_disc, which the census queries use."""
    import random

    import duckdb

    rng = random.Random(seed)
    xs = [rng.randrange(0, 50 if seed % 2 else 10_000) for _ in range(rng.randrange(1, 400))]
    con = duckdb.connect()
    for q in (0.5, 0.9, 0.99):
        want = con.execute("SELECT quantile_disc(x, ?) FROM (SELECT unnest(?) AS x)", [q, xs]).fetchone()[0]
        assert RC.quantile_disc(xs, q) == want
    assert RC.quantile_disc([], 0.5) is None
