"""The Cursor page's sentences, each held to figures read back from the corpus.

Three corpora: the seeded Cursor generator's projects with one more project of edge frames
(an id-shaped top-level key, a tool_use block with an id, a tool_result with is_error, a
status frame that breaks the error-iff-status relation, a model at the frame level, a
turn_ended with no status); a project whose transcripts hold only text frames, no call, no
status, no sidecar and no legacy transcript, where every list is empty; and a project whose
calls carry exactly {input, name, type}, where every status frame keeps the relation. Each
expected figure is counted here from the files with the standard library (``json``, ``re``,
``collections.Counter``), never taken from the census; the payload lengths and the adjacent
assistant pairs of the generated projects are the generator's own record of what it wrote.
Every sentence is compared whole. A DuckDB/rg disagreement is shown by the claims computed
from one corpus's census with one probe's verdict turned, as the evidence records one.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from survey.evidence.claims import fmt, human_bytes, pct

from .claims_util import claims_from, jsonl_objects, snapshot_of, surveyed_claims

GENERATOR = Path(__file__).parents[1] / "survey/synth/cursor.py"

SEG = r"[^/]+"
SURFACES = (("transcript", rf"^{SEG}/agent-transcripts/{SEG}/[^/]+\.jsonl$"),
            ("transcript_flat", rf"^{SEG}/agent-transcripts/{SEG}\.jsonl$"),
            ("subagent", rf"^{SEG}/agent-transcripts/{SEG}/subagents/{SEG}\.jsonl$"),
            ("legacy_txt", rf"^{SEG}/agent-transcripts/{SEG}\.txt$"),
            ("agent_tools", rf"^{SEG}/agent-tools/{SEG}\.txt$"))
WALKED = ("transcript", "transcript_flat", "subagent")
VOCAB = json.loads((Path(__file__).parents[1] / "survey/runtimes/cursor/vocab.json").read_text())
KEYS = set(VOCAB["keys"])
IDENT = re.compile(r"^[A-Za-z_][\w.:-]{0,63}\Z")
TOOL = "$.message.content[type=tool_use]"
MCP = ("CallMcpTool", "CallDynamicTool")
ABSENT = (("no_timestamp", "Timestamps of any kind", "timestamp", ("timestamp", "createdAt")),
          ("no_usage", "Usage / token counts", "usage", ("usage",)),
          ("no_model_meta", "Model as metadata (at the frame or message level)", "model", ("model",)),
          ("no_version", "Client version", "version", ("version",)),
          ("no_tool_use_id", "tool_use_id", "tool_use_id", ("tool_use_id",)),
          ("no_is_error", "is_error", "is_error", ("is_error",)))
MARKERS = (("marker_user_query", "The text marker <user_query>", "<user_query>"),
           ("marker_user_info", "The text marker <user_info>", "<user_info>"),
           ("marker_ellipsis", "The literal [...]", "[...]"), ("marker_truncated", "The literal [truncated]", "[truncated]"))


SENTENCES = ("basis_files", "top_keysets", "in_file_identity", "error_iff_status", "content_types", "block_types",
             "tool_use_keyset", "no_tool_results", "per_call_outcome", "applypatch_string", "max_parallel",
             "mcp_wrappers", "input_keys", "model_where", "background_shell", "skill_evidence", "ask_question_shape",
             "agent_tools_count", "agent_tools_sizes", "spill_threshold", "readback_refs", "turn_ended_last",
             "files_without_turn_ended", "error_type", "turn_outcome", "turn_status", "assistant_pairs",
             "child_in_parent", "dir_equals_file", "one_user_frame", "stratify_basis", "payload_percentiles",
             "legacy_headings")
KINDS = {"error_iff_status": "iff", "tool_use_keyset": "rate", "no_tool_results": "absence", "applypatch_string": "rate",
         "agent_tools_sizes": "percentile", "turn_ended_last": "rate", "files_without_turn_ended": "rate",
         "turn_status": "value_map", "assistant_pairs": "rate", "child_in_parent": "rate", "dir_equals_file": "rate",
         "one_user_frame": "rate", "payload_percentiles": "percentile", "legacy_headings": "value_map"}
PROVENANCE = {"skill_evidence": "inferred", "spill_threshold": "inferred", "one_user_frame": "not determined"}
HEADLINES = {"tool_use_keyset", "no_tool_results", "agent_tools_count"}


def surface(rel: str) -> str:
    for name, rx in SURFACES:
        if re.match(rx, rel):
            return name
    return "other"


def _key(k: str) -> str:
    """A key as the census names it: a key not shaped like an identifier is dynamic, an
    identifier outside the reviewed vocabulary unreviewed."""
    if not IDENT.match(k):
        return "<dynamic-key>"
    return k if k in KEYS else "<unreviewed-key>"


def _ks(d: dict) -> str:
    """A key set as the census names it: sorted, each key masked as ``_key`` says."""
    return ",".join(sorted({_key(k) for k in d}))


def _id_key(k: str) -> bool:
    return k in ("id", "uuid") or k.endswith("_id") or (k.endswith("Id") and k[:1].islower())


def _has_key(v: Any, key: str, at: tuple[str, ...] | None = None, path: str = "$") -> bool:
    """``key`` as a key of an object anywhere in ``v`` (or only at the paths ``at``)."""
    if isinstance(v, dict):
        if key in v and (at is None or path in at):
            return True
        return any(_has_key(x, key, at, f"{path}.{k}") for k, x in v.items())
    if isinstance(v, list):
        return any(_has_key(x, key, at, f"{path}[]") for x in v)
    return False


def _jtype(v: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(v), "number")


def read(root: Path) -> dict[str, Any]:
    """Every figure the page states, counted from the files with the standard library."""
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    rel = {p: p.relative_to(root).as_posix() for p in files}
    surf = Counter(surface(rel[p]) for p in files)
    walked = [p for p in files if surface(rel[p]) in WALKED]
    jsonl = [p for p in files if p.name.endswith(".jsonl")]
    per_file: dict[Path, list[dict]] = {}
    status: Counter[str] = Counter()
    for p in walked:
        per_file[p] = jsonl_objects(p, status)  # a last line without LF is a frame if it parses
    frames = [o for fs in per_file.values() for o in fs]
    top = Counter(_ks(o) for o in frames)
    raw = {",".join(sorted(o)) for o in frames}
    content = Counter(_jtype(o["message"]["content"]) for o in frames
                      if isinstance(o.get("message"), dict) and "content" in o["message"])
    blocks = [(o, b) for o in frames if isinstance(o.get("message"), dict)
              and isinstance(o["message"].get("content"), list)
              for b in o["message"]["content"] if isinstance(b, dict) and isinstance(b.get("type"), str)]
    bk = Counter((b["type"], _ks(b)) for _, b in blocks)
    calls = [b for _, b in blocks if b["type"] == "tool_use"]
    per_frame = [sum(1 for b in o["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
                 for o in frames if isinstance(o.get("message"), dict) and isinstance(o["message"].get("content"), list)]
    itypes: dict[str, Counter[str]] = {}
    for b in calls:
        itypes.setdefault(b["name"], Counter())[_jtype(b.get("input"))] += 1
    obj = [b for b in calls if isinstance(b.get("input"), dict)]
    ncalls = Counter(b["name"] for b in obj)
    ikeys = Counter((b["name"], k) for b in obj for k in {_key(k) for k in b["input"]})
    mcp = Counter((b["name"], _ks(b["input"]) if isinstance(b.get("input"), dict) else None,
                   _jtype(b.get("input")) if "input" in b else None) for b in calls if b["name"] in MCP)
    models = set()
    for o in frames:
        if "model" in o:
            models.add("$.model")
        if isinstance(o.get("message"), dict) and "model" in o["message"]:
            models.add("$.message.model")
    for b in calls:
        if isinstance(b.get("input"), dict) and "model" in b["input"]:
            models.add(f"{TOOL}.input.model")
    questions: dict[str, set[str]] = {}
    for b in obj:
        for q in b["input"].get("questions") or []:
            if isinstance(q, dict):
                questions.setdefault("questions[]", set()).add(_ks(q))
                for opt in q.get("options") or []:
                    if isinstance(opt, dict):
                        questions.setdefault("questions[].options[]", set()).add(_ks(opt))

    def marker(key: str, needle: str) -> tuple[int, int]:
        hits = [sum(b["input"][key].count(needle) for b in calls_ if isinstance(b.get("input"), dict)
                    and isinstance(b["input"].get(key), str)) for calls_ in per_file_calls]
        return sum(hits), sum(1 for h in hits if h)

    per_file_calls = [[b for o in fs if isinstance(o.get("message"), dict) and isinstance(o["message"].get("content"), list)
                       for b in o["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
                      for fs in per_file.values()]
    te = [[o for o in fs if o.get("type") == "turn_ended"] for fs in per_file.values()]
    last_te = sum(1 for fs in per_file.values() if fs and fs[-1].get("type") == "turn_ended")
    err = Counter((_rclass(o), _jtype(o["error"])) for o in frames if "error" in o)
    statuses = Counter(o.get("status") for o in frames if o.get("type") == "turn_ended")
    iff = Counter((o["status"], "error" in o) for o in frames if o.get("status") is not None)
    sidecars = sorted(p.stat().st_size for p in files if surface(rel[p]) == "agent_tools")
    heads: Counter[str] = Counter()
    for p in files:
        if surface(rel[p]) == "legacy_txt":
            for m in re.finditer(r"^\[Tool call\] (\S+)", p.read_text(errors="replace"), re.M):
                heads[m.group(1) if m.group(1) in VOCAB["values"]["heading:tool_call"] else "<withheld>"] += 1
    text = {p: p.read_bytes() for p in jsonl}

    def grep(lit: bytes) -> int:
        return sum(1 for b in text.values() if lit in b)

    return {
        "surfaces": surf, "total": len(files), "walked": len(walked),
        "walked_bytes": sum(p.stat().st_size for p in walked), "status": status, "frames": len(frames),
        "top": top, "raw": len(raw), "content": content, "bk": bk,
        "tu": [sum(1 for b in calls if _ks(b) == "input,name,type"), len(calls),
               sum(1 for b in calls if any(_id_key(k) for k in _ks(b).split(",")))],
        "tu_id_keys": sorted({k for b in calls for k in _ks(b).split(",") if _id_key(k)}),
        "id_top": (sum(1 for o in frames if any(_id_key(k) for k in _ks(o).split(","))),
                   sorted({k for o in frames for k in _ks(o).split(",") if _id_key(k)})),
        "grep": {lit: grep(f'"{lit}"'.encode()) for lit in ("tool_result", "tool_use_id", "is_error")},
        "text": {lit: (grep(lit.encode()), sum(b.count(lit.encode()) for b in text.values()))
                 for lit in ('"timestamp"', '"createdAt"', '"usage"', '"model"', '"version"', '"tool_use_id"', '"is_error"',
                             '"cancelled"', *(m for _, _, m in MARKERS))},
        "key_files": {key: sum(1 for fs in per_file.values() if any(_has_key(o, key) for o in fs))
                      for key in ("tool_use_id", "is_error", "timestamp", "version", "usage")},
        "model_meta_files": sum(1 for fs in per_file.values() if any(_has_key(o, "model", ("$", "$.message")) for o in fs)),
        "model": sum(1 for fs in per_file.values() if any(_has_key(o, "model", ("$", "$.message")) for o in fs)),
        "jsonl_files": len(jsonl),
        "tr_keys": sorted({k for (t, ks) in bk for k in ks.split(",") if t == "tool_result"}),
        "itypes": itypes, "ncalls": ncalls, "ikeys": ikeys, "mcp": mcp,
        "parallel": (max(per_frame, default=0), sum(1 for n in per_frame if n > 3)),
        "models": sorted(models), "questions": {k: sorted(v) for k, v in questions.items()},
        "skill": marker("path", "SKILL.md"),
        "readback": {"agent_tools_path": marker("path", "/agent-tools/"),
                     "agent_tools_command": marker("command", "/agent-tools/")},
        "sidecars": sidecars,
        "te": (sum(1 for t in te if t), sum(1 for t in te if not t), last_te),
        "err": err, "statuses": statuses, "iff": iff, "heads": heads,
        "users": (sum(1 for fs in per_file.values() if sum(1 for o in fs if o.get("role") == "user") == 1), len(walked)),
    }


def _rclass(o: dict) -> str:
    return str(o.get("type") if o.get("type") is not None else o.get("role"))


def _payload(b: dict) -> int:
    """A block's payload length in code points (text, thinking, a string input, else the
    compact JSON of an object input or a result's content)."""
    if b["type"] == "text":
        return len(b["text"])
    if b["type"] == "thinking":
        return len(b["thinking"])
    v = b.get("input") if b["type"] == "tool_use" else b.get("content")
    return len(v) if isinstance(v, str) else len(json.dumps(v, ensure_ascii=False, separators=(",", ":")))


