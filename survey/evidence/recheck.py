"""Re-verify a snapshot's headline claims by a path that shares nothing with the census.

The census walks with orjson, frames with its own splitter, classifies files by profile
regexes and answers in DuckDB. The re-check does none of that: it finds files with
``os.walk`` and plain suffix tests, reads lines with the stdlib ``json`` module, and
counts in plain Python, on a fresh sample (another seed) or on the files modified since a
date. Its verdicts are stored beside the snapshot (``<snapshot>.recheck.json``; the snapshot
itself stays immutable) and the page marks each claim verified or shows the disagreement.

Only verdicts and counts are stored: nothing read is kept.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def _files(root: Path, suffix: str) -> list[Path]:
    out = []
    for d, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for n in sorted(names):
            p = Path(d) / n
            if n.endswith(suffix) and p.is_file() and not p.is_symlink():
                out.append(p)
    return out


def _records(path: Path) -> Iterator[Any]:
    with open(path, "rb") as fh:
        for raw in fh:  # iterating a binary file splits on b"\n" only
            try:
                yield json.loads(raw)
            except (ValueError, RecursionError):
                continue


def _choose(files: list[Path], n: int | None, seed: int, since: str | None) -> list[Path]:
    if since:
        cut = dt.datetime.fromisoformat(since).replace(tzinfo=dt.UTC).timestamp()
        files = [f for f in files if f.stat().st_mtime >= cut]
    if n is not None and n < len(files):
        files = random.Random(seed).sample(files, n)
    return files


def _has_key(obj: Any, key: str) -> bool:
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if key in x:
                return True
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _cursor(root: Path, claims: dict[str, dict], n: int | None, seed: int, since: str | None) -> list[dict]:
    transcripts = [p for p in _files(root, ".jsonl") if "agent-transcripts" in p.parts]
    sample = _choose(transcripts, n, seed, since)
    blocks = exact = results = 0
    for f in sample:
        for rec in _records(f):
            if not isinstance(rec, dict):
                continue
            msg = rec.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    blocks += 1
                    exact += set(b) == {"input", "name", "type"}
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    results += 1
            if _has_key(rec, "tool_use_id") or _has_key(rec, "is_error"):
                results += 1
    sidecars = [p for p in _files(root, ".txt") if p.parent.name == "agent-tools"]
    scope = f"{len(sample)} transcripts re-read with the stdlib json module"
    out = []
    c = claims.get("no_tool_results")
    if c:
        out.append(_verdict("no_tool_results", bool(c["value"]), results == 0, scope, f"{results} result blocks or keys"))
    c = claims.get("tool_use_keyset")
    if c:
        said_all = c["value"][0] == c["value"][1]
        out.append(_verdict("tool_use_keyset", said_all, exact == blocks, scope, f"{exact}/{blocks} blocks exactly {{input,name,type}}"))
    c = claims.get("agent_tools_count")
    if c:
        out.append(_verdict("agent_tools_count", c["value"], len(sidecars), "every file under */agent-tools/ (os.walk)",
                            f"{len(sidecars)} files"))
    return out


def _whole(files: list[Path], sample: list[Path], since: str | None) -> bool:
    """Did the re-check read every file (so totals are comparable, not only properties)?"""
    return since is None and len(sample) == len(files)


def _class_counts(sample: list[Path], class_of: Callable[[dict], str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for f in sample:
        for rec in _records(f):
            if isinstance(rec, dict):
                out[class_of(rec)] += 1
    return out


def _classes_verdict(claims: dict[str, dict], found: Counter[str], whole: bool, scope: str) -> list[dict]:
    """Records per class: exact totals when both sides read everything, else the classes the
    re-check sees must all be classes the snapshot names."""
    c = claims.get("record_classes")
    if not c:
        return []
    said = c["value"]["records"]
    if whole and c["value"].get("whole_corpus"):
        return [_verdict("record_classes", said, dict(sorted(found.items())), scope,
                         f"{sum(found.values())} records in {len(found)} classes")]
    unknown = sorted(set(found) - set(said))
    return [_verdict("record_classes", True, not unknown, scope,
                     f"classes seen by the re-check and absent from the snapshot: {unknown or 'none'}")]


def _claude_class(rec: dict) -> str:
    t = rec.get("type")
    st = rec.get("subtype")
    return f"{t}/{st}" if isinstance(st, str) else str(t)


def _claude_code(root: Path, claims: dict[str, dict], n: int | None, seed: int, since: str | None) -> list[dict]:
    jsonl = _files(root, ".jsonl")
    sample = _choose(jsonl, n, seed, since)
    whole = _whole(jsonl, sample, since)
    scope = f"{len(sample)} of {len(jsonl)} .jsonl files re-read with the stdlib json module"
    out = _classes_verdict(claims, _class_counts(sample, _claude_class), whole, scope)

    # identity: a parent <cwd>/<sid>.jsonl carries one sessionId, its file name; a child
    # <sid>/subagents/…/agent-<id>.jsonl carries its session folder's name
    parents = parents_eq = kids = kids_eq = several = 0
    naive = 0.0
    last: dict[tuple[Any, Any], float] = {}
    for f in sample:
        rel = f.relative_to(root).parts
        is_parent = len(rel) == 2
        is_kid = len(rel) >= 4 and rel[2] == "subagents" and f.name.startswith("agent-")
        if not (is_parent or is_kid):
            continue
        ids = set()
        for rec in _records(f):
            if not isinstance(rec, dict):
                continue
            if isinstance(rec.get("sessionId"), str):
                ids.add(rec["sessionId"])
            msg = rec.get("message")
            usage = msg.get("usage") if isinstance(msg, dict) else None
            ot = usage.get("output_tokens") if isinstance(usage, dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("id"), str) and isinstance(ot, (int, float)) \
                    and not isinstance(ot, bool):
                naive += ot
                key = (rec.get("sessionId"), msg["id"])
                last[key] = max(last.get(key, ot), ot)
        several += len(ids) > 1
        if is_parent:
            parents += 1
            parents_eq += ids == {f.name[: -len(".jsonl")]}
        else:
            kids += 1
            kids_eq += ids == {rel[1]}
    c = claims.get("file_identity")
    if c:
        said = c["value"]
        if whole:
            out.append(_verdict("file_identity", said, [parents_eq, parents, kids_eq, kids, several], scope,
                                f"parents {parents_eq}/{parents}, children {kids_eq}/{kids}, several ids {several}"))
        else:
            out.append(_verdict("file_identity", said[0] == said[1] and said[2] == said[3] and not said[4],
                                parents_eq == parents and kids_eq == kids and not several, scope,
                                f"parents {parents_eq}/{parents}, children {kids_eq}/{kids}, several ids {several}"))
    c = claims.get("usage")
    if c and whole:
        got = {"naive_output_tokens": int(naive), "dedup_output_tokens": int(sum(last.values()))}
        said = {k: c["value"][k] for k in got}
        out.append(_verdict("usage", said, got, scope, f"naive {got['naive_output_tokens']}, "
                            f"per (sessionId, message.id) {got['dedup_output_tokens']}"))
    return out


_ROLLOUT_UUID = re.compile(r"-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$")
_CALLS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def _codex_class(rec: dict) -> str:
    p = rec.get("payload")
    pt = p.get("type") if isinstance(p, dict) else None
    return f"{rec.get('type')}/{pt}" if isinstance(pt, str) else str(rec.get("type"))


def _codex(root: Path, claims: dict[str, dict], n: int | None, seed: int, since: str | None) -> list[dict]:
    rollouts = [p for p in _files(root, ".jsonl") if p.name.startswith("rollout-")]
    sample = _choose(rollouts, n, seed, since)
    whole = _whole(rollouts, sample, since)
    scope = f"{len(sample)} of {len(rollouts)} rollouts re-read with the stdlib json module"
    out = _classes_verdict(claims, _class_counts(sample, _codex_class), whole, scope)

    matches = with_meta = 0
    paired = unpaired_calls = unpaired_outputs = 0
    for f in sample:
        first_id = None
        calls: set[Any] = set()
        outputs: list[Any] = []
        for rec in _records(f):
            if not isinstance(rec, dict) or not isinstance(rec.get("payload"), dict):
                continue
            p = rec["payload"]
            if rec.get("type") == "session_meta" and first_id is None:
                first_id = p.get("id", "")
            if rec.get("type") == "response_item" and p.get("type") in _CALLS and "call_id" in p:
                calls.add(p["call_id"])
            if rec.get("type") == "response_item" and p.get("type") in _OUTPUTS and "call_id" in p:
                outputs.append(p["call_id"])
        m = _ROLLOUT_UUID.search(f.name)
        if first_id is not None:
            with_meta += 1
            matches += bool(m) and first_id == m.group(1)  # type: ignore[union-attr]
        paired += sum(1 for c in outputs if c in calls)
        unpaired_outputs += sum(1 for c in outputs if c not in calls)
        unpaired_calls += len(calls - set(outputs))
    c = claims.get("file_identity")
    if c:
        said = c["value"]
        if whole:
            out.append(_verdict("file_identity", said[:2], [matches, with_meta], scope,
                                f"first session_meta id = filename uuid in {matches}/{with_meta}"))
        else:
            out.append(_verdict("file_identity", said[0] == said[1], matches == with_meta, scope,
                                f"first session_meta id = filename uuid in {matches}/{with_meta}"))
    c = claims.get("native_call_id")
    if c and whole:
        got = {"paired": paired, "unpaired_calls": unpaired_calls, "unpaired_outputs": unpaired_outputs}
        out.append(_verdict("native_call_id", {k: c["value"].get(k) for k in got}, got, scope,
                            f"paired {paired}, unpaired calls {unpaired_calls}, unpaired outputs {unpaired_outputs}"))
    return out


def _verdict(claim: str, said: Any, found: Any, scope: str, detail: str) -> dict:
    return {"claim": claim, "verdict": "agrees" if said == found else "disagrees",
            "snapshot_value": said, "recheck_value": found, "scope": scope, "detail": detail}


RECHECKS: dict[str, Callable[..., list[dict]]] = {"cursor": _cursor, "claude_code": _claude_code, "codex": _codex}


def root_matches(manifest: dict, root: Path, salt: bytes) -> bool:
    """Does ``root`` pseudonymise to the snapshot's root? (same machine, same salt)"""
    d = hmac.new(salt, f"r\0{root.resolve()}".encode("utf-8", "surrogateescape"), hashlib.sha256)
    return manifest.get("root") == f"r-{d.hexdigest()[:16]}"


