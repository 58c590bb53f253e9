"""Helpers the export tests share: a generated corpus surveyed once per runtime, and
independent (plain ``json``, ``os.walk``) readings of a corpus.

The survey never imports an export module, so where ``SURVEY_MUTATE_SNAPSHOTS`` names a folder
(``python -m tools.mutate`` sets it for a module mapped with ``reuse_snapshot``), a corpus
generated and surveyed once is kept there (corpus and snapshots, modification times and all),
keyed by the runtime, the seed and the canaries, and later runs copy it back instead of
generating and surveying it again.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

RUNTIMES = ["cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex"]


def survey(runtime: str, base: Path, *, seed: int = 7, canaries: bool = False) -> tuple[dict, Path, Path]:
    """Generate ``runtime``'s corpus under ``base/corpus`` and survey it: (planted, root, snapshot).
    Where the survey is reused (see above), ``planted`` holds its ``canaries`` alone."""
    from survey.pipeline import run_survey
    from survey.runtimes import get
    from survey.synth.demo import generator

    root = base / "corpus"
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    kept = Path(shared) / f"export-{runtime}-{seed}-{int(canaries)}" if shared else None
    if kept is not None and (kept / "planted.json").is_file():
        shutil.copytree(kept / "corpus", root, symlinks=True)
        shutil.copytree(kept / "snapshots", base / "snapshots", symlinks=True)
        return (json.loads((kept / "planted.json").read_text()), root,
                base / "snapshots" / "2026-01-01" / runtime)
    root.mkdir(parents=True)
    planted = generator(runtime)(root, seed=seed, canaries=canaries)
    res = run_survey(get(runtime), root, snapshots=base / "snapshots", reports=base / "reports", date="2026-01-01")
    snap = Path(res.snapshot)
    assert snap == base / "snapshots" / "2026-01-01" / runtime
    if kept is not None:
        tmp = kept.with_name(kept.name + f".{os.getpid()}.tmp")
        shutil.copytree(root, tmp / "corpus", symlinks=True)
        shutil.copytree(base / "snapshots", tmp / "snapshots", symlinks=True)
        (tmp / "planted.json").write_text(json.dumps({"canaries": list(planted.get("canaries") or [])}))
        os.replace(tmp, kept) if not kept.exists() else shutil.rmtree(tmp)
    return planted, root, snap


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


def survey_root(runtime: str, root: Path, base: Path) -> Path:
    """Survey the corpus already at ``root`` (snapshots under ``base``); its snapshot. Reused as
    ``survey`` is, keyed by the runtime and the corpus's names, bytes and modification times."""
    import hashlib

    from survey.pipeline import run_survey
    from survey.runtimes import get

    snaps = base / "snapshots"
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    kept = None
    if shared:
        h = hashlib.sha256(runtime.encode())
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(f"{p.relative_to(root)}\0{p.stat().st_mtime_ns}\0".encode() + p.read_bytes())
        kept = Path(shared) / f"root-{h.hexdigest()[:32]}"
        if kept.is_dir():
            shutil.copytree(kept, snaps, symlinks=True)
            return snaps / "2026-01-01" / runtime
    res = run_survey(get(runtime), root, snapshots=snaps, reports=None, date="2026-01-01")
    snap = Path(res.snapshot)
    assert snap == snaps / "2026-01-01" / runtime
    if kept is not None:
        tmp = kept.with_name(kept.name + f".{os.getpid()}.tmp")
        shutil.copytree(snaps, tmp, symlinks=True)
        os.replace(tmp, kept) if not kept.exists() else shutil.rmtree(tmp)
    return snap