def _pairs(files: list[list[dict]]) -> Counter[str]:
    """Adjacent assistant frames by how the second's (block type, length) list relates to the first's."""
    out: Counter[str] = Counter({"unrelated": 0, "duplicate": 0, "prefix_extension": 0, "reverse_prefix": 0})
    for fs in files:
        prev = None
        for o in fs:
            if o.get("role") != "assistant":
                prev = None
                continue
            cur = tuple((b["type"], _payload(b)) for b in o["message"]["content"])
            if prev is not None:
                out["duplicate" if cur == prev else "prefix_extension" if cur[:len(prev)] == prev and len(cur) > len(prev)
                    else "reverse_prefix" if prev[:len(cur)] == cur and len(prev) > len(cur) else "unrelated"] += 1
            prev = cur
    return out


def _quantile(xs: list[int], q: float) -> int | None:
    """The smallest length with at least ceil(q * n) lengths at or below it."""
    return sorted(xs)[max(1, math.ceil(len(xs) * q)) - 1] if xs else None


def figures(root: Path) -> dict[str, Any]:
    """``read``, with the payload lengths, the adjacent pairs and the folder identities."""
    t = read(root)
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    per_file = []
    for p in files:
        if surface(p.relative_to(root).as_posix()) in WALKED:
            per_file.append(jsonl_objects(p))
    blocks = [(o.get("role"), b) for fs in per_file for o in fs if isinstance(o.get("message"), dict)
              for b in o["message"]["content"] if isinstance(b, dict)]
    blocks = [(r, b) for r, b in blocks if b["type"] != "tool_use" or "input" in b]  # a call without input has no payload
    asst = [_payload(b) for r, b in blocks if r == "assistant"]
    t["payload"] = {"p50": _quantile(asst, 0.5), "p90": _quantile(asst, 0.9), "p99": _quantile(asst, 0.99),
                    "max": max(asst, default=None), "max_including_user": max((_payload(b) for _, b in blocks), default=None),
                    "assistant_payloads": len(asst), "payloads": len(blocks)}
    t["pairs"] = _pairs(per_file)
    nested = [p for p in files if surface(p.relative_to(root).as_posix()) == "transcript"]
    t["dir_equals_file"] = (sum(1 for p in nested if p.parent.name == p.stem), len(nested))
    t["lineage"] = lineage(root)
    return t


