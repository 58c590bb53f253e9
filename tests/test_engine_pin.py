"""The engine is pinned exactly (pyproject and constraints.txt agree); the `duckdb` command a
reviewer pastes the pages' commands into runs that same engine and says so; a page prints the
engine's version beside its evidence; and the command prints what the engine computes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import duckdb
import pytest

from survey import duckdb_cli

REPO = Path(__file__).resolve().parents[1]


def test_pyproject_and_constraints_pin_the_engine_exactly() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = [m.group(1) for d in meta["dependencies"] if (m := re.fullmatch(r"duckdb==(\S+)", d))]
    assert len(pins) == 1
    pinned = {line.split("==")[0]: line.split("==")[1] for line in (REPO / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    assert pinned["duckdb"] == pins[0] == duckdb.__version__
    assert "duckdb-cli" not in pinned  # its `duckdb` binary would shadow the engine's own shell
    assert meta["scripts"]["survey-duckdb"] == "survey.duckdb_cli:main"


def test_the_installed_command_is_the_engine_and_the_page_says_which(cursor_survey) -> None:
    cli = Path(sys.executable).parent / "duckdb"
    if not cli.exists():
        pytest.skip("no .venv/bin/duckdb: `make` links it to survey-duckdb")
    said = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert said.split()[0] == f"v{duckdb.__version__}"
    _, res, _ = cursor_survey
    page = Path(res.page).read_text()
    assert f"DuckDB {duckdb.__version__} computed these figures" in page


def _shell(*args: str, stdin: str = "") -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "survey.duckdb_cli", *args], input=stdin, capture_output=True,
                       text=True, timeout=60, cwd=REPO)
    return p.returncode, p.stdout, p.stderr


def test_the_shell_runs_set_variable_then_read_as_the_pages_write_them(tmp_path: Path) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SET VARIABLE k = 2;\nSELECT getvariable('n') * getvariable('k') AS twice, 'a,b' AS s, NULL AS z,"
                   " true AS t;\nCREATE TABLE x AS SELECT 1;\n")
    rc, out, _ = _shell("-json", "-c", "SET VARIABLE n = 21", "-c", f".read {sql}")
    assert rc == 0 and json.loads(out) == [{"twice": 42, "s": "a,b", "z": None, "t": True}]
    rc, out, _ = _shell("-csv", "-c", "SET VARIABLE n = 1", "-c", f".read {sql}")
    assert rc == 0 and out.splitlines() == ["twice,s,z,t", '2,"a,b",,true']
    rc, out, _ = _shell("-markdown", stdin="SELECT 7 AS seven")
    assert rc == 0 and out.splitlines()[-1] == "| 7 |"


def test_the_shell_reports_errors_and_bad_usage_with_exit_codes(tmp_path: Path) -> None:
    rc, out, err = _shell("-c", "SELECT * FROM no_such_table")
    assert rc == 1 and out == "" and err.startswith("Error:")
    assert _shell("-c")[0] == 2
    assert _shell("--frobnicate")[0] == 2
    rc, _, err = _shell("-c", ".mode line")
    assert rc == 1 and ".mode" in err
    assert duckdb_cli.main(["--version"]) == 0
