"""JSONL rewriting helpers the Claude Code and Codex drift operators share.

An operator reads every ``.jsonl`` file of a copied corpus and writes it back changed, the way
a client update would write its files: each parsed line goes through a function that may edit
the record in place, drop it (return None) or add records after it (return a list).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Edit = Callable[[dict[str, Any]], "dict[str, Any] | list[dict[str, Any]] | None"]


def rewrite(root: Path, edit: Edit, *, name: str = "*.jsonl") -> int:
    """Apply ``edit`` to every parsed record of every matching file; unparsable lines are kept
    as they are. Returns how many records the edit saw."""
    seen = 0
    for f in sorted(root.rglob(name)):
        out: list[str] = []
        for line in f.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                out.append(line.decode("utf-8", "surrogateescape"))
                continue
            if not isinstance(rec, dict):
                out.append(line.decode("utf-8", "surrogateescape"))
                continue
            seen += 1
            got = edit(rec)
            for r in ([] if got is None else got if isinstance(got, list) else [got]):
                out.append(json.dumps(r, separators=(",", ":"), ensure_ascii=False))
        f.write_bytes("\n".join(out).encode("utf-8", "surrogateescape"))
    return seen


def records(root: Path, name: str = "*.jsonl") -> list[tuple[Path, dict[str, Any]]]:
    """Every parsed record (object) of every matching file, with its file."""
    out = []
    for f in sorted(root.rglob(name)):
        for line in f.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append((f, rec))
    return out


def blocks(rec: dict[str, Any], carrier: tuple[str, str]) -> list[dict[str, Any]]:
    """The object blocks of ``rec[carrier[0]][carrier[1]]`` when it is a list (else none)."""
    outer = rec.get(carrier[0])
    inner = outer.get(carrier[1]) if isinstance(outer, dict) else None
    return [b for b in inner if isinstance(b, dict)] if isinstance(inner, list) else []


# -- the drift check (the shape tests/drift.py gives, used where that module is absent) ---------

DATE = "2026-01-01"


class Surveyed:
    def __init__(self, page: str, snap: Path, claims: dict[str, dict[str, Any]]) -> None:
        self.page, self.snap, self.claims = page, snap, claims


def survey_once(runtime: str, root: Path, tmp: Path) -> Surveyed:
    from survey.pipeline import run_survey
    from survey.runtimes import get

    res = run_survey(get(runtime), root, snapshots=tmp / "snapshots", reports=tmp / "reports", date=DATE)
    snap = Path(res.snapshot)
    claims = {c["id"]: c for c in json.loads((snap / "claims.json").read_text())}
    return Surveyed(Path(res.page).read_text(), snap, claims)


def check_drift(runtime: str, base_root: Path, mutate: Callable[[Path], Any], *, changed: list[str],
                stale: list[str], tmp: Path) -> tuple[Surveyed, Surveyed]:
    import shutil
    import subprocess
    import sys

    root = tmp / "drifted" / base_root.name
    shutil.copytree(base_root, root)
    mutate(root)
    before = survey_once(runtime, base_root, tmp / "before")
    after = survey_once(runtime, root, tmp / "after")
    for cid in changed:
        b, a = before.claims[cid], after.claims[cid]
        assert (b["value"], b["text"]) != (a["value"], a["text"]), f"claim {cid} did not change: {a['text']}"
    for phrase in stale:
        assert phrase not in after.page, f"the drifted page still says: {phrase}"
    r = subprocess.run([sys.executable, "-m", "survey", "diff", str(before.snap), str(after.snap), "--fail-on-drift"],
                       capture_output=True, text=True)
    assert r.returncode == 3, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return before, after