def recheck(snap: Path, root: Path, *, sample: int | None = 60, seed: int | None = None,
            since: str | None = None, salt: bytes | None = None) -> dict:
    manifest = json.loads((snap / "manifest.json").read_text())
    claims = {c["id"]: c for c in json.loads((snap / "claims.json").read_text())}
    runtime = manifest["runtime"]
    fn = RECHECKS.get(runtime)
    if fn is None:
        raise KeyError(f"no independent re-check for runtime {runtime!r}")
    seed = seed if seed is not None else int(manifest.get("sample", {}).get("seed") or 0) + 1
    verdicts = fn(root, claims, sample, seed, since)
    result = {
        "snapshot": str(snap),
        "runtime": runtime,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        "method": "independent: os.walk + stdlib json, plain Python counts",
        "sample": {"n": sample, "seed": seed, "since": since},
        "root_matches_snapshot": root_matches(manifest, root, salt) if salt else None,
        "verdicts": verdicts,
        "disagreements": [v["claim"] for v in verdicts if v["verdict"] != "agrees"],
    }
    out = snap.parent / f"{snap.name}.recheck.json"
    # a temp name of this process's own (rechecks of one snapshot at once), renamed into place
    tmp = out.with_name(f".{out.name}.{os.getpid()}-{random.SystemRandom().getrandbits(32):08x}.tmp")
    try:
        tmp.write_text(json.dumps(result, indent=2, sort_keys=True))
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return result