def lineage(root: Path) -> tuple[int, int]:
    """(parent/child pairs whose child id occurs in the parent's bytes, parent/child pairs)."""
    tops: dict[tuple[str, str], list[Path]] = {}
    for p in sorted(root.rglob("*.jsonl")):
        rel = p.relative_to(root).as_posix()
        s = surface(rel)
        if s in ("transcript", "transcript_flat"):
            tops.setdefault((rel.split("/")[0], p.parent.name if s == "transcript" else p.stem), []).append(p)
    found = pairs = 0
    for p in sorted(root.rglob("*.jsonl")):
        rel = p.relative_to(root).as_posix()
        if surface(rel) == "subagent":
            for parent in tops.get((rel.split("/")[0], p.parent.parent.name), []):
                pairs += 1
                found += p.stem.encode() in parent.read_bytes()
    return found, pairs


def _by(c: Counter, key: Any = None) -> list[tuple[Any, int]]:
    return sorted(c.items(), key=key or (lambda kv: (-kv[1], kv[0])))


def expected_text(t: dict[str, Any]) -> dict[str, str]:
    """The sentence each claim must print, built from the figures ``figures`` counted."""
    s = t["surfaces"]
    top = _by(t["top"])
    n_id, id_keys = t["id_top"]
    iff = t["iff"]
    n_iff = sum(iff.values())
    exc = sum(n for (st, has), n in iff.items() if (st == "success") == has)
    types = sorted({b for b, _ in t["bk"]})
    exact, tu_total, tu_id = t["tu"]
    if not tu_total:
        tail = "no tool_use block was observed."
    elif tu_id:
        tail = f"{fmt(tu_id)} blocks carry a call id key ({', '.join(t['tu_id_keys'])})."
    elif exact == tu_total:
        tail = "no call id of any kind; a call's identity is positional: (file, frame index, block index)."
    else:
        tail = "no call id of any kind, and other key sets occur (see the block table)."
    g, kf = t["grep"], t["key_files"]
    hits = [g["tool_result"], g["tool_use_id"], g["is_error"]]
    tr_blocks = sum(n for (b, _), n in t["bk"].items() if b == "tool_result")
    if not sum(hits):
        no_tr = f"No tool results corpus-wide: 0 of {fmt(t['jsonl_files'])} files contain tool_result, tool_use_id, or is_error."
    else:
        no_tr = (f"Tool results observed: tool_result / tool_use_id / is_error occur in {hits[0]} / {hits[1]} / {hits[2]} "
                 f"of {fmt(t['jsonl_files'])} files by text ({tr_blocks} tool_result blocks; "
                 f"as keys in {kf['tool_use_id']} / {kf['is_error']} walked files).")
    w = t["walked"]
    ie = kf["is_error"]
    tr = t["tr_keys"]
    it = t["itypes"]
    ap = it.get("ApplyPatch")
    o_str = sum(c["string"] for n, c in it.items() if n != "ApplyPatch")
    o_all = sum(sum(c.values()) for n, c in it.items() if n != "ApplyPatch")
    if ap:
        ap_s, ap_n = ap["string"], sum(ap.values())
        mixed = ap_s + o_str > 0 and (o_all - o_str) + ap_n - ap_s > 0
        applypatch = (f"ApplyPatch input is a raw string in {fmt(ap_s)}/{fmt(ap_n)} calls; other tools pass an object in "
                      f"{fmt(o_all - o_str)}/{fmt(o_all)} calls" + (": a parser must branch on the input's JSON type." if mixed else "."))
    else:
        applypatch = f"No ApplyPatch call was observed; other tools pass an object in {fmt(o_all - o_str)}/{fmt(o_all)} calls."
    mx, over3 = t["parallel"]
    mcp = sorted(t["mcp"].items(), key=lambda kv: (kv[0][0], -kv[1]))
    ik = t["ikeys"]
    always = sum(1 for (name, _), n in ik.items() if n == t["ncalls"][name])
    models = [m for m in t["models"]]
    model_tools = sorted((name, n) for (name, key), n in ik.items() if key == "model")
    bg = sorted((name, n, t["ncalls"][name]) for (name, key), n in ik.items() if key == "run_in_background")
    qk = t["questions"]
    sc = t["sidecars"]
    by_path, by_command = t["readback"]["agent_tools_path"][0], t["readback"]["agent_tools_command"][0]
    with_te, without_te, te_last = t["te"]
    err = t["err"]
    st = t["statuses"]
    n_st = sum(n for k, n in st.items() if k is not None)
    found, pairs_ = t["lineage"]
    dq, nested = t["dir_equals_file"]
    pr = t["pairs"]
    n_pairs = sum(pr.values())
    meta = [("client version", kf["version"]), ("timestamp", kf["timestamp"]), ("model field", t["model_meta_files"])]
    seen = [(m, n) for m, n in meta if n]
    pl = t["payload"]
    heads = t["heads"]
    reviewed = [(n, c) for n, c in heads.items() if n != "<withheld>"]
    calls = lambda n: f"{fmt(n)} call{'' if n == 1 else 's'}"  # noqa: E731
    return {
        "basis_files": f"The corpus holds {fmt(t['total'])} files: {fmt(s['transcript'] + s['transcript_flat'])} top-level "
                       f"transcripts ({fmt(s['transcript'])} nested <id>/<id>.jsonl, {fmt(s['transcript_flat'])} flat <id>.jsonl), "
                       f"{fmt(s['subagent'])} subagent files, {fmt(s['legacy_txt'])} legacy plain-text transcripts, "
                       f"{fmt(s['agent_tools'])} agent-tools sidecars and {fmt(s['other'])} other files.",
        "top_keysets": f"{len(top)} top-level key set{'s' if len(top) != 1 else ''} across {fmt(t['frames'])} frames after "
                       f"masking unreviewed keys; {fmt(t['raw'])} distinct before masking.",
        "in_file_identity": (f"No top-level key set holds an id-shaped key (id, *_id, *Id) across {fmt(t['frames'])} records: "
                             "a transcript carries no in-file identity field." if not n_id else
                             f"{fmt(n_id)} of {fmt(t['frames'])} records carry an id-shaped top-level key ({', '.join(id_keys)})."),
        "error_iff_status": ("No frame carries a status, so the error-iff-status relation is not determined." if not n_iff else
                             f"The error key is present iff status is not success ({fmt(n_iff)} of {fmt(n_iff)} status frames)."
                             if not exc else
                             f"The error key is NOT present iff status is not success: {fmt(exc)} of {fmt(n_iff)} status frames break it."),
        "content_types": "message.content is " + (" / ".join(f"{j} in {fmt(n)} frames" for j, n in _by(t["content"]))
                                                  or "never present") + ".",
        "block_types": f"message.content holds {len(types)} block type{'s' if len(types) != 1 else ''}: {', '.join(types) or 'none'}.",
        "tool_use_keyset": f"tool_use key sets are exactly {{input, name, type}} in {fmt(exact)}/{fmt(tu_total)} blocks; " + tail,
        "no_tool_results": no_tr,
        "per_call_outcome": (f"A per-call failure flag (is_error) is a key in {fmt(ie)} of {fmt(w)} walked files." if ie else
                             f"No per-call outcome was observed: is_error is not a key in any of {fmt(w)} walked files"
                             + (f", and tool_result blocks carry only {{{', '.join(tr)}}}." if tr else
                                ", and no tool_result block was observed.")),
        "applypatch_string": applypatch,
        "max_parallel": f"Parallel calls in one frame: up to {fmt(mx)} tool_use blocks in a single frame; {fmt(over3)} frames "
                        "carry more than 3." + (" None carries a call id: pairing calls by name within a frame is unsafe."
                                                if tu_total and not tu_id and mx > 1 else ""),
        "mcp_wrappers": "MCP wrapper calls (CallMcpTool, CallDynamicTool): "
                        + ("; ".join(f"{n} input {'{' + ks + '}' if ks is not None else 'as ' + (jt or 'no input')} ×{fmt(c)}"
                                     for (n, ks, jt), c in mcp) or "no CallMcpTool/CallDynamicTool call was observed") + ".",
        "input_keys": f"Tool input objects carry {len(ik)} (tool, key) pairs over {len(t['ncalls'])} tool names; "
                      f"{always} of them are present in every call of their tool, the rest only in some.",
        "model_where": ("model is not observed as a key at any path." if not models else
                        f"model occurs as a key at {len(models)} path{'s' if len(models) != 1 else ''} ({', '.join(models)})"
                        + (": as a tool argument, in " + ", ".join(f"{n} {fmt(c)} calls" for n, c in model_tools)
                           if model_tools else "") + "."),
        "background_shell": ("No tool input carries run_in_background." if not bg else
                             "run_in_background is set in " + ", ".join(f"{fmt(a)} of {fmt(b)} {n} calls" for n, a, b in bg)
                             + (f"; AwaitShell is called {fmt(t['ncalls']['AwaitShell'])} times" if "AwaitShell" in t["ncalls"]
                                else "") + "."),
        "skill_evidence": f"{fmt(t['skill'][0])} tool calls in {fmt(t['skill'][1])} files name a path containing SKILL.md in "
                          "input.path: inferred skill-load evidence, the only kind the census looks for.",
        "ask_question_shape": ("No tool input carries a questions[] array." if not qk else
                               "Structured questions: " + "; ".join(f"{p} {{{','.join(v)}}}" for p, v in sorted(qk.items()))
                               + (f" (AskQuestion {fmt(t['ncalls']['AskQuestion'])} calls)" if "AskQuestion" in t["ncalls"]
                                  else "") + "."),
        "agent_tools_count": f"agent-tools/ file count: {fmt(len(sc))}.",
        **({"agent_tools_sizes": f"Sidecar sizes: min {human_bytes(sc[0])}, p50 {human_bytes(_quantile(sc, 0.5))}, "
                                 f"max {human_bytes(sc[-1])}.",
            "spill_threshold": f"The smallest sidecar is {human_bytes(sc[0])}: a spill threshold near that size fits, "
                               "but nothing in the files states one."} if sc else {}),
        "readback_refs": (f"Sidecars are referenced only indirectly, as a later call's input.path ({calls(by_path)}) "
                          f"or inside input.command ({calls(by_command)})." if by_path or by_command else
                          "No call's input.path or input.command names an agent-tools/ file: the transcripts hold no "
                          "reference to a sidecar."),
        "turn_ended_last": f"turn_ended is the final frame in {fmt(te_last)} of the {fmt(with_te)} walked files that contain one.",
        "files_without_turn_ended": f"{fmt(without_te)} of {fmt(w)} walked files ({pct(without_te, w)}) contain no turn_ended at all.",
        "error_type": ("No record carries an error key." if not err else
                       f"The error key is {' / '.join(sorted({j for _, j in err}))} in the {fmt(sum(err.values()))} records "
                       f"that carry it ({', '.join(sorted({r for r, _ in err}))})."),
        "turn_outcome": (f"A turn's outcome is recorded as turn_ended.status in {fmt(n_st)} of {fmt(sum(st.values()))} turn_ended "
                         "frames." if n_st else
                         f"No turn_ended frame carries a status ({fmt(sum(st.values()))} turn_ended frames): no turn outcome is "
                         "recorded."),
        "turn_status": "turn_ended status values: " + (" / ".join(f"{k} {fmt(n)}" for k, n in _by(st, lambda kv: (-kv[1], kv[0] is None, str(kv[0]))))
                                                        or "none") + ".",
        "assistant_pairs": f"Across {fmt(n_pairs)} adjacent assistant frame pairs (block types and lengths only): "
                           f"unrelated {pct(pr['unrelated'], n_pairs)}, exact duplicate {pct(pr['duplicate'], n_pairs)}, "
                           f"{fmt(pr['prefix_extension'])} prefix extensions, {fmt(pr['reverse_prefix'])} reverse prefixes.",
        "child_in_parent": f"The child id appears inside the parent transcript in {fmt(found)} of {fmt(pairs_)} parent/child pairs"
                           + (": lineage is directory containment, not a recorded field." if pairs_ and not found else "."),
        "dir_equals_file": f"The directory id equals the file id in {fmt(dq)}/{fmt(nested)} nested transcripts"
                           + (": identity is the path." if nested and dq == nested else "."),
        "one_user_frame": f"Whether one file is one conversation or one turn is undetermined: {fmt(t['users'][0])} of "
                          f"{fmt(t['users'][1])} walked files have exactly one user frame, consistent with either reading.",
        "stratify_basis": ("No client version, timestamp or model field was observed as a key, so drift can be stratified "
                           "by file mtime only." if not seen else
                           "Observed as keys: " + "; ".join(f"{m} in {fmt(n)} of {fmt(w)} walked files" for m, n in seen)
                           + ": drift can be stratified by them as well as by file mtime."),
        "payload_percentiles": f"Block payload length (code points) in assistant frames: p50 {fmt(pl['p50'])}, p90 {fmt(pl['p90'])}, "
                               f"p99 {fmt(pl['p99'])}, max {fmt(pl['max'])}; max including user text {fmt(pl['max_including_user'])}.",
        "legacy_headings": f"Legacy plain-text transcripts name {len(reviewed)} reviewed tool names in "
                           f"{fmt(sum(c for _, c in reviewed))} [Tool call] headings"
                           + (f"; {fmt(heads['<withheld>'])} headings name tools outside the reviewed vocabulary, withheld "
                              "(how many distinct names they hold is not recorded)" if heads.get("<withheld>") else "")
                           + " (a separate value map: not JSON, not comparable one-to-one).",
    }


