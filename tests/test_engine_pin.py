"""The `duckdb` CLI a reviewer pastes the pages' commands into runs the engine the survey
ran: pyproject pins duckdb and duckdb-cli to one version, the installed CLI says it, and a
page prints it beside the grep table."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[1]


def test_pyproject_pins_the_package_and_the_cli_together() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = {m.group(1): m.group(2) for d in [*meta["dependencies"], *meta["optional-dependencies"]["dev"]]
            if (m := re.fullmatch(r"(duckdb|duckdb-cli)==(\S+)", d))}
    assert set(pins) == {"duckdb", "duckdb-cli"} and pins["duckdb"] == pins["duckdb-cli"]
    pinned = {line.split("==")[0]: line.split("==")[1] for line in (REPO / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    assert pinned["duckdb"] == pinned["duckdb-cli"] == pins["duckdb"]


def test_the_installed_cli_is_the_engine_and_the_page_says_which(cursor_survey) -> None:
    cli = Path(sys.executable).parent / "duckdb"
    if not cli.exists():
        cli = Path(shutil.which("duckdb") or "duckdb")
    if not cli.exists():
        pytest.skip("no duckdb CLI installed (the dev extras hold duckdb-cli)")
    said = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert said.split()[0].lstrip("v") == duckdb.__version__
    _, res, _ = cursor_survey
    page = Path(res.page).read_text()
    assert f"DuckDB {duckdb.__version__} computed these figures" in page
