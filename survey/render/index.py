"""The cross-runtime index page: one row per compared property, one column per runtime.

Every cell is a figure or claim from that runtime's snapshot, linked to the runtime's page;
a property a runtime's profile does not state renders as "not surveyed", never as a guess.
"""

from __future__ import annotations

from pathlib import Path

from survey.cachedir import write_atomic
from survey.evidence.claims import Claim
from survey.render.render import environment
from survey.snapshot.store import complete, load_json

# (row label, claim ids): each snapshot's cell is the first of these claims it states. The
# first id is the name the Claude Code and Codex pages use; a later id is the Cursor page's
# name for the same property.
ROWS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Client version in transcript", ("client_version", "no_version")),
    ("Timestamps", ("timestamps", "no_timestamp")),
    ("File identity", ("file_identity", "dir_equals_file")),
    ("Native call id", ("native_call_id", "tool_use_keyset")),
    ("Results recorded", ("results_recorded", "no_tool_results")),
    ("Exit code", ("exit_codes",)),
    ("Failure flag", ("failure_flag", "no_is_error")),
    ("Subagent files", ("subagent_files", "basis_files")),
    ("Parent names child", ("child_in_parent",)),
    ("Oversized output", ("oversized_output", "agent_tools_count")),
    ("Usage", ("usage", "no_usage")),
    ("Skill evidence", ("skill_evidence",)),
    ("Lifecycle end marker", ("turn_ended_last",)),
)


def cell(claims: dict[str, Claim], ids: tuple[str, ...], runtime: str) -> dict:
    """The first claim of ``ids`` the snapshot states, or "not surveyed"."""
    for cid in ids:
        c = claims.get(cid)
        if c is not None:
            return {"text": c.text, "claim": cid, "provenance": c.provenance, "page": f"{runtime}.md"}
    return {"text": "not surveyed", "claim": None, "provenance": None, "page": None}


# Rules for readers that no single snapshot can show: each is rendered as a reference note,
# with its source, never as a finding of this corpus.
READER_NOTES: tuple[tuple[str, str], ...] = (
    ("Split on the LF byte only; U+2028/U+2029 are legal inside JSON strings.", "sibling-facts.md"),
    ("Expect more than one header record per file, and unknown record classes.", "sibling-facts.md"),
    ("Never assume one record per message, and never use a message id as a call id.", "sibling-facts.md"),
    ("Treat inherited history as context, not as the child's own turns.", "sibling-facts.md"),
)


def _date_key(name: str) -> tuple[str, int]:
    """A snapshot folder's order: its date, then its ``.N`` suffix as a number."""
    base, _, n = name.partition(".")
    return base, int(n) if n.isdigit() else 0


def latest_snapshots(base: Path, written: list[Path] = ()) -> list[Path]:  # type: ignore[assignment]
    """The latest reviewed snapshot of every runtime under ``base`` (by date, then suffix),
    whichever run wrote it; a snapshot just ``written`` stands for its runtime. So a run of
    one runtime leaves every other runtime's column as its own latest snapshot made it."""
    latest: dict[str, tuple[tuple[str, int], Path]] = {}
    try:
        dates = [d for d in base.iterdir() if d.is_dir() and not d.name.startswith(".")]
    except OSError:
        dates = []
    for d in dates:
        # whole snapshots only: not a claim, nor a snapshot still under its temporary name
        # (``.<runtime>.tmp``, manifest and all, until it is renamed into place)
        try:
            snaps = [x for x in d.iterdir() if not x.name.startswith(".") and complete(x)]
        except OSError:  # (a date folder removed meanwhile)
            snaps = []
        for s in snaps:
            m = load_json(s, "manifest") or {}
            rt = m.get("runtime")
            if not rt or m.get("mode", "reviewed") != "reviewed":
                continue
            key = _date_key(d.name)
            if rt not in latest or key > latest[rt][0]:
                latest[rt] = (key, s)
    out = {rt: s for rt, (_k, s) in latest.items()}
    for s in written:
        rt = (load_json(s, "manifest") or {}).get("runtime")
        if rt:
            out[rt] = s
    return [out[rt] for rt in sorted(out)]


def render_index(snaps: list[Path], out: Path) -> Path:
    cols = []
    for s in snaps:
        m = load_json(s, "manifest") or {}
        claims = {c["id"]: Claim.from_json(dict(c)) for c in (load_json(s, "claims") or [])}
        cols.append({"runtime": m.get("runtime"), "title": m.get("title"), "date": m.get("date"),
                     "files": m.get("counts", {}).get("files"), "fixture": m.get("fixture"),
                     "synthetic": m.get("synthetic", False),
                     "snapshot": str(s), "claims": claims})
    rows = [{"label": label, "cells": [cell(c["claims"], ids, c["runtime"]) for c in cols]}
            for label, ids in ROWS]
    tpl = environment().get_template("index.md.j2")
    text = tpl.render(cols=cols, rows=rows, notes=READER_NOTES)
    write_atomic(out, text.encode())  # (runs at once write it: one whole file wins)
    return out