def expected_value(t: dict[str, Any]) -> dict[str, Any]:
    s = t["surfaces"]
    it = t["itypes"]
    ap = it.get("ApplyPatch", Counter())
    o_str = sum(c["string"] for n, c in it.items() if n != "ApplyPatch")
    o_all = sum(sum(c.values()) for n, c in it.items() if n != "ApplyPatch")
    ik = t["ikeys"]
    sc = t["sidecars"]
    kf = t["key_files"]
    iff = t["iff"]
    exc = sum(n for (st, has), n in iff.items() if (st == "success") == has)
    mcp = t["mcp"]
    return {
        "basis_files": {"total": t["total"], "transcript": s["transcript"] + s["transcript_flat"],
                        "transcript_nested": s["transcript"], "transcript_flat": s["transcript_flat"],
                        "subagent": s["subagent"], "legacy_txt": s["legacy_txt"], "agent_tools": s["agent_tools"],
                        "other": s["other"]},
        "top_keysets": dict(t["top"]),
        "in_file_identity": t["id_top"][1],
        "error_iff_status": None if not iff else not exc,
        "content_types": dict(t["content"]),
        "block_types": {f"{b}:{ks}": n for (b, ks), n in t["bk"].items()},
        "tool_use_keyset": t["tu"],
        "no_tool_results": not sum(t["grep"].values()),
        "per_call_outcome": [kf["is_error"], t["tr_keys"]],
        "applypatch_string": [ap["string"], sum(ap.values()), o_str, o_all],
        "max_parallel": t["parallel"][0],
        "mcp_wrappers": {f"{n}:{'{' + ks + '}' if ks is not None else 'as ' + (jt or 'no input')}": c
                         for (n, ks, jt), c in mcp.items()},
        "input_keys": {f"{n}.{k}": [c, t["ncalls"][n]] for (n, k), c in ik.items()},
        "model_where": {"paths": t["models"], "tools": {n: c for (n, k), c in ik.items() if k == "model"}},
        "background_shell": {n: [c, t["ncalls"][n]] for (n, k), c in ik.items() if k == "run_in_background"},
        "skill_evidence": list(t["skill"]),
        "ask_question_shape": {p: ",".join(v) for p, v in t["questions"].items()},
        "agent_tools_count": len(sc),
        **({"agent_tools_sizes": [sc[0], _quantile(sc, 0.5), sc[-1]], "spill_threshold": sc[0]} if sc else {}),
        "readback_refs": {v: n for v, (n, _) in t["readback"].items() if n},
        "turn_ended_last": [t["te"][2], t["te"][0]],
        "files_without_turn_ended": [t["te"][1], t["walked"]],
        "error_type": {f"{r}:{j}": n for (r, j), n in t["err"].items()},
        "turn_outcome": [sum(n for k, n in t["statuses"].items() if k is not None), sum(t["statuses"].values())],
        "turn_status": {"null" if k is None else k: n for k, n in t["statuses"].items()},  # as JSON writes a None key
        "child_in_parent": list(t["lineage"]),
        "dir_equals_file": list(t["dir_equals_file"]),
        "one_user_frame": list(t["users"]),
        "stratify_basis": {"client version": kf["version"], "timestamp": kf["timestamp"], "model field": t["model_meta_files"]},
        "legacy_headings": dict(t["heads"]),
        "assistant_pairs": {"pairs": sum(t["pairs"].values()), **t["pairs"]},
        "payload_percentiles": t["payload"],
    }


