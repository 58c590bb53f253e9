"""The Claude Code page's sentences, each held to figures read back from the corpus.

Three corpora: the seeded Claude Code generator's store (subagents, workflows, persisted
output, duplicated and dangling uuids, an orphan result, a blank, a malformed and a cut-off
line); a single parent transcript without version, uuid, call, result, usage or model; and a
parent whose calls only sometimes carry an id, whose usage never repeats a message id and whose
records carry two versions. Each expected figure is counted here from the files with the
standard library (``json``, ``collections.Counter``), never taken from the census, and the
sentences are compared whole.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from survey.evidence.claims import fmt, pct
from survey.synth.claude_code import generate

from .claims_util import claims_from, jsonl_objects, layout_text, snapshot_of, surveyed_claims

SEG = r"[^/]+"
SURFACES = {  # checked in this order; the first match names the file's surface
    "parent": re.compile(rf"^{SEG}/{SEG}\.jsonl$"),
    "subagent": re.compile(rf"^{SEG}/{SEG}/subagents/agent-{SEG}\.jsonl$"),
    "subagent_meta": re.compile(rf"^{SEG}/{SEG}/subagents/agent-{SEG}\.meta\.json$"),
    "workflow_agent": re.compile(rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/agent-{SEG}\.jsonl$"),
    "workflow_meta": re.compile(rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/agent-{SEG}\.meta\.json$"),
    "journal": re.compile(rf"^{SEG}/{SEG}/subagents/workflows/wf_{SEG}/journal\.jsonl$"),
    "tool_result_txt": re.compile(rf"^{SEG}/{SEG}/tool-results/{SEG}\.txt$"),
}
TRANSCRIPTS = ("parent", "subagent", "workflow_agent")
SID = "0b0c0d0e-0000-4000-8000-000000000001"


def _cls(o: dict) -> str:
    return f"{o['type']}/{o['subtype']}" if isinstance(o.get("subtype"), str) else str(o.get("type"))


def _jtype(v: Any) -> str:
    return ("null" if v is None else "boolean" if isinstance(v, bool) else "number" if isinstance(v, (int, float))
            else "string" if isinstance(v, str) else "array" if isinstance(v, list) else "object")


def _vkey(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in v.split("."))


def read(root: Path) -> dict[str, Any]:
    """The figures the sentences state, counted from the files with the standard library."""
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    surf: Counter[str] = Counter()
    by_surface: dict[str, list[tuple[Path, list[dict]]]] = {}
    status: Counter[str] = Counter()
    for p in files:
        rel = p.relative_to(root).as_posix()
        s = next((n for n, rx in SURFACES.items() if rx.match(rel)), "other")
        surf[s] += 1
        if s in (*TRANSCRIPTS, "journal"):
            by_surface.setdefault(s, []).append((p, jsonl_objects(p, status)))
        elif s in ("subagent_meta", "workflow_meta"):
            o = json.loads(p.read_bytes())
            status["ok"] += 1
            by_surface.setdefault(s, []).append((p, [o]))
    tfiles = [(s, p, recs) for s in TRANSCRIPTS for p, recs in by_surface.get(s, [])]
    trecs = [o for _, _, recs in tfiles for o in recs]
    jrecs = trecs + [o for _, recs in by_surface.get("journal", []) for o in recs]
    docs = sum(len(recs) for s in ("subagent_meta", "workflow_meta") for _, recs in by_surface.get(s, []))
    classes = Counter(_cls(o) for o in jrecs)
    keysets = Counter(c for c, _ in {(_cls(o), ",".join(sorted(o))) for o in jrecs})

    vrec: dict[str, list[int]] = {}
    versions: Counter[str] = Counter()
    mixing = 0
    for s, fl in by_surface.items():
        for _, recs in fl:
            vs = [o["version"] for o in recs if isinstance(o.get("version"), str)]
            v = vrec.setdefault(s, [0, 0])
            v[0] += len(vs)
            v[1] += len(recs)
            versions.update(vs)
            mixing += len(set(vs)) > 1
    ts: dict[str, list[int]] = {}
    for o in jrecs:
        t = ts.setdefault(_cls(o), [0, 0])
        t[0] += "timestamp" in o
        t[1] += 1
    model: dict[str, list[int]] = {}
    for o in trecs:
        if isinstance(o.get("message"), dict):
            m = model.setdefault(_cls(o), [0, 0])
            m[0] += "model" in o["message"]
            m[1] += 1

    blocks = [(p, o, b) for _, p, recs in tfiles for o in recs if isinstance(o.get("message"), dict)
              and isinstance(o["message"].get("content"), list) for b in o["message"]["content"]
              if isinstance(b, dict) and isinstance(b.get("type"), str)]
    uses = [b for _, _, b in blocks if b["type"] == "tool_use"]
    results = [b for _, _, b in blocks if b["type"] == "tool_result"]
    pairs: Counter[str] = Counter()
    for _, p, _recs in tfiles:
        mine = [b for q, _, b in blocks if q == p]
        cids = {b["id"] for b in mine if b["type"] == "tool_use" and isinstance(b.get("id"), str)}
        rids = [b["tool_use_id"] for b in mine if b["type"] == "tool_result" and isinstance(b.get("tool_use_id"), str)]
        pairs["calls"] += len(cids)
        pairs["results"] += len(rids)
        pairs["paired"] += sum(1 for r in rids if r in cids)
        pairs["orphans"] += sum(1 for r in rids if r not in cids)
        pairs["unpaired_calls"] += len(cids - set(rids))
    flags = Counter("true" if b.get("is_error") is True else "false" if b.get("is_error") is False else "absent"
                    for b in results)
    first_v: dict[Path, str] = {}
    for _, p, recs in tfiles:
        first_v[p] = next((o["version"] for o in recs if isinstance(o.get("version"), str)), "(none)")
    res_files: dict[str, list[int]] = {}
    for p, _, b in blocks:
        if b["type"] == "tool_result":
            r = res_files.setdefault(first_v[p], [0, 0])
            r[0] += 1
            r[1] += isinstance(b.get("is_error"), bool)
    never = sorted((v for v, (n, w) in res_files.items() if n and not w), key=lambda v: (_vkey(v), v))
    tur = Counter(_jtype(o["toolUseResult"]) for o in trecs if "toolUseResult" in o)

    sids: Counter[str] = Counter()
    for s, p, recs in tfiles:
        ids = {o["sessionId"] for o in recs if isinstance(o.get("sessionId"), str)}
        sids["one" if len(ids) == 1 else "none" if not ids else "several"] += 1
        sids["files"] += 1
        if s == "parent":
            sids["parent_files"] += 1
            sids["parent_eq"] += ids == {p.stem}
        else:
            folder = p.relative_to(root).parts[1]
            sids["kid_files"] += 1
            sids["kid_eq"] += folder in ids
    dag: Counter[str] = Counter()
    all_uuids = {o["uuid"] for o in trecs if isinstance(o.get("uuid"), str)}
    for _, _, recs in tfiles:
        us = [o["uuid"] for o in recs if isinstance(o.get("uuid"), str)]
        refs = [o["parentUuid"] for o in recs if isinstance(o.get("parentUuid"), str)]
        dang = [r for r in refs if r not in set(us)]
        dag["uuids"] += len(us)
        dag["files"] += 1
        dag["dup"] += len(us) - len(set(us))
        dag["dup_files"] += len(us) > len(set(us))
        dag["refs"] += len(refs)
        dag["dangling"] += len(dang)
        dag["dangling_files"] += bool(dang)
        dag["elsewhere"] += sum(1 for r in dang if r in all_uuids)

    per_msg: dict[tuple, list[int]] = {}
    for o in trecs:
        msg = o.get("message")
        use = msg.get("usage") if isinstance(msg, dict) else None
        if isinstance(msg, dict) and isinstance(use, dict) and isinstance(msg.get("id"), str) \
                and isinstance(use.get("output_tokens"), int):
            per_msg.setdefault((o.get("sessionId"), msg["id"]), []).append(use["output_tokens"])
    usage = {"records": sum(len(v) for v in per_msg.values()), "messages": len(per_msg),
             "repeated": sum(1 for v in per_msg.values() if len(v) > 1),
             "most": max((len(v) for v in per_msg.values()), default=0),
             "naive": sum(sum(v) for v in per_msg.values()), "dedup": sum(max(v) for v in per_msg.values())}
    th: Counter[str] = Counter()
    for _, _, b in blocks:
        if b["type"] == "thinking":
            th["blocks"] += 1
            th["sig_only" if b.get("thinking") == "" else "text"] += 1
        th["redacted"] += b["type"] == "redacted_thinking"
    kids = {s: {p.relative_to(root).parts[1] for p, _ in by_surface.get(s, [])} for s in ("subagent", "workflow_agent")}
    return {"root": root, "files": len(files), "surfaces": surf, "status": status, "jsonl": len(jrecs),
            "transcript_records": len(trecs), "docs": docs, "classes": classes, "keysets": keysets,
            "vrec": vrec, "versions": versions, "mixing": mixing, "ts": ts, "model": model,
            "btypes": sorted({b["type"] for _, _, b in blocks}),
            "uses": len(uses), "uses_id": sum(1 for b in uses if "id" in b),
            "results": len(results), "results_id": sum(1 for b in results if "tool_use_id" in b),
            "pairs": pairs, "flags": flags, "never": never, "tur": tur, "sids": sids, "dag": dag, "usage": usage,
            "thinking": th, "sessions_with_children": max((len(v) for v in kids.values()), default=0)}


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    s = t["surfaces"]
    transcripts = sum(s[n] for n in TRANSCRIPTS)
    st = t["status"]
    out = {
        "basis_files": f"The corpus holds {fmt(t['files'])} files: {fmt(s['parent'])} parent transcripts, "
                       f"{fmt(s['subagent'])} subagent transcripts, {fmt(s['subagent_meta'])} subagent .meta.json files, "
                       f"{fmt(s['workflow_agent'])} workflow agents, {fmt(s['workflow_meta'])} workflow metas, "
                       f"{fmt(s['journal'])} journals, {fmt(s['tool_result_txt'])} persisted tool-result files and "
                       f"{fmt(s['other'])} other files. Parents are {pct(s['parent'], transcripts)} of the "
                       f"{fmt(transcripts)} transcripts.",
        "record_totals": f"Records: {fmt(sum(st.values()))} read, {fmt(st['ok'])} parsed (the rest are counted under "
                         f"Problems); of the parsed, {fmt(t['jsonl'])} are JSONL lines ({fmt(t['transcript_records'])} "
                         f"in transcripts, {fmt(t['jsonl'] - t['transcript_records'])} in journals) and {fmt(t['docs'])} "
                         "are .meta.json documents. Figures below say which of these they count.",
    }
    cl = t["classes"]
    subs = sorted({c.split("/")[0] for c in cl if "/" in c})
    widest = max(t["keysets"].items(), key=lambda kv: (kv[1], kv[0]), default=("none", 0))
    nks = sum(t["keysets"].values())
    out["record_classes"] = (
        f"{len(cl)} record classes (named type"
        + (f", or type/subtype where a subtype is recorded: {', '.join(subs)}" if subs else "; no record carries a subtype")
        + f") over {fmt(t['jsonl'])} JSONL records, with {fmt(nks)} distinct top-level key sets after masking unreviewed "
        f"keys (up to {widest[1]} for {widest[0]}); {fmt(nks)} distinct before masking; no set holds a masked key, so "
        "masking merged none. A reader must accept classes it does not know.")
    vr = t["vrec"]
    with_v, recs = sum(a for a, _ in vr.values()), sum(b for _, b in vr.values())
    if with_v:
        vs = sorted(t["versions"], key=lambda v: (_vkey(v), v))
        carrying = "; ".join(f"{n} {fmt(a)} of {fmt(b)}" for n, (a, b) in sorted(vr.items()) if a)
        lacking = [n for n, (a, _) in sorted(vr.items()) if not a]
        out["client_version"] = (
            f"The client version is on records: {fmt(with_v)} of {fmt(recs)} parsed records carry `version` ({carrying}"
            + (f"; none in {', '.join(lacking)}" if lacking else "") + f"), {len(vs)} versions ({vs[0]} to {vs[-1]}); "
            f"{fmt(t['mixing'])} files hold records of more than one version (each file counted once). Shapes below "
            "can be stratified by it.")
    else:
        out["client_version"] = (f"No parsed record carries a `version` key ({fmt(recs)} records): shapes cannot be "
                                 "stratified by client version here.")
    w = [(m, a, n) for m, (a, n) in t["model"].items() if a]
    msgs = sum(n for _, n in t["model"].values())
    w.sort(key=lambda x: (-x[2], x[0]))  # as the query orders them: most message objects first, then by name
    out["model"] = (("`message.model` is on " + "; ".join(f"{c} {fmt(a)} of {fmt(n)}" for c, a, n in w)
                     + f" message objects ({fmt(sum(a for _, a, _ in w))} of {fmt(msgs)} in all).") if w else
                    f"No `message` object carries a `model` key ({fmt(msgs)} message objects).")
    out["block_types"] = (f"message.content holds {len(t['btypes'])} block types in transcripts: "
                          f"{', '.join(t['btypes']) or 'none'}.")
    si = t["sids"]
    out["file_identity"] = (
        f"sessionId: {fmt(si['one'])} of {fmt(si['files'])} transcripts carry exactly one, {fmt(si['several'])} several, "
        f"{fmt(si['none'])} none. A parent's sessionId equals its file name in {fmt(si['parent_eq'])} of "
        f"{fmt(si['parent_files'])} parent files; a subagent or workflow file carries its parent session's id (the "
        f"folder name) in {fmt(si['kid_eq'])} of {fmt(si['kid_files'])}.")
    d = t["dag"]
    out["uuid_dag"] = (
        f"Records carry `uuid` ({fmt(d['uuids'])} in {fmt(d['files'])} transcripts) and {fmt(d['refs'])} carry a "
        f"`parentUuid`: {fmt(d['dup'])} duplicate uuids (in {fmt(d['dup_files'])} files) and {fmt(d['dangling'])} "
        f"parentUuid values naming no record of their file (in {fmt(d['dangling_files'])} files; {fmt(d['elsewhere'])} "
        "found in another file)." if d["uuids"] else
        f"No transcript record carries a `uuid` ({fmt(d['files'])} transcripts): records are not chained by id.")
    nc, ni, nr, nri, pr = t["uses"], t["uses_id"], t["results"], t["results_id"], t["pairs"]
    if not nc:
        out["native_call_id"] = "No tool_use block was observed in transcripts."
    elif not ni:
        out["native_call_id"] = (f"Calls carry no native id: none of {fmt(nc)} tool_use blocks has an `id`, so a result "
                                 "cannot be joined to its call by id.")
    else:
        out["native_call_id"] = (
            ("Calls carry a native id" if ni == nc else "Only some calls carry a native id")
            + f": `id` on {fmt(ni)} of {fmt(nc)} tool_use blocks, `tool_use_id` on {fmt(nri)} of {fmt(nr)} tool_result "
            f"blocks. Within a file, {fmt(pr['paired'])} of {fmt(pr['results'])} results with an id answer a call; "
            f"{fmt(pr['unpaired_calls'])} of {fmt(pr['calls'])} calls with an id have no result; {fmt(pr['orphans'])} "
            "results name no call of their file.")
    tur = sum(t["tur"].values())
    out["results_recorded"] = (f"Results are recorded: {fmt(nr)} tool_result blocks in transcripts, and {fmt(tur)} "
                               "records carry a client-side `toolUseResult`." if nr or tur else
                               "No tool result was observed: no tool_result block and no `toolUseResult` in any transcript.")
    types = sorted(t["tur"].items(), key=lambda kv: (-kv[1], kv[0]))  # most records first, then by name
    out["tool_use_result_types"] = (
        ("toolUseResult JSON types: " + ", ".join(f"{k} in {fmt(n)}" for k, n in types) + " records"
         + ("; the table below shows which tools write which." if len(types) > 1 else ".")) if types
        else "No record carries a toolUseResult.")
    f = t["flags"]
    out["failure_flag"] = (
        f"is_error is true on {fmt(f['true'])}, false on {fmt(f['false'])} and absent on {fmt(f['absent'])} of "
        f"{fmt(nr)} tool_result blocks"
        + (f"; files whose first version is {', '.join(t['never'])} never write it." if t["never"] and nr else "."))
    u = t["usage"]
    if not u["records"]:
        out["usage"] = "No record carries message.usage with a message.id: usage was not observed."
    else:
        out["usage"] = (
            f"Usage is recorded per record: {fmt(u['records'])} records carry message.usage with a message.id, holding "
            f"{fmt(u['messages'])} message ids ({fmt(u['repeated'])} on more than one record, up to {fmt(u['most'])} "
            f"records each). A naive sum of output_tokens ({fmt(u['naive'])}) "
            + (f"over-counts the sum de-duplicated on sessionId + message.id ({fmt(u['dedup'])}) by a factor of "
               f"{round(u['naive'] / u['dedup'], 3)}: token sums must de-duplicate on (sessionId, message.id)."
               if u["naive"] > u["dedup"] else
               f"equals the sum de-duplicated on sessionId + message.id ({fmt(u['dedup'])})."))
    out["message_spans_records"] = (
        f"One message.id spans several records in {fmt(u['repeated'])} of {fmt(u['messages'])} messages: message.id "
        "is not a call id and not a record id." if u["repeated"] else
        f"Each of {fmt(u['messages'])} message ids with usage sits on one record in this snapshot.")
    th = t["thinking"]
    out["thinking"] = (f"{fmt(th['sig_only'])} of {fmt(th['blocks'])} thinking blocks ({pct(th['sig_only'], th['blocks'])}) "
                       f"are signature-only (empty thinking text); {fmt(th['text'])} carry text; {fmt(th['redacted'])} "
                       "redacted_thinking blocks.")
    out["subagent_files"] = (
        f"{fmt(s['subagent'])} subagent transcripts (subagents/agent-<id>.jsonl) beside {fmt(s['subagent_meta'])} "
        f".meta.json files, and {fmt(s['workflow_agent'])} workflow agents (subagents/workflows/wf_<id>/) beside "
        f"{fmt(s['workflow_meta'])} metas, in {fmt(t['sessions_with_children'])} sessions.")
    out["model_call_id"] = (f"`tool_use.id` (on {fmt(ni)} of {fmt(nc)} calls), answered by `tool_result.tool_use_id` "
                            f"(on {fmt(nri)} of {fmt(nr)} results)" if ni else
                            f"none observed ({fmt(nc)} calls, none with an `id`)")
    out["model_result"] = (f"recorded: {fmt(nr)} tool_result blocks, {fmt(tur)} `toolUseResult` values" if nr or tur
                           else "not observed")
    return out


CHECKED = ("basis_files", "record_totals", "record_classes", "client_version", "model", "block_types", "file_identity",
           "uuid_dag", "native_call_id", "results_recorded", "tool_use_result_types", "failure_flag", "usage",
           "message_spans_records", "thinking", "subagent_files", "model_call_id", "model_result")


def _jsonl(recs: list[dict]) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in recs)


def _rec(t: str, **kw: Any) -> dict:
    return {"type": t, "sessionId": SID, **kw}


def _bare(base: Path) -> Path:
    """One parent transcript: no version, uuid, call, result, usage, model or thinking block."""
    root = base / "corpus"
    (root / "-w").mkdir(parents=True)
    (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([
        _rec("user", message={"role": "user", "content": "q"}),
        _rec("summary", summary="s"),
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "t"}]}},
        {"type": "summary", "summary": "s"}]))  # two key sets each for user and summary: the widest is a tie
    return root


def _some(base: Path) -> Path:
    """A parent whose calls only sometimes carry an id (one with an id unanswered), with results
    of more than twelve block key sets between them (some with an id, one naming no call), usage
    on one record per message, two versions in one file, a thinking block with text, a model on
    messages of two classes (the class with more messages not first by name), a string and an
    object toolUseResult, and one result whose persisted target is gone, with the marker."""
    root = base / "corpus"
    (root / "-w").mkdir(parents=True)
    use = {"type": "tool_use", "name": "Bash", "input": {}}
    gone = f"/home/u/.claude/projects/-w/{SID}/tool-results/gone.txt"
    (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([
        _rec("assistant", version="2.0.1", uuid="u1", timestamp="2026-01-01T00:00:00Z",
             message={"role": "assistant", "id": "m1", "model": "x", "usage": {"output_tokens": 7},
                      "content": [{**use, "id": "c1"}, use, {**use, "id": "c2"}, {"type": "tool_use", "name": "Read",
                                                                                  "id": "c3"},
                                  {"type": "tool_use", "name": "Read"},
                                  {"type": "thinking", "thinking": "t", "signature": "g"}]}),
        _rec("user", version="2.0.10", uuid="u2", parentUuid="u1", toolUseResult="r",
             message={"role": "user", "model": "y",
                      "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "o"},
                                  {"type": "tool_result", "content": "o", "is_error": True}]}),
        _rec("user", version="2.0.10", uuid="u4", parentUuid="u2", toolUseResult={"persistedOutputPath": gone},
             message={"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "c3", "content": f"<persisted-output>{gone}</persisted-output>"},
                 {"type": "tool_result"}, {"type": "tool_result", "tool_use_id": "c9"},
                 {"type": "tool_result", "is_error": False}, {"type": "tool_result", "tool_use_id": "c9", "is_error": False},
                 {"type": "tool_result", "content": "o", "tool_use_id": "c3", "is_error": False},
                 {"type": "tool_result", "content": "o"}, {"type": "text", "text": "t"}]}),
        _rec("user", version="2.0.10", uuid="u5", parentUuid="u4", message={"role": "user", "content": "q"}),
        _rec("assistant", version="2.0.10", uuid="u3", parentUuid="u9",
             message={"role": "assistant", "id": "m2", "usage": {"output_tokens": 5}, "content": []})]))
    return root


SUB, WF = "sub7q", "wf7q"  # agent ids, named in the parent's bytes


def _moved(base: Path) -> Path:
    """A parent whose output was moved to a tool-results file that is there (no marker, no
    tool_result block: only toolUseResult values, one with exitCode and one with exit_code),
    whose calls are a reviewed and an MCP name (withheld by policy, none unreviewed), with a
    subagent and a workflow agent the parent names, each with a meta naming a parent call."""
    root = base / "corpus"
    kids = root / "-w" / SID / "subagents"
    (kids / "workflows" / "wf_1").mkdir(parents=True)
    (root / "-w" / SID / "tool-results").mkdir()
    (root / "-w" / SID / "tool-results" / "t1.txt").write_bytes(b"x" * 10)
    path = f"/home/u/.claude/projects/-w/{SID}/tool-results/t1.txt"
    (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([
        _rec("assistant", message={"role": "assistant", "model": "x", "content": [
            {"type": "tool_use", "id": "c1", "name": "mcp__srv__q", "input": {}},
            {"type": "tool_use", "id": "c2", "name": "Bash", "input": {}}]}),
        _rec("user", toolUseResult={"persistedOutputPath": path, "exitCode": 0, "agentId": SUB},
             message={"role": "user", "content": "q"}),
        _rec("user", toolUseResult={"exit_code": 1, "agentId": WF}, message={"role": "user", "content": "q"})]))
    (kids / f"agent-{SUB}.jsonl").write_bytes(_jsonl([_rec("user", message={"role": "user", "content": "q"})]))
    (kids / f"agent-{SUB}.meta.json").write_bytes(orjson.dumps({"toolUseId": "c2"}))
    (kids / "workflows" / "wf_1" / f"agent-{WF}.jsonl").write_bytes(
        _jsonl([_rec("user", message={"role": "user", "content": "q"})]))
    (kids / "workflows" / "wf_1" / f"agent-{WF}.meta.json").write_bytes(orjson.dumps({"toolUseId": "c1"}))
    return root


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    base = tmp_path_factory.mktemp("cc-gen")
    generate(base / "corpus", seed=3, sessions=8)
    return read(base / "corpus"), surveyed_claims("claude_code", base / "corpus", base)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    base = tmp_path_factory.mktemp("cc-bare")
    return read(_bare(base)), surveyed_claims("claude_code", base / "corpus", base)


@pytest.fixture(scope="module")
def some(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    base = tmp_path_factory.mktemp("cc-some")
    return read(_some(base)), surveyed_claims("claude_code", base / "corpus", base)


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    base = tmp_path_factory.mktemp("cc-moved")
    return read(_moved(base)), surveyed_claims("claude_code", base / "corpus", base)


@pytest.fixture(scope="module")
def empty(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """A corpus holding one file of no surface: nothing is walked."""
    base = tmp_path_factory.mktemp("cc-empty")
    (base / "corpus").mkdir()
    (base / "corpus" / "notes.txt").write_bytes(b"x\n")
    return read(base / "corpus"), surveyed_claims("claude_code", base / "corpus", base)


@pytest.fixture(scope="module")
def corpora(generated, bare, some, moved, empty) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [generated, bare, some, moved, empty]


@pytest.mark.parametrize("cid", CHECKED)
def test_each_sentence_states_the_counted_figures(cid: str, corpora) -> None:
    for t, c in corpora:
        assert c[cid]["text"] == expected_text(t)[cid], cid


def test_the_generated_corpus_shows_each_planted_case(generated) -> None:
    t, _ = generated
    assert t["status"]["blank"] and t["status"]["malformed"] and t["status"]["partial"]
    assert t["dag"]["dup"] and t["dag"]["dangling"] and t["pairs"]["orphans"] and t["usage"]["repeated"]
    assert t["never"] and t["flags"]["true"] and t["flags"]["false"] and len(t["tur"]) > 1


def test_values_carry_the_counted_figures(corpora) -> None:
    for t, c in corpora:
        s = t["surfaces"]
        assert c["basis_files"]["value"] == {"total": t["files"], **{n: s[n] for n in (*SURFACES, "other")}}
        assert c["layout"]["value"] == {n: s[n] for n in SURFACES if s[n]}
        st = t["status"]
        assert c["record_totals"]["value"] == {"read": sum(st.values()), "ok": st["ok"], "jsonl": t["jsonl"],
                                               "transcripts": t["transcript_records"], "meta_docs": t["docs"]}
        rc = c["record_classes"]["value"]
        assert rc == {"records": dict(sorted(t["classes"].items())), "keysets": sum(t["keysets"].values()),
                      "masked_keysets": 0, "keysets_raw": sum(t["keysets"].values()), "whole_corpus": True}
        assert c["client_version"]["value"] == {"versions": dict(t["versions"]), "files_mixing": t["mixing"],
                                                "records_with_version": sum(a for a, _ in t["vrec"].values())}
        tsv = c["timestamps"]["value"]
        assert (tsv["with"], tsv["records"]) == (sum(a for a, _ in t["ts"].values()), t["jsonl"])
        assert sorted(tsv["without"]) == sorted(k for k, (a, _) in t["ts"].items() if not a)
        assert sorted(tsv["partial"]) == sorted(k for k, (a, n) in t["ts"].items() if 0 < a < n)
        assert c["model"]["value"] == {k: v for k, v in t["model"].items() if v[0]}
        si = t["sids"]
        assert c["file_identity"]["value"] == [si["parent_eq"], si["parent_files"], si["kid_eq"], si["kid_files"],
                                               si["several"]]
        d = t["dag"]
        assert c["uuid_dag"]["value"] == {"uuids": d["uuids"], "parent_refs": d["refs"], "duplicate_uuids": d["dup"],
                                          "dangling_parents": d["dangling"]}
        pr = t["pairs"]
        assert c["native_call_id"]["value"] == {
            "calls": t["uses"], "calls_with_id": t["uses_id"], "results": t["results"], "results_with_id": t["results_id"],
            "paired": pr["paired"], "unpaired_calls": pr["unpaired_calls"], "orphan_results": pr["orphans"]}
        assert c["model_call_id"]["value"] == t["uses_id"]
        assert c["results_recorded"]["value"] == {"blocks": t["results"], "tool_use_result": sum(t["tur"].values())}
        assert c["model_result"]["value"] == c["results_recorded"]["value"]
        assert c["tool_use_result_types"]["value"] == dict(t["tur"])
        f = t["flags"]
        assert c["failure_flag"]["value"] == {"true": f["true"], "false": f["false"], "absent": f["absent"]}
        u = t["usage"]
        assert c["usage"]["value"] == {"records": u["records"], "messages_repeated": u["repeated"],
                                       "naive_output_tokens": u["naive"], "dedup_output_tokens": u["dedup"],
                                       "factor": round(u["naive"] / u["dedup"], 3) if u["dedup"] else None}
        assert c["message_spans_records"]["value"] == u["repeated"]
        th = t["thinking"]
        assert c["thinking"]["value"] == {"signature_only": th["sig_only"], "with_text": th["text"]}
        assert c["subagent_files"]["value"] == {"subagent": s["subagent"], "subagent_meta": s["subagent_meta"],
                                                "workflow_agent": s["workflow_agent"], "workflow_meta": s["workflow_meta"],
                                                "sessions": t["sessions_with_children"]}
        mo = c["model_outcome"]["value"]["is_error"]
        assert mo == c["failure_flag"]["value"]
        assert c["model_outcome"]["text"].startswith(
            f"`is_error` on {fmt(f['true'] + f['false'])} of {fmt(t['results'])} results (absent on {fmt(f['absent'])}); ")


def test_the_walk_basis_counts_records(corpora) -> None:
    for t, c in corpora:
        assert c["basis_frames"]["value"]["ok"] == t["status"]["ok"]
        assert f": {fmt(t['status']['ok'])} records parsed; " in c["basis_frames"]["text"]


def test_an_empty_corpus_names_each_empty_list_as_none(empty) -> None:
    _, c = empty
    for cid, i in (("layout", 0), ("client_version", 1), ("model", 0), ("child_in_parent", 0), ("meta_join", 0),
                   ("fixtures", 1)):
        assert c[cid]["evidence"][i]["result"] == "none", cid
    assert c["sidechain"]["text"] == "isSidechain by surface (records): none."
    assert c["tool_names"]["text"] == "0 tool names shown over 0 calls; no name was withheld. Tool names are an open set."
    assert c["oversized_output"]["text"] == ("No output was observed moved out of a transcript: no persistedOutputPath, "
                                             "no <persisted-output> marker and no tool-results/ file.")
    assert c["model_outcome"]["text"] == "`is_error` on 0 of 0 results (absent on 0); no exit code key observed"


def test_layout_names_the_surfaces_seen_and_unseen(corpora) -> None:
    from survey.runtimes.claude_code import PROFILE

    desc = {s.name: s.description.split(":")[0] for s in PROFILE.surfaces}
    for t, c in corpora:
        text, result = layout_text(desc, t["surfaces"])
        assert (c["layout"]["text"], c["layout"]["evidence"][0]["result"]) == (text, result)


def test_timestamps_name_the_classes_without_one(corpora) -> None:
    for t, c in corpora:
        v = c["timestamps"]["value"]
        w, n = sum(a for a, _ in t["ts"].values()), t["jsonl"]
        assert c["timestamps"]["text"] == (
            f"{fmt(w)} of {fmt(n)} JSONL records ({pct(w, n)}) carry a top-level `timestamp`; "
            + (f"classes without one: {', '.join(v['without'])}" if v["without"] else "no class is without one")
            + (f"; classes where only some carry one: {', '.join(v['partial'])}." if v["partial"] else "."))


def test_fixtures_list_the_shapes_counted(corpora) -> None:
    for t, c in corpora:
        f, u, d, nv = t["flags"], t["usage"], t["dag"], len(t["versions"])
        items = [*([f"one file per client version ({nv} seen)"] if nv else []),
                 *([f"a file holding several versions ({fmt(t['mixing'])} seen)"] if t["mixing"] else []),
                 *(f"a `{k}` record ({fmt(n)} seen)" for k, n in sorted(t["classes"].items()) if k.startswith("system/")),
                 *([f"a message spread over several records ({fmt(u['repeated'])} seen)"] if u["repeated"] else []),
                 *(f"a tool_result with is_error {k} ({fmt(f[k])} seen)" for k in ("true", "false", "absent") if f[k]),
                 *([f"a string toolUseResult ({fmt(t['tur']['string'])} seen)"] if t["tur"]["string"] else [])]
        got = c["fixtures"]["value"]
        assert got[: len(items)] == items
        ov = c["oversized_output"]["value"]
        s = t["surfaces"]
        rest = [*([f"a subagent transcript with its .meta.json ({fmt(s['subagent'])} seen)"] if s["subagent"] else []),
                *([f"a workflow folder ({fmt(s['workflow_agent'])} agents seen)"] if s["workflow_agent"] else []),
                *([f"a persisted-output result with its tool-results file ({fmt(ov['present'])} seen)"]
                  if ov["present"] else []),
                *([f"a persisted-output result whose target is gone ({fmt(ov['missing'])} seen)"] if ov["missing"] else []),
                *([f"a call without a result ({fmt(t['pairs']['unpaired_calls'])} seen)"]
                  if t["pairs"]["unpaired_calls"] else []),
                *([f"a duplicated record ({fmt(d['dup'])} seen)"] if d["dup"] else []),
                *([f"a dangling parentUuid ({fmt(d['dangling'])} seen)"] if d["dangling"] else [])]
        assert got == items + rest
        assert c["fixtures"]["text"] == ("Shapes this snapshot shows, each worth one fixture: "
                                         + ("; ".join(got) or "none") + ".")


def _tools_corpus(base: Path) -> Path:
    """One parent: a reviewed name called three times, an MCP and an unreviewed tool name, no
    call with an id, a result without one, a record with an unreviewed top-level key, and three
    attachments of unreviewed types (withheld values at a path that sorts before the tool names')."""
    root = base / "corpus"
    (root / "-w").mkdir(parents=True)
    uses: list[dict[str, Any]] = [{"type": "tool_use", "name": n, "input": {}}
                                  for n in ("Bash", "Bash", "Bash", "mcp__srv__q", "zqunknowntool")]
    (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([
        _rec("assistant", message={"role": "assistant", "content": uses}),
        _rec("user", zqextra=1, message={"role": "user", "content": [{"type": "tool_result", "content": "o"}]}),
        *(_rec("attachment", attachment={"type": t}) for t in ("zqatt1", "zqatt2", "zqatt3"))]))
    return root


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, ...]:
    a, b, d = (tmp_path_factory.mktemp(n) for n in ("cc-tools", "cc-tools-mcp", "cc-tools-discover"))
    return (surveyed_claims("claude_code", _tools_corpus(a), a),
            surveyed_claims("claude_code", _tools_corpus(b), b, allow_mcp=True),
            surveyed_claims("claude_code", _tools_corpus(d), d, allow_mcp=True, mode="discover"),
            read(a / "corpus"))


