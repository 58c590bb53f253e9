"""The structural figure of a probe about a key: the files in which the walk saw the key as a
key, from the snapshot (``queries/key_files_all.sql``), because a literal can sit in prose."""

from __future__ import annotations

from pathlib import Path

import duckdb

from survey.evidence.grep import commands
from survey.runtimes.base import Probe
from survey.shared import rel

# -- structural figures -----------------------------------------------------------------------


def key_hits(snap_dir: Path, probes: list[Probe], snap_label: str) -> dict[str, dict]:
    """The structural figure of every probe that names a key, from one query over the
    snapshot (key_files_all.sql); each record shows key_files.sql for its own probe."""
    keyed = [p for p in probes if p.key]
    if not keyed:
        return {}
    con = duckdb.connect()
    try:
        con.execute("SET VARIABLE snap = ?", [str(snap_dir)])
        con.execute("SET VARIABLE probes = ?::STRUCT(key VARCHAR, paths VARCHAR[])[]",
                    [[{"key": p.key, "paths": list(p.key_paths)} for p in keyed]])
        rows = {int(i): (int(f), int(o), list(ps or [])) for i, f, o, ps in con.execute(commands.KEY_ALL_SQL.read_text()).fetchall()}
    finally:
        con.close()
    out = {}
    for i, p in enumerate(keyed, start=1):
        files, objects, seen = rows.get(i, (0, 0, []))
        out[p.id] = {
            "key": p.key,
            "paths": list(p.key_paths),
            "files_with_key": files,
            "objects_with_key": objects,
            "paths_seen": seen,  # the object paths (gated, structural) where the key was seen
            "query": rel(commands.KEY_SQL),
            "command": (f"duckdb -c \"SET VARIABLE snap = '{snap_label}'\" -c \"SET VARIABLE key = '{p.key}'\" "
                        f"-c \"SET VARIABLE paths = {commands._sql_list(p.key_paths)}::VARCHAR[]\" -c \".read {rel(commands.KEY_SQL)}\""),
        }
    return out
