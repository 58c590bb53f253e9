"""The cross-runtime index page: one row per compared property, one column per runtime.

Every cell is a figure or claim from that runtime's snapshot, linked to the runtime's page;
a property a runtime's profile does not state renders as "not surveyed", never as a guess.
"""

from __future__ import annotations

from pathlib import Path

from survey.evidence.claims import Claim
from survey.render.render import environment
from survey.snapshot.store import load_json

# (row label, claim id per runtime is looked up by this key in each snapshot's claims)
ROWS = (
    ("Client version in transcript", "no_version"),
    ("Timestamps", "no_timestamp"),
    ("File identity", "dir_equals_file"),
    ("Native call id", "tool_use_keyset"),
    ("Results recorded", "no_tool_results"),
    ("Exit code", "exit_codes"),
    ("Failure flag", "no_is_error"),
    ("Subagent files", "basis_files"),
    ("Parent names child", "child_in_parent"),
    ("Oversized output", "agent_tools_count"),
    ("Usage", "no_usage"),
    ("Lifecycle end marker", "turn_ended_last"),
)


def render_index(snaps: list[Path], out: Path) -> Path:
    cols = []
    for s in snaps:
        m = load_json(s, "manifest") or {}
        claims = {c["id"]: Claim.from_json(dict(c)) for c in (load_json(s, "claims") or [])}
        cols.append({"runtime": m.get("runtime"), "title": m.get("title"), "date": m.get("date"),
                     "files": m.get("counts", {}).get("files"), "fixture": m.get("fixture"),
                     "snapshot": str(s), "claims": claims})
    rows = []
    for label, cid in ROWS:
        cells = []
        for c in cols:
            cl = c["claims"].get(cid)
            cells.append(cl.text if cl else "not surveyed")
        rows.append({"label": label, "cells": cells})
    tpl = environment().get_template("index.md.j2")
    text = tpl.render(cols=cols, rows=rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return out