def _names(root: Path) -> tuple[Counter[str], Counter[str]]:
    """The tool_use names called, and the distinct unreviewed values at each value-map path the
    planted records use (attachment types), from the files."""
    from survey.runtimes.base import load_vocab

    _, values = load_vocab("claude_code")
    calls: Counter[str] = Counter()
    withheld: Counter[str] = Counter()
    for _, _, b in _blocks(root):
        if b["type"] == "tool_use":
            calls[b["name"]] += 1
    for p in sorted(root.rglob("*.jsonl")):
        att = {o["attachment"]["type"] for o in jsonl_objects(p) if isinstance(o.get("attachment"), dict)}
        withheld["$.attachment.type"] += len(att - set(values.get("$.attachment.type", ())))
    return calls, withheld


def test_tool_names_withheld_by_policy_or_unreviewed(tools) -> None:
    c, strict, shown, t = tools
    calls, other = _names(t["root"])
    mcp = sum(n for x, n in calls.items() if x.startswith("mcp__"))
    unrev = sum(n for x, n in calls.items() if x not in ("Bash",) and not x.startswith("mcp__"))
    total, distinct = sum(calls.values()), sum(1 for x in calls if x != "Bash")
    # withheld values elsewhere outnumber the withheld names, and the shown name is called more often
    # than the withheld ones: the count of withheld names is the tool-name path's own
    assert other["$.attachment.type"] > distinct and calls["Bash"] > mcp + unrev
    assert c["tool_names"]["text"] == (
        f"1 tool names shown over {total} calls; {mcp + unrev} calls carry {distinct} withheld names: {mcp} calls an MCP "
        f"name (mcp__<server>__<tool>, withheld by policy), {unrev} calls a name outside the reviewed vocabulary "
        "(withheld as unreviewed). Tool names are an open set.")
    assert (c["tool_names"]["value"]["withheld_mcp"], c["tool_names"]["value"]["withheld_unreviewed"]) == (mcp, unrev)
    # allowed by policy, an MCP name is still outside a strict gate's reviewed vocabulary: withheld, never said shown
    assert strict["tool_names"]["text"] == (
        f"1 tool names shown over {total} calls; {mcp + unrev} calls carry {distinct} withheld names: {mcp + unrev} calls "
        "a name outside the reviewed vocabulary (withheld as unreviewed). Tool names are an open set.")
    assert (strict["tool_names"]["value"]["withheld_mcp"], strict["tool_names"]["value"]["withheld_unreviewed"]) == \
        (0, mcp + unrev)
    assert shown["tool_names"]["text"] == (
        f"{len(calls)} tool names shown over {total} calls; no name was withheld; {mcp} calls carry an MCP name, shown "
        "(--allow-mcp-names). Tool names are an open set.")
    assert shown["tool_names"]["value"]["names"] == dict(calls)