def kept_corpus(name: str, build: Any, base: Path) -> tuple[dict[str, Any], dict[str, dict], Any, Path]:
    """A corpus built by ``build(root)`` (which returns what it planted), its figures, its claims
    and its snapshot folder. Where ``SURVEY_MUTATE_SNAPSHOTS`` names a folder, the figures and
    the snapshot's key are kept there on the first run (keyed by this file's and the generator's
    bytes), and later runs compute the claims from the kept snapshot alone: neither the corpus
    nor its figures depend on the module under test."""
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    digest = hashlib.sha256(Path(__file__).read_bytes() + GENERATOR.read_bytes() + name.encode()).hexdigest()[:24]
    memo = Path(shared) / f"figures-cursor-{digest}.pickle" if shared else None
    if memo is not None and memo.is_file():
        t, planted, key = pickle.loads(memo.read_bytes())
        snap = Path(shared) / key  # type: ignore[arg-type]
        return t, claims_from("cursor", snap, None), planted, snap
    root = base / "corpus"
    planted = build(root)
    t = figures(root)
    claims = surveyed_claims("cursor", root, base)
    snap = snapshot_of("cursor", root, base)
    if memo is not None:
        tmp = memo.with_name(memo.name + f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps((t, planted, snap.name)))
        os.replace(tmp, memo)
    return t, claims, planted, snap


