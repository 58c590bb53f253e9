"""Discover mode's candidate list, and the vocabulary proposal a person accepts.

In discover mode the gate lets identifier-shaped keys and values through, so the walk sees
what the reviewed vocabulary would hide. ``candidates`` reads such a (local-only) snapshot
and lists every key and every vocabulary-path value that the reviewed vocabulary lacks,
with file counts. ``propose`` turns that list into a proposed ``vocab.json``: nothing is
accepted until a person reviews it (``survey vocab … --accept``). Candidates live under
``discover/``, never under ``snapshots/`` or ``reports/``.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson

from survey.corpus.privacy import IDENT, MASKS
from survey.runtimes.base import HERE as RUNTIMES
from survey.runtimes.base import load_vocab


def candidates(snap: Path, runtime: str) -> dict:
    keys, values = load_vocab(runtime)
    con = duckdb.connect()
    nodes = str(snap / "walk" / "nodes.parquet")
    vals = str(snap / "walk" / "values.parquet")
    key_files: dict[str, int] = {}
    for key, files in con.execute(
        "SELECT k, count(DISTINCT file_id) FROM (SELECT file_id, unnest(string_split(keyset, ',')) AS k "
        "FROM read_parquet(?) WHERE jtype = 'object' AND keyset NOT IN ('', '<map>', '<opaque>')) GROUP BY k",
        [nodes],
    ).fetchall():
        if key and key not in keys and key not in MASKS and IDENT.match(key):
            key_files[key] = int(files)
    value_files: dict[str, dict[str, int]] = {}
    for path, value, files in con.execute(
        "SELECT path, value, count(DISTINCT file_id) FROM read_parquet(?) WHERE value <> '<withheld>' GROUP BY ALL",
        [vals],
    ).fetchall():
        if value not in values.get(path, frozenset()) and IDENT.match(value) and not value.isdigit():
            value_files.setdefault(path, {})[value] = int(files)
    con.close()
    return {
        "UNREVIEWED": "local-only discover output: do not commit or share",
        "runtime": runtime,
        "snapshot": str(snap),
        "keys": dict(sorted(key_files.items(), key=lambda kv: (-kv[1], kv[0]))),
        "values": {p: dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))) for p, v in sorted(value_files.items())},
    }


def write_candidates(snap: Path, runtime: str, out_dir: Path = Path("discover")) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"candidates-{runtime}.json"
    out.write_bytes(orjson.dumps(candidates(snap, runtime), option=orjson.OPT_INDENT_2))
    return out


def check_candidates(cands: object) -> dict:
    """``cands`` if it has a candidates file's shape (``candidates``' output), else a
    ``ValueError`` saying what is wrong. Its runtime must be a known one: the name picks the
    ``vocab.json`` that ``--accept`` writes, so it may never be a path."""
    from survey.runtimes import NAMES

    if not isinstance(cands, dict):
        raise ValueError("not a candidates file: not a JSON object")
    if cands.get("runtime") not in NAMES:
        raise ValueError(f"not a candidates file: its runtime is none of {', '.join(NAMES)}")
    keys, values = cands.get("keys"), cands.get("values")

    def counts(d: object) -> bool:
        return isinstance(d, dict) and all(isinstance(k, str) and type(n) is int for k, n in d.items())

    if not counts(keys):
        raise ValueError("not a candidates file: 'keys' is not an object of file counts")
    if not isinstance(values, dict) or not all(isinstance(p, str) and counts(v) for p, v in values.items()):
        raise ValueError("not a candidates file: 'values' is not an object of paths to file counts")
    return cands


def propose(cands: dict, min_files: int = 1) -> tuple[dict, dict]:
    """(proposed vocab.json content, the additions) from a candidates file."""
    cands = check_candidates(cands)
    runtime = cands["runtime"]
    current = orjson.loads((RUNTIMES / runtime / "vocab.json").read_bytes())
    add_keys = sorted(k for k, n in cands["keys"].items() if n >= min_files)
    add_values = {p: sorted(v for v, n in vs.items() if n >= min_files) for p, vs in cands["values"].items()}
    add_values = {p: vs for p, vs in add_values.items() if vs}
    proposed = dict(current)
    proposed["keys"] = sorted(set(current.get("keys", [])) | set(add_keys))
    vals = {p: list(v) for p, v in current.get("values", {}).items()}
    for p, vs in add_values.items():
        vals[p] = sorted(set(vals.get(p, [])) | set(vs))
    proposed["values"] = vals
    return proposed, {"keys": add_keys, "values": add_values}


def vocab_path(runtime: str) -> Path:
    from survey.runtimes import REGISTERED

    return (REGISTERED[runtime].folder if runtime in REGISTERED else RUNTIMES / runtime) / "vocab.json"