def test_only_mcp_names_withheld(moved) -> None:
    """Every withheld name is an MCP name: no unreviewed part is stated."""
    t, c = moved
    calls, _ = _names(t["root"])
    mcp = sum(n for x, n in calls.items() if x.startswith("mcp__"))
    assert mcp and calls["Bash"] and set(calls) == {"Bash", *(x for x in calls if x.startswith("mcp__"))}
    assert c["tool_names"]["text"] == (
        f"1 tool names shown over {sum(calls.values())} calls; {mcp} calls carry {len(calls) - 1} withheld names: {mcp} "
        "calls an MCP name (mcp__<server>__<tool>, withheld by policy). Tool names are an open set.")
    assert (c["tool_names"]["value"]["withheld_mcp"], c["tool_names"]["value"]["withheld_unreviewed"]) == (mcp, 0)


def test_results_without_a_client_side_result_and_the_reverse(tools, moved) -> None:
    """tool_result blocks and no toolUseResult (the tools corpus), toolUseResult values and no
    tool_result block (the moved corpus): either is a recorded result."""
    for t, c in ((tools[3], tools[0]), moved):
        nr, tur = t["results"], sum(t["tur"].values())
        assert bool(nr) != bool(tur)
        assert c["results_recorded"]["text"] == (f"Results are recorded: {fmt(nr)} tool_result blocks in transcripts, and "
                                                 f"{fmt(tur)} records carry a client-side `toolUseResult`.")
        assert c["model_result"]["text"] == f"recorded: {fmt(nr)} tool_result blocks, {fmt(tur)} `toolUseResult` values"