def _write(path: Path, frames: list[dict], tail: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in frames) + tail)


def _user(text: str) -> dict:
    return {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}


def _asst(*blocks: dict) -> dict:
    return {"role": "assistant", "message": {"content": list(blocks)}}


def _call(name: str, inp: Any, **more: Any) -> dict:
    return {"type": "tool_use", "name": name, "input": inp, **more}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict], dict, Path]:
    from survey.synth.cursor import generate

    def build(root: Path) -> dict:
        planted = generate(root, seed=7, sessions=27)  # the generator's fixed edge cases lie in the first 27
        _edge(root)
        return planted

    return kept_corpus("generated", build, tmp_path_factory.mktemp("cursor"))


def _edge(root: Path) -> None:
    edge = root / "Users-edge" / "agent-transcripts"
    _write(edge / "e1" / "e1.jsonl", [
        {"role": "user", "id": "u1", "message": {"content": [{"type": "text", "text": "a"}]}},
        _asst(_call("Shell", {"command": "pwd"}, tool_use_id="c0")),  # a call carrying an id key as *_id
        {"role": "user", "shellId": "s1", "message": {"content": [{"type": "text", "text": "b"}]}},  # an id key as *Id
        {"role": "assistant", "model": "m", "timestamp": 1,
         "message": {"content": [_call("Shell", {"command": "ls"}, id="c1"), _call("CallMcpTool", "raw"),
                                 {"type": "tool_use", "name": "CallDynamicTool"}]}},
        {"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "c1", "content": "x",
                                                  "is_error": True}]}},
        {"type": "error", "error": {"message": "boom"}},
        {"type": "turn_ended"},
    ])
    _write(edge / "e2" / "other.jsonl", [_user("b"), _asst({"type": "text", "text": "c"})])
    (edge / "e3.txt").write_text("user:\nq\n[Tool call] Frobnicate\n  path: x\n[Tool call] Shell\n  command: y\n")


@pytest.fixture(scope="module")
def text_only(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict], Any, Path]:
    """One flat transcript of text frames: no call, no status, no sidecar, no legacy transcript."""
    def build(root: Path) -> None:
        _write(root / "p" / "agent-transcripts" / "t1.jsonl", [_user("q"), _asst({"type": "text", "text": "r"}), _user("s")],
               tail=orjson.dumps(_asst({"type": "text", "text": "t"})))

    return kept_corpus("text_only", build, tmp_path_factory.mktemp("cursor-text"))


@pytest.fixture(scope="module")
def exact(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """ApplyPatch calls alone, each block exactly {input, name, type}, two in one frame; every status
    frame keeps the error-iff-status relation; a subagent whose id its parent never names; a sidecar
    nothing reads back."""
    return kept_corpus("exact", _exact, tmp_path_factory.mktemp("cursor-exact"))[:2]


def _exact(root: Path) -> None:
    tr = root / "p" / "agent-transcripts"
    _write(tr / "a1" / "a1.jsonl", [
        _user("q"), _asst(_call("ApplyPatch", "*** Begin Patch"), _call("ApplyPatch", "*** End Patch")),
        {"type": "turn_ended", "status": "success"}])
    _write(tr / "a1" / "subagents" / "c9.jsonl", [_user("q"), _asst(_call("ApplyPatch", "p")),
                                                 {"type": "turn_ended", "status": "error", "error": "e"}, _user("r")])
    (root / "p" / "agent-tools").mkdir(parents=True)
    (root / "p" / "agent-tools" / "s1.txt").write_bytes(b"x" * 2000)
    (root / "p" / "agent-tools" / "s2.txt").write_bytes(b"x" * 900)
    (root / "p" / "agent-tools" / "s3.txt").write_bytes(b"x" * 1500)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """A string message.content beside arrays; an ApplyPatch object input beside a string input of
    another tool; a tool_use block with a key beyond {input, name, type} but no id; four calls in
    one frame; a tool_result without is_error; a sidecar named only inside a command; a background
    shell without AwaitShell; questions[] outside AskQuestion, one of them not an object; model
    only at the message level; only turn_ended frames without a status."""
    return kept_corpus("mixed", _mixed, tmp_path_factory.mktemp("cursor-mixed"))[:2]


def _mixed(root: Path) -> None:
    _write(root / "q" / "agent-transcripts" / "m1" / "m1.jsonl", [
        {"role": "user", "message": {"content": "hi"}},
        _asst(_call("ApplyPatch", {"path": "x"}), _call("Shell", "ls"), _call("ReadFile", {"path": "a/SKILL.md"}),
              {**_call("Grep", {"pattern": "p"}), "signature": "s"}),
        {"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "r"}]}},
        {"role": "assistant", "message": {"model": "m", "content": [
            _call("Shell", {"command": "cat /h/agent-tools/a.txt", "run_in_background": True}),
            _call("Task", {"questions": [{"prompt": "q", "options": [{"label": "l"}]}]}),
            _call("Task", {"questions": ["q"]})]}},
        {"type": "turn_ended"},
    ])


@pytest.fixture(scope="module")
def solo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, dict]]:
    """One call per frame, none with an id; a sidecar named only as an input.path; two tools run
    in the background."""
    def build(root: Path) -> None:
        frames: list[dict] = []
        for c in (_call("ApplyPatch", {"path": "p"}), _call("ReadFile", {"path": "/h/agent-tools/a.txt"}),
                  _call("Shell", {"command": "x", "run_in_background": True}),
                  _call("Task", {"prompt": "p", "run_in_background": True})):
            frames += [_user("q"), _asst(c)]
        _write(root / "s" / "agent-transcripts" / "o1" / "o1.jsonl", frames)

    return kept_corpus("solo", build, tmp_path_factory.mktemp("cursor-solo"))[:2]


@pytest.fixture
def corpora(generated, text_only, exact, mixed, solo) -> list[tuple[dict[str, Any], dict[str, dict]]]:
    return [generated[:2], text_only[:2], exact, mixed, solo]


