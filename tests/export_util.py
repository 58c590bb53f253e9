"""Helpers the export tests share: a generated corpus surveyed once per runtime, and
independent (plain ``json``, ``os.walk``) readings of a corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RUNTIMES = ["cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex"]


def survey(runtime: str, base: Path, *, seed: int = 7, canaries: bool = False) -> tuple[dict, Path, Path]:
    """Generate ``runtime``'s corpus under ``base/corpus`` and survey it: (planted, root, snapshot)."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.synth.demo import generator

    root = base / "corpus"
    root.mkdir(parents=True)
    planted = generator(runtime)(root, seed=seed, canaries=canaries)
    res = run_survey(get(runtime), root, snapshots=base / "snapshots", reports=base / "reports", date="2026-01-01")
    return planted, root, Path(res.snapshot)


def jsonl_records(root: Path, suffix: str = ".jsonl") -> list[tuple[str, int, Any]]:
    """Every line of every ``suffix`` file under ``root`` that parses as a JSON object, read
    with the standard library: (relative path, line number, object)."""
    out = []
    for d, _dirs, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(suffix):
                continue
            p = Path(d) / f
            for i, line in enumerate(p.read_bytes().split(b"\n")):
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    out.append((str(p.relative_to(root)), i, obj))
    return out


def all_keys(v: Any, out: set[str] | None = None) -> set[str]:
    out = set() if out is None else out
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            all_keys(x, out)
    elif isinstance(v, list):
        for x in v:
            all_keys(x, out)
    return out


def subschemas(s: Any, path: str = "#") -> list[tuple[str, dict]]:
    """Every subschema of a schema, with its pointer, walked by keyword (a property named
    like a keyword is a property, not a keyword)."""
    if not isinstance(s, dict):
        return []
    out = [(path, s)]
    for k, v in (s.get("properties") or {}).items():
        out += subschemas(v, f"{path}/properties/{k}")
    for k, v in (s.get("$defs") or {}).items():
        out += subschemas(v, f"{path}/$defs/{k}")
    for kw in ("items", "additionalProperties", "contentSchema", "not"):
        out += subschemas(s.get(kw), f"{path}/{kw}")
    for kw in ("oneOf", "anyOf", "allOf"):
        for i, v in enumerate(s.get(kw) or []):
            out += subschemas(v, f"{path}/{kw}/{i}")
    return out


def schema_nodes(s: Any) -> list[tuple[str, dict]]:
    """Every subschema that describes observed data (not a ``not`` exclusion or a ``$ref``)."""
    return [(p, x) for p, x in subschemas(s) if "/not" not in p and "$ref" not in x and "$defs" not in x
            and not ("oneOf" in x and len(x) == 1)]


def property_names(s: Any) -> set[str]:
    """Every property name a schema documents (a ``false`` subschema documents none)."""
    return {k for p, x in subschemas(s) if "/not" not in p
            for k, v in (x.get("properties") or {}).items() if v is not False}
