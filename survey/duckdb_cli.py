"""``duckdb``: a small DuckDB shell on the engine the survey computed with, for the pages' commands.

``make`` installs it as ``.venv/bin/duckdb``, so a reviewer's pasted ``duckdb -c ... -c ".read FILE.sql"``
runs on the same ``duckdb`` package the page's figures came from."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

MODES = ("box", "csv", "json", "markdown")
_ROWS = (duckdb.StatementType.SELECT, duckdb.StatementType.PRAGMA, duckdb.StatementType.EXPLAIN,
         duckdb.StatementType.CALL)
USAGE = (f"usage: duckdb [DATABASE] [-{' | -'.join(MODES)}] [-c COMMAND]...  "
         "(COMMAND: SQL, or .read FILE; --version)")


def _json_value(v: Any) -> Any:
    if isinstance(v, (date, datetime)):
        return v.isoformat(sep=" ") if isinstance(v, datetime) else v.isoformat()
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    return v


def _print(con: duckdb.DuckDBPyConnection, query: str, mode: str, out: Any) -> None:
    if mode == "box":
        con.sql(query).show(max_rows=1_000_000, max_col_width=200)
        return
    cur = con.execute(query)
    cols = [d[0] for d in cur.description or ()]
    rows = cur.fetchall()
    if mode == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        w.writerows([["" if v is None else str(v).lower() if isinstance(v, bool) else v for v in r] for r in rows])
    elif mode == "json":
        out.write(json.dumps([{c: _json_value(v) for c, v in zip(cols, r, strict=True)} for r in rows],
                             default=str, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:  # markdown
        out.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
        for r in rows:
            out.write("| " + " | ".join("" if v is None else str(v) for v in r) + " |\n")


def run(con: duckdb.DuckDBPyConnection, text: str, mode: str, out: Any) -> None:
    """Run ``text`` (SQL statements, or a ``.read FILE`` line) the way the DuckDB CLI does."""
    stripped = text.strip()
    if stripped.startswith(".read"):
        name = stripped[len(".read"):].strip().strip("'\"")
        run(con, Path(name).read_text(encoding="utf-8"), mode, out)
        return
    if stripped.startswith("."):
        raise ValueError(f"unsupported dot command: {stripped.split()[0]} (this shell has .read only)")
    for stmt in duckdb.extract_statements(text):
        if stmt.type in _ROWS:
            _print(con, stmt.query, mode, out)
        else:
            con.execute(stmt.query)


def main(argv: Sequence[str] | None = None) -> int:
    """The shell: its exit code.

    The pages print their evidence as ``duckdb -c "SET VARIABLE …" -c ".read FILE.sql"``. No
    DuckDB CLI of every engine release is published, so ``make`` installs this shell as
    ``.venv/bin/duckdb``: it runs those commands on the ``duckdb`` package the survey itself used
    (``--version`` says which), so a reviewer's figures come from the same engine as the page's.
    It is a thin shell over the engine and nothing of the survey: ``-c`` commands run in order on
    one in-memory (or the named) database; ``.read FILE`` runs a file's statements; each
    statement that returns rows prints them (``-box`` by default, or ``-csv``, ``-json``,
    ``-markdown``). With no ``-c``, statements are read from standard input.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    mode, database, commands = "box", ":memory:", []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--version", "-version"):
            print(f"v{duckdb.__version__} (the duckdb package's engine)")
            return 0
        if a in ("-h", "--help", "-help"):
            print(USAGE)
            return 0
        if a == "-c":
            if i + 1 == len(args):
                print("duckdb: -c needs a command", file=sys.stderr)
                return 2
            commands.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-") and a.lstrip("-") in MODES:
            mode = a.lstrip("-")
        elif not a.startswith("-") and database == ":memory:":
            database = a
        else:
            print(f"duckdb: unknown option {a}\n{USAGE}", file=sys.stderr)
            return 2
        i += 1
    con = duckdb.connect(database)
    try:
        for text in commands or [sys.stdin.read()]:
            run(con, text, mode, sys.stdout)
    except (duckdb.Error, OSError, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    finally:
        con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