def test_the_planted_corpus_shows_every_case(generated, text_only, exact, mixed, solo) -> None:
    """The figures the sentences turn on are non-zero here, so each branch is taken."""
    t, _, planted, _ = generated
    assert t["frames"] > planted["frames"]["ok"] and t["pairs"] == Counter(planted["assistant_pairs"])
    assert t["tu"][2] and t["id_top"][0] and t["key_files"]["is_error"] and t["model_meta_files"]
    assert t["id_top"][1] == ["id", "shellId"] and t["tu_id_keys"] == ["id", "tool_use_id"]
    assert sorted(t["iff"].values()) and any((st == "success") == has for (st, has) in t["iff"])
    assert None in t["statuses"] and len({j for _, j in t["err"]}) > 1 and t["heads"]["<withheld>"]
    assert 0 < t["lineage"][0] < t["lineage"][1] and 0 < t["dir_equals_file"][0] < t["dir_equals_file"][1]
    e, _ = exact
    assert e["tu"][0] == e["tu"][1] > 1 and not e["tu"][2] and e["parallel"][0] > 1
    assert e["iff"] and all((st == "success") != has for (st, has) in e["iff"])
    assert e["lineage"] == (0, 1) and e["itypes"] == {"ApplyPatch": Counter(string=3)}
    x = text_only[0]
    assert not x["tu"][1] and not x["iff"] and not x["sidecars"] and not x["statuses"]
    m, _ = mixed
    assert len(m["content"]) == 2 and 0 == m["tu"][2] < m["tu"][0] < m["tu"][1] and m["parallel"] == (4, 1)
    assert m["itypes"]["ApplyPatch"] == Counter(object=1) and m["itypes"]["Shell"]["string"] == 1
    assert m["tr_keys"] and not m["key_files"]["is_error"] and m["readback"]["agent_tools_path"][0] == 0
    assert m["models"] == ["$.message.model"] and "AwaitShell" not in m["ncalls"] and m["questions"]
    o, _ = solo
    assert o["parallel"] == (1, 0) and o["tu"][0] == o["tu"][1] and o["readback"]["agent_tools_command"][0] == 0
    assert o["readback"]["agent_tools_path"][0] and sum(1 for _, key in o["ikeys"] if key == "run_in_background") == 2


@pytest.mark.parametrize("cid", SENTENCES)
def test_each_sentence_states_the_counted_figures(cid: str, corpora) -> None:
    for t, claims in corpora:
        want = expected_text(t)
        if cid not in want:  # the sidecar sizes, stated only where a sidecar exists
            assert cid not in claims and not t["sidecars"]
            continue
        assert claims[cid]["text"] == want[cid], cid
        assert claims[cid]["value"] == expected_value(t)[cid], cid
        assert claims[cid]["kind"] == KINDS.get(cid, "census"), cid
        undetermined = cid == "error_iff_status" and not t["iff"]
        assert claims[cid]["provenance"] == ("not determined" if undetermined else PROVENANCE.get(cid, "observed")), cid
        assert claims[cid]["headline"] == (cid in HEADLINES), cid


def expected_evidence(t: dict[str, Any]) -> dict[str, list[tuple[str, str | None]]]:
    """Each claim's evidence: (result, scope), from the same counts; a probe's evidence is
    (``probe:<id>``, None), its figures being the probe's own."""
    walked = f"{fmt(t['walked'])} walked files, {human_bytes(t['walked_bytes'])}"
    whole = f"{fmt(t['total'])} files (whole corpus)"
    n_id, id_keys = t["id_top"]
    iff = t["iff"]
    exc = sum(n for (st, has), n in iff.items() if (st == "success") == has)
    exact, tu_total, tu_id = t["tu"]
    it = t["itypes"]
    o_str = sum(c["string"] for n, c in it.items() if n != "ApplyPatch")
    o_all = sum(sum(c.values()) for n, c in it.items() if n != "ApplyPatch")
    ap = it.get("ApplyPatch")
    tool_order = sorted(t["ncalls"], key=lambda n: (-t["ncalls"][n], n))  # the census's order: calls, then name
    ik = t["ikeys"]
    model_tools = {n: ik[(n, "model")] for n in tool_order if (n, "model") in ik}
    bg = {n: [ik[(n, "run_in_background")], t["ncalls"][n]] for n in tool_order if (n, "run_in_background") in ik}
    sc = t["sidecars"]
    rb = [(v, n) for v, (n, _) in t["readback"].items() if n]
    st = t["statuses"]
    pr = t["pairs"]
    pl = t["payload"]
    out: dict[str, list[tuple[str, str | None]]] = {
        "basis_files": [(f"{fmt(t['total'])} files", whole)],
        "top_keysets": [(", ".join(f"{{{ks}}} {fmt(n)}" for ks, n in _by(t["top"])), walked),
                        (f"{t['raw']} distinct top-level key sets before masking", walked)],
        "in_file_identity": [(f"{fmt(n_id)}/{fmt(t['frames'])} records with {', '.join(id_keys) or 'no id key'}", walked)],
        "error_iff_status": [("0 frames with status" if not iff else f"{fmt(sum(iff.values()))} frames, 0 exceptions"
                              if not exc else f"{fmt(exc)} exceptions", walked)],
        "content_types": [("; ".join(f"{j} {n}" for j, n in _by(t["content"])), walked)],
        "block_types": [("; ".join(f"{b} {{{ks}}} {n}" for (b, ks), n in sorted(t["bk"].items(), key=lambda kv: (-kv[1], kv[0]))),
                         walked)],
        "tool_use_keyset": [(f"{fmt(exact)}/{fmt(tu_total)}; with an id key {fmt(tu_id)}", walked)],
        "no_tool_results": [("probe:no_tool_result", None), ("probe:no_tool_use_id", None), ("probe:no_is_error", None)],
        "per_call_outcome": [("probe:no_is_error", None), (f"tool_result keys: {', '.join(t['tr_keys']) or 'none'}", walked)],
        "applypatch_string": [(f"ApplyPatch {ap['string']}/{sum(ap.values())}; others string {o_str}" if ap else
                               f"others string {o_str}/{o_all}", walked)],
        "max_parallel": [(f"max {t['parallel'][0]}, >3 in {t['parallel'][1]} frames", walked)],
        "mcp_wrappers": [(f"{len(t['mcp'])} key sets", walked)],
        "input_keys": [(f"{len(ik)} rows", walked)],
        "model_where": [(f"{len(t['models'])} paths", walked), (f"{model_tools}", walked)],
        "background_shell": [(f"{bg}", walked)],
        "skill_evidence": [(f"{t['skill'][0]} calls, {t['skill'][1]} files", walked)],
        "ask_question_shape": [(f"{ {p: ','.join(v) for p, v in sorted(t['questions'].items())} }", walked)],
        "agent_tools_count": [(f"{len(sc)} files", whole)],
        "readback_refs": [("; ".join(f"{v} {n}" for v, n in rb) or "0", walked)],
        "turn_ended_last": [(f"{t['te'][2]}/{t['te'][0]}", walked)],
        "files_without_turn_ended": [(f"{t['te'][1]}/{t['walked']}", walked)],
        "error_type": [("; ".join(f"{r} {j} {n}" for (r, j), n in _by(t["err"])) or "0 rows", walked)],
        "turn_outcome": [(f"{fmt(sum(n for k, n in st.items() if k is not None))}/{fmt(sum(st.values()))} frames with a status",
                          walked)],
        "turn_status": [("; ".join(f"{k} {n}" for k, n in _by(st, lambda kv: (-kv[1], kv[0] is None, str(kv[0])))), walked)],
        "assistant_pairs": [(f"{ {'pairs': sum(pr.values()), 'duplicate': pr['duplicate'], 'prefix_extension': pr['prefix_extension'], 'reverse_prefix': pr['reverse_prefix'], 'unrelated': pr['unrelated']} }",
                             walked)],
        "child_in_parent": [(f"{t['lineage'][0]}/{t['lineage'][1]}", whole)],
        "dir_equals_file": [(f"{t['dir_equals_file'][0]}/{t['dir_equals_file'][1]}", whole)],
        "one_user_frame": [(f"{t['users'][0]}/{t['users'][1]}", walked)],
        "stratify_basis": [("probe:no_version", None), ("probe:no_timestamp", None), ("probe:no_model_meta", None)],
        "payload_percentiles": [(f"{ {k: pl[k] for k in ('assistant_payloads', 'p50', 'p90', 'p99', 'max', 'max_including_user', 'payloads')} }",
                                 walked)],
        "legacy_headings": [(f"{len(t['heads'])} names", f"{fmt(t['surfaces']['legacy_txt'])} legacy .txt files")],
    }
    if sc:
        sized = f"{fmt(len(sc))} sidecar files"
        out["agent_tools_sizes"] = [(f"{sc[0]}/{_quantile(sc, 0.5)}/{sc[-1]} bytes", sized)]
        out["spill_threshold"] = [(f"min {sc[0]} bytes", sized)]
    return out


