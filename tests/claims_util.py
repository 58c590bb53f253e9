"""A runtime's claims computed from a surveyed corpus, for the tests that hold each sentence to
figures counted from the corpus itself.

``surveyed_claims`` surveys the corpus, then computes the runtime's claims again from the
snapshot's census, evidence and manifest (``Kit`` and the profile's ``claims``, as the
pipeline does) and checks they are the ones the snapshot holds. The census never depends on a
claims module, so where ``SURVEY_MUTATE_SNAPSHOTS`` names a folder (``python -m tools.mutate``
sets it for a module mapped with ``reuse_snapshot``), a corpus surveyed once is not surveyed
again: its census, evidence and manifest are kept there, keyed by the runtime and the corpus's
names and bytes, and each later run computes the claims from them with the module as it is.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from survey.evidence.claims import fmt
from survey.evidence.kit import Kit
from survey.runtimes import get
from survey.snapshot.store import dumps

KEPT = ("census", "evidence", "manifest")


def corpus_key(runtime: str, root: Path, options: dict[str, Any] | None = None) -> str:
    h = hashlib.sha256(runtime.encode() + (repr(sorted(options.items())).encode() if options else b""))
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:32]


def surveyed_claims(runtime: str, root: Path, base: Path, **options: Any) -> dict[str, dict]:
    """The claims of ``runtime`` on the corpus at ``root`` (snapshot and page under ``base``), by id;
    ``options`` are passed on to the survey (``sample_n``, ``allow_mcp``)."""
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    kept = Path(shared) / corpus_key(runtime, root, options) if shared else None
    snap = kept if kept is not None and all((kept / f"{n}.json").is_file() for n in KEPT) else None
    surveyed = None
    if snap is None:
        from survey.pipeline import run_survey

        res = run_survey(get(runtime), root, snapshots=base / "s", reports=base / "r", date="2026-01-01",
                         **options)
        snap = surveyed = Path(res.snapshot)
        if kept is not None:
            tmp = kept.with_name(kept.name + f".{os.getpid()}.tmp")
            tmp.mkdir(parents=True)
            for n in KEPT:
                shutil.copyfile(snap / f"{n}.json", tmp / f"{n}.json")
            os.replace(tmp, kept) if not kept.exists() else shutil.rmtree(tmp)
    census, evidence, manifest = (orjson.loads((snap / f"{n}.json").read_bytes()) for n in KEPT)
    kit = Kit(census, evidence, manifest)
    profile = get(runtime)
    assert profile.claims is not None
    profile.claims(kit)
    got = {c.id: orjson.loads(dumps(c.to_json())) for c in kit.claims}
    if surveyed is not None:  # the snapshot holds these very claims (and the skeletons and notes after them)
        written = {c["id"]: c for c in orjson.loads((surveyed / "claims.json").read_bytes())}
        assert {cid: written.get(cid) for cid in got} == got
    return got


def snapshot_of(runtime: str, root: Path, base: Path) -> Path:
    """The folder holding the census, evidence and manifest ``surveyed_claims`` computed from."""
    shared = os.environ.get("SURVEY_MUTATE_SNAPSHOTS")
    if shared:
        return Path(shared) / corpus_key(runtime, root)
    return next(p.parent for p in sorted((base / "s").rglob("census.json")))


def claims_from(runtime: str, snap: Path, turn: str | None = None) -> dict[str, dict]:
    """The claims of ``runtime`` computed from a snapshot, by id; where ``turn`` names a probe,
    DuckDB and rg disagree on it (rg counts one file more)."""
    census, evidence, manifest = (orjson.loads((snap / f"{n}.json").read_bytes()) for n in KEPT)
    evidence = copy.deepcopy(evidence)
    for p in evidence["probes"]:
        if p["id"] == turn:
            p["rg"]["files_matched"] += 1
            p["agree"], p["verdict"] = False, "disagreement"
    kit = Kit(census, evidence, manifest)
    profile = get(runtime)
    assert profile.claims is not None
    profile.claims(kit)
    return {c.id: orjson.loads(dumps(c.to_json())) for c in kit.claims}


def jsonl_objects(p: Path, status: Counter[str] | None = None) -> list[dict]:
    """A JSONL file's objects, read with ``json``; each line counted in ``status`` (when given) as
    ok, blank, malformed (valid JSON that is not an object counts here too) or partial (a last
    line without LF that does not parse to an object)."""
    status = Counter() if status is None else status
    lines = p.read_bytes().split(b"\n")
    tail = lines.pop()  # b"" when the file ends with LF
    out = []
    for i, line in enumerate([*lines, tail] if tail else lines):
        if not line.strip():
            status["blank"] += 1
            continue
        try:
            o = json.loads(line)
        except ValueError:
            o = None
        if isinstance(o, dict):
            status["ok"] += 1
            out.append(o)
        else:
            status["partial" if i == len(lines) else "malformed"] += 1
    return out


def layout_text(desc: Mapping[str, str], files: Mapping[str, int]) -> tuple[str, str]:
    """The layout sentence and its evidence result, for surfaces ``desc`` (name -> the pattern
    shown) and the files counted per surface (``"other"`` for the files of none)."""
    seen = [(n, files.get(n, 0)) for n in desc if files.get(n, 0)]
    unseen = [n for n in desc if not files.get(n, 0)]
    other = files.get("other", 0)
    return ("Files by surface (the path pattern each was recognised by): "
            + ("; ".join(f"{n} ({desc[n]}) {fmt(k)}" for n, k in seen) or "none")
            + (f"; {fmt(other)} other files" if other else "")
            + (f". No file matched: {', '.join(unseen)}." if unseen else "."),
            "; ".join(f"{n} {k}" for n, k in seen) or "none")
