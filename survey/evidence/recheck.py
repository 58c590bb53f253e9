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


def _verdict(claim: str, said: Any, found: Any, scope: str, detail: str) -> dict:
    return {"claim": claim, "verdict": "agrees" if said == found else "disagrees",
            "snapshot_value": said, "recheck_value": found, "scope": scope, "detail": detail}


RECHECKS: dict[str, Callable[..., list[dict]]] = {"cursor": _cursor}


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
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=2, sort_keys=True))
    tmp.replace(out)
    return result