def test_calls_without_an_id_and_a_masked_key_set(tools) -> None:
    c, t = tools[0], tools[3]
    assert c["native_call_id"]["text"] == (f"Calls carry no native id: none of {t['uses']} tool_use blocks has an `id`, so "
                                           "a result cannot be joined to its call by id.")
    assert c["model_call_id"]["text"] == f"none observed ({t['uses']} calls, none with an `id`)"
    rc = c["record_classes"]
    assert rc["value"]["masked_keysets"] == 1
    assert ("1 of those sets hold a masked key, so masking may have merged sets that differ. A reader must accept "
            "classes it does not know.") in rc["text"]


def _children(root: Path) -> dict[str, Any]:
    """isSidechain by surface, children named in their parent file, and metas' toolUseId joins."""
    side: dict[str, Counter[str]] = {}
    lineage = {"subagent": [0, 0], "workflow_agent": [0, 0]}
    kid_files: Counter[str] = Counter()
    calls: dict[Path, set[str]] = {}
    metas = {"subagent_meta": [0, 0, 0, 0], "workflow_meta": [0, 0, 0, 0]}  # metas, with id, in parent, anywhere
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    surface = {p: next((n for n, rx in SURFACES.items() if rx.match(p.relative_to(root).as_posix())), "other")
               for p in files}
    for p in files:
        if surface[p] not in (*TRANSCRIPTS, "journal"):
            continue
        recs = jsonl_objects(p)
        for o in recs:
            v = o.get("isSidechain", "(absent)")
            side.setdefault(surface[p], Counter())[v if v == "(absent)" else json.dumps(v)] += 1
        calls[p] = {b["id"] for o in recs if isinstance(o.get("message"), dict)
                    and isinstance(o["message"].get("content"), list) for b in o["message"]["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)}
    for p in files:
        rel = p.relative_to(root).parts
        parent = root / rel[0] / f"{rel[1]}.jsonl" if len(rel) > 2 else None
        kid_files[surface[p]] += surface[p] in lineage
        if surface[p] in lineage and parent is not None and parent.is_file():
            lineage[surface[p]][1] += 1
            lineage[surface[p]][0] += p.stem.removeprefix("agent-").encode() in parent.read_bytes()
        if surface[p] in metas:
            m = metas[surface[p]]
            tid = json.loads(p.read_bytes()).get("toolUseId")
            m[0] += 1
            m[1] += isinstance(tid, str)
            m[2] += parent is not None and tid in calls.get(parent, set())
            m[3] += any(tid in c for c in calls.values())
    return {"side": side, "lineage": lineage, "metas": metas, "kid_files": kid_files}


def test_children_sidechains_and_meta_joins(corpora) -> None:
    for t, c in corpora:
        ch = _children(t["root"])
        assert c["sidechain"]["value"] == {s: dict(v) for s, v in ch["side"].items()}
        parts = [f"{s}: " + ", ".join(f"{v} {fmt(n)}" for v, n in sorted(d.items()))
                 for s, d in sorted(ch["side"].items()) if s in TRANSCRIPTS]
        assert c["sidechain"]["text"] == "isSidechain by surface (records): " + ("; ".join(parts) or "none") + "."
        sa, wf = ch["lineage"]["subagent"], ch["lineage"]["workflow_agent"]
        assert c["child_in_parent"]["value"] == [*sa, *wf]
        assert c["child_in_parent"]["text"] == (
            f"The parent transcript names the child's agent id for {fmt(sa[0])} of {fmt(sa[1])} subagent files and "
            f"{fmt(wf[0])} of {fmt(wf[1])} workflow agents whose parent was walked (the agent id found anywhere in the "
            "parent file's bytes).")
        m, w = ch["metas"]["subagent_meta"], ch["metas"]["workflow_meta"]
        assert c["meta_join"]["value"] == [m[2], m[0]]
        assert c["meta_join"]["text"] == (
            f"A subagent .meta.json toolUseId names a tool_use call in its session's parent file for {fmt(m[2])} of "
            f"{fmt(m[0])} metas ({fmt(m[0] - m[1])} carry no toolUseId; {fmt(m[3] - m[2])} name a call of another "
            f"transcript). Workflow metas carrying one: {fmt(w[1])} of {fmt(w[0])}.")
        # the evidence: one row per child surface (by name) with a file, and per meta surface with a meta
        assert c["child_in_parent"]["evidence"][0]["result"] == ("; ".join(
            f"{s} {ch['lineage'][s][0]}/{n}" for s, n in sorted(ch["kid_files"].items()) if n) or "none")
        assert c["meta_join"]["evidence"][0]["result"] == ("; ".join(
            f"{s} {v[2]}/{v[0]}" for s, v in sorted(ch["metas"].items()) if v[0]) or "none")
    # both child surfaces and both meta surfaces in one corpus, a workflow agent named in its parent
    assert any(_children(t["root"])["lineage"]["workflow_agent"][0] and
               all(v[0] for v in _children(t["root"])["metas"].values()) for t, _ in corpora)


def _session_rows(root: Path) -> list[str]:
    """Per transcript surface with a file (by name): files whose one sessionId is the file's own
    id (a parent's file name, a child's agent id) / its parent folder's id / files."""
    rows: dict[str, list[int]] = {}
    for p in sorted(root.rglob("*.jsonl")):
        rel = p.relative_to(root).as_posix()
        s = next((n for n, rx in SURFACES.items() if rx.match(rel)), "other")
        if s not in TRANSCRIPTS:
            continue
        ids = {o["sessionId"] for o in jsonl_objects(p) if isinstance(o.get("sessionId"), str)}
        own = p.stem.removeprefix("agent-") if s != "parent" else p.stem
        folder = p.relative_to(root).parts[1] if s != "parent" else None
        r = rows.setdefault(s, [0, 0, 0])
        r[0] += ids == {own}
        r[1] += folder is not None and ids == {folder}
        r[2] += 1
    return [f"{s}: {a}/{b}/{n}" for s, (a, b, n) in sorted(rows.items())]


def test_identity_evidence_names_each_transcript_surface(corpora) -> None:
    for t, c in corpora:
        assert c["file_identity"]["evidence"][0]["result"] == "; ".join(_session_rows(t["root"]))
    assert any(len(_session_rows(t["root"])) == 3 for t, _ in corpora)


HEADLINES = {"client_version", "file_identity", "native_call_id", "failure_flag", "usage"}
OWN = ("basis_files", "layout", "record_totals", "record_classes", "client_version", "timestamps", "model", "block_types",
       "file_identity", "uuid_dag", "native_call_id", "results_recorded", "tool_use_result_types", "failure_flag",
       "tool_names", "exit_codes", "subagent_files", "child_in_parent", "meta_join", "sidechain", "oversized_output",
       "result_lengths", "thinking", "skill_evidence", "usage", "message_spans_records", "no_cost", "no_call_id",
       "no_session_end", "persisted_marker", "is_error_true", "skill_text", "model_call_id", "model_result",
       "model_outcome", "fixtures")


def test_headlines_are_the_five_findings(corpora) -> None:
    for _, c in corpora:
        assert {cid for cid in OWN if c[cid]["headline"]} == HEADLINES


def test_versions_evidence_names_each_version(corpora) -> None:
    for t, c in corpora:
        vs = sorted(t["versions"].items(), key=lambda kv: (_vkey(kv[0]), kv[0]))
        with_v, recs = sum(a for a, _ in t["vrec"].values()), sum(b for _, b in t["vrec"].values())
        ev = c["client_version"]["evidence"]
        assert ev[0]["result"] == f"{with_v}/{recs} records, {t['mixing']} files with several versions"
        assert ev[1]["result"] == ("; ".join(f"{v} {n} records" for v, n in vs) or "none")


LITERALS = {"persisted_marker": ("The literal <persisted-output>", b"<persisted-output>"),
            "is_error_true": ('The literal "is_error":true', b'"is_error":true'),
            "skill_text": ('The literal "Skill"', b'"Skill"')}


def test_absences_name_what_was_looked_for_with_the_counted_files(corpora) -> None:
    for t, c in corpora:
        jsonl = [p.read_bytes() for p in sorted(t["root"].rglob("*.jsonl"))]
        n = len(jsonl)
        for cid, (what, lit) in LITERALS.items():
            files, hits = sum(lit in b for b in jsonl), sum(b.count(lit) for b in jsonl)
            assert c[cid]["text"] == (f"{what}: observed in {fmt(files)} of {fmt(n)} files ({fmt(hits)} hits)" if files
                                      else f"{what}: not observed in {fmt(n)} files (0 hits by DuckDB and by rg)"), cid
            assert c[cid]["value"] is (files == 0)
        end = sum(b'"SessionEnd"' in b or b'"session_end"' in b for b in jsonl)
        assert c["no_session_end"]["text"].startswith("A session-end record or hook: ")
        assert c["no_session_end"]["value"] is (end == 0)
        for cid, what, keys in (("no_cost", "A cost figure (costUSD / cost_usd)", ("costUSD", "cost_usd")),
                                ("no_call_id", "A call_id / tool_call_id key", ("call_id", "tool_call_id")),
                                ("exit_codes", "An exit code (exitCode / exit_code)", ("exitCode", "exit_code"))):
            quoted = {k: b'"' + k.encode() + b'"' for k in keys}
            by_text = ", ".join(f"{k} in {fmt(sum(quoted[k] in b for b in jsonl))}" for k in keys)
            assert c[cid]["text"].endswith(f"; by text: {by_text} of {fmt(n)} files."), cid
            if cid != "exit_codes":
                assert c[cid]["text"].startswith(f"{what}: not observed as a key ("
                                                 + ", ".join(f"`{k}`" for k in keys) + ") at any path in "), cid
                assert c[cid]["value"] is True
            assert c[cid]["text"].startswith(f"{what}: "), cid


def _masked_corpus(base: Path, mask: str) -> Path:
    """A dynamic top-level key (not identifier-shaped), or a reviewed key in one file of two."""
    root = base / "corpus"
    (root / "-w").mkdir(parents=True)
    if mask == "dynamic":
        (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([_rec("summary", summary="s"),
                                                          {**_rec("summary", summary="s"), "a b": 1}]))
    else:
        (root / "-w" / f"{SID}.jsonl").write_bytes(_jsonl([_rec("summary", summary="s", timestamp="2026-01-01")]))
        (root / "-w" / f"{SID[:-1]}2.jsonl").write_bytes(_jsonl([_rec("summary", summary="s")]))
    return root


@pytest.mark.parametrize("mask", ["dynamic", "rare"])
def test_each_kind_of_masked_key_is_counted(mask: str, tmp_path: Path) -> None:
    root = _masked_corpus(tmp_path, mask)
    c = surveyed_claims("claude_code", root, tmp_path, **({"min_files": 2} if mask == "rare" else {}))
    rc = c["record_classes"]
    assert rc["value"]["masked_keysets"] == 1, mask
    assert ("1 of those sets hold a masked key, so masking may have merged sets that differ. A reader must accept "
            "classes it does not know.") in rc["text"], mask


def test_a_sampled_survey_is_said_not_whole(tmp_path: Path) -> None:
    root = _tools_corpus(tmp_path)
    c = surveyed_claims("claude_code", root, tmp_path, sample_n=1)
    assert c["record_classes"]["value"]["whole_corpus"] is False


def _moved_and_skills(root: Path) -> dict[str, Any]:
    """Persisted-output figures, Skill calls and tool_result blocks, counted from the files."""
    out: Counter[str] = Counter()
    for p in sorted(root.rglob("*.jsonl")):
        if p.relative_to(root).as_posix().count("/") > 1 and "/subagents/" not in p.relative_to(root).as_posix():
            continue
        skill = 0
        for o in jsonl_objects(p):
            tur = o.get("toolUseResult")
            if isinstance(tur, dict) and isinstance(tur.get("persistedOutputPath"), str):
                out["named"] += 1
                out["present"] += root.joinpath(*Path(tur["persistedOutputPath"]).parts[-4:]).is_file()
            out["injected"] += "sourceToolUseID" in o
            msg = o.get("message")
            for b in msg["content"] if isinstance(msg, dict) and isinstance(msg.get("content"), list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Skill":
                    skill += 1
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out["results"] += "content" in b  # a payload length is that of a content
                    out["marker"] += "<persisted-output>" in json.dumps(b.get("content"))
        out["skill_calls"] += skill
        out["skill_files"] += bool(skill)
    txt = [p.stat().st_size for p in root.rglob("*.txt") if p.parent.name == "tool-results"]
    out["files"], out["largest"] = len(txt), max(txt, default=0)
    return out


def test_moved_output_skills_result_lengths_and_relations(corpora) -> None:
    from survey.evidence.claims import human_bytes

    for t, c in corpora:
        m = _moved_and_skills(t["root"])
        ov = c["oversized_output"]["value"]
        assert ov == {"present": m["present"], "missing": m["named"] - m["present"], "marker": m["marker"],
                      "files": m["files"]}
        if sum(ov.values()):
            assert c["oversized_output"]["text"] == (
                f"Persisted output: {fmt(m['named'])} tool results name a persisted file (toolUseResult.persistedOutputPath): "
                f"{fmt(m['present'])} present, {fmt(m['named'] - m['present'])} missing on disk; {fmt(m['marker'])} results "
                f"carry the <persisted-output> marker; tool-results/ holds {fmt(m['files'])} files (largest "
                f"{human_bytes(m['largest'])}).")
        se = c["skill_evidence"]["value"]
        assert (se["skill_calls"], se["files_with_skill_calls"], se["injected_records"]) == (
            m["skill_calls"], m["skill_files"], m["injected"])
        assert c["skill_evidence"]["text"] == (
            f"Skill evidence: {fmt(se['skill_calls'])} Skill tool calls (in {fmt(se['files_with_skill_calls'])} files), "
            f"{fmt(se['injected_records'])} records carrying sourceToolUseID, and {fmt(se['skill_attachments'])} skill "
            "attachments.")
        rl = c["result_lengths"]
        a = rl["value"].get("(all tools)")
        assert rl["text"].startswith(f"tool_result payload length (code points; JSON text for block lists) over "
                                     f"{fmt(m['results'] or None)} results: p50 {fmt(a[0] if a else None)}, p90 ")
        assert rl["text"].endswith(f", max {fmt(a[2] if a else None)}; per tool below.")
        assert "link_agent_id" in c and "link_subagent_schema" in c


def test_evidence_results_list_each_row_counted(corpora) -> None:
    for t, c in corpora:
        ev = c["record_totals"]["evidence"]
        assert ev[1]["result"] == "; ".join(f"{s} {n}" for s, (_, n) in sorted(t["vrec"].items()))
        ts = c["timestamps"]
        w, n = sum(a for a, _ in t["ts"].values()), t["jsonl"]
        assert ts["evidence"][0]["result"] == f"{w}/{n}; without: {', '.join(ts['value']['without']) or 'none'}"
        pieces = c["model"]["evidence"][0]["result"].split("; ")
        assert sorted(pieces) == sorted(f"{k} {a}/{m}" for k, (a, m) in t["model"].items()) or (
            not t["model"] and pieces == ["none"])
        bk = c["block_types"]
        shown = bk["evidence"][0]["result"].split("; ") if bk["value"] else []
        assert len(shown) == min(12, len(bk["value"]))
        for piece in shown:
            btype, keys, blocks = re.fullmatch(r"(\S+) \{(.*)\} (\d+)", piece).groups()  # type: ignore[union-attr]
            assert bk["value"][f"{btype}:{keys}"] == int(blocks)
        assert sum(bk["value"].values()) == sum(
            1 for _, _, b in _blocks(t["root"]))
        si = c["file_identity"]["evidence"][0]["result"]
        assert len(si.split("; ")) == sum(1 for s in TRANSCRIPTS if t["surfaces"][s]) or (not t["sids"]["files"] and si == "")
        us = c["usage"]["evidence"][0]["result"]
        assert (us == "no usage") is (not t["usage"]["records"])
        assert us == "no usage" or all(re.fullmatch(r"\w+ ×[\d.None]+", p) for p in us.split("; "))
        ff = c["failure_flag"]["value"]
        seen = c["exit_codes"]["extra"]["seen"]
        exit_txt = ("an exit code key at " + ", ".join(f"`{p}`" for v in seen.values() for p in v["paths"]) if seen
                    else "no exit code key observed" if c["exit_codes"]["value"] else "exit code not determined")
        assert c["model_outcome"]["text"] == (f"`is_error` on {fmt(ff['true'] + ff['false'])} of "
                                              f"{fmt(ff['true'] + ff['false'] + ff['absent'])} results (absent on "
                                              f"{fmt(ff['absent'])}); {exit_txt}")
    assert any(c["exit_codes"]["extra"]["seen"] for _, c in corpora), "an exit code key is seen somewhere"


def _blocks(root: Path) -> list[tuple[Path, dict, dict]]:
    """Each content block of a transcript record, with its file and record."""
    out = []
    for p in sorted(root.rglob("*.jsonl")):
        rel = p.relative_to(root).as_posix()
        if not any(SURFACES[s].match(rel) for s in TRANSCRIPTS):
            continue
        for o in jsonl_objects(p):
            msg = o.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                out += [(p, o, b) for b in msg["content"] if isinstance(b, dict) and isinstance(b.get("type"), str)]
    return out


EXIT_KEYS = ("exitCode", "exit_code")


def _exit_keys(o: Any, path: str = "$") -> list[tuple[str, str]]:
    """(key, path of the object holding it) of each exit-code key in a record: objects entered
    by name, lists as ``[]``."""
    out: list[tuple[str, str]] = []
    if isinstance(o, dict):
        for k, v in o.items():
            out += [(k, path)] if k in EXIT_KEYS else []
            out += _exit_keys(v, f"{path}.{k}")
    elif isinstance(o, list):
        for v in o:
            out += _exit_keys(v, f"{path}[]")
    return out


def test_the_outcome_row_names_the_exit_code_keys_seen(corpora, moved) -> None:
    for t, c in corpora:
        found = {kp for p in sorted(t["root"].rglob("*.jsonl")) for o in jsonl_objects(p) for kp in _exit_keys(o)}
        v = c["model_outcome"]["value"]
        assert set(v) == {"is_error", "exit", "exit_seen"}
        assert v["exit"] is (not found)
        assert set(v["exit_seen"]) == {k for k, _ in found}
    # the moved corpus: one key of each spelling, each at one path, named in the probes' order
    t, c = moved
    planted = sorted({kp for p in sorted(t["root"].rglob("*.jsonl")) for o in jsonl_objects(p) for kp in _exit_keys(o)},
                     key=lambda kp: EXIT_KEYS.index(kp[0]))
    assert len(planted) == 2
    assert c["model_outcome"]["value"]["exit_seen"] == {k: {"files": 1, "paths": [p]} for k, p in planted}
    assert c["model_outcome"]["text"].endswith("; an exit code key at " + ", ".join(f"`{p}`" for _, p in planted))


@pytest.mark.parametrize("probe", ["no_exit_code", "no_exit_code_snake"])
def test_a_disagreement_leaves_the_exit_code_not_determined(bare, probe: str) -> None:
    t, c = bare
    assert c["exit_codes"]["value"] is True
    turned = claims_from("claude_code", snapshot_of("claude_code", t["root"], t["root"].parent), probe)
    assert turned["exit_codes"]["value"] is None and turned["exit_codes"]["provenance"] == "not determined"
    mo = turned["model_outcome"]
    assert mo["text"] == c["model_outcome"]["text"].replace("; no exit code key observed", "; exit code not determined")
    assert mo["text"].endswith("; exit code not determined") and mo["value"]["exit"] is None