def _evidence(claim: dict) -> list[tuple[str, str | None]]:
    return [(e["source"], None) if e["source"].startswith("probe:") else (e["result"], e["scope"]) for e in claim["evidence"]]


@pytest.mark.parametrize("cid", SENTENCES)
def test_each_claim_carries_the_counted_evidence(cid: str, corpora) -> None:
    for t, claims in corpora:
        want = expected_evidence(t)
        if cid in want:
            assert _evidence(claims[cid]) == want[cid], cid


def test_absences_name_what_was_looked_for(corpora) -> None:
    """Each absence names what it looked for, and states it as a key in the walked files and as
    text in every .jsonl file."""
    for t, claims in corpora:
        w, n = fmt(t["walked"]), fmt(t["jsonl_files"])
        for cid, what, key, lits in ABSENT:
            k = t["model_meta_files"] if key == "model" else t["key_files"][key]
            by_text = fmt(sum(t["text"][f'"{lit}"'][0] for lit in lits))
            want = (f"{what}: not observed as a key in {w} walked files; the text occurs in {by_text} of {n} files" if not k
                    else f"{what}: observed as a key in {fmt(k)} of {w} walked files ({by_text} of {n} files by text)")
            assert (claims[cid]["text"], claims[cid]["value"]) == (want, not k), cid
            assert _evidence(claims[cid]) == [(f"probe:{cid}", None)] and claims[cid]["kind"] == "absence"
        for cid, what, lit in (*MARKERS, ("no_cancelled", 'status "cancelled"', '"cancelled"')):
            files, hits = t["text"][lit]
            want = (f"{what}: not observed in {n} files (0 hits by DuckDB and by rg)" if not files
                    else f"{what}: observed in {fmt(files)} of {n} files ({fmt(hits)} hits)")
            assert (claims[cid]["text"], claims[cid]["value"]) == (want, not files), cid
            assert _evidence(claims[cid]) == [(f"probe:{cid}", None)] and claims[cid]["kind"] == "absence"


@pytest.mark.parametrize("turn", ["no_tool_result", "no_tool_use_id", "no_is_error"])
def test_a_disagreement_leaves_tool_results_not_determined(generated, turn: str) -> None:
    """DuckDB and rg disagreeing on any one of the three probes leaves the tool-result sentence
    not determined, whatever the other two found."""
    t, claims, _, snap = generated
    assert claims["no_tool_results"]["provenance"] == "observed" and sum(t["grep"].values())
    turned = claims_from("cursor", snap, turn)
    c = turned["no_tool_results"]
    assert c["text"] == "No tool results corpus-wide: NOT DETERMINED, DuckDB and rg disagree (see Not observed)."
    assert (c["provenance"], c["value"], c["headline"]) == ("not determined", False, True)
    assert {cid: x["text"] for cid, x in turned.items() if cid not in ("no_tool_results", turn)} == \
        {cid: x["text"] for cid, x in claims.items() if cid not in ("no_tool_results", turn)}


def test_with_no_tool_result_at_all_the_sentence_says_none_of_the_files(text_only) -> None:
    t, claims, _, snap = text_only
    assert not sum(t["grep"].values())
    c = claims["no_tool_results"]
    assert (c["text"], c["value"], c["provenance"]) == (
        f"No tool results corpus-wide: 0 of {fmt(t['jsonl_files'])} files contain tool_result, tool_use_id, or is_error.",
        True, "observed")
    turned = claims_from("cursor", snap, "no_is_error")["no_tool_results"]  # no hit, but the greps disagree: nothing is shown
    assert (turned["value"], turned["provenance"]) == (False, "not determined")


def test_the_shared_sentences_are_stated_for_this_page(corpora) -> None:
    """The walk's basis counts frames; the tool-name map and the relation claims are stated."""
    for t, claims in corpora:
        assert f"walked ({human_bytes(t['walked_bytes'])}): {fmt(t['frames'])} frames parsed; " in claims["basis_frames"]["text"]
        names = Counter(b for n, c in t["itypes"].items() for b in [n] * sum(c.values()))
        assert claims["tool_names"]["text"].startswith(f"{len(names)} reviewed tool names observed over "
                                                       f"{fmt(sum(names.values()))} calls. ")
        assert {"link_sidecar_writes", "link_subagent_schema"} <= set(claims)
